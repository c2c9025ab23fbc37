/**
 * Deciding whose a parsed KCM line is — the ReplicaSet controller's, the ReplicationController
 * manager's, the DaemonSet controller's, the Job controller's, another controller's, or unknown —
 * and which owner (key) it is about. Two passes over the file.
 *
 * Pass 1 (`FactsBuilder`) collects:
 * - the keys named by lines whose controller is certain: ReplicaSets (`rsKeys`) and objects of
 *   other controllers (`otherKeys`: ReplicationControllers, DaemonSets, Jobs, …); a key two
 *   controllers' certain lines name is a `conflict` (no line is attributed by it);
 * - every sync as an interval [end − duration, end] and its place in the file (between the key's
 *   previous "Finished syncing" line and its own: one worker syncs a key at a time and the
 *   deferred line is written before the key is synced again): ReplicaSet / ReplicationController
 *   `"Finished syncing"` (kind=…), DaemonSet `"Finished syncing daemon set"`, Job
 *   `"Finished syncing job"` (these controllers share the expectations code);
 * - the lines written right before or after a SetExpectations (catalogue.ts `setSide`: "Too few
 *   replicas", "Controller waiting on deletions", "Too few pods running", "Too many pods running
 *   for job", "Deleting all active pods in suspended job", "Nodes needing daemon pods for daemon
 *   set, creating" with its sync's "Pods to delete…" count) and the keyless "Setting
 *   expectations" lines, which it pairs (rule 3); the Job pod handlers' keyless "Lowered
 *   expectations" lines and the "enqueueing job" line each is followed by.
 *
 * Pass 2 (`Resolver`) applies the ATTRIBUTION RULE to each catalogued line:
 *
 * 1. A line whose writer is certain keeps that writer: an Event line ("Event occurred", client-go
 *    tools/record) the kind of its involved object (a ReplicaSet's Events are the ReplicaSet
 *    controller's: its SuccessfulCreate / SuccessfulDelete / FailedCreate / FailedDelete make its key
 *    certain for rule 2); else the contextual logger name
 *    (`replicaset-controller`, `replicationcontroller-controller`, `daemonset-controller`,
 *    `job-controller`, …), else a `kind=` key, else the kind a printf message names
 *    (`Finished syncing ReplicaSet "…"`, `Too few replicas for ReplicationController …`,
 *    `Nodes needing daemon pods for daemon set …`, `Too few pods running job …`), else the caller
 *    file of controller-specific code (daemon_controller.go; job_controller.go, tracking_utils.go).
 *    ReplicaSet lines are emitted; ReplicationController, DaemonSet and Job lines too, marked
 *    `ownerKind` (each kind's report is built from its own lines) and still counted with the other
 *    controllers'; the others are counted per controller and skipped.
 * 2. A line from shared code without a logger — controller_utils.go (expectations and pod control
 *    serve the RS, RC, DaemonSet and Job controllers), replica_set.go (RS and RC share it),
 *    `"Unhandled Error"` (logger `UnhandledError`) — that names a key is the line of the one
 *    controller whose certain lines name that key; a key no certain line names, or that lines of
 *    two controllers name, leaves it `ambiguous` (unknown kind): skipped and counted. NOTE: the
 *    real v1.37 KCM writes the sync path (Setting/gate/"Too few replicas"/"waiting on
 *    deletions"/…) WITHOUT a logger name, for the DaemonSet and Job controllers too; only the
 *    informer-handler lines ("Adding", "Pod created", "Pod added", "Lowered expectations" after
 *    them, …) have `logger="…-controller"`. So this rule, not rule 1, decides most sync lines.
 * 3. v1.27+ renders the expectations struct as `{}` (no key, no counters), and
 *    `"Clobbering existing delete keys"` never names its controller. Such a line takes its key —
 *    and, without a logger, its controller — from the lines the same call path writes next to it
 *    (controller-semantics.md §1–§5); a line whose logger names its controller takes context
 *    from that controller's lines only:
 *    - `Setting expectations`: the `setSide` line just before it ("Controller waiting on
 *      deletions": del = number of distinct keys; "Deleting all active pods in suspended job":
 *      del = active) or just after it ("Too few replicas" / "Too few pods running": add =
 *      creating; "Too many pods running for job": del = deleted; "Nodes needing daemon pods…":
 *      add = createCount, del = deleteCount of the same sync's "Pods to delete…"). Pairs are
 *      formed over the whole file, nearest in time first, within PAIR_MS;
 *    - `Lowered expectations`: the most recent unconsumed anchor within CONTEXT_MS —
 *      `"Controller received delete for pod"` (1 deletion), `"Slow-start failure"` (podsSkipped
 *      creations: one line each, or one line for all of them for a DaemonSet), `"Failed creation,
 *      decrementing expectations…"` (1 creation; DaemonSet, Job), `"Pod created"` / `"Pod added"`
 *      (1 creation), a DaemonSet's `"Pod deleted"` (1 deletion) — the owner from the pod name
 *      `<owner-name>-xxxxx` when that names exactly one known owner of that controller; else, for
 *      a Job pod handler's line, the Job its next "enqueueing job" line (µs later, same goroutine)
 *      names — what it lowered the lines do not tell;
 *    - fulfilled / expired / still waiting: a sync whose interval contains the line and between
 *      whose file bounds it lies. Each RS/RC and Job sync logs one such line right after its start
 *      (SatisfiedExpectations comes first); a DaemonSet sync that set its record logs a second
 *      after its Set (updateDaemonSet's check before the rolling update), so its slots are split
 *      there (GateSlot); syncs that logged "never recorded" or "deleted" have none in that slot.
 *      The (line, slot) candidates of the whole file are matched: a line with one candidate left
 *      takes it, otherwise the pair where the line fits the slot's anchor best (a few µs after the
 *      start, the Set, or a "Pods to delete…" line; a line before the computed start costs 4×)
 *      goes first. Two syncs started within a few µs that log the same decision cannot be told
 *      apart; which gets which line is then arbitrary, both get the right decision;
 *    - clobbering: the `"Controller waiting on deletions"` just before it.
 *    Events whose rsKey/add/del were filled this way carry numbers.fromContext = 1. A line with a
 *    controller's logger but no matching context is still emitted (rsKey undefined) and counted as
 *    unresolved; a line without a logger and without context is ambiguous.
 * 4. A DaemonSet's gate line after its sync's Set (and before its "Finished syncing daemon set")
 *    is that second check: marked numbers.rollingUpdateCheck = 1 (ground-truth.ts keeps it apart
 *    from the sync decisions).
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
/** How far (log time) after a Job handler's keyless "Lowered expectations" its "enqueueing job" line may come (µs apart, one goroutine). */
const HANDLER_PAIR_MS = 1;
/** Candidate syncs kept per keyless gate line. */
const MAX_GATE_CANDIDATES = 8;
/** Longest message text kept on an event. */
const MESSAGE_MAX = 1000;

/** A family after the key rule: decided, or `ambiguous`. */
type Resolved = ControllerFamily | 'ambiguous';

const DECIDED_NON_RS = new Set<ControllerFamily>(['replicationcontroller', 'daemonset', 'job', 'other']);
const UNDECIDED = new Set<ControllerFamily>(['rs-or-rc', 'unknown']);
/** The controllers whose expectations kexp reads: a line of one of them (by its logger) takes its context from that controller's lines only. */
const OWN = new Set<ControllerFamily>(['replicaset', 'replicationcontroller', 'daemonset', 'job']);

/**
 * Where a sync's SatisfiedExpectations lines are (the gate lines a keyless line may be): one slot,
 * right after the sync's start, for the ReplicaSet / ReplicationController (syncReplicaSet) and
 * the Job (syncJob). A DaemonSet sync that passed its gate has a second: syncDaemonSet's gate,
 * then manage → syncNodes sets the record, then updateDaemonSet checks it again to decide whether
 * the rolling update runs (daemon_controller.go v1.21.14 and v1.37.2) — so its first slot ends at
 * its Set and its second begins there, the check coming right after the Set or after the sync's
 * "Pods to delete…" line (once the deletes returned). A DaemonSet sync without a Set (gated, or
 * ended early) has the first slot only.
 */
interface GateSlot {
  /** Lines at or after `from` and before `to` (log time) fit this slot. */
  from: number;
  to: number;
  /** Times a gate line of this slot follows closely: the sync's start, or its Set and "Pods to delete…" lines. */
  anchors: number[];
  free: boolean;
}

interface SyncSpan {
  key: string;
  start: number;
  end: number;
  /**
   * Its lines lie after `afterLine` (the key's previous "Finished syncing" line, 0 if none) and
   * before `line` (its own) in the file: a key is synced by one worker at a time, its "Finished
   * syncing" line is written (deferred) before the key can be synced again, and klog writes the
   * lines in the order they are logged.
   */
  afterLine: number;
  line: number;
  family: Resolved;
  slots: GateSlot[];
}

/** Whether the line `line` (file line) can be one of sync `s`'s (SyncSpan afterLine/line). */
function within(s: SyncSpan, line: number): boolean {
  return line > s.afterLine && line < s.line;
}

interface Anchor {
  line: number;
  at: number;
  key: string;
  family: Resolved;
}

/**
 * A line written right before or after a SetExpectations (catalogue.ts `setSide`), with the
 * counts that Set got, where the line tells them (undefined: not told).
 */
interface SetAnchor extends Anchor {
  rawFamily: ControllerFamily;
  add?: number;
  del?: number;
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
  /** Keys that lines of two different controllers name for certain: no line is attributed by them. */
  conflicts: Set<string>;
  syncs: SyncSpan[];
  maxSyncMs: number;
  /** Keyless "Setting expectations" line → what the paired line says. */
  settings: Map<number, SettingMatch>;
  /** Keyless gate line (fulfilled / expired / still waiting) → the sync it belongs to. */
  gates: Map<number, { key: string; family: Resolved }>;
  /** Keyless "Lowered expectations" line of the Job controller's pod handlers → the Job its "enqueueing job" line names. */
  handlerLowers: Map<number, string>;
}

type KeyFacts = Pick<FileFacts, 'rsKeys' | 'otherKeys' | 'conflicts'>;

function keyRule(facts: KeyFacts, key: string | undefined): Resolved {
  if (!key || facts.conflicts.has(key)) return 'ambiguous';
  const rs = facts.rsKeys.has(key);
  const other = facts.otherKeys.get(key);
  if (rs && !other) return 'replicaset';
  if (other && !rs) return other;
  return 'ambiguous';
}

function settle(facts: KeyFacts, family: ControllerFamily, key: string | undefined): Resolved {
  return UNDECIDED.has(family) ? keyRule(facts, key) : family;
}

/** The decided family of a line's own (logger, message, file), or undefined when the key rule must decide. */
function ownFamily(family: ControllerFamily): ControllerFamily | undefined {
  return OWN.has(family) ? family : undefined;
}

export class FactsBuilder {
  private readonly rsKeys = new Set<string>();
  private readonly otherKeys = new Map<string, ControllerFamily>();
  private readonly conflicts = new Set<string>();
  private readonly syncs: Array<SyncSpan & { rawFamily: ControllerFamily }> = [];
  /** Lines written right after a Set (µs later): "Too few replicas", "Too few pods running", "Nodes needing daemon pods…". */
  private readonly afterSet: SetAnchor[] = [];
  /** Lines written right before a Set: "Controller waiting on deletions", "Deleting all active pods in suspended job". */
  private readonly beforeSet: SetAnchor[] = [];
  /** Per DaemonSet key, its last "Nodes needing daemon pods…" anchor still waiting for its sync's "Pods to delete…" count. */
  private readonly dsCreating = new Map<string, SetAnchor>();
  private readonly keylessSettings: Array<{ line: number; at: number; own: ControllerFamily | undefined }> = [];
  private readonly keylessGates: Array<{ line: number; at: number; own: ControllerFamily | undefined }> = [];
  private readonly gateless: Array<{ key: string; at: number; line: number }> = [];
  /** Per key, the file line of its last "Finished syncing" line so far. */
  private readonly lastFinished = new Map<string, number>();
  /** Keyed "Setting expectations" lines (≤1.26 print the key): a DaemonSet's splits its sync's gate lines. */
  private readonly keyedSettings: Array<{ key: string; at: number; line: number }> = [];
  /** The DaemonSets' "Pods to delete…" lines (their syncs' checkpoints). */
  private readonly dsDeleting: Array<{ key: string; at: number; line: number }> = [];
  /** Keyless "Lowered expectations" lines of the Job controller's pod handlers, not yet followed by their "enqueueing job". */
  private readonly jobLowers: Array<{ line: number; at: number }> = [];
  /** Keyless Job handler "Lowered expectations" line → the Job its "enqueueing job" line names. */
  private readonly handlerLowers = new Map<number, string>();

  private noteKey(key: string, family: ControllerFamily): void {
    const prev = this.otherKeys.get(key);
    if (prev !== undefined && prev !== family) this.conflicts.add(key);
    this.otherKeys.set(key, family);
  }

  add(rec: ParsedKcmLine, line: number): void {
    if (rec.family === 'replicaset') {
      if (rec.rsKey) this.rsKeys.add(rec.rsKey);
    } else if (DECIDED_NON_RS.has(rec.family)) {
      // An Event about an object of a controller that shares no code with the ReplicaSet's (a
      // Deployment, a Service, an HPA named like a ReplicaSet) says nothing about whose a key is.
      if (rec.rsKey && !(rec.kind === 'controller-event' && rec.family === 'other')) this.noteKey(rec.rsKey, rec.family);
      if (rec.otherKey) this.noteKey(rec.otherKey.key, rec.otherKey.family);
    }
    const k = rec.rsKey;
    if (k && rec.setSide) {
      const a: SetAnchor = { line, at: rec.at, key: k, family: 'ambiguous', rawFamily: rec.family };
      const creating = rec.numbers?.creating;
      const deleting = rec.numbers?.deleting;
      if (rec.kind === 'waiting-on-deletions') {
        a.add = 0;
        a.del = new Set(rec.keys ?? []).size;
      } else if (rec.kind === 'too-few-replicas') {
        // ExpectCreations(creating) → SetExpectations(add=creating, del=0); a DaemonSet's Set also
        // carries its deletions, told by the "Pods to delete…" line of the same sync. An invalid or
        // missing count leaves the counts unknown (never 0).
        if (creating !== undefined) {
          a.add = creating;
          if (rec.family !== 'daemonset') a.del = 0;
        }
        if (rec.family === 'daemonset') this.dsCreating.set(k, a);
      } else if (rec.kind === 'too-many-replicas' && deleting !== undefined) {
        a.add = 0;
        a.del = deleting;
      }
      (rec.setSide === 'after' ? this.afterSet : this.beforeSet).push(a);
    } else if (k && rec.kind === 'too-many-replicas' && rec.family === 'daemonset') {
      this.dsDeleting.push({ key: k, at: rec.at, line });
      // syncNodes logs "Pods to delete…, deleting N" after its creations: N is its Set's `del`.
      const a = this.dsCreating.get(k);
      if (a) {
        this.dsCreating.delete(k);
        const deleting = rec.numbers?.deleting;
        if (deleting !== undefined && a.add !== undefined) a.del = deleting;
        else delete a.add;
      }
    }
    // The Job's pod handlers (addPod / deletePod) lower its record, then enqueueSyncJobBatched logs
    // "enqueueing job" key=… on the same goroutine (job_controller.go v1.28.15, v1.37.2): the
    // keyless lower is that Job's — by how much, and which counter, the lines do not say.
    if (rec.kind === 'lowered-expectations' && rec.keyless && rec.family === 'job') this.jobLowers.push({ line, at: rec.at });
    else if (rec.otherKey?.enqueued && rec.familyBasis === 'logger' && rec.family === 'job') {
      while (this.jobLowers.length > 0 && rec.at - this.jobLowers[0]!.at > HANDLER_PAIR_MS) this.jobLowers.shift();
      const l = this.jobLowers.shift();
      if (l && l.line < line) this.handlerLowers.set(l.line, rec.otherKey.key);
    }
    switch (rec.kind) {
      case 'finished-syncing':
        if (k && rec.numbers?.durationMs !== undefined) this.pushSync(k, rec.at, rec.numbers.durationMs, rec.family, line);
        if (k) this.lastFinished.set(k, line);
        break;
      case 'setting-expectations':
        if (rec.keyless && rec.family !== 'other') this.keylessSettings.push({ line, at: rec.at, own: ownFamily(rec.family) });
        else if (k) this.keyedSettings.push({ key: k, at: rec.at, line });
        break;
      case 'expectations-fulfilled':
      case 'expectations-expired':
      case 'still-waiting':
        if (rec.keyless && rec.family !== 'other') this.keylessGates.push({ line, at: rec.at, own: ownFamily(rec.family) });
        break;
      case 'never-recorded':
      case 'rs-deleted-sync':
        if (k) this.gateless.push({ key: k, at: rec.at, line });
        break;
      default:
        break;
    }
  }

  private pushSync(key: string, end: number, durationMs: number, family: ControllerFamily, line: number): void {
    const start = end - durationMs;
    const afterLine = this.lastFinished.get(key) ?? 0;
    this.syncs.push({ key, start, end, afterLine, line, family: 'ambiguous', rawFamily: family, slots: [{ from: -Infinity, to: Infinity, anchors: [start], free: true }] });
  }

  /** A DaemonSet sync with a Set at `setAt`: its first slot ends there, its second starts there (GateSlot). */
  private splitAtSet(facts: FileFacts, key: string, setAt: number, setLine: number): void {
    forEachSync(facts, setAt, (c) => {
      if (c.key !== key || c.family !== 'daemonset' || c.slots.length > 1 || setAt < c.start || !within(c, setLine)) return;
      const first = c.slots[0]!;
      first.to = setAt;
      c.slots.push({ from: setAt, to: Infinity, anchors: [setAt], free: true });
    });
  }

  finish(): FileFacts {
    const base: KeyFacts = { rsKeys: this.rsKeys, otherKeys: this.otherKeys, conflicts: this.conflicts };
    for (const s of this.syncs) s.family = settle(base, s.rawFamily, s.key);
    for (const a of this.afterSet) a.family = settle(base, a.rawFamily, a.key);
    for (const a of this.beforeSet) a.family = settle(base, a.rawFamily, a.key);
    this.syncs.sort((a, b) => a.start - b.start || a.end - b.end);
    let maxSyncMs = 0;
    for (const s of this.syncs) maxSyncMs = Math.max(maxSyncMs, s.end - s.start);
    const facts: FileFacts = { ...base, syncs: this.syncs, maxSyncMs, settings: this.pairSettings(), gates: new Map(), handlerLowers: this.handlerLowers };
    // A DaemonSet sync's first Set splits its gate lines in two (GateSlot); its "Pods to delete…"
    // lines are where its second check may follow.
    for (const st of this.keylessSettings) {
      const m = facts.settings.get(st.line);
      if (m?.family === 'daemonset') this.splitAtSet(facts, m.key, st.at, st.line);
    }
    for (const st of this.keyedSettings) this.splitAtSet(facts, st.key, st.at, st.line);
    for (const d of this.dsDeleting) {
      forEachSync(facts, d.at, (c) => {
        const second = c.slots[1];
        if (c.key === d.key && second && d.at >= second.from && within(c, d.line)) second.anchors.push(d.at);
      });
    }
    // A sync that logged "never recorded" (or found its owner deleted) has no keyless gate line there.
    for (const n of this.gateless) {
      let best: { slot: GateSlot; cost: number } | undefined;
      forEachSync(facts, n.at, (c) => {
        const slot = c.key === n.key && within(c, n.line) ? slotAt(c, n.at) : undefined;
        if (!slot?.free) return;
        const cost = slotCost(n.at, slot);
        if (!best || cost < best.cost) best = { slot, cost };
      });
      if (best) best.slot.free = false;
    }
    this.matchGates(facts);
    return facts;
  }

  /**
   * Assigns each keyless gate line to a sync containing it, over the whole file (goroutines
   * write a little out of order under load, so line-by-line decisions in file order go wrong).
   * Each slot of a sync (GateSlot) takes one line. A line with a single candidate left gets it
   * first; otherwise the (line, slot) pair that fits best (slotCost) is taken; repeat. So a line
   * is not left without a sync because a line with other options took its only one.
   */
  private matchGates(facts: FileFacts): void {
    type Pair = { cost: number; g: number; s: SyncSpan; slot: GateSlot };
    const G = this.keylessGates;
    const byGate: Pair[][] = [];
    const bySlot = new Map<GateSlot, number[]>();
    const pairs: Pair[] = [];
    for (let i = 0; i < G.length; i++) {
      const g = G[i]!;
      const mine: Pair[] = [];
      forEachSync(facts, g.at, (s) => {
        if ((g.own !== undefined && s.family !== g.own) || !within(s, g.line)) return;
        const slot = slotAt(s, g.at);
        if (slot?.free) mine.push({ cost: slotCost(g.at, slot), g: i, s, slot });
      });
      // Only the best few candidates of a line can matter (long concurrent syncs add many).
      mine.sort((x, y) => x.cost - y.cost);
      if (mine.length > MAX_GATE_CANDIDATES) mine.length = MAX_GATE_CANDIDATES;
      byGate.push(mine);
      for (const p of mine) {
        pairs.push(p);
        const l = bySlot.get(p.slot);
        if (l) l.push(i);
        else bySlot.set(p.slot, [i]);
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
      p.slot.free = false;
      for (const other of bySlot.get(p.slot) ?? []) {
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
        const p = byGate[g]!.find((c) => c.slot.free);
        if (p) assign(p);
      }
      while (next < pairs.length && (done[pairs[next]!.g] || !pairs[next]!.slot.free)) next++;
      if (next >= pairs.length) break;
      assign(pairs[next]!);
    }
  }

  /**
   * Pairs each keyless Setting with a line its call path writes just before it (`beforeSet`) or
   * just after it (`afterSet`). All candidate pairs within PAIR_MS are ranked by time distance
   * and taken greedily, so interleaved syncs of different controllers pair up nearest first. A
   * Setting whose own controller is known (its logger) pairs only with that controller's lines.
   */
  private pairSettings(): Map<number, SettingMatch> {
    type Cand = { cost: number; s: number; side: 'before' | 'after'; a: number };
    const cands: Cand[] = [];
    const S = this.keylessSettings; // in line order
    const W = this.beforeSet;
    const F = this.afterSet;
    const fits = (own: ControllerFamily | undefined, a: SetAnchor) => own === undefined || a.family === own;
    let wi = 0;
    let fi = 0;
    for (let i = 0; i < S.length; i++) {
      const s = S[i]!;
      // anchors before s (line < s.line, at >= s.at - PAIR_MS)
      while (wi < W.length && W[wi]!.line < s.line) wi++;
      for (let j = wi - 1; j >= 0; j--) {
        const w = W[j]!;
        if (s.at - w.at > PAIR_MS) break;
        if (!fits(s.own, w)) continue;
        cands.push({ cost: Math.abs(s.at - w.at), s: i, side: 'before', a: j });
      }
      // anchors after s
      while (fi < F.length && F[fi]!.line <= s.line) fi++;
      for (let j = fi; j < F.length; j++) {
        const f = F[j]!;
        if (f.at - s.at > PAIR_MS) break;
        if (!fits(s.own, f)) continue;
        cands.push({ cost: Math.abs(f.at - s.at), s: i, side: 'after', a: j });
      }
    }
    cands.sort((x, y) => x.cost - y.cost || x.s - y.s);
    const usedS = new Set<number>();
    const usedW = new Set<number>();
    const usedF = new Set<number>();
    const out = new Map<number, SettingMatch>();
    const take = (c: Cand): void => {
      usedS.add(c.s);
      (c.side === 'before' ? usedW : usedF).add(c.a);
      const a = (c.side === 'before' ? W : F)[c.a]!;
      const m: SettingMatch = { key: a.key, family: a.family };
      if (a.add !== undefined && a.del !== undefined) {
        m.add = a.add;
        m.del = a.del;
      }
      out.set(S[c.s]!.line, m);
    };
    for (const c of cands) {
      if (usedS.has(c.s) || (c.side === 'before' ? usedW : usedF).has(c.a)) continue;
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
        if (fj !== undefined && !usedF.has(fj) && fits(s.own, F[fj]!)) {
          take({ cost: Math.abs(F[fj]!.at - s.at), s: i, side: 'after', a: fj });
        } else if (wj !== undefined && !usedW.has(wj) && fits(s.own, W[wj]!)) {
          take({ cost: Math.abs(s.at - W[wj]!.at), s: i, side: 'before', a: wj });
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

/** The slot of sync `s` a line at `t` (inside the sync) falls in. */
function slotAt(s: SyncSpan, t: number): GateSlot | undefined {
  for (const slot of s.slots) if (t >= slot.from && t < slot.to) return slot;
  return undefined;
}

/**
 * How well a gate line at `t` fits a slot: a line normally follows its anchor (the computed
 * start of the sync, a Set, a "Pods to delete…" line) by a few µs; a line before the start
 * happens only when the "Finished syncing" header was delayed, so lines before it cost more.
 */
function slotCost(t: number, slot: GateSlot): number {
  let cost = Infinity;
  for (const a of slot.anchors) {
    const d = t - a;
    cost = Math.min(cost, d >= 0 ? d : -4 * d);
  }
  return cost;
}

/** The owner kind a controller family's lines are emitted with (absent for the ReplicaSet's). */
const OWNER_KIND: Partial<Record<ControllerFamily, NonNullable<ControllerLogEvent['ownerKind']>>> = {
  replicationcontroller: 'ReplicationController',
  daemonset: 'DaemonSet',
  job: 'Job',
};

export type Resolution =
  | { status: 'rs'; event: ControllerLogEvent; context?: 'resolved' | 'unresolved' }
  /**
   * Another controller's line. A line of a controller kexp reports besides the ReplicaSet's (the
   * ReplicationController, DaemonSet and Job controllers) carries its event, `ownerKind` set, and
   * for a keyless line whether its key came from context.
   */
  | { status: 'excluded'; family: ControllerFamily; event?: ControllerLogEvent; context?: 'resolved' | 'unresolved' }
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
  /** "Lowered expectations" lines still to come from this anchor. */
  remaining: number;
  /** What each of them lowers. */
  amount: number;
  dir: 'add' | 'del';
}

/** namespace → owner name → key, and owner name → keys (any namespace). */
class OwnerNames {
  readonly byNsName = new Map<string, Map<string, string>>();
  readonly byName = new Map<string, string[]>();

  add(key: string): void {
    const slash = key.indexOf('/');
    if (slash < 0) return;
    const ns = key.slice(0, slash);
    const name = key.slice(slash + 1);
    let m = this.byNsName.get(ns);
    if (!m) this.byNsName.set(ns, (m = new Map()));
    m.set(name, key);
    const l = this.byName.get(name) ?? [];
    l.push(key);
    this.byName.set(name, l);
  }

  /** The one key with this name, in any namespace. */
  only(name: string): string | undefined {
    const ks = this.byName.get(name);
    return ks && ks.length === 1 ? ks[0] : undefined;
  }
}

export class Resolver {
  private waiting: WaitingEntry[] = [];
  private anchors: LowerAnchor[] = [];
  /** The ReplicaSets' names, for `<rs-name>-xxxxx` pods and ≤1.26 lines that give no namespace. */
  private readonly rs = new OwnerNames();
  /** The ReplicationControllers', DaemonSets' and Jobs' names, likewise. */
  private readonly others = new Map<ControllerFamily, OwnerNames>();
  /**
   * DaemonSet keys whose current sync has Set its expectations (manage → syncNodes): the next
   * gate line of the key in that sync is updateDaemonSet's check before the rolling update, not
   * the sync's own gate (daemon_controller.go v1.21.14 and v1.37.2). Cleared by the sync's
   * "Finished syncing daemon set" line. One key is never synced by two workers at once.
   */
  private readonly dsAfterSet = new Set<string>();

  constructor(
    private readonly facts: FileFacts,
    private readonly file: string,
  ) {
    for (const [k, family] of facts.otherKeys) {
      if (facts.conflicts.has(k)) continue;
      let n = this.others.get(family);
      if (!n) this.others.set(family, (n = new OwnerNames()));
      n.add(k);
    }
    for (const k of facts.rsKeys) this.rs.add(k);
  }

  private names(family: ControllerFamily): OwnerNames | undefined {
    return family === 'replicaset' || UNDECIDED.has(family) ? this.rs : this.others.get(family);
  }

  /** The owner (a ReplicaSet by default) of pod `ns/<owner-name>-xxxxx`, when exactly one known owner fits. */
  rsForPod(podKey: string | undefined, owners = this.rs.byNsName): string | undefined {
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
    // A wording several controllers print (catalogue.ts callerFile), from a file that does not say whose.
    if (rec.onlyForKeysOf) {
      if (keyRule(this.facts, rec.rsKey) !== rec.onlyForKeysOf) return { status: 'uncatalogued' };
      rec.family = rec.onlyForKeysOf;
    }

    // ≤1.26 pod-control lines name the owner without its namespace (RealPodControl serves every
    // kind: the one owner of that name, of any kind); so do the DaemonSet's round lines.
    if (!rec.rsKey && rec.rsName) {
      if (rec.kind === 'controller-created-pod' || rec.kind === 'deleting-pod') {
        const ks = [this.rs, ...this.others.values()].flatMap((n) => n.byName.get(rec.rsName!) ?? []);
        if (ks.length === 1) rec.rsKey = ks[0]!;
      } else if (rec.aux === 'rs-updated') {
        const k = this.rs.only(rec.rsName);
        if (k) rec.rsKey = k;
      } else if (rec.family === 'daemonset') {
        const k = this.others.get('daemonset')?.only(rec.rsName);
        if (k) rec.rsKey = k;
      }
    }
    if (!rec.rsKey && rec.kind === 'other' && (rec.aux === 'pod-added' || rec.aux === 'pod-deleted')) {
      const owners = this.names(rec.family)?.byNsName;
      const k = owners ? this.rsForPod(rec.podKey, owners) : undefined;
      if (k) rec.rsKey = k;
    }

    const undecided = UNDECIDED.has(rec.family);
    // A line whose logger (or message, or file) names a controller kexp reads takes its context from that controller's lines only.
    const own = ownFamily(rec.family);
    let family: Resolved = rec.family;
    let context: 'resolved' | 'unresolved' | undefined;
    const needsContext = (rec.keyless || rec.kind === 'clobbering-delete-keys') && (own !== undefined || undecided);

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
        case 'lowered-expectations': {
          found = this.matchLowered(rec, own);
          const job = found ? undefined : this.facts.handlerLowers.get(line);
          if (job) found = { key: job, family: 'job' };
          break;
        }
        case 'expectations-fulfilled':
        case 'expectations-expired':
        case 'still-waiting':
          found = this.facts.gates.get(line);
          break;
        case 'clobbering-delete-keys':
          found = this.matchClobber(rec, own);
          break;
        default:
          break; // raised-expectations: none of these controllers raises
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
    else if (rec.kind === 'received-delete') this.anchors.push({ key: rec.rsKey, family, at: rec.at, remaining: 1, amount: 1, dir: 'del' });
    else if (rec.kind === 'slow-start-failure') {
      // replica_set.go / job_controller.go: one CreationObserved per skipped pod; daemon_controller.go
      // syncNodes: one LowerExpectations(dsKey, skippedPods, 0).
      const n = rec.numbers?.podsSkipped ?? 0;
      if (n > 0) this.anchors.push({ key: rec.rsKey, family, at: rec.at, remaining: rec.lowersAtOnce ? 1 : n, amount: rec.lowersAtOnce ? n : 1, dir: 'add' });
    } else if (rec.kind === 'failed-create') {
      // DaemonSet syncNodes / Job manageJob: "Failed creation, decrementing expectations…", then CreationObserved.
      this.anchors.push({ key: rec.rsKey, family, at: rec.at, remaining: 1, amount: 1, dir: 'add' });
    } else if (rec.kind === 'other' && rec.aux === 'pod-added') this.anchors.push({ key: rec.rsKey, family, at: rec.at, remaining: 1, amount: 1, dir: 'add' });
    // The DaemonSet's deletePod logs "Pod deleted", then DeletionObserved (the ReplicaSet's goes
    // through the UID-tracking store, whose "Controller received delete for pod" is its anchor).
    else if (rec.kind === 'other' && rec.aux === 'pod-deleted' && family === 'daemonset') this.anchors.push({ key: rec.rsKey, family, at: rec.at, remaining: 1, amount: 1, dir: 'del' });

    if (family === 'daemonset' && rec.rsKey) this.rollingUpdateCheck(rec, rec.rsKey);

    if (context === 'resolved') (rec.numbers ??= {}).fromContext = 1;

    // A line the key rule cannot decide (shared code without a logger, older logs without logger=,
    // a key two kinds name) stays ambiguous and skipped: kexp cannot tell whose it is, and reading
    // it as one controller's would change what that controller's report says.
    if (family !== 'replicaset') {
      if (family === 'ambiguous' || UNDECIDED.has(family)) return { status: 'ambiguous' };
      const kind = OWNER_KIND[family];
      if (kind) return { status: 'excluded', family, event: this.event(rec, line, text, kind), ...(context ? { context } : {}) };
      return { status: 'excluded', family };
    }
    const out: Resolution = { status: 'rs', event: this.event(rec, line, text) };
    if (context) out.context = context;
    return out;
  }

  /** Marks the DaemonSet's second SatisfiedExpectations of a sync (numbers.rollingUpdateCheck = 1). */
  private rollingUpdateCheck(rec: ParsedKcmLine, key: string): void {
    switch (rec.kind) {
      case 'setting-expectations':
        this.dsAfterSet.add(key);
        break;
      case 'finished-syncing':
        this.dsAfterSet.delete(key);
        break;
      case 'expectations-fulfilled':
      case 'expectations-expired':
      case 'still-waiting':
        if (this.dsAfterSet.delete(key)) (rec.numbers ??= {}).rollingUpdateCheck = 1;
        break;
      default:
        break;
    }
  }

  /** The timeline event of a resolved line. */
  private event(rec: ParsedKcmLine, line: number, text: string, ownerKind?: ControllerLogEvent['ownerKind']): ControllerLogEvent {
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
      (rec.numbers ??= {})[a.dir === 'add' ? 'lowerAdd' : 'lowerDel'] = a.amount;
      return a;
    }
    return undefined;
  }
}
