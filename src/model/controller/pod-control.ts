/**
 * Pod control: everything a pod-owning controller would ask the API server, answered by the
 * caller instead of a cluster. Generic in the owner kind (a ReplicaSet, later a
 * ReplicationController, DaemonSet or Job), so every controller model asks through the same
 * interface and a replay answers all of them from one evidence oracle.
 *
 * Mirrors PodControlInterface / RealPodControl in pkg/controller/controller_utils.go (CreatePods,
 * DeletePod, PatchPod), plus the one other API call a sync makes: the live GET of the owner behind
 * CanAdopt (RecheckDeletionTimestamp in pkg/controller/controller_ref_manager.go, which upstream
 * makes through the controller's own client).
 *
 * Contract: the model never performs I/O; each method is called synchronously at the model time
 * `at` (epoch ms) and answers at once. A result may say when the call completed (`doneAt`): the
 * sync lasts until its last call returns (busy-time.ts). Unit tests script the answers
 * (test/model/controller-harness.ts), a replay answers from the input (analysis/evidence-oracle.ts).
 * Cost: whatever the implementation costs; the model calls it once per API call it would make.
 */
import type { PatchResult } from '../adoption.js';
import type { Pod } from '../objects.js';

/**
 * Result of one pod create call (RealPodControl.CreatePods), as the caller answers it. Two
 * answers exist only for replays, where the input — not an API server — answers:
 * - `unknown`: the input cannot tell whether the call was made or how it ended; the model
 *   proceeds as the API usually answers (created), and the round's outcome is reported as unknown;
 * - `unmade`: the input shows the controller made no such call (an audit log that records its
 *   writes has none); the model walks it back like a skipped create and ends the round, with no error.
 */
export type CreateResult = (
  | { ok: true; pod?: string; unknown?: boolean }
  | {
      ok: false;
      error: string;
      /** NamespaceTerminating cause: counted as success by the RS controller. */
      namespaceTerminating?: boolean;
      /** apierrors.IsTimeout (504, reason Timeout): counted as success before v1.18 (VersionFeatures.createTimeoutAsSuccess). */
      timeout?: boolean;
      unmade?: undefined;
    }
  | { ok: false; unmade: true }
) & {
  /**
   * When the call completed, if known (epoch ms). The sync lasts until its last call returns;
   * events arriving meanwhile only mark the key dirty (one more sync after it ends).
   */
  doneAt?: number;
};

/** Result of one pod delete call (RealPodControl.DeletePod); `unknown` and `unmade` as for CreateResult. */
export type DeleteResult = (
  | { ok: true; unknown?: boolean }
  | { ok: false; notFound: true; unmade?: undefined }
  | { ok: false; notFound?: false; error: string; unmade?: undefined }
  | { ok: false; notFound?: false; unmade: true }
) & { doneAt?: number };

/** Everything a controller of `Owner`s would ask the API server, answered by the caller. */
export interface PodControl<Owner> {
  /**
   * One create call; `index` is 0-based within the round of `n` calls; `node` is the node a
   * DaemonSet creates the pod for (its required node affinity names it); `completionIndex` the
   * index an Indexed Job's pod is created for (its batch.kubernetes.io/job-completion-index annotation).
   */
  createPod(owner: Owner, call: { round: number; index: number; n: number; at: number; node?: string; completionIndex?: number }): CreateResult;
  /** One delete call for a chosen pod. */
  deletePod(owner: Owner, pod: Pod, call: { round: number; at: number }): DeleteResult;
  /** The live GET of the owner behind CanAdopt (RecheckDeletionTimestamp). */
  getFreshOwner(owner: Owner, at: number): Owner | { notFound: true } | { error: string };
  /**
   * Adopt/release PATCH of a pod; `round` numbers the sync's claim patches like a create/delete
   * round; `owner` is the controller patching (its controllerRef is what an adopt writes).
   */
  patchPod(pod: Pod, action: 'adopt' | 'release', at: number, round?: number, owner?: Owner): PatchResult;
  /**
   * Optional: lets a replay replace the predicted scale-down victims with the ones the
   * input shows were deleted (the real sort is not stable, see pod-ranking.ts).
   */
  chooseDeletions?(owner: Owner, predicted: Pod[], active: Pod[], at: number): { pods: Pod[]; note?: string };
  /**
   * Optional (replays): true when the input shows that the controller made no pod write for
   * `owner` at this sync although the model would (`diff` as manageReplicas computes it) — e.g. an
   * audit log that records the controller's writes has none. The sync then stops before
   * manageReplicas with outcome `withheld`: the real controller was held by something the
   * model does not know (a record from before the input, no sync at this time).
   */
  madeNoWrites?(owner: Owner, diff: number, at: number): boolean;
  /**
   * Optional (replays): false when the evidence shows the controller's cache no longer held `pod`
   * at this sync although the model's still does — a pod the input saw deleted, held as a ghost
   * since a DELETE of it was answered 404, that a sync choosing it would delete again: the input
   * records the controller's writes and shows no DELETE of it. The model leaves it out of the pods
   * it deletes (its informer had delivered the deletion; the caller drops the ghost). Absent or
   * true: as the model's cache holds it.
   */
  controllerHolds?(owner: Owner, pod: Pod, at: number): boolean;
  /**
   * Optional (replays): false when the evidence shows the controller's cache no longer held `pod`
   * at this sync although the model's still does — a ghost as for `controllerHolds` — where its
   * sync creates a pod for the place the ghost holds: the input records the controller's writes and
   * shows, by the sync's first calls, a create of the controller for `owner` that `samePlace`
   * accepts (a DaemonSet: a daemon pod for the ghost's node). A controller whose cache held the pod
   * would not have made it. Absent or true: as the model's cache holds it.
   */
  controllerHoldsAgainstCreate?(owner: Owner, pod: Pod, samePlace: (created: Pod) => boolean, at: number): boolean;
  /**
   * Optional (Job): the PATCH that removes the batch.kubernetes.io/job-tracking finalizer from a
   * pod (removeTrackingFinalizerPatch in pkg/controller/job/job_controller.go, sent through
   * PodControl.PatchPod). `round` numbers the sync's removal patches like a create/delete round.
   * Absent: the model proceeds as the API usually answers and records the outcome as unknown.
   */
  removeTrackingFinalizer?(owner: Owner, pod: Pod, call: { round: number; at: number }): PatchResult;
  /**
   * Optional (Job): the owner's status write (UpdateStatus), answered ok or with the API error.
   * Absent: accepted unless the model itself knows the apiserver rejects it (job-controller.ts).
   */
  updateStatus?(owner: Owner, at: number): { ok: true } | { ok: false; error: string };
  /**
   * Optional (DaemonSet, replays): the owner's status write (storeDaemonSetStatus' UpdateStatus in
   * pkg/controller/daemon/daemon_controller.go), the sync's last call, requested once its other
   * calls returned at `after` (the sync began at `at`). Answers when it completed, where the input
   * shows it (an audit log recording the controller's writes): the sync, and the key's time in the
   * workqueue's processing set, end there. An empty answer: not known (the sync ends at its last
   * pod call, as before).
   */
  ownerStatusWrite?(owner: Owner, call: { at: number; after: number }): { doneAt?: number };
  /**
   * Optional (DaemonSet, replays): the pods of `owner` whose ADD the controller's informer
   * delivered while the sync's calls ran, in (`from`, `until`) — what updateDaemonSet's
   * SatisfiedExpectations and rollingUpdate's getNodesToDaemonPods, which run after manage
   * returned, see that the sync's start did not. Where the input cannot date the calls' returns
   * (a watch recording: a create's completion is inferred from the ADD itself), none.
   */
  podsAddedDuring?(owner: Owner, from: number, until: number): Pod[];
  /** Optional [1.36+]: true while the informers lag behind the controller's own last pod write for the owner `key`. */
  informerBehindOwnWrites?(key: string, at: number): boolean;
}
