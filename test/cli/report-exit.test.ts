/**
 * The exit code of a finished command's result (src/cli/report-exit.ts): a Report (with the
 * ReplicaSet asked for absent), a kcm-log result, an adoption, a recording. The verdict and
 * finding rules of `exitCodeFor` are checked per bug case (test/analysis/bug-cases*.test.ts).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { exitCodeFor, exitCodeForAdoption, exitCodeForKcmLog, exitCodeForRecording } from '../../src/cli/report-exit.js';
import type { Basis, Finding, GatedWindow, Report, ReplicaSetReport, VerdictState } from '../../src/analysis/report-types.js';

const report = (states: string[]) => ({ replicaSets: states.map((state) => ({ verdict: { state, basis: 'observed' }, findings: [], gatedWindows: [] })) }) as unknown as Report;

type Shape = { state: VerdictState; basis: Basis; windows?: Partial<GatedWindow>[]; findings?: Partial<Finding>[] };
const rsOf = ({ state, basis, windows = [], findings = [] }: Shape) => ({
  key: 'shop/web', verdict: { state, basis, summary: state },
  gatedWindows: windows.map((w) => ({ start: '2026-11-30T10:00:00.000Z', endedBy: 'open', basis: 'inferred', raised: { add: 1, del: 0 }, gatedSyncs: 1, evidence: [], ...w })),
  findings: findings.map((f) => ({ severity: 'warning', title: '', explanation: '', nextStep: '', evidence: [], at: '2026-11-30T10:00:00.000Z', basis: 'inferred', ...f })),
}) as unknown as ReplicaSetReport;
const one = (s: Shape) => exitCodeFor({ replicaSets: [rsOf(s)] } as unknown as Report, 0);

// The table of README "Exit codes" and report-exit.ts's header, verdict by verdict: the code of a
// ReplicaSet with nothing else to show (no leak window, no failed-write finding).
const VERDICT_TABLE: Record<VerdictState, number> = { leaked: 4, gated: 3, stalled: 3, failing: 5, healthy: 0, converging: 0, deleting: 0, deleted: 0, unknown: 0 };
const STATES = Object.keys(VERDICT_TABLE) as VerdictState[];
const BASES: Basis[] = ['observed', 'inferred', 'unknown'];

test('the exit-code table: every verdict state × basis, alone', () => {
  for (const state of STATES) {
    for (const basis of BASES) {
      assert.equal(one({ state, basis }), basis === 'unknown' ? 0 : VERDICT_TABLE[state], `${state} [${basis}]`);
    }
  }
});

test('the exit-code table: leak windows and failed-write findings, under every verdict state × basis', () => {
  const expired = { endedBy: 'expired' as const, end: '2026-11-30T10:05:01.000Z', remaining: { add: 1, del: 0 } };
  const leakFinding = { id: 'expectation-leak-expired' };
  for (const state of STATES) {
    for (const basis of BASES) {
      const alone = basis === 'unknown' ? 0 : VERDICT_TABLE[state];
      const why = `${state} [${basis}]`;
      // Only the timeout freed it: 4 even when it is over at the end of the input, whatever the verdict.
      assert.equal(one({ state, basis, windows: [{ ...expired, basis: 'observed' }] }), 4, `${why}: an expiry the controller's log shows`);
      assert.equal(one({ state, basis, windows: [expired], findings: [leakFinding] }), 4, `${why}: an inferred expiry with its finding`);
      // No 4 without a leak window of known basis and, for kexp's own, a leak finding of known basis.
      assert.equal(one({ state, basis, windows: [{ ...expired, basis: 'unknown' }], findings: [leakFinding] }), alone, `${why}: a window of unknown basis`);
      assert.equal(one({ state, basis, windows: [expired], findings: [{ ...leakFinding, basis: 'unknown' }] }), alone, `${why}: a finding of unknown basis`);
      assert.equal(one({ state, basis, windows: [expired], findings: [{ id: 'expectations-expired-informer-lag' }] }), alone, `${why}: pods that arrived after the expiry are late, not leaked`);
      assert.equal(one({ state, basis, findings: [leakFinding] }), alone, `${why}: a leak finding without its window`);
      // The ReplicaSet's deletion, not the timeout, ended it: like a deleted ReplicaSet.
      assert.equal(one({ state, basis, windows: [{ ...expired, endedBy: 'rs-deleted', basis: 'observed' }], findings: [{ id: 'expectation-leak-namespace-terminating' }] }), alone, `${why}: ended by the deletion`);
      // An open window is a leak only with a leak cause in its note.
      assert.equal(one({ state, basis, windows: [{ note: 'leak: the record has been unfulfilled for 5m13s' }], findings: [{ id: 'expectation-leak-open' }] }), 4, `${why}: open past the timeout`);
      assert.equal(one({ state, basis, windows: [{ basis: 'observed' }], findings: [{ id: 'gated-at-end' }] }), alone, `${why}: a round in flight is the verdict's to say`);
      // Failed writes: 5 unless something above wins, never on a deleted ReplicaSet, never of unknown basis.
      const failing = one({ state, basis, findings: [{ id: 'create-failures' }] });
      assert.equal(failing, alone === 4 || alone === 3 ? alone : state === 'deleted' || state === 'healthy' ? alone : 5, `${why}: create failures`);
      assert.equal(one({ state, basis, findings: [{ id: 'create-failures', basis: 'unknown' }] }), alone, `${why}: create failures of unknown basis`);
    }
  }
});

test('the exit-code table: precedence across ReplicaSets is leak, gated, failing', () => {
  const r = (...shapes: Shape[]) => exitCodeFor({ replicaSets: shapes.map(rsOf) } as unknown as Report, 0);
  assert.equal(r({ state: 'failing', basis: 'observed' }, { state: 'gated', basis: 'inferred' }), 3);
  assert.equal(r({ state: 'gated', basis: 'inferred' }, { state: 'deleted', basis: 'observed', windows: [{ endedBy: 'expired', basis: 'observed', remaining: { add: 1, del: 0 } }] }), 4);
  assert.equal(r({ state: 'healthy', basis: 'inferred' }, { state: 'failing', basis: 'inferred' }), 5);
});

test('exitCodeFor: input problems (6) before an absent ReplicaSet (8) before the verdicts', () => {
  assert.equal(exitCodeFor(report([]), 0), 0);
  assert.equal(exitCodeFor(report([]), 0, true), 8);
  assert.equal(exitCodeFor(report([]), 3, true), 6, 'the unreadable part may hold it');
  assert.equal(exitCodeFor(report(['leaked']), 0), 4);
  assert.equal(exitCodeFor(report(['gated']), 0), 3);
  assert.equal(exitCodeFor(report(['failing']), 0), 5);
  assert.equal(exitCodeFor(report(['leaked']), 1), 6);
});

test('exitCodeForKcmLog: problems (6), absent --rs (8), an expired or open gated window with gated syncs (4), else 0', () => {
  const rs = (...w: Array<{ ended: string; gatedSyncs: number }>) => [{ gatedWindows: w }];
  assert.equal(exitCodeForKcmLog([], 0, false), 0);
  assert.equal(exitCodeForKcmLog(rs({ ended: 'fulfilled', gatedSyncs: 3 }), 0, false), 0);
  assert.equal(exitCodeForKcmLog(rs({ ended: 'open', gatedSyncs: 0 }), 0, false), 0, 'open without a gated sync is no leak yet');
  assert.equal(exitCodeForKcmLog(rs({ ended: 'open', gatedSyncs: 1 }), 0, false), 4);
  assert.equal(exitCodeForKcmLog(rs({ ended: 'fulfilled', gatedSyncs: 0 }, { ended: 'expired', gatedSyncs: 0 }), 0, false), 4);
  assert.equal(exitCodeForKcmLog([], 0, true), 8);
  assert.equal(exitCodeForKcmLog(rs({ ended: 'expired', gatedSyncs: 1 }), 2, true), 6);
});

test('exitCodeForAdoption and exitCodeForRecording', () => {
  assert.equal(exitCodeForAdoption(0), 0);
  assert.equal(exitCodeForAdoption(2), 6);
  assert.equal(exitCodeForRecording('duration'), 0);
  assert.equal(exitCodeForRecording('interrupted'), 130);
});
