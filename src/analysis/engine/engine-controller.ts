/**
 * What the replay engine may touch of the controller model: the seam every controller kind
 * implements (model/controller/controller.ts), for the owner kind the engine replays. Each stage
 * takes a narrower `Pick` of it, so its tests can hand it the real model or a small fake. The
 * engine never imports a kind's own model (.dependency-cruiser.cjs, engine-through-seam); the
 * pipeline hands it a ControllerFactory (ReplayOptions.controller).
 *
 * The members, by what the engine does with them:
 * - informer delivery: `deliverPod`, `deliverPodTombstone`, `deliverOwner` (the informer
 *   handlers, e.g. addPod, updatePod, deletePod, addRS, updateRS, deleteRS in
 *   pkg/controller/replicaset/replica_set.go);
 * - the schedule: `runDue` (the workers draining the workqueue), `sync` (a sync the input
 *   forces), `isBusy` / `extendBusy` (a sync still making its calls), `queue` (requeue a key,
 *   drop or advance a due sync);
 * - the state the stages read or correct: `expectations` (pkg/controller/controller_utils.go:
 *   read, reset by a restart, raised or lowered by the view alignment, and its log of changes),
 *   `pods` (the informer cache and its index by controller), `owners`, `podCounts`;
 * - the view alignment's hold on the cache (not upstream): `withholdPod`, `restorePod`.
 *
 * Cost: none (a type). No I/O.
 */
import type { Controller, OwnerStatusCount } from '../../model/controller/controller.js';
import type { ReplicaSet } from '../../model/objects.js';
import { isPodActive } from '../../model/pod-ranking.js';
import type { ControllerComponent } from '../../timeline/event.js';

export type EngineController = Controller<ReplicaSet>;

/**
 * The owner kind the engine replays, as the input names it: the kind the controllerRefs of its
 * pods and the involvedObject of its Events carry, and the component its writes and Events come
 * from. The owners themselves reach the engine as ReplicaSet-shaped events (the conversion of
 * another kind happens before the engine, as upstream's informerAdapter does for RCs); every
 * stage that reads the input for an owner reads it through this.
 */
export interface EngineOwnerKind {
  readonly kind: string;
  /** The client name its writes carry (the audit actor: service account or user-agent suffix). */
  readonly component: ControllerComponent;
  /**
   * The source component of its Events, when it is not the client name: the DaemonSet controller
   * writes as `daemon-set-controller` and records Events as `daemonset-controller`.
   */
  readonly eventComponent?: string;
  /** How its status writes count the pods its cache held (default the ReplicaSet's status.replicas). */
  readonly statusCount?: OwnerStatusCount<ReplicaSet>;
  /**
   * Its 1.36+ consistency store records its own status writes and gates the next sync on them
   * (updateDaemonSetStatus / the Job's status update → WroteAt; owner-status-consistency.ts).
   */
  readonly statusConsistencyStore?: boolean;
  /**
   * Its sync ends at its own status write, which an audit log records (syncDaemonSet:
   * manage → rolling update → cleanupHistory → updateDaemonSetStatus, whose UpdateStatus is the
   * sync's last call): from such a log the key is busy until that write completed, and a pod
   * write requested after it is a later sync's (evidence-window.ts ownStatusWriteAfter).
   */
  readonly syncEndsAtStatusWrite?: boolean;
}

/**
 * The ReplicaSet's status count: status.replicas, the active pods syncReplicaSet listed
 * (calculateStatus in pkg/controller/replicaset/replica_set_utils.go); its signature the fields
 * updateReplicaSetStatus writes. The ReplicationController, converted, counts the same.
 */
export const REPLICA_SET_STATUS_COUNT: OwnerStatusCount<ReplicaSet> = {
  of: (rs) => {
    const r = (rs.status as { replicas?: unknown } | null | undefined)?.replicas;
    return typeof r === 'number' && Number.isFinite(r) ? r : undefined;
  },
  counts: isPodActive,
  signature: (rs) => {
    const s = (rs.status ?? {}) as Record<string, unknown>;
    return JSON.stringify([s.replicas, s.fullyLabeledReplicas, s.readyReplicas, s.availableReplicas, s.terminatingReplicas, s.observedGeneration]);
  },
};

/** The ReplicaSet, the kind the engine replays unless told otherwise. */
export const REPLICA_SET_OWNER: EngineOwnerKind = { kind: 'ReplicaSet', component: 'replicaset-controller' };
