/**
 * `-o json` is rendered in pieces (src/render/structured.ts); the pieces must be byte for byte
 * `JSON.stringify(value, null, 2)`, on every golden report and on the values JSON.stringify
 * treats specially. (Writing them to stdout: test/cli/output.test.ts.)
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { jsonChunks } from '../../src/render/structured.js';

const joined = (v: unknown) => [...jsonChunks(v)].join('');

test('pieces equal JSON.stringify on every golden report', () => {
  const dir = path.join('examples', 'golden');
  const files = fs.readdirSync(dir).filter((f) => f.endsWith('.json'));
  assert.ok(files.length >= 10, `golden reports found: ${files.length}`);
  for (const f of files) {
    const value = JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8'));
    assert.equal(joined(value), JSON.stringify(value, null, 2), f);
  }
});

test('pieces equal JSON.stringify on the values it treats specially', () => {
  const values: unknown[] = [
    null, 0, -1.5, 'a\nb "q" \u2028 ✓', true, [], {}, [[]], [{}], { a: {} },
    [undefined, () => 1, Symbol('s'), 1],
    { u: undefined, f: () => 1, s: Symbol('x'), n: null, k: 1 },
    { only: undefined },
    { at: new Date(Date.UTC(2026, 0, 2, 3, 4, 5, 6)), nested: { list: [{ deep: { deeper: { deepest: [1, { x: [2, 'y\n'] }] } } }] } },
    { toJSON: () => ({ replaced: [1, 2] }) },
    { 'key "quoted"\n': [1, [2, [3, [4, [5, [6]]]]]] },
    // toJSON that returns undefined, reads its key, or returns another toJSON holder; boxed primitives; sparse arrays.
    { a: { toJSON: () => undefined }, b: 1 },
    { when: { toJSON: (k: string) => `key=${k}` } },
    { a: { b: { c: { d: { toJSON: () => ({ toJSON: () => 'inner' }) } } } } },
    { s: new String('ab'), n: new Number(3), b: new Boolean(false) },
    { f: Object.assign(() => 1, { toJSON: () => 'fn' }) },
    [1, , 3], // eslint-disable-line no-sparse-arrays
    -0, NaN, Infinity, '\ud800 lone surrogate',
  ];
  for (const v of values) assert.equal(joined(v), JSON.stringify(v, null, 2) ?? 'null', String(JSON.stringify(v)));
});
