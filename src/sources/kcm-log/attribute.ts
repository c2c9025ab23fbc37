/**
 * Deciding which ReplicaSet a parsed KCM line is about — and whether it is about a ReplicaSet
 * at all. Two passes over the file.
 *
 * Pass 1 (`FactsBuilder`) collects:
 * - the keys named by lines whose controller is certain: ReplicaSets (`rsKeys`) and objects of
 *   other controllers (`otherKeys`: ReplicationControllers, DaemonSets, Jobs, …);
 * - every sync as an interval [end − duration, end]: ReplicaSet / ReplicationController
 *   `"Finished syncing"` (kind=…), DaemonSet `"Finished syncing daemon set"`, Job
 *   `"Finished syncing job"` (these controllers share the expectations code);
 * - the `"Too few replicas"` and `"Controller waiting on deletions"` lines and the positions of
 *   the keyless `"Setting expectations"` lines, which it pairs (see rule 3).
 *
 * Pass 2 (`Resolver`) applies the ATTRIBUTION RULE to each catalogued line:
 *
 * 1. A line whose writer is certain keeps that writer: an Event line ("Event occurred", client-go
 *    tools/record) the kind of its involved object (a ReplicaSet's Events are the ReplicaSet
 *    controller's: its SuccessfulCreate / SuccessfulDelete / FailedCreate / FailedDelete make its key
 *    certain for rule 2); else the contextual logger name
 *    (`replicaset-controller`, `replicationcontroller-controller`, `daemonset-controller`,
 *    `job-controller`, …), else a `kind=` key, else the kind a printf message names
 *    (`Finished syncing ReplicaSet "…"`, `Too few replicas for ReplicationController …`), else the
 *    caller file of controller-specific code (daemon_controller.go, job_controller.go).
 *    ReplicaSet lines are emitted; ReplicationController lines too, marked `ownerKind` (the RC
 *    manager runs the ReplicaSet code: same messages, keys of RCs) and still counted with the other
 *    controllers'; the others are counted per controller and skipped.
 * 2. A line from shared code without a logger — controller_utils.go (expectations and pod control
 *    serve the RS, RC, DaemonSet and Job controllers), replica_set.go (RS and RC share it),
 *    `"Unhandled Error"` (logger `UnhandledError`) — that names a key is a ReplicaSet line only if
 *    that key is named by a certain ReplicaSet line elsewhere in the file and by no certain line
 *    of another controller; a key named only by other controllers' lines excludes it; otherwise
 *    the line is `ambiguous`: skipped and counted. NOTE: the real v1.37 KCM writes the sync path
 *    (Setting/gate/"Too few replicas"/"waiting on deletions"/…) WITHOUT a logger name; only the
 *    informer-handler lines ("Adding", "Pod created", "Lowered expectations" after it, …) have
 *    `logger="replicaset-controller"`. So this rule, not rule 1, decides most sync lines.
 * 3. v1.27+ renders the expectations struct as `{}` (no key, no counters), and
 *    `"Clobbering existing delete keys"` never names its controller. Such a line takes its key —
 *    and, without a logger, its controller — from the lines the same call path writes next to it
 *    (controller-semantics.md §1–§5):
 *    - `Setting expectations`: ExpectDeletions logs `"Controller waiting on deletions"` just
 *      before it (del = number of distinct keys); manageReplicas logs `"Too few replicas"` just
 *      after ExpectCreations (add = creating). Pairs are formed over the whole file, nearest in
 *      time first, within PAIR_MS;
 *    - `Lowered expectations`: the most recent unconsumed anchor within CONTEXT_MS —
 *      `"Controller received delete for pod"` (1 deletion), `"Slow-start failure"` (podsSkipped
 *      creations), `"Pod created"` (1 creation; its ReplicaSet from the pod name `<rs-name>-xxxxx`
 *      when that names exactly one known ReplicaSet);
 *    - fulfilled / expired / still waiting: a sync whose interval contains the line. Each RS/RC
 *      sync logs one such line (SatisfiedExpectations is the first thing syncReplicaSet does);
 *      syncs that logged "never recorded" or "deleted" have none. DaemonSet and Job syncs absorb
 *      their own gate lines. The (line, sync) candidates of the whole file are matched: a line
 *      with one candidate left takes it, otherwise the pair where the line fits the sync's start
 *      best (a few µs after it; a line before the computed start costs 4×) goes first. Two syncs
 *      started within a few µs that log the same decision cannot be told apart; which gets which
 *      line is then arbitrary, both get the right decision;
 *    - clobbering: the `"Controller waiting on deletions"` just before it.
 *    Events whose rsKey/add/del were filled this way carry numbers.fromContext = 1. A line with
 *    `logger="replicaset-controller"` but no matching context is still emitted (rsKey undefined)
 *    and counted as unresolved; a line without a logger and without context is ambiguous.
 */
import type { ControllerLogEvent } from '../../timeline/event.js';
import type { ControllerFamily, ParsedKcmLine } from './parse-line.js';

/** How far (log time) anchors of Lowered / Clobbering lines are looked for. The pairs are µs apart. */
export const CONTEXT_MS = 1000;
/** How far apart a keyless Setting and its "Too few replicas" / "waiting on deletions" may be. */
export const PAIR_MS = 100;
/** Tolerance when placing a line inside a sync interval (header times are truncated to µs). */
const SYNC_TOL_MS = 0.01;
/**
 * A sync's start is computed as (time of "Finished syncing") − duration. The header time is
 * taken when the line is written, after `time.Since` was evaluated, so a preempted goroutine
 * makes the computed start late (≈0.1 ms seen on an idle machine). Lines up to this much
 * before the computed start still count as inside.
 */
const SYNC_START_SLACK_MS = 5;
/** Candidate syncs kept per keyless gate line. */
const MAX_GATE_CANDIDATES = 8;
/** Longest message text kept on an event. */
const MESSAGE_MAX = 1000;

/** A family after the key rule: decided, or `ambiguous`. */
type Resolved = ControllerFamily | 'ambiguous';

const DECIDED_NON_RS = new Set<ControllerFamily>(['replicationcontroller', 'daemonset', 'job', 'other']);
const UNDECIDED = new Set<ControllerFamily>(['rs-or-rc', 'unknown']);

interface SyncSpan {
  key: string;
  start: number;
  end: number;
  family: Resolved;
  /** DaemonSet / Job syncs: may hold any number of gate lines (never taken). */
  absorber: boolean;
  taken: boolean;
}

interface Anchor {
  line: number;
  at: number;
  key: string;
  family: Resolved;
}

interface SettingMatch {
  key: string;
  family: Resolved;
  /** Undefined when the paired line does not tell (a "Too few replicas" without a valid `creating`). */
  add?: number;
  del?: number;
}

export interface FileFacts {
  rsKeys: Set<string>;
  otherKeys: Map<string, ControllerFamily>;
  syncs: SyncSpan[];
  maxSyncMs: number;
  /** Keyless "Setting expectations" line → what the paired line says. */
  settings: Map<number, SettingMatch>;
  /** Keyless gate line (fulfilled / expired / still waiting) → the sync it belongs to. */
  gates: Map<number, { key: string; family: Resolved }>;
}

function keyRule(facts: Pick<FileFacts, 'rsKeys' | 'otherKeys'>, key: string | undefined): Resolved {
  if (!key) return 'ambiguous';
  const rs = facts.rsKeys.has(key);
  const other = facts.otherKeys.get(key);
  if (rs && !other) return 'replicaset';
  if (other && !rs) return other;
  return 'ambiguous';
}

function settle(facts: Pick<FileFacts, 'rsKeys' | 'otherKeys'>, family: ControllerFamily, key: string | undefined): Resolved {
  return UNDECIDED.has(family) ? keyRule(facts, key) : family;
}

export class FactsBuilder {
  private readonly rsKeys = new Set<string>();
  private readonly otherKeys = new Map<string, ControllerFamily>();
  private readonly syncs: Array<SyncSpan & { rawFamily: ControllerFamily }> = [];
  private readonly tooFew: Array<Anchor & { rawFamily: ControllerFamily; creating?: number }> = [];
  private readonly waitings: Array<Anchor & { rawFamily: ControllerFamily; count: number }> = [];
  private readonly keylessSettings: Array<{ line: number; at: number; rsLogger: boolean }> = [];
  private readonly keylessGates: Array<{ line: number; at: number; rsLogger: boolean }> = [];
  private readonly gateless: Array<{ key: string; at: number }> = [];

  add(rec: ParsedKcmLine, line: number): void {
    if (rec.family === 'replicaset') {
      if (rec.rsKey) this.rsKeys.add(rec.rsKey);
    } else if (DECIDED_NON_RS.has(rec.family)) {
      // An Event about an object of a controller that shares no code with the ReplicaSet's (a
      // Deployment, a Service, an HPA named like a ReplicaSet) says nothing about whose a key is.
      if (rec.rsKey && !(rec.kind === 'controller-event' && rec.family === 'other')) this.otherKeys.set(rec.rsKey, rec.family);
      if (rec.otherKey) this.otherKeys.set(rec.otherKey.key, rec.otherKey.family);
    }
    if (rec.otherKey?.durationMs !== undefined && (rec.otherKey.family === 'daemonset' || rec.otherKey.family === 'job')) {
      this.pushSync(rec.otherKey.key, rec.at, rec.otherKey.durationMs, rec.otherKey.family);
    }
    const k = rec.rsKey;
    switch (rec.kind) {
      case 'finished-syncing':
        if (k && rec.numbers?.durationMs !== undefined) this.pushSync(k, rec.at, rec.numbers.durationMs, rec.family);
        break;
      case 'too-few-replicas':
        if (k) {
          const a: Anchor & { rawFamily: ControllerFamily; creating?: number } = { line, at: rec.at, key: k, family: 'ambiguous', rawFamily: rec.family };
          if (rec.numbers?.creating !== undefined) a.creating = rec.numbers.creating;
          this.tooFew.push(a);
        }
        break;
      case 'waiting-on-deletions':
        if (k) this.waitings.push({ line, at: rec.at, key: k, family: 'ambiguous', rawFamily: rec.family, count: new Set(rec.keys ?? []).size });
        break;
      case 'setting-expectations':
        if (rec.keyless && !DECIDED_NON_RS.has(rec.family)) this.keylessSettings.push({ line, at: rec.at, rsLogger: rec.family === 'replicaset' });
        break;
      case 'expectations-fulfilled':
      case 'expectations-expired':
      case 'still-waiting':
        if (rec.keyless && !DECIDED_NON_RS.has(rec.family)) this.keylessGates.push({ line, at: rec.at, rsLogger: rec.family === 'replicaset' });
        break;
      case 'never-recorded':
      case 'rs-deleted-sync':
        if (k) this.gateless.push({ key: k, at: rec.at });
        break;
      default:
        break;
    }
  }

  private pushSync(key: string, end: number, durationMs: number, family: ControllerFamily): void {
    const absorber = family === 'daemonset' || family === 'job';
    this.syncs.push({ key, start: end - durationMs, end, family: 'ambiguous', rawFamily: family, absorber, taken: false });
  }

  finish(): FileFacts {
    const base = { rsKeys: this.rsKeys, otherKeys: this.otherKeys };
    for (const s of this.syncs) s.family = settle(base, s.rawFamily, s.key);
    for (const a of this.tooFew) a.family = settle(base, a.rawFamily, a.key);
    for (const a of this.waitings) a.family = settle(base, a.rawFamily, a.key);
    this.syncs.sort((a, b) => a.start - b.start || a.end - b.end);
    let maxSyncMs = 0;
    for (const s of this.syncs) maxSyncMs = Math.max(maxSyncMs, s.end - s.start);
    const facts: FileFacts = { ...base, syncs: this.syncs, maxSyncMs, settings: this.pairSettings(), gates: new Map() };
    // A sync that logged "never recorded" (or found its RS deleted) has no keyless gate line.
    for (const n of this.gateless) {
      let best: SyncSpan | undefined;
      forEachSync(facts, n.at, (c) => {
        if (c.key === n.key && !c.taken && (!best || startCost(n.at, c) < startCost(n.at, best))) best = c;
      });
      if (best) (best as SyncSpan).taken = true;
    }
    this.matchGates(facts);
    return facts;
  }

  /**
   * Assigns each keyless gate line to a sync containing it, over the whole file (goroutines
   * write a little out of order under load, so line-by-line decisions in file order go wrong).
   * A line with a single candidate left gets it first; otherwise the (line, sync) pair that fits
   * best (startCost) is taken; repeat. So a line is not left without a sync because a line with
   * other options took its only one.
   */
  private matchGates(facts: FileFacts): void {
    type Pair = { cost: number; g: number; s: SyncSpan };
    const G = this.keylessGates;
    const byGate: Pair[][] = [];
    const bySync = new Map<SyncSpan, number[]>();
    const pairs: Pair[] = [];
    for (let i = 0; i < G.length; i++) {
      const g = G[i]!;
      const mine: Pair[] = [];
      forEachSync(facts, g.at, (s) => {
        if (s.taken || (g.rsLogger && s.family !== 'replicaset')) return;
        mine.push({ cost: startCost(g.at, s), g: i, s });
      });
      // Only the best few candidates of a line can matter (long concurrent syncs add many).
      mine.sort((x, y) => x.cost - y.cost);
      if (mine.length > MAX_GATE_CANDIDATES) mine.length = MAX_GATE_CANDIDATES;
      byGate.push(mine);
      for (const p of mine) {
        pairs.push(p);
        if (!p.s.absorber) {
          const l = bySync.get(p.s);
          if (l) l.push(i);
          else bySync.set(p.s, [i]);
        }
      }
    }
    pairs.sort((x, y) => x.cost - y.cost || x.g - y.g);
    const left = byGate.map((c) => c.length);
    const done = new Uint8Array(G.length);
    const forced: number[] = [];
    for (let i = 0; i < G.length; i++) if (left[i] === 1) forced.push(i);
    const assign = (p: Pair): void => {
      done[p.g] = 1;
      facts.gates.set(G[p.g]!.line, { key: p.s.key, family: p.s.family });
      if (p.s.absorber) return;
      p.s.taken = true;
      for (const other of bySync.get(p.s) ?? []) {
        if (done[other] || other === p.g) continue;
        left[other]!--;
        if (left[other] === 1) forced.push(other);
      }
    };
    let next = 0;
    for (;;) {
      while (forced.length > 0) {
        const g = forced.pop()!;
        if (done[g]) continue;
        const p = byGate[g]!.find((c) => !c.s.taken);
        if (p) assign(p);
      }
      while (next < pairs.length && (done[pairs[next]!.g] || pairs[next]!.s.taken)) next++;
      if (next >= pairs.length) break;
      assign(pairs[next]!);
    }
  }

  /**
   * Pairs each keyless Setting with the "waiting on deletions" just before it or the "Too few
   * replicas" just after it. All candidate pairs within PAIR_MS are ranked by time distance and
   * taken greedily, so interleaved syncs of different controllers pair up nearest first.
   */
  private pairSettings(): Map<number, SettingMatch> {
    type Cand = { cost: number; s: number; kind: 'w' | 'f'; a: number };
    const cands: Cand[] = [];
    const S = this.keylessSettings; // in line order
    const W = this.waitings;
    const F = this.tooFew;
    let wi = 0;
    let fi = 0;
    for (let i = 0; i < S.length; i++) {
      const s = S[i]!;
      // waitings before s (line < s.line, at >= s.at - PAIR_MS)
      while (wi < W.length && W[wi]!.line < s.line) wi++;
      for (let j = wi - 1; j >= 0; j--) {
        const w = W[j]!;
        if (s.at - w.at > PAIR_MS) break;
        if (s.rsLogger && w.family !== 'replicaset') continue;
        cands.push({ cost: Math.abs(s.at - w.at), s: i, kind: 'w', a: j });
      }
      // too-few after s
      while (fi < F.length && F[fi]!.line <= s.line) fi++;
      for (let j = fi; j < F.length; j++) {
        const f = F[j]!;
        if (f.at - s.at > PAIR_MS) break;
        if (s.rsLogger && f.family !== 'replicaset') continue;
        cands.push({ cost: Math.abs(f.at - s.at), s: i, kind: 'f', a: j });
      }
    }
    cands.sort((x, y) => x.cost - y.cost || x.s - y.s);
    const usedS = new Set<number>();
    const usedW = new Set<number>();
    const usedF = new Set<number>();
    const out = new Map<number, SettingMatch>();
    const take = (c: Cand): void => {
      usedS.add(c.s);
      (c.kind === 'w' ? usedW : usedF).add(c.a);
      if (c.kind === 'w') {
        const w = W[c.a]!;
        out.set(S[c.s]!.line, { key: w.key, family: w.family, add: 0, del: w.count });
      } else {
        const f = F[c.a]!;
        // ExpectCreations(creating) → SetExpectations(add=creating, del=0); an invalid or missing
        // `creating` leaves the count unknown (never 0).
        const m: SettingMatch = { key: f.key, family: f.family };
        if (f.creating !== undefined) {
          m.add = f.creating;
          m.del = 0;
        }
        out.set(S[c.s]!.line, m);
      }
    };
    for (const c of cands) {
      if (usedS.has(c.s) || (c.kind === 'w' ? usedW : usedF).has(c.a)) continue;
      take(c);
    }
    // A Setting whose time is off (a damaged or re-ordered timestamp) still sits right next to
    // its partner in the file: the same goroutine writes the two lines back to back.
    if (usedS.size < S.length) {
      const fByLine = new Map(F.map((f, j) => [f.line, j]));
      const wByLine = new Map(W.map((w, j) => [w.line, j]));
      for (let i = 0; i < S.length; i++) {
        if (usedS.has(i)) continue;
        const s = S[i]!;
        const fj = fByLine.get(s.line + 1);
        const wj = wByLine.get(s.line - 1);
        if (fj !== undefined && !usedF.has(fj) && !(s.rsLogger && F[fj]!.family !== 'replicaset')) {
          take({ cost: Math.abs(F[fj]!.at - s.at), s: i, kind: 'f', a: fj });
        } else if (wj !== undefined && !usedW.has(wj) && !(s.rsLogger && W[wj]!.family !== 'replicaset')) {
          take({ cost: Math.abs(s.at - W[wj]!.at), s: i, kind: 'w', a: wj });
        }
      }
    }
    return out;
  }
}

/** Calls `fn` for every sync whose interval (with the start slack) contains `t`. */
function forEachSync(facts: FileFacts, t: number, fn: (s: SyncSpan) => void): void {
  const s = facts.syncs;
  let lo = 0;
  let hi = s.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (s[mid]!.start <= t + SYNC_START_SLACK_MS) lo = mid + 1;
    else hi = mid;
  }
  const floor = t - facts.maxSyncMs - SYNC_START_SLACK_MS;
  for (let i = lo - 1; i >= 0; i--) {
    const c = s[i]!;
    if (c.start < floor) break;
    if (c.end + SYNC_TOL_MS >= t) fn(c);
  }
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

export type Resolution =
  | { status: 'rs'; event: ControllerLogEvent; context?: 'resolved' | 'unresolved' }
  /** Another controller's line; a ReplicationController line carries its event (ownerKind set). */
  | { status: 'excluded'; family: ControllerFamily; event?: ControllerLogEvent }
  | { status: 'ambiguous' }
  | { status: 'uncatalogued' };

interface WaitingEntry {
  key: string | undefined;
  family: Resolved;
  at: number;
  clobberUsed: boolean;
}

interface LowerAnchor {
  key: string | undefined;
  family: Resolved;
  at: number;
  remaining: number;
  dir: 'add' | 'del';
}

export class Resolver {
  private waiting: WaitingEntry[] = [];
  private anchors: LowerAnchor[] = [];
  /** namespace → rs name → key, for `<rs-name>-xxxxx` pod names. */
  private readonly byNsName = new Map<string, Map<string, string>>();
  /** rs name → keys (any namespace), for ≤1.26 pod-control lines that give no namespace. */
  private readonly byName = new Map<string, string[]>();
  /** namespace → rc name → key: the ReplicationControllers' keys, for their `<rc-name>-xxxxx` pods. */
  private readonly rcByNsName = new Map<string, Map<string, string>>();

  constructor(
    private readonly facts: FileFacts,
    private readonly file: string,
  ) {
    for (const [k, family] of facts.otherKeys) {
      const slash = k.indexOf('/');
      if (family !== 'replicationcontroller' || slash < 0) continue;
      let m = this.rcByNsName.get(k.slice(0, slash));
      if (!m) this.rcByNsName.set(k.slice(0, slash), (m = new Map()));
      m.set(k.slice(slash + 1), k);
    }
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
  rsForPod(podKey: string | undefined, owners = this.byNsName): string | undefined {
    if (!podKey) return undefined;
    const slash = podKey.indexOf('/');
    if (slash < 0) return undefined;
    const name = podKey.slice(slash + 1);
    if (!/-[a-z0-9]{5}$/.test(name)) return undefined;
    return owners.get(podKey.slice(0, slash))?.get(name.slice(0, -6));
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
    if (!rec.rsKey && rec.kind === 'other' && (rec.aux === 'pod-added' || rec.aux === 'pod-deleted')) {
      const k = this.rsForPod(rec.podKey, rec.family === 'replicationcontroller' ? this.rcByNsName : this.byNsName);
      if (k) rec.rsKey = k;
    }

    const undecided = UNDECIDED.has(rec.family);
    // A line whose logger names the RS or the RC manager takes its context from that controller's lines only.
    const own = rec.family === 'replicaset' || rec.family === 'replicationcontroller' ? rec.family : undefined;
    let family: Resolved = rec.family;
    let context: 'resolved' | 'unresolved' | undefined;
    const needsContext =
      (rec.keyless && (own !== undefined || !DECIDED_NON_RS.has(rec.family))) || (rec.kind === 'clobbering-delete-keys' && (own !== undefined || !DECIDED_NON_RS.has(rec.family)));

    if (needsContext) {
      let found: { key: string | undefined; family: Resolved } | undefined;
      switch (rec.kind) {
        case 'setting-expectations': {
          const m = this.facts.settings.get(line);
          if (m) {
            found = m;
            if (m.add !== undefined) rec.add = m.add;
            if (m.del !== undefined) rec.del = m.del;
          }
          break;
        }
        case 'lowered-expectations':
          found = this.matchLowered(rec, own);
          break;
        case 'expectations-fulfilled':
        case 'expectations-expired':
        case 'still-waiting':
          found = this.facts.gates.get(line);
          break;
        case 'clobbering-delete-keys':
          found = this.matchClobber(rec, own);
          break;
        default:
          break; // raised-expectations: the RS controller never raises
      }
      if (found?.key) {
        rec.rsKey = found.key;
        if (undecided) family = found.family;
        context = 'resolved';
      } else {
        if (found && undecided) family = found.family; // e.g. a "Pod created" anchor of unknown RS
        context = 'unresolved';
      }
    } else if (undecided) {
      family = keyRule(this.facts, rec.rsKey ?? (rec.kind === 'other' ? this.rsForPod(rec.podKey) : undefined));
    }

    // Context for later lines, whatever their controller.
    if (rec.kind === 'waiting-on-deletions') this.waiting.push({ key: rec.rsKey, family, at: rec.at, clobberUsed: false });
    else if (rec.kind === 'received-delete') this.anchors.push({ key: rec.rsKey, family, at: rec.at, remaining: 1, dir: 'del' });
    else if (rec.kind === 'slow-start-failure') {
      const n = rec.numbers?.podsSkipped ?? 0;
      if (n > 0) this.anchors.push({ key: rec.rsKey, family, at: rec.at, remaining: n, dir: 'add' });
    } else if (rec.kind === 'other' && rec.aux === 'pod-added') this.anchors.push({ key: rec.rsKey, family, at: rec.at, remaining: 1, dir: 'add' });

    if (context === 'resolved') (rec.numbers ??= {}).fromContext = 1;

    // A line the key rule cannot decide (shared code without a logger, older logs without logger=,
    // a key both kinds name) stays ambiguous and skipped, as it was before RCs were reported: kexp
    // cannot tell the two controllers' lines apart, and reading it as a ReplicaSet's would change
    // what ReplicaSet-only logs report.
    if (family !== 'replicaset') {
      if (family === 'ambiguous' || UNDECIDED.has(family)) return { status: 'ambiguous' };
      if (family === 'replicationcontroller') return { status: 'excluded', family, event: this.event(rec, line, text, 'ReplicationController') };
      return { status: 'excluded', family };
    }
    const out: Resolution = { status: 'rs', event: this.event(rec, line, text) };
    if (context) out.context = context;
    return out;
  }

  /** The timeline event of a resolved line. */
  private event(rec: ParsedKcmLine, line: number, text: string, ownerKind?: 'ReplicationController'): ControllerLogEvent {
    const ev: ControllerLogEvent = {
      type: 'controller-log',
      at: rec.at,
      atBasis: 'log',
      source: { file: this.file, line },
      logKind: rec.kind!, // resolve() returns early for an uncatalogued line
      message: text.length > MESSAGE_MAX ? `${text.slice(0, MESSAGE_MAX)}…` : text,
    };
    if (ownerKind) ev.ownerKind = ownerKind;
    if (rec.rsKey) ev.rsKey = rec.rsKey;
    if (rec.add !== undefined) ev.add = rec.add;
    if (rec.del !== undefined) ev.del = rec.del;
    if (rec.keys) ev.keys = rec.keys;
    if (rec.numbers) ev.numbers = rec.numbers;
    if (rec.event) ev.event = rec.event;
    return ev;
  }

  private matchClobber(rec: ParsedKcmLine, own: ControllerFamily | undefined): { key: string | undefined; family: Resolved } | undefined {
    for (let i = this.waiting.length - 1; i >= 0; i--) {
      const w = this.waiting[i]!;
      if (w.clobberUsed || rec.at - w.at > CONTEXT_MS || w.at > rec.at + SYNC_TOL_MS) continue;
      if (own && w.family !== own) continue;
      w.clobberUsed = true;
      return w;
    }
    // No "waiting on deletions" line: the old keys' pod names may name the ReplicaSet.
    const owners = new Set((rec.keys ?? []).map((k) => this.rsForPod(k)));
    const only = owners.size === 1 ? [...owners][0] : undefined;
    return only ? { key: only, family: keyRule(this.facts, only) } : undefined;
  }

  private matchLowered(rec: ParsedKcmLine, own: ControllerFamily | undefined): { key: string | undefined; family: Resolved } | undefined {
    for (let i = this.anchors.length - 1; i >= 0; i--) {
      const a = this.anchors[i]!;
      if (a.remaining <= 0 || rec.at - a.at > CONTEXT_MS) continue;
      if (own && a.family !== own) continue;
      a.remaining--;
      (rec.numbers ??= {})[a.dir === 'add' ? 'lowerAdd' : 'lowerDel'] = 1;
      return a;
    }
    return undefined;
  }
}
