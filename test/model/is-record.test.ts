/**
 * isRecord (src/model/objects.ts), the one plain-object check: the model, the timeline's shape
 * checks, the live sources and the report reader all decide "is a JSON object" with it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { isRecord } from '../../src/model/objects.js';

test('a JSON object is a record, whatever its keys', () => {
  assert.equal(isRecord({}), true);
  assert.equal(isRecord({ kind: 'Pod', metadata: {} }), true);
  assert.equal(isRecord(JSON.parse('{"items":[]}')), true);
  assert.equal(isRecord(Object.create(null)), true);
});

test('null, arrays and every other JSON value are not', () => {
  for (const v of [null, undefined, [], [{}], '', 'x', 0, 1, true, false]) assert.equal(isRecord(v), false, JSON.stringify(v) ?? 'undefined');
});
