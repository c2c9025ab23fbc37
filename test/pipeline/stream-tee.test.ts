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
