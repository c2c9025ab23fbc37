/**
 * The DaemonSet and Job snapshot analyses (`kexp explain ds/NAME|job/NAME` without --watch) on the
 * real #22 captures: the state the API held at a moment of the capture (every object's last
 * version received by then, folded from examples/captures/NAME/recording.kexp.jsonl) analysed as a
 * snapshot taken then. ds-deletion-loss 30 s and more after its template change holds
 * observedGeneration 1 < generation 2 (the controller gated by the leaked del=1); job-dropped-add
 * past its backoff limit is not Failed until the expiry; job-complete and ds-scale-nodes end healthy.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { analyseDaemonSetSnapshot } from '../../src/analysis/daemonset-snapshot.js';
import { analyseJobSnapshot } from '../../src/analysis/job-snapshot.js';
import type { CoreEvent, DaemonSet, Job, Namespace, Node, Pod } from '../../src/model/objects.js';
import { validateReport } from '../support/report-schema.js';

interface State {
  byKind: Map<string, Map<string, any>>;
}

/** Every object's last version received up to `at` (DELETED removes it). */
function stateAt(capture: string, at: string): State {
  const byKind = new Map<string, Map<string, any>>();
  for (const l of fs.readFileSync(`examples/captures/${capture}/recording.kexp.jsonl`, 'utf8').split('\n')) {
    if (!l.trim()) continue;
    const o = JSON.parse(l);
    if (!o.event || o.recv > at || o.event.type === 'BOOKMARK' || o.event.type === 'ERROR') continue;
    const obj = o.event.object;
    const m = byKind.get(obj.kind) ?? new Map();
    byKind.set(obj.kind, m);
    if (o.event.type === 'DELETED') m.delete(obj.metadata.uid);
    else m.set(obj.metadata.uid, obj);
  }
  return { byKind };
}

const all = <T>(s: State, kind: string): T[] => [...(s.byKind.get(kind)?.values() ?? [])] as T[];

function ds(capture: string, at: string, withNodes = true) {
  const s = stateAt(capture, at);
  return analyseDaemonSetSnapshot(all<DaemonSet>(s, 'DaemonSet')[0]!, {
    pods: all<Pod>(s, 'Pod'), events: all<CoreEvent>(s, 'Event'), ...(withNodes ? { nodes: all<Node>(s, 'Node') } : {}), ns: all<Namespace>(s, 'Namespace')[0],
  }, Date.parse(at));
}

function job(capture: string, at: string) {
  const s = stateAt(capture, at);
  return analyseJobSnapshot(all<Job>(s, 'Job')[0]!, { pods: all<Pod>(s, 'Pod'), events: all<CoreEvent>(s, 'Event') }, Date.parse(at));
}

function schemaOk(r: ReturnType<typeof ds>['report']): void {
  const report = { schemaVersion: 'kexp.report/v1', generator: { name: 'kexp', version: 't', command: 'explain' }, k8sVersion: { version: '1.37.2', basis: 'input' }, inputs: [], coverage: { timeBasis: [], assumptions: [], gaps: [], problems: { count: 0, examples: [] } }, replicaSets: [r] };
  assert.deepEqual(validateReport(report), []);
}

test('ds-deletion-loss, 2 min after the template change (43 s after the scenario\'s last touch): observedGeneration 1 < generation 2 — gated (inferred), the window not told, --watch suggested', () => {
  const a = ds('ds-deletion-loss', '2026-12-05T08:01:40.000000Z');
  assert.equal(a.report.kind, 'DaemonSet');
  assert.equal(a.report.key, 'kexp-ds-deletion-loss/agent');
  assert.equal(a.report.verdict.state, 'gated');
  assert.equal(a.report.verdict.basis, 'inferred');
  assert.match(a.report.verdict.summary, /^observedGeneration 1 < generation 2: the controller has not processed the spec change \(at least 43 s old: its writer's last write by managedFields\)/);
  assert.match(a.report.verdict.summary, /the window cannot be told from a snapshot: --watch/);
  const f = a.report.findings.find((x) => x.id === 'daemonset-spec-not-observed')!;
  assert.equal(f.severity, 'critical');
  assert.match(f.nextStep, /kexp explain ds\/agent -n kexp-ds-deletion-loss --watch 30s/);
  assert.deepEqual(a.report.gatedWindows, []);
  assert.match(a.facts, /^desired 4, current 4, misscheduled 1, updated 0, ready 0, available 0; pods 4 active, 0 terminating, 0 failed; observedGeneration 1\/2; nodes 5, 4 should run a daemon pod, 0 of them without one/);
  assert.equal(a.report.counts.active.last, 4);
  schemaOk(a.report);
});

test('ds-deletion-loss, 3 s after a write by the spec\'s writer: the change may be newer than the stall time — converging, not gated', () => {
  const a = ds('ds-deletion-loss', '2026-12-05T08:01:00.000000Z');
  assert.equal(a.report.verdict.state, 'converging');
  assert.equal(a.report.findings.find((x) => x.id === 'daemonset-spec-not-observed')!.severity, 'info');
});

test('ds-scale-nodes at its end: healthy (observed), 4/4; without the Nodes placement is unknown, said by a finding', () => {
  const end = '2026-12-05T07:59:42.800000Z';
  const a = ds('ds-scale-nodes', end);
  assert.equal(a.report.verdict.state, 'healthy');
  assert.match(a.report.verdict.summary, /^healthy: 4\/4 nodes run a daemon pod, 4 updated/);
  assert.equal(a.report.findings.length, 0);
  assert.ok(a.report.rounds.some((r) => r.kind === 'create' && r.basis === 'observed'), 'rounds from the SuccessfulCreate Events');
  const b = ds('ds-scale-nodes', end, false);
  assert.equal(b.report.verdict.state, 'healthy');
  assert.match(b.report.verdict.summary, /node placement not checked/);
  assert.equal(b.report.findings[0]!.id, 'daemonset-node-placement-unknown');
  assert.equal(b.report.findings[0]!.basis, 'unknown');
  assert.match(b.facts, /nodes not readable \(placement unknown\)/);
});

test('job-dropped-add past its backoff limit, not Failed: gated (inferred) — the controller cannot declare it finished while unsatisfied', () => {
  const a = job('job-dropped-add', '2026-12-05T08:02:00.000000Z');
  assert.equal(a.report.kind, 'Job');
  assert.equal(a.report.verdict.state, 'gated');
  assert.equal(a.report.verdict.basis, 'inferred');
  assert.match(a.report.verdict.summary, /^1 failed > backoffLimit 0, yet the Job is not Failed after \d+ s without progress/);
  assert.match(a.report.verdict.summary, /Can't declare the Job as finished yet/);
  assert.match(a.facts, /^active 0, succeeded 0, failed 1, ready 0, terminating 0 \(status\)/);
  schemaOk(a.report);
  // After the expiry the controller failed it: done.
  const b = job('job-dropped-add', '2026-12-05T08:04:20.000000Z');
  assert.equal(b.report.verdict.state, 'healthy');
  assert.match(b.report.verdict.summary, /the Job is Failed \(BackoffLimitExceeded\)/);
});

test('job-complete: while pods finish the tracking finalizer is held briefly (info), at the end Complete 5/1 and none holds it', () => {
  const lines = fs.readFileSync('examples/captures/job-complete/recording.kexp.jsonl', 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
  const last = lines.filter((o) => o.recv).at(-1).recv as string;
  const a = job('job-complete', last);
  assert.equal(a.report.verdict.state, 'healthy');
  assert.match(a.report.verdict.summary, /the Job is Complete/);
  assert.match(a.report.verdict.summary, /5 succeeded, 1 failed/);
  assert.equal(a.report.findings.some((f) => f.id === 'job-tracking-finalizer-held'), false);
  // A Succeeded pod whose finalizer the controller has not removed yet: the moment between.
  const held = lines.find((o) => o.event?.object?.kind === 'Pod' && o.event.object.status?.phase === 'Succeeded' && (o.event.object.metadata.finalizers ?? []).includes('batch.kubernetes.io/job-tracking'));
  assert.ok(held, 'the capture shows a finished pod with the finalizer');
  const b = job('job-complete', held.recv);
  const f = b.report.findings.find((x) => x.id === 'job-tracking-finalizer-held')!;
  assert.equal(f.severity, 'info');
  assert.equal(f.basis, 'observed');
  assert.notEqual(b.report.verdict.state, 'gated');
});

test('a Job whose finished pod holds the tracking finalizer for minutes (kubernetes#127917): gated (inferred), critical finding', () => {
  const lines = fs.readFileSync('examples/captures/job-complete/recording.kexp.jsonl', 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
  const held = lines.find((o) => o.event?.object?.kind === 'Pod' && o.event.object.status?.phase === 'Succeeded' && (o.event.object.metadata.finalizers ?? []).includes('batch.kubernetes.io/job-tracking'));
  const s = stateAt('job-complete', held.recv);
  const jobObj = all<Job>(s, 'Job')[0]!;
  // The same state read 10 minutes later, as if the controller never counted the pod.
  const later = Date.parse(held.recv) + 10 * 60_000;
  const a = analyseJobSnapshot(jobObj, { pods: all<Pod>(s, 'Pod'), events: all<CoreEvent>(s, 'Event') }, later);
  assert.equal(a.report.verdict.state, 'gated');
  assert.match(a.report.verdict.summary, /still hold(s)? the job-tracking finalizer after \d+ s: the controller has not counted them, and the Job cannot finish until it does/);
  assert.equal(a.report.findings.find((x) => x.id === 'job-tracking-finalizer-held')!.severity, 'critical');
});
