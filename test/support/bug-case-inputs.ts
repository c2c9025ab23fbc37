/**
 * The public incidents of ../shared/docs/bug-cases.md rebuilt as inputs kexp reads: one builder
 * per case (or variant), shared by the tests that assert one diagnosis each
 * (test/analysis/bug-cases*.test.ts, legacy-versions.test.ts) and by the bench that scores them
 * all (bench/bug-cases/). Each takes the Kubernetes release the incident happened on where the
 * case depends on it: an audit log carries it in the controller's user agent, a recording in its
 * header's serverVersion. Contract: pure builders over AuditLogBuilder / RecordingBuilder —
 * deterministic text for a given start time, no I/O except `write`. Cost: each input is at most
 * a few thousand lines, built in milliseconds.
 */
import { AuditLogBuilder, actors, type Actor } from './audit-builder.js';
import { RecordingBuilder } from './recording-builder.js';
import { WorkQueue } from '../../src/model/workqueue.js';
import type { Pod } from '../../src/model/objects.js';
import { daemonPod, daemonSet, dsEvent, node as dsNode, T0 } from './daemonset-recording.js';
import { changed as dsChanged } from '../model/daemonset/daemonset-harness.js';
import { CREATE_TIMEOUT, JobAudit, WEBHOOK_ERROR } from './job-audit.js';
import { auditLog as dsAuditLog, daemonSetOpening, dsStatus, eventCreate, kcmLease, nodeCreate, nodeHeartbeat, podCreate, type AuditLine as DsAuditLine } from './daemonset-audit.js';

/** An actor of kube-controller-manager with the user agent of a given release. */
export function kcmActorOf(a: Actor, version: string): Actor {
  return { ...a, userAgent: a.userAgent!.replace(/kube-controller-manager\/v[\d.]+/, `kube-controller-manager/${version}`) };
}

/** The ReplicaSet controller's actor with the user agent of a given kube-controller-manager release. */
export function rsControllerOf(version: string): Actor {
  return kcmActorOf(actors.rsController(), version);
}

/** A recording's text with its header's serverVersion set to `version`. */
export function recordingOfVersion(b: RecordingBuilder, version: string): string {
  return b.text().replace('"serverVersion":"v1.37.2"', `"serverVersion":"${version}"`);
}

const TIMEOUT_MESSAGE = 'the server was unable to return a response in the time allotted, but may still be processing the request (post pods)';
export const timeoutFailure = { code: 504, reason: 'Timeout', message: TIMEOUT_MESSAGE };

/**
 * #110631: a ReplicaSet that existed before the log, scaled to 1 by the deployment controller;
 * its only create comes 5 m 04 s later, right after an unrelated change of the ReplicaSet.
 */
export function lateFirstCreate(version = 'v1.37.2', o: { gatedSync?: boolean } = {}): AuditLogBuilder {
  const b = new AuditLogBuilder();
  b.rsController = rsControllerOf(version);
  b.replicaSet(1, kcmActorOf(actors.deploymentController(), version), { existedSince: b.t - 86_400_000 });
  // `gatedSync`: the controller synced at once and was gated — its sync still ends with a status
  // write (observedGeneration of the scale-up, 0 replicas), as updateReplicaSetStatus does.
  if (o.gatedSync) b.advance(100).rsStatus(0);
  b.advance(303_900 - (o.gatedSync ? 100 : 0));
  if (o.gatedSync) touchReplicaSet(b, actors.user());
  else b.replicaSet(1, actors.user()); // any later change to the ReplicaSet enqueues it
  b.advance(100);
  b.controllerCreate();
  b.advance(10).rsStatus(1);
  return b;
}

/**
 * A metadata-only update of the ReplicaSet (an annotation: generation unchanged), as a person's
 * `kubectl annotate` or a label change makes: it enqueues the ReplicaSet, and a sync after it
 * writes no status when nothing it counts changed.
 */
export function touchReplicaSet(b: AuditLogBuilder, actor: Actor, n = b.rv): void {
  b.rs = structuredClone(b.rs);
  b.rs.metadata.resourceVersion = String(++b.rv);
  b.rs.metadata.annotations = { ...(b.rs.metadata.annotations ?? {}), touched: String(n) };
  b.record({ actor, verb: 'patch', resource: 'replicasets', apiGroup: 'apps', name: b.rsName, code: 200, requestObject: { metadata: { annotations: { touched: String(n) } } }, responseObject: b.rs });
}

/** #67662: a create that timed out (504), then nothing until an unrelated change 40 minutes later. */
export function timedOutCreate(version: string): AuditLogBuilder {
  const b = new AuditLogBuilder();
  b.rsController = rsControllerOf(version);
  b.replicaSet(0);
  b.advance(1000).replicaSet(1);
  b.advance(20).controllerCreate(timeoutFailure);
  b.advance(10).rsStatus(0);
  // 40 minutes later an unrelated change enqueues the ReplicaSet: the create comes only then.
  b.advance(40 * 60_000).replicaSet(1, actors.user());
  b.advance(20).controllerCreate();
  b.advance(10).rsStatus(1);
  return b;
}

/**
 * #48893: creates that time out while a slow initializer holds the pods invisible; each
 * 5-minute expiry (with a trigger: the ReplicaSet touched) issues one more create.
 */
export function hiddenPodsRepeated(version: string, creates = 3): AuditLogBuilder {
  const b = new AuditLogBuilder();
  b.rsController = rsControllerOf(version);
  b.replicaSet(0);
  b.advance(1000).replicaSet(1);
  b.advance(20).controllerCreate(timeoutFailure);
  b.advance(10).rsStatus(0);
  for (let i = 1; i < creates; i++) {
    b.advance(301_000);
    touchReplicaSet(b, actors.user()); // a change of the ReplicaSet after the expiry
    b.advance(20).controllerCreate(timeoutFailure); // status unchanged (0 replicas): no status write
  }
  b.advance(60_000);
  return b;
}

/**
 * #129795 (watch-drop variant): 3 creates answered 201, their pods deleted by the kubelet
 * within 2 s (before the controller's informer, relisting after a 410, ever saw them); the
 * controller is gated until the expiry, then creates 3 again.
 */
export function createsDeletedBeforeSeen(version = 'v1.37.2'): AuditLogBuilder {
  const b = new AuditLogBuilder();
  b.rsController = rsControllerOf(version);
  b.replicaSet(0);
  b.advance(1000).replicaSet(3);
  const first: string[] = [];
  for (let i = 0; i < 3; i++) first.push(b.advance(5).controllerCreate()!);
  b.advance(10).rsStatus(0);
  b.advance(2000);
  for (const p of first) b.advance(5).removePod(p);
  // The controller's syncs meanwhile are gated (no write); a touch a minute enqueues it.
  for (let i = 1; i <= 5; i++) {
    b.advance(60_000);
    touchReplicaSet(b, actors.user());
  }
  for (let i = 0; i < 3; i++) b.advance(5).controllerCreate();
  b.advance(10).rsStatus(3);
  b.advance(5000);
  return b;
}

/** #5 (kubernetes#69376): a ReplicaSet deleted and recreated under the same name, as a recording of `version`. */
export function recreatedUnderSameName(version: string): string {
  const b = new RecordingBuilder('jobs', 'job-rs');
  b.namespace().replicaSet(0);
  b.advance(1000).replicaSet(2);
  b.advance(5).event('SuccessfulCreate', 'Created pod: job-rs-aaaaa');
  b.advance(5).event('SuccessfulCreate', 'Created pod: job-rs-bbbbb');
  const old = structuredClone(b.rs);
  b.advance(100).emit('replicasets', 'DELETED', old);
  const fresh = structuredClone(old);
  fresh.metadata.uid = 'rs-u2-0000-0000-0000-000000000002';
  fresh.metadata.resourceVersion = String(++b.rv);
  fresh.status = { replicas: 0 };
  b.advance(100).emit('replicasets', 'ADDED', fresh);
  b.advance(100).addPod(1, { name: 'job-rs-aaaaa' }); // the old ReplicaSet's pods, not the new one's
  b.advance(5).addPod(2, { name: 'job-rs-bbbbb' });
  b.advance(2000).deletePod('job-rs-aaaaa');
  b.advance(5).deletePod('job-rs-bbbbb');
  b.advance(300_000);
  b.emit('replicasets', 'MODIFIED', { ...fresh, metadata: { ...fresh.metadata, resourceVersion: String(++b.rv), annotations: { poke: '1' } } });
  b.advance(2000).end();
  return recordingOfVersion(b, version);
}

export const quotaFailure = (used = 1, limited = 1) => ({ code: 403, message: `pods "x" is forbidden: exceeded quota: q, requested: pods=1, used: pods=${used}, limited: pods=${limited}` });

/**
 * #12 before v1.8 (no slow start): one sync of a ReplicaSet of 500 with 5 pods under a
 * `pods=5` quota issues all 495 creates, every one 403.
 */
export function quotaBurst(version: string): AuditLogBuilder {
  const b = new AuditLogBuilder();
  b.rsController = rsControllerOf(version);
  b.replicaSet(0);
  b.advance(1000).replicaSet(5);
  for (let i = 0; i < 5; i++) b.advance(5).controllerCreate();
  b.advance(10).rsStatus(5);
  b.advance(60_000).replicaSet(500);
  for (let i = 0; i < 495; i++) b.advance(2).controllerCreate(quotaFailure(5, 5));
  b.advance(10).rsStatus(5);
  b.advance(5000);
  return b;
}

/**
 * #13: a recording of a quota-blocked ReplicaSet's Events: one FailedCreate whose count climbs
 * (the recorder's aggregation: PATCHes of one Event), `retries` failures `everyMs` apart, no pod.
 */
export function quotaEventSpam(retries: number, everyMs: number): string {
  const b = new RecordingBuilder();
  b.namespace().replicaSet(0);
  b.advance(1000).replicaSet(1);
  const msg = 'Error creating: pods "web-7d9c6b8f5d-x" is forbidden: exceeded quota: q, requested: pods=1, used: pods=1, limited: pods=1';
  for (let i = 0; i < retries; i++) b.advance(i === 0 ? 20 : everyMs).event('FailedCreate', msg, 'Warning');
  b.advance(1000).end();
  return b.text();
}

/**
 * #14 (kubernetes#98656): quota-rejected creates re-triggered by the ReplicaSet's updates; the
 * retries as client-go's rate-limited delaying queue schedules them (every update enqueues it
 * at once, every failure requeues it with a doubled delay); the quota frees at +90 s, the
 * create comes only when the inflated backoff is due.
 */
export function backoffInflation(version: string): AuditLogBuilder {
  const b = new AuditLogBuilder();
  b.rsController = rsControllerOf(version);
  const deploy = kcmActorOf(actors.deploymentController(), version);
  b.replicaSet(1, deploy);
  b.userPod('other', { app: 'other' });
  const q = new WorkQueue();
  const key = `${b.ns}/${b.rsName}`;
  const start = b.t;
  const triggers = Array.from({ length: 19 }, (_, i) => start + 200 * (i + 1));
  const quotaFreedAt = start + 90_000;
  q.add(key, start);
  let ti = 0;
  for (;;) {
    const nextTrigger = triggers[ti];
    const due = q.dueAt(key);
    if (nextTrigger !== undefined && (due === undefined || nextTrigger < due)) {
      b.advance(nextTrigger - b.t).replicaSet(1, deploy);
      q.add(key, nextTrigger);
      ti++;
      continue;
    }
    if (due === undefined) break;
    q.next(due, true);
    b.advance(Math.max(1, due + 3 - b.t));
    if (b.t < quotaFreedAt) {
      b.controllerCreate(quotaFailure());
      q.addRateLimited(key, b.t);
    } else {
      b.controllerCreate();
      break;
    }
    if (b.t > quotaFreedAt - 90_000 && b.t < quotaFreedAt && q.dueAt(key)! > quotaFreedAt && ti >= triggers.length) {
      b.advance(quotaFreedAt - b.t).removePod('other');
    }
  }
  return b;
}

/** #15: `failures` pods, each rejected by the kubelet (phase Failed, `reason`) within 1.5 s and replaced. */
export function replacementChurn(version: string, failures = 5, reason = 'OutOfmemory'): AuditLogBuilder {
  const b = new AuditLogBuilder();
  b.rsController = rsControllerOf(version);
  b.replicaSet(1);
  for (let i = 0; i < failures; i++) {
    const p = b.advance(5).controllerCreate()!;
    b.advance(1500).podStatus(p, 'Failed', { reason });
  }
  return b;
}

/** The ReplicaSet's deletion by `actor`: propagation `Orphan` sets its deletionTimestamp and the orphan finalizer. */
export function deleteReplicaSet(b: AuditLogBuilder, actor: Actor, propagation: 'Orphan' | 'Foreground'): void {
  b.rs = structuredClone(b.rs);
  b.rs.metadata.resourceVersion = String(++b.rv);
  b.rs.metadata.deletionTimestamp = new Date(Math.floor(b.t / 1000) * 1000).toISOString().replace('.000Z', 'Z');
  b.rs.metadata.finalizers = [propagation === 'Orphan' ? 'orphan' : 'foregroundDeletion'];
  b.record({ actor, verb: 'delete', resource: 'replicasets', apiGroup: 'apps', name: b.rsName, code: 200, requestObject: { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: propagation }, responseObject: b.rs });
}

/** The garbage collector's patch that removes a pod's ownerReference (orphaning it). */
export function gcOrphanPod(b: AuditLogBuilder, name: string, actor = actors.gc()): void {
  const p = structuredClone(b.pods.get(name));
  const ownerUid = p.metadata.ownerReferences?.[0]?.uid ?? b.rsUid;
  p.metadata.resourceVersion = String(++b.rv);
  delete p.metadata.ownerReferences;
  b.pods.set(name, p);
  b.record({ actor, verb: 'patch', resource: 'pods', name, code: 200, requestObject: { metadata: { ownerReferences: [{ $patch: 'delete', uid: ownerUid }], uid: p.metadata.uid } }, responseObject: p });
}

/** The ReplicaSet's final removal (its finalizer gone): the garbage collector's update. */
export function finalizeReplicaSet(b: AuditLogBuilder, actor = actors.gc()): void {
  b.rs = structuredClone(b.rs);
  b.rs.metadata.resourceVersion = String(++b.rv);
  b.rs.metadata.finalizers = [];
  b.record({ actor, verb: 'update', resource: 'replicasets', apiGroup: 'apps', name: b.rsName, code: 200, requestObject: b.rs, responseObject: b.rs });
  b.record({ actor, verb: 'delete', resource: 'replicasets', apiGroup: 'apps', name: b.rsName, code: 200, requestObject: { kind: 'DeleteOptions', apiVersion: 'v1' }, responseObject: b.rs });
}

/**
 * #17 (kubernetes#42639), the RS→pod shape: the ReplicaSet is deleted with orphaning; the
 * garbage collector removes its pod's ownerReference; 10 ms later the controller (its cache
 * still showing the ReplicaSet live) adopts the pod back; the ReplicaSet goes; the garbage
 * collector deletes the now-owned pod.
 */
export function gcOrphanReadopted(version: string): AuditLogBuilder {
  const b = new AuditLogBuilder();
  b.rsController = rsControllerOf(version);
  b.replicaSet(1);
  const pod = b.advance(20).controllerCreate()!;
  b.advance(10).rsStatus(1);
  b.advance(60_000);
  deleteReplicaSet(b, actors.user(), 'Orphan');
  b.advance(50);
  gcOrphanPod(b, pod);
  b.advance(10).adoptPod(pod);
  b.advance(30);
  finalizeReplicaSet(b);
  b.advance(400).deletePod(pod, { actor: actors.gc(), graceSeconds: 0 });
  b.advance(1000);
  return b;
}

/**
 * #18 (kubernetes#44144): an orphan matching the selector, being deleted by a user, when the
 * ReplicaSet appears. `adoptIt`: the pre-1.7 controller adopts it anyway (the bug's signature);
 * otherwise it is left alone and the ReplicaSet creates its full set.
 */
export function terminatingOrphan(version: string, adoptIt: boolean): AuditLogBuilder {
  const b = new AuditLogBuilder();
  b.rsController = rsControllerOf(version);
  b.userPod('p1');
  b.advance(100).deletePod('p1', { actor: actors.user() });
  b.advance(1000).replicaSet(1);
  if (adoptIt) b.advance(5).adoptPod('p1');
  b.advance(5).controllerCreate();
  b.advance(10).rsStatus(1);
  b.advance(1000);
  return b;
}

/**
 * #19 (kubernetes#32829), the ReplicaSet form: pods p1, p2 of ReplicaSet `rc-a` (created before
 * the log) are orphaned by the garbage collector when rc-a is deleted with orphaning; `rc-b`,
 * same selector, counting them by label (as before ControllerRef), adopts them only at its
 * resync 10 minutes later.
 */
export function orphansAdoptedAtResync(version: string): AuditLogBuilder {
  const b = new AuditLogBuilder('shop', 'rc-b');
  b.rsController = rsControllerOf(version);
  b.replicaSet(2, actors.user(), { existedSince: b.t - 86_400_000 });
  b.rs.status = { replicas: 2, fullyLabeledReplicas: 2, observedGeneration: 1 };
  const rcA = { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rc-a', uid: 'rs-a-0000-0000-0000-00000000000a', controller: true, blockOwnerDeletion: true };
  for (const name of ['p1', 'p2']) {
    b.pods.set(name, {
      apiVersion: 'v1', kind: 'Pod',
      metadata: { name, namespace: b.ns, uid: `pod-${name}-0000-0000-000000000001`, resourceVersion: String(++b.rv), creationTimestamp: new Date(b.t - 3_600_000).toISOString().replace(/\.\d{3}Z$/, 'Z'), labels: { app: 'web' }, ownerReferences: [rcA] },
      spec: { nodeName: 'node-1', containers: [{ name: 'app', image: 'nginx:1.27' }] },
      status: { phase: 'Running' },
    });
  }
  b.advance(1000);
  for (const name of ['p1', 'p2']) {
    b.advance(5);
    gcOrphanPod(b, name);
  }
  b.advance(600_000);
  b.advance(5).adoptPod('p1');
  b.advance(5).adoptPod('p2');
  b.advance(1000);
  return b;
}

/**
 * #20 (kubernetes#88550): rs1 (replicas 1, its pod running); a test creates a bare pod with
 * the same labels; the controller adopts it, is over target and deletes one.
 */
export function plainPodClaimed(version: string): AuditLogBuilder {
  const b = new AuditLogBuilder('e2e', 'rs1');
  b.rsController = rsControllerOf(version);
  b.replicaSet(1, actors.user());
  const own = b.advance(20).controllerCreate()!;
  b.advance(10).rsStatus(1);
  b.advance(1000).podStatus(own, 'Running', { ready: true });
  b.advance(5000).userPod('plain');
  b.advance(20).adoptPod('plain');
  b.advance(10).deletePod('plain');
  b.advance(10).rsStatus(1);
  b.advance(1000);
  return b;
}

/**
 * #21 (kubernetes#94851): a bare pod `nginx` (its own image) created 60 s before rs01
 * (replicas 3, same labels): the controller adopts it and creates 2.
 */
export function bareAdoptedFewerCreated(version: string): AuditLogBuilder {
  const b = new AuditLogBuilder('default', 'rs01');
  b.rsController = rsControllerOf(version);
  b.userPod('nginx');
  const p = b.pods.get('nginx');
  p.spec.containers[0].image = 'nginx:1.19';
  // The user's create as recorded carries the pod's own image.
  b.lines[b.lines.length - 1] = b.lines[b.lines.length - 1]!.replaceAll('nginx:1.27', 'nginx:1.19');
  b.advance(60_000).replicaSet(3, actors.user());
  b.advance(5).adoptPod('nginx');
  b.advance(5).controllerCreate();
  b.advance(5).controllerCreate();
  b.advance(10).rsStatus(3);
  b.advance(1000);
  return b;
}

/**
 * #22 (kubernetes#24137): a ReplicaSet with no owner (its Deployment gone), 2 pods; a user
 * deletes one, the controller creates a replacement.
 */
export function leftoverReplicaSet(version: string): AuditLogBuilder {
  const b = new AuditLogBuilder('default', 'web-3326');
  b.rsController = rsControllerOf(version);
  b.replicaSet(2, actors.user());
  b.rs.metadata.ownerReferences = undefined;
  b.lines[b.lines.length - 1] = JSON.stringify((() => { const e = JSON.parse(b.lines[b.lines.length - 1]!); delete e.requestObject.metadata.ownerReferences; delete e.responseObject.metadata.ownerReferences; return e; })());
  const pods = [b.advance(20).controllerCreate()!, b.advance(5).controllerCreate()!];
  b.advance(10).rsStatus(2);
  b.advance(3_600_000).deletePod(pods[0]!, { actor: actors.user() });
  b.advance(20).controllerCreate();
  b.advance(10).rsStatus(2);
  b.advance(1000);
  return b;
}

/**
 * #24 (kubernetes#19299): 5 → 3; the controller deletes 2 and, 20 ms later, one more (its
 * record lost or clobbered), then creates one back.
 */
export function clobberedExtraDelete(version: string): AuditLogBuilder {
  const b = new AuditLogBuilder();
  b.rsController = rsControllerOf(version);
  b.replicaSet(5);
  for (let i = 0; i < 5; i++) b.advance(5).controllerCreate();
  b.advance(60_000).replicaSet(3);
  const pods = [...b.pods.keys()];
  b.advance(5).deletePod(pods[0]!).advance(5).deletePod(pods[1]!);
  b.advance(20).deletePod(pods[2]!);
  b.advance(30).controllerCreate();
  return b;
}

/**
 * #25 (kubernetes#32567): the old ReplicaSet scaled 1 → 0 deletes its pod with a 600 s grace
 * period and reports status.replicas 0 while the pod terminates; the new one creates its pod at
 * once. Two ReplicaSets in one log (their lines merged by time).
 */
export function terminatingInvisible(version: string): AuditLogBuilder {
  const old = new AuditLogBuilder('shop', 'db-old');
  old.rsController = rsControllerOf(version);
  old.replicaSet(1, actors.user());
  const p = old.advance(20).controllerCreate()!;
  old.advance(10).rsStatus(1);
  old.advance(60_000).replicaSet(0);
  old.advance(5).deletePod(p, { graceSeconds: 600 });
  old.advance(10).rsStatus(0);
  const fresh = new AuditLogBuilder('shop', 'db-new', old.t - 15);
  fresh.rsController = old.rsController;
  fresh.rv = old.rv + 1000;
  fresh.replicaSet(1);
  fresh.advance(1000).controllerCreate();
  fresh.advance(10).rsStatus(1);
  // The log ends two minutes into the 600 s grace period: both pods exist.
  old.advance(120_000);
  const time = (l: string) => Date.parse(JSON.parse(l).stageTimestamp);
  old.lines = [...old.lines, ...fresh.lines].sort((a, b) => time(a) - time(b));
  return old;
}

/**
 * #27 (kubernetes#57191), the ReplicaSet form: 300 pods; the ReplicaSet is deleted (foreground:
 * its deletionTimestamp set); the garbage collector deletes its pods in bursts while the
 * controller, its cache still showing the ReplicaSet live, creates replacements.
 */
export function createsAfterOwnerDeletion(version: string, pods = 300, burst = 50): AuditLogBuilder {
  const b = new AuditLogBuilder('density', 'rc-7');
  b.rsController = rsControllerOf(version);
  b.replicaSet(pods, actors.user());
  const names: string[] = [];
  for (let i = 0; i < pods; i++) names.push(b.advance(2).controllerCreate()!);
  b.advance(10).rsStatus(pods);
  b.advance(60_000);
  deleteReplicaSet(b, actors.user(), 'Foreground');
  for (let i = 0; i < names.length; i += burst) {
    b.advance(500);
    for (const n of names.slice(i, i + burst)) b.advance(1).deletePod(n, { actor: actors.gc(), graceSeconds: 0 });
    b.advance(200);
    for (let k = 0; k < burst; k++) b.advance(2).controllerCreate();
  }
  b.advance(2000);
  finalizeReplicaSet(b);
  b.advance(1000);
  return b;
}

/** #28 (PR #8138): replicas 2, two creates; 3 s later a third create from a stale count; the surplus deleted. */
export function staleCountSurplus(version: string): AuditLogBuilder {
  const b = new AuditLogBuilder();
  b.rsController = rsControllerOf(version);
  b.replicaSet(2);
  b.advance(5).controllerCreate();
  b.advance(5).controllerCreate();
  b.advance(3000).controllerCreate();
  b.advance(1000).deletePod([...b.pods.keys()][2]!);
  return b;
}


// ───────────────────────── DaemonSets and Jobs (issue #22) ─────────────────────────

const DS_TIMEOUT_STATUS = { metadata: {} as Record<string, never>, status: 'Failure', reason: 'Timeout', message: TIMEOUT_MESSAGE, code: 504 };
const hb = (ms: number) => new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z');

/** updateDaemonSetStatus's counts as the controller writes them (no pod ready: the rebuilt inputs never run a kubelet). */
function dsCounts(desired: number, current: number, observedGeneration: number, misscheduled = 0) {
  return { desiredNumberScheduled: desired, currentNumberScheduled: current, numberMisscheduled: misscheduled, numberReady: 0, updatedNumberScheduled: current, numberAvailable: 0, numberUnavailable: desired, observedGeneration };
}

/**
 * The DaemonSet controller's create of a daemon pod that timed out (504: no pod in the response).
 * Answered `latencyMs` after it was sent: the rebuilt inputs keep it short, as case 2's do — the
 * apiserver's own 60-s request timeout puts the answer past the audit reading's 60-s match window
 * of the sync that sent it (a limit of the engine, listed in RESULTS.md's notes).
 */
function dsCreateTimedOut(sentAt: number, pod: Pod, latencyMs = 20): DsAuditLine {
  const { name: _n, uid: _u, resourceVersion: _r, creationTimestamp: _c, ...meta } = pod.metadata;
  return { at: sentAt + latencyMs, receivedAt: sentAt, actor: 'ds-controller', verb: 'create', resource: 'pods', namespace: pod.metadata.namespace, code: 504, status: DS_TIMEOUT_STATUS, requestObject: { ...pod, metadata: meta, status: {} } };
}

/** A DELETE of a daemon pod by `actor`: answered with the pod (200) or NotFound (404, already gone). */
function dsPodDelete(at: number, pod: Pod, actor: DsAuditLine['actor'], o: { notFound?: boolean; response?: Pod } = {}): DsAuditLine {
  const name = pod.metadata.name!;
  if (o.notFound) {
    return { at, actor, verb: 'delete', resource: 'pods', namespace: pod.metadata.namespace, name, code: 404, status: { metadata: {}, code: 404, status: 'Failure', reason: 'NotFound', message: `pods "${name}" not found` }, requestObject: { kind: 'DeleteOptions', apiVersion: 'v1' } };
  }
  return { at, actor, verb: 'delete', resource: 'pods', namespace: pod.metadata.namespace, name, requestObject: { kind: 'DeleteOptions', apiVersion: 'v1', ...(actor === 'pod-gc' ? { gracePeriodSeconds: 0 } : {}) }, responseObject: o.response ?? pod };
}

/**
 * Case 3 (kubernetes#72155): a DaemonSet kube-system/agent over node n1; nodes n2 and n3 register
 * and both creates for them time out (504, FailedCreate Events), no pod appears; before v1.18 the
 * controller counts a timed-out create as made, so the add=2 record waits until its 5-minute
 * expiry and nothing syncs the DaemonSet after it — until node n4 registers 45 minutes later and
 * the sync creates the pods of n2, n3 and n4. `version`: the release of the controller's user
 * agent (the report does not name one; December 2018).
 */
export function dsTimedOutCreates(version: string): string {
  const S = 1000;
  const [n1, n2, n3, n4] = ['n1', 'n2', 'n3', 'n4'].map((n) => dsNode(n));
  const ds = daemonSet();
  const created = dsChanged(ds, () => {});
  const p1 = daemonPod(ds, 'n1', { at: T0 + 5 * S, name: 'agent-q7x2k' });
  const t1 = T0 + 120 * S;
  const lost2 = daemonPod(ds, 'n2', { at: t1, name: 'agent-lost2' });
  const lost3 = daemonPod(ds, 'n3', { at: t1, name: 'agent-lost3' });
  const t2 = t1 + 45 * 60 * S;
  const later = ['n2', 'n3', 'n4'].map((n, i) => daemonPod(ds, n, { at: t2 + 100 + 30 * i, name: `agent-late${i + 2}` }));
  const lines: DsAuditLine[] = [
    nodeHeartbeat(T0, n1!, hb(T0)),
    { at: T0 + 5 * S - 100, actor: 'person', verb: 'create', resource: 'daemonsets', namespace: 'kube-system', requestObject: ds, responseObject: created },
    podCreate(T0 + 5 * S, p1),
    eventCreate(T0 + 5 * S + 10, dsEvent(ds, T0 + 5 * S, 'SuccessfulCreate', `Created pod: ${p1.metadata.name}`)),
    dsStatus(T0 + 5 * S + 80, dsChanged(created, (d) => { d.status = dsCounts(1, 1, 1); })),
    nodeCreate(t1 - 20, n2!),
    nodeCreate(t1 - 20, n3!),
    // Slow start: one create per batch (1, then 1), each answered 504.
    dsCreateTimedOut(t1, lost2),
    eventCreate(t1 + 30, dsEvent(ds, t1 + 20, 'FailedCreate', `Error creating: ${TIMEOUT_MESSAGE}`, 'Warning')),
    dsCreateTimedOut(t1 + 25, lost3),
    eventCreate(t1 + 55, dsEvent(ds, t1 + 45, 'FailedCreate', `Error creating: ${TIMEOUT_MESSAGE}`, 'Warning')),
    dsStatus(t1 + 80, dsChanged(created, (d) => { d.status = dsCounts(3, 1, 1); })),
    nodeCreate(t2, n4!),
    ...later.flatMap((p, i) => [podCreate(t2 + 100 + 30 * i, p), eventCreate(t2 + 110 + 30 * i, dsEvent(ds, t2 + 100 + 30 * i, 'SuccessfulCreate', `Created pod: ${p.metadata.name}`))]),
    dsStatus(t2 + 300, dsChanged(created, (d) => { d.status = dsCounts(4, 4, 1); })),
    nodeHeartbeat(t2 + 60 * S, dsChanged(n1!, () => {}), hb(t2 + 60 * S)),
  ];
  return dsAuditLog(lines, version);
}

/**
 * Case 6 (kubernetes#75836, v1.14.0): DaemonSet kube-system/agent on nodes n1 and n2; n2 is
 * deleted; the pod GC force-deletes its daemon pod (200) and the DaemonSet controller — whose
 * getPodsWithoutNode (#73401) deletes every pod of a removed node — deletes it too, 5 ms later:
 * 404, which DeletePod swallowed before v1.19, so `del` stays 1. Node n3 registers a second later:
 * the sync is gated (status only: desired 2, current 1); nothing creates its pod until a change
 * of the DaemonSet 6 minutes later, after the record expired.
 */
export function dsNodeRemovedPodGcRace(version: string): string {
  const S = 1000;
  const [n1, n2, n3] = ['n1', 'n2', 'n3'].map((n) => dsNode(n));
  const ds = daemonSet();
  const created = dsChanged(ds, () => {});
  const p1 = { ...daemonPod(ds, 'n1', { at: T0 + 5 * S, name: 'agent-q7x2k' }) };
  const p2 = daemonPod(ds, 'n2', { at: T0 + 5 * S, name: 'agent-m4v9d' });
  const bound = (p: Pod, nodeName: string) => dsChanged(p, (x) => { x.spec = { ...x.spec, nodeName }; x.status = { phase: 'Running' }; });
  const t1 = T0 + 600 * S;
  const p3 = daemonPod(ds, 'n3', { at: t1 + 370 * S, name: 'agent-z8c4w' });
  const lines: DsAuditLine[] = [
    ...daemonSetOpening(T0, T0 + 5 * S, [n1!, n2!], ds, created, [p1, p2], dsChanged(created, (d) => { d.status = dsCounts(2, 2, 1); })),
    // The scheduler binds them, the kubelets run them.
    { at: T0 + 6 * S, actor: { kubelet: 'n1' }, verb: 'patch', resource: 'pods', subresource: 'status', namespace: 'kube-system', name: p1.metadata.name, requestObject: { status: { phase: 'Running' } }, responseObject: bound(p1, 'n1') },
    { at: T0 + 6 * S + 10, actor: { kubelet: 'n2' }, verb: 'patch', resource: 'pods', subresource: 'status', namespace: 'kube-system', name: p2.metadata.name, requestObject: { status: { phase: 'Running' } }, responseObject: bound(p2, 'n2') },
    { at: t1, actor: 'person', verb: 'delete', resource: 'nodes', name: 'n2', requestObject: { kind: 'DeleteOptions', apiVersion: 'v1' }, responseObject: n2 },
    dsPodDelete(t1 + 15 * S, bound(p2, 'n2'), 'pod-gc'),
    dsPodDelete(t1 + 15 * S + 5, p2, 'ds-controller', { notFound: true }),
    nodeCreate(t1 + 16 * S, n3!),
    dsStatus(t1 + 16 * S + 40, dsChanged(created, (d) => { d.status = dsCounts(2, 1, 1); })),
    // Six minutes later a person's change of the DaemonSet (an annotation) syncs it: the record has expired.
    { at: t1 + 370 * S - 100, actor: 'person', verb: 'patch', resource: 'daemonsets', namespace: 'kube-system', name: 'agent', requestObject: { metadata: { annotations: { poke: '1' } } }, responseObject: dsChanged(created, (d) => { d.metadata.annotations = { ...d.metadata.annotations, poke: '1' }; d.status = dsCounts(2, 1, 1); }) },
    podCreate(t1 + 370 * S, p3),
    eventCreate(t1 + 370 * S + 10, dsEvent(ds, t1 + 370 * S, 'SuccessfulCreate', `Created pod: ${p3.metadata.name}`)),
    dsStatus(t1 + 370 * S + 80, dsChanged(created, (d) => { d.status = dsCounts(2, 2, 1); })),
    nodeHeartbeat(t1 + 430 * S, dsChanged(n1!, () => {}), hb(t1 + 430 * S)),
  ];
  return dsAuditLog(lines, version);
}

/**
 * Case 7 (kubernetes#95432, v1.15.3 — the line numbers of its log): DaemonSet kube-system/agent on
 * n1 and n2; a person taints n1 NoExecute for maintenance; the taint manager evicts the daemon pod
 * and it is gone (final delete) before the controller's delete, answered 404: swallowed before
 * v1.19, `del` stays 1. The person removes the taint 2 minutes later, inside the record's 5
 * minutes: the sync is gated, no create; nothing syncs the DaemonSet after the expiry, until the
 * person taints and untaints n1 again 20 minutes later. `untaintInRecord: false`: the first untaint
 * is left out (n1 stays tainted until the second taint 20 minutes later): no sync inside the
 * record's 5 minutes finds a pod needed, so nothing in the input shows whether the record waited.
 */
export function dsNotFoundAfterTaint(version: string, o: { untaintInRecord?: boolean } = {}): string {
  const S = 1000;
  const [n1, n2] = ['n1', 'n2'].map((n) => dsNode(n));
  const ds = daemonSet();
  const created = dsChanged(ds, () => {});
  const p1 = daemonPod(ds, 'n1', { at: T0 + 5 * S, name: 'agent-p1x7q' });
  const p2 = daemonPod(ds, 'n2', { at: T0 + 5 * S, name: 'agent-m4v9d' });
  const taint = { key: 'maintenance', value: 'true', effect: 'NoExecute' };
  const tainted = (at: number) => dsChanged(n1!, (n) => { n.spec = { ...n.spec, taints: [taint] }; void at; });
  const untainted = () => dsChanged(n1!, (n) => { n.spec = { ...n.spec, taints: [] }; });
  const nodePatch = (at: number, node: unknown): DsAuditLine => ({ at, actor: 'person', verb: 'patch', resource: 'nodes', name: 'n1', requestObject: { spec: { taints: (node as { spec: { taints: unknown[] } }).spec.taints } }, responseObject: node });
  const t1 = T0 + 600 * S;
  const p3 = daemonPod(ds, 'n1', { at: t1 + 1322 * S, name: 'agent-k2r9s' });
  const lines: DsAuditLine[] = [
    ...daemonSetOpening(T0, T0 + 5 * S, [n1!, n2!], ds, created, [p1, p2], dsChanged(created, (d) => { d.status = dsCounts(2, 2, 1); })),
    nodePatch(t1, tainted(t1)),
    // The taint manager's eviction; the pod is gone (the kubelet's final delete) before the controller's delete arrives.
    dsPodDelete(t1 + 200, p1, 'node-controller', { response: dsChanged(p1, (p) => { p.metadata.deletionTimestamp = new Date(t1 + 200).toISOString().replace(/\.\d+Z$/, 'Z'); p.metadata.deletionGracePeriodSeconds = 0; }) }),
    dsPodDelete(t1 + 1 * S, p1, 'ds-controller', { notFound: true }),
    // RealPodControl.DeletePod (controller_utils.go v1.15.3) returns nil for NotFound and records
    // SuccessfulDelete all the same.
    eventCreate(t1 + 1 * S + 10, dsEvent(ds, t1 + 1 * S, 'SuccessfulDelete', `Deleted pod: ${p1.metadata.name}`)),
    // The same sync's status: updateDaemonSetStatus lists the pods again (getNodesToDaemonPods), and
    // for `del` to stay 1 the informer delivered the pod's deletion before syncNodes' SetExpectations
    // (its DeletionObserved lowered the previous record), so that listing no longer has it: desired 1
    // (n1 tainted), current 1, misscheduled 0.
    dsStatus(t1 + 1 * S + 40, dsChanged(created, (d) => { d.status = dsCounts(1, 1, 1, 0); })),
    ...(o.untaintInRecord === false ? [] : [
      nodePatch(t1 + 120 * S, untainted()),
      dsStatus(t1 + 120 * S + 40, dsChanged(created, (d) => { d.status = dsCounts(2, 1, 1); })),
    ]),
    nodePatch(t1 + 1320 * S, tainted(t1 + 1320 * S)),
    nodePatch(t1 + 1322 * S - 100, untainted()),
    podCreate(t1 + 1322 * S, p3),
    eventCreate(t1 + 1322 * S + 10, dsEvent(ds, t1 + 1322 * S, 'SuccessfulCreate', `Created pod: ${p3.metadata.name}`)),
    dsStatus(t1 + 1322 * S + 80, dsChanged(created, (d) => { d.status = dsCounts(2, 2, 1); })),
  ];
  return dsAuditLog(lines, version);
}

/**
 * kubernetes#54096: two daemon pods on one node after a kube-controller-manager failover with a
 * stale cache (the scenario of the issue: a node added, the DaemonSet creates its pod, the
 * process dies, the new leader's first LIST comes from an apiserver cache that has not yet seen
 * that create, so it creates a second pod there; once its informer delivers the first, it has two
 * on the node and deletes the newer — podsShouldBeOnNode keeps the oldest). On a release before
 * the consistent LIST from the watch cache (ConsistentListFromCache, on by default from 1.31),
 * e.g. v1.29.8: the audit log shows the Lease of process cp-1 renewed every 2 s, its creates
 * (one credential), n3 registering and cp-1's create for it, the renewals stopping, cp-2 taking
 * the Lease 15 s after the last one, and cp-2's creates and delete (another credential).
 */
export function dsFailoverStaleCache(version: string): string {
  const S = 1000;
  const [n1, n2, n3] = ['n1', 'n2', 'n3'].map((n) => dsNode(n));
  const ds = daemonSet();
  const created = dsChanged(ds, () => {});
  const cp1 = 'cp-1_6a2f1c0e-5b7d-4c1e-9f3a-0d1e2c3b4a51';
  const cp2 = 'cp-2_b9e8d7c6-1a2b-4c3d-8e9f-a0b1c2d3e4f5';
  const credB = 'JTI=7e2d4c1a-ds-cp2';
  const p1 = daemonPod(ds, 'n1', { at: T0 + 5 * S, name: 'agent-q7x2k' });
  const p2 = daemonPod(ds, 'n2', { at: T0 + 5 * S, name: 'agent-m4v9d' });
  const tNode = T0 + 20 * S;
  const first = daemonPod(ds, 'n3', { at: tNode + 100, name: 'agent-h2k8s' });
  const lastRenew = tNode;
  const takeover = lastRenew + 15 * S + 400;
  const second = daemonPod(ds, 'n3', { at: takeover + 900, name: 'agent-w5r9t' });
  const lines: DsAuditLine[] = [
    nodeHeartbeat(T0, n1!, hb(T0)),
    nodeHeartbeat(T0 + 100, n2!, hb(T0)),
    ...Array.from({ length: 11 }, (_, i) => kcmLease(T0 + i * 2 * S, cp1, T0 - 3_600_000, 4)),
    { at: T0 + 5 * S - 100, actor: 'person', verb: 'create', resource: 'daemonsets', namespace: 'kube-system', requestObject: ds, responseObject: created },
    podCreate(T0 + 5 * S, p1),
    podCreate(T0 + 5 * S + 30, p2),
    eventCreate(T0 + 5 * S + 40, dsEvent(ds, T0 + 5 * S, 'SuccessfulCreate', `Created pod: ${p1.metadata.name}`)),
    eventCreate(T0 + 5 * S + 50, dsEvent(ds, T0 + 5 * S + 30, 'SuccessfulCreate', `Created pod: ${p2.metadata.name}`)),
    dsStatus(T0 + 5 * S + 80, dsChanged(created, (d) => { d.status = dsCounts(2, 2, 1); })),
    nodeCreate(tNode - 50, n3!),
    podCreate(tNode + 100, first),
    eventCreate(tNode + 110, dsEvent(ds, tNode + 100, 'SuccessfulCreate', `Created pod: ${first.metadata.name}`)),
    // cp-1 dies here: no status write, no renewal. cp-2 takes the Lease once it has expired.
    ...Array.from({ length: 13 }, (_, i) => kcmLease(takeover + i * 2 * S, cp2, takeover, 5)),
    { ...podCreate(takeover + 900, second), credential: credB },
    { ...eventCreate(takeover + 910, dsEvent(ds, takeover + 900, 'SuccessfulCreate', `Created pod: ${second.metadata.name}`)), credential: credB },
    { ...dsStatus(takeover + 980, dsChanged(created, (d) => { d.status = dsCounts(3, 3, 1); })), credential: credB },
    // Its informer delivers cp-1's pod on n3: two there; the newer is deleted.
    { ...dsPodDelete(takeover + 1900, second, 'ds-controller'), credential: credB },
    { ...eventCreate(takeover + 1910, dsEvent(ds, takeover + 1900, 'SuccessfulDelete', `Deleted pod: ${second.metadata.name}`)), credential: credB },
    nodeHeartbeat(takeover + 20 * S, dsChanged(n1!, () => {}), hb(takeover + 20 * S)),
  ];
  return dsAuditLog(lines, version);
}

// ---- Jobs (issue #22): audit logs of the Job controller, test/support/job-audit.ts ----------

const JOB_T0 = Date.parse('2026-11-30T03:45:08.903Z');
const jobIso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

/**
 * The times of a Job's syncs that fail one after another: the workqueue's per-key exponential
 * failure backoff (`AddRateLimited`: base · 2^failures, capped), brought forward by pod events
 * (enqueueSyncJobBatched / AddAfter(1 s) with an earlier time wins in the delaying queue), from
 * the first failed sync at `first` until `until`. Cost: O(syncs).
 */
function failingSyncTimes(first: number, until: number, baseMs: number, capMs: number, podEvents: number[] = [], batchMs = 1000): number[] {
  const out: number[] = [];
  let at = first;
  for (let failures = 0; at <= until; failures++) {
    out.push(at);
    let next = at + Math.min(baseMs * 2 ** failures, capMs);
    for (const e of podEvents) if (e > at && e + batchMs < next) next = e + batchMs;
    at = next;
  }
  return out;
}

/**
 * kubernetes#78796 (reported on 1.11/1.12, GKE): a CronJob's Job whose pod creates fail — 500s
 * from a failing admission webhook, a FailedCreate Event each — until one create is answered 504
 * Timeout. The v1.12 controller (pkg/controller/job/job_controller.go): the first sync sets
 * startTime, and that status update enqueues the Job at once (updateJob → enqueueController
 * immediate), so a second create follows within milliseconds; every failed sync is requeued by
 * AddRateLimited (DefaultJobBackOff 10 s doubling, MaxJobBackOff 360 s): retries at +10 s, +40 s,
 * +80 s. Before #86140 manageJob returned on IsTimeout without lowering `add`: the record waits for
 * a pod that was never made; that sync returned no error, so nothing requeues the Job, and after
 * the record's 5-minute expiry nothing syncs it again (no pod event, no Job change): it stays at
 * 0/1 with no pod for hours — the log ends with the kubelet's heartbeats 3 hours later and nothing
 * from the job-controller.
 */
export function jobTimedOutCreate(version: string): string {
  const a = new JobAudit({ name: 'mycronjob-1558410300', trackingFinalizer: false });
  a.createJob(JOB_T0, 'cronjob-controller');
  const syncs = [600, 625, 10_600, 50_600, 130_600].map((ms) => JOB_T0 + ms);
  syncs.forEach((at, i) => {
    const last = i === syncs.length - 1;
    a.createPod(at, last ? CREATE_TIMEOUT : WEBHOOK_ERROR);
    if (!last) a.event(at + 5, 'FailedCreate', `Error creating: ${WEBHOOK_ERROR.message}`, 'Warning');
    if (i === 0) a.jobStatus(at + 10, { startTime: jobIso(JOB_T0 + 600), active: 0 });
  });
  // Three hours of nothing from the job-controller: only the node's heartbeats.
  for (let h = 1; h <= 3; h++) a.nodeHeartbeat(JOB_T0 + h * 3_600_000);
  return a.text(version);
}

/**
 * kubernetes#139428 (1.32–1.36 before the cherry-picks of #139457: v1.34.10, v1.35.8, v1.36.3):
 * a Job of parallelism 2; one pod Failed while the other runs ready. During the pod-failure
 * backoff (10 s after the failure) manageJob returned 0 active, so the status update the same
 * sync writes — the failed pod into status.uncountedTerminatedPods, active 0, ready 1 — is
 * rejected 422 "cannot set more ready pods than active", before the failed pod's job-tracking
 * finalizer is removed: a person's delete and the kubelet's final delete leave it Terminating.
 * Each retry (API backoff 1 s doubling, DefaultJobApiBackOff; the pod events bring one forward)
 * is rejected the same way until the backoff ends; the sync at its end (the requeue manageJob
 * asked for) creates the replacement, the
 * status goes through and the finalizer is removed — the pod is gone with that PATCH. `fixed`: the
 * same Job on a release with the fix (active kept during the backoff: nothing rejected).
 */
export function jobBackoffStatusRejected(version: string, o: { fixed?: boolean } = {}): string {
  const a = new JobAudit({ namespace: 'train', name: 'pi', completions: 4, parallelism: 2 });
  const t = (s: number) => JOB_T0 + s * 1000;
  const startTime = jobIso(JOB_T0);
  a.createJob(JOB_T0, 'person');
  const p1 = a.createPod(t(0.1))!;
  a.event(t(0.1) + 5, 'SuccessfulCreate', `Created pod: ${p1.metadata.name}`);
  const p2 = a.createPod(t(0.12))!;
  a.event(t(0.12) + 5, 'SuccessfulCreate', `Created pod: ${p2.metadata.name}`);
  a.jobStatus(t(0.2), { startTime, active: 2, terminating: 0, uncountedTerminatedPods: {}, ready: 0 });
  a.kubeletStatus(t(2), p1, 'Running');
  a.kubeletStatus(t(2.1), p2, 'Running');
  a.jobStatus(t(3.1), { startTime, active: 2, terminating: 0, uncountedTerminatedPods: {}, ready: 2 });
  a.kubeletStatus(t(10), p1, 'Failed', false);
  const deleted = t(15);
  // The backoff ends 10 s after the failure's finish time (the container's finishedAt, whole
  // seconds): each sync during it calls enqueueSyncJobWithDelay(remaining) in manageJob, so the key
  // is due then (job_controller.go v1.36.2 and v1.36.3 alike).
  const backoffEnds = Math.floor(t(10) / 1000) * 1000 + 10_000;
  let after: number;
  if (o.fixed) {
    // v1.34.10/v1.35.8/v1.36.3+: the backoff keeps the active count; the status goes through at
    // once, the finalizer is removed, the replacement comes at the requeue when the backoff ends.
    a.jobStatus(t(11), { startTime, active: 1, terminating: 0, uncountedTerminatedPods: { failed: [p1.metadata.uid] }, ready: 1 });
    a.removeFinalizer(t(11) + 100, p1);
    a.jobStatus(t(11) + 200, { startTime, active: 1, failed: 1, terminating: 0, uncountedTerminatedPods: {}, ready: 1 });
    a.deletePod(deleted, p1, 'person', 30);
    a.deletePod(deleted + 200, p1, { kubelet: a.node }, 0);
    after = backoffEnds;
  } else {
    const rejected = { code: 422, reason: 'Invalid', message: 'Job.batch "pi" is invalid: status.ready: Invalid value: 1: cannot set more ready pods than active' };
    const during = { startTime, active: 0, terminating: 0, uncountedTerminatedPods: { failed: [p1.metadata.uid] }, ready: 1 };
    // Each sync during the backoff asks for the requeue at its end before its status update is
    // refused, so the key is due then, ahead of the API backoff's next retry.
    const syncs = failingSyncTimes(t(11), backoffEnds - 1, 1000, 60_000, [deleted, deleted + 200]);
    for (const at of syncs) a.jobStatus(at, during, rejected);
    a.deletePod(deleted, p1, 'person', 30);
    a.deletePod(deleted + 200, p1, { kubelet: a.node }, 0);
    // The sync at the end of the backoff: the replacement, the status, the finalizer.
    after = backoffEnds;
  }
  const p3 = a.createPod(after)!;
  a.event(after + 5, 'SuccessfulCreate', `Created pod: ${p3.metadata.name}`);
  if (o.fixed) {
    a.jobStatus(after + 100, { startTime, active: 2, failed: 1, terminating: 0, uncountedTerminatedPods: {}, ready: 1 });
  } else {
    a.jobStatus(after + 100, { startTime, active: 2, terminating: 0, uncountedTerminatedPods: { failed: [p1.metadata.uid] }, ready: 1 });
    a.removeFinalizer(after + 200, p1);
    a.jobStatus(after + 300, { startTime, active: 2, failed: 1, terminating: 0, uncountedTerminatedPods: {}, ready: 1 });
  }
  a.kubeletStatus(after + 2000, p3, 'Running');
  a.jobStatus(after + 3100, { startTime, active: 2, failed: 1, terminating: 0, uncountedTerminatedPods: {}, ready: 2 });
  return a.text(version);
}

/**
 * kubernetes#127917 (1.29, AKS): a CronJob's Job; its pod Succeeded; the controller counts it
 * into status.uncountedTerminatedPods, then its finalizer-removal PATCH is rejected — "Pod QoS is
 * immutable": a mutating webhook on pod UPDATE changes the resources (the diagnosis of the thread
 * and of the Job docs' troubleshooting, kubernetes/website#43773). The controller retries with its
 * API backoff (DefaultJobApiBackOff 1 s doubling to MaxJobApiBackOff 1 min), every PATCH refused
 * the same way; a person's delete and the kubelet's final delete leave the pod Terminating, and
 * the Job never leaves 0/1: it cannot finish while the pod is uncounted. The log ends 40 minutes
 * in, still refused.
 */
export function jobFinalizerPatchRejected(version: string): string {
  const a = new JobAudit({ namespace: 'etl', name: 'nightly-export-28800400', completions: 1, parallelism: 1 });
  const t = (s: number) => JOB_T0 + s * 1000;
  const startTime = jobIso(JOB_T0);
  a.createJob(JOB_T0, 'cronjob-controller');
  const p = a.createPod(t(0.1))!;
  a.event(t(0.1) + 5, 'SuccessfulCreate', `Created pod: ${p.metadata.name}`);
  a.jobStatus(t(0.2), { startTime, active: 1, terminating: 0, uncountedTerminatedPods: {}, ready: 0 });
  a.kubeletStatus(t(3), p, 'Running');
  a.jobStatus(t(4.1), { startTime, active: 1, terminating: 0, uncountedTerminatedPods: {}, ready: 1 });
  a.kubeletStatus(t(60), p, 'Succeeded', false);
  a.jobStatus(t(61.1), { startTime, active: 0, terminating: 0, uncountedTerminatedPods: { succeeded: [p.metadata.uid] }, ready: 0 });
  const qos = { code: 422, reason: 'Invalid', message: `Pod "${p.metadata.name}" is invalid: metadata: Invalid value: "Burstable": Pod QoS is immutable` };
  const deleted = t(600);
  for (const at of failingSyncTimes(t(61.2), t(40 * 60), 1000, 60_000, [deleted, deleted + 200])) a.removeFinalizer(at, p, qos);
  a.deletePod(deleted, p, 'person', 30);
  a.deletePod(deleted + 200, p, { kubelet: a.node }, 0);
  return a.text(version);
}

/**
 * kubernetes#128358 (v1.28.13-eks, open, no diagnosis in the thread): a CronJob's Job (every 5
 * minutes, concurrencyPolicy Forbid) stands at 0/1 for 84 minutes and no pod matches its selector.
 * What the operator has is what the report shows — the Job and an empty pod list — so the rebuilt
 * input is a kexp recording started then (its initial LIST: the Job; no pod, no Event in the
 * namespace — Events live one hour) that runs two minutes with nothing happening. The Job's status
 * has startTime (syncJob sets it at the first sync of a Job not suspended, job_controller.go
 * v1.28.13) and no counts: no pod active, none succeeded or failed, none uncounted.
 */
export function jobZeroOfOneNoPods(): string {
  const ns = 'zzz';
  const name = 'xxxxx-job-28833075';
  const uid = '7b3e9f10-4c2a-4d8e-9a61-2f5c8e0d1b37';
  const created = JOB_T0;
  const seen = JOB_T0 + 84 * 60_000;
  const iso6 = (ms: number) => new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
  const labels = { 'batch.kubernetes.io/controller-uid': uid, 'batch.kubernetes.io/job-name': name, 'controller-uid': uid, 'job-name': name };
  const job = {
    kind: 'Job', apiVersion: 'batch/v1',
    metadata: {
      name, namespace: ns, uid, resourceVersion: '88412907', generation: 1, creationTimestamp: jobIso(created), labels,
      ownerReferences: [{ apiVersion: 'batch/v1', kind: 'CronJob', name: 'xxxxx-job', uid: '1d0c5a7e-8b2f-4e39-b6d4-7a9e3c2f1b58', controller: true, blockOwnerDeletion: true }],
    },
    spec: {
      parallelism: 1, completions: 1, backoffLimit: 6, completionMode: 'NonIndexed', suspend: false,
      selector: { matchLabels: { 'batch.kubernetes.io/controller-uid': uid } },
      template: { metadata: { labels }, spec: { containers: [{ name: 'work', image: 'registry.example.com/xxxxx:2024.10', resources: { requests: { cpu: '100m' } } }], restartPolicy: 'Never', terminationGracePeriodSeconds: 30, dnsPolicy: 'ClusterFirst', schedulerName: 'default-scheduler' } },
    },
    status: { startTime: jobIso(created), ready: 0, uncountedTerminatedPods: {} },
  };
  const header = {
    kexpRecording: 1, kexpVersion: '0.1.0', serverVersion: 'v1.28.13-eks-a737599', namespace: ns, startedAt: iso6(seen),
    watches: [{ resource: 'jobs', namespace: ns }, { resource: 'pods', namespace: ns }, { resource: 'events', namespace: ns }],
    redacted: true,
  };
  return [
    JSON.stringify(header),
    JSON.stringify({ recv: iso6(seen + 12), src: 'jobs', event: { type: 'ADDED', object: job }, synthetic: 'initial-list' }),
    JSON.stringify({ recv: iso6(seen + 120_000), end: { reason: 'duration' } }),
  ].join('\n') + '\n';
}
