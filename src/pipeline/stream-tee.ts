/**
 * One event stream read by two consumers at once (e.g. one replay engine per owner kind), each
 * given only the events a router assigns to it, in the stream's order — without reading the
 * stream twice.
 *
 * Contract: `route(e)` returns a bit mask (TO_FIRST, TO_SECOND, or both) and may return the
 * event to hand the second consumer in place of `e` through `convert` (a converted owner). Each
 * consumer sees its events in stream order; an event routed to both is the same object for both
 * unless converted. Whichever consumer asks for an event when its queue is empty reads the stream
 * (one reader at a time) and queues what belongs to the other; a consumer asking while the other
 * reads waits for it. When the other's queue holds `limit` events the reader stops and waits for
 * the other to catch up, so what is queued is bounded by how far one consumer runs ahead of the
 * other (and by `limit`). A consumer that returns early (`return()`) gets nothing more; when both
 * have, the stream is closed. An error reading the stream goes to the consumer that was reading
 * and to one waiting.
 *
 * Cost: one call of `route` per event and an array push/shift per event routed to a consumer
 * that is not the one reading; a consumer whose queue holds events gets them without a promise
 * of its own (Promise.resolve). Each side also offers `nextSync` (timeline/sync-next.ts): its
 * queued event, or — when the source offers `nextSync` too and nobody reads — the read done
 * synchronously as far as the source has events at hand. No I/O of its own.
 */

import { syncNextOf, type SyncNextIterator } from '../timeline/sync-next.js';

export const TO_FIRST = 1;
export const TO_SECOND = 2;

type Waiter<T> = { resolve: (r: IteratorResult<T>) => void; reject: (err: unknown) => void };

interface Side<T> {
  queue: T[];
  head: number;
  waiter: Waiter<T> | undefined;
  closed: boolean;
}

export function teeStream<T>(
  source: AsyncIterator<T>,
  route: (e: T) => number,
  convert: (e: T) => T = (e) => e,
  limit = 4096,
): [SyncNextIterator<T>, SyncNextIterator<T>] {
  const sides: [Side<T>, Side<T>] = [
    { queue: [], head: 0, waiter: undefined, closed: false },
    { queue: [], head: 0, waiter: undefined, closed: false },
  ];
  const sourceSync = syncNextOf(source);
  let reading = false;
  let ended = false;
  let failure: { err: unknown } | undefined;

  const take = (s: Side<T>): T | undefined => {
    if (s.head >= s.queue.length) return undefined;
    const e = s.queue[s.head]!;
    s.queue[s.head++] = undefined as T;
    if (s.head >= 1024 && s.head * 2 >= s.queue.length) {
      s.queue = s.queue.slice(s.head);
      s.head = 0;
    }
    return e;
  };
  const give = (s: Side<T>, e: T): void => {
    if (s.closed) return;
    const w = s.waiter;
    if (w) {
      s.waiter = undefined;
      w.resolve({ value: e, done: false });
    } else s.queue.push(e);
  };
  const finishWaiters = (): void => {
    for (const s of sides) {
      const w = s.waiter;
      if (!w) continue;
      s.waiter = undefined;
      if (failure) w.reject(failure.err);
      else w.resolve({ value: undefined, done: true });
    }
  };
  /** A consumer returned early: the other, if it waits with nobody reading, reads for itself. */
  const handOver = (): void => {
    if (reading) return;
    for (const i of [0, 1] as const) {
      const s = sides[i]!;
      if (!s.waiter) continue;
      const w = s.waiter;
      s.waiter = undefined;
      read(i).then(w.resolve, w.reject);
      return;
    }
  };

  /**
   * Routes `e`, read by side `i`: queued for the other side when it goes there too, and returned
   * when it is side `i`'s (undefined: `i` reads on). Shared by `read` and `readSync`.
   */
  const deal = (i: 0 | 1, e: T): IteratorResult<T> | undefined => {
    const to = route(e);
    if (i === 0) {
      if (to & TO_SECOND) give(sides[1]!, convert(e));
      return to & TO_FIRST ? { value: e, done: false } : undefined;
    }
    if (to & TO_FIRST) give(sides[0]!, e);
    return to & TO_SECOND ? { value: convert(e), done: false } : undefined;
  };

  /**
   * Reads the stream for side `i` until it has an event or the stream ends; when the other side
   * is `limit` behind, waits for it instead (it reads when its queue is empty). One async frame
   * per event read: this is on the path of every event.
   */
  const read = async (i: 0 | 1): Promise<IteratorResult<T>> => {
    const other = sides[1 - i]!;
    reading = true;
    try {
      for (;;) {
        if (!other.closed && other.queue.length - other.head >= limit) {
          reading = false;
          return await new Promise<IteratorResult<T>>((resolve, reject) => (sides[i]!.waiter = { resolve, reject }));
        }
        const r = await source.next();
        if (r.done) {
          reading = false;
          ended = true;
          finishWaiters();
          return r;
        }
        const mine = deal(i, r.value);
        if (mine) {
          reading = false;
          return mine;
        }
      }
    } catch (err) {
      reading = false;
      ended = true;
      failure = { err };
      finishWaiters();
      throw err;
    }
  };

  /**
   * `read` without a promise, for a source that offers `nextSync`: the event for side `i` when
   * the source has the events up to it at hand and the other side is not `limit` behind; else
   * undefined (the caller calls next(), which reads on from there).
   */
  const readSync = (i: 0 | 1): IteratorResult<T> | undefined => {
    const other = sides[1 - i]!;
    try {
      for (;;) {
        if (!other.closed && other.queue.length - other.head >= limit) return undefined;
        const r = sourceSync!();
        if (r === undefined) return undefined;
        if (r.done) {
          ended = true;
          finishWaiters();
          return r;
        }
        const mine = deal(i, r.value);
        if (mine) return mine;
      }
    } catch (err) {
      ended = true;
      failure = { err };
      finishWaiters();
      throw err;
    }
  };

  const side = (i: 0 | 1): SyncNextIterator<T> => {
    const s = sides[i]!;
    const it: SyncNextIterator<T> = {
      nextSync(): IteratorResult<T> | undefined {
        const e = take(s);
        if (e !== undefined) return { value: e, done: false };
        if (s.closed || failure || ended || reading || !sourceSync) return undefined;
        return readSync(i);
      },
      next(): Promise<IteratorResult<T>> {
        const e = take(s);
        if (e !== undefined) return Promise.resolve({ value: e, done: false });
        if (s.closed) return Promise.resolve({ value: undefined, done: true });
        if (failure) return Promise.reject(failure.err);
        if (ended) return Promise.resolve({ value: undefined, done: true });
        if (reading) return new Promise((resolve, reject) => (s.waiter = { resolve, reject }));
        return read(i);
      },
      async return(): Promise<IteratorResult<T>> {
        s.closed = true;
        s.queue = [];
        s.head = 0;
        if (sides[0].closed && sides[1].closed) {
          if (!ended) {
            ended = true;
            await source.return?.(undefined);
          }
        } else if (!reading) handOver();
        return { value: undefined, done: true };
      },
      [Symbol.asyncIterator]() {
        return this;
      },
    };
    return it;
  };
  return [side(0), side(1)];
}
