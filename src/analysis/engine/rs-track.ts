/**
 * The per-ReplicaSet track: everything the replay learned about one ReplicaSet key, the record
 * the report is built from (report-builder.ts). Each stage of the engine writes its own group
 * of fields (named on each group below); no stage writes another's, except where a field says
 * which two share it.
 *
 * `RsTracks` is the registry of tracks by key: a track is made the first time any stage asks
 * for its key (`of`), and never removed while replaying (the driver narrows them to
 * `--replicaset` at the end).
 *
 * Cost: one object per ReplicaSet key the input or the model touches; the unbounded lists are
 * bounded where the input can make them large (changes, series). Pure data: no I/O, no clock.
 */
import type { SyncRecord } from '../../model/controller/sync-record.js';
import type { ExpectationsRecord } from '../../model/expectations.js';
import type { ReplicaSet } from '../../model/objects.js';
import type { SourceRef } from '../../timeline/event.js';
import type { Basis } from '../report-types.js';
import type { ViewBehind } from './controller-view.js';
import type { RoundEvidence } from './create-evidence.js';
import type { NoLeaderCause } from './leadership.js';
import type { ControllerWrite, DivergenceKind, JobTrackingWrite, OtherActorWrite } from './write-ledger.js';

export interface WindowTrack {
  start: number;
  raised: { add: number; del: number; keys?: string[] };
  basis: Basis;
  gatedSyncs: number;
  fulfilledAt?: number;
  end?: number;
  endedBy?: 'fulfilled' | 'expired' | 'rs-deleted' | 'reset';
  remaining?: { add: number; del: number; keys?: string[] };
  /** Timestamp of the Set (the record expires 5 min after it). */
  setAt: number;
  evidence: SourceRef[];
  note?: string;
  round?: number;
  namespaceTerminating?: number;
  /** Creates of its round that timed out and were counted as successes (before v1.18). */
  timedOut?: number;
  /** The nodes those timed-out creates were for (DaemonSet). */
  timedOutNodes?: string[];
  /** Deletes of its round answered NotFound and counted as made (before v1.19, kubernetes#91008): pod keys. */
  notFoundKept?: string[];
  /**
   * The record waits only on those deletes: whether the controller's informer delivered the pods'
   * deletions before the Set (their lower spent on the previous record: a leak) or after it
   * (lowered) the input does not show, until a gated sync of the window finds a pod needed and the
   * input shows no create of it (`gatedNeeding`): the window's basis is unknown until then.
   */
  notFoundUnconfirmed?: boolean;
  /** Bound pods of its round deleted because their node no longer exists (DaemonSet, kubernetes#73401). */
  removedNodePods?: string[];
  /** Nodes its gated syncs found needing a daemon pod (DaemonSet): left without one while the record gated the syncs. */
  gatedNeeding?: string[];
  gapInside?: boolean;
  /** The first gap (of the pods or the owner) delivered while the window was open. */
  gapAt?: number;
}

export interface RoundTrack {
  at: number;
  round: number;
  /** The model's round number (what the write ledger's claims refer to). */
  modelRound: number;
  kind: 'create' | 'delete' | 'claim';
  sync: SyncRecord;
  evidence: RoundEvidence | undefined;
  trigger: SourceRef | undefined;
  /** Set when kexp ran this sync because the input showed a write no predicted sync explained. */
  forced?: string;
  /** Calls whose outcome the input never showed (filled at the end of input). */
  unresolved?: number;
}

/** A sync in which the model would have written but the input shows the controller did not. */
export interface WithheldTrack {
  at: number;
  diff: number;
  record?: ExpectationsRecord;
  trigger?: SourceRef;
}

/** A kube-controller-manager restart the input shows (a new credential after a pause in the controller's writes). */
export interface RestartTrack {
  at: number;
  pauseMs: number;
  source: SourceRef;
  /** How the input shows it: a new credential after a pause (audit), or the controller's start-up line (its log). */
  via: 'credential' | 'log';
  /** Unfulfilled records the restart dropped. */
  dropped: Array<{ key: string; add: number; del: number; setAt: number }>;
  /** On a ReplicaSet's track: its round the restart cut short. */
  interrupted?: { at: number; made: number; n: number; kind: string };
  /**
   * The stretch before this restart in which no kube-controller-manager led (leadership.ts): why
   * the previous leader stopped, from when, when the new one acquired the Lease, and how many of
   * the model's due syncs no process ran, per ReplicaSet key.
   */
  noLeader?: { from: number; idleFrom?: number; acquiredAt?: number; resumeAt: number; cause: NoLeaderCause; basis: 'observed' | 'inferred'; evidence: SourceRef[]; idleSyncs: Record<string, number> };
}

/** A place where the real controller's write contradicted kexp's replayed record, and how kexp realigned. */
export interface DivergenceTrack {
  at: number;
  kind: DivergenceKind;
  /** The record kexp held when the write contradicted it. */
  record?: ExpectationsRecord;
  writes: ControllerWrite[];
  /** Evidence of a restart: the controller's credential changed at this time. */
  credentialChange?: { at: number; source: SourceRef };
}

export interface ExpectationChangeTrack {
  at: number;
  op: 'set' | 'lower' | 'raise' | 'delete' | 'clobber' | 'received-delete';
  add?: number;
  del?: number;
  keys?: string[];
  source?: SourceRef;
  /**
   * A raise dated back to when kexp's model had fulfilled the record (`at`): kexp learned only
   * at `learnedAt` (the controller's write that showed it) that the controller still waited.
   */
  learnedAt?: number;
}

/** Everything the engine learned about one ReplicaSet key. */
export interface RsTrack {
  key: string;

  // ── The ReplicaSet as the input shows it and what happened to its pods (delivery.ts) ──
  uids: string[];
  /** `inherited`: the old UID's record still waiting, which the new ReplicaSet inherits by its key (before 1.17). */
  uidChanges: Array<{ at: number; oldUid?: string; newUid?: string; source?: SourceRef; inherited?: { add: number; del: number; setAt: number } }>;
  rs?: ReplicaSet;
  deletedAt?: number;
  deletingSince?: number;
  owner?: { kind: string; name: string; uid: string };
  /** First time the ReplicaSet was seen, and whether it was created after the input started. */
  firstSeenAt?: number;
  createdInCoverage?: boolean;
  /** Pods of this ReplicaSet seen reaching phase Failed, with when they were created (replacement churn). */
  podFailures: Array<{ pod: string; createdAt?: number; failedAt: number; reason: string; source: SourceRef }>;
  /** Jobs, from an audit log: the Job controller's finalizer removals and status updates, with their outcome (write-ledger.ts). */
  jobTrackingWrites: JobTrackingWrite[];
  orphanedExpected: Array<{ at: number; podKey: string; source?: SourceRef }>;
  nameReuse: Array<{ at: number; podKey: string; chosenUid: string; observedUid: string; source?: SourceRef }>;
  /**
   * Pods of this owner whose first state the input shows is already terminating while its record
   * waited for creations: addPod hands such a pod to deletePod, so it never lowers `add` (delivery.ts).
   */
  addedTerminating: Array<{ pod: string; at: number; source: SourceRef; add: number; setAt: number }>;

  // ── Counts over time (count-series.ts, sampled at syncs and pod deliveries) ──
  series: Array<{ at: number; desired: number; active: number; terminating: number; ready: number }>;
  seriesDropped: number;

  // ── Syncs and rounds (sync-recorder.ts) ──
  syncsByOutcome: Record<string, number>;
  syncs: number;
  lastSync?: SyncRecord;
  rounds: RoundTrack[];
  noControllerNoise: number;
  syncErrors: Array<{ at: number; error: string; /** The rate-limited requeue delay this failure got. */ backoffMs?: number }>;
  withheld: WithheldTrack[];

  // ── Expectations and gated windows (window-tracker.ts; sync-recorder.ts fills the open window's round) ──
  windows: WindowTrack[];
  open?: WindowTrack;
  record?: { add: number; del: number; timestamp: number };
  changes: ExpectationChangeTrack[];
  changesDropped: number;
  clobbers: Array<{ at: number; keys: string[]; source?: SourceRef }>;
  /** Delete keys chosen at the last ExpectDeletions, with the UIDs of the chosen pods (sync-recorder.ts sets the UIDs). */
  chosen: Map<string, string>;
  firstSetAt?: number;
  /** Syncs that found the record expired (window-tracker.ts; sync-recorder.ts adds what they created). */
  expiredSyncs: Array<{ at: number; add: number; del: number; created?: number }>;

  // ── Restarts (restart-detector.ts) ──
  /** Restarts that dropped an unfulfilled record of this key. */
  restarts: RestartTrack[];

  // ── The controller's view of its pods (view-alignment.ts; write-reconciler.ts adds viewUnknown spans) ──
  /** Status writes of the controller that show its pod cache behind the input (controller-view.ts). */
  viewBehind: ViewBehind[];
  /** A later status write that counted every pod again: the view caught up (ends the last viewBehind episode). */
  viewCaughtUp: Array<{ at: number; source: SourceRef }>;
  /**
   * Pods whose ADD the controller's informer lost (a status write named a newer pod as listed while
   * it lacked these: an informer delivers in order), delivered by their next watch event — client-go's
   * processDeltas adds an updated object its store does not hold (view-alignment.ts `deliverPod`).
   */
  lostAddsDelivered: Array<{ pod: string; at: number; source: SourceRef }>;
  /**
   * Time and signature of the controller's last status write of this ReplicaSet (of `uid`).
   * `at` is undefined for the first status kexp saw of it (an initial list, a ReplicaSet first
   * seen mid-input): written at a time the input does not show, it anchors no comparison.
   * `replicas` is the status.replicas it wrote (a finite number, else undefined).
   */
  lastStatus?: { at?: number; signature: string; uid?: string; replicas?: number; source?: SourceRef };
  /** Times of the controller's status writes of this ReplicaSet (status fields changed). */
  statusWrites: number[];
  /**
   * Where kexp's replay cannot vouch for the gate decisions: from a pod the controller had not
   * observed to the status write that showed it; and from a status write that may or may not
   * count withheld pods until one that counts every pod (`until` undefined: to the end); and
   * from pods' ADDs to a status write counting them that came too late (view-alignment.ts).
   */
  viewUnknown: Array<{ from: number; until?: number; reason: string; sources: SourceRef[] }>;

  /**
   * Status writes counting more active pods than the input had: departures (deletions) the
   * controller's informer had not delivered, held in kexp's model (held-deletions.ts). `existed`:
   * the active pods the input showed plus departures the sync may still have listed; `unnamed`:
   * how many of the surplus the input cannot name.
   */
  heldDeletions: Array<{
    at: number; source: SourceRef; statusReplicas: number; existed: number; unnamed: number;
    pods: Array<{ pod: string; departedAt: number; source: SourceRef; deleted: boolean }>;
    /** Set when the input cannot tell which departures these are: the pods they are among (kexp held the newest). */
    among?: string[];
    /** The enqueue whose sync should have written a lower count (held-deletions.ts checkTrigger). */
    trigger?: { at: number; source: SourceRef; what: string };
    /** Pinned by the controller's DELETE of the pod answered 404 (held-deletions.ts pinGhost), not by a status: `source` is that write; `replaced`: the pod kexp had held in its place. */
    notFound?: { replaced?: string };
  }>;
  /** When held departures were delivered to the model, and the evidence of the catch-up. */
  heldReleased: Array<{ at: number; source: SourceRef; pods: string[]; via: string }>;

  // ── Writes no predicted sync explained (write-reconciler.ts) ──
  divergences: DivergenceTrack[];
  /** Creates past an expired record whose round's pods the controller had not observed (kubernetes#129795): kexp held them back. */
  lagOverCreates: Array<{ at: number; setAt: number; pods: string[]; source: SourceRef }>;

  // ── End of input (replay-result.ts) ──
  /** The controller's writes for this key in the input (filled at the end), each in a round or unexplained. */
  writes: ControllerWrite[];
  /** Other actors' writes to its pods: created with its controllerRef, or orphaned (filled at the end). */
  otherActorWrites: OtherActorWrite[];
}

function newTrack(key: string): RsTrack {
  return {
    key, uids: [], uidChanges: [], series: [], seriesDropped: 0, syncsByOutcome: {}, syncs: 0, rounds: [], windows: [],
    changes: [], changesDropped: 0, clobbers: [], chosen: new Map(), nameReuse: [], addedTerminating: [], expiredSyncs: [], noControllerNoise: 0,
    syncErrors: [], orphanedExpected: [], withheld: [], divergences: [], restarts: [], writes: [], otherActorWrites: [], podFailures: [], jobTrackingWrites: [],
    viewBehind: [], viewCaughtUp: [], lostAddsDelivered: [], viewUnknown: [], lagOverCreates: [], statusWrites: [], heldDeletions: [], heldReleased: [],
  };
}

/** The tracks by ReplicaSet key (`namespace/name`). */
export class RsTracks {
  /** Every track, in the order their keys were first met. */
  readonly byKey = new Map<string, RsTrack>();

  /** The track of `key`, made on first use. */
  of(key: string): RsTrack {
    let t = this.byKey.get(key);
    if (!t) this.byKey.set(key, (t = newTrack(key)));
    return t;
  }

  /** The track of `key` if any stage made it. */
  get(key: string): RsTrack | undefined {
    return this.byKey.get(key);
  }

  values(): IterableIterator<RsTrack> {
    return this.byKey.values();
  }
}
