/**
 * The expectations store of the pod-owning controllers.
 *
 * Mirrors ControllerExpectations and UIDTrackingControllerExpectations in
 * k8s.io/kubernetes pkg/controller/controller_utils.go (identical semantics in every
 * release from 1.25 to master, see controller-semantics.md §1–§2):
 *
 * - one record per controller key `namespace/name` (the RS UID is not part of the key);
 * - `add`/`del` counters that may go negative; fulfilled iff `add <= 0 && del <= 0`;
 * - `timestamp` = the time of the last Set (never of a Lower);
 * - expiry is strict (`now - timestamp > 5 min`) and passive: nothing happens at expiry,
 *   the record is only consulted by SatisfiedExpectations at the next sync;
 * - the ReplicaSet controller (UIDTrackingControllerExpectations) tracks expected deletions by pod
 *   key `namespace/name` (controller.PodKey), NOT by UID, in a per-controller key set;
 *   DeletionObserved of a key not in the set is a no-op. The DaemonSet controller uses the plain
 *   store: counts only (`countDeletionObserved`, and no `expectDeletions`).
 *
 * Every operation appends a `ExpectationsLogLine` mirroring the V4/ERROR line the real code
 * logs, so a replay can be compared line by line with a kube-controller-manager -v=4 log.
 * The clock is an argument (epoch ms); this module never reads the wall clock.
 */

/** ExpectationsTimeout in pkg/controller/controller_utils.go: 5 minutes, in ms. */
export const EXPECTATIONS_TIMEOUT_MS = 5 * 60 * 1000;

/** A ControlleeExpectations record. `timestamp` is epoch ms of the last Set. */
export interface ExpectationsRecord {
  key: string;
  add: number;
  del: number;
  timestamp: number;
}

/** The four outcomes of SatisfiedExpectations (controller_utils.go). */
export type SatisfiedOutcome = 'fulfilled' | 'expired' | 'still-waiting' | 'never-recorded';

export type ExpectationsLogKind =
  | 'setting-expectations'
  | 'lowered-expectations'
  | 'raised-expectations'
  | 'expectations-fulfilled'
  | 'expectations-expired'
  | 'still-waiting'
  | 'never-recorded'
  | 'waiting-on-deletions'
  | 'clobbering-delete-keys'
  | 'received-delete'
  | 'deleted-expectations'
  | 'store-reset';

/** One line the real store would log (V4 unless noted), with the record after the operation. */
export interface ExpectationsLogLine {
  at: number;
  kind: ExpectationsLogKind;
  key: string;
  add?: number;
  del?: number;
  /** waiting-on-deletions: the new keys; clobbering-delete-keys: the old (lost) keys; received-delete: the one key. */
  keys?: string[];
  /** raised-expectations by `restore`: the Set time of the record put back. */
  setAt?: number;
}

/** Fulfilled() in controller_utils.go: `add <= 0 && del <= 0`. */
export function isFulfilled(r: { add: number; del: number }): boolean {
  return r.add <= 0 && r.del <= 0;
}

/** isExpired() in controller_utils.go: strictly more than ExpectationsTimeout since the last Set. */
export function isExpired(r: ExpectationsRecord, now: number, timeoutMs = EXPECTATIONS_TIMEOUT_MS): boolean {
  return now - r.timestamp > timeoutMs;
}

/**
 * UIDTrackingControllerExpectations (which embeds ControllerExpectations), as the
 * ReplicaSet controller uses it. Process-local: construct a new one for a KCM restart.
 */
export class ControllerExpectations {
  private readonly records = new Map<string, ExpectationsRecord>();
  private readonly deleteKeys = new Map<string, Set<string>>();
  /** Everything the store logged, in order. */
  readonly log: ExpectationsLogLine[] = [];

  constructor(
    private readonly timeoutMs = EXPECTATIONS_TIMEOUT_MS,
    /** Called for every log line (in addition to `log`); lets the engine attach evidence. */
    private readonly onLog?: (l: ExpectationsLogLine) => void,
    /**
     * Whether this store tracks expected deletions by pod key (UIDTrackingControllerExpectations,
     * the ReplicaSet's) or counts only (the plain ControllerExpectations of the DaemonSet and Job).
     */
    readonly tracksDeleteKeys = true,
  ) {}

  private emit(l: ExpectationsLogLine): void {
    this.log.push(l);
    this.onLog?.(l);
  }

  /** GetExpectations: a copy of the record, or undefined. */
  get(key: string): ExpectationsRecord | undefined {
    const r = this.records.get(key);
    return r ? { ...r } : undefined;
  }

  /**
   * The live record, not a copy (undefined if none): for readers on every event that only
   * compare its fields — read them before the next change, which updates it in place.
   */
  peek(key: string): Readonly<ExpectationsRecord> | undefined {
    return this.records.get(key);
  }

  /** The expected-delete key set (copy), empty if none. */
  getDeleteKeys(key: string): string[] {
    return [...(this.deleteKeys.get(key) ?? [])].sort();
  }

  /**
   * SatisfiedExpectations: true unless a record exists that is neither fulfilled nor expired.
   * Does not modify the record (an expired record stays until the next Set).
   */
  satisfied(key: string, now: number): { satisfied: boolean; outcome: SatisfiedOutcome; record?: ExpectationsRecord } {
    const r = this.records.get(key);
    if (!r) {
      this.emit({ at: now, kind: 'never-recorded', key });
      return { satisfied: true, outcome: 'never-recorded' };
    }
    const snap = { ...r };
    if (isFulfilled(r)) {
      this.emit({ at: now, kind: 'expectations-fulfilled', key, add: r.add, del: r.del });
      return { satisfied: true, outcome: 'fulfilled', record: snap };
    }
    if (isExpired(r, now, this.timeoutMs)) {
      // The keys still expected at the expiry, as they are now: the sync's own round replaces them next.
      const keys = [...(this.deleteKeys.get(key) ?? [])].sort();
      this.emit({ at: now, kind: 'expectations-expired', key, add: r.add, del: r.del, ...(keys.length ? { keys } : {}) });
      return { satisfied: true, outcome: 'expired', record: snap };
    }
    this.emit({ at: now, kind: 'still-waiting', key, add: r.add, del: r.del });
    return { satisfied: false, outcome: 'still-waiting', record: snap };
  }

  /**
   * SatisfiedExpectations' answer without its log line: for a second check in one sync (the
   * DaemonSet's rolling update asks again after manage; upstream logs that check too, kexp's log
   * keeps one gate decision per sync).
   */
  isSatisfied(key: string, now: number): boolean {
    const r = this.records.get(key);
    return !r || isFulfilled(r) || isExpired(r, now, this.timeoutMs);
  }

  /** SetExpectations: replaces the record with {add, del, timestamp=now}. */
  set(key: string, add: number, del: number, now: number): void {
    this.records.set(key, { key, add, del, timestamp: now });
    this.emit({ at: now, kind: 'setting-expectations', key, add, del });
  }

  /** ExpectCreations = SetExpectations(key, n, 0). Leaves the delete-key set untouched. */
  expectCreations(key: string, n: number, now: number): void {
    this.set(key, n, 0, now);
  }

  /**
   * UIDTrackingControllerExpectations.ExpectDeletions: replaces the key set (logging
   * "Clobbering existing delete keys" at ERROR when a non-empty set existed), then
   * SetExpectations(key, 0, |set|).
   */
  expectDeletions(key: string, podKeys: string[], now: number): void {
    const set = new Set(podKeys);
    this.emit({ at: now, kind: 'waiting-on-deletions', key, keys: [...set].sort() });
    const old = this.deleteKeys.get(key);
    if (old && old.size > 0) {
      this.emit({ at: now, kind: 'clobbering-delete-keys', key, keys: [...old].sort() });
    }
    this.deleteKeys.set(key, set);
    this.set(key, 0, set.size, now);
  }

  /** LowerExpectations: no-op (and no log) when no record exists. */
  lower(key: string, add: number, del: number, now: number): void {
    const r = this.records.get(key);
    if (!r) return;
    r.add -= add;
    r.del -= del;
    this.emit({ at: now, kind: 'lowered-expectations', key, add: r.add, del: r.del });
  }

  /** RaiseExpectations (never called by the RS controller; kept for completeness). */
  raise(key: string, add: number, del: number, now: number): void {
    const r = this.records.get(key);
    if (!r) return;
    r.add += add;
    r.del += del;
    this.emit({ at: now, kind: 'raised-expectations', key, add: r.add, del: r.del });
  }

  /**
   * Not an upstream operation: gives back a DeletionObserved kexp's replay made for a pod whose
   * deletion the real controller's informer had not delivered (the pod key returns to the set, in a
   * store that tracks them, and `del` is raised by one), so the deletion, delivered later, is counted as upstream counts it.
   * A no-op (false) without a record.
   */
  unobserveDeletion(key: string, podKey: string, now: number): boolean {
    if (!this.records.has(key)) return false;
    if (this.tracksDeleteKeys) {
      let set = this.deleteKeys.get(key);
      if (!set) this.deleteKeys.set(key, (set = new Set()));
      set.add(podKey);
    }
    this.raise(key, 0, 1, now);
    return true;
  }

  /**
   * ControllerExpectations.DeletionObserved = LowerExpectations(key, 0, 1): the count-only store
   * of the DaemonSet and Job controllers, which track no pod keys (NewControllerExpectations).
   */
  countDeletionObserved(key: string, now: number): void {
    this.lower(key, 0, 1, now);
  }

  /**
   * Not an upstream operation: puts back a record kexp's replay replaced with Sets the real
   * controller never made — its syncs passed in the model only because the model lowered the record
   * for an observation the controller's informer had not delivered (analysis/engine/held-deletions.ts).
   * The record becomes `rec` (its counts and its Set time); logged as a raise carrying `setAt`.
   */
  restore(key: string, rec: { add: number; del: number; timestamp: number }, now: number): void {
    this.records.set(key, { key, add: rec.add, del: rec.del, timestamp: rec.timestamp });
    this.emit({ at: now, kind: 'raised-expectations', key, add: rec.add, del: rec.del, setAt: rec.timestamp });
  }

  /** CreationObserved = LowerExpectations(key, 1, 0). */
  creationObserved(key: string, now: number): void {
    this.lower(key, 1, 0, now);
  }

  /**
   * UIDTrackingControllerExpectations.DeletionObserved(key, podKey): lowers `del` and removes
   * the pod key only when the key is in the set; otherwise a complete no-op.
   * Returns true when it counted.
   */
  deletionObserved(key: string, podKey: string, now: number): boolean {
    const set = this.deleteKeys.get(key);
    if (!set || !set.has(podKey)) return false;
    this.emit({ at: now, kind: 'received-delete', key, keys: [podKey] });
    this.lower(key, 0, 1, now);
    set.delete(podKey);
    return true;
  }

  /**
   * Not an upstream operation: the store starts empty in a new kube-controller-manager process
   * (expectations live only in memory), so a restart — or evidence that the real controller no
   * longer held a record kexp replayed — drops the record of `key` (every key when undefined).
   * Logged as `store-reset` so a replay can tell it apart from DeleteExpectations.
   */
  reset(now: number, key?: string): void {
    const keys = key !== undefined ? [key] : [...new Set([...this.records.keys(), ...this.deleteKeys.keys()])];
    for (const k of keys) {
      const had = this.records.delete(k);
      const hadKeys = this.deleteKeys.delete(k);
      if (had || hadKeys) this.emit({ at: now, kind: 'store-reset', key: k });
    }
  }

  /** DeleteExpectations: removes the record and the delete-key set. */
  delete(key: string, now: number): void {
    const had = this.records.delete(key);
    const hadKeys = this.deleteKeys.delete(key);
    if (had || hadKeys) this.emit({ at: now, kind: 'deleted-expectations', key });
  }
}
