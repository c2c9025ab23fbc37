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
 */

export const BACKOFF_BASE_MS = 5;
export const BACKOFF_MAX_MS = 1000 * 1000;

export class WorkQueue {
  /** Keys in the queue, with the time they were added (earliest kept). */
  private readonly queued = new Map<string, number>();
  /** Delaying queue: key → time it becomes ready. */
  private readonly waiting = new Map<string, number>();
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
    let bestKey: string | undefined;
    let bestAt = Infinity;
    let fromWaiting = false;
    for (const [key, at] of this.queued) {
      if ((inclusive ? at <= before : at < before) && at < bestAt) {
        bestKey = key;
        bestAt = at;
      }
    }
    for (const [key, at] of this.waiting) {
      if ((inclusive ? at <= before : at < before) && at < bestAt) {
        bestKey = key;
        bestAt = at;
        fromWaiting = true;
      }
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
    let n = 0;
    for (const [k, at] of [...this.queued]) if (at < before) (this.queued.delete(k), n++);
    for (const [k, at] of [...this.waiting]) if (at < before) (this.waiting.delete(k), n++);
    return n;
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
