/**
 * What a replay hands the report (report-builder.ts): the per-ReplicaSet tracks, the model's
 * final cache, the input's gaps, silences and restarts, its time span, and the controller's
 * writes — each in a round of a track, or unexplained, or attributed to no ReplicaSet kexp
 * tracks.
 *
 * Contract: `settleWrites` is the last step of a replay, after the stages finished: it tells
 * every round how many of its calls the input never showed, hands each track its writes from
 * the write ledger (keys with no ReplicaSet object and no round go to the untracked writes),
 * and narrows tracks and untracked writes to `rsFilter` (the filter only narrows what is
 * reported). Cost: O(tracks + rounds + writes). Pure: no I/O, no clock.
 */
import type { Pod, ReplicaSet } from '../../model/objects.js';
import type { GapEvent } from '../../timeline/event.js';
import type { RestartTrack, RsTrack, RsTracks } from './rs-track.js';
import type { Silence } from './silence-bridge.js';
import type { ControllerWrite, WriteLedger } from './write-ledger.js';

export interface ReplayResult {
  tracks: Map<string, RsTrack>;
  pods: Map<string, Pod>;
  replicaSets: ReadonlyMap<string, ReplicaSet>;
  gaps: GapEvent[];
  start?: number;
  end?: number;
  events: number;
  /** What showed the controller's writes (see ReplayOptions.writeEvidence). */
  writeEvidence: 'audit' | 'watch';
  /** Writes attributed to no ReplicaSet kexp tracks (object missing from the input), per key. */
  untrackedWrites: Map<string, ControllerWrite[]>;
  /** kube-controller-manager restarts the input shows. */
  restarts: RestartTrack[];
  /** Silences longer than SILENCE_HORIZON_MS across which pending syncs were not simulated. */
  silences: Silence[];
  /**
   * When the controller's next sync is due after the end (its workqueue's first entry, queued or
   * delayed); undefined when none is: replayed to a later end with no new event, the model does
   * nothing more (kexp serve keeps such an owner's report, src/serve/registry.ts).
   */
  nextDue?: number;
}

/** End of input: rounds' unresolved calls, each track's writes, the filter. Returns the untracked writes. */
export function settleWrites(tracks: RsTracks, ledger: Pick<WriteLedger, 'remaining' | 'finish' | 'otherActorWrites' | 'jobTrackingWrites'>, rsFilter: string | undefined): Map<string, ControllerWrite[]> {
  for (const t of tracks.values()) for (const r of t.rounds) r.unresolved = ledger.remaining(r.modelRound);
  for (const w of ledger.otherActorWrites) tracks.get(w.rsKey)?.otherActorWrites.push(w);
  for (const w of ledger.jobTrackingWrites) tracks.get(w.rsKey)?.jobTrackingWrites.push(w);
  const untrackedWrites = new Map<string, ControllerWrite[]>();
  for (const [key, writes] of ledger.finish()) {
    const t = tracks.get(key);
    if (t && (t.rs || t.rounds.length)) t.writes = writes;
    else untrackedWrites.set(key, writes);
  }
  // The filter only narrows what is reported.
  if (rsFilter) {
    for (const k of [...tracks.byKey.keys()]) if (k !== rsFilter) tracks.byKey.delete(k);
    for (const k of [...untrackedWrites.keys()]) if (k !== rsFilter) untrackedWrites.delete(k);
  }
  return untrackedWrites;
}
