/**
 * Per-ReplicaSet counts of its candidate pods, kept up to date on every pod and ReplicaSet
 * delivery, so a steady-state sync (nothing to adopt or release, no availability delay) costs
 * O(1) instead of a scan of the namespace.
 *
 * Counts what syncReplicaSet (pkg/controller/replicaset/replica_set.go) would compute from the
 * cache: active pods controlled by the ReplicaSet and matching its selector (what claimPods keeps,
 * FilterActivePods), the ready ones among them, the terminating ones (FilterTerminatingPods /
 * CountTerminatingPods in pkg/controller/controller_utils.go), and the active pods a claim would
 * adopt or release (owned but not matching, orphans matching). Not an upstream structure: the real
 * controller scans on every sync.
 *
 * Contract: told of every change of the pod cache before it is made (`podChanged`, with the
 * namespace of the delivered pod) and of every ReplicaSet delivery (`replicaSetChanged`), the
 * counts equal a scan of the cache at any time (test/model/replicaset/pod-counts.test.ts checks it
 * on random populations). A pod with a controllerRef counts only for the ReplicaSet of that UID.
 * No I/O, no clock. Cost: per pod change O(ReplicaSets of the namespace) for an orphan, O(1) for
 * a controlled pod; per ReplicaSet whose UID or selector changed, O(pods of the namespace).
 */
import { controllerRefOf, type Pod, type ReplicaSet } from '../objects.js';
import { isPodActive, isPodReady } from '../pod-ranking.js';
import type { PodStore } from '../pod-store.js';
import { compileLabelSelector } from '../selector.js';
import type { PodCounts } from '../controller/controller.js';

/** One ReplicaSet's counts. */
export interface ReplicaSetPodAggregate {
  uid?: string;
  selectorJSON: string;
  matches: (labels: Record<string, string> | null | undefined) => boolean;
  /** Active pods controlled by the RS that match its selector (what ClaimPods keeps). */
  owned: number;
  ready: number;
  /** Active pods that would be adopted or released (owned-not-matching, orphan-matching). */
  needsClaim: number;
  terminating: number;
}

function podContribution(agg: ReplicaSetPodAggregate, p: Pod | undefined, sign: 1 | -1): void {
  if (!p) return;
  const ref = controllerRefOf(p.metadata);
  if (ref && ref.uid !== agg.uid) return;
  const matching = agg.matches(p.metadata.labels);
  if (isPodActive(p)) {
    if (ref) {
      if (matching) {
        agg.owned += sign;
        if (isPodReady(p)) agg.ready += sign;
      } else agg.needsClaim += sign;
    } else if (matching) agg.needsClaim += sign;
  } else if (ref && matching && p.metadata.deletionTimestamp && p.status?.phase !== 'Succeeded' && p.status?.phase !== 'Failed') {
    agg.terminating += sign;
  }
}

export class ReplicaSetPodCounts {
  private readonly aggs = new Map<string, ReplicaSetPodAggregate>();
  private readonly rsByNamespace = new Map<string, Set<string>>();
  /** Aggregate keys by the ReplicaSet UID they count for: a pod with a controllerRef only counts for its controller's. */
  private readonly aggsByUid = new Map<string | undefined, Set<string>>();

  /** `pods` is the pod cache the counts follow (read when a ReplicaSet's aggregate is rebuilt). */
  constructor(private readonly pods: PodStore) {}

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
      this.aggs.delete(key);
      this.rsByNamespace.get(ns)?.delete(key);
      return;
    }
    const selectorJSON = JSON.stringify(rs.spec?.selector ?? null);
    if (prev && prev.uid === rs.metadata.uid && prev.selectorJSON === selectorJSON) return;
    if (prev) this.aggsByUid.get(prev.uid)?.delete(key);
    const agg: ReplicaSetPodAggregate = { uid: rs.metadata.uid, selectorJSON, matches: compileLabelSelector(rs.spec?.selector), owned: 0, ready: 0, needsClaim: 0, terminating: 0 };
    for (const p of this.pods.inNamespace(ns)) podContribution(agg, p, 1);
    this.aggs.set(key, agg);
    let byUid = this.aggsByUid.get(agg.uid);
    if (!byUid) this.aggsByUid.set(agg.uid, (byUid = new Set()));
    byUid.add(key);
    let set = this.rsByNamespace.get(ns);
    if (!set) this.rsByNamespace.set(ns, (set = new Set()));
    set.add(key);
  }

  /** The aggregate of the ReplicaSet `key` (the sync's steady-state check reads it). */
  aggregate(key: string): Readonly<ReplicaSetPodAggregate> | undefined {
    return this.aggs.get(key);
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
    for (const k of rsKeys) {
      const agg = this.aggs.get(k);
      if (agg) podContribution(agg, p, sign);
    }
  }
}
