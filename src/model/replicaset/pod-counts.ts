/**
 * Per-ReplicaSet counts of its candidate pods, kept up to date on every pod and ReplicaSet
 * delivery, so a sync with nothing to adopt or release reads its counts in O(1) (O(log pods) for
 * the available count under minReadySeconds) instead of listing and filtering the ReplicaSet's
 * pods; only a scale-down that picks its victims still lists them (getPodsToDelete ranks them).
 *
 * Counts what syncReplicaSet (pkg/controller/replicaset/replica_set.go, v1.37.2) would compute
 * from the cache: active pods controlled by the ReplicaSet and matching its selector (what
 * claimPods keeps, FilterActivePods), the ready ones among them (podutil.IsPodReady), the
 * terminating ones (FilterTerminatingPods / CountTerminatingPods in
 * pkg/controller/controller_utils.go), the active pods a claim would adopt or release (owned but
 * not matching, orphans matching), and the pods whose controllerRef carries the ReplicaSet's UID
 * under another kind or name (1.34.2+ lists by kind/name/UID, so those are not candidates there:
 * a sync uses the counts only when there are none). Not an upstream structure: the real
 * controller scans on every sync.
 *
 * Available pods (calculateStatus in replica_set_utils.go: podutil.IsPodAvailable with
 * minReadySeconds) depend on the clock, so they are not a count: the aggregate keeps the ready
 * pods' Ready lastTransitionTimes (podReadySince) sorted, and the available count at time `at` is
 * the number of times ≤ at − minReadySeconds (< before 1.34, IsPodAvailable's strict boundary) —
 * a binary search, exact for any `at` and any minReadySeconds. The sorted times are built on the
 * first sync that needs them (a ReplicaSet with minReadySeconds > 0) from the ReplicaSet's pods
 * and maintained on every delivery after that; a ReplicaSet without minReadySeconds never pays.
 *
 * Contract: told of every change of the pod cache before it is made (`podChanged`, with the
 * namespace of the delivered pod) and of every ReplicaSet delivery (`replicaSetChanged`), the
 * counts equal a scan of the cache at any time (test/model/replicaset/pod-counts.test.ts checks it
 * on random populations, and test/model/replicaset/counted-sync.test.ts checks the syncs made from
 * them against the scanning sync). A pod with a controllerRef counts only for the ReplicaSet of
 * that UID; an orphan only while active, for a ReplicaSet whose selector matches it, found by one
 * matchLabels pair of each selector. No I/O, no clock. Cost: per pod change O(its labels +
 * ReplicaSets of the namespace sharing a selector pair with it or without one) for an active orphan,
 * O(1) for a controlled pod (plus O(log pods) and an array move for a ready pod once its
 * ReplicaSet keeps ready times — appending, in the usual order of pods becoming ready); per
 * ReplicaSet whose UID or selector changed, O(its controlled pods + the namespace's orphans).
 */
import { controllerRefOf, type Pod, type ReplicaSet } from '../objects.js';
import { isPodActive, isPodReady, podReadySince } from '../pod-ranking.js';
import type { PodStore } from '../pod-store.js';
import { compileLabelSelector } from '../selector.js';
import type { PodCounts } from '../controller/controller.js';

/** One ReplicaSet's counts. */
export interface ReplicaSetPodAggregate {
  uid?: string;
  /** The owner kind the controller runs as. */
  kind: string;
  /** The ReplicaSet's name (a controllerRef naming another is `foreignRef`). */
  name: string;
  selectorJSON: string;
  matches: (labels: Record<string, string> | null | undefined) => boolean;
  /** Active pods controlled by the RS that match its selector (what ClaimPods keeps). */
  owned: number;
  ready: number;
  /** Active pods that would be adopted or released (owned-not-matching, orphan-matching). */
  needsClaim: number;
  terminating: number;
  /** Pods (any phase) whose controllerRef has the ReplicaSet's UID but another kind or name. */
  foreignRef: number;
  /**
   * The podReadySince times of the ready pods among `owned` (those that have one), ascending;
   * undefined until a sync asks for them (`readyTimes`).
   */
  readyTimes?: number[];
}

/** Index of the first element of the ascending `a` greater than `t` (or ≥ `t` when `orEqual`). */
function firstAbove(a: readonly number[], t: number, orEqual = false): number {
  let lo = 0;
  let hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (orEqual ? a[mid]! < t : a[mid]! <= t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * How many of the ascending ready times `a` are available at `at`: IsPodAvailable's test
 * `since + minReadyMs <= at` (inclusive, 1.34+) or `< at` (strict, before), evaluated as written
 * (monotone in `since`, so a binary search). It is also the index of the first pod not yet
 * available — the one the availability requeue waits for.
 */
export function availableCount(a: readonly number[], at: number, minReadyMs: number, inclusive: boolean): number {
  let lo = 0;
  let hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (inclusive ? a[mid]! + minReadyMs <= at : a[mid]! + minReadyMs < at) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function trackReadyTime(a: number[], p: Pod, sign: 1 | -1): void {
  const t = podReadySince(p);
  if (t === undefined) return;
  if (sign === 1) {
    if (a.length === 0 || a[a.length - 1]! <= t) a.push(t);
    else a.splice(firstAbove(a, t), 0, t);
    return;
  }
  const i = firstAbove(a, t, true);
  if (a[i] === t) a.splice(i, 1);
}

function podContribution(agg: ReplicaSetPodAggregate, p: Pod | undefined, sign: 1 | -1): void {
  if (!p) return;
  const ref = controllerRefOf(p.metadata);
  if (ref && ref.uid !== agg.uid) return;
  if (ref && (ref.kind !== agg.kind || ref.name !== agg.name)) agg.foreignRef += sign;
  const matching = agg.matches(p.metadata.labels);
  if (isPodActive(p)) {
    if (ref) {
      if (matching) {
        agg.owned += sign;
        if (isPodReady(p)) {
          agg.ready += sign;
          if (agg.readyTimes) trackReadyTime(agg.readyTimes, p, sign);
        }
      } else agg.needsClaim += sign;
    } else if (matching) agg.needsClaim += sign;
  } else if (ref && matching && p.metadata.deletionTimestamp && p.status?.phase !== 'Succeeded' && p.status?.phase !== 'Failed') {
    agg.terminating += sign;
  }
}

/**
 * The index key of a ReplicaSet's selector for orphans: its first matchLabels pair
 * (`ns\u0000name\u0000value`) — a pod the selector matches has that label with that value
 * (compileLabelSelector: every pair equal, own property) — or `ns` alone when there is no such
 * pair (no matchLabels, or a value that is not a string: then the selector is offered every orphan).
 */
function selectorPair(ns: string, rs: ReplicaSet): string {
  const ml: unknown = rs.spec?.selector?.matchLabels;
  if (ml !== null && typeof ml === 'object' && !Array.isArray(ml)) {
    for (const [name, value] of Object.entries(ml as Record<string, unknown>)) {
      if (typeof value === 'string') return `${ns}\u0000${name}\u0000${value}`;
      break;
    }
  }
  return ns;
}

export class ReplicaSetPodCounts {
  private readonly aggs = new Map<string, ReplicaSetPodAggregate>();
  private readonly rsByNamespace = new Map<string, Set<string>>();
  /** Aggregate keys by the ReplicaSet UID they count for: a pod with a controllerRef only counts for its controller's. */
  private readonly aggsByUid = new Map<string | undefined, Set<string>>();
  /**
   * Aggregate keys by one matchLabels pair of their selector (`ns\u0000name\u0000value`), or under
   * `ns` alone when the selector has none: an orphan counts only for a ReplicaSet whose selector
   * matches it, which needs that pair among its labels (see `selectorPair`).
   */
  private readonly aggsByPair = new Map<string, Set<string>>();
  private readonly pairOf = new Map<string, string>();

  /**
   * `pods` is the pod cache the counts follow (read when a ReplicaSet's aggregate is rebuilt);
   * `kind` the owner kind the controller runs as (a controllerRef of another kind is `foreignRef`).
   */
  constructor(
    private readonly pods: PodStore,
    private readonly kind = 'ReplicaSet',
  ) {}

  /** The pod cache is about to replace `old` by `cur` (either may be undefined) in namespace `ns`. */
  podChanged(ns: string, old: Pod | undefined, cur: Pod | undefined): void {
    this.contribute(ns, old, -1);
    this.contribute(ns, cur, 1);
  }

  /** Rebuilds (or drops, for undefined) the aggregate of one ReplicaSet when its UID or selector changes. */
  replicaSetChanged(key: string, rs: ReplicaSet | undefined): void {
    const ns = key.slice(0, key.indexOf('/'));
    const prev = this.aggs.get(key);
    if (!rs) {
      if (prev) this.aggsByUid.get(prev.uid)?.delete(key);
      this.unpair(key);
      this.aggs.delete(key);
      this.rsByNamespace.get(ns)?.delete(key);
      return;
    }
    const selectorJSON = JSON.stringify(rs.spec?.selector ?? null);
    if (prev && prev.uid === rs.metadata.uid && prev.selectorJSON === selectorJSON) return;
    if (prev) this.aggsByUid.get(prev.uid)?.delete(key);
    this.unpair(key);
    const agg: ReplicaSetPodAggregate = {
      uid: rs.metadata.uid,
      kind: this.kind,
      name: key.slice(ns.length + 1),
      selectorJSON,
      matches: compileLabelSelector(rs.spec?.selector),
      owned: 0,
      ready: 0,
      needsClaim: 0,
      terminating: 0,
      foreignRef: 0,
    };
    // podContribution counts a pod only for the aggregate of its controllerRef's UID, or for
    // every aggregate when it has none: the owner's bucket and the namespace's orphans are every
    // pod of the namespace that can add to it (the counts are sums: their order does not matter).
    for (const p of this.pods.ownedAndOrphans(ns, agg.uid)) podContribution(agg, p, 1);
    this.aggs.set(key, agg);
    let byUid = this.aggsByUid.get(agg.uid);
    if (!byUid) this.aggsByUid.set(agg.uid, (byUid = new Set()));
    byUid.add(key);
    let set = this.rsByNamespace.get(ns);
    if (!set) this.rsByNamespace.set(ns, (set = new Set()));
    set.add(key);
    const pair = selectorPair(ns, rs);
    this.pairOf.set(key, pair);
    let byPair = this.aggsByPair.get(pair);
    if (!byPair) this.aggsByPair.set(pair, (byPair = new Set()));
    byPair.add(key);
  }

  private unpair(key: string): void {
    const pair = this.pairOf.get(key);
    if (pair === undefined) return;
    this.pairOf.delete(key);
    const byPair = this.aggsByPair.get(pair);
    byPair?.delete(key);
    if (byPair && byPair.size === 0) this.aggsByPair.delete(pair);
  }

  /** The aggregate of the ReplicaSet `key` (the sync's steady-state check reads it). */
  aggregate(key: string): Readonly<ReplicaSetPodAggregate> | undefined {
    return this.aggs.get(key);
  }

  /**
   * The sorted ready times of the ReplicaSet's counted pods (see `readyTimes` on the aggregate),
   * built from the cache on the first call — the cache must be settled (no delivery under way) —
   * and kept up to date on every delivery after it. Undefined when the ReplicaSet has no aggregate.
   */
  readyTimes(key: string): readonly number[] | undefined {
    const agg = this.aggs.get(key);
    if (!agg) return undefined;
    if (!agg.readyTimes) {
      const ns = key.slice(0, key.indexOf('/'));
      const times: number[] = [];
      for (const p of this.pods.controlledBy(ns, agg.uid)) {
        if (!isPodActive(p) || !agg.matches(p.metadata.labels)) continue;
        const t = podReadySince(p);
        if (t !== undefined) times.push(t);
      }
      agg.readyTimes = times.sort((a, b) => a - b);
    }
    return agg.readyTimes;
  }

  /** The ReplicaSet's counts, or undefined when it was never delivered. */
  counts(key: string): PodCounts | undefined {
    const a = this.aggs.get(key);
    return a ? { active: a.owned, ready: a.ready, terminating: a.terminating } : undefined;
  }

  /**
   * Adds (or removes) a cached pod's share to the aggregates of the ReplicaSets in `ns` (the
   * namespace of the delivered object's key). A pod with a controllerRef counts only for the
   * aggregate of that UID (podContribution ignores it for every other), so only an orphan is
   * offered to every ReplicaSet of the namespace.
   */
  private contribute(ns: string, p: Pod | undefined, sign: 1 | -1): void {
    if (!p) return;
    const rsKeys = this.rsByNamespace.get(ns);
    if (!rsKeys || rsKeys.size === 0) return;
    const ref = controllerRefOf(p.metadata);
    if (ref) {
      for (const k of this.aggsByUid.get(ref.uid) ?? []) {
        if (!rsKeys.has(k)) continue;
        const agg = this.aggs.get(k);
        if (agg) podContribution(agg, p, sign);
      }
      return;
    }
    // An orphan adds to an aggregate only while active and matched by its selector
    // (podContribution): the aggregates paired with one of its labels, and those without a pair.
    if (!isPodActive(p)) return;
    const sets: Set<string>[] = [];
    const unpaired = this.aggsByPair.get(ns);
    if (unpaired) sets.push(unpaired);
    const labels = p.metadata.labels as Record<string, unknown> | null | undefined;
    if (labels != null) {
      for (const name of Object.keys(labels)) {
        const paired = this.aggsByPair.get(`${ns}\u0000${name}\u0000${String(labels[name])}`);
        // Each set once, even if two labels spell the same key (names or values holding NUL).
        if (paired && !sets.includes(paired)) sets.push(paired);
      }
    }
    for (const keys of sets) {
      for (const k of keys) {
        if (!rsKeys.has(k)) continue;
        const agg = this.aggs.get(k);
        if (agg) podContribution(agg, p, sign);
      }
    }
  }
}
