/**
 * The parts of the ReplicaSet controller's rate-limiting workqueue that change what a
 * replay sees (controller-semantics.md §6):
 * - `add` de-duplicates: a key already waiting is not added twice (the earliest due time wins);
 * - `addAfter(key, d)` makes the key due at `now + d`;
 * - `addRateLimited` = addAfter(key, 5 ms · 2^failures) capped at 1000 s
 *   (DefaultTypedControllerRateLimiter's per-item exponential backoff; the global 10 qps
 *   token bucket only matters above 100 syncs in a burst and is not modelled);
 * - `forget` resets the backoff after a successful sync.
 * Mirrors k8s.io/client-go/util/workqueue (Typed rate-limiting queue + delaying queue).
 * Times are epoch ms supplied by the caller.
 */

export const BACKOFF_BASE_MS = 5;
export const BACKOFF_MAX_MS = 1000 * 1000;

export class WorkQueue {
  private readonly due = new Map<string, number>();
  private readonly failures = new Map<string, number>();

  /** Add: due now, unless already due earlier. */
  add(key: string, now: number): void {
    const d = this.due.get(key);
    if (d === undefined || now < d) this.due.set(key, now);
  }

  /** AddAfter: due at now + delayMs, unless already due earlier. */
  addAfter(key: string, now: number, delayMs: number): void {
    this.add(key, now + Math.max(0, delayMs));
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

  /** The next key due strictly before `before` (or at/ before it when inclusive), earliest first. */
  next(before: number, inclusive = false): { key: string; at: number } | undefined {
    let best: { key: string; at: number } | undefined;
    for (const [key, at] of this.due) {
      if (inclusive ? at > before : at >= before) continue;
      if (!best || at < best.at) best = { key, at };
    }
    if (best) this.due.delete(best.key);
    return best;
  }

  /** Due time of a key, if queued. */
  dueAt(key: string): number | undefined {
    return this.due.get(key);
  }

  get size(): number {
    return this.due.size;
  }
}
