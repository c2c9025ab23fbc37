/**
 * The parts of the ReplicaSet controller's rate-limiting workqueue that change what a
 * replay sees (controller-semantics.md §6), mirroring k8s.io/client-go/util/workqueue
 * (Typed queue + delaying queue + rate limiter):
 * - `add` de-duplicates: a key already waiting to be processed is not added twice;
 * - `addAfter(key, d)` parks the key in the delaying queue until `now + d`; a key has at
 *   most one delayed entry and a new AddAfter only moves it earlier (waitingForQueue). The
 *   delayed entry is separate from the queue: a key can be processed now *and* again when
 *   its delay fires;
 * - `addRateLimited` = addAfter(key, 5 ms · 2^failures) capped at 1000 s
 *   (DefaultTypedControllerRateLimiter's per-item exponential backoff; the global 10 qps
 *   token bucket only matters above 100 syncs in a burst and is not modelled);
 * - `forget` resets the backoff after a successful sync.
 * Syncs are instantaneous in the model, so "processing" and "dirty" states collapse.
 * Times are epoch ms supplied by the caller.
 *
 * Cost: `next` is O(log n) amortised — each of the two queues keeps a binary heap ordered by
 * (due time, first insertion) beside its map, whose stale entries (a key moved earlier, taken or
 * dropped) are skipped when they reach the top and compacted away when they outnumber the live
 * ones. A linear scan per `next` made 30,000 owners listed at one instant quadratic (14 s).
 * Ties go to the key inserted first, the queue before the delaying queue, as a scan of the two
 * maps in insertion order would.
 */

export const BACKOFF_BASE_MS = 5;
export const BACKOFF_MAX_MS = 1000 * 1000;

interface Entry {
  key: string;
  at: number;
  /** Order of the key's first insertion (kept while the key stays in the map). */
  seq: number;
}

/** A map of key → due time with a lazy min-heap by (at, seq) beside it. */
class TimedKeys {
  private readonly map = new Map<string, { at: number; seq: number }>();
  private heap: Entry[] = [];
  private seq = 0;

  get(key: string): number | undefined {
    return this.map.get(key)?.at;
  }
  keys(): IterableIterator<string> {
    return this.map.keys();
  }
  /** Sets the key's due time (a key already present keeps its insertion order). */
  set(key: string, at: number): void {
    const cur = this.map.get(key);
    const seq = cur ? cur.seq : this.seq++;
    this.map.set(key, { at, seq });
    this.push({ key, at, seq });
  }
  delete(key: string): boolean {
    return this.map.delete(key);
  }
  /** The entry due first (earliest time, then first inserted), if any. */
  top(): Entry | undefined {
    const h = this.heap;
    while (h.length > 0) {
      const e = h[0]!;
      const cur = this.map.get(e.key);
      if (cur && cur.at === e.at && cur.seq === e.seq) return e;
      this.pop();
    }
    return undefined;
  }
  /** Removes every key due before `before`; returns how many. */
  dropBefore(before: number): number {
    let n = 0;
    for (const [k, v] of [...this.map]) if (v.at < before) (this.map.delete(k), n++);
    return n;
  }

  private push(e: Entry): void {
    if (this.heap.length > 64 && this.heap.length > 2 * this.map.size) this.rebuild();
    const h = this.heap;
    h.push(e);
    let i = h.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!less(h[i]!, h[p]!)) break;
      [h[i], h[p]] = [h[p]!, h[i]!];
      i = p;
    }
  }
  private pop(): void {
    const h = this.heap;
    const last = h.pop()!;
    if (h.length === 0) return;
    h[0] = last;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < h.length && less(h[l]!, h[m]!)) m = l;
      if (r < h.length && less(h[r]!, h[m]!)) m = r;
      if (m === i) break;
      [h[i], h[m]] = [h[m]!, h[i]!];
      i = m;
    }
  }
  /** Drops the stale entries: the heap again holds one entry per live key. */
  private rebuild(): void {
    this.heap = [];
    const live = [...this.map].map(([key, v]) => ({ key, at: v.at, seq: v.seq }));
    live.sort((a, b) => (less(a, b) ? -1 : less(b, a) ? 1 : 0));
    this.heap = live; // a sorted array is a valid min-heap
  }
}

function less(a: Entry, b: Entry): boolean {
  return a.at < b.at || (a.at === b.at && a.seq < b.seq);
}

export class WorkQueue {
  /** Keys in the queue, with the time they were added (earliest kept). */
  private readonly queued = new TimedKeys();
  /** Delaying queue: key → time it becomes ready. */
  private readonly waiting = new TimedKeys();
  private readonly failures = new Map<string, number>();

  /** Add: queued now; a key already queued keeps its place. */
  add(key: string, now: number): void {
    const d = this.queued.get(key);
    if (d === undefined || now < d) this.queued.set(key, now);
  }

  /** AddAfter: ready at now + delayMs; an existing delayed entry is only moved earlier. */
  addAfter(key: string, now: number, delayMs: number): void {
    if (delayMs <= 0) return this.add(key, now);
    const at = now + delayMs;
    const w = this.waiting.get(key);
    if (w === undefined || at < w) this.waiting.set(key, at);
  }

  /** AddRateLimited: exponential per-item backoff. Returns the delay used (ms). */
  addRateLimited(key: string, now: number): number {
    const n = this.failures.get(key) ?? 0;
    this.failures.set(key, n + 1);
    const delay = Math.min(BACKOFF_BASE_MS * 2 ** n, BACKOFF_MAX_MS);
    this.addAfter(key, now, delay);
    return delay;
  }

  /** Forget: resets the key's backoff. */
  forget(key: string): void {
    this.failures.delete(key);
  }

  /** Removes and returns the earliest key due strictly before `before` (or at it when inclusive). */
  next(before: number, inclusive = false): { key: string; at: number } | undefined {
    const due = (at: number): boolean => (inclusive ? at <= before : at < before);
    let bestKey: string | undefined;
    let bestAt = Infinity;
    let fromWaiting = false;
    const qTop = this.queued.top();
    if (qTop && due(qTop.at)) {
      bestKey = qTop.key;
      bestAt = qTop.at;
    }
    const wTop = this.waiting.top();
    if (wTop && due(wTop.at) && wTop.at < bestAt) {
      bestKey = wTop.key;
      bestAt = wTop.at;
      fromWaiting = true;
    }
    if (bestKey === undefined) return undefined;
    if (!fromWaiting) this.queued.delete(bestKey);
    else {
      this.waiting.delete(bestKey);
      // A queued entry for the same key at or before this time is merged into this sync.
      const q = this.queued.get(bestKey);
      if (q !== undefined && q <= bestAt) this.queued.delete(bestKey);
    }
    return { key: bestKey, at: bestAt };
  }

  /**
   * Not a workqueue operation: removes the key's pending entries (replays, when the input shows
   * the sync kexp predicted for later happened now). Returns when it was due.
   */
  take(key: string): number | undefined {
    const due = this.dueAt(key);
    this.queued.delete(key);
    this.waiting.delete(key);
    return due;
  }

  /**
   * Not a workqueue operation: drops every entry due before `before` (replays, across a stretch
   * the input does not cover). Returns how many were dropped.
   */
  dropDue(before: number): number {
    return this.queued.dropBefore(before) + this.waiting.dropBefore(before);
  }

  /** Earliest time any key is due (queued or delayed), if any: when the next sync would run. */
  firstDue(): number | undefined {
    const q = this.queued.top()?.at;
    const w = this.waiting.top()?.at;
    if (q === undefined) return w;
    if (w === undefined) return q;
    return Math.min(q, w);
  }

  /** Earliest time the key is due (queued or delayed), if any. */
  dueAt(key: string): number | undefined {
    const q = this.queued.get(key);
    const w = this.waiting.get(key);
    if (q === undefined) return w;
    if (w === undefined) return q;
    return Math.min(q, w);
  }

  /** Backoff failures recorded for a key (tests). */
  failuresOf(key: string): number {
    return this.failures.get(key) ?? 0;
  }

  get size(): number {
    return new Set([...this.queued.keys(), ...this.waiting.keys()]).size;
  }
}
