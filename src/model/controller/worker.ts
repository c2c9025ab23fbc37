/**
 * The worker: runs a controller's queued syncs when they fall due, one key at a time, and
 * reports each to the caller.
 *
 * Mirrors worker / processNextWorkItem in pkg/controller/replicaset/replica_set.go — the loop
 * every controller in pkg/controller runs: Get the next key from the workqueue, run the sync
 * handler, Done. Where upstream goroutines wait for the next key, the model is driven by the
 * caller's time: `runDue(before)` runs, in due order, every sync due before `before` (or at it,
 * when `inclusive`), including those the syncs themselves requeue within the bound. A key whose
 * previous sync is still making its calls (busy-time.ts) is not synced: like an Add while the key
 * is processing, it is handed out once more when that sync ends. kexp's sync handlers forget or
 * rate-limit their own key (what processNextWorkItem does with the error a sync returns).
 *
 * Contract: `sync(key, at)` runs the handler now, whether or not the key was due (a replay forces
 * syncs the input shows), keeps the key busy until its last call returned (setting the record's
 * `doneAt`), then calls `onSync`. `runDue` returns the syncs it ran; when it ran none, that is
 * one shared frozen empty array (the replay asks for due syncs before every event, and most
 * find none). No I/O, no clock. Cost: one WorkQueue.next per sync run (O(log keys queued))
 * plus the syncs.
 */
import type { WorkQueue } from '../workqueue.js';
import type { BusyTime } from './busy-time.js';

const NONE: never[] = Object.freeze([]) as unknown as never[];

export class Worker<S extends { doneAt?: number }> {
  constructor(
    private readonly queue: WorkQueue,
    private readonly busy: BusyTime,
    /** The controller's sync handler (syncReplicaSet for the ReplicaSet controller). */
    private readonly syncHandler: (key: string, at: number) => S,
    /** Receives each sync as it happens. */
    private readonly onSync: (s: S) => void,
  ) {}

  /** Runs every queued sync due before `before` (or at it, when `inclusive`), in due order. Returns the syncs run. */
  runDue(before: number, inclusive = false): S[] {
    let out: S[] | undefined;
    for (let n = this.queue.next(before, inclusive); n; n = this.queue.next(before, inclusive)) {
      const busy = this.busy.busyUntil(n.key);
      if (busy !== undefined && n.at < busy) {
        // The key is still being processed by an earlier sync: the workqueue marks it dirty
        // and hands it out once more when that sync is Done.
        this.queue.add(n.key, busy);
        continue;
      }
      if (busy !== undefined) this.busy.release(n.key);
      const rec = this.sync(n.key, n.at);
      if (out) out.push(rec);
      else out = [rec];
    }
    return out ?? NONE;
  }

  /** Runs the sync handler for `key` at `at`; the key is busy until the sync's last call returned. */
  sync(key: string, at: number): S {
    this.busy.begin(at);
    const rec = this.syncHandler(key, at);
    const until = this.busy.end(key, at);
    if (until !== undefined) rec.doneAt = until;
    this.onSync(rec);
    return rec;
  }
}
