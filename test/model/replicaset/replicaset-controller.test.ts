/**
 * The ReplicaSet-controller model (src/model/replicaset/replicaset-controller.ts) against
 * docs/controller-semantics.md: every model case of §11 (cases 1–28), the upstream unit-test
 * behaviours of §10, and the sync/handler rules of §3–§7.
 *
 * Events go through deliverPod / deliverOwner / deliverPodTombstone (the informer's
 * add/update/delete routing); syncs run through runDue (queue semantics) or sync (one key now).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';

import type { Pod, ReplicaSet } from '../../../src/model/objects.js';
import type { CreateRound, SyncRecord } from '../../../src/model/controller/sync-record.js';
import {
  E,
  ERR,
  FIVE_MIN,
  HOUR,
  MIN,
  SATISFIED_KINDS,
  SEC,
  T0,
  addAll,
  controllerRefTo,
  deploymentRef,
  drainQueue,
  iso,
  logOf,
  mut,
  newHarness,
  syncNow,
  type Harness,
} from '../controller-harness.js';

const KEY = 'd/foo';

// ───────────────────────────── helpers ─────────────────────────────

/** Exact check of the listed SyncRecord fields; outcome/expectations/create/delete/error/requeue must be undefined unless listed. */
function expectSync(s: SyncRecord, exp: Partial<SyncRecord>): void {
  const strict = ['outcome', 'expectations', 'create', 'delete', 'error', 'requeue'];
  for (const k of new Set([...strict, ...Object.keys(exp)])) {
    const key = k as keyof SyncRecord;
    if (key === 'delete' && s.delete && exp.delete) {
      assert.deepEqual(delView(s), delView({ ...s, delete: exp.delete }), 'SyncRecord.delete');
      continue;
    }
    if (key === 'create' && s.create && exp.create) {
      // `round` numbers the model's rounds; `unknown`/`unmade` are only ever set by replays.
      const { round: _r, unknown, unmade, ...rest } = s.create;
      assert.equal(unknown, 0);
      assert.equal(unmade, 0);
      assert.deepEqual(rest, exp.create, `SyncRecord.create at +${s.at - T0} ms`);
      continue;
    }
    assert.deepEqual(s[key], exp[key], `SyncRecord.${k} at +${s.at - T0} ms`);
  }
}

function createRound(n: number, batches: number[], calls: number, successes: number, errors: string[] = [], namespaceTerminating = 0): Omit<CreateRound, 'round' | 'unknown' | 'unmade'> {
  return { n, batches, calls, successes, skipped: n - successes, namespaceTerminating, errors };
}

function delView(s: SyncRecord) {
  const d = s.delete;
  return d && { n: d.n, keys: d.keys, failed: d.failed, notFound: d.notFound, errors: d.errors };
}

function deleteRound(keys: string[], o: { failed?: string[]; notFound?: string[]; errors?: string[] } = {}): SyncRecord['delete'] {
  return { n: keys.length, keys, uids: [], failed: o.failed ?? [], notFound: o.notFound ?? [], errors: o.errors ?? [] };
}

const rateLimited = (delayMs: number) => ({ kind: 'rate-limited' as const, delayMs });
const after = (delayMs: number) => ({ kind: 'after' as const, delayMs });

/** RS in the cache plus pods (delivered as ADDs), queue drained: a quiet starting point. */
function world(h: Harness, rs: ReplicaSet, pods: Pod[] = [], at = T0 - MIN): void {
  h.c.deliverOwner('ADDED', rs, at);
  addAll(h.c, pods, at);
  drainQueue(h.c);
  h.handlers.length = 0;
}

/** Delivers a new version of the RS (e.g. a scale) and runs the one sync it triggers. */
function updateRSAndSync(h: Harness, rs: ReplicaSet, at: number): SyncRecord {
  h.c.deliverOwner('MODIFIED', rs, at);
  return syncNow(h.c, at);
}

const keyOf = (p: Pod) => `${p.metadata.namespace}/${p.metadata.name}`;

// ═════════════════════════════ §11 behavioural cases ═════════════════════════════

test('§11 case 1: new RS, nothing observed → "never recorded", ExpectCreations 3, creates in batches 1,2', () => {
  const h = newHarness();
  const rs = h.f.replicaSet({ replicas: 3 });
  h.c.deliverOwner('ADDED', rs, T0);
  assert.equal(h.c.queue.dueAt(KEY), T0);
  assert.deepEqual(h.handlers, [{ at: T0, handler: 'addRS', object: KEY, effects: ['enqueue d/foo'] }]);

  const s = syncNow(h.c, T0);
  expectSync(s, { outcome: 'synced', expectations: 'never-recorded', create: createRound(3, [1, 2], 3, 3), desired: 3, active: 0, diff: -3, recordBefore: undefined });
  assert.deepEqual(h.c.expectations.get(KEY), { key: KEY, add: 3, del: 0, timestamp: T0 });
  assert.deepEqual(logOf(h.c).map((l) => l.kind), ['never-recorded', 'setting-expectations']);
  assert.deepEqual(h.pc.counts(), { creates: 3, deletes: 0, gets: 0, patches: 0 });
  assert.equal(h.pc.created.length, 3, '3 SuccessfulCreate');
  assert.deepEqual(h.pc.creates.map((c) => [c.index, c.n]), [[0, 3], [1, 3], [2, 3]]);
  assert.equal(h.c.queue.size, 0, 'a successful sync leaves nothing queued');
});

test('§11 case 2: gated until all creates are seen; status-only sync while gated; fulfilled → nothing to do', () => {
  const h = newHarness();
  h.c.deliverOwner('ADDED', h.f.replicaSet({ replicas: 3 }), T0);
  syncNow(h.c, T0);
  const [p1, p2, p3] = h.pc.takeCreated();
  h.c.deliverPod('ADDED', p1!, T0 + 1 * SEC);
  h.c.deliverPod('ADDED', p2!, T0 + 2 * SEC);
  assert.deepEqual(E(h.c), { add: 1, del: 0 });
  assert.deepEqual(h.handlers.slice(-1)[0], { at: T0 + 2 * SEC, handler: 'addPod', object: keyOf(p2!), effects: ['CreationObserved(d/foo)', 'enqueue d/foo'] });
  assert.equal(h.c.queue.dueAt(KEY), T0 + 1 * SEC, 'the two ADDs are de-duplicated into one sync');

  const gated = h.c.runDue(T0 + 2 * SEC, true);
  assert.equal(gated.length, 1);
  expectSync(gated[0]!, { outcome: 'gated', expectations: 'still-waiting', active: 2, diff: -1, recordBefore: { key: KEY, add: 1, del: 0, timestamp: T0 } });
  assert.equal(h.pc.creates.length, 3, 'no creates while gated');

  h.c.deliverPod('ADDED', p3!, T0 + 3 * SEC);
  assert.deepEqual(E(h.c), { add: 0, del: 0 });
  const s = syncNow(h.c, T0 + 3 * SEC);
  expectSync(s, { outcome: 'synced', expectations: 'fulfilled', active: 3, diff: 0 });
  assert.deepEqual(h.c.expectations.get(KEY), { key: KEY, add: 0, del: 0, timestamp: T0 }, 'diff 0 leaves the record untouched');
  assert.equal(h.pc.creates.length, 3);
});

test('§11 case 3: a quota failure does not gate: 1 call, 5 walk-backs, error + 5 ms requeue, next sync ungated', () => {
  const h = newHarness();
  world(h, h.f.replicaSet({ replicas: 5 }));
  h.pc.createsFail(ERR.quota);
  h.c.deliverOwner('MODIFIED', h.f.update(h.c.owners.get(KEY)!, mut.annotate('team', 'payments')), T0);
  const s1 = syncNow(h.c, T0);
  expectSync(s1, { outcome: 'synced', expectations: 'never-recorded', create: createRound(5, [1], 1, 0, [ERR.quota]), error: ERR.quota, requeue: rateLimited(5) });
  assert.deepEqual(E(h.c), { add: 0, del: 0 });
  assert.deepEqual(
    logOf(h.c, KEY, ['setting-expectations', 'lowered-expectations']).map((l) => [l.kind, l.add]),
    [['setting-expectations', 5], ['lowered-expectations', 4], ['lowered-expectations', 3], ['lowered-expectations', 2], ['lowered-expectations', 1], ['lowered-expectations', 0]],
  );
  assert.equal(h.c.queue.dueAt(KEY), T0 + 5);

  // Second attempt fails again: one FailedCreate per attempt, backoff doubles.
  const s2 = syncNow(h.c, T0 + 5);
  expectSync(s2, { outcome: 'synced', expectations: 'fulfilled', create: createRound(5, [1], 1, 0, [ERR.quota]), error: ERR.quota, requeue: rateLimited(10) });
  assert.equal(h.c.queue.dueAt(KEY), T0 + 15);

  // Quota freed: the retry is ungated and creates all 5.
  h.pc.createsSucceed();
  const s3 = syncNow(h.c, T0 + 15);
  expectSync(s3, { outcome: 'synced', expectations: 'fulfilled', create: createRound(5, [1, 2, 2], 5, 5) });
  assert.deepEqual(h.c.expectations.get(KEY), { key: KEY, add: 5, del: 0, timestamp: T0 + 15 });
  assert.equal(h.pc.creates.length, 7);
});

test('§11 case 4: partial batch failure walks back 5 (calls 1–5 ok, later fail): 7 calls, E=(5,0), gated until the 5 ADDs', () => {
  const h = newHarness();
  world(h, h.f.replicaSet({ replicas: 10 }));
  h.pc.createsSucceedUpTo(5, ERR.quota);
  const s1 = h.c.sync(KEY, T0);
  expectSync(s1, { outcome: 'synced', expectations: 'never-recorded', create: createRound(10, [1, 2, 4], 7, 5, [ERR.quota, ERR.quota]), error: ERR.quota, requeue: rateLimited(5) });
  assert.equal(s1.create!.skipped, 5);
  assert.deepEqual(E(h.c), { add: 5, del: 0 });
  const lowered = logOf(h.c, KEY, ['lowered-expectations']);
  assert.deepEqual(lowered.map((l) => l.add), [9, 8, 7, 6, 5], 'five "Lowered expectations" lines');

  // The error requeue fires while the 5 pods are unobserved: gated, no error, backoff forgotten.
  const s2 = syncNow(h.c, T0 + 5);
  expectSync(s2, { outcome: 'gated', expectations: 'still-waiting', active: 0, diff: -10, recordBefore: { key: KEY, add: 5, del: 0, timestamp: T0 } });
  assert.equal(h.c.queue.size, 0);

  const created = h.pc.takeCreated();
  assert.equal(created.length, 5);
  addAll(h.c, created, T0 + SEC);
  assert.deepEqual(E(h.c), { add: 0, del: 0 });
  h.pc.createsFail(ERR.quota);
  const s3 = syncNow(h.c, T0 + SEC);
  expectSync(s3, { outcome: 'synced', expectations: 'fulfilled', create: createRound(5, [1], 1, 0, [ERR.quota]), error: ERR.quota, requeue: rateLimited(5) });
  assert.equal(s3.active, 5);
});

test('§11 case 5: NamespaceTerminating creates count as successes → E=(2,0) leaks; ended by RS deletion', () => {
  const h = newHarness();
  const rs = h.f.replicaSet({ replicas: 2 });
  world(h, rs);
  h.pc.createsNamespaceTerminating();
  const s1 = h.c.sync(KEY, T0);
  expectSync(s1, { outcome: 'synced', expectations: 'never-recorded', create: createRound(2, [1, 1], 2, 2, [], 2) });
  assert.deepEqual(h.c.expectations.get(KEY), { key: KEY, add: 2, del: 0, timestamp: T0 });
  assert.equal(logOf(h.c, KEY, ['lowered-expectations']).length, 0, 'no walk-back');
  assert.equal(h.c.queue.size, 0, 'no error, no requeue');

  const s2 = updateRSAndSync(h, h.f.update(rs, mut.annotate('note', 'a')), T0 + 1 * MIN);
  expectSync(s2, { outcome: 'gated', expectations: 'still-waiting', active: 0, diff: -2, recordBefore: { key: KEY, add: 2, del: 0, timestamp: T0 } });

  h.c.deliverOwner('DELETED', rs, T0 + 2 * MIN);
  assert.equal(h.c.expectations.get(KEY), undefined);
  assert.deepEqual(h.handlers.slice(-1)[0]!.effects, ['DeleteExpectations', 'enqueue d/foo']);
  const s3 = syncNow(h.c, T0 + 2 * MIN);
  expectSync(s3, { outcome: 'rs-not-found' });
  assert.equal(h.c.expectations.get(KEY), undefined);
});

test('§11 case 5: NamespaceTerminating leak recovered only by the first sync after t0+5m ("expired")', () => {
  const h = newHarness();
  let rs = h.f.replicaSet({ replicas: 2 });
  world(h, rs);
  h.pc.createsNamespaceTerminating();
  h.c.sync(KEY, T0);
  rs = h.f.update(rs, mut.annotate('note', 'b'));
  expectSync(updateRSAndSync(h, rs, T0 + FIVE_MIN), { outcome: 'gated', expectations: 'still-waiting', active: 0, diff: -2, recordBefore: { key: KEY, add: 2, del: 0, timestamp: T0 } });
  rs = h.f.update(rs, mut.annotate('note', 'c'));
  const s = updateRSAndSync(h, rs, T0 + 7 * MIN);
  expectSync(s, { outcome: 'synced', expectations: 'expired', create: createRound(2, [1, 1], 2, 2, [], 2), active: 0, diff: -2, recordBefore: { key: KEY, add: 2, del: 0, timestamp: T0 } });
  assert.deepEqual(logOf(h.c, KEY, ['expectations-expired']), [{ at: T0 + 7 * MIN, kind: 'expectations-expired', key: KEY, add: 2, del: 0 }]);
  assert.deepEqual(h.c.expectations.get(KEY), { key: KEY, add: 2, del: 0, timestamp: T0 + 7 * MIN }, 'a new leak round');
});

/** replicas 3 with pods p (running, not ready — chosen first), q, r (ready); scale to `to`. */
function scaleDownWorld(h: Harness, to: number, at = T0) {
  const rs = h.f.replicaSet({ replicas: 3 });
  const p = h.f.pod({ rs, name: 'foo-p', ready: false });
  const q = h.f.pod({ rs, name: 'foo-q' });
  const r = h.f.pod({ rs, name: 'foo-r' });
  world(h, rs, [q, p, r]);
  const rs2 = h.f.update(rs, mut.replicas(to));
  const s = updateRSAndSync(h, rs2, at);
  return { rs: rs2, p, q, r, s };
}

test('scale-down ranking: a sibling ReplicaSet\'s pods on the same node count (getIndirectlyRelatedPods, read through the label index)', () => {
  const h = newHarness();
  const dep = deploymentRef('web', 'uid-dep');
  const rs = h.f.replicaSet({ name: 'foo', replicas: 2, owner: dep, labels: { app: 'web', hash: 'new' } });
  const old = h.f.replicaSet({ name: 'foo-old', replicas: 3, owner: dep, labels: { app: 'web', hash: 'old' } });
  const a = h.f.pod({ rs, name: 'foo-a', nodeName: 'node-1', createdAt: T0 - 2 * HOUR });
  const b = h.f.pod({ rs, name: 'foo-b', nodeName: 'node-2', createdAt: T0 - 10 * MIN });
  const olds = [1, 2, 3].map((i) => h.f.pod({ rs: old, name: `foo-old-${i}`, nodeName: 'node-1' }));
  // Of another Deployment, on node-2, labelled app=web: matches neither selector, counts for neither.
  const stranger = h.f.pod({ name: 'other-1', labels: { app: 'web' }, owner: deploymentRef('other', 'uid-other'), nodeName: 'node-2' });
  h.c.deliverOwner('ADDED', old, T0 - MIN);
  world(h, rs, [a, b, stranger, ...olds]);
  const s = updateRSAndSync(h, h.f.update(rs, mut.replicas(1)), T0);
  // foo-a shares node-1 with the old ReplicaSet's three pods (rank 4 against foo-b's 1): deleted
  // first, though older; without the sibling's pods the ranks tie and the newer foo-b would go.
  assert.deepEqual(s.delete?.keys, ['d/foo-a']);
});

test('§11 case 6: graceful delete counted once (update with deletionTimestamp), later updates and DELETE no-ops', () => {
  const h = newHarness();
  const { p, s } = scaleDownWorld(h, 2);
  expectSync(s, { outcome: 'synced', expectations: 'never-recorded', delete: deleteRound(['d/foo-p']), active: 3, diff: 1 });
  assert.deepEqual(s.delete!.uids, [p.metadata.uid]);
  assert.deepEqual(E(h.c), { add: 0, del: 1 });
  assert.deepEqual(h.c.expectations.getDeleteKeys(KEY), ['d/foo-p']);
  assert.deepEqual(h.pc.deletes.map((d) => d.pod), ['d/foo-p']);

  const p1 = h.f.update(p, mut.terminating(T0 + 30 * SEC));
  h.c.deliverPod('MODIFIED', p1, T0 + 1 * SEC);
  assert.deepEqual(E(h.c), { add: 0, del: 0 });
  assert.deepEqual(h.c.expectations.getDeleteKeys(KEY), []);
  assert.deepEqual(h.handlers.slice(-1)[0], { at: T0 + SEC, handler: 'updatePod', object: 'd/foo-p', uid: p.metadata.uid, effects: ['DeletionObserved(d/foo, d/foo-p)', 'enqueue d/foo'] });
  drainQueue(h.c);

  // Status updates of the terminating pod: deletePod again, no decrement, but the RS is re-enqueued.
  const p2 = h.f.update(p1, (x) => { x.status!.phase = 'Running'; x.status!.containerStatuses![0]!.ready = false; });
  h.c.deliverPod('MODIFIED', p2, T0 + 5 * SEC);
  assert.deepEqual(h.handlers.slice(-1)[0]!.effects, ['deletion of d/foo-p not expected: no change', 'enqueue d/foo']);
  assert.equal(h.c.queue.dueAt(KEY), T0 + 5 * SEC);
  h.c.deliverPod('DELETED', p2, T0 + 31 * SEC);
  assert.deepEqual(h.handlers.slice(-1)[0]!.effects, ['deletion of d/foo-p not expected: no change', 'enqueue d/foo']);
  assert.deepEqual(E(h.c), { add: 0, del: 0 });
  assert.equal(logOf(h.c, KEY, ['received-delete']).length, 1, 'counted exactly once');
  const s2 = syncNow(h.c, T0 + 31 * SEC);
  expectSync(s2, { outcome: 'synced', expectations: 'fulfilled', active: 2, terminating: 0, diff: 0 });
});

test('§11 case 7: deleting a non-chosen pod does not count; gated; v1.35 terminating counts it; then a replacement is created', () => {
  const h = newHarness({ version: 'v1.35.3' });
  const { p, q } = scaleDownWorld(h, 2);
  assert.deepEqual(h.c.expectations.getDeleteKeys(KEY), ['d/foo-p']);
  h.c.deliverPod('MODIFIED', h.f.update(q, mut.terminating(T0 + 30 * SEC)), T0 + SEC);
  assert.deepEqual(h.handlers.slice(-1)[0]!.effects, ['deletion of d/foo-q not expected: no change', 'enqueue d/foo']);
  assert.deepEqual(E(h.c), { add: 0, del: 1 });
  const s1 = syncNow(h.c, T0 + SEC);
  expectSync(s1, { outcome: 'gated', expectations: 'still-waiting', active: 2, terminating: 1, diff: 0, recordBefore: { key: KEY, add: 0, del: 1, timestamp: T0 } });

  h.c.deliverPod('MODIFIED', h.f.update(p, mut.terminating(T0 + 32 * SEC)), T0 + 2 * SEC);
  assert.deepEqual(E(h.c), { add: 0, del: 0 });
  const s2 = syncNow(h.c, T0 + 2 * SEC);
  expectSync(s2, { outcome: 'synced', expectations: 'fulfilled', create: createRound(1, [1], 1, 1), active: 1, terminating: 2, diff: -1 });
  assert.deepEqual(h.c.expectations.get(KEY), { key: KEY, add: 1, del: 0, timestamp: T0 + 2 * SEC });
});

test('§11 case 8: orphaning an expected-delete pod leaks del until a sync after t0+5m; the next round clobbers [d/p]', () => {
  const h = newHarness();
  const { rs, p } = scaleDownWorld(h, 2);
  const T1 = T0;
  // Before the delete is observed, p is orphaned, then deleted.
  h.c.deliverPod('MODIFIED', h.f.update(p, mut.orphan()), T1 + 1 * SEC);
  assert.deepEqual(h.handlers.slice(-1)[0]!.effects, ['enqueue d/foo (old owner)', 'enqueue d/foo (orphan)']);
  h.c.deliverPod('DELETED', h.f.update(p, (x) => { mut.orphan()(x); mut.terminating(T1 + SEC)(x); }), T1 + 1 * SEC);
  assert.deepEqual(h.handlers.slice(-1)[0]!.effects, ['deletion of an orphan: ignored']);
  assert.deepEqual(E(h.c), { add: 0, del: 1 });
  assert.deepEqual(h.c.expectations.getDeleteKeys(KEY), ['d/foo-p']);

  const s1 = syncNow(h.c, T1 + 1 * SEC);
  expectSync(s1, { outcome: 'gated', expectations: 'still-waiting', active: 2, diff: 0, recordBefore: { key: KEY, add: 0, del: 1, timestamp: T1 } });
  assert.equal(h.pc.gets.length, 0);

  let cur = h.f.update(rs, mut.annotate('resync', '1'));
  expectSync(updateRSAndSync(h, cur, T1 + FIVE_MIN), { outcome: 'gated', expectations: 'still-waiting', active: 2, diff: 0, recordBefore: { key: KEY, add: 0, del: 1, timestamp: T1 } });
  cur = h.f.update(cur, mut.annotate('resync', '2'));
  expectSync(updateRSAndSync(h, cur, T1 + 6 * MIN), { outcome: 'synced', expectations: 'expired', active: 2, diff: 0, recordBefore: { key: KEY, add: 0, del: 1, timestamp: T1 } });
  assert.deepEqual(h.c.expectations.get(KEY), { key: KEY, add: 0, del: 1, timestamp: T1 }, 'expired record kept until the next Set');

  cur = h.f.update(cur, mut.replicas(1));
  const s3 = updateRSAndSync(h, cur, T1 + 7 * MIN);
  assert.equal(s3.expectations, 'expired');
  assert.equal(s3.delete!.keys.length, 1);
  assert.deepEqual(logOf(h.c, KEY, ['clobbering-delete-keys']), [{ at: T1 + 7 * MIN, kind: 'clobbering-delete-keys', key: KEY, keys: ['d/foo-p'] }]);
  // Each expiry line carries the keys still expected then, before the round replaces them.
  assert.deepEqual(logOf(h.c, KEY, ['expectations-expired']).map((l) => [l.at, l.keys]), [[T1 + 6 * MIN, ['d/foo-p']], [T1 + 7 * MIN, ['d/foo-p']]]);
  assert.deepEqual(h.c.expectations.getDeleteKeys(KEY), s3.delete!.keys);
  assert.deepEqual(h.c.expectations.get(KEY), { key: KEY, add: 0, del: 1, timestamp: T1 + 7 * MIN });
});

test('§11 case 9: expiry is passive — nothing fires at t0+5m; the first sync after it (t0+3h) is "expired" and manages', () => {
  const h = newHarness();
  const rs = h.f.replicaSet({ replicas: 1 });
  h.c.deliverOwner('ADDED', rs, T0);
  syncNow(h.c, T0);
  assert.deepEqual(h.c.expectations.get(KEY), { key: KEY, add: 1, del: 0, timestamp: T0 });
  // The created pod's ADD never arrives; nothing else happens.
  assert.deepEqual(h.c.runDue(T0 + FIVE_MIN + 1, true), [], 'no timer at expiry');
  assert.deepEqual(h.c.runDue(T0 + 3 * HOUR - 1, true), []);
  assert.equal(h.c.queue.size, 0);
  // The RS informer resync (same resourceVersion) re-enqueues the RS at t0+3h.
  h.c.deliverOwner('MODIFIED', h.f.resync(rs), T0 + 3 * HOUR);
  const s = syncNow(h.c, T0 + 3 * HOUR);
  expectSync(s, { outcome: 'synced', expectations: 'expired', create: createRound(1, [1], 1, 1), active: 0, diff: -1, recordBefore: { key: KEY, add: 1, del: 0, timestamp: T0 } });
  // Gated interval = [t0, first sync after t0+5m], not [t0, t0+5m].
  const firstUngated = h.syncs.find((x) => x.at > T0 && x.expectations !== 'still-waiting');
  assert.equal(firstUngated!.at, T0 + 3 * HOUR);
  assert.deepEqual(h.syncs.map((x) => [x.at - T0, x.expectations]), [[0, 'never-recorded'], [3 * HOUR, 'expired']]);
});

test('§11 case 9 / §1.2: the real 5-minute timeout is strict — gated at exactly t0+5m, expired at t0+5m+1ms', () => {
  const h = newHarness();
  world(h, h.f.replicaSet({ replicas: 1 }));
  h.c.sync(KEY, T0);
  const atFive = h.c.sync(KEY, T0 + FIVE_MIN);
  expectSync(atFive, { outcome: 'gated', expectations: 'still-waiting', recordBefore: { key: KEY, add: 1, del: 0, timestamp: T0 } });
  const justAfter = h.c.sync(KEY, T0 + FIVE_MIN + 1);
  expectSync(justAfter, { outcome: 'synced', expectations: 'expired', create: createRound(1, [1], 1, 1), recordBefore: { key: KEY, add: 1, del: 0, timestamp: T0 } });
});

test('§11 case 10: expired record, over-create, late ADD credits the new round, then a corrective delete (#129795)', () => {
  const h = newHarness();
  const rs = h.f.replicaSet({ replicas: 1 });
  world(h, rs);
  h.c.sync(KEY, T0);
  const [oldPod] = h.pc.takeCreated();
  // 1. sync at t0+6m: expired, the cache lacks the old pod → over-create 1.
  const s1 = updateRSAndSync(h, h.f.resync(rs), T0 + 6 * MIN);
  expectSync(s1, { outcome: 'synced', expectations: 'expired', create: createRound(1, [1], 1, 1), active: 0, diff: -1, recordBefore: { key: KEY, add: 1, del: 0, timestamp: T0 } });
  assert.deepEqual(h.c.expectations.get(KEY), { key: KEY, add: 1, del: 0, timestamp: T0 + 6 * MIN });
  const [newPod] = h.pc.takeCreated();
  // 2. late ADD of the old pod credits the new round.
  h.c.deliverPod('ADDED', oldPod!, T0 + 6 * MIN + SEC);
  assert.deepEqual(E(h.c), { add: 0, del: 0 });
  expectSync(syncNow(h.c, T0 + 6 * MIN + SEC), { outcome: 'synced', expectations: 'fulfilled', active: 1, diff: 0 });
  // 3. the new pod's ADD → add=-1; the next sync deletes the surplus (the newer pod).
  h.c.deliverPod('ADDED', newPod!, T0 + 6 * MIN + 2 * SEC);
  assert.deepEqual(E(h.c), { add: -1, del: 0 });
  const s3 = syncNow(h.c, T0 + 6 * MIN + 2 * SEC);
  expectSync(s3, { outcome: 'synced', expectations: 'fulfilled', delete: deleteRound([keyOf(newPod!)]), active: 2, diff: 1 });
  assert.deepEqual(h.c.expectations.get(KEY), { key: KEY, add: 0, del: 1, timestamp: T0 + 6 * MIN + 2 * SEC });
});

test('§11 case 11: a pod ADDed already terminating is a deletion (del lowered), never a CreationObserved', () => {
  const h = newHarness();
  const rs = h.f.replicaSet({ replicas: 1 });
  world(h, rs);
  h.c.expectations.expectDeletions(KEY, ['d/foo-p'], T0);
  const p = h.f.pod({ rs, name: 'foo-p', deletingAt: T0 + 20 * SEC });
  h.c.deliverPod('ADDED', p, T0 + SEC);
  assert.deepEqual(h.handlers, [
    { at: T0 + SEC, handler: 'addPod', object: 'd/foo-p', effects: ['routed to deletePod (deletionTimestamp set)'] },
    { at: T0 + SEC, handler: 'deletePod', object: 'd/foo-p', uid: p.metadata.uid, effects: ['DeletionObserved(d/foo, d/foo-p)', 'enqueue d/foo'] },
  ]);
  assert.deepEqual(h.c.expectations.get(KEY), { key: KEY, add: 0, del: 0, timestamp: T0 }, 'add stays 0 (not -1)');
  assert.equal(h.c.queue.dueAt(KEY), T0 + SEC);
});

test('§11 case 12: tombstone (DeletedFinalStateUnknown) of a still-owned stale pod counts; an ownerless stale pod leaks', () => {
  {
    const h = newHarness();
    const { p } = scaleDownWorld(h, 2);
    h.c.deliverPodTombstone(p, T0 + 10 * SEC);
    assert.deepEqual(E(h.c), { add: 0, del: 0 });
    assert.deepEqual(h.c.expectations.getDeleteKeys(KEY), []);
    assert.equal(h.c.pods.has('d/foo-p'), false);
    assert.equal(h.c.queue.dueAt(KEY), T0 + 10 * SEC);
  }
  {
    const h = newHarness();
    const { p } = scaleDownWorld(h, 2);
    h.c.deliverPodTombstone(h.f.update(p, mut.orphan()), T0 + 10 * SEC);
    assert.deepEqual(h.handlers.slice(-1)[0]!.effects, ['deletion of an orphan: ignored']);
    assert.deepEqual(E(h.c), { add: 0, del: 1 });
    assert.equal(h.c.queue.size, 0, 'an orphan deletion enqueues nothing');
    expectSync(h.c.sync(KEY, T0 + FIVE_MIN), { outcome: 'gated', expectations: 'still-waiting', active: 2, diff: 0, recordBefore: { key: KEY, add: 0, del: 1, timestamp: T0 } });
    expectSync(h.c.sync(KEY, T0 + FIVE_MIN + 1), { outcome: 'synced', expectations: 'expired', active: 2, diff: 0, recordBefore: { key: KEY, add: 0, del: 1, timestamp: T0 } });
  }
});

test('§11 case 13: a pod resync (same RV) is ignored; an RS update with the same RV still enqueues', () => {
  const h = newHarness();
  const rs = h.f.replicaSet({ replicas: 1 });
  const p = h.f.pod({ rs });
  world(h, rs, [p]);
  h.c.deliverPod('MODIFIED', h.f.resync(p), T0);
  assert.deepEqual(h.handlers, [{ at: T0, handler: 'updatePod', object: keyOf(p), effects: ['same resourceVersion (resync): ignored'] }]);
  assert.equal(h.c.queue.size, 0);
  h.c.deliverOwner('MODIFIED', h.f.resync(rs), T0 + SEC);
  assert.deepEqual(h.handlers.slice(-1)[0], { at: T0 + SEC, handler: 'updateRS', object: KEY, effects: ['enqueue d/foo'] });
  assert.equal(h.c.queue.dueAt(KEY), T0 + SEC);
});

test('§11 case 14: name reuse is credited — a new pod with the same name (new UID) terminating satisfies the old key', () => {
  const h = newHarness();
  const { rs, p, s } = scaleDownWorld(h, 2);
  assert.deepEqual(s.delete!.uids, [p.metadata.uid]);
  // p's deletion is never seen. A relist replaces the cached p by a new pod with the same name.
  const reborn = h.f.pod({ rs, name: 'foo-p', createdAt: T0 + 2 * MIN });
  assert.notEqual(reborn.metadata.uid, p.metadata.uid);
  h.c.deliverPod('MODIFIED', reborn, T0 + 2 * MIN);
  assert.deepEqual(E(h.c), { add: 0, del: 1 }, 'an update, not an ADD: no CreationObserved');
  h.c.deliverPod('MODIFIED', h.f.update(reborn, mut.terminating(T0 + 3 * MIN)), T0 + 3 * MIN);
  const last = h.handlers.slice(-1)[0]!;
  assert.equal(last.uid, reborn.metadata.uid);
  assert.deepEqual(last.effects, ['DeletionObserved(d/foo, d/foo-p)', 'enqueue d/foo']);
  assert.deepEqual(E(h.c), { add: 0, del: 0 }, 'a UID-keyed model would keep del=1 here');
  assert.deepEqual(h.c.expectations.getDeleteKeys(KEY), []);
});

test('§11 case 15: RS deleted and recreated with the same name → ∅, then fresh "never recorded" expectations', () => {
  const h = newHarness();
  const old = h.f.replicaSet({ replicas: 2 });
  world(h, old);
  h.c.sync(KEY, T0);
  assert.deepEqual(E(h.c), { add: 2, del: 0 });
  h.c.deliverOwner('DELETED', old, T0 + MIN);
  assert.equal(h.c.expectations.get(KEY), undefined);
  expectSync(syncNow(h.c, T0 + MIN), { outcome: 'rs-not-found' });
  assert.equal(logOf(h.c, KEY, ['deleted-expectations']).length, 1);
  const fresh = h.f.replicaSet({ replicas: 2 });
  h.c.deliverOwner('ADDED', fresh, T0 + 2 * MIN);
  const s = syncNow(h.c, T0 + 2 * MIN);
  expectSync(s, { outcome: 'synced', expectations: 'never-recorded', create: createRound(2, [1, 1], 2, 2), active: 0, diff: -2 });
  assert.equal(s.rsUid, fresh.metadata.uid);
  assert.deepEqual(h.c.expectations.get(KEY), { key: KEY, add: 2, del: 0, timestamp: T0 + 2 * MIN });
});

test('§11 case 15: an RS update with a changed UID is handled as deleteRS(old) through a synthetic tombstone', () => {
  const h = newHarness();
  const old = h.f.replicaSet({ replicas: 2 });
  world(h, old);
  h.c.sync(KEY, T0);
  const fresh = h.f.replicaSet({ replicas: 2 });
  h.c.deliverOwner('MODIFIED', fresh, T0 + MIN);
  assert.deepEqual(h.handlers.slice(-2), [
    { at: T0 + MIN, handler: 'deleteRS', object: KEY, effects: ['DeleteExpectations', 'enqueue d/foo'] },
    { at: T0 + MIN, handler: 'updateRS', object: KEY, effects: ['UID changed: deleteRS(old)', 'enqueue d/foo'] },
  ]);
  assert.equal(h.c.expectations.get(KEY), undefined);
  const s = syncNow(h.c, T0 + MIN);
  expectSync(s, { outcome: 'synced', expectations: 'never-recorded', create: createRound(2, [1, 1], 2, 2), active: 0, diff: -2 });
  // A late ADD of a pod created for the old RS does not resolve (UID mismatch).
  h.c.deliverPod('ADDED', h.pc.created[0]!, T0 + MIN + SEC);
  assert.deepEqual(h.handlers.slice(-1)[0]!.effects, ['controllerRef does not resolve: ignored']);
  assert.deepEqual(E(h.c), { add: 2, del: 0 });
});

test('§11 case 16: burst cap — replicas=1200: 500 (batches 1…128,245), gated at add=1, then 500, then 200', () => {
  const h = newHarness();
  world(h, h.f.replicaSet({ replicas: 1200 }));
  const s1 = h.c.sync(KEY, T0);
  expectSync(s1, { outcome: 'synced', expectations: 'never-recorded', create: createRound(500, [1, 2, 4, 8, 16, 32, 64, 128, 245], 500, 500), active: 0, diff: -1200 });
  assert.deepEqual(E(h.c), { add: 500, del: 0 });
  const round1 = h.pc.takeCreated();
  addAll(h.c, round1.slice(0, 499), T0 + SEC);
  assert.deepEqual(E(h.c), { add: 1, del: 0 });
  expectSync(syncNow(h.c, T0 + SEC), { outcome: 'gated', expectations: 'still-waiting', active: 499, diff: -701, recordBefore: { key: KEY, add: 1, del: 0, timestamp: T0 } });
  h.c.deliverPod('ADDED', round1[499]!, T0 + 2 * SEC);
  const s2 = syncNow(h.c, T0 + 2 * SEC);
  expectSync(s2, { outcome: 'synced', expectations: 'fulfilled', create: createRound(500, [1, 2, 4, 8, 16, 32, 64, 128, 245], 500, 500), active: 500, diff: -700 });
  addAll(h.c, h.pc.takeCreated(), T0 + 3 * SEC);
  const s3 = syncNow(h.c, T0 + 3 * SEC);
  expectSync(s3, { outcome: 'synced', expectations: 'fulfilled', create: createRound(200, [1, 2, 4, 8, 16, 32, 64, 73], 200, 200), active: 1000, diff: -200 });
  assert.equal(h.pc.creates.length, 1200);
});

test('§11 case 17: scale-down ordering — unscheduled pending, scheduled pending, running not-ready go first', () => {
  const h = newHarness();
  const rs = h.f.replicaSet({ replicas: 4 });
  const A = h.f.pod({ rs, name: 'foo-a', phase: 'Pending', nodeName: null });
  const B = h.f.pod({ rs, name: 'foo-b', phase: 'Pending', nodeName: 'node-b' });
  const C = h.f.pod({ rs, name: 'foo-c', phase: 'Running', ready: false, nodeName: 'node-c' });
  const D = h.f.pod({ rs, name: 'foo-d', phase: 'Running', ready: true, nodeName: 'node-d' });
  world(h, rs, [D, C, B, A]);
  const s = updateRSAndSync(h, h.f.update(rs, mut.replicas(1)), T0);
  expectSync(s, { outcome: 'synced', expectations: 'never-recorded', delete: deleteRound(['d/foo-a', 'd/foo-b', 'd/foo-c']), active: 4, diff: 3 });
  assert.deepEqual(s.delete!.uids, [A, B, C].map((p) => p.metadata.uid));
  assert.deepEqual(h.pc.deletes.map((d) => d.pod), ['d/foo-a', 'd/foo-b', 'd/foo-c']);
  assert.deepEqual(E(h.c), { add: 0, del: 3 });
  assert.deepEqual(h.c.expectations.getDeleteKeys(KEY), ['d/foo-a', 'd/foo-b', 'd/foo-c']);
  assert.equal(s.noControllerNoise, true, 'd/foo is standalone');
});

/** replicas 4: A, B running not ready (chosen), C, D ready; scale to 2. */
function case18World(h: Harness) {
  const rs = h.f.replicaSet({ replicas: 4 });
  const A = h.f.pod({ rs, name: 'foo-a', ready: false, createdAt: T0 - 2 * MIN });
  const B = h.f.pod({ rs, name: 'foo-b', ready: false, createdAt: T0 - 20 * MIN });
  const C = h.f.pod({ rs, name: 'foo-c' });
  const D = h.f.pod({ rs, name: 'foo-d' });
  world(h, rs, [A, B, C, D]);
  return h.f.update(rs, mut.replicas(2));
}

test('§11 case 18: delete NotFound is walked back without error; a 500 is walked back and fails the sync', () => {
  const h = newHarness();
  h.pc.deleteAnswers({ 'foo-a': { ok: false, notFound: true }, 'foo-b': { ok: false, error: ERR.internal } });
  const s = updateRSAndSync(h, case18World(h), T0);
  const err = `unable to delete pods: ${ERR.internal}`;
  expectSync(s, {
    outcome: 'synced',
    expectations: 'never-recorded',
    delete: deleteRound(['d/foo-a', 'd/foo-b'], { notFound: ['d/foo-a'], failed: ['d/foo-b'], errors: [err] }),
    error: err,
    requeue: rateLimited(5),
    active: 4,
    diff: 2,
  });
  assert.deepEqual(h.c.expectations.get(KEY), { key: KEY, add: 0, del: 0, timestamp: T0 });
  assert.deepEqual(h.c.expectations.getDeleteKeys(KEY), []);
  assert.equal(h.c.queue.dueAt(KEY), T0 + 5);
});

test('§11 case 18: NotFound alone is not a sync error (E=(0,2) → (0,1), B still expected)', () => {
  const h = newHarness();
  h.pc.deleteAnswers({ 'foo-a': { ok: false, notFound: true } });
  const s = updateRSAndSync(h, case18World(h), T0);
  expectSync(s, { outcome: 'synced', expectations: 'never-recorded', delete: deleteRound(['d/foo-a', 'd/foo-b'], { notFound: ['d/foo-a'] }), active: 4, diff: 2 });
  assert.deepEqual(E(h.c), { add: 0, del: 1 });
  assert.deepEqual(h.c.expectations.getDeleteKeys(KEY), ['d/foo-b']);
  assert.equal(h.c.queue.size, 0);
});

test('§11 case 19: a gated sync after a failed create round returns no error (manageReplicasErr=nil → ReplicaFailure removed)', () => {
  const h = newHarness();
  const rs = h.f.replicaSet({ replicas: 2 });
  world(h, rs);
  h.pc.createsFail(ERR.quota);
  const s1 = h.c.sync(KEY, T0);
  assert.equal(s1.error, ERR.quota, 'FailedCreate → ReplicaFailure condition');
  h.pc.createsSucceed();
  const s2 = syncNow(h.c, T0 + 5);
  expectSync(s2, { outcome: 'synced', expectations: 'fulfilled', create: createRound(2, [1, 1], 2, 2) });
  assert.deepEqual(E(h.c), { add: 2, del: 0 });
  // The status write triggers updateRS → a gated sync: no manage, no error.
  const s3 = updateRSAndSync(h, h.f.update(rs, (x) => { x.status = { ...x.status, conditions: [{ type: 'ReplicaFailure', status: 'True', reason: 'FailedCreate', message: ERR.quota }] }; }), T0 + SEC);
  expectSync(s3, { outcome: 'gated', expectations: 'still-waiting', active: 0, diff: -2, recordBefore: { key: KEY, add: 2, del: 0, timestamp: T0 + 5 } });
  assert.equal(h.c.queue.size, 0);
});

test('§11 case 20: adopt an orphan — one live GET, one adopt patch, claimed in the same sync, expectations untouched', () => {
  const h = newHarness();
  const rs = h.f.replicaSet({ replicas: 2 });
  const owned = h.f.pod({ rs, name: 'foo-own' });
  const orphan = h.f.pod({ name: 'foo-orphan', labels: { app: 'foo' }, owner: null });
  world(h, rs, [owned, orphan]);
  h.c.expectations.expectCreations(KEY, 0, T0 - MIN); // a fulfilled record from an earlier round
  const s = h.c.sync(KEY, T0);
  expectSync(s, { outcome: 'synced', expectations: 'fulfilled', active: 2, diff: 0, recordBefore: { key: KEY, add: 0, del: 0, timestamp: T0 - MIN } });
  assert.deepEqual(s.claims!.map((d) => [d.pod, d.action, d.claimed]), [['d/foo-own', 'keep', true], ['d/foo-orphan', 'adopt', true]]);
  assert.deepEqual(h.pc.gets.map((g) => g.rs), [KEY]);
  assert.deepEqual(h.pc.patches.map((p) => [p.pod, p.action]), [['d/foo-orphan', 'adopt']]);
  assert.deepEqual(h.c.expectations.get(KEY), { key: KEY, add: 0, del: 0, timestamp: T0 - MIN });
  // The adoption's pod update enqueues foo, without touching expectations; the next sync is a no-op.
  h.c.deliverPod('MODIFIED', h.f.update(orphan, mut.ownedBy(rs)), T0 + SEC);
  assert.deepEqual(h.handlers.slice(-1)[0]!.effects, ['enqueue d/foo']);
  const s2 = syncNow(h.c, T0 + SEC);
  expectSync(s2, { outcome: 'synced', expectations: 'fulfilled', active: 2, diff: 0, recordBefore: { key: KEY, add: 0, del: 0, timestamp: T0 - MIN } });
  assert.deepEqual(h.pc.counts(), { creates: 0, deletes: 0, gets: 1, patches: 1 });
});

test('§11 case 21: adoption blocked by the live GET (deleting) — one GET for all orphans, 0 patches, sync error, no manage', () => {
  const h = newHarness();
  const rs = h.f.replicaSet({ replicas: 4 });
  const orphans = ['foo-o1', 'foo-o2', 'foo-o3'].map((name) => h.f.pod({ name, labels: { app: 'foo' }, owner: null }));
  world(h, rs, [h.f.pod({ rs, name: 'foo-own' }), ...orphans]);
  h.pc.liveGet(h.f.update(rs, mut.terminating(T0 + 4 * SEC)));
  h.c.deliverOwner('MODIFIED', h.f.resync(rs), T0 + 5 * SEC);
  const s = syncNow(h.c, T0 + 5 * SEC);
  const msgs = orphans.map((o) => `can't adopt Pod d/${o.metadata.name} (${o.metadata.uid}): d/foo has just been deleted at 2025-03-10 09:00:04 +0000 UTC`);
  expectSync(s, { outcome: 'claim-error', expectations: 'never-recorded', claimErrors: msgs, error: s.error, requeue: rateLimited(5), active: undefined, diff: undefined });
  assert.ok(s.error!.includes(msgs[0]!));
  assert.deepEqual(h.pc.counts(), { creates: 0, deletes: 0, gets: 1, patches: 0 });
  assert.equal(h.c.queue.dueAt(KEY), T0 + 5 * SEC + 5);
  assert.equal(h.c.expectations.get(KEY), undefined);
});

test(
  '§11 case 21 / §7: the sync error is ClaimPods\' utilerrors aggregate "[e1, e2, e3]"',
  () => {
    const h = newHarness();
    const rs = h.f.replicaSet({ replicas: 3 });
    const orphans = ['foo-o1', 'foo-o2'].map((name) => h.f.pod({ name, labels: { app: 'foo' }, owner: null }));
    world(h, rs, orphans);
    h.pc.liveGet(h.f.update(rs, mut.terminating(T0 + 4 * SEC)));
    const s = h.c.sync(KEY, T0 + 5 * SEC);
    const msgs = orphans.map((o) => `can't adopt Pod d/${o.metadata.name} (${o.metadata.uid}): d/foo has just been deleted at 2025-03-10 09:00:04 +0000 UTC`);
    assert.equal(s.error, `[${msgs.join(', ')}]`);
  },
);

test('§11 case 22: release on a label change → not claimed → diff −1 → creates 1 (E=(1,0))', () => {
  const h = newHarness();
  const rs = h.f.replicaSet({ replicas: 2 });
  const p1 = h.f.pod({ rs, name: 'foo-1' });
  const p2 = h.f.pod({ rs, name: 'foo-2' });
  world(h, rs, [p1, p2]);
  h.c.deliverPod('MODIFIED', h.f.update(p2, mut.labels({ app: 'debug' })), T0);
  assert.deepEqual(h.handlers.slice(-1)[0]!.effects, ['enqueue d/foo']);
  const s = syncNow(h.c, T0);
  expectSync(s, { outcome: 'synced', expectations: 'never-recorded', create: createRound(1, [1], 1, 1), active: 1, diff: -1 });
  assert.deepEqual(s.claims!.map((d) => [d.pod, d.action, d.claimed]), [['d/foo-1', 'keep', true], ['d/foo-2', 'release', false]]);
  assert.deepEqual(h.pc.patches.map((p) => [p.pod, p.action]), [['d/foo-2', 'release']]);
  assert.equal(h.pc.gets.length, 0, 'releases never call CanAdopt');
  assert.deepEqual(E(h.c), { add: 1, del: 0 });
});

test('§11 case 22: if the RS is being deleted it neither releases nor creates', () => {
  const h = newHarness();
  const rs = h.f.replicaSet({ replicas: 2, deletingAt: T0 - 10 * SEC });
  const p1 = h.f.pod({ rs, name: 'foo-1' });
  const p2 = h.f.pod({ rs, name: 'foo-2' });
  world(h, rs, [p1, p2]);
  h.c.deliverPod('MODIFIED', h.f.update(p2, mut.labels({ app: 'debug' })), T0);
  const s = syncNow(h.c, T0);
  expectSync(s, { outcome: 'rs-being-deleted', expectations: 'never-recorded', active: 1, diff: -1 });
  assert.deepEqual(s.claims!.map((d) => [d.pod, d.action, d.claimed]), [['d/foo-1', 'keep', true], ['d/foo-2', 'none', false]]);
  assert.deepEqual(h.pc.counts(), { creates: 0, deletes: 0, gets: 0, patches: 0 });
  assert.equal(E(h.c), undefined);
});

for (const version of ['v1.32.9', 'v1.33.0', 'v1.34.0', 'v1.37.2']) {
  test(`§11 case 23 / §10 DoNotPatchPodWithOtherControlRef (${version}): a pod controlled by RS bar is ignored → 2 creates, 0 patches`, () => {
    const h = newHarness({ version });
    const foo = h.f.replicaSet({ replicas: 2, labels: { app: 'shared' } });
    const bar = h.f.replicaSet({ name: 'bar', replicas: 1, labels: { app: 'shared' } });
    const barPod = h.f.pod({ rs: bar, name: 'bar-x' });
    world(h, foo);
    h.c.deliverOwner('ADDED', bar, T0 - MIN);
    h.c.deliverPod('ADDED', barPod, T0 - MIN);
    drainQueue(h.c);
    const s = h.c.sync(KEY, T0);
    expectSync(s, { outcome: 'synced', expectations: 'never-recorded', create: createRound(2, [1, 1], 2, 2), active: 0, diff: -2 });
    const minor = Number(version.split('.')[1]);
    if (minor >= 34) assert.deepEqual(s.claims, [], 'v1.34+: pods of other controllers are not even listed (owner index)');
    else assert.deepEqual(s.claims!.map((d) => [d.pod, d.action, d.claimed]), [['d/bar-x', 'ignore', false]]);
    assert.deepEqual(h.pc.counts(), { creates: 2, deletes: 0, gets: 0, patches: 0 });
  });
}

test('§11 case 24: an RS being deleted never manages — owned pods kept, orphan ignored, no creates, E unchanged', () => {
  const h = newHarness();
  const rs = h.f.replicaSet({ replicas: 3 });
  world(h, rs, [h.f.pod({ rs, name: 'foo-1' })]);
  h.c.sync(KEY, T0);
  assert.deepEqual(E(h.c), { add: 2, del: 0 });
  h.pc.takeCreated(); // never observed
  const orphan = h.f.pod({ name: 'foo-orphan', labels: { app: 'foo' }, owner: null });
  h.c.deliverPod('ADDED', orphan, T0 + 30 * SEC);
  const deleting = h.f.update(rs, mut.terminating(T0 + MIN));
  // Gated sync of a deleting RS is reported as gated.
  expectSync(updateRSAndSync(h, deleting, T0 + MIN), { outcome: 'gated', expectations: 'still-waiting', active: 1, diff: -2, recordBefore: { key: KEY, add: 2, del: 0, timestamp: T0 } });
  // Past expiry the gate passes, but the deletionTimestamp still blocks manage.
  const s = updateRSAndSync(h, h.f.update(deleting, mut.annotate('x', 'y')), T0 + 10 * MIN);
  expectSync(s, { outcome: 'rs-being-deleted', expectations: 'expired', active: 1, diff: -2, recordBefore: { key: KEY, add: 2, del: 0, timestamp: T0 } });
  assert.deepEqual(s.claims!.map((d) => [d.pod, d.action, d.claimed]), [['d/foo-1', 'keep', true], ['d/foo-orphan', 'ignore', false]]);
  assert.deepEqual(h.pc.counts(), { creates: 2, deletes: 0, gets: 0, patches: 0 });
  assert.deepEqual(h.c.expectations.get(KEY), { key: KEY, add: 2, del: 0, timestamp: T0 });
  assert.equal(h.c.queue.size, 0);
});

/** minReadySeconds=30 RS with two running, not-ready pods; p1 becomes Ready at `readyAt`, observed at `seenAt`. */
function minReadyWorld(version: string, replicas: number) {
  const h = newHarness({ version, maxSyncs: 50 });
  const rs = h.f.replicaSet({ replicas, minReadySeconds: 30 });
  const pods = Array.from({ length: replicas }, (_, i) => h.f.pod({ rs, name: `foo-${i + 1}`, ready: false }));
  world(h, rs, pods);
  return { h, rs, pods };
}

test('§11 case 25 (v1.34+): Ready → updatePod AddAfter(30 s); the sync sees ready=1 available=0 and requeues after 30 s', () => {
  const { h, pods } = minReadyWorld('v1.35.0', 2);
  h.c.deliverPod('MODIFIED', h.f.update(pods[0]!, mut.ready(T0)), T0);
  assert.deepEqual(h.handlers.slice(-1)[0]!.effects, ['enqueue d/foo', 'enqueue after 30000 ms for availability check']);
  const s = syncNow(h.c, T0);
  // IsPodAvailable is inclusive from 1.34 (readySince + minReadySeconds <= now): the pod counts
  // as available at the boundary itself.
  expectSync(s, { outcome: 'synced', expectations: 'never-recorded', requeue: after(30_000), ready: 1, available: 0, active: 2, diff: 0 });
  assert.equal(h.c.queue.dueAt(KEY), T0 + 30_000, 'the earlier updatePod AddAfter(30 s) stays the earliest wake-up');
});

test('§11 case 25 (v1.34+): the requeue is the precise time until the earliest ready pod becomes available', () => {
  const { h, pods } = minReadyWorld('v1.34.1', 2);
  // Ready since t0-12 s (seen late); second pod Ready since t0-4 s.
  h.c.deliverPod('MODIFIED', h.f.update(pods[0]!, mut.ready(T0 - 12 * SEC)), T0);
  h.c.deliverPod('MODIFIED', h.f.update(pods[1]!, mut.ready(T0 - 4 * SEC)), T0);
  const s = syncNow(h.c, T0);
  expectSync(s, { outcome: 'synced', expectations: 'never-recorded', requeue: after(18_000), ready: 2, available: 0, active: 2, diff: 0 });
  assert.equal(h.c.queue.dueAt(KEY), T0 + 18_000);
  // A ready pod with no lastTransitionTime gives no candidate → fallback minReadySeconds.
  const h2 = minReadyWorld('v1.34.1', 1);
  h2.h.c.deliverPod('MODIFIED', h2.h.f.update(h2.pods[0]!, (p) => { mut.ready(T0)(p); p.status!.conditions!.find((c) => c.type === 'Ready')!.lastTransitionTime = null; }), T0);
  expectSync(syncNow(h2.h.c, T0), { outcome: 'synced', expectations: 'never-recorded', requeue: after(30_000), ready: 1, available: 0, active: 1, diff: 0 });
});

test(
  '§11 case 25 (v1.34+): the availability re-check at t+30 s finds the pod available and stops requeueing',
  () => {
    const { h, pods } = minReadyWorld('v1.35.0', 2);
    h.c.deliverPod('MODIFIED', h.f.update(pods[0]!, mut.ready(T0)), T0);
    syncNow(h.c, T0);
    const ran = h.c.runDue(T0 + 31 * SEC, true); // throws after 50 syncs with the current model
    assert.ok(ran.length >= 1 && ran.length <= 2, `${ran.length} syncs`);
    const last = ran[ran.length - 1]!;
    assert.equal(last.available, 1);
    assert.equal(last.requeue, undefined);
    assert.equal(h.c.queue.size, 0);
  },
);

test('§11 case 25 (≤1.33): updatePod enqueues after minReadySeconds+1 s; the sync requeues only if ready == spec.replicas', () => {
  // replicas=2, one pod ready: no sync-side requeue.
  const a = minReadyWorld('v1.33.4', 2);
  a.h.c.deliverPod('MODIFIED', a.h.f.update(a.pods[0]!, mut.ready(T0)), T0);
  assert.deepEqual(a.h.handlers.slice(-1)[0]!.effects, ['enqueue d/foo', 'enqueue after 31000 ms for availability check']);
  const sa = a.h.c.sync(KEY, T0);
  expectSync(sa, { outcome: 'synced', expectations: 'never-recorded', ready: 1, available: 0, active: 2, diff: 0 });
  // replicas=1, the pod ready: ready == spec.replicas and available != → AddAfter(minReadySeconds) (no +1 s).
  const b = minReadyWorld('v1.33.4', 1);
  b.h.c.deliverPod('MODIFIED', b.h.f.update(b.pods[0]!, mut.ready(T0)), T0);
  const sb = syncNow(b.h.c, T0);
  expectSync(sb, { outcome: 'synced', expectations: 'never-recorded', requeue: after(30_001), ready: 1, available: 0, active: 1, diff: 0 });
  assert.equal(b.h.c.queue.dueAt(KEY), T0 + 30_001);
});

test(
  '§11 case 25 (≤1.33): the updatePod AddAfter(31 s) survives the immediate enqueue and wakes the RS at t+31 s',
  () => {
    const { h, pods } = minReadyWorld('v1.33.4', 2);
    h.c.deliverPod('MODIFIED', h.f.update(pods[0]!, mut.ready(T0)), T0);
    syncNow(h.c, T0);
    assert.equal(h.c.queue.dueAt(KEY), T0 + 31_000);
    const s = syncNow(h.c, T0 + 31_000);
    assert.equal(s.available, 1);
  },
);

test(
  '§11 case 25 (≤1.33): the sync requeued after minReadySeconds finds the pod available (ready == spec.replicas)',
  () => {
    const { h, pods } = minReadyWorld('v1.33.4', 1);
    h.c.deliverPod('MODIFIED', h.f.update(pods[0]!, mut.ready(T0)), T0);
    syncNow(h.c, T0);
    const s = syncNow(h.c, T0 + 30_001);
    assert.equal(s.available, 1);
    assert.equal(s.requeue, undefined);
  },
);

test('§11 case 26 (v1.36): informer behind own writes → consistency-skip before the expectations check, backoff requeue', () => {
  const h = newHarness({ version: 'v1.36.0' });
  const rs = h.f.replicaSet({ replicas: 2 });
  world(h, rs);
  const s0 = h.c.sync(KEY, T0);
  assert.deepEqual({ ...s0.create, round: undefined, unknown: undefined, unmade: undefined }, { ...createRound(2, [1, 1], 2, 2), round: undefined, unknown: undefined, unmade: undefined });
  // The creates' RVs are not yet in the pod informer.
  h.pc.informerBehind(() => true);
  const logLen = h.c.expectations.log.length;
  h.c.deliverOwner('MODIFIED', h.f.resync(rs), T0 + 10);
  const s1 = syncNow(h.c, T0 + 10);
  expectSync(s1, { outcome: 'consistency-skip', expectations: undefined, error: s1.error, requeue: rateLimited(5), recordBefore: undefined, active: undefined });
  assert.match(s1.error!, /ConsistencyError/);
  const s2 = syncNow(h.c, T0 + 15);
  expectSync(s2, { outcome: 'consistency-skip', error: s1.error, requeue: rateLimited(10) });
  assert.deepEqual(logOf(h.c, KEY, SATISFIED_KINDS, logLen), [], 'no SatisfiedExpectations lines for skipped syncs');
  assert.deepEqual(h.pc.consistencyChecks.map((c) => [c.at - T0, c.behind]), [[0, false], [10, true], [15, true]]);
  // The informer catches up (the two ADDs arrive): a normal sync, backoff forgotten.
  h.pc.informerBehind(() => false);
  addAll(h.c, h.pc.takeCreated(), T0 + 20);
  const s3 = h.c.runDue(T0 + 25, true);
  // client-go keeps the rate-limited AddAfter apart from the queue: the ADDs' enqueue syncs at
  // +20 and the delayed retry fires again at +25.
  assert.deepEqual(s3.map((x) => x.at - T0), [20, 25]);
  expectSync(s3[0]!, { outcome: 'synced', expectations: 'fulfilled', active: 2, diff: 0 });
  h.pc.informerBehind(() => true);
  assert.equal(h.c.sync(KEY, T0 + 30).requeue!.delayMs, 5, 'Forget reset the backoff');
  assert.equal(h.pc.creates.length, 2);
});

test('§11 case 26: before v1.36 the consistency hook is never consulted', () => {
  const h = newHarness({ version: 'v1.35.3' });
  world(h, h.f.replicaSet({ replicas: 1 }));
  h.pc.informerBehind(() => true);
  const s = h.c.sync(KEY, T0);
  expectSync(s, { outcome: 'synced', expectations: 'never-recorded', create: createRound(1, [1], 1, 1), active: 0, diff: -1 });
  assert.equal(h.pc.consistencyChecks.length, 0);
});

test('§11 case 27: clobbering as a leak detector — E=(0,2) keys {x,y}, only x observed, expired; new scale-down clobbers [d/y]', () => {
  const h = newHarness();
  const rs = h.f.replicaSet({ replicas: 4 });
  const x = h.f.pod({ rs, name: 'foo-x', ready: false });
  const y = h.f.pod({ rs, name: 'foo-y', ready: false });
  const a = h.f.pod({ rs, name: 'foo-a' });
  const b = h.f.pod({ rs, name: 'foo-b' });
  world(h, rs, [a, x, b, y]);
  let cur = h.f.update(rs, mut.replicas(2));
  const s1 = updateRSAndSync(h, cur, T0);
  assert.deepEqual(s1.delete!.keys.slice().sort(), ['d/foo-x', 'd/foo-y']);
  assert.deepEqual(E(h.c), { add: 0, del: 2 });
  // x is observed; y is orphaned before its deletion, and its tombstone shows no owner.
  h.c.deliverPod('MODIFIED', h.f.update(x, mut.terminating(T0 + 30 * SEC)), T0 + SEC);
  h.c.deliverPodTombstone(h.f.update(y, mut.orphan()), T0 + 2 * SEC);
  assert.deepEqual(E(h.c), { add: 0, del: 1 });
  assert.deepEqual(h.c.expectations.getDeleteKeys(KEY), ['d/foo-y']);
  h.c.deliverPod('DELETED', h.f.update(x, mut.terminating(T0 + 30 * SEC)), T0 + 31 * SEC);
  expectSync(syncNow(h.c, T0 + 31 * SEC), { outcome: 'gated', expectations: 'still-waiting', active: 2, terminating: 0, diff: 0, recordBefore: { key: KEY, add: 0, del: 1, timestamp: T0 } });

  const before = h.c.expectations.log.length;
  cur = h.f.update(cur, mut.replicas(1));
  const s2 = updateRSAndSync(h, cur, T0 + 10 * MIN);
  assert.equal(s2.expectations, 'expired');
  assert.equal(s2.delete!.n, 1);
  const lines = logOf(h.c, KEY, undefined, before);
  assert.deepEqual(lines.map((l) => l.kind), ['expectations-expired', 'waiting-on-deletions', 'clobbering-delete-keys', 'setting-expectations']);
  const clobber = h.c.expectations.log.filter((l) => l.kind === 'clobbering-delete-keys');
  assert.deepEqual(clobber, [{ at: T0 + 10 * MIN, kind: 'clobbering-delete-keys', key: KEY, keys: ['d/foo-y'] }], '1 deletion never observed');
  assert.deepEqual(h.c.expectations.getDeleteKeys(KEY), s2.delete!.keys);
  assert.deepEqual(h.c.expectations.get(KEY), { key: KEY, add: 0, del: 1, timestamp: T0 + 10 * MIN });
});

test('§11 case 28: a standalone RS flags "ReplicaSet has no controller" on every scale-down sync, never otherwise', () => {
  const h = newHarness();
  const { p, rs } = scaleDownWorld(h, 2);
  const s1 = h.syncs[0]!;
  assert.equal(s1.noControllerNoise, true);
  h.c.deliverPod('DELETED', h.f.update(p, mut.terminating(T0)), T0 + SEC);
  expectSync(syncNow(h.c, T0 + SEC), { outcome: 'synced', expectations: 'fulfilled', active: 2, diff: 0, noControllerNoise: undefined });
  const s2 = updateRSAndSync(h, h.f.update(rs, mut.replicas(1)), T0 + 2 * SEC);
  assert.equal(s2.delete!.n, 1);
  assert.equal(s2.noControllerNoise, true, 'again on the next scale-down');
  const down = s2.delete!.keys[0]!;
  h.c.deliverPod('DELETED', h.c.pods.get(down)!, T0 + 3 * SEC);
  syncNow(h.c, T0 + 3 * SEC);
  const s3 = updateRSAndSync(h, h.f.update(h.c.owners.get(KEY)!, mut.replicas(2)), T0 + 4 * SEC);
  expectSync(s3, { outcome: 'synced', expectations: 'fulfilled', create: createRound(1, [1], 1, 1), active: 1, diff: -1, noControllerNoise: undefined });

  // A Deployment-owned RS scaling down: no noise.
  const w = newHarness();
  const web = w.f.webReplicaSet({ replicas: 2 });
  world(w, web, [w.f.pod({ rs: web }), w.f.pod({ rs: web, ready: false })]);
  const sw = updateRSAndSync(w, w.f.update(web, mut.replicas(1)), T0);
  assert.equal(sw.key, 'shop/web-7d9c6b8f5d');
  assert.equal(sw.delete!.n, 1);
  assert.equal(sw.noControllerNoise, undefined);
});

// ═════════════════════════════ §10 upstream unit-test behaviours ═════════════════════════════

test('§10 DoesNothing: 2 running owned pods, replicas=2 → no creates, deletes, GETs or patches', () => {
  const h = newHarness();
  const web = h.f.webReplicaSet({ replicas: 2 });
  world(h, web, [h.f.pod({ rs: web }), h.f.pod({ rs: web })]);
  h.c.deliverOwner('MODIFIED', h.f.resync(web), T0);
  const s = syncNow(h.c, T0);
  expectSync(s, { outcome: 'synced', expectations: 'never-recorded', active: 2, ready: 2, available: 2, diff: 0 });
  assert.deepEqual(h.pc.counts(), { creates: 0, deletes: 0, gets: 0, patches: 0 });
  assert.equal(h.c.expectations.get('shop/web-7d9c6b8f5d'), undefined);
});

test('§10 DeleteFinalStateUnknown: a tombstone pod delete enqueues its owner RS', () => {
  const h = newHarness();
  const web = h.f.webReplicaSet({ replicas: 1 });
  const p = h.f.pod({ rs: web });
  world(h, web, [p]);
  h.c.deliverPodTombstone(p, T0);
  assert.deepEqual(drainQueue(h.c), [{ key: 'shop/web-7d9c6b8f5d', at: T0 }]);
});

test('§10 CreateFailures: replicas=100, create limit 10 → exactly 10 successes in 15 calls (batches 1,2,4,8)', () => {
  const h = newHarness();
  world(h, h.f.replicaSet({ replicas: 100 }));
  h.pc.createsSucceedUpTo(10, ERR.quota);
  const s = h.c.sync(KEY, T0);
  expectSync(s, { outcome: 'synced', expectations: 'never-recorded', create: createRound(100, [1, 2, 4, 8], 15, 10, Array(5).fill(ERR.quota)), error: ERR.quota, requeue: rateLimited(5), active: 0, diff: -100 });
  assert.equal(h.pc.creates.length, 15);
  assert.equal(h.pc.created.length, 10);
  assert.deepEqual(E(h.c), { add: 10, del: 0 }, '90 walked back');
});

test('§10 Dormancy: create 1, gated sync, manual CreationObserved, failed create walked back to 0, then create again', () => {
  const h = newHarness();
  const rs = h.f.replicaSet({ replicas: 2 });
  world(h, rs, [h.f.pod({ rs })]);
  expectSync(h.c.sync(KEY, T0), { outcome: 'synced', expectations: 'never-recorded', create: createRound(1, [1], 1, 1), active: 1, diff: -1 });
  assert.deepEqual(E(h.c), { add: 1, del: 0 });
  expectSync(h.c.sync(KEY, T0 + SEC), { outcome: 'gated', expectations: 'still-waiting', active: 1, diff: -1, recordBefore: { key: KEY, add: 1, del: 0, timestamp: T0 } });
  assert.equal(h.pc.creates.length, 1, 'no create while dormant');
  h.c.expectations.creationObserved(KEY, T0 + 2 * SEC);
  h.pc.createsFail('fake error');
  const s3 = h.c.sync(KEY, T0 + 3 * SEC);
  expectSync(s3, { outcome: 'synced', expectations: 'fulfilled', create: createRound(1, [1], 1, 0, ['fake error']), error: 'fake error', requeue: rateLimited(5), active: 1, diff: -1 });
  assert.deepEqual(E(h.c), { add: 0, del: 0 });
  h.pc.createsSucceed();
  const s4 = h.c.sync(KEY, T0 + 4 * SEC);
  expectSync(s4, { outcome: 'synced', expectations: 'fulfilled', create: createRound(1, [1], 1, 1), active: 1, diff: -1 });
  assert.equal(h.pc.creates.length, 3);
});

for (const [burst, num] of [[5, 30], [5, 12], [3, 2]] as const) {
  test(`§10 ControllerBurstReplicas (burst ${burst}, replicas ${num}): at most ${burst} per sync; burst−1 events leave add/del=1; the last one releases the gate`, () => {
    const h = newHarness({ burst });
    let rs = h.f.replicaSet({ replicas: num });
    world(h, rs);
    let t = T0;
    const activeCount = () => [...h.c.pods.values()].filter((p) => !p.metadata.deletionTimestamp).length;
    // Scale up.
    for (let i = 0; i < num; i += burst) {
      const expected = Math.min(num - activeCount(), burst);
      const s = h.c.sync(KEY, (t += SEC));
      assert.equal(s.create?.successes, expected);
      assert.equal(s.delete, undefined);
      const created = h.pc.takeCreated();
      assert.equal(created.length, expected);
      addAll(h.c, created.slice(0, expected - 1), (t += SEC));
      assert.deepEqual(E(h.c), { add: 1, del: 0 });
      const quiet = h.c.sync(KEY, (t += SEC));
      assert.equal(quiet.outcome, 'gated');
      assert.equal(quiet.create, undefined);
      h.c.deliverPod('ADDED', created[expected - 1]!, (t += SEC));
      assert.deepEqual(E(h.c), { add: 0, del: 0 });
    }
    assert.equal(activeCount(), num);
    // Scale down to 0.
    rs = h.f.update(rs, mut.replicas(0));
    h.c.deliverOwner('MODIFIED', rs, (t += SEC));
    drainQueue(h.c);
    for (let i = 0; i < num; i += burst) {
      const expected = Math.min(activeCount(), burst);
      const s = h.c.sync(KEY, (t += SEC));
      assert.equal(s.create, undefined);
      assert.equal(s.delete?.n, expected);
      assert.deepEqual(E(h.c), { add: 0, del: expected });
      const keys = h.c.expectations.getDeleteKeys(KEY);
      assert.equal(keys.length, expected);
      keys.slice(1).forEach((k, j) => {
        h.c.deliverPod('DELETED', h.c.pods.get(k)!, (t += SEC));
        assert.equal(h.c.expectations.getDeleteKeys(KEY).length, expected - 1 - j, 'one key per observed deletion');
      });
      assert.deepEqual(E(h.c), { add: 0, del: 1 });
      assert.deepEqual(h.c.expectations.getDeleteKeys(KEY), [keys[0]]);
      const quiet = h.c.sync(KEY, (t += SEC));
      assert.equal(quiet.outcome, 'gated');
      assert.equal(quiet.delete, undefined);
      h.c.deliverPod('DELETED', h.c.pods.get(keys[0]!)!, (t += SEC));
      assert.deepEqual(E(h.c), { add: 0, del: 0 });
    }
    assert.equal(h.c.pods.size, 0);
    assert.equal(h.pc.creates.length, num);
    assert.equal(h.pc.deletes.length, num);
  });
}

test('§10 RSSyncExpectations: a pod landing in the cache during the expectations check does not cause an extra create', () => {
  const h = newHarness();
  const rs = h.f.replicaSet({ replicas: 2 });
  const [p0, p1] = [h.f.pod({ rs, phase: 'Pending' }), h.f.pod({ rs, phase: 'Pending' })];
  world(h, rs, [p0!]);
  const store = h.c.expectations;
  const original = store.satisfied.bind(store);
  store.satisfied = (key, now) => {
    const r = original(key, now);
    h.c.pods.set(keyOf(p1!), p1!); // the informer's indexer gains the pod right after the check
    return r;
  };
  const s = h.c.sync(KEY, T0);
  expectSync(s, { outcome: 'synced', expectations: 'never-recorded', active: 2, diff: 0 });
  assert.equal(h.pc.creates.length, 0);
});

test('§10 DeleteControllerAndExpectations: deleting the RS drops its expectations; stale handles and late events do nothing', () => {
  const h = newHarness();
  const rs = h.f.replicaSet({ replicas: 1 });
  world(h, rs);
  h.c.sync(KEY, T0);
  const handle = h.c.expectations.get(KEY)!;
  assert.deepEqual([handle.add, handle.del], [1, 0]);
  h.c.deliverOwner('DELETED', rs, T0 + SEC);
  expectSync(syncNow(h.c, T0 + SEC), { outcome: 'rs-not-found' });
  assert.equal(h.c.expectations.get(KEY), undefined);
  handle.add -= 1; // a decrement through a stale handle
  h.c.expectations.creationObserved(KEY, T0 + 2 * SEC);
  h.c.deliverPod('ADDED', h.pc.takeCreated()[0]!, T0 + 2 * SEC);
  assert.deepEqual(h.handlers.slice(-1)[0]!.effects, ['controllerRef does not resolve: ignored']);
  assert.equal(h.c.expectations.get(KEY), undefined);
  assert.equal(h.c.queue.size, 0);
  expectSync(h.c.sync(KEY, T0 + 3 * SEC), { outcome: 'rs-not-found' });
  assert.equal(h.pc.creates.length, 1);
});

test('§10 ExpectationsOnRecreate: delete + recreate with a new UID → old record cleared, fresh unfulfilled record after the first sync', () => {
  const h = newHarness();
  const old = h.f.replicaSet({ replicas: 1 });
  world(h, old);
  h.c.sync(KEY, T0);
  const oldPod = h.pc.takeCreated()[0]!;
  h.c.deliverOwner('DELETED', old, T0 + SEC);
  assert.equal(h.c.expectations.get(KEY), undefined);
  syncNow(h.c, T0 + SEC);
  const fresh = h.f.replicaSet({ replicas: 1 });
  h.c.deliverOwner('ADDED', fresh, T0 + 2 * SEC);
  const s = syncNow(h.c, T0 + 2 * SEC);
  expectSync(s, { outcome: 'synced', expectations: 'never-recorded', create: createRound(1, [1], 1, 1), active: 0, diff: -1 });
  assert.deepEqual(h.c.expectations.get(KEY), { key: KEY, add: 1, del: 0, timestamp: T0 + 2 * SEC });
  assert.equal(h.c.expectations.satisfied(KEY, T0 + 3 * SEC).satisfied, false);
  // The old RS's pod (old UID in its controllerRef) cannot satisfy the new record.
  h.c.deliverPod('ADDED', oldPod, T0 + 3 * SEC);
  assert.deepEqual(E(h.c), { add: 1, del: 0 });
});

test('§10 OverlappingRSs: 9 RSes select the same labels; a controlled pod ADD enqueues only its owner (an orphan ADD enqueues all 9)', () => {
  const h = newHarness();
  const rss = Array.from({ length: 9 }, (_, i) => h.f.replicaSet({ name: `foo-${i}`, replicas: 1, labels: { app: 'shared' } }));
  for (const rs of rss) h.c.deliverOwner('ADDED', rs, T0 - MIN);
  drainQueue(h.c);
  const owner = rss[3]!;
  const p = h.f.pod({ rs: owner });
  h.c.expectations.expectCreations('d/foo-3', 1, T0 - MIN);
  h.c.deliverPod('ADDED', p, T0);
  assert.deepEqual(drainQueue(h.c), [{ key: 'd/foo-3', at: T0 }]);
  assert.deepEqual(E(h.c, 'd/foo-3'), { add: 0, del: 0 });
  const orphan = h.f.pod({ labels: { app: 'shared' }, owner: null });
  h.c.deliverPod('ADDED', orphan, T0 + SEC);
  assert.deepEqual(drainQueue(h.c).map((q) => q.key).sort(), rss.map((r) => `d/${r.metadata.name}`).sort());
  assert.deepEqual(E(h.c, 'd/foo-3'), { add: 0, del: 0 }, 'orphan ADD changes no expectations');
});

test('§10 DeletionTimestamp: ADD-with-deletionTimestamp and update-to-terminating lower del; unexpected keys and re-deliveries do not', () => {
  const h = newHarness();
  const rs = h.f.replicaSet({ replicas: 1 });
  const P = h.f.pod({ rs, name: 'foo-p' });
  const second = h.f.pod({ rs, name: 'foo-second' });
  world(h, rs, [P, second]); // no record yet: the ADDs are no-ops

  // A pod ADDed with a deletionTimestamp decrements deletions, not creations.
  h.c.expectations.expectDeletions(KEY, ['d/foo-third'], T0);
  h.c.deliverPod('ADDED', h.f.pod({ rs, name: 'foo-third', deletingAt: T0 + 30 * SEC }), T0 + 1);
  assert.deepEqual(E(h.c), { add: 0, del: 0 });
  assert.deepEqual(drainQueue(h.c), [{ key: KEY, at: T0 + 1 }]);

  // An update that sets the deletionTimestamp is a deletion.
  h.c.expectations.expectDeletions(KEY, ['d/foo-p'], T0 + 2);
  const Pt = h.f.update(P, mut.terminating(T0 + 30 * SEC));
  h.c.deliverPod('MODIFIED', Pt, T0 + 3);
  assert.deepEqual(E(h.c), { add: 0, del: 0 });
  assert.deepEqual(drainQueue(h.c), [{ key: KEY, at: T0 + 3 }]);

  // Updates/deletes of a pod whose key is not expected do not lower del.
  h.c.expectations.expectDeletions(KEY, ['d/foo-second'], T0 + 4);
  h.c.deliverPod('MODIFIED', h.f.update(Pt, mut.annotate('kubectl.kubernetes.io/restartedAt', iso(T0))), T0 + 5);
  assert.deepEqual(E(h.c), { add: 0, del: 1 });
  h.c.deliverPod('DELETED', Pt, T0 + 6);
  assert.deepEqual(E(h.c), { add: 0, del: 1 }, 'the final delete of an already-counted terminating pod does not double count');

  // The delete of the expected pod fulfils the record.
  h.c.deliverPod('DELETED', second, T0 + 7);
  assert.deepEqual(E(h.c), { add: 0, del: 0 });
  assert.equal(h.c.queue.dueAt(KEY), T0 + 5);
  assert.equal(logOf(h.c, KEY, ['received-delete']).length, 3);
});

test('§3.2 updatePod: a terminating pod whose labels changed calls deletePod for cur and old (same key: counted once)', () => {
  const h = newHarness();
  const { p } = scaleDownWorld(h, 2);
  h.c.deliverPod('MODIFIED', h.f.update(p, (x) => { mut.terminating(T0 + 30 * SEC)(x); x.metadata.labels = { app: 'foo', drained: 'true' }; }), T0 + SEC);
  const last2 = h.handlers.slice(-2);
  assert.deepEqual(last2.map((r) => [r.handler, r.effects[0]]), [
    ['updatePod', 'DeletionObserved(d/foo, d/foo-p)'],
    ['updatePod', 'deletion of d/foo-p not expected: no change'],
  ]);
  assert.deepEqual(E(h.c), { add: 0, del: 0 });
});

test('§10 PatchPodFails: two matching orphans, both adopt patches fail → sync error, 2 patches, 0 creates, requeue', () => {
  const h = newHarness();
  const rs = h.f.replicaSet({ replicas: 2 });
  world(h, rs, [h.f.pod({ name: 'foo-o1', labels: { app: 'foo' }, owner: null }), h.f.pod({ name: 'foo-o2', labels: { app: 'foo' }, owner: null })]);
  h.pc.patchesFail(ERR.conflict);
  const s = h.c.sync(KEY, T0);
  expectSync(s, { outcome: 'claim-error', expectations: 'never-recorded', claimErrors: [ERR.conflict, ERR.conflict], error: s.error, requeue: rateLimited(5) });
  assert.deepEqual(h.pc.counts(), { creates: 0, deletes: 0, gets: 1, patches: 2 });
  assert.equal(h.c.queue.dueAt(KEY), T0 + 5);
});

test(
  '§10 PatchPodFails / §7: two identical claim errors aggregate to one message (utilerrors de-duplicates)',
  () => {
    const h = newHarness();
    const rs = h.f.replicaSet({ replicas: 2 });
    world(h, rs, [h.f.pod({ name: 'foo-o1', labels: { app: 'foo' }, owner: null }), h.f.pod({ name: 'foo-o2', labels: { app: 'foo' }, owner: null })]);
    h.pc.patchesFail(ERR.conflict);
    assert.equal(h.c.sync(KEY, T0).error, ERR.conflict);
  },
);

test('§10 DoNotAdoptOrCreateIfBeingDeleted: RS with a deletionTimestamp in the cache → 0 patches, 0 creates, nil error', () => {
  const h = newHarness();
  const rs = h.f.replicaSet({ replicas: 2, deletingAt: T0 - SEC });
  world(h, rs, [h.f.pod({ name: 'foo-o1', labels: { app: 'foo' }, owner: null })]);
  const s = h.c.sync(KEY, T0);
  expectSync(s, { outcome: 'rs-being-deleted', expectations: 'never-recorded', active: 0, diff: -2 });
  assert.deepEqual(s.claims!.map((d) => d.action), ['ignore']);
  assert.deepEqual(h.pc.counts(), { creates: 0, deletes: 0, gets: 0, patches: 0 });
});

test('§10 DoNotAdoptOrCreateIfBeingDeletedRace: cache says alive, live GET says deleting → sync error, 0 patches, 0 creates', () => {
  const h = newHarness();
  const rs = h.f.replicaSet({ replicas: 2 });
  const o = h.f.pod({ name: 'foo-o1', labels: { app: 'foo' }, owner: null });
  world(h, rs, [o]);
  h.pc.liveGet(h.f.update(rs, mut.terminating(T0)));
  const s = h.c.sync(KEY, T0 + SEC);
  const msg = `can't adopt Pod d/foo-o1 (${o.metadata.uid}): d/foo has just been deleted at 2025-03-10 09:00:00 +0000 UTC`;
  expectSync(s, { outcome: 'claim-error', expectations: 'never-recorded', claimErrors: [msg], error: msg, requeue: rateLimited(5) });
  assert.deepEqual(h.pc.counts(), { creates: 0, deletes: 0, gets: 1, patches: 0 });
});

test('§7 CanAdopt: a live GET showing a recreated RS (other UID) refuses adoption', () => {
  const h = newHarness();
  const rs = h.f.replicaSet({ replicas: 1 });
  const o = h.f.pod({ name: 'foo-o1', labels: { app: 'foo' }, owner: null });
  world(h, rs, [o]);
  const other = h.f.replicaSet({ replicas: 1 });
  h.pc.liveGet(other);
  const s = h.c.sync(KEY, T0);
  assert.equal(s.outcome, 'claim-error');
  assert.deepEqual(s.claimErrors, [`can't adopt Pod d/foo-o1 (${o.metadata.uid}): can't recheck DeletionTimestamp: original ReplicaSet d/foo is gone: got uid ${other.metadata.uid}, wanted ${rs.metadata.uid}`]);
  assert.equal(h.pc.patches.length, 0);
});

/** Two RSes with disjoint labels: rs1 app=foo1, rs2 app=foo2. */
function twoRS(h: Harness) {
  const rs1 = h.f.replicaSet({ name: 'rs1', replicas: 1, labels: { app: 'foo1' } });
  const rs2 = h.f.replicaSet({ name: 'rs2', replicas: 1, labels: { app: 'foo2' } });
  h.c.deliverOwner('ADDED', rs1, T0 - MIN);
  h.c.deliverOwner('ADDED', rs2, T0 - MIN);
  return { rs1, rs2 };
}

test('§10 UpdatePods 1: an owned pod relabelled to match another RS → only its owner is synced', () => {
  const h = newHarness();
  const { rs1 } = twoRS(h);
  const p = h.f.pod({ rs: rs1 });
  h.c.deliverPod('ADDED', p, T0 - MIN);
  drainQueue(h.c);
  h.c.deliverPod('MODIFIED', h.f.update(p, mut.labels({ app: 'foo2' })), T0);
  assert.deepEqual(h.c.runDue(T0, true).map((s) => s.key), ['d/rs1']);
});

test('§10 UpdatePods 2: controllerRef removed → the old owner and every label-matching RS are synced', () => {
  const h = newHarness();
  const { rs1 } = twoRS(h);
  const p = h.f.pod({ rs: rs1 });
  h.c.deliverPod('ADDED', p, T0 - MIN);
  drainQueue(h.c);
  h.c.deliverPod('MODIFIED', h.f.update(p, (x) => { mut.orphan()(x); mut.labels({ app: 'foo2' })(x); }), T0);
  assert.deepEqual(drainQueue(h.c).map((q) => q.key).sort(), ['d/rs1', 'd/rs2']);
});

test('§10 UpdatePods 3: controllerRef kept, labels changed → only the owner is synced', () => {
  const h = newHarness();
  const { rs2 } = twoRS(h);
  const p = h.f.pod({ rs: rs2 });
  h.c.deliverPod('ADDED', p, T0 - MIN);
  drainQueue(h.c);
  h.c.deliverPod('MODIFIED', h.f.update(p, mut.labels({ app: 'foo1' })), T0);
  assert.deepEqual(drainQueue(h.c), [{ key: 'd/rs2', at: T0 }]);
});

test('§10 ControllerExpectations 1–4 through the controller store with a fake 30 s TTL (expectationsTimeoutMs)', () => {
  const h = newHarness({ timeoutMs: 30 * SEC });
  world(h, h.f.replicaSet({ replicas: 1 }));
  const st = h.c.expectations;
  st.set(KEY, 10, 30, T0);
  for (let i = 0; i < 11; i++) st.creationObserved(KEY, T0);
  assert.deepEqual(E(h.c), { add: -1, del: 30 });
  expectSync(h.c.sync(KEY, T0 + SEC), { outcome: 'gated', expectations: 'still-waiting', active: 0, diff: -1, recordBefore: { key: KEY, add: -1, del: 30, timestamp: T0 } });
  for (let i = 0; i < 31; i++) st.lower(KEY, 0, 1, T0 + 2 * SEC);
  assert.deepEqual(E(h.c), { add: -1, del: -1 });
  assert.equal(st.satisfied(KEY, T0 + 2 * SEC).outcome, 'fulfilled');
  st.set(KEY, 1, 2, T0 + 3 * SEC);
  assert.equal(st.satisfied(KEY, T0 + 33 * SEC).outcome, 'still-waiting');
  // Past the fake TTL the sync passes the gate ("expired") and manages.
  const s = h.c.sync(KEY, T0 + 33 * SEC + 1);
  expectSync(s, { outcome: 'synced', expectations: 'expired', create: createRound(1, [1], 1, 1), active: 0, diff: -1, recordBefore: { key: KEY, add: 1, del: 2, timestamp: T0 + 3 * SEC } });
});

// ═════════════════════════════ §3–§7 other sync/handler rules ═════════════════════════════

test('§3.2 addPod: a controlled pod whose RS is not in the lister, or whose ref is not Kind ReplicaSet, is ignored', () => {
  const h = newHarness();
  const rs = h.f.replicaSet({ replicas: 1 });
  world(h, rs);
  h.c.expectations.expectCreations(KEY, 1, T0);
  const foreign = h.f.pod({ labels: { app: 'foo' }, owner: { apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'foo', uid: rs.metadata.uid!, controller: true, blockOwnerDeletion: true } });
  h.c.deliverPod('ADDED', foreign, T0);
  assert.deepEqual(h.handlers.slice(-1)[0]!.effects, ['controllerRef does not resolve: ignored']);
  // API group/version is not checked: extensions/v1beta1 ReplicaSet refs resolve.
  const legacy = h.f.pod({ rs, owner: { ...controllerRefTo(rs), apiVersion: 'extensions/v1beta1' } });
  h.c.deliverPod('ADDED', legacy, T0);
  assert.deepEqual(E(h.c), { add: 0, del: 0 });
});

test('§4 step 5 / §4.3: a selector that does not convert stops the sync after the expectations check, with no requeue', () => {
  const h = newHarness();
  const rs = h.f.replicaSet({ replicas: 2 });
  rs.spec!.selector = { matchExpressions: [{ key: 'app', operator: 'Matches', values: ['foo'] }] };
  world(h, rs);
  const s = h.c.sync(KEY, T0);
  assert.equal(s.outcome, 'selector-error');
  assert.equal(s.expectations, 'never-recorded');
  assert.equal(s.requeue, undefined);
  assert.match(s.error!, /^error converting pod selector to selector for rs d\/foo: "Matches" is not a valid label selector operator/);
  assert.equal(h.c.queue.size, 0);
  assert.equal(h.pc.creates.length, 0);
});

test(
  '§4.3: a selector-error sync returns nil, so Forget resets the backoff',
  () => {
    const h = newHarness();
    const rs = h.f.replicaSet({ replicas: 1 });
    world(h, rs);
    h.pc.createsFail(ERR.quota);
    assert.equal(h.c.sync(KEY, T0).requeue?.delayMs, 5);
    // The backoff retries keep failing until the selector changes: 5, 10, 20 … ms.
    h.c.runDue(T0 + SEC);
    assert.ok(h.c.queue.failuresOf(KEY) > 3);
    const bad = h.f.update(rs, (x) => { x.spec!.selector = { matchExpressions: [{ key: 'app', operator: 'Matches' }] }; });
    h.c.deliverOwner('MODIFIED', bad, T0 + SEC);
    const ran = h.c.runDue(T0 + SEC, true);
    assert.equal(ran[ran.length - 1]!.outcome, 'selector-error');
    assert.equal(h.c.queue.failuresOf(KEY), 0, 'Forget after the nil return');
    h.c.runDue(T0 + 2 * SEC); // the retry already parked in the delaying queue meets the bad selector too
    h.c.deliverOwner('MODIFIED', h.f.update(bad, (x) => { x.spec!.selector = { matchLabels: { app: 'foo' } }; }), T0 + 2 * SEC);
    const ran2 = h.c.runDue(T0 + 2 * SEC, true);
    assert.equal(ran2[ran2.length - 1]!.requeue?.delayMs, 5);
  },
);

// The owner index starts in v1.34.0 and keys by UID only until v1.34.1; from v1.34.2 by kind/name/UID.
for (const [version, listed] of [['v1.32.9', true], ['v1.33.9', true], ['v1.34.0', true], ['v1.34.1', true], ['v1.34.2', false], ['v1.37.2', false]] as const) {
  test(`§4 step 6 (${version}): a pod whose controllerRef has this RS's UID but another name is ${listed ? 'listed and kept (UID-only ClaimObject / UID-keyed index)' : 'not listed (owner index by kind/name/UID)'}`, () => {
    const h = newHarness({ version });
    const rs = h.f.replicaSet({ replicas: 1 });
    const odd = h.f.pod({ rs, name: 'foo-odd', owner: { ...controllerRefTo(rs), name: 'foo-renamed' } });
    world(h, rs, [odd]);
    const s = h.c.sync(KEY, T0);
    if (listed) {
      expectSync(s, { outcome: 'synced', expectations: 'never-recorded', active: 1, diff: 0 });
      assert.deepEqual(s.claims!.map((d) => [d.pod, d.action]), [['d/foo-odd', 'keep']]);
    } else {
      expectSync(s, { outcome: 'synced', expectations: 'never-recorded', create: createRound(1, [1], 1, 1), active: 0, diff: -1 });
      assert.deepEqual(s.claims, []);
    }
  });
}

test('§4 step 7: Succeeded/Failed and terminating pods are not active; the RS replaces them', () => {
  const h = newHarness({ version: 'v1.35.0' });
  const rs = h.f.replicaSet({ replicas: 3 });
  world(h, rs, [
    h.f.pod({ rs, phase: 'Succeeded', ready: false }),
    h.f.pod({ rs, phase: 'Failed', ready: false }),
    h.f.pod({ rs, deletingAt: T0 + 10 * SEC }),
    h.f.pod({ rs, phase: 'Unknown', ready: false }),
  ]);
  const s = h.c.sync(KEY, T0);
  expectSync(s, { outcome: 'synced', expectations: 'never-recorded', create: createRound(2, [1, 1], 2, 2), active: 1, terminating: 1, diff: -2 });
});

test(
  '§4.1/§9: before v1.35 (DeploymentReplicaSetTerminatingReplicas off) terminatingReplicas is nil',
  () => {
    const h = newHarness({ version: 'v1.34.2' });
    const rs = h.f.replicaSet({ replicas: 1 });
    world(h, rs, [h.f.pod({ rs }), h.f.pod({ rs, deletingAt: T0 + 10 * SEC })]);
    assert.equal(h.c.sync(KEY, T0).terminating, undefined);
  },
);

test('§4 step 4: the expectations check precedes listing; a gated sync still claims (adoption runs while gated)', () => {
  const h = newHarness();
  const rs = h.f.replicaSet({ replicas: 2 });
  world(h, rs);
  h.c.sync(KEY, T0);
  const orphan = h.f.pod({ name: 'foo-orphan', labels: { app: 'foo' }, owner: null });
  h.c.deliverPod('ADDED', orphan, T0 + SEC);
  const s = syncNow(h.c, T0 + SEC);
  expectSync(s, { outcome: 'gated', expectations: 'still-waiting', active: 1, diff: -1, recordBefore: { key: KEY, add: 2, del: 0, timestamp: T0 } });
  assert.deepEqual(h.pc.patches.map((p) => [p.pod, p.action]), [['d/foo-orphan', 'adopt']]);
  assert.deepEqual(E(h.c), { add: 2, del: 0 }, 'adoption never touches expectations');
});

test('§5.2: a scale-down that deletes every active pod takes them in list order (no sort), keyed ns/name', () => {
  const h = newHarness();
  const web = h.f.webReplicaSet({ replicas: 2 });
  const p1 = h.f.pod({ rs: web, name: 'web-7d9c6b8f5d-zz9k2' });
  const p2 = h.f.pod({ rs: web, name: 'web-7d9c6b8f5d-aa4b7', ready: false });
  world(h, web, [p1, p2]);
  const s = updateRSAndSync(h, h.f.update(web, mut.replicas(0)), T0);
  assert.deepEqual(s.delete!.keys, ['shop/web-7d9c6b8f5d-zz9k2', 'shop/web-7d9c6b8f5d-aa4b7']);
  assert.deepEqual(h.c.expectations.getDeleteKeys('shop/web-7d9c6b8f5d'), ['shop/web-7d9c6b8f5d-aa4b7', 'shop/web-7d9c6b8f5d-zz9k2']);
});

test('[<1.17] kubernetes#69376: the RS recreated under the same name before the queued sync inherits the old record (deleteRS only enqueues)', () => {
  const h = newHarness({ version: 'v1.16.4' });
  const old = h.f.replicaSet({ replicas: 2 });
  world(h, old);
  h.c.sync(KEY, T0);
  assert.deepEqual(E(h.c), { add: 2, del: 0 });
  h.c.deliverOwner('DELETED', old, T0 + 100);
  assert.deepEqual(E(h.c), { add: 2, del: 0 }, 'the DeleteFunc of 1.16 only enqueues');
  assert.deepEqual(h.handlers.slice(-1), [{ at: T0 + 100, handler: 'deleteRS', object: KEY, effects: ['enqueue d/foo'] }]);
  // The informer holds the new ReplicaSet by the time the queued key is processed.
  const fresh = h.f.replicaSet({ replicas: 2 });
  h.c.deliverOwner('ADDED', fresh, T0 + 200);
  const s = syncNow(h.c, T0 + 300);
  expectSync(s, { outcome: 'gated', expectations: 'still-waiting', active: 0, diff: -2, recordBefore: { key: KEY, add: 2, del: 0, timestamp: T0 } });
  assert.equal(s.rsUid, fresh.metadata.uid);
  // v1.17+: the same sequence gives the new ReplicaSet a fresh record at once.
  const n = newHarness({ version: 'v1.17.0' });
  const o2 = n.f.replicaSet({ replicas: 2 });
  world(n, o2);
  n.c.sync(KEY, T0);
  n.c.deliverOwner('DELETED', o2, T0 + 100);
  n.c.deliverOwner('ADDED', n.f.replicaSet({ replicas: 2 }), T0 + 200);
  assert.equal(syncNow(n.c, T0 + 300).expectations, 'never-recorded');
});

test('[<1.18] kubernetes#67662: a create that timed out counts as a success (no walk-back, no error, no requeue); from v1.17.1 it is a failure', () => {
  const timeout = { ok: false as const, error: 'the server was unable to return a response in the time allotted, but may still be processing the request (post pods)', timeout: true };
  const h = newHarness({ version: 'v1.17.0' });
  h.pc.onCreate = () => timeout;
  world(h, h.f.replicaSet({ replicas: 1 }));
  const s = h.c.sync(KEY, T0);
  assert.equal(s.create?.timedOut, 1);
  assert.deepEqual([s.create?.successes, s.create?.skipped, s.create?.errors], [1, 0, []]);
  assert.deepEqual(E(h.c), { add: 1, del: 0 }, 'the add waits for a pod that may never come');
  assert.equal(s.error, undefined);
  const fixed = newHarness({ version: 'v1.17.1' });
  fixed.pc.onCreate = () => timeout;
  world(fixed, fixed.f.replicaSet({ replicas: 1 }));
  const f = fixed.c.sync(KEY, T0);
  assert.equal(f.create?.timedOut, undefined);
  assert.deepEqual([f.create?.successes, f.create?.skipped], [0, 1]);
  assert.deepEqual(E(fixed.c), { add: 0, del: 0 });
  assert.match(f.error ?? '', /time allotted/);
});
