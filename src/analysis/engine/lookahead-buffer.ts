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
 * The owner's standing of each buffered pod event (for the view alignment's look-ahead reads,
 * view-alignment.ts `scanAhead`): its *standing* is the controllerRef UID of a pod the owner
 * kind's status counts (`OwnerStatusCount.counts`), ORPHAN for a counted pod without one, none
 * for a pod not counted or DELETED. A pod event whose standing differs from the previous event
 * of the same pod (in input order; none before its first) is a *turn*, posted under `podt:NS`.
 * A read that asks, per owner, which pods join or leave it (isMine ≠ wasMine against the model's
 * cache) only needs the turns, plus every event of the pods whose cached standing differs from
 * that of their last delivered event (`divergedPods`, kept exact by watching the model's pod
 * store, `trackPods`): any other event repeats the standing of an earlier buffered event of its
 * pod, or of the cache — no new answer. Exact only while the buffer is in `at` order
 * (`sortedByAt`, so a read's end is a binary search); the alignment scans otherwise.
 *
 * Cost: O(keys) per push (one map lookup per key, one per pod event for its pod's record) and
 * per shift (no lookup: each buffered event holds its postings and its pod's record); a `merged`
 * read is O(matches · keys). A key whose postings empty, and a pod with no buffered event and no
 * standing, are swept when the buffer compacts (every ≥ 4,096 shifts), not one by one: a pod's
 * postings are reused across its visits to the look-ahead instead of built and dropped each time.
 * Memory: the buffered events, one record per live counted pod, and the keys and pods seen since
 * the last compaction.
 *
 * Pure data structure: no I/O, no clock.
 */
import type { TimelineEvent } from '../../timeline/event.js';
import { controllerRefOf, objectKey, type Pod, type ReplicaSet } from '../../model/objects.js';
import type { OwnerStatusCount } from '../../model/controller/controller.js';
import type { PodStore } from '../../model/pod-store.js';
import { REPLICA_SET_OWNER, REPLICA_SET_STATUS_COUNT, type EngineOwnerKind } from './engine-controller.js';

/**
 * The index keys of an event (a superset: the oracle's own filters still apply):
 * - `pod:NS/NAME` — an observed pod, or a pod patch by the ReplicaSet controller (adopt/release);
 * - `own:UID` — an observed pod whose controllerRef is a ReplicaSet with this UID;
 * - `rs:NS/NAME` — an observed ReplicaSet;
 * - `ev:NS/NAME` — a core Event about a ReplicaSet;
 * - `rscw:VERB:NS` — a pod create/delete (no subresource) by the ReplicaSet controller, and
 *   `rscw:delete` for its deletes in every namespace;
 * - `stw:NS/NAME` — a write to the status subresource of an object NS/NAME (any resource, any actor);
 * - `podt:NS` — a pod event of NS that turns its pod's standing (posted by the buffer, see the header).
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
  if (e.type === 'write' && e.subresource === 'status') return [`stw:${e.namespace ?? ''}/${e.name ?? ''}`];
  if (e.type !== 'write' || e.resource !== 'pods' || e.actor?.controller !== owner.component) return undefined;
  if (e.verb === 'patch') return [`pod:${e.namespace}/${e.name}`];
  if (e.subresource) return undefined;
  if (e.verb === 'delete') return [`rscw:delete:${e.namespace}`, 'rscw:delete'];
  return [`rscw:${e.verb}:${e.namespace}`];
}

/** What `keyed` answers for a key with no buffered event. */
const NO_EVENTS: readonly TimelineEvent[] = Object.freeze([]);

/** Positions (ascending) of one key's buffered events, consumed from the front. */
interface Postings {
  pos: number[];
  head: number;
}

/** One pod (objectKey) of the look-ahead: its index keys, made once, and its standings. */
interface PodTrack {
  readonly key: string;
  /** `pod:NS/NAME` and `podt:NS`. */
  readonly podKey: string;
  readonly turnKey: string;
  /** The controllerRef UID `ownKey` was made for (`own:UID`). */
  ownUid: string | undefined;
  ownKey: string;
  /** Standing of its last pushed event, of its last delivered (shifted) event; undefined: none. */
  pushed: string | undefined;
  shifted: string | undefined;
  /** Its events in the buffer. */
  pending: number;
}

/** What the view alignment reads of the look-ahead through the index (view-alignment.ts `scanAhead`). */
export type LookaheadIndex = Pick<LookaheadBuffer, 'sortedByAt' | 'positionAfter' | 'endPosition' | 'at' | 'merged' | 'divergedPods'>;

/** The standing of a counted pod without a controllerRef (never a UID: UIDs are compared as strings, this holds a NUL). */
export const ORPHAN = '\u0000orphan';
/** The standing of a pod whose count could not be read (a shape `counts` throws on): equal to no other. */
const UNREADABLE = '\u0000unreadable';

/** When a write's completion-or-receipt time (what the oracle's call bounds compare) is later than its `at`. */
const callTime = (e: TimelineEvent): number => (e.type === 'write' ? (e.receivedAt ?? e.at) : e.at);

export class LookaheadBuffer {
  private items: TimelineEvent[] = [];
  /** Per buffered event: the postings it is in (its keys', see keysOf). */
  private keys: Array<Postings[] | undefined> = [];
  private head = 0;
  /** Absolute position of items[0]. */
  private base = 0;
  private readonly postings = new Map<string, Postings>();
  /** Last absolute position whose event is earlier than the one before it (−1: none). */
  private lastInversion = -1;
  /** Last absolute position of a write received after its `at` (−1: none). */
  private lastLateReceipt = -1;
  /** Per buffered event: its pod's record and its standing, for a pod event; undefined otherwise. */
  private podTracks: Array<PodTrack | undefined> = [];
  private standings: Array<string | undefined> = [];
  /** Pod key (objectKey) → its record (absent: no buffered event and no standing since the last sweep). */
  private readonly pods = new Map<string, PodTrack>();
  /** Pods whose standing in the model's cache differs from their record's `shifted` (`trackPods`). */
  private readonly diverged = new Set<string>();
  /** The model's pod cache, once tracked. */
  private store: PodStore | undefined;
  private readonly count: OwnerStatusCount<ReplicaSet>;

  /** `owner`: the kind whose pods, Events and writes are indexed by owner (keysOf), and whose status count gives a pod's standing. */
  constructor(private readonly owner: EngineOwnerKind = REPLICA_SET_OWNER) {
    this.count = owner.statusCount ?? REPLICA_SET_STATUS_COUNT;
  }

  /** A pod's standing (see the header): its controller's UID if counted, ORPHAN if counted without one, else undefined. */
  private standingOf(p: Pod, ref = controllerRefOf(p.metadata)): string | undefined {
    try {
      if (!this.count.counts(p)) return undefined;
      return ref?.uid ?? ORPHAN;
    } catch {
      return UNREADABLE;
    }
  }

  /**
   * Keeps `divergedPods` exact against the model's pod cache: re-checked for a pod whenever the
   * cache changes it (PodStore.watch) and whenever one of its events is delivered (`shift`).
   */
  trackPods(store: PodStore): void {
    this.store = store;
    store.watch((k) => this.recheck(k));
    for (const k of store.keys()) this.recheck(k);
  }

  private recheck(pk: string): void {
    const p = this.store!.get(pk);
    const cached = p ? this.standingOf(p) : undefined;
    if (cached !== this.pods.get(pk)?.shifted) this.diverged.add(pk);
    else this.diverged.delete(pk);
  }

  /** Pods (objectKey) whose cached standing differs from that of their last delivered event; undefined until `trackPods`. */
  divergedPods(): ReadonlySet<string> | undefined {
    return this.store ? this.diverged : undefined;
  }

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
    let ps: Postings[] | undefined;
    let tr: PodTrack | undefined;
    let standing: string | undefined;
    if (e.type === 'observed' && e.kind === 'Pod') {
      // keysOf's keys for a pod, made once per pod (its record) instead of per event.
      const meta = e.object.metadata;
      const pk = objectKey(meta);
      tr = this.pods.get(pk);
      if (!tr) {
        tr = { key: pk, podKey: `pod:${pk}`, turnKey: `podt:${meta.namespace ?? ''}`, ownUid: undefined, ownKey: '', pushed: undefined, shifted: undefined, pending: 0 };
        this.pods.set(pk, tr);
      }
      tr.pending++;
      const ref = controllerRefOf(meta);
      ps = [this.postingsOf(tr.podKey)];
      if (ref && ref.kind === this.owner.kind) {
        if (tr.ownUid !== ref.uid || tr.ownUid === undefined) {
          tr.ownUid = ref.uid;
          tr.ownKey = `own:${ref.uid}`;
        }
        ps.push(this.postingsOf(tr.ownKey));
      }
      standing = e.watchType === 'DELETED' ? undefined : this.standingOf(e.object, ref);
      if (standing !== tr.pushed) ps.push(this.postingsOf(tr.turnKey));
      tr.pushed = standing;
    } else {
      const ks = keysOf(e, this.owner);
      if (ks) ps = ks.map((k) => this.postingsOf(k));
    }
    this.items.push(e);
    this.keys.push(ps);
    this.podTracks.push(tr);
    this.standings.push(standing);
    if (ps) for (const p of ps) p.pos.push(pos);
  }

  private postingsOf(k: string): Postings {
    let p = this.postings.get(k);
    if (!p) this.postings.set(k, (p = { pos: [], head: 0 }));
    return p;
  }

  shift(): TimelineEvent | undefined {
    if (this.head >= this.items.length) return undefined;
    const x = this.items[this.head]!;
    const ps = this.keys[this.head];
    const tr = this.podTracks[this.head];
    if (tr !== undefined) {
      tr.pending--;
      const standing = this.standings[this.head];
      // The cache's side is re-checked on every change of it: only a new standing here can change the answer.
      if (standing !== tr.shifted) {
        tr.shifted = standing;
        if (this.store) this.recheck(tr.key);
      }
    }
    if (ps) {
      for (const p of ps) {
        p.head++;
        if (p.head >= p.pos.length) {
          // Empty: kept (and reused) until the next sweep.
          p.pos.length = 0;
          p.head = 0;
        } else if (p.head > 1024 && p.head * 2 > p.pos.length) {
          p.pos = p.pos.slice(p.head);
          p.head = 0;
        }
      }
    }
    this.head++;
    if (this.head > 4096 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.keys = this.keys.slice(this.head);
      this.podTracks = this.podTracks.slice(this.head);
      this.standings = this.standings.slice(this.head);
      this.base += this.head;
      this.head = 0;
      this.sweep();
    }
    return x;
  }

  /** Drops the keys without buffered events and the pods without buffered events or standing. */
  private sweep(): void {
    for (const [k, p] of this.postings) if (p.pos.length === 0) this.postings.delete(k);
    for (const [k, tr] of this.pods) if (tr.pending === 0 && tr.pushed === undefined && tr.shifted === undefined) this.pods.delete(k);
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
   * `stop.after`. Only valid while `ordered()`. A key with no buffered event answers with a
   * shared empty array (no generator: the view alignment asks for the controller's deletes
   * before every event, and a watch recording has none).
   */
  keyed(key: string, from: number, to: number, stop?: { after: number; by: 'at' | 'call' }): Iterable<TimelineEvent> {
    const p = this.postings.get(key);
    if (!p || p.head >= p.pos.length) return NO_EVENTS;
    return this.keyedIn(p, from, to, stop);
  }

  /** `keyed` for a key with buffered events. */
  private *keyedIn(p: Postings, from: number, to: number, stop?: { after: number; by: 'at' | 'call' }): Generator<TimelineEvent> {
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

  /** True when the buffered events from the head on are in `at` order (`positionAfter` is exact). */
  sortedByAt(): boolean {
    return this.lastInversion <= this.base + this.head;
  }

  /** Absolute position of the first buffered event with `at` > t (the end if none): where a scan from the head stops. Only valid while `sortedByAt()`. */
  positionAfter(t: number): number {
    return this.search(t, true);
  }

  /** Absolute position one past the last buffered event. */
  get endPosition(): number {
    return this.base + this.items.length;
  }

  /** The buffered event at absolute position `pos`. */
  at(pos: number): TimelineEvent {
    return this.items[pos - this.base]!;
  }

  /**
   * Absolute positions of the buffered events carrying any of `keys`, from the head, ascending,
   * each once: a merge of the keys' postings (the caller stops where its scan would).
   */
  *merged(keys: readonly string[]): Generator<number> {
    const lists: Postings[] = [];
    for (const k of keys) {
      const p = this.postings.get(k);
      if (p) lists.push(p);
    }
    if (lists.length === 1) {
      const p = lists[0]!;
      for (let i = p.head; i < p.pos.length; i++) yield p.pos[i]!;
      return;
    }
    const next = lists.map((p) => p.head);
    let last = -1;
    while (true) {
      let best = -1;
      let min = Infinity;
      for (let j = 0; j < lists.length; j++) {
        const p = lists[j]!;
        const v = next[j]! < p.pos.length ? p.pos[next[j]!]! : Infinity;
        if (v < min) {
          min = v;
          best = j;
        }
      }
      if (best < 0) return;
      next[best]!++;
      if (min === last) continue;
      last = min;
      yield min;
    }
  }
}
