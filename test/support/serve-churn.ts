/**
 * A generated namespace with churn, as kexp serve's reflectors would deliver it: N ReplicaSets of
 * P ready pods each listed, then every `intervalS` seconds (simulated) one ReplicaSet scaled up by
 * one (the RS spec write, the controller's pod ADDED, its status write) and one pod of another
 * ReplicaSet deleted by someone else (its deletionTimestamp, the DELETED) and replaced by its
 * controller (the replacement's ADDED). The stream of bench/serve/memory.ts and of
 * test/serve/incremental.test.ts.
 *
 * `churnLines(o)` yields the lines in receive order without keeping them (memory O(pods): the
 * live pod names, as the cluster holds them); `churnStream(o)` collects them as a RecordingLines.
 */
import type { RecordingWatch } from '../../src/sources/watch/recording-format.ts';
import type { RecordingLines } from './serve-feed.ts';

export interface ChurnOptions {
  rs: number;
  pods: number;
  minutes: number;
  intervalS: number;
  namespace?: string;
  /** The listing's time (epoch ms). */
  t0?: number;
}

export type ChurnLine = RecordingLines['lines'][number];

export function churnWatches(ns: string): RecordingWatch[] {
  return ['namespaces', 'pods', 'events', 'replicasets'].map((resource) => ({ resource, ...(resource === 'namespaces' ? { name: ns } : { namespace: ns }) }));
}

const iso = (t: number) => new Date(t).toISOString().replace(/\.\d+Z$/, 'Z');

export function* churnLines(o: ChurnOptions): Generator<ChurnLine> {
  const NS = o.namespace ?? 'bench';
  const t0 = o.t0 ?? Date.parse('2026-12-05T00:00:00Z');
  let rv = 1000;
  let uidN = 0;
  const rsObject = (i: number, replicas: number, gen: number, status?: { replicas: number; observedGeneration: number }): Record<string, unknown> => {
    const labels = { app: `app-${i}` };
    return {
      apiVersion: 'apps/v1', kind: 'ReplicaSet',
      metadata: { name: `web-${i}`, namespace: NS, uid: `rs-uid-${i}`, resourceVersion: String(++rv), generation: gen, labels, creationTimestamp: iso(t0 - 3600_000) },
      spec: { replicas, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: 'app', image: 'registry.k8s.io/pause:3.10' }] } } },
      status: status ?? { replicas, fullyLabeledReplicas: replicas, readyReplicas: replicas, availableReplicas: replicas, observedGeneration: gen },
    };
  };
  const podObject = (i: number, name: string, uid: string, t: number, deleting?: number): Record<string, unknown> => ({
    apiVersion: 'v1', kind: 'Pod',
    metadata: {
      name, namespace: NS, uid, resourceVersion: String(++rv), labels: { app: `app-${i}` }, creationTimestamp: iso(t),
      ...(deleting !== undefined ? { deletionTimestamp: iso(deleting), deletionGracePeriodSeconds: 0 } : {}),
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: `web-${i}`, uid: `rs-uid-${i}`, controller: true, blockOwnerDeletion: true }],
    },
    spec: { nodeName: 'node-1', containers: [{ name: 'app', image: 'registry.k8s.io/pause:3.10' }] },
    status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] },
  });
  const ev = (at: number, src: string, type: string, object: Record<string, unknown>, synthetic?: 'initial-list'): ChurnLine => ({ at, src, event: { type, object }, ...(synthetic ? { synthetic } : {}) });
  yield ev(t0, 'namespaces', 'ADDED', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS, uid: 'ns-uid', resourceVersion: String(++rv) }, status: { phase: 'Active' } }, 'initial-list');
  const live: Array<Array<{ name: string; uid: string }>> = [];
  for (let i = 0; i < o.rs; i++) {
    live.push([]);
    for (let p = 0; p < o.pods; p++) {
      const pod = { name: `web-${i}-${p}`, uid: `pod-uid-${++uidN}` };
      live[i]!.push(pod);
      yield ev(t0, 'pods', 'ADDED', podObject(i, pod.name, pod.uid, t0 - 3600_000), 'initial-list');
    }
  }
  const replicas = new Array<number>(o.rs).fill(o.pods);
  const gens = new Array<number>(o.rs).fill(1);
  for (let i = 0; i < o.rs; i++) yield ev(t0 + 1, 'replicasets', 'ADDED', rsObject(i, o.pods, 1), 'initial-list');
  for (let s = o.intervalS; s <= o.minutes * 60; s += o.intervalS) {
    const t = t0 + s * 1000;
    const j = (s / o.intervalS + Math.floor(o.rs / 2)) % o.rs;
    const victim = live[j]!.shift();
    if (victim) {
      yield ev(t - 14000, 'pods', 'MODIFIED', podObject(j, victim.name, victim.uid, t0 - 3600_000, t - 14000));
      yield ev(t - 13990, 'pods', 'DELETED', podObject(j, victim.name, victim.uid, t0 - 3600_000, t - 14000));
      const repl = { name: `web-${j}-r${s}`, uid: `pod-uid-${++uidN}` };
      live[j]!.push(repl);
      yield ev(t - 13975, 'pods', 'ADDED', podObject(j, repl.name, repl.uid, t - 13980));
    }
    const i = (s / o.intervalS) % o.rs;
    replicas[i]!++;
    gens[i]!++;
    const pod = { name: `web-${i}-x${s}`, uid: `pod-uid-${++uidN}` };
    live[i]!.push(pod);
    yield ev(t - 500, 'replicasets', 'MODIFIED', rsObject(i, replicas[i]!, gens[i]!, { replicas: replicas[i]! - 1, observedGeneration: gens[i]! - 1 }));
    yield ev(t - 470, 'pods', 'ADDED', podObject(i, pod.name, pod.uid, t - 480));
    yield ev(t - 400, 'replicasets', 'MODIFIED', rsObject(i, replicas[i]!, gens[i]!));
  }
}

export function churnStream(o: ChurnOptions): RecordingLines {
  const ns = o.namespace ?? 'bench';
  const lines = [...churnLines(o)];
  return { header: { serverVersion: 'v1.37.2', namespace: ns, watches: churnWatches(ns) }, lines, end: (o.t0 ?? Date.parse('2026-12-05T00:00:00Z')) + o.minutes * 60_000 };
}
