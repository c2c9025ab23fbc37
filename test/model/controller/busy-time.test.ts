/**
 * Busy time (src/model/controller/busy-time.ts): a sync occupies its key until its last API call
 * returned, strictly; calls without a completion time, or completing before the sync's start, leave
 * the key free; a replay may extend the busy time of a key that is busy; release forgets it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { BusyTime } from '../../../src/model/controller/busy-time.js';

const K = 'd/foo';
const T = 1_000_000;

test('a sync whose calls all returned at its start leaves the key free', () => {
  const b = new BusyTime();
  b.begin(T);
  b.callReturned(undefined);
  b.callReturned(T);
  b.callReturned(T - 5);
  assert.equal(b.end(K, T), undefined);
  assert.equal(b.busyUntil(K), undefined);
  assert.equal(b.isBusy(K, T), false);
});

test('the key is busy until the latest call returned, not at that instant', () => {
  const b = new BusyTime();
  b.begin(T);
  b.callReturned(T + 40);
  b.callReturned(T + 250);
  b.callReturned(T + 90); // an earlier completion does not shorten it
  assert.equal(b.end(K, T), T + 250);
  assert.equal(b.busyUntil(K), T + 250);
  assert.equal(b.isBusy(K, T + 249), true);
  assert.equal(b.isBusy(K, T + 250), false);
  assert.equal(b.isBusy('d/other', T + 1), false, 'only the synced key');
});

test('each sync starts afresh: the next one does not inherit the previous calls', () => {
  const b = new BusyTime();
  b.begin(T);
  b.callReturned(T + 500);
  b.end(K, T);
  b.begin(T + 1000);
  assert.equal(b.end('d/bar', T + 1000), undefined);
  assert.equal(b.busyUntil('d/bar'), undefined);
  assert.equal(b.busyUntil(K), T + 500, 'the other key keeps its own time');
});

test('extend moves the end of a busy key only; release forgets it', () => {
  const b = new BusyTime();
  b.extend(K, T + 900);
  assert.equal(b.busyUntil(K), undefined, 'a key that is not busy is not made busy');
  b.begin(T);
  b.callReturned(T + 100);
  b.end(K, T);
  b.extend(K, T + 900);
  assert.equal(b.busyUntil(K), T + 900);
  assert.equal(b.isBusy(K, T + 899), true);
  b.release(K);
  assert.equal(b.busyUntil(K), undefined);
  assert.equal(b.isBusy(K, T + 1), false);
});
