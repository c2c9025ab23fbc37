/**
 * A deterministic model of the ReplicaSet controller in kube-controller-manager: its event
 * handlers, syncReplicaSet, manageReplicas and the claim of its pods, over the machinery every
 * pod-owning controller shares (src/model/controller/: the informers, tombstones, busy time and
 * the worker that runs due syncs; expectations.ts, workqueue.ts, pod-store.ts).
 *
 * Mirrors pkg/controller/replicaset/replica_set.go (ReplicaSetController) as described in
 * controller-semantics.md §3–§6; version switches from §9 come from `VersionFeatures`.
 *
 * Contract: the controller seam (controller/controller.ts) for ReplicaSets. No I/O, no clock: what
 * the real controller would ask the API server is answered by the caller's `PodControl` (tests
 * script it, a replay answers from the input). The model never writes into its own informer
 * cache: like the real controller, it sees its writes only when the input delivers them.
 *
 * Cost: a handler is O(1) for a pod with a controllerRef, O(ReplicaSets of the namespace) for an
 * orphan; a sync reads its candidate pods from the pod cache's index (O(its pods + the
 * namespace's orphans)), or, in a replay with nothing to claim, its counts (pod-counts.ts: O(1),
 * O(log pods) under minReadySeconds), listing the owned pods only to rank a scale-down's victims.
 */
import { ControllerExpectations } from '../expectations.js';
import { controllerRefOf, desiredReplicas, objectKey, sameLabels, sameOwnerReference, type LabelSelector, type OwnerReference, type Pod, type ReplicaSet } from '../objects.js';
import { cachedSelectorError, compileLabelSelector, labelSelectorMatches, validateLabelSelector } from '../selector.js';
import { getPodsToDelete, isPodActive, isPodReady, podReadySince } from '../pod-ranking.js';
import { claimDecider, claimError, claimPods, recheckDeletionTimestamp, type CanAdoptCheck } from '../adoption.js';
import { featuresOf, type K8sVersion, type VersionFeatures } from '../version.js';
import { WorkQueue } from '../workqueue.js';
import { PodStore } from '../pod-store.js';
import type { Controller, ControllerFactory, PodCounts } from '../controller/controller.js';
import type { PodControl } from '../controller/pod-control.js';
import type { CreateRound, DeleteRound, SyncRecord } from '../controller/sync-record.js';
import { Informer, type WatchType } from '../controller/informer.js';
import { tombstoneOf, unwrapTombstone, type Tombstone } from '../controller/tombstone.js';
import { BusyTime } from '../controller/busy-time.js';
import { Worker } from '../controller/worker.js';
import { availableCount, ReplicaSetPodCounts } from './pod-counts.js';
import { REPLICA_SET_KIND, type OwnerKind } from './owner-kind.js';

/** BurstReplicas in pkg/controller/replicaset/replica_set.go. */
export const BURST_REPLICAS = 500;
/** SlowStartInitialBatchSize in pkg/controller/controller_utils.go. */
export const SLOW_START_INITIAL_BATCH_SIZE = 1;

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
  podControl: PodControl<ReplicaSet>;
  /**
   * The kind the controller runs as (NewBaseController's gvk, names and features); default the
   * ReplicaSet. The ReplicationController manager passes its own (replicationcontroller/).
   */
  ownerKind?: OwnerKind;
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

export class ReplicaSetController implements Controller<ReplicaSet> {
  readonly expectations: ControllerExpectations;
  readonly queue = new WorkQueue();
  readonly features: VersionFeatures;
  /** The kind this controller runs as (rsc.Kind and the parameters NewBaseController was given). */
  readonly ownerKind: OwnerKind;
  /** status.terminatingReplicas: the version's feature and the kind's EnableStatusTerminatingReplicas. */
  private readonly terminatingReplicas: boolean;
  /** The consistency gate: the version's feature, unless the kind's store is NewNoopConsistencyStore. */
  private readonly consistencyGate: boolean;
  /** The kind as the claim messages name it. */
  private readonly claimKind: { kind: string; resource: string };
  /** The informer caches, keyed `namespace/name`; the pod cache carries the podController index (pod-store.ts). */
  readonly pods = new PodStore();
  /** The ReplicaSet informer's cache. */
  readonly owners = new Map<string, ReplicaSet>();
  private round = 0;
  private readonly burst: number;
  /** How long each key's sync occupies it (a sync that made API calls takes as long as they do). */
  private readonly busy = new BusyTime();
  private readonly worker: Worker<SyncRecord>;
  private readonly podInformer: Informer<Pod>;
  private readonly rsInformer: Informer<ReplicaSet>;
  /** Per-ReplicaSet pod counts for an O(1) steady-state sync; kept only when `recordClaimDecisions` is false (replays). */
  private readonly counts: ReplicaSetPodCounts | undefined;

  constructor(private readonly opts: ControllerOptions) {
    this.expectations = new ControllerExpectations(opts.expectationsTimeoutMs);
    this.features = featuresOf(opts.version);
    this.ownerKind = opts.ownerKind ?? REPLICA_SET_KIND;
    this.terminatingReplicas = this.features.terminatingReplicas && this.ownerKind.statusTerminatingReplicas;
    this.consistencyGate = this.features.consistencyGate && this.ownerKind.consistencyStore;
    this.claimKind = { kind: this.ownerKind.kind, resource: this.ownerKind.resource };
    this.burst = opts.burstReplicas ?? BURST_REPLICAS;
    const counts = opts.recordClaimDecisions === false ? new ReplicaSetPodCounts(this.pods, this.ownerKind.kind) : undefined;
    this.counts = counts;
    // The handlers NewBaseController registers on the pod and ReplicaSet informers.
    this.podInformer = new Informer<Pod>(
      this.pods,
      { onAdd: (pod, at) => this.addPod(pod, at), onUpdate: (old, cur, at) => this.updatePod(old, cur, at), onDelete: (obj, at) => this.deletePod(obj, at) },
      counts && ((old, cur, pod) => counts.podChanged(pod.metadata.namespace ?? '', old, cur)),
    );
    this.rsInformer = new Informer<ReplicaSet>(
      this.owners,
      { onAdd: (rs, at) => this.addRS(rs, at), onUpdate: (old, cur, at) => this.updateRS(old, cur, at), onDelete: (obj, at) => this.deleteRS(obj, at) },
      counts && ((_old, cur, rs) => counts.replicaSetChanged(objectKey(rs.metadata), cur)),
    );
    // rsc.syncHandler = rsc.syncReplicaSet
    this.worker = new Worker<SyncRecord>(this.queue, this.busy, (key, at) => this.syncReplicaSet(key, at), (s) => this.opts.onSync?.(s));
  }

  // ───────────────────────────── the controller seam ─────────────────────────────

  deliverPod(watchType: WatchType, pod: Pod, at: number): void {
    this.podInformer.deliver(watchType, pod, at);
  }

  deliverPodTombstone(stale: Pod, at: number): void {
    this.podInformer.deliverTombstone(stale, at);
  }

  deliverOwner(watchType: WatchType, rs: ReplicaSet, at: number): void {
    this.rsInformer.deliver(watchType, rs, at);
  }

  runDue(before: number, inclusive = false): SyncRecord[] {
    return this.worker.runDue(before, inclusive);
  }

  /** Syncs `key` now (syncReplicaSet through the worker: busy time, onSync). */
  sync(key: string, at: number): SyncRecord {
    return this.worker.sync(key, at);
  }

  isBusy(key: string, at: number): boolean {
    return this.busy.isBusy(key, at);
  }

  extendBusy(key: string, until: number): void {
    this.busy.extend(key, until);
  }

  /** Current counts of the ReplicaSet's pods (replays only; undefined without the incremental counts). */
  podCounts(key: string): PodCounts | undefined {
    return this.counts?.counts(key);
  }

  /**
   * Not an upstream function. Removes a pod from the informer cache without running any
   * handler: the replay calls it when the controller's own status write shows that its
   * informer had not delivered the pod yet (analysis/controller-view.ts) — kexp's cache must not
   * hold what the controller's did not. Returns the pod removed.
   */
  withholdPod(key: string): Pod | undefined {
    return this.podInformer.withhold(key);
  }

  /** Not an upstream function: puts a withheld pod back without running handlers (the end of a replay, for the report). */
  restorePod(pod: Pod): void {
    this.podInformer.restore(pod);
  }

  // ───────────────────────────── handlers (§3) ─────────────────────────────

  /** Handler records are only built when someone listens (they are the hot path of a replay). */
  private report(h: HandlerRecord | (() => HandlerRecord)): void {
    if (this.opts.onHandler) this.opts.onHandler(typeof h === 'function' ? h() : h);
  }

  /** resolveControllerRef: the RS named by the ref, only if Kind is rsc.Kind and the UID matches the lister's. */
  resolveControllerRef(namespace: string, ref: OwnerReference | undefined): ReplicaSet | undefined {
    return ref ? this.resolveControllerRefAt(`${namespace}/${ref.name}`, ref) : undefined;
  }

  /**
   * resolveControllerRef with the lister key `namespace/ref.name` already made — the key the
   * owner cache holds the ReplicaSet under, i.e. objectKey of what it returns (updatePod
   * enqueues with it instead of making it again).
   */
  private resolveControllerRefAt(key: string, ref: OwnerReference): ReplicaSet | undefined {
    if (ref.kind !== this.ownerKind.kind) return undefined;
    const rs = this.owners.get(key);
    if (!rs || rs.metadata.uid !== ref.uid) return undefined;
    return rs;
  }

  /** GetPodReplicaSets: RSes in the pod's namespace whose non-empty selector matches its labels. */
  getPodReplicaSets(pod: Pod): ReplicaSet[] {
    const out: ReplicaSet[] = [];
    for (const rs of this.owners.values()) {
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
    // The handlers run on every pod event of a replay: their records (and the strings and
    // closures in them) are built only when someone listens.
    const listen = this.opts.onHandler;
    if (pod.metadata.deletionTimestamp) {
      // A pod first seen already terminating (e.g. after a restart) is a deletion, never a creation.
      if (listen) listen({ at, handler: 'addPod', object: objectKey(pod.metadata), effects: ['routed to deletePod (deletionTimestamp set)'] });
      this.deletePod(pod, at);
      return;
    }
    const ref = controllerRefOf(pod.metadata);
    if (ref) {
      const rs = this.resolveControllerRef(pod.metadata.namespace ?? '', ref);
      if (!rs) {
        if (listen) listen({ at, handler: 'addPod', object: objectKey(pod.metadata), effects: ['controllerRef does not resolve: ignored'] });
        return;
      }
      const key = objectKey(rs.metadata);
      this.expectations.creationObserved(key, at);
      this.queue.add(key, at);
      if (listen) listen({ at, handler: 'addPod', object: objectKey(pod.metadata), effects: [`CreationObserved(${key})`, `enqueue ${key}`] });
      return;
    }
    const rss = this.getPodReplicaSets(pod);
    for (const rs of rss) this.enqueue(rs, at);
    if (listen) listen({ at, handler: 'addPod', object: objectKey(pod.metadata), effects: rss.map((r) => `enqueue ${objectKey(r.metadata)} (orphan)`) });
  }

  /** updatePod in replica_set.go. */
  updatePod(old: Pod, cur: Pod, at: number): void {
    const listen = this.opts.onHandler; // records only when someone listens (see addPod)
    if (cur.metadata.resourceVersion !== undefined && cur.metadata.resourceVersion === old.metadata.resourceVersion) {
      if (listen) listen({ at, handler: 'updatePod', object: objectKey(cur.metadata), effects: ['same resourceVersion (resync): ignored'] });
      return;
    }
    const labelChanged = !sameLabels(cur.metadata.labels, old.metadata.labels);
    if (cur.metadata.deletionTimestamp) {
      this.deletePod(cur, at, 'updatePod');
      if (labelChanged) this.deletePod(old, at, 'updatePod');
      return;
    }
    const effects: string[] | undefined = listen ? [] : undefined;
    const curRef = controllerRefOf(cur.metadata);
    const oldRef = controllerRefOf(old.metadata);
    const refChanged = !sameOwnerReference(curRef, oldRef);
    if (refChanged && oldRef) {
      const oldRS = this.resolveControllerRef(old.metadata.namespace ?? '', oldRef);
      if (oldRS) {
        const oldKey = this.enqueue(oldRS, at);
        effects?.push(`enqueue ${oldKey} (old owner)`);
      }
    }
    if (curRef) {
      // The owner's key, made once: the lookup's and the workqueue's (objectKey of the ReplicaSet found under it).
      const key = `${cur.metadata.namespace ?? ''}/${curRef.name}`;
      const rs = this.resolveControllerRefAt(key, curRef);
      if (!rs) {
        if (listen) listen({ at, handler: 'updatePod', object: objectKey(cur.metadata), effects: [...effects!, 'controllerRef does not resolve'] });
        return;
      }
      this.queue.add(key, at);
      effects?.push(`enqueue ${key}`);
      const minReady = rs.spec?.minReadySeconds ?? 0;
      if (!isPodReady(old) && isPodReady(cur) && minReady > 0) {
        const delay = (minReady + (this.features.availabilityExtraSecond ? 1 : 0)) * 1000;
        // (the +1 s of ≤1.33 already clears the strict boundary; ≥1.34 relies on the sync's requeue)
        this.queue.addAfter(key, at, delay);
        effects?.push(`enqueue after ${delay} ms for availability check`);
      }
      if (listen) listen({ at, handler: 'updatePod', object: objectKey(cur.metadata), effects: effects! });
      return;
    }
    if (labelChanged || refChanged) {
      for (const rs of this.getPodReplicaSets(cur)) {
        const key = this.enqueue(rs, at);
        effects?.push(`enqueue ${key} (orphan)`);
      }
    }
    if (listen) listen({ at, handler: 'updatePod', object: objectKey(cur.metadata), effects: effects! });
  }

  /** deletePod in replica_set.go; accepts a tombstone whose object may be stale. */
  deletePod(obj: Pod | Tombstone<Pod>, at: number, caller: HandlerRecord['handler'] = 'deletePod'): void {
    const listen = this.opts.onHandler; // records only when someone listens (see addPod)
    const pod = unwrapTombstone(obj);
    const name = objectKey(pod.metadata);
    const ref = controllerRefOf(pod.metadata);
    if (!ref) {
      if (listen) listen({ at, handler: caller, object: name, effects: ['deletion of an orphan: ignored'] });
      return;
    }
    const rs = this.resolveControllerRef(pod.metadata.namespace ?? '', ref);
    if (!rs) {
      if (listen) listen({ at, handler: caller, object: name, effects: ['controllerRef does not resolve: deletion ignored'] });
      return;
    }
    const key = objectKey(rs.metadata);
    const counted = this.expectations.deletionObserved(key, name, at);
    this.queue.add(key, at);
    if (listen) {
      listen({
        at,
        handler: caller,
        object: name,
        uid: pod.metadata.uid,
        effects: [counted ? `DeletionObserved(${key}, ${name})` : `deletion of ${name} not expected: no change`, `enqueue ${key}`],
      });
    }
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
    // [<1.17] updateRS had no UID check: only the sync that finds the key gone deletes its record.
    if (old.metadata.uid !== cur.metadata.uid && !this.features.deleteKeepsExpectations) {
      this.deleteRS(tombstoneOf(key, old), at);
      effects.push('UID changed: deleteRS(old)');
    }
    if (desiredReplicas(old) !== desiredReplicas(cur)) {
      effects.push(`desired pod count change ${desiredReplicas(old)}->${desiredReplicas(cur)}`);
    }
    this.queue.add(key, at);
    effects.push(`enqueue ${key}`);
    this.report(() => ({ at, handler: 'updateRS', object: key, effects }));
  }

  /**
   * deleteRS in replica_set.go: DeleteExpectations, then enqueue. [<1.17] the informer's DeleteFunc
   * was enqueueReplicaSet: the record stays until a sync finds the key gone (kubernetes#82572).
   */
  deleteRS(obj: ReplicaSet | Tombstone<ReplicaSet>, at: number): void {
    const rs = unwrapTombstone(obj);
    const key = objectKey(rs.metadata);
    const keep = this.features.deleteKeepsExpectations;
    if (!keep) this.expectations.delete(key, at);
    this.queue.add(key, at);
    this.report(() => ({ at, handler: 'deleteRS', object: key, effects: [...(keep ? [] : ['DeleteExpectations']), `enqueue ${key}`] }));
  }

  // ───────────────────────────── sync (§4) ─────────────────────────────

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
    const kind = this.ownerKind.kind;
    return this.pods.ownedAndOrphans(ns, rs.metadata.uid, (p) => {
      const ref = controllerRefOf(p.metadata)!;
      return ref.kind === kind && ref.name === name;
    });
  }

  /**
   * syncReplicaSet in replica_set.go: the worker's sync handler (run through `sync`/`runDue`,
   * which keep the key busy until the sync's last call returned). Forgets or rate-limits the key
   * itself, as processNextWorkItem does with the error it returns.
   */
  private syncReplicaSet(key: string, at: number): SyncRecord {
    const rs = this.owners.get(key);
    if (!rs) {
      this.expectations.delete(key, at);
      this.queue.forget(key);
      return { at, key, outcome: 'rs-not-found' };
    }
    const base: SyncRecord = { at, key, rsUid: rs.metadata.uid, outcome: 'synced', desired: desiredReplicas(rs) };
    if (this.consistencyGate && this.opts.podControl.informerBehindOwnWrites?.(key, at)) {
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
    const agg = this.counts?.aggregate(key);
    // The counts stand for the scan below when nothing is to be claimed (ClaimPods would keep
    // exactly the owned pods and make no call) and every pod of this UID is a candidate.
    const counted = agg !== undefined && agg.uid === rs.metadata.uid && agg.needsClaim === 0 &&
      (this.features.podIndexListing !== 'kind-name-uid' || agg.foreignRef === 0);
    if (counted) return this.syncFromCounts(rs, key, at, sat.satisfied, base);
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
    if (!needsClaim && this.opts.recordClaimDecisions !== false) base.claims = allActive.map(claimDecider(rs, this.claimKind));
    if (needsClaim) {
      let canAdoptResult: CanAdoptCheck | undefined;
      const claim = claimPods(
        rs,
        allActive,
        () => (canAdoptResult ??= recheckDeletionTimestamp(rs, this.opts.podControl.getFreshOwner(rs, at), this.claimKind)),
        (pod, action) => this.opts.podControl.patchPod(pod, action, at, (base.claimRound ??= ++this.round), rs),
        this.claimKind,
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
    if (this.terminatingReplicas) base.terminating = terminatingCount;
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
    return this.gateAndManage(rs, key, at, sat.satisfied, base, active.length, () => active, () => {
      const next = active
        .filter(isPodReady)
        .map((p) => podReadySince(p))
        .filter((t): t is number => t !== undefined && (this.features.availabilityInclusive ? t + minReadyMs > at : t + minReadyMs >= at))
        // Strict IsPodAvailable (before 1.34): the first instant the pod counts is 1 ms after
        // the boundary in this ms-resolution model; inclusive (1.34+): the boundary itself.
        .map((t) => t + minReadyMs - at + (this.features.availabilityInclusive ? 0 : 1));
      return next.length ? Math.min(...next) : undefined;
    });
  }

  /**
   * The rest of syncReplicaSet (replica_set.go) — calculateStatus's counts, the gate,
   * manageReplicas, the availability requeue — from the ReplicaSet's pod counts (pod-counts.ts)
   * instead of a scan, when nothing is to be claimed: the same record, field for field and in
   * the same order, as the scan below the call site makes (test/model/replicaset/counted-sync.test.ts
   * runs both on random populations). Only a scale-down lists the owned pods, to rank its victims.
   * Cost: O(1), plus O(log pods) under minReadySeconds, plus O(the namespace's pods) to delete.
   */
  private syncFromCounts(rs: ReplicaSet, key: string, at: number, satisfied: boolean, base: SyncRecord): SyncRecord {
    const counts = this.counts!;
    const agg = counts.aggregate(key)!;
    const activeCount = agg.owned;
    base.active = activeCount;
    base.terminatingPods = agg.terminating;
    if (this.terminatingReplicas) base.terminating = agg.terminating;
    const minReadyMs = (rs.spec?.minReadySeconds ?? 0) * 1000;
    // IsPodAvailable: ready for minReadySeconds — strict before 1.34, inclusive from 1.34.
    const inclusive = this.features.availabilityInclusive;
    const times = minReadyMs === 0 ? undefined : counts.readyTimes(key)!;
    base.ready = agg.ready;
    const available = times ? availableCount(times, at, minReadyMs, inclusive) : agg.ready;
    base.available = available;
    return this.gateAndManage(rs, key, at, satisfied, base, activeCount, () => this.ownedActivePods(rs, agg.matches), () => {
      // The earliest ready time not yet available (the scan's filter is the negation of IsPodAvailable's test).
      const i = available;
      return i < times!.length ? times![i]! + minReadyMs - at + (inclusive ? 0 : 1) : undefined;
    });
  }

  /**
   * The end of syncReplicaSet once its counts are in `base`, for the scan and the counted path
   * alike: the diff to the desired count, the gate (gated, being deleted, withheld), manageReplicas, the rate-limited requeue
   * of an error, and the availability requeue (§4 step 14). `nextAvailable`: ms until the
   * earliest ready pod not yet available counts as available, undefined when there is none.
   */
  private gateAndManage(rs: ReplicaSet, key: string, at: number, satisfied: boolean, base: SyncRecord, activeCount: number, activePods: () => Pod[], nextAvailable: () => number | undefined): SyncRecord {
    const diff = activeCount - desiredReplicas(rs);
    base.diff = diff;
    let manageErr: string | undefined;
    if (!satisfied) {
      base.outcome = 'gated';
    } else if (rs.metadata.deletionTimestamp) {
      base.outcome = 'rs-being-deleted';
    } else if (diff !== 0 && this.opts.podControl.madeNoWrites?.(rs, diff, at)) {
      base.outcome = 'withheld';
    } else {
      manageErr = this.manageReplicas(activeCount, activePods, rs, at, base);
    }
    if (satisfied && rs.metadata.deletionTimestamp) base.outcome = 'rs-being-deleted';

    if (manageErr) {
      base.error = manageErr;
      const delay = this.queue.addRateLimited(key, at);
      base.requeue = { kind: 'rate-limited', delayMs: delay };
      return base;
    }
    this.queue.forget(key);
    const minReadyMs = (rs.spec?.minReadySeconds ?? 0) * 1000;
    if (minReadyMs > 0 && base.ready !== base.available) {
      let delay: number | undefined;
      if (this.features.availabilityExtraSecond) {
        if (base.ready === desiredReplicas(rs)) delay = minReadyMs + 1; // +1 ms: the strict boundary (see nextAvailable)
      } else {
        delay = nextAvailable() ?? minReadyMs;
      }
      if (delay !== undefined) {
        this.queue.addAfter(key, at, delay);
        base.requeue = { kind: 'after', delayMs: delay };
      }
    }
    return base;
  }

  /**
   * The pods ClaimPods keeps when nothing is to be claimed: the active candidates controlled by
   * this ReplicaSet and matching its selector, in cache order (the podController index bucket is
   * the subsequence of the namespace's order; pod-store.ts).
   */
  private ownedActivePods(rs: ReplicaSet, matches: (labels: Record<string, string> | null | undefined) => boolean): Pod[] {
    const out: Pod[] = [];
    for (const p of this.pods.controlledBy(rs.metadata.namespace, rs.metadata.uid)) {
      if (isPodActive(p) && matches(p.metadata.labels)) out.push(p);
    }
    return out;
  }

  /**
   * manageReplicas in replica_set.go. Returns the error the sync would return. `activeCount` is
   * len(filteredPods); `activePods` lists them (in cache order), called only when a scale-down
   * ranks its victims.
   */
  private manageReplicas(activeCount: number, activePods: () => Pod[], rs: ReplicaSet, at: number, rec: SyncRecord): string | undefined {
    const key = objectKey(rs.metadata);
    const diff = activeCount - desiredReplicas(rs);
    if (diff < 0) {
      const n = Math.min(-diff, this.burst);
      this.expectations.expectCreations(key, n, at);
      const round = ++this.round;
      const r: CreateRound = { round, n, batches: [], calls: 0, successes: 0, skipped: 0, namespaceTerminating: 0, errors: [], unknown: 0, unmade: 0 };
      // slowStartBatch: batches 1, 2, 4, … each min(2·prev, remaining); stop after a batch with a failure.
      // Before it (kubernetes#49142, v1.8) manageReplicas made all n creates at once, each failure
      // lowering the record: one batch of n.
      let remaining = n;
      let index = 0;
      let unmade = false;
      const first = this.features.slowStartBatch ? SLOW_START_INITIAL_BATCH_SIZE : n;
      for (let size = Math.min(remaining, first); size > 0 && !unmade; size = Math.min(2 * size, remaining)) {
        r.batches.push(size);
        let failed = 0;
        let made = 0;
        for (let i = 0; i < size; i++) {
          const res = this.opts.podControl.createPod(rs, { round, index: index++, n, at });
          this.busy.callReturned(res.doneAt);
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
          if (res.timeout && this.features.createTimeoutAsSuccess) {
            // Before v1.16.5 / v1.17.1 / v1.18.0 the slowStartBatch closure returned nil for
            // errors.IsTimeout ("Pod is created but its initialization has timed out"): counted as a
            // success, its add expectation left for a pod that may never come (kubernetes#67662).
            r.timedOut = (r.timedOut ?? 0) + 1;
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
      const active = activePods();
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
        this.busy.callReturned(res.doneAt);
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
    for (const other of this.owners.values()) {
      if (other.metadata.namespace !== rs.metadata.namespace) continue;
      if (controllerRefOf(other.metadata)?.uid !== owner.uid) continue;
      // compileLabelSelector answers like labelSelectorMatches (an invalid or nil selector
      // matches nothing) without validating the selector again for every pod.
      const matches = compileLabelSelector(other.spec?.selector);
      for (const p of this.selectorCandidates(rs.metadata.namespace, other.spec?.selector)) {
        if (matches(p.metadata.labels)) seen.set(p.metadata.uid ?? objectKey(p.metadata), p);
      }
    }
    // In the walk's order or not, the same pods: the ranking only counts them per node.
    return [...seen.values()];
  }

  /**
   * The pods of `ns` a selector can match: those carrying its rarest matchLabels pair (the pod
   * cache's label index), or every pod of the namespace when it has no such pair. A superset: the
   * caller applies the selector. Cost: O(pods with that label) instead of O(pods of the namespace).
   */
  private selectorCandidates(ns: string | undefined, selector: LabelSelector | null | undefined): Iterable<Pod> {
    const ml: unknown = selector?.matchLabels;
    if (ml === null || typeof ml !== 'object' || Array.isArray(ml)) return this.pods.inNamespace(ns);
    let best: ReadonlySet<string> | undefined;
    for (const [k, v] of Object.entries(ml as Record<string, unknown>)) {
      if (typeof v !== 'string') return this.pods.inNamespace(ns);
      const keys = this.pods.labelled(ns, k, v);
      if (!best || keys.size < best.size) best = keys;
    }
    if (!best) return this.pods.inNamespace(ns);
    const out: Pod[] = [];
    for (const key of best) {
      const p = this.pods.get(key);
      if (p) out.push(p);
    }
    return out;
  }
}


/**
 * The ReplicaSet controller as an engine builds it for a replay at `version`. Claim decisions
 * are not recorded: a replay reports adoption from its own table at the end of input.
 */
export function replicaSetControllerFactory(version: K8sVersion): ControllerFactory<ReplicaSet> {
  return ({ podControl, onSync }) => new ReplicaSetController({ version, podControl, recordClaimDecisions: false, onSync });
}
