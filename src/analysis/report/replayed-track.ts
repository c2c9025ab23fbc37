/**
 * A ReplicaSet's track as the report reads it: what the replay engine learned about one key
 * (RsTrack), the replay it came from, the end of input (the report's "now") and the pods the
 * ReplicaSet controls at that end. Rounds, gated windows, the replay's finding rules and the
 * verdict all read this one context.
 *
 * - `trimTrack` leaves out everything before `--since` (the state stays as replayed);
 * - `writesOfRound` indexes the controller writes a round claimed once per track (a per-round
 *   filter of `t.writes` is O(rounds × writes), quadratic on long churn captures).
 *
 * Pure: no I/O, no clock. trimTrack is O(size of the track); writesOfRound O(writes) once per
 * track, then O(1).
 */
import type { finalCounts } from '../engine/final-counts.js';
import type { ReplayResult } from '../engine/replay-result.js';
import type { RsTrack } from '../engine/rs-track.js';
import type { ControllerWrite } from '../engine/write-ledger.js';

export interface ReplayedTrack {
  /** The track (trimmed to `--since` when given). */
  t: RsTrack;
  res: ReplayResult;
  /** End of input (epoch ms): the report's "now". */
  end: number | undefined;
  /** The ReplicaSet's pods at the end of input (finalCounts), unless it is gone. */
  final: ReturnType<typeof finalCounts> | undefined;
  /** kubectl's short name of the owner kind replayed (`rs`; `rc` for a ReplicationController). */
  resource: 'rs' | 'rc' | 'ds' | 'job';
}

/** The owner kind as ClaimObject's messages name it, by kubectl short name. */
export const CLAIM_KINDS = {
  rs: { kind: 'ReplicaSet', resource: 'replicasets.apps' },
  rc: { kind: 'ReplicationController', resource: 'replicationcontrollers' },
  ds: { kind: 'DaemonSet', resource: 'daemonsets.apps' },
  job: { kind: 'Job', resource: 'jobs.batch' },
} as const;

/** The controller writes of `t` the report keeps from `since` on: those of its rounds since then, and the others made since. */
export function writesSince(t: RsTrack, since: number): ControllerWrite[] {
  const roundsSince = new Set(t.rounds.filter((r) => r.at >= since).map((r) => r.modelRound));
  return t.writes.filter((w) => (w.round !== undefined ? roundsSince.has(w.round) : w.at >= since));
}

/** A copy of the track with everything before `since` left out (state stays as replayed). */
export function trimTrack(t: RsTrack, since: number): RsTrack {
  const after = <T extends { at: number }>(xs: T[]) => xs.filter((x) => x.at >= since);
  const lastBefore = [...t.series].reverse().find((p) => p.at < since);
  return {
    ...t,
    rounds: after(t.rounds),
    windows: t.windows.filter((w) => (w.end ?? Infinity) >= since),
    changes: after(t.changes),
    clobbers: after(t.clobbers),
    nameReuse: after(t.nameReuse),
    uidChanges: after(t.uidChanges),
    expiredSyncs: after(t.expiredSyncs),
    syncErrors: after(t.syncErrors),
    orphanedExpected: after(t.orphanedExpected),
    withheld: after(t.withheld),
    divergences: after(t.divergences),
    restarts: after(t.restarts),
    podFailures: t.podFailures.filter((p) => p.failedAt >= since),
    writes: writesSince(t, since),
    series: [...(lastBefore ? [{ ...lastBefore, at: since }] : []), ...after(t.series)],
  };
}

const writesByRoundCache = new WeakMap<RsTrack, Map<number, ControllerWrite[]>>();

/** The writes round `round` (a model round number) claimed. */
export function writesOfRound(t: RsTrack, round: number | undefined): ControllerWrite[] {
  if (round === undefined) return [];
  let m = writesByRoundCache.get(t);
  if (!m) {
    m = new Map();
    for (const w of t.writes) {
      if (w.round === undefined) continue;
      const list = m.get(w.round);
      if (list) list.push(w);
      else m.set(w.round, [w]);
    }
    writesByRoundCache.set(t, m);
  }
  return m.get(round) ?? [];
}
