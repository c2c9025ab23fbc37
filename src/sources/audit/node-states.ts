/**
 * Node states in an audit log: the part of a Node the DaemonSet controller reads, and the folding
 * of the writes that change none of it.
 *
 * Most node writes in a real audit log are the kubelets' status heartbeats (a `nodes/status`
 * PATCH per node every 10 s to 5 min, and the node lifecycle controller's condition updates);
 * the DaemonSet controller's node handler ignores every update that changes neither the node's
 * labels nor its taints (updateNode → shouldIgnoreNodeUpdate, pkg/controller/daemon/
 * daemon_controller.go v1.37.2: Semantic.DeepEqual of Labels and of Spec.Taints, nil and empty
 * alike), and its placement reads nothing else of a node but its name (NodeShouldRunDaemonPod:
 * the labels for nodeSelector and node affinity, the taints against the tolerations).
 *
 * Contract:
 * - `nodeState(obj)`: a Node reduced to what the model reads — apiVersion, kind, metadata (name,
 *   uid, resourceVersion, creationTimestamp, labels, deletionTimestamp, finalizers) and spec
 *   (taints, unschedulable); status, annotations and managedFields are dropped (a node's status
 *   lists every image on it: kilobytes per write that the model never reads).
 * - `NodeStates.unchanged(state)`: true when the node (by name and uid) was last passed on with the
 *   same labels and taints — the write is folded: no event, counted by the source
 *   (`nodeWritesFolded`); otherwise remembers the state and returns false. A node seen for the first
 *   time, or recreated (another uid), is never folded. `forget` on a deletion.
 *
 * Cost: per node write one JSON.stringify of its labels and taints; memory one short signature per
 * node, bounded (insertion-order eviction past MAX_NODES: an evicted node's next write is passed on
 * again, which the model's handler ignores as it would the real informer's resync).
 */
import { isRecord } from '../../model/objects.js';
import { BoundedMap } from './attribution.js';

/** More nodes than a cluster may have (5,000 is the scalability limit), so eviction is only a safeguard. */
const MAX_NODES = 20_000;

type Obj = Record<string, unknown>;

const META_FIELDS = ['name', 'uid', 'resourceVersion', 'creationTimestamp', 'labels', 'deletionTimestamp', 'finalizers'] as const;

/** A Node as the DaemonSet model reads it (anything else, e.g. a Status, is returned as it is). */
export function nodeState(obj: unknown): unknown {
  if (!isRecord(obj) || !isRecord(obj.metadata)) return obj;
  const m = obj.metadata;
  const meta: Obj = {};
  for (const k of META_FIELDS) if (m[k] !== undefined) meta[k] = m[k];
  const out: Obj = { apiVersion: obj.apiVersion ?? 'v1', kind: obj.kind ?? 'Node', metadata: meta };
  if (isRecord(obj.spec)) {
    const spec: Obj = {};
    if (obj.spec.taints !== undefined) spec.taints = obj.spec.taints;
    if (obj.spec.unschedulable !== undefined) spec.unschedulable = obj.spec.unschedulable;
    out.spec = spec;
  } else if (obj.spec !== undefined) out.spec = obj.spec;
  return out;
}

/** What shouldIgnoreNodeUpdate compares, with the uid (a recreated node is a new one): nil and empty alike. */
function signature(state: unknown): string | undefined {
  if (!isRecord(state) || !isRecord(state.metadata)) return undefined;
  const m = state.metadata;
  const labels = isRecord(m.labels) && Object.keys(m.labels).length > 0 ? m.labels : {};
  const taints = isRecord(state.spec) && Array.isArray(state.spec.taints) ? state.spec.taints : [];
  // The apiserver writes a map's keys sorted, so equal label maps stringify alike.
  return JSON.stringify([m.uid ?? null, labels, taints]);
}

export class NodeStates {
  private readonly last = new BoundedMap<string, string>(MAX_NODES);

  /** True when `state` changes neither labels nor taints of the node as last passed on (fold it); else remembers it. */
  unchanged(state: unknown): boolean {
    const name = isRecord(state) && isRecord(state.metadata) && typeof state.metadata.name === 'string' ? state.metadata.name : undefined;
    const sig = signature(state);
    if (name === undefined || sig === undefined) return false;
    if (this.last.get(name) === sig) return true;
    this.last.set(name, sig);
    return false;
  }

  /** The node is gone: its next state is a new node's. */
  forget(state: unknown): void {
    if (isRecord(state) && isRecord(state.metadata) && typeof state.metadata.name === 'string') this.last.delete(state.metadata.name);
  }
}
