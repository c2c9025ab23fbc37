/**
 * The owner kind a ReplicaSet-shaped controller runs as: the parameters upstream's
 * NewBaseController takes beside its informers and clients (pkg/controller/replicaset/replica_set.go)
 * — the GroupVersionKind its controllerRefs name, its metric owner and queue names, the events
 * component of its pod control, its ReplicaSetControllerFeatures and whether its consistency store
 * is a real one or NewNoopConsistencyStore. NewReplicaSetController passes the ReplicaSet values
 * (REPLICA_SET_KIND); NewReplicationManager (pkg/controller/replication/replication_controller.go)
 * passes the ReplicationController ones (replicationcontroller/replication-manager.ts).
 *
 * Contract: a constant value; the model reads `kind` where the RS code reads rsc.Kind
 * (resolveControllerRef, the podController index, the controllerRef an adopt writes, the
 * messages naming the owner), `statusTerminatingReplicas` where it reads
 * controllerFeatures.EnableStatusTerminatingReplicas, and `consistencyStore` before asking the
 * caller whether its informers lag behind its own writes. Each switch is ANDed with the modelled
 * version's feature (version.ts): a kind can only turn a feature off.
 *
 * Cost: none (data). No I/O.
 */

export interface OwnerKind {
  /** gvk.Kind: what the controllerRefs of its pods name (rsc.Kind). */
  kind: string;
  /** gvk.GroupVersion(): the apiVersion of those controllerRefs. */
  apiVersion: string;
  /** The resource as an API client error names it (`replicasets.apps "x" not found`). */
  resource: string;
  /** The events component and API client name (ControllerComponent in timeline/event.ts). */
  component: string;
  /** The klog logger name of the controller in kube-controller-manager (cmd/kube-controller-manager/names). */
  logger: string;
  /** metricOwnerName. */
  metricOwner: string;
  /** queueName (the workqueue's name). */
  queueName: string;
  /** ReplicaSetControllerFeatures.EnableStatusTerminatingReplicas. */
  statusTerminatingReplicas: boolean;
  /** True when the controller has a real consistency store (StaleControllerConsistencyReplicaSet); false: NewNoopConsistencyStore. */
  consistencyStore: boolean;
}

/** The values NewReplicaSetController passes (DefaultReplicaSetControllerFeatures, the gated consistency store). */
export const REPLICA_SET_KIND: OwnerKind = {
  kind: 'ReplicaSet',
  apiVersion: 'apps/v1',
  resource: 'replicasets.apps',
  component: 'replicaset-controller',
  logger: 'replicaset-controller',
  metricOwner: 'replicaset_controller',
  queueName: 'replicaset',
  statusTerminatingReplicas: true,
  consistencyStore: true,
};
