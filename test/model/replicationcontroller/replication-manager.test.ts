import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { OwnerReference, Pod, ReplicaSet, ReplicationController } from '../../../src/model/objects.js';
import { replicaSetFromReplicationController } from '../../../src/model/replicationcontroller/conversion.js';
import { newReplicationManager, REPLICATION_CONTROLLER_KIND, replicationControllerFactory } from '../../../src/model/replicationcontroller/replication-manager.js';
import { ReplicaSetController } from '../../../src/model/replicaset/replicaset-controller.js';
import { REPLICA_SET_KIND } from '../../../src/model/replicaset/owner-kind.js';
import type { SyncRecord } from '../../../src/model/controller/sync-record.js';
import { parseK8sVersion } from '../../../src/model/version.js';
import { ObjectFactory, ScriptedPodControl, T0, SEC, HOUR, controllerRefTo } from '../controller-harness.js';

/** The RC `d/foo` as the API serves it, and the ReplicaSet its manager caches. */
function rcFoo(f: ObjectFactory, replicas: number): { rc: ReplicationController; rs: ReplicaSet } {
  const shape = f.replicaSet({ name: 'foo', replicas });
  const rc: ReplicationController = {
    apiVersion: 'v1',
    kind: 'ReplicationController',
    metadata: shape.metadata,
    spec: { replicas, selector: { app: 'foo' }, template: shape.spec!.template },
    status: { replicas: 0, observedGeneration: 1 },
  };
  return { rc, rs: replicaSetFromReplicationController(rc) };
}

/** The controllerRef RealPodControl writes for an RC (GVK v1 ReplicationController). */
function rcRef(rc: ReplicationController): OwnerReference {
  return { apiVersion: 'v1', kind: 'ReplicationController', name: rc.metadata.name!, uid: rc.metadata.uid!, controller: true, blockOwnerDeletion: true };
}

function manager(version = 'v1.37.2') {
  const f = new ObjectFactory();
  const pc = new ScriptedPodControl(f);
  const syncs: SyncRecord[] = [];
  const c = newReplicationManager({ version: parseK8sVersion(version), podControl: pc, onSync: (s) => syncs.push(s) });
  return { f, pc, c, syncs };
}

test('NewReplicationManager: the RS code with GVK v1 ReplicationController, its names, no terminatingReplicas, no consistency store', () => {
  assert.deepEqual(REPLICATION_CONTROLLER_KIND, {
    kind: 'ReplicationController', apiVersion: 'v1', resource: 'replicationcontrollers', component: 'replication-controller',
    logger: 'replicationcontroller-controller', metricOwner: 'replication_controller', queueName: 'replicationmanager',
    statusTerminatingReplicas: false, consistencyStore: false,
  });
  const { c } = manager();
  assert.ok(c instanceof ReplicaSetController, 'no copy of the RS controller');
  assert.equal(c.ownerKind, REPLICATION_CONTROLLER_KIND);
});

test('replication manager: pods whose controllerRef names the RC are its own; a ReplicaSet ref of the same name and UID is not', () => {
  const { f, pc, c } = manager();
  const { rc, rs } = rcFoo(f, 2);
  c.deliverOwner('ADDED', rs, T0);
  const mine = f.pod({ rs, owner: rcRef(rc), createdAt: T0 - HOUR });
  const asRs: Pod = f.pod({ rs, owner: controllerRefTo(rs), createdAt: T0 - HOUR });
  c.deliverPod('ADDED', mine, T0);
  c.deliverPod('ADDED', asRs, T0);
  const [s] = c.runDue(T0, true);
  assert.equal(s!.outcome, 'synced');
  assert.equal(s!.active, 1, 'only the pod with the RC controllerRef is counted');
  assert.equal(s!.diff, -1);
  assert.equal(s!.create?.n, 1);
  assert.equal(pc.creates.length, 1);
  assert.equal(s!.terminating, undefined, 'EnableStatusTerminatingReplicas: false, even at 1.37');
  assert.equal(pc.consistencyChecks.length, 0, 'NewNoopConsistencyStore: never asks whether its informers lag');
});

test('replication manager: CanAdopt names the RC and its resource', () => {
  const { f, pc, c } = manager();
  const { rs } = rcFoo(f, 1);
  c.deliverOwner('ADDED', rs, T0);
  c.deliverPod('ADDED', f.pod({ rs, owner: null, createdAt: T0 - HOUR }), T0);
  pc.liveGet({ notFound: true });
  const [s] = c.runDue(T0, true);
  assert.equal(s!.outcome, 'claim-error');
  assert.match(s!.error!, /can't recheck DeletionTimestamp: replicationcontrollers "foo" not found/);
  pc.liveGet({ ...rs, metadata: { ...rs.metadata, uid: 'other' } });
  const [s2] = c.runDue(T0 + 10 * SEC, true);
  assert.match(s2!.error!, /original ReplicationController d\/foo is gone: got uid other/);
});

test('an RS and an RC named d/foo: separate controllers, separate expectations, each counts only its own pods', () => {
  const f = new ObjectFactory();
  const pcRs = new ScriptedPodControl(f);
  const pcRc = new ScriptedPodControl(f);
  const version = parseK8sVersion('v1.37.2');
  const rsc = new ReplicaSetController({ version, podControl: pcRs });
  assert.equal(rsc.ownerKind, REPLICA_SET_KIND);
  const rcm = newReplicationManager({ version, podControl: pcRc });
  const rs = f.replicaSet({ name: 'foo', replicas: 1 });
  const { rc, rs: rcAsRs } = rcFoo(f, 3);
  rsc.deliverOwner('ADDED', rs, T0);
  rcm.deliverOwner('ADDED', rcAsRs, T0);
  for (const pod of [f.pod({ rs, createdAt: T0 - HOUR }), f.pod({ rs: rcAsRs, owner: rcRef(rc), createdAt: T0 - HOUR })]) {
    rsc.deliverPod('ADDED', pod, T0);
    rcm.deliverPod('ADDED', pod, T0);
  }
  const [a] = rsc.runDue(T0, true);
  const [b] = rcm.runDue(T0, true);
  assert.equal(a!.active, 1);
  assert.equal(a!.diff, 0);
  assert.equal(b!.active, 1);
  assert.equal(b!.diff, -2);
  assert.equal(rsc.expectations.get('d/foo'), undefined, 'the RS made no creates: no record');
  assert.deepEqual(rcm.expectations.get('d/foo'), { key: 'd/foo', add: 2, del: 0, timestamp: T0 });
  assert.equal(pcRc.creates.length, 2);
  assert.equal(pcRs.creates.length, 0);
});

test('replicationControllerFactory builds the RC manager for a replay (seam)', () => {
  const f = new ObjectFactory();
  const syncs: SyncRecord[] = [];
  const c = replicationControllerFactory(parseK8sVersion('v1.35.0'))({ podControl: new ScriptedPodControl(f), onSync: (s) => syncs.push(s) });
  assert.ok(c instanceof ReplicaSetController);
  assert.equal((c as ReplicaSetController).ownerKind.kind, 'ReplicationController');
  const { rs } = rcFoo(f, 0);
  c.deliverOwner('ADDED', rs, T0);
  c.runDue(T0, true);
  assert.equal(syncs.length, 1);
  assert.equal(syncs[0]!.outcome, 'synced');
  assert.notEqual(c.podCounts('d/foo'), undefined, 'replays keep per-owner counts');
});
