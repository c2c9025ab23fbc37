/** sameLabels (objects.ts): the label-change check of the pod update handlers, against the entries-based definition it replaced. */
import assert from 'node:assert/strict';
import test from 'node:test';
import { sameLabels } from '../../src/model/objects.js';

const reference = (a: Record<string, string> | null | undefined, b: Record<string, string> | null | undefined): boolean => {
  const ea = Object.entries(a ?? {});
  const eb = b ?? {};
  return ea.length === Object.keys(eb).length && ea.every(([k, v]) => eb[k] === v);
};

test('sameLabels: absent, null and empty maps are equal; a key or value more or less is a change', () => {
  assert.equal(sameLabels(undefined, {}), true);
  assert.equal(sameLabels(null, undefined), true);
  assert.equal(sameLabels({ a: '1' }, { a: '1' }), true);
  assert.equal(sameLabels({ a: '1', b: '2' }, { b: '2', a: '1' }), true, 'order does not matter');
  assert.equal(sameLabels({ a: '1' }, { a: '2' }), false);
  assert.equal(sameLabels({ a: '1' }, { a: '1', b: '2' }), false);
  assert.equal(sameLabels({ a: '1', b: '2' }, { a: '1' }), false);
  assert.equal(sameLabels({ a: '1' }, { b: '1' }), false);
  assert.equal(sameLabels({}, { a: '' }), false);
  assert.equal(sameLabels({ constructor: 'x' }, {}), false, 'a key named like an Object.prototype member');
  assert.equal(sameLabels(JSON.parse('{"__proto__":"x"}'), {}), false, 'a parsed __proto__ key is an own label');
});

test('sameLabels agrees with the entries-based definition on 5,000 random pairs', () => {
  let seed = 7;
  const rnd = (n: number): number => ((seed = (seed * 1103515245 + 12345) % 2147483648), (seed >>> 16) % n);
  const map = (): Record<string, string> | undefined => {
    if (rnd(6) === 0) return undefined;
    const m: Record<string, string> = {};
    for (let i = rnd(4); i > 0; i--) m[`k${rnd(4)}`] = `v${rnd(2)}`;
    return m;
  };
  let same = 0;
  for (let i = 0; i < 5000; i++) {
    const a = map();
    const b = rnd(3) === 0 ? (a ? { ...a } : a) : map();
    const want = reference(a, b);
    if (want) same++;
    assert.equal(sameLabels(a, b), want, JSON.stringify([a, b]));
  }
  assert.ok(same > 500 && same < 4500, `both answers exercised (${same} equal)`);
});
