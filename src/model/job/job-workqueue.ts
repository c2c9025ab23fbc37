/**
 * The Job controller's workqueue: the shared WorkQueue (workqueue.ts) with the rate limiter
 * NewController builds for Jobs instead of the default controller one.
 *
 * Mirrors pkg/controller/job/job_controller.go (v1.37.2): the queue is
 * NewTypedRateLimitingQueueWithConfig(NewTypedItemExponentialFailureRateLimiter(DefaultJobApiBackOff
 * 1 s, MaxJobApiBackOff 1 min)) — a sync that returns an error is retried after 1 s · 2^failures,
 * capped at 1 min, with no overall token bucket; a sync that succeeds forgets the key. Everything
 * else (Add's de-duplication, AddAfter moving a delayed entry only earlier — which is what makes
 * enqueueSyncJobBatched's 1 s delay a batch: the first event of a burst fixes the sync time) is the
 * shared queue's.
 *
 * Version switch: before 1.28 the same queue was built with
 * NewItemExponentialFailureRateLimiter(DefaultJobBackOff 10 s, MaxJobBackOff 360 s)
 * (pkg/controller/job/job_controller.go NewController, v1.12.10 … v1.27.16; v1.28.0 introduced
 * DefaultJobApiBackOff): a failed sync was retried after 10 s · 2^failures, capped at 6 min.
 *
 * Contract: as WorkQueue; times are the caller's epoch ms. Cost: O(1) per call beyond WorkQueue's.
 */
import { WorkQueue } from '../workqueue.js';

/** DefaultJobApiBackOff. */
export const JOB_API_BACKOFF_MS = 1000;
/** MaxJobApiBackOff. */
export const MAX_JOB_API_BACKOFF_MS = 60_000;
/** DefaultJobBackOff: the queue's base delay before 1.28. */
export const LEGACY_JOB_BACKOFF_MS = 10_000;
/** MaxJobBackOff: the queue's cap before 1.28. */
export const LEGACY_MAX_JOB_BACKOFF_MS = 360_000;

/** The failure rate limiter of a release's Job queue: ItemExponentialFailureRateLimiter(baseMs, maxMs). */
export interface JobQueueBackoff {
  baseMs: number;
  maxMs: number;
}

/** The rate limiter NewController gives the Job queue in Kubernetes 1.`minor`. */
export function jobQueueBackoffOf(minor: number): JobQueueBackoff {
  return minor >= 28 ? { baseMs: JOB_API_BACKOFF_MS, maxMs: MAX_JOB_API_BACKOFF_MS } : { baseMs: LEGACY_JOB_BACKOFF_MS, maxMs: LEGACY_MAX_JOB_BACKOFF_MS };
}

/** SyncJobBatchPeriod: the delay of enqueueSyncJobBatched (pod events, Job status updates). */
export const SYNC_JOB_BATCH_PERIOD_MS = 1000;

export class JobWorkQueue extends WorkQueue {
  private readonly apiFailures = new Map<string, number>();

  constructor(private readonly backoff: JobQueueBackoff = jobQueueBackoffOf(37)) {
    super();
  }

  /** AddRateLimited with ItemExponentialFailureRateLimiter(base, max): 1 s and 1 min from 1.28, else 10 s and 6 min. Returns the delay used (ms). */
  override addRateLimited(key: string, now: number): number {
    const n = this.apiFailures.get(key) ?? 0;
    this.apiFailures.set(key, n + 1);
    const delay = Math.min(this.backoff.baseMs * 2 ** n, this.backoff.maxMs);
    this.addAfter(key, now, delay);
    return delay;
  }

  override forget(key: string): void {
    this.apiFailures.delete(key);
  }

  override failuresOf(key: string): number {
    return this.apiFailures.get(key) ?? 0;
  }
}
