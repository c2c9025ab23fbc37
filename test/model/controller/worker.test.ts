/**
 * The worker (src/model/controller/worker.ts): due syncs run in due order up to the bound
 * (exclusive or inclusive), requeues within the bound run in the same call, a key still busy with
 * its previous sync is handed out again when that sync ends, and a forced sync records its busy
 * time and reaches onSync like any other.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { WorkQueue } from '../../../src/model/workqueue.js';
import { BusyTime } from '../../../src/model/controller/busy-time.js';
import { Worker } from '../../../src/model/controller/worker.js';

const T = 1_000_000;

interface Rec {
  key: string;
  at: number;
  doneAt?: number;
}

/** A worker over a real queue and busy time; `plan` says what each sync of a key does. */
function setup(plan: (key: string, at: number, q: WorkQueue, b: BusyTime) => void = () => {}) {
  const queue = new WorkQueue();
  const busy = new BusyTime();
  const reported: Rec[] = [];
  const worker = new Worker<Rec>(queue, busy, (key, at) => {
    plan(key, at, queue, busy);
    return { key, at };
  }, (s) => reported.push(s));
  return { queue, busy, worker, reported };
}

const keysAt = (rs: Rec[]): string[] => rs.map((r) => `${r.key}@${r.at - T}`);

test('runDue runs what is due before the bound in due order; inclusive takes the bound too', () => {
  const { queue, worker, reported } = setup();
  queue.add('d/b', T + 20);
  queue.add('d/a', T + 10);
  queue.addAfter('d/c', T, 30);
  assert.deepEqual(keysAt(worker.runDue(T + 30)), ['d/a@10', 'd/b@20']);
  assert.equal(queue.dueAt('d/c'), T + 30, 'due at the bound: left for later');
  assert.deepEqual(keysAt(worker.runDue(T + 30, true)), ['d/c@30']);
  assert.deepEqual(keysAt(reported), ['d/a@10', 'd/b@20', 'd/c@30'], 'each sync reported once, in order');
  assert.deepEqual(worker.runDue(Number.POSITIVE_INFINITY, true), []);
});

test('a sync that requeues its key within the bound runs again in the same call', () => {
  let n = 0;
  const { queue, worker } = setup((key, at, q) => {
    if (++n < 3) q.addAfter(key, at, 5);
  });
  queue.add('d/a', T);
  assert.deepEqual(keysAt(worker.runDue(T + 100)), ['d/a@0', 'd/a@5', 'd/a@10']);
  assert.equal(queue.size, 0);
});

test('a key busy with its previous sync is handed out again when that sync ends', () => {
  const { queue, busy, worker } = setup((key, at, _q, b) => {
    if (at === T) b.callReturned(T + 300); // the first sync's calls return 300 ms later
  });
  queue.add('d/a', T);
  const [first] = worker.runDue(T, true);
  assert.equal(first!.doneAt, T + 300, 'the record says when the sync ended');
  assert.equal(busy.isBusy('d/a', T + 50), true);
  // An event enqueues the key meanwhile: it is not synced before the busy time is over…
  queue.add('d/a', T + 50);
  assert.deepEqual(worker.runDue(T + 200), []);
  assert.equal(queue.dueAt('d/a'), T + 300, '…it is moved to the end of the busy time');
  // …and then it runs once, at that time, and the busy time is released.
  const second = worker.runDue(T + 400);
  assert.deepEqual(keysAt(second), ['d/a@300']);
  assert.equal(second[0]!.doneAt, undefined);
  assert.equal(busy.busyUntil('d/a'), undefined);
});

test('other keys run while one is busy; a due time at or after the busy end runs at once', () => {
  const { queue, busy, worker } = setup((key, at, _q, b) => {
    if (key === 'd/a' && at === T) b.callReturned(T + 100);
  });
  queue.add('d/a', T);
  worker.runDue(T, true);
  queue.add('d/b', T + 10);
  queue.add('d/a', T + 150);
  assert.deepEqual(keysAt(worker.runDue(T + 200)), ['d/b@10', 'd/a@150']);
  assert.equal(busy.busyUntil('d/a'), undefined);
});

test('sync runs a key now whether or not it is queued, and reports it like a due one', () => {
  const { queue, worker, reported } = setup((_key, at, _q, b) => b.callReturned(at + 7));
  queue.add('d/a', T + 1000);
  const rec = worker.sync('d/a', T);
  assert.deepEqual(rec, { key: 'd/a', at: T, doneAt: T + 7 });
  assert.deepEqual(reported, [rec]);
  assert.equal(queue.dueAt('d/a'), T + 1000, 'the queue is the sync handler\'s business, not the worker\'s');
});
