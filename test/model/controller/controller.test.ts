/**
 * The controller seam (src/model/controller/controller.ts): its contract, checked on a model
 * used only through the `Controller` interface — the way an engine drives it. Written against a
 * factory so every controller kind kexp models can run the same checks (today: ReplicaSet).
 *
 * Checked: deliveries change the caches before the handlers run, and handlers only enqueue (no
 * sync); tombstones reach the delete handler; syncs run only through runDue (due ones, in order,
 * bound exclusive unless inclusive) or sync (now), each returned and reported to onSync once; a
 * sync lasts until its last call returned (isBusy, extendBusy, a due sync of a busy key waits);
 * podCounts follows every delivery; withholdPod/restorePod change the pod cache and nothing else.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';

import type { Pod, ReplicaSet } from '../../../src/model/objects.js';
import type { Controller } from '../../../src/model/controller/controller.js';
import type { CreateResult, PodControl } from '../../../src/model/controller/pod-control.js';
import type { SyncRecord } from '../../../src/model/controller/sync-record.js';
import { ReplicaSetController } from '../../../src/model/replicaset/replicaset-controller.js';
import { parseK8sVersion } from '../../../src/model/version.js';
import { MIN, ObjectFactory, SEC, T0, mut } from '../controller-harness.js';

interface Made {
  c: Controller<ReplicaSet>;
  /** Records the onSync callback received. */
  reported: SyncRecord[];
  /** Handler runs observed (any kind), to tell deliveries that ran handlers from those that did not. */
  handlerRuns: () => number;
}

/** How long each create call takes (ms), per test. */
interface Options {
  createTakesMs?: number;
  /** A replay's model: keeps per-owner pod counts. */
  counts?: boolean;
}

type Factory = (pc: PodControl<ReplicaSet>, o: Options) => Made;

const replicaSetModel: Factory = (pc, o) => {
  const reported: SyncRecord[] = [];
  let handlers = 0;
  const c = new ReplicaSetController({
    version: parseK8sVersion('1.37.2'),
    podControl: pc,
    onSync: (s) => reported.push(s),
    onHandler: () => handlers++,
    ...(o.counts ? { recordClaimDecisions: false } : {}),
  });
  return { c, reported, handlerRuns: () => handlers };
};

/** Answers every call with success; creates take `createTakesMs`. */
function answering(o: Options): PodControl<ReplicaSet> & { creates: number } {
  return {
    creates: 0,
    createPod(_rs, call): CreateResult {
      this.creates++;
      return o.createTakesMs ? { ok: true, doneAt: call.at + o.createTakesMs } : { ok: true };
    },
    deletePod: () => ({ ok: true }),
    getFreshOwner: (rs) => rs,
    patchPod: () => 'ok',
  };
}

function setup(o: Options = {}, make: Factory = replicaSetModel) {
  const pc = answering(o);
  const f = new ObjectFactory();
  return { ...make(pc, o), pc, f };
}

const KEY = 'd/foo';

test('seam: deliverOwner fills the owner cache and enqueues; only runDue syncs, returning and reporting each sync once', () => {
  const { c, reported, f } = setup();
  const rs = f.replicaSet({ replicas: 2 });
  c.deliverOwner('ADDED', rs, T0);
  assert.equal(c.owners.get(KEY), rs);
  assert.equal(c.queue.dueAt(KEY), T0);
  assert.equal(reported.length, 0, 'a handler never syncs');
  assert.deepEqual(c.runDue(T0), [], 'the bound is exclusive');
  const ran = c.runDue(T0, true);
  assert.equal(ran.length, 1);
  assert.equal(ran[0]!.key, KEY);
  assert.equal(ran[0]!.outcome, 'synced');
  assert.equal(ran[0]!.create?.successes, 2);
  assert.deepEqual(reported, ran, 'the same records, once each');
  assert.deepEqual(c.expectations.get(KEY), { key: KEY, add: 2, del: 0, timestamp: T0 });
});

test('seam: deliverPod changes the pod cache before the handlers run; an owned pod\'s ADD is observed', () => {
  const { c, f } = setup();
  const rs = f.replicaSet({ replicas: 2 });
  c.deliverOwner('ADDED', rs, T0);
  c.runDue(T0, true);
  const p = f.pod({ rs, createdAt: T0 + SEC });
  c.deliverPod('ADDED', p, T0 + SEC);
  assert.equal(c.pods.get('d/' + p.metadata.name), p);
  assert.deepEqual(c.expectations.get(KEY), { key: KEY, add: 1, del: 0, timestamp: T0 }, 'CreationObserved');
  assert.equal(c.queue.dueAt(KEY), T0 + SEC);
  c.deliverPod('DELETED', p, T0 + 2 * SEC);
  assert.equal(c.pods.has('d/' + p.metadata.name), false);
});

test('seam: deliverPodTombstone drops the pod from the cache and runs the delete handler on the tombstone\'s object', () => {
  const { c, f } = setup();
  const rs = f.replicaSet({ replicas: 1 });
  const p = f.pod({ rs, name: 'foo-p' });
  const q = f.pod({ rs, name: 'foo-q' });
  c.deliverOwner('ADDED', rs, T0 - MIN);
  c.deliverPod('ADDED', p, T0 - MIN);
  c.deliverPod('ADDED', q, T0 - MIN);
  const [s] = c.runDue(T0, true);
  assert.equal(s!.delete?.keys.length, 1);
  const victim = s!.delete!.keys[0]!;
  assert.deepEqual(c.expectations.getDeleteKeys(KEY), [victim]);
  c.deliverPodTombstone(c.pods.get(victim)!, T0 + SEC);
  assert.equal(c.pods.has(victim), false);
  assert.deepEqual(c.expectations.get(KEY), { key: KEY, add: 0, del: 0, timestamp: T0 - MIN }, 'DeletionObserved of the stale pod');
  assert.equal(c.queue.dueAt(KEY), T0 + SEC);
});

test('seam: sync runs a key now, queued or not; the record is reported like a due one', () => {
  const { c, reported, f } = setup();
  const rs = f.replicaSet({ replicas: 1 });
  c.deliverOwner('ADDED', rs, T0);
  c.queue.take(KEY);
  const s = c.sync(KEY, T0 + 5 * SEC);
  assert.equal(s.at, T0 + 5 * SEC);
  assert.equal(s.create?.calls, 1);
  assert.deepEqual(reported, [s]);
  assert.equal(c.sync('d/absent', T0 + 6 * SEC).outcome, 'rs-not-found');
});

test('seam: a sync lasts until its last call returned; a due sync of the busy key waits, extendBusy moves the end', () => {
  const { c, f } = setup({ createTakesMs: 200 });
  const rs = f.replicaSet({ replicas: 3 });
  c.deliverOwner('ADDED', rs, T0);
  const [s] = c.runDue(T0, true);
  assert.equal(s!.doneAt, T0 + 200);
  assert.equal(c.isBusy(KEY, T0 + 199), true);
  assert.equal(c.isBusy(KEY, T0 + 200), false);
  c.queue.add(KEY, T0 + 50);
  assert.deepEqual(c.runDue(T0 + 150), [], 'not while the first sync is making its calls');
  c.extendBusy(KEY, T0 + 400);
  assert.equal(c.isBusy(KEY, T0 + 300), true);
  assert.deepEqual(c.runDue(T0 + 350), []);
  const later = c.runDue(T0 + 500);
  assert.deepEqual(later.map((x) => x.at), [T0 + 400], 'handed out once more when the sync ended');
  assert.equal(later[0]!.expectations, 'still-waiting');
});

test('seam: podCounts follows every delivery in a model that keeps counts, and is undefined otherwise', () => {
  const plain = setup();
  const rs0 = plain.f.replicaSet({ replicas: 1 });
  plain.c.deliverOwner('ADDED', rs0, T0);
  assert.equal(plain.c.podCounts(KEY), undefined);

  const { c, f } = setup({ counts: true });
  const rs = f.replicaSet({ replicas: 2 });
  c.deliverOwner('ADDED', rs, T0);
  assert.deepEqual(c.podCounts(KEY), { active: 0, ready: 0, terminating: 0 });
  const p = f.pod({ rs, name: 'foo-p', ready: false });
  c.deliverPod('ADDED', p, T0 + SEC);
  assert.deepEqual(c.podCounts(KEY), { active: 1, ready: 0, terminating: 0 });
  const ready = f.update(p, mut.ready(T0 + 2 * SEC));
  c.deliverPod('MODIFIED', ready, T0 + 2 * SEC);
  assert.deepEqual(c.podCounts(KEY), { active: 1, ready: 1, terminating: 0 });
  c.deliverPod('MODIFIED', f.update(ready, mut.terminating(T0 + 3 * SEC)), T0 + 3 * SEC);
  assert.deepEqual(c.podCounts(KEY), { active: 0, ready: 0, terminating: 1 });
  c.deliverPodTombstone(ready, T0 + 4 * SEC);
  assert.deepEqual(c.podCounts(KEY), { active: 0, ready: 0, terminating: 0 });
});

test('seam: withholdPod and restorePod change the pod cache (and its counts) and nothing else', () => {
  const { c, f, handlerRuns } = setup({ counts: true });
  const rs = f.replicaSet({ replicas: 1 });
  c.deliverOwner('ADDED', rs, T0);
  const p = f.pod({ rs, name: 'foo-p' });
  c.deliverPod('ADDED', p, T0);
  c.runDue(T0, true);
  const before = { handlers: handlerRuns(), queue: c.queue.size, log: c.expectations.log.length };
  const w = c.withholdPod('d/foo-p');
  assert.equal(w, p);
  assert.equal(c.pods.has('d/foo-p'), false);
  assert.deepEqual(c.podCounts(KEY), { active: 0, ready: 0, terminating: 0 });
  assert.equal(c.withholdPod('d/foo-p'), undefined);
  c.restorePod(p);
  assert.equal(c.pods.get('d/foo-p'), p);
  assert.deepEqual(c.podCounts(KEY), { active: 1, ready: 1, terminating: 0 });
  c.restorePod(f.update(p, mut.orphan()));
  assert.equal(c.pods.get('d/foo-p'), p, 'a cached pod is not replaced');
  assert.deepEqual({ handlers: handlerRuns(), queue: c.queue.size, log: c.expectations.log.length }, before, 'no handler, no enqueue, no expectations change');
});

test('seam: the expectations store, the queue and the caches are the model\'s own, not copies', () => {
  const { c, f } = setup();
  const rs = f.replicaSet({ replicas: 1 });
  c.deliverOwner('ADDED', rs, T0);
  c.queue.take(KEY);
  c.expectations.expectCreations(KEY, 1, T0);
  // The model gates on what the engine did to its store.
  const s = c.sync(KEY, T0 + SEC);
  assert.equal(s.outcome, 'gated');
  c.expectations.reset(T0 + 2 * SEC, KEY);
  assert.equal(c.sync(KEY, T0 + 2 * SEC).outcome, 'synced');
  const pods: ReadonlyMap<string, Pod> = c.pods;
  assert.equal(pods.size, 0, 'the model never caches its own creates');
});
