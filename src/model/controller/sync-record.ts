/**
 * The record of one sync: what a controller's sync handler saw and did for one key — the
 * SatisfiedExpectations gate, the counts it computed, the create/delete round it ran
 * (slowStartBatch in pkg/controller/replicaset/replica_set.go; the DaemonSet and Job controllers
 * batch the same way), its adopt/release decisions, the error it returned and how the key was
 * requeued.
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
  | 'withheld'; // replays: the model would write, the input shows the controller did not

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
  /** ReplicaSet has no controllerRef: the "ReplicaSet has no controller" ERROR line on scale-down. */
  noControllerNoise?: boolean;
}
