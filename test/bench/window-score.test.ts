/**
 * The fidelity bench's window scorer (bench/fidelity/window-score.ts) on small hand-made inputs:
 * the controller's windows as buildGroundTruth gives them, kexp's as its report does.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { instantWindows, scoreWindows, syncsWithin, truthAt, truthExitCode } from '../../bench/fidelity/window-score.js';
import type { GatedWindow as LogWindow, GroundTruth } from '../../src/sources/kcm-log/ground-truth.js';
import type { GatedWindow as KexpWindow, ReplicaSetReport } from '../../src/analysis/report-types.js';

const T0 = Date.parse('2026-12-05T01:56:45.400Z');
const src = { file: 'kcm.log', line: 1 };
const iso = (ms: number) => new Date(T0 + ms).toISOString();

function logWindow(startMs: number, endMs: number | undefined, ended: LogWindow['ended'], gatedSyncs: number): LogWindow {
  return { start: T0 + startMs, startSource: src, startedBy: 'setting', expected: { add: 0, del: 8 }, ...(endMs !== undefined ? { end: T0 + endMs, endSource: src } : {}), ended, gatedSyncs };
}

function kexpWindow(startMs: number, endMs: number | undefined, endedBy: KexpWindow['endedBy'], gatedSyncs: number, basis: KexpWindow['basis'] = 'inferred'): KexpWindow {
  return { start: iso(startMs), ...(endMs !== undefined ? { end: iso(endMs) } : {}), endedBy, basis, raised: { add: 0, del: 8 }, gatedSyncs, evidence: ['x.kexp.jsonl:3'] };
}

function truth(windows: LogWindow[], sets = windows.length): GroundTruth {
  return {
    rsKey: 'ns/web', syncs: [], lowers: [], clobbers: [], slowStartFailures: [], restarts: [], consistencySkips: [], syncFailures: [],
    raises: Array.from({ length: sets }, (_, i) => ({ at: T0 + i, add: 0, del: 8, source: src, op: 'set' as const })),
    gatedWindows: windows,
  };
}

function report(windows: KexpWindow[], rounds = windows.length): ReplicaSetReport {
  return { key: 'ns/web', gatedWindows: windows, rounds: Array.from({ length: rounds }, () => ({ kind: 'delete', n: 8 })) } as unknown as ReplicaSetReport;
}

test('a window matched: same start, gated syncs within 10%, the same end at the same time', () => {
  const s = scoreWindows(truth([logWindow(0, 20_000, 'fulfilled', 6)]), report([kexpWindow(300, 20_400, 'fulfilled', 6)]));
  assert.deepEqual([s.windows, s.matched, s.missed, s.invented, s.unknown, s.syncsAgree, s.endsAgree], [1, 1, 0, 0, 0, 1, 1]);
  assert.equal(s.verdicts[0]!.endDeltaMs, 400);
  assert.deepEqual(s.gatedSyncs, { log: 6, kexp: 6 });
  assert.deepEqual([s.sets, s.rounds], [1, 1]);
});

test('an end that differs: kexp says fulfilled after 48 ms where the log was gated 20 s with 6 syncs', () => {
  const s = scoreWindows(truth([logWindow(0, 20_000, 'fulfilled', 6)]), report([kexpWindow(0, 48, 'fulfilled', 0)], 2));
  assert.equal(s.matched, 1);
  assert.equal(s.syncsAgree, 0);
  assert.equal(s.endsAgree, 0);
  assert.equal(s.verdicts[0]!.endDeltaMs, 48 - 20_000);
  assert.deepEqual([s.sets, s.rounds], [1, 2], 'an invented round shows as more rounds than Sets');
});

test('a leak the timeout freed: found when kexp\'s matched window expired too, missed when kexp called it fulfilled', () => {
  const log = truth([logWindow(0, 300_000, 'expired', 7)]);
  const found = scoreWindows(log, report([kexpWindow(500, 300_500, 'expired', 7)]));
  assert.deepEqual(found.leaks, { log: 1, found: 1, missed: 0, invented: 0 });
  assert.equal(found.endsAgree, 1);
  const missed = scoreWindows(log, report([kexpWindow(500, 700, 'fulfilled', 0)]));
  assert.deepEqual(missed.leaks, { log: 1, found: 0, missed: 1, invented: 0 });
  assert.equal(missed.endsAgree, 0);
});

test('a window missed and one invented: starts further apart than the tolerance do not match', () => {
  const s = scoreWindows(truth([logWindow(0, 1_000, 'fulfilled', 0)]), report([kexpWindow(60_000, 360_000, 'expired', 3)]));
  assert.deepEqual([s.matched, s.missed, s.invented], [0, 1, 1]);
  assert.deepEqual(s.leaks, { log: 0, found: 0, missed: 0, invented: 1 });
});

test('unknown is not matched: a kexp window with basis unknown is counted apart, and its leak is not found', () => {
  const s = scoreWindows(truth([logWindow(0, 300_000, 'expired', 7)]), report([kexpWindow(0, 300_000, 'expired', 7, 'unknown')]));
  assert.deepEqual([s.matched, s.unknown, s.missed, s.invented], [0, 1, 0, 0]);
  assert.deepEqual(s.leaks, { log: 1, found: 0, missed: 1, invented: 0 });
});

test('each log window takes the nearest kexp window once', () => {
  const s = scoreWindows(
    truth([logWindow(0, 1_000, 'fulfilled', 0), logWindow(1_500, 3_000, 'fulfilled', 1)]),
    report([kexpWindow(1_400, 3_100, 'fulfilled', 1), kexpWindow(100, 1_000, 'fulfilled', 0)]),
  );
  assert.deepEqual([s.matched, s.missed, s.invented, s.syncsAgree, s.endsAgree], [2, 0, 0, 2, 2]);
});

test('gated syncs within 10%: exact below 10, one off at 10 to 19', () => {
  assert.deepEqual([syncsWithin(6, 6), syncsWithin(5, 6), syncsWithin(9, 10), syncsWithin(8, 10), syncsWithin(0, 0), syncsWithin(1, 0)], [true, false, true, false, true, false]);
});

test('the exit code the log calls for: 4 for an expiry or an open window past the timeout, 3 open, 5 failing creates, else 0', () => {
  const end = T0 + 400_000;
  assert.equal(truthExitCode([truth([logWindow(0, 300_000, 'expired', 7)])], end), 4);
  assert.equal(truthExitCode([truth([logWindow(0, undefined, 'open', 2)])], end), 4);
  assert.equal(truthExitCode([truth([logWindow(390_000, undefined, 'open', 2)])], end), 3);
  const failing = truth([logWindow(0, 10, 'fulfilled', 0)]);
  failing.slowStartFailures.push({ at: T0, podsSkipped: 2, source: src });
  assert.equal(truthExitCode([failing], end), 5);
  assert.equal(truthExitCode([truth([logWindow(0, 20_000, 'fulfilled', 6)])], end), 0);
});

test('a record kexp saw fulfilled at once (every create of its round failed) has no window in its report, yet matches the log\'s window of no gated sync', () => {
  const rs = {
    ...report([]),
    expectations: [
      { at: iso(0), op: 'set', add: 2, del: 0, evidence: 'a.jsonl:1' },
      { at: iso(0), op: 'lower', add: 1, del: 0, evidence: 'a.jsonl:2' },
      { at: iso(1), op: 'lower', add: 0, del: 0, evidence: 'a.jsonl:3' },
      // A Set whose record kexp never saw reach zero is no instant window.
      { at: iso(60_000), op: 'set', add: 1, del: 0, evidence: 'a.jsonl:4' },
    ],
  } as ReplicaSetReport;
  assert.deepEqual(instantWindows(rs).map((w) => [w.start, w.end, w.gatedSyncs, w.endedBy]), [[iso(0), iso(1), 0, 'fulfilled']]);
  const s = scoreWindows(truth([logWindow(3, 900, 'fulfilled', 0), logWindow(60_002, 70_000, 'fulfilled', 2)]), rs);
  assert.deepEqual([s.matched, s.missed, s.invented, s.syncsAgree], [1, 1, 0, 1]);
  // A window of the report near the log's is preferred to an instant one.
  const both = { ...rs, gatedWindows: [kexpWindow(1500, 3000, 'fulfilled', 1)] } as ReplicaSetReport;
  const b = scoreWindows(truth([logWindow(3, 900, 'fulfilled', 0)]), both);
  assert.equal(b.verdicts[0]!.kexpGatedSyncs, 1);
});

test('the truth an input calls for is the log read to that input\'s end: a leak the log shows deleted later is open at a recording\'s end; a window at zero gates no more', () => {
  const deletedLater = truth([logWindow(0, 320_000, 'deleted', 3)]);
  assert.equal(truthExitCode([deletedLater], T0 + 330_000), 0, 'the whole log: the deletion freed it');
  const at = T0 + 310_000;
  const cut = truthAt(deletedLater, at);
  assert.deepEqual(cut.gatedWindows.map((w) => [w.ended, w.end]), [['open', undefined]]);
  assert.equal(truthExitCode([cut], at), 4, 'at the recording\'s end: open past the timeout');
  // A window whose counters reached zero before the cut ended there (the next sync passes).
  const zero = truth([{ ...logWindow(0, 5_000, 'fulfilled', 0), satisfiedAt: T0 + 10 }]);
  assert.deepEqual(truthAt(zero, T0 + 1000).gatedWindows.map((w) => [w.ended, w.end]), [['fulfilled', T0 + 10]]);
  assert.equal(truthExitCode([truth([{ ...logWindow(0, undefined, 'open', 0), satisfiedAt: T0 + 10 }])], T0 + 1000), 0, 'open at the end but at zero: not gated');
  // Windows and failures after the cut are not in it.
  const later = truth([logWindow(500_000, 510_000, 'fulfilled', 1)]);
  later.slowStartFailures.push({ at: T0 + 500_000, podsSkipped: 1, source: src });
  assert.deepEqual([truthAt(later, at).gatedWindows.length, truthAt(later, at).slowStartFailures.length], [0, 0]);
});
