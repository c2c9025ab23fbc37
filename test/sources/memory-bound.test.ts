/**
 * The memory bound on reading (src/sources/memory-bound.ts): with V8's heap statistics injected,
 * it looks at the heap once per 4 MiB read, passes below 80 % of the limit, and above it throws
 * one InputError line (exit 6 through cli/error-exit.ts) naming the file, the bytes read, the heap
 * and what to do.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HEAP_FRACTION, InputTooLargeError, MemoryBound } from '../../src/sources/memory-bound.js';
import { InputError } from '../../src/sources/source.js';

const MiB = 1 << 20;

test('memory bound: looks at the heap once per 4 MiB, throws one line past 80 % of the limit', () => {
  let used = 100 * MiB;
  let looks = 0;
  const bound = new MemoryBound(() => (looks++, { used, limit: 1000 * MiB }));
  bound.consumed('big.json', 1); // the first call looks
  assert.equal(looks, 1);
  for (let i = 0; i < 3; i++) bound.consumed('big.json', MiB);
  assert.equal(looks, 1, 'no look before 4 MiB more were read');
  bound.consumed('big.json', MiB);
  assert.equal(looks, 2);
  used = HEAP_FRACTION * 1000 * MiB; // at the bound: still fine
  bound.consumed('big.json', 4 * MiB);
  used = 900 * MiB;
  assert.throws(
    () => bound.consumed('big.json', 4 * MiB),
    (err: unknown) => {
      assert.ok(err instanceof InputTooLargeError && err instanceof InputError);
      assert.equal(err.file, 'big.json');
      assert.equal(
        err.message,
        'big.json: input too large: after 12 MiB of it kexp\'s memory holds 900 MiB of the 1,000 MiB it may use; ' +
          'analyse a part (--rs NAMESPACE/NAME, --since/--until, fewer files) or give it more (NODE_OPTIONS=--max-old-space-size=MiB)',
      );
      assert.ok(!err.message.includes('\n'));
      return true;
    },
  );
});

test('memory bound: the real heap of this process is far below the bound', () => {
  const bound = new MemoryBound();
  bound.consumed('small.json', 1024);
});
