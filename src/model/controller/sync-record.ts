/**
 * The record of one sync: what a controller's sync handler saw and did for one key — the
 * SatisfiedExpectations gate, the counts it computed, the create/delete round it ran
 * (slowStartBatch in pkg/controller/replicaset/replica_set.go; the DaemonSet and Job controllers
 * batch the same way), its adopt/release decisions, the error it returned and how the key was
 * requeued; a DaemonSet's or a Job's own part in `daemon` / `job`.
 *
 * Contract: returned by Controller.sync and Controller.runDue (controller.ts), one per sync, and
 * handed to the engine, which reads it and keeps it in its tracks; plain data, never changed after
 * the sync returned it. The outcome names and the `rsUid` field keep the ReplicaSet controller's
 * spelling because reports print them (a track's syncs by outcome). Cost: one small object per
 * sync; `claims` lists every candidate pod only when the model records claim decisions.
 */
import type { ExpectationsRecord, SatisfiedOutcome } from '../expectations.js';
import type { ClaimDecision } from '../adoption.js';

/** What slowStartBatch did in one creation round. */
export interface CreateRound {
  /** The model's round number (unique per controller). */
  round: number;
  n: number;
  /** Batch sizes actually attempted (1, 2, 4, …). */
  batches: number[];
  calls: number;
  successes: number;
  /** n − successes: walked back with CreationObserved. */
  skipped: number;
  namespaceTerminating: number;
  /** Creates that timed out and were counted as successes (before v1.18: VersionFeatures.createTimeoutAsSuccess). */
  timedOut?: number;
  /** The nodes whose daemon pods those timed-out creates were for (DaemonSet). */
  timedOutNodes?: string[];
  errors: string[];
  /** Calls whose outcome the input cannot tell (replays; counted in `successes` for the bookkeeping). */
  unknown: number;
  /** Predicted calls the input shows were never made (replays; walked back, not errors). */
  unmade: number;
}

/** What one deletion round did (the deletes of manageReplicas, made in parallel). */
export interface DeleteRound {
  /** The model's round number (unique per controller). */
  round: number;
  n: number;
  keys: string[];
  /** UIDs of the chosen pods, parallel to `keys` (the controller itself only keeps the keys). */
  uids: string[];
  /** Keys whose delete failed (not NotFound) and were walked back. */
  failed: string[];
  notFound: string[];
  /**
   * Keys whose delete was answered NotFound and counted as made, `del` not lowered:
   * RealPodControl.DeletePod returned nil for NotFound before v1.19 (kubernetes#91008; the
   * DaemonSet model's `deleteNotFoundSwallowed`). A subset of `notFound`.
   */
  notFoundKept?: string[];
  /** Keys of bound pods deleted because their node no longer exists (the DaemonSet's getPodsWithoutNode of kubernetes#73401). */
  removedNodePods?: string[];
  errors: string[];
  note?: string;
  /** Keys whose delete outcome the input cannot tell (replays). */
  unknown: string[];
  /** Keys the input shows were never deleted by the controller (replays; walked back). */
  unmade: string[];
}

/** How a sync ended (named after the exits of syncReplicaSet in pkg/controller/replicaset/replica_set.go). */
export type SyncOutcome =
  | 'synced' // passed the gate (fulfilled / expired / never recorded) and ran manageReplicas
  | 'gated' // SatisfiedExpectations false
  | 'rs-being-deleted' // passed or not, RS has deletionTimestamp: no manage
  | 'rs-not-found'
  | 'claim-error'
  | 'selector-error'
  | 'consistency-skip' // [1.36+] informer behind the controller's own writes
  | 'withheld' // replays: the model would write, the input shows the controller did not
  | 'job-finished' // Job: already Complete or Failed in the cache, nothing to do
  | 'finish-unobserved' // Job: marked finished by an earlier sync whose update the informer has not delivered yet
  | 'managed-elsewhere' // Job: spec.managedBy names another controller
  | 'unknown-completion-mode'; // Job: spec.completionMode neither NonIndexed nor Indexed

/** The status a DaemonSet sync computes (updateDaemonSetStatus in pkg/controller/daemon/daemon_controller.go). */
export interface DaemonSetStatusCounts {
  desiredNumberScheduled: number;
  currentNumberScheduled: number;
  numberMisscheduled: number;
  numberReady: number;
  updatedNumberScheduled: number;
  numberAvailable: number;
  numberUnavailable: number;
}

/** What a DaemonSet sync did beyond the rounds every controller has. */
export interface DaemonSetSync {
  /** The status the sync computed. */
  status: DaemonSetStatusCounts;
  /** Whether it raised status.observedGeneration to the generation (false on the gated, status-only path). */
  observedGeneration: boolean;
  /** The generation the sync saw (metadata.generation of the cached DaemonSet). */
  generation?: number;
  /** Whether storeDaemonSetStatus would write (some count or the observedGeneration differs from the cached status). */
  statusWrite: boolean;
  /** The rounds of the rolling update, when it ran after manage (update.go rollingUpdate → syncNodes). */
  update?: { create?: CreateRound; delete?: DeleteRound; maxSurge: number; maxUnavailable: number };
  /** Failed daemon pods the sync found: killed (FailedDaemonPod event) or left in backoff. */
  failedPods?: Array<{ pod: string; node: string; action: 'delete' | 'backoff'; backoffMs?: number }>;
  /** Succeeded daemon pods it deletes (SucceededDaemonPod event). */
  succeededPods?: string[];
  /** Nodes with more than one running daemon pod (no surge): the oldest kept, the rest deleted (podsShouldBeOnNode). */
  excessPods?: Array<{ node: string; kept: string; deleted: string[] }>;
  /** A gated sync: the nodes that should run the daemon and have no daemon pod — the creates manage would have made had the record let it. */
  gatedNeeding?: string[];
}

/** The status a Job sync writes (or would write), as trackJobStatusAndRemoveFinalizers leaves it. */
export interface JobStatusCounts {
  active: number;
  ready: number;
  terminating: number;
  succeeded: number;
  failed: number;
  /** status.uncountedTerminatedPods: UIDs counted in neither succeeded nor failed yet. */
  uncountedSucceeded: string[];
  uncountedFailed: string[];
  /** Indexed Jobs: status.completedIndexes. */
  completedIndexes?: string;
  /** Conditions with status True, by type (SuccessCriteriaMet, Complete, FailureTarget, Failed, Suspended). */
  conditions: string[];
  /** status.startTime (epoch ms), if set. */
  startTime?: number;
}

/** What a Job sync did beyond the rounds every controller has (syncJob in pkg/controller/job/job_controller.go). */
export interface JobSync {
  /** The counts syncJob computed from its cache before any write: active pods, succeeded and failed (status + new + uncounted), ready, terminating. */
  active: number;
  succeeded: number;
  failed: number;
  ready: number;
  terminating: number;
  /** status.uncountedTerminatedPods as the cached Job showed them (UIDs). */
  uncountedBefore: { succeeded: number; failed: number };
  /** Claimed pods holding the batch.kubernetes.io/job-tracking finalizer in the cache (pod keys). */
  podsWithFinalizer: string[];
  /** Pod UIDs whose finalizer removal the uidTrackingExpectations store still expected when the sync listed (skipped as already processed). */
  finalizerRemovalsExpected: string[];
  /** The sync's removal PATCHes (removeTrackingFinalizerFromPods), by pod key. */
  finalizerRemovals?: { round: number; keys: string[]; failed: string[]; notFound: string[]; unknown: string[]; unmade: string[]; errors: string[] };
  /** The finish condition the sync computed (FailureTarget/SuccessCriteriaMet → Failed/Complete), with its reason. */
  finish?: { type: string; reason: string };
  /** "Can't declare the Job as finished yet": a failure-side finish dropped because the expectations were unsatisfied or not every active pod was deleted. */
  finishDropped?: 'unsatisfied' | 'deletes-failed';
  /** enactJobFinished delayed the final condition: pods still uncounted, or terminating; or MaxUncountedPods was reached. */
  finishDelayed?: 'uncounted' | 'terminating' | 'max-uncounted';
  /** The Complete or Failed condition was written by this sync. */
  finished: boolean;
  /** The status the sync writes (the last write), or would write if no write was needed. */
  status: JobStatusCounts;
  /** Status writes the sync made (0–3: before the finalizer removals, after failed removals, at the end). */
  statusWrites: number;
  /** The error of a rejected status write (the sync returns it; the finalizers are not removed). */
  statusError?: string;
  /** The pod-failure backoff that delayed creates (backoff_utils.go): failures since the last success, the last failure, the time left. */
  podFailureBackoff?: { failures: number; lastFailureAt?: number; remainingMs: number };
  /** spec.suspend at the sync. */
  suspended: boolean;
  /** Indexed Jobs: the completion indexes the sync created pods for. */
  indexes?: number[];
  /** Parts of the Job's spec the model does not evaluate (podFailurePolicy, successPolicy, backoffLimitPerIndex). */
  unmodelled?: string[];
}

export interface SyncRecord {
  at: number;
  key: string;
  /** UID of the owner the sync found in the cache (absent when it was not found). */
  rsUid?: string;
  outcome: SyncOutcome;
  /** SatisfiedExpectations result, when it was evaluated. */
  expectations?: SatisfiedOutcome;
  recordBefore?: ExpectationsRecord;
  desired?: number;
  active?: number;
  /** status.terminatingReplicas as this version computes it (undefined where the feature is off). */
  terminating?: number;
  /** Terminating pods controlled by the RS, whatever the version (for the report). */
  terminatingPods?: number;
  ready?: number;
  available?: number;
  diff?: number;
  create?: CreateRound;
  delete?: DeleteRound;
  claims?: ClaimDecision[];
  /** Round number of the sync's adopt/release patches, when it made any. */
  claimRound?: number;
  claimErrors?: string[];
  /** The error the sync returned (rate-limited requeue), if any. */
  error?: string;
  /** When the sync's last API call completed, if later than `at` (the sync occupies the key until then). */
  doneAt?: number;
  /** Requeue: 'rate-limited' after an error, 'after' for the availability check. */
  requeue?: { kind: 'rate-limited' | 'after'; delayMs: number };
  /** A DaemonSet's sync: its status and rolling update. */
  daemon?: DaemonSetSync;
  /** A Job's sync: its counts, finalizer tracking, finish decision and status. */
  job?: JobSync;
  /** ReplicaSet has no controllerRef: the "ReplicaSet has no controller" ERROR line on scale-down. */
  noControllerNoise?: boolean;
}
