/**
 * Test harness for the DaemonSet-controller model (src/model/daemonset/daemonset-controller.ts):
 * wire-shaped DaemonSets, Nodes and daemon pods (ownerReferences, the node affinity syncNodes
 * writes, pod-template-generation and controller-revision-hash labels, resourceVersions bumped on
 * every change), a PodControl whose answers the test scripts and whose calls it records, and the
 * controller with its syncs collected. Namespace "kube-system", DaemonSet "agent", key
 * "kube-system/agent".
 */
import type { DaemonSet, Node, Pod } from '../../../src/model/objects.js';
import { DaemonSetController } from '../../../src/model/daemonset/daemonset-controller.js';
import type { CreateResult, DeleteResult, PodControl } from '../../../src/model/controller/pod-control.js';
import type { SyncRecord } from '../../../src/model/controller/sync-record.js';
import { parseK8sVersion } from '../../../src/model/version.js';
import { iso, T0 } from '../controller-harness.js';

export { T0, iso };
export const NS = 'kube-system';
export const KEY = `${NS}/agent`;
export const DS_UID = 'ds-uid-1';

let rv = 100;
const nextRv = () => String(++rv);

export function daemonSet(opts: { generation?: number; maxUnavailable?: number | string; maxSurge?: number | string; nodeSelector?: Record<string, string>; minReadySeconds?: number; uid?: string } = {}): DaemonSet {
  const generation = opts.generation ?? 1;
  return {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: {
      namespace: NS, name: 'agent', uid: opts.uid ?? DS_UID, resourceVersion: nextRv(), generation,
      creationTimestamp: iso(T0), annotations: { 'deprecated.daemonset.template.generation': String(generation) },
    },
    spec: {
      selector: { matchLabels: { app: 'agent' } },
      template: { metadata: { labels: { app: 'agent' } }, spec: { ...(opts.nodeSelector ? { nodeSelector: opts.nodeSelector } : {}), containers: [{ name: 'agent', image: `agent:${generation}` }] } },
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: opts.maxUnavailable ?? 1, maxSurge: opts.maxSurge ?? 0 } },
      ...(opts.minReadySeconds ? { minReadySeconds: opts.minReadySeconds } : {}),
    },
    status: { currentNumberScheduled: 0, numberMisscheduled: 0, desiredNumberScheduled: 0, numberReady: 0, observedGeneration: 0 },
  };
}

export function node(name: string, labels: Record<string, string> = {}, taints: Array<{ key: string; value?: string; effect: string }> = []): Node {
  return { apiVersion: 'v1', kind: 'Node', metadata: { name, uid: `node-${name}`, resourceVersion: nextRv(), labels }, spec: { taints } };
}

let podSeq = 0;
/** A daemon pod as syncNodes creates it for `nodeName`: controllerRef, node affinity by metadata.name, generation labels. */
export function daemonPod(ds: DaemonSet, nodeName: string, opts: { at?: number; generation?: number; hash?: string; phase?: string; ready?: boolean; bound?: boolean; name?: string } = {}): Pod {
  const generation = opts.generation ?? ds.metadata.generation ?? 1;
  const name = opts.name ?? `agent-${(++podSeq).toString(36).padStart(5, '0')}`;
  const at = opts.at ?? T0;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      namespace: NS, name, generateName: 'agent-', uid: `pod-${name}`, resourceVersion: nextRv(), creationTimestamp: iso(at),
      labels: { app: 'agent', 'pod-template-generation': String(generation), 'controller-revision-hash': opts.hash ?? `h${generation}` },
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'agent', uid: ds.metadata.uid!, controller: true, blockOwnerDeletion: true }],
    },
    spec: {
      ...(opts.bound ? { nodeName } : {}),
      affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: [nodeName] }] }] } } },
    },
    status: {
      phase: opts.phase ?? (opts.ready ? 'Running' : 'Pending'),
      ...(opts.ready ? { conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: iso(at) }] } : {}),
    },
  };
}

/** A changed copy with a new resourceVersion, as the apiserver answers a write. */
export function changed<T extends { metadata: { resourceVersion?: string } }>(obj: T, change: (o: T) => void): T {
  const copy = structuredClone(obj);
  change(copy);
  copy.metadata.resourceVersion = nextRv();
  return copy;
}

export interface Calls {
  creates: Array<{ node?: string; round: number; index: number; at: number }>;
  deletes: Array<{ pod: string; round: number; at: number }>;
}

export function newDaemonSetHarness(opts: { version?: string; createAnswers?: Array<CreateResult>; deleteAnswers?: Record<string, DeleteResult>; behind?: boolean; podControl?: Partial<PodControl<DaemonSet>> } = {}) {
  const calls: Calls = { creates: [], deletes: [] };
  const syncs: SyncRecord[] = [];
  const createAnswers = [...(opts.createAnswers ?? [])];
  const state = { behind: opts.behind ?? false };
  const podControl: PodControl<DaemonSet> = {
    createPod: (_ds, call) => {
      calls.creates.push({ node: call.node, round: call.round, index: call.index, at: call.at });
      return createAnswers.shift() ?? { ok: true };
    },
    deletePod: (_ds, pod, call) => {
      calls.deletes.push({ pod: pod.metadata.name ?? '', round: call.round, at: call.at });
      return opts.deleteAnswers?.[pod.metadata.name ?? ''] ?? { ok: true };
    },
    getFreshOwner: (ds) => ds,
    patchPod: () => 'ok',
    informerBehindOwnWrites: () => state.behind,
    ...opts.podControl,
  };
  const dsc = new DaemonSetController({ version: parseK8sVersion(opts.version ?? 'v1.37.2'), podControl, onSync: (s) => syncs.push(s) });
  return { dsc, calls, syncs, state };
}
