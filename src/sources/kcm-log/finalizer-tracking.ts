/**
 * Finalizer tracking: the Job controller's second expectations store as its log shows it — per
 * Job, the pods whose `batch.kubernetes.io/job-tracking` finalizer removal the controller is
 * waiting to observe (pkg/controller/job/tracking_utils.go uidTrackingExpectations; v1.25.16
 * logs `job=`, v1.28.15 through v1.37.2 `key=`):
 * - removeTrackingFinalizerFromPods calls expectFinalizersRemoved before its patches, which logs
 *   "Expecting tracking finalizers removed" key=… podUIDs=[…] (V(4)) and adds the UIDs to the
 *   Job's set;
 * - finalizerRemovalObserved logs "Observed tracking finalizer removed" key=… podUID=… (V(4))
 *   when the UID is in the set and removes it: the pod informer delivered the pod without the
 *   finalizer or deleted (updatePod / deletePod), or the patch failed (the controller then
 *   expects no update and clears the UID itself);
 * - deleteExpectations drops the set when the sync finds the Job deleted ("Job has been
 *   deleted"); the store is process-local, so a controller start ("Starting job controller")
 *   empties every set.
 * The store holds UIDs, no counts, and has no timeout: a UID stays until observed or dropped.
 * While a pod's UID is in it, syncJob does not count that pod's termination again (syncJobCtx
 * expectedRmFinalizers) — it is not the sync gate, which is the count store (ground-truth.ts).
 *
 * Contract: `events` are one Job controller's log events (ownerKind `Job`), any order; the result
 * has one entry per Job key that has a finalizer-tracking line. Basis: observed (the controller's
 * own lines); a UID expected before the log began and observed in it counts as observed only.
 * Pure; cost O(n log n) time in the events, O(UIDs awaited) memory.
 */
import type { ControllerLogEvent, SourceRef } from '../../timeline/event.js';

export interface FinalizerTracking {
  key: string;
  /** The "Expecting tracking finalizers removed" lines: when, which pod UIDs, where. */
  expected: Array<{ at: number; uids: string[]; source: SourceRef }>;
  /** "Observed tracking finalizer removed" lines: UIDs taken out of the set. */
  observed: number;
  /** UIDs the store dropped unobserved: the Job deleted, or the controller (re)started. */
  dropped: number;
  /** UIDs still in the set at the end of the log, oldest first, with the line that expected each. */
  awaited: Array<{ uid: string; since: number; source: SourceRef }>;
}

/** The finalizer tracking of every Job whose lines name it. */
export function buildFinalizerTracking(events: ControllerLogEvent[]): Map<string, FinalizerTracking> {
  const order = events.map((e, i) => ({ e, i })).sort((a, b) => a.e.at - b.e.at || a.i - b.i);
  const out = new Map<string, FinalizerTracking>();
  /** Per Job: UID → the line that expected it. */
  const sets = new Map<string, Map<string, { since: number; source: SourceRef }>>();
  const of = (key: string): FinalizerTracking => {
    let t = out.get(key);
    if (!t) out.set(key, (t = { key, expected: [], observed: 0, dropped: 0, awaited: [] }));
    return t;
  };
  const drop = (key: string): void => {
    const set = sets.get(key);
    if (!set || set.size === 0) return;
    of(key).dropped += set.size;
    set.clear();
  };
  for (const { e } of order) {
    if (e.logKind === 'controller-started') {
      for (const key of sets.keys()) drop(key);
      continue;
    }
    const key = e.rsKey;
    if (!key) continue;
    if (e.logKind === 'finalizers-expected') {
      const uids = e.keys ?? [];
      of(key).expected.push({ at: e.at, uids, source: e.source });
      let set = sets.get(key);
      if (!set) sets.set(key, (set = new Map()));
      for (const uid of uids) if (!set.has(uid)) set.set(uid, { since: e.at, source: e.source });
    } else if (e.logKind === 'finalizer-removal-observed') {
      of(key).observed++;
      for (const uid of e.keys ?? []) sets.get(key)?.delete(uid);
    } else if (e.logKind === 'rs-deleted-sync') {
      drop(key);
    }
  }
  for (const [key, set] of sets) {
    if (set.size === 0) continue;
    of(key).awaited = [...set].map(([uid, x]) => ({ uid, since: x.since, source: x.source })).sort((a, b) => a.since - b.since);
  }
  return out;
}
