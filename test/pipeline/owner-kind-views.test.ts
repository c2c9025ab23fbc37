import assert from 'node:assert/strict';
import { test } from 'node:test';
import { OwnerKindViews, TO_DAEMON_SETS, TO_JOBS, TO_REPLICA_SETS, TO_REPLICATION_CONTROLLERS } from '../../src/pipeline/owner-kind-views.js';
import type { Pod } from '../../src/model/objects.js';
import type { TimelineEvent } from '../../src/timeline/event.js';

const BOTH = TO_REPLICA_SETS | TO_REPLICATION_CONTROLLERS;
/** Orphans, Namespaces and gaps go to every view. */
const ALL = BOTH | TO_DAEMON_SETS | TO_JOBS;
let line = 0;
const base = () => ({ at: 1, atBasis: 'received' as const, source: { file: 'x', line: ++line } });

function pod(name: string, kind?: string): Pod {
  return { metadata: { name, namespace: 'legacy', uid: name, ...(kind ? { ownerReferences: [{ apiVersion: 'v1', kind, name: 'web', uid: 'o1', controller: true }] } : {}) } };
}
const observedPod = (p: Pod, watchType: 'ADDED' | 'MODIFIED' | 'DELETED' = 'ADDED'): TimelineEvent => ({ ...base(), type: 'observed', kind: 'Pod', watchType, object: p });

test('pods: RS-owned to the ReplicaSet view only, RC-owned and orphans to both, and a pod the RC view holds follows it', () => {
  const v = new OwnerKindViews();
  assert.equal(v.route(observedPod(pod('a', 'ReplicaSet'))), TO_REPLICA_SETS);
  assert.equal(v.route(observedPod(pod('b', 'ReplicationController'))), BOTH);
  const orphan = observedPod(pod('c'));
  assert.equal(v.route(orphan), ALL);
  assert.equal(v.shared(orphan.source), true);
  // The orphan adopted by a ReplicaSet: the RC and DaemonSet views still get it (their handlers see the change), then its deletion.
  assert.equal(v.route(observedPod(pod('c', 'ReplicaSet'), 'MODIFIED')), ALL);
  assert.equal(v.route(observedPod(pod('c', 'ReplicaSet'), 'DELETED')), ALL);
  assert.equal(v.route(observedPod(pod('c', 'ReplicaSet'), 'MODIFIED')), TO_REPLICA_SETS);
  assert.equal(v.sawOwner, false);
});

test('an RC goes to the RC view only, converted to the ReplicaSet shape; Events, writes, Namespaces and gaps by kind', () => {
  const v = new OwnerKindViews();
  const rc: TimelineEvent = { ...base(), type: 'observed', kind: 'ReplicationController', watchType: 'ADDED', object: { apiVersion: 'v1', kind: 'ReplicationController', metadata: { name: 'web', namespace: 'legacy', uid: 'o1' }, spec: { replicas: 3, selector: { app: 'web' } } } };
  assert.equal(v.route(rc), TO_REPLICATION_CONTROLLERS);
  assert.equal(v.sawOwner, true);
  const converted = v.convert(rc);
  assert.equal(converted.type === 'observed' && converted.kind, 'ReplicaSet');
  assert.deepEqual(converted.type === 'observed' && converted.kind === 'ReplicaSet' && converted.object.spec?.selector, { matchLabels: { app: 'web' } });
  assert.equal(converted.source, rc.source);
  const rs: TimelineEvent = { ...base(), type: 'observed', kind: 'ReplicaSet', watchType: 'ADDED', object: { metadata: { name: 'web', namespace: 'legacy', uid: 'r1' } } };
  assert.equal(v.route(rs), TO_REPLICA_SETS);
  assert.equal(v.convert(rs), rs);
  const ev = (kind: string, component: string): TimelineEvent => ({ ...base(), type: 'observed', kind: 'Event', watchType: 'ADDED', object: { metadata: { name: 'e', namespace: 'legacy' }, involvedObject: { kind, name: 'web', namespace: 'legacy' }, source: { component } } });
  assert.equal(v.route(ev('ReplicationController', 'replication-controller')), BOTH);
  assert.equal(v.route(ev('ReplicaSet', 'replicaset-controller')), TO_REPLICA_SETS);
  const write = (controller: 'replicaset-controller' | 'replication-controller'): TimelineEvent => ({ ...base(), type: 'write', actor: { username: `system:serviceaccount:kube-system:${controller}`, controller }, verb: 'create', resource: 'pods', namespace: 'legacy', status: { code: 201 } });
  assert.equal(v.route(write('replication-controller')), BOTH);
  assert.equal(v.route(write('replicaset-controller')), TO_REPLICA_SETS);
  assert.equal(v.route({ ...base(), type: 'observed', kind: 'Namespace', watchType: 'ADDED', object: { metadata: { name: 'legacy' } } }), ALL);
  assert.equal(v.route({ ...base(), type: 'gap', reason: 'watch-relist' }), ALL);
});

test('objects of the wrong shape: a pod goes to the ReplicaSet view alone (its engine reports it), an RC unconverted', () => {
  const v = new OwnerKindViews();
  const bad = { ...base(), type: 'observed', kind: 'Pod', watchType: 'ADDED', object: { metadata: { name: 'x', ownerReferences: { kind: 'ReplicaSet' } } } } as unknown as TimelineEvent;
  assert.equal(v.route(bad), TO_REPLICA_SETS);
  assert.equal(v.route({ ...base(), type: 'observed', kind: 'Pod', watchType: 'ADDED', object: null } as unknown as TimelineEvent), TO_REPLICA_SETS);
  const rc = { ...base(), type: 'observed', kind: 'ReplicationController', watchType: 'ADDED', object: { metadata: { name: 'web' }, spec: { selector: 'app=web' } } } as unknown as TimelineEvent;
  assert.equal(v.route(rc), TO_REPLICATION_CONTROLLERS);
  assert.equal(v.convert(rc), rc);
});

test('DaemonSets and Nodes go to the DaemonSet view alone, the DaemonSet in the owner shape; its pods, writes and Events beside the ReplicaSet view', () => {
  const v = new OwnerKindViews();
  const ds: TimelineEvent = { ...base(), type: 'observed', kind: 'DaemonSet', watchType: 'ADDED', object: { apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: { name: 'agent', namespace: 'kube-system', uid: 'd1' }, spec: { selector: { matchLabels: { app: 'agent' } } }, status: { desiredNumberScheduled: 3, currentNumberScheduled: 2, observedGeneration: 1 } } };
  assert.equal(v.route(ds), TO_DAEMON_SETS);
  assert.equal(v.sawDaemonSet, true);
  assert.equal(v.shared(ds.source), false);
  const converted = v.convertDaemonSet(ds);
  assert.equal(converted.type === 'observed' && converted.kind, 'ReplicaSet');
  const owner = converted.type === 'observed' && converted.kind === 'ReplicaSet' ? converted.object : undefined;
  assert.equal(owner?.spec?.replicas, 3, 'the desired count the controller last wrote');
  assert.equal(owner?.status?.replicas, undefined, 'no ReplicaSet status count');
  assert.deepEqual(owner?.spec?.selector, { matchLabels: { app: 'agent' } });
  const malformed: TimelineEvent = { ...ds, source: { file: 'x', line: 999 }, object: { ...(ds as { object: object }).object, spec: { selector: { matchLabels: { app: 'agent' } }, template: { spec: { tolerations: 'all' } } } } as never };
  assert.equal(v.convertDaemonSet(malformed), malformed, 'a malformed DaemonSet reaches its engine as it came, to be reported');
  assert.equal(v.route({ ...base(), type: 'observed', kind: 'Node', watchType: 'ADDED', object: { metadata: { name: 'n1' } } }), TO_DAEMON_SETS);
  assert.equal(v.route(observedPod({ metadata: { name: 'agent-x', namespace: 'kube-system', uid: 'p1', ownerReferences: [{ apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'agent', uid: 'd1', controller: true }] } })), TO_REPLICA_SETS | TO_DAEMON_SETS);
  const write: TimelineEvent = { ...base(), type: 'write', actor: { username: 'system:serviceaccount:kube-system:daemon-set-controller', controller: 'daemon-set-controller' }, verb: 'create', resource: 'pods', namespace: 'kube-system', status: { code: 201 } };
  assert.equal(v.route(write), TO_REPLICA_SETS | TO_DAEMON_SETS);
  const ev: TimelineEvent = { ...base(), type: 'observed', kind: 'Event', watchType: 'ADDED', object: { metadata: { name: 'e', namespace: 'kube-system' }, involvedObject: { kind: 'DaemonSet', name: 'agent', namespace: 'kube-system' }, source: { component: 'daemonset-controller' } } };
  assert.equal(v.route(ev), TO_REPLICA_SETS | TO_DAEMON_SETS);
});

test('Jobs go to the Job view alone, in the owner shape (desired = parallelism, 0 once finished); their pods, the job-controller\'s writes and Events beside the ReplicaSet view', () => {
  const v = new OwnerKindViews();
  const job: TimelineEvent = { ...base(), type: 'observed', kind: 'Job', watchType: 'ADDED', object: { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'work', namespace: 'batch', uid: 'j1' }, spec: { parallelism: 3, completions: 5, selector: { matchLabels: { 'batch.kubernetes.io/controller-uid': 'j1' } } } } };
  assert.equal(v.route(job), TO_JOBS);
  assert.equal(v.sawJob, true);
  const converted = v.convertJob(job);
  assert.equal(converted.type === 'observed' && converted.kind, 'ReplicaSet');
  assert.equal(converted.type === 'observed' && converted.kind === 'ReplicaSet' ? converted.object.spec?.replicas : undefined, 3);
  const done = v.convertJob({ ...job, object: { ...(job as { object: object }).object, status: { conditions: [{ type: 'Complete', status: 'True' }] } } as never });
  assert.equal(done.type === 'observed' && done.kind === 'ReplicaSet' ? done.object.spec?.replicas : undefined, 0);
  assert.equal(v.route(observedPod({ metadata: { name: 'work-x', namespace: 'batch', uid: 'p1', ownerReferences: [{ apiVersion: 'batch/v1', kind: 'Job', name: 'work', uid: 'j1', controller: true }] } })), TO_REPLICA_SETS | TO_JOBS);
  const write: TimelineEvent = { ...base(), type: 'write', actor: { username: 'system:serviceaccount:kube-system:job-controller', controller: 'job-controller' }, verb: 'patch', resource: 'pods', namespace: 'batch', status: { code: 200 } };
  assert.equal(v.route(write), TO_REPLICA_SETS | TO_JOBS);
  const ev: TimelineEvent = { ...base(), type: 'observed', kind: 'Event', watchType: 'ADDED', object: { metadata: { name: 'e', namespace: 'batch' }, involvedObject: { kind: 'Job', name: 'work', namespace: 'batch' }, source: { component: 'job-controller' } } };
  assert.equal(v.route(ev), TO_REPLICA_SETS | TO_JOBS);
});
