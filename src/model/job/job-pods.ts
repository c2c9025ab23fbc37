/**
 * A Job's pods as its controller reads them: the tracking finalizer, failed or not, terminating
 * or not, the order it deletes active pods in, and the defaults of the Job's spec.
 *
 * Mirrors, in pkg/controller/job (v1.37.2): hasJobTrackingFinalizer (tracking_utils.go),
 * isPodFailed, onlyReplaceFailedPods, jobSuspended, isIndexedJob, activePodsForRemoval, IsJobFinished
 * (util/utils.go), pastBackoffLimitOnFailure (job_controller.go); in pkg/controller/controller_utils.go
 * IsPodActive, IsPodTerminating and ActivePods.Less (unassigned < assigned, Pending < Unknown <
 * Running, not ready < ready, ready for less time first, more restarts first, newer first); and
 * SetDefaults_Job (pkg/apis/batch/v1/defaults.go) for a Job whose optional fields are absent.
 *
 * Sorting is stable here where Go's sort.Sort is not: pods equal under every rule keep their
 * cache order (the real controller may pick another of them).
 *
 * Contract: pure. Cost: O(p log p) for a sort of p pods, O(p) otherwise.
 */
import type { Job, Pod } from '../objects.js';
import { parseTime } from '../objects.js';
import { isPodReady, maxContainerRestarts, podReadySince } from '../pod-ranking.js';
import { duplicatedIndexPodsForRemoval } from './completion-indexes.js';

/** batch.JobTrackingFinalizer. */
export const JOB_TRACKING_FINALIZER = 'batch.kubernetes.io/job-tracking';
/** batch.JobControllerName: the managedBy value that means the built-in controller. */
export const JOB_CONTROLLER_NAME = 'kubernetes.io/job-controller';

/** hasJobTrackingFinalizer. */
export function hasTrackingFinalizer(pod: Pod): boolean {
  return (pod.metadata.finalizers ?? []).includes(JOB_TRACKING_FINALIZER);
}

/** The spec fields syncJob reads, with SetDefaults_Job applied where the input left them out. */
export interface JobSpecDefaults {
  parallelism: number;
  /** null: any success completes the Job. */
  completions: number | null;
  backoffLimit: number;
  indexed: boolean;
  /** spec.completionMode when it is neither NonIndexed nor Indexed. */
  unknownCompletionMode?: string;
  suspend: boolean;
  /** podReplacementPolicy Failed: terminating pods are not replaced until they fail. */
  onlyReplaceFailed: boolean;
  activeDeadlineSeconds?: number;
  restartPolicy?: string;
}

export function jobSpec(job: Job): JobSpecDefaults {
  const s = job.spec ?? {};
  const bothUnset = s.completions == null && s.parallelism == null;
  const mode = s.completionMode ?? 'NonIndexed';
  const replacement = s.podReplacementPolicy ?? (s.podFailurePolicy != null ? 'Failed' : 'TerminatingOrFailed');
  return {
    parallelism: s.parallelism ?? 1,
    completions: bothUnset ? 1 : (s.completions ?? null),
    backoffLimit: s.backoffLimit ?? (s.backoffLimitPerIndex != null ? 2147483647 : 6),
    indexed: mode === 'Indexed',
    ...(mode !== 'NonIndexed' && mode !== 'Indexed' ? { unknownCompletionMode: mode } : {}),
    suspend: s.suspend === true,
    onlyReplaceFailed: replacement === 'Failed',
    ...(s.activeDeadlineSeconds != null ? { activeDeadlineSeconds: s.activeDeadlineSeconds } : {}),
    ...(s.template?.spec?.restartPolicy ? { restartPolicy: s.template.spec.restartPolicy } : {}),
  };
}

/** util.IsJobFinished: a Complete or Failed condition with status True. */
export function isJobFinished(job: Job): boolean {
  return (job.status?.conditions ?? []).some((c) => (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True');
}

/** controller.IsPodActive. */
export function isActive(p: Pod): boolean {
  const phase = p.status?.phase;
  return phase !== 'Succeeded' && phase !== 'Failed' && p.metadata.deletionTimestamp == null;
}

/** controller.IsPodTerminating: not terminal and being deleted. */
export function isTerminating(p: Pod): boolean {
  const phase = p.status?.phase;
  return phase !== 'Succeeded' && phase !== 'Failed' && p.metadata.deletionTimestamp != null;
}

/** isPodFailed: Failed, or (unless only failed pods are replaced) deleted before it succeeded. */
export function isPodFailed(p: Pod, onlyReplaceFailed: boolean): boolean {
  if (p.status?.phase === 'Failed') return true;
  if (onlyReplaceFailed) return false;
  return p.metadata.deletionTimestamp != null && p.status?.phase !== 'Succeeded';
}

/** pastBackoffLimitOnFailure: restartPolicy OnFailure and the running/pending pods' restarts reach backoffLimit (any restart at 0). */
export function pastBackoffLimitOnFailure(spec: JobSpecDefaults, pods: readonly Pod[]): boolean {
  if (spec.restartPolicy !== 'OnFailure') return false;
  let restarts = 0;
  for (const p of pods) {
    const phase = p.status?.phase;
    if (phase !== 'Running' && phase !== 'Pending') continue;
    for (const c of p.status?.initContainerStatuses ?? []) restarts += c.restartCount ?? 0;
    for (const c of p.status?.containerStatuses ?? []) restarts += c.restartCount ?? 0;
  }
  return spec.backoffLimit === 0 ? restarts > 0 : restarts >= spec.backoffLimit;
}

const PHASE_ORDINAL: Record<string, number> = { Pending: 0, Unknown: 1, Running: 2 };

/** afterOrZero: t1 after t2; a zero (missing) time counts as after any real one. */
function afterOrZero(t1: number | undefined, t2: number | undefined): boolean {
  if (t1 === undefined || t2 === undefined) return t1 === undefined;
  return t1 > t2;
}

/** ActivePods.Less(a, b). */
function activePodsLess(a: Pod, b: Pod): boolean {
  const na = a.spec?.nodeName ?? '';
  const nb = b.spec?.nodeName ?? '';
  if (na !== nb && (na === '' || nb === '')) return na === '';
  const pa = PHASE_ORDINAL[a.status?.phase ?? ''] ?? 0;
  const pb = PHASE_ORDINAL[b.status?.phase ?? ''] ?? 0;
  if (pa !== pb) return pa < pb;
  const ra = isPodReady(a);
  const rb = isPodReady(b);
  if (ra !== rb) return !ra;
  if (ra && rb) {
    const ta = podReadySince(a);
    const tb = podReadySince(b);
    if (ta !== tb) return afterOrZero(ta, tb);
  }
  const ca = maxContainerRestarts(a);
  const cb = maxContainerRestarts(b);
  if (ca.regular !== cb.regular) return ca.regular > cb.regular;
  if (ca.sidecar !== cb.sidecar) return ca.sidecar > cb.sidecar;
  const ka = parseTime(a.metadata.creationTimestamp);
  const kb = parseTime(b.metadata.creationTimestamp);
  if (ka !== kb) return afterOrZero(ka, kb);
  return false;
}

/** Comparator form of controller.ActivePods.Less: negative ⇒ `a` is removed first. */
export function compareActivePods(a: Pod, b: Pod): number {
  if (activePodsLess(a, b)) return -1;
  if (activePodsLess(b, a)) return 1;
  return 0;
}

/**
 * activePodsForRemoval: for an Indexed Job first the pods of repeated, missing or out-of-range
 * indexes, then (NonIndexed: only) the first of the rest in ActivePods order, up to `rmAtLeast`.
 */
export function activePodsForRemoval(spec: JobSpecDefaults, pods: readonly Pod[], rmAtLeast: number): Pod[] {
  let rm: Pod[] = [];
  let left: Pod[];
  if (spec.indexed) ({ rm, left } = duplicatedIndexPodsForRemoval(pods, spec.completions ?? 0, compareActivePods));
  else left = [...pods];
  if (rm.length < rmAtLeast) {
    left.sort(compareActivePods);
    rm = rm.concat(left.slice(0, rmAtLeast - rm.length));
  }
  return rm;
}
