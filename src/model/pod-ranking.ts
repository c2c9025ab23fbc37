/**
 * Which pods a ReplicaSet deletes first when it scales down.
 *
 * Mirrors, in pkg/controller/controller_utils.go: `IsPodActive`, `podReadyTime`,
 * `maxContainerRestarts` / `compareMaxContainerRestarts`, `logarithmicRankDiff`, `afterOrZero`
 * and `ActivePodsWithRanks.Less`; in pkg/controller/replicaset/replica_set.go:
 * `getPodsToDelete` and `getPodsRankedByRelatedPodsOnSameNode`; in pkg/api/v1/pod:
 * `IsPodReady`; in pkg/apis/core/helper: `GetDeletionCostFromPodAnnotations`.
 * Feature gates PodDeletionCost and LogarithmicScaleDown are modelled as enabled (their defaults
 * since v1.22; LogarithmicScaleDown is GA since v1.31).
 *
 * Time is passed in as epoch milliseconds; nothing here reads the clock.
 */

import { parseTime, type Pod } from './objects.js';

/** The annotation read by rule 4 of ActivePodsWithRanks.Less. */
export const POD_DELETION_COST_ANNOTATION = 'controller.kubernetes.io/pod-deletion-cost';

/** controller.IsPodActive: phase is not Succeeded/Failed and there is no deletionTimestamp. */
export function isPodActive(pod: Pod): boolean {
  const phase = pod.status?.phase;
  return phase !== 'Succeeded' && phase !== 'Failed' && pod.metadata.deletionTimestamp == null;
}

/** podutil.IsPodReady: the (first) `Ready` condition has status "True". */
export function isPodReady(pod: Pod): boolean {
  const cond = (pod.status?.conditions ?? []).find((c) => c.type === 'Ready');
  return cond?.status === 'True';
}

/**
 * podReadyTime: the lastTransitionTime (epoch ms) of the first Ready=True condition, or
 * undefined — Go's zero time — when the pod is not ready or the time is missing/unparsable.
 */
export function podReadySince(pod: Pod): number | undefined {
  if (!isPodReady(pod)) return undefined;
  const cond = (pod.status?.conditions ?? []).find((c) => c.type === 'Ready' && c.status === 'True');
  return parseTime(cond?.lastTransitionTime);
}

/**
 * helper.GetDeletionCostFromPodAnnotations: the int32 value of the pod-deletion-cost annotation;
 * 0 when absent or invalid. Invalid: empty, a leading '+', leading zeros ("008"), not a base-10
 * integer, or outside the int32 range.
 */
export function podDeletionCost(pod: Pod): number {
  const value = pod.metadata.annotations?.[POD_DELETION_COST_ANNOTATION];
  if (value === undefined) return 0;
  if (value.length === 0) return 0;
  const c = value[0]!;
  const validFirst = c === '-' || (c === '0' && value === '0') || (c >= '1' && c <= '9');
  if (!validFirst) return 0;
  // strconv.ParseInt(value, 10, 32): optional sign then decimal digits only.
  if (!/^-?[0-9]+$/.test(value)) return 0;
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < -2147483648 || n > 2147483647) return 0;
  return n === 0 ? 0 : n; // normalise -0
}

/**
 * maxContainerRestarts (≈v1.29+): the highest restartCount among regular containers, and
 * separately among restartable init ("sidecar") containers — init containers whose spec has
 * restartPolicy: Always, matched to initContainerStatuses by name.
 */
export function maxContainerRestarts(pod: Pod): { regular: number; sidecar: number } {
  let regular = 0;
  for (const cs of pod.status?.containerStatuses ?? []) regular = Math.max(regular, cs.restartCount ?? 0);
  const sidecars = new Set<string>();
  for (const c of pod.spec?.initContainers ?? []) {
    if (c.restartPolicy === 'Always' && c.name !== undefined) sidecars.add(c.name);
  }
  let sidecar = 0;
  for (const cs of pod.status?.initContainerStatuses ?? []) {
    if (cs.name !== undefined && sidecars.has(cs.name)) sidecar = Math.max(sidecar, cs.restartCount ?? 0);
  }
  return { regular, sidecar };
}

const PHASE_ORDINAL: Record<string, number> = { Pending: 0, Unknown: 1, Running: 2 };
/** podPhaseToOrdinal, where a missing map entry (any other phase, or none) reads as 0. */
const phaseOrdinal = (pod: Pod): number => PHASE_ORDINAL[pod.status?.phase ?? ''] ?? 0;

/** Go's math.Log2: Frexp, exact for powers of two, else Log(frac)/Ln2 + exp. */
function goLog2(x: number): number {
  let exp = Math.ceil(Math.log2(x));
  let frac = x / 2 ** exp;
  while (frac >= 1) {
    frac /= 2;
    exp++;
  }
  while (frac < 0.5) {
    frac *= 2;
    exp--;
  }
  if (frac === 0.5) return exp - 1;
  return Math.log(frac) * (1 / Math.LN2) + exp;
}

/**
 * The logarithmic bucket of an age: int64(math.Log2(float64(now - t))) with the duration in
 * nanoseconds, or -1 when the age is not positive. Exported for explanations ("same bucket").
 */
export function logarithmicBucket(t: number, now: number): number {
  const ns = (now - t) * 1e6;
  if (!(ns > 0)) return -1;
  return Math.trunc(goLog2(ns));
}

/** afterOrZero: true if t1 is after t2; a zero (undefined) time counts as after any real time. */
function afterOrZero(t1: number | undefined, t2: number | undefined): boolean {
  if (t1 === undefined || t2 === undefined) return t1 === undefined;
  return t1 > t2;
}

/** Rule 6/8 comparison of two timestamps (newer / zero first; log buckets with UID tiebreak). */
function timeLess(t1: number | undefined, t2: number | undefined, a: Pod, b: Pod, now: number): boolean {
  if (!Number.isFinite(now) || t1 === undefined || t2 === undefined) return afterOrZero(t1, t2);
  const diff = logarithmicBucket(t1, now) - logarithmicBucket(t2, now);
  if (diff === 0) return (a.metadata.uid ?? '') < (b.metadata.uid ?? '');
  return diff < 0;
}

/**
 * A pod's two parsed times the ranking reads (rules 6 and 8): podReadySince and the
 * creationTimestamp. A sort compares each pod O(log n) times; parsing them once per pod instead of
 * per comparison gives the same answers (both are functions of the pod alone).
 */
export interface PodRankTimes {
  readySince: number | undefined;
  created: number | undefined;
}

export function podRankTimes(p: Pod): PodRankTimes {
  return { readySince: podReadySince(p), created: parseTime(p.metadata.creationTimestamp) };
}

/** ActivePodsWithRanks.Less(i, j) for the pair (a, b): true ⇒ a is preferred for deletion. */
function lessForDeletion(a: Pod, b: Pod, rankA: number, rankB: number, now: number, sidecar = true, tA?: PodRankTimes, tB?: PodRankTimes): boolean {
  // 1. Unassigned < assigned (only when exactly one is unassigned).
  const nodeA = a.spec?.nodeName ?? '';
  const nodeB = b.spec?.nodeName ?? '';
  if (nodeA !== nodeB && (nodeA === '' || nodeB === '')) return nodeA === '';
  // 2. Pending < Unknown < Running.
  const phA = phaseOrdinal(a);
  const phB = phaseOrdinal(b);
  if (phA !== phB) return phA < phB;
  // 3. Not ready < ready.
  const readyA = isPodReady(a);
  const readyB = isPodReady(b);
  if (readyA !== readyB) return !readyA;
  // 4. Lower pod-deletion-cost < higher.
  const costA = podDeletionCost(a);
  const costB = podDeletionCost(b);
  if (costA !== costB) return costA < costB;
  // 5. Doubled up (higher rank) < not doubled up.
  if (rankA !== rankB) return rankA > rankB;
  // 6. Both ready: ready for a shorter time first (zero time first; log buckets + UID).
  if (readyA && readyB) {
    const rtA = tA ? tA.readySince : podReadySince(a);
    const rtB = tB ? tB.readySince : podReadySince(b);
    if (rtA !== rtB) return timeLess(rtA, rtB, a, b, now);
  }
  // 7. More container restarts first; then more sidecar restarts first.
  const rA = maxContainerRestarts(a);
  const rB = maxContainerRestarts(b);
  if (rA.regular !== rB.regular) return rA.regular > rB.regular;
  // From v1.32.0 only: restarts of restartable init ("sidecar") containers break the tie.
  if (sidecar && rA.sidecar !== rB.sidecar) return rA.sidecar > rB.sidecar;
  // 8. Newer (or zero) creation time first; log buckets + UID.
  const ctA = tA ? tA.created : parseTime(a.metadata.creationTimestamp);
  const ctB = tB ? tB.created : parseTime(b.metadata.creationTimestamp);
  if (ctA !== ctB) return timeLess(ctA, ctB, a, b, now);
  // 9. Equal.
  return false;
}

export interface DeletionCompareContext {
  /** Active related pods on a's node (getPodsRankedByRelatedPodsOnSameNode). */
  rankA: number;
  /** Active related pods on b's node. */
  rankB: number;
  /** ActivePodsWithRanks.Now, epoch ms (a non-finite value disables the log scale, like a zero Now). */
  now: number;
  /** Rule 7's sidecar-restart tiebreak (v1.32.0+; default on). */
  sidecarRestartTiebreak?: boolean;
  /** a's and b's `podRankTimes`, when the caller parsed them once (otherwise parsed here). */
  timesA?: PodRankTimes;
  timesB?: PodRankTimes;
}

/**
 * Comparator form of `ActivePodsWithRanks.Less` (pkg/controller/controller_utils.go):
 * negative ⇒ a is deleted before b, positive ⇒ b before a, 0 ⇒ neither rule distinguishes them.
 * Rules, first difference wins: 1 unassigned first; 2 phase Pending < Unknown < Running (other
 * phases count as Pending); 3 not-ready first; 4 lower pod-deletion-cost first; 5 higher rank
 * first; 6 both ready: more recently ready first (floor(log2(age ns)) buckets, equal bucket →
 * lexicographically smaller UID first; a missing time goes first); 7 more restarts first, then
 * more sidecar restarts; 8 newer creationTimestamp first (same bucketing); 9 equal.
 */
export function comparePodsForDeletion(a: Pod, b: Pod, ctx: DeletionCompareContext): number {
  const sidecar = ctx.sidecarRestartTiebreak ?? true;
  if (lessForDeletion(a, b, ctx.rankA, ctx.rankB, ctx.now, sidecar, ctx.timesA, ctx.timesB)) return -1;
  if (lessForDeletion(b, a, ctx.rankB, ctx.rankA, ctx.now, sidecar, ctx.timesB, ctx.timesA)) return 1;
  return 0;
}

/**
 * getPodsRankedByRelatedPodsOnSameNode: for each pod, the number of *active* related pods on the
 * same spec.nodeName (unassigned pods share the key "").
 */
export function rankPodsByRelatedPodsOnSameNode(podsToRank: Pod[], relatedPods: Pod[]): number[] {
  const onNode = new Map<string, number>();
  for (const p of relatedPods) {
    if (!isPodActive(p)) continue;
    const node = p.spec?.nodeName ?? '';
    onNode.set(node, (onNode.get(node) ?? 0) + 1);
  }
  return podsToRank.map((p) => onNode.get(p.spec?.nodeName ?? '') ?? 0);
}

/**
 * getPodsToDelete (pkg/controller/replicaset/replica_set.go): the n pods manageReplicas deletes.
 * If n < activePods.length, pods are ranked by co-located active related pods and sorted with
 * ActivePodsWithRanks.Less, and the first n are taken; otherwise the first n in list order (no
 * sort) — i.e. all of them. Inputs are not mutated.
 *
 * Upstream sorts with Go's `sort.Sort`, which is not stable; this uses a stable sort, so pods
 * that compare equal under every rule keep their input order here, while the real controller
 * may break such ties differently. Ties are realistic: creationTimestamp has whole-second
 * resolution, so two same-node-count, same-cost pods created in the same second with equal
 * readiness times and restart counts compare equal (the UID tiebreak only applies when the
 * timestamps differ but fall into the same log bucket).
 */
export function getPodsToDelete(activePods: Pod[], relatedPods: Pod[], n: number, now: number, opts: { sidecarRestartTiebreak?: boolean } = {}): Pod[] {
  if (n <= 0) return [];
  if (n >= activePods.length) return activePods.slice(0, n);
  const ranks = rankPodsByRelatedPodsOnSameNode(activePods, relatedPods);
  const indexed = activePods.map((pod, i) => ({ pod, rank: ranks[i]!, times: podRankTimes(pod) }));
  indexed.sort((x, y) => comparePodsForDeletion(x.pod, y.pod, { rankA: x.rank, rankB: y.rank, now, ...opts, timesA: x.times, timesB: y.times }));
  return indexed.slice(0, n).map((x) => x.pod);
}
