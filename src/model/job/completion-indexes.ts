/**
 * Completion indexes of an Indexed Job: which indexes succeeded, which are pending, and which
 * active pods are surplus because they repeat an index or carry none.
 *
 * Mirrors pkg/controller/job/indexed_job_utils.go (v1.37.2):
 * - getCompletionIndex: the batch.kubernetes.io/job-completion-index annotation as a
 *   non-negative integer, else -1 (unknownCompletionIndex);
 * - orderedIntervals (withOrderedIndexes, merge, total, String, has) and parseIndexesFromString
 *   (status.completedIndexes: "1,3-5,7"; intervals at or past `completions` cut, corrupt ones skipped);
 * - calculateSucceededIndexes: the previous intervals from status.completedIndexes plus the
 *   indexes of succeeded pods (valid index, still holding the tracking finalizer);
 * - firstPendingIndexes: the first `count` indexes below `completions` covered by neither an
 *   active pod, a succeeded index, nor (podReplacementPolicy Failed) a terminating pod;
 * - appendDuplicatedIndexPodsForRemoval: by index, every pod but the one ActivePods ranks last
 *   of a repeated index, every pod without an index and every pod at or past `completions`.
 * Failed indexes (backoffLimitPerIndex) are not modelled (job-controller.ts says so).
 *
 * Contract: pure. Cost: O(p log p) for p pods; intervals O(i) for i intervals.
 */
import type { Pod } from '../objects.js';

export const COMPLETION_INDEX_ANNOTATION = 'batch.kubernetes.io/job-completion-index';
export const UNKNOWN_COMPLETION_INDEX = -1;

/** getCompletionIndex. */
export function completionIndexOf(pod: Pod): number {
  const v = pod.metadata.annotations?.[COMPLETION_INDEX_ANNOTATION];
  if (v === undefined) return UNKNOWN_COMPLETION_INDEX;
  // strconv.Atoi: optional sign, decimal digits.
  if (!/^[+-]?\d+$/.test(v)) return UNKNOWN_COMPLETION_INDEX;
  const i = Number(v);
  return i < 0 || !Number.isSafeInteger(i) ? UNKNOWN_COMPLETION_INDEX : i;
}

export interface Interval {
  first: number;
  last: number;
}

/** orderedIntervals: sorted, disjoint, non-adjacent intervals. */
export class OrderedIntervals {
  constructor(readonly intervals: readonly Interval[] = []) {}

  /** withOrderedIndexes: a new list with `indexes` (increasing) merged in. */
  withOrderedIndexes(indexes: readonly number[]): OrderedIntervals {
    return this.merge(new OrderedIntervals(indexes.map((i) => ({ first: i, last: i }))));
  }

  /** merge. */
  merge(other: OrderedIntervals): OrderedIntervals {
    const out: Interval[] = [];
    const push = (iv: Interval): void => {
      const last = out[out.length - 1];
      if (!last || iv.first > last.last + 1) out.push({ ...iv });
      else if (last.last < iv.last) last.last = iv.last;
    };
    const a = this.intervals;
    const b = other.intervals;
    let i = 0;
    let j = 0;
    while (i < a.length && j < b.length) {
      if (a[i]!.first < b[j]!.first) push(a[i++]!);
      else push(b[j++]!);
    }
    while (i < a.length) push(a[i++]!);
    while (j < b.length) push(b[j++]!);
    return new OrderedIntervals(out);
  }

  total(): number {
    return this.intervals.reduce((n, iv) => n + iv.last - iv.first + 1, 0);
  }

  has(ix: number): boolean {
    return this.intervals.some((iv) => iv.first <= ix && ix <= iv.last);
  }

  /** String: "0-2,4,6,7" (two adjacent indexes joined by a comma, longer runs by a dash). */
  toString(): string {
    return this.intervals.map((iv) => (iv.last === iv.first ? `${iv.first}` : `${iv.first}${iv.last === iv.first + 1 ? ',' : '-'}${iv.last}`)).join(',');
  }
}

/** parseIndexesFromString. */
export function parseIndexes(s: string | undefined, completions: number): OrderedIntervals {
  if (!s) return new OrderedIntervals();
  const out: Interval[] = [];
  for (const part of s.split(',')) {
    const limits = part.split('-');
    const first = atoi(limits[0]!);
    if (first === undefined) continue;
    if (first >= completions) break;
    let last = first;
    if (limits.length > 1) {
      const l = atoi(limits[1]!);
      if (l === undefined) continue;
      last = l >= completions ? completions - 1 : l;
    }
    const prev = out[out.length - 1];
    if (prev && prev.last === first - 1) prev.last = last;
    else out.push({ first, last });
  }
  return new OrderedIntervals(out);
}

function atoi(s: string): number | undefined {
  return /^[+-]?\d+$/.test(s) ? Number(s) : undefined;
}

/** calculateSucceededIndexes: [previous, previous + newly succeeded]. */
export function succeededIndexes(completedIndexes: string | undefined, pods: readonly Pod[], completions: number, hasFinalizer: (p: Pod) => boolean): { prev: OrderedIntervals; now: OrderedIntervals } {
  const prev = parseIndexes(completedIndexes, completions);
  const fresh = new Set<number>();
  for (const p of pods) {
    const ix = completionIndexOf(p);
    if (p.status?.phase === 'Succeeded' && ix !== UNKNOWN_COMPLETION_INDEX && ix < completions && hasFinalizer(p)) fresh.add(ix);
  }
  return { prev, now: prev.withOrderedIndexes([...fresh].sort((a, b) => a - b)) };
}

/** getIndexes. */
function indexesOf(pods: readonly Pod[]): number[] {
  const s = new Set<number>();
  for (const p of pods) {
    const ix = completionIndexOf(p);
    if (ix !== UNKNOWN_COMPLETION_INDEX) s.add(ix);
  }
  return [...s].sort((a, b) => a - b);
}

/** firstPendingIndexes. `terminating` is given only with podReplacementPolicy Failed. */
export function firstPendingIndexes(active: readonly Pod[], succeeded: OrderedIntervals, count: number, completions: number, terminating?: readonly Pod[]): number[] {
  if (count === 0) return [];
  let nonPending = succeeded.withOrderedIndexes(indexesOf(active));
  if (terminating) nonPending = nonPending.withOrderedIndexes(indexesOf(terminating));
  const out: number[] = [];
  let candidate = 0;
  for (const iv of nonPending.intervals) {
    for (; candidate < completions && out.length < count && candidate < iv.first; candidate++) out.push(candidate);
    if (candidate < iv.last + 1) candidate = iv.last + 1;
  }
  for (; candidate < completions && out.length < count; candidate++) out.push(candidate);
  return out;
}

/** appendDuplicatedIndexPodsForRemoval: [rm, left]; `order` is controller.ActivePods (job-pods.ts). */
export function duplicatedIndexPodsForRemoval(pods: readonly Pod[], completions: number, order: (a: Pod, b: Pod) => number): { rm: Pod[]; left: Pod[] } {
  const sorted = [...pods].sort((a, b) => completionIndexOf(a) - completionIndexOf(b));
  const rm: Pod[] = [];
  const left: Pod[] = [];
  const flush = (group: Pod[], ix: number): void => {
    if (ix === UNKNOWN_COMPLETION_INDEX) {
      rm.push(...group);
      return;
    }
    if (group.length === 1) {
      left.push(group[0]!);
      return;
    }
    if (group.length === 0) return;
    const ranked = [...group].sort(order);
    rm.push(...ranked.slice(0, -1));
    left.push(ranked[ranked.length - 1]!);
  };
  let lastIndex = UNKNOWN_COMPLETION_INDEX;
  let firstRepeat = 0;
  let looped = 0;
  for (let i = 0; i < sorted.length; i++) {
    const ix = completionIndexOf(sorted[i]!);
    if (ix >= completions) {
      rm.push(...sorted.slice(i));
      break;
    }
    if (ix !== lastIndex) {
      flush(sorted.slice(firstRepeat, i), lastIndex);
      firstRepeat = i;
      lastIndex = ix;
    }
    looped++;
  }
  flush(sorted.slice(firstRepeat, looped), lastIndex);
  return { rm, left };
}
