/**
 * Each ReplicaSet's counts over time (desired, active, terminating, ready) for the report's
 * chart: a point whenever any count changed, sampled at every sync and at every pod delivery of
 * the ReplicaSet (counts change with pod events, not only at syncs).
 *
 * Contract: `push(t, p)` appends `p` to the track's series unless it repeats the last point's
 * counts; while replaying the series lives here (thinned-series.ts keeps it under `maxPoints`
 * by thinning the middle) and `t.seriesDropped` follows it; `finish()` copies every series into
 * its track (`t.series`) at the end of input.
 *
 * Cost: O(1) amortised per point; at most `maxPoints` points per ReplicaSet. Pure: no I/O, no clock.
 */
import type { RsTrack } from './rs-track.js';
import { ThinnedSeries } from './thinned-series.js';

export type CountPoint = RsTrack['series'][number];

export class CountSeries {
  /** Each track's series while replaying; copied into `t.series` at the end. */
  private readonly seriesOf = new Map<RsTrack, ThinnedSeries<CountPoint>>();

  constructor(private readonly maxPoints: number) {}

  /** Whether a point of these counts would repeat the track's last one (`push` would drop it): lets a caller skip building it. */
  repeats(t: RsTrack, desired: number, c: { active: number; terminating: number; ready: number }): boolean {
    const prev = this.seriesOf.get(t)?.last();
    return prev !== undefined && prev.desired === desired && prev.active === c.active && prev.terminating === c.terminating && prev.ready === c.ready;
  }

  /** Appends a series point when any count changed (kept under maxPoints by thinning the middle). */
  push(t: RsTrack, p: CountPoint): void {
    let series = this.seriesOf.get(t);
    if (!series) this.seriesOf.set(t, (series = new ThinnedSeries(this.maxPoints)));
    const prev = series.last();
    if (prev && prev.desired === p.desired && prev.active === p.active && prev.terminating === p.terminating && prev.ready === p.ready) return;
    series.push(p);
    t.seriesDropped = series.dropped;
  }

  /** End of input: every track gets its series. */
  finish(): void {
    for (const [t, series] of this.seriesOf) t.series = series.toArray();
  }
}
