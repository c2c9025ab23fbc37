/**
 * A deterministic model of the ReplicaSet controller in kube-controller-manager:
 * informer cache, event handlers, workqueue triggers, syncReplicaSet and manageReplicas.
 *
 * Mirrors pkg/controller/replicaset/replica_set.go (ReplicaSetController) as described in
 * controller-semantics.md §3–§6; version switches from §9 come from `VersionFeatures`.
 *
 * The model never performs I/O. Whatever the real controller would ask the API server
 * (create/delete a pod, the live GET behind CanAdopt, adopt/release patches) is answered
 * by a `PodControl` supplied by the caller: unit tests script the answers, a replay answers
 * from the evidence in the input. The model does not write into its own informer cache:
 * just like the real controller, it only sees its writes when the input delivers them.
 */
import { ControllerExpectations, type ExpectationsRecord, type SatisfiedOutcome } from './expectations.js';
import { controllerRefOf, desiredReplicas, objectKey, type OwnerReference, type Pod, type ReplicaSet } from './objects.js';
import { compileLabelSelector, labelSelectorMatches, validateLabelSelector } from './selector.js';
import { getPodsToDelete, isPodActive, isPodReady, podReadySince } from './pod-ranking.js';
import { claimDecider, claimError, claimPods, recheckDeletionTimestamp, type CanAdoptCheck, type ClaimDecision } from './adoption.js';
import { featuresOf, type K8sVersion, type VersionFeatures } from './version.js';
import { WorkQueue } from './workqueue.js';
import { PodStore } from './pod-store.js';

/** BurstReplicas in pkg/controller/replicaset/replica_set.go. */
export const BURST_REPLICAS = 500;
/** SlowStartInitialBatchSize in pkg/controller/controller_utils.go. */
export const SLOW_START_INITIAL_BATCH_SIZE = 1;

/**
 * Result of one pod create call (RealPodControl.CreatePods), as the caller answers it. Two
 * answers exist only for replays, where the input — not an API server — answers:
 * - `unknown`: the input cannot tell whether the call was made or how it ended; the model
 *   proceeds as the API usually answers (created), and the round's outcome is reported as unknown;
 * - `unmade`: the input shows the controller made no such call (an audit log that records its
 *   writes has none); the model walks it back like a skipped create and ends the round, with no error.
 */
export type CreateResult = (
  | { ok: true; pod?: string; unknown?: boolean }
  | { ok: false; error: string; /** NamespaceTerminating cause: counted as success by the RS controller. */ namespaceTerminating?: boolean; unmade?: undefined }
  | { ok: false; unmade: true }
) & {
  /**
   * When the call completed, if known (epoch ms). The sync lasts until its last call returns;
   * events arriving meanwhile only mark the key dirty (one more sync after it ends).
   */
  doneAt?: number;
};

/** Result of one pod delete call (RealPodControl.DeletePod); `unknown` and `unmade` as for CreateResult. */
export type DeleteResult = (
  | { ok: true; unknown?: boolean }
  | { ok: false; notFound: true; unmade?: undefined }
  | { ok: false; notFound?: false; error: string; unmade?: undefined }
  | { ok: false; notFound?: false; unmade: true }
) & { doneAt?: number };

/** Everything the controller would ask the API server, answered by the caller. */
export interface PodControl {
  /** One create call; `index` is 0-based within the round of `n` calls. */
  createPod(rs: ReplicaSet, call: { round: number; index: number; n: number; at: number }): CreateResult;
  /** One delete call for a chosen pod. */
  deletePod(rs: ReplicaSet, pod: Pod, call: { round: number; at: number }): DeleteResult;
  /** The live GET behind CanAdopt (RecheckDeletionTimestamp). */
  getFreshReplicaSet(rs: ReplicaSet, at: number): ReplicaSet | { notFound: true } | { error: string };
  /** Adopt/release PATCH of a pod; `round` numbers the sync's claim patches like a create/delete round. */
  /** `owner` is the ReplicaSet patching (its controllerRef is what an adopt writes). */
  patchPod(pod: Pod, action: 'adopt' | 'release', at: number, round?: number, owner?: ReplicaSet): 'ok' | 'notfound' | 'invalid' | { error: string };
  /**
   * Optional: lets a replay replace the predicted scale-down victims with the ones the
   * input shows were deleted (the real sort is not stable, see pod-ranking.ts).
   */
  chooseDeletions?(rs: ReplicaSet, predicted: Pod[], active: Pod[], at: number): { pods: Pod[]; note?: string };
  /**
   * Optional (replays): true when the input shows that the controller made no pod write for
   * `rs` at this sync although the model would (`diff` as manageReplicas computes it) — e.g. an
   * audit log that records the controller's writes has none. The sync then stops before
   * manageReplicas with outcome `withheld`: the real controller was held by something the
   * model does not know (a record from before the input, no sync at this time).
   */
  madeNoWrites?(rs: ReplicaSet, diff: number, at: number): boolean;
  /** Optional [1.36+]: true while the informers lag behind the controller's own last pod write. */
  informerBehindOwnWrites?(rsKey: string, at: number): boolean;
}

/** What slowStartBatch did in one creation round. */
export interface CreateRound {
  /** The model's round number (unique per controller). */
  round: number;
  n: number;
  /** Batch sizes actually attempted (1, 2, 4, …). */
  batches: number[];
  calls: number;
  successes: number;
  /** n − successes: walked back with CreationObserved. */
  skipped: number;
  namespaceTerminating: number;
  errors: string[];
  /** Calls whose outcome the input cannot tell (replays; counted in `successes` for the bookkeeping). */
  unknown: number;
  /** Predicted calls the input shows were never made (replays; walked back, not errors). */
  unmade: number;
}

export interface DeleteRound {
  /** The model's round number (unique per controller). */
  round: number;
  n: number;
  keys: string[];
  /** UIDs of the chosen pods, parallel to `keys` (the controller itself only keeps the keys). */
  uids: string[];
  /** Keys whose delete failed (not NotFound) and were walked back. */
  failed: string[];
  notFound: string[];
  errors: string[];
  note?: string;
  /** Keys whose delete outcome the input cannot tell (replays). */
  unknown: string[];
  /** Keys the input shows were never deleted by the controller (replays; walked back). */
  unmade: string[];
}

/** syncReplicaSet outcomes. */
export type SyncOutcome =
  | 'synced' // passed the gate (fulfilled / expired / never recorded) and ran manageReplicas
  | 'gated' // SatisfiedExpectations false
  | 'rs-being-deleted' // passed or not, RS has deletionTimestamp: no manage
  | 'rs-not-found'
  | 'claim-error'
  | 'selector-error'
  | 'consistency-skip' // [1.36+] informer behind the controller's own writes
  | 'withheld'; // replays: the model would write, the input shows the controller did not

export interface SyncRecord {
  at: number;
  key: string;
  rsUid?: string;
  outcome: SyncOutcome;
  /** SatisfiedExpectations result, when it was evaluated. */
  expectations?: SatisfiedOutcome;
  recordBefore?: ExpectationsRecord;
  desired?: number;
  active?: number;
  /** status.terminatingReplicas as this version computes it (undefined where the feature is off). */
  terminating?: number;
  /** Terminating pods controlled by the RS, whatever the version (for the report). */
  terminatingPods?: number;
  ready?: number;
  available?: number;
  diff?: number;
  create?: CreateRound;
  delete?: DeleteRound;
  claims?: ClaimDecision[];
  /** Round number of the sync's adopt/release patches, when it made any. */
  claimRound?: number;
  claimErrors?: string[];
  /** The error the sync returned (rate-limited requeue), if any. */
  error?: string;
  /** When the sync's last API call completed, if later than `at` (the sync occupies the key until then). */
  doneAt?: number;
  /** Requeue: 'rate-limited' after an error, 'after' for the availability check. */
  requeue?: { kind: 'rate-limited' | 'after'; delayMs: number };
  /** ReplicaSet has no controllerRef: the "ReplicaSet has no controller" ERROR line on scale-down. */
  noControllerNoise?: boolean;
}

/** What an informer handler did, for evidence and tests. */
export interface HandlerRecord {
  at: number;
  handler: 'addPod' | 'updatePod' | 'deletePod' | 'addRS' | 'updateRS' | 'deleteRS';
  object: string;
  /** UID of the pod or ReplicaSet the handler saw. */
  uid?: string;
  effects: string[];
}

export interface ControllerOptions {
  version: K8sVersion;
  podControl: PodControl;
  /** Override ExpectationsTimeout (tests only; the real value is 5 min). */
  expectationsTimeoutMs?: number;
  burstReplicas?: number;
  /** Receives each sync as it happens. */
  onSync?: (s: SyncRecord) => void;
  onHandler?: (h: HandlerRecord) => void;
  /**
   * Record the ClaimObject decision for every candidate on every sync (default true). A
   * replay turns it off: the decisions only matter when a pod is adopted or released.
   */
  recordClaimDecisions?: boolean;
}

/** A DeletedFinalStateUnknown tombstone: the informer missed the delete; `obj` may be stale. */
export interface Tombstone<T> {
  tombstone: true;
  key: string;
  obj: T;
}

const selectorErrors = new WeakMap<object, string | undefined>();
/** validateLabelSelector, cached per selector object (every sync checks it). */
function cachedSelectorError(sel: ReplicaSet['spec'] extends infer S ? (S extends { selector?: infer L } ? L : never) : never): string | undefined {
  if (!sel) return validateLabelSelector(sel);
  if (selectorErrors.has(sel)) return selectorErrors.get(sel);
  const e = validateLabelSelector(sel);
  selectorErrors.set(sel, e);
  return e;
}

function isTombstone<T>(x: T | Tombstone<T>): x is Tombstone<T> {
  return (x as Tombstone<T>).tombstone === true;
}

function sameLabels(a: Record<string, string> | null | undefined, b: Record<string, string> | null | undefined): boolean {
  const ea = Object.entries(a ?? {});
  const eb = b ?? {};
  return ea.length === Object.keys(eb).length && ea.every(([k, v]) => eb[k] === v);
}

function sameRef(a: OwnerReference | undefined, b: OwnerReference | undefined): boolean {
  if (!a || !b) return a === b;
  return a.apiVersion === b.apiVersion && a.kind === b.kind && a.name === b.name && a.uid === b.uid &&
    a.controller === b.controller && a.blockOwnerDeletion === b.blockOwnerDeletion;
}

/** Per-ReplicaSet pod counts kept up to date on every pod delivery. */
interface RsAggregate {
  uid?: string;
  selectorJSON: string;
  matches: (labels: Record<string, string> | null | undefined) => boolean;
  /** Active pods controlled by the RS that match its selector (what ClaimPods keeps). */
  owned: number;
  ready: number;
  /** Active pods that would be adopted or released (owned-not-matching, orphan-matching). */
  needsClaim: number;
  terminating: number;
}

function podContribution(agg: RsAggregate, p: Pod | undefined, sign: 1 | -1): void {
  if (!p) return;
  const ref = controllerRefOf(p.metadata);
  if (ref && ref.uid !== agg.uid) return;
  const matching = agg.matches(p.metadata.labels);
  if (isPodActive(p)) {
    if (ref) {
      if (matching) {
        agg.owned += sign;
        if (isPodReady(p)) agg.ready += sign;
      } else agg.needsClaim += sign;
    } else if (matching) agg.needsClaim += sign;
  } else if (ref && matching && p.metadata.deletionTimestamp && p.status?.phase !== 'Succeeded' && p.status?.phase !== 'Failed') {
    agg.terminating += sign;
  }
}

export class ReplicaSetController {
  readonly expectations: ControllerExpectations;
  readonly queue = new WorkQueue();
  readonly features: VersionFeatures;
  /** The informer caches, keyed `namespace/name`; the pod cache carries the podController index (pod-store.ts). */
  readonly pods = new PodStore();
  readonly replicaSets = new Map<string, ReplicaSet>();
  private round = 0;
  private readonly burst: number;
  /** Key → time its current sync ends (a sync that made API calls takes as long as they do). */
  private readonly busyUntil = new Map<string, number>();
  /**
   * Incrementally maintained per-ReplicaSet counts of its candidate pods, so a steady-state
   * sync (nothing to adopt or release, no availability delay) costs O(1) instead of a scan of
   * the namespace. Only used when `recordClaimDecisions` is false (replays); the result is
   * identical to the scan (checked by test/model/aggregate.test.ts).
   */
  private readonly aggs = new Map<string, RsAggregate>();
  private readonly rsByNamespace = new Map<string, Set<string>>();
  /** Aggregate keys by the ReplicaSet UID they count for: a pod with a controllerRef only counts for its controller's. */
  private readonly aggsByUid = new Map<string | undefined, Set<string>>();

  constructor(private readonly opts: ControllerOptions) {
    this.expectations = new ControllerExpectations(opts.expectationsTimeoutMs);
    this.features = featuresOf(opts.version);
    this.burst = opts.burstReplicas ?? BURST_REPLICAS;
  }

  // ───────────────────────────── informer delivery ─────────────────────────────

  /**
   * Delivers a watch event the way a shared informer does (client-go processDeltas):
   * ADDED/MODIFIED of an object already in the store → update handler, otherwise add
   * handler; DELETED → delete handler (and removal from the store).
   */
  deliverPod(watchType: 'ADDED' | 'MODIFIED' | 'DELETED', pod: Pod, at: number): void {
    const key = objectKey(pod.metadata);
    if (this.opts.recordClaimDecisions === false) {
      this.contribute(pod.metadata.namespace ?? '', this.pods.get(key), -1);
      if (watchType !== 'DELETED') this.contribute(pod.metadata.namespace ?? '', pod, 1);
    }
    if (watchType === 'DELETED') {
      this.pods.delete(key);
      this.deletePod(pod, at);
      return;
    }
    const old = this.pods.get(key);
    this.pods.set(key, pod);
    if (old) this.updatePod(old, pod, at);
    else this.addPod(pod, at);
  }

  /** Same as deliverPod for ReplicaSets. */
  deliverReplicaSet(watchType: 'ADDED' | 'MODIFIED' | 'DELETED', rs: ReplicaSet, at: number): void {
    const key = objectKey(rs.metadata);
    if (this.opts.recordClaimDecisions === false) this.reindex(key, watchType === 'DELETED' ? undefined : rs);
    if (watchType === 'DELETED') {
      this.replicaSets.delete(key);
      this.deleteRS(rs, at);
      return;
    }
    const old = this.replicaSets.get(key);
    this.replicaSets.set(key, rs);
    if (old) this.updateRS(old, rs, at);
    else this.addRS(rs, at);
  }

  /** Rebuilds (or drops) the aggregate of one ReplicaSet when its UID or selector changes. */
  private reindex(key: string, rs: ReplicaSet | undefined): void {
    const ns = key.slice(0, key.indexOf('/'));
    const prev = this.aggs.get(key);
    if (!rs) {
      if (prev) this.aggsByUid.get(prev.uid)?.delete(key);
      this.aggs.delete(key);
      this.rsByNamespace.get(ns)?.delete(key);
      return;
    }
    const selectorJSON = JSON.stringify(rs.spec?.selector ?? null);
    if (prev && prev.uid === rs.metadata.uid && prev.selectorJSON === selectorJSON) return;
    if (prev) this.aggsByUid.get(prev.uid)?.delete(key);
    const agg: RsAggregate = { uid: rs.metadata.uid, selectorJSON, matches: compileLabelSelector(rs.spec?.selector), owned: 0, ready: 0, needsClaim: 0, terminating: 0 };
    for (const p of this.pods.inNamespace(ns)) podContribution(agg, p, 1);
    this.aggs.set(key, agg);
    let byUid = this.aggsByUid.get(agg.uid);
    if (!byUid) this.aggsByUid.set(agg.uid, (byUid = new Set()));
    byUid.add(key);
    let set = this.rsByNamespace.get(ns);
    if (!set) this.rsByNamespace.set(ns, (set = new Set()));
    set.add(key);
  }

  /**
   * Adds (or removes) a cached pod's share to the aggregates of the ReplicaSets in `ns` (the
   * namespace of the delivered object's key). A pod with a controllerRef counts only for the
   * aggregate of that UID (podContribution ignores it for every other), so only an orphan is
   * offered to every ReplicaSet of the namespace.
   */
  private contribute(ns: string, p: Pod | undefined, sign: 1 | -1): void {
    if (!p) return;
    const rsKeys = this.rsByNamespace.get(ns);
    if (!rsKeys || rsKeys.size === 0) return;
    const ref = controllerRefOf(p.metadata);
    if (ref) {
      for (const k of this.aggsByUid.get(ref.uid) ?? []) {
        if (!rsKeys.has(k)) continue;
        const agg = this.aggs.get(k);
        if (agg) podContribution(agg, p, sign);
      }
      return;
    }
    for (const k of rsKeys) {
      const agg = this.aggs.get(k);
      if (agg) podContribution(agg, p, sign);
    }
  }

  /** Current counts of the ReplicaSet's pods (replays only; undefined without the incremental index). */
  podCounts(key: string): { active: number; ready: number; terminating: number } | undefined {
    const a = this.aggs.get(key);
    return a ? { active: a.owned, ready: a.ready, terminating: a.terminating } : undefined;
  }

  /** The sync of `key` in progress is now known to last until `until` (its calls are still returning). */
  extendBusy(key: string, until: number): void {
    if (this.busyUntil.has(key)) this.busyUntil.set(key, until);
  }

  /**
   * Not an upstream function. Removes a pod from the informer cache without running any
   * handler: the replay calls it when the controller's own status write shows that its
   * informer had not delivered the pod yet (analysis/controller-view.ts) — kexp's cache must not
   * hold what the controller's did not. Returns the pod removed.
   */
  withholdPod(key: string): Pod | undefined {
    const p = this.pods.get(key);
    if (!p) return undefined;
    if (this.opts.recordClaimDecisions === false) this.contribute(p.metadata.namespace ?? '', p, -1);
    this.pods.delete(key);
    return p;
  }

  /** Not an upstream function: puts a withheld pod back without running handlers (the end of a replay, for the report). */
  restorePod(pod: Pod): void {
    const key = objectKey(pod.metadata);
    if (this.pods.get(key)) return;
    if (this.opts.recordClaimDecisions === false) this.contribute(pod.metadata.namespace ?? '', pod, 1);
    this.pods.set(key, pod);
  }

  /** A tombstone delivered after a relist (DeletedFinalStateUnknown). */
  deliverPodTombstone(stale: Pod, at: number): void {
    const key = objectKey(stale.metadata);
    if (this.opts.recordClaimDecisions === false) this.contribute(stale.metadata.namespace ?? '', this.pods.get(key), -1);
    this.pods.delete(key);
    this.deletePod({ tombstone: true, key, obj: stale }, at);
  }

  // ───────────────────────────── handlers (§3) ─────────────────────────────

  /** Handler records are only built when someone listens (they are the hot path of a replay). */
  private report(h: HandlerRecord | (() => HandlerRecord)): void {
    if (this.opts.onHandler) this.opts.onHandler(typeof h === 'function' ? h() : h);
  }

  /** resolveControllerRef: the RS named by the ref, only if Kind is ReplicaSet and the UID matches the lister's. */
  resolveControllerRef(namespace: string, ref: OwnerReference | undefined): ReplicaSet | undefined {
    if (!ref || ref.kind !== 'ReplicaSet') return undefined;
    const rs = this.replicaSets.get(`${namespace}/${ref.name}`);
    if (!rs || rs.metadata.uid !== ref.uid) return undefined;
    return rs;
  }

  /** GetPodReplicaSets: RSes in the pod's namespace whose non-empty selector matches its labels. */
  getPodReplicaSets(pod: Pod): ReplicaSet[] {
    const out: ReplicaSet[] = [];
    for (const rs of this.replicaSets.values()) {
      if (rs.metadata.namespace !== pod.metadata.namespace) continue;
      const sel = rs.spec?.selector;
      if (!sel || (!Object.keys(sel.matchLabels ?? {}).length && !(sel.matchExpressions ?? []).length)) continue;
      if (validateLabelSelector(sel)) continue;
      if (labelSelectorMatches(sel, pod.metadata.labels)) out.push(rs);
    }
    return out;
  }

  private enqueue(rs: ReplicaSet, at: number): string {
    const key = objectKey(rs.metadata);
    this.queue.add(key, at);
    return key;
  }

  /** addPod in replica_set.go. */
  addPod(pod: Pod, at: number): void {
    const name = objectKey(pod.metadata);
    if (pod.metadata.deletionTimestamp) {
      // A pod first seen already terminating (e.g. after a restart) is a deletion, never a creation.
      this.report(() => ({ at, handler: 'addPod', object: name, effects: ['routed to deletePod (deletionTimestamp set)'] }));
      this.deletePod(pod, at);
      return;
    }
    const ref = controllerRefOf(pod.metadata);
    if (ref) {
      const rs = this.resolveControllerRef(pod.metadata.namespace ?? '', ref);
      if (!rs) {
        this.report(() => ({ at, handler: 'addPod', object: name, effects: ['controllerRef does not resolve: ignored'] }));
        return;
      }
      const key = objectKey(rs.metadata);
      this.expectations.creationObserved(key, at);
      this.queue.add(key, at);
      this.report(() => ({ at, handler: 'addPod', object: name, effects: [`CreationObserved(${key})`, `enqueue ${key}`] }));
      return;
    }
    const rss = this.getPodReplicaSets(pod);
    for (const rs of rss) this.enqueue(rs, at);
    this.report(() => ({ at, handler: 'addPod', object: name, effects: rss.map((r) => `enqueue ${objectKey(r.metadata)} (orphan)`) }));
  }

  /** updatePod in replica_set.go. */
  updatePod(old: Pod, cur: Pod, at: number): void {
    const name = objectKey(cur.metadata);
    if (cur.metadata.resourceVersion !== undefined && cur.metadata.resourceVersion === old.metadata.resourceVersion) {
      this.report(() => ({ at, handler: 'updatePod', object: name, effects: ['same resourceVersion (resync): ignored'] }));
      return;
    }
    const labelChanged = !sameLabels(cur.metadata.labels, old.metadata.labels);
    if (cur.metadata.deletionTimestamp) {
      this.deletePod(cur, at, 'updatePod');
      if (labelChanged) this.deletePod(old, at, 'updatePod');
      return;
    }
    const effects: string[] = [];
    const curRef = controllerRefOf(cur.metadata);
    const oldRef = controllerRefOf(old.metadata);
    const refChanged = !sameRef(curRef, oldRef);
    if (refChanged && oldRef) {
      const oldRS = this.resolveControllerRef(old.metadata.namespace ?? '', oldRef);
      if (oldRS) effects.push(`enqueue ${this.enqueue(oldRS, at)} (old owner)`);
    }
    if (curRef) {
      const rs = this.resolveControllerRef(cur.metadata.namespace ?? '', curRef);
      if (!rs) {
        this.report(() => ({ at, handler: 'updatePod', object: name, effects: [...effects, 'controllerRef does not resolve'] }));
        return;
      }
      effects.push(`enqueue ${this.enqueue(rs, at)}`);
      const minReady = rs.spec?.minReadySeconds ?? 0;
      if (!isPodReady(old) && isPodReady(cur) && minReady > 0) {
        const delay = (minReady + (this.features.availabilityExtraSecond ? 1 : 0)) * 1000;
        // (the +1 s of ≤1.33 already clears the strict boundary; ≥1.34 relies on the sync's requeue)
        this.queue.addAfter(objectKey(rs.metadata), at, delay);
        effects.push(`enqueue after ${delay} ms for availability check`);
      }
      this.report(() => ({ at, handler: 'updatePod', object: name, effects }));
      return;
    }
    if (labelChanged || refChanged) {
      for (const rs of this.getPodReplicaSets(cur)) effects.push(`enqueue ${this.enqueue(rs, at)} (orphan)`);
    }
    this.report(() => ({ at, handler: 'updatePod', object: name, effects }));
  }

  /** deletePod in replica_set.go; accepts a tombstone whose object may be stale. */
  deletePod(obj: Pod | Tombstone<Pod>, at: number, caller: HandlerRecord['handler'] = 'deletePod'): void {
    const pod = isTombstone(obj) ? obj.obj : obj;
    const name = objectKey(pod.metadata);
    const ref = controllerRefOf(pod.metadata);
    if (!ref) {
      this.report(() => ({ at, handler: caller, object: name, effects: ['deletion of an orphan: ignored'] }));
      return;
    }
    const rs = this.resolveControllerRef(pod.metadata.namespace ?? '', ref);
    if (!rs) {
      this.report(() => ({ at, handler: caller, object: name, effects: ['controllerRef does not resolve: deletion ignored'] }));
      return;
    }
    const key = objectKey(rs.metadata);
    const counted = this.expectations.deletionObserved(key, name, at);
    this.queue.add(key, at);
    this.report(() => ({
      at,
      handler: caller,
      object: name,
      uid: pod.metadata.uid,
      effects: [counted ? `DeletionObserved(${key}, ${name})` : `deletion of ${name} not expected: no change`, `enqueue ${key}`],
    }));
  }

  /** addRS in replica_set.go. */
  addRS(rs: ReplicaSet, at: number): void {
    const key = this.enqueue(rs, at);
    this.report(() => ({ at, handler: 'addRS', object: key, effects: [`enqueue ${key}`] }));
  }

  /** updateRS in replica_set.go: a UID change is a delete+recreate; always enqueues (no RV check). */
  updateRS(old: ReplicaSet, cur: ReplicaSet, at: number): void {
    const key = objectKey(cur.metadata);
    const effects: string[] = [];
    if (old.metadata.uid !== cur.metadata.uid) {
      this.deleteRS({ tombstone: true, key, obj: old }, at);
      effects.push('UID changed: deleteRS(old)');
    }
    if (desiredReplicas(old) !== desiredReplicas(cur)) {
      effects.push(`desired pod count change ${desiredReplicas(old)}->${desiredReplicas(cur)}`);
    }
    this.queue.add(key, at);
    effects.push(`enqueue ${key}`);
    this.report(() => ({ at, handler: 'updateRS', object: key, effects }));
  }

  /** deleteRS in replica_set.go: DeleteExpectations, then enqueue. */
  deleteRS(obj: ReplicaSet | Tombstone<ReplicaSet>, at: number): void {
    const rs = isTombstone(obj) ? obj.obj : obj;
    const key = objectKey(rs.metadata);
    this.expectations.delete(key, at);
    this.queue.add(key, at);
    this.report(() => ({ at, handler: 'deleteRS', object: key, effects: ['DeleteExpectations', `enqueue ${key}`] }));
  }

  // ───────────────────────────── sync (§4) ─────────────────────────────

  /**
   * Runs every queued sync due before `before` (or at it, when `inclusive`), in due order.
   * Returns the syncs run.
   */
  runDue(before: number, inclusive = false): SyncRecord[] {
    const out: SyncRecord[] = [];
    for (let n = this.queue.next(before, inclusive); n; n = this.queue.next(before, inclusive)) {
      const busy = this.busyUntil.get(n.key);
      if (busy !== undefined && n.at < busy) {
        // The key is still being processed by an earlier sync: the workqueue marks it dirty
        // and hands it out once more when that sync is Done.
        this.queue.add(n.key, busy);
        continue;
      }
      if (busy !== undefined) this.busyUntil.delete(n.key);
      out.push(this.syncReplicaSet(n.key, n.at));
    }
    return out;
  }

  /** True while an earlier sync of `key` is still making its API calls at `at`. */
  isBusy(key: string, at: number): boolean {
    const busy = this.busyUntil.get(key);
    return busy !== undefined && at < busy;
  }

  /**
   * Candidate pods: [≤1.32] every pod in the namespace (rsc.podLister.Pods(ns).List); [1.33+]
   * FilterPodsByOwner(rsc.podIndexer, &rs.ObjectMeta, rsc.Kind, true) in syncReplicaSet
   * (pkg/controller/replicaset/replica_set.go, pkg/controller/controller_utils.go v1.37.2): the
   * podController index under this ReplicaSet's key plus the namespace's orphans. 1.34.0–1.34.1
   * key the controllerRef by UID only, 1.34.2+ by kind/name/UID (PodControllerIndexKey). Read
   * from the cache's indexes (pod-store.ts), in cache order like the scan it replaces.
   */
  private candidatePods(rs: ReplicaSet): Pod[] {
    const ns = rs.metadata.namespace;
    if (!this.features.podIndexListing) return [...this.pods.inNamespace(ns)];
    if (this.features.podIndexListing === 'uid') return this.pods.ownedAndOrphans(ns, rs.metadata.uid);
    const name = rs.metadata.name;
    return this.pods.ownedAndOrphans(ns, rs.metadata.uid, (p) => {
      const ref = controllerRefOf(p.metadata)!;
      return ref.kind === 'ReplicaSet' && ref.name === name;
    });
  }

  /** syncReplicaSet in replica_set.go. */
  syncReplicaSet(key: string, at: number): SyncRecord {
    const rec = this.sync(key, at);
    this.opts.onSync?.(rec);
    return rec;
  }

  private sync(key: string, at: number): SyncRecord {
    this.doneAt = at;
    const rec = this.syncInner(key, at);
    if (this.doneAt > at) {
      this.busyUntil.set(key, this.doneAt);
      rec.doneAt = this.doneAt;
    }
    return rec;
  }

  /** Latest completion time of the API calls made by the sync in progress. */
  private doneAt = 0;

  private syncInner(key: string, at: number): SyncRecord {
    const rs = this.replicaSets.get(key);
    if (!rs) {
      this.expectations.delete(key, at);
      this.queue.forget(key);
      return { at, key, outcome: 'rs-not-found' };
    }
    const base: SyncRecord = { at, key, rsUid: rs.metadata.uid, outcome: 'synced', desired: desiredReplicas(rs) };
    if (this.features.consistencyGate && this.opts.podControl.informerBehindOwnWrites?.(key, at)) {
      const delay = this.queue.addRateLimited(key, at);
      return { ...base, outcome: 'consistency-skip', error: 'ConsistencyError: informer has not observed the controller\'s last write', requeue: { kind: 'rate-limited', delayMs: delay } };
    }
    const sat = this.expectations.satisfied(key, at);
    base.expectations = sat.outcome;
    base.recordBefore = sat.record;
    const selErr = cachedSelectorError(rs.spec?.selector ?? null);
    if (selErr || !rs.spec?.selector) {
      // HandleError and return nil: no requeue, and the nil return resets the backoff.
      this.queue.forget(key);
      return { ...base, outcome: 'selector-error', error: `error converting pod selector to selector for rs ${key}: ${selErr ?? 'nil selector'}` };
    }
    const agg = this.opts.recordClaimDecisions === false ? this.aggs.get(key) : undefined;
    if (agg && agg.uid === rs.metadata.uid && agg.needsClaim === 0 && !(rs.spec?.minReadySeconds) && agg.owned === desiredReplicas(rs)) {
      // Steady state: ClaimPods keeps the owned pods, diff = 0, manageReplicas does nothing.
      base.active = agg.owned;
      base.ready = agg.ready;
      base.available = agg.ready;
      base.terminatingPods = agg.terminating;
      if (this.features.terminatingReplicas) base.terminating = agg.terminating;
      base.diff = 0;
      if (!sat.satisfied) base.outcome = 'gated';
      else if (rs.metadata.deletionTimestamp) base.outcome = 'rs-being-deleted';
      this.queue.forget(key);
      return base;
    }
    const candidates = this.candidatePods(rs);
    const matches = compileLabelSelector(rs.spec.selector);
    const rsUid = rs.metadata.uid;
    // Fast path: when every active candidate is owned-and-matching (keep), owned by another
    // controller, or a non-matching orphan (ignore), ClaimPods makes no API call and its
    // result is simply the owned pods; only adopt/release candidates need the full table.
    const allActive: Pod[] = [];
    const owned: Pod[] = [];
    let needsClaim = false;
    for (const p of candidates) {
      if (!isPodActive(p)) continue;
      allActive.push(p);
      const ref = controllerRefOf(p.metadata);
      if (ref) {
        if (ref.uid !== rsUid) continue;
        if (matches(p.metadata.labels)) owned.push(p);
        else needsClaim = true;
      } else if (matches(p.metadata.labels)) needsClaim = true;
    }
    let active: Pod[] = owned;
    if (!needsClaim && this.opts.recordClaimDecisions !== false) base.claims = allActive.map(claimDecider(rs));
    if (needsClaim) {
      let canAdoptResult: CanAdoptCheck | undefined;
      const claim = claimPods(
        rs,
        allActive,
        () => (canAdoptResult ??= recheckDeletionTimestamp(rs, this.opts.podControl.getFreshReplicaSet(rs, at))),
        (pod, action) => this.opts.podControl.patchPod(pod, action, at, (base.claimRound ??= ++this.round), rs),
      );
      base.claims = claim.decisions;
      if (claim.errors.length > 0) {
        const delay = this.queue.addRateLimited(key, at);
        return { ...base, outcome: 'claim-error', claimErrors: claim.errors, error: claimError(claim.errors) ?? claim.errors.join(', '), requeue: { kind: 'rate-limited', delayMs: delay } };
      }
      active = claim.claimed;
    }
    let terminatingCount = 0;
    for (const p of candidates) {
      if (p.metadata.deletionTimestamp && p.status?.phase !== 'Succeeded' && p.status?.phase !== 'Failed' &&
        controllerRefOf(p.metadata)?.uid === rsUid && matches(p.metadata.labels)) terminatingCount++;
    }
    base.active = active.length;
    base.terminatingPods = terminatingCount;
    if (this.features.terminatingReplicas) base.terminating = terminatingCount;
    const minReadyMs = (rs.spec?.minReadySeconds ?? 0) * 1000;
    let ready = 0;
    let available = 0;
    for (const p of active) {
      if (!isPodReady(p)) continue;
      ready++;
      if (minReadyMs === 0) available++;
      else {
        const since = podReadySince(p);
        // IsPodAvailable: strict before 1.34, inclusive from 1.34.
        if (since !== undefined && (this.features.availabilityInclusive ? since + minReadyMs <= at : since + minReadyMs < at)) available++;
      }
    }
    base.ready = ready;
    base.available = available;
    base.diff = active.length - desiredReplicas(rs);

    let manageErr: string | undefined;
    if (!sat.satisfied) {
      base.outcome = 'gated';
    } else if (rs.metadata.deletionTimestamp) {
      base.outcome = 'rs-being-deleted';
    } else if (base.diff !== 0 && this.opts.podControl.madeNoWrites?.(rs, base.diff, at)) {
      base.outcome = 'withheld';
    } else {
      manageErr = this.manageReplicas(active, rs, at, base);
    }
    if (sat.satisfied && rs.metadata.deletionTimestamp) base.outcome = 'rs-being-deleted';

    if (manageErr) {
      base.error = manageErr;
      const delay = this.queue.addRateLimited(key, at);
      base.requeue = { kind: 'rate-limited', delayMs: delay };
      return base;
    }
    this.queue.forget(key);
    // Availability requeue (§4 step 14).
    if (minReadyMs > 0 && base.ready !== base.available) {
      let delay: number | undefined;
      if (this.features.availabilityExtraSecond) {
        if (base.ready === desiredReplicas(rs)) delay = minReadyMs + 1; // +1 ms: see the strict boundary below
      } else {
        const next = active
          .filter(isPodReady)
          .map((p) => podReadySince(p))
          .filter((t): t is number => t !== undefined && (this.features.availabilityInclusive ? t + minReadyMs > at : t + minReadyMs >= at))
          // Strict IsPodAvailable (before 1.34): the first instant the pod counts is 1 ms after
          // the boundary in this ms-resolution model; inclusive (1.34+): the boundary itself.
          .map((t) => t + minReadyMs - at + (this.features.availabilityInclusive ? 0 : 1));
        delay = next.length ? Math.min(...next) : minReadyMs;
      }
      if (delay !== undefined) {
        this.queue.addAfter(key, at, delay);
        base.requeue = { kind: 'after', delayMs: delay };
      }
    }
    return base;
  }

  /** manageReplicas in replica_set.go. Returns the error the sync would return. */
  private manageReplicas(active: Pod[], rs: ReplicaSet, at: number, rec: SyncRecord): string | undefined {
    const key = objectKey(rs.metadata);
    const diff = active.length - desiredReplicas(rs);
    if (diff < 0) {
      const n = Math.min(-diff, this.burst);
      this.expectations.expectCreations(key, n, at);
      const round = ++this.round;
      const r: CreateRound = { round, n, batches: [], calls: 0, successes: 0, skipped: 0, namespaceTerminating: 0, errors: [], unknown: 0, unmade: 0 };
      // slowStartBatch: batches 1, 2, 4, … each min(2·prev, remaining); stop after a batch with a failure.
      let remaining = n;
      let index = 0;
      let unmade = false;
      for (let size = Math.min(remaining, SLOW_START_INITIAL_BATCH_SIZE); size > 0 && !unmade; size = Math.min(2 * size, remaining)) {
        r.batches.push(size);
        let failed = 0;
        let made = 0;
        for (let i = 0; i < size; i++) {
          const res = this.opts.podControl.createPod(rs, { round, index: index++, n, at });
          if (res.doneAt !== undefined && res.doneAt > this.doneAt) this.doneAt = res.doneAt;
          if (!res.ok && res.unmade) {
            // Replays: the input shows no more calls; the rest of the round was never made.
            unmade = true;
            break;
          }
          r.calls++;
          made++;
          if (res.ok) {
            if (res.unknown) r.unknown++;
            continue;
          }
          if (res.namespaceTerminating) {
            // createPods treats a NamespaceTerminating rejection as "nothing to do": counted as success.
            r.namespaceTerminating++;
            continue;
          }
          failed++;
          r.errors.push(res.error);
        }
        if (unmade) r.batches[r.batches.length - 1] = made;
        if (unmade && made === 0) r.batches.pop();
        r.successes += made - failed;
        remaining -= made;
        if (failed > 0) break;
      }
      if (unmade) r.unmade = remaining;
      r.skipped = n - r.successes;
      for (let i = 0; i < r.skipped; i++) this.expectations.creationObserved(key, at);
      rec.create = r;
      return r.errors[0];
    }
    if (diff > 0) {
      const n = Math.min(diff, this.burst);
      const related = this.relatedPods(rs, rec);
      let victims = getPodsToDelete(active, related, n, at, { sidecarRestartTiebreak: this.features.sidecarRestartTiebreak });
      let note: string | undefined;
      if (this.opts.podControl.chooseDeletions) {
        const c = this.opts.podControl.chooseDeletions(rs, victims, active, at);
        victims = c.pods;
        note = c.note;
      }
      const keys = victims.map((p) => objectKey(p.metadata));
      this.expectations.expectDeletions(key, keys, at);
      const round = ++this.round;
      const d: DeleteRound = { round, n, keys, uids: victims.map((p) => p.metadata.uid ?? ''), failed: [], notFound: [], errors: [], note, unknown: [], unmade: [] };
      for (const pod of victims) {
        const res = this.opts.podControl.deletePod(rs, pod, { round, at });
        if (res.doneAt !== undefined && res.doneAt > this.doneAt) this.doneAt = res.doneAt;
        const pk = objectKey(pod.metadata);
        if (res.ok) {
          if (res.unknown) d.unknown.push(pk);
          continue;
        }
        this.expectations.deletionObserved(key, pk, at);
        if (res.unmade) d.unmade.push(pk);
        else if (res.notFound) d.notFound.push(pk);
        else {
          d.failed.push(pk);
          d.errors.push(`unable to delete pods: ${res.error}`);
        }
      }
      rec.delete = d;
      return d.errors[0];
    }
    return undefined;
  }

  /** getIndirectlyRelatedPods: pods (by selector) of every RS sharing this RS's controller. */
  private relatedPods(rs: ReplicaSet, rec: SyncRecord): Pod[] {
    const owner = controllerRefOf(rs.metadata);
    if (!owner) {
      rec.noControllerNoise = true;
      return [];
    }
    const seen = new Map<string, Pod>();
    for (const other of this.replicaSets.values()) {
      if (other.metadata.namespace !== rs.metadata.namespace) continue;
      if (controllerRefOf(other.metadata)?.uid !== owner.uid) continue;
      // compileLabelSelector answers like labelSelectorMatches (an invalid or nil selector
      // matches nothing) without validating the selector again for every pod.
      const matches = compileLabelSelector(other.spec?.selector);
      for (const p of this.pods.inNamespace(rs.metadata.namespace)) {
        if (matches(p.metadata.labels)) seen.set(p.metadata.uid ?? objectKey(p.metadata), p);
      }
    }
    return [...seen.values()];
  }
}

