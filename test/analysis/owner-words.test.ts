/**
 * Reports name their owner's kind (report/owner-words.ts): a DaemonSet's and a
 * ReplicationController's verdict, findings, next steps, window and round notes, table and HTML
 * say "DaemonSet" / "ReplicationController" and their kubectl resource, never "ReplicaSet" where
 * no ReplicaSet is meant; a DaemonSet leak names the generation its gate holds back; rules whose
 * reasoning is the ReplicaSet's do not fire for a DaemonSet. DaemonSet recordings are written by
 * test/support/daemonset-recording.ts in the shape the real control plane produces; the RC is the
 * converted capture in test/fixtures/replicationcontroller/.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { replayFiles } from '../../src/pipeline/replay-files.js';
import { renderTable } from '../../src/render/table.js';
import { renderHtml } from '../../src/render/html.js';
import { renderAuditRanking } from '../../src/render/audit-table.js';
import { standaloneRsErrorLine } from '../../src/analysis/findings/replicaset-rules.js';
import { desiredMeaning, endedByLabel, ownerNouns, ownerWords, ownerWordsOf } from '../../src/analysis/report/owner-words.js';
import type { ReplayedTrack } from '../../src/analysis/report/replayed-track.js';
import type { Report, ReplicaSetReport } from '../../src/analysis/report-types.js';
import { changed } from '../model/daemonset/daemonset-harness.js';
import { daemonPod, daemonSet, dsEvent, node, recording, T0 } from '../support/daemonset-recording.js';

const S = 1000;
const MIN = 60 * S;
const isoS = (ms: number) => new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kexp-owner-words-'));

function status(desired: number, current: number, observedGeneration: number) {
  return { desiredNumberScheduled: desired, currentNumberScheduled: current, numberMisscheduled: 0, numberReady: 0, updatedNumberScheduled: current, numberAvailable: 0, numberUnavailable: desired, observedGeneration };
}

async function replay(name: string, text: string): Promise<{ report: Report; r: ReplicaSetReport }> {
  const file = path.join(dir, `${name}.kexp.jsonl`);
  fs.writeFileSync(file, text);
  const { report } = await replayFiles({ files: [file] });
  assert.equal(report.replicaSets.length, 1);
  return { report, r: report.replicaSets[0]! };
}

/**
 * kubernetes#136932: a daemon pod made terminating right after its creation is counted as a
 * deletion, `add` is never lowered. `bump` changes the DaemonSet's spec (generation 2) after the
 * leak began, with the gated status write that leaves observedGeneration at 1.
 */
function terminatingAtAdd(end: number, bump: boolean): string {
  const ds = daemonSet();
  const p = daemonPod(ds, 'n1', { at: T0 + S, name: 'agent-w8k2n' });
  p.metadata.deletionTimestamp = isoS(T0 + 31 * S);
  p.metadata.deletionGracePeriodSeconds = 30;
  const ds1 = changed(ds, (d) => { d.status = status(1, 1, 1); });
  const ds2 = changed(ds1, (d) => {
    d.metadata.generation = 2;
    d.metadata.annotations!['deprecated.daemonset.template.generation'] = '2';
  });
  return recording([
    { at: T0, src: 'nodes', type: 'ADDED', object: node('n1') },
    { at: T0 + 500, src: 'daemonsets', type: 'ADDED', object: ds },
    { at: T0 + S, src: 'pods', type: 'ADDED', object: p },
    { at: T0 + S + 20, src: 'events', type: 'ADDED', object: dsEvent(ds, T0 + S, 'SuccessfulCreate', `Created pod: ${p.metadata.name}`) },
    { at: T0 + S + 60, src: 'daemonsets', type: 'MODIFIED', object: ds1 },
    { at: T0 + 31 * S, src: 'pods', type: 'DELETED', object: changed(p, () => {}) },
    ...(bump ? [
      { at: T0 + 2 * MIN, src: 'daemonsets' as const, type: 'MODIFIED' as const, object: ds2 },
      { at: T0 + 2 * MIN + 50, src: 'daemonsets' as const, type: 'MODIFIED' as const, object: changed(ds2, (d) => { d.status = status(1, 0, 1); }) },
    ] : []),
  ], end, 'kube-system');
}

/** Every human string of one report entry: verdict, findings, notes, initial state. */
function texts(r: ReplicaSetReport): string[] {
  return [
    r.verdict.summary, r.initialState.reason,
    ...r.findings.flatMap((f) => [f.title, f.explanation, f.nextStep]),
    ...r.gatedWindows.map((w) => w.note ?? ''),
    ...r.rounds.map((x) => x.note ?? ''),
    ...r.adoption.rows.map((x) => x.reason),
  ];
}

/** The report as an operator reads it: the entry's strings, the terminal table and the HTML page. */
function everything(report: Report, r: ReplicaSetReport): string {
  return [...texts(r), renderTable(report, 100), renderHtml(report)].join('\n');
}

test('a leaked DaemonSet (kubernetes#136932): verdict, cause, next step, notes, table and HTML say DaemonSet and `ds`, never ReplicaSet', async () => {
  const { report, r } = await replay('leak', terminatingAtAdd(T0 + 10 * MIN, false));
  assert.equal(r.kind, 'DaemonSet');
  assert.equal(r.verdict.state, 'leaked');
  assert.equal(r.verdict.summary, 'Controller gated by a leaked expectation: only the timeout (or deleting the DaemonSet) will clear it');
  const leak = r.findings.find((f) => f.id === 'expectation-leak-open')!;
  assert.match(leak.explanation, /a trigger — a pod, node or DaemonSet change, an error requeue/);
  assert.match(leak.nextStep, /`kubectl annotate ds agent -n kube-system kexp\.io\/poke=/);
  assert.doesNotMatch(leak.nextStep, /observedGeneration/, 'no spec change in the input: nothing held back to name');
  const all = everything(report, r);
  assert.doesNotMatch(all, /ReplicaSet/);
  const table = renderTable(report, 100);
  assert.match(table, /^DaemonSet kube-system\/agent {2}uid ds-uid-1$/m);
  // The audit command's ranking names the kind its reports share.
  const ranking = renderAuditRanking(report, [], { width: 200 });
  assert.match(ranking, /^1 DaemonSet, 1 needing a look; worst: kube-system\/agent$/m);
  assert.match(ranking, /^DAEMONSET +VERDICT/m);
  assert.match(ranking, /full report of one DaemonSet\.$/m);
  assert.doesNotMatch(ranking, /ReplicaSet/);
  assert.match(table, /^ {2}Desired 1→1 \(nodes that should run it\); active 0→0/m);
  assert.match(table, /^ {2}kubectl -n kube-system describe ds agent$/m);
  assert.match(renderHtml(report), /desired 1→1 \(nodes that should run it\) · active/);
});

test('a leaked DaemonSet whose spec changed meanwhile: the next step names the generation the gate holds back and when the record expired', async () => {
  const { report, r } = await replay('leak-generation', terminatingAtAdd(T0 + 10 * MIN, true));
  assert.equal(r.verdict.state, 'leaked');
  const leak = r.findings.find((f) => f.id === 'expectation-leak-open')!;
  assert.equal(
    leak.nextStep,
    'observedGeneration 1 < generation 2: the rolling update has not started; the record expired at 2026-12-05T08:05:00.500Z, so the next sync processes it. ' +
      'The record is already expired: trigger a sync now, e.g. `kubectl annotate ds agent -n kube-system kexp.io/poke="$(date +%s)" --overwrite`.',
  );
  assert.doesNotMatch(everything(report, r), /ReplicaSet/);
});

test('a DaemonSet gated at the end of the input with its spec changed: a rolling update will not start until the record expires', async () => {
  const { report, r } = await replay('gated-generation', terminatingAtAdd(T0 + 4 * MIN, true));
  // Before the expiry, and already a leak: the pod reached the controller terminating, so the record waits for a creation it will never see.
  assert.equal(r.verdict.state, 'leaked');
  const leak = r.findings.find((f) => f.id === 'expectation-leak-open')!;
  assert.match(leak.explanation, /reached the controller already terminating/);
  assert.match([leak.explanation, leak.nextStep].join(' '), /observedGeneration 1 < generation 2: a rolling update will not start until the record expires at 2026-12-05T08:05:00\.500Z/);
  assert.doesNotMatch(everything(report, r), /ReplicaSet/);
});

test('a healthy DaemonSet: its verdict says what its desired count is', async () => {
  const ds = daemonSet();
  const pods = ['n1', 'n2'].map((n, i) => daemonPod(ds, n, { at: T0 + S, name: `agent-h${i}q7x` }));
  const { report, r } = await replay('healthy', recording([
    { at: T0, src: 'nodes', type: 'ADDED', object: node('n1') },
    { at: T0, src: 'nodes', type: 'ADDED', object: node('n2') },
    { at: T0 + 500, src: 'daemonsets', type: 'ADDED', object: ds },
    ...pods.flatMap((p, i) => [
      { at: T0 + S + 30 * i, src: 'pods' as const, type: 'ADDED' as const, object: p },
      { at: T0 + S + 30 * i + 10, src: 'events' as const, type: 'ADDED' as const, object: dsEvent(ds, T0 + S, 'SuccessfulCreate', `Created pod: ${p.metadata.name}`) },
    ]),
    { at: T0 + S + 80, src: 'daemonsets', type: 'MODIFIED', object: changed(ds, (d) => { d.status = status(2, 2, 1); }) },
  ], T0 + MIN, 'kube-system'));
  assert.equal(r.verdict.state, 'healthy');
  assert.equal(r.verdict.summary, 'controller healthy: 2/2 pods active (desired: the nodes that should run it), not gated (0 ready — readiness is up to the kubelet, not this controller)');
  assert.doesNotMatch(everything(report, r), /ReplicaSet/);
});

test('a ReplicationController report names the RC and its manager; "ReplicaSet" only where the upstream code or a ReplicaSet is meant', async () => {
  const { report } = await replayFiles({ files: ['test/fixtures/replicationcontroller/dropped-add-no-trigger.kexp.jsonl'] });
  const r = report.replicaSets[0]!;
  assert.equal(r.kind, 'ReplicationController');
  assert.equal(r.verdict.summary, 'Controller gated by a leaked expectation: only the timeout (or deleting the ReplicationController) will clear it');
  const leak = r.findings.find((f) => f.id === 'expectation-leak-open')!;
  assert.match(leak.explanation, /a trigger — a pod or ReplicationController change,/);
  assert.match(leak.nextStep, /`kubectl annotate rc web -n kexp-rc-dropped-add /);
  // The RC manager runs the ReplicaSet controller's code: its upstream functions keep their names; nothing else says ReplicaSet.
  const upstream = /\b(syncReplicaSet|updateReplicaSetStatus|manageReplicas)\b/g;
  assert.ok(texts(r).some((s) => /syncReplicaSet writes status\.replicas/.test(s)), 'the informer-behind finding cites the shared sync');
  assert.deepEqual(texts(r).filter((s) => /ReplicaSet/.test(s.replace(upstream, ''))), []);
  assert.doesNotMatch(everything(report, r).replace(upstream, ''), /ReplicaSet/);
  const table = renderTable(report, 100);
  assert.match(table, /^ReplicationController kexp-rc-dropped-add\/web /m);
  assert.match(table, /kubectl -n kexp-rc-dropped-add describe rc web/);
});

test('the ReplicaSet\'s "has no controller" noise rule does not fire for a DaemonSet, whose controller logs no such line', () => {
  const track = { t: { key: 'kube-system/agent', noControllerNoise: 3 }, resource: 'ds' } as unknown as ReplayedTrack;
  assert.equal(standaloneRsErrorLine.find(track, track), undefined);
  const rs = { ...track, resource: 'rs' } as ReplayedTrack;
  const f = standaloneRsErrorLine.find(rs, rs) as { id: string; explanation: string };
  assert.equal(f.id, 'standalone-rs-error-line');
  assert.match(f.explanation, /on each of its 3 scale-down syncs/);
});

test('the kind table: the ReplicaSet row is the report\'s old words; each kind its own noun, resource, sync and status count', () => {
  assert.equal(ownerWordsOf({}), ownerWords('rs'));
  assert.equal(ownerWordsOf({ kind: 'DaemonSet' }), ownerWords('ds'));
  assert.equal(ownerWordsOf({ kind: 'ReplicationController' }).sync, 'syncReplicaSet', 'the RC manager runs the ReplicaSet controller\'s code');
  assert.deepEqual(['rs', 'rc', 'ds', 'job'].map((k) => [ownerWords(k as 'rs').noun, ownerWords(k as 'rs').sync, ownerWords(k as 'rs').statusCount.field]), [
    ['ReplicaSet', 'syncReplicaSet', 'status.replicas'],
    ['ReplicationController', 'syncReplicaSet', 'status.replicas'],
    ['DaemonSet', 'syncDaemonSet', 'status.currentNumberScheduled'],
    ['Job', 'syncJob', 'status.active'],
  ]);
  assert.equal(desiredMeaning({}), '');
  assert.equal(desiredMeaning({ kind: 'DaemonSet' }), ' (nodes that should run it)');
  assert.equal(endedByLabel({}, 'rs-deleted'), 'rs-deleted');
  assert.equal(endedByLabel({ kind: 'DaemonSet' }, 'rs-deleted'), 'ds-deleted');
  assert.equal(endedByLabel({ kind: 'DaemonSet' }, 'expired'), 'expired');
  assert.equal(ownerNouns([{}, {}]), 'ReplicaSets');
  assert.equal(ownerNouns([{ kind: 'DaemonSet' }]), 'DaemonSets');
  assert.equal(ownerNouns([{}, { kind: 'DaemonSet' }]), 'owners');
  assert.equal(ownerWords('ds').templateOwner, undefined);
  assert.equal(ownerWords('rs').templateOwner, 'Deployment');
});
