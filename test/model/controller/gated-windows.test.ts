/**
 * The gated-window state machine (src/model/controller/gated-windows.ts): every transition of
 * its header, under both feeds' options ('supersede' + openAtGatedSync for a real log, 'replace'
 * for the model), with the caller's window objects, slots and context handed through.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';

import {
  GatedWindows,
  type GatedWindowEnd,
  type GatedWindowsConfig,
  type GatedWindowStart,
  type WindowCore,
  type WindowSlot,
} from '../../../src/model/controller/gated-windows.js';

interface W extends WindowCore {
  by: GatedWindowStart;
  counts?: { add: number; del: number };
  openedBy: string;
  how?: GatedWindowEnd;
  endedBy?: string;
}

function machine(opts: Pick<GatedWindowsConfig<W, string>, 'openAtGatedSync' | 'onSetWhileOpen'>) {
  const slots = new Map<string, WindowSlot<W>>();
  const slot = (key: string): WindowSlot<W> => {
    let s = slots.get(key);
    if (!s) slots.set(key, (s = { windows: [] }));
    return s;
  };
  const gates = new GatedWindows<W, string>({
    ...opts,
    slot,
    make: (at, by, counts, ctx) => ({ start: at, gatedSyncs: 0, by, ...(counts ? { counts } : {}), openedBy: ctx }),
    ended: (w, how, ctx) => {
      w.how = how;
      w.endedBy = ctx;
    },
  });
  return { gates, slot };
}

const LOG = { openAtGatedSync: true, onSetWhileOpen: 'supersede' } as const;
const MODEL = { openAtGatedSync: false, onSetWhileOpen: 'replace' } as const;
const K = 'ns/rs';

test('NONE → OPEN at a Set that leaves the record unfulfilled; the context reaches make', () => {
  const { gates, slot } = machine(LOG);
  const w = gates.set(K, 10, { add: 3, del: 0 }, 'set@10');
  assert.deepEqual(w, { start: 10, gatedSyncs: 0, by: 'set', counts: { add: 3, del: 0 }, openedBy: 'set@10' });
  assert.equal(gates.open(K), w);
  assert.equal(slot(K).open, w, 'the open window lives in the caller\'s slot');
  assert.deepEqual(slot(K).windows, []);
});

test('a Set with unknown counts opens a window (taken as unfulfilled), without counts', () => {
  const { gates } = machine(LOG);
  const w = gates.set(K, 10, undefined, 's');
  assert.deepEqual(w, { start: 10, gatedSyncs: 0, by: 'set', openedBy: 's' });
});

test('NONE stays NONE at a Set that leaves the record fulfilled (add ≤ 0 && del ≤ 0)', () => {
  const { gates, slot } = machine(LOG);
  assert.equal(gates.set(K, 10, { add: 0, del: 0 }, 's'), undefined);
  assert.equal(gates.set(K, 11, { add: -1, del: 0 }, 's'), undefined);
  assert.deepEqual(slot(K), { windows: [] });
});

test('OPEN counts refused syncs; fulfilled and never-recorded end it `fulfilled`', () => {
  for (const outcome of ['fulfilled', 'never-recorded'] as const) {
    const { gates, slot } = machine(MODEL);
    gates.set(K, 10, { add: 2, del: 0 }, 's');
    gates.synced(K, 11, 'still-waiting', 'g1');
    gates.synced(K, 12, 'still-waiting', 'g2');
    const w = gates.synced(K, 20, outcome, 'sync@20');
    assert.equal(w?.gatedSyncs, 2);
    assert.equal(w?.end, 20);
    assert.equal(w?.how, 'fulfilled');
    assert.equal(w?.endedBy, 'sync@20');
    assert.equal(slot(K).open, undefined);
    assert.deepEqual(slot(K).windows, [w]);
  }
});

test('OPEN → NONE at an expired sync, ended `expired` with the context (what remained) handed to `ended`', () => {
  const { gates, slot } = machine(MODEL);
  gates.set(K, 0, { add: 0, del: 1 }, 's');
  const w = gates.synced(K, 300_001, 'expired', 'left 0/1');
  assert.deepEqual([w?.how, w?.end, w?.endedBy], ['expired', 300_001, 'left 0/1']);
  assert.equal(slot(K).open, undefined);
});

test('a refused sync with no window: opens one (startedBy gated-sync) only with openAtGatedSync', () => {
  const log = machine(LOG);
  const w = log.gates.synced(K, 5, 'still-waiting', 'first line');
  assert.deepEqual(w, { start: 5, gatedSyncs: 1, by: 'gated-sync', openedBy: 'first line' });
  const model = machine(MODEL);
  assert.equal(model.gates.synced(K, 5, 'still-waiting', 'x'), undefined);
  assert.deepEqual(model.slot(K), { windows: [] });
});

test('syncs, lowers and removals with no open window change nothing', () => {
  const { gates, slot } = machine(LOG);
  assert.equal(gates.synced(K, 1, 'fulfilled', 'x'), undefined);
  assert.equal(gates.synced(K, 2, 'expired', 'x'), undefined);
  assert.equal(gates.lowered(K, 3, { add: 0, del: 0 }), false);
  assert.equal(gates.removed(K, 4, 'deleted', 'x'), undefined);
  assert.equal(gates.closeFulfilled(K, 'x'), undefined);
  assert.equal(gates.raised(K, { add: 1, del: 0 }), true, 'the record is unfulfilled, though no window is open');
  assert.deepEqual(slot(K), { windows: [] });
});

test('lowered records fulfilledAt once, at the first lower that fulfils the record; unknown counts never do', () => {
  const { gates } = machine(MODEL);
  const w = gates.set(K, 0, { add: 2, del: 0 }, 's')!;
  assert.equal(gates.lowered(K, 1, { add: 1, del: 0 }), false);
  assert.equal(gates.lowered(K, 2, undefined), false);
  assert.equal(w.fulfilledAt, undefined);
  assert.equal(gates.lowered(K, 3, { add: 0, del: 0 }), true);
  assert.equal(w.fulfilledAt, 3);
  assert.equal(gates.lowered(K, 4, { add: -1, del: 0 }), false, 'already fulfilled: kept at the first time');
  assert.equal(w.fulfilledAt, 3);
  assert.equal(gates.open(K), w, 'still open: only a sync (or the end of input) ends it');
});

test('raised clears an open window\'s fulfilledAt when it leaves the record unfulfilled, and says so', () => {
  const { gates } = machine(MODEL);
  const w = gates.set(K, 0, { add: 1, del: 0 }, 's')!;
  gates.lowered(K, 1, { add: 0, del: 0 });
  assert.equal(gates.raised(K, { add: 0, del: 0 }), false, 'still fulfilled');
  assert.equal(w.fulfilledAt, 1);
  assert.equal(gates.raised(K, { add: 1, del: 0 }), true);
  assert.equal(w.fulfilledAt, undefined);
  assert.ok(Object.hasOwn(w, 'fulfilledAt'), 'cleared by assignment, as the engine did');
});

test('removed ends the open window `deleted` (DeleteExpectations) or `reset` (a new store)', () => {
  for (const how of ['deleted', 'reset'] as const) {
    const { gates, slot } = machine(LOG);
    gates.set(K, 0, { add: 1, del: 0 }, 's');
    const w = gates.removed(K, 7, how, 'ctx');
    assert.deepEqual([w?.how, w?.end, w?.endedBy], [how, 7, 'ctx']);
    assert.equal(slot(K).open, undefined);
  }
});

test('closeFulfilled ends the open window `fulfilled` at its fulfilledAt, and only if it has one', () => {
  const { gates, slot } = machine(MODEL);
  gates.set(K, 0, { add: 1, del: 0 }, 's');
  assert.equal(gates.closeFulfilled(K, 'end'), undefined);
  gates.lowered(K, 4, { add: 0, del: 0 });
  const w = gates.closeFulfilled(K, 'end');
  assert.deepEqual([w?.how, w?.end, w?.endedBy], ['fulfilled', 4, 'end']);
  assert.deepEqual(slot(K).windows, [w]);
});

test("'supersede': a Set while open ends the window `superseded` at the Set, then opens a new one if unfulfilled", () => {
  const { gates, slot } = machine(LOG);
  const first = gates.set(K, 0, { add: 1, del: 0 }, 'a')!;
  const second = gates.set(K, 5, { add: 0, del: 2 }, 'b')!;
  assert.deepEqual([first.how, first.end, first.endedBy], ['superseded', 5, 'b']);
  assert.equal(gates.open(K), second);
  assert.equal(gates.set(K, 9, { add: 0, del: 0 }, 'c'), undefined);
  assert.deepEqual([second.how, second.end], ['superseded', 9]);
  assert.equal(slot(K).open, undefined);
  assert.deepEqual(slot(K).windows, [first, second]);
});

test("'replace': a Set that opens a window drops the open one; a fulfilled Set keeps it open", () => {
  const { gates, slot } = machine(MODEL);
  const first = gates.set(K, 0, { add: 1, del: 0 }, 'a')!;
  assert.equal(gates.set(K, 3, { add: 0, del: 0 }, 'b'), undefined);
  assert.equal(gates.open(K), first, 'kept');
  const second = gates.set(K, 5, { add: 2, del: 0 }, 'c')!;
  assert.equal(gates.open(K), second);
  assert.equal(first.how, undefined, 'dropped, never ended');
  assert.deepEqual(slot(K).windows, []);
});

test('keys are independent', () => {
  const { gates, slot } = machine(LOG);
  gates.set('a/x', 0, { add: 1, del: 0 }, 's');
  gates.synced('b/y', 1, 'fulfilled', 's');
  gates.synced('a/x', 2, 'still-waiting', 'g');
  assert.equal(gates.open('a/x')?.gatedSyncs, 1);
  assert.deepEqual(slot('b/y'), { windows: [] });
});
