/**
 * The exit code of a finished command's result (src/cli/report-exit.ts): a Report (with the
 * ReplicaSet asked for absent), a kcm-log result, an adoption, a recording. The verdict and
 * finding rules of `exitCodeFor` are checked per bug case (test/analysis/bug-cases*.test.ts).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { exitCodeFor, exitCodeForAdoption, exitCodeForKcmLog, exitCodeForRecording } from '../../src/cli/report-exit.js';
import type { Report } from '../../src/analysis/report-types.js';

const report = (states: string[]) => ({ replicaSets: states.map((state) => ({ verdict: { state, basis: 'observed' }, findings: [] })) }) as unknown as Report;

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
