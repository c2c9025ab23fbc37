/**
 * Owner status consistency: the part of the 1.36+ consistency store (pkg/controller/util/consistency,
 * StaleControllerConsistency{DaemonSet,Job}) that records the controller's writes of its owner's
 * own status, and the gate it puts before the next sync.
 *
 * Upstream, updateDaemonSetStatus (pkg/controller/daemon/daemon_controller.go) and
 * trackJobStatusAndRemoveFinalizers' updateStatusHandler (pkg/controller/job/job_controller.go)
 * call consistencyStore.WroteAt(owner, uid, daemonsets.apps / jobs.batch, the written object's
 * resourceVersion) after a status write; syncDaemonSet / syncJob begin with EnsureReady, which
 * fails ("read version: R is not as new as written version: W for group resource …") while the
 * owner informer's LastStoreSyncResourceVersion — the newest resourceVersion it has delivered, of
 * any object of that resource — is older than W. The sync returns that error (a rate-limited
 * requeue, no expectations read, no status write); the informer's delivery of the written object
 * itself enqueues the owner again (its update handler), and that sync passes.
 *
 * A replay knows the model wrote status (the sync's record) but not the written resourceVersion:
 * it is the resourceVersion of the owner's first event after the sync that the input shows — its
 * watch MODIFIED in a recording, the write's response in an audit log (`writtenVersion`, found in
 * the look-ahead). The model's owner informer is the input's owner events: each one delivered
 * advances its last-sync resourceVersion (`observeOwner`). Where the input shows no event for the
 * write (no such event in the match window) nothing is recorded: the gate is never claimed
 * without the write's version. Only kinds whose store records status writes use this (the caller
 * decides, per kind and release); the ReplicaSet's own status writes are not modelled here.
 *
 * Contract: `wrote(key, rv)` after a sync that wrote its owner's status, `observeOwner(rv)` for
 * every owner event delivered to the model, `behind(key)` in the model's consistency check,
 * `clear(key)` when the owner is deleted (deleteDaemonset / deleteJob clear the record).
 *
 * Cost: O(1) per call but `observeOwner`, O(keys with a pending write). Pure: no I/O, no clock.
 */

/** A resourceVersion as a number, when it is one (CompareResourceVersion: an unparsable one compares as unknown). */
export function resourceVersionNumber(rv: string | undefined): number | undefined {
  if (rv === undefined || !/^[1-9][0-9]*$/.test(rv)) return undefined;
  const n = Number(rv);
  return Number.isSafeInteger(n) ? n : undefined;
}

export class OwnerStatusConsistency {
  /** Per owner key: the resourceVersion of the controller's last status write its informer has not delivered yet. */
  private readonly written = new Map<string, number>();
  /** The newest owner resourceVersion the model's informer has delivered (LastStoreSyncResourceVersion). */
  private lastSync: number | undefined;

  /** WroteAt: the controller wrote `key`'s status, the API answering with `rv`. Keeps the newer. */
  wrote(key: string, rv: string | undefined): void {
    const n = resourceVersionNumber(rv);
    if (n === undefined) return;
    if (this.lastSync !== undefined && n <= this.lastSync) return;
    this.written.set(key, Math.max(n, this.written.get(key) ?? 0));
  }

  /** The owner informer delivered an object at `rv`: every write at or below it is observed (EnsureReady then clears the record). */
  observeOwner(rv: string | undefined): void {
    const n = resourceVersionNumber(rv);
    if (n === undefined) return;
    this.lastSync = Math.max(n, this.lastSync ?? 0);
    for (const [k, w] of this.written) if (w <= this.lastSync) this.written.delete(k);
  }

  /** EnsureReady fails for `key`: its last status write is newer than what the informer delivered. */
  behind(key: string): { written: number; read?: number } | undefined {
    const w = this.written.get(key);
    return w === undefined ? undefined : { written: w, ...(this.lastSync !== undefined ? { read: this.lastSync } : {}) };
  }

  /** The owner is gone: its record is dropped (consistencyStore.Clear). */
  clear(key: string): void {
    this.written.delete(key);
  }
}
