/**
 * Busy time: how long each key's sync occupies it. In kexp's model a sync runs at one instant,
 * but its API calls take time; the real sync handler returns only when its last call has
 * returned (slowStartBatch and the parallel deletes of manageReplicas wait for every goroutine),
 * and until then the key stays in the workqueue's `processing` set.
 *
 * Mirrors that part of client-go util/workqueue/queue.go (Typed.Get / Add / Done): a key added
 * while it is processing is only marked dirty, and Done hands it out once more. Here: a sync
 * begins (`begin`), each call reports when it completed (`callReturned`), and the sync ends
 * (`end`) busy until the latest completion when that is later than its start; a due sync of a
 * busy key is moved to the end of the busy time (worker.ts), and a replay that learns that a
 * round's calls are still returning extends it (`extend`).
 *
 * Contract: one sync at a time (begin … end, not nested); times are epoch ms from the caller.
 * A key is busy at `at` iff `at` is before the end of its last sync's busy time and the time has
 * not been released. Pure state: no I/O, no clock. Cost: O(1) per operation, one entry per key
 * whose last sync outlasted its start.
 */
export class BusyTime {
  /** Key → time its current sync ends. */
  private readonly until = new Map<string, number>();
  /** Latest completion time of the calls made by the sync in progress. */
  private doneAt = 0;

  /** A sync starts at `at`. */
  begin(at: number): void {
    this.doneAt = at;
  }

  /** A call of the sync in progress completed at `doneAt` (undefined: not known, no effect). */
  callReturned(doneAt: number | undefined): void {
    if (doneAt !== undefined && doneAt > this.doneAt) this.doneAt = doneAt;
  }

  /**
   * The sync of `key` that began at `at` ends: when its calls returned after `at`, the key is
   * busy until the last one did, and that time is returned; otherwise undefined.
   */
  end(key: string, at: number): number | undefined {
    if (!(this.doneAt > at)) return undefined;
    this.until.set(key, this.doneAt);
    return this.doneAt;
  }

  /** The sync in progress began at `at`: when it returns, its last call having returned (`at` when none outlasted it). */
  returnsAt(at: number): number {
    return Math.max(at, this.doneAt);
  }

  /** When the last sync of `key` ends, if it outlasted its start and was not released. */
  busyUntil(key: string): number | undefined {
    return this.until.get(key);
  }

  /** True while an earlier sync of `key` is still making its API calls at `at`. */
  isBusy(key: string, at: number): boolean {
    const busy = this.until.get(key);
    return busy !== undefined && at < busy;
  }

  /** The sync of `key` in progress is now known to last until `until` (its calls are still returning). */
  extend(key: string, until: number): void {
    if (this.until.has(key)) this.until.set(key, until);
  }

  /** The key's busy time is over (its next sync starts): forget it. */
  release(key: string): void {
    this.until.delete(key);
  }
}
