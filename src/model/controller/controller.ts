/**
 * The controller seam: what a replay engine may touch of a pod-owning controller model, whatever
 * the owner kind (ReplicaSet today; ReplicationController, DaemonSet and Job use the same
 * machinery upstream). An engine drives a controller only through this interface and never
 * imports a kind's model.
 *
 * Upstream splits the same way: pkg/controller/controller_utils.go holds what every controller
 * shares (ControllerExpectations / UIDTrackingControllerExpectations → expectations.ts,
 * PodControlInterface → pod-control.ts), client-go the informers, tombstones and the workqueue
 * (informer.ts, tombstone.ts, workqueue.ts, busy-time.ts), every controller repeats the same
 * worker loop (worker.ts), and each controller's own file holds its handlers and its sync
 * (pkg/controller/replicaset/replica_set.go → replicaset/).
 *
 * Contract (every member, for every kind):
 * - Time is the caller's: each call carries `at` (epoch ms); the model does no I/O and reads no
 *   clock. Whatever the controller would ask the API server is answered by the PodControl it was
 *   built with.
 * - Observed events go in through `deliverPod`, `deliverPodTombstone` and `deliverOwner`, exactly
 *   as the controller's informers would deliver them: the cache changes, then the handlers run
 *   (they update expectations and enqueue keys; they never sync).
 * - Syncs run only through `runDue` (the due ones, in order) or `sync` (one key, now); each
 *   returns its SyncRecord and also reports it to the onSync callback the model was built with.
 * - `expectations`, `queue`, `pods` and `owners` are the controller's own state, shared, not
 *   copies: an engine reads them, and realigns the model with the input only through
 *   operations the controller would not make at that point (ControllerExpectations.reset and
 *   raise, WorkQueue.take and dropDue) or ones it replays (creationObserved, add). It never
 *   writes `pods` or `owners` except through withholdPod/restorePod.
 * - Keys are `namespace/name` of the owner (controller.KeyFunc); pod keys likewise (PodKey).
 *
 * Cost: that of the implementation (replicaset/replicaset-controller.ts states its own); the
 * interface adds nothing.
 */
import type { ControllerExpectations } from '../expectations.js';
import type { Node, ObjectMeta, Pod } from '../objects.js';
import type { PodStore } from '../pod-store.js';
import type { WorkQueue } from '../workqueue.js';
import type { WatchType } from './informer.js';
import type { PodControl } from './pod-control.js';
import type { SyncRecord } from './sync-record.js';

/** An owner's pods in the cache: active ones it controls (and that match it), ready among them, and terminating ones. */
export interface PodCounts {
  active: number;
  ready: number;
  terminating: number;
}

export interface Controller<Owner extends { metadata: ObjectMeta }> {
  /** The expectations store (UIDTrackingControllerExpectations), keyed by owner key. */
  readonly expectations: ControllerExpectations;
  /** The schedule: the rate-limited workqueue of owner keys. */
  readonly queue: WorkQueue;
  /** The pod informer's cache, with the podController index. Read-only for the engine. */
  readonly pods: PodStore;
  /** The owner informer's cache: owner key → owner. */
  readonly owners: ReadonlyMap<string, Owner>;

  /** A pod watch event, through the pod informer (add/update/delete handlers). */
  deliverPod(watchType: WatchType, pod: Pod, at: number): void;
  /** A pod delete the informer missed, found by a relist: the delete handler gets a tombstone of `stale`. */
  deliverPodTombstone(stale: Pod, at: number): void;
  /** An owner watch event, through the owner informer. */
  deliverOwner(watchType: WatchType, owner: Owner, at: number): void;
  /** A node watch event, through the node informer — only for a kind that watches nodes (the DaemonSet). */
  deliverNode?(watchType: WatchType, node: Node, at: number): void;

  /** Runs every queued sync due before `before` (or at it, when `inclusive`), in due order. */
  runDue(before: number, inclusive?: boolean): SyncRecord[];
  /** Syncs `key` now, whether or not it was due (the replay saw the controller act). */
  sync(key: string, at: number): SyncRecord;

  /** True while an earlier sync of `key` is still making its API calls at `at`. */
  isBusy(key: string, at: number): boolean;
  /**
   * Whether the pod's ADD was already observed by a sync it arrived during (the DaemonSet's
   * rolling-update check after manage's calls returned): its delivery lowers nothing, and no view
   * alignment may hold it back as unseen. Undefined for a kind that observes ADDs only at delivery.
   */
  observedDuringSync?(podUid: string): boolean;
  /** The sync of `key` in progress is now known to last until `until`. */
  extendBusy(key: string, until: number): void;

  /** Current counts of the owner's pods, kept per delivery; undefined when the model keeps no such counts. */
  podCounts(key: string): PodCounts | undefined;
  /** Not upstream: removes a pod from the cache without running handlers (the real cache did not hold it yet). Returns it. */
  withholdPod(key: string): Pod | undefined;
  /** Not upstream: puts a withheld pod back without running handlers. */
  restorePod(pod: Pod): void;
}

/**
 * How a kind's own status write counts the pods its informer cache held — what a replay compares
 * with the pods the input showed to learn what the controller saw (analysis/engine/view-alignment.ts).
 * The ReplicaSet's is status.replicas over its active pods (calculateStatus); another kind says its own.
 */
export interface OwnerStatusCount<Owner> {
  /** The count a status write of `owner` shows; undefined when it shows none the replay can compare. */
  of(owner: Owner): number | undefined;
  /** Whether the controller's count includes pod `p` (one of its own). */
  counts(p: Pod): boolean;
  /** The status fields its sync writes, as one string: a change of it is a status write. */
  signature(owner: Owner): string;
  /**
   * The UIDs of pods a status write names as ones its sync listed — proof the controller's cache
   * held them (a Job's status.uncountedTerminatedPods: finished pods it saw in its informer);
   * undefined for a kind whose status names no pod.
   */
  seen?(owner: Owner): ReadonlySet<string> | undefined;
  /**
   * The status's count of ready pods among those it counts, and which pod is ready (a Job's
   * status.ready over its active pods): more ready than the pods kexp delivers to its model are
   * ready proves the cache held ready pods kexp withholds. Undefined for a kind not wired.
   */
  ready?: { of(owner: Owner): number | undefined; is(p: Pod): boolean };
}

/** What an engine builds a controller model with: the answers to its API calls, and where its syncs go. */
export interface ControllerDeps<Owner> {
  podControl: PodControl<Owner>;
  /** Called with every sync the model runs (runDue or sync), as it ends. */
  onSync: (s: SyncRecord) => void;
}

/** Builds a controller model of one kind (at the version the caller chose) for an engine. */
export type ControllerFactory<Owner extends { metadata: ObjectMeta }> = (deps: ControllerDeps<Owner>) => Controller<Owner>;
