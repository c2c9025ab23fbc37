/**
 * A deterministic model of the DaemonSet controller in kube-controller-manager: its informer
 * handlers (pods, DaemonSets, nodes), syncDaemonSet, manage, podsShouldBeOnNode, syncNodes, the
 * rolling update and the status it computes, over the machinery every pod-owning controller
 * shares (src/model/controller/).
 *
 * Mirrors pkg/controller/daemon/daemon_controller.go and update.go (v1.37.2):
 * - expectations: the plain ControllerExpectations — counts only, no delete keys;
 *   SetExpectations(dsKey, creates, deletes) once per syncNodes (both capped by BurstReplicas 250),
 *   even with nothing to do (a Set of 0/0); a pod add with a resolvable controllerRef lowers `add`,
 *   a pod already terminating at its add is a deletion; an update that sets deletionTimestamp and a
 *   delete lower `del`;
 * - syncNodes: creates in slow-start batches (1, 2, 4, …): a failed create lowers `add` and stops
 *   after its batch, lowering the skipped ones at once; a create refused because the namespace is
 *   terminating returns WITHOUT lowering (the record waits for the timeout); deletes in parallel, a
 *   failed one lowers `del`, a NotFound one is lowered silently (no error);
 * - syncDaemonSet: [1.36+] the consistency gate first; a DaemonSet gone → DeleteExpectations; a
 *   selector selecting everything → a SelectingAll warning and nothing else; a DaemonSet being
 *   deleted → nothing (not even status, and the expectations are not read); when unsatisfied the
 *   sync writes status ONLY and does not raise observedGeneration; otherwise manage, then the
 *   rolling update if the expectations are satisfied again (RollingUpdate strategy), then status
 *   with observedGeneration;
 * - podsShouldBeOnNode: a node that should run the daemon and has no pod needs one; a failed pod is
 *   killed unless its (DaemonSet, generation, node) is in backoff (failed-pods-backoff.ts), a
 *   succeeded one deleted; without surge all but the oldest running pod on a node go; with surge
 *   the rules of update.go; a node that should not run it loses every daemon pod; unscheduled pods
 *   for nodes that no longer exist are deleted (getUnscheduledPodsWithoutNode);
 * - the node informer: an add, or an update that changes labels or taints, enqueues every
 *   DaemonSet that should now get a pod there, should lose one, or has misscheduled pods
 *   (syncNodeUpdate; upstream runs it on a second queue, whose sync only reads caches — the model
 *   runs it at the event). Node deletes have no handler upstream.
 * Not modelled: the ControllerRevision history (constructHistory's snapshot writes, cleanupHistory,
 * dedupCurHistories' relabel patches) — writes to revisions, not pods, that gate nothing; the
 * revision hash comes from the input (daemon-pods.ts currentRevisionHash).
 *
 * Version switches (VersionFeatures): the consistency gate (1.36+, StaleControllerConsistencyDaemonSet),
 * IsPodAvailable inclusive from 1.34, a create timeout counted as created before
 * v1.15.8/v1.16.5/v1.17.1/v1.18.0 (kubernetes#72155); DaemonSetVersionFeatures: a NotFound delete
 * counted as made before v1.19 (kubernetes#91008, #95432) and every pod of a node that no longer
 * exists deleted in the releases of #73401 (kubernetes#75836, fixed by #76060).
 * The 1.25–1.33 releases list the namespace's pods and 1.34+ its owner index; ClaimPods keeps the
 * same pods either way.
 *
 * Contract: the controller seam (controller/controller.ts) for DaemonSets, plus `deliverNode`. No
 * I/O, no clock: the API calls are answered by the caller's PodControl; the model never writes into
 * its own caches. Rounds: `create`/`delete` on the SyncRecord are manage's, or the rolling update's
 * where manage made none of that kind; the rolling update's are also on `daemon.update`.
 *
 * Cost: a pod handler is O(1) with a controllerRef, O(DaemonSets of the namespace) for an orphan; a
 * node handler O(DaemonSets + pods); a sync O(its pods + the namespace's orphans + nodes).
 */
import { claimPods, recheckDeletionTimestamp, type CanAdoptCheck, type ClaimOwnerKind } from '../adoption.js';
import { ControllerExpectations } from '../expectations.js';
import { controllerRefOf, objectKey, sameLabels, sameOwnerReference, type DaemonSet, type Node, type OwnerReference, type Pod } from '../objects.js';
import { isPodReady } from '../pod-ranking.js';
import { PodStore } from '../pod-store.js';
import { cachedSelectorError, labelSelectorIsEverything, labelSelectorMatches, validateLabelSelector } from '../selector.js';
import { featuresOf, type K8sVersion, type VersionFeatures } from '../version.js';
import { WorkQueue } from '../workqueue.js';
import { BusyTime } from '../controller/busy-time.js';
import type { Controller, ControllerFactory, PodCounts } from '../controller/controller.js';
import { Informer, type WatchType } from '../controller/informer.js';
import type { PodControl } from '../controller/pod-control.js';
import type { CreateRound, DaemonSetStatusCounts, DaemonSetSync, DeleteRound, SyncRecord } from '../controller/sync-record.js';
import { tombstoneOf, unwrapTombstone, type Tombstone } from '../controller/tombstone.js';
import { Worker } from '../controller/worker.js';
import { compareByCreationAndPhase, currentRevisionHash, isPodAvailable, isPodUpdated, nodesToDaemonPods, targetNodeName, templateGeneration } from './daemon-pods.js';
import { failedPodsBackoffKey, FailedPodsBackoff } from './failed-pods-backoff.js';
import { placementOf, type Placement } from './node-placement.js';
import { allowsSurge, rollingUpdatePlan, updateStrategyType } from './rolling-update.js';

/** BurstReplicas in pkg/controller/daemon/daemon_controller.go. */
export const DS_BURST_REPLICAS = 250;
/** SlowStartInitialBatchSize in pkg/controller/controller_utils.go. */
const SLOW_START_INITIAL_BATCH_SIZE = 1;
/** controllerKind: apps/v1 DaemonSet, as ClaimPods' messages and client errors name it. */
export const DAEMON_SET_CLAIM_KIND: ClaimOwnerKind = { kind: 'DaemonSet', resource: 'daemonsets.apps' };

/** The DaemonSet controller's version switches beyond VersionFeatures (read in each release's pkg/controller). */
export interface DaemonSetVersionFeatures {
  /**
   * A delete answered NotFound counts as made and `del` is not lowered: RealPodControl.DeletePod
   * (pkg/controller/controller_utils.go) returned nil for NotFound, so syncNodes' "Failed deletion,
   * decrementing expectations" branch never ran and the record waited for a deletion the informer
   * had already delivered (or never will). kubernetes#91008 made DeletePod return it and syncNodes
   * lower `del` silently: from v1.19.0, cherry-picked to v1.18.9 and v1.17.12 (v1.18.8 and v1.17.11
   * still swallow it); every release before 1.17 swallows it.
   */
  deleteNotFoundSwallowed: boolean;
  /**
   * getPodsWithoutNode (kubernetes#73401): manage deletes EVERY daemon pod of a node that no longer
   * exists, bound ones too — which the pod GC deletes as well, so the controller's delete races the
   * pod GC's (kubernetes#75836). #76060 went back to getUnscheduledPodsWithoutNode (only pods never
   * scheduled). In v1.12.6–v1.12.7, v1.13.4–v1.13.6 and v1.14.0–v1.14.1 (read: v1.12.5, v1.12.8,
   * v1.13.3, v1.13.7 and v1.14.2 have neither or the fix); releases before have no such delete at
   * all, which the model, as v1.25, does not switch off.
   */
  deleteBoundPodsOfRemovedNodes: boolean;
}

export function daemonSetFeaturesOf(v: K8sVersion): DaemonSetVersionFeatures {
  const p = v.patch;
  const in7340 = p !== undefined && ((v.minor === 12 && p >= 6 && p <= 7) || (v.minor === 13 && p >= 4 && p <= 6) || (v.minor === 14 && p <= 1));
  return {
    deleteNotFoundSwallowed: v.minor < 17 || (v.minor === 17 && (p === undefined ? false : p < 12)) || (v.minor === 18 && (p === undefined ? false : p < 9)),
    deleteBoundPodsOfRemovedNodes: in7340,
  };
}

/** What an informer handler did, for evidence and tests. */
export interface DaemonSetHandlerRecord {
  at: number;
  handler: 'addPod' | 'updatePod' | 'deletePod' | 'addDaemonset' | 'updateDaemonset' | 'deleteDaemonset' | 'addNode' | 'updateNode';
  object: string;
  effects: string[];
}

export interface DaemonSetControllerOptions {
  version: K8sVersion;
  podControl: PodControl<DaemonSet>;
  /** Override ExpectationsTimeout (tests only; the real value is 5 min). */
  expectationsTimeoutMs?: number;
  burstReplicas?: number;
  onSync?: (s: SyncRecord) => void;
  onHandler?: (h: DaemonSetHandlerRecord) => void;
}

export class DaemonSetController implements Controller<DaemonSet> {
  readonly expectations: ControllerExpectations;
  readonly queue = new WorkQueue();
  readonly features: VersionFeatures;
  readonly dsFeatures: DaemonSetVersionFeatures;
  readonly pods = new PodStore();
  /** The DaemonSet informer's cache. */
  readonly owners = new Map<string, DaemonSet>();
  /** The node informer's cache, keyed by node name (`/name`: nodes have no namespace). */
  readonly nodes = new Map<string, Node>();
  private round = 0;
  private readonly burst: number;
  private readonly busy = new BusyTime();
  private readonly backoff = new FailedPodsBackoff();
  /** UIDs of pods whose ADD a sync already observed while its calls ran (addsDuringManage), until that ADD is delivered. */
  private readonly addedEarly = new Set<string>();
  private readonly worker: Worker<SyncRecord>;
  private readonly podInformer: Informer<Pod>;
  private readonly dsInformer: Informer<DaemonSet>;
  private readonly nodeInformer: Informer<Node>;

  constructor(private readonly opts: DaemonSetControllerOptions) {
    // NewControllerExpectations: counts only, no delete keys.
    this.expectations = new ControllerExpectations(opts.expectationsTimeoutMs, undefined, false);
    this.features = featuresOf(opts.version);
    this.dsFeatures = daemonSetFeaturesOf(opts.version);
    this.burst = opts.burstReplicas ?? DS_BURST_REPLICAS;
    this.podInformer = new Informer<Pod>(this.pods, {
      onAdd: (pod, at) => this.addPod(pod, at),
      onUpdate: (old, cur, at) => this.updatePod(old, cur, at),
      onDelete: (obj, at) => this.deletePod(obj, at),
    });
    this.dsInformer = new Informer<DaemonSet>(this.owners, {
      onAdd: (ds, at) => this.addDaemonset(ds, at),
      onUpdate: (old, cur, at) => this.updateDaemonset(old, cur, at),
      onDelete: (obj, at) => this.deleteDaemonset(obj, at),
    });
    this.nodeInformer = new Informer<Node>(this.nodes, {
      onAdd: (node, at) => this.addNode(node, at),
      onUpdate: (old, cur, at) => this.updateNode(old, cur, at),
      onDelete: () => {}, // no DeleteFunc on the node informer upstream
    });
    // dsc.syncHandler = dsc.syncDaemonSet
    this.worker = new Worker<SyncRecord>(this.queue, this.busy, (key, at) => this.syncDaemonSet(key, at), (s) => this.opts.onSync?.(s));
  }

  // ───────────────────────────── the controller seam ─────────────────────────────

  deliverPod(watchType: WatchType, pod: Pod, at: number): void {
    this.podInformer.deliver(watchType, pod, at);
  }

  deliverPodTombstone(stale: Pod, at: number): void {
    this.podInformer.deliverTombstone(stale, at);
  }

  deliverOwner(watchType: WatchType, ds: DaemonSet, at: number): void {
    this.dsInformer.deliver(watchType, ds, at);
  }

  /** A node watch event, through the node informer (addNode, updateNode). */
  deliverNode(watchType: WatchType, node: Node, at: number): void {
    this.nodeInformer.deliver(watchType, node, at);
  }

  runDue(before: number, inclusive = false): SyncRecord[] {
    return this.worker.runDue(before, inclusive);
  }

  sync(key: string, at: number): SyncRecord {
    return this.worker.sync(key, at);
  }

  isBusy(key: string, at: number): boolean {
    return this.busy.isBusy(key, at);
  }

  extendBusy(key: string, until: number): void {
    this.busy.extend(key, until);
  }

  /** No incremental counts are kept for DaemonSets. */
  podCounts(_key: string): PodCounts | undefined {
    return undefined;
  }

  withholdPod(key: string): Pod | undefined {
    return this.podInformer.withhold(key);
  }

  restorePod(pod: Pod): void {
    this.podInformer.restore(pod);
  }

  // ───────────────────────────── handlers ─────────────────────────────

  private report(h: () => DaemonSetHandlerRecord): void {
    if (this.opts.onHandler) this.opts.onHandler(h());
  }

  /** resolveControllerRef: the DaemonSet the ref names, only if its kind is DaemonSet and the UID matches. */
  resolveControllerRef(namespace: string, ref: OwnerReference | undefined): DaemonSet | undefined {
    if (!ref || ref.kind !== 'DaemonSet') return undefined;
    const ds = this.owners.get(`${namespace}/${ref.name}`);
    return ds && ds.metadata.uid === ref.uid ? ds : undefined;
  }

  /** GetPodDaemonSets (listers/apps/v1 daemonset_expansion.go): DaemonSets of the pod's namespace whose non-empty selector matches. */
  getDaemonSetsForPod(pod: Pod): DaemonSet[] {
    if (!pod.metadata.labels || Object.keys(pod.metadata.labels).length === 0) return [];
    const out: DaemonSet[] = [];
    for (const ds of this.owners.values()) {
      if (ds.metadata.namespace !== pod.metadata.namespace) continue;
      const sel = ds.spec?.selector;
      if (!sel || validateLabelSelector(sel) || labelSelectorIsEverything(sel)) continue;
      if (labelSelectorMatches(sel, pod.metadata.labels)) out.push(ds);
    }
    return out;
  }

  private enqueue(ds: DaemonSet, at: number): string {
    const key = objectKey(ds.metadata);
    this.queue.add(key, at);
    return key;
  }

  /** addPod in daemon_controller.go. */
  addPod(pod: Pod, at: number): void {
    const name = objectKey(pod.metadata);
    if (pod.metadata.deletionTimestamp) {
      // A pod first seen already terminating is a deletion, never a creation.
      this.deletePod(pod, at);
      return;
    }
    const ref = controllerRefOf(pod.metadata);
    // Observed already by the sync it arrived during (addsDuringManage): forgotten here whatever follows.
    const early = pod.metadata.uid !== undefined && this.addedEarly.delete(pod.metadata.uid);
    if (ref) {
      const ds = this.resolveControllerRef(pod.metadata.namespace ?? '', ref);
      if (!ds) return;
      const key = objectKey(ds.metadata);
      // The enqueue only: its CreationObserved was counted by that sync.
      if (early) {
        this.queue.add(key, at);
        this.report(() => ({ at, handler: 'addPod', object: name, effects: [`enqueue ${key} (CreationObserved during the sync)`] }));
        return;
      }
      this.expectations.creationObserved(key, at);
      this.queue.add(key, at);
      this.report(() => ({ at, handler: 'addPod', object: name, effects: [`CreationObserved(${key})`, `enqueue ${key}`] }));
      return;
    }
    const dss = this.getDaemonSetsForPod(pod);
    for (const ds of dss) this.enqueue(ds, at);
    this.report(() => ({ at, handler: 'addPod', object: name, effects: dss.map((d) => `enqueue ${objectKey(d.metadata)} (orphan)`) }));
  }

  /** updatePod in daemon_controller.go. */
  updatePod(old: Pod, cur: Pod, at: number): void {
    const name = objectKey(cur.metadata);
    if (cur.metadata.resourceVersion !== undefined && cur.metadata.resourceVersion === old.metadata.resourceVersion) return;
    if (cur.metadata.deletionTimestamp) {
      this.deletePod(cur, at);
      return;
    }
    const effects: string[] = [];
    const curRef = controllerRefOf(cur.metadata);
    const oldRef = controllerRefOf(old.metadata);
    const refChanged = !sameOwnerReference(curRef, oldRef);
    if (refChanged && oldRef) {
      const oldDS = this.resolveControllerRef(old.metadata.namespace ?? '', oldRef);
      if (oldDS) effects.push(`enqueue ${this.enqueue(oldDS, at)} (old owner)`);
    }
    if (curRef) {
      const ds = this.resolveControllerRef(cur.metadata.namespace ?? '', curRef);
      if (!ds) return;
      effects.push(`enqueue ${this.enqueue(ds, at)}`);
      const minReady = ds.spec?.minReadySeconds ?? 0;
      if (!isPodReady(old) && isPodReady(cur) && minReady > 0) {
        // "Add a second to avoid milliseconds skew in AddAfter."
        this.queue.addAfter(objectKey(ds.metadata), at, (minReady + 1) * 1000);
        effects.push(`enqueue after ${minReady + 1} s (minReadySeconds)`);
      }
      this.report(() => ({ at, handler: 'updatePod', object: name, effects }));
      return;
    }
    const dss = this.getDaemonSetsForPod(cur);
    if (dss.length && (!sameLabels(cur.metadata.labels, old.metadata.labels) || refChanged)) {
      for (const ds of dss) effects.push(`enqueue ${this.enqueue(ds, at)} (orphan)`);
    }
    this.report(() => ({ at, handler: 'updatePod', object: name, effects }));
  }

  /** deletePod in daemon_controller.go; accepts a tombstone whose object may be stale. */
  deletePod(obj: Pod | Tombstone<Pod>, at: number): void {
    const pod = unwrapTombstone(obj);
    const ref = controllerRefOf(pod.metadata);
    if (!ref) return;
    const ds = this.resolveControllerRef(pod.metadata.namespace ?? '', ref);
    if (!ds) return;
    const key = objectKey(ds.metadata);
    this.expectations.countDeletionObserved(key, at);
    this.queue.add(key, at);
    this.report(() => ({ at, handler: 'deletePod', object: objectKey(pod.metadata), effects: [`DeletionObserved(${key})`, `enqueue ${key}`] }));
  }

  /** addDaemonset in daemon_controller.go. */
  addDaemonset(ds: DaemonSet, at: number): void {
    const key = this.enqueue(ds, at);
    this.report(() => ({ at, handler: 'addDaemonset', object: key, effects: [`enqueue ${key}`] }));
  }

  /** updateDaemonset: a UID change is the old one's delete first. */
  updateDaemonset(old: DaemonSet, cur: DaemonSet, at: number): void {
    const key = objectKey(cur.metadata);
    if (old.metadata.uid !== cur.metadata.uid) this.deleteDaemonset(tombstoneOf(key, old), at);
    this.queue.add(key, at);
    this.report(() => ({ at, handler: 'updateDaemonset', object: key, effects: [`enqueue ${key}`] }));
  }

  /** deleteDaemonset: DeleteExpectations (a DaemonSet recreated under the name starts clean), then enqueue. */
  deleteDaemonset(obj: DaemonSet | Tombstone<DaemonSet>, at: number): void {
    const ds = unwrapTombstone(obj);
    const key = objectKey(ds.metadata);
    this.expectations.delete(key, at);
    this.queue.add(key, at);
    this.report(() => ({ at, handler: 'deleteDaemonset', object: key, effects: ['DeleteExpectations', `enqueue ${key}`] }));
  }

  /** addNode → syncNodeUpdate. */
  addNode(node: Node, at: number): void {
    this.syncNodeUpdate(node, at, 'addNode');
  }

  /** updateNode: only a change of labels or taints (shouldIgnoreNodeUpdate) → syncNodeUpdate. */
  updateNode(old: Node, cur: Node, at: number): void {
    if (sameLabels(old.metadata.labels, cur.metadata.labels) && sameTaints(old, cur)) return;
    this.syncNodeUpdate(cur, at, 'updateNode');
  }

  /** syncNodeUpdate: enqueue every DaemonSet whose placement on this node changed what it must do. */
  private syncNodeUpdate(node: Node, at: number, handler: 'addNode' | 'updateNode'): void {
    const nodeName = node.metadata.name ?? '';
    // podIndexer.ByIndex(PodNodeNameKeyIndex): pods bound to the node (spec.nodeName), by their DaemonSet's key.
    const scheduled = new Set<string>();
    for (const p of this.pods.values()) {
      if (p.spec?.nodeName !== nodeName) continue;
      const ref = controllerRefOf(p.metadata);
      if (ref?.kind === 'DaemonSet') scheduled.add(`${p.metadata.namespace ?? ''}/${ref.name}`);
    }
    const effects: string[] = [];
    for (const ds of this.owners.values()) {
      const { shouldRun, shouldContinueRunning } = placementOf(ds)(node);
      const key = objectKey(ds.metadata);
      const has = scheduled.has(key);
      if ((shouldRun && !has) || (!shouldContinueRunning && has) || (has && (ds.status?.numberMisscheduled ?? 0) > 0)) {
        this.queue.add(key, at);
        effects.push(`enqueue ${key}`);
      }
    }
    this.report(() => ({ at, handler, object: nodeName, effects }));
  }

  // ───────────────────────────── sync ─────────────────────────────

  /**
   * getDaemonPods: the pods indexed to this DaemonSet plus the namespace's orphans
   * (FilterPodsByOwner), claimed by ClaimPods (adopt/release through the PodControl). Upstream
   * claims again at every reader of the pods in one sync (manage, rollingUpdate, cleanupHistory,
   * updateDaemonSetStatus: up to four ClaimPods); with the cache unchanged in between each repeats
   * the same idempotent PATCHes. The model claims once per sync and reads that result everywhere.
   */
  private claimDaemonPods(ds: DaemonSet, at: number, rec: SyncRecord): { pods: Pod[] } | { error: string } {
    const name = ds.metadata.name;
    const candidates = this.pods.ownedAndOrphans(ds.metadata.namespace, ds.metadata.uid, (p) => {
      const ref = controllerRefOf(p.metadata)!;
      return ref.kind === 'DaemonSet' && ref.name === name;
    });
    let canAdopt: CanAdoptCheck | undefined;
    const claim = claimPods(
      ds,
      candidates,
      () => (canAdopt ??= recheckDeletionTimestamp(ds, this.opts.podControl.getFreshOwner(ds, at), DAEMON_SET_CLAIM_KIND)),
      (pod, action) => this.opts.podControl.patchPod(pod, action, at, (rec.claimRound ??= ++this.round), ds),
      DAEMON_SET_CLAIM_KIND,
    );
    if (claim.decisions.some((d) => d.action === 'adopt' || d.action === 'release')) rec.claims = claim.decisions;
    if (claim.errors.length) {
      rec.claimErrors = claim.errors;
      return { error: claim.errors.join(', ') };
    }
    return { pods: claim.claimed };
  }

  /** syncDaemonSet in daemon_controller.go, run through the worker. */
  private syncDaemonSet(key: string, at: number): SyncRecord {
    if (this.features.consistencyGate && this.opts.podControl.informerBehindOwnWrites?.(key, at)) {
      const delay = this.queue.addRateLimited(key, at);
      return { at, key, outcome: 'consistency-skip', error: 'ConsistencyError: informer has not observed the controller\'s last write', requeue: { kind: 'rate-limited', delayMs: delay } };
    }
    const ds = this.owners.get(key);
    if (!ds) {
      // "Daemon set has been deleted"
      this.expectations.delete(key, at);
      this.queue.forget(key);
      return { at, key, outcome: 'rs-not-found' };
    }
    const rec: SyncRecord = { at, key, rsUid: ds.metadata.uid, outcome: 'synced' };
    const nodes = [...this.nodes.values()];
    const selector = ds.spec?.selector;
    if (selector && labelSelectorIsEverything(selector)) {
      // SelectingAll warning event; return nil.
      this.queue.forget(key);
      return { ...rec, outcome: 'selector-error', error: 'This daemon set is selecting all pods. A non-empty selector is required.' };
    }
    if (ds.metadata.deletionTimestamp) {
      // "we cannot reliably calculate the status of a DaemonSet being deleted": nothing, not even status.
      this.queue.forget(key);
      return { ...rec, outcome: 'rs-being-deleted' };
    }
    const sat = this.expectations.satisfied(key, at);
    rec.expectations = sat.outcome;
    rec.recordBefore = sat.record;
    const selErr = cachedSelectorError(selector ?? null);
    if (selErr || !selector) return this.fail(rec, `couldn't get node to daemon pod mapping for daemon set "${ds.metadata.name ?? ''}": ${selErr ?? 'nil selector'}`);
    const claimed = this.claimDaemonPods(ds, at, rec);
    if ('error' in claimed) return this.fail(rec, claimed.error, 'claim-error');
    const byNode = nodesToDaemonPods(claimed.pods, false);
    const hash = currentRevisionHash(ds, claimed.pods);
    const placement = placementOf(ds);
    let err: string | undefined;
    if (!sat.satisfied) {
      rec.outcome = 'gated';
      // What manage would have created (podsShouldBeOnNode: shouldRun and no daemon pod): skipped, status only.
      const needing = nodes.filter((n) => placement(n).shouldRun && !byNode.get(n.metadata.name ?? '')).map((n) => n.metadata.name ?? '');
      if (needing.length) rec.daemon = { ...(rec.daemon as DaemonSetSync), gatedNeeding: needing };
    } else {
      err = this.manage(ds, nodes, byNode, placement, hash, at, rec);
      if (!err && updateStrategyType(ds) === 'RollingUpdate') {
        // updateDaemonSet: SatisfiedExpectations, and rollingUpdate's getNodesToDaemonPods, run
        // once manage returned — its calls waited for — with what the informer delivered meanwhile.
        const after = this.addsDuringManage(ds, key, claimed.pods, at);
        if (this.expectations.isSatisfied(key, at)) err = this.rollingUpdate(ds, nodes, after ?? byNode, placement, hash, at, rec);
      }
    }
    rec.daemon = { ...this.statusOf(ds, nodes, byNode, placement, hash, at, sat.satisfied), ...rec.daemon };
    if (rec.daemon.statusWrite) {
      // storeDaemonSetStatus' UpdateStatus is the sync's last call: the key stays processing until it returned.
      this.busy.callReturned(this.opts.podControl.ownerStatusWrite?.(ds, { at, after: this.busy.returnsAt(at) }).doneAt);
    }
    const counts = rec.daemon.status;
    rec.desired = counts.desiredNumberScheduled;
    rec.active = counts.currentNumberScheduled;
    rec.ready = counts.numberReady;
    rec.available = counts.numberAvailable;
    if (err) return this.fail(rec, err);
    this.queue.forget(key);
    const minReady = ds.spec?.minReadySeconds ?? 0;
    if (minReady > 0 && counts.numberReady !== counts.numberAvailable) {
      this.queue.addAfter(key, at, minReady * 1000);
      rec.requeue = { kind: 'after', delayMs: minReady * 1000 };
    }
    return rec;
  }

  private fail(rec: SyncRecord, error: string, outcome?: SyncRecord['outcome']): SyncRecord {
    const delay = this.queue.addRateLimited(rec.key, rec.at);
    return { ...rec, ...(outcome ? { outcome } : {}), error, requeue: { kind: 'rate-limited', delayMs: delay } };
  }

  /** manage + podsShouldBeOnNode + getUnscheduledPodsWithoutNode, then syncNodes. Returns the sync's error. */
  private manage(ds: DaemonSet, nodes: readonly Node[], byNode: ReadonlyMap<string, Pod[]>, placement: (n: Node) => Placement, hash: string | undefined, at: number, rec: SyncRecord): string | undefined {
    const nodesNeeding: string[] = [];
    const podsToDelete: string[] = [];
    const failedPods: NonNullable<DaemonSetSync['failedPods']> = [];
    const excessPods: NonNullable<DaemonSetSync['excessPods']> = [];
    const succeededPods: string[] = [];
    const surge = allowsSurge(ds);
    const minReady = ds.spec?.minReadySeconds ?? 0;
    for (const node of nodes) {
      const nodeName = node.metadata.name ?? '';
      const { shouldRun, shouldContinueRunning } = placement(node);
      const daemonPods = this.cachedOnNode(ds, byNode.get(nodeName), nodeName, shouldRun, at);
      if (shouldRun && !daemonPods) {
        nodesNeeding.push(nodeName);
      } else if (shouldContinueRunning) {
        const running: Pod[] = [];
        for (const pod of daemonPods ?? []) {
          if (pod.metadata.deletionTimestamp) continue;
          const phase = pod.status?.phase;
          if (phase === 'Failed') {
            const id = failedPodsBackoffKey(ds.metadata.uid ?? '', ds.status?.observedGeneration ?? 0, nodeName);
            if (this.backoff.isInBackOffSinceUpdate(id, at)) {
              const delay = this.backoff.get(id);
              this.queue.addAfter(objectKey(ds.metadata), at, delay);
              failedPods.push({ pod: pod.metadata.name ?? '', node: nodeName, action: 'backoff', backoffMs: delay });
              continue;
            }
            this.backoff.next(id, at);
            failedPods.push({ pod: pod.metadata.name ?? '', node: nodeName, action: 'delete' });
            podsToDelete.push(pod.metadata.name ?? '');
          } else if (phase === 'Succeeded') {
            succeededPods.push(pod.metadata.name ?? '');
            podsToDelete.push(pod.metadata.name ?? '');
          } else running.push(pod);
        }
        if (!surge) {
          if (running.length > 1) {
            running.sort(compareByCreationAndPhase);
            for (const p of running.slice(1)) podsToDelete.push(p.metadata.name ?? '');
            excessPods.push({ node: nodeName, kept: running[0]!.metadata.name ?? '', deleted: running.slice(1).map((p) => p.metadata.name ?? '') });
          }
        } else if (running.length <= 1) {
          if (running.length === 0 && shouldRun) nodesNeeding.push(nodeName);
        } else {
          running.sort(compareByCreationAndPhase);
          const generation = templateGeneration(ds);
          let oldestNew: Pod | undefined;
          let oldestOld: Pod | undefined;
          for (const pod of running) {
            if (isPodUpdated(pod, hash, generation)) {
              if (!oldestNew) {
                oldestNew = pod;
                continue;
              }
            } else if (!oldestOld) {
              oldestOld = pod;
              continue;
            }
            podsToDelete.push(pod.metadata.name ?? '');
          }
          if (oldestNew && oldestOld) {
            if (!isPodReady(oldestOld)) podsToDelete.push(oldestOld.metadata.name ?? '');
            else if (isPodAvailable(oldestNew, minReady, at, this.features.availabilityInclusive)) podsToDelete.push(oldestOld.metadata.name ?? '');
          }
        }
      } else if (daemonPods) {
        for (const pod of daemonPods) if (!pod.metadata.deletionTimestamp) podsToDelete.push(pod.metadata.name ?? '');
      }
    }
    // getUnscheduledPodsWithoutNode: unscheduled pods for nodes that no longer exist (the pod GC never deletes them);
    // getPodsWithoutNode in the releases of kubernetes#73401: every pod of such a node, terminating ones too.
    const existing = new Set(nodes.map((n) => n.metadata.name ?? ''));
    const removedNodePods: string[] = [];
    for (const [nodeName, pods] of byNode) {
      if (existing.has(nodeName)) continue;
      for (const pod of pods) {
        if (pod.spec?.nodeName && !this.dsFeatures.deleteBoundPodsOfRemovedNodes) continue;
        podsToDelete.push(pod.metadata.name ?? '');
        if (pod.spec?.nodeName) removedNodePods.push(`${ds.metadata.namespace ?? ''}/${pod.metadata.name ?? ''}`);
      }
    }
    if (failedPods.length || succeededPods.length || excessPods.length) rec.daemon = { ...(rec.daemon as DaemonSetSync), ...(failedPods.length ? { failedPods } : {}), ...(succeededPods.length ? { succeededPods } : {}), ...(excessPods.length ? { excessPods } : {}) };
    const r = this.syncNodes(ds, podsToDelete, nodesNeeding, at);
    if (r.create) rec.create = r.create;
    if (r.delete) {
      const chosen = removedNodePods.filter((k) => r.delete!.keys.includes(k));
      if (chosen.length) r.delete.removedNodePods = chosen;
      rec.delete = r.delete;
    }
    return r.error;
  }

  observedDuringSync(podUid: string): boolean {
    return this.addedEarly.has(podUid);
  }

  /**
   * The ADDs of the DaemonSet's new pods its informer delivered while manage's calls ran (syncNodes
   * waits for every create and delete before it returns; the caller knows when the last returned):
   * addPod's CreationObserved lowers the record before updateDaemonSet checks SatisfiedExpectations
   * (pkg/controller/daemon/daemon_controller.go, the same from v1.25 to v1.37), and rollingUpdate
   * lists the pods again with them (getNodesToDaemonPods). The model runs the sync at one instant:
   * the lowering is applied now, and the ADD's own delivery later skips it (`addedEarly`) — the
   * record ends as upstream's. Deletions delivered meanwhile are left to their delivery. Returns the
   * pods by node the rolling update sees, or undefined when nothing was delivered.
   */
  private addsDuringManage(ds: DaemonSet, key: string, pods: readonly Pod[], at: number): Map<string, Pod[]> | undefined {
    const until = this.busy.returnsAt(at);
    if (!(until > at) || !this.opts.podControl.podsAddedDuring) return undefined;
    const have = new Set(pods.map((p) => p.metadata.uid));
    const added: Pod[] = [];
    for (const p of this.opts.podControl.podsAddedDuring(ds, at, until)) {
      const uid = p.metadata.uid;
      if (!uid || have.has(uid) || this.addedEarly.has(uid) || p.metadata.deletionTimestamp) continue;
      if (this.resolveControllerRef(p.metadata.namespace ?? '', controllerRefOf(p.metadata)) !== ds) continue;
      this.expectations.creationObserved(key, at);
      this.addedEarly.add(uid);
      added.push(p);
    }
    return added.length ? nodesToDaemonPods([...pods, ...added], false) : undefined;
  }

  /** rollingUpdate (update.go), then syncNodes with its plan. */
  private rollingUpdate(ds: DaemonSet, nodes: readonly Node[], byNode: ReadonlyMap<string, Pod[]>, placement: (n: Node) => Placement, hash: string | undefined, at: number, rec: SyncRecord): string | undefined {
    const plan = rollingUpdatePlan(ds, nodes, byNode, hash, placement, at, this.features.availabilityInclusive);
    if ('error' in plan) return plan.error;
    let podsToDelete = plan.podsToDelete;
    const cand = plan.candidates;
    if (cand && cand.chosen > 0 && cand.chosen < cand.names.length && this.opts.podControl.chooseDeletions) {
      // Which available old pods fill maxUnavailable follows Go's map order: take the input's choice where it shows one.
      const ns = ds.metadata.namespace ?? '';
      const pods = cand.names.map((n) => this.pods.get(`${ns}/${n}`)).filter((p): p is Pod => p !== undefined);
      const chosen = this.opts.podControl.chooseDeletions(ds, pods.slice(0, cand.chosen), pods, at).pods.map((p) => p.metadata.name ?? '');
      podsToDelete = [...podsToDelete.slice(0, podsToDelete.length - cand.chosen), ...chosen];
    }
    const r = this.syncNodes(ds, podsToDelete, plan.nodesToCreate, at);
    if (r.create || r.delete) {
      rec.daemon = {
        ...(rec.daemon as DaemonSetSync),
        update: { ...(r.create ? { create: r.create } : {}), ...(r.delete ? { delete: r.delete } : {}), maxSurge: plan.maxSurge, maxUnavailable: plan.maxUnavailable },
      };
      // The sync's rounds, as every controller reports them: the rolling update's where manage made
      // none of that kind (the usual case: the update runs only when manage's Set was fulfilled at once).
      if (r.create && !rec.create) rec.create = r.create;
      if (r.delete && !rec.delete) rec.delete = r.delete;
    }
    return r.error;
  }

  /**
   * The daemon pods of `nodeName` the controller's cache held, as far as a replay's evidence says:
   * a pod the model's cache still holds that the input shows the controller replace — a create of
   * a daemon pod for that node by this sync (PodControl.controllerHoldsAgainstCreate) — was gone
   * from its cache. Without such evidence (or outside a replay) the model's pods as they are.
   */
  private cachedOnNode(ds: DaemonSet, pods: Pod[] | undefined, nodeName: string, shouldRun: boolean, at: number): Pod[] | undefined {
    const holds = this.opts.podControl.controllerHoldsAgainstCreate;
    if (!pods || !shouldRun || !holds) return pods;
    const samePlace = (created: Pod) => (targetNodeName(created) ?? created.spec?.nodeName) === nodeName;
    const kept = pods.filter((p) => holds.call(this.opts.podControl, ds, p, samePlace, at));
    return kept.length === pods.length ? pods : kept.length ? kept : undefined;
  }

  /** syncNodes in daemon_controller.go: SetExpectations, slow-start creates, parallel deletes. */
  private syncNodes(ds: DaemonSet, chosen: readonly string[], nodesNeeding: readonly string[], at: number): { create?: CreateRound; delete?: DeleteRound; error?: string } {
    const key = objectKey(ds.metadata);
    // A replay's evidence may show the controller's cache no longer held a pod the model's does (PodControl.controllerHolds).
    const holds = this.opts.podControl.controllerHolds;
    const ns = ds.metadata.namespace ?? '';
    const podsToDelete = holds ? chosen.filter((name) => { const p = this.pods.get(`${ns}/${name}`); return !p || holds.call(this.opts.podControl, ds, p, at); }) : chosen;
    const createDiff = Math.min(nodesNeeding.length, this.burst);
    const deleteDiff = Math.min(podsToDelete.length, this.burst);
    this.expectations.set(key, createDiff, deleteDiff, at);
    const errors: string[] = [];
    const out: { create?: CreateRound; delete?: DeleteRound; error?: string } = {};
    if (createDiff > 0) {
      const round = ++this.round;
      const r: CreateRound = { round, n: createDiff, batches: [], calls: 0, successes: 0, skipped: 0, namespaceTerminating: 0, errors: [], unknown: 0, unmade: 0 };
      let pos = 0;
      let unmade = false;
      for (let batch = Math.min(createDiff, SLOW_START_INITIAL_BATCH_SIZE); createDiff > pos && !unmade; ) {
        const errorsBefore = r.errors.length;
        let made = 0;
        for (let i = pos; i < pos + batch; i++) {
          const res = this.opts.podControl.createPod(ds, { round, index: i, n: createDiff, at, node: nodesNeeding[i] });
          this.busy.callReturned(res.doneAt);
          if (!res.ok && res.unmade) {
            unmade = true;
            break;
          }
          r.calls++;
          made++;
          if (res.ok) {
            if (res.unknown) r.unknown++;
            r.successes++;
            continue;
          }
          if (res.namespaceTerminating) {
            // "If the namespace is being torn down, we can safely ignore this error": returns WITHOUT lowering.
            r.namespaceTerminating++;
            r.successes++;
            continue;
          }
          if (res.timeout && this.features.createTimeoutAsSuccess) {
            r.timedOut = (r.timedOut ?? 0) + 1;
            (r.timedOutNodes ??= []).push(nodesNeeding[i] ?? '?');
            r.successes++;
            continue;
          }
          // "Failed creation, decrementing expectations for daemon set"
          this.expectations.creationObserved(key, at);
          r.errors.push(res.error);
        }
        r.batches.push(made);
        if (unmade) {
          if (made === 0) r.batches.pop();
          // Replays: the input shows no more calls; walk back the rest like skipped pods.
          r.unmade = createDiff - pos - made;
          r.skipped += r.unmade;
          this.expectations.lower(key, r.unmade, 0, at);
          break;
        }
        const skipped = createDiff - (batch + pos);
        if (r.errors.length > errorsBefore && skipped > 0) {
          // "Slow-start failure. Skipping creation pods, decrementing expectations for daemon set"
          r.skipped += skipped;
          this.expectations.lower(key, skipped, 0, at);
          break;
        }
        pos += batch;
        batch = Math.min(2 * batch, createDiff - pos);
      }
      errors.push(...r.errors);
      out.create = r;
    }
    if (deleteDiff > 0) {
      const round = ++this.round;
      const d: DeleteRound = { round, n: deleteDiff, keys: [], uids: [], failed: [], notFound: [], errors: [], unknown: [], unmade: [] };
      for (let i = 0; i < deleteDiff; i++) {
        const podKey = `${ds.metadata.namespace ?? ''}/${podsToDelete[i]}`;
        const pod = this.pods.get(podKey) ?? { metadata: { namespace: ds.metadata.namespace, name: podsToDelete[i] } };
        d.keys.push(podKey);
        d.uids.push(pod.metadata.uid ?? '');
        const res = this.opts.podControl.deletePod(ds, pod, { round, at });
        this.busy.callReturned(res.doneAt);
        if (res.ok) {
          if (res.unknown) d.unknown.push(podKey);
          continue;
        }
        if (res.notFound && this.dsFeatures.deleteNotFoundSwallowed) {
          // Before kubernetes#91008 DeletePod returned nil for NotFound: counted as made, `del` not lowered.
          d.notFound.push(podKey);
          (d.notFoundKept ??= []).push(podKey);
          continue;
        }
        // "any failure to delete the pod means that we will never observe the delete"
        this.expectations.countDeletionObserved(key, at);
        if (res.unmade) d.unmade.push(podKey);
        else if (res.notFound) d.notFound.push(podKey);
        else {
          d.failed.push(podKey);
          d.errors.push(res.error);
        }
      }
      errors.push(...d.errors);
      out.delete = d;
    }
    if (errors.length) out.error = errors.length === 1 ? errors[0] : `[${errors.join(', ')}]`;
    return out;
  }

  /** updateDaemonSetStatus's counts and storeDaemonSetStatus's write-or-skip decision. */
  private statusOf(ds: DaemonSet, nodes: readonly Node[], byNode: ReadonlyMap<string, Pod[]>, placement: (n: Node) => Placement, hash: string | undefined, at: number, updateObservedGen: boolean): DaemonSetSync {
    const minReady = ds.spec?.minReadySeconds ?? 0;
    const generation = templateGeneration(ds);
    const c: DaemonSetStatusCounts = { desiredNumberScheduled: 0, currentNumberScheduled: 0, numberMisscheduled: 0, numberReady: 0, updatedNumberScheduled: 0, numberAvailable: 0, numberUnavailable: 0 };
    for (const node of nodes) {
      const pods = byNode.get(node.metadata.name ?? '');
      const scheduled = !!pods && pods.length > 0;
      if (placement(node).shouldRun) {
        c.desiredNumberScheduled++;
        if (!scheduled) continue;
        c.currentNumberScheduled++;
        const pod = [...pods!].sort(compareByCreationAndPhase)[0]!;
        if (isPodReady(pod)) {
          c.numberReady++;
          if (isPodAvailable(pod, minReady, at, this.features.availabilityInclusive)) c.numberAvailable++;
        }
        if (isPodUpdated(pod, hash, generation)) c.updatedNumberScheduled++;
      } else if (scheduled) c.numberMisscheduled++;
    }
    c.numberUnavailable = c.desiredNumberScheduled - c.numberAvailable;
    const s = ds.status ?? {};
    const same =
      (s.desiredNumberScheduled ?? 0) === c.desiredNumberScheduled &&
      (s.currentNumberScheduled ?? 0) === c.currentNumberScheduled &&
      (s.numberMisscheduled ?? 0) === c.numberMisscheduled &&
      (s.numberReady ?? 0) === c.numberReady &&
      (s.updatedNumberScheduled ?? 0) === c.updatedNumberScheduled &&
      (s.numberAvailable ?? 0) === c.numberAvailable &&
      (s.numberUnavailable ?? 0) === c.numberUnavailable &&
      (s.observedGeneration ?? 0) >= (ds.metadata.generation ?? 0);
    return {
      status: c,
      observedGeneration: updateObservedGen,
      ...(ds.metadata.generation !== undefined ? { generation: ds.metadata.generation } : {}),
      statusWrite: !same,
    };
  }
}

/** reflect.DeepEqual of two nodes' taints (shouldIgnoreNodeUpdate compares labels and spec.taints). */
function sameTaints(a: Node, b: Node): boolean {
  return JSON.stringify(a.spec?.taints ?? []) === JSON.stringify(b.spec?.taints ?? []);
}

/** The DaemonSet controller as an engine builds it for a replay at `version`. */
export function daemonSetControllerFactory(version: K8sVersion): ControllerFactory<DaemonSet> {
  return ({ podControl, onSync }) => new DaemonSetController({ version, podControl, onSync });
}
