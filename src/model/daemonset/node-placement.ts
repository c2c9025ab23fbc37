/**
 * Node placement: whether a DaemonSet wants a daemon pod on a node, as its controller computes it
 * — no scheduler simulation beyond that (resources, ports and the scheduler's other plugins are
 * the scheduler's business, not the controller's).
 *
 * Mirrors nodeShouldRunDaemonPod, predicates and daemonPodTolerations in
 * pkg/controller/daemon/daemon_controller.go (v1.37.2), with what they call:
 * - nodeaffinity.NewRequiredNodeAffinity(nodeSelector, affinity).Match (k8s.io/component-helpers
 *   scheduling/corev1/nodeaffinity): the template's nodeSelector (equality on node labels) AND the
 *   required node affinity's terms, ORed; an empty term is skipped, a term that fails to parse
 *   never matches ("Ignore parsing errors for backwards compatibility"); matchExpressions over
 *   labels (In, NotIn, Exists, DoesNotExist, Gt, Lt), matchFields over metadata.name (In/NotIn
 *   with one value);
 * - util.AddOrUpdateDaemonPodTolerations (pkg/controller/daemon/util/daemonset_util.go): the
 *   defaults every daemon pod gets (not-ready and unreachable NoExecute; disk-, memory-, pid-pressure
 *   and unschedulable NoSchedule; network-unavailable NoSchedule with hostNetwork);
 * - v1helper.FindMatchingUntoleratedTaint and Toleration.ToleratesTaint (pkg/apis/core/v1/helper,
 *   k8s.io/api core/v1 toleration.go): a taint is tolerated when some toleration has its effect
 *   (or none), its key (or none, with Exists) and, for Equal, its value. The Gt/Lt toleration
 *   operators (TaintTolerationComparisonOperators, alpha, off by default) are not modelled: such a
 *   toleration tolerates nothing here, as with the gate off.
 *
 * Result: `shouldRun` — a node without a daemon pod gets one; `shouldContinueRunning` — a node's
 * daemon pod may stay (a NoSchedule taint the pod does not tolerate stops new pods, not running ones).
 *
 * Cost: O(terms + requirements + taints × tolerations) per node. Pure.
 */
import type { DaemonSet, Node, NodeSelectorRequirement, NodeSelectorTerm, Taint, Toleration } from '../objects.js';
import { labelValueErrors, qualifiedNameErrors } from '../selector.js';

export interface Placement {
  shouldRun: boolean;
  shouldContinueRunning: boolean;
}

/** The taint keys of the default daemon pod tolerations (k8s.io/api core/v1 well_known_taints.go). */
const DEFAULT_TOLERATIONS: Toleration[] = [
  { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute' },
  { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute' },
  { key: 'node.kubernetes.io/disk-pressure', operator: 'Exists', effect: 'NoSchedule' },
  { key: 'node.kubernetes.io/memory-pressure', operator: 'Exists', effect: 'NoSchedule' },
  { key: 'node.kubernetes.io/pid-pressure', operator: 'Exists', effect: 'NoSchedule' },
  { key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule' },
];
const NETWORK_UNAVAILABLE: Toleration = { key: 'node.kubernetes.io/network-unavailable', operator: 'Exists', effect: 'NoSchedule' };

/** daemonPodTolerations: the template's tolerations plus the defaults every daemon pod gets. */
export function daemonPodTolerations(ds: DaemonSet): Toleration[] {
  const spec = ds.spec?.template?.spec;
  const out = [...(spec?.tolerations ?? []), ...DEFAULT_TOLERATIONS];
  if (spec?.hostNetwork) out.push(NETWORK_UNAVAILABLE);
  return out;
}

/** Toleration.ToleratesTaint (k8s.io/api core/v1 toleration.go), without the alpha Gt/Lt operators. */
export function toleratesTaint(t: Toleration, taint: Taint): boolean {
  if (t.effect && t.effect !== taint.effect) return false;
  if (t.key && t.key !== taint.key) return false;
  const op = t.operator ?? '';
  if (op === '' || op === 'Equal') return (t.value ?? '') === (taint.value ?? '');
  return op === 'Exists';
}

/** FindMatchingUntoleratedTaint: the first taint passing `filter` that no toleration tolerates. */
export function untoleratedTaint(taints: readonly Taint[], tolerations: readonly Toleration[], filter: (t: Taint) => boolean): Taint | undefined {
  for (const taint of taints) {
    if (!filter(taint)) continue;
    if (!tolerations.some((t) => toleratesTaint(t, taint))) return taint;
  }
  return undefined;
}

/** A parsed requirement: a predicate, or undefined when labels.NewRequirement would refuse it. */
type Match = (value: string | undefined) => boolean;

const INTEGER = /^[+-]?\d+$/;

/** labels.NewRequirement + Requirement.Matches for one node selector requirement over labels. */
function labelRequirement(r: NodeSelectorRequirement): Match | undefined {
  if (qualifiedNameErrors(r.key).length) return undefined;
  const values = r.values ?? [];
  switch (r.operator) {
    case 'In':
    case 'NotIn': {
      if (values.length === 0 || values.some((v) => labelValueErrors(v).length)) return undefined;
      const set = new Set(values);
      return r.operator === 'In' ? (v) => v !== undefined && set.has(v) : (v) => v === undefined || !set.has(v);
    }
    case 'Exists':
      return values.length ? undefined : (v) => v !== undefined;
    case 'DoesNotExist':
      return values.length ? undefined : (v) => v === undefined;
    case 'Gt':
    case 'Lt': {
      if (values.length !== 1 || !INTEGER.test(values[0]!)) return undefined;
      const bound = BigInt(values[0]!);
      return (v) => {
        if (v === undefined || !INTEGER.test(v)) return false;
        const n = BigInt(v);
        return r.operator === 'Gt' ? n > bound : n < bound;
      };
    }
    default:
      return undefined;
  }
}

/** One node selector term as newNodeSelectorTerm parses it: a predicate over the node, or undefined (a parse error). */
function parseTerm(term: NodeSelectorTerm): ((node: Node) => boolean) | undefined {
  const exprs = term.matchExpressions ?? [];
  const fields = term.matchFields ?? [];
  const labelMatches: Array<[string, Match]> = [];
  for (const e of exprs) {
    const m = labelRequirement(e);
    if (!m) return undefined;
    labelMatches.push([e.key, m]);
  }
  const fieldMatches: Array<[string, string, boolean]> = [];
  for (const f of fields) {
    const values = f.values ?? [];
    if ((f.operator !== 'In' && f.operator !== 'NotIn') || values.length !== 1) return undefined;
    fieldMatches.push([f.key, values[0]!, f.operator === 'In']);
  }
  return (node) => {
    const labels = node.metadata.labels ?? {};
    // nodeSelectorTerm.match: the requirements over labels (none when the term has no expressions).
    for (const [key, m] of labelMatches) if (!m(labels[key])) return false;
    const name = node.metadata.name ?? '';
    if (fieldMatches.length && name) {
      // extractNodeFields: only metadata.name is a node field; fields.Set.Get of another is "".
      for (const [key, value, isIn] of fieldMatches) {
        const actual = key === 'metadata.name' ? name : '';
        if (isIn ? actual !== value : actual === value) return false;
      }
    }
    return true;
  };
}

/** The required node affinity of a pod template, parsed once per DaemonSet (NewRequiredNodeAffinity). */
export function requiredNodeAffinity(ds: DaemonSet): (node: Node) => boolean {
  const spec = ds.spec?.template?.spec;
  const nodeSelector = Object.entries(spec?.nodeSelector ?? {});
  const required = spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution;
  // NewLazyErrorNodeSelector drops empty terms; a term with a parse error never matches.
  const terms = required
    ? (required.nodeSelectorTerms ?? [])
        .filter((t) => (t.matchExpressions ?? []).length + (t.matchFields ?? []).length > 0)
        .map(parseTerm)
    : undefined;
  return (node) => {
    const labels = node.metadata.labels ?? {};
    for (const [k, v] of nodeSelector) if (labels[k] !== v) return false;
    if (!terms) return true;
    return terms.some((t) => t !== undefined && t(node));
  };
}

/**
 * nodeShouldRunDaemonPod for one DaemonSet over many nodes: build once with the DaemonSet
 * (tolerations and node affinity), call per node.
 */
export function placementOf(ds: DaemonSet): (node: Node) => Placement {
  const tolerations = daemonPodTolerations(ds);
  const affinity = requiredNodeAffinity(ds);
  const nodeName = ds.spec?.template?.spec?.nodeName ?? '';
  return (node) => {
    if (nodeName !== '' && nodeName !== node.metadata.name) return { shouldRun: false, shouldContinueRunning: false };
    if (!affinity(node)) return { shouldRun: false, shouldContinueRunning: false };
    const taints = node.spec?.taints ?? [];
    const blocking = untoleratedTaint(taints, tolerations, (t) => t.effect === 'NoExecute' || t.effect === 'NoSchedule');
    if (!blocking) return { shouldRun: true, shouldContinueRunning: true };
    // Scheduled daemon pods keep running if they tolerate every NoExecute taint.
    const evicting = untoleratedTaint(taints, tolerations, (t) => t.effect === 'NoExecute');
    return { shouldRun: false, shouldContinueRunning: !evicting };
  };
}
