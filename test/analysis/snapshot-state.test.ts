/**
 * One ReplicaSet's state read from a snapshot (src/analysis/report/snapshot-state.ts): pods as
 * the controller sees them, the last sign of progress, the failure that holds it, the stall, and
 * the timeline in time order; the `snapshot` rules and verdict read only this.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readSnapshot, STALL_MS } from '../../src/analysis/report/snapshot-state.js';
import { LIVE_REFS } from '../../src/analysis/report/snapshot-refs.js';
import { findingsFor } from '../../src/analysis/findings/catalogue.js';
import { snapshotVerdict } from '../../src/analysis/report/verdict.js';
import type { CoreEvent, Pod, ReplicaSet } from '../../src/model/objects.js';

const NOW = Date.UTC(2026, 10, 30, 10, 0, 0);
const ago = (s: number) => new Date(NOW - s * 1000).toISOString();
const rs = (replicas: number): ReplicaSet => ({
  metadata: { name: 'web', namespace: 'shop', uid: 'rs-1', generation: 2, creationTimestamp: ago(3600) },
  spec: { replicas, selector: { matchLabels: { app: 'web' } } },
  status: { replicas: 1, observedGeneration: 2 },
} as ReplicaSet);
const pod = (name: string, createdAgo: number, o: { owner?: string | null; deleting?: boolean; phase?: string } = {}): Pod => ({
  metadata: {
    name, namespace: 'shop', uid: name, labels: { app: 'web' }, creationTimestamp: ago(createdAgo),
    ...(o.owner !== null ? { ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web', uid: o.owner ?? 'rs-1', controller: true }] } : {}),
    ...(o.deleting ? { deletionTimestamp: ago(60), deletionGracePeriodSeconds: 30 } : {}),
  },
  status: { phase: o.phase ?? 'Running' },
} as Pod);
const event = (reason: string, lastAgo: number): CoreEvent => ({
  metadata: { name: `web.${reason}`, namespace: 'shop' }, involvedObject: { kind: 'ReplicaSet', name: 'web', namespace: 'shop', uid: 'rs-1' },
  reason, message: `${reason} message`, count: 1, lastTimestamp: ago(lastAgo), firstTimestamp: ago(lastAgo),
} as CoreEvent);

test('pods as the controller sees them: owned (active, terminating past grace, finished), orphans, another controller\'s', () => {
  const pods = [pod('a', 600), pod('b', 500, { deleting: true }), pod('c', 400, { phase: 'Failed' }), pod('d', 300, { owner: null }), pod('e', 200, { owner: 'rs-2' })];
  const s = readSnapshot(rs(3), { pods, events: [] }, NOW, LIVE_REFS);
  assert.deepEqual([s.active, s.terminating, s.finished, s.orphansMatching, s.otherControllerMatching], [1, 1, 1, 1, 1]);
  assert.deepEqual(s.pastGrace, ['b']);
  assert.equal(s.diff, -2);
  assert.equal(s.key, 'shop/web');
  // The last progress: the newest pod creation or deletion request (deletionTimestamp − grace).
  assert.equal(s.lastProgress, NOW - 90_000);
  assert.deepEqual(s.timeline.map((x) => x.from), ['replicaset', 'pod', 'pod', 'pod', 'pod', 'snapshot', 'snapshot']);
});

test('a recent FailedCreate newer than the last progress is the failure that holds it; nothing moving otherwise is a stall', () => {
  const failing = readSnapshot(rs(3), { pods: [pod('a', 600)], events: [event('SuccessfulCreate', 600), event('FailedCreate', 30)] }, NOW, LIVE_REFS);
  assert.equal(failing.failing?.reason, 'FailedCreate');
  assert.deepEqual(failing.failing?.evidence, ['live:events/web.FailedCreate']);
  assert.equal(failing.stalled, false);
  assert.equal(snapshotVerdict(failing).state, 'failing');
  assert.deepEqual(findingsFor('snapshot', failing).map((f) => f.id), ['failing-creates']);

  const stalled = readSnapshot(rs(3), { pods: [pod('a', 600)], events: [event('SuccessfulCreate', 600)] }, NOW, LIVE_REFS);
  assert.equal(stalled.failing, undefined);
  assert.ok(stalled.sinceMove > STALL_MS);
  assert.equal(stalled.stalled, true);
  assert.equal(snapshotVerdict(stalled).state, 'leaked');
  assert.deepEqual(findingsFor('snapshot', stalled).map((f) => f.id), ['expectation-leak-suspected']);
});

test('no pods in the snapshot: counts from the ReplicaSet\'s status, and said', () => {
  const s = readSnapshot(rs(1), { pods: [], events: [], podsKnown: false }, NOW, LIVE_REFS);
  assert.deepEqual([s.active, s.podsKnown, s.diff], [1, false, 0]);
  assert.equal(snapshotVerdict(s).state, 'healthy');
  assert.deepEqual(findingsFor('snapshot', s).map((f) => f.id), ['pods-not-in-input']);
});
