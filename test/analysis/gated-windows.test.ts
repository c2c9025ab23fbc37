/**
 * The report's gated windows (src/analysis/report/gated-windows.ts): which reported windows are
 * leaks (isLeakWindow, read by the fidelity score and the audit table), how an open window is
 * reported at the end of input (remaining counters from the record, the leak cause in its note),
 * and the window a snapshot's gated or leaked verdict implies.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isLeakWindow, leakCause, snapshotWindow, windowReport } from '../../src/analysis/report/gated-windows.js';
import { readSnapshot } from '../../src/analysis/report/snapshot-state.js';
import { LIVE_REFS } from '../../src/analysis/report/snapshot-refs.js';
import type { RsTrack, WindowTrack } from '../../src/analysis/engine/rs-track.js';
import type { GatedWindow } from '../../src/analysis/report-types.js';
import type { ReplicaSet } from '../../src/model/objects.js';

const T = Date.UTC(2026, 10, 30, 10, 0, 0);
const base: GatedWindow = { start: new Date(T).toISOString(), endedBy: 'fulfilled', basis: 'inferred', raised: { add: 1, del: 0 }, gatedSyncs: 0, evidence: [] };

test('isLeakWindow: expired; deleted with counters left; open with a leak cause — nothing else', () => {
  assert.equal(isLeakWindow({ ...base, endedBy: 'expired' }), true);
  assert.equal(isLeakWindow({ ...base, endedBy: 'rs-deleted', remaining: { add: 1, del: 0 } }), true);
  assert.equal(isLeakWindow({ ...base, endedBy: 'rs-deleted', remaining: { add: 0, del: 0 } }), false);
  assert.equal(isLeakWindow({ ...base, endedBy: 'rs-deleted' }), false);
  assert.equal(isLeakWindow({ ...base, endedBy: 'open', note: 'leak: the record has been unfulfilled for 6m' }), true);
  assert.equal(isLeakWindow({ ...base, endedBy: 'open', note: 'a round in flight' }), false);
  assert.equal(isLeakWindow({ ...base, endedBy: 'fulfilled' }), false);
  assert.equal(isLeakWindow({ ...base, endedBy: 'reset' }), false);
});

function track(extra: Partial<RsTrack> = {}): RsTrack {
  return { key: 'shop/web', rounds: [], windows: [], orphanedExpected: [], addedTerminating: [], ...extra } as unknown as RsTrack;
}
const open = (extra: Partial<WindowTrack> = {}): WindowTrack => ({ start: T, setAt: T, raised: { add: 2, del: 0 }, basis: 'inferred', gatedSyncs: 3, evidence: [{ file: 'r.jsonl', line: 7 }], ...extra });

test('an open window at the end of input: the record\'s counters remain; past the timeout its note names the leak', () => {
  const t = track({ record: { add: 1, del: 0, timestamp: T } });
  const w = open();
  const young = windowReport(t, w, T + 60_000);
  assert.equal(young.endedBy, 'open');
  assert.deepEqual(young.remaining, { add: 1, del: 0 });
  assert.deepEqual(w.remaining, { add: 1, del: 0 }, 'written back for the findings');
  assert.equal(young.expiresAt, new Date(T + 300_000).toISOString());
  assert.equal(young.durationMs, 60_000);
  assert.deepEqual(young.evidence, ['r.jsonl:7']);
  assert.equal(young.note, undefined);
  assert.equal(isLeakWindow(young), false);
  const old = windowReport(t, open(), T + 400_000);
  assert.equal(old.note, 'leak: the record has been unfulfilled for 6m40s, longer than the 5-minute ExpectationsTimeout');
  assert.equal(isLeakWindow(old), true);
});

test('leakCause: NamespaceTerminating rejections, then an orphaned expected-delete pod, then age', () => {
  assert.match(leakCause(track(), open({ namespaceTerminating: 2, remaining: { add: 2, del: 0 } }), T + 1000)!, /^2 creates rejected with NamespaceTerminating/);
  const orphaned = track({ orphanedExpected: [{ at: T + 10, podKey: 'shop/web-1' }] });
  assert.match(leakCause(orphaned, open({ remaining: { add: 0, del: 1 } }), T + 1000)!, /^expected-delete pod shop\/web-1 lost its controllerRef/);
  assert.equal(leakCause(track(), open(), T + 1000), undefined);
});

test('a snapshot\'s gated verdict implies one open window from the last progress; none when healthy or deleting', () => {
  const rs = { metadata: { name: 'web', namespace: 'shop', uid: 'u', generation: 1, creationTimestamp: new Date(T - 600_000).toISOString() }, spec: { replicas: 3, selector: { matchLabels: { app: 'web' } } }, status: { replicas: 1, observedGeneration: 1 } } as ReplicaSet;
  const s = readSnapshot(rs, { pods: [], events: [], podsKnown: false }, T, LIVE_REFS);
  const [w] = snapshotWindow(s, 'gated');
  assert.equal(w!.start, new Date(T - 600_000).toISOString());
  assert.deepEqual(w!.raised, { add: 2, del: 0 });
  assert.equal(w!.durationMs, 600_000);
  assert.equal(w!.basis, 'inferred');
  assert.deepEqual(snapshotWindow(s, 'healthy'), []);
  assert.deepEqual(snapshotWindow({ ...s, deletingSince: T }, 'gated'), []);
});
