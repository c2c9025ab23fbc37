/**
 * A ReplicaSet's pod counts in the replay's final cache, for the report: desired replicas and
 * the active, ready and terminating pods it controls — the counts calculateStatus
 * (pkg/controller/replicaset/replica_set_utils.go) would write from that cache.
 *
 * Contract: `finalCounts(rs, pods)` reads the cache only (the replay is over; withheld pods are
 * back in it). Cost: O(pods of the ReplicaSet) with the model's index by controller
 * (pod-store.ts), O(pods) for a plain map. Pure: no I/O, no clock.
 */
import { controllerRefOf, desiredReplicas, type Pod, type ReplicaSet } from '../../model/objects.js';
import { isPodActive, isPodReady } from '../../model/pod-ranking.js';
import { PodStore } from '../../model/pod-store.js';

/** Active, ready and terminating pods controlled by `rs` in the final cache (for the report). */
export function finalCounts(rs: ReplicaSet, pods: Map<string, Pod>): { desired: number; active: number; terminating: number; ready: number } {
  let active = 0;
  let terminating = 0;
  let ready = 0;
  // The model's cache is indexed by controller (pod-store.ts): read only this ReplicaSet's pods.
  const mine = pods instanceof PodStore ? pods.controlledBy(rs.metadata.namespace, rs.metadata.uid) : pods.values();
  for (const p of mine) {
    if (p.metadata.namespace !== rs.metadata.namespace) continue;
    if (controllerRefOf(p.metadata)?.uid !== rs.metadata.uid) continue;
    if (isPodActive(p)) {
      active++;
      if (isPodReady(p)) ready++;
    } else if (p.metadata.deletionTimestamp && p.status?.phase !== 'Succeeded' && p.status?.phase !== 'Failed') terminating++;
  }
  return { desired: desiredReplicas(rs), active, terminating, ready };
}
