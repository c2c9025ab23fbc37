/**
 * The write ledger (src/analysis/engine/write-ledger.ts) on audit writes of pod PATCHes: which of a
 * controller's patches are adopt/release claims. The Job controller also patches its pods to remove
 * the batch.kubernetes.io/job-tracking finalizer (removeTrackingFinalizerPatch,
 * pkg/controller/job/job_controller.go v1.37.2): no claim, so neither a round's write nor an
 * unexplained one. Its ClaimObject patches carry the finalizer beside the ownerReference
 * (ownerRefControllerPatch / GenerateDeleteOwnerRefStrategicMergeBytes in
 * pkg/controller/controller_ref_manager.go) and stay claims.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WriteLedger } from '../../../src/analysis/engine/write-ledger.js';
import type { EngineOwnerKind } from '../../../src/analysis/engine/engine-controller.js';
import type { WriteEvent } from '../../../src/timeline/event.js';
import { NS, observed, podObj, podWrite, rsObj, T0 } from '../../support/timeline-events.js';

const JOB: EngineOwnerKind = { kind: 'Job', component: 'job-controller' };
const JOB_UID = 'uid-work';
const FINALIZER = 'batch.kubernetes.io/job-tracking';

/** A pod PATCH by the Job controller of a pod Job `work` owns, with `requestObject` as the audit log shows it (absent at Metadata level). */
function jobPatch(at: number, pod: string, requestObject?: unknown): WriteEvent {
  return {
    type: 'write', at, atBasis: 'audit-stage', source: { file: 'audit.jsonl', line: at - T0 },
    actor: { username: 'system:serviceaccount:kube-system:job-controller', controller: 'job-controller' },
    verb: 'patch', resource: 'pods', namespace: NS, name: pod,
    owner: { state: 'owned', kind: 'Job', name: 'work', uid: JOB_UID, basis: 'earlier-state' },
    status: { code: 200 },
    ...(requestObject !== undefined ? { requestObject } : {}),
  } as WriteEvent;
}

test('WriteLedger (audit): the Job controller\'s finalizer-removal PATCH is no claim; its adopt and release PATCHes (the finalizer beside the ownerReference) are', () => {
  const ledger = new WriteLedger('audit', undefined, JOB);
  ledger.enter(jobPatch(T0 + 1, 'work-a', { metadata: { [`$deleteFromPrimitiveList/finalizers`]: [FINALIZER] } }));
  assert.deepEqual(ledger.writes, [], 'removeTrackingFinalizerPatch changes no ownerReference');
  ledger.enter(jobPatch(T0 + 2, 'work-b', {
    metadata: { uid: 'uid-work-b', ownerReferences: [{ apiVersion: 'batch/v1', kind: 'Job', name: 'work', uid: JOB_UID, controller: true, blockOwnerDeletion: true }], finalizers: [FINALIZER] },
  }));
  ledger.enter(jobPatch(T0 + 3, 'work-c', {
    metadata: { uid: 'uid-work-c', ownerReferences: [{ $patch: 'delete', uid: JOB_UID }], [`$deleteFromPrimitiveList/finalizers`]: [FINALIZER] },
  }));
  assert.deepEqual(ledger.writes.map((w) => [w.kind, w.rsKey, w.pod]), [
    ['adopt', `${NS}/work`, `${NS}/work-b`],
    ['release', `${NS}/work`, `${NS}/work-c`],
  ]);
});

test('WriteLedger (audit): a PATCH whose body the log does not hold (Metadata level) is counted as a claim, as before — its body cannot tell', () => {
  const ledger = new WriteLedger('audit', undefined, JOB);
  ledger.enter(jobPatch(T0 + 1, 'work-a'));
  assert.deepEqual(ledger.writes.map((w) => w.kind), ['adopt']);
});

test('WriteLedger (audit): the ReplicaSet controller\'s adopt PATCH is still an adopt; another controller\'s finalizer patch is not its write', () => {
  const rs = rsObj('web', 1);
  const ledger = new WriteLedger('audit');
  const pod = podObj('web-a', rs);
  ledger.enter(podWrite(T0 + 1, 'patch', pod, 200, { requestObject: { metadata: { uid: pod.metadata.uid, ownerReferences: pod.metadata.ownerReferences } } }));
  ledger.enter(jobPatch(T0 + 2, 'work-a', { metadata: { [`$deleteFromPrimitiveList/finalizers`]: [FINALIZER] } }));
  assert.deepEqual(ledger.writes.map((w) => [w.kind, w.rsKey]), [['adopt', `${NS}/web`]]);
});

test('Job audit: the finalizer-removal PATCHes and jobs/status updates are kept as tracking writes with their outcome (the refused ones with the apiserver\'s message), not as claims', () => {
  const ledger = new WriteLedger('audit', undefined, JOB);
  const removal = { metadata: { [`$deleteFromPrimitiveList/finalizers`]: [FINALIZER] } };
  ledger.enter(jobPatch(T0 + 1, 'work-a', removal));
  const refused = { ...jobPatch(T0 + 2, 'work-b', removal), status: { code: 422, reason: 'Invalid', message: 'Pod "work-b" is invalid: metadata: Invalid value: "Burstable": Pod QoS is immutable' } } as WriteEvent;
  ledger.enter(refused);
  const status = (at: number, code: number, message?: string) => ({
    type: 'write', at, atBasis: 'audit-stage', source: { file: 'audit.jsonl', line: at - T0 },
    actor: { username: 'system:serviceaccount:kube-system:job-controller', controller: 'job-controller' },
    verb: 'update', resource: 'jobs', subresource: 'status', namespace: NS, name: 'work',
    status: { code, ...(message ? { message } : {}) },
  }) as WriteEvent;
  ledger.enter(status(T0 + 3, 422, 'Job.batch "work" is invalid: status.ready: Invalid value: 1: cannot set more ready pods than active'));
  ledger.enter(status(T0 + 4, 200));
  assert.deepEqual(ledger.jobTrackingWrites.map((w) => [w.kind, w.rsKey, w.pod ?? '', w.ok, w.error ?? '']), [
    ['finalizer-removal', `${NS}/work`, `${NS}/work-a`, true, ''],
    ['finalizer-removal', `${NS}/work`, `${NS}/work-b`, false, 'Pod "work-b" is invalid: metadata: Invalid value: "Burstable": Pod QoS is immutable'],
    ['status', `${NS}/work`, '', false, 'Job.batch "work" is invalid: status.ready: Invalid value: 1: cannot set more ready pods than active'],
    ['status', `${NS}/work`, '', true, ''],
  ]);
  assert.equal([...ledger.finish().values()].flat().length, 0, 'none of them is a pod claim or a round\'s write');
});

test('WriteLedger (audit): an adopt PATCH of a pod the controller already adopted, its owner unchanged since, is a repeat of the first (its informer lagged its own write); after an orphaning it is a new adoption', () => {
  const rs = rsObj('web', 1);
  const owned = podObj('web-a', rs);
  const orphan = { ...owned, metadata: { ...owned.metadata, ownerReferences: [] } };
  const adopt = (at: number) => podWrite(at, 'patch', owned, 200, { requestObject: { metadata: { uid: owned.metadata.uid, ownerReferences: owned.metadata.ownerReferences } }, source: { file: 'audit.jsonl', line: at - T0 } });
  const ledger = new WriteLedger('audit');
  ledger.enter(observed(T0, 'Pod', 'MODIFIED', orphan));
  ledger.enter(adopt(T0 + 10));
  ledger.enter(observed(T0 + 12, 'Pod', 'MODIFIED', owned));
  ledger.enter(adopt(T0 + 20)); // a no-op: no observation follows
  ledger.enter(observed(T0 + 30, 'Pod', 'MODIFIED', orphan)); // someone removes the ownerReference again
  ledger.enter(adopt(T0 + 40));
  ledger.enter(observed(T0 + 42, 'Pod', 'MODIFIED', owned));
  assert.deepEqual(ledger.writes.map((w) => [w.kind, w.at - T0, w.repeatOf && [w.repeatOf.at - T0, w.repeatOf.source.line]]), [
    ['adopt', 10, undefined],
    ['adopt', 20, [10, 10]],
    ['adopt', 40, undefined],
  ]);
});

test('WriteLedger (audit): no repeat when the owner was recreated under its name (another UID) or another writer patched the pod in between (a body the log may not hold)', () => {
  const rs = rsObj('web', 1);
  const owned = podObj('web-a', rs);
  const adoptFor = (at: number, ownerUid: string) => {
    const refs = owned.metadata.ownerReferences!.map((r) => ({ ...r, uid: ownerUid }));
    return podWrite(at, 'patch', { ...owned, metadata: { ...owned.metadata, ownerReferences: refs } }, 200, { requestObject: { metadata: { uid: owned.metadata.uid, ownerReferences: refs } }, source: { file: 'audit.jsonl', line: at - T0 } });
  };
  const ledger = new WriteLedger('audit');
  const firstUid = owned.metadata.ownerReferences![0]!.uid;
  ledger.enter(adoptFor(T0 + 10, firstUid));
  ledger.enter(observed(T0 + 12, 'Pod', 'MODIFIED', owned));
  ledger.enter(adoptFor(T0 + 20, 'uid-web-recreated')); // the same name, a new ReplicaSet
  // The garbage collector's orphaning PATCH at Metadata level (no body, no response object).
  ledger.enter({ ...podWrite(T0 + 30, 'patch', owned, 200), actor: { username: 'system:serviceaccount:kube-system:generic-garbage-collector' }, owner: undefined } as never);
  ledger.enter(adoptFor(T0 + 40, 'uid-web-recreated'));
  ledger.enter(adoptFor(T0 + 50, 'uid-web-recreated')); // now a repeat of the one at 40
  assert.deepEqual(ledger.writes.map((w) => [w.at - T0, w.repeatOf && w.repeatOf.at - T0]), [[10, undefined], [20, undefined], [40, undefined], [50, 40]]);
});
