/**
 * A point-in-time read of one DaemonSet or Job for `kexp explain ds/NAME|job/NAME` (snapshot.ts
 * does the same for ReplicaSets), straight from the API server as wire JSON:
 *
 * - the DaemonSet (`get daemonsets`) or the Job (`get jobs`): required, 404 → not found;
 * - every pod of the namespace (`list pods`, paged like kubectl): its own pods (controllerRef
 *   uid), and those the analysis counts against it;
 * - the core/v1 Events about it (`list events`, field selector on the involvedObject's kind and
 *   name), aggregated ones included;
 * - for a DaemonSet, every Node (`list nodes`, cluster-scoped): optional — a 403 (a namespaced
 *   Role cannot grant Nodes) is recorded in `unavailable` and the analysis says node placement is
 *   unknown;
 * - the Namespace (`get namespaces`): optional, as for ReplicaSets;
 * - the server version.
 *
 * Errors are ClusterErrors with one line naming the verb, resource and namespace (snapshot.ts
 * forbiddenLine); paths are built by resourcePath. Cost: one GET each for the object, namespace
 * and version; the pods, Events and Nodes are paged lists (O(pods + Events + Nodes) memory).
 */
import type { CoreEvent, DaemonSet, Job, Namespace, Node, Pod } from '../../model/objects.js';
import { ClusterError } from './cluster-error.js';
import type { ClusterAccess } from './kubeconfig.js';
import { checkObjectName } from './names.js';
import { resourcePath } from './resource-paths.js';
import { get, listAll, optional, serverVersionOf, startEarlyReads, type EarlyReads, type UnavailableRead } from './snapshot.js';

export interface WorkloadSnapshotTarget {
  kind: 'ds' | 'job';
  name: string;
}

interface WorkloadSnapshotBase {
  takenAt: number;
  startedAt: number;
  server: string;
  context: string;
  namespace: string;
  serverVersion?: string;
  /** All pods of the namespace. */
  pods: Pod[];
  /** Events about the target. */
  events: CoreEvent[];
  ns?: Namespace;
  unavailable: UnavailableRead[];
  /** Objects read per resource, for the input summary. */
  counts: Record<string, number>;
}

export interface DaemonSetSnapshot extends WorkloadSnapshotBase {
  kind: 'ds';
  daemonSet: DaemonSet;
  /** Every Node, or undefined when they could not be read (RBAC: `unavailable` says so). */
  nodes?: Node[];
}

export interface JobSnapshot extends WorkloadSnapshotBase {
  kind: 'job';
  job: Job;
}

export type WorkloadSnapshot = DaemonSetSnapshot | JobSnapshot;

export interface WorkloadSnapshotOptions {
  access: ClusterAccess;
  target: WorkloadSnapshotTarget;
  now: () => number;
  requestTimeoutMs?: number;
  signal?: AbortSignal;
  pageSize?: number;
  /** The server version and pod reads, when they were started earlier (snapshot.ts EarlyReads). */
  early?: EarlyReads;
}

const WHAT = {
  ds: { kind: 'DaemonSet', group: 'apps', version: 'v1', resource: 'daemonsets', apiResource: 'daemonsets.apps', apiVersion: 'apps/v1' },
  job: { kind: 'Job', group: 'batch', version: 'v1', resource: 'jobs', apiResource: 'jobs.batch', apiVersion: 'batch/v1' },
} as const;

/** Takes the snapshot. Throws ClusterError for unreachable/TLS/401, 403 on a required read, not found. */
export async function takeWorkloadSnapshot(o: WorkloadSnapshotOptions): Promise<WorkloadSnapshot> {
  const w = WHAT[o.target.kind];
  checkObjectName(o.target.name, w.kind);
  const ns = o.access.namespace;
  const unavailable: UnavailableRead[] = [];
  const early = o.early ?? startEarlyReads(o);
  const startedAt = early.startedAt;
  const serverVersion = await serverVersionOf(early.version);
  const podsP = early.pods;
  let object: DaemonSet | Job;
  try {
    object = await get<DaemonSet | Job>(o, resourcePath({ group: w.group, version: w.version, namespace: ns, resource: w.resource, name: o.target.name }), 'get', w.apiResource, ns);
  } catch (err) {
    if (err instanceof ClusterError && err.kind === 'not-found') throw new ClusterError('not-found', `${w.kind} ${ns}/${o.target.name} not found`);
    throw err;
  }
  const [pods, events, nodes, nsObj] = await Promise.all([
    podsP,
    listAll<CoreEvent>(o, resourcePath({ version: 'v1', namespace: ns, resource: 'events' }), 'events', 'Event', 'v1', { fieldSelector: `involvedObject.kind=${w.kind},involvedObject.name=${o.target.name}` }),
    o.target.kind === 'ds'
      ? optional({ unavailable }, 'list', 'nodes', undefined, () => listAll<Node>(o, resourcePath({ version: 'v1', resource: 'nodes' }), 'nodes', 'Node', 'v1', {}, true))
      : Promise.resolve(undefined),
    optional({ unavailable }, 'get', 'namespaces', undefined, () => get<Namespace>(o, resourcePath({ version: 'v1', resource: 'namespaces', name: ns }), 'get', 'namespaces')),
  ]);
  const base: WorkloadSnapshotBase = {
    takenAt: o.now(),
    startedAt,
    server: o.access.server,
    context: o.access.context,
    namespace: ns,
    ...(serverVersion ? { serverVersion } : {}),
    pods,
    events,
    ...(nsObj ? { ns: { apiVersion: 'v1', kind: 'Namespace', ...nsObj } } : {}),
    unavailable,
    counts: { [w.resource]: 1, pods: pods.length, events: events.length, ...(nodes ? { nodes: nodes.length } : {}), namespaces: nsObj ? 1 : 0 },
  };
  const typed = { apiVersion: w.apiVersion, kind: w.kind, ...object };
  return o.target.kind === 'ds'
    ? { ...base, kind: 'ds', daemonSet: typed as DaemonSet, ...(nodes ? { nodes } : {}) }
    : { ...base, kind: 'job', job: typed as Job };
}
