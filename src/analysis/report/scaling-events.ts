/**
 * The Deployment controller's ScalingReplicaSet Events as the history of a ReplicaSet's desired
 * count: each "Scaled up replica set web-7d9 to 5 from 2" (1.27+), "Scaled up replica set
 * web-7d9 to 5" (before), or the "from 2 to 5" wording some tools write, is one write of the
 * ReplicaSet's spec.replicas (mirrors scaleReplicaSet in pkg/controller/deployment/sync.go).
 *
 * Pure; O(Events).
 */
import type { CoreEvent } from '../../model/objects.js';
import { eventTimes } from './event-times.js';

const SCALED_RE = /^Scaled (up|down) replica set (\S+) (?:to (\d+)(?: from (\d+))?|from (\d+) to (\d+))$/;

export interface DesiredChange {
  /** Epoch ms of the Event's last occurrence (undefined: the Event has no usable time). */
  at?: number;
  from?: number;
  to: number;
  direction: 'up' | 'down';
  /** The Deployment the Event is about. */
  deployment: { name: string; uid?: string };
  count: number;
  event: CoreEvent;
}

/** Parses one ScalingReplicaSet message; undefined when it is not one. */
export function parseScalingMessage(message: string): { direction: 'up' | 'down'; rs: string; from?: number; to: number } | undefined {
  const m = SCALED_RE.exec(message.trim());
  if (!m) return undefined;
  const to = Number(m[3] ?? m[6]);
  const fromText = m[4] ?? m[5];
  return { direction: m[1] as 'up' | 'down', rs: m[2]!, to, ...(fromText !== undefined ? { from: Number(fromText) } : {}) };
}

/**
 * The desired-count changes of ReplicaSet `namespace/name` that the Deployment controller's
 * ScalingReplicaSet Events show, oldest first.
 */
export function scalingChanges(namespace: string, name: string, events: CoreEvent[]): DesiredChange[] {
  const out: DesiredChange[] = [];
  for (const e of events) {
    if (e.reason !== 'ScalingReplicaSet' || e.involvedObject?.kind !== 'Deployment') continue;
    if ((e.involvedObject.namespace ?? e.metadata.namespace) !== namespace) continue;
    const c = e.source?.component ?? e.reportingComponent;
    if (c !== undefined && c !== '' && c !== 'deployment-controller') continue;
    const t = eventTimes(e);
    const p = parseScalingMessage(t.message);
    if (!p || p.rs !== name) continue;
    out.push({
      ...(t.last !== undefined ? { at: t.last } : {}), ...(p.from !== undefined ? { from: p.from } : {}), to: p.to, direction: p.direction,
      deployment: { name: e.involvedObject.name ?? '?', ...(e.involvedObject.uid ? { uid: e.involvedObject.uid } : {}) }, count: t.count, event: e,
    });
  }
  return out.sort((a, b) => (a.at ?? Infinity) - (b.at ?? Infinity));
}

/** The desired count's range over the changes and the current value (`current` last, when known). */
export function desiredRange(changes: DesiredChange[], current?: number): { first: number; last: number; min: number; max: number } | undefined {
  const values: number[] = [];
  for (const c of changes) {
    if (c.from !== undefined) values.push(c.from);
    values.push(c.to);
  }
  if (current !== undefined) values.push(current);
  if (values.length === 0) return undefined;
  return { first: values[0]!, last: values[values.length - 1]!, min: Math.min(...values), max: Math.max(...values) };
}
