/**
 * Episodes of withheld writes: syncs in which kexp's model would have created (or deleted)
 * pods but the input, which records the controller's writes, shows none. Withheld syncs of one
 * direction up to the controller's next write of that kind form one episode.
 *
 * An episode is reported (reportedWithheldEpisodes) unless the input ends within 5 s of it
 * without a write (nothing to say yet) or a kube-controller-manager restart inside it is its
 * cause. It is silent (silentEpisode) when the controller wrote no status either: every sync
 * rewrites status.replicas when the pod count changed (syncReplicaSet →
 * calculateStatus/updateReplicaSetStatus in pkg/controller/replicaset/replica_set.go), so the
 * controller never synced on the change.
 *
 * Pure: no I/O, no clock. withheldEpisodes is O(withheld × writes).
 */
import type { ReplayResult } from '../engine/replay-result.js';
import type { RsTrack, WithheldTrack } from '../engine/rs-track.js';
import type { ControllerWrite } from '../engine/write-ledger.js';

export interface WithheldEpisode {
  first: WithheldTrack;
  syncs: number;
  /** The controller's next write for this key after the episode began, if any. */
  next?: ControllerWrite;
}

/** Withheld syncs of one direction (creates, deletes) up to the controller's next write of that kind form one episode. */
export function withheldEpisodes(t: RsTrack): WithheldEpisode[] {
  const out: WithheldEpisode[] = [];
  const writes = [...t.writes].sort((a, b) => a.at - b.at);
  const cur: Record<'create' | 'delete', WithheldEpisode | undefined> = { create: undefined, delete: undefined };
  for (const w of t.withheld) {
    const kind = w.diff < 0 ? 'create' : 'delete';
    const c = cur[kind];
    if (c && (!c.next || w.at < c.next.at)) {
      c.syncs++;
      continue;
    }
    cur[kind] = { first: w, syncs: 1, next: writes.find((x) => x.at >= w.at && x.kind === kind) };
    out.push(cur[kind]!);
  }
  return out.sort((a, b) => a.first.at - b.first.at);
}

/** The withheld episodes the report tells of (the writes-withheld rule, the stalled verdict). */
export function reportedWithheldEpisodes(t: RsTrack, res: ReplayResult): WithheldEpisode[] {
  return withheldEpisodes(t).filter((ep) =>
    // The input ends before the controller could have written: nothing to say yet.
    (ep.next || (res.end ?? ep.first.at) - ep.first.at >= 5000) &&
    // A restart inside the episode is its cause (the restart finding says so).
    !t.restarts.some((r) => r.at >= ep.first.at && r.at <= (ep.next?.at ?? Infinity)));
}

/**
 * Every sync rewrites status.replicas when the count changed (gated or not): no status write
 * after the change that called for the withheld write means the controller never synced on it.
 */
export function silentEpisode(ep: WithheldEpisode, t: RsTrack, res: ReplayResult): boolean {
  const until = ep.next?.at ?? res.end ?? ep.first.at;
  const statusSince = t.statusWrites.some((x) => x > ep.first.at && x <= until);
  return !statusSince && until - ep.first.at >= 5_000 && t.lastStatus !== undefined;
}
