/**
 * The replay's event stream from its sources to the engine, without a promise per event between
 * the stages: the watch sources hand over one batch per chunk of input, and merging (k-way by
 * `at`, as src/sources/watch/merge.ts), the per-source and per-stream taps, and the causal
 * ordering (src/timeline/causal-order.ts) run synchronously on them. Only the engine's own pull
 * is a promise per event, and only a source that must read its next chunk awaits.
 *
 * Why not the chain of async generators it replaces (source → labels tap → merge → Events tap →
 * causal order → engine): each layer cost a promise, a generator resumption and an iterator
 * result per event — ~10 % of a million-event replay, plus the garbage (bench/README.md, Replay).
 *
 * Every stage runs at exactly the moment it ran in the generator chain, so that problems,
 * warnings and interrupts come in the same order: a source's next event is pulled (its tap run,
 * and at a batch's end its next chunk read) when the merge hands out its current one, and the
 * merge is asked for an event only when the causal order has released none to deliver.
 * `nextSync()` (timeline/sync-next.ts) is next()'s common case without its promise: the event
 * when the batches hold it, else undefined — and the pump's finding is kept for the next next().
 */
import type { TimelineEvent } from '../timeline/event.js';
import type { OrderingStage } from '../timeline/stalled-watch.js';
import type { SyncNextIterator } from '../timeline/sync-next.js';

type Batches = AsyncIterableIterator<TimelineEvent[]>;

interface Cursor {
  batches: Batches;
  batch: TimelineEvent[];
  next: number;
  done: boolean;
  /** The source's event the merge holds (one ahead, as mergeSources). */
  head: TimelineEvent | undefined;
}

export interface ReplayStreamStages {
  /** Sees every event of source `i` as it is pulled from it (e.g. the ReplicaSet labels tap). */
  pulled?: (e: TimelineEvent) => void;
  /** Sees every merged event before the causal order; false stops the reading (an interrupt). */
  merged?: (e: TimelineEvent & { seq: number }) => boolean;
  /** The causal order (src/timeline/causal-order.ts), with the stalled watches' repair after it. */
  causal: OrderingStage;
}

export function replayStream(sources: Batches[], stages: ReplayStreamStages): AsyncIterableIterator<TimelineEvent> {
  const cursors: Cursor[] = sources.map((batches) => ({ batches, batch: [], next: 0, done: false, head: undefined }));
  const out: TimelineEvent[] = [];
  let taken = 0;
  let seq = 0;
  let primed = false;
  /** The merge has nothing more (all sources done, or stopped): the causal order was flushed. */
  let ended = false;
  /** An event taken from the merge whose source must read on before it is handed out. */
  let pending: (TimelineEvent & { seq: number }) | undefined;
  let pendingFrom = -1;
  /** What `nextSync`'s pump found when it had no event at hand: the next `next()` goes on from it. */
  let parked: 'await' | 'end' | 'stop' | undefined;

  /** The next event of cursor `c` from its batch, or undefined when the batch is used up. */
  const fromBatch = (c: Cursor): TimelineEvent | undefined => {
    if (c.next < c.batch.length) {
      const e = c.batch[c.next++]!;
      stages.pulled?.(e);
      return e;
    }
    return undefined;
  };
  /** Reads batches until one holds an event (or the source ends) and takes its first. */
  const refill = async (c: Cursor): Promise<void> => {
    for (;;) {
      const r = await c.batches.next();
      if (r.done) {
        c.done = true;
        c.head = undefined;
        c.batch = [];
        c.next = 0;
        return;
      }
      c.batch = r.value;
      c.next = 0;
      const e = fromBatch(c);
      if (e !== undefined) {
        c.head = e;
        return;
      }
    }
  };
  const prime = async (): Promise<void> => {
    // Sequentially, so problems are reported in argument order.
    for (const c of cursors) await refillOrClose(c);
    primed = true;
  };
  /** A source that throws: the others are closed (mergeSources' finally), then the error goes on. */
  const refillOrClose = async (c: Cursor): Promise<void> => {
    try {
      await refill(c);
    } catch (err) {
      c.done = true;
      ended = true;
      await closeSources();
      throw err;
    }
  };
  /** mergeSources' finally: close the sources not read to their end. */
  const closeSources = async (): Promise<void> => {
    for (const c of cursors) {
      if (!c.done) {
        c.done = true;
        await c.batches.return?.(undefined);
      }
    }
  };

  /** Hands a merged event to the taps and the causal order; false when the reading stops. */
  const deliver = (ev: TimelineEvent & { seq: number }): boolean => {
    if (stages.merged && !stages.merged(ev)) return false;
    stages.causal.push(ev, out);
    return true;
  };
  const finish = async (stopped: boolean): Promise<void> => {
    ended = true;
    if (stopped) await closeSources();
    stages.causal.end(out);
  };

  /**
   * Pulls merged events until the causal order releases one. Synchronous while the sources'
   * batches last; `pending` marks where it must await a source's next batch.
   */
  const pump = (): 'ready' | 'await' | 'end' | 'stop' => {
    for (;;) {
      let best = -1;
      for (let i = 0; i < cursors.length; i++) {
        const h = cursors[i]!.head;
        if (h !== undefined && (best === -1 || h.at < cursors[best]!.head!.at)) best = i;
      }
      if (best === -1) return 'end';
      const c = cursors[best]!;
      const ev = c.head as TimelineEvent & { seq: number };
      ev.seq = seq++;
      const e = fromBatch(c);
      if (e === undefined) {
        pending = ev;
        pendingFrom = best;
        return 'await';
      }
      c.head = e;
      if (!deliver(ev)) return 'stop';
      if (out.length > taken) return 'ready';
    }
  };

  /** `from`: what the synchronous path in next() already found. */
  const fill = async (from?: 'await' | 'end' | 'stop'): Promise<IteratorResult<TimelineEvent>> => {
    let r = from;
    for (;;) {
      if (r === 'end' || r === 'stop') {
        await finish(r === 'stop');
        r = undefined;
      }
      if (ended) {
        if (taken < out.length) return { value: out[taken++]!, done: false };
        return { value: undefined, done: true };
      }
      if (!primed) await prime();
      if (pending !== undefined) {
        const ev = pending;
        pending = undefined;
        await refillOrClose(cursors[pendingFrom]!);
        if (!deliver(ev)) {
          r = 'stop';
          continue;
        }
        if (out.length > taken) return { value: out[taken++]!, done: false };
      }
      const p = pump();
      if (p === 'ready') return { value: out[taken++]!, done: false };
      r = p;
    }
  };

  const iter: SyncNextIterator<TimelineEvent> = {
    next(): Promise<IteratorResult<TimelineEvent>> {
      if (taken < out.length) return Promise.resolve({ value: out[taken++]!, done: false });
      if (parked !== undefined) {
        const r = parked;
        parked = undefined;
        return fill(r);
      }
      // Delivered: start over, every few events (truncating per event cost 2 % of a replay; waiting
      // longer would keep delivered events alive).
      if (taken >= 64) {
        out.length = 0;
        taken = 0;
      }
      if (!ended && primed && pending === undefined) {
        // The common case: the next event is in the sources' batches.
        const r = pump();
        if (r === 'ready') return Promise.resolve({ value: out[taken++]!, done: false });
        return fill(r);
      }
      return fill();
    },
    nextSync(): IteratorResult<TimelineEvent> | undefined {
      if (taken < out.length) return { value: out[taken++]!, done: false };
      if (parked !== undefined || ended || !primed || pending !== undefined) return undefined;
      // next()'s common case without its promise; what else the pump found waits in `parked`.
      if (taken >= 64) {
        out.length = 0;
        taken = 0;
      }
      const r = pump();
      if (r === 'ready') return { value: out[taken++]!, done: false };
      parked = r;
      return undefined;
    },
    async return(): Promise<IteratorResult<TimelineEvent>> {
      ended = true;
      parked = undefined;
      out.length = 0;
      taken = 0;
      await closeSources();
      return { value: undefined, done: true };
    },
    [Symbol.asyncIterator]() {
      return this;
    },
  };
  return iter;
}
