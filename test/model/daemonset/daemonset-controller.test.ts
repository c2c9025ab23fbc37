/**
 * The DaemonSet controller model against what pkg/controller/daemon/daemon_controller.go and
 * update.go (v1.37.2) do: the count-only expectations and their leaks, the gated status-only sync,
 * slow start, NotFound and namespace-terminating answers, node events, failed-pod backoff and the
 * rolling update. Each expectation is the real controller's, read from the code.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { changed, daemonPod, daemonSet, DS_UID, iso, KEY, newDaemonSetHarness, node, T0 } from './daemonset-harness.js';

const SEC = 1000;
const MIN = 60 * SEC;

/** A DaemonSet over `n` nodes, synced once at T0 (its creates made, none observed yet). */
function scaledUp(n: number, harness = newDaemonSetHarness()) {
  const { dsc } = harness;
  for (let i = 1; i <= n; i++) dsc.deliverNode('ADDED', node(`n${i}`), T0);
  const ds = daemonSet();
  dsc.deliverOwner('ADDED', ds, T0);
  const first = dsc.sync(KEY, T0);
  return { ...harness, ds, first };
}

test('creates one pod per node in slow-start batches, with SetExpectations(creates, 0) once per syncNodes', () => {
  const { calls, first, dsc } = scaledUp(3);
  assert.equal(first.outcome, 'synced');
  assert.equal(first.expectations, 'never-recorded');
  assert.deepEqual(first.create?.batches, [1, 2]);
  assert.deepEqual(calls.creates.map((c) => c.node), ['n1', 'n2', 'n3']);
  assert.deepEqual(dsc.expectations.get(KEY), { key: KEY, add: 3, del: 0, timestamp: T0 });
  // The status computed from a cache without the new pods: desired 3, none scheduled yet, observedGeneration raised.
  assert.deepEqual(first.daemon?.status, { desiredNumberScheduled: 3, currentNumberScheduled: 0, numberMisscheduled: 0, numberReady: 0, updatedNumberScheduled: 0, numberAvailable: 0, numberUnavailable: 3 });
  assert.equal(first.daemon?.observedGeneration, true);
  assert.equal(first.daemon?.statusWrite, true);
});

test('unsatisfied: the sync writes status only and does not raise observedGeneration (a spec change waits)', () => {
  const { dsc, ds, calls } = scaledUp(2);
  const p1 = daemonPod(ds, 'n1', { at: T0 + 1 * SEC });
  dsc.deliverPod('ADDED', p1, T0 + 1 * SEC);
  assert.equal(dsc.expectations.get(KEY)?.add, 1);
  const ds2 = changed(ds, (d) => {
    d.metadata.generation = 2;
    d.metadata.annotations!['deprecated.daemonset.template.generation'] = '2';
    d.status!.observedGeneration = 1;
  });
  dsc.deliverOwner('MODIFIED', ds2, T0 + 2 * SEC);
  const gated = dsc.sync(KEY, T0 + 2 * SEC);
  assert.equal(gated.outcome, 'gated');
  assert.equal(gated.expectations, 'still-waiting');
  assert.equal(gated.create, undefined);
  assert.equal(gated.delete, undefined);
  assert.equal(gated.daemon?.observedGeneration, false);
  assert.equal(gated.daemon?.generation, 2);
  assert.equal(gated.daemon?.status.currentNumberScheduled, 1);
  assert.equal(gated.daemon?.status.updatedNumberScheduled, 0, 'the pod is of generation 1');
  assert.equal(calls.creates.length, 2, 'no call while gated');
});

test('a delete whose DELETED event the informer never delivers leaks del=1: gated until the record expires, then manage runs again', () => {
  const h = newDaemonSetHarness();
  const { dsc, calls } = h;
  dsc.deliverNode('ADDED', node('n1', { agent: 'yes' }), T0);
  dsc.deliverNode('ADDED', node('n2', { agent: 'yes' }), T0);
  const ds = daemonSet({ nodeSelector: { agent: 'yes' } });
  dsc.deliverOwner('ADDED', ds, T0);
  const p1 = daemonPod(ds, 'n1', { bound: true, ready: true });
  const p2 = daemonPod(ds, 'n2', { bound: true, ready: true });
  dsc.deliverPod('ADDED', p1, T0);
  dsc.deliverPod('ADDED', p2, T0);
  assert.deepEqual(dsc.runDue(T0, true).map((x) => x.create), [undefined]);
  // n2 loses its label: updateNode enqueues the DaemonSet (it has a pod there it should not).
  const t1 = T0 + 10 * SEC;
  dsc.deliverNode('MODIFIED', changed(node('n2', { agent: 'yes' }), (n) => { n.metadata.labels = {}; }), t1);
  assert.equal(dsc.queue.dueAt(KEY), t1);
  const del = dsc.runDue(t1, true)[0]!;
  assert.deepEqual(del.delete?.keys, [`kube-system/${p2.metadata.name}`]);
  assert.deepEqual(dsc.expectations.get(KEY), { key: KEY, add: 0, del: 1, timestamp: t1 });
  assert.equal(del.daemon?.status.numberMisscheduled, 1);
  // The pod is gone from the API, but its DELETED event never reaches the informer: nothing lowers del.
  const gated = dsc.sync(KEY, t1 + 4 * MIN);
  assert.equal(gated.outcome, 'gated');
  const expired = dsc.sync(KEY, t1 + 5 * MIN + 1);
  assert.equal(expired.expectations, 'expired');
  assert.equal(expired.outcome, 'synced');
  // The cache still holds the pod: manage deletes it again (a 404 in the real cluster).
  assert.equal(calls.deletes.length, 2);
});

test('a delete answered NotFound is lowered silently: no error, no requeue, the sync can go on', () => {
  const h = newDaemonSetHarness();
  const { dsc } = h;
  dsc.deliverNode('ADDED', node('n1'), T0);
  const ds = daemonSet();
  dsc.deliverOwner('ADDED', ds, T0);
  const failed = daemonPod(ds, 'n1', { bound: true, phase: 'Failed', name: 'agent-gone' });
  dsc.deliverPod('ADDED', failed, T0);
  const h2 = newDaemonSetHarness({ deleteAnswers: { 'agent-gone': { ok: false, notFound: true } } });
  h2.dsc.deliverNode('ADDED', node('n1'), T0);
  h2.dsc.deliverOwner('ADDED', ds, T0);
  h2.dsc.deliverPod('ADDED', failed, T0);
  const s = h2.dsc.sync(KEY, T0);
  assert.deepEqual(s.delete?.notFound, ['kube-system/agent-gone']);
  assert.equal(s.error, undefined);
  assert.deepEqual(h2.dsc.expectations.get(KEY), { key: KEY, add: 0, del: 0, timestamp: T0 });
  assert.deepEqual(s.daemon?.failedPods, [{ pod: 'agent-gone', node: 'n1', action: 'delete' }]);
});

test('a create refused because the namespace is terminating is not lowered: the record waits for the timeout', () => {
  const h = newDaemonSetHarness({ createAnswers: [{ ok: false, error: 'pods "agent-x" is forbidden: unable to create new content in namespace kube-system because it is being terminated', namespaceTerminating: true }] });
  const { first, dsc } = scaledUp(1, h);
  assert.equal(first.create?.namespaceTerminating, 1);
  assert.equal(first.error, undefined);
  assert.deepEqual(dsc.expectations.get(KEY), { key: KEY, add: 1, del: 0, timestamp: T0 });
  assert.equal(dsc.sync(KEY, T0 + 4 * MIN).outcome, 'gated');
});

test('slow start: a failed create lowers add, the skipped ones are lowered at once, and the sync returns the error', () => {
  const h = newDaemonSetHarness({ createAnswers: [{ ok: true }, { ok: false, error: 'pods "agent-" is forbidden: exceeded quota: pods' }, { ok: true }] });
  const { first, dsc, calls } = scaledUp(6, h);
  // Batches 1 then 2 (one of which fails); the remaining 3 are never attempted.
  assert.deepEqual(first.create?.batches, [1, 2]);
  assert.equal(calls.creates.length, 3);
  assert.equal(first.create?.skipped, 3);
  assert.deepEqual(dsc.expectations.get(KEY), { key: KEY, add: 2, del: 0, timestamp: T0 });
  const lowered = dsc.expectations.log.filter((l) => l.kind === 'lowered-expectations').map((l) => l.add);
  assert.deepEqual(lowered, [5, 2], 'CreationObserved for the failure, then LowerExpectations(skipped=3)');
  assert.match(first.error ?? '', /exceeded quota/);
  assert.equal(first.requeue?.kind, 'rate-limited');
});

test('a pod made terminating right after its creation is counted as a deletion: add is never lowered (kubernetes#136932)', () => {
  const { dsc, ds } = scaledUp(1);
  const pod = daemonPod(ds, 'n1', { at: T0 });
  pod.metadata.deletionTimestamp = iso(T0 + 30 * SEC);
  dsc.deliverPod('ADDED', pod, T0 + 1 * SEC);
  assert.deepEqual(dsc.expectations.get(KEY), { key: KEY, add: 1, del: -1, timestamp: T0 });
  dsc.deliverPod('DELETED', pod, T0 + 30 * SEC);
  const s = dsc.runDue(T0 + 30 * SEC, true);
  assert.deepEqual(s.map((x) => x.outcome), ['gated']);
  // Nothing requeues the DaemonSet when the record expires: the queue is empty.
  assert.equal(dsc.queue.dueAt(KEY), undefined);
});

test('a failed daemon pod is killed, and killed again only after the per-node backoff (1 s, doubling)', () => {
  const { dsc } = newDaemonSetHarness();
  dsc.deliverNode('ADDED', node('n1'), T0);
  const ds = daemonSet();
  dsc.deliverOwner('ADDED', ds, T0);
  const f1 = daemonPod(ds, 'n1', { bound: true, phase: 'Failed' });
  dsc.deliverPod('ADDED', f1, T0);
  assert.deepEqual(dsc.runDue(T0, true).map((s) => s.daemon?.failedPods?.map((f) => f.action)), [['delete']]);
  dsc.deliverPod('DELETED', f1, T0 + 100);
  // A replacement pod that fails at once (a kubelet rejecting it): its ADD lowers add below zero, still fulfilled.
  const f2 = daemonPod(ds, 'n1', { bound: true, phase: 'Failed', at: T0 + 200 });
  dsc.deliverPod('ADDED', f2, T0 + 200);
  const [inBackoff] = dsc.runDue(T0 + 500, true);
  assert.ok(inBackoff);
  assert.deepEqual(inBackoff.daemon?.failedPods, [{ pod: f2.metadata.name, node: 'n1', action: 'backoff', backoffMs: 1000 }]);
  assert.equal(inBackoff.delete, undefined);
  // The sync ran at the DELETED (T0+100; the ADD found the key queued), 100 ms into the 1 s backoff:
  // enqueueDaemonSetAfter(ds, delay) requeues it a whole delay later, not at the backoff's end.
  assert.equal(inBackoff.at, T0 + 100);
  assert.equal(dsc.queue.dueAt(KEY), T0 + 1100);
  const [after] = dsc.runDue(T0 + 1100, true);
  assert.deepEqual(after?.delete?.keys, [`kube-system/${f2.metadata.name}`]);
});

test('rolling update without surge: only when satisfied after manage, deleting up to maxUnavailable old available pods', () => {
  const { dsc } = newDaemonSetHarness();
  for (const n of ['n1', 'n2', 'n3']) dsc.deliverNode('ADDED', node(n), T0);
  const ds1 = daemonSet({ generation: 1 });
  dsc.deliverOwner('ADDED', ds1, T0);
  for (const n of ['n1', 'n2', 'n3']) dsc.deliverPod('ADDED', daemonPod(ds1, n, { bound: true, ready: true, name: `agent-${n}` }), T0);
  const ds2 = changed(ds1, (d) => {
    d.metadata.generation = 2;
    d.metadata.annotations!['deprecated.daemonset.template.generation'] = '2';
  });
  dsc.deliverOwner('MODIFIED', ds2, T0 + MIN);
  const s = dsc.sync(KEY, T0 + MIN);
  assert.equal(s.create, undefined);
  assert.deepEqual(s.daemon?.update?.delete?.keys, ['kube-system/agent-n1']);
  assert.equal(s.delete, s.daemon?.update?.delete, 'manage deleted nothing: the sync\'s delete round is the update\'s');
  assert.equal(s.daemon?.update?.maxUnavailable, 1);
  const sets = dsc.expectations.log.filter((l) => l.kind === 'setting-expectations' && l.at === T0 + MIN).map((l) => [l.add, l.del]);
  assert.deepEqual(sets, [[0, 0], [0, 1]], 'manage sets 0/0, then the rolling update 0/1');
  assert.equal(s.daemon?.status.updatedNumberScheduled, 0);
});

test('the rolling update is checked once manage returned: the ADD of manage\'s create delivered before its last call (a delete answered NotFound) returned satisfies it, and that ADD\'s delivery later lowers nothing', () => {
  const ds = daemonSet();
  const created = daemonPod(ds, 'n1', { at: T0 + 3, name: 'agent-new' });
  const run = (podsAddedDuring?: (from: number, until: number) => ReturnType<typeof daemonPod>[]) => {
    const h = newDaemonSetHarness({
      createAnswers: [{ ok: true, pod: 'agent-new', doneAt: T0 + 3 }],
      deleteAnswers: { 'agent-gone': { ok: false, notFound: true, doneAt: T0 + 8 } },
      ...(podsAddedDuring ? { podControl: { podsAddedDuring: (_ds, from, until) => podsAddedDuring(from, until) } } : {}),
    });
    for (const n of ['n1', 'n2']) h.dsc.deliverNode('ADDED', node(n), T0);
    h.dsc.deliverOwner('ADDED', ds, T0);
    // n2's pod failed: manage kills it (answered NotFound, its last call) and creates n1's.
    h.dsc.deliverPod('ADDED', daemonPod(ds, 'n2', { bound: true, phase: 'Failed', name: 'agent-gone' }), T0);
    const s = h.dsc.sync(KEY, T0);
    const sets = h.dsc.expectations.log.filter((l) => l.kind === 'setting-expectations' && l.at === T0).map((l) => [l.add, l.del]);
    return { ...h, s, sets };
  };
  // The ADD arrived at T0+3, the last call returned at T0+8: updateDaemonSet's SatisfiedExpectations sees it.
  const seen = run((from, until) => (from < T0 + 3 && T0 + 3 < until ? [created] : []));
  assert.deepEqual(seen.sets, [[1, 1], [0, 0]], 'manage sets 1/1, then the rolling update 0/0');
  assert.ok(seen.s.daemon?.update === undefined, 'the update had nothing to do (its Set of 0/0 is its trace)');
  assert.equal(seen.s.doneAt, T0 + 8);
  assert.equal(seen.dsc.observedDuringSync(created.metadata.uid!), true, 'the seam says so (no view alignment may hold it back as unseen)');
  seen.dsc.deliverPod('ADDED', created, T0 + 3);
  assert.deepEqual(seen.dsc.expectations.get(KEY), { key: KEY, add: 0, del: 0, timestamp: T0 }, 'the ADD the sync observed lowers nothing again');
  assert.equal(seen.dsc.observedDuringSync(created.metadata.uid!), false, 'forgotten at its delivery');
  // The DaemonSet deleted before that ADD was delivered: the pod is still forgotten at it (nothing kept for a gone owner).
  const orphaned = run((from, until) => (from < T0 + 3 && T0 + 3 < until ? [created] : []));
  orphaned.dsc.deliverOwner('DELETED', ds, T0 + 2);
  orphaned.dsc.deliverPod('ADDED', created, T0 + 3);
  assert.equal(orphaned.dsc.observedDuringSync(created.metadata.uid!), false);
  // Delivered only after the last call returned (or unknown): the record still waits for it, no rolling update.
  for (const late of [run((from, until) => (from < T0 + 9 && T0 + 9 < until ? [created] : [])), run()]) {
    assert.deepEqual(late.sets, [[1, 1]]);
    late.dsc.deliverPod('ADDED', created, T0 + 9);
    assert.deepEqual(late.dsc.expectations.get(KEY), { key: KEY, add: 0, del: 0, timestamp: T0 });
  }
});

test('a sync that writes status is busy until the status write returned (the input\'s answer), not its last pod call', () => {
  const ds = daemonSet();
  const asked: Array<{ at: number; after: number }> = [];
  const h = newDaemonSetHarness({
    createAnswers: [{ ok: true, doneAt: T0 + 5 }],
    podControl: { ownerStatusWrite: (_ds, call) => (asked.push(call), { doneAt: T0 + 20 }) },
  });
  h.dsc.deliverNode('ADDED', node('n1'), T0);
  h.dsc.deliverOwner('ADDED', ds, T0);
  const s = h.dsc.sync(KEY, T0);
  assert.equal(s.daemon?.statusWrite, true);
  assert.deepEqual(asked, [{ at: T0, after: T0 + 5 }], 'requested once the create returned');
  assert.equal(s.doneAt, T0 + 20);
  assert.ok(h.dsc.isBusy(KEY, T0 + 19) && !h.dsc.isBusy(KEY, T0 + 20));
  // A sync whose status is unchanged makes no status write and asks nothing.
  h.dsc.deliverPod('ADDED', daemonPod(ds, 'n1', { name: 'agent-one' }), T0 + 30);
  h.dsc.deliverOwner('MODIFIED', changed(ds, (d) => { d.status = { desiredNumberScheduled: 1, currentNumberScheduled: 1, numberMisscheduled: 0, numberReady: 0, updatedNumberScheduled: 1, numberAvailable: 0, numberUnavailable: 1, observedGeneration: 1 }; }), T0 + 30);
  const s2 = h.dsc.sync(KEY, T0 + 40);
  assert.equal(s2.daemon?.statusWrite, false);
  assert.equal(s2.doneAt, undefined);
  assert.equal(asked.length, 1);
});

test('rolling update with maxSurge: a new pod is created beside an available old one, up to maxSurge', () => {
  const { dsc, calls } = newDaemonSetHarness();
  for (const n of ['n1', 'n2']) dsc.deliverNode('ADDED', node(n), T0);
  const ds1 = daemonSet({ maxSurge: 1, maxUnavailable: 0 });
  dsc.deliverOwner('ADDED', ds1, T0);
  for (const n of ['n1', 'n2']) dsc.deliverPod('ADDED', daemonPod(ds1, n, { bound: true, ready: true }), T0);
  const ds2 = changed(ds1, (d) => {
    d.metadata.generation = 2;
    d.metadata.annotations!['deprecated.daemonset.template.generation'] = '2';
  });
  dsc.deliverOwner('MODIFIED', ds2, T0 + MIN);
  const s = dsc.sync(KEY, T0 + MIN);
  assert.deepEqual(s.daemon?.update?.create?.n, 1);
  assert.deepEqual(calls.creates.map((c) => c.node), ['n1']);
});

test('a pod for a node that does not exist and was never scheduled is deleted (getUnscheduledPodsWithoutNode)', () => {
  const { dsc } = newDaemonSetHarness();
  dsc.deliverNode('ADDED', node('n1'), T0);
  const ds = daemonSet();
  dsc.deliverOwner('ADDED', ds, T0);
  dsc.deliverPod('ADDED', daemonPod(ds, 'n1', { bound: true, ready: true }), T0);
  const orphanNode = daemonPod(ds, 'gone-node', { name: 'agent-stranded' });
  dsc.deliverPod('ADDED', orphanNode, T0);
  const s = dsc.sync(KEY, T0);
  assert.deepEqual(s.delete?.keys, ['kube-system/agent-stranded']);
});

test('a DaemonSet being deleted does nothing, not even read its expectations; a deleted one drops them', () => {
  const { dsc, ds } = scaledUp(1);
  const deleting = changed(ds, (d) => { d.metadata.deletionTimestamp = iso(T0 + MIN); });
  dsc.deliverOwner('MODIFIED', deleting, T0 + MIN);
  const s = dsc.sync(KEY, T0 + MIN);
  assert.equal(s.outcome, 'rs-being-deleted');
  assert.equal(s.expectations, undefined);
  assert.equal(s.daemon, undefined);
  dsc.deliverOwner('DELETED', deleting, T0 + 2 * MIN);
  assert.equal(dsc.expectations.get(KEY), undefined);
  assert.equal(dsc.sync(KEY, T0 + 2 * MIN).outcome, 'rs-not-found');
});

test('the consistency gate (1.36+) skips a sync while the informers lag the controller\'s own writes; 1.35 has none', () => {
  const h = newDaemonSetHarness({ behind: true });
  const { first } = scaledUp(1, h);
  assert.equal(first.outcome, 'consistency-skip');
  const old = scaledUp(1, newDaemonSetHarness({ version: 'v1.35.4', behind: true }));
  assert.equal(old.first.outcome, 'synced');
});

test('node events: an unlabelled-but-selected node enqueues; a change of neither labels nor taints does not', () => {
  const { dsc } = newDaemonSetHarness();
  const ds = daemonSet({ nodeSelector: { agent: 'yes' } });
  dsc.deliverOwner('ADDED', ds, T0);
  dsc.runDue(T0, true);
  dsc.deliverNode('ADDED', node('other'), T0 + SEC);
  assert.equal(dsc.queue.dueAt(KEY), undefined, 'the node does not want the daemon');
  const n = node('n9', { agent: 'yes' });
  dsc.deliverNode('ADDED', n, T0 + 2 * SEC);
  assert.equal(dsc.queue.dueAt(KEY), T0 + 2 * SEC);
  dsc.runDue(T0 + 2 * SEC, true);
  dsc.deliverNode('MODIFIED', changed(n, (x) => { x.status = { conditions: [] }; }), T0 + 3 * SEC);
  assert.equal(dsc.queue.dueAt(KEY), undefined, 'a status-only node update is ignored');
  assert.equal(DS_UID, ds.metadata.uid);
});

test('before kubernetes#91008 (v1.15.3) a delete answered NotFound is counted as made: del stays 1 (kubernetes#95432); from v1.19 it is lowered at once', () => {
  for (const [version, del] of [['v1.15.3', 1], ['v1.19.0', 0]] as const) {
    const h = newDaemonSetHarness({ version, deleteAnswers: { 'agent-gone1': { ok: false, notFound: true, error: 'pods "agent-gone1" not found' } } });
    const ds = daemonSet();
    h.dsc.deliverNode('ADDED', node('n1', {}, [{ key: 'maintenance', effect: 'NoExecute' }]), T0);
    h.dsc.deliverOwner('ADDED', ds, T0);
    h.dsc.deliverPod('ADDED', daemonPod(ds, 'n1', { name: 'agent-gone1', bound: true }), T0);
    h.dsc.runDue(T0 + 1000, true);
    assert.deepEqual(h.calls.deletes.map((d) => d.pod), ['agent-gone1'], version);
    assert.equal(h.dsc.expectations.get(KEY)?.del, del, version);
    const s = h.syncs.find((x) => x.delete)!;
    assert.deepEqual(s.delete!.notFoundKept ?? [], del ? ['kube-system/agent-gone1'] : [], version);
  }
});
