/**
 * The cluster watch: the reflectors `kexp serve` runs (sources/live/reflector.ts, the same
 * list + watch as `kexp record`: 410 → relist gap, reconnect from the last resourceVersion after an
 * apiserver restart) and the order it starts them in.
 *
 * Contract:
 * - `serveWatches(namespace)`: the owner kinds (ReplicaSets, ReplicationControllers, DaemonSets,
 *   Jobs), Pods and Events of one namespace (`-n`) or of all (`-A`), the Namespace(s), every Node
 *   (the DaemonSet controller's placement; optional) and the kube-controller-manager Lease
 *   (kcm-lease.ts; optional, not journaled). Nothing else is read — never a Secret.
 * - `runClusterWatch` probes the optional watches (a 403 names what is missing, once, and serve goes
 *   on without it), starts every other watch, and lists the owners only after the others' initial
 *   lists are in (as pipeline/record-live.ts does: the controller's caches sync before its workers
 *   run). It resolves when `signal` aborts; it rejects with the ClusterError of a watch that gave
 *   up for good (401/403 on a required watch, a server that does not speak the API).
 *
 * Cost: one LIST and one long-running WATCH per resource; memory is the reflectors' known-object
 * maps (O(objects), as any informer).
 */
import { getJSON } from '../sources/live/api-client.js';
import { ClusterError } from '../sources/live/cluster-error.js';
import type { KubeAccess } from '../sources/live/light-kubeconfig.js';
import { ObjectPoller, Reflector, type ReflectorSink } from '../sources/live/reflector.js';
import { resourcePath } from '../sources/live/resource-paths.js';
import type { RecordingWatch } from '../sources/watch/recording-format.js';
import { forbiddenMessage } from '../pipeline/record-live.js';
import { KCM_LEASE } from './kcm-lease.js';
import { OWNER_RESOURCES } from './journal.js';

export interface ServeWatch extends RecordingWatch {
  path: string;
  kind: string;
  apiVersion: string;
  /** A 403 on it is warned about once and serve goes on without it. */
  optional?: boolean;
  /** Not journaled (the Lease: read by kcm-lease.ts). */
  lease?: boolean;
}

/** The watches of `kexp serve -n NS` (namespace given) or `-A` (undefined). */
export function serveWatches(namespace: string | undefined): ServeWatch[] {
  const ns = namespace;
  const w = (group: string | undefined, version: string, resource: string, kind: string): ServeWatch => ({
    resource,
    ...(ns ? { namespace: ns } : {}),
    path: resourcePath({ ...(group ? { group } : {}), version, ...(ns ? { namespace: ns } : {}), resource }),
    kind,
    apiVersion: group ? `${group}/${version}` : version,
  });
  return [
    w('apps', 'v1', 'replicasets', 'ReplicaSet'),
    w(undefined, 'v1', 'replicationcontrollers', 'ReplicationController'),
    w('apps', 'v1', 'daemonsets', 'DaemonSet'),
    w('batch', 'v1', 'jobs', 'Job'),
    w(undefined, 'v1', 'pods', 'Pod'),
    w(undefined, 'v1', 'events', 'Event'),
    ns
      ? { resource: 'namespaces', name: ns, fieldSelector: `metadata.name=${ns}`, path: '/api/v1/namespaces', kind: 'Namespace', apiVersion: 'v1' }
      : { resource: 'namespaces', path: '/api/v1/namespaces', kind: 'Namespace', apiVersion: 'v1' },
    { resource: 'nodes', path: resourcePath({ version: 'v1', resource: 'nodes' }), kind: 'Node', apiVersion: 'v1', optional: true },
    {
      resource: 'leases', namespace: KCM_LEASE.namespace, name: KCM_LEASE.name, fieldSelector: `metadata.name=${KCM_LEASE.name}`,
      path: resourcePath({ group: 'coordination.k8s.io', version: 'v1', namespace: KCM_LEASE.namespace, resource: 'leases' }), kind: 'Lease', apiVersion: 'coordination.k8s.io/v1', optional: true, lease: true,
    },
  ];
}

export interface ClusterWatchOptions {
  kc: KubeAccess;
  watches: ServeWatch[];
  /** The sink of each watch (the registry's, or the Lease's). */
  sinkOf: (w: ServeWatch) => ReflectorSink;
  signal: AbortSignal;
  now: () => number;
  requestTimeoutMs?: number;
  onWarning?: (m: string) => void;
  /** An optional watch refused (403): readiness stops waiting for it. */
  onUnavailable?: (w: ServeWatch) => void;
}

/** Probes the optional watches: those the credential may not list are returned apart (and warned about). */
export async function probeWatches(o: Pick<ClusterWatchOptions, 'kc' | 'watches' | 'signal' | 'requestTimeoutMs' | 'onWarning'>): Promise<{ run: ServeWatch[]; unavailable: ServeWatch[] }> {
  const run: ServeWatch[] = [];
  const unavailable: ServeWatch[] = [];
  for (const w of o.watches) {
    if (w.optional) {
      const q = new URLSearchParams({ limit: '1', ...(w.fieldSelector ? { fieldSelector: w.fieldSelector } : {}) });
      try {
        await getJSON(o.kc, `${w.path}?${q.toString()}`, { timeoutMs: o.requestTimeoutMs, signal: o.signal });
      } catch (err) {
        if (!(err instanceof ClusterError && err.kind === 'forbidden')) throw err;
        o.onWarning?.(`${forbiddenMessage('list', w.resource, w.namespace, err)}; serving without ${w.resource === 'nodes' ? 'Nodes (DaemonSet placement unknown)' : 'the kube-controller-manager Lease (leadership unknown)'}`);
        unavailable.push(w);
        continue;
      }
    }
    run.push(w);
  }
  return { run, unavailable };
}

/** Runs the watches until `signal` aborts; rejects with the ClusterError that stopped a required one. */
export async function runClusterWatch(o: ClusterWatchOptions): Promise<void> {
  const inner = new AbortController();
  const onAbort = () => inner.abort();
  o.signal.addEventListener('abort', onAbort, { once: true });
  let fatal: unknown;
  let othersSynced!: () => void;
  const othersReady = new Promise<void>((resolve) => (othersSynced = resolve));
  inner.signal.addEventListener('abort', () => othersSynced(), { once: true });
  let pendingOthers = o.watches.filter((w) => !OWNER_RESOURCES.has(w.resource)).length;
  if (pendingOthers === 0) othersSynced();
  const runs = o.watches.map(async (w) => {
    const isOwner = OWNER_RESOURCES.has(w.resource);
    if (isOwner) {
      await othersReady;
      if (inner.signal.aborted) return;
    }
    const base = o.sinkOf(w);
    let synced = false;
    const sink: ReflectorSink = {
      ...base,
      synced: () => {
        synced = true;
        base.synced?.();
        if (!isOwner && --pendingOthers === 0) othersSynced();
      },
      gap: (reason, detail, at) => {
        base.gap(reason, detail, at);
        o.onWarning?.(`${w.resource}: ${reason} (${detail})`);
      },
    };
    const reflector = new Reflector({ kc: o.kc, path: w.path, kind: w.kind, apiVersion: w.apiVersion, fieldSelector: w.fieldSelector, signal: inner.signal, now: o.now, requestTimeoutMs: o.requestTimeoutMs, sink });
    try {
      await reflector.run().catch((err: unknown) => {
        // `-n NS` with a namespaced Role: `get` on its own Namespace, never list/watch of the
        // cluster-scoped collection — poll the object instead, as `kexp record` does (docs/rbac.md).
        if (synced || w.resource !== 'namespaces' || !w.name || !(err instanceof ClusterError && err.kind === 'forbidden')) throw err;
        o.onWarning?.(`cannot list/watch namespaces at cluster scope; polling namespace ${w.name} every 2 s instead (its changes are seen up to 2 s late)`);
        return new ObjectPoller({ kc: o.kc, path: `/api/v1/namespaces/${w.name}`, kind: 'Namespace', apiVersion: 'v1', signal: inner.signal, now: o.now, requestTimeoutMs: o.requestTimeoutMs, sink }).run();
      });
    } catch (err) {
      if (inner.signal.aborted) return;
      const ce = err instanceof ClusterError ? err : undefined;
      if (w.optional && ce?.kind === 'forbidden') {
        o.onWarning?.(`${forbiddenMessage('watch', w.resource, w.namespace, ce)}; serving without it from now on`);
        if (!synced) {
          o.onUnavailable?.(w);
          if (!isOwner && --pendingOthers === 0) othersSynced();
        }
        return;
      }
      if (err instanceof TypeError || err instanceof ReferenceError || err instanceof RangeError) {
        fatal ??= err;
      } else {
        const e = ce ?? new ClusterError('http', String((err as Error)?.message ?? err).split('\n')[0]!);
        const verb = /cannot (\w+) resource/.exec(e.message)?.[1] ?? 'list/watch';
        fatal ??= e.kind === 'forbidden' ? new ClusterError('forbidden', forbiddenMessage(verb, w.resource, w.namespace, e)) : e;
      }
      inner.abort();
    }
  });
  await Promise.all(runs);
  o.signal.removeEventListener('abort', onAbort);
  if (fatal) throw fatal;
}
