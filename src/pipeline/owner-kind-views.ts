/**
 * The per-kind views of one merged TimelineEvent stream: what the ReplicaSet engine, the
 * ReplicationController engine and the DaemonSet engine each replay (one engine per owner kind
 * over one stream, read once through stream-tee.ts). Upstream the two controllers are separate (pkg/controller/replicaset and
 * pkg/controller/replication, the latter NewReplicationManager over replicaset.NewBaseController)
 * with their own informer handlers, expectations, queue and keys, so an RS and an RC may share a
 * `namespace/name`; kexp runs one engine each.
 *
 * Contract (`route`):
 * - the ReplicaSet view is the stream as it was before RCs were modelled, less the RC objects: so
 *   an input without RCs reaches the ReplicaSet engine as the very same events in the same order
 *   (byte-identical reports). It keeps every pod, as the RS informer sees every pod (the RS
 *   handlers ignore a pod whose controllerRef is another kind's).
 * - the ReplicationController view gets the RC objects, converted to the ReplicaSet shape the
 *   engine's delivery and the RS code expect (convertRCtoRS, model/replicationcontroller/
 *   conversion.ts, as upstream's informerAdapter does); pods whose controllerRef kind is
 *   ReplicationController, pods without a controllerRef (orphans: the RC manager may adopt them),
 *   and every later event of a pod it was given (a release, a re-adoption, the deletion). Dropping
 *   the other pods is exact: upstream both controllers see every pod, but the RC manager's
 *   addPod/updatePod/deletePod (replica_set.go) resolve the controllerRef by kind and return for a
 *   pod owned by a ReplicaSet. It also gets writes by the `replication-controller` client, writes
 *   to pods owned by an RC or to replicationcontrollers, core Events whose involvedObject is an RC
 *   or whose source component is replication-controller, Namespaces and gaps (both views). (The
 *   kube-controller-manager log is not in the stream: it is read apart and fused into the report.)
 * - the DaemonSet view, built the same way for the DaemonSet controller
 *   (pkg/controller/daemon/daemon_controller.go, whose handlers also resolve the controllerRef by
 *   kind): the DaemonSet objects in the owner shape (model/daemonset/engine-owner.ts), every Node
 *   (its node informer), pods whose controllerRef kind is DaemonSet, orphans and the later events
 *   of pods it was given, writes by the `daemon-set-controller` client, to daemonsets or to pods a
 *   DaemonSet owns, Events about a DaemonSet or from the `daemonset-controller` component,
 *   Namespaces and gaps. DaemonSets and Nodes go to no other view.
 * - the Job view, the same for the Job controller (pkg/controller/job/job_controller.go): the Job
 *   objects in the owner shape (model/job/engine-owner.ts), pods whose controllerRef kind is Job,
 *   orphans and their later events, writes by the `job-controller` client, to jobs or to pods a Job
 *   owns, Events about a Job or from `job-controller`, Namespaces and gaps.
 * - `sawOwner` / `sawDaemonSet` / `sawJob`: whether any RC / DaemonSet / Job object went by (else that engine's
 *   result adds nothing).
 * - `shared(source)`: whether the event at `source` went to the ReplicaSet view too, so a problem
 *   another engine finds with it is the ReplicaSet engine's to report (once).
 *
 * Objects of the wrong shape (the engines validate them) go to the ReplicaSet view alone, whose
 * engine reports them.
 *
 * Cost: per event a kind test; per pod a controllerRef read and, for the pods the RC and DaemonSet
 * views hold (orphans and their own), a Set of their keys each; a WeakSet entry per shared event.
 */
import { daemonSetAsOwner } from '../model/daemonset/engine-owner.js';
import { jobAsOwner } from '../model/job/engine-owner.js';
import { controllerRefOf, isRecord, type CoreEvent, type DaemonSet, type Job, type Pod } from '../model/objects.js';
import { replicaSetFromReplicationController } from '../model/replicationcontroller/conversion.js';
import { REPLICATION_CONTROLLER_KIND } from '../model/replicationcontroller/replication-manager.js';
import type { TimelineEvent } from '../timeline/event.js';
import { invalidObservedObject } from '../timeline/validate.js';

/** The views, as bits of the mask `route` returns. */
export const TO_REPLICA_SETS = 1;
export const TO_REPLICATION_CONTROLLERS = 2;
export const TO_DAEMON_SETS = 4;
export const TO_JOBS = 8;
/** Every view (Namespaces, gaps). */
const ALL = 15;

const RC_KIND = REPLICATION_CONTROLLER_KIND.kind;
const RC_COMPONENT = REPLICATION_CONTROLLER_KIND.component;
const DS_KIND = 'DaemonSet';
/** The DaemonSet controller's client name (its writes) and its Events' source component. */
export const DS_COMPONENT = 'daemon-set-controller';
export const DS_EVENT_COMPONENT = 'daemonset-controller';
const JOB_KIND = 'Job';
/** The Job controller's client name and its Events' source component (both `job-controller`). */
export const JOB_COMPONENT = 'job-controller';

export class OwnerKindViews {
  /** Any ReplicationController object in the stream. */
  sawOwner = false;
  /** Any DaemonSet object in the stream. */
  sawDaemonSet = false;
  /** Any Job object in the stream. */
  sawJob = false;
  /** Pods (namespace/name) the RC view was given and that still exist. */
  private readonly rcPods = new Set<string>();
  /** Pods (namespace/name) the DaemonSet view was given and that still exist. */
  private readonly dsPods = new Set<string>();
  /** Pods (namespace/name) the Job view was given and that still exist. */
  private readonly jobPods = new Set<string>();
  private readonly sharedSources = new WeakSet<object>();

  /** The views `e` belongs to (a mask of TO_REPLICA_SETS, TO_REPLICATION_CONTROLLERS, TO_DAEMON_SETS). */
  readonly route = (e: TimelineEvent): number => {
    const mask = this.mask(e);
    if ((mask & TO_REPLICA_SETS) !== 0 && mask !== TO_REPLICA_SETS) this.sharedSources.add(e.source);
    return mask;
  };

  private mask(e: TimelineEvent): number {
    if (e.type === 'observed') {
      switch (e.kind) {
        case 'Pod': {
          // The views see the input before the engines validate it: an object of the wrong shape
          // goes to the ReplicaSet view alone, whose engine reports it (as before RCs were modelled).
          const meta = (e.object as Pod | null)?.metadata;
          if (!isRecord(meta) || !(meta.ownerReferences == null || (Array.isArray(meta.ownerReferences) && meta.ownerReferences.every(isRecord)))) return TO_REPLICA_SETS;
          const ref = controllerRefOf(meta);
          // The common case first, without building the key: a ReplicaSet's pod no other view ever held.
          if (ref !== undefined && ref.kind !== RC_KIND && ref.kind !== DS_KIND && ref.kind !== JOB_KIND && this.rcPods.size === 0 && this.dsPods.size === 0 && this.jobPods.size === 0) return TO_REPLICA_SETS;
          const key = `${meta.namespace}/${meta.name}`;
          return TO_REPLICA_SETS | this.podView(this.rcPods, key, ref?.kind, RC_KIND, e.watchType, TO_REPLICATION_CONTROLLERS)
            | this.podView(this.dsPods, key, ref?.kind, DS_KIND, e.watchType, TO_DAEMON_SETS) | this.podView(this.jobPods, key, ref?.kind, JOB_KIND, e.watchType, TO_JOBS);
        }
        case 'ReplicaSet':
          return TO_REPLICA_SETS;
        case 'ReplicationController':
          this.sawOwner = true;
          return TO_REPLICATION_CONTROLLERS;
        case 'DaemonSet':
          this.sawDaemonSet = true;
          return TO_DAEMON_SETS;
        case 'Node':
          return TO_DAEMON_SETS;
        case 'Job':
          this.sawJob = true;
          return TO_JOBS;
        case 'Namespace':
          return ALL;
        case 'Event': {
          const ev = e.object as CoreEvent | null;
          const kind = ev?.involvedObject?.kind;
          const component = ev?.source?.component;
          return TO_REPLICA_SETS
            | (kind === RC_KIND || component === RC_COMPONENT ? TO_REPLICATION_CONTROLLERS : 0)
            | (kind === DS_KIND || component === DS_EVENT_COMPONENT ? TO_DAEMON_SETS : 0)
            | (kind === JOB_KIND || component === JOB_COMPONENT ? TO_JOBS : 0);
        }
      }
    }
    if (e.type === 'write') {
      const ownerKind = e.owner?.state === 'owned' ? e.owner.kind : undefined;
      return TO_REPLICA_SETS
        | (e.actor?.controller === RC_COMPONENT || e.resource === 'replicationcontrollers' || ownerKind === RC_KIND ? TO_REPLICATION_CONTROLLERS : 0)
        | (e.actor?.controller === DS_COMPONENT || e.resource === 'daemonsets' || ownerKind === DS_KIND ? TO_DAEMON_SETS : 0)
        | (e.actor?.controller === JOB_COMPONENT || e.resource === 'jobs' || ownerKind === JOB_KIND ? TO_JOBS : 0);
    }
    if (e.type === 'gap') return ALL;
    return TO_REPLICA_SETS;
  }

  /** Whether a pod event goes to the view of `kind` (holding `held`): its own pods, orphans, and later events of pods it was given. */
  private podView(held: Set<string>, key: string, refKind: string | undefined, kind: string, watchType: string, bit: number): number {
    if (refKind !== undefined && refKind !== kind && !held.has(key)) return 0;
    if (watchType === 'DELETED') held.delete(key);
    else if (refKind === undefined || refKind === kind) held.add(key);
    return bit;
  }

  /** The event the RC view is handed: an RC converted to the ReplicaSet shape. */
  readonly convert = (e: TimelineEvent): TimelineEvent => {
    // (an RC of the wrong shape goes unconverted: the RC engine's validation reports it)
    if (e.type !== 'observed' || e.kind !== 'ReplicationController' || !isRecord(e.object) || !isRecord(e.object.metadata)) return e;
    const spec = (e.object as { spec?: unknown }).spec;
    if (spec != null && (!isRecord(spec) || !(spec.selector == null || isRecord(spec.selector)))) return e;
    return { ...e, kind: 'ReplicaSet', object: replicaSetFromReplicationController(e.object) };
  };

  /** The event the DaemonSet view is handed: a DaemonSet in the owner shape (a malformed one as it came, for its engine to report). */
  readonly convertDaemonSet = (e: TimelineEvent): TimelineEvent => {
    if (e.type !== 'observed' || e.kind !== 'DaemonSet' || invalidObservedObject(e)) return e;
    return { ...e, kind: 'ReplicaSet', object: daemonSetAsOwner(e.object as DaemonSet) };
  };

  /** The event the Job view is handed: a Job in the owner shape (a malformed one as it came, for its engine to report). */
  readonly convertJob = (e: TimelineEvent): TimelineEvent => {
    if (e.type !== 'observed' || e.kind !== 'Job' || invalidObservedObject(e)) return e;
    return { ...e, kind: 'ReplicaSet', object: jobAsOwner(e.object as Job) };
  };

  /** Whether the event at `source` went to the ReplicaSet view and another. */
  shared(source: object): boolean {
    return this.sharedSources.has(source);
  }
}
