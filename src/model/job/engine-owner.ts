/**
 * The Job as the replay engine and the report read an owner, and the Job controller as the engine
 * builds it (as model/daemonset/engine-owner.ts does for the DaemonSet).
 *
 * The owner shape: the Job keeps every field of its own — the Job model reads them — and gains
 * `spec.replicas`, the pods it wants running: spec.parallelism (defaulted to 1), 0 while suspended
 * or once finished (a Complete or Failed condition). manageJob itself wants min(parallelism,
 * completions − succeeded) for a NonIndexed Job with completions; the owner carries the bound the
 * spec gives, and the report's counts are the model's.
 *
 * What its status writes show of its cache (`jobStatusCount`, the seam's OwnerStatusCount):
 * syncJob writes status.active = the active pods it listed (FilterActivePods: not terminal, no
 * deletionTimestamp) — the ReplicaSet's measure. A Job whose status the controller never wrote
 * (no startTime) pins nothing. status.uncountedTerminatedPods names finished pods by UID
 * (trackJobStatusAndRemoveFinalizers records each finished pod holding the finalizer it listed
 * before removing the finalizer): the controller's cache held them (`seen`). status.ready counts the
 * ready pods among the active ones it listed (syncJob: countReadyPods(activePods)): `ready`.
 *
 * Cost: one shallow copy per Job event. Pure.
 */
import type { Controller, ControllerFactory, OwnerStatusCount } from '../controller/controller.js';
import type { PodControl } from '../controller/pod-control.js';
import type { Job, ReplicaSet } from '../objects.js';
import { isPodActive, isPodReady } from '../pod-ranking.js';
import type { K8sVersion } from '../version.js';
import { JobController } from './job-controller.js';

/** What the engine holds for a Job: both shapes at once. */
export type JobOwner = Job & ReplicaSet;

function finished(job: Job): boolean {
  return (job.status?.conditions ?? []).some((c) => (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True');
}

export function jobAsOwner(job: Job): JobOwner {
  const spec = job.spec ?? {};
  const parallelism = typeof spec.parallelism === 'number' ? spec.parallelism : 1;
  const wanted = spec.suspend === true || finished(job) ? 0 : parallelism;
  return { ...job, spec: { ...spec, replicas: wanted } } as JobOwner;
}

/** The Job controller as the engine builds it for a replay at `version` (owners in the owner shape: jobAsOwner). */
export function jobEngineFactory(version: K8sVersion): ControllerFactory<ReplicaSet> {
  return ({ podControl, onSync }) =>
    new JobController({ version, podControl: podControl as unknown as PodControl<Job>, onSync }) as unknown as Controller<ReplicaSet>;
}

/** The Job's status count (see the header): status.active over the active pods. */
export const jobStatusCount: OwnerStatusCount<ReplicaSet> = {
  of: (owner) => {
    const s = (owner as JobOwner).status;
    if (!s || !s.startTime || typeof s.active !== 'number') return s?.startTime ? 0 : undefined;
    return s.active;
  },
  counts: isPodActive,
  signature: (owner) => {
    const s = ((owner as JobOwner).status ?? {}) as Record<string, unknown>;
    return JSON.stringify([s.active, s.succeeded, s.failed, s.ready, s.terminating, s.uncountedTerminatedPods, s.completedIndexes, s.failedIndexes, (s.conditions as unknown[] | undefined)?.length]);
  },
  ready: {
    of: (owner) => {
      const s = (owner as JobOwner).status;
      return s?.startTime && typeof s.ready === 'number' ? s.ready : undefined;
    },
    is: isPodReady,
  },
  seen: (owner) => {
    const u = (owner as JobOwner).status?.uncountedTerminatedPods;
    if (!u) return undefined;
    const uids = [...(u.succeeded ?? []), ...(u.failed ?? [])].filter((x): x is string => typeof x === 'string' && x !== '');
    return uids.length ? new Set(uids) : undefined;
  },
};
