/**
 * Deciding which ReplicaSet a parsed KCM line is about — and whether it is about a ReplicaSet
 * at all. Two passes over the file:
 *
 * Pass 1 (`FactsBuilder`) collects, from lines whose controller is certain:
 * - the keys of ReplicaSets (`rsKeys`) and of other controllers' objects (`otherKeys`);
 * - every ReplicaSet sync as an interval [end − duration, end] from `"Finished syncing"`;
 * - every `"Too few replicas"` line (its `creating` is the `add` of the Setting before it).
 *
 * Pass 2 (`Resolver`) applies the ATTRIBUTION RULE to each catalogued line:
 *
 * 1. A line whose writer is certain keeps that writer: contextual logger name (1.27+:
 *    `replicaset-controller`, `replicationcontroller-controller`, `daemonset-controller`,
 *    `job-controller`, …), else a `kind=` key, else the kind named in a printf message
 *    (`Finished syncing ReplicaSet "…"`, `Too few replicas for ReplicationController …`), else
 *    the caller file of controller-specific code (daemon_controller.go, job_controller.go).
 *    Only `replicaset` lines are kept; the rest are excluded and counted per controller.
 * 2. A line from shared code without a logger — controller_utils.go (expectations and pod
 *    control serve the RS, RC, DaemonSet and Job controllers), replica_set.go (RS and RC share
 *    it), `"Unhandled Error"` (logger `UnhandledError`) — is attributed to a ReplicaSet only if
 *    its key is the key of a ReplicaSet named by a certain RS line elsewhere in the file and of
 *    no object named by a certain non-RS line. Otherwise it is `ambiguous`: skipped and counted.
 * 3. 1.27+ expectations lines render the expectations struct as `{}` (no key, no counters),
 *    (events whose rsKey/add/del were filled this way carry numbers.fromContext = 1),
 *    and `"Clobbering existing delete keys"` never names its controller. Their ReplicaSet comes
 *    from the lines the same call path writes next to them (controller-semantics.md §1–§5):
 *    - `Setting expectations`: the `"Controller waiting on deletions"` just before it
 *      (ExpectDeletions; del = number of distinct keys) or the `"Too few replicas"` just after
 *      it (ExpectCreations; add = creating), whichever is nearer in time;
 *    - `Lowered expectations`: the most recent unconsumed anchor — `"Controller received delete
 *      for pod"` (1 deletion), `"Slow-start failure"` (podsSkipped creations), `"Pod created"`
 *      (1 creation; its ReplicaSet from the pod name `<rs-name>-xxxxx` when that names exactly
 *      one known ReplicaSet);
 *    - fulfilled / expired / still waiting: the ReplicaSet sync whose interval contains the line
 *      and that started closest before it (SatisfiedExpectations runs first in syncReplicaSet);
 *      syncs that logged "never recorded" or "deleted" are not candidates;
 *    - clobbering: the `"Controller waiting on deletions"` just before it.
 *    Anchors are only looked for within CONTEXT_MS. A line left without a ReplicaSet is still
 *    emitted (rsKey undefined) and counted as unresolved.
 */
import type { ControllerLogEvent } from '../../timeline/event.js';
import type { ControllerFamily, ParsedKcmLine } from './parse-line.js';

/** How far (log time) context anchors are looked for. The paired lines are µs apart. */
export const CONTEXT_MS = 1000;
/** Tolerance when placing a line inside a sync interval (header times are truncated to µs). */
const SYNC_TOL_MS = 0.01;
/**
 * A sync's start is computed as (time of "Finished syncing") − duration. The header time is
 * taken when the line is written, after `time.Since` was evaluated, so a preempted goroutine
 * makes the computed start late (≈0.1 ms seen on an idle machine). Lines up to this much
 * before the computed start still count as inside.
 */
const SYNC_START_SLACK_MS = 5;
/** ExpectationsTimeout (controller_utils.go): 5 minutes, in every version. */
const EXPECTATIONS_TIMEOUT_MS = 5 * 60_000;
/** Longest message text kept on an event. */
const MESSAGE_MAX = 1000;

interface SyncSpan {
  key: string;
  start: number;
  end: number;
  taken: boolean;
}

interface TooFew {
  line: number;
  at: number;
  key: string;
  creating?: number;
  claimed: boolean;
}

export interface FileFacts {
  rsKeys: Set<string>;
  otherKeys: Map<string, ControllerFamily>;
  syncs: SyncSpan[];
  maxSyncMs: number;
  tooFew: TooFew[];
}

const DECIDED_NON_RS = new Set<ControllerFamily>(['replicationcontroller', 'daemonset', 'job', 'other']);

export class FactsBuilder {
  private readonly rsKeys = new Set<string>();
  private readonly otherKeys = new Map<string, ControllerFamily>();
  private readonly syncs: SyncSpan[] = [];
  private readonly tooFew: TooFew[] = [];
  private readonly neverRecorded: Array<{ key: string; at: number }> = [];
  private readonly deleted: Array<{ key: string; at: number }> = [];

  add(rec: ParsedKcmLine, line: number): void {
    if (rec.family === 'replicaset') {
      if (rec.rsKey) this.rsKeys.add(rec.rsKey);
      const k = rec.rsKey;
      if (!k) return;
      if (rec.kind === 'finished-syncing' && rec.numbers?.durationMs !== undefined) {
        this.syncs.push({ key: k, start: rec.at - rec.numbers.durationMs, end: rec.at, taken: false });
      } else if (rec.kind === 'too-few-replicas') {
        const t: TooFew = { line, at: rec.at, key: k, claimed: false };
        if (rec.numbers?.creating !== undefined) t.creating = rec.numbers.creating;
        this.tooFew.push(t);
      } else if (rec.kind === 'never-recorded') this.neverRecorded.push({ key: k, at: rec.at });
      else if (rec.kind === 'rs-deleted-sync') this.deleted.push({ key: k, at: rec.at });
    } else if (DECIDED_NON_RS.has(rec.family)) {
      if (rec.rsKey) this.otherKeys.set(rec.rsKey, rec.family);
      if (rec.otherKey) this.otherKeys.set(rec.otherKey.key, rec.otherKey.family);
    }
  }

  finish(): FileFacts {
    this.syncs.sort((a, b) => a.start - b.start || a.end - b.end);
    let maxSyncMs = 0;
    for (const s of this.syncs) maxSyncMs = Math.max(maxSyncMs, s.end - s.start);
    const facts: FileFacts = { rsKeys: this.rsKeys, otherKeys: this.otherKeys, syncs: this.syncs, maxSyncMs, tooFew: this.tooFew };
    // A sync that logged "never recorded" (or found its RS deleted) has no keyless gate line.
    for (const n of [...this.neverRecorded, ...this.deleted]) {
      const s = nearestStart(
        findSyncs(facts, n.at).filter((c) => c.key === n.key && !c.taken),
        n.at,
      );
      if (s) s.taken = true;
    }
    return facts;
  }
}

/** Syncs whose interval (with the start slack) contains `t`. */
function findSyncs(facts: FileFacts, t: number): SyncSpan[] {
  const s = facts.syncs;
  // last index with start <= t + tol
  let lo = 0;
  let hi = s.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (s[mid]!.start <= t + SYNC_START_SLACK_MS) lo = mid + 1;
    else hi = mid;
  }
  const out: SyncSpan[] = [];
  for (let i = lo - 1; i >= 0; i--) {
    const c = s[i]!;
    if (c.start < t - facts.maxSyncMs - SYNC_START_SLACK_MS) break;
    if (c.end + SYNC_TOL_MS >= t) out.push(c);
  }
  return out;
}

/**
 * How well a gate line at `t` fits a sync's start: a line normally follows the computed start
 * by a few µs; a line before it happens only when the "Finished syncing" header was delayed,
 * so lines before the start cost more.
 */
function startCost(t: number, s: SyncSpan): number {
  const d = t - s.start;
  return d >= 0 ? d : -4 * d;
}

function nearestStart(c: SyncSpan[], t: number): SyncSpan | undefined {
  let best: SyncSpan | undefined;
  for (const s of c) if (!best || Math.abs(t - s.start) < Math.abs(t - best.start)) best = s;
  return best;
}

export type Resolution =
  | { status: 'rs'; event: ControllerLogEvent; context?: 'resolved' | 'unresolved' }
  | { status: 'excluded'; family: ControllerFamily }
  | { status: 'ambiguous' }
  | { status: 'uncatalogued' };

interface WaitingEntry {
  key: string | undefined;
  family: ControllerFamily;
  at: number;
  line: number;
  count: number;
  keys: string[];
  settingUsed: boolean;
  clobberUsed: boolean;
}

interface LowerAnchor {
  key: string | undefined;
  at: number;
  remaining: number;
  dir: 'add' | 'del';
}

export class Resolver {
  private waiting: WaitingEntry[] = [];
  private anchors: LowerAnchor[] = [];
  private tooFewFrom = 0;
  /** namespace → rs name → key, for `<rs-name>-xxxxx` pod names. */
  private readonly byNsName = new Map<string, Map<string, string>>();
  /** rs name → keys (any namespace), for ≤1.26 pod-control lines that give no namespace. */
  private readonly byName = new Map<string, string[]>();
  /** Each ReplicaSet's expectations record as far as the attributed lines tell. */
  private readonly records = new Map<string, { add: number; del: number; setAt: number } | 'unknown' | 'none'>();

  constructor(
    private readonly facts: FileFacts,
    private readonly file: string,
  ) {
    for (const k of facts.rsKeys) {
      const slash = k.indexOf('/');
      if (slash < 0) continue;
      const ns = k.slice(0, slash);
      const name = k.slice(slash + 1);
      let m = this.byNsName.get(ns);
      if (!m) this.byNsName.set(ns, (m = new Map()));
      m.set(name, k);
      const l = this.byName.get(name) ?? [];
      l.push(k);
      this.byName.set(name, l);
    }
  }

  /** The ReplicaSet that owns pod `ns/<rs-name>-xxxxx`, when exactly one known RS fits. */
  rsForPod(podKey: string | undefined): string | undefined {
    if (!podKey) return undefined;
    const slash = podKey.indexOf('/');
    if (slash < 0) return undefined;
    const name = podKey.slice(slash + 1);
    if (!/-[a-z0-9]{5}$/.test(name)) return undefined;
    return this.byNsName.get(podKey.slice(0, slash))?.get(name.slice(0, -6));
  }

  private keyRule(key: string | undefined): 'replicaset' | 'excluded' | 'ambiguous' {
    if (!key) return 'ambiguous';
    const rs = this.facts.rsKeys.has(key);
    const other = this.facts.otherKeys.has(key);
    if (rs && !other) return 'replicaset';
    if (other && !rs) return 'excluded';
    return 'ambiguous';
  }

  private prune(t: number): void {
    if (this.waiting.length > 0 && t - this.waiting[0]!.at > CONTEXT_MS) this.waiting = this.waiting.filter((w) => t - w.at <= CONTEXT_MS);
    if (this.anchors.length > 0 && t - this.anchors[0]!.at > CONTEXT_MS)
      this.anchors = this.anchors.filter((a) => t - a.at <= CONTEXT_MS && a.remaining > 0);
  }

  resolve(rec: ParsedKcmLine, line: number, text: string): Resolution {
    if (rec.kind === undefined) return { status: 'uncatalogued' };
    this.prune(rec.at);

    // ≤1.26 pod-control lines name the RS without its namespace.
    if (!rec.rsKey && rec.rsName && (rec.kind === 'controller-created-pod' || rec.kind === 'deleting-pod' || rec.aux === 'rs-updated')) {
      const ks = this.byName.get(rec.rsName);
      if (ks && ks.length === 1) rec.rsKey = ks[0]!;
    }

    // Which controller?
    let family: ControllerFamily = rec.family;
    if (rec.kind === 'clobbering-delete-keys') {
      // Logged right after the "waiting on deletions" line of the same ExpectDeletions call.
      const w = this.clobberAnchor(rec);
      if (w) {
        w.clobberUsed = true;
        if (w.key) rec.rsKey = w.key;
        if (family === 'rs-or-rc' || family === 'unknown') family = w.family;
      } else if (rec.keys && rec.keys.length > 0) {
        const owners = new Set(rec.keys.map((k) => this.rsForPod(k)));
        const only = owners.size === 1 ? [...owners][0] : undefined;
        if (only) rec.rsKey = only;
      }
    }
    if (family === 'rs-or-rc' || family === 'unknown') {
      const key = rec.rsKey ?? (rec.kind === 'other' ? this.rsForPod(rec.podKey) : undefined);
      const verdict = this.keyRule(key);
      if (verdict === 'excluded') family = this.facts.otherKeys.get(key!) ?? 'other';
      else if (verdict === 'replicaset') family = 'replicaset';
    }

    // Waiting-on-deletions lines are context for Setting/Clobbering whatever their family.
    if (rec.kind === 'waiting-on-deletions') {
      const keys = rec.keys ?? [];
      this.waiting.push({
        key: rec.rsKey,
        family,
        at: rec.at,
        line,
        count: new Set(keys).size,
        keys,
        settingUsed: false,
        clobberUsed: false,
      });
    }

    if (family !== 'replicaset') {
      if (family === 'rs-or-rc' || family === 'unknown') return { status: 'ambiguous' };
      return { status: 'excluded', family };
    }

    let context: 'resolved' | 'unresolved' | undefined;
    switch (rec.kind) {
      case 'setting-expectations':
        if (rec.keyless) context = this.matchSetting(rec, line) ? 'resolved' : 'unresolved';
        break;
      case 'lowered-expectations':
        if (rec.keyless) context = this.matchLowered(rec) ? 'resolved' : 'unresolved';
        break;
      case 'raised-expectations':
        if (rec.keyless) context = 'unresolved'; // the RS controller never raises
        break;
      case 'expectations-fulfilled':
      case 'expectations-expired':
      case 'still-waiting':
        if (rec.keyless) context = this.matchSync(rec) ? 'resolved' : 'unresolved';
        break;
      case 'clobbering-delete-keys':
        context = rec.rsKey ? 'resolved' : 'unresolved';
        break;
      default:
        if (!rec.rsKey && rec.kind === 'other' && (rec.aux === 'pod-added' || rec.aux === 'pod-deleted')) {
          const k = this.rsForPod(rec.podKey);
          if (k) rec.rsKey = k;
        }
    }

    // Anchors for later keyless "Lowered expectations".
    if (rec.kind === 'received-delete') this.anchors.push({ key: rec.rsKey, at: rec.at, remaining: 1, dir: 'del' });
    else if (rec.kind === 'slow-start-failure') {
      const n = rec.numbers?.podsSkipped ?? 0;
      if (n > 0) this.anchors.push({ key: rec.rsKey, at: rec.at, remaining: n, dir: 'add' });
    } else if (rec.kind === 'other' && rec.aux === 'pod-added') this.anchors.push({ key: rec.rsKey, at: rec.at, remaining: 1, dir: 'add' });

    if (context === 'resolved') (rec.numbers ??= {}).fromContext = 1;
    this.track(rec);

    const ev: ControllerLogEvent = {
      type: 'controller-log',
      at: rec.at,
      atBasis: 'log',
      source: { file: this.file, line },
      logKind: rec.kind,
      message: text.length > MESSAGE_MAX ? `${text.slice(0, MESSAGE_MAX)}…` : text,
    };
    if (rec.rsKey) ev.rsKey = rec.rsKey;
    if (rec.add !== undefined) ev.add = rec.add;
    if (rec.del !== undefined) ev.del = rec.del;
    if (rec.keys) ev.keys = rec.keys;
    if (rec.numbers) ev.numbers = rec.numbers;
    const out: Resolution = { status: 'rs', event: ev };
    if (context) out.context = context;
    return out;
  }

  private clobberAnchor(rec: ParsedKcmLine): WaitingEntry | undefined {
    for (let i = this.waiting.length - 1; i >= 0; i--) {
      const w = this.waiting[i]!;
      if (w.clobberUsed || rec.at - w.at > CONTEXT_MS || w.at > rec.at + SYNC_TOL_MS) continue;
      if (rec.family === 'replicaset' && w.family !== 'replicaset') continue;
      return w;
    }
    return undefined;
  }

  private matchSetting(rec: ParsedKcmLine, line: number): boolean {
    let w: WaitingEntry | undefined;
    for (let i = this.waiting.length - 1; i >= 0; i--) {
      const c = this.waiting[i]!;
      if (c.family === 'replicaset' && !c.settingUsed && rec.at - c.at <= CONTEXT_MS) {
        w = c;
        break;
      }
    }
    const tf = this.facts.tooFew;
    // Entries at or before this line can never pair with a later Setting.
    while (this.tooFewFrom < tf.length && tf[this.tooFewFrom]!.line <= line) this.tooFewFrom++;
    let f: TooFew | undefined;
    for (let i = this.tooFewFrom; i < tf.length; i++) {
      const c = tf[i]!;
      if (c.at - rec.at > CONTEXT_MS) break;
      if (c.line > line && !c.claimed) {
        f = c;
        break;
      }
    }
    if (!w && !f) return false;
    const useWaiting = w !== undefined && (f === undefined || Math.abs(rec.at - w.at) <= Math.abs(f.at - rec.at));
    if (useWaiting) {
      w!.settingUsed = true;
      if (w!.key) rec.rsKey = w!.key;
      rec.add = 0;
      rec.del = w!.count;
    } else {
      f!.claimed = true;
      rec.rsKey = f!.key;
      if (f!.creating !== undefined) rec.add = f!.creating;
      rec.del = 0;
    }
    return rec.rsKey !== undefined;
  }

  private matchLowered(rec: ParsedKcmLine): boolean {
    for (let i = this.anchors.length - 1; i >= 0; i--) {
      const a = this.anchors[i]!;
      if (a.remaining <= 0 || rec.at - a.at > CONTEXT_MS) continue;
      a.remaining--;
      (rec.numbers ??= {})[a.dir === 'add' ? 'lowerAdd' : 'lowerDel'] = 1;
      if (a.key) rec.rsKey = a.key;
      return a.key !== undefined;
    }
    return false;
  }

  /**
   * A keyless gate line goes to an open sync that contains it. Preference: the sync whose
   * ReplicaSet's record (as tracked from the lines already attributed) would give this very
   * decision, then the nearest start (SatisfiedExpectations is the first thing a sync does).
   * Two syncs started within a few µs that log the same decision cannot be told apart; which
   * of them gets which line is then arbitrary, but both get a line with the right decision.
   */
  private matchSync(rec: ParsedKcmLine): boolean {
    let best: SyncSpan | undefined;
    let bestScore = -1;
    for (const s of findSyncs(this.facts, rec.at)) {
      if (s.taken) continue;
      const score = this.consistency(s.key, rec);
      if (score > bestScore || (score === bestScore && startCost(rec.at, s) < startCost(rec.at, best!))) {
        best = s;
        bestScore = score;
      }
    }
    if (!best) return false;
    best.taken = true;
    rec.rsKey = best.key;
    return true;
  }

  /** 2: the tracked record gives this decision; 1: unknown; 0: it would give another one. */
  private consistency(key: string, rec: ParsedKcmLine): number {
    const r = this.records.get(key);
    if (r === undefined || r === 'unknown') return 1;
    if (r === 'none') return 0; // no record: the sync would log "never recorded" (with its key)
    const fulfilled = r.add <= 0 && r.del <= 0;
    const expired = rec.at - r.setAt > EXPECTATIONS_TIMEOUT_MS;
    const decision = fulfilled ? 'expectations-fulfilled' : expired ? 'expectations-expired' : 'still-waiting';
    return decision === rec.kind ? 2 : 0;
  }

  /** Tracks each ReplicaSet's expectations record from attributed lines (for matchSync). */
  private track(rec: ParsedKcmLine): void {
    if (rec.kind === 'controller-started') {
      this.records.clear();
      return;
    }
    const k = rec.rsKey;
    if (!k) return;
    const r = this.records.get(k);
    switch (rec.kind) {
      case 'setting-expectations':
        this.records.set(k, rec.add !== undefined && rec.del !== undefined ? { add: rec.add, del: rec.del, setAt: rec.at } : 'unknown');
        break;
      case 'lowered-expectations':
      case 'raised-expectations':
        if (rec.add !== undefined && rec.del !== undefined) {
          const setAt = r && r !== 'unknown' && r !== 'none' ? r.setAt : -Infinity;
          this.records.set(k, { add: rec.add, del: rec.del, setAt });
        } else if (r && r !== 'unknown' && r !== 'none' && rec.kind === 'lowered-expectations') {
          const la = rec.numbers?.lowerAdd;
          const ld = rec.numbers?.lowerDel;
          if (la === undefined && ld === undefined) this.records.set(k, 'unknown');
          else this.records.set(k, { add: r.add - (la ?? 0), del: r.del - (ld ?? 0), setAt: r.setAt });
        } else this.records.set(k, 'unknown');
        break;
      case 'expectations-fulfilled':
      case 'expectations-expired':
      case 'still-waiting':
        if (rec.add !== undefined && rec.del !== undefined) {
          const setAt = r && r !== 'unknown' && r !== 'none' ? r.setAt : -Infinity;
          this.records.set(k, { add: rec.add, del: rec.del, setAt });
        } else if (r === undefined || r === 'none') this.records.set(k, 'unknown');
        break;
      case 'never-recorded':
      case 'rs-deleted-sync':
        this.records.set(k, 'none');
        break;
      case 'other':
        if (rec.aux === 'rs-deleting') this.records.set(k, 'none');
        break;
      default:
        break;
    }
  }
}
