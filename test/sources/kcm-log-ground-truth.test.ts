import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';

import type { ControllerLogEvent, ControllerLogKind } from '../../src/timeline/event.js';
import { openKcmLogSource } from '../../src/sources/kcm-log/kcm-log-source.js';
import { buildGroundTruth, type GroundTruth } from '../../src/sources/kcm-log/ground-truth.js';

const FX = new URL('../fixtures/kcm-log/', import.meta.url).pathname;
const RS = 'shop/web-7d9c6b8f5d';

async function events(file: string, year?: number): Promise<ControllerLogEvent[]> {
  const opts: Parameters<typeof openKcmLogSource>[1] = { diagnostics: { problem: () => {}, warn: () => {} } };
  if (year !== undefined) opts.year = year;
  const src = await openKcmLogSource(join(FX, file), opts);
  const out: ControllerLogEvent[] = [];
  // The ReplicaSet's lines (the RC manager's, with ownerKind, are its own ground truth).
  for await (const e of src.events) if ((e as ControllerLogEvent).ownerKind === undefined) out.push(e as ControllerLogEvent);
  return out;
}

const lines = <T extends { source: { line: number } }>(xs: T[]): number[] => xs.map((x) => x.source.line);

function windows(gt: GroundTruth): Array<[number, number | undefined, string, string, unknown, unknown, string | undefined, number]> {
  return gt.gatedWindows.map((w) => [w.startSource.line, w.endSource?.line, w.ended, w.startedBy, w.expected, w.leaked, w.leakedBasis, w.gatedSyncs]);
}

test('hand-written v1.28-style log: a window ended by fulfilled, one by expiry (leak as logged), clobbering', async () => {
  const gts = buildGroundTruth(await events('v128-text.log', 2025));
  assert.deepEqual([...gts.keys()], [RS]);
  const gt = gts.get(RS)!;
  assert.deepEqual(
    gt.syncs.map((s) => [s.source.line, s.decision, s.add, s.del, s.countsBasis]),
    [
      [5, 'never-recorded', undefined, undefined, undefined],
      [20, 'gated', 3, 0, 'logged'],
      [28, 'fulfilled', 0, 0, 'logged'],
      [32, 'fulfilled', 0, 0, 'logged'],
      [42, 'gated', 0, 1, 'logged'],
      [44, 'gated', 0, 1, 'logged'],
      [50, 'expired', 0, 1, 'logged'],
      [61, 'fulfilled', 0, 0, 'logged'],
    ],
  );
  assert.deepEqual(
    gt.raises.map((r) => [r.source.line, r.op, r.add, r.del, r.keys]),
    [
      [6, 'set', 3, 0, undefined],
      [35, 'set', 0, 2, [`${RS}-x7k2p`, `${RS}-m5n8w`]],
      [54, 'set', 0, 1, [`${RS}-m5n8w`]],
    ],
  );
  assert.deepEqual(
    gt.lowers.map((l) => [l.source.line, l.add, l.del]),
    [
      [23, 2, 0],
      [25, 1, 0],
      [27, 0, 0],
      [41, 0, 1],
      [60, 0, 0],
    ],
  );
  assert.deepEqual(
    gt.clobbers.map((c) => [c.source.line, c.keys]),
    [[53, [`${RS}-m5n8w`]]],
  );
  assert.deepEqual(gt.slowStartFailures, []);
  assert.deepEqual(gt.restarts, [Date.UTC(2025, 10, 30, 10, 15, 0) + 0.1]);
  assert.deepEqual(windows(gt), [
    [6, 28, 'fulfilled', 'setting', { add: 3, del: 0 }, undefined, undefined, 1],
    [35, 50, 'expired', 'setting', { add: 0, del: 2 }, { add: 0, del: 1 }, 'logged', 2],
    [54, 61, 'fulfilled', 'setting', { add: 0, del: 1 }, undefined, undefined, 0],
  ]);
  const leak = gt.gatedWindows[1]!;
  assert.equal(leak.start, Date.UTC(2025, 10, 30, 10, 16, 0) + 0.35);
  assert.equal(leak.end, Date.UTC(2025, 10, 30, 10, 21, 30));
});

test('≤1.26 printf log: slow-start failure lowers add, the RS handler\'s "Deleting" ends a window as deleted', async () => {
  const gt = buildGroundTruth(await events('v126-printf.log', 2025)).get(RS)!;
  assert.deepEqual(windows(gt), [
    [6, 17, 'fulfilled', 'setting', { add: 2, del: 0 }, undefined, undefined, 1],
    [31, 37, 'deleted', 'setting', { add: 0, del: 1 }, undefined, undefined, 0],
  ]);
  assert.deepEqual(
    gt.slowStartFailures.map((s) => [s.source.line, s.podsSkipped]),
    [[10, 1]],
  );
  assert.deepEqual(lines(gt.clobbers), [30]);
  assert.deepEqual(gt.raises[1]!.keys, [`${RS}-abcde`]);
});

test('real v1.37.2 output (expectations logged as {}): the leak is reconstructed from context', async () => {
  for (const f of ['sim-v1.37.2-text.log', 'sim-v1.37.2-json.log']) {
    const gt = buildGroundTruth(await events(f, 2026)).get(RS)!;
    assert.equal(gt.restarts.length, 2);
    assert.equal(gt.gatedWindows.length, 6);
    assert.deepEqual(
      gt.gatedWindows.map((w) => [w.ended, w.expected]),
      [
        ['fulfilled', { add: 3, del: 0 }],
        ['fulfilled', { add: 2, del: 0 }],
        ['fulfilled', { add: 2, del: 0 }],
        ['expired', { add: 0, del: 3 }],
        ['fulfilled', { add: 0, del: 1 }],
        ['fulfilled', { add: 1, del: 0 }],
      ],
    );
    const leak = gt.gatedWindows[3]!;
    assert.deepEqual(leak.leaked, { add: 0, del: 1 });
    assert.equal(leak.leakedBasis, 'reconstructed');
    assert.equal(leak.gatedSyncs, 18);
    assert.ok(leak.end! - leak.start > 5 * 60_000, 'expired only after ExpectationsTimeout');
    assert.equal(gt.clobbers.length, 1);
    // The clobbering comes from the ExpectDeletions of the very sync that logged "expired".
    assert.ok(gt.clobbers[0]!.at > leak.end! && gt.clobbers[0]!.at - leak.end! < 100, 'clobbering right after the expiry');
    assert.equal(gt.slowStartFailures.length, 1);
    assert.equal(gt.slowStartFailures[0]!.podsSkipped, 2);
    // The sync after the slow-start failure: both skipped creations lowered, so fulfilled.
    assert.equal(gt.gatedWindows[1]!.gatedSyncs, 0);
    assert.deepEqual(
      gt.syncs.filter((s) => s.decision === 'never-recorded').length,
      3, // first sync, and after the restart (two syncs before the next Set)
    );
  }
});

// ---------------------------------------------------------------------------------------------
// pure behaviour on synthetic events

let n = 0;
function ev(logKind: ControllerLogKind, at: number, extra: Partial<ControllerLogEvent> = {}): ControllerLogEvent {
  n++;
  return { type: 'controller-log', logKind, at, atBasis: 'log', source: { file: 'x.log', line: n }, message: logKind, ...extra };
}

test('restart ends a window (record gone), rs deletion ends one, a log starting inside a window opens it at the gated sync', () => {
  n = 0;
  const A = 'ns/a';
  const B = 'ns/b';
  const C = 'ns/c';
  const evs = [
    ev('controller-started', 0),
    ev('setting-expectations', 1000, { rsKey: A, add: 2, del: 0, numbers: { fromContext: 1 } }), // 2
    ev('still-waiting', 2000, { rsKey: A, numbers: { fromContext: 1 } }), // 3
    ev('controller-started', 3000), // 4
    ev('never-recorded', 4000, { rsKey: A }), // 5
    ev('setting-expectations', 5000, { rsKey: A, add: 1, del: 0, numbers: { fromContext: 1 } }), // 6
    ev('rs-deleted-sync', 6000, { rsKey: A }), // 7
    ev('still-waiting', 7000, { rsKey: B }), // 8
    ev('still-waiting', 8000, { rsKey: B }), // 9
    ev('waiting-on-deletions', 9000, { rsKey: C, keys: ['ns/c-aaaaa', 'ns/c-bbbbb'] }), // 10
    ev('setting-expectations', 9000.01, { rsKey: C, add: 0, del: 2, numbers: { fromContext: 1 } }), // 11
    ev('lowered-expectations', 9500, { rsKey: C, numbers: { lowerDel: 1, fromContext: 1 } }), // 12
    ev('expectations-expired', 9000.01 + 301_000, { rsKey: C, numbers: { fromContext: 1 } }), // 13
    ev('expectations-expired', 9000.01 + 302_000, { rsKey: C, numbers: { fromContext: 1 } }), // 14
  ];
  // Input order does not matter: events are taken in time order.
  const gts = buildGroundTruth([...evs].reverse());
  assert.deepEqual(gts.get(A)!.restarts, [0, 3000]);
  assert.deepEqual(windows(gts.get(A)!), [
    [2, 4, 'restart', 'setting', { add: 2, del: 0 }, undefined, undefined, 1],
    [6, 7, 'deleted', 'setting', { add: 1, del: 0 }, undefined, undefined, 0],
  ]);
  assert.deepEqual(
    gts.get(A)!.syncs.map((s) => [s.decision, s.add, s.del, s.countsBasis]),
    [
      ['gated', 2, 0, 'reconstructed'],
      ['never-recorded', undefined, undefined, undefined],
    ],
  );
  assert.deepEqual(windows(gts.get(B)!), [[8, undefined, 'open', 'gated-sync', undefined, undefined, undefined, 2]]);
  const c = gts.get(C)!;
  assert.deepEqual(windows(c), [[11, 13, 'expired', 'setting', { add: 0, del: 2 }, { add: 0, del: 1 }, 'reconstructed', 0]]);
  assert.deepEqual(c.raises[0]!.keys, ['ns/c-aaaaa', 'ns/c-bbbbb']);
  assert.deepEqual(
    c.lowers.map((l) => [l.lowerAdd, l.lowerDel]),
    [[undefined, 1]],
  );
  assert.deepEqual(
    c.syncs.map((s) => s.decision),
    ['expired', 'expired'],
  );
});

test('a Setting with no sync line in between supersedes the open window', () => {
  n = 0;
  const gts = buildGroundTruth([
    ev('setting-expectations', 1, { rsKey: 'ns/a', add: 1, del: 0 }),
    ev('setting-expectations', 2, { rsKey: 'ns/a', add: 0, del: 0 }),
  ]);
  assert.deepEqual(windows(gts.get('ns/a')!), [[1, 2, 'superseded', 'setting', { add: 1, del: 0 }, undefined, undefined, 0]]);
});

test('a lower that fulfils the record (reconstructed from context) sets satisfiedAt; the window stays open when the log ends before the next sync', () => {
  n = 0;
  const gts = buildGroundTruth([
    ev('setting-expectations', 1, { rsKey: 'ns/a', add: 2, del: 0, numbers: { fromContext: 1 } }),
    ev('lowered-expectations', 2, { rsKey: 'ns/a', numbers: { fromContext: 1, lowerAdd: 1 } }),
    ev('still-waiting', 3, { rsKey: 'ns/a' }),
    ev('lowered-expectations', 4, { rsKey: 'ns/a', numbers: { fromContext: 1, lowerAdd: 1 } }),
    ev('lowered-expectations', 5, { rsKey: 'ns/a', numbers: { fromContext: 1, lowerAdd: 1 } }),
  ]);
  const gt = gts.get('ns/a')!;
  assert.deepEqual(windows(gt), [[1, undefined, 'open', 'setting', { add: 2, del: 0 }, undefined, undefined, 1]]);
  assert.equal(gt.gatedWindows[0]!.satisfiedAt, 4, 'the first lower that reached add ≤ 0 && del ≤ 0');
  assert.deepEqual(gt.syncs.map((s) => [s.decision, s.add, s.del, s.countsBasis]), [['gated', 1, 0, 'reconstructed']]);
});

test('a logged raise does not reopen or unfulfil a window (the log builder does not feed raises to the window machine)', () => {
  n = 0;
  const gts = buildGroundTruth([
    ev('setting-expectations', 1, { rsKey: 'ns/a', add: 1, del: 0 }),
    ev('lowered-expectations', 2, { rsKey: 'ns/a', add: 0, del: 0 }),
    ev('raised-expectations', 3, { rsKey: 'ns/a', add: 1, del: 0 }),
    ev('expectations-fulfilled', 4, { rsKey: 'ns/a', add: 0, del: 0 }),
  ]);
  const gt = gts.get('ns/a')!;
  assert.deepEqual(windows(gt), [[1, 4, 'fulfilled', 'setting', { add: 1, del: 0 }, undefined, undefined, 0]]);
  assert.equal(gt.gatedWindows[0]!.satisfiedAt, 2);
});
