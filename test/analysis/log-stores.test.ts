/**
 * A DaemonSet's rolling-update checks from its log (report/log-stores.ts rollingUpdateChecks), each
 * compared with kexp's reconstructed record at the check's time: a check "still waiting" right
 * after manage's Set matches a record kexp holds unfulfilled; a check "fulfilled" where kexp still
 * waited is a mismatch, cited by the log's line; before kexp knew the record, unknown.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rollingUpdateChecks } from '../../src/analysis/report/log-stores.js';
import type { GroundTruth } from '../../src/sources/kcm-log/ground-truth.js';
import type { ReplicaSetReport } from '../../src/analysis/report-types.js';

const T0 = Date.parse('2026-12-05T07:58:50Z');
const at = (s: number) => new Date(T0 + s * 1000).toISOString();
const L = (line: number) => ({ file: 'kcm.log', line });

const truth = {
  rsKey: 'ns/agent', syncs: [], raises: [], lowers: [], clobbers: [], slowStartFailures: [], gatedWindows: [], restarts: [], consistencySkips: [], syncFailures: [],
  rollingUpdateChecks: [
    { at: T0 + 3_001, decision: 'gated', source: L(20) },
    { at: T0 + 4_000, decision: 'fulfilled', source: L(31) },
    { at: T0 + 8_000, decision: 'fulfilled', source: L(52) },
    { at: T0 - 5_000, decision: 'fulfilled', source: L(3) },
  ],
} as GroundTruth;

// kexp: a Set of 3 creates at 3 s, lowered to 0 at 3.5 s; a Set of 1 delete at 7 s never lowered.
const kexp = {
  kind: 'DaemonSet', key: 'ns/agent',
  initialState: { basis: 'unknown', until: at(0), reason: 'r' },
  expectations: [
    { at: at(3), op: 'set', add: 3, del: 0, evidence: 'rec:5' },
    { at: at(3.5), op: 'lower', add: 0, del: 0, evidence: 'rec:9' },
    { at: at(7), op: 'set', add: 0, del: 1, evidence: 'rec:14' },
  ],
  expectationsTruncated: false,
} as unknown as ReplicaSetReport;

test('each check against kexp\'s record: matched, decided otherwise (cited), or unknown before kexp knew it', () => {
  const c = rollingUpdateChecks(truth, kexp)!;
  assert.deepEqual(c, {
    total: 4, fulfilled: 3, stillWaiting: 1, expired: 0, firstStillWaiting: 'kcm.log:20', basis: 'observed',
    kexp: { matched: 2, mismatched: 1, unknown: 1, mismatchRefs: ['kcm.log:52'] },
  });
});

test('the log alone (kcm-log): the same counts without kexp\'s comparison; none without checks', () => {
  assert.equal(rollingUpdateChecks(truth)!.kexp, undefined);
  assert.equal(rollingUpdateChecks({ ...truth, rollingUpdateChecks: [] } as GroundTruth, kexp), undefined);
});
