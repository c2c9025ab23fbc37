/**
 * Test harness for the Job-controller model (src/model/job/job-controller.ts): wire-shaped Jobs
 * (the generated batch.kubernetes.io/controller-uid selector, job-name labels, the apiserver's
 * defaults) and their pods as the controller creates them (generateName, the
 * batch.kubernetes.io/job-tracking finalizer, the controllerRef, an Indexed pod's completion-index
 * annotation, label and hostname), kubelet transitions (Running and Ready, Succeeded or Failed with
 * the terminated containers and Ready=False), resourceVersions bumped on every change; a PodControl
 * whose answers the test scripts, which records every call and builds the pod each successful
 * create returns; and the controller with its syncs collected. Namespace "batch", Job "pi", key
 * "batch/pi".
 */
import type { Job, Pod } from '../../../src/model/objects.js';
import { JobController } from '../../../src/model/job/job-controller.js';
import type { CreateResult, DeleteResult, PodControl } from '../../../src/model/controller/pod-control.js';
import type { JobStatusCounts, SyncRecord } from '../../../src/model/controller/sync-record.js';
import type { PatchResult } from '../../../src/model/adoption.js';
import { parseK8sVersion } from '../../../src/model/version.js';
import { iso, T0 } from '../controller-harness.js';

export { T0, iso };
export const NS = 'batch';
export const KEY = `${NS}/pi`;
export const JOB_UID = '6f1c2a9e-0d3b-4c55-9a1e-5b8f0c7d2e41';
export const SEC = 1000;
export const MIN = 60 * SEC;

let rv = 1000;
const nextRv = () => String(++rv);

function jobLabels(uid: string): Record<string, string> {
  return { 'batch.kubernetes.io/controller-uid': uid, 'batch.kubernetes.io/job-name': 'pi', 'controller-uid': uid, 'job-name': 'pi' };
}

export function job(opts: { parallelism?: number; completions?: number | null; backoffLimit?: number; indexed?: boolean; suspend?: boolean; activeDeadlineSeconds?: number; uid?: string } = {}): Job {
  const uid = opts.uid ?? JOB_UID;
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { namespace: NS, name: 'pi', uid, resourceVersion: nextRv(), generation: 1, creationTimestamp: iso(T0), labels: jobLabels(uid) },
    spec: {
      parallelism: opts.parallelism ?? 1,
      completions: opts.completions === undefined ? 1 : opts.completions,
      backoffLimit: opts.backoffLimit ?? 6,
      completionMode: opts.indexed ? 'Indexed' : 'NonIndexed',
      suspend: opts.suspend ?? false,
      podReplacementPolicy: 'TerminatingOrFailed',
      manualSelector: false,
      ...(opts.activeDeadlineSeconds !== undefined ? { activeDeadlineSeconds: opts.activeDeadlineSeconds } : {}),
      selector: { matchLabels: { 'batch.kubernetes.io/controller-uid': uid } },
      template: {
        metadata: { labels: jobLabels(uid) },
        spec: { restartPolicy: 'Never', containers: [{ name: 'pi', image: 'perl:5.34.0' }] },
      },
    },
    status: {},
  };
}

/** A changed copy with a new resourceVersion, as the apiserver answers a write. */
export function changed<T extends { metadata: { resourceVersion?: string } }>(obj: T, change: (o: T) => void): T {
  const copy = structuredClone(obj);
  change(copy);
  copy.metadata.resourceVersion = nextRv();
  return copy;
}

/** The Job as the apiserver holds it after the controller's status write `s` (what its informer then delivers). */
export function withStatus(j: Job, s: JobStatusCounts): Job {
  return changed(j, (x) => {
    x.status = {
      active: s.active,
      ready: s.ready,
      terminating: s.terminating,
      succeeded: s.succeeded,
      failed: s.failed,
      uncountedTerminatedPods: { succeeded: s.uncountedSucceeded, failed: s.uncountedFailed },
      ...(s.completedIndexes !== undefined ? { completedIndexes: s.completedIndexes } : {}),
      ...(s.startTime !== undefined ? { startTime: iso(s.startTime) } : {}),
      conditions: s.conditions.map((type) => ({ type, status: 'True' })),
    };
  });
}

let podSeq = 0;
/** The pod CreatePodsWithGenerateName makes for `j` (index: an Indexed Job's completion index). */
export function jobPod(j: Job, at: number, index?: number): Pod {
  const uid = j.metadata.uid!;
  const suffix = (++podSeq).toString(36).padStart(5, 'x');
  const generateName = index === undefined ? 'pi-' : `pi-${index}-`;
  const name = `${generateName}${suffix}`;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      namespace: NS, name, generateName, uid: `pod-${name}`, resourceVersion: nextRv(), creationTimestamp: iso(at),
      labels: { ...jobLabels(uid), ...(index !== undefined ? { 'batch.kubernetes.io/job-completion-index': String(index) } : {}) },
      ...(index !== undefined ? { annotations: { 'batch.kubernetes.io/job-completion-index': String(index) } } : {}),
      finalizers: ['batch.kubernetes.io/job-tracking'],
      ownerReferences: [{ apiVersion: 'batch/v1', kind: 'Job', name: 'pi', uid, controller: true, blockOwnerDeletion: true }],
    },
    spec: { restartPolicy: 'Never', containers: [{ name: 'pi', image: 'perl:5.34.0' }], ...(index !== undefined ? { hostname: `pi-${index}` } : {}) },
    status: { phase: 'Pending' },
  };
}

/** The kubelet starts the pod on `node`: Running and Ready since `at`. */
export function running(p: Pod, at: number, node = 'worker-1'): Pod {
  return changed(p, (x) => {
    x.spec!.nodeName = node;
    x.status = {
      phase: 'Running',
      conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: iso(at) }],
      containerStatuses: [{ name: 'pi', ready: true, restartCount: 0 }],
    };
  });
}

/** The kubelet ends the pod at `at`: Succeeded or Failed, its container terminated then, Ready=False. */
export function finished(p: Pod, phase: 'Succeeded' | 'Failed', at: number): Pod {
  return changed(p, (x) => {
    x.status = {
      phase,
      conditions: [{ type: 'Ready', status: 'False', reason: 'PodCompleted', lastTransitionTime: iso(at) }],
      containerStatuses: [{ name: 'pi', ready: false, restartCount: 0, state: { terminated: { exitCode: phase === 'Succeeded' ? 0 : 1, finishedAt: iso(at) } } } as never],
    };
  });
}

/** The pod after the controller's finalizer-removal PATCH. */
export function withoutFinalizer(p: Pod): Pod {
  return changed(p, (x) => {
    x.metadata.finalizers = (x.metadata.finalizers ?? []).filter((f) => f !== 'batch.kubernetes.io/job-tracking');
  });
}

export interface Calls {
  creates: Array<{ round: number; index: number; at: number; completionIndex?: number }>;
  deletes: Array<{ pod: string; round: number; at: number }>;
  finalizerPatches: Array<{ pod: string; round: number; at: number }>;
  statusWrites: number[];
}

export function newJobHarness(opts: { version?: string; createAnswers?: CreateResult[]; deleteAnswers?: Record<string, DeleteResult>; patchAnswers?: Record<string, PatchResult>; behind?: boolean } = {}) {
  const calls: Calls = { creates: [], deletes: [], finalizerPatches: [], statusWrites: [] };
  const syncs: SyncRecord[] = [];
  /** The pods the successful creates returned, in order. */
  const created: Pod[] = [];
  const createAnswers = [...(opts.createAnswers ?? [])];
  const state = { behind: opts.behind ?? false };
  const podControl: PodControl<Job> = {
    createPod: (j, call) => {
      calls.creates.push({ round: call.round, index: call.index, at: call.at, ...(call.completionIndex !== undefined ? { completionIndex: call.completionIndex } : {}) });
      const answer = createAnswers.shift() ?? { ok: true };
      if (answer.ok) created.push(jobPod(j, call.at, call.completionIndex));
      return answer;
    },
    deletePod: (_j, pod, call) => {
      calls.deletes.push({ pod: pod.metadata.name ?? '', round: call.round, at: call.at });
      return opts.deleteAnswers?.[pod.metadata.name ?? ''] ?? { ok: true };
    },
    getFreshOwner: (j) => j,
    patchPod: () => 'ok',
    removeTrackingFinalizer: (_j, pod, call) => {
      calls.finalizerPatches.push({ pod: pod.metadata.name ?? '', round: call.round, at: call.at });
      return opts.patchAnswers?.[pod.metadata.name ?? ''] ?? 'ok';
    },
    updateStatus: (_j, at) => {
      calls.statusWrites.push(at);
      return { ok: true };
    },
    informerBehindOwnWrites: () => state.behind,
  };
  const jc = new JobController({ version: parseK8sVersion(opts.version ?? 'v1.37.2'), podControl, onSync: (s) => syncs.push(s) });
  return { jc, calls, syncs, created, state };
}
