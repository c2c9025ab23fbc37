/**
 * The DaemonSet and Job captures of issue #22 (examples/captures/{ds-scale-nodes,ds-deletion-loss,
 * job-complete,job-dropped-add}, test/e2e/scenarios/run-workload-scenarios.ts): what the real
 * v1.37.2 daemonset and job controllers did, as their own -v=4 log, the audit log and the proxy's
 * fault log show it. These checks look only at the captures (kexp has no DaemonSet or Job model
 * yet): a capture re-made without the incident it is for fails here.
 *
 * The sliced log holds one namespace's lines, so its keyless expectations lines ("Setting
 * expectations", "still waiting", "expired") are read in log order as that controller's.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { faultEntries, logLines, type LogLine } from '../e2e/scenarios/controller-truth.js';

const DS_CONTROLLER = 'system:serviceaccount:kube-system:daemon-set-controller';
const JOB_CONTROLLER = 'system:serviceaccount:kube-system:job-controller';
const TIMEOUT_MS = 300_000;

/** One completed write of the audit slice, with its response object. */
interface Write {
  at: number;
  line: number;
  verb: string;
  resource: string;
  subresource?: string;
  name?: string;
  code: number;
  user: string;
  response?: any;
}

function dirOf(name: string): string {
  const dir = path.join('examples', 'captures', name);
  assert.ok(fs.existsSync(dir), `${dir} is missing (capture it with test/e2e/scenarios/run-workload-scenarios.ts)`);
  assert.ok(!fs.existsSync(path.join(dir, 'NOT-REPRODUCED')), `${name} was not reproduced`);
  return dir;
}

function writes(dir: string): Write[] {
  const out: Write[] = [];
  fs.readFileSync(path.join(dir, 'audit.jsonl'), 'utf8').split('\n').forEach((l, i) => {
    if (!l) return;
    const e = JSON.parse(l);
    if (e.stage !== 'ResponseComplete' || ['get', 'list', 'watch'].includes(e.verb)) return;
    const r = e.objectRef ?? {};
    out.push({ at: Date.parse(e.requestReceivedTimestamp), line: i + 1, verb: e.verb, resource: r.resource, subresource: r.subresource, name: r.name ?? e.responseObject?.metadata?.name, code: e.responseStatus?.code ?? 0, user: e.user?.username ?? '', response: e.responseObject });
  });
  return out.sort((a, b) => a.at - b.at);
}

/** The KCM log's lines; klog prints no year, the audit log's first write gives it. */
function log(dir: string): LogLine[] {
  return logLines(path.join(dir, 'kcm.log'), new Date(writes(dir)[0]!.at).getUTCFullYear());
}

const rounds = (l: LogLine[], what: 'createCount' | 'deleteCount') =>
  l.map((x) => new RegExp(`${what}=(\\d+)`).exec(x.text)).filter((m): m is RegExpExecArray => !!m).map((m) => Number(m[1])).filter((n) => n > 0);

function condition(job: any, type: string): boolean {
  return (job?.status?.conditions ?? []).some((c: any) => c.type === type && c.status === 'True');
}

test('workload capture ds-scale-nodes: 3 creates, then 1 and 1 for the two new nodes, then one delete for the unlabelled node', () => {
  const dir = dirOf('ds-scale-nodes');
  const l = log(dir);
  assert.deepEqual(rounds(l, 'createCount'), [3, 1, 1]);
  assert.deepEqual(rounds(l, 'deleteCount'), [1]);
  assert.ok(!l.some((x) => x.text.includes('"Controller expectations expired"')), 'no record expires');
  const w = writes(dir).filter((x) => x.user === DS_CONTROLLER && x.resource === 'pods' && !x.subresource);
  assert.equal(w.filter((x) => x.verb === 'create' && x.code === 201).length, 5);
  assert.equal(w.filter((x) => x.verb === 'delete' && x.code === 200).length, 1);
});

test('workload capture ds-deletion-loss: del=1 leaks until the 5-minute expiry, observedGeneration lags, the ghost is deleted again (404)', () => {
  const dir = dirOf('ds-deletion-loss');
  const hidden = faultEntries(path.join(dir, 'faults.jsonl')).filter((e) => e.action === 'hide-deletion' && e.event === 'DELETED');
  assert.ok(hidden.length >= 1, 'the proxy hid the DELETED of the victim');
  const victim = hidden[0]!.name!;
  const l = log(dir);
  const set = l.findIndex((x) => x.text.includes(`toDeleteCount=["${victim}"] deleteCount=1`));
  assert.ok(set >= 0, `a delete round for ${victim}`);
  const expired = l.findIndex((x, i) => i > set && x.text.includes('"Controller expectations expired"'));
  assert.ok(expired > set, 'the record expires');
  assert.ok(l[expired]!.at - l[set]!.at > TIMEOUT_MS, `expired ${l[expired]!.at - l[set]!.at} ms after the Set, past the ExpectationsTimeout`);
  const between = l.slice(set + 1, expired);
  assert.ok(between.filter((x) => x.text.includes('"Controller still waiting on expectations"')).length >= 5, 'gated syncs in the window');
  assert.ok(!between.some((x) => x.text.includes('"Nodes needing daemon pods for daemon set, creating"')), 'no round while gated');
  const w = writes(dir);
  const expiry = l[expired]!.at;
  const status = w.filter((x) => x.user === DS_CONTROLLER && x.resource === 'daemonsets' && x.subresource === 'status');
  const lagging = status.filter((x) => x.at < expiry && x.response?.metadata?.generation === 2);
  assert.ok(lagging.length >= 3, 'status writes of generation 2 in the window');
  assert.ok(lagging.every((x) => x.response.status.observedGeneration === 1), 'the gated syncs do not raise observedGeneration');
  assert.ok(status.some((x) => x.at > expiry && x.response?.status?.observedGeneration === 2), 'observedGeneration 2 after the expiry');
  const ghost = w.filter((x) => x.user === DS_CONTROLLER && x.resource === 'pods' && x.verb === 'delete' && x.name === victim);
  assert.equal(ghost.filter((x) => x.at < expiry).map((x) => x.code).join(), '200', 'one delete of the victim before the expiry');
  assert.ok(ghost.some((x) => x.at > expiry && x.code === 404), 'the ghost deleted again after the expiry: 404');
  assert.ok(l.slice(expired).some((x) => x.text.includes('"Pod has already been deleted."') && x.text.includes(victim)));
});

test('workload capture job-complete: 5 succeeded and 1 failed, each finalizer removal tracked, the Job complete', () => {
  const dir = dirOf('job-complete');
  const l = log(dir);
  const created = l.map((x) => /"Too few pods running" .* creating=(\d+)/.exec(x.text)).filter(Boolean).reduce((n, m) => n + Number(m![1]), 0);
  assert.equal(created, 6);
  assert.equal(l.filter((x) => x.text.includes('"Observed tracking finalizer removed"')).length, 6);
  const status = writes(dir).filter((x) => x.user === JOB_CONTROLLER && x.resource === 'jobs' && x.subresource === 'status');
  const last = status[status.length - 1]!.response;
  assert.ok(condition(last, 'Complete'));
  assert.equal(last.status.succeeded, 5);
  assert.equal(last.status.failed, 1);
});

test('workload capture job-dropped-add: add=1 leaks; the backoff limit is exceeded but the Job is declared Failed only after the expiry', () => {
  const dir = dirOf('job-dropped-add');
  const dropped = faultEntries(path.join(dir, 'faults.jsonl')).filter((e) => e.action === 'drop' && e.event === 'ADDED');
  assert.equal(dropped.length, 1);
  const l = log(dir);
  const set = l.findIndex((x) => /"Too few pods running" .* creating=2/.test(x.text));
  assert.ok(set >= 0);
  const expired = l.findIndex((x, i) => i > set && x.text.includes('"Controller expectations expired"'));
  assert.ok(expired > set && l[expired]!.at - l[set]!.at > TIMEOUT_MS, 'the record expires after the ExpectationsTimeout');
  assert.ok(l.slice(set, expired).filter((x) => x.text.includes('"Controller still waiting on expectations"')).length >= 5);
  const expiry = l[expired]!.at;
  const status = writes(dir).filter((x) => x.user === JOB_CONTROLLER && x.resource === 'jobs' && x.subresource === 'status');
  const before = status.filter((x) => x.at < expiry);
  assert.ok(before.some((x) => x.response?.status?.failed === 1), 'the failure is counted while gated');
  assert.ok(!before.some((x) => condition(x.response, 'FailureTarget') || condition(x.response, 'Failed')), 'no finish condition while gated');
  assert.ok(status.some((x) => x.at > expiry && condition(x.response, 'Failed')), 'Failed after the expiry');
});
