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
 * `status.replicas` stays absent: the view checks that compare a ReplicaSet's status.replicas with
 * the pods the model holds (analysis/engine/view-alignment.ts) do not apply to a DaemonSet, whose
 * status counts nodes, not pods.
 *
 * Cost: one shallow copy per DaemonSet event. Pure.
 */
import type { Controller, ControllerFactory } from '../controller/controller.js';
import type { PodControl } from '../controller/pod-control.js';
import type { DaemonSet, ReplicaSet } from '../objects.js';
import type { K8sVersion } from '../version.js';
import { DaemonSetController } from './daemonset-controller.js';

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
