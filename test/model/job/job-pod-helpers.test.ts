/**
 * The Job controller's pure helpers against upstream's own tables (pkg/controller/job, v1.37.2):
 * getRemainingTimeForFailuresCount (TestGetRemainingBackoffTime), newBackoffRecord, the ordered
 * intervals of completedIndexes, firstPendingIndexes (TestFirstPendingIndexes) and
 * activePodsForRemoval's repeated-index rule.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod } from '../../../src/model/objects.js';
import { PodFailureBackoff, remainingMs } from '../../../src/model/job/pod-failure-backoff.js';
import { firstPendingIndexes, OrderedIntervals, parseIndexes } from '../../../src/model/job/completion-indexes.js';
import { activePodsForRemoval, jobSpec } from '../../../src/model/job/job-pods.js';
import { finished, iso, job, jobPod, running, T0 } from './job-harness.js';

const SEC = 1000;

test('getRemainingTimeForFailuresCount: 5 s default, 700 s max (TestGetRemainingBackoffTime)', () => {
  const at = T0;
  const rec = (n: number) => ({ key: 'k', failuresAfterLastSuccess: n, ...(n ? { lastFailureTime: at } : {}) });
  const r = (n: number, now: number) => remainingMs(rec(n), now, 5 * SEC, 700 * SEC);
  assert.equal(r(0, at), 0);
  assert.equal(r(1, at), 5 * SEC);
  assert.equal(r(1, at + SEC), 4 * SEC);
  assert.equal(r(1, at + 5 * SEC), 0);
  assert.equal(r(1, at + 6 * SEC), 0);
  assert.equal(r(3, at), 20 * SEC);
  assert.equal(r(8, at), 640 * SEC);
  assert.equal(r(9, at), 700 * SEC);
  // The Job controller's own constants: 10 s, 10 min.
  assert.equal(remainingMs(rec(1), at), 10 * SEC);
  assert.equal(remainingMs(rec(7), at), 600 * SEC);
});

test('newBackoffRecord: failures accumulate; a success restarts the count from the failures after it', () => {
  const j = job();
  const b = new PodFailureBackoff();
  const f1 = finished(jobPod(j, T0), 'Failed', T0 + 10 * SEC);
  const f2 = finished(jobPod(j, T0), 'Failed', T0 + 20 * SEC);
  const r1 = b.newBackoffRecord('k', [], [f2, f1]);
  assert.deepEqual(r1, { key: 'k', failuresAfterLastSuccess: 2, lastFailureTime: T0 + 20 * SEC });
  b.update(r1);
  const s = finished(jobPod(j, T0), 'Succeeded', T0 + 25 * SEC);
  const f3 = finished(jobPod(j, T0), 'Failed', T0 + 30 * SEC);
  const f0 = finished(jobPod(j, T0), 'Failed', T0 + 22 * SEC);
  assert.deepEqual(b.newBackoffRecord('k', [s], [f0, f3]), { key: 'k', failuresAfterLastSuccess: 1, lastFailureTime: T0 + 30 * SEC });
  assert.deepEqual(b.newBackoffRecord('k', [s], []), { key: 'k', failuresAfterLastSuccess: 0 });
});

test('completedIndexes: parsed, cut at completions, printed as upstream (two adjacent joined by a comma)', () => {
  const iv = parseIndexes('0-2,4,6,7,9-12', 11);
  assert.deepEqual(iv.intervals, [{ first: 0, last: 2 }, { first: 4, last: 4 }, { first: 6, last: 7 }, { first: 9, last: 10 }]);
  assert.equal(iv.toString(), '0-2,4,6,7,9,10');
  assert.equal(iv.total(), 8);
  assert.equal(iv.withOrderedIndexes([3, 5, 8]).toString(), '0-10');
  assert.equal(parseIndexes('x,1', 3).toString(), '1');
});

test('firstPendingIndexes (TestFirstPendingIndexes "mixed"): active and succeeded indexes skipped, pods without a valid index ignored', () => {
  const j = job({ indexed: true, completions: 20, parallelism: 5 });
  const pods: Pod[] = ['3', '5', '8', undefined, '-3'].map((ix) => {
    const p = jobPod(j, T0);
    if (ix !== undefined) p.metadata.annotations = { 'batch.kubernetes.io/job-completion-index': ix };
    return p;
  });
  const succeeded = new OrderedIntervals([{ first: 2, last: 4 }, { first: 9, last: 9 }]);
  assert.deepEqual(firstPendingIndexes(pods, succeeded, 5, 20), [0, 1, 6, 7, 10]);
  assert.deepEqual(firstPendingIndexes([], new OrderedIntervals(), 5, 3), [0, 1, 2]);
});

test('activePodsForRemoval (Indexed): pods without an index, past completions and repeats go first, even beyond rmAtLeast', () => {
  const j = job({ indexed: true, completions: 3, parallelism: 3 });
  const a = running(jobPod(j, T0, 0), T0 + SEC);
  const b = running(jobPod(j, T0, 0), T0 + 5 * SEC);
  const c = running(jobPod(j, T0, 5), T0 + SEC);
  const d = running(jobPod(j, T0), T0 + SEC);
  d.metadata.annotations = {};
  const rm = activePodsForRemoval(jobSpec(j), [a, b, c, d], 0);
  assert.deepEqual(rm.map((p) => p.metadata.name).sort(), [b, c, d].map((p) => p.metadata.name).sort());
  assert.equal(iso(T0), '2025-03-10T09:00:00Z');
});
