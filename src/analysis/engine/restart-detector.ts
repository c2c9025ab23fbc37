/**
 * kube-controller-manager restarts the input shows. Expectations live in the controller's memory
 * (ControllerExpectations, pkg/controller/controller_utils.go), so a new process starts with
 * none, and its informers list every ReplicaSet again (addRS → enqueue). The input shows a
 * restart two ways:
 *
 * - the controller's first write with a new credential after a pause in its writes (audit: the
 *   write ledger's credential changes). A token rotation keeps working through; a restart
 *   pauses, at least RESTART_PAUSE_MS — or CUT_ROUND_RESTART_PAUSE_MS when a round the controller
 *   left unfinished before the pause says its process died (a new leader after a crash waits
 *   only for the lease, e.g. 8 s with --leader-elect-lease-duration=8s);
 * - the controller's own start-up line in its log (`controllerStarts`): the old process's syncs
 *   due before it run first, then every ReplicaSet is synced afresh.
 *
 * While no kube-controller-manager leads (leadership.ts: its leader-election lines), the model is
 * idle: the old process's syncs due before nobody led run, those due while nobody led are dropped
 * (no process ran them; the new one lists every ReplicaSet and syncs each at its start), and at the
 * new leader's start the store is reset — the restart carries the gap (`noLeader`) and its cause.
 *
 * Contract: `logStartsBefore(at)` (which also applies the leadership gaps due by `at`) is called with every event before the syncs due ahead of it
 * run, `noteCredential(e)` after them. A restart resets the model's store, and is recorded in
 * `restarts`, on the track of every key whose unfulfilled record it dropped, and on the track of
 * every key whose last round it cut short. Writes RsTrack.restarts.
 *
 * Cost: O(1) per event without a restart; a restart walks every track. Pure: no I/O, no clock.
 */
import type { SourceRef, TimelineEvent } from '../../timeline/event.js';
import type { EngineController } from './engine-controller.js';
import type { NoLeaderGap } from './leadership.js';
import type { RestartTrack, RoundTrack, RsTrack, RsTracks } from './rs-track.js';
import type { WriteLedger } from './write-ledger.js';

/**
 * A new credential for the controller after at least this long without any of its writes is a
 * restarted kube-controller-manager (a token rotation happens while it keeps working).
 */
export const RESTART_PAUSE_MS = 10_000;
/** The same after a round the controller left unfinished (its process died making it). */
export const CUT_ROUND_RESTART_PAUSE_MS = 2_000;

export class RestartDetector {
  readonly restarts: RestartTrack[] = [];
  /** The controller's logged start-ups not yet applied, in time order. */
  private readonly starts: Array<{ at: number; source: SourceRef }>;
  /** Stretches with no leader not yet over, in time order, with the syncs dropped in each so far. */
  private readonly gaps: Array<NoLeaderGap & { entered: boolean; idleSyncs: number; idleKeys: Map<string, number> }>;
  /** Where the model resumed after a stretch with no leader (the new leader's starts). */
  private readonly resumes: number[] = [];
  /** The gap whose end the next restart belongs to. */
  private ending: (NoLeaderGap & { idleSyncs: number; idleKeys: Map<string, number> }) | undefined;

  constructor(
    private readonly tracks: RsTracks,
    private readonly controller: Pick<EngineController, 'runDue' | 'expectations' | 'owners' | 'queue'>,
    private readonly ledger: Pick<WriteLedger, 'credentialChangeAt'>,
    private readonly windows: { drain(): void },
    /** kube-controller-manager start-ups from its own log. */
    controllerStarts: Array<{ at: number; source: SourceRef }> = [],
    /** When no kube-controller-manager led (leadership.ts). */
    noLeader: readonly NoLeaderGap[] = [],
  ) {
    this.starts = [...controllerStarts].sort((a, b) => a.at - b.at);
    this.gaps = [...noLeader].sort((a, b) => (a.idleFrom ?? a.from) - (b.idleFrom ?? b.from)).map((g) => ({ ...g, entered: false, idleSyncs: 0, idleKeys: new Map<string, number>() }));
  }

  /**
   * Nobody led in a gap that began by `at`: the old process's syncs due before the gap run, the
   * ones due in it until `at` (or the gap's resume) are dropped; a gap resuming by `at` without a
   * logged start at its resume restarts the model there.
   */
  private idleBefore(at: number, loggedStart?: number): void {
    while (this.gaps.length && (this.gaps[0]!.idleFrom ?? this.gaps[0]!.from) <= at) {
      const g = this.gaps[0]!;
      if (!g.entered) {
        this.controller.runDue(g.idleFrom ?? g.from);
        this.windows.drain();
        g.entered = true;
      }
      const resume = g.resumeAt ?? Number.POSITIVE_INFINITY;
      const upTo = Math.min(at, resume);
      for (const key of this.controller.owners.keys()) {
        const due = this.controller.queue.dueAt(key);
        if (due !== undefined && due < upTo) g.idleKeys.set(key, (g.idleKeys.get(key) ?? 0) + 1);
      }
      g.idleSyncs += this.controller.queue.dropDue(upTo);
      if (at < resume) return;
      this.gaps.shift();
      this.ending = g;
      this.resumes.push(resume);
      if (loggedStart !== resume && !this.starts.some((s) => s.at === resume)) {
        this.restartAt(resume, { at: resume, pauseMs: 0, source: g.evidence[g.evidence.length - 1]!, via: 'log' });
        for (const key of this.controller.owners.keys()) this.controller.queue.add(key, resume);
      }
    }
  }

  /**
   * The controller's first write with a new credential after a pause in its writes: a new
   * kube-controller-manager process (expectations live in memory, so it starts with none).
   */
  noteCredential(e: TimelineEvent): void {
    const c = this.ledger.credentialChangeAt(e);
    // A token rotation keeps working through; a restart pauses. A round the controller left
    // unfinished before the pause says the same even when the pause was short.
    if (!c || (c.pauseMs < RESTART_PAUSE_MS && !(c.pauseMs >= CUT_ROUND_RESTART_PAUSE_MS && this.tracksCut(c)))) return;
    // The new leader's start the Lease or the log already showed is this new credential's process.
    if (this.resumes.some((t) => t >= c.at - c.pauseMs && t <= c.at)) return;
    this.restartAt(e.at, { at: c.at, pauseMs: c.pauseMs, source: c.source, via: 'credential' });
  }

  /** Applies the controller's logged start-ups due before `at`. */
  logStartsBefore(at: number): void {
    while (this.starts.length && this.starts[0]!.at <= at) {
      const st = this.starts.shift()!;
      this.idleBefore(st.at, st.at);
      // The old process's syncs due before the start-up happened first.
      this.controller.runDue(st.at);
      this.windows.drain();
      // The store was empty anyway unless something is pending; a first start-up costs nothing.
      this.restartAt(st.at, { at: st.at, pauseMs: 0, source: st.source, via: 'log' });
      // The new process's informers list every ReplicaSet (addRS → enqueue): each is synced afresh.
      for (const key of this.controller.owners.keys()) this.controller.queue.add(key, st.at);
    }
    this.idleBefore(at);
  }

  private restartAt(at: number, c: Omit<RestartTrack, 'dropped' | 'interrupted'>): void {
    const dropped: RestartTrack['dropped'] = [];
    for (const t of this.tracks.values()) {
      const rec = this.controller.expectations.get(t.key);
      if (rec && (rec.add > 0 || rec.del > 0)) dropped.push({ key: t.key, add: rec.add, del: rec.del, setAt: rec.timestamp });
    }
    const g = this.ending && (this.ending.resumeAt === at) ? this.ending : undefined;
    this.ending = undefined;
    const r: RestartTrack = { ...c, dropped };
    if (g) r.noLeader = { from: g.from, ...(g.idleFrom !== undefined ? { idleFrom: g.idleFrom } : {}), ...(g.acquiredAt !== undefined ? { acquiredAt: g.acquiredAt } : {}), resumeAt: at, cause: g.cause, basis: g.basis, evidence: g.evidence, idleSyncs: Object.fromEntries(g.idleKeys) };
    if (c.via === 'log' && dropped.length === 0 && !this.tracksCut(c) && !g?.idleSyncs) return;
    this.restarts.push(r);
    this.controller.expectations.reset(at);
    this.windows.drain();
    for (const d of dropped) this.tracks.of(d.key).restarts.push(r);
    // A ReplicaSet whose syncs came due while nobody led: they ran only at this restart.
    for (const key of g?.idleKeys.keys() ?? []) if (!dropped.some((d) => d.key === key)) this.tracks.of(key).restarts.push(r);
    // A round the audit log shows cut short just before the pause was interrupted by the restart.
    for (const t of this.tracks.values()) {
      if (dropped.some((d) => d.key === t.key)) continue;
      const last = cutRound(t, c);
      if (last && t.restarts[t.restarts.length - 1] === r) t.restarts.pop();
      if (last) t.restarts.push({ ...r, interrupted: { at: last.at, made: last.sync.create ? last.sync.create.calls : last.sync.delete!.n - last.sync.delete!.unmade.length, n: last.sync.create?.n ?? last.sync.delete!.n, kind: last.kind } });
    }
  }

  private tracksCut(c: { at: number; pauseMs: number }): boolean {
    return [...this.tracks.values()].some((t) => cutRound(t, c) !== undefined);
  }
}

/** The track's last round, if the controller left it unfinished within a minute before the pause. */
function cutRound(t: RsTrack, c: { at: number; pauseMs: number }): RoundTrack | undefined {
  const last = t.rounds[t.rounds.length - 1];
  const cut = last && ((last.sync.create?.unmade ?? 0) > 0 || (last.sync.delete?.unmade.length ?? 0) > 0);
  return cut && last.at >= c.at - c.pauseMs - 60_000 ? last : undefined;
}
