/**
 * Replays realistic recordings (built with RecordingBuilder) through the engine and checks
 * the windows, rounds and findings the report derives — the behaviours of
 * controller-semantics.md §11 as they appear in a watch stream.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { replayFiles } from '../../src/pipeline/replay-files.js';
import { RecordingBuilder } from '../support/recording-builder.js';

async function run(b: RecordingBuilder, extra: { k8sVersion?: string } = {}) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kexp-test-'));
  const f = path.join(dir, 'rec.kexp.jsonl');
  fs.writeFileSync(f, b.text());
  const res = await replayFiles({ files: [f], k8sVersion: extra.k8sVersion });
  assert.equal(res.report.replicaSets.length, 1);
  return { ...res, rs: res.report.replicaSets[0], file: f };
}

test('scale-up: the round\'s own ADDs only mark the key dirty; a slow third ADD gates the next sync (v1.35)', async () => {
  const b = new RecordingBuilder();
  b.namespace().replicaSet(0, 'ADDED');
  b.advance(2000).replicaSet(3);
  b.advance(40); const p1 = b.addPod(1); b.event('SuccessfulCreate', `Created pod: ${p1}`);
  b.advance(30); b.addPod(2);
  b.advance(30).rsStatus(2); // the sync's status write
  b.advance(1900); b.addPod(3); // a slow informer: the sync ended long before (capped at 1 s)
  b.advance(5).rsStatus(3);
  b.advance(3000).end();
  const { rs } = await run(b, { k8sVersion: 'v1.35.0' });
  assert.equal(rs.gatedWindows.length, 1);
  const w = rs.gatedWindows[0];
  assert.deepEqual(w.raised, { add: 3, del: 0 });
  assert.equal(w.endedBy, 'fulfilled');
  assert.equal(w.start, '2026-11-30T10:00:02.000Z');
  assert.equal(w.fulfilledAt, '2026-11-30T10:00:04.000Z');
  assert.equal(w.gatedSyncs, 1, 'the deferred sync at +1 s (dirty from ADDs and the status write) is refused; ADD 3 fulfils');
  assert.equal(w.basis, 'inferred');
  assert.equal(rs.rounds.length, 1);
  assert.deepEqual(rs.rounds[0].batches, [1, 2]);
  assert.equal(rs.rounds[0].successes, 3);
  assert.equal(rs.verdict.state, 'healthy');
  assert.deepEqual(rs.findings, []);
});

test('scale-up on v1.37: the consistency gate skips syncs before SatisfiedExpectations', async () => {
  const b = new RecordingBuilder();
  b.namespace().replicaSet(0, 'ADDED');
  b.advance(2000).replicaSet(3);
  b.advance(40); b.addPod(1); b.advance(30); b.addPod(2); b.advance(30).rsStatus(2); b.advance(1900); b.addPod(3);
  b.advance(3000).end();
  const { rs } = await run(b, { k8sVersion: 'v1.37.2' });
  // Each skipped sync is requeued with backoff (5 ms, 10 ms, …) and skipped again until the
  // last created pod is observed; none of them reaches SatisfiedExpectations.
  assert.ok(rs.syncs.byOutcome['consistency-skip'] >= 1, JSON.stringify(rs.syncs));
  assert.equal(rs.syncs.byOutcome.gated, undefined);
  assert.equal(rs.gatedWindows[0].gatedSyncs, 0);
  assert.equal(rs.gatedWindows[0].endedBy, 'fulfilled');
});

test('quota: FailedCreate walks back, no gated window, create-failures finding', async () => {
  const b = new RecordingBuilder();
  b.namespace().replicaSet(0, 'ADDED');
  b.advance(2000).replicaSet(3);
  b.advance(20); b.addPod(1);
  b.advance(20); b.addPod(2);
  const quotaMsg = 'pods "web-7d9c6b8f5d-x" is forbidden: exceeded quota: pods, requested: pods=1, used: pods=2, limited: pods=2';
  b.advance(10); b.event('FailedCreate', `Error creating: ${quotaMsg}`, 'Warning');
  // The sync writes the ReplicaFailure condition; later retries are rate-limited Events (none here).
  b.advance(5);
  b.rs = structuredClone(b.rs);
  b.rs.metadata.resourceVersion = String(++b.rv);
  b.rs.status = { replicas: 2, observedGeneration: 2, conditions: [{ type: 'ReplicaFailure', status: 'True', reason: 'FailedCreate', message: quotaMsg }] };
  b.emit('replicasets', 'MODIFIED', b.rs);
  b.advance(3000).end();
  const { rs } = await run(b, { k8sVersion: 'v1.35.0' });
  const create = rs.rounds[0];
  assert.equal(create.n, 3);
  assert.deepEqual(create.batches, [1, 2]);
  assert.equal(create.successes, 2);
  assert.equal(create.skipped, 1);
  const f = rs.findings.find((x) => x.id === 'create-failures');
  assert.ok(f, 'create-failures finding');
  assert.match(f!.title, /ResourceQuota/);
  assert.equal(rs.gatedWindows.filter((w) => w.endedBy !== 'fulfilled').length, 0);
});

test('namespace terminating: creates counted as successes leak until the RS is deleted', async () => {
  const b = new RecordingBuilder();
  b.namespace().replicaSet(0, 'ADDED');
  b.advance(1000).namespace('Terminating');
  b.advance(10).replicaSet(2);
  b.advance(4000).emit('replicasets', 'DELETED', b.rs);
  b.advance(1000).end();
  const { rs } = await run(b);
  assert.equal(rs.rounds[0].namespaceTerminating, 2);
  const w = rs.gatedWindows[0];
  assert.equal(w.endedBy, 'rs-deleted');
  assert.deepEqual(w.remaining, { add: 2, del: 0 });
  assert.ok(rs.findings.some((f) => f.id === 'expectation-leak-namespace-terminating'));
  assert.equal(rs.verdict.state, 'deleted');
});

test('namespace terminating, RS still there at the end: open leak, critical finding, expiry time', async () => {
  const b = new RecordingBuilder();
  b.namespace().replicaSet(0, 'ADDED');
  b.advance(1000).namespace('Terminating');
  b.advance(10).replicaSet(2);
  b.advance(60_000).end();
  const { rs } = await run(b);
  const w = rs.gatedWindows[0];
  assert.equal(w.endedBy, 'open');
  assert.equal(w.expiresAt, '2026-11-30T10:05:01.010Z');
  assert.equal(rs.verdict.state, 'leaked');
  const f = rs.findings[0];
  assert.equal(f.id, 'expectation-leak-open');
  assert.equal(f.severity, 'critical');
});

test('graceful scale-down: deletion counted once (deletionTimestamp), final DELETE changes nothing', async () => {
  const b = new RecordingBuilder();
  b.namespace().replicaSet(0, 'ADDED');
  b.advance(1000).replicaSet(2);
  const a = b.advance(10).addPod(1, { nodeName: 'n1' });
  const c = b.advance(10).addPod(2, { nodeName: 'n1' });
  b.advance(500).ready(a).advance(500).ready(c);
  b.advance(2000).replicaSet(1);
  // the controller deletes the not-ready/newer one; both ready: most recently ready first
  b.advance(20).gracefulDelete(c);
  b.advance(5).event('SuccessfulDelete', `Deleted pod: ${c}`);
  b.advance(20000).deletePod(c);
  b.advance(1000).end();
  const { rs } = await run(b, { k8sVersion: 'v1.35.0' });
  const del = rs.rounds.find((r) => r.kind === 'delete')!;
  assert.deepEqual(del.keys, [`shop/${c}`]);
  const w = rs.gatedWindows.find((x) => x.raised.del === 1)!;
  assert.equal(w.endedBy, 'fulfilled');
  assert.equal(w.fulfilledAt, '2026-11-30T10:00:04.040Z');
  const lowers = rs.expectations.filter((e) => e.op === 'received-delete');
  assert.equal(lowers.length, 1, 'counted exactly once');
});

test('deletions are keyed by namespace/name: a same-name pod with a new UID satisfies the expectation', async () => {
  const b = new RecordingBuilder();
  b.namespace().replicaSet(0, 'ADDED');
  b.advance(1000).replicaSet(2);
  const a = b.advance(10).addPod(1, { nodeName: 'n1' });
  const c = b.advance(10).addPod(2, { nodeName: 'n1' });
  b.advance(2000).replicaSet(1);
  // kexp's model picks the newest pending pod (c); the stream shows c vanish without an event
  // (a watch gap) and a new pod named c (new UID) later terminating.
  const victim = c;
  b.advance(100);
  b.pods.delete(victim);
  const reused = b.addPod(2, { nodeName: 'n1' });
  assert.equal(reused, victim);
  b.advance(100).gracefulDelete(reused);
  b.advance(1000).end();
  const { rs } = await run(b, { k8sVersion: 'v1.35.0' });
  void a;
  assert.ok(rs.findings.some((f) => f.id === 'delete-satisfied-by-name-reuse'), JSON.stringify(rs.findings.map((f) => f.id)));
});

test('orphaning an expected-delete pod leaks until a sync after expiry (case 8), then clobbering (case 27)', async () => {
  const b = new RecordingBuilder();
  b.namespace().replicaSet(0, 'ADDED');
  b.advance(1000).replicaSet(2);
  b.advance(10).addPod(1, { nodeName: 'n1' });
  const c = b.advance(10).addPod(2, { nodeName: 'n1' });
  b.advance(2000).replicaSet(1);
  // before the deletion is observed, c loses its ownerReferences, then is deleted
  b.advance(5).updatePod(c, (p) => { p.metadata.ownerReferences = []; p.metadata.labels = { app: 'debug' }; });
  b.advance(5).deletePod(c);
  // 6 minutes later the RS is scaled to 2 (a trigger): expired → creates 1
  b.advance(6 * 60_000).replicaSet(2);
  b.advance(1000).end();
  const { rs } = await run(b, { k8sVersion: 'v1.35.0' });
  const w = rs.gatedWindows.find((x) => x.raised.del === 1)!;
  assert.equal(w.endedBy, 'expired');
  assert.deepEqual(w.remaining, { add: 0, del: 1, keys: [`shop/${c}`] });
  assert.equal(w.end, '2026-11-30T10:06:03.030Z', 'recovery at the first sync after expiry, not at expiry');
  assert.ok(rs.findings.some((f) => f.id === 'expectation-leak-expired'));
});

test('ReplicaSet recreated under the same name is reported', async () => {
  const b = new RecordingBuilder();
  b.namespace().replicaSet(1, 'ADDED');
  b.advance(10).addPod(1);
  b.advance(1000).emit('replicasets', 'DELETED', b.rs);
  const again = new RecordingBuilder();
  b.advance(1000);
  const rs2 = structuredClone(b.rs);
  rs2.metadata.uid = 'rs-recreated-uid-0002';
  rs2.metadata.resourceVersion = String(++b.rv);
  b.emit('replicasets', 'ADDED', rs2);
  b.advance(1000).end();
  void again;
  const { rs } = await run(b);
  assert.equal(rs.uids.length, 2);
  assert.ok(rs.findings.some((f) => f.id === 'rs-recreated'));
});

test('a watch gap inside a window makes it unknown', async () => {
  const b = new RecordingBuilder();
  b.namespace().replicaSet(0, 'ADDED');
  b.advance(1000).replicaSet(2);
  b.advance(10).addPod(1);
  b.advance(10);
  b.lines.push(JSON.stringify({ recv: new Date(b.t).toISOString().replace('Z', '000Z').replace(/\.(\d{3})000Z$/, '.$1000Z'), src: 'pods', gap: { reason: 'watch-relist', detail: 'too old resource version' } }) + '\n');
  b.advance(10).addPod(2);
  b.advance(1000).end();
  const { rs, report } = await run(b, { k8sVersion: 'v1.35.0' });
  assert.equal(report.coverage.gaps.length, 1);
  assert.equal(rs.gatedWindows[0].basis, 'unknown');
});
