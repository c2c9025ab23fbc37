/**
 * A deterministic model of the Job controller in kube-controller-manager: its informer handlers
 * (pods, Jobs), syncJob, manageJob and trackJobStatusAndRemoveFinalizers, over the machinery every
 * pod-owning controller shares (src/model/controller/).
 *
 * Mirrors pkg/controller/job/job_controller.go, tracking_utils.go, backoff_utils.go and
 * indexed_job_utils.go (v1.37.2):
 * - two stores: `expectations`, the plain ControllerExpectations (counts only: ExpectCreations =
 *   Set(n, 0) before creates, ExpectDeletions = Set(0, n) before deletes, nothing set when manageJob
 *   has nothing to do), and `finalizerExpectations` (finalizer-expectations.ts: the pod UIDs whose
 *   job-tracking finalizer removal is expected, no expiry). SatisfiedExpectations reads ONLY the
 *   count store, before the pods are listed; a pod whose removal is still expected counts as
 *   already processed (not counted again, not patched again) — it does not gate the sync;
 * - handlers: addPod (a pod already terminating is a deletion; a resolvable controllerRef lowers
 *   `add`), updatePod (a deletionTimestamp → deletePod(final=false); a pod without the finalizer
 *   is a removal observed, for the old and the new owner), deletePod (lowers `del` at the
 *   deletionTimestamp update AND at the final delete of a pod — both count; the finalizer removal
 *   is observed at the final delete or when the pod has no finalizer; nothing for a finished or
 *   unknown Job); every pod event and a status-only Job update enqueue after SyncJobBatchPeriod
 *   1 s (enqueueSyncJobBatched: the first event of a burst fixes the sync), a Job add, delete or
 *   spec change at once; a change of activeDeadlineSeconds requeues at the deadline;
 * - syncJob: [1.36+] the consistency gate (StaleControllerConsistencyJob) first; a Job gone →
 *   both stores and the backoff record dropped; managedBy another controller [1.32+] → nothing; a
 *   finished Job → nothing; a Job this process marked finished whose update has not arrived →
 *   nothing (finishedJobExpectations); then SatisfiedExpectations, getPodsForJob (ClaimPods; an
 *   adopted pod counts as holding the finalizer), the counts (active, succeeded/failed = status +
 *   newly finished pods holding the finalizer + status.uncountedTerminatedPods), startTime, the
 *   pod-failure backoff record, the failure conditions (an earlier SuccessCriteriaMet or
 *   FailureTarget, backoffLimit exceeded, OnFailure restarts past backoffLimit, activeDeadlineSeconds
 *   passed — else a requeue at the deadline);
 * - a finish condition found there deletes every active pod (deleteActivePods: no expectations) and
 *   is DROPPED ("Can't declare the Job as finished yet") when the expectations are unsatisfied or
 *   not every delete succeeded; otherwise manageJob runs only when satisfied and the Job is not
 *   being deleted, and completion (succeeded ≥ completions, or any success without completions,
 *   with no active pod) is evaluated whether or not it ran;
 * - manageJob: suspend deletes every active pod; too many active pods → activePodsForRemoval (an
 *   Indexed Job's repeated/invalid indexes first, then ActivePods order), at most
 *   MaxPodCreateDeletePerSync 500, each pod's finalizer removed before its DELETE (a failed patch
 *   or delete lowers `del`; NotFound silently); too few → first the pod-failure backoff (10 s ·
 *   2^(failures−1), max 10 min, since the last failure: no create, a requeue after max(remaining,
 *   1 s)), then up to 500 creates (an Indexed Job's first pending indexes) in slow-start batches: a
 *   failed create lowers `add` and stops after its batch, the skipped ones lowered at once; a
 *   create refused because the namespace is terminating is NOT lowered and is no error; deletes
 *   take precedence over creates in one sync;
 * - trackJobStatusAndRemoveFinalizers: finished pods holding the finalizer (and every non-terminal
 *   one of a failing Job) go to status.uncountedTerminatedPods (an Indexed Job's successes to
 *   completedIndexes), stopping at MaxUncountedPods 500; the status is written, then the finalizers
 *   removed (expectFinalizersRemoved first; a failed patch observes the removal at once, NotFound
 *   counts as removed), the pods whose finalizer is gone leave uncountedTerminatedPods into
 *   succeeded/failed, and the Complete/Failed condition is written only with nothing uncounted and
 *   nothing terminating (enactJobFinished).
 *
 * Version switches: the consistency gate (1.36+); managedBy honoured (JobManagedBy on by default from
 * 1.32); the backoff wait returns the active count (1.37+, v1.34.10, v1.35.8, v1.36.3; before, it
 * returned 0, and from 1.32 the apiserver rejects the resulting status — "cannot set more ready pods
 * than active" — so the sync fails before it removes any finalizer: kubernetes#139428); the queue's
 * failure backoff (job-workqueue.ts: 1 s to 1 min from 1.28, 10 s to 6 min before) and a
 * status-only update of the Job synced after 1 s from 1.28, at once before; a timed-out create counted as created
 * before v1.16.5/v1.17.1/v1.18.0 (kubernetes#78796). Releases before 1.26 are replayed with finalizer
 * tracking on (JobTrackingWithFinalizers, GA in 1.26); the legacy tracking is not modelled.
 *
 * Not modelled: podFailurePolicy rules (every failed pod counts as failed; FailJob, Ignore and
 * FailIndex are not evaluated), successPolicy, backoffLimitPerIndex (failed indexes, per-index
 * backoff and delayed finalizer removals; the global pod-failure backoff is skipped with it, as
 * upstream), the orphan-pod worker (it removes the finalizer of orphans and of a finished Job's pods:
 * writes that gate no sync of a running Job), the Workload/PodGroup objects (WorkloadWithJob), the
 * status-validation rules of the apiserver other than ready ≤ active, and metrics and Events. A sync
 * that meets one of these names it in `job.unmodelled`.
 *
 * Contract: the controller seam (controller/controller.ts) for Jobs. No I/O, no clock: the API
 * calls are answered by the caller's PodControl (creates, deletes, adopt and finalizer-removal
 * patches, status writes); the model never writes into its own caches. `create`/`delete` on the
 * SyncRecord are manageJob's rounds (or deleteActivePods', noted), `job` the rest.
 *
 * Cost: a pod handler is O(1) with a controllerRef, O(Jobs of the namespace) for an orphan; a sync
 * O(p log p) in the Job's pods plus the namespace's orphans.
 */
import { claimPods, recheckDeletionTimestamp, type CanAdoptCheck, type ClaimOwnerKind } from '../adoption.js';
import { ControllerExpectations } from '../expectations.js';
import { controllerRefOf, objectKey, parseTime, sameLabels, sameOwnerReference, type Job, type JobCondition, type OwnerReference, type Pod } from '../objects.js';
import { isPodReady } from '../pod-ranking.js';
import { PodStore } from '../pod-store.js';
import { cachedSelectorError, labelSelectorMatches } from '../selector.js';
import { featuresOf, type K8sVersion, type VersionFeatures } from '../version.js';
import { BusyTime } from '../controller/busy-time.js';
import type { Controller, ControllerFactory, PodCounts } from '../controller/controller.js';
import { Informer, type WatchType } from '../controller/informer.js';
import type { PodControl } from '../controller/pod-control.js';
import type { CreateRound, DeleteRound, JobStatusCounts, JobSync, SyncRecord } from '../controller/sync-record.js';
import { unwrapTombstone, type Tombstone } from '../controller/tombstone.js';
import { Worker } from '../controller/worker.js';
import { completionIndexOf, firstPendingIndexes, OrderedIntervals, succeededIndexes, UNKNOWN_COMPLETION_INDEX } from './completion-indexes.js';
import { FinalizerExpectations } from './finalizer-expectations.js';
import { activePodsForRemoval, hasTrackingFinalizer, isActive, isJobFinished, isPodFailed, isTerminating, JOB_CONTROLLER_NAME, JOB_TRACKING_FINALIZER, jobSpec, pastBackoffLimitOnFailure, type JobSpecDefaults } from './job-pods.js';
import { JobWorkQueue, jobQueueBackoffOf, SYNC_JOB_BATCH_PERIOD_MS } from './job-workqueue.js';
import { PodFailureBackoff, remainingMs, type BackoffRecord } from './pod-failure-backoff.js';

/** MaxPodCreateDeletePerSync. */
export const MAX_POD_CREATE_DELETE_PER_SYNC = 500;
/** MaxUncountedPods. */
export const MAX_UNCOUNTED_PODS = 500;
/** SlowStartInitialBatchSize in pkg/controller/controller_utils.go. */
const SLOW_START_INITIAL_BATCH_SIZE = 1;
/** controllerKind: batch/v1 Job, as ClaimPods' messages and client errors name it. */
export const JOB_CLAIM_KIND: ClaimOwnerKind = { kind: 'Job', resource: 'jobs.batch' };

/** The Job controller's version switches beyond VersionFeatures. */
export interface JobVersionFeatures {
  /** JobManagedBy on by default (beta 1.32, GA 1.35): a Job managed by another controller is skipped, and the apiserver validates status transitions. */
  managedBy: boolean;
  /**
   * During the pod-failure backoff manageJob returns the active count (before: 0, kubernetes#139428;
   * fixed by #139457 in v1.37.0 and the cherry-picks read in v1.34.10, v1.35.8 and v1.36.3 —
   * v1.34.9, v1.35.6 and v1.36.2 still return 0; v1.35.7 is not on the module proxy and is taken as
   * before the fix; 1.33 and older have no fixed release). A minor without a patch is its newest.
   */
  backoffKeepsActive: boolean;
  /**
   * updateJob enqueues a status-only update through enqueueSyncJobBatched (1 s) — from 1.28; before,
   * every Job update was enqueueController(curJob, true): synced at once (v1.12.10 … v1.27.16).
   */
  batchedStatusUpdates: boolean;
}

/** The first patch release of each minor whose manageJob keeps the active count during the backoff. */
const BACKOFF_KEEPS_ACTIVE_SINCE: Record<number, number> = { 34: 10, 35: 8, 36: 3 };

export function jobFeaturesOf(v: K8sVersion): JobVersionFeatures {
  const since = BACKOFF_KEEPS_ACTIVE_SINCE[v.minor];
  const backoffKeepsActive = v.minor >= 37 || (since !== undefined && (v.patch === undefined || v.patch >= since));
  return { managedBy: v.minor >= 32, backoffKeepsActive, batchedStatusUpdates: v.minor >= 28 };
}

/** What an informer handler did, for evidence and tests. */
export interface JobHandlerRecord {
  at: number;
  handler: 'addPod' | 'updatePod' | 'deletePod' | 'addJob' | 'updateJob' | 'deleteJob';
  object: string;
  effects: string[];
}

export interface JobControllerOptions {
  version: K8sVersion;
  podControl: PodControl<Job>;
  /** Override ExpectationsTimeout (tests only; the real value is 5 min). */
  expectationsTimeoutMs?: number;
  onSync?: (s: SyncRecord) => void;
  onHandler?: (h: JobHandlerRecord) => void;
}

/** A condition the sync computed (newCondition), by type, reason and message. */
interface Cond {
  type: string;
  reason: string;
  message: string;
}

/** The Job's status as the sync changes it. */
interface WorkStatus {
  active: number;
  ready: number;
  terminating: number;
  succeeded: number;
  failed: number;
  uncountedSucceeded: string[];
  uncountedFailed: string[];
  completedIndexes?: string;
  conditions: JobCondition[];
  startTime?: number;
  completionTime?: number;
}

/** syncJobCtx. */
interface SyncCtx {
  job: Job;
  key: string;
  spec: JobSpecDefaults;
  pods: Pod[];
  activePods: Pod[];
  succeeded: number;
  failed: number;
  ready: number;
  terminating: number;
  uncounted: { succeeded: Set<string>; failed: Set<string> };
  expectedRm: Set<string>;
  prevSucceededIndexes: OrderedIntervals;
  succeededIndexes: OrderedIntervals;
  newBackoff: BackoffRecord;
  finish?: Cond;
  status: WorkStatus;
  /** The last status the apiserver holds (active, ready), for its validation of the next write. */
  written: { active: number; ready: number | null };
  sync: JobSync;
}

export class JobController implements Controller<Job> {
  readonly expectations: ControllerExpectations;
  readonly finalizerExpectations = new FinalizerExpectations();
  readonly queue: JobWorkQueue;
  readonly features: VersionFeatures;
  readonly jobFeatures: JobVersionFeatures;
  readonly pods = new PodStore();
  /** The Job informer's cache. */
  readonly owners = new Map<string, Job>();
  /** The pod-failure backoff records (podBackoffStore). */
  readonly podBackoff = new PodFailureBackoff();
  /** finishedJobExpectations: UIDs of Jobs this process marked finished whose update it has not seen. */
  readonly finishedJobs = new Set<string>();
  private round = 0;
  private readonly busy = new BusyTime();
  private readonly worker: Worker<SyncRecord>;
  private readonly podInformer: Informer<Pod>;
  private readonly jobInformer: Informer<Job>;

  constructor(private readonly opts: JobControllerOptions) {
    this.expectations = new ControllerExpectations(opts.expectationsTimeoutMs);
    this.features = featuresOf(opts.version);
    this.jobFeatures = jobFeaturesOf(opts.version);
    this.queue = new JobWorkQueue(jobQueueBackoffOf(opts.version.minor));
    this.podInformer = new Informer<Pod>(this.pods, {
      onAdd: (pod, at) => this.addPod(pod, at),
      onUpdate: (old, cur, at) => this.updatePod(old, cur, at),
      onDelete: (obj, at) => this.deletePod(obj, true, at),
    });
    this.jobInformer = new Informer<Job>(this.owners, {
      onAdd: (job, at) => this.addJob(job, at),
      onUpdate: (old, cur, at) => this.updateJob(old, cur, at),
      onDelete: (obj, at) => this.deleteJob(obj, at),
    });
    // jm.syncHandler = jm.syncJob
    this.worker = new Worker<SyncRecord>(this.queue, this.busy, (key, at) => this.syncJob(key, at), (s) => this.opts.onSync?.(s));
  }

  // ───────────────────────────── the controller seam ─────────────────────────────

  deliverPod(watchType: WatchType, pod: Pod, at: number): void {
    this.podInformer.deliver(watchType, pod, at);
  }

  deliverPodTombstone(stale: Pod, at: number): void {
    this.podInformer.deliverTombstone(stale, at);
  }

  deliverOwner(watchType: WatchType, job: Job, at: number): void {
    this.jobInformer.deliver(watchType, job, at);
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

  /** No incremental counts are kept for Jobs. */
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

  private report(h: () => JobHandlerRecord): void {
    if (this.opts.onHandler) this.opts.onHandler(h());
  }

  /** resolveControllerRef: the Job the ref names, only if its kind is Job and the UID matches. */
  resolveControllerRef(namespace: string, ref: OwnerReference): Job | undefined {
    if (ref.kind !== 'Job') return undefined;
    const job = this.owners.get(`${namespace}/${ref.name}`);
    return job && job.metadata.uid === ref.uid ? job : undefined;
  }

  /** getPodJobs → JobLister.GetPodJobs: Jobs of the pod's namespace whose selector matches its (non-empty) labels. */
  getPodJobs(pod: Pod): Job[] {
    if (!pod.metadata.labels || Object.keys(pod.metadata.labels).length === 0) return [];
    const out: Job[] = [];
    for (const job of this.owners.values()) {
      if (job.metadata.namespace !== pod.metadata.namespace) continue;
      if (labelSelectorMatches(job.spec?.selector, pod.metadata.labels)) out.push(job);
    }
    return out;
  }

  /** enqueueSyncJobBatched: AddAfter(key, SyncJobBatchPeriod). */
  private enqueueBatched(job: Job, at: number): string {
    const key = objectKey(job.metadata);
    this.queue.addAfter(key, at, SYNC_JOB_BATCH_PERIOD_MS);
    return key;
  }

  /** enqueueSyncJobImmediately: AddAfter(key, 0) = Add. */
  private enqueueNow(job: Job, at: number): string {
    const key = objectKey(job.metadata);
    this.queue.add(key, at);
    return key;
  }

  /** addPod in job_controller.go. */
  addPod(pod: Pod, at: number): void {
    const name = objectKey(pod.metadata);
    if (pod.metadata.deletionTimestamp) {
      // "Prevent the pod from being a creation observation."
      this.deletePod(pod, false, at);
      return;
    }
    const ref = controllerRefOf(pod.metadata);
    if (ref) {
      const job = this.resolveControllerRef(pod.metadata.namespace ?? '', ref);
      if (!job) return;
      const key = objectKey(job.metadata);
      this.expectations.creationObserved(key, at);
      this.enqueueBatched(job, at);
      this.report(() => ({ at, handler: 'addPod', object: name, effects: [`CreationObserved(${key})`, `enqueue ${key} after 1 s`] }));
      return;
    }
    const effects: string[] = [];
    if (hasTrackingFinalizer(pod)) effects.push('orphan pod with the tracking finalizer: orphan queue (not modelled)');
    for (const job of this.getPodJobs(pod)) effects.push(`enqueue ${this.enqueueBatched(job, at)} after 1 s (orphan)`);
    this.report(() => ({ at, handler: 'addPod', object: name, effects }));
  }

  /** updatePod in job_controller.go. */
  updatePod(old: Pod, cur: Pod, at: number): void {
    const name = objectKey(cur.metadata);
    if (cur.metadata.resourceVersion !== undefined && cur.metadata.resourceVersion === old.metadata.resourceVersion) return;
    if (cur.metadata.deletionTimestamp) {
      this.deletePod(cur, false, at);
      return;
    }
    const effects: string[] = [];
    // "Don't check if oldPod has the finalizer": a pod without it is a removal observed.
    const finalizerRemoved = !hasTrackingFinalizer(cur);
    const uid = cur.metadata.uid ?? '';
    const curRef = controllerRefOf(cur.metadata);
    const oldRef = controllerRefOf(old.metadata);
    const refChanged = !sameOwnerReference(curRef, oldRef);
    if (refChanged && oldRef) {
      const oldJob = this.resolveControllerRef(old.metadata.namespace ?? '', oldRef);
      if (oldJob) {
        const key = objectKey(oldJob.metadata);
        if (finalizerRemoved && this.finalizerExpectations.finalizerRemovalObserved(key, uid, at)) effects.push(`finalizer removal observed (${key}, old owner)`);
        effects.push(`enqueue ${this.enqueueBatched(oldJob, at)} after 1 s (old owner)`);
      }
    }
    if (curRef) {
      const job = this.resolveControllerRef(cur.metadata.namespace ?? '', curRef);
      if (!job) return;
      const key = objectKey(job.metadata);
      if (finalizerRemoved && this.finalizerExpectations.finalizerRemovalObserved(key, uid, at)) effects.push(`finalizer removal observed (${key})`);
      effects.push(`enqueue ${this.enqueueBatched(job, at)} after 1 s`);
      this.report(() => ({ at, handler: 'updatePod', object: name, effects }));
      return;
    }
    if (hasTrackingFinalizer(cur)) effects.push('orphan pod with the tracking finalizer: orphan queue (not modelled)');
    if (!sameLabels(cur.metadata.labels, old.metadata.labels) || refChanged) {
      for (const job of this.getPodJobs(cur)) effects.push(`enqueue ${this.enqueueBatched(job, at)} after 1 s (orphan)`);
    }
    this.report(() => ({ at, handler: 'updatePod', object: name, effects }));
  }

  /** deletePod(obj, final) in job_controller.go; accepts a tombstone whose object may be stale. */
  deletePod(obj: Pod | Tombstone<Pod>, final: boolean, at: number): void {
    const pod = unwrapTombstone(obj);
    const name = objectKey(pod.metadata);
    const ref = controllerRefOf(pod.metadata);
    const hasFinalizer = hasTrackingFinalizer(pod);
    if (!ref) {
      if (hasFinalizer) this.report(() => ({ at, handler: 'deletePod', object: name, effects: ['orphan pod with the tracking finalizer: orphan queue (not modelled)'] }));
      return;
    }
    const job = this.resolveControllerRef(pod.metadata.namespace ?? '', ref);
    if (!job || isJobFinished(job)) {
      // "syncJob will not remove this finalizer."
      if (hasFinalizer) this.report(() => ({ at, handler: 'deletePod', object: name, effects: ['finished or unknown Job: orphan queue (not modelled)'] }));
      return;
    }
    const key = objectKey(job.metadata);
    this.expectations.countDeletionObserved(key, at);
    const effects = [`DeletionObserved(${key})`];
    // "Consider the finalizer removed if this is the final delete."
    if ((final || !hasFinalizer) && this.finalizerExpectations.finalizerRemovalObserved(key, pod.metadata.uid ?? '', at)) effects.push(`finalizer removal observed (${key})`);
    effects.push(`enqueue ${this.enqueueBatched(job, at)} after 1 s`);
    this.report(() => ({ at, handler: 'deletePod', object: name, effects }));
  }

  /** addJob: enqueue at once. */
  addJob(job: Job, at: number): void {
    const key = this.enqueueNow(job, at);
    this.report(() => ({ at, handler: 'addJob', object: key, effects: [`enqueue ${key}`] }));
  }

  /** updateJob: a finished Job only feeds the orphan queue; a spec change syncs at once, a status update after 1 s (at once before 1.28); a new activeDeadlineSeconds requeues at the deadline. */
  updateJob(old: Job, cur: Job, at: number): void {
    const key = objectKey(cur.metadata);
    if (isJobFinished(cur)) {
      this.report(() => ({ at, handler: 'updateJob', object: key, effects: ['finished: orphan queue by selector (not modelled)'] }));
      return;
    }
    const effects: string[] = [];
    // Before 1.28 updateJob enqueued every update at once (enqueueController(curJob, true), v1.12–v1.27).
    if (this.jobFeatures.batchedStatusUpdates && (cur.metadata.generation ?? 0) === (old.metadata.generation ?? 0)) effects.push(`enqueue ${this.enqueueBatched(cur, at)} after 1 s`);
    else effects.push(`enqueue ${this.enqueueNow(cur, at)}`);
    const start = parseTime(cur.status?.startTime);
    const curADS = cur.spec?.activeDeadlineSeconds;
    if (start !== undefined && curADS != null) {
      const oldADS = old.spec?.activeDeadlineSeconds;
      if (oldADS == null || oldADS !== curADS) {
        // AddAfter handles total < passed.
        const delay = curADS * 1000 - (at - start);
        this.queue.addAfter(key, at, delay);
        effects.push(`enqueue ${key} after ${delay} ms (activeDeadlineSeconds)`);
      }
    }
    this.report(() => ({ at, handler: 'updateJob', object: key, effects }));
  }

  /** deleteJob: enqueue, drop the finished mark, DeleteExpectations (count store) and the backoff record. */
  deleteJob(obj: Job | Tombstone<Job>, at: number): void {
    const job = unwrapTombstone(obj);
    const key = this.enqueueNow(job, at);
    this.finishedJobs.delete(job.metadata.uid ?? '');
    this.expectations.delete(key, at);
    this.podBackoff.remove(key);
    this.report(() => ({ at, handler: 'deleteJob', object: key, effects: [`enqueue ${key}`, 'DeleteExpectations'] }));
  }

  // ───────────────────────────── sync ─────────────────────────────

  /**
   * processNextWorkItem's error path: AddRateLimited with the Job queue's backoff, once syncJob has
   * returned — after its last API call did (the delay counts from there, not from the sync's start).
   */
  private fail(rec: SyncRecord, error: string, outcome?: SyncRecord['outcome']): SyncRecord {
    const delay = this.queue.addRateLimited(rec.key, this.busy.returnsAt(rec.at));
    return { ...rec, ...(outcome ? { outcome } : {}), error, requeue: { kind: 'rate-limited', delayMs: delay } };
  }

  private done(rec: SyncRecord): SyncRecord {
    this.queue.forget(rec.key);
    return rec;
  }

  /** syncJob in job_controller.go, run through the worker. */
  private syncJob(key: string, at: number): SyncRecord {
    if (this.features.consistencyGate && this.opts.podControl.informerBehindOwnWrites?.(key, at)) {
      const delay = this.queue.addRateLimited(key, at);
      return { at, key, outcome: 'consistency-skip', error: 'ConsistencyError: informer has not observed the controller\'s last write', requeue: { kind: 'rate-limited', delayMs: delay } };
    }
    const job = this.owners.get(key);
    if (!job) {
      // "Job has been deleted"
      this.expectations.delete(key, at);
      this.finalizerExpectations.deleteExpectations(key, at);
      this.podBackoff.remove(key);
      return this.done({ at, key, outcome: 'rs-not-found' });
    }
    const uid = job.metadata.uid ?? '';
    const rec: SyncRecord = { at, key, rsUid: uid, outcome: 'synced' };
    const managedBy = job.spec?.managedBy;
    if (this.jobFeatures.managedBy && managedBy != null && managedBy !== JOB_CONTROLLER_NAME) return this.done({ ...rec, outcome: 'managed-elsewhere' });
    if (isJobFinished(job)) {
      this.podBackoff.remove(key);
      this.finishedJobs.delete(uid);
      return this.done({ ...rec, outcome: 'job-finished' });
    }
    // "Skip syncing the job as its marked finished but the corresponding update event is not yet received"
    if (this.finishedJobs.has(uid)) return this.done({ ...rec, outcome: 'finish-unobserved' });
    const spec = jobSpec(job);
    if (spec.unknownCompletionMode !== undefined) return this.done({ ...rec, outcome: 'unknown-completion-mode' });

    // "Check the expectations of the job before counting active pods."
    const sat = this.expectations.satisfied(key, at);
    rec.expectations = sat.outcome;
    rec.recordBefore = sat.record;
    const selErr = cachedSelectorError(job.spec?.selector ?? null);
    if (selErr) return this.fail(rec, `couldn't convert Job selector: ${selErr}`, 'selector-error');
    const claimed = this.getPodsForJob(job, at, rec);
    if ('error' in claimed) return this.fail(rec, claimed.error, 'claim-error');
    const ctx = this.newCtx(job, key, spec, claimed.pods, at);
    rec.job = ctx.sync;

    // Failure scenarios (an earlier SuccessCriteriaMet or FailureTarget first, then backoffLimit and activeDeadlineSeconds).
    const existing = (type: string): JobCondition | undefined => (job.status?.conditions ?? []).find((c) => c.type === type && c.status === 'True');
    const scm = existing('SuccessCriteriaMet');
    if (scm) ctx.finish = { type: 'SuccessCriteriaMet', reason: scm.reason ?? '', message: scm.message ?? '' };
    if (!ctx.finish) {
      const ft = existing('FailureTarget');
      if (ft) ctx.finish = { type: 'Failed', reason: ft.reason ?? '', message: ft.message ?? '' };
    }
    if (!ctx.finish) {
      if (ctx.failed > spec.backoffLimit || pastBackoffLimitOnFailure(spec, ctx.pods)) {
        ctx.finish = { type: 'FailureTarget', reason: 'BackoffLimitExceeded', message: 'Job has reached the specified backoff limit' };
      } else if (this.pastActiveDeadline(spec, ctx.status.startTime, at)) {
        ctx.finish = { type: 'FailureTarget', reason: 'DeadlineExceeded', message: 'Job was active longer than specified deadline' };
      } else if (spec.activeDeadlineSeconds !== undefined && !spec.suspend) {
        // "Job has activeDeadlineSeconds configuration. Will sync this job again"
        const delay = spec.activeDeadlineSeconds * 1000 - (at - (ctx.status.startTime ?? at));
        this.queue.addAfter(key, at, delay);
        rec.requeue = { kind: 'after', delayMs: delay };
      }
    }
    if (spec.indexed) {
      const ix = succeededIndexes(job.status?.completedIndexes, ctx.pods, spec.completions ?? 0, hasTrackingFinalizer);
      ctx.prevSucceededIndexes = ix.prev;
      ctx.succeededIndexes = ix.now;
      ctx.succeeded = ix.now.total();
      ctx.sync.succeeded = ctx.succeeded;
    }

    let manageErr: string | undefined;
    let suspendCondChanged = false;
    let active = ctx.activePods.length;
    if (ctx.finish) {
      const d = this.deleteActivePods(job, ctx.activePods, at);
      if (d.round) rec.delete = d.round;
      if (d.deleted !== active || !sat.satisfied) {
        // "Can't declare the Job as finished yet, as there might be remaining pod finalizers or pods that are not in the informer's cache yet."
        ctx.sync.finishDropped = !sat.satisfied ? 'unsatisfied' : 'deletes-failed';
        ctx.sync.finish = { type: ctx.finish.type, reason: ctx.finish.reason };
        delete ctx.finish;
      }
      active -= d.deleted;
      ctx.terminating += d.deleted;
      ctx.ready -= d.deletedReady;
      manageErr = d.error;
      if (!sat.satisfied) rec.outcome = 'gated';
    } else {
      let manageCalled = false;
      if (sat.satisfied && !job.metadata.deletionTimestamp) {
        const m = this.manageJob(ctx, at, rec);
        active = m.active;
        manageErr = m.error;
        manageCalled = true;
      } else rec.outcome = sat.satisfied ? 'rs-being-deleted' : 'gated';
      const complete = spec.completions === null ? ctx.succeeded > 0 && active === 0 : ctx.succeeded >= spec.completions && active === 0;
      if (complete) {
        ctx.finish = { type: 'SuccessCriteriaMet', reason: 'CompletionsReached', message: 'Reached expected number of succeeded pods' };
      } else if (manageCalled) {
        if (spec.suspend) {
          if (ensureCondition(ctx.status.conditions, 'Suspended', 'True', 'JobSuspended', 'Job suspended', at)) {
            suspendCondChanged = true;
            // MutableSchedulingDirectivesForSuspendedJobs (beta, on by default from 1.36).
            if (this.opts.version.minor >= 36) delete ctx.status.startTime;
          }
        } else if (ensureCondition(ctx.status.conditions, 'Suspended', 'False', 'JobResumed', 'Job resumed', at)) {
          suspendCondChanged = true;
          ctx.status.startTime = at;
        }
      }
    }

    const cached = job.status ?? {};
    let needsStatusUpdate = suspendCondChanged || active !== (cached.active ?? 0) || ctx.ready !== (cached.ready ?? null);
    needsStatusUpdate = needsStatusUpdate || ctx.terminating !== (cached.terminating ?? null);
    ctx.status.active = active;
    ctx.status.ready = ctx.ready;
    ctx.status.terminating = ctx.terminating;
    rec.active = active;
    rec.ready = ctx.ready;
    rec.terminatingPods = ctx.terminating;
    rec.desired = spec.completions ?? spec.parallelism;
    const trackErr = this.trackJobStatusAndRemoveFinalizers(ctx, needsStatusUpdate, at);
    // The finish as trackJobStatusAndRemoveFinalizers leaves it (FailureTarget → Failed, SuccessCriteriaMet → Complete).
    if (ctx.finish) ctx.sync.finish = { type: ctx.finish.type, reason: ctx.finish.reason };
    ctx.sync.status = statusCounts(ctx.status);
    if (trackErr) return this.fail(rec, `tracking status: ${trackErr}`);
    if (manageErr) return this.fail(rec, manageErr);
    this.queue.forget(key);
    return rec;
  }

  /** pastActiveDeadline: activeDeadlineSeconds set, started, not suspended, and passed (inclusive). */
  private pastActiveDeadline(spec: JobSpecDefaults, startTime: number | undefined, at: number): boolean {
    if (spec.activeDeadlineSeconds === undefined || startTime === undefined || spec.suspend) return false;
    return at - startTime >= spec.activeDeadlineSeconds * 1000;
  }

  /**
   * getPodsForJob: the pods indexed to this Job plus the namespace's orphans (FilterPodsByOwner),
   * claimed by ClaimPods (an adoption also adds the tracking finalizer); an adopted pod is then
   * read as holding the finalizer.
   */
  private getPodsForJob(job: Job, at: number, rec: SyncRecord): { pods: Pod[] } | { error: string } {
    const name = job.metadata.name;
    const uid = job.metadata.uid ?? '';
    const candidates = this.pods.ownedAndOrphans(job.metadata.namespace, job.metadata.uid, (p) => {
      const ref = controllerRefOf(p.metadata)!;
      return ref.kind === 'Job' && ref.name === name;
    });
    let canAdopt: CanAdoptCheck | undefined;
    const claim = claimPods(
      job,
      candidates,
      () => (canAdopt ??= recheckDeletionTimestamp(job, this.opts.podControl.getFreshOwner(job, at), JOB_CLAIM_KIND)),
      (pod, action) => this.opts.podControl.patchPod(pod, action, at, (rec.claimRound ??= ++this.round), job),
      JOB_CLAIM_KIND,
    );
    if (claim.decisions.some((d) => d.action === 'adopt' || d.action === 'release')) rec.claims = claim.decisions;
    if (claim.errors.length) {
      rec.claimErrors = claim.errors;
      return { error: claim.errors.join(', ') };
    }
    const pods = claim.claimed.map((p) => {
      const adopted = !(p.metadata.ownerReferences ?? []).some((r) => r.uid === uid);
      return adopted && !hasTrackingFinalizer(p) ? { ...p, metadata: { ...p.metadata, finalizers: [...(p.metadata.finalizers ?? []), JOB_TRACKING_FINALIZER] } } : p;
    });
    return { pods };
  }

  /** The counting part of syncJob: active pods, the newly finished ones, succeeded/failed, startTime, the next backoff record. */
  private newCtx(job: Job, key: string, spec: JobSpecDefaults, pods: Pod[], at: number): SyncCtx {
    const st = job.status ?? {};
    const activePods = pods.filter(isActive);
    const uncounted = { succeeded: new Set(st.uncountedTerminatedPods?.succeeded ?? []), failed: new Set(st.uncountedTerminatedPods?.failed ?? []) };
    const expectedRm = this.finalizerExpectations.getExpectedUIDs(key);
    const completions = spec.completions ?? 0;
    // getValidPodsWithFilter: holding the finalizer, not counted yet, not expected removed; an Indexed Job's pods with a valid index.
    const valid = (p: Pod, skip: Set<string>): boolean => {
      const uid = p.metadata.uid ?? '';
      if (!hasTrackingFinalizer(p) || skip.has(uid) || expectedRm.has(uid)) return false;
      if (spec.indexed) {
        const ix = completionIndexOf(p);
        if (ix === UNKNOWN_COMPLETION_INDEX || ix >= completions) return false;
      }
      return true;
    };
    const newSucceeded = pods.filter((p) => valid(p, uncounted.succeeded) && p.status?.phase === 'Succeeded');
    const newFailed = pods.filter((p) => valid(p, uncounted.failed) && isPodFailed(p, spec.onlyReplaceFailed));
    const succeeded = (st.succeeded ?? 0) + newSucceeded.length + uncounted.succeeded.size;
    const failed = (st.failed ?? 0) + newFailed.length + uncounted.failed.size;
    const ready = activePods.filter(isPodReady).length;
    const terminating = pods.filter(isTerminating).length;
    let startTime = parseTime(st.startTime);
    // "Job first start. Set StartTime only if the job is not in the suspended state."
    if (startTime === undefined && !spec.suspend) startTime = at;
    const status: WorkStatus = {
      active: st.active ?? 0,
      ready: st.ready ?? 0,
      terminating: st.terminating ?? 0,
      succeeded: st.succeeded ?? 0,
      failed: st.failed ?? 0,
      uncountedSucceeded: [...uncounted.succeeded],
      uncountedFailed: [...uncounted.failed],
      ...(st.completedIndexes !== undefined ? { completedIndexes: st.completedIndexes } : {}),
      conditions: (st.conditions ?? []).map((c) => ({ ...c })),
      ...(startTime !== undefined ? { startTime } : {}),
      ...(parseTime(st.completionTime) !== undefined ? { completionTime: parseTime(st.completionTime) } : {}),
    };
    const unmodelled: string[] = [];
    if (job.spec?.podFailurePolicy != null) unmodelled.push('podFailurePolicy');
    if (job.spec?.successPolicy != null) unmodelled.push('successPolicy');
    if (job.spec?.backoffLimitPerIndex != null) unmodelled.push('backoffLimitPerIndex');
    const sync: JobSync = {
      active: activePods.length,
      succeeded,
      failed,
      ready,
      terminating,
      uncountedBefore: { succeeded: uncounted.succeeded.size, failed: uncounted.failed.size },
      podsWithFinalizer: pods.filter(hasTrackingFinalizer).map((p) => objectKey(p.metadata)),
      finalizerRemovalsExpected: [...expectedRm].sort(),
      finished: false,
      status: statusCounts(status),
      statusWrites: 0,
      suspended: spec.suspend,
      ...(unmodelled.length ? { unmodelled } : {}),
    };
    return {
      job, key, spec, pods, activePods, succeeded, failed, ready, terminating, uncounted, expectedRm,
      prevSucceededIndexes: new OrderedIntervals(),
      succeededIndexes: new OrderedIntervals(),
      newBackoff: this.podBackoff.newBackoffRecord(key, newSucceeded, newFailed),
      status,
      written: { active: st.active ?? 0, ready: st.ready ?? null },
      sync,
    };
  }

  /** manageJob in job_controller.go: suspend, deletes, the pod-failure backoff, creates. Returns the active count and the error. */
  private manageJob(ctx: SyncCtx, at: number, rec: SyncRecord): { active: number; error?: string } {
    const { job, key, spec } = ctx;
    let active = ctx.activePods.length;
    if (spec.suspend) {
      // "Deleting all active pods in suspended job"
      const toDelete = activePodsForRemoval(spec, ctx.activePods, active);
      this.expectations.set(key, 0, toDelete.length, at); // ExpectDeletions
      const d = this.deleteJobPods(job, key, toDelete, at);
      if (d.round) rec.delete = d.round;
      rec.diff = -toDelete.length;
      active -= d.removed;
      ctx.terminating += d.removed;
      ctx.ready -= d.removedReady;
      return { active, ...(d.error ? { error: d.error } : {}) };
    }
    let wantActive: number;
    if (spec.completions === null) wantActive = ctx.succeeded > 0 ? active : spec.parallelism;
    else wantActive = Math.max(0, Math.min(spec.completions - ctx.succeeded, spec.parallelism));
    const rmAtLeast = Math.max(0, active - wantActive);
    const toDelete = activePodsForRemoval(spec, ctx.activePods, rmAtLeast).slice(0, MAX_POD_CREATE_DELETE_PER_SYNC);
    if (toDelete.length > 0) {
      // "Too many pods running for job"
      this.expectations.set(key, 0, toDelete.length, at); // ExpectDeletions
      const d = this.deleteJobPods(job, key, toDelete, at);
      if (d.round) rec.delete = d.round;
      rec.diff = -toDelete.length;
      active -= d.removed;
      ctx.terminating += d.removed;
      ctx.ready -= d.removedReady;
      // "pod deletion takes precedence"
      return { active, ...(d.error ? { error: d.error } : {}) };
    }
    const terminating = spec.onlyReplaceFailed ? ctx.terminating : 0;
    let diff = wantActive - terminating - active;
    if (diff <= 0) return { active };
    // The global pod-failure backoff (not with backoffLimitPerIndex).
    const remaining = job.spec?.backoffLimitPerIndex != null ? 0 : remainingMs(ctx.newBackoff, at);
    if (remaining > 0) {
      const delay = Math.max(remaining, SYNC_JOB_BATCH_PERIOD_MS); // enqueueSyncJobWithDelay
      this.queue.addAfter(key, at, delay);
      rec.requeue = { kind: 'after', delayMs: delay };
      ctx.sync.podFailureBackoff = { failures: ctx.newBackoff.failuresAfterLastSuccess, ...(ctx.newBackoff.lastFailureTime !== undefined ? { lastFailureAt: ctx.newBackoff.lastFailureTime } : {}), remainingMs: remaining };
      rec.diff = diff;
      return { active: this.jobFeatures.backoffKeepsActive ? active : 0 };
    }
    diff = Math.min(diff, MAX_POD_CREATE_DELETE_PER_SYNC);
    let indexes: number[] | undefined;
    if (spec.indexed) {
      const terminatingPods = spec.onlyReplaceFailed ? ctx.pods.filter(isTerminating) : undefined;
      indexes = firstPendingIndexes(ctx.activePods, ctx.succeededIndexes, diff, spec.completions ?? 0, terminatingPods);
      diff = indexes.length;
      ctx.sync.indexes = indexes;
    }
    rec.diff = diff;
    this.expectations.set(key, diff, 0, at); // ExpectCreations
    // "Too few pods running"
    active += diff;
    const c = this.createPods(job, key, diff, indexes, at);
    if (c.round) rec.create = c.round;
    active -= c.notCreated;
    return { active, ...(c.error ? { error: c.error } : {}) };
  }

  /** manageJob's slow-start creates. `notCreated` = failed + skipped (+ unmade), the amount manageJob takes back from `active`. */
  private createPods(job: Job, key: string, n: number, indexes: readonly number[] | undefined, at: number): { round?: CreateRound; notCreated: number; error?: string } {
    if (n <= 0) return { notCreated: 0 };
    const round = ++this.round;
    const r: CreateRound = { round, n, batches: [], calls: 0, successes: 0, skipped: 0, namespaceTerminating: 0, errors: [], unknown: 0, unmade: 0 };
    let notCreated = 0;
    let pos = 0;
    let unmade = false;
    for (let batch = Math.min(n, SLOW_START_INITIAL_BATCH_SIZE); n > pos && !unmade; ) {
      const errorsBefore = r.errors.length;
      let made = 0;
      for (let i = pos; i < pos + batch; i++) {
        const completionIndex = indexes?.[i];
        const res = this.opts.podControl.createPod(job, { round, index: i, n, at, ...(completionIndex !== undefined ? { completionIndex } : {}) });
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
          // "If the namespace is being torn down, we can safely ignore this error": not lowered, no error.
          r.namespaceTerminating++;
          r.successes++;
          continue;
        }
        if (res.timeout && this.features.createTimeoutAsSuccess) {
          r.timedOut = (r.timedOut ?? 0) + 1;
          r.successes++;
          continue;
        }
        // "Failed creation, decrementing expectations"
        this.expectations.creationObserved(key, at);
        notCreated++;
        r.errors.push(res.error);
      }
      r.batches.push(made);
      if (unmade) {
        if (made === 0) r.batches.pop();
        // Replays: the input shows no more calls; walk back the rest like skipped pods.
        r.unmade = n - pos - made;
        r.skipped += r.unmade;
        notCreated += r.unmade;
        this.expectations.lower(key, r.unmade, 0, at);
        break;
      }
      const skipped = n - (batch + pos);
      if (r.errors.length > errorsBefore && skipped > 0) {
        // "Slow-start failure. Skipping creating pods, decrementing expectations" — one CreationObserved per skipped pod.
        r.skipped += skipped;
        notCreated += skipped;
        for (let i = 0; i < skipped; i++) this.expectations.creationObserved(key, at);
        break;
      }
      pos += batch;
      batch = Math.min(2 * batch, n - pos);
    }
    // errorFromChannel: the first error.
    return { round: r, notCreated, ...(r.errors.length ? { error: r.errors[0] } : {}) };
  }

  /**
   * deleteJobPods: per pod, the finalizer-removal PATCH (through removeTrackingFinalizer, with the
   * round's number) then the DELETE; a failed patch or delete lowers `del` (failDelete), NotFound
   * without an error. `removedReady` counts the ready pods whose DELETE was sent, as upstream does.
   */
  private deleteJobPods(job: Job, key: string, pods: readonly Pod[], at: number): { round?: DeleteRound; removed: number; removedReady: number; error?: string } {
    if (pods.length === 0) return { removed: 0, removedReady: 0 };
    const round = ++this.round;
    const d: DeleteRound = { round, n: pods.length, keys: [], uids: [], failed: [], notFound: [], errors: [], unknown: [], unmade: [] };
    let removed = pods.length;
    let removedReady = 0;
    for (const pod of pods) {
      const podKey = objectKey(pod.metadata);
      d.keys.push(podKey);
      d.uids.push(pod.metadata.uid ?? '');
      if (hasTrackingFinalizer(pod)) {
        const p = this.opts.podControl.removeTrackingFinalizer ? this.opts.podControl.removeTrackingFinalizer(job, pod, { round, at }) : 'unknown';
        if (p !== 'ok' && p !== 'unknown') {
          // failDelete: "the informer won't observe this deletion"
          this.expectations.countDeletionObserved(key, at);
          if (p === 'notfound') d.notFound.push(podKey);
          else if (p === 'unmade') {
            d.unmade.push(podKey);
            removed--;
          } else {
            const err = `removing completion finalizer: ${p === 'invalid' ? `Pod "${pod.metadata.name ?? ''}" is invalid` : p.error}`;
            d.failed.push(podKey);
            d.errors.push(err);
            removed--;
          }
          continue;
        }
      }
      const res = this.opts.podControl.deletePod(job, pod, { round, at });
      this.busy.callReturned(res.doneAt);
      if (res.ok) {
        if (res.unknown) d.unknown.push(podKey);
      } else {
        this.expectations.countDeletionObserved(key, at);
        if (res.unmade) {
          d.unmade.push(podKey);
          removed--;
        } else if (res.notFound) d.notFound.push(podKey);
        else {
          d.failed.push(podKey);
          d.errors.push(res.error);
          removed--;
        }
      }
      if (isPodReady(pod)) removedReady++;
    }
    return { round: d, removed, removedReady, ...(d.errors.length ? { error: d.errors[0] } : {}) };
  }

  /** deleteActivePods: DELETE every active pod of a finishing Job, finalizers kept, no expectations. */
  private deleteActivePods(job: Job, pods: readonly Pod[], at: number): { round?: DeleteRound; deleted: number; deletedReady: number; error?: string } {
    if (pods.length === 0) return { deleted: 0, deletedReady: 0 };
    const round = ++this.round;
    const d: DeleteRound = { round, n: pods.length, keys: [], uids: [], failed: [], notFound: [], errors: [], unknown: [], unmade: [], note: 'deleteActivePods: the Job is finishing; no expectations are set' };
    let deleted = pods.length;
    let deletedReady = 0;
    for (const pod of pods) {
      const podKey = objectKey(pod.metadata);
      d.keys.push(podKey);
      d.uids.push(pod.metadata.uid ?? '');
      const res = this.opts.podControl.deletePod(job, pod, { round, at });
      this.busy.callReturned(res.doneAt);
      if (res.ok) {
        if (res.unknown) d.unknown.push(podKey);
      } else if (res.unmade) {
        d.unmade.push(podKey);
        deleted--;
      } else if (res.notFound) d.notFound.push(podKey);
      else {
        d.failed.push(podKey);
        d.errors.push(res.error);
        deleted--;
      }
      if (isPodReady(pod)) deletedReady++;
    }
    return { round: d, deleted, deletedReady, ...(d.errors.length ? { error: d.errors[0] } : {}) };
  }

  /**
   * trackJobStatusAndRemoveFinalizers + flushUncountedAndRemoveFinalizers + enactJobFinished.
   * Returns the error syncJob wraps in "tracking status: …".
   */
  private trackJobStatusAndRemoveFinalizers(ctx: SyncCtx, needsFlushIn: boolean, at: number): string | undefined {
    const { job, key, spec, status } = ctx;
    let needsFlush = needsFlushIn;
    const completions = spec.completions ?? 0;
    // "Sort to introduce completed Indexes in order."
    const pods = spec.indexed ? [...ctx.pods].sort((a, b) => completionIndexOf(a) - completionIndexOf(b)) : ctx.pods;
    const uidsWithFinalizer = new Set<string>();
    for (const p of pods) if (hasTrackingFinalizer(p) && !ctx.expectedRm.has(p.metadata.uid ?? '')) uidsWithFinalizer.add(p.metadata.uid ?? '');
    if (cleanUncountedPodsWithoutFinalizers(status, uidsWithFinalizer)) needsFlush = true;
    const toRemove: Pod[] = [];
    const newSucceededIndexes: number[] = [];
    let reachedMax = false;
    for (const pod of pods) {
      const uid = pod.metadata.uid ?? '';
      // "This pod was processed in a previous sync."
      if (!hasTrackingFinalizer(pod) || ctx.expectedRm.has(uid)) continue;
      const considerFailed = isPodFailed(pod, spec.onlyReplaceFailed);
      // canRemoveFinalizer (the backoffLimitPerIndex delay is not modelled).
      if (!(job.metadata.deletionTimestamp != null || ctx.finish !== undefined || pod.status?.phase === 'Succeeded' || considerFailed)) continue;
      toRemove.push(pod);
      if (pod.status?.phase === 'Succeeded' && !ctx.uncounted.failed.has(uid)) {
        if (spec.indexed) {
          const ix = completionIndexOf(pod);
          if (ix !== UNKNOWN_COMPLETION_INDEX && ix < completions && !ctx.prevSucceededIndexes.has(ix)) {
            newSucceededIndexes.push(ix);
            needsFlush = true;
          }
        } else if (!ctx.uncounted.succeeded.has(uid)) {
          needsFlush = true;
          status.uncountedSucceeded.push(uid);
        }
      } else if (considerFailed || (ctx.finish !== undefined && ctx.finish.type !== 'SuccessCriteriaMet')) {
        // "When the job is considered finished, every non-terminated pod is considered failed."
        const ix = completionIndexOf(pod);
        if (!ctx.uncounted.failed.has(uid) && (!spec.indexed || (ix !== UNKNOWN_COMPLETION_INDEX && ix < completions))) {
          needsFlush = true;
          status.uncountedFailed.push(uid);
        }
      }
      if (newSucceededIndexes.length + status.uncountedSucceeded.length + status.uncountedFailed.length >= MAX_UNCOUNTED_PODS) {
        reachedMax = true;
        break;
      }
    }
    if (spec.indexed) {
      ctx.succeededIndexes = ctx.succeededIndexes.withOrderedIndexes(newSucceededIndexes);
      const s = ctx.succeededIndexes.toString();
      if (s !== (status.completedIndexes ?? '')) needsFlush = true;
      status.succeeded = ctx.succeededIndexes.total();
      status.completedIndexes = s;
    }
    if (ctx.finish?.type === 'FailureTarget') {
      // The interim FailureTarget is written before the finalizers are removed; Failed follows.
      status.conditions.push(conditionOf(ctx.finish, at));
      needsFlush = true;
      ctx.finish = { ...ctx.finish, type: 'Failed' };
    }
    if (ctx.finish?.type === 'SuccessCriteriaMet') {
      if (!status.conditions.some((c) => c.type === 'SuccessCriteriaMet' && c.status === 'True')) {
        status.conditions.push(conditionOf(ctx.finish, at));
        needsFlush = true;
      }
      ctx.finish = { ...ctx.finish, type: 'Complete' };
    }
    // flushUncountedAndRemoveFinalizers
    if (needsFlush) {
      const w = this.writeStatus(ctx, at);
      if (w) return `adding uncounted pods to status: ${w}`;
      this.podBackoff.update(ctx.newBackoff);
      needsFlush = false;
    }
    let rmErr: string | undefined;
    if (toRemove.length > 0) {
      const r = this.removeTrackingFinalizerFromPods(job, key, toRemove, at);
      ctx.sync.finalizerRemovals = r.record;
      for (let i = 0; i < toRemove.length; i++) if (r.succeeded[i]) uidsWithFinalizer.delete(toRemove[i]!.metadata.uid ?? '');
      rmErr = r.error;
    }
    // "Failed to remove some finalizers. Attempt to update the status with the partial progress."
    if (cleanUncountedPodsWithoutFinalizers(status, uidsWithFinalizer)) needsFlush = true;
    if (rmErr !== undefined) {
      if (needsFlush) {
        const w = this.writeStatus(ctx, at);
        if (w) return `removing uncounted pods from status: ${w}`;
      }
      return rmErr;
    }
    // enactJobFinished
    let jobFinished = false;
    if (ctx.finish && reachedMax) ctx.sync.finishDelayed = 'max-uncounted';
    else if (ctx.finish) {
      if (status.uncountedSucceeded.length + status.uncountedFailed.length > 0) ctx.sync.finishDelayed = 'uncounted';
      else if (ctx.terminating > 0) ctx.sync.finishDelayed = 'terminating';
      else {
        ensureCondition(status.conditions, ctx.finish.type, 'True', ctx.finish.reason, ctx.finish.message, at);
        if (ctx.finish.type === 'Complete') status.completionTime = at;
        jobFinished = true;
      }
    }
    if (jobFinished) needsFlush = true;
    if (needsFlush) {
      const w = this.writeStatus(ctx, at);
      if (w) return `removing uncounted pods from status: ${w}`;
      if (jobFinished) {
        ctx.sync.finished = true;
        this.finishedJobs.add(job.metadata.uid ?? '');
      }
    }
    return undefined;
  }

  /** removeTrackingFinalizerFromPods: expectFinalizersRemoved for all, then one PATCH each; a failed one is observed at once. */
  private removeTrackingFinalizerFromPods(job: Job, key: string, pods: readonly Pod[], at: number): { succeeded: boolean[]; record: NonNullable<JobSync['finalizerRemovals']>; error?: string } {
    this.finalizerExpectations.expectFinalizersRemoved(key, pods.map((p) => p.metadata.uid ?? ''), at);
    const round = ++this.round;
    const record: NonNullable<JobSync['finalizerRemovals']> = { round, keys: [], failed: [], notFound: [], unknown: [], unmade: [], errors: [] };
    const succeeded: boolean[] = [];
    for (const pod of pods) {
      const podKey = objectKey(pod.metadata);
      const uid = pod.metadata.uid ?? '';
      record.keys.push(podKey);
      const res = this.opts.podControl.removeTrackingFinalizer ? this.opts.podControl.removeTrackingFinalizer(job, pod, { round, at }) : 'unknown';
      if (res === 'ok' || res === 'unknown') {
        if (res === 'unknown') record.unknown.push(podKey);
        succeeded.push(true);
        continue;
      }
      // "In case of any failure, we don't expect a Pod update for the finalizer removed."
      this.finalizerExpectations.finalizerRemovalObserved(key, uid, at);
      if (res === 'notfound') {
        record.notFound.push(podKey);
        succeeded.push(true);
      } else if (res === 'unmade') {
        record.unmade.push(podKey);
        succeeded.push(false);
      } else {
        record.failed.push(podKey);
        record.errors.push(res === 'invalid' ? `Pod "${pod.metadata.name ?? ''}" is invalid` : res.error);
        succeeded.push(false);
      }
    }
    return { succeeded, record, ...(record.errors.length ? { error: record.errors[0] } : {}) };
  }

  /**
   * One status write (updateJobStatus → UpdateStatus). The apiserver's ValidateJobStatusUpdate
   * rejects more ready pods than active when either changed (RejectMoreReadyThanActivePods, with
   * JobManagedBy on: 1.32+); otherwise the PodControl answers, if it can. Returns the error, if any.
   */
  private writeStatus(ctx: SyncCtx, at: number): string | undefined {
    const s = ctx.status;
    let error: string | undefined;
    if (this.jobFeatures.managedBy && (s.active !== ctx.written.active || s.ready !== ctx.written.ready) && s.ready > s.active) {
      error = `Job.batch "${ctx.job.metadata.name ?? ''}" is invalid: status.ready: Invalid value: ${s.ready}: cannot set more ready pods than active`;
    } else {
      const r = this.opts.podControl.updateStatus?.(ctx.job, at);
      if (r && !r.ok) error = r.error;
    }
    if (error !== undefined) {
      ctx.sync.statusError = error;
      return error;
    }
    ctx.sync.statusWrites++;
    ctx.written = { active: s.active, ready: s.ready };
    return undefined;
  }
}

/** newCondition, as a wire JobCondition. */
function conditionOf(c: Cond, at: number): JobCondition {
  const t = new Date(at).toISOString().replace(/\.\d{3}Z$/, 'Z');
  return { type: c.type, status: 'True', reason: c.reason, message: c.message, lastProbeTime: t, lastTransitionTime: t };
}

/** ensureJobConditionStatus: updates the condition of `type` or appends it (never appends a False one). Returns whether the list changed. */
function ensureCondition(list: JobCondition[], type: string, status: string, reason: string, message: string, at: number): boolean {
  const t = new Date(at).toISOString().replace(/\.\d{3}Z$/, 'Z');
  const c = list.find((x) => x.type === type);
  if (c) {
    if (c.status !== status || c.reason !== reason || c.message !== message) {
      Object.assign(c, { status, reason, message, lastProbeTime: t, lastTransitionTime: t });
      return true;
    }
    return false;
  }
  if (status !== 'False') {
    list.push({ type, status, reason, message, lastProbeTime: t, lastTransitionTime: t });
    return true;
  }
  return false;
}

/** cleanUncountedPodsWithoutFinalizers: UIDs whose pod no longer holds the finalizer move from uncounted into succeeded/failed. */
function cleanUncountedPodsWithoutFinalizers(s: WorkStatus, withFinalizer: ReadonlySet<string>): boolean {
  let updated = false;
  const succ = s.uncountedSucceeded.filter((u) => withFinalizer.has(u));
  if (succ.length !== s.uncountedSucceeded.length) {
    updated = true;
    s.succeeded += s.uncountedSucceeded.length - succ.length;
    s.uncountedSucceeded = succ;
  }
  const fail = s.uncountedFailed.filter((u) => withFinalizer.has(u));
  if (fail.length !== s.uncountedFailed.length) {
    updated = true;
    s.failed += s.uncountedFailed.length - fail.length;
    s.uncountedFailed = fail;
  }
  return updated;
}

function statusCounts(s: WorkStatus): JobStatusCounts {
  return {
    active: s.active,
    ready: s.ready,
    terminating: s.terminating,
    succeeded: s.succeeded,
    failed: s.failed,
    uncountedSucceeded: [...s.uncountedSucceeded],
    uncountedFailed: [...s.uncountedFailed],
    ...(s.completedIndexes !== undefined ? { completedIndexes: s.completedIndexes } : {}),
    conditions: s.conditions.filter((c) => c.status === 'True').map((c) => c.type),
    ...(s.startTime !== undefined ? { startTime: s.startTime } : {}),
  };
}

/** The Job controller as an engine builds it for a replay at `version`. */
export function jobControllerFactory(version: K8sVersion): ControllerFactory<Job> {
  return ({ podControl, onSync }) => new JobController({ version, podControl, onSync });
}
