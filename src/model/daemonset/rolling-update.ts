/**
 * The DaemonSet rolling update: which old pods to delete and which nodes get a new pod in this
 * sync, within maxUnavailable (no surge) or maxSurge. It runs only when the expectations are
 * satisfied after manage (updateDaemonSet), and its result goes through syncNodes like manage's.
 *
 * Mirrors rollingUpdate, updatedDesiredNodeCounts and findUpdatedPodsOnNode in
 * pkg/controller/daemon/update.go and util.SurgeCount / util.UnavailableCount (v1.37.2):
 * - every node that should run the daemon counts, with or without pods (a node without one is
 *   unavailable); maxUnavailable and maxSurge are scaled from the desired count, percentages
 *   rounded up; both 0 → maxUnavailable 1;
 * - without surge: a node with excess pods, with both or neither an old and a new pod, or with an
 *   unavailable new pod counts as unavailable; an unavailable old pod is replaced at once; an
 *   available old pod is a candidate while fewer than maxUnavailable are unavailable; as many
 *   candidates are deleted as maxUnavailable − unavailable allows;
 * - with surge: an old pod whose new pod is available is deleted; a node whose old pod is
 *   unavailable gets a new pod at once (or, if the node no longer wants the daemon, the old pod
 *   goes); other nodes with only an old pod get a new one up to maxSurge; old pods on nodes that no
 *   longer want the daemon go only while more pods are available than desired.
 * Upstream walks a Go map, whose order is random: which candidates fill a limit is not
 * deterministic in the real controller. kexp walks the nodes by name and a replay takes the
 * victims from the input where it shows them.
 *
 * Cost: O(nodes + pods). Pure.
 */
import type { DaemonSet, Node, Pod } from '../objects.js';
import { findUpdatedPodsOnNode, isPodAvailable } from './daemon-pods.js';
import type { Placement } from './node-placement.js';

export interface RollingUpdatePlan {
  podsToDelete: string[];
  /**
   * Without surge: the available old pods that were candidates, of which the first `chosen` are in
   * `podsToDelete` (after the unavailable ones, which are always replaced). Which candidates fill
   * the limit follows Go's map order upstream: a replay may take the input's choice instead.
   */
  candidates?: { names: string[]; chosen: number };
  nodesToCreate: string[];
  maxSurge: number;
  maxUnavailable: number;
  desired: number;
}

/** intstr.GetScaledValueFromIntOrPercent(v, total, roundUp=true); an error for a malformed string. */
export function scaledValue(v: number | string, total: number): number | { error: string } {
  if (typeof v === 'number') return v;
  const m = /^(\d+)%$/.exec(v);
  if (!m) return { error: `invalid value for IntOrString: invalid type: string is not a percentage` };
  return Math.ceil((Number(m[1]) * total) / 100);
}

/** The strategy type, defaulted as the apiserver does (RollingUpdate). */
export function updateStrategyType(ds: DaemonSet): string {
  return ds.spec?.updateStrategy?.type || 'RollingUpdate';
}

/** util.SurgeCount / util.UnavailableCount; an absent maxUnavailable is the API default 1, an absent maxSurge 0. */
export function updateLimits(ds: DaemonSet, desired: number): { maxSurge: number; maxUnavailable: number } | { error: string } {
  if (updateStrategyType(ds) !== 'RollingUpdate') return { maxSurge: 0, maxUnavailable: 0 };
  const r = ds.spec?.updateStrategy?.rollingUpdate;
  if (!r) return { maxSurge: 0, maxUnavailable: 0 };
  const surge = r.maxSurge == null ? 0 : scaledValue(r.maxSurge, desired);
  if (typeof surge !== 'number') return { error: `invalid value for MaxSurge: ${surge.error}` };
  const unavailable = scaledValue(r.maxUnavailable ?? 1, desired);
  if (typeof unavailable !== 'number') return { error: `invalid value for MaxUnavailable: ${unavailable.error}` };
  return { maxSurge: surge, maxUnavailable: unavailable };
}

/** util.AllowsSurge: SurgeCount(ds, 1) > 0. */
export function allowsSurge(ds: DaemonSet): boolean {
  const l = updateLimits(ds, 1);
  return !('error' in l) && l.maxSurge > 0;
}

export function rollingUpdatePlan(
  ds: DaemonSet,
  nodes: readonly Node[],
  nodeToDaemonPods: ReadonlyMap<string, Pod[]>,
  hash: string | undefined,
  placement: (node: Node) => Placement,
  now: number,
  availabilityInclusive: boolean,
): RollingUpdatePlan | { error: string } {
  // updatedDesiredNodeCounts: every node that wants the daemon is in the map, with or without pods.
  const byNode = new Map(nodeToDaemonPods);
  let desired = 0;
  const nodeByName = new Map<string, Node>();
  for (const node of nodes) {
    nodeByName.set(node.metadata.name ?? '', node);
    if (!placement(node).shouldRun) continue;
    desired++;
    if (!byNode.has(node.metadata.name ?? '')) byNode.set(node.metadata.name ?? '', []);
  }
  const limits = updateLimits(ds, desired);
  if ('error' in limits) return { error: `couldn't get unavailable numbers: ${limits.error}` };
  let { maxSurge, maxUnavailable } = limits;
  if (desired > 0 && maxUnavailable === 0 && maxSurge === 0) maxUnavailable = 1;
  const minReady = ds.spec?.minReadySeconds ?? 0;
  const available = (p: Pod) => isPodAvailable(p, minReady, now, availabilityInclusive);
  const order = [...byNode.keys()].sort();

  if (maxSurge === 0) {
    let numUnavailable = 0;
    const allowedReplacementPods: string[] = [];
    const candidatePodsToDelete: string[] = [];
    for (const nodeName of order) {
      const { newPod, oldPod, ok } = findUpdatedPodsOnNode(ds, byNode.get(nodeName)!, hash);
      if (!ok) {
        numUnavailable++;
        continue;
      }
      if ((!oldPod && !newPod) || (oldPod && newPod)) numUnavailable++;
      else if (newPod) {
        if (!available(newPod)) numUnavailable++;
      } else if (!available(oldPod!)) {
        allowedReplacementPods.push(oldPod!.metadata.name ?? '');
        numUnavailable++;
      } else if (numUnavailable < maxUnavailable) {
        candidatePodsToDelete.push(oldPod!.metadata.name ?? '');
      }
    }
    const remaining = Math.min(Math.max(maxUnavailable - numUnavailable, 0), candidatePodsToDelete.length);
    return {
      podsToDelete: [...allowedReplacementPods, ...candidatePodsToDelete.slice(0, remaining)], nodesToCreate: [], maxSurge, maxUnavailable, desired,
      candidates: { names: candidatePodsToDelete, chosen: remaining },
    };
  }

  const oldPodsToDelete: string[] = [];
  const shouldNotRunPodsToDelete: string[] = [];
  const candidateNewNodes: string[] = [];
  const allowedNewNodes: string[] = [];
  let numSurge = 0;
  let numAvailable = 0;
  for (const nodeName of order) {
    const { newPod, oldPod, ok } = findUpdatedPodsOnNode(ds, byNode.get(nodeName)!, hash);
    if (!ok) {
      numSurge++;
      continue;
    }
    if (oldPod) {
      if (available(oldPod)) numAvailable++;
    } else if (newPod && available(newPod)) numAvailable++;
    if (!oldPod) continue;
    if (!newPod) {
      const node = nodeByName.get(nodeName);
      if (!node) return { error: `couldn't get node for nodeName "${nodeName}": node "${nodeName}" not found` };
      if (!available(oldPod)) {
        if (!placement(node).shouldRun) {
          oldPodsToDelete.push(oldPod.metadata.name ?? '');
          continue;
        }
        allowedNewNodes.push(nodeName);
      } else {
        if (!placement(node).shouldRun) {
          shouldNotRunPodsToDelete.push(oldPod.metadata.name ?? '');
          continue;
        }
        if (numSurge >= maxSurge) continue;
        candidateNewNodes.push(nodeName);
      }
      continue;
    }
    // Already surged onto this node.
    if (!available(newPod)) {
      numSurge++;
      continue;
    }
    oldPodsToDelete.push(oldPod.metadata.name ?? '');
  }
  const deletable = Math.min(numAvailable - desired, shouldNotRunPodsToDelete.length);
  // (the pods are read back from the pod lister; one gone since is skipped — the caller's cache is the same one)
  if (deletable > 0) oldPodsToDelete.push(...shouldNotRunPodsToDelete.slice(0, deletable));
  const remainingSurge = Math.min(Math.max(maxSurge - numSurge, 0), candidateNewNodes.length);
  return { podsToDelete: oldPodsToDelete, nodesToCreate: [...allowedNewNodes, ...candidateNewNodes.slice(0, remainingSurge)], maxSurge, maxUnavailable, desired };
}
