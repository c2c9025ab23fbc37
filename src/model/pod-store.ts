/**
 * The model's pod informer cache (`namespace/name` → Pod) with the indexes a sync needs, so a
 * sync touches only its candidate pods instead of every cached pod.
 *
 * Mirrors the pod informer's indexer in kube-controller-manager: client-go's threadSafeMap keeps
 * its indices up to date inside every Add/Update/Delete (updateIndices), and the ReplicaSet
 * controller reads the `podController` index (controller.AddPodControllerIndexer,
 * PodControllerIndexKey and FilterPodsByOwner in pkg/controller/controller_utils.go, v1.37.2):
 * pods keyed by their controllerRef, plus the namespace's orphans under the bare namespace.
 *
 * Kept here: pods by namespace, by namespace + controllerRef UID, and orphans (no controllerRef)
 * by namespace. Every `set`/`delete` moves a pod between buckets when its labels don't matter
 * but its ownerReferences do (a controllerRef added, removed or changed; any other update replaces
 * the pod in place), so the store is a Map
 * subclass: code that writes the cache directly (tests do) keeps the indexes right too.
 *
 * Order. Go's indexer returns pods in map order (random); the model fixed its order long ago as
 * the cache's insertion order (a key keeps its place when updated, goes to the end when deleted
 * and added again), and rankings and adoption tables follow that order. The buckets preserve it:
 * every key carries the sequence number of its insertion, a bucket that gains a key older than
 * its newest is re-sorted when next read, and the candidate list merges the owner's and the
 * orphans' buckets by sequence — exactly the subsequence of the full scan's order
 * (test/model/pod-store.test.ts compares both on random populations).
 *
 * Labels. `labelled(ns, name, value)` gives the keys of a namespace's pods carrying one label, so
 * a selector's pods are read from its rarest matchLabels pair instead of a walk of the namespace
 * (the ReplicaSet's related pods for the scale-down ranking); built on first use, then kept.
 *
 * Counted pods. `counter(pred)` keeps, per namespace + controllerRef UID, how many cached pods
 * satisfy `pred` (a pure function of the pod: a kind's status count, e.g. active pods), updated in
 * every `set`/`delete` — so "how many of this owner's pods count" is O(1) instead of a walk of its
 * bucket. Built from the cache on the first call for a predicate (O(pods)), then O(1) per change
 * (the predicate evaluated on the old and the new pod).
 */
import { controllerRefOf, sameLabels, type Pod } from './objects.js';

interface Entry {
  seq: number;
  pod: Pod;
}

/** Pods of one index value, iterable in cache order. */
class Bucket {
  readonly items = new Map<string, Entry>();
  private maxSeq = -1;
  private ordered = true;

  put(key: string, e: Entry): void {
    const had = this.items.has(key);
    this.items.set(key, e);
    if (had) return;
    if (e.seq < this.maxSeq) this.ordered = false;
    else this.maxSeq = e.seq;
  }

  remove(key: string): void {
    this.items.delete(key);
  }

  /** Entries in cache order (re-sorting once after an out-of-order insertion). */
  entries(): Map<string, Entry> {
    if (!this.ordered) {
      const sorted = [...this.items].sort((a, b) => a[1].seq - b[1].seq);
      this.items.clear();
      for (const [k, e] of sorted) this.items.set(k, e);
      this.ordered = true;
    }
    return this.items;
  }
}

type Ns = string | undefined;

/** Nested map helper: the bucket under (a, b), created on demand. */
function bucketOf<A, B>(m: Map<A, Map<B, Bucket>>, a: A, b: B, create: boolean): Bucket | undefined {
  let inner = m.get(a);
  if (!inner) {
    if (!create) return undefined;
    m.set(a, (inner = new Map()));
  }
  let bk = inner.get(b);
  if (!bk && create) inner.set(b, (bk = new Bucket()));
  return bk;
}

const EMPTY: ReadonlyMap<string, Entry> = new Map();
const NO_KEYS: ReadonlySet<string> = new Set();

/** How many cached pods each namespace + controllerRef UID has that satisfy one predicate. */
export class PodCounter {
  private readonly n = new Map<Ns, Map<string | undefined, number>>();

  constructor(readonly pred: (p: Pod) => boolean) {}

  /** Adds `sign` for `p` when it satisfies the predicate and has a controllerRef. */
  add(p: Pod, sign: 1 | -1): void {
    const ref = controllerRefOf(p.metadata);
    if (!ref || !this.pred(p)) return;
    const ns = p.metadata.namespace;
    let inner = this.n.get(ns);
    if (!inner) this.n.set(ns, (inner = new Map()));
    const v = (inner.get(ref.uid) ?? 0) + sign;
    if (v === 0) {
      inner.delete(ref.uid);
      if (inner.size === 0) this.n.delete(ns);
    } else inner.set(ref.uid, v);
  }

  /**
   * `old` replaced by `p` in the cache: add(old, −1) then add(p, 1), skipped when that changes
   * nothing — the usual update (same namespace and controllerRef UID, the predicate's answer
   * unchanged), which would otherwise delete and re-make an owner's entry whose count is 1.
   */
  replace(old: Pod, p: Pod): void {
    const a = controllerRefOf(old.metadata);
    const b = controllerRefOf(p.metadata);
    if (a && b && a.uid === b.uid && old.metadata.namespace === p.metadata.namespace) {
      let same: boolean;
      try {
        same = this.pred(old) === this.pred(p);
      } catch {
        same = false; // the two adds below throw as they did
      }
      if (same) return;
    }
    this.add(old, -1);
    this.add(p, 1);
  }

  /** Forgets every count (the cache was cleared). */
  reset(): void {
    this.n.clear();
  }

  /** Pods in `ns` whose controllerRef has this UID and that satisfy the predicate. */
  count(ns: Ns, uid: string | undefined): number {
    return this.n.get(ns)?.get(uid) ?? 0;
  }
}

export class PodStore extends Map<string, Pod> {
  private nextSeq = 0;
  private readonly entry = new Map<string, Entry>();
  private readonly byNamespace = new Map<Ns, Bucket>();
  /** namespace → controllerRef UID → pods it controls. */
  private readonly byController = new Map<Ns, Map<string | undefined, Bucket>>();
  private readonly orphans = new Map<Ns, Bucket>();
  /**
   * Per namespace, `name\u0000value` of each own label → the keys of the pods carrying it;
   * undefined until the first `labelled` call builds it, kept in every `set`/`delete` after that.
   */
  private byLabel: Map<Ns, Map<string, Set<string>>> | undefined;
  /** The counters `counter` made, kept up to date in set/delete. */
  private readonly counters: PodCounter[] = [];
  /** Called after every change with the key changed (`watch`). */
  private readonly watchers: Array<(key: string) => void> = [];

  /**
   * Calls `fn` with the key of every pod set or deleted (each key a `clear` removes too), after
   * the change: for an index kept beside the cache (analysis/engine/lookahead-buffer.ts).
   */
  watch(fn: (key: string) => void): void {
    this.watchers.push(fn);
  }

  /**
   * The counter of cached pods satisfying `pred` per namespace + controllerRef UID (see the
   * header); the same counter for the same predicate function. `pred` must read only the pod.
   */
  counter(pred: (p: Pod) => boolean): PodCounter {
    let c = this.counters.find((x) => x.pred === pred);
    if (c) return c;
    c = new PodCounter(pred);
    for (const p of super.values()) c.add(p, 1);
    this.counters.push(c);
    return c;
  }

  override set(key: string, pod: Pod): this {
    this.put(key, pod);
    for (const w of this.watchers) w(key);
    return this;
  }

  private put(key: string, pod: Pod): void {
    // Map's constructor calls set before the fields exist when given entries; PodStore is
    // always constructed empty.
    const old = this.entry.get(key);
    for (const c of this.counters) {
      if (old) c.replace(old.pod, pod);
      else c.add(pod, 1);
    }
    if (this.byLabel && !(old && old.pod.metadata.namespace === pod.metadata.namespace && sameLabels(old.pod.metadata.labels, pod.metadata.labels))) {
      if (old) this.indexLabels(key, old.pod, false);
      this.indexLabels(key, pod, true);
    }
    if (old) {
      // The usual update (status, labels) keeps the pod in the same buckets: replace it in place
      // (every bucket holds this entry), so no bucket loses its order.
      const before = controllerRefOf(old.pod.metadata);
      const after = controllerRefOf(pod.metadata);
      if (old.pod.metadata.namespace === pod.metadata.namespace && (before ? after !== undefined && after.uid === before.uid : after === undefined)) {
        old.pod = pod;
        super.set(key, pod);
        return;
      }
      this.unindex(key, old.pod);
    }
    const e: Entry = { seq: old ? old.seq : this.nextSeq++, pod };
    this.entry.set(key, e);
    this.index(key, e);
    super.set(key, pod);
  }

  override delete(key: string): boolean {
    const old = this.entry.get(key);
    if (old) for (const c of this.counters) c.add(old.pod, -1);
    if (old && this.byLabel) this.indexLabels(key, old.pod, false);
    if (old) {
      this.unindex(key, old.pod);
      this.entry.delete(key);
    }
    const had = super.delete(key);
    for (const w of this.watchers) w(key);
    return had;
  }

  override clear(): void {
    const keys = this.watchers.length ? [...super.keys()] : [];
    this.wipe();
    for (const k of keys) for (const w of this.watchers) w(k);
  }

  private wipe(): void {
    for (const c of this.counters) c.reset();
    this.byLabel = undefined;
    this.entry.clear();
    this.byNamespace.clear();
    this.byController.clear();
    this.orphans.clear();
    super.clear();
  }

  private index(key: string, e: Entry): void {
    const ns = e.pod.metadata.namespace;
    let b = this.byNamespace.get(ns);
    if (!b) this.byNamespace.set(ns, (b = new Bucket()));
    b.put(key, e);
    const ref = controllerRefOf(e.pod.metadata);
    if (ref) bucketOf(this.byController, ns, ref.uid, true)!.put(key, e);
    else {
      let o = this.orphans.get(ns);
      if (!o) this.orphans.set(ns, (o = new Bucket()));
      o.put(key, e);
    }
  }

  private unindex(key: string, pod: Pod): void {
    const ns = pod.metadata.namespace;
    const b = this.byNamespace.get(ns);
    b?.remove(key);
    if (b && b.items.size === 0) this.byNamespace.delete(ns);
    const ref = controllerRefOf(pod.metadata);
    if (ref) {
      const inner = this.byController.get(ns);
      const c = inner?.get(ref.uid);
      c?.remove(key);
      if (inner && c && c.items.size === 0) {
        inner.delete(ref.uid);
        if (inner.size === 0) this.byController.delete(ns);
      }
    } else {
      const o = this.orphans.get(ns);
      o?.remove(key);
      if (o && o.items.size === 0) this.orphans.delete(ns);
    }
  }

  /** Every pod whose metadata.namespace is `ns`, in cache order. */
  *inNamespace(ns: Ns): Generator<Pod> {
    const b = this.byNamespace.get(ns);
    if (!b) return;
    for (const e of b.entries().values()) yield e.pod;
  }

  private indexLabels(key: string, pod: Pod, add: boolean): void {
    const labels = pod.metadata.labels as Record<string, unknown> | null | undefined;
    if (labels == null) return;
    const ns = pod.metadata.namespace;
    let m = this.byLabel!.get(ns);
    if (!m) {
      if (!add) return;
      this.byLabel!.set(ns, (m = new Map()));
    }
    for (const k of Object.keys(labels)) {
      const lk = `${k}\u0000${String(labels[k])}`;
      let keys = m.get(lk);
      if (add) {
        if (!keys) m.set(lk, (keys = new Set()));
        keys.add(key);
      } else if (keys) {
        keys.delete(key);
        if (keys.size === 0) m.delete(lk);
      }
    }
    if (!add && m.size === 0) this.byLabel!.delete(ns);
  }

  /**
   * Keys of the pods in `ns` that have the own label `name` with the value `value` (compared as
   * strings), in no particular order: a superset of the pods a selector requiring name=value
   * matches, for a caller that applies the selector itself. The index is built from the cache on
   * the first call (O(pods)) and kept in every change after it (O(labels) when a pod's labels or
   * namespace change, nothing for the usual update that keeps them).
   */
  labelled(ns: Ns, name: string, value: string): ReadonlySet<string> {
    if (!this.byLabel) {
      this.byLabel = new Map();
      for (const [key, e] of this.entry) this.indexLabels(key, e.pod, true);
    }
    return this.byLabel.get(ns)?.get(`${name}\u0000${value}`) ?? NO_KEYS;
  }

  /** Pods in `ns` without a controllerRef (the index's bare-namespace key), in cache order. */
  *orphansIn(ns: Ns): Generator<Pod> {
    const b = this.orphans.get(ns);
    if (!b) return;
    for (const e of b.entries().values()) yield e.pod;
  }

  /** Number of pods in `ns`. */
  countInNamespace(ns: Ns): number {
    return this.byNamespace.get(ns)?.items.size ?? 0;
  }

  /** Number of pods in `ns` whose controllerRef has this UID (any phase). */
  countControlledBy(ns: Ns, uid: string | undefined): number {
    return bucketOf(this.byController, ns, uid, false)?.items.size ?? 0;
  }

  /** Pods in `ns` whose controllerRef has this UID, in cache order. */
  *controlledBy(ns: Ns, uid: string | undefined): Generator<Pod> {
    const b = bucketOf(this.byController, ns, uid, false);
    if (!b) return;
    for (const e of b.entries().values()) yield e.pod;
  }

  /**
   * Pods in `ns` controlled by `uid` (those `keep` accepts) together with the namespace's orphans,
   * in cache order: FilterPodsByOwner(…, includeOrphanedPods=true) over the podController index.
   */
  ownedAndOrphans(ns: Ns, uid: string | undefined, keep?: (p: Pod) => boolean): Pod[] {
    const owned = bucketOf(this.byController, ns, uid, false)?.entries() ?? EMPTY;
    const orph = this.orphans.get(ns)?.entries() ?? EMPTY;
    const out: Pod[] = [];
    const a = owned.values();
    const b = orph.values();
    let x = a.next();
    let y = b.next();
    // Both buckets are in sequence order: merge them.
    while (!x.done || !y.done) {
      if (!x.done && (y.done || x.value.seq < y.value.seq)) {
        if (!keep || keep(x.value.pod)) out.push(x.value.pod);
        x = a.next();
      } else {
        out.push(y.value!.pod);
        y = b.next();
      }
    }
    return out;
  }
}
