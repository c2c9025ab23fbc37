/**
 * The ReplicationController controller ("replication manager") of kube-controller-manager: the
 * ReplicaSet controller's code run as another kind. Mirrors NewReplicationManager in
 * pkg/controller/replication/replication_controller.go, which calls replicaset.NewBaseController
 * with the GVK v1 ReplicationController, metric owner `replication_controller`, queue
 * `replicationmanager`, a pod control whose events component is `replication-controller`,
 * `EnableStatusTerminatingReplicas: false` and NewNoopConsistencyStore() (no consistency gate,
 * whatever the version); kube-controller-manager names its logger `replicationcontroller-controller`
 * (cmd/kube-controller-manager/names) and its API client `replication-controller` (core.go).
 *
 * Contract: the controller seam (controller/controller.ts) for ReplicationControllers, with its
 * own expectations, queue and caches (keys `namespace/name` of RCs, apart from any ReplicaSet's).
 * The owners it caches are the RCs converted to ReplicaSets (conversion.ts), as upstream's
 * informerAdapter hands them to the RS code; callers deliver them converted
 * (replicaSetFromReplicationController). Everything else is replicaset/replicaset-controller.ts.
 *
 * Cost: that of the ReplicaSet controller. No I/O, no clock.
 */
import type { ControllerFactory } from '../controller/controller.js';
import type { ReplicaSet } from '../objects.js';
import type { OwnerKind } from '../replicaset/owner-kind.js';
import { ReplicaSetController, type ControllerOptions } from '../replicaset/replicaset-controller.js';
import type { K8sVersion } from '../version.js';

/** The parameters NewReplicationManager passes to NewBaseController. */
export const REPLICATION_CONTROLLER_KIND: OwnerKind = {
  kind: 'ReplicationController',
  apiVersion: 'v1',
  resource: 'replicationcontrollers',
  component: 'replication-controller',
  logger: 'replicationcontroller-controller',
  metricOwner: 'replication_controller',
  queueName: 'replicationmanager',
  statusTerminatingReplicas: false,
  consistencyStore: false,
};

/** NewReplicationManager: the ReplicaSet controller run as the ReplicationController kind. */
export function newReplicationManager(opts: Omit<ControllerOptions, 'ownerKind'>): ReplicaSetController {
  return new ReplicaSetController({ ...opts, ownerKind: REPLICATION_CONTROLLER_KIND });
}

/**
 * The ReplicationController manager as an engine builds it for a replay at `version` (claim
 * decisions not recorded, like replicaSetControllerFactory).
 */
export function replicationControllerFactory(version: K8sVersion): ControllerFactory<ReplicaSet> {
  return ({ podControl, onSync }) => newReplicationManager({ version, podControl, recordClaimDecisions: false, onSync });
}
