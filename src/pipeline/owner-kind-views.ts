/**
 * The per-kind views of one merged TimelineEvent stream: what the ReplicaSet engine and the
 * ReplicationController engine each replay (one engine per owner kind over one stream, read once
 * through stream-tee.ts). Upstream the two controllers are separate (pkg/controller/replicaset and
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
 * - `sawOwner`: whether any RC object went by (else the RC engine's result adds nothing).
 * - `shared(source)`: whether the event at `source` went to both views, so a problem the RC engine
 *   finds with it is the ReplicaSet engine's to report (once).
 *
 * Objects of the wrong shape (the engines validate them) go to the ReplicaSet view alone, whose
 * engine reports them.
 *
 * Cost: per event a kind test; per pod a controllerRef read and, for the few pods the RC view
 * holds (orphans and RC-owned), a Set of their keys; a WeakSet entry per shared event.
 */
import { controllerRefOf, isRecord, type CoreEvent, type Pod } from '../model/objects.js';
import { replicaSetFromReplicationController } from '../model/replicationcontroller/conversion.js';
import { REPLICATION_CONTROLLER_KIND } from '../model/replicationcontroller/replication-manager.js';
import type { TimelineEvent } from '../timeline/event.js';
import { TO_FIRST, TO_SECOND } from './stream-tee.js';

export const TO_REPLICA_SETS = TO_FIRST;
export const TO_REPLICATION_CONTROLLERS = TO_SECOND;
const BOTH = TO_FIRST | TO_SECOND;

const RC_KIND = REPLICATION_CONTROLLER_KIND.kind;
const RC_COMPONENT = REPLICATION_CONTROLLER_KIND.component;

export class OwnerKindViews {
  /** Any ReplicationController object in the stream. */
  sawOwner = false;
  /** Pods (namespace/name) the RC view was given and that still exist. */
  private readonly rcPods = new Set<string>();
  private readonly sharedSources = new WeakSet<object>();

  /** The views `e` belongs to (stream-tee.ts bits). */
  readonly route = (e: TimelineEvent): number => {
    if (e.type === 'observed') {
      switch (e.kind) {
        case 'Pod': {
          // The views see the input before the engines validate it: an object of the wrong shape
          // goes to the ReplicaSet view alone, whose engine reports it (as before RCs were modelled).
          const meta = (e.object as Pod | null)?.metadata;
          if (!isRecord(meta) || !(meta.ownerReferences == null || (Array.isArray(meta.ownerReferences) && meta.ownerReferences.every(isRecord)))) return TO_REPLICA_SETS;
          const ref = controllerRefOf(meta);
          // The common case first, without building the key: a pod of another kind the RC view never held.
          if (ref !== undefined && ref.kind !== RC_KIND && this.rcPods.size === 0) return TO_REPLICA_SETS;
          const key = `${meta.namespace}/${meta.name}`;
          if (ref !== undefined && ref.kind !== RC_KIND && !this.rcPods.has(key)) return TO_REPLICA_SETS;
          if (e.watchType === 'DELETED') this.rcPods.delete(key);
          else if (ref === undefined || ref.kind === RC_KIND) this.rcPods.add(key);
          return this.both(e);
        }
        case 'ReplicaSet':
          return TO_REPLICA_SETS;
        case 'ReplicationController':
          this.sawOwner = true;
          return TO_REPLICATION_CONTROLLERS;
        case 'Namespace':
          return this.both(e);
        case 'Event': {
          const ev = e.object as CoreEvent | null;
          return ev?.involvedObject?.kind === RC_KIND || ev?.source?.component === RC_COMPONENT ? this.both(e) : TO_REPLICA_SETS;
        }
      }
    }
    if (e.type === 'write') {
      if (e.actor?.controller === RC_COMPONENT || e.resource === 'replicationcontrollers' || (e.owner?.state === 'owned' && e.owner.kind === RC_KIND)) return this.both(e);
      return TO_REPLICA_SETS;
    }
    if (e.type === 'gap') return this.both(e);
    return TO_REPLICA_SETS;
  };

  /** The event the RC view is handed: an RC converted to the ReplicaSet shape. */
  readonly convert = (e: TimelineEvent): TimelineEvent => {
    // (an RC of the wrong shape goes unconverted: the RC engine's validation reports it)
    if (e.type !== 'observed' || e.kind !== 'ReplicationController' || !isRecord(e.object) || !isRecord(e.object.metadata)) return e;
    const spec = (e.object as { spec?: unknown }).spec;
    if (spec != null && (!isRecord(spec) || !(spec.selector == null || isRecord(spec.selector)))) return e;
    return { ...e, kind: 'ReplicaSet', object: replicaSetFromReplicationController(e.object) };
  };

  /** Whether the event at `source` went to both views. */
  shared(source: object): boolean {
    return this.sharedSources.has(source);
  }

  private both(e: TimelineEvent): number {
    this.sharedSources.add(e.source);
    return BOTH;
  }
}
