/**
 * Episodes of the controller's informer behind the input: consecutive status writes of the
 * controller that counted fewer pods than the input showed before its previous status write
 * (src/analysis/controller-view.ts finds each), up to the first later status write that counted
 * every pod again (the view caught up; `until` undefined: it never did before the input ends).
 *
 * Pure: no I/O, no clock. O(behind + caught-up writes).
 */
import type { RsTrack } from '../engine/rs-track.js';
import type { SourceRef } from '../../timeline/event.js';

/** Consecutive status writes showing the controller's cache behind the input, until one that caught up. */
export interface ViewEpisode {
  from: number;
  until?: number;
  untilSource?: SourceRef;
  writes: RsTrack['viewBehind'];
}

export function viewEpisodes(t: RsTrack): ViewEpisode[] {
  const out: ViewEpisode[] = [];
  let cur: ViewEpisode | undefined;
  const ups = [...t.viewCaughtUp];
  for (const v of t.viewBehind) {
    while (cur && ups.length && ups[0]!.at <= v.at) {
      const up = ups.shift()!;
      if (up.at >= cur.writes[cur.writes.length - 1]!.at) {
        cur.until = up.at;
        cur.untilSource = up.source;
        out.push(cur);
        cur = undefined;
      }
    }
    if (!cur) cur = { from: v.since, writes: [] };
    cur.from = Math.min(cur.from, v.since);
    cur.writes.push(v);
  }
  if (cur) {
    const up = ups.find((u) => u.at >= cur!.writes[cur!.writes.length - 1]!.at);
    if (up) {
      cur.until = up.at;
      cur.untilSource = up.source;
    }
    out.push(cur);
  }
  return out;
}
