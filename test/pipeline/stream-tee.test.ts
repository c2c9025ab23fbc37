import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TO_FIRST, TO_SECOND, teeStream } from '../../src/pipeline/stream-tee.js';

async function* numbers(n: number, log?: number[]): AsyncGenerator<number> {
  for (let i = 0; i < n; i++) {
    log?.push(i);
    yield i;
  }
}

async function drain(it: AsyncIterable<number>, each?: () => Promise<void>): Promise<number[]> {
  const out: number[] = [];
  for await (const x of it) {
    out.push(x);
    if (each) await each();
  }
  return out;
}

const route = (x: number) => (x % 3 === 0 ? TO_FIRST | TO_SECOND : x % 3 === 1 ? TO_FIRST : TO_SECOND);

test('each consumer gets its events in stream order, shared ones converted for the second', async () => {
  const [a, b] = teeStream(numbers(10), route, (x) => (x % 3 === 0 ? -x : x));
  const [ra, rb] = await Promise.all([drain(a), drain(b)]);
  assert.deepEqual(ra, [0, 1, 3, 4, 6, 7, 9]);
  assert.deepEqual(rb, [-0, 2, -3, 5, -6, 8, -9]);
});

test('the stream is read once, and what waits for a slow consumer stays within the limit', async () => {
  const read: number[] = [];
  let maxAhead = 0;
  let taken = 0;
  const [a, b] = teeStream(numbers(1000, read), () => TO_FIRST | TO_SECOND, undefined, 16);
  const slow = drain(b, async () => {
    taken++;
    await new Promise((r) => setImmediate(r));
  });
  const fast = drain(a, async () => {
    maxAhead = Math.max(maxAhead, read.length - taken);
  });
  const [ra, rb] = await Promise.all([fast, slow]);
  assert.equal(read.length, 1000);
  assert.equal(ra.length, 1000);
  assert.deepEqual(rb, ra);
  assert.ok(maxAhead <= 18, `ran ${maxAhead} ahead`);
});

test('a consumer that stops early leaves the other reading to the end; both stopping closes the stream', async () => {
  let closed = false;
  async function* src(): AsyncGenerator<number> {
    try {
      for (let i = 0; i < 100; i++) yield i;
    } finally {
      closed = true;
    }
  }
  const [a, b] = teeStream(src(), () => TO_FIRST | TO_SECOND, undefined, 8);
  const first: number[] = [];
  const stopA = (async () => {
    for await (const x of a) if (first.push(x) >= 3) break;
  })();
  const [, rb] = await Promise.all([stopA, drain(b)]);
  assert.deepEqual(first, [0, 1, 2]);
  assert.equal(rb.length, 100);
  const [c, d] = teeStream(src(), () => TO_FIRST | TO_SECOND);
  closed = false;
  await c.next();
  await c.return!();
  await d.return!();
  assert.equal(closed, true);
});

test('an error reading the stream reaches both consumers', async () => {
  async function* bad(): AsyncGenerator<number> {
    yield 0;
    throw new Error('cut');
  }
  const [a, b] = teeStream(bad(), () => TO_FIRST | TO_SECOND);
  await assert.rejects(drain(a), /cut/);
  await assert.rejects(drain(b), /cut/);
});

/**
 * A source that also offers `nextSync` (timeline/sync-next.ts), with its items "at hand" in
 * batches of `batch`: at a batch's end `nextSync` answers undefined and only `next()` goes on.
 */
function syncNumbers(n: number, batch: number, read: number[]): AsyncIterableIterator<number> & { nextSync(): IteratorResult<number> | undefined } {
  let i = 0;
  let atHand = 0;
  const step = (): IteratorResult<number> => {
    if (i >= n) return { value: undefined, done: true };
    read.push(i);
    return { value: i++, done: false };
  };
  return {
    nextSync() {
      if (atHand === 0) return undefined;
      atHand--;
      return step();
    },
    async next() {
      await new Promise((r) => setImmediate(r));
      atHand = batch - 1;
      return step();
    },
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}

/** Reads `it` as the engine's feed does: `nextSync()` first, `next()` when it has nothing at hand. */
async function drainSync(it: AsyncIterator<number> & { nextSync(): IteratorResult<number> | undefined }, each?: () => Promise<void>, counts = { sync: 0 }): Promise<number[]> {
  const out: number[] = [];
  for (;;) {
    const s = it.nextSync();
    if (s !== undefined) counts.sync++;
    const r = s ?? (await it.next());
    if (r.done) return out;
    out.push(r.value);
    if (each) await each();
  }
}

test('nextSync through two tees (as the owner kinds chain them): the same events per consumer, the stream read once, within the limit', async () => {
  const route2 = (x: number) => (x % 5 === 0 ? TO_FIRST | TO_SECOND : x % 5 < 3 ? TO_FIRST : TO_SECOND);
  const expect = async () => {
    const [a, rest] = teeStream(numbers(3000), route, (x) => x + 0.5);
    const [b, c] = teeStream(rest, route2);
    return Promise.all([drain(a), drain(b), drain(c)]);
  };
  const want = await expect();
  for (const batch of [1, 7, 100, 5000]) {
    const read: number[] = [];
    let maxQueued = 0;
    const [a, rest] = teeStream(syncNumbers(3000, batch, read), route, (x) => x + 0.5, 32);
    const [b, c] = teeStream(rest, route2, undefined, 32);
    const got = { a: [] as number[], b: [] as number[], c: [] as number[] };
    const counts = { sync: 0 };
    let takenC = 0;
    // What the slow consumer has yet to take of what was read: bounded by the two tees' limits.
    const forC = new Set(want[2]!.map((v) => Math.floor(v)));
    let readForC = 0;
    let seen = 0;
    const fast = drainSync(a, async () => {
      for (; seen < read.length; seen++) if (forC.has(read[seen]!)) readForC++;
      maxQueued = Math.max(maxQueued, readForC - takenC);
    }, counts).then((r) => (got.a = r));
    // One consumer reads synchronously, one through next(), one slowly.
    const mid = drainSync(b).then((r) => (got.b = r));
    const slow = drain(c, () => new Promise((r) => setImmediate(r)).then(() => void takenC++)).then((r) => (got.c = r));
    await Promise.all([fast, mid, slow]);
    assert.deepEqual([got.a, got.b, got.c], want, `batch ${batch}`);
    assert.equal(read.length, 3000, `batch ${batch}: read once`);
    assert.ok(maxQueued <= 2 * 32 + 2, `batch ${batch}: the fast consumer waited for the slow one (${maxQueued} queued)`);
    // Every read but a batch's first was handed over without a promise somewhere.
    if (batch > 1) assert.ok(counts.sync > 0, `batch ${batch}: nextSync answered`);
  }
});
