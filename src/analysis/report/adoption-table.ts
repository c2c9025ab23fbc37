/**
 * The adoption table: for each pod of a ReplicaSet's namespace that is controlled by it (by
 * UID) or matches its selector, what ClaimPods would decide now — keep, adopt, release, ignore
 * — and why (model/adoption.ts's claimDecider mirrors ClaimObject in
 * pkg/controller/controller_ref_manager.go). Sorted by pod. The replay's report builds it from
 * the model's final cache.
 *
 * Pure: no I/O, no clock. O(pods of the namespace) with the model's PodStore (its namespace
 * index), O(pods given) otherwise; the selector is compiled once.
 */
import { claimDecider } from '../../model/adoption.js';
import { controllerRefOf, type Pod, type ReplicaSet } from '../../model/objects.js';
import { PodStore } from '../../model/pod-store.js';
import { compileLabelSelector } from '../../model/selector.js';
import type { AdoptionRow } from '../report-types.js';

export function adoptionTable(rs: ReplicaSet, pods: Iterable<Pod> | Map<string, Pod>): AdoptionRow[] {
  const rows: AdoptionRow[] = [];
  const ns = rs.metadata.namespace;
  // compileLabelSelector answers like labelSelectorMatches without validating the selector per pod.
  const matches = compileLabelSelector(rs.spec?.selector);
  const decide = claimDecider(rs);
  const candidates = pods instanceof PodStore ? pods.inNamespace(ns) : pods instanceof Map ? pods.values() : pods;
  for (const p of candidates) {
    if (p.metadata.namespace !== ns) continue;
    if (controllerRefOf(p.metadata)?.uid !== rs.metadata.uid && !matches(p.metadata.labels)) continue;
    const d = decide(p);
    rows.push({ pod: d.pod, uid: d.uid, action: d.action, claimed: d.claimed, reason: d.reason });
  }
  rows.sort((a, b) => a.pod.localeCompare(b.pod));
  return rows;
}
