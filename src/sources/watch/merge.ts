/**
 * Merges several opened sources into one time-ordered TimelineEvent stream.
 *
 * k-way merge by `at`: each source is already non-decreasing in `at` (every adapter keeps
 * file order and clamps), so holding one pending event per source is enough — memory is
 * O(number of sources). Ties go to the earlier source in argument order, and within one
 * source the file order is kept, so the result is stable and deterministic. Each event
 * gets `seq`, its position in the merged stream (compareTimeline's tiebreaker).
 *
 * A linear scan over the heads is used instead of a heap: inputs are a handful of files.
 */
import type { TimelineEvent } from '../../timeline/event.js';
import type { OpenedSource } from '../source.js';

export async function* mergeSources(sources: OpenedSource[]): AsyncGenerator<TimelineEvent & { seq: number }> {
  const its = sources.map((s) => s.events[Symbol.asyncIterator]());
  const heads: (TimelineEvent | undefined)[] = new Array(its.length).fill(undefined);
  const done: boolean[] = new Array(its.length).fill(false);
  let seq = 0;
  try {
    // Prime sequentially so problems are reported in argument order.
    for (let i = 0; i < its.length; i++) {
      const r = await its[i]!.next();
      if (r.done) done[i] = true;
      else heads[i] = r.value;
    }
    for (;;) {
      let best = -1;
      for (let i = 0; i < heads.length; i++) {
        const h = heads[i];
        if (h !== undefined && (best === -1 || h.at < heads[best]!.at)) best = i;
      }
      if (best === -1) return;
      const ev = heads[best]! as TimelineEvent & { seq: number };
      ev.seq = seq++;
      const r = await its[best]!.next();
      if (r.done) {
        heads[best] = undefined;
        done[best] = true;
      } else heads[best] = r.value;
      yield ev;
    }
  } finally {
    // Close sources the consumer did not drain (early break, error).
    for (let i = 0; i < its.length; i++) {
      if (!done[i]) await its[i]!.return?.(undefined);
    }
  }
}
