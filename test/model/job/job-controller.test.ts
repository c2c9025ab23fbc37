/**
 * The Job controller model against what pkg/controller/job/job_controller.go, tracking_utils.go
 * and backoff_utils.go (v1.37.2, and v1.35/v1.36 where they differ) do: the count store and the
 * finalizer store, uncounted terminated pods, the finish decision dropped while unsatisfied, slow
 * start, the pod-failure backoff, suspend, Indexed completion, the 1-s batching and the 1.36+
 * consistency gate. Each expected value is the real controller's, read from the code.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Job, Pod } from '../../../src/model/objects.js';
import type { SyncRecord } from '../../../src/model/controller/sync-record.js';
import { changed, finished, iso, job, jobPod, JOB_UID, KEY, MIN, newJobHarness, running, SEC, T0, withoutFinalizer, withStatus } from './job-harness.js';

/** Delivers the Job the status write of `s` leaves on the apiserver, as its informer would. */
function observeStatus(jc: ReturnType<typeof newJobHarness>['jc'], j: Job, s: SyncRecord, at: number): Job {
  const next = withStatus(j, s.job!.status);
  jc.deliverOwner('MODIFIED', next, at);
  return next;
}

test('parallelism 3, completions 5: runs to Complete, with the finalizer removals written, observed and counted', () => {
  const { jc, calls, created } = newJobHarness();
  let j = job({ parallelism: 3, completions: 5 });
  jc.deliverOwner('ADDED', j, T0);
  assert.equal(jc.queue.dueAt(KEY), T0, 'addJob enqueues at once');
  const [first] = jc.runDue(T0, true);
  assert.equal(first!.expectations, 'never-recorded');
  assert.deepEqual(first!.create?.batches, [1, 2]);
  assert.deepEqual(jc.expectations.get(KEY), { key: KEY, add: 3, del: 0, timestamp: T0 });
  assert.equal(first!.job?.status.active, 3);
  assert.equal(first!.job?.status.startTime, T0);
  assert.equal(first!.job?.statusWrites, 1);
  j = observeStatus(jc, j, first!, T0 + 50);
  // The three ADDs lower `add` and batch one sync 1 s after the first event.
  for (const p of created.slice(0, 3)) jc.deliverPod('ADDED', p, T0 + 100);
  assert.equal(jc.expectations.get(KEY)?.add, 0);
  assert.equal(jc.queue.dueAt(KEY), T0 + 1050, 'the Job status update at +50 ms fixed the batch');
  const [second] = jc.runDue(T0 + 2 * SEC, true);
  assert.equal(second!.expectations, 'fulfilled');
  assert.equal(second!.create, undefined);
  assert.equal(second!.job?.statusWrites, 0, 'nothing changed');

  // Two pods succeed: the sync creates two more (5 − 2 left, parallelism 3, one still active) and removes the two finalizers.
  const [a, b, c] = created.slice(0, 3).map((p) => running(p, T0 + 3 * SEC)) as [Pod, Pod, Pod];
  for (const p of [a, b, c]) jc.deliverPod('MODIFIED', p, T0 + 3 * SEC);
  jc.runDue(T0 + 4 * SEC, true);
  const aDone = finished(a, 'Succeeded', T0 + 10 * SEC);
  const bDone = finished(b, 'Succeeded', T0 + 10 * SEC);
  jc.deliverPod('MODIFIED', aDone, T0 + 10 * SEC);
  jc.deliverPod('MODIFIED', bDone, T0 + 10 * SEC);
  const [third] = jc.runDue(T0 + 11 * SEC, true);
  assert.equal(third!.at, T0 + 11 * SEC);
  assert.equal(third!.job?.succeeded, 2);
  assert.equal(third!.create?.n, 2);
  assert.deepEqual(third!.job?.finalizerRemovals?.keys, [`batch/${a.metadata.name}`, `batch/${b.metadata.name}`]);
  assert.deepEqual([...jc.finalizerExpectations.getExpectedUIDs(KEY)].sort(), [a.metadata.uid, b.metadata.uid].sort());
  // Written twice: the UIDs into uncountedTerminatedPods, then (finalizers removed) into succeeded.
  assert.equal(third!.job?.statusWrites, 2);
  assert.deepEqual({ succeeded: third!.job?.status.succeeded, uncounted: third!.job?.status.uncountedSucceeded, active: third!.job?.status.active }, { succeeded: 2, uncounted: [], active: 3 });
  j = observeStatus(jc, j, third!, T0 + 11 * SEC + 100);
  // The informer shows the finalizers gone: the removals are observed.
  jc.deliverPod('MODIFIED', withoutFinalizer(aDone), T0 + 11 * SEC + 200);
  jc.deliverPod('MODIFIED', withoutFinalizer(bDone), T0 + 11 * SEC + 200);
  assert.equal(jc.finalizerExpectations.getExpectedUIDs(KEY).size, 0);
  for (const p of created.slice(3)) jc.deliverPod('ADDED', p, T0 + 11 * SEC + 300);
  jc.runDue(T0 + 13 * SEC, true);

  // The last three succeed in one burst: SuccessCriteriaMet then Complete in one sync.
  const rest = [c, ...created.slice(3)];
  for (const p of rest) jc.deliverPod('MODIFIED', finished(p, 'Succeeded', T0 + 20 * SEC), T0 + 20 * SEC);
  const [last] = jc.runDue(T0 + 21 * SEC, true);
  assert.equal(last!.job?.succeeded, 5);
  assert.equal(last!.create, undefined);
  assert.deepEqual(last!.job?.finish, { type: 'Complete', reason: 'CompletionsReached' });
  assert.equal(last!.job?.finished, true);
  assert.deepEqual(last!.job?.status.conditions, ['SuccessCriteriaMet', 'Complete']);
  assert.equal(last!.job?.status.succeeded, 5);
  assert.equal(calls.finalizerPatches.length, 5);
  assert.equal(calls.creates.length, 5);
  // Until the informer delivers the Complete Job, a sync does nothing; then the Job is finished.
  jc.deliverPod('MODIFIED', withoutFinalizer(finished(c, 'Succeeded', T0 + 20 * SEC)), T0 + 21 * SEC + 100);
  assert.equal(jc.runDue(T0 + 23 * SEC, true)[0]?.outcome, 'finish-unobserved');
  const done = withStatus(j, last!.job!.status);
  jc.deliverOwner('MODIFIED', done, T0 + 23 * SEC);
  assert.equal(jc.queue.dueAt(KEY), undefined, 'updateJob of a finished Job does not enqueue');
  assert.equal(jc.sync(KEY, T0 + 24 * SEC).outcome, 'job-finished');
});

test('a dropped pod ADD leaks add=1: the backoffLimit failure is computed but dropped while unsatisfied, until the record expires (kubernetes#78796 pattern)', () => {
  const { jc, created, calls } = newJobHarness();
  let j = job({ parallelism: 2, completions: 2, backoffLimit: 0 });
  jc.deliverOwner('ADDED', j, T0);
  const [first] = jc.runDue(T0, true);
  j = observeStatus(jc, j, first!, T0 + 50);
  const [a] = created;
  // Pod B's ADD never reaches the informer.
  jc.deliverPod('ADDED', a!, T0 + 100);
  assert.deepEqual(jc.expectations.get(KEY), { key: KEY, add: 1, del: 0, timestamp: T0 });
  jc.runDue(T0 + 2 * SEC, true);
  const aFailed = finished(running(a!, T0 + 3 * SEC), 'Failed', T0 + 10 * SEC);
  jc.deliverPod('MODIFIED', aFailed, T0 + 10 * SEC);
  const [failing] = jc.runDue(T0 + 11 * SEC, true);
  assert.equal(failing!.outcome, 'gated');
  assert.equal(failing!.expectations, 'still-waiting');
  assert.equal(failing!.job?.failed, 1);
  // "Can't declare the Job as finished yet": the FailureTarget is dropped, not written.
  assert.equal(failing!.job?.finishDropped, 'unsatisfied');
  assert.deepEqual(failing!.job?.finish, { type: 'FailureTarget', reason: 'BackoffLimitExceeded' });
  assert.equal(failing!.job?.finished, false);
  assert.deepEqual(failing!.job?.status.conditions, []);
  // The failed pod is still counted and its finalizer removed.
  assert.equal(failing!.job?.status.failed, 1);
  assert.deepEqual(failing!.job?.finalizerRemovals?.keys, [`batch/${a!.metadata.name}`]);
  j = observeStatus(jc, j, failing!, T0 + 11 * SEC + 100);
  const [again] = jc.runDue(T0 + 13 * SEC, true);
  assert.equal(again!.job?.finishDropped, 'unsatisfied');
  assert.equal(jc.queue.dueAt(KEY), undefined, 'nothing requeues the Job at the expiry');
  assert.equal(calls.creates.length, 2);
  // The first sync after the record expired (5 min after its Set at T0) declares the Job Failed.
  const expired = jc.sync(KEY, T0 + 5 * MIN + 1);
  assert.equal(expired.expectations, 'expired');
  assert.equal(expired.job?.finishDropped, undefined);
  assert.deepEqual(expired.job?.finish, { type: 'Failed', reason: 'BackoffLimitExceeded' });
  assert.equal(expired.job?.finished, true);
  assert.deepEqual(expired.job?.status.conditions, ['FailureTarget', 'Failed']);
});

test('a finalizer removal never observed: the pod keeps its finalizer and is never patched again — no expiry — while the count store lets the Job go on (kubernetes#127917, #128358)', () => {
  const { jc, created, calls } = newJobHarness();
  let j = job({ parallelism: 1, completions: 2 });
  jc.deliverOwner('ADDED', j, T0);
  const [first] = jc.runDue(T0, true);
  j = observeStatus(jc, j, first!, T0 + 50);
  jc.deliverPod('ADDED', created[0]!, T0 + 100);
  jc.runDue(T0 + 2 * SEC, true);
  const aFailed = finished(running(created[0]!, T0 + 3 * SEC), 'Failed', T0 + 10 * SEC);
  jc.deliverPod('MODIFIED', aFailed, T0 + 10 * SEC);
  const [s1] = jc.runDue(T0 + 11 * SEC, true);
  assert.deepEqual(s1!.job?.finalizerRemovals?.keys, [`batch/${aFailed.metadata.name}`]);
  assert.deepEqual(s1!.job?.status.failed, 1);
  j = observeStatus(jc, j, s1!, T0 + 11 * SEC + 100);
  // The pod is deleted, and every event the informer delivers still shows the finalizer (the removal did not take).
  const stuck = changed(aFailed, (p) => { p.metadata.deletionTimestamp = iso(T0 + 30 * SEC); p.metadata.deletionGracePeriodSeconds = 0; });
  jc.deliverPod('MODIFIED', stuck, T0 + 30 * SEC);
  assert.deepEqual([...jc.finalizerExpectations.getExpectedUIDs(KEY)], [aFailed.metadata.uid]);
  const later = jc.sync(KEY, T0 + 60 * MIN);
  assert.equal(later.expectations, 'fulfilled', 'the finalizer store gates nothing');
  assert.equal(later.create?.n, 1, 'a replacement for the failed pod (the 10 s backoff long past)');
  assert.deepEqual(later.job?.podsWithFinalizer, [`batch/${aFailed.metadata.name}`]);
  assert.deepEqual(later.job?.finalizerRemovalsExpected, [aFailed.metadata.uid]);
  assert.equal(later.job?.finalizerRemovals, undefined, 'the pod counts as processed: no second PATCH');
  assert.equal(later.job?.failed, 1, 'counted once, from status');
  assert.equal(calls.finalizerPatches.length, 1);
});

test('slow start: a failed create lowers add, each skipped pod is lowered, the sync returns the error with the Job API backoff (1 s)', () => {
  const { jc, calls } = newJobHarness({ createAnswers: [{ ok: true }, { ok: false, error: 'pods "pi-x" is forbidden: exceeded quota: compute, requested: pods=1, used: pods=2, limited: pods=2' }, { ok: true }] });
  jc.deliverOwner('ADDED', job({ parallelism: 6, completions: 6 }), T0);
  const [s] = jc.runDue(T0, true);
  assert.deepEqual(s!.create?.batches, [1, 2]);
  assert.equal(calls.creates.length, 3);
  assert.equal(s!.create?.skipped, 3);
  const lowered = jc.expectations.log.filter((l) => l.kind === 'lowered-expectations').map((l) => l.add);
  assert.deepEqual(lowered, [5, 4, 3, 2], 'CreationObserved for the failure, then one per skipped pod');
  assert.equal(s!.job?.status.active, 2, 'active = 6 − 1 failed − 3 skipped');
  assert.match(s!.error ?? '', /exceeded quota/);
  assert.deepEqual(s!.requeue, { kind: 'rate-limited', delayMs: 1000 });
  assert.equal(jc.queue.dueAt(KEY), T0 + 1000);
});

test('before 1.28 (v1.12.10 … v1.27.16): failed syncs retry after DefaultJobBackOff 10 s doubling to 360 s, and a status update syncs at once', () => {
  const quota = { ok: false as const, error: 'Internal error occurred: failed calling webhook "pods.example.com": Post: context deadline exceeded' };
  const { jc, calls, syncs } = newJobHarness({ version: 'v1.15.3', createAnswers: [quota, quota, quota, quota] });
  let j = job();
  jc.deliverOwner('ADDED', j, T0);
  const [first] = jc.runDue(T0, true);
  assert.deepEqual(first!.requeue, { kind: 'rate-limited', delayMs: 10 * SEC });
  // Its status write (startTime) comes back: updateJob enqueueController(curJob, true), no 1-s batch.
  j = observeStatus(jc, j, first!, T0 + 20);
  assert.equal(jc.queue.dueAt(KEY), T0 + 20, 'synced at once, not batched');
  const [second] = jc.runDue(T0 + 20, true);
  assert.deepEqual(second!.requeue, { kind: 'rate-limited', delayMs: 20 * SEC });
  // The delayed entry keeps the earlier time (AddAfter only moves it earlier): +10 s, then +40 s, +80 s.
  jc.runDue(T0 + 10 * SEC, true);
  jc.runDue(T0 + 50 * SEC, true);
  assert.deepEqual(syncs.map((s) => s.at - T0), [0, 20, 10 * SEC, 50 * SEC]);
  assert.equal(jc.queue.dueAt(KEY), T0 + 130 * SEC);
  assert.equal(calls.creates.length, 4);
  // 1.28 on: DefaultJobApiBackOff 1 s doubling to 1 min, and a status-only update batched 1 s.
  const now = newJobHarness({ version: 'v1.28.15', createAnswers: [quota] });
  const j2 = job();
  now.jc.deliverOwner('ADDED', j2, T0);
  const [n1] = now.jc.runDue(T0, true);
  assert.deepEqual(n1!.requeue, { kind: 'rate-limited', delayMs: SEC });
  observeStatus(now.jc, j2, n1!, T0 + 20);
  assert.equal(now.jc.queue.dueAt(KEY), T0 + SEC, 'not at once: the 1-s retry comes before the status update\'s batch (enqueueSyncJobBatched, +1020 ms)');
});

test('a create refused because the namespace is terminating is neither lowered nor an error', () => {
  const { jc } = newJobHarness({ createAnswers: [{ ok: false, error: 'pods "pi-x" is forbidden: unable to create new content in namespace batch because it is being terminated', namespaceTerminating: true }] });
  jc.deliverOwner('ADDED', job(), T0);
  const [s] = jc.runDue(T0, true);
  assert.equal(s!.create?.namespaceTerminating, 1);
  assert.equal(s!.error, undefined);
  assert.deepEqual(jc.expectations.get(KEY), { key: KEY, add: 1, del: 0, timestamp: T0 });
  assert.equal(s!.job?.status.active, 1);
  assert.equal(jc.sync(KEY, T0 + 4 * MIN).outcome, 'gated');
});

/** A Job of parallelism 2 whose pods run, one of which fails at `failAt`; returns the harness after the failure's sync. */
function oneFailure(version: string) {
  const h = newJobHarness({ version });
  const { jc, created } = h;
  let j = job({ parallelism: 2, completions: 4 });
  jc.deliverOwner('ADDED', j, T0);
  const [first] = jc.runDue(T0, true);
  j = observeStatus(jc, j, first!, T0 + 50);
  const [a, b] = created.map((p) => running(p, T0 + 2 * SEC)) as [Pod, Pod];
  for (const p of [a, b]) jc.deliverPod('ADDED', p, T0 + 2 * SEC);
  const [ready] = jc.runDue(T0 + 3 * SEC, true);
  j = observeStatus(jc, j, ready!, T0 + 3 * SEC + 100);
  jc.runDue(T0 + 5 * SEC, true);
  const aFailed = finished(a, 'Failed', T0 + 10 * SEC);
  jc.deliverPod('MODIFIED', aFailed, T0 + 10 * SEC);
  const [s] = jc.runDue(T0 + 11 * SEC, true);
  return { ...h, s: s!, aFailed, j };
}

test('pod-failure backoff: no replacement for 10 s after the failure, a requeue at its end, then the create (1.37 keeps active)', () => {
  const { s, jc, calls, aFailed } = oneFailure('v1.37.2');
  assert.equal(s.at, T0 + 11 * SEC);
  assert.deepEqual(s.job?.podFailureBackoff, { failures: 1, lastFailureAt: T0 + 10 * SEC, remainingMs: 9000 });
  assert.equal(s.create, undefined);
  assert.deepEqual(s.requeue, { kind: 'after', delayMs: 9000 });
  assert.equal(s.job?.status.active, 1);
  assert.equal(s.job?.status.ready, 1);
  assert.equal(s.error, undefined);
  assert.deepEqual(s.job?.finalizerRemovals?.keys, [`batch/${aFailed.metadata.name}`]);
  assert.equal(jc.podBackoff.get(KEY)?.failuresAfterLastSuccess, 1, 'stored with the status flush');
  assert.equal(jc.queue.dueAt(KEY), T0 + 20 * SEC);
  const before = calls.creates.length;
  const [after] = jc.runDue(T0 + 20 * SEC, true);
  assert.equal(after!.create?.n, 1, '10 s since the failure: not less than the elapsed time, so none left');
  assert.equal(calls.creates.length, before + 1);
});

test('pod-failure backoff before 1.37: manageJob returns 0 active, the apiserver rejects "more ready than active", no finalizer is removed (kubernetes#139428)', () => {
  const { s, calls, jc } = oneFailure('v1.36.1');
  assert.equal(s.job?.podFailureBackoff?.remainingMs, 9000);
  assert.equal(s.job?.status.active, 0);
  assert.equal(s.job?.status.ready, 1);
  assert.match(s.error ?? '', /^tracking status: adding uncounted pods to status: Job\.batch "pi" is invalid: status\.ready: Invalid value: 1: cannot set more ready pods than active$/);
  assert.equal(s.job?.finalizerRemovals, undefined);
  assert.equal(calls.finalizerPatches.length, 0);
  assert.equal(jc.podBackoff.get(KEY)?.failuresAfterLastSuccess, 0, 'the failure is stored only with a successful flush');
  assert.deepEqual(s.requeue, { kind: 'rate-limited', delayMs: 1000 });
  // The retry fails the same way, with the doubled API backoff.
  const [retry] = jc.runDue(T0 + 12 * SEC, true);
  assert.match(retry!.error ?? '', /cannot set more ready pods than active/);
  assert.deepEqual(retry!.requeue, { kind: 'rate-limited', delayMs: 2000 });
});

test('suspend: every active pod deleted, finalizer first, ExpectDeletions(3); the deletionTimestamp updates satisfy the record', () => {
  const { jc, created, calls } = newJobHarness();
  let j = job({ parallelism: 3, completions: 3 });
  jc.deliverOwner('ADDED', j, T0);
  const [first] = jc.runDue(T0, true);
  j = observeStatus(jc, j, first!, T0 + 50);
  const pods = created.map((p, i) => running(p, T0 + 2 * SEC, `worker-${i}`));
  for (const p of pods) jc.deliverPod('ADDED', p, T0 + 2 * SEC);
  const [ready] = jc.runDue(T0 + 3 * SEC, true);
  j = observeStatus(jc, j, ready!, T0 + 3 * SEC + 100);
  jc.runDue(T0 + 5 * SEC, true);
  const suspended = changed(j, (x) => { x.spec!.suspend = true; x.metadata.generation = 2; });
  jc.deliverOwner('MODIFIED', suspended, T0 + 10 * SEC);
  assert.equal(jc.queue.dueAt(KEY), T0 + 10 * SEC, 'a spec change syncs at once');
  const [s] = jc.runDue(T0 + 10 * SEC, true);
  assert.deepEqual(jc.expectations.get(KEY), { key: KEY, add: 0, del: 3, timestamp: T0 + 10 * SEC });
  assert.equal(s!.delete?.n, 3);
  assert.deepEqual(calls.finalizerPatches.map((p) => p.round), [s!.delete!.round, s!.delete!.round, s!.delete!.round]);
  assert.deepEqual({ active: s!.job?.status.active, ready: s!.job?.status.ready, terminating: s!.job?.status.terminating }, { active: 0, ready: 0, terminating: 3 });
  assert.deepEqual(s!.job?.status.conditions, ['Suspended']);
  assert.equal(s!.job?.status.startTime, undefined, 'MutableSchedulingDirectivesForSuspendedJobs (1.36+) clears startTime');
  for (const p of pods) jc.deliverPod('MODIFIED', changed(withoutFinalizer(p), (x) => { x.metadata.deletionTimestamp = iso(T0 + 40 * SEC); }), T0 + 10 * SEC + 500);
  assert.deepEqual(jc.expectations.get(KEY), { key: KEY, add: 0, del: 0, timestamp: T0 + 10 * SEC });
});

test('Indexed: the first pending indexes are created, a succeeded index goes to completedIndexes, a repeated index loses its surplus pod', () => {
  const { jc, created, calls } = newJobHarness();
  let j = job({ parallelism: 2, completions: 4, indexed: true });
  jc.deliverOwner('ADDED', j, T0);
  const [first] = jc.runDue(T0, true);
  assert.deepEqual(first!.job?.indexes, [0, 1]);
  assert.deepEqual(calls.creates.map((c) => c.completionIndex), [0, 1]);
  j = observeStatus(jc, j, first!, T0 + 50);
  const [p0, p1] = created.map((p) => running(p, T0 + 2 * SEC)) as [Pod, Pod];
  jc.deliverPod('ADDED', p0, T0 + 2 * SEC);
  jc.deliverPod('ADDED', p1, T0 + 2 * SEC);
  jc.runDue(T0 + 3 * SEC, true);
  jc.deliverPod('MODIFIED', finished(p0, 'Succeeded', T0 + 10 * SEC), T0 + 10 * SEC);
  const [s] = jc.runDue(T0 + 11 * SEC, true);
  assert.deepEqual(s!.job?.indexes, [2]);
  assert.equal(s!.job?.status.completedIndexes, '0');
  assert.equal(s!.job?.status.succeeded, 1);
  // The informer shows a second pod for index 1 (its ADD lowers the add the index-2 create left, so the sync is satisfied):
  // the repeated index loses one pod, with ExpectDeletions(1), before any create.
  const dup1 = running(jobPod(j, T0 + 12 * SEC, 1), T0 + 12 * SEC);
  jc.deliverPod('ADDED', dup1, T0 + 12 * SEC);
  const [d] = jc.runDue(T0 + 13 * SEC, true);
  assert.equal(d!.expectations, 'fulfilled');
  assert.deepEqual(d!.delete?.keys, [`batch/${dup1.metadata.name}`], 'ActivePods: of two ready pods, the one ready for less time goes first');
  assert.equal(d!.create, undefined);
  assert.deepEqual(jc.expectations.get(KEY), { key: KEY, add: 0, del: 1, timestamp: T0 + 13 * SEC });
  assert.notEqual(p1.metadata.name, dup1.metadata.name);
});

test('the consistency gate (1.36+) skips a sync while the informers lag the controller\'s own writes, with the Job API backoff; 1.35 has none', () => {
  const h = newJobHarness({ behind: true });
  h.jc.deliverOwner('ADDED', job(), T0);
  const [s] = h.jc.runDue(T0, true);
  assert.equal(s!.outcome, 'consistency-skip');
  assert.deepEqual(s!.requeue, { kind: 'rate-limited', delayMs: 1000 });
  assert.equal(s!.expectations, undefined, 'skipped before SatisfiedExpectations');
  const old = newJobHarness({ version: 'v1.35.4', behind: true });
  old.jc.deliverOwner('ADDED', job(), T0);
  assert.equal(old.jc.runDue(T0, true)[0]?.outcome, 'synced');
  assert.equal(JOB_UID, job().metadata.uid);
});
