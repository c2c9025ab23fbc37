/**
 * The expectations store (src/model/expectations.ts) against controller-semantics.md §1–§2 and
 * the upstream controller_utils_test.go cases listed in §10.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { ControllerExpectations, EXPECTATIONS_TIMEOUT_MS, isExpired, isFulfilled } from '../../src/model/expectations.js';
import { FIVE_MIN, SEC, T0 } from './controller-harness.js';

const K = 'd/foo';
const pair = (s: ControllerExpectations, key = K) => {
  const r = s.get(key);
  return r ? [r.add, r.del] : undefined;
};

// ───────────── §10 ControllerExpectations 1–4 (upstream uses a fake 30 s TTL) ─────────────

test('§10 ControllerExpectations 1–4 with a fake 30 s TTL', () => {
  const ttl = 30 * SEC;
  const s = new ControllerExpectations(ttl);
  // 1. Set(add=10, del=30), then 11 creation observations → add=-1, still unsatisfied (del>0).
  s.set(K, 10, 30, T0);
  for (let i = 0; i < 11; i++) s.creationObserved(K, T0 + 1);
  assert.deepEqual(pair(s), [-1, 30]);
  assert.equal(s.satisfied(K, T0 + 2).satisfied, false);
  assert.equal(s.satisfied(K, T0 + 2).outcome, 'still-waiting');
  // 2. 31 deletion observations → (-1, -1), satisfied. (Base-store deletions: lower(0, 1).)
  for (let i = 0; i < 31; i++) s.lower(K, 0, 1, T0 + 3);
  assert.deepEqual(pair(s), [-1, -1]);
  assert.deepEqual(s.satisfied(K, T0 + 4), { satisfied: true, outcome: 'fulfilled', record: { key: K, add: -1, del: -1, timestamp: T0 } });
  // 3. A re-Set to (1, 2) is unsatisfied: Set replaces, it does not add.
  s.set(K, 1, 2, T0 + 10 * SEC);
  assert.deepEqual(s.get(K), { key: K, add: 1, del: 2, timestamp: T0 + 10 * SEC });
  assert.equal(s.satisfied(K, T0 + 10 * SEC).outcome, 'still-waiting');
  // 4. Advancing the clock past the TTL makes it satisfied (expired), strictly after 30 s.
  assert.equal(s.satisfied(K, T0 + 40 * SEC).outcome, 'still-waiting', 'exactly TTL is not expired');
  assert.equal(s.satisfied(K, T0 + 40 * SEC + 1).outcome, 'expired');
  assert.equal(s.satisfied(K, T0 + 40 * SEC + 1).satisfied, true);
  // Expiry changes nothing: the record is still there, still unfulfilled.
  assert.deepEqual(s.get(K), { key: K, add: 1, del: 2, timestamp: T0 + 10 * SEC });
});

test('§10 UIDExpectations: 5 pod keys → unsatisfied; each observed → satisfied; DeleteExpectations drops the key set', () => {
  const s = new ControllerExpectations();
  const keys = ['d/foo-b2x9q', 'd/foo-c7mzt', 'd/foo-dk4lp', 'd/foo-fq8wn', 'd/foo-hr5vs'];
  s.expectDeletions(K, keys, T0);
  assert.deepEqual(pair(s), [0, 5]);
  assert.deepEqual(s.getDeleteKeys(K), keys);
  assert.equal(s.satisfied(K, T0).satisfied, false);
  keys.forEach((k, i) => {
    assert.equal(s.deletionObserved(K, k, T0 + i), true);
    assert.deepEqual(s.getDeleteKeys(K), keys.slice(i + 1));
  });
  assert.deepEqual(pair(s), [0, 0]);
  assert.equal(s.satisfied(K, T0 + 10).outcome, 'fulfilled');
  s.delete(K, T0 + 11);
  assert.equal(s.get(K), undefined);
  assert.deepEqual(s.getDeleteKeys(K), []);
  assert.equal(s.satisfied(K, T0 + 12).outcome, 'never-recorded');
});

// ───────────── §1.2–§1.4 base store ─────────────

test('§1.2 ExpectationsTimeout is 5 min and the expiry test is strict (> 5 min)', () => {
  assert.equal(EXPECTATIONS_TIMEOUT_MS, FIVE_MIN);
  const r = { key: K, add: 1, del: 0, timestamp: T0 };
  assert.equal(isExpired(r, T0 + FIVE_MIN), false);
  assert.equal(isExpired(r, T0 + FIVE_MIN + 1), true);
  assert.equal(isFulfilled({ add: 0, del: 0 }), true);
  assert.equal(isFulfilled({ add: -3, del: 0 }), true);
  assert.equal(isFulfilled({ add: 0, del: 1 }), false);
  assert.equal(isFulfilled({ add: 1, del: -5 }), false);
});

test('§1.4 SatisfiedExpectations: the four outcomes, one log line each, record never modified', () => {
  const s = new ControllerExpectations();
  assert.deepEqual(s.satisfied(K, T0), { satisfied: true, outcome: 'never-recorded' });
  assert.equal(s.get(K), undefined, 'no record is created by the check');
  s.expectCreations(K, 2, T0);
  assert.equal(s.satisfied(K, T0 + FIVE_MIN).outcome, 'still-waiting');
  assert.equal(s.satisfied(K, T0 + FIVE_MIN + 1).outcome, 'expired');
  assert.equal(s.satisfied(K, T0 + 3 * 3600 * SEC).outcome, 'expired', 'stays expired until the next Set');
  s.creationObserved(K, T0 + 4 * 3600 * SEC);
  s.creationObserved(K, T0 + 4 * 3600 * SEC);
  assert.equal(s.satisfied(K, T0 + 4 * 3600 * SEC).outcome, 'fulfilled', 'fulfilled is checked before expiry');
  assert.deepEqual(s.get(K), { key: K, add: 0, del: 0, timestamp: T0 }, 'timestamp = last Set, not last Lower');
  assert.deepEqual(
    s.log.map((l) => l.kind),
    ['never-recorded', 'setting-expectations', 'still-waiting', 'expectations-expired', 'expectations-expired', 'lowered-expectations', 'lowered-expectations', 'expectations-fulfilled'],
  );
});

test('§1.3 ExpectCreations replaces the record (del reset to 0); Lower with no record is a silent no-op', () => {
  const s = new ControllerExpectations();
  s.creationObserved(K, T0);
  s.lower(K, 0, 1, T0);
  assert.equal(s.get(K), undefined);
  assert.equal(s.log.length, 0, 'no "Lowered expectations" line without a record');
  s.set(K, 3, 4, T0);
  s.expectCreations(K, 2, T0 + SEC);
  assert.deepEqual(s.get(K), { key: K, add: 2, del: 0, timestamp: T0 + SEC });
  s.raise(K, 1, 1, T0 + 2 * SEC);
  assert.deepEqual(pair(s), [3, 1]);
  assert.equal(s.get(K)!.timestamp, T0 + SEC, 'Raise does not move the timestamp');
  // Counters may go negative.
  for (let i = 0; i < 5; i++) s.creationObserved(K, T0 + 3 * SEC);
  assert.deepEqual(pair(s), [-2, 1]);
});

// ───────────── §2 UID-tracking (ns/name) delete keys ─────────────

test('§2.2 ExpectDeletions: duplicates collapse, base record = (0, |set|), add reset to 0', () => {
  const s = new ControllerExpectations();
  s.expectCreations(K, 4, T0);
  s.expectDeletions(K, ['d/p', 'd/q', 'd/p'], T0 + SEC);
  assert.deepEqual(s.get(K), { key: K, add: 0, del: 2, timestamp: T0 + SEC });
  assert.deepEqual(s.getDeleteKeys(K), ['d/p', 'd/q']);
  const w = s.log.filter((l) => l.kind === 'waiting-on-deletions');
  assert.deepEqual(w, [{ at: T0 + SEC, kind: 'waiting-on-deletions', key: K, keys: ['d/p', 'd/q'] }]);
});

test('§2.2 DeletionObserved of a key not in the set is a complete no-op; each key counts exactly once', () => {
  const s = new ControllerExpectations();
  s.expectDeletions(K, ['d/p'], T0);
  const before = s.log.length;
  assert.equal(s.deletionObserved(K, 'd/q', T0 + 1), false);
  assert.equal(s.deletionObserved('d/other', 'd/p', T0 + 1), false);
  assert.equal(s.log.length, before, 'no log line for an unexpected key');
  assert.deepEqual(pair(s), [0, 1]);
  assert.equal(s.deletionObserved(K, 'd/p', T0 + 2), true);
  assert.equal(s.deletionObserved(K, 'd/p', T0 + 3), false, 'second observation of the same key: no-op');
  assert.deepEqual(pair(s), [0, 0]);
  assert.deepEqual(
    s.log.slice(before).map((l) => [l.kind, l.keys ?? [l.add, l.del]]),
    [
      ['received-delete', ['d/p']],
      ['lowered-expectations', [0, 0]],
    ],
  );
});

test('§2.2 ExpectCreations keeps stale delete keys; the next ExpectDeletions logs "Clobbering existing delete keys"', () => {
  const s = new ControllerExpectations();
  s.expectDeletions(K, ['d/x', 'd/y'], T0);
  s.deletionObserved(K, 'd/x', T0 + SEC);
  s.expectCreations(K, 3, T0 + 6 * 60 * SEC);
  assert.deepEqual(s.getDeleteKeys(K), ['d/y'], 'ExpectCreations does not clear the key set');
  // A late delete of the stale key still decrements the new record's del (to -1).
  // (Not done here; see the controller tests.) Now a new deletion round:
  s.expectDeletions(K, ['d/a'], T0 + 7 * 60 * SEC);
  const clob = s.log.filter((l) => l.kind === 'clobbering-delete-keys');
  assert.deepEqual(clob, [{ at: T0 + 7 * 60 * SEC, kind: 'clobbering-delete-keys', key: K, keys: ['d/y'] }]);
  assert.deepEqual(s.getDeleteKeys(K), ['d/a']);
  // An empty existing set does not clobber.
  s.deletionObserved(K, 'd/a', T0 + 8 * 60 * SEC);
  s.expectDeletions(K, ['d/b'], T0 + 9 * 60 * SEC);
  assert.equal(s.log.filter((l) => l.kind === 'clobbering-delete-keys').length, 1);
});

test('§2.2 a stale delete key observed after an ExpectCreations round lowers del below zero', () => {
  const s = new ControllerExpectations();
  s.expectDeletions(K, ['d/y'], T0);
  s.expectCreations(K, 1, T0 + 6 * 60 * SEC);
  assert.equal(s.deletionObserved(K, 'd/y', T0 + 7 * 60 * SEC), true);
  assert.deepEqual(pair(s), [1, -1]);
  assert.equal(s.satisfied(K, T0 + 7 * 60 * SEC).outcome, 'still-waiting');
});

test('§2.3.5 DeleteExpectations removes record and key set; later observations are no-ops', () => {
  const s = new ControllerExpectations();
  s.expectDeletions(K, ['d/p'], T0);
  s.delete(K, T0 + 1);
  assert.equal(s.get(K), undefined);
  assert.deepEqual(s.getDeleteKeys(K), []);
  assert.equal(s.deletionObserved(K, 'd/p', T0 + 2), false);
  s.creationObserved(K, T0 + 3);
  assert.equal(s.get(K), undefined);
  const n = s.log.length;
  s.delete(K, T0 + 4);
  assert.equal(s.log.length, n, 'deleting an absent record logs nothing');
});
