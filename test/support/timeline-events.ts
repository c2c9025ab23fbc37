/**
 * Small constructors of TimelineEvents and objects for unit tests of the engine's stages: a
 * ReplicaSet, its pods, core Events, observations and the controller's audit writes, with
 * deterministic names and UIDs. (RecordingBuilder builds whole recordings for end-to-end tests.)
 */
import type { CoreEvent, Pod, ReplicaSet } from '../../src/model/objects.js';
import type { ObservedEvent, TimelineEvent, WatchType, WriteEvent } from '../../src/timeline/event.js';

export const NS = 'shop';
export const T0 = Date.UTC(2026, 10, 30, 10, 0, 0);

let line = 0;
export const src = () => ({ file: 'test', line: ++line });

export function rsObj(name = 'web', replicas = 3, extra: { uid?: string; status?: ReplicaSet['status'] } = {}): ReplicaSet {
  return {
    kind: 'ReplicaSet',
    metadata: { name, namespace: NS, uid: extra.uid ?? `uid-${name}`, resourceVersion: '1', creationTimestamp: new Date(T0 - 3600_000).toISOString() },
    spec: { replicas, selector: { matchLabels: { app: name } } },
    status: extra.status ?? { replicas: 0, observedGeneration: 1 },
  };
}

export function podObj(name: string, rs: ReplicaSet | undefined, extra: { uid?: string; createdAt?: number; phase?: string; deleting?: boolean } = {}): Pod {
  return {
    kind: 'Pod',
    metadata: {
      name, namespace: NS, uid: extra.uid ?? `uid-${name}`, resourceVersion: '1', labels: { app: rs?.metadata.name ?? 'none' },
      creationTimestamp: new Date(Math.floor((extra.createdAt ?? T0) / 1000) * 1000).toISOString(),
      ...(extra.deleting ? { deletionTimestamp: new Date(T0 + 3600_000).toISOString() } : {}),
      ...(rs ? { ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: rs.metadata.name!, uid: rs.metadata.uid!, controller: true }] } : {}),
    },
    spec: { nodeName: 'node-1' },
    status: { phase: extra.phase ?? 'Running' },
  };
}

export function coreEvent(name: string, reason: string, message: string, rs: ReplicaSet, count = 1): CoreEvent {
  return {
    kind: 'Event',
    metadata: { name, namespace: NS },
    involvedObject: { kind: 'ReplicaSet', namespace: NS, name: rs.metadata.name, uid: rs.metadata.uid },
    reason, message, count, type: reason.startsWith('Failed') ? 'Warning' : 'Normal',
    source: { component: 'replicaset-controller' },
  };
}

export function observed(at: number, kind: 'Pod', watchType: WatchType, object: Pod): ObservedEvent;
export function observed(at: number, kind: 'ReplicaSet', watchType: WatchType, object: ReplicaSet): ObservedEvent;
export function observed(at: number, kind: 'Event', watchType: WatchType, object: CoreEvent): ObservedEvent;
export function observed(at: number, kind: string, watchType: WatchType, object: unknown): ObservedEvent {
  return { type: 'observed', at, atBasis: 'received', source: src(), kind, watchType, object } as ObservedEvent;
}

/** An audit record of a pod write by the ReplicaSet controller. */
export function podWrite(at: number, verb: 'create' | 'delete' | 'patch', pod: Pod, code = verb === 'create' ? 201 : 200, extra: Partial<WriteEvent> = {}): WriteEvent {
  const ref = pod.metadata.ownerReferences?.[0];
  return {
    type: 'write', at, atBasis: 'audit-stage', source: src(),
    actor: { username: 'system:serviceaccount:kube-system:replicaset-controller', controller: 'replicaset-controller' },
    verb, resource: 'pods', namespace: NS, name: pod.metadata.name,
    ...(ref ? { owner: { state: 'owned', kind: 'ReplicaSet', name: ref.name, uid: ref.uid, basis: 'request' } } : {}),
    status: { code },
    ...(verb === 'create' ? { requestObject: pod, responseObject: code < 300 ? pod : { kind: 'Status' } } : {}),
    ...extra,
  } as WriteEvent;
}

/** A look-ahead over a fixed list of upcoming events (the engine's buffer, for the oracle's tests). */
export function fixedLookahead(events: TimelineEvent[], exhausted = true) {
  return { upcoming: () => events, exhausted: () => exhausted };
}
