/**
 * DaemonSets replayed from a recording, end to end through the pipeline (replay-files.ts → the
 * owner-kind views → the DaemonSet engine → the report): the kind on the report, the rounds the
 * DaemonSet controller made, its gated windows, the victim of a rolling update taken from the
 * input. Recordings are written by test/support/daemonset-recording.ts in the shape the real
 * control plane produces.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { replayFiles } from '../../src/pipeline/replay-files.js';
import { validateReport } from '../support/report-schema.js';
import { changed } from '../model/daemonset/daemonset-harness.js';
import { daemonPod, daemonSet, dsEvent, node, recording, T0 } from '../support/daemonset-recording.js';

const S = 1000;
const MIN = 60 * S;
const isoS = (ms: number) => new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kexp-ds-'));

async function replayOf(name: string, text: string) {
  const file = path.join(dir, `${name}.kexp.jsonl`);
  fs.writeFileSync(file, text);
  const { report, problems } = await replayFiles({ files: [file] });
  assert.deepEqual(problems, []);
  assert.deepEqual(validateReport(report), []);
  const ds = report.replicaSets.find((r) => r.kind === 'DaemonSet');
  assert.ok(ds, 'a DaemonSet report');
  return { report, ds };
}

function status(desired: number, current: number, observedGeneration: number, extra: Record<string, number> = {}) {
  return { desiredNumberScheduled: desired, currentNumberScheduled: current, numberMisscheduled: 0, numberReady: 0, updatedNumberScheduled: current, numberAvailable: 0, numberUnavailable: desired, observedGeneration, ...extra };
}

test('a DaemonSet over two nodes: one create round of 2 in slow-start batches, its window fulfilled by the pods, healthy', async () => {
  const n1 = node('n1');
  const n2 = node('n2');
  const ds = daemonSet();
  const p1 = daemonPod(ds, 'n1', { at: T0 + S, name: 'agent-q7x2k' });
  const p2 = daemonPod(ds, 'n2', { at: T0 + S, name: 'agent-m4v9d' });
  const synced = changed(ds, (d) => { d.status = status(2, 2, 1); });
  const { ds: r, report } = await replayOf('healthy', recording([
    { at: T0, src: 'nodes', type: 'ADDED', object: n1 },
    { at: T0, src: 'nodes', type: 'ADDED', object: n2 },
    { at: T0 + 500, src: 'daemonsets', type: 'ADDED', object: ds },
    { at: T0 + S, src: 'pods', type: 'ADDED', object: p1 },
    { at: T0 + S + 20, src: 'events', type: 'ADDED', object: dsEvent(ds, T0 + S, 'SuccessfulCreate', `Created pod: ${p1.metadata.name}`) },
    { at: T0 + S + 30, src: 'pods', type: 'ADDED', object: p2 },
    { at: T0 + S + 40, src: 'events', type: 'ADDED', object: dsEvent(ds, T0 + S, 'SuccessfulCreate', `Created pod: ${p2.metadata.name}`) },
    { at: T0 + S + 60, src: 'daemonsets', type: 'MODIFIED', object: synced },
  ], T0 + MIN, 'kube-system'));
  assert.equal(report.replicaSets.length, 1, 'no ReplicaSet report for the DaemonSet\'s pods');
  assert.equal(r.key, 'kube-system/agent');
  assert.equal(r.verdict.state, 'healthy');
  assert.deepEqual(r.rounds.map((x) => [x.kind, x.n, x.successes]), [['create', 2, 2]]);
  assert.deepEqual(r.gatedWindows.map((w) => [w.raised.add, w.raised.del, w.endedBy]), [[2, 0, 'fulfilled']]);
  assert.deepEqual(r.adoption.rows.map((x) => [x.pod, x.action]), [['kube-system/agent-m4v9d', 'keep'], ['kube-system/agent-q7x2k', 'keep']]);
  assert.match(r.adoption.rows[0]!.reason, /controlled by DaemonSet agent/);
  assert.equal(r.counts.desired.last, 2, 'the desired count the controller wrote (status.desiredNumberScheduled)');
});

test('a pod the DaemonSet controller first sees already terminating is a deletion: add is never lowered, the DaemonSet is gated until the record expires and nothing syncs it after (kubernetes#136932)', async () => {
  const ds = daemonSet();
  const p = daemonPod(ds, 'n1', { at: T0 + S, name: 'agent-w8k2n' });
  p.metadata.deletionTimestamp = isoS(T0 + 31 * S);
  p.metadata.deletionGracePeriodSeconds = 30;
  const { ds: r } = await replayOf('terminating-at-add', recording([
    { at: T0, src: 'nodes', type: 'ADDED', object: node('n1') },
    { at: T0 + 500, src: 'daemonsets', type: 'ADDED', object: ds },
    { at: T0 + S, src: 'pods', type: 'ADDED', object: p },
    { at: T0 + S + 20, src: 'events', type: 'ADDED', object: dsEvent(ds, T0 + S, 'SuccessfulCreate', `Created pod: ${p.metadata.name}`) },
    { at: T0 + S + 60, src: 'daemonsets', type: 'MODIFIED', object: changed(ds, (d) => { d.status = status(1, 1, 1); }) },
    // (a DELETED event carries the object at the deletion's resourceVersion)
    { at: T0 + 31 * S, src: 'pods', type: 'DELETED', object: changed(p, () => {}) },
    // the gated sync the DELETED triggers writes status only: no pod on n1 now
    { at: T0 + 31 * S + 40, src: 'daemonsets', type: 'MODIFIED', object: changed(ds, (d) => { d.status = status(1, 0, 1); }) },
  ], T0 + 10 * MIN, 'kube-system'));
  assert.deepEqual(r.rounds.map((x) => [x.kind, x.n]), [['create', 1]], 'no replacement: the only round is the first');
  const w = r.gatedWindows[0]!;
  assert.deepEqual([w.raised.add, w.raised.del], [1, 0]);
  assert.equal(w.endedBy, 'open', 'still open at the end: expired, and no sync came after');
  assert.ok((w.gatedSyncs ?? 0) >= 1, 'the pod events synced it, gated');
  assert.equal(r.counts.active.last, 0);
  assert.ok(!r.findings.some((f) => /had not observed the deletion/.test(f.title)), 'its status write after the DELETED counts no pod: the controller saw it');
  assert.ok(r.findings.some((f) => /agent-w8k2n reached the controller already terminating/.test(f.explanation) && /kubernetes#136932/.test(f.explanation)), r.findings.map((f) => f.explanation).join('\n'));
});

test('a rolling update without surge: the controller\'s choice of the old pod to delete is taken from the input, the new pod created after', async () => {
  const nodes = ['n1', 'n2', 'n3'].map((n) => node(n));
  const ds1 = changed(daemonSet({ generation: 1 }), (d) => { d.status = status(3, 3, 1, { numberReady: 3, numberAvailable: 3, numberUnavailable: 0 }); });
  const old = ['n1', 'n2', 'n3'].map((n, i) => daemonPod(ds1, n, { at: T0 - 10 * MIN, name: `agent-old${i}z`, bound: true, ready: true }));
  const ds2 = changed(ds1, (d) => {
    d.metadata.generation = 2;
    d.metadata.annotations!['deprecated.daemonset.template.generation'] = '2';
  });
  const fresh = daemonPod(ds2, 'n2', { at: T0 + MIN + S, name: 'agent-new2z', generation: 2 });
  const { ds: r } = await replayOf('rolling', recording([
    ...nodes.map((n) => ({ at: T0, src: 'nodes' as const, type: 'ADDED' as const, object: n })),
    { at: T0, src: 'daemonsets', type: 'ADDED', object: ds1 },
    ...old.map((p) => ({ at: T0, src: 'pods' as const, type: 'ADDED' as const, object: p })),
    { at: T0 + MIN, src: 'daemonsets', type: 'MODIFIED', object: ds2 },
    { at: T0 + MIN + 40, src: 'pods', type: 'DELETED', object: changed(old[1]!, () => {}) },
    { at: T0 + MIN + 50, src: 'events', type: 'ADDED', object: dsEvent(ds2, T0 + MIN, 'SuccessfulDelete', `Deleted pod: ${old[1]!.metadata.name}`) },
    { at: T0 + MIN + 80, src: 'daemonsets', type: 'MODIFIED', object: changed(ds2, (d) => { d.status = status(3, 2, 2, { numberReady: 2, numberAvailable: 2, updatedNumberScheduled: 0 }); }) },
    { at: T0 + MIN + S, src: 'pods', type: 'ADDED', object: fresh },
    { at: T0 + MIN + S + 10, src: 'events', type: 'ADDED', object: dsEvent(ds2, T0 + MIN + S, 'SuccessfulCreate', `Created pod: ${fresh.metadata.name}`) },
  ], T0 + 3 * MIN, 'kube-system'));
  const deletes = r.rounds.filter((x) => x.kind === 'delete');
  assert.equal(deletes.length, 1);
  assert.deepEqual(deletes[0]!.keys, ['kube-system/agent-old1z'], 'the pod the input shows deleted, not the first candidate');
  assert.deepEqual(r.rounds.filter((x) => x.kind === 'create').map((x) => x.n), [1]);
  assert.equal(r.findings.filter((f) => f.severity === 'warning' || f.severity === 'critical').length, 0, r.findings.map((f) => f.title).join('; '));
});

test('a delete whose DELETED the controller never observed: its status writes still count the node\'s pod, so the del expectation stays and the DaemonSet is gated until the record expires (leaked, inferred)', async () => {
  const st = (desired: number, current: number, mis: number, extra: Record<string, number> = {}) => ({ ...status(desired, current, 1), numberMisscheduled: mis, ...extra });
  const n1 = node('n1', { agent: 'yes' });
  const n2 = node('n2', { agent: 'yes' });
  const ds = changed(daemonSet({ nodeSelector: { agent: 'yes' } }), (d) => { d.status = st(2, 2, 0, { numberReady: 1 }); });
  const p1 = daemonPod(ds, 'n1', { at: T0 - 10 * MIN, name: 'agent-k2m4p', bound: true, ready: true });
  const p2 = daemonPod(ds, 'n2', { at: T0 - 10 * MIN, name: 'agent-x9w3q', bound: true, ready: true });
  const { ds: r } = await replayOf('delete-unobserved', recording([
    { at: T0, src: 'nodes', type: 'ADDED', object: n1 },
    { at: T0, src: 'nodes', type: 'ADDED', object: n2 },
    { at: T0, src: 'daemonsets', type: 'ADDED', object: ds },
    { at: T0, src: 'pods', type: 'ADDED', object: p1 },
    { at: T0, src: 'pods', type: 'ADDED', object: p2 },
    { at: T0 + 10 * S, src: 'daemonsets', type: 'MODIFIED', object: changed(ds, (d) => { d.status = st(2, 2, 0, { numberReady: 2 }); }) },
    // n2 loses the label: the controller deletes its pod …
    { at: T0 + MIN, src: 'nodes', type: 'MODIFIED', object: changed(n2, (n) => { n.metadata.labels = {}; }) },
    { at: T0 + MIN + 30, src: 'pods', type: 'DELETED', object: changed(p2, () => {}) },
    { at: T0 + MIN + 40, src: 'events', type: 'ADDED', object: dsEvent(ds, T0 + MIN, 'SuccessfulDelete', 'Deleted pod: agent-x9w3q') },
    // … but its status keeps counting it (misscheduled on n2): its informer never delivered the DELETE.
    { at: T0 + MIN + 60, src: 'daemonsets', type: 'MODIFIED', object: changed(ds, (d) => { d.status = st(1, 1, 1, { numberReady: 2 }); }) },
    { at: T0 + 3 * MIN, src: 'nodes', type: 'ADDED', object: node('n3', { agent: 'yes' }) },
    { at: T0 + 3 * MIN + 50, src: 'daemonsets', type: 'MODIFIED', object: changed(ds, (d) => { d.status = st(2, 1, 1, { numberReady: 2 }); }) },
  ], T0 + 8 * MIN, 'kube-system'));
  assert.equal(r.verdict.state, 'leaked');
  assert.deepEqual(r.rounds.map((x) => [x.kind, x.n]), [['delete', 1]], 'no re-delete and no create for n3 while gated');
  assert.equal(r.gatedWindows.length, 1);
  const w = r.gatedWindows[0]!;
  assert.deepEqual([w.start, w.raised.del, w.endedBy, w.basis], ['2026-12-05T08:01:00.000Z', 1, 'open', 'inferred']);
  assert.ok(w.gatedSyncs >= 2, `gated syncs ${w.gatedSyncs}`);
  assert.ok(r.findings.some((f) => /had not observed the deletion of kube-system\/agent-x9w3q/.test(f.title)), r.findings.map((f) => f.title).join('\n'));
});

test('a graceful delete the controller never observed: its handlers would lower at the deletionTimestamp, passes the model made meanwhile are taken back when the status shows the pod still counted; expired after 5 minutes, leaked', async () => {
  const st = (desired: number, current: number, mis: number, extra: Record<string, number> = {}) => ({ ...status(desired, current, 1), numberMisscheduled: mis, ...extra });
  const n1 = node('n1', { agent: 'yes' });
  const n2 = node('n2', { agent: 'yes' });
  const ds = changed(daemonSet({ nodeSelector: { agent: 'yes' } }), (d) => { d.status = st(2, 2, 0, { numberReady: 1 }); });
  const p1 = daemonPod(ds, 'n1', { at: T0 - 10 * MIN, name: 'agent-k2m4p', bound: true, ready: true });
  const p2 = daemonPod(ds, 'n2', { at: T0 - 10 * MIN, name: 'agent-x9w3q', bound: true, ready: true });
  const terminating = changed(p2, (p) => { p.metadata.deletionTimestamp = isoS(T0 + MIN + 30 * S); p.metadata.deletionGracePeriodSeconds = 30; });
  const { ds: r } = await replayOf('graceful-delete-unobserved', recording([
    { at: T0, src: 'nodes', type: 'ADDED', object: n1 },
    { at: T0, src: 'nodes', type: 'ADDED', object: n2 },
    { at: T0, src: 'daemonsets', type: 'ADDED', object: ds },
    { at: T0, src: 'pods', type: 'ADDED', object: p1 },
    { at: T0, src: 'pods', type: 'ADDED', object: p2 },
    { at: T0 + 10 * S, src: 'daemonsets', type: 'MODIFIED', object: changed(ds, (d) => { d.status = st(2, 2, 0, { numberReady: 2 }); }) },
    { at: T0 + MIN, src: 'nodes', type: 'MODIFIED', object: changed(n2, (n) => { n.metadata.labels = {}; }) },
    { at: T0 + MIN + 10, src: 'pods', type: 'MODIFIED', object: terminating },
    { at: T0 + MIN + 20, src: 'daemonsets', type: 'MODIFIED', object: changed(ds, (d) => { d.status = st(1, 1, 1, { numberReady: 2 }); }) },
    { at: T0 + MIN + 30 * S, src: 'pods', type: 'DELETED', object: changed(terminating, () => {}) },
    { at: T0 + 3 * MIN, src: 'nodes', type: 'ADDED', object: node('n3', { agent: 'yes' }) },
    { at: T0 + 3 * MIN + 50, src: 'daemonsets', type: 'MODIFIED', object: changed(ds, (d) => { d.status = st(2, 1, 1, { numberReady: 2 }); }) },
    { at: T0 + 7 * MIN, src: 'nodes', type: 'MODIFIED', object: changed(n1, (n) => { n.metadata.labels = { agent: 'yes', zone: 'a' }; }) },
  ], T0 + 8 * MIN, 'kube-system'));
  const w = r.gatedWindows.find((x) => x.raised.del === 1)!;
  assert.ok(w, r.gatedWindows.map((x) => JSON.stringify(x)).join('\n'));
  assert.deepEqual([w.start, w.endedBy, w.basis], ['2026-12-05T08:01:00.000Z', 'expired', 'inferred']);
  assert.equal(w.end, '2026-12-05T08:07:00.000Z', 'the first sync after the expiry: the node update at +7 min');
  assert.deepEqual(r.rounds.filter((x) => x.at < '2026-12-05T08:07').map((x) => [x.kind, x.n]), [['delete', 1]], 'gated: no create for n3 before the expiry');
  assert.ok(r.findings.some((f) => f.id === 'expectation-expired' || /only cleared by the 5-minute timeout/.test(f.title)), r.findings.map((f) => `${f.id}: ${f.title}`).join('\n'));
});
