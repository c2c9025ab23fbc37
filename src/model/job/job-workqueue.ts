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
 * Contract: as WorkQueue; times are the caller's epoch ms. Cost: O(1) per call beyond WorkQueue's.
 */
import { WorkQueue } from '../workqueue.js';

/** DefaultJobApiBackOff. */
export const JOB_API_BACKOFF_MS = 1000;
/** MaxJobApiBackOff. */
export const MAX_JOB_API_BACKOFF_MS = 60_000;
/** SyncJobBatchPeriod: the delay of enqueueSyncJobBatched (pod events, Job status updates). */
export const SYNC_JOB_BATCH_PERIOD_MS = 1000;

export class JobWorkQueue extends WorkQueue {
  private readonly apiFailures = new Map<string, number>();

  /** AddRateLimited with ItemExponentialFailureRateLimiter(1 s, 1 min). Returns the delay used (ms). */
  override addRateLimited(key: string, now: number): number {
    const n = this.apiFailures.get(key) ?? 0;
    this.apiFailures.set(key, n + 1);
    const delay = Math.min(JOB_API_BACKOFF_MS * 2 ** n, MAX_JOB_API_BACKOFF_MS);
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
