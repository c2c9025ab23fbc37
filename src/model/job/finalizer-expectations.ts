/**
 * The Job controller's second expectations store: per Job key, the UIDs of the pods whose
 * batch.kubernetes.io/job-tracking finalizer the controller removed (or tried to) and whose
 * removal its informer has not shown yet.
 *
 * Mirrors uidTrackingExpectations in pkg/controller/job/tracking_utils.go (v1.37.2, unchanged in
 * substance since finalizer tracking came in 1.22):
 * - `expectFinalizersRemoved(key, uids)` adds the UIDs to the key's set (never replaces it),
 *   logging "Expecting tracking finalizers removed";
 * - `finalizerRemovalObserved(key, uid)` drops the UID if the set has it, logging "Observed
 *   tracking finalizer removed"; otherwise a no-op;
 * - `getExpectedUIDs(key)` a copy of the set (syncJob reads it when it lists the pods: a pod
 *   whose UID is in it counts as processed by an earlier sync — not counted again, not patched
 *   again);
 * - `deleteExpectations(key)` drops the set (only syncJob does, when the Job is gone).
 * Unlike ControllerExpectations there is no count, no timestamp and NO expiry: a removal the
 * informer never shows (a lost pod UPDATE, a patch that did not take) stays expected for the
 * life of the kube-controller-manager process, and that pod is never patched again by syncJob.
 * The store does not gate a sync: syncJob's SatisfiedExpectations reads only the count store.
 *
 * Contract: the clock is the caller's (for the log lines only); no I/O. Cost: O(1) per UID per
 * operation; memory one set per Job key with an expected removal.
 */

/** One line the store logs (V4), with the key and the UIDs it names. */
export interface FinalizerExpectationsLogLine {
  at: number;
  kind: 'expecting-finalizers-removed' | 'observed-finalizer-removed' | 'deleted';
  key: string;
  uids?: string[];
}

export class FinalizerExpectations {
  private readonly sets = new Map<string, Set<string>>();
  /** Everything the store logged, in order. */
  readonly log: FinalizerExpectationsLogLine[] = [];

  /** expectFinalizersRemoved: the UIDs join the key's set. */
  expectFinalizersRemoved(key: string, uids: readonly string[], at: number): void {
    this.log.push({ at, kind: 'expecting-finalizers-removed', key, uids: [...uids] });
    let set = this.sets.get(key);
    if (!set) this.sets.set(key, (set = new Set()));
    for (const u of uids) set.add(u);
  }

  /** finalizerRemovalObserved: drops `uid` when expected. Returns true when it did. */
  finalizerRemovalObserved(key: string, uid: string, at: number): boolean {
    const set = this.sets.get(key);
    if (!set || !set.has(uid)) return false;
    set.delete(uid);
    this.log.push({ at, kind: 'observed-finalizer-removed', key, uids: [uid] });
    return true;
  }

  /** getExpectedUIDs: a copy of the key's set (empty when none). */
  getExpectedUIDs(key: string): Set<string> {
    return new Set(this.sets.get(key) ?? []);
  }

  /** deleteExpectations: drops the key's set. */
  deleteExpectations(key: string, at: number): void {
    if (this.sets.delete(key)) this.log.push({ at, kind: 'deleted', key });
  }

  /** Not upstream: the store starts empty in a new kube-controller-manager process (a restart). */
  reset(): void {
    this.sets.clear();
  }
}
