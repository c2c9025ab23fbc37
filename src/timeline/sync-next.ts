/**
 * An async iterator that can also hand over its next item without a promise when it has it at
 * hand: `nextSync()` returns the same result `next()` would resolve to, or undefined when it
 * would have to wait (then the caller calls `next()`, which goes on from where `nextSync` left —
 * nothing is read twice or skipped). The replay's stream (pipeline/replay-stream.ts) and the owner
 * kinds' tee (pipeline/stream-tee.ts) offer it, and the engine's feed (analysis/engine/event-feed.ts)
 * uses it, so an event already in a batch reaches the engine without the promises and microtask
 * turns of each layer. Types only: no I/O.
 */
export interface SyncNextIterator<T> extends AsyncIterableIterator<T> {
  nextSync(): IteratorResult<T> | undefined;
}

/** `it`'s `nextSync`, bound, when it offers one. */
export function syncNextOf<T>(it: AsyncIterator<T>): (() => IteratorResult<T> | undefined) | undefined {
  const f = (it as Partial<SyncNextIterator<T>>).nextSync;
  return typeof f === 'function' ? f.bind(it) : undefined;
}
