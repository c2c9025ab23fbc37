/**
 * What the replay engine may touch of the controller model: the one list of its members the
 * engine's stages use. Each stage takes a narrower `Pick` of it, so its tests can hand it the
 * real model or a small fake, and the list can later be swapped for the model's kind-agnostic
 * seam (issue #20: one interface every controller kind implements).
 *
 * The members, by what the engine does with them:
 * - informer delivery: `deliverPod`, `deliverReplicaSet` (the informer handlers in
 *   pkg/controller/replicaset/replica_set.go: addPod, updatePod, deletePod, addRS, updateRS,
 *   deleteRS);
 * - the schedule: `runDue` (the workers draining the workqueue), `syncReplicaSet` (a sync the
 *   input forces), `isBusy` / `extendBusy` (a sync still making its calls), `queue` (requeue a
 *   key, drop or advance a due sync);
 * - the state the stages read or correct: `expectations` (pkg/controller/controller_utils.go:
 *   read, reset by a restart, raised or lowered by the view alignment, and its log of changes),
 *   `pods` (the informer cache and its index by controller), `replicaSets`, `podCounts`;
 * - the view alignment's hold on the cache (not upstream): `withholdPod`, `restorePod`.
 *
 * Cost: none (a type). No I/O.
 */
import type { ReplicaSetController } from '../../model/replicaset-controller.js';

export type EngineController = Pick<
  ReplicaSetController,
  | 'deliverPod'
  | 'deliverReplicaSet'
  | 'runDue'
  | 'syncReplicaSet'
  | 'isBusy'
  | 'extendBusy'
  | 'queue'
  | 'expectations'
  | 'pods'
  | 'replicaSets'
  | 'podCounts'
  | 'withholdPod'
  | 'restorePod'
>;
