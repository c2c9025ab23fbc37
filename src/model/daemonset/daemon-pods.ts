/**
 * A DaemonSet's pods as its controller groups and judges them: by target node, oldest first,
 * updated or not.
 *
 * Mirrors, in pkg/controller/daemon (v1.37.2):
 * - util.GetTargetNodeName (util/daemonset_util.go): spec.nodeName, else the one metadata.name
 *   value of an `In` matchFields requirement of the required node affinity (what syncNodes writes
 *   into every pod it creates); a pod with neither is skipped;
 * - getNodesToDaemonPods (daemon_controller.go): the claimed pods by target node, leaving out pods
 *   both terminal and being deleted unless asked for them;
 * - podByCreationTimestampAndPhase: scheduled pods first, then by creationTimestamp, then by name;
 * - util.GetTemplateGeneration and util.IsPodUpdated: a pod is updated when its
 *   `pod-template-generation` label is the DaemonSet's `deprecated.daemonset.template.generation`
 *   annotation, or its `controller-revision-hash` label is the current revision's hash;
 * - findUpdatedPodsOnNode (update.go): the one new and the one old non-deleted pod on a node, or
 *   not ok when a node has two of either.
 *
 * The revision hash: upstream computes it (controller.ComputeHash of the template, an FNV hash of
 * Go's printing of the struct) and stores it in a ControllerRevision. kexp cannot compute it, so it
 * reads it from the input: the `controller-revision-hash` label of a pod created for the current
 * template generation (`currentRevisionHash`). With the template-generation annotation present — the
 * apiserver sets it on every DaemonSet — IsPodUpdated needs no hash at all.
 *
 * Cost: O(pods) per grouping; pure.
 */
import { isPodReady, podReadySince } from '../pod-ranking.js';
import { parseTime, type DaemonSet, type Pod } from '../objects.js';

export const TEMPLATE_GENERATION_ANNOTATION = 'deprecated.daemonset.template.generation';
export const TEMPLATE_GENERATION_LABEL = 'pod-template-generation';
export const REVISION_HASH_LABEL = 'controller-revision-hash';

/** util.GetTargetNodeName: the node a daemon pod is for, or undefined (the controller skips it). */
export function targetNodeName(pod: Pod): string | undefined {
  const spec = pod.spec as (Pod['spec'] & { affinity?: { nodeAffinity?: { requiredDuringSchedulingIgnoredDuringExecution?: { nodeSelectorTerms?: Array<{ matchFields?: Array<{ key?: string; operator?: string; values?: string[] | null }> | null }> | null } | null } | null } | null }) | null | undefined;
  if (spec?.nodeName) return spec.nodeName;
  const terms = spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms ?? [];
  for (const term of terms) {
    for (const exp of term.matchFields ?? []) {
      if (exp.key === 'metadata.name' && exp.operator === 'In') return exp.values?.length === 1 ? exp.values[0] : undefined;
    }
  }
  return undefined;
}

/** podutil.IsPodTerminal: phase Succeeded or Failed. */
export function isPodTerminal(pod: Pod): boolean {
  const phase = pod.status?.phase;
  return phase === 'Succeeded' || phase === 'Failed';
}

/** getNodesToDaemonPods over already-claimed pods: node name → its daemon pods, in claim order. */
export function nodesToDaemonPods(claimed: readonly Pod[], includeDeletedTerminal: boolean): Map<string, Pod[]> {
  const out = new Map<string, Pod[]>();
  for (const pod of claimed) {
    if (!includeDeletedTerminal && isPodTerminal(pod) && pod.metadata.deletionTimestamp != null) continue;
    const node = targetNodeName(pod);
    if (node === undefined) continue;
    let list = out.get(node);
    if (!list) out.set(node, (list = []));
    list.push(pod);
  }
  return out;
}

/** podByCreationTimestampAndPhase.Less. */
export function compareByCreationAndPhase(a: Pod, b: Pod): number {
  const sa = a.spec?.nodeName ? 1 : 0;
  const sb = b.spec?.nodeName ? 1 : 0;
  if (sa !== sb) return sb - sa;
  const ta = parseTime(a.metadata.creationTimestamp) ?? 0;
  const tb = parseTime(b.metadata.creationTimestamp) ?? 0;
  if (ta === tb) return (a.metadata.name ?? '') < (b.metadata.name ?? '') ? -1 : (a.metadata.name ?? '') > (b.metadata.name ?? '') ? 1 : 0;
  return ta - tb;
}

/** util.GetTemplateGeneration: the annotation as an integer; undefined when absent or not a number (Go: nil). */
export function templateGeneration(ds: DaemonSet): string | undefined {
  const a = ds.metadata.annotations?.[TEMPLATE_GENERATION_ANNOTATION];
  if (a === undefined || !/^[+-]?\d+$/.test(a)) return undefined;
  return String(BigInt(a));
}

/** util.IsPodUpdated. */
export function isPodUpdated(pod: Pod, hash: string | undefined, generation: string | undefined): boolean {
  const labels = pod.metadata.labels ?? {};
  const templateMatches = generation !== undefined && labels[TEMPLATE_GENERATION_LABEL] === generation;
  const hashMatches = !!hash && labels[REVISION_HASH_LABEL] === hash;
  return hashMatches || templateMatches;
}

/** The current revision's hash as the input shows it: the hash label of a pod made for the current template generation. */
export function currentRevisionHash(ds: DaemonSet, pods: Iterable<Pod>): string | undefined {
  const generation = templateGeneration(ds);
  if (generation === undefined) return undefined;
  for (const p of pods) {
    const labels = p.metadata.labels ?? {};
    if (labels[TEMPLATE_GENERATION_LABEL] === generation && labels[REVISION_HASH_LABEL]) return labels[REVISION_HASH_LABEL];
  }
  return undefined;
}

/** findUpdatedPodsOnNode: `ok` false when the node has two updated or two old non-deleted pods. */
export function findUpdatedPodsOnNode(ds: DaemonSet, pods: readonly Pod[], hash: string | undefined): { newPod?: Pod; oldPod?: Pod; ok: boolean } {
  const generation = templateGeneration(ds);
  let newPod: Pod | undefined;
  let oldPod: Pod | undefined;
  for (const pod of pods) {
    if (pod.metadata.deletionTimestamp != null) continue;
    if (isPodUpdated(pod, hash, generation)) {
      if (newPod) return { ok: false };
      newPod = pod;
    } else {
      if (oldPod) return { ok: false };
      oldPod = pod;
    }
  }
  return { newPod, oldPod, ok: true };
}

/** podutil.IsPodAvailable: ready, and ready for minReadySeconds (inclusive from 1.34, strict before). */
export function isPodAvailable(pod: Pod, minReadySeconds: number, now: number, inclusive: boolean): boolean {
  if (!isPodReady(pod)) return false;
  if (minReadySeconds <= 0) return true;
  const since = podReadySince(pod);
  if (since === undefined) return false;
  const at = since + minReadySeconds * 1000;
  return inclusive ? at <= now : at < now;
}
