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
 * Contract: `logStartsBefore(at)` is called with every event before the syncs due ahead of it
 * run, `noteCredential(e)` after them. A restart resets the model's store, and is recorded in
 * `restarts`, on the track of every key whose unfulfilled record it dropped, and on the track of
 * every key whose last round it cut short. Writes RsTrack.restarts.
 *
 * Cost: O(1) per event without a restart; a restart walks every track. Pure: no I/O, no clock.
 */
import type { SourceRef, TimelineEvent } from '../../timeline/event.js';
import type { EngineController } from './engine-controller.js';
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

  constructor(
    private readonly tracks: RsTracks,
    private readonly controller: Pick<EngineController, 'runDue' | 'expectations' | 'owners' | 'queue'>,
    private readonly ledger: Pick<WriteLedger, 'credentialChangeAt'>,
    private readonly windows: { drain(): void },
    /** kube-controller-manager start-ups from its own log. */
    controllerStarts: Array<{ at: number; source: SourceRef }> = [],
  ) {
    this.starts = [...controllerStarts].sort((a, b) => a.at - b.at);
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
    this.restartAt(e.at, { at: c.at, pauseMs: c.pauseMs, source: c.source, via: 'credential' });
  }

  /** Applies the controller's logged start-ups due before `at`. */
  logStartsBefore(at: number): void {
    while (this.starts.length && this.starts[0]!.at <= at) {
      const st = this.starts.shift()!;
      // The old process's syncs due before the start-up happened first.
      this.controller.runDue(st.at);
      this.windows.drain();
      // The store was empty anyway unless something is pending; a first start-up costs nothing.
      this.restartAt(st.at, { at: st.at, pauseMs: 0, source: st.source, via: 'log' });
      // The new process's informers list every ReplicaSet (addRS → enqueue): each is synced afresh.
      for (const key of this.controller.owners.keys()) this.controller.queue.add(key, st.at);
    }
  }

  private restartAt(at: number, c: Omit<RestartTrack, 'dropped' | 'interrupted'>): void {
    const dropped: RestartTrack['dropped'] = [];
    for (const t of this.tracks.values()) {
      const rec = this.controller.expectations.get(t.key);
      if (rec && (rec.add > 0 || rec.del > 0)) dropped.push({ key: t.key, add: rec.add, del: rec.del, setAt: rec.timestamp });
    }
    const r: RestartTrack = { ...c, dropped };
    if (c.via === 'log' && dropped.length === 0 && !this.tracksCut(c)) return;
    this.restarts.push(r);
    this.controller.expectations.reset(at);
    this.windows.drain();
    for (const d of dropped) this.tracks.of(d.key).restarts.push(r);
    // A round the audit log shows cut short just before the pause was interrupted by the restart.
    for (const t of this.tracks.values()) {
      if (dropped.some((d) => d.key === t.key)) continue;
      const last = cutRound(t, c);
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
