/**
 * Writes kexp recordings (.kexp.jsonl, docs/recording-format.md) of DaemonSet scenarios as the
 * real control plane produces them: the DaemonSet controller's pods (controllerRef, the node
 * affinity syncNodes writes, the generation and revision-hash labels), its SuccessfulCreate /
 * SuccessfulDelete Events from `daemonset-controller`, its status writes, and the nodes. A
 * scenario is a list of steps at offsets from its start; `recording()` turns it into the lines, with
 * resourceVersions growing in the steps' time order as etcd's revisions do.
 * Used by the DaemonSet replay tests, not by the product.
 */
import { daemonPod, daemonSet, node } from '../model/daemonset/daemonset-harness.js';
import type { CoreEvent, DaemonSet, Node, Pod } from '../../src/model/objects.js';

export const T0 = Date.parse('2026-12-05T08:00:00Z');
const iso = (ms: number) => new Date(ms).toISOString();

type Step =
  | { at: number; src: 'nodes'; type: 'ADDED' | 'MODIFIED' | 'DELETED'; object: Node }
  | { at: number; src: 'daemonsets'; type: 'ADDED' | 'MODIFIED' | 'DELETED'; object: DaemonSet }
  | { at: number; src: 'pods'; type: 'ADDED' | 'MODIFIED' | 'DELETED'; object: Pod }
  | { at: number; src: 'events'; type: 'ADDED'; object: CoreEvent };

let evSeq = 0;
/** A core Event the DaemonSet controller records (source component daemonset-controller). */
export function dsEvent(ds: DaemonSet, at: number, reason: string, message: string, type = 'Normal'): CoreEvent {
  return {
    apiVersion: 'v1', kind: 'Event',
    metadata: { name: `agent.${(++evSeq).toString(16)}`, namespace: ds.metadata.namespace, uid: `ev-${evSeq}`, resourceVersion: String(9000 + evSeq), creationTimestamp: iso(at).replace(/\.\d+Z$/, 'Z') },
    involvedObject: { kind: 'DaemonSet', namespace: ds.metadata.namespace, name: ds.metadata.name, uid: ds.metadata.uid, apiVersion: 'apps/v1' },
    reason, message, type, count: 1, firstTimestamp: iso(at).replace(/\.\d+Z$/, 'Z'), lastTimestamp: iso(at).replace(/\.\d+Z$/, 'Z'),
    source: { component: 'daemonset-controller' }, reportingComponent: 'daemonset-controller',
  };
}

export function recording(steps: Step[], end: number, ns: string): string {
  const header = {
    kexpRecording: 1, kexpVersion: '0.1.0', serverVersion: 'v1.37.2', namespace: ns, startedAt: iso(T0),
    watches: [{ resource: 'daemonsets', namespace: ns }, { resource: 'pods', namespace: ns }, { resource: 'events', namespace: ns }, { resource: 'nodes' }],
    redacted: true,
  };
  const lines = [JSON.stringify(header)];
  // etcd's revisions grow with time across every resource: each write gets the next one, in the order of the steps.
  let rv = 1000;
  for (const s of [...steps].sort((a, b) => a.at - b.at)) {
    const object = { ...s.object, metadata: { ...s.object.metadata, resourceVersion: String(++rv) } };
    lines.push(JSON.stringify({ recv: iso(s.at), src: s.src, event: { type: s.type, object } }));
  }
  lines.push(JSON.stringify({ recv: iso(end), end: { reason: 'interrupted' } }));
  return lines.join('\n') + '\n';
}

export { daemonPod, daemonSet, node };

/**
 * kubernetes#136932 (bug-cases.md case 8): a DaemonSet over one node creates its pod, whose first
 * state the controller's informer delivers is already terminating (deleted right after its creation
 * by another actor, seen after a relist): addPod hands it to deletePod, the creation is never
 * counted, and the DaemonSet stays one pod short — gated until the record expires, and nothing syncs
 * it after. The recording runs 10 minutes past the creation.
 */
export function terminatingAtCreation(): string {
  const s = 1000;
  const ds = daemonSet();
  const p = daemonPod(ds, 'n1', { at: T0 + s, name: 'agent-w8k2n' });
  p.metadata.deletionTimestamp = new Date(T0 + 31 * s).toISOString().replace(/\.\d+Z$/, 'Z');
  p.metadata.deletionGracePeriodSeconds = 30;
  const status = (current: number) => ({ desiredNumberScheduled: 1, currentNumberScheduled: current, numberMisscheduled: 0, numberReady: 0, updatedNumberScheduled: current, numberAvailable: 0, numberUnavailable: 1, observedGeneration: 1 });
  return recording([
    { at: T0, src: 'nodes', type: 'ADDED', object: node('n1') },
    { at: T0 + 500, src: 'daemonsets', type: 'ADDED', object: ds },
    { at: T0 + s, src: 'pods', type: 'ADDED', object: p },
    { at: T0 + s + 20, src: 'events', type: 'ADDED', object: dsEvent(ds, T0 + s, 'SuccessfulCreate', `Created pod: ${p.metadata.name}`) },
    { at: T0 + s + 60, src: 'daemonsets', type: 'MODIFIED', object: { ...ds, status: status(1) } },
    { at: T0 + 31 * s, src: 'pods', type: 'DELETED', object: p },
    { at: T0 + 31 * s + 40, src: 'daemonsets', type: 'MODIFIED', object: { ...ds, status: status(0) } },
  ], T0 + 11 * 60 * s, 'kube-system');
}
