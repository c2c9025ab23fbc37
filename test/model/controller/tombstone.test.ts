/**
 * The DeletedFinalStateUnknown tombstone (src/model/controller/tombstone.ts): how it is built,
 * told apart from a delivered object, and unwrapped by a delete handler.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';

import type { Pod } from '../../../src/model/objects.js';
import { isTombstone, tombstoneOf, unwrapTombstone, type Tombstone } from '../../../src/model/controller/tombstone.js';

const stale: Pod = { metadata: { namespace: 'd', name: 'foo-p', uid: 'u1', labels: { app: 'foo' } } };

test('tombstoneOf is cache.DeletedFinalStateUnknown{Key, Obj}', () => {
  const t = tombstoneOf('d/foo-p', stale);
  assert.deepEqual(t, { tombstone: true, key: 'd/foo-p', obj: stale });
  assert.equal(t.obj, stale, 'the stale object itself, not a copy');
});

test('isTombstone tells a tombstone from a delivered object', () => {
  assert.equal(isTombstone<Pod>(tombstoneOf('d/foo-p', stale)), true);
  assert.equal(isTombstone<Pod>(stale), false);
  // An object whose own fields say nothing of tombstones stays an object.
  assert.equal(isTombstone<Pod>({ metadata: { name: 'tombstone' } }), false);
});

test('unwrapTombstone: a delete handler reads the possibly stale object either way', () => {
  const handler = (obj: Pod | Tombstone<Pod>): string | undefined => unwrapTombstone(obj).metadata.uid;
  assert.equal(handler(stale), 'u1');
  assert.equal(handler(tombstoneOf('d/foo-p', stale)), 'u1');
  assert.equal(unwrapTombstone<Pod>(tombstoneOf('d/other', stale)), stale, 'the key is not looked at');
});
