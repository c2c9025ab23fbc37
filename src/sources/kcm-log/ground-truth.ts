/**
 * Ground truth from a -v=4 kube-controller-manager log: what a controller's own expectations
 * bookkeeping said, per owner key — the ReplicaSet controller's per ReplicaSet, and, given one
 * kind's events (`ownerKind`), the ReplicationController manager's, the DaemonSet controller's
 * or the Job controller's count store (ControllerExpectations, which they share). The Job's
 * second store, the finalizer UID tracking, is finalizer-tracking.ts. Pure; no I/O, no clock.
 *
 * The DaemonSet controller checks its record twice per sync that passes the gate (syncDaemonSet,
 * then updateDaemonSet before the rolling update); the source marks the second line
 * (numbers.rollingUpdateCheck) and it is kept apart (`rollingUpdateChecks`), not counted as a sync.
 *
 * The signals (controller-semantics.md §1, §2, §8.3; pkg/controller/controller_utils.go):
 * - `SetExpectations` (reached through `ExpectCreations` / `ExpectDeletions`) logs
 *   "Setting expectations" and REPLACES the record {add, del, timestamp=now};
 * - `LowerExpectations` (through `CreationObserved` / `DeletionObserved`) logs
 *   "Lowered expectations" (only when a record exists); `RaiseExpectations` "Raised expectations";
 * - `SatisfiedExpectations`, called once at the start of every sync, logs exactly one of
 *   "Controller expectations fulfilled" (add ≤ 0 && del ≤ 0 → sync), "Controller expectations
 *   expired" (unfulfilled but older than 5 min → sync anyway: a leak), "Controller still waiting
 *   on expectations" (GATED: no create/delete this sync), "Controller either never recorded
 *   expectations, or the ttl expired" (no record → sync);
 * - `UIDTrackingControllerExpectations.ExpectDeletions` logs "Controller waiting on deletions"
 *   (the delete keys) and, when an unfinished key set is replaced, "Clobbering existing delete keys";
 * - `deleteRS` / a sync that finds the RS gone ("deleted") call `DeleteExpectations`;
 * - the store is process-local: "Starting controller" (a KCM restart or leader change) starts
 *   every ReplicaSet with no record.
 *
 * Gated windows: a window starts at a "Setting expectations" whose record is unfulfilled (or, when
 * the log starts inside one, at the first "still waiting" sync) and ends at the first sync that
 * logs fulfilled / never-recorded (`fulfilled`), expired (`expired`; `leaked` = the counters left),
 * at "deleted" / the RS handler's "Deleting" (`deleted`), at a controller restart (`restart`: the
 * record is gone), at a later Setting (`superseded`; only when the sync line in between is
 * missing from the log), or stays `open`.
 *
 * The window rules are the shared state machine of src/model/controller/gated-windows.ts, fed
 * with `openAtGatedSync` and `onSetWhileOpen: 'supersede'` (a log may begin inside a window and
 * may miss a sync line); a logged raise does not feed it (the ReplicaSet controller never calls
 * RaiseExpectations), and a window still open at the end of the log stays `open`. What is the
 * log's own stays here: the record as logged or reconstructed (with its basis), the delete keys
 * paired with their Setting, and the per-ReplicaSet lists of syncs, raises, lowers and failures.
 *
 * v1.27+ logs the expectations as `{}`; the source then fills rsKey/add/del of "Setting
 * expectations" from the neighbouring "Too few replicas" / "waiting on deletions" line, marks
 * each "Lowered expectations" with numbers.lowerAdd / lowerDel, and flags such events with
 * numbers.fromContext = 1. Counters that the log does not print are reconstructed from those
 * (basis `reconstructed`); counters printed on the line itself (≤1.26, older klog) are `logged`.
 */
import { GatedWindows, type WindowCore, type GatedWindowEnd, type WindowSlot } from '../../model/controller/gated-windows.js';
import type { SatisfiedOutcome } from '../../model/expectations.js';
import type { ControllerLogEvent, SourceRef } from '../../timeline/event.js';

export type SyncDecision = 'gated' | 'fulfilled' | 'expired' | 'never-recorded';
export type CountsBasis = 'logged' | 'reconstructed';

/** A sync lasting this long made slow calls: the ReplicaSet controller's own work takes milliseconds. */
export const LONG_SYNC_MS = 1000;

export interface GroundTruthSync {
  at: number;
  decision: SyncDecision;
  /** Counters at the check: as logged (≤1.26, old klog), or reconstructed (see countsBasis). */
  add?: number;
  del?: number;
  countsBasis?: CountsBasis;
  source: SourceRef;
}

/** A "Setting expectations" (SetExpectations) or "Raised expectations" (RaiseExpectations). */
export interface GroundTruthRaise {
  at: number;
  add: number;
  del: number;
  source: SourceRef;
  /** Delete keys of the ExpectDeletions call ("Controller waiting on deletions"). */
  keys?: string[];
  op: 'set' | 'raise';
  /** The log does not tell the counts (add/del are then 0 placeholders, not values). */
  countsUnknown?: true;
}

export interface GroundTruthLower {
  at: number;
  /** Counters after the lower, when logged. */
  add?: number;
  del?: number;
  /** What this line decremented, when known from context (v1.27+). */
  lowerAdd?: number;
  lowerDel?: number;
  source: SourceRef;
}

export interface GroundTruthClobber {
  at: number;
  keys: string[];
  source: SourceRef;
}

export interface GroundTruthSlowStart {
  at: number;
  podsSkipped?: number;
  source: SourceRef;
}

export type WindowEnd = 'fulfilled' | 'expired' | 'deleted' | 'restart' | 'superseded' | 'open';

export interface GatedWindow {
  start: number;
  startSource: SourceRef;
  /** How the window was found to start: at the Setting, or at a gated sync (log began inside it). */
  startedBy: 'setting' | 'gated-sync';
  /** Counters the Setting asked for, when known. */
  expected?: { add: number; del: number };
  end?: number;
  endSource?: SourceRef;
  ended: WindowEnd;
  /** For `expired`: the counters never observed (from the expired line, or reconstructed). */
  leaked?: { add: number; del: number };
  leakedBasis?: CountsBasis;
  /** Syncs that logged "still waiting" inside the window. */
  gatedSyncs: number;
  /**
   * When the counters (as logged or reconstructed) first reached add ≤ 0 && del ≤ 0 inside the
   * window: from then on the next sync passes the gate. A window still `open` at the end of the
   * log with this set was not gating any more, the log just ends before the next sync.
   */
  satisfiedAt?: number;
}

export interface GroundTruth {
  rsKey: string;
  syncs: GroundTruthSync[];
  raises: GroundTruthRaise[];
  lowers: GroundTruthLower[];
  clobbers: GroundTruthClobber[];
  slowStartFailures: GroundTruthSlowStart[];
  /**
   * Syncs of this key that lasted at least LONG_SYNC_MS ("Finished syncing" with its duration):
   * one sync held the key from `start` (its end − duration) to `end` — its calls slow or hung, no
   * other sync of the key ran meanwhile (processNextWorkItem holds a key until its sync returns).
   */
  longSyncs?: Array<{ start: number; end: number; source: SourceRef }>;
  gatedWindows: GatedWindow[];
  /** Times of controller (KCM) restarts in the log; the same list for every ReplicaSet. */
  restarts: number[];
  /**
   * [1.36+] Syncs the consistency gate skipped (StaleControllerConsistencyReplicaSet): the sync
   * returned before SatisfiedExpectations because an informer had not observed the controller's
   * own last write — no decision about expectations, not gating.
   */
  consistencySkips: Array<{ at: number; readResourceVersion?: number; writtenResourceVersion?: number; resource: string; source: SourceRef }>;
  /** Other failed syncs ("sync … failed with …"): requeued with rate limiting. */
  syncFailures: Array<{ at: number; source: SourceRef }>;
  /**
   * A DaemonSet's second SatisfiedExpectations per sync (updateDaemonSet after manage, event
   * numbers.rollingUpdateCheck): it decides whether the rolling update runs, not whether the
   * sync runs, so it is no sync decision; `fulfilled` shows the record fulfilled at `at` and ends
   * the window the sync's Set opened.
   */
  rollingUpdateChecks?: Array<{ at: number; decision: Exclude<SyncDecision, 'never-recorded'>; source: SourceRef }>;
}

interface Counters {
  add: number;
  del: number;
  basis: CountsBasis;
}

/** A window while the log is read: the machine's core, and what the log tells of it. */
interface LogWindow extends WindowCore {
  startSource: SourceRef;
  startedBy: GatedWindow['startedBy'];
  expected?: { add: number; del: number };
  endSource?: SourceRef;
  ended?: Exclude<GatedWindowEnd, 'reset'> | 'restart';
  leaked?: { add: number; del: number };
  leakedBasis?: CountsBasis;
}

/** What one transition hands the window machine: the line, and for an expiry the counters it found. */
interface LineContext {
  e: ControllerLogEvent;
  counts?: Counters;
}

interface State extends WindowSlot<LogWindow> {
  gt: GroundTruth;
  /** The record as far as known; undefined = no record; `unknown` = exists, counts unknown. */
  record: Counters | 'unknown' | undefined;
  pendingKeys: { at: number; keys: string[] } | undefined;
}

/** The window as buildGroundTruth returns it (`open` when the log ends inside it). */
function gatedWindow(w: LogWindow): GatedWindow {
  const out: GatedWindow = { start: w.start, startSource: w.startSource, startedBy: w.startedBy, ended: w.ended ?? 'open', gatedSyncs: w.gatedSyncs };
  if (w.expected) out.expected = w.expected;
  if (w.fulfilledAt !== undefined) out.satisfiedAt = w.fulfilledAt;
  if (w.end !== undefined) out.end = w.end;
  if (w.endSource) out.endSource = w.endSource;
  if (w.leaked) out.leaked = w.leaked;
  if (w.leakedBasis) out.leakedBasis = w.leakedBasis;
  return out;
}

const OUTCOME: Record<SyncDecision, SatisfiedOutcome> = {
  gated: 'still-waiting',
  fulfilled: 'fulfilled',
  expired: 'expired',
  'never-recorded': 'never-recorded',
};

/**
 * The delete handlers' lines, which DeleteExpectations follows: deleteRS `"Deleting" replicaSet=…`
 * (text), `"msg":"Deleting"` (JSON), `Deleting ReplicaSet "…"` (≤1.26); deleteDaemonset
 * `"Deleting daemon set" daemonset=…` (v1.28+; daemon_controller.go).
 */
const RS_DELETING_RE = /\] "Deleting(?: daemon set)?"(?: |$)|"msg":"Deleting(?: daemon set)?"|\] Deleting (?:ReplicaSet|ReplicationController) "/;

/** The resource a consistency-gate error names: `pods`, `replicasets.apps` → `replicasets`. */
function gatedResource(e: ControllerLogEvent): string {
  if (e.numbers?.consistencyPods) return 'pods';
  const m = /for group resource ([a-z0-9-]+)/.exec(e.message);
  return m ? m[1]! : 'replicasets';
}

/** How long after "Controller waiting on deletions" its "Setting expectations" may come. */
const KEYS_PAIRING_MS = 1000;

/**
 * Builds the per-ReplicaSet ground truth from the controller-log events of one KCM log.
 * Events without rsKey are ignored except "Starting controller" (a restart).
 */
export function buildGroundTruth(events: ControllerLogEvent[]): Map<string, GroundTruth> {
  const order = events.map((e, i) => ({ e, i }));
  order.sort((a, b) => a.e.at - b.e.at || a.i - b.i);
  const states = new Map<string, State>();
  const restarts: number[] = [];

  const state = (key: string): State => {
    let s = states.get(key);
    if (!s) {
      s = {
        gt: { rsKey: key, syncs: [], raises: [], lowers: [], clobbers: [], slowStartFailures: [], gatedWindows: [], restarts, consistencySkips: [], syncFailures: [] },
        record: undefined,
        open: undefined,
        windows: [],
        pendingKeys: undefined,
      };
      states.set(key, s);
    }
    return s;
  };

  const gates = new GatedWindows<LogWindow, LineContext>({
    openAtGatedSync: true,
    onSetWhileOpen: 'supersede',
    slot: state,
    make: (at, by, counts, { e }) => {
      const w: LogWindow = { start: at, startSource: e.source, startedBy: by === 'set' ? 'setting' : 'gated-sync', gatedSyncs: 0 };
      if (counts) w.expected = { add: counts.add, del: counts.del };
      return w;
    },
    ended: (w, how, { e, counts }) => {
      w.endSource = e.source;
      w.ended = how === 'reset' ? 'restart' : how;
      if (how === 'expired' && counts) {
        w.leaked = { add: counts.add, del: counts.del };
        w.leakedBasis = counts.basis;
      }
    },
  });

  for (const { e } of order) {
    if (e.logKind === 'controller-started') {
      restarts.push(e.at);
      for (const [key, s] of states) {
        gates.removed(key, e.at, 'reset', { e });
        s.record = undefined;
        s.pendingKeys = undefined;
      }
      continue;
    }
    if (!e.rsKey) continue;
    const s = state(e.rsKey);
    const gt = s.gt;
    const durationMs = e.logKind === 'finished-syncing' ? e.numbers?.durationMs : undefined;
    if (durationMs !== undefined && durationMs >= LONG_SYNC_MS) (gt.longSyncs ??= []).push({ start: e.at - durationMs, end: e.at, source: e.source });
    // Counters printed on the line itself (not filled in from neighbouring lines).
    const logged = e.add !== undefined && e.del !== undefined && !e.numbers?.fromContext ? { add: e.add, del: e.del } : undefined;

    switch (e.logKind) {
      case 'waiting-on-deletions':
        s.pendingKeys = { at: e.at, keys: e.keys ?? [] };
        break;

      case 'setting-expectations': {
        const r: GroundTruthRaise = { at: e.at, add: e.add ?? 0, del: e.del ?? 0, source: e.source, op: 'set' };
        if (s.pendingKeys && e.at - s.pendingKeys.at <= KEYS_PAIRING_MS && (e.add ?? 0) === 0) {
          r.keys = s.pendingKeys.keys;
          if (e.del === undefined) r.del = new Set(s.pendingKeys.keys).size;
        }
        s.pendingKeys = undefined;
        gt.raises.push(r);
        const known = e.add !== undefined || e.del !== undefined || r.keys !== undefined;
        if (!known) r.countsUnknown = true;
        s.record = known ? { add: r.add, del: r.del, basis: logged ? 'logged' : 'reconstructed' } : 'unknown';
        gates.set(e.rsKey, e.at, known ? { add: r.add, del: r.del } : undefined, { e });
        break;
      }

      case 'raised-expectations': {
        const prev = s.record;
        if (logged) {
          gt.raises.push({ at: e.at, add: logged.add, del: logged.del, source: e.source, op: 'raise' });
          s.record = { ...logged, basis: 'logged' };
        } else if (prev !== undefined) {
          // A raise with counts not logged: the record still exists, its counts are unknown.
          s.record = 'unknown';
        }
        break;
      }

      case 'lowered-expectations': {
        const l: GroundTruthLower = { at: e.at, source: e.source };
        if (e.add !== undefined) l.add = e.add;
        if (e.del !== undefined) l.del = e.del;
        const la = e.numbers?.lowerAdd;
        const ld = e.numbers?.lowerDel;
        if (la !== undefined) l.lowerAdd = la;
        if (ld !== undefined) l.lowerDel = ld;
        gt.lowers.push(l);
        if (logged) s.record = { ...logged, basis: 'logged' };
        else if (s.record && s.record !== 'unknown' && (la !== undefined || ld !== undefined)) {
          s.record = { add: s.record.add - (la ?? 0), del: s.record.del - (ld ?? 0), basis: 'reconstructed' };
        } else if (s.record === undefined) s.record = 'unknown'; // a lower is only logged when a record exists
        else if (s.record !== 'unknown' && la === undefined && ld === undefined) s.record = 'unknown';
        gates.lowered(e.rsKey, e.at, s.record && s.record !== 'unknown' ? s.record : undefined);
        break;
      }

      case 'expectations-fulfilled':
      case 'expectations-expired':
      case 'still-waiting':
      case 'never-recorded': {
        if (e.numbers?.rollingUpdateCheck && e.logKind !== 'never-recorded') {
          const decision = e.logKind === 'expectations-fulfilled' ? 'fulfilled' : e.logKind === 'expectations-expired' ? 'expired' : 'gated';
          (gt.rollingUpdateChecks ??= []).push({ at: e.at, decision, source: e.source });
          if (logged) s.record = { ...logged, basis: 'logged' };
          // The record is fulfilled here, as observed: the window ends (the rolling update runs, and
          // so would the next sync). Still waiting (the rolling update skipped) or expired (a sync
          // longer than the timeout) decide nothing about the window: the next sync's gate does.
          if (decision === 'fulfilled') gates.synced(e.rsKey, e.at, 'fulfilled', { e });
          break;
        }
        const decision: SyncDecision =
          e.logKind === 'expectations-fulfilled'
            ? 'fulfilled'
            : e.logKind === 'expectations-expired'
              ? 'expired'
              : e.logKind === 'still-waiting'
                ? 'gated'
                : 'never-recorded';
        const sync: GroundTruthSync = { at: e.at, decision, source: e.source };
        const counts: Counters | undefined = logged
          ? { ...logged, basis: 'logged' }
          : s.record && s.record !== 'unknown'
            ? s.record
            : undefined;
        if (counts && decision !== 'never-recorded') {
          sync.add = counts.add;
          sync.del = counts.del;
          sync.countsBasis = counts.basis;
        }
        gt.syncs.push(sync);
        if (logged) s.record = { ...logged, basis: 'logged' };
        if (decision === 'never-recorded') s.record = undefined;
        else if (s.record === undefined) s.record = counts ?? 'unknown';

        gates.synced(e.rsKey, e.at, OUTCOME[decision], counts ? { e, counts } : { e });
        break;
      }

      case 'rs-deleted-sync':
        gates.removed(e.rsKey, e.at, 'deleted', { e });
        s.record = undefined;
        s.pendingKeys = undefined;
        break;

      case 'other':
        // deleteRS ("Deleting" replicaSet=…) calls DeleteExpectations.
        if (RS_DELETING_RE.test(e.message)) {
          gates.removed(e.rsKey, e.at, 'deleted', { e });
          s.record = undefined;
          s.pendingKeys = undefined;
        }
        break;

      case 'clobbering-delete-keys':
        gt.clobbers.push({ at: e.at, keys: e.keys ?? [], source: e.source });
        break;

      case 'sync-failed':
        if (e.numbers?.writtenResourceVersion !== undefined) {
          gt.consistencySkips.push({
            at: e.at, readResourceVersion: e.numbers.readResourceVersion, writtenResourceVersion: e.numbers.writtenResourceVersion,
            resource: gatedResource(e), source: e.source,
          });
        } else gt.syncFailures.push({ at: e.at, source: e.source });
        break;

      case 'slow-start-failure': {
        const ss: GroundTruthSlowStart = { at: e.at, source: e.source };
        const n = e.numbers?.podsSkipped;
        if (n !== undefined) ss.podsSkipped = n;
        gt.slowStartFailures.push(ss);
        break;
      }

      default:
        break;
    }
  }

  const out = new Map<string, GroundTruth>();
  for (const [k, s] of states) {
    s.gt.gatedWindows = [...s.windows, ...(s.open ? [s.open] : [])].map(gatedWindow);
    out.set(k, s.gt);
  }
  return out;
}
