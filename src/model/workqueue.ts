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

/** A key's due time: what `next` hands out (the queue's own object, never changed once made). */
interface Entry {
  readonly key: string;
  readonly at: number;
}

/** A key's place in the map: its current entry (null once taken or dropped) and its insertion order. */
interface Slot {
  e: Entry | null;
  /** Order of the key's first insertion (kept while the key has an entry). */
  seq: number;
}

/**
 * A map of key → due time with a lazy min-heap by (at, seq) beside it. One immutable entry per
 * `set`, held by the key's slot and pushed on the heap (its seq in a parallel array): a heap
 * entry is live iff its key's slot still holds that very object. A taken key keeps its slot
 * (entry null) until the empty slots outnumber the live ones three to one (then swept), so the
 * usual cycle of one key — set, taken, set again — neither shrinks nor regrows the map's hash
 * table (V8 reallocates a Map's table when a delete leaves it under half full, and again when
 * it grows) and allocates only the entry.
 */
class TimedKeys {
  private readonly map = new Map<string, Slot>();
  private heap: Entry[] = [];
  private heapSeq: number[] = [];
  private seq = 0;
  /** Keys with an entry. */
  private live = 0;

  get(key: string): number | undefined {
    return this.map.get(key)?.e?.at;
  }
  *keys(): IterableIterator<string> {
    for (const [k, slot] of this.map) if (slot.e) yield k;
  }
  /** Sets the key's due time (a key already present keeps its insertion order). */
  set(key: string, at: number): void {
    let slot = this.map.get(key);
    if (!slot) {
      slot = { e: null, seq: this.seq++ };
      this.map.set(key, slot);
      this.live++;
    } else if (!slot.e) {
      slot.seq = this.seq++;
      this.live++;
    }
    const e: Entry = { key, at };
    slot.e = e;
    this.push(e, slot.seq);
  }
  delete(key: string): boolean {
    const slot = this.map.get(key);
    if (!slot || !slot.e) return false;
    slot.e = null;
    this.live--;
    if (this.map.size > 64 && this.map.size > 4 * this.live) this.sweep();
    return true;
  }
  /** The entry due first (earliest time, then first inserted), if any. */
  top(): Entry | undefined {
    const h = this.heap;
    while (h.length > 0) {
      const e = h[0]!;
      if (this.map.get(e.key)?.e === e) return e;
      this.pop();
    }
    return undefined;
  }
  /** Removes every key due before `before`; returns how many. */
  dropBefore(before: number): number {
    let n = 0;
    for (const [k, slot] of [...this.map]) if (slot.e && slot.e.at < before) (this.delete(k), n++);
    return n;
  }

  private push(e: Entry, seq: number): void {
    if (this.heap.length > 64 && this.heap.length > 2 * this.live) this.rebuild();
    const h = this.heap;
    const hs = this.heapSeq;
    let i = h.length;
    h.push(e);
    hs.push(seq);
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!less(e.at, seq, h[p]!.at, hs[p]!)) break;
      h[i] = h[p]!;
      hs[i] = hs[p]!;
      i = p;
    }
    h[i] = e;
    hs[i] = seq;
  }
  private pop(): void {
    const h = this.heap;
    const hs = this.heapSeq;
    const last = h.pop()!;
    const lastSeq = hs.pop()!;
    const n = h.length;
    if (n === 0) return;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      let mAt = last.at;
      let mSeq = lastSeq;
      if (l < n && less(h[l]!.at, hs[l]!, mAt, mSeq)) (m = l, mAt = h[l]!.at, mSeq = hs[l]!);
      if (r < n && less(h[r]!.at, hs[r]!, mAt, mSeq)) m = r;
      if (m === i) break;
      h[i] = h[m]!;
      hs[i] = hs[m]!;
      i = m;
    }
    h[i] = last;
    hs[i] = lastSeq;
  }
  /** Drops the empty slots (the heap drops its stale entries when they reach the top or at a rebuild). */
  private sweep(): void {
    for (const [k, slot] of [...this.map]) if (!slot.e) this.map.delete(k);
  }
  /** Drops the stale entries: the heap again holds one entry per live key. */
  private rebuild(): void {
    const live: Slot[] = [];
    for (const slot of this.map.values()) if (slot.e) live.push(slot);
    live.sort((a, b) => (less(a.e!.at, a.seq, b.e!.at, b.seq) ? -1 : less(b.e!.at, b.seq, a.e!.at, a.seq) ? 1 : 0));
    // a sorted array is a valid min-heap
    this.heap = live.map((s) => s.e!);
    this.heapSeq = live.map((s) => s.seq);
  }
}

/** (at, seq) before (bAt, bSeq): earlier due time, then first inserted. */
function less(at: number, seq: number, bAt: number, bSeq: number): boolean {
  return at < bAt || (at === bAt && seq < bSeq);
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

  /**
   * Removes and returns the earliest key due strictly before `before` (or at it when inclusive):
   * the queue's own entry, never changed once made (no copy, no closure per call — the replay
   * asks before every event).
   */
  next(before: number, inclusive = false): { readonly key: string; readonly at: number } | undefined {
    let best: Entry | undefined;
    const qTop = this.queued.top();
    if (qTop && (inclusive ? qTop.at <= before : qTop.at < before)) best = qTop;
    const wTop = this.waiting.top();
    if (wTop && (inclusive ? wTop.at <= before : wTop.at < before) && (best === undefined || wTop.at < best.at)) {
      this.waiting.delete(wTop.key);
      // A queued entry for the same key at or before this time is merged into this sync.
      const q = this.queued.get(wTop.key);
      if (q !== undefined && q <= wTop.at) this.queued.delete(wTop.key);
      return wTop;
    }
    if (best === undefined) return undefined;
    this.queued.delete(best.key);
    return best;
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
