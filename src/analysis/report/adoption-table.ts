/**
 * The adoption table: for each pod of a ReplicaSet's namespace that is controlled by it (by
 * UID) or matches its selector, what ClaimPods would decide now — keep, adopt, release, ignore
 * — and why (model/adoption.ts's claimDecider mirrors ClaimObject in
 * pkg/controller/controller_ref_manager.go). Sorted by pod. The replay's report builds it from
 * the model's final cache, a snapshot from the pods it holds.
 *
 * `uid`: a row names the pod's uid as the decision carries it ('as-decided': whenever the pod
 * has one, even "" or null, as a replay reports it) or only a non-empty one ('non-empty', as a
 * snapshot reports it). The two differ only for a pod whose uid is "" or null.
 *
 * Pure: no I/O, no clock. O(pods of the namespace) with the model's PodStore (its namespace
 * index), O(pods given) otherwise; the selector is compiled once.
 */
import { claimDecider, type ClaimOwnerKind } from '../../model/adoption.js';
import { controllerRefOf, type Pod, type ReplicaSet } from '../../model/objects.js';
import { PodStore } from '../../model/pod-store.js';
import { compileLabelSelector } from '../../model/selector.js';
import type { AdoptionRow } from '../report-types.js';

export function adoptionTable(rs: ReplicaSet, pods: Iterable<Pod> | Map<string, Pod>, uid: 'as-decided' | 'non-empty', owner?: ClaimOwnerKind): AdoptionRow[] {
  const rows: AdoptionRow[] = [];
  const ns = rs.metadata.namespace;
  // compileLabelSelector answers like labelSelectorMatches without validating the selector per pod.
  const matches = compileLabelSelector(rs.spec?.selector);
  const decide = claimDecider(rs, owner);
  const candidates = pods instanceof PodStore ? pods.inNamespace(ns) : pods instanceof Map ? pods.values() : pods;
  for (const p of candidates) {
    if (p.metadata.namespace !== ns) continue;
    if (controllerRefOf(p.metadata)?.uid !== rs.metadata.uid && !matches(p.metadata.labels)) continue;
    const d = decide(p);
    rows.push(uid === 'as-decided'
      ? { pod: d.pod, uid: d.uid, action: d.action, claimed: d.claimed, reason: d.reason }
      : { pod: d.pod, ...(d.uid ? { uid: d.uid } : {}), action: d.action, claimed: d.claimed, reason: d.reason });
  }
  rows.sort((a, b) => a.pod.localeCompare(b.pod));
  return rows;
}
