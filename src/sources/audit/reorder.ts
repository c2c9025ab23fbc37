/**
 * Bounded reorder buffer: a min-heap on (at, seq) that releases an item once the newest
 * time seen is `windowMs` past it. Used because an apiserver writes audit events when each
 * request completes, from many goroutines, so a file is nearly but not exactly in
 * stageTimestamp order; a window of a couple of seconds restores the order without holding
 * the whole file. An item older than what was already released is "late": it is released
 * immediately (out of order) and counted, never dropped.
 */
export interface Timed {
  at: number;
}

interface Entry<T> {
  at: number;
  seq: number;
  item: T;
}

export class ReorderBuffer<T extends Timed> {
  private heap: Entry<T>[] = [];
  private seq = 0;
  private newest = -Infinity;
  private released = -Infinity;
  /** Items that arrived after a later item had already been released. */
  late = 0;
  /** Largest lateness seen (ms): how far a late item lies before the newest item already released. */
  maxLateMs = 0;
  /**
   * Largest distance of a late item before the newest item seen when it arrived (ms). A late
   * item is always more than `windowMs` behind (everything released was at least that much older
   * than the newest), so this — unlike maxLateMs — is always above the window.
   */
  maxBehindMs = 0;
  /** `source`-style tag of the first late item, for messages. */
  firstLate: T | undefined;

  constructor(public windowMs: number) {}

  get size(): number {
    return this.heap.length;
  }

  push(item: T): void {
    const at = item.at;
    if (at < this.released) {
      this.late++;
      this.maxLateMs = Math.max(this.maxLateMs, this.released - at);
      this.maxBehindMs = Math.max(this.maxBehindMs, this.newest - at);
      this.firstLate ??= item;
    }
    if (at > this.newest) this.newest = at;
    const e: Entry<T> = { at, seq: this.seq++, item };
    const h = this.heap;
    h.push(e);
    let i = h.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (less(h[p]!, e)) break;
      h[i] = h[p]!;
      i = p;
    }
    h[i] = e;
  }

  /** The oldest item if it is at least `windowMs` older than the newest (any item when `all`). */
  popReady(all = false): T | undefined {
    const h = this.heap;
    if (h.length === 0 || (!all && h[0]!.at > this.newest - this.windowMs)) return undefined;
    const e = this.pop();
    if (e.at > this.released) this.released = e.at;
    return e.item;
  }

  /** Releases, in order, every item at least `windowMs` older than the newest (all when `all`). */
  *drain(all = false): Generator<T> {
    for (let x = this.popReady(all); x !== undefined; x = this.popReady(all)) yield x;
  }

  private pop(): Entry<T> {
    const h = this.heap;
    const top = h[0]!;
    const last = h.pop()!;
    if (h.length > 0) {
      let i = 0;
      const n = h.length;
      for (;;) {
        const l = 2 * i + 1;
        if (l >= n) break;
        const r = l + 1;
        const c = r < n && less(h[r]!, h[l]!) ? r : l;
        if (less(last, h[c]!)) break;
        h[i] = h[c]!;
        i = c;
      }
      h[i] = last;
    }
    return top;
  }
}

function less<T>(a: Entry<T>, b: Entry<T>): boolean {
  return a.at < b.at || (a.at === b.at && a.seq < b.seq);
}
