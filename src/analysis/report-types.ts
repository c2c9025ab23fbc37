/**
 * The Report: one JSON-serialisable object per run, versioned (`schemaVersion`), described
 * by schema/report.schema.json. `kexp … -o json` prints exactly this object; the table,
 * chart and HTML renderers only read it.
 *
 * All times are RFC 3339 strings in UTC with millisecond precision. Every window, round and
 * finding carries a `basis`:
 * - `observed`: seen in the input itself (a kube-controller-manager log line, an audit write);
 * - `inferred`: simulated by kexp's controller model from what the input shows;
 * - `unknown`: the input cannot decide it (start of input, a gap, missing evidence).
 */
import type { VersionInfo } from '../model/version.js';

export const REPORT_SCHEMA_VERSION = 'kexp.report/v1';

export type Basis = 'observed' | 'inferred' | 'unknown';
export type Severity = 'critical' | 'warning' | 'info';

export interface InputSummary {
  file: string;
  format: string;
  timeBasis: string;
  start?: string;
  end?: string;
  events: number;
  problems: number;
  endMarker: boolean;
}

export interface GapSummary {
  at: string;
  until?: string;
  reason: string;
  detail?: string;
  evidence: string;
}

/** Pod writes made by the ReplicaSet controller, per owning ReplicaSet (audit logs). */
export interface ControllerWrites {
  replicaSet: string;
  creates: number;
  createFailures: number;
  deletes: number;
  deleteFailures: number;
  first: string;
  last: string;
  /** False when the ReplicaSet object itself is not in the input, so it has no full report. */
  inReport: boolean;
}

export interface Coverage {
  start?: string;
  end?: string;
  /** How event times were obtained, and what that makes unknown. */
  timeBasis: string[];
  assumptions: string[];
  gaps: GapSummary[];
  problems: { count: number; examples: string[] };
  controllerWrites?: ControllerWrites[];
}

export interface CountRange {
  first: number;
  last: number;
  min: number;
  max: number;
}

export interface SeriesPoint {
  at: string;
  desired: number;
  active: number;
  terminating: number;
  ready: number;
}

export interface RoundReport {
  at: string;
  /** `claim`: the adopt/release patches of one sync's ClaimPods. */
  kind: 'create' | 'delete' | 'claim';
  n: number;
  basis: Basis;
  /** Controller writes in the input this round explains (see ReplicaSetReport.accounting). */
  writes: number;
  /** Of those, writes the input showed only after the match window (the observation lag follows). */
  late?: { count: number; maxMs: number };
  /** Calls whose outcome the input does not tell (never reported as made or failed). */
  unknown?: number;
  /** Predicted calls the input shows the controller never made. */
  unmade?: number;
  /** Claim rounds: pods adopted / released. */
  adopted?: string[];
  released?: string[];
  /** Why kexp ran this sync although no trigger it modelled called for it (a write the input shows). */
  forced?: string;
  /** Create rounds: slow-start batch sizes attempted, calls made, outcome counts. */
  batches?: number[];
  calls?: number;
  successes?: number;
  skipped?: number;
  namespaceTerminating?: number;
  /** Create rounds before v1.18: creates that timed out (504) and were counted as successes (kubernetes#67662). */
  timedOut?: number;
  /** Delete rounds: the chosen pod keys (namespace/name). */
  keys?: string[];
  failed?: string[];
  errors: string[];
  note?: string;
  /** Triggering event. */
  evidence: string;
}

/**
 * How a gated window ended: observations fulfilled it, the record expired (a leak), the
 * ReplicaSet's deletion removed it, the controller's record was gone (`reset`: a restart, or a
 * write that proved kexp's record wrong), or it is still open at the end of the input.
 */
export type WindowEnd = 'fulfilled' | 'expired' | 'rs-deleted' | 'reset' | 'open';

export interface GatedWindow {
  start: string;
  end?: string;
  endedBy: WindowEnd;
  basis: Basis;
  /** The Set that opened the window. */
  raised: { add: number; del: number; keys?: string[] };
  /** When the counters reached ≤ 0 (fulfilled windows). */
  fulfilledAt?: string;
  /** Counters left when the window ended by expiry or deletion, or at the end of input. */
  remaining?: { add: number; del: number; keys?: string[] };
  /** Syncs the model ran inside the window that were refused by SatisfiedExpectations. */
  gatedSyncs: number;
  /** Open windows: the record expires at timestamp + 5 min; recovery needs a sync after that. */
  expiresAt?: string;
  durationMs?: number;
  evidence: string[];
  note?: string;
}

export interface ExpectationChange {
  at: string;
  /** `raise`: kexp gave back a lower its model made for a pod the controller had not observed (see viewUnknown). */
  op: 'set' | 'lower' | 'raise' | 'delete' | 'clobber' | 'received-delete';
  add?: number;
  del?: number;
  keys?: string[];
  evidence: string;
  /**
   * A `raise` dated back to when kexp's replay had fulfilled the record: the controller's write
   * at this time (the evidence) showed its informer had not delivered those pods, so it waited
   * from `at` on (inferred).
   */
  learnedAt?: string;
}

export interface Finding {
  id: string;
  severity: Severity;
  title: string;
  basis: Basis;
  at?: string;
  explanation: string;
  nextStep: string;
  evidence: string[];
  /** Controller writes no round explains that this finding accounts for. */
  writes?: number;
}

/**
 * The controller's pod writes the input shows for this ReplicaSet, and where each went:
 * `writes = inRounds + inFindings` (each write in exactly one round or one finding).
 */
export interface WriteAccounting {
  /** What shows a write: `audit` — the controller's own requests; `watch` — new pods with its controllerRef, its ownerReference changes, its Events. */
  evidence: 'audit' | 'watch';
  writes: number;
  inRounds: number;
  inFindings: number;
  byKind: { create: number; delete: number; adopt: number; release: number };
  failed: number;
}

export interface AdoptionRow {
  pod: string;
  uid?: string;
  action: 'keep' | 'adopt' | 'release' | 'ignore' | 'none';
  claimed: boolean;
  reason: string;
}

/**
 * `stalled`: below or above its desired count, not gated by kexp's record, and the input shows
 * the controller never synced on the change (no write, no status write): its informer has not
 * delivered it.
 */
export type VerdictState = 'healthy' | 'converging' | 'stalled' | 'gated' | 'leaked' | 'failing' | 'deleting' | 'deleted' | 'unknown';

/** The kind of a per-controller report (report/owner-kind.ts). */
export type OwnerReportKind = 'ReplicaSet' | 'ReplicationController' | 'DaemonSet' | 'Job';

/* What a DaemonSet's or a Job's controller log tells beyond its gate (report/log-stores.ts builds them). */
/** A DaemonSet's rolling-update checks, summed; `kexp`: how kexp's reconstruction decided at the same times (fused reports only). */
export interface RollingUpdateChecks {
  total: number;
  fulfilled: number;
  stillWaiting: number;
  expired: number;
  /** FILE:LINE of the first check that said still waiting (the rolling update skipped). */
  firstStillWaiting?: string;
  basis: 'observed';
  /** kexp's record at each check's time: the same decision, another one (the lines, first 10), or unknown. */
  kexp?: { matched: number; mismatched: number; unknown: number; mismatchRefs: string[] };
}

/** A Job's finalizer-tracking store over the log. */
export interface FinalizerTrackingSummary {
  /** "Expecting tracking finalizers removed" lines, and the pod UIDs they named. */
  lines: number;
  expected: number;
  /** "Observed tracking finalizer removed" lines. */
  observed: number;
  /** UIDs dropped unobserved: the Job deleted, or the controller (re)started. */
  dropped: number;
  /** UIDs still awaited at the end of the log, oldest first, with the line that expected each. */
  awaited: Array<{ uid: string; since: string; evidence: string }>;
  basis: 'observed';
  /** FILE:LINE of the first "Expecting tracking finalizers removed". */
  evidence: string;
}

/**
 * A Job: the removals of the batch.kubernetes.io/job-tracking finalizer from its pods the input
 * shows (trackJobStatusAndRemoveFinalizers' PATCHes; analysis/finalizer-removals.ts), and the
 * finished or terminating pods still holding it at the end of the input.
 */
export interface FinalizerRemovalsReport {
  /** Removals made (a PATCH that succeeded or found the pod gone, or the finalizer seen gone). */
  removed: number;
  /** Of these, the job-controller's own PATCHes (audit logs); the others' writer the input does not show. */
  byController: number;
  /** PATCHes that failed (the finalizer stays). */
  failed: number;
  first?: string;
  last?: string;
  basis: 'observed';
  evidence: string[];
  /** The UIDs of the pods whose finalizer was removed (where the input names them). */
  removedUids: string[];
  /** Finished or terminating pods still holding the finalizer at the end of the input, oldest first. */
  held: Array<{ pod: string; uid?: string; since?: string; evidence: string }>;
  /** What `held` means for the Job ("N pods hold the job-tracking finalizer; the Job cannot finish until …"). */
  statement?: string;
  /** With the controller's log: what its finalizer-tracking store says of these pods (report/log-stores.ts), cited. */
  log?: string;
}

export interface ReplicaSetReport {
  /** The controller's kind; absent for a ReplicaSet (the report's first unit). */
  kind?: OwnerReportKind;
  key: string;
  namespace: string;
  name: string;
  uid?: string;
  /** Every UID seen under this name (a ReplicaSet recreated under the same name has a new one). */
  uids: string[];
  owner?: { kind: string; name: string; uid: string };
  verdict: { state: VerdictState; basis: Basis; summary: string };
  counts: { desired: CountRange; active: CountRange; terminating: CountRange; ready: CountRange };
  series: SeriesPoint[];
  /**
   * What kexp knows of the controller's expectations when the input starts: `unknown` until
   * the first round kexp saw, or `inferred` (none) when the ReplicaSet was created inside the
   * covered time — a new key starts without a record.
   */
  initialState: { basis: 'unknown' | 'inferred'; until?: string; reason: string };
  syncs: { total: number; byOutcome: Record<string, number> };
  accounting: WriteAccounting;
  rounds: RoundReport[];
  gatedWindows: GatedWindow[];
  expectations: ExpectationChange[];
  expectationsTruncated: boolean;
  /**
   * Times where the controller's own writes show it decided on a cache the input does not show
   * (its informer behind the input): kexp's gate decisions there are unknown.
   */
  viewUnknown?: Array<{ from: string; until?: string; reason: string; evidence: string[] }>;
  findings: Finding[];
  adoption: { at?: string; rows: AdoptionRow[] };
  /** A Job: its pods' job-tracking finalizer removals and holders (analysis/finalizer-removals.ts). */
  finalizerRemovals?: FinalizerRemovalsReport;
  /** Present when a kube-controller-manager log was given beside the inputs (its own account). */
  controllerLog?: {
    files: string[];
    /** Sync decisions the log shows, and how many kexp's reconstruction matched. */
    syncs: number;
    decisionsMatched: number;
    decisionsMismatched: number;
    decisionsUnknown: number;
    /** kexp's gated windows the log confirms (their basis is then observed). */
    windowsConfirmed: number;
    /** From each create's time in the input to the controller's "Pod created" handler line. */
    informerLagMs?: { writes: number; median: number; max: number };
    /** A DaemonSet: the log's rolling-update checks, each compared with kexp's record (report/log-stores.ts). */
    rollingUpdateChecks?: RollingUpdateChecks;
    /** A Job: the log's finalizer-tracking store (report/log-stores.ts). */
    finalizerTracking?: FinalizerTrackingSummary;
  };
}

export interface Report {
  schemaVersion: typeof REPORT_SCHEMA_VERSION;
  generator: { name: 'kexp'; version: string; command: string };
  k8sVersion: VersionInfo;
  inputs: InputSummary[];
  coverage: Coverage;
  replicaSets: ReplicaSetReport[];
}
