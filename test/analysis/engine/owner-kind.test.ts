import assert from 'node:assert/strict';
import { test } from 'node:test';
import { REPLICA_SET_OWNER, type EngineOwnerKind } from '../../../src/analysis/engine/engine-controller.js';
import { isRSControllerPodWrite, podOwnerUid } from '../../../src/analysis/engine/evidence-window.js';
import { keysOf } from '../../../src/analysis/engine/lookahead-buffer.js';
import { PodSightings } from '../../../src/analysis/engine/pod-sightings.js';
import type { Pod } from '../../../src/model/objects.js';
import type { TimelineEvent, WriteEvent } from '../../../src/timeline/event.js';

const RC: EngineOwnerKind = { kind: 'ReplicationController', component: 'replication-controller' };
const at = Date.parse('2025-03-10T09:00:00Z');
const source = { file: 'x', line: 1 };

function pod(kind: string): Pod {
  return {
    apiVersion: 'v1', kind: 'Pod',
    metadata: { name: 'web-abcde', namespace: 'legacy', uid: 'p1', ownerReferences: [{ apiVersion: kind === 'ReplicaSet' ? 'apps/v1' : 'v1', kind, name: 'web', uid: 'o1', controller: true, blockOwnerDeletion: true }] },
  };
}

function create(component: 'replicaset-controller' | 'replication-controller'): WriteEvent {
  return { type: 'write', at, atBasis: 'audit-stage', source, actor: { username: `system:serviceaccount:kube-system:${component}`, controller: component }, verb: 'create', resource: 'pods', namespace: 'legacy', status: { code: 201 } };
}

test('engine owner kind: the ReplicaSet by default', () => {
  assert.deepEqual(REPLICA_SET_OWNER, { kind: 'ReplicaSet', component: 'replicaset-controller' });
});

test('engine owner kind: pod ownership, controller writes and look-ahead keys follow the kind replayed', () => {
  const rcPod = pod('ReplicationController');
  const rsPod = pod('ReplicaSet');
  assert.equal(podOwnerUid(rcPod), undefined);
  assert.equal(podOwnerUid(rcPod, RC.kind), 'o1');
  assert.equal(podOwnerUid(rsPod, RC.kind), undefined);
  assert.equal(isRSControllerPodWrite(create('replication-controller'), 'create'), false);
  assert.equal(isRSControllerPodWrite(create('replication-controller'), 'create', RC.component), true);
  assert.equal(isRSControllerPodWrite(create('replicaset-controller'), 'create', RC.component), false);
  const observed: TimelineEvent = { type: 'observed', at, atBasis: 'received', source, kind: 'Pod', watchType: 'ADDED', object: rcPod };
  assert.deepEqual(keysOf(observed), ['pod:legacy/web-abcde']);
  assert.deepEqual(keysOf(observed, RC), ['pod:legacy/web-abcde', 'own:o1']);
  assert.deepEqual(keysOf(create('replication-controller'), RC), ['rscw:create:legacy']);
  assert.equal(keysOf(create('replication-controller')), undefined);
  const ev: TimelineEvent = { type: 'observed', at, atBasis: 'received', source, kind: 'Event', watchType: 'ADDED', object: { metadata: { name: 'e', namespace: 'legacy' }, involvedObject: { kind: 'ReplicationController', namespace: 'legacy', name: 'web' }, reason: 'SuccessfulCreate' } };
  assert.deepEqual(keysOf(ev, RC), ['ev:legacy/web']);
  assert.equal(keysOf(ev), undefined);
});

test('engine owner kind: pod sightings count per owner only the pods of the kind replayed', () => {
  const rc = new PodSightings(RC.kind);
  const rs = new PodSightings();
  for (const s of [rc, rs]) s.note(false, pod('ReplicationController'), 'legacy/web-abcde', pod('ReplicationController').metadata.ownerReferences![0], at, source);
  assert.deepEqual(rc.takeRecent('legacy/web', at - 1), [{ pk: 'legacy/web-abcde', at }]);
  assert.equal(rs.takeRecent('legacy/web', at - 1), undefined);
  assert.ok(rs.has('legacy/web-abcde'), 'every pod is sighted, whatever its owner');
});
