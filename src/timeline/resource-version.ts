/**
 * resourceVersion as an order: the apiserver's (etcd's) revisions are decimal integers that grow
 * with every write, so within one apiserver two of them order the writes. Clients must treat them
 * as opaque; kexp compares them only where they are canonical decimal strings (digits, no leading
 * zero, at most 30 characters) and says nothing otherwise.
 *
 * Contract: `canonicalRevision(rv)` is rv when it is canonical, else undefined;
 * `lessRevision(a, b)` is a < b for canonical strings. Cost: O(length), no allocation (no BigInt:
 * both run once per event on the replay's hot path, in the causal order and the stalled-watch stage).
 * `lowestHeldBelow` is the pick both stages make when they release a held change: the lowest
 * revision another watch holds within a lag window after it; O(watches), no allocation.
 */
import type { Fifo } from './fifo.js';

export function canonicalRevision(rv: unknown): string | undefined {
  if (typeof rv !== 'string' || rv.length === 0 || rv.length > 30 || (rv.length > 1 && rv.charCodeAt(0) === 48)) return undefined;
  for (let i = 0; i < rv.length; i++) {
    const c = rv.charCodeAt(i);
    if (c < 48 || c > 57) return undefined;
  }
  return rv;
}

/** a < b for canonical decimal strings. */
export function lessRevision(a: string, b: string): boolean {
  return a.length !== b.length ? a.length < b.length : a < b;
}

/** A change an ordering stage holds: its event's receive time and file, its canonical revision (comparable changes), whether it was released. */
export interface HeldChange {
  e: { at: number; source: { file: string } };
  rv?: string;
  /** Its revision counter (event-counter.ts): changes of two groups are never compared. */
  group?: number;
  taken: boolean;
}

/** Drops the released changes at the front of `q`. */
export function dropTaken(q: Fifo<HeldChange>): void {
  while (q.length && q.peek()!.taken) q.shift();
}

/**
 * The held change of lowest revision below `head`'s (a comparable change) among the first held
 * change of every watch but `own` — each watch delivers in revision order, so its first held
 * change is its lowest — received more than `minLagMs` and at most `maxLagMs` after `head`, of
 * `head`'s revision group; with `sameFile`, of `head`'s input file only. Undefined: none, `head` goes first.
 */
export function lowestHeldBelow<S extends HeldChange>(
  watches: ReadonlyArray<{ key: string; q: Fifo<S> }>,
  head: S,
  own: string | undefined,
  minLagMs: number,
  maxLagMs: number,
  sameFile: boolean,
): S | undefined {
  let pick: S | undefined;
  for (let i = 0; i < watches.length; i++) {
    const { key, q } = watches[i]!;
    if (key === own) continue;
    dropTaken(q);
    const f = q.peek();
    if (!f) continue;
    const lag = f.e.at - head.e.at;
    if (lag <= minLagMs || lag > maxLagMs || f.group !== head.group || (sameFile && f.e.source.file !== head.e.source.file)) continue;
    if (lessRevision(f.rv!, pick?.rv ?? head.rv!)) pick = f;
  }
  return pick;
}
