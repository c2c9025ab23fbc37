/**
 * The replay engine: drives the ReplicaSet controller model with a time-ordered stream of
 * TimelineEvents and records, per ReplicaSet, what the report needs (syncs, rounds,
 * expectation changes, gated windows, evidence).
 *
 * Order of work for each input event `e` (design.md "Reconstructing the controller"):
 * 1. run every sync the workqueue has due strictly before `e.at` — the real controller
 *    syncs within milliseconds of an enqueue, and events with the same timestamp collapse
 *    into one sync like the workqueue's de-duplication does;
 * 2. deliver `e` to the informer handlers.
 * At the end of input, syncs due up to the end of coverage run.
 *
 * The engine keeps a bounded look-ahead buffer (events up to `matchWindowMs` ahead of the
 * current one) for the EvidenceOracle, so memory stays bounded by the window, not the input.
 */
import { ReplicaSetController, type SyncRecord } from '../../model/replicaset-controller.js';
import type { ExpectationsLogLine } from '../../model/expectations.js';
import { controllerRefOf, desiredReplicas, objectKey, type Pod, type ReplicaSet } from '../../model/objects.js';
import { isPodActive, isPodReady } from '../../model/pod-ranking.js';
import { featuresOf, type K8sVersion } from '../../model/version.js';
import type { GapEvent, SourceRef, TimelineEvent } from '../../timeline/event.js';
import { EvidenceOracle, FIRST_CALL_MS } from './evidence-oracle.js';
import { DEFAULT_MATCH_WINDOW_MS } from './evidence-window.js';
import type { RoundEvidence } from './create-evidence.js';
import { invalidObservedObject, invalidWriteBody } from '../../timeline/validate.js';
import { LookaheadBuffer } from './lookahead-buffer.js';
import { ThinnedSeries } from './thinned-series.js';
import { PodStore } from '../../model/pod-store.js';
import type { Basis } from '../report-types.js';
import { WriteLedger, type ControllerWrite, type DivergenceKind } from './write-ledger.js';
import { checkStatusWrite, existedAt, statusSignature, type PodSighting, type ViewBehind } from './controller-view.js';
import { EXPECTATIONS_TIMEOUT_MS, type ExpectationsRecord } from '../../model/expectations.js';
import { informerView } from './informer-transform.js';

/**
 * A new credential for the controller after at least this long without any of its writes is a
 * restarted kube-controller-manager (a token rotation happens while it keeps working).
 */
export const RESTART_PAUSE_MS = 10_000;
/** The same after a round the controller left unfinished (its process died making it). */
export const CUT_ROUND_RESTART_PAUSE_MS = 2_000;

/**
 * How far past the last input event kexp simulates the controller (requeues, backoff retries).
 * Beyond it the input is silent and the simulation would be a guess (or, with a far-future
 * timestamp, years of retries).
 */
export const SILENCE_HORIZON_MS = 60 * 60_000;

/** A predicted sync this close after an unexplained write is taken to be the write's own sync. */
const ADVANCE_MS = 1000;

export interface ReplayOptions {
  version: K8sVersion;
  /** Only report these ReplicaSets (`namespace/name`); the model still simulates every one. */
  rsFilter?: string;
  matchWindowMs?: number;
  /** The input declares it watched core/v1 Events (a missing FailedCreate then means none happened). */
  eventsWatched?: boolean;
  /**
   * What shows the controller's writes: `audit` — the controller's own requests (audit logs);
   * `watch` (default) — new pods with its controllerRef and its Events (see write-ledger.ts).
   */
  writeEvidence?: 'audit' | 'watch';
  /**
   * Audit inputs: whether the log records the controller's pod writes at all (known from a
   * pre-scan). Undefined: decided from the look-ahead (any such write seen so far).
   */
  writesRecorded?: boolean;
  /** kube-controller-manager start-ups from its own log: each resets every expectation record. */
  controllerStarts?: Array<{ at: number; source: SourceRef }>;
  /** Max expectation changes kept per ReplicaSet (older ones are counted, not kept). */
  maxExpectationChanges?: number;
  /** Max series points kept per ReplicaSet. */
  maxSeriesPoints?: number;
  /**
   * End of what the input covers (epoch ms), read after the input is consumed — e.g. a
   * recording's end line, later than its last event. Syncs due until then still run.
   */
  coverageEnd?: () => number | undefined;
  /** Start of what the input covers (epoch ms), if earlier than its first event (e.g. the first audit record read). */
  coverageStart?: () => number | undefined;
  /** Receives events whose object the model cannot use (wrong shapes); they are not delivered. */
  onInvalidEvent?: (source: SourceRef, message: string) => void;
  /**
   * Tests only: answer the oracle by scanning the whole look-ahead instead of its index, to show
   * both give the same replay (test/analysis/lookahead-buffer.test.ts).
   */
  scanLookahead?: boolean;
}

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
  gapInside?: boolean;
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
}

/** Everything the engine learned about one ReplicaSet key. */
export interface RsTrack {
  key: string;
  uids: string[];
  uidChanges: Array<{ at: number; oldUid?: string; newUid?: string; source?: SourceRef }>;
  rs?: ReplicaSet;
  deletedAt?: number;
  deletingSince?: number;
  owner?: { kind: string; name: string; uid: string };
  series: Array<{ at: number; desired: number; active: number; terminating: number; ready: number }>;
  seriesDropped: number;
  syncsByOutcome: Record<string, number>;
  syncs: number;
  lastSync?: SyncRecord;
  rounds: RoundTrack[];
  windows: WindowTrack[];
  open?: WindowTrack;
  record?: { add: number; del: number; timestamp: number };
  changes: ExpectationChangeTrack[];
  changesDropped: number;
  clobbers: Array<{ at: number; keys: string[]; source?: SourceRef }>;
  /** Delete keys chosen at the last ExpectDeletions, with the UIDs of the chosen pods. */
  chosen: Map<string, string>;
  nameReuse: Array<{ at: number; podKey: string; chosenUid: string; observedUid: string; source?: SourceRef }>;
  firstSetAt?: number;
  /** First time the ReplicaSet was seen, and whether it was created after the input started. */
  firstSeenAt?: number;
  createdInCoverage?: boolean;
  expiredSyncs: Array<{ at: number; add: number; del: number; created?: number }>;
  noControllerNoise: number;
  syncErrors: Array<{ at: number; error: string; /** The rate-limited requeue delay this failure got. */ backoffMs?: number }>;
  /** Pods of this ReplicaSet seen reaching phase Failed, with when they were created (replacement churn). */
  podFailures: Array<{ pod: string; createdAt?: number; failedAt: number; reason: string; source: SourceRef }>;
  orphanedExpected: Array<{ at: number; podKey: string; source?: SourceRef }>;
  withheld: WithheldTrack[];
  divergences: DivergenceTrack[];
  /** Restarts that dropped an unfulfilled record of this key. */
  restarts: RestartTrack[];
  /** The controller's writes for this key in the input (filled at the end), each in a round or unexplained. */
  writes: ControllerWrite[];
  /** Status writes of the controller that show its pod cache behind the input (controller-view.ts). */
  viewBehind: ViewBehind[];
  /** A later status write that counted every pod again: the view caught up (ends the last viewBehind episode). */
  viewCaughtUp: Array<{ at: number; source: SourceRef }>;
  /**
   * Time and signature of the controller's last status write of this ReplicaSet (of `uid`).
   * `at` is undefined for the first status kexp saw of it (an initial list, a ReplicaSet first
   * seen mid-input): written at a time the input does not show, it anchors no comparison.
   */
  lastStatus?: { at?: number; signature: string; uid?: string };
  /** Times of the controller's status writes of this ReplicaSet (status fields changed). */
  statusWrites: number[];
  /**
   * Where kexp's replay cannot vouch for the gate decisions: from a pod the controller had not
   * observed to the status write that showed it; and from a status write that may or may not
   * count withheld pods until one that counts every pod (`until` undefined: to the end).
   */
  viewUnknown: Array<{ from: number; until?: number; reason: string; sources: SourceRef[] }>;
  /** Creates past an expired record whose round's pods the controller had not observed (kubernetes#129795): kexp held them back. */
  lagOverCreates: Array<{ at: number; setAt: number; pods: string[]; source: SourceRef }>;
}

export interface ReplayResult {
  tracks: Map<string, RsTrack>;
  pods: Map<string, Pod>;
  replicaSets: Map<string, ReplicaSet>;
  gaps: GapEvent[];
  start?: number;
  end?: number;
  events: number;
  controller: ReplicaSetController;
  /** What showed the controller's writes (see ReplayOptions.writeEvidence). */
  writeEvidence: 'audit' | 'watch';
  /** Writes attributed to no ReplicaSet kexp tracks (object missing from the input), per key. */
  untrackedWrites: Map<string, ControllerWrite[]>;
  /** kube-controller-manager restarts the input shows. */
  restarts: RestartTrack[];
  /** Silences longer than SILENCE_HORIZON_MS across which pending syncs were not simulated. */
  silences: Array<{ from: number; until: number; dropped: number; source: SourceRef }>;
}

function newTrack(key: string): RsTrack {
  return {
    key, uids: [], uidChanges: [], series: [], seriesDropped: 0, syncsByOutcome: {}, syncs: 0, rounds: [], windows: [],
    changes: [], changesDropped: 0, clobbers: [], chosen: new Map(), nameReuse: [], expiredSyncs: [], noControllerNoise: 0,
    syncErrors: [], orphanedExpected: [], withheld: [], divergences: [], restarts: [], writes: [], podFailures: [],
    viewBehind: [], viewCaughtUp: [], viewUnknown: [], lagOverCreates: [], statusWrites: [],
  };
}

/**
 * Replays `events` (time-ordered) through the model. Never throws for odd input: events the
 * model cannot use are skipped (sources report malformed input themselves).
 */
export async function replay(events: AsyncIterable<TimelineEvent>, opts: ReplayOptions): Promise<ReplayResult> {
  const matchWindowMs = opts.matchWindowMs ?? DEFAULT_MATCH_WINDOW_MS;
  const maxChanges = opts.maxExpectationChanges ?? 2000;
  const maxSeries = opts.maxSeriesPoints ?? 5000;
  const it = events[Symbol.asyncIterator]();
  const buf = new LookaheadBuffer(); // the look-ahead: events up to the match window ahead, indexed by object
  let done = false;
  const writeEvidence = opts.writeEvidence ?? 'watch';
  const ledger = new WriteLedger(writeEvidence, opts.coverageStart);
  const oracle = new EvidenceOracle({
    look: {
      upcoming: () => buf.iterate(),
      exhausted: () => done,
      coverageEnd: () => opts.coverageEnd?.(),
      ...(opts.scanLookahead ? {} : { keyed: (key, from, to, stop) => buf.keyed(key, from, to, stop), ordered: () => buf.ordered() }),
    },
    matchWindowMs,
    ledger,
    writesRecorded: opts.writesRecorded,
    sidecarRestartTiebreak: featuresOf(opts.version).sidecarRestartTiebreak,
    eventsWatched: opts.eventsWatched ?? false,
    onRoundProgress: (key, until) => controller.extendBusy(key, until),
  });
  const tracks = new Map<string, RsTrack>();
  const track = (key: string): RsTrack => {
    let t = tracks.get(key);
    if (!t) tracks.set(key, (t = newTrack(key)));
    return t;
  };
  let current: TimelineEvent | undefined; // the event being delivered (evidence for handler effects)
  const lastTrigger = new Map<string, SourceRef>();
  const gaps: GapEvent[] = [];

  const controller = new ReplicaSetController({
    version: opts.version,
    podControl: oracle,
    recordClaimDecisions: false,
    onSync: (s) => onSync(s),
  });

  const recordChange = (t: RsTrack, c: ExpectationChangeTrack): void => {
    if (t.changes.length >= maxChanges) {
      t.changesDropped++;
      t.changes.shift();
    }
    t.changes.push(c);
  };

  const closeWindow = (t: RsTrack, at: number, endedBy: WindowTrack['endedBy'], remaining?: WindowTrack['remaining']): void => {
    const w = t.open;
    if (!w) return;
    w.end = at;
    w.endedBy = endedBy;
    w.remaining = remaining;
    t.windows.push(w);
    t.open = undefined;
  };

  /** Consumes the expectations store's log since the last call. */
  const drainExpectations = (): void => {
    const log = controller.expectations.log;
    for (const l of log) onExpectationsLine(l);
    log.length = 0;
  };

  const onExpectationsLine = (l: ExpectationsLogLine): void => {
    const t = track(l.key);
    const src = current?.source ?? lastTrigger.get(l.key);
    switch (l.kind) {
      case 'setting-expectations':
        t.record = { add: l.add ?? 0, del: l.del ?? 0, timestamp: l.at };
        t.firstSetAt ??= l.at;
        recordChange(t, { at: l.at, op: 'set', add: l.add, del: l.del, source: src });
        if ((l.add ?? 0) > 0 || (l.del ?? 0) > 0) {
          t.open = {
            start: l.at, setAt: l.at, raised: { add: l.add ?? 0, del: l.del ?? 0 }, basis: 'inferred', gatedSyncs: 0,
            evidence: src ? [src] : [],
          };
        }
        break;
      case 'lowered-expectations':
        if (t.record) {
          t.record.add = l.add ?? 0;
          t.record.del = l.del ?? 0;
        }
        recordChange(t, { at: l.at, op: 'lower', add: l.add, del: l.del, source: src });
        if (t.open && t.open.fulfilledAt === undefined && (l.add ?? 0) <= 0 && (l.del ?? 0) <= 0) {
          t.open.fulfilledAt = l.at;
          if (src && t.open.evidence.length < 20) t.open.evidence.push(src);
        } else if (t.open && src && t.open.evidence.length < 20 && current) {
          t.open.evidence.push(src);
        }
        break;
      case 'raised-expectations': {
        // Only the view alignment raises (the RS controller never calls RaiseExpectations): a
        // lower kexp's model made for a pod the controller had not observed is given back.
        if (t.record) {
          t.record.add = l.add ?? 0;
          t.record.del = l.del ?? 0;
        }
        recordChange(t, { at: l.at, op: 'raise', add: l.add, del: l.del, source: src });
        if ((l.add ?? 0) > 0 || (l.del ?? 0) > 0) {
          if (t.open) t.open.fulfilledAt = undefined;
          else {
            const last = t.windows[t.windows.length - 1];
            if (last && t.record && last.setAt === t.record.timestamp && last.endedBy === 'fulfilled') {
              // Fulfilled only in kexp's replay: the controller was still waiting.
              t.windows.pop();
              delete last.end;
              delete last.endedBy;
              delete last.fulfilledAt;
              last.note = [last.note, 'kexp had closed this window when the input showed the pods; the controller\'s status writes show its informer had not delivered them, so it was still waiting'].filter(Boolean).join('; ');
              t.open = last;
            }
          }
        }
        break;
      }
      case 'waiting-on-deletions':
        t.chosen = new Map((l.keys ?? []).map((k) => [k, '']));
        break;
      case 'clobbering-delete-keys':
        t.clobbers.push({ at: l.at, keys: l.keys ?? [], source: src });
        recordChange(t, { at: l.at, op: 'clobber', keys: l.keys, source: src });
        break;
      case 'received-delete':
        recordChange(t, { at: l.at, op: 'received-delete', keys: l.keys, source: src });
        break;
      case 'deleted-expectations':
      case 'store-reset': {
        const rem = t.record ? { add: t.record.add, del: t.record.del } : undefined;
        recordChange(t, { at: l.at, op: 'delete', source: src });
        if (t.open) closeWindow(t, l.at, l.kind === 'store-reset' ? 'reset' : 'rs-deleted', rem);
        t.record = undefined;
        t.chosen = new Map();
        break;
      }
      case 'expectations-fulfilled':
      case 'never-recorded':
        if (t.open) closeWindow(t, l.at, 'fulfilled');
        break;
      case 'expectations-expired': {
        const rem = { add: l.add ?? 0, del: l.del ?? 0, keys: controller.expectations.getDeleteKeys(l.key) };
        t.expiredSyncs.push({ at: l.at, add: rem.add, del: rem.del });
        if (t.open) closeWindow(t, l.at, 'expired', rem);
        break;
      }
      case 'still-waiting':
        if (t.open) t.open.gatedSyncs++;
        break;
      default:
        break;
    }
  };

  /** Each track's series while replaying (thinned-series.ts); copied into `t.series` at the end. */
  const seriesOf = new Map<RsTrack, ThinnedSeries<RsTrack['series'][number]>>();
  /** Appends a series point when any count changed (kept under maxSeries by thinning the middle). */
  const pushPoint = (t: RsTrack, p: RsTrack['series'][number]): void => {
    let series = seriesOf.get(t);
    if (!series) seriesOf.set(t, (series = new ThinnedSeries(maxSeries)));
    const prev = series.last();
    if (prev && prev.desired === p.desired && prev.active === p.active && prev.terminating === p.terminating && prev.ready === p.ready) return;
    series.push(p);
    t.seriesDropped = series.dropped;
  };

  const onSync = (s: SyncRecord): void => {
    drainExpectations();
    const t = track(s.key);
    t.syncs++;
    t.syncsByOutcome[s.outcome] = (t.syncsByOutcome[s.outcome] ?? 0) + 1;
    t.lastSync = s;
    if (s.error) t.syncErrors.push({ at: s.at, error: s.error, ...(s.requeue?.kind === 'rate-limited' ? { backoffMs: s.requeue.delayMs } : {}) });
    if (s.noControllerNoise) t.noControllerNoise++;
    const trig = lastTrigger.get(s.key);
    if (s.outcome === 'withheld' && s.diff !== undefined) {
      t.withheld.push({ at: s.at, diff: s.diff, ...(s.recordBefore ? { record: s.recordBefore } : {}), ...(trig ? { trigger: trig } : {}) });
    }
    if (s.claimRound !== undefined) {
      t.rounds.push({ at: s.at, round: t.rounds.length, modelRound: s.claimRound, kind: 'claim', sync: s, evidence: undefined, trigger: trig, ...(forcing ? { forced: forcing } : {}) });
    }
    if (s.create || s.delete) {
      const round = t.rounds.length;
      const modelRound = s.create?.round ?? s.delete!.round;
      const ev = oracle.takeRoundEvidence(modelRound);
      const rt: RoundTrack = { at: s.at, round, modelRound, kind: s.create ? 'create' : 'delete', sync: s, evidence: ev, trigger: trig, ...(forcing ? { forced: forcing } : {}) };
      t.rounds.push(rt);
      if (s.delete) {
        t.chosen = new Map(s.delete.keys.map((k, i) => [k, s.delete!.uids[i] ?? '']));
      }
      // A round whose walk-backs fulfilled the record at once never gates.
      const rec = controller.expectations.get(s.key);
      if (t.open && rec && rec.add <= 0 && rec.del <= 0) t.open = undefined;
      if (t.open) {
        t.open.round = round;
        t.open.basis = rt.evidence?.basis ?? 'inferred';
        t.open.note = rt.evidence?.note ?? s.delete?.note;
        t.open.namespaceTerminating = s.create?.namespaceTerminating;
        if (s.delete) t.open.raised.keys = s.delete.keys;
        if (rec) t.open.remaining = { add: rec.add, del: rec.del };
      }
    }
    if (s.expectations === 'expired' && s.create) {
      const last = t.expiredSyncs[t.expiredSyncs.length - 1];
      if (last && last.at === s.at) last.created = s.create.successes;
    }
    if (s.desired !== undefined && s.active !== undefined) {
      pushPoint(t, { at: s.at, desired: s.desired, active: s.active, terminating: s.terminatingPods ?? 0, ready: s.ready ?? 0 });
    }
  };

  const pull = async (): Promise<boolean> => {
    if (done) return false;
    const r = await it.next();
    if (r.done) {
      done = true;
      return false;
    }
    // Shape checks before anything reads the event (the oracle's and the ledger's look-ahead
    // too): an event that fails is reported at its FILE:LINE and never enters the buffer.
    if (r.value.type === 'observed' || r.value.type === 'write') {
      const why = r.value.type === 'observed' ? invalidObservedObject(r.value) : invalidWriteBody(r.value);
      if (why) {
        opts.onInvalidEvent?.(r.value.source, why);
        return true;
      }
    }
    const ev = informerView(r.value);
    buf.push(ev);
    try {
      ledger.enter(ev);
    } catch {
      // A shape the ledger cannot read: the engine reports it when the event is delivered.
    }
    return true;
  };

  const restarts: RestartTrack[] = [];
  /**
   * The controller's first write with a new credential after a pause in its writes: a new
   * kube-controller-manager process (expectations live in memory, so it starts with none).
   */
  const noteRestart = (e: TimelineEvent): void => {
    const c = ledger.credentialChangeAt(e);
    // A token rotation keeps working through; a restart pauses. A round the controller left
    // unfinished before the pause says the same even when the pause was short (a new leader
    // after a crash waits only for the lease, e.g. 8 s with --leader-elect-lease-duration=8s).
    if (!c || (c.pauseMs < RESTART_PAUSE_MS && !(c.pauseMs >= CUT_ROUND_RESTART_PAUSE_MS && tracksCut(c)))) return;
    restartAt(e.at, { at: c.at, pauseMs: c.pauseMs, source: c.source, via: 'credential' });
  };
  const starts = [...(opts.controllerStarts ?? [])].sort((a, b) => a.at - b.at);
  /** Applies the controller's logged start-ups due before `at`. */
  const logStartsBefore = (at: number): void => {
    while (starts.length && starts[0]!.at <= at) {
      const st = starts.shift()!;
      // The old process's syncs due before the start-up happened first.
      controller.runDue(st.at);
      drainExpectations();
      // The store was empty anyway unless something is pending; a first start-up costs nothing.
      restartAt(st.at, { at: st.at, pauseMs: 0, source: st.source, via: 'log' });
      // The new process's informers list every ReplicaSet (addRS → enqueue): each is synced afresh.
      for (const key of controller.replicaSets.keys()) controller.queue.add(key, st.at);
    }
  };
  const restartAt = (at: number, c: Omit<RestartTrack, 'dropped' | 'interrupted'>): void => {
    const dropped: RestartTrack['dropped'] = [];
    for (const t of tracks.values()) {
      const rec = controller.expectations.get(t.key);
      if (rec && (rec.add > 0 || rec.del > 0)) dropped.push({ key: t.key, add: rec.add, del: rec.del, setAt: rec.timestamp });
    }
    const r: RestartTrack = { ...c, dropped };
    if (c.via === 'log' && dropped.length === 0 && !tracksCut(c)) return;
    restarts.push(r);
    controller.expectations.reset(at);
    drainExpectations();
    for (const d of dropped) track(d.key).restarts.push(r);
    // A round the audit log shows cut short just before the pause was interrupted by the restart.
    for (const t of tracks.values()) {
      if (dropped.some((d) => d.key === t.key)) continue;
      const last = cutRound(t, c);
      if (last) t.restarts.push({ ...r, interrupted: { at: last.at, made: last.sync.create ? last.sync.create.calls : last.sync.delete!.n - last.sync.delete!.unmade.length, n: last.sync.create?.n ?? last.sync.delete!.n, kind: last.kind } });
    }
  };
  const cutRound = (t: RsTrack, c: { at: number; pauseMs: number }): RoundTrack | undefined => {
    const last = t.rounds[t.rounds.length - 1];
    const cut = last && ((last.sync.create?.unmade ?? 0) > 0 || (last.sync.delete?.unmade.length ?? 0) > 0);
    return cut && last.at >= c.at - c.pauseMs - 60_000 ? last : undefined;
  };
  const tracksCut = (c: { at: number; pauseMs: number }): boolean => [...tracks.values()].some((t) => cutRound(t, c) !== undefined);

  /**
   * The input shows nothing for longer than SILENCE_HORIZON_MS: kexp simulates the controller
   * only that far past the last event (its retries and requeues), drops what would come due in
   * the silence — it cannot know what happened there, and a far-future timestamp would otherwise
   * make it simulate years of retries — and marks the silence as a gap.
   */
  let lastAt: number | undefined;
  const bridgeSilence = (at: number, source: SourceRef): void => {
    if (lastAt !== undefined && at - lastAt > SILENCE_HORIZON_MS) {
      controller.runDue(lastAt + SILENCE_HORIZON_MS, true);
      drainExpectations();
      // A quiet input is not a gap (nothing happened that it would have shown); only the
      // controller's own pending retries across the silence are left unsimulated.
      const dropped = controller.queue.dropDue(at);
      if (dropped) silences.push({ from: lastAt + SILENCE_HORIZON_MS, until: at, dropped, source });
    }
    lastAt = Math.max(lastAt ?? at, at);
  };
  const silences: ReplayResult['silences'] = [];

  /** When the input first showed each pod (namespace/name), for the controller-view check. */
  const podSightings = new Map<string, PodSighting & { uid?: string }>();
  /**
   * Per ReplicaSet key: the pods the input first showed controlled by it since its last status
   * write, in time order — the ones a status write need not count, so most writes are checked
   * without walking every pod of the ReplicaSet (noteStatusWrite).
   */
  const recentSightings = new Map<string, Array<{ pk: string; at: number }>>();
  /**
   * Pods the controller's status writes show it had not observed: out of the model's cache (latest
   * state kept). `raisedFor`: the Set time of the record whose lower their ADD made was given back.
   */
  const withheldPods = new Map<string, { pod: Pod; rsKey: string; raisedFor?: number }>();
  /**
   * Withheld pods the input deleted (or gave another controller) while their record still waited
   * for them: whether the controller's informer delivered their ADD first (a lag: the record was
   * lowered) or never (a lost event: it waits until it expires), the input does not show — until
   * a write of the controller passes the gate (releaseWithheld), or the record expires.
   */
  const pendingLowers = new Map<string, { rsKey: string; setAt: number; span: RsTrack['viewUnknown'][number] }>();
  /** The controller's last pod write per ReplicaSet key the input showed (a create write, or a new pod it controls). */
  const lastWriteAt = new Map<string, number>();
  /** Pods whose ADD lowered the model's `add` (the record's Set time), to give the lower back when withheld. */
  const loweredBy = new Map<string, { rsKey: string; setAt: number }>();

  /**
   * A change of the status fields is the controller's status write: compare what it counted
   * with the pods the input showed (controller-view.ts). The first status seen has no previous
   * write to anchor the comparison.
   */
  const noteStatusWrite = (t: RsTrack, rs: ReplicaSet, e: TimelineEvent): void => {
    const signature = statusSignature(rs);
    const uid = rs.metadata.uid;
    // The first status of this ReplicaSet (of this UID) kexp sees was written at a time the input
    // does not show — perhaps by a sync still running, whose next write counts what it listed
    // before pods the input already shows: it anchors no comparison.
    const first = !t.lastStatus || t.lastStatus.uid !== uid;
    if (!first && t.lastStatus!.signature === signature) return;
    const previous = first ? undefined : t.lastStatus!.at;
    t.lastStatus = first ? { signature, uid } : { at: e.at, signature, uid };
    t.statusWrites.push(e.at);
    const ns = rs.metadata.namespace;
    const held = [...withheldPods.values()].filter((w) => w.rsKey === t.key);
    // Read lazily: a status counting at least the index's size settles the check without the walk
    // (a large ReplicaSet writes its status thousands of times).
    const mine = function* (): Generator<Pod> {
      yield* controller.pods.controlledBy(ns, uid);
      for (const w of held) yield w.pod;
    };
    const atMost = controller.pods.countControlledBy(ns, uid) + held.length;
    const recent = recentSightings.get(t.key);
    if (recent) recentSightings.set(t.key, recent.filter((r) => r.at >= e.at));
    const open = t.viewUnknown.find((u) => u.until === undefined);
    const lastBehind = t.viewBehind[t.viewBehind.length - 1];
    const lastUp = t.viewCaughtUp[t.viewCaughtUp.length - 1];
    // Whether the status counts every pod matters only while kexp holds pods back or its view is
    // unknown or behind; otherwise only a status showing the view behind does, and that needs
    // more older pods than the status counts: at most every pod of the index but those first
    // seen since the previous write (a scale-up's status lags by those). Bounded so, the check
    // walks the ReplicaSet's pods only when it could find it behind.
    const statusReplicas = (rs.status as { replicas?: number } | undefined)?.replicas;
    if (held.length === 0 && !open && (!lastBehind || (lastUp !== undefined && lastUp.at >= lastBehind.at)) && typeof statusReplicas === 'number') {
      let fresh = 0;
      if (previous !== undefined) {
        for (const r of recent ?? []) {
          const p = controller.pods.get(r.pk);
          if (p && podSightings.get(r.pk)?.at === r.at && isPodActive(p) && controllerRefOf(p.metadata)?.uid === uid && !existedAt(p, r.at, previous)) fresh++;
        }
      }
      if (previous === undefined || atMost - fresh <= statusReplicas) return;
    }
    const { behind, caughtUp } = checkStatusWrite(rs, e.at, e.source, mine(), podSightings, previous, atMost);
    if (behind) {
      t.viewUnknown.push({ from: behind.since, until: e.at, reason: `the controller's status write counted ${behind.statusReplicas} of ${behind.expected} pods the input showed`, sources: [e.source] });
    } else if (caughtUp) {
      if (open) {
        open.until = e.at;
        open.sources.push(e.source);
      }
    } else if (!open && previous !== undefined && held.length > 0) {
      // No status write since the last one means the controller's view had not changed (a pod
      // it observes triggers a sync whose status write would show it); this one may count the
      // withheld pods or newer ones instead: unknown from its sync until one counts every pod.
      // The sync that wrote it started within the match window before (its view changed then).
      t.viewUnknown.push({ from: Math.max(previous, e.at - matchWindowMs), reason: 'the controller\'s status write may count pods kexp holds back as unobserved, or newer ones instead', sources: [e.source] });
    }
    if (behind) t.viewBehind.push(behind);
    else if (caughtUp && t.viewBehind.length && (t.viewCaughtUp.length === 0 || t.viewCaughtUp[t.viewCaughtUp.length - 1]!.at < t.viewBehind[t.viewBehind.length - 1]!.at)) {
      t.viewCaughtUp.push({ at: e.at, source: e.source });
    }
    alignView(t, behind, caughtUp, e);
  };


  /**
   * Makes kexp's cache hold what the controller's held at its status write: the pods it had not
   * observed are withheld from the model (and a lower their ADD made is given back: the
   * controller's record still waits for them); once a status counts every pod, the withheld
   * ones are delivered (the informer caught up).
   */
  /**
   * The controller's creates for `key` the input shows from `e` on, one sync's worth (each
   * within FIRST_CALL_MS of the previous): create writes (audit) or new pods it controls (watch).
   */
  const createsAhead = (key: string, e: TimelineEvent): number => {
    const rs = controller.replicaSets.get(key);
    if (!rs) return 0;
    const name = key.slice(key.indexOf('/') + 1);
    const ns = rs.metadata.namespace;
    let n = 0;
    let last = e.at;
    const ahead = function* (): Generator<TimelineEvent> {
      yield e;
      yield* buf.iterate();
    };
    for (const x of ahead()) {
      if (x.at - last > FIRST_CALL_MS) break;
      const isCreate = x.type === 'write'
        ? x.actor.replicaSetController && x.resource === 'pods' && !x.subresource && x.verb === 'create' && x.namespace === ns && x.owner?.state === 'owned' && x.owner.name === name && x.status.code < 300
        : x.type === 'observed' && x.kind === 'Pod' && x.watchType === 'ADDED' && x.object.metadata?.namespace === ns && controllerRefOf(x.object.metadata)?.uid === rs.metadata.uid && !podSightings.has(objectKey(x.object.metadata));
      if (!isCreate) continue;
      if (x !== e || n === 0) n++;
      last = x.at;
    }
    return n;
  };

  /**
   * Withholds up to `n` pods of the round whose record was Set at `setAt` (pods whose ADD
   * lowered that record), newest first, and gives their lowers back. Returns what it held.
   */
  const withholdRound = (key: string, setAt: number, n: number, at: number): Array<{ pod: string; seenAt: number }> => {
    if (n <= 0) return [];
    const rec = controller.expectations.get(key);
    if (!rec || rec.timestamp !== setAt) return [];
    const cands = [...loweredBy].filter(([pk, l]) => l.rsKey === key && l.setAt === setAt && !withheldPods.has(pk) && controller.pods.get(pk))
      .map(([pk]) => ({ pod: pk, seenAt: podSightings.get(pk)?.at ?? at }))
      .sort((a, b) => b.seenAt - a.seenAt)
      .slice(0, n);
    for (const c of cands) holdBack(key, c.pod, at);
    drainExpectations();
    return cands;
  };

  /**
   * Takes one pod out of the model's cache as not yet observed by the controller; if its ADD
   * lowered the record still in force, gives that lower back (the controller's record still
   * waits for it). The caller drains the expectation log.
   */
  const holdBack = (key: string, pk: string, at: number): void => {
    const pod = controller.withholdPod(pk);
    if (!pod) return;
    const lowered = loweredBy.get(pk);
    const rec = controller.expectations.get(key);
    const raise = lowered !== undefined && lowered.rsKey === key && rec !== undefined && rec.timestamp === lowered.setAt;
    withheldPods.set(pk, { pod, rsKey: key, ...(raise ? { raisedFor: rec.timestamp } : {}) });
    if (raise) controller.expectations.raise(key, 1, 0, at);
  };

  /** Delivers the pods withheld for `key` to the model (the controller observed them); true if there were any. */
  const deliverWithheld = (key: string, at: number): boolean => {
    let any = false;
    for (const [pk, w] of [...withheldPods]) {
      if (w.rsKey !== key) continue;
      withheldPods.delete(pk);
      controller.deliverPod('ADDED', w.pod, at);
      any = true;
    }
    return any;
  };

  /**
   * Delivers the pods withheld for `key` (the controller evidently observed them), and lowers the
   * record for those the input deleted meanwhile (their ADD came first); true if there were any.
   */
  const releaseWithheld = (key: string, at: number): boolean => {
    let any = deliverWithheld(key, at);
    for (const [pk, p] of [...pendingLowers]) {
      if (p.rsKey !== key) continue;
      pendingLowers.delete(pk);
      if (p.span.until === undefined || p.span.until > at) p.span.until = at;
      if (controller.expectations.get(key)?.timestamp !== p.setAt) continue;
      controller.expectations.creationObserved(key, at);
      any = true;
    }
    if (any) drainExpectations();
    return any;
  };

  /**
   * A withheld pod leaves the view question (the input deleted it, or it now has another
   * controller): it is no longer held back. If its record still waits for it (kexp gave its lower
   * back), the controller's record stands at one of two counts until a write of the controller
   * settles it or the record expires: kexp keeps the waiting one and marks that time unknown.
   */
  const forgetWithheld = (pk: string, w: { rsKey: string; raisedFor?: number }, e: TimelineEvent, why: string): void => {
    withheldPods.delete(pk);
    const rec = controller.expectations.get(w.rsKey);
    if (w.raisedFor === undefined || !rec || rec.timestamp !== w.raisedFor || rec.add <= 0) return;
    const expires = rec.timestamp + EXPECTATIONS_TIMEOUT_MS;
    if (e.at >= expires) return;
    const span = {
      from: e.at, until: expires, sources: [e.source],
      reason: `${why} a pod the controller had not observed (${pk}): whether its informer delivered the pod's ADD first (lowering the record) or never, the input does not show until the controller writes or the record expires`,
    };
    track(w.rsKey).viewUnknown.push(span);
    pendingLowers.set(pk, { rsKey: w.rsKey, setAt: rec.timestamp, span });
  };

  const alignView = (t: RsTrack, behind: ViewBehind | undefined, caughtUp: boolean, e: TimelineEvent): void => {
    const missing = new Set(behind?.missing.map((m) => m.pod) ?? []);
    // Withheld pods are delivered only when the status proves the controller counts them all;
    // a status that may count newer pods instead of them proves nothing.
    if (caughtUp) deliverWithheld(t.key, e.at);
    for (const pk of missing) if (!withheldPods.has(pk)) holdBack(t.key, pk, e.at);
    drainExpectations();
  };

  /** Set while the engine runs a sync the input forced (see reconcile). */
  let forcing: string | undefined;
  const forceSync = (key: string, at: number, why: string): SyncRecord => {
    forcing = why;
    try {
      return controller.syncReplicaSet(key, at);
    } finally {
      forcing = undefined;
      drainExpectations();
    }
  };

  /**
   * Called with the event about to be delivered: writes of the controller it shows that no
   * round explains. The real controller evidently synced the key now, so kexp syncs it too; if
   * the model still would not have made the write, kexp records why (the divergence), and where
   * the write proves the controller held no unfulfilled record, drops kexp's record (a restart
   * resets every key) and syncs again.
   */
  const reconcile = (e: TimelineEvent): void => {
    const open = ledger.settle(e);
    if (open.length === 0) return;
    const keys = [...new Set(open.map((w) => w.rsKey))];
    for (const key of keys) {
      const ws = open.filter((w) => w.rsKey === key);
      const unexplained = () => ws.filter((w) => w.round === undefined);
      const rs = controller.replicaSets.get(key);
      if (!rs) {
        const t = tracks.get(key);
        const why = t?.deletedAt !== undefined ? 'the ReplicaSet had been deleted (as kexp saw it) when the controller wrote' : 'the ReplicaSet is not in kexp\'s model at this time (its object is not in the input)';
        for (const w of ws) ledger.explain(w, 'no-model', why);
        continue;
      }
      if (controller.isBusy(key, e.at)) {
        // Inside a sync kexp is already following: a write that sync did not predict.
        for (const w of ws) {
          if (w.kind === 'adopt' || w.kind === 'release') ledger.explain(w, 'unexpected-claim', `kexp's ClaimObject would not ${w.kind} this pod in the sync then in progress`);
          else ledger.explain(w, 'outside-round', 'kexp\'s model was still inside a sync of this ReplicaSet whose calls did not include this write');
        }
        continue;
      }
      const recordBefore = controller.expectations.get(key);
      // A sync kexp predicted shortly after is this one, a little earlier (timer and event timing).
      const due = controller.queue.dueAt(key);
      const advance = due !== undefined && due >= e.at && due - e.at <= ADVANCE_MS;
      if (advance) controller.queue.take(key);
      oracle.setForcedEvent(e);
      try {
        let s1 = forceSync(key, e.at, advance
          ? `kexp's predicted sync ran ${Math.round(due! - e.at)} ms earlier, at the controller's write`
          : 'no predicted sync explains the controller\'s write here: kexp synced at the write');
        if (unexplained().length === 0) continue;
        const deletes = unexplained().some((w) => w.kind === 'delete' && w.outcome === 'ok');
        if ((s1.outcome === 'gated' || deletes) && releaseWithheld(key, e.at)) {
          // The controller wrote (passing its gate, or deleting a surplus that needs them), so its
          // informer had delivered the pods kexp held back — when, the input does not tell: after
          // its last status write, within the sync's reach.
          const t = track(key);
          t.viewUnknown.push({
            from: Math.max(t.lastStatus?.at ?? -Infinity, e.at - matchWindowMs), until: e.at, sources: [e.source],
            reason: 'the controller\'s informer delivered the pods kexp held back as unobserved at a time the input does not show (before this write)',
          });
          s1 = forceSync(key, e.at, 'the controller wrote, so its informer had delivered the pods kexp held back as unobserved: kexp delivered them and synced at the write');
          if (unexplained().length === 0) continue;
        }
        const sat = s1.expectations;
        // Creates past the 5-minute timeout of a record whose round kexp saw fulfilled: the
        // controller's informer had not delivered that round's pods (kubernetes#129795). Hold
        // them back as the controller did, give the record its count back and sync again: the
        // expired record lets the sync through and it creates from the controller's count.
        if (s1.outcome === 'synced' || s1.outcome === 'withheld') {
          const made = unexplained().filter((w) => w.kind === 'create' && w.outcome === 'ok').length;
          const lastSet = made > 0 ? [...track(key).changes].reverse().find((c) => c.op === 'set' && c.at < e.at) : undefined;
          // Only then count the sync's creates ahead (a scan of the look-ahead).
          const creates = lastSet && (lastSet.add ?? 0) > 0 && e.at - lastSet.at > EXPECTATIONS_TIMEOUT_MS ? Math.max(made, createsAhead(key, e)) : 0;
          if (creates > 0 && lastSet && s1.active !== undefined && s1.desired !== undefined) {
            const held = withholdRound(key, lastSet.at, s1.active - s1.desired + creates, e.at);
            if (held.length) {
              const t = track(key);
              t.viewUnknown.push({
                from: Math.min(...held.map((h) => h.seenAt)), until: e.at, sources: [e.source],
                reason: `the controller created again at ${new Date(e.at).toISOString()} from a cache without ${held.length} pod(s) of its round of ${new Date(lastSet.at).toISOString()}: its informer had not delivered them`,
              });
              t.lagOverCreates.push({ at: e.at, setAt: lastSet.at, pods: held.map((h) => h.pod), source: e.source });
              s1 = forceSync(key, e.at, 'the controller created again after its record expired: its informer had not delivered the earlier round\'s pods (kubernetes#129795); kexp held them back and synced at the write');
              if (unexplained().length === 0) continue;
            }
          }
        }
        if (s1.outcome === 'gated' && recordBefore) {
          // The controller wrote, so SatisfiedExpectations passed for it: its record was gone.
          const change = ledger.credentialChangeBetween(recordBefore.timestamp, e.at);
          const kind: DivergenceKind = change ? 'after-restart' : 'while-gated';
          const t = track(key);
          // The record was there at its Set and at the controller's last write for the key after
          // it (the same sync's calls); when it went, the input does not show.
          const since = Math.max(recordBefore.timestamp, lastWriteAt.get(key) ?? -Infinity);
          if (since < e.at) {
            t.viewUnknown.push({
              from: since, until: e.at, sources: [e.source],
              reason: change ? 'kube-controller-manager restarted at a time the input does not show exactly (a new credential by this write): its record was gone' : 'the controller\'s record was gone by this write (a restart, or an observation the input lacks); when it went, the input does not show',
            });
          }
          if (change) controller.expectations.reset(e.at);
          else controller.expectations.reset(e.at, key);
          drainExpectations();
          t.divergences.push({ at: e.at, kind, record: recordBefore, writes: ws, ...(change ? { credentialChange: change } : {}) });
          forceSync(key, e.at, change
            ? 'kube-controller-manager restarted (new credential): expectations reset, kexp synced at the write'
            : 'the controller wrote while kexp\'s record said gated: kexp dropped its record and synced at the write');
          for (const w of unexplained()) ledger.explain(w, kind, `after dropping its record kexp's model still would not make this ${w.kind}`);
          continue;
        }
        for (const w of unexplained()) {
          if (s1.outcome !== 'synced' && s1.outcome !== 'withheld') {
            ledger.explain(w, 'outside-round', `kexp's sync at the write ended ${s1.outcome}${sat ? ` (expectations ${sat})` : ''}`);
          } else if (w.outcome !== 'ok' && (w.kind === 'create' || w.kind === 'delete')) {
            ledger.explain(w, 'outside-round', `a failed ${w.kind} that kexp's count does not call for (${s1.active ?? '?'} active pod(s) for ${s1.desired ?? '?'} desired)`);
          } else if (w.kind === 'create') {
            const lastSet = [...track(key).changes].reverse().find((c) => c.op === 'set' && c.at < e.at);
            if (lastSet && (lastSet.add ?? 0) > 0 && w.at - lastSet.at > EXPECTATIONS_TIMEOUT_MS) {
              ledger.explain(w, 'expired-over-create', `the controller's record from ${new Date(lastSet.at).toISOString()} (add=${lastSet.add}) was ${Math.round((w.at - lastSet.at) / 1000)} s old, past the 5-minute ExpectationsTimeout; kexp's cache had ${s1.active ?? '?'} active pod(s) for ${s1.desired ?? '?'} desired`);
            } else {
              ledger.explain(w, 'surplus-create', `kexp's cache had ${s1.active ?? '?'} active pod(s) for ${s1.desired ?? '?'} desired`);
            }
          } else if (w.kind === 'delete') {
            ledger.explain(w, 'extra-delete', `kexp's cache had ${s1.active ?? '?'} active pod(s) for ${s1.desired ?? '?'} desired`);
          } else {
            ledger.explain(w, 'unexpected-claim', `kexp's ClaimObject would not ${w.kind} this pod at that moment`);
          }
        }
      } finally {
        oracle.setForcedEvent(undefined);
      }
    }
  };

  let start: number | undefined;
  let end: number | undefined;
  let count = 0;
  while (true) {
    if (buf.length === 0 && !(await pull())) break;
    if (buf.length === 0) continue;
    const e = buf.peek()!;
    while (!done && (buf.last()!.at <= e.at + matchWindowMs)) {
      if (!(await pull())) break;
    }
    current = undefined;
    oracle.beforeSyncs(e);
    bridgeSilence(e.at, e.source);
    logStartsBefore(e.at);
    controller.runDue(e.at);
    drainExpectations();
    noteRestart(e);
    reconcile(e);
    buf.shift();
    count++;
    start ??= e.at;
    end = e.at;
    current = e;
    oracle.observe(e);
    try {
      deliver(e);
    } catch (err) {
      // A shape the validator did not anticipate: report it, keep replaying.
      opts.onInvalidEvent?.(e.source, `event could not be processed (${(err as Error)?.message ?? String(err)})`);
    }
    drainExpectations();
    current = undefined;
  }
  const declaredEnd = opts.coverageEnd?.();
  if (declaredEnd !== undefined && (end === undefined || declaredEnd > end)) end = declaredEnd;
  if (end !== undefined) {
    // Never simulate further than the horizon past the last event (a far-future end time).
    const last = lastAt ?? end;
    controller.runDue(Math.min(end, last + SILENCE_HORIZON_MS), true);
    drainExpectations();
  }

  function deliver(e: TimelineEvent): void {
    if (e.type === 'write' && e.actor.replicaSetController && e.resource === 'pods' && e.owner?.state === 'owned' && e.owner.kind === 'ReplicaSet') {
      lastWriteAt.set(`${e.namespace}/${e.owner.name}`, e.at);
    }
    if (e.type === 'observed' && e.kind === 'Pod' && e.watchType === 'ADDED') {
      const ref = e.object.metadata ? controllerRefOf(e.object.metadata) : undefined;
      if (ref?.kind === 'ReplicaSet' && !podSightings.has(objectKey(e.object.metadata))) lastWriteAt.set(`${e.object.metadata.namespace}/${ref.name}`, e.at);
    }
    if (e.type === 'gap') {
      gaps.push(e);
      for (const t of tracks.values()) if (t.open) t.open.gapInside = true;
      return;
    }
    if (e.type !== 'observed') return;
    if (e.kind === 'Pod') {
      const pod = e.object;
      if (!pod.metadata?.name || !pod.metadata.namespace) return;
      const ref = controllerRefOf(pod.metadata);
      if (ref?.kind === 'ReplicaSet') {
        const rsKey = `${pod.metadata.namespace}/${ref.name}`;
        lastTrigger.set(rsKey, e.source);
        // An expected-delete pod that lost its controllerRef before its deletion was observed (case 8).
      }
      const old = controller.pods.get(objectKey(pod.metadata));
      const oldRef = old ? controllerRefOf(old.metadata) : undefined;
      if (old && oldRef?.kind === 'ReplicaSet' && (!ref || ref.uid !== oldRef.uid)) {
        const rsKey = `${pod.metadata.namespace}/${oldRef.name}`;
        const t = tracks.get(rsKey);
        const pk = objectKey(pod.metadata);
        if (t && controller.expectations.getDeleteKeys(rsKey).includes(pk)) {
          t.orphanedExpected.push({ at: e.at, podKey: pk, source: e.source });
        }
        lastTrigger.set(rsKey, e.source);
      }
      // Name reuse: a deletion observation of a chosen key by a pod with another UID (case 14).
      if (ref?.kind === 'ReplicaSet' && (e.watchType === 'DELETED' || pod.metadata.deletionTimestamp)) {
        const rsKey = `${pod.metadata.namespace}/${ref.name}`;
        const t = tracks.get(rsKey);
        const pk = objectKey(pod.metadata);
        const chosenUid = t?.chosen.get(pk);
        if (t && chosenUid && pod.metadata.uid && chosenUid !== pod.metadata.uid && controller.expectations.getDeleteKeys(rsKey).includes(pk)) {
          t.nameReuse.push({ at: e.at, podKey: pk, chosenUid, observedUid: pod.metadata.uid, source: e.source });
        }
      }
      if (ref?.kind === 'ReplicaSet' && pod.status?.phase === 'Failed' && (!old || old.status?.phase !== 'Failed')) {
        const created = pod.metadata.creationTimestamp ? Date.parse(pod.metadata.creationTimestamp) : NaN;
        track(`${pod.metadata.namespace}/${ref.name}`).podFailures.push({
          pod: objectKey(pod.metadata), failedAt: e.at, reason: typeof pod.status.reason === 'string' && pod.status.reason ? pod.status.reason : 'Failed', source: e.source, ...(Number.isNaN(created) ? {} : { createdAt: created }),
        });
      }
      const pk = objectKey(pod.metadata);
      if (e.watchType === 'DELETED') podSightings.delete(pk);
      else if (!podSightings.has(pk) || podSightings.get(pk)!.uid !== pod.metadata.uid) {
        podSightings.set(pk, { at: e.at, source: e.source, uid: pod.metadata.uid });
        if (ref?.kind === 'ReplicaSet') {
          const rk = `${pod.metadata.namespace}/${ref.name}`;
          let r = recentSightings.get(rk);
          if (!r) recentSightings.set(rk, (r = []));
          r.push({ pk, at: e.at });
        }
      }
      const held = withheldPods.get(pk);
      if (held && e.watchType !== 'DELETED' && ref?.uid === controllerRefOf(held.pod.metadata)?.uid) {
        // Not observed by the controller yet: keep its latest state for when it is.
        held.pod = pod;
        return;
      }
      // Deleted, or now another controller's (or none's): no status write of the ReplicaSet it was
      // held for can tell any more whether the controller observed it; delivered as it is now.
      if (held) forgetWithheld(pk, held, e, e.watchType === 'DELETED' ? 'the input deleted' : 'the input released');
      const rsKeyOf = ref?.kind === 'ReplicaSet' ? `${pod.metadata.namespace}/${ref.name}` : undefined;
      const before = rsKeyOf && e.watchType === 'ADDED' && !old ? controller.expectations.get(rsKeyOf) : undefined;
      const addBefore = before?.add;
      controller.deliverPod(e.watchType, pod, e.at);
      if (before && addBefore !== undefined && addBefore > 0) {
        const after = controller.expectations.get(rsKeyOf!);
        if (after && after.timestamp === before.timestamp && after.add < addBefore) loweredBy.set(pk, { rsKey: rsKeyOf!, setAt: before.timestamp });
      }
      // Counts change with every pod event, not only at syncs: sample them here too.
      for (const r of [ref, oldRef]) {
        if (r?.kind !== 'ReplicaSet') continue;
        const key = `${pod.metadata.namespace}/${r.name}`;
        const t = tracks.get(key);
        const c = controller.podCounts(key);
        if (t?.rs && c && t.deletedAt === undefined) pushPoint(t, { at: e.at, desired: desiredReplicas(t.rs), ...c });
      }
      return;
    }
    if (e.kind === 'ReplicaSet') {
      const rs = e.object;
      if (!rs.metadata?.name || !rs.metadata.namespace) return;
      const key = objectKey(rs.metadata);
      const t = track(key);
      lastTrigger.set(key, e.source);
      if (t.firstSeenAt === undefined) {
        t.firstSeenAt = e.at;
        // Created after the input started (not part of the initial list): the controller cannot
        // hold expectations for this key yet (a deleted namesake's were cleared by deleteRS).
        const created = rs.metadata.creationTimestamp ? Date.parse(rs.metadata.creationTimestamp) : NaN;
        const from = Math.min(start ?? e.at, opts.coverageStart?.() ?? Infinity);
        // An audit log has no initial list: its ADDED is the create request itself.
        t.createdInCoverage = e.watchType === 'ADDED' && (e.at - from > 200 || e.atBasis === 'audit-stage') &&
          !Number.isNaN(created) && created >= Math.floor(from / 1000) * 1000;
      }
      const uid = rs.metadata.uid;
      const prevUid = t.rs?.metadata.uid ?? t.uids[t.uids.length - 1];
      if (uid && !t.uids.includes(uid)) {
        if (t.uids.length > 0) t.uidChanges.push({ at: e.at, oldUid: prevUid, newUid: uid, source: e.source });
        t.uids.push(uid);
      }
      if (e.watchType === 'DELETED') {
        t.deletedAt = e.at;
        t.rs = rs;
      } else {
        t.rs = rs;
        t.deletedAt = undefined;
        if (rs.metadata.deletionTimestamp) t.deletingSince ??= e.at;
        else t.deletingSince = undefined;
      }
      const owner = controllerRefOf(rs.metadata);
      if (owner) t.owner = { kind: owner.kind, name: owner.name, uid: owner.uid };
      if (e.watchType !== 'DELETED') noteStatusWrite(t, rs, e);
      controller.deliverReplicaSet(e.watchType, rs, e.at);
      return;
    }
  }

  // The simulation is over: the report counts every pod the input shows, observed by the controller or not.
  for (const w of withheldPods.values()) controller.restorePod(w.pod);
  for (const [t, series] of seriesOf) t.series = series.toArray();
  // A window whose counters reached zero but whose next sync falls after the end of the input
  // (e.g. a recording stopped right after the last ADD) is not gating any more.
  for (const t of tracks.values()) {
    if (t.open && t.open.fulfilledAt !== undefined && t.record && t.record.add <= 0 && t.record.del <= 0) {
      t.open.note = 'fulfilled by the last observations; the input ends before the next sync';
      closeWindow(t, t.open.fulfilledAt, 'fulfilled');
    }
  }
  for (const t of tracks.values()) for (const r of t.rounds) r.unresolved = ledger.remaining(r.modelRound);
  const untrackedWrites = new Map<string, ControllerWrite[]>();
  for (const [key, writes] of ledger.finish()) {
    const t = tracks.get(key);
    if (t && (t.rs || t.rounds.length)) t.writes = writes;
    else untrackedWrites.set(key, writes);
  }
  // The filter only narrows what is reported.
  if (opts.rsFilter) {
    for (const k of [...tracks.keys()]) if (k !== opts.rsFilter) tracks.delete(k);
    for (const k of [...untrackedWrites.keys()]) if (k !== opts.rsFilter) untrackedWrites.delete(k);
  }
  return { tracks, pods: controller.pods, replicaSets: controller.replicaSets, gaps, start, end, events: count, controller, writeEvidence, untrackedWrites, restarts, silences };
}

/** Active, ready and terminating pods controlled by `rs` in the final cache (for the report). */
export function finalCounts(rs: ReplicaSet, pods: Map<string, Pod>): { desired: number; active: number; terminating: number; ready: number } {
  let active = 0;
  let terminating = 0;
  let ready = 0;
  // The model's cache is indexed by controller (pod-store.ts): read only this ReplicaSet's pods.
  const mine = pods instanceof PodStore ? pods.controlledBy(rs.metadata.namespace, rs.metadata.uid) : pods.values();
  for (const p of mine) {
    if (p.metadata.namespace !== rs.metadata.namespace) continue;
    if (controllerRefOf(p.metadata)?.uid !== rs.metadata.uid) continue;
    if (isPodActive(p)) {
      active++;
      if (isPodReady(p)) ready++;
    } else if (p.metadata.deletionTimestamp && p.status?.phase !== 'Succeeded' && p.status?.phase !== 'Failed') terminating++;
  }
  return { desired: desiredReplicas(rs), active, terminating, ready };
}

