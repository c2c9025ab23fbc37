/**
 * The DaemonSet as the replay engine and the report read an owner, and the DaemonSet controller as
 * the engine builds it.
 *
 * The engine and the report read an owner in the ReplicaSet shape (the ReplicationController is
 * converted the same way, as upstream's informerAdapter does). A DaemonSet keeps every field of
 * its own — the DaemonSet model reads them — and gains one: `spec.replicas`, its desired count, which
 * for a DaemonSet is not in its spec but computed from the nodes at every sync. The owner carries
 * the count the controller itself last wrote (`status.desiredNumberScheduled`): its own view, at
 * its last status write. A DaemonSet that never had a status write has no desired count (null).
 *
 * What its status writes show of its cache (`daemonSetStatusCount`, the seam's OwnerStatusCount):
 * updateDaemonSetStatus counts, from the pods its informer delivered, the nodes with a daemon pod —
 * currentNumberScheduled (nodes that should run it) plus numberMisscheduled (nodes that should not)
 * — over the pods getNodesToDaemonPods keeps (all but those both terminal and being deleted, with a
 * target node). A replay compares that count with the pods it holds, one per node: exact while
 * every node has at most one daemon pod. A DaemonSet that allows surge runs two on a node during
 * an update, so its status pins nothing (undefined); nor does one whose status the controller never
 * wrote (no observedGeneration).
 *
 * Cost: one shallow copy per DaemonSet event. Pure.
 */
import type { Controller, ControllerFactory, OwnerStatusCount } from '../controller/controller.js';
import type { PodControl } from '../controller/pod-control.js';
import type { DaemonSet, Pod, ReplicaSet } from '../objects.js';
import type { K8sVersion } from '../version.js';
import { DaemonSetController } from './daemonset-controller.js';
import { isPodTerminal, targetNodeName } from './daemon-pods.js';
import { allowsSurge } from './rolling-update.js';

/** What the engine holds for a DaemonSet: both shapes at once. */
export type DaemonSetOwner = DaemonSet & ReplicaSet;

export function daemonSetAsOwner(ds: DaemonSet): DaemonSetOwner {
  const desired = ds.status?.desiredNumberScheduled;
  const spec = ds.spec ?? {};
  return { ...ds, spec: { ...spec, replicas: typeof desired === 'number' ? desired : null } } as DaemonSetOwner;
}

/**
 * The DaemonSet controller as the engine builds it for a replay at `version`. The engine hands it
 * DaemonSets in the owner shape (daemonSetAsOwner), so the owners it caches are both shapes: the
 * model reads the DaemonSet's fields, the engine the ReplicaSet's.
 */
export function daemonSetEngineFactory(version: K8sVersion): ControllerFactory<ReplicaSet> {
  // The owners that flow both ways are DaemonSetOwners: what the oracle is asked about is a DaemonSet in the owner shape.
  return ({ podControl, onSync }) =>
    new DaemonSetController({ version, podControl: podControl as unknown as PodControl<DaemonSet>, onSync }) as unknown as Controller<ReplicaSet>;
}

/** The DaemonSet's status count (see the header): nodes with a daemon pod, as updateDaemonSetStatus writes it. */
export const daemonSetStatusCount: OwnerStatusCount<ReplicaSet> = {
  of: (owner) => {
    const ds = owner as DaemonSetOwner;
    const s = ds.status;
    if (!s || s.observedGeneration === undefined || allowsSurge(ds)) return undefined;
    const current = s.currentNumberScheduled ?? 0;
    const mis = s.numberMisscheduled ?? 0;
    return Number.isFinite(current) && Number.isFinite(mis) ? current + mis : undefined;
  },
  counts: (p: Pod) => !(isPodTerminal(p) && p.metadata.deletionTimestamp != null) && targetNodeName(p) !== undefined,
  signature: (owner) => {
    const s = ((owner as DaemonSetOwner).status ?? {}) as Record<string, unknown>;
    return JSON.stringify([s.desiredNumberScheduled, s.currentNumberScheduled, s.numberMisscheduled, s.numberReady, s.updatedNumberScheduled, s.numberAvailable, s.numberUnavailable, s.observedGeneration]);
  },
};
