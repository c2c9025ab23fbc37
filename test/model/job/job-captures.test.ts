/**
 * The Job model against the real v1.37.2 controller, sync by sync: each Job capture of issue #22
 * (examples/captures/job-*, test/e2e/scenarios/run-workload-scenarios.ts) fed to the model as the
 * controller's informers got it (captured-view.ts: the recording less the events the fault proxy
 * hid), compared with the controller's own -v=4 log — every "Finished syncing job", its gate
 * decision, its round, its finalizer removals, the removals it observed, its requeues. With the
 * controller's view given, the model makes the log's syncs; the replay engine's reconstruction of
 * that view is tested apart (test/analysis/workload-replay.test.ts).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { JobController, type JobHandlerRecord } from '../../../src/model/job/job-controller.js';
import type { SyncRecord } from '../../../src/model/controller/sync-record.js';
import type { Job } from '../../../src/model/objects.js';
import { parseK8sVersion } from '../../../src/model/version.js';
import { capturedView, capturePodControl, feed, logMatches, logSyncs, type LoggedSync } from './captured-view.js';

/** The model's syncs and handler records over a capture. */
function replayModel(name: string): { syncs: SyncRecord[]; handlers: JobHandlerRecord[]; uidOf: Map<string, string> } {
  const view = capturedView(name);
  const syncs: SyncRecord[] = [];
  const handlers: JobHandlerRecord[] = [];
  const jc = new JobController({ version: parseK8sVersion('v1.37.2'), podControl: capturePodControl<Job>(view), onSync: (s) => syncs.push(s), onHandler: (h) => handlers.push(h) });
  feed(jc, view);
  const uidOf = new Map<string, string>();
  for (const e of view.events) if (e.src === 'pods') uidOf.set(`${e.object.metadata.namespace}/${e.object.metadata.name}`, e.object.metadata.uid ?? '');
  return { syncs, handlers, uidOf };
}

/** The model's sync as the log would show it: its gate decision (none when the Job was finished) and rounds. */
function asLogged(s: SyncRecord): Pick<LoggedSync, 'decision' | 'creates' | 'deletes'> {
  return { decision: s.expectations, creates: s.create ? [s.create.n] : [], deletes: s.delete && !s.delete.note ? [s.delete.n] : [] };
}

/** Sync k of the model and of the log end within `ms` of each other. */
function assertTimes(model: SyncRecord[], log: LoggedSync[], ms: number): void {
  model.forEach((s, k) => assert.ok(Math.abs(s.at - log[k]!.end) <= ms, `sync ${k}: the model's at ${new Date(s.at).toISOString()}, the log's ended ${new Date(log[k]!.end).toISOString()}`));
}

test('job-complete: the model makes the log\'s 15 syncs — decisions, the three create rounds, the six finalizer removals and their observations, the pod-failure backoff requeue', () => {
  const { syncs, handlers, uidOf } = replayModel('job-complete');
  const log = logSyncs('job-complete');
  assert.equal(log.length, 15);
  assert.deepEqual(syncs.map(asLogged), log.map((l) => ({ decision: l.decision, creates: l.creates, deletes: l.deletes })));
  assert.deepEqual(log.flatMap((l) => l.creates), [3, 1, 2]);
  // The model syncs when its informer delivers; the log's line comes when the sync ends (its calls included).
  assertTimes(syncs, log, 50);
  // "Expecting tracking finalizers removed": the same pods, in the same syncs.
  const removals = syncs.map((s) => (s.job?.finalizerRemovals?.keys ?? []).map((k) => uidOf.get(k)));
  assert.deepEqual(removals.filter((r) => r.length), log.map((l) => l.finalizerRemovals).flat());
  assert.deepEqual(removals.map((r) => r.length > 0), log.map((l) => l.finalizerRemovals.length > 0));
  assert.equal(log.flatMap((l) => l.finalizerRemovals).length, 6);
  // "Observed tracking finalizer removed": each removal seen back through the pod informer, in order.
  const observed = handlers.filter((h) => h.effects.some((e) => e.startsWith('finalizer removal observed'))).map((h) => uidOf.get(h.object));
  assert.deepEqual(observed, logMatches('job-complete', /"Observed tracking finalizer removed" .*podUID="([^"]+)"/).map((m) => m.value));
  // The failed pod's backoff (10 s from its failure): "enqueueing job … delay=8.39…s" then 7.38…s.
  const delays = logMatches('job-complete', /"enqueueing job" key="[^"]+" delay="([\d.]+)s"/).map((m) => Number(m.value) * 1000).filter((d) => d > 1000);
  const requeues = syncs.filter((s) => s.requeue?.kind === 'after').map((s) => s.requeue!.delayMs);
  assert.equal(requeues.length, delays.length);
  requeues.forEach((d, i) => assert.ok(Math.abs(d - delays[i]!) < 50, `requeue ${d} ms vs the log's ${delays[i]} ms`));
  const last = syncs.at(-1)!;
  assert.equal(last.outcome, 'job-finished');
  assert.equal(syncs.at(-2)!.job?.finish?.type, 'Complete');
});

test('job-dropped-add: with the one ADD the proxy dropped, the model is gated at every sync the log shows gated (10), each batched 1 s after a pod or Job event — the 60-s ones after the scenario\'s annotation touches — until the expired sync', () => {
  const { syncs, uidOf } = replayModel('job-dropped-add');
  const log = logSyncs('job-dropped-add');
  assert.equal(syncs.length, log.length);
  assert.deepEqual(syncs.map((s) => s.expectations), log.map((l) => l.decision));
  assertTimes(syncs, log, 50);
  const gated = syncs.filter((s) => s.outcome === 'gated');
  assert.equal(gated.length, 10);
  assert.deepEqual(gated.map((s) => s.expectations), log.filter((l) => l.decision === 'still-waiting').map((l) => l.decision));
  // No gated sync failed, so none was requeued rate-limited: every sync follows an "enqueueing job" of a handler.
  assert.ok(syncs.every((s) => s.requeue?.kind !== 'rate-limited' && s.error === undefined));
  const enqueued = logMatches('job-dropped-add', /"enqueueing job" logger="job-controller" key="[^"]+" delay="(\w+)"/);
  for (const l of log) assert.ok(enqueued.some((e) => e.at < l.end && l.end - e.at <= 1100), `an enqueue precedes the sync ending ${new Date(l.end).toISOString()}`);
  // The failed pod's finalizer removed while gated, as the log's 07:59:18 sync did; the backoffLimit failure dropped ("Can't declare the Job as finished yet").
  const rm = syncs.filter((s) => s.job?.finalizerRemovals);
  assert.deepEqual(rm.map((s) => s.job!.finalizerRemovals!.keys.map((k) => uidOf.get(k))), log.flatMap((l) => l.finalizerRemovals));
  assert.ok(gated.filter((s) => s.job?.finish?.reason === 'BackoffLimitExceeded').every((s) => s.job?.finishDropped === 'unsatisfied'));
  const expired = syncs.find((s) => s.expectations === 'expired')!;
  assert.equal(expired.job?.finish?.type, 'Failed');
  assert.equal(expired.job?.finished, true);
  const [logExpired] = logMatches('job-dropped-add', /"Controller (expectations) expired"/);
  assert.ok(Math.abs(expired.at - logExpired!.at) <= 50);
});
