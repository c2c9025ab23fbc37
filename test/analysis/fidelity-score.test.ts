/**
 * The fidelity scorer (src/analysis/fidelity.ts) behind `kexp kcm-log --compare` and the e2e
 * fidelity tests: the ±skew tolerance means "at any instant within the skew", so a gated
 * window shorter than the skew still matches a gated sync inside it — and a sync far from any
 * gated state still counts as wrong.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { scoreReplicaSet, type TruthLike } from '../../src/analysis/fidelity.js';
import type { ReplicaSetReport } from '../../src/analysis/report-types.js';

const t0 = Date.UTC(2026, 11, 1, 17, 45, 10, 112);
const iso = (ms: number) => new Date(ms).toISOString();

// kexp: Set add 2 at +0, the two pod ADDs lower it at +17 and +35 (ungated from +35 on).
const rs = {
  key: 'ns/web',
  initialState: { basis: 'observed' },
  expectations: [
    { at: iso(t0), op: 'set', add: 2, del: 0 },
    { at: iso(t0 + 17), op: 'lower', add: 1, del: 0 },
    { at: iso(t0 + 35), op: 'lower', add: 0, del: 0 },
  ],
  gatedWindows: [],
} as unknown as ReplicaSetReport;

function truth(syncs: TruthLike['syncs']): TruthLike {
  return { rsKey: 'ns/web', syncs, raises: [{ at: t0, add: 2, del: 0, op: 'set' }], gatedWindows: [] };
}

test('a gated sync 1 ms after kexp saw the last pod ADD (the recorder was faster than the informer) matches within the skew', () => {
  const s = scoreReplicaSet(truth([{ at: t0 + 36, decision: 'gated' }]), rs, { skewMs: 50 });
  assert.deepEqual(s.syncs, { total: 1, matched: 1, mismatched: 0, unknown: 0 });
  assert.equal(s.raises.exact, 1);
});

test('a gated sync farther than the skew from any gated state is wrong; ungated syncs around it match', () => {
  const s = scoreReplicaSet(truth([{ at: t0 + 200, decision: 'gated' }, { at: t0 + 200, decision: 'fulfilled' }, { at: t0 - 100, decision: 'never-recorded' }]), rs, { skewMs: 50 });
  assert.deepEqual(s.syncs, { total: 3, matched: 2, mismatched: 1, unknown: 0 });
  assert.match(s.mismatches[0]!, /KCM gated, kexp ungated/);
  // Without the change-point probes, the same short window would be missed at ±skew:
  const narrow = scoreReplicaSet(truth([{ at: t0 + 36, decision: 'gated' }]), rs, { skewMs: 0 });
  assert.equal(narrow.syncs.mismatched, 1);
});
