/**
 * The Job controller's pod-failure backoff: how long it waits before it creates replacement pods
 * after consecutive pod failures.
 *
 * Mirrors pkg/controller/job/backoff_utils.go (v1.37.2):
 * - a record per Job key: the failures since the last success and the time of the last one
 *   (backoffRecord); `newBackoffRecord(key, newSucceeded, newFailed)` derives the next record from
 *   the stored one and the pods that finished since the last sync (both sorted by finish time):
 *   only failures → the count grows and the last failure is the latest; any success → the count
 *   restarts from the failures that finished after the last success;
 * - `update` stores it (syncJob does only when it flushes the status), `remove` drops it (the Job
 *   finished, was deleted or is gone);
 * - `remainingMs(record, now)` = getRemainingTimeForFailuresCount with DefaultJobPodFailureBackOff
 *   10 s and MaxJobPodFailureBackOff 10 min: 10 s · 2^(failures−1) capped at 10 min, minus the
 *   time since the last failure, 0 when passed or without failures;
 * - getFinishedTime: the latest finishedAt of the terminated containers (and restartable init
 *   containers), else the Ready=False condition's lastTransitionTime, else deletionTimestamp −
 *   grace period, else creationTimestamp. Note: the replay engine's informer projection
 *   (objects.ts cachedPod) keeps no container state, so in a replay the Ready=False transition the
 *   kubelet writes with the terminal phase is the finish time.
 *
 * Contract: pure apart from the store; times are epoch ms from the caller. Cost: O(p log p) for
 * the p pods that finished since the last sync; one record per Job key.
 */
import { parseTime, type Pod } from '../objects.js';

/** DefaultJobPodFailureBackOff. */
export const POD_FAILURE_BACKOFF_MS = 10_000;
/** MaxJobPodFailureBackOff. */
export const MAX_POD_FAILURE_BACKOFF_MS = 10 * 60_000;

/** backoffRecord. */
export interface BackoffRecord {
  key: string;
  failuresAfterLastSuccess: number;
  lastFailureTime?: number;
}

export class PodFailureBackoff {
  private readonly records = new Map<string, BackoffRecord>();

  /** newBackoffRecord: the record this sync would store, from the stored one and the newly finished pods. */
  newBackoffRecord(key: string, newSucceeded: readonly Pod[], newFailed: readonly Pod[]): BackoffRecord {
    const old = this.records.get(key);
    const rec: BackoffRecord = old ? { ...old } : { key, failuresAfterLastSuccess: 0 };
    const succeeded = sortByFinishedTime(newSucceeded);
    const failed = sortByFinishedTime(newFailed);
    if (succeeded.length === 0) {
      if (failed.length === 0) return rec;
      rec.failuresAfterLastSuccess += failed.length;
      rec.lastFailureTime = finishedTime(failed[failed.length - 1]!);
      return rec;
    }
    rec.failuresAfterLastSuccess = 0;
    delete rec.lastFailureTime;
    const lastSuccess = finishedTime(succeeded[succeeded.length - 1]!);
    for (let i = failed.length - 1; i >= 0; i--) {
      const t = finishedTime(failed[i]!);
      if (!(t > lastSuccess)) break;
      if (rec.lastFailureTime === undefined) rec.lastFailureTime = t;
      rec.failuresAfterLastSuccess++;
    }
    return rec;
  }

  /** updateBackoffRecord. */
  update(rec: BackoffRecord): void {
    this.records.set(rec.key, { ...rec });
  }

  /** removeBackoffRecord. */
  remove(key: string): void {
    this.records.delete(key);
  }

  /** The stored record (tests, reports). */
  get(key: string): BackoffRecord | undefined {
    const r = this.records.get(key);
    return r ? { ...r } : undefined;
  }
}

/** backoffRecord.getRemainingTime → getRemainingTimeForFailuresCount. */
export function remainingMs(rec: BackoffRecord, now: number, defaultMs = POD_FAILURE_BACKOFF_MS, maxMs = MAX_POD_FAILURE_BACKOFF_MS): number {
  if (rec.failuresAfterLastSuccess === 0 || rec.lastFailureTime === undefined) return 0;
  let backoff = defaultMs;
  for (let i = 1; i < rec.failuresAfterLastSuccess; i++) {
    backoff *= 2;
    if (backoff >= maxMs) {
      backoff = maxMs;
      break;
    }
  }
  const elapsed = now - rec.lastFailureTime;
  if (backoff < elapsed) return 0;
  return backoff - elapsed;
}

type ContainerState = { name?: string; state?: { terminated?: { finishedAt?: string | null } | null } | null };

/** latestFinishTime: undefined when any (checked) container has not terminated with a finishedAt. */
function latestFinishTime(prev: number | undefined, statuses: readonly ContainerState[], check?: (c: ContainerState) => boolean): number | undefined {
  let t = prev;
  for (const c of statuses) {
    if (check && !check(c)) continue;
    const at = parseTime(c.state?.terminated?.finishedAt);
    if (at === undefined) return undefined;
    if (t === undefined || t < at) t = at;
  }
  return t;
}

/** getFinishedTime (epoch ms). */
export function finishedTime(p: Pod): number {
  const status = (p.status ?? {}) as { containerStatuses?: ContainerState[] | null; initContainerStatuses?: ContainerState[] | null };
  let fromContainers = latestFinishTime(undefined, status.containerStatuses ?? []);
  const sidecars = new Set((p.spec?.initContainers ?? []).filter((c) => c.restartPolicy === 'Always').map((c) => c.name));
  fromContainers = latestFinishTime(fromContainers, status.initContainerStatuses ?? [], (c) => sidecars.has(c.name));
  if (fromContainers !== undefined) return fromContainers;
  const ready = (p.status?.conditions ?? []).find((c) => c.type === 'Ready');
  const readyFalse = ready && ready.status === 'False' ? parseTime(ready.lastTransitionTime) : undefined;
  if (readyFalse !== undefined) return readyFalse;
  const deleted = parseTime(p.metadata.deletionTimestamp);
  if (deleted !== undefined) return deleted - (p.metadata.deletionGracePeriodSeconds ?? 0) * 1000;
  return parseTime(p.metadata.creationTimestamp) ?? 0;
}

/** sortByFinishedTime (a copy, stable; Go's sort.Slice is not). */
function sortByFinishedTime(pods: readonly Pod[]): Pod[] {
  return [...pods].sort((a, b) => finishedTime(a) - finishedTime(b));
}
