/**
 * The replay engine's look-ahead (events up to the match window ahead of the one being
 * delivered) with an index by object, so the evidence oracle reads the few upcoming events about
 * one pod or ReplicaSet instead of scanning the whole window (60 s of an audit log by default)
 * several times per API call it answers.
 *
 * Each buffered event gets an absolute position. `keysOf` names the objects an event can be
 * evidence for (the oracle's filters then decide as before); per key the buffer keeps the
 * positions of its events. Window bounds are found by binary search on `at`, which is exact only
 * while the buffered events are in `at` order and no write was received after it completed:
 * `ordered()` says so, and the oracle falls back to its full scan when it is false (the answer is
 * the same either way; test/analysis/lookahead-buffer.test.ts compares both).
 *
 * Pure data structure: no I/O, no clock.
 */
import type { TimelineEvent } from '../../timeline/event.js';
import { REPLICA_SET_OWNER, type EngineOwnerKind } from './engine-controller.js';

/**
 * The index keys of an event (a superset: the oracle's own filters still apply):
 * - `pod:NS/NAME` — an observed pod, or a pod patch by the ReplicaSet controller (adopt/release);
 * - `own:UID` — an observed pod whose controllerRef is a ReplicaSet with this UID;
 * - `rs:NS/NAME` — an observed ReplicaSet;
 * - `ev:NS/NAME` — a core Event about a ReplicaSet;
 * - `rscw:VERB:NS` — a pod create/delete (no subresource) by the ReplicaSet controller, and
 *   `rscw:delete` for its deletes in every namespace.
 */
export function keysOf(e: TimelineEvent, owner: EngineOwnerKind = REPLICA_SET_OWNER): string[] | undefined {
  if (e.type === 'observed') {
    if (e.kind === 'Pod') {
      const k = `pod:${e.object.metadata.namespace ?? ''}/${e.object.metadata.name ?? ''}`;
      const ref = (e.object.metadata.ownerReferences ?? []).find((r) => r.controller === true);
      return ref && ref.kind === owner.kind ? [k, `own:${ref.uid}`] : [k];
    }
    if (e.kind === 'ReplicaSet') return [`rs:${e.object.metadata.namespace ?? ''}/${e.object.metadata.name ?? ''}`];
    if (e.kind === 'Event') {
      const io = e.object.involvedObject;
      return io && io.kind === owner.kind ? [`ev:${io.namespace}/${io.name}`] : undefined;
    }
    return undefined;
  }
  if (e.type !== 'write' || e.resource !== 'pods' || e.actor?.controller !== owner.component) return undefined;
  if (e.verb === 'patch') return [`pod:${e.namespace}/${e.name}`];
  if (e.subresource) return undefined;
  if (e.verb === 'delete') return [`rscw:delete:${e.namespace}`, 'rscw:delete'];
  return [`rscw:${e.verb}:${e.namespace}`];
}

/** Positions (ascending) of one key's buffered events, consumed from the front. */
interface Postings {
  pos: number[];
  head: number;
}

/** When a write's completion-or-receipt time (what the oracle's call bounds compare) is later than its `at`. */
const callTime = (e: TimelineEvent): number => (e.type === 'write' ? (e.receivedAt ?? e.at) : e.at);

export class LookaheadBuffer {
  private items: TimelineEvent[] = [];
  private keys: Array<string[] | undefined> = [];
  private head = 0;
  /** Absolute position of items[0]. */
  private base = 0;
  private readonly postings = new Map<string, Postings>();
  /** Last absolute position whose event is earlier than the one before it (−1: none). */
  private lastInversion = -1;
  /** Last absolute position of a write received after its `at` (−1: none). */
  private lastLateReceipt = -1;

  /** `owner`: the kind whose pods, Events and writes are indexed by owner (keysOf). */
  constructor(private readonly owner: EngineOwnerKind = REPLICA_SET_OWNER) {}

  get length(): number {
    return this.items.length - this.head;
  }
  peek(): TimelineEvent | undefined {
    return this.items[this.head];
  }
  last(): TimelineEvent | undefined {
    return this.items[this.items.length - 1];
  }

  push(e: TimelineEvent): void {
    const pos = this.base + this.items.length;
    const prev = this.items[this.items.length - 1];
    if (prev && e.at < prev.at) this.lastInversion = pos;
    if (callTime(e) > e.at) this.lastLateReceipt = pos;
    const ks = keysOf(e, this.owner);
    this.items.push(e);
    this.keys.push(ks);
    if (!ks) return;
    for (const k of ks) {
      let p = this.postings.get(k);
      if (!p) this.postings.set(k, (p = { pos: [], head: 0 }));
      p.pos.push(pos);
    }
  }

  shift(): TimelineEvent | undefined {
    if (this.head >= this.items.length) return undefined;
    const x = this.items[this.head]!;
    const ks = this.keys[this.head];
    if (ks) {
      for (const k of ks) {
        const p = this.postings.get(k)!;
        p.head++;
        if (p.head >= p.pos.length) this.postings.delete(k);
        else if (p.head > 1024 && p.head * 2 > p.pos.length) {
          p.pos = p.pos.slice(p.head);
          p.head = 0;
        }
      }
    }
    this.head++;
    if (this.head > 4096 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.keys = this.keys.slice(this.head);
      this.base += this.head;
      this.head = 0;
    }
    return x;
  }

  /** Upcoming events in order, starting with the next unprocessed one. */
  *iterate(): Generator<TimelineEvent> {
    for (let i = this.head; i < this.items.length; i++) yield this.items[i]!;
  }

  /** True when the buffered events are in `at` order and no write's receipt is later than its `at`. */
  ordered(): boolean {
    const first = this.base + this.head;
    // An inversion at position p is between p−1 and p: harmless once p−1 has left.
    return this.lastInversion <= first && this.lastLateReceipt < first;
  }

  /** First absolute position (from the head) whose event has `at` > t (`strict`) or ≥ t; the end if none. */
  private search(t: number, strict: boolean): number {
    let lo = this.head;
    let hi = this.items.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const a = this.items[mid]!.at;
      if (strict ? a > t : a >= t) hi = mid;
      else lo = mid + 1;
    }
    return this.base + lo;
  }

  /**
   * Events carrying `key` among those a scan of the buffer would reach: from the first with
   * `at` ≥ `from`, before the first with `at` > `to`, and — when `stop` is given — before the
   * first of those whose time (`'at'`, or `'call'`: a write's receipt, else `at`) exceeds
   * `stop.after`. Only valid while `ordered()`.
   */
  *keyed(key: string, from: number, to: number, stop?: { after: number; by: 'at' | 'call' }): Generator<TimelineEvent> {
    const p = this.postings.get(key);
    if (!p) return;
    const start = this.search(from, false);
    let end = this.search(to, true);
    if (stop) {
      // While ordered, a write's receipt is never later than its `at`: nothing before the first
      // `at` > stop.after can exceed it; from there, the first event that does.
      let q = Math.max(start, this.search(stop.after, true));
      if (stop.by === 'call') while (q < end && callTime(this.items[q - this.base]!) <= stop.after) q++;
      if (q < end) end = q;
    }
    // Binary search for the key's first position ≥ start.
    let lo = p.head;
    let hi = p.pos.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (p.pos[mid]! >= start) hi = mid;
      else lo = mid + 1;
    }
    for (let i = lo; i < p.pos.length; i++) {
      const pos = p.pos[i]!;
      if (pos >= end) return;
      yield this.items[pos - this.base]!;
    }
  }
}
