/**
 * WorkQueue (src/model/workqueue.ts) against controller-semantics.md §6 and client-go's
 * rate-limiting / delaying workqueue.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { BACKOFF_BASE_MS, BACKOFF_MAX_MS, WorkQueue } from '../../src/model/workqueue.js';

const K = 'd/foo';
const T = 1_000_000;

function drain(q: WorkQueue, before = Number.POSITIVE_INFINITY, inclusive = true): Array<[string, number]> {
  const out: Array<[string, number]> = [];
  for (let n = q.next(before, inclusive); n; n = q.next(before, inclusive)) out.push([n.key, n.at]);
  return out;
}

test('§6 Add de-duplicates: a key already waiting is queued once', () => {
  const q = new WorkQueue();
  q.add(K, T);
  q.add(K, T);
  q.add(K, T + 3);
  assert.equal(q.size, 1);
  assert.equal(q.dueAt(K), T);
  assert.deepEqual(drain(q), [[K, T]]);
  assert.equal(q.size, 0);
  assert.equal(q.dueAt(K), undefined);
});

test('§6 AddAfter: due at now + d; between two delayed adds the earliest due wins', () => {
  const q = new WorkQueue();
  q.addAfter(K, T, 30_000);
  assert.equal(q.dueAt(K), T + 30_000);
  q.addAfter(K, T + 1_000, 10_000); // due T+11 s: earlier → wins
  assert.equal(q.dueAt(K), T + 11_000);
  q.addAfter(K, T + 2_000, 60_000); // later → ignored
  assert.equal(q.dueAt(K), T + 11_000);
  assert.equal(q.size, 1);
  // A non-positive delay is a plain Add.
  const q2 = new WorkQueue();
  q2.addAfter(K, T, 0);
  assert.equal(q2.dueAt(K), T);
  q2.addAfter('d/bar', T, -5);
  assert.equal(q2.dueAt('d/bar'), T);
});

test('§6 next(): earliest first, strict "before" unless inclusive', () => {
  const q = new WorkQueue();
  q.add('d/b', T + 10);
  q.add('d/a', T + 5);
  q.add('d/c', T + 20);
  assert.equal(q.next(T + 5), undefined, 'due exactly at `before` is excluded when not inclusive');
  assert.deepEqual(q.next(T + 5, true), { key: 'd/a', at: T + 5 });
  assert.deepEqual(drain(q, T + 20, false), [['d/b', T + 10]]);
  assert.deepEqual(drain(q, T + 20, true), [['d/c', T + 20]]);
});

test('§6 AddRateLimited: 5, 10, 20, 40 ms … per key; returns the delay used', () => {
  const q = new WorkQueue();
  assert.equal(BACKOFF_BASE_MS, 5);
  const delays: number[] = [];
  let now = T;
  for (let i = 0; i < 6; i++) {
    const d = q.addRateLimited(K, now);
    delays.push(d);
    assert.equal(q.dueAt(K), now + d);
    assert.deepEqual(q.next(Number.POSITIVE_INFINITY, true), { key: K, at: now + d });
    now += d;
  }
  assert.deepEqual(delays, [5, 10, 20, 40, 80, 160]);
  // Per item: another key starts at 5 ms.
  assert.equal(q.addRateLimited('d/bar', T), 5);
});

test('§6 AddRateLimited is capped at 1000 s (5 ms · 2^17 = 655.36 s, 2^18 would be 1310.72 s)', () => {
  const q = new WorkQueue();
  assert.equal(BACKOFF_MAX_MS, 1_000_000);
  const delays: number[] = [];
  for (let i = 0; i < 22; i++) {
    delays.push(q.addRateLimited(K, T));
    q.next(Number.POSITIVE_INFINITY, true);
  }
  assert.equal(delays[17], 655_360);
  assert.equal(delays[18], 1_000_000);
  assert.deepEqual(delays.slice(18), [1_000_000, 1_000_000, 1_000_000, 1_000_000]);
});

test('§6 Forget resets the backoff of that key only', () => {
  const q = new WorkQueue();
  q.addRateLimited(K, T);
  q.addRateLimited(K, T);
  q.addRateLimited('d/bar', T);
  assert.equal(q.addRateLimited(K, T), 20);
  q.forget(K);
  assert.equal(q.addRateLimited(K, T), 5);
  assert.equal(q.addRateLimited('d/bar', T), 10);
});

test('§6 a rate-limited retry does not push back a key already due earlier', () => {
  const q = new WorkQueue();
  q.add(K, T);
  assert.equal(q.addRateLimited(K, T), 5);
  assert.equal(q.dueAt(K), T);
  assert.equal(q.size, 1);
});

test(
  '§6/§4 step 14: Add(now) and a pending AddAfter(later) are two wake-ups (ready queue vs waiting heap)',
  () => {
    const q = new WorkQueue();
    // updatePod: enqueue owner, then AddAfter(minReadySeconds [+1 s]) for the availability check.
    q.add(K, T);
    q.addAfter(K, T, 31_000);
    assert.deepEqual(q.next(T, true), { key: K, at: T });
    assert.deepEqual(q.next(T + 31_000, true), { key: K, at: T + 31_000 });

    // Reverse order: a sync requeued the key for later, then an event adds it now.
    const q2 = new WorkQueue();
    q2.addAfter(K, T, 30_000);
    q2.add(K, T + 1_000);
    assert.deepEqual(q2.next(T + 1_000, true), { key: K, at: T + 1_000 });
    assert.deepEqual(q2.next(T + 30_000, true), { key: K, at: T + 30_000 });
  },
);

/**
 * The order of the map scan next() once did (earliest due time; ties: the queue before the
 * delaying queue, then the key inserted first) — the reference the heaps must reproduce.
 */
class ScanQueue {
  readonly queued = new Map<string, number>();
  readonly waiting = new Map<string, number>();
  add(key: string, now: number): void {
    const d = this.queued.get(key);
    if (d === undefined || now < d) this.queued.set(key, now);
  }
  addAfter(key: string, now: number, delay: number): void {
    if (delay <= 0) return this.add(key, now);
    const w = this.waiting.get(key);
    if (w === undefined || now + delay < w) this.waiting.set(key, now + delay);
  }
  next(before: number, inclusive: boolean): { key: string; at: number } | undefined {
    let bestKey: string | undefined;
    let bestAt = Infinity;
    let fromWaiting = false;
    for (const [key, at] of this.queued) if ((inclusive ? at <= before : at < before) && at < bestAt) [bestKey, bestAt] = [key, at];
    for (const [key, at] of this.waiting) if ((inclusive ? at <= before : at < before) && at < bestAt) [bestKey, bestAt, fromWaiting] = [key, at, true];
    if (bestKey === undefined) return undefined;
    if (!fromWaiting) this.queued.delete(bestKey);
    else {
      this.waiting.delete(bestKey);
      const q = this.queued.get(bestKey);
      if (q !== undefined && q <= bestAt) this.queued.delete(bestKey);
    }
    return { key: bestKey, at: bestAt };
  }
  take(key: string): void {
    this.queued.delete(key);
    this.waiting.delete(key);
  }
  dropDue(before: number): number {
    let n = 0;
    for (const [k, at] of [...this.queued]) if (at < before) (this.queued.delete(k), n++);
    for (const [k, at] of [...this.waiting]) if (at < before) (this.waiting.delete(k), n++);
    return n;
  }
}

test('next() order: the heaps give what a scan of the queues gives, over 20,000 random operations with many ties', () => {
  let s = 42;
  const rnd = (n: number): number => ((s = (s * 1103515245 + 12345) % 2 ** 31), s % n);
  const q = new WorkQueue();
  const ref = new ScanQueue();
  let now = T;
  for (let i = 0; i < 20_000; i++) {
    const key = `ns/rs-${rnd(60)}`;
    const op = rnd(10);
    if (op < 3) (q.add(key, now), ref.add(key, now));
    else if (op < 5) {
      const d = rnd(4) * 5;
      q.addAfter(key, now, d);
      ref.addAfter(key, now, d);
    } else if (op < 8) {
      const before = now + rnd(3) * 5;
      const inclusive = rnd(2) === 0;
      assert.deepEqual(q.next(before, inclusive), ref.next(before, inclusive), `operation ${i}`);
    } else if (op === 8) (q.take(key), ref.take(key));
    else if (rnd(20) === 0) assert.equal(q.dropDue(now - 5), ref.dropDue(now - 5));
    if (rnd(4) === 0) now += 5; // many operations share one instant
  }
  assert.deepEqual(drain(q), (() => {
    const out: Array<[string, number]> = [];
    for (let n = ref.next(Infinity, true); n; n = ref.next(Infinity, true)) out.push([n.key, n.at]);
    return out;
  })());
});

test('taken keys keep their slot until swept: 400 keys, 30,000 random operations, the same answers and size as the scan', () => {
  // More keys than the 64 under which the queue never sweeps its empty slots, and bursts of
  // takes, so sweeps happen between re-adds of the same keys.
  let s = 7;
  const rnd = (n: number): number => ((s = (s * 1103515245 + 12345) % 2 ** 31), (s >>> 8) % n);
  const q = new WorkQueue();
  const ref = new ScanQueue();
  let now = T;
  for (let i = 0; i < 30_000; i++) {
    const key = `ns/rs-${rnd(400)}`;
    const op = rnd(12);
    if (op < 4) (q.add(key, now), ref.add(key, now));
    else if (op < 6) {
      const d = rnd(4) * 5;
      q.addAfter(key, now, d);
      ref.addAfter(key, now, d);
    } else if (op < 10) {
      const before = now + rnd(3) * 5;
      const inclusive = rnd(2) === 0;
      assert.deepEqual(q.next(before, inclusive), ref.next(before, inclusive), `operation ${i}`);
    } else if (op === 10) (q.take(key), ref.take(key));
    else if (rnd(50) === 0) {
      // a burst: every key due so far is handed out
      for (let n = ref.next(now, true); n; n = ref.next(now, true)) assert.deepEqual(q.next(now, true), n, `burst at ${i}`);
      assert.equal(q.next(now, true), undefined);
    }
    if (rnd(4) === 0) now += 5;
    if (i % 1000 === 0) assert.equal(q.size, new Set([...ref.queued.keys(), ...ref.waiting.keys()]).size, `size at ${i}`);
  }
  assert.deepEqual(drain(q), (() => {
    const out: Array<[string, number]> = [];
    for (let n = ref.next(Infinity, true); n; n = ref.next(Infinity, true)) out.push([n.key, n.at]);
    return out;
  })());
  assert.equal(q.size, 0);
});

test('next() is not quadratic: 100,000 keys queued at one instant drain in order, each once', () => {
  const q = new WorkQueue();
  for (let i = 0; i < 100_000; i++) q.add(`ns/rs-${i}`, T);
  const out = drain(q);
  assert.equal(out.length, 100_000);
  assert.deepEqual(out.slice(0, 3).map((x) => x[0]), ['ns/rs-0', 'ns/rs-1', 'ns/rs-2']);
  assert.equal(out[99_999]![0], 'ns/rs-99999');
});

test('firstDue(): the earliest entry of the queue or the delaying queue; undefined when both are empty', () => {
  const q = new WorkQueue();
  assert.equal(q.firstDue(), undefined);
  q.addAfter('d/a', T, 5000);
  assert.equal(q.firstDue(), T + 5000, 'a delayed entry alone');
  q.add('d/b', T + 100);
  assert.equal(q.firstDue(), T + 100, 'a queued entry before it');
  assert.deepEqual(q.next(T + 200), { key: 'd/b', at: T + 100 });
  assert.equal(q.firstDue(), T + 5000, 'taken entries no longer count');
  q.take('d/a');
  assert.equal(q.firstDue(), undefined);
});
