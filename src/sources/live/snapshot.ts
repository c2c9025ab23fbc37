/**
 * A point-in-time read of everything `kexp explain` and `kexp adopt` need about one
 * ReplicaSet (or a Deployment's ReplicaSets), straight from the API server as wire JSON:
 *
 * - the ReplicaSet (`get replicasets`) or the Deployment (`get deployments`) and the
 *   ReplicaSets it controls (`list replicasets`);
 * - every pod of the namespace (`list pods`, in pages of 500 like kubectl): owned pods, the
 *   orphans a ReplicaSet could adopt and pods owned by others that match its selector;
 * - the core/v1 Events about those ReplicaSets and the Deployment (`list events` with an
 *   `involvedObject` field selector), aggregated ones included;
 * - the ResourceQuotas (`list resourcequotas`), the Namespace (`get namespaces`) and the
 *   owning Deployment (`get deployments`), which are optional: a 403 on them is recorded in
 *   `unavailable` and the analysis says what it could not check;
 * - the server version.
 *
 * Every read is stamped with its receive time. Errors are ClusterErrors with one line that
 * names the verb, resource and namespace; credentials never appear. Target names are checked
 * (DNS-1123 subdomain) before any request, and every path is built by resourcePath (each
 * segment URI-encoded); api-client refuses responses of another kind than requested.
 */
import type { CoreEvent, Namespace, Pod, ReplicaSet, ReplicationController } from '../../model/objects.js';
import { replicaSetFromReplicationController } from '../../model/replicationcontroller/conversion.js';
import { getJSON } from './api-client.js';
import { ClusterError } from './cluster-error.js';
import type { ClusterAccess } from './kubeconfig.js';
import { checkObjectName, dns1123SubdomainProblem, quoteValue } from './names.js';
import { resourcePath } from './resource-paths.js';

export interface SnapshotTarget {
  /** A ReplicaSet, a ReplicationController (read and converted to the ReplicaSet shape, as its manager does), or a Deployment's ReplicaSets. */
  kind: 'rs' | 'rc' | 'deployment';
  name: string;
}

export interface ResourceQuota {
  metadata: { name?: string; namespace?: string };
  spec?: { hard?: Record<string, string> };
  status?: { hard?: Record<string, string>; used?: Record<string, string> };
}

export interface Deployment {
  metadata: { name?: string; namespace?: string; uid?: string; generation?: number; deletionTimestamp?: string | null };
  spec?: { replicas?: number; paused?: boolean };
  status?: { observedGeneration?: number; replicas?: number; conditions?: Array<{ type: string; status: string; reason?: string; message?: string }> };
}

/** coordination.k8s.io/v1 Lease (kube-controller-manager's leader election record). */
export interface Lease {
  metadata: { name?: string; namespace?: string };
  spec?: { holderIdentity?: string; leaseDurationSeconds?: number; acquireTime?: string; renewTime?: string; leaseTransitions?: number };
}

/** A read that was skipped because RBAC forbids it (the analysis says what it could not check). */
export interface UnavailableRead {
  verb: string;
  resource: string;
  namespace?: string;
  message: string;
}

export interface LiveSnapshot {
  /** Epoch ms when the last read of the snapshot returned. */
  takenAt: number;
  startedAt: number;
  server: string;
  context: string;
  namespace: string;
  serverVersion?: string;
  target: SnapshotTarget;
  /** The Deployment named by a `deployment/NAME` target. */
  deployment?: Deployment;
  /**
   * The ReplicaSets to explain: the named one, or those the Deployment controls; for an `rc/NAME`
   * target the ReplicationController converted to the ReplicaSet shape (convertRCtoRS of
   * pkg/controller/replication/conversion.go: the RC manager runs the ReplicaSet controller's code).
   */
  replicaSets: ReplicaSet[];
  /** The controlling owner of each target ReplicaSet, when it is a Deployment that could be read (key: RS uid). */
  owners: Map<string, Deployment | { notFound: true }>;
  /** All pods of the namespace. */
  pods: Pod[];
  /** Events about the target ReplicaSets (and the Deployment); about the ReplicationController for an `rc/NAME` target. */
  events: CoreEvent[];
  quotas?: ResourceQuota[];
  ns?: Namespace;
  /** kube-system/kube-controller-manager Lease (optional read): who leads, since when, last renewal. */
  kcmLease?: Lease;
  /** Why the Lease was not read (RBAC), for the report's coverage notes. */
  leaseNote?: string;
  unavailable: UnavailableRead[];
  /** Objects read per resource, for the input summary. */
  counts: Record<string, number>;
}

export interface SnapshotOptions {
  access: ClusterAccess;
  target: SnapshotTarget;
  now: () => number;
  requestTimeoutMs?: number;
  signal?: AbortSignal;
  /** Page size for pod lists (default 500, kubectl's chunk size). */
  pageSize?: number;
  /** The target-independent reads, when they were started earlier (src/cli/explain-prefetch.ts). */
  early?: EarlyReads;
}

/**
 * The reads of a snapshot that do not depend on its target — the server version and every pod
 * of the namespace — started together: by the snapshot itself, or before the command line is
 * parsed (src/cli/explain-prefetch.ts), so that the API server encodes the pods while kexp
 * starts. The promises are awaited by the snapshot in its own order, so an error surfaces where
 * it always did (a missing target before a forbidden pod list).
 */
export interface EarlyReads {
  /** o.now() when the reads were started: the snapshot's startedAt. */
  startedAt: number;
  /** GET /version as it came (the snapshot decides which failures matter). */
  version: Promise<{ gitVersion?: string }>;
  /** Every pod of the namespace (listAll). */
  pods: Promise<Pod[]>;
}

/** Starts the server-version read and the namespace's pod list; nothing is awaited. */
export function startEarlyReads(o: Omit<SnapshotOptions, 'target' | 'early'>): EarlyReads {
  const startedAt = o.now();
  const version = getJSON<{ gitVersion?: string }>(o.access.kc, '/version', { timeoutMs: o.requestTimeoutMs, signal: o.signal });
  const pods = listAll<Pod>(o, resourcePath({ version: 'v1', namespace: o.access.namespace, resource: 'pods' }), 'pods', 'Pod', 'v1');
  // Awaited by the snapshot (or abandoned with it): an early failure is not left unhandled meanwhile.
  version.catch(() => undefined);
  pods.catch(() => undefined);
  return { startedAt, version, pods };
}

/** The server's gitVersion, or undefined; a failure that will fail every other read too is thrown. */
export async function serverVersionOf(version: Promise<{ gitVersion?: string }>): Promise<string | undefined> {
  return (await version.catch((err: unknown) => {
    // /version is readable by everyone; a failure here is the first sign of an unreachable server or bad credentials.
    if (err instanceof ClusterError && (err.kind === 'unreachable' || err.kind === 'tls' || err.kind === 'unauthorized' || err.kind === 'timeout')) throw err;
    return undefined;
  }))?.gitVersion;
}

interface List<T> {
  metadata?: { resourceVersion?: string; continue?: string };
  items?: T[];
}

const ROLE_HINT = 'see "Permissions" in the README (docs/rbac.md) for the minimal Role';

/** The one line a 403 turns into: verb, resource, namespace, the API server's own words, and the fix. */
export function forbiddenLine(verb: string, resource: string, namespace: string | undefined, err: ClusterError): string {
  const detail = err.message.split('\n')[0];
  return `forbidden: cannot ${verb} ${resource}${namespace ? ` in namespace ${namespace}` : ''} (${detail}); ${ROLE_HINT}`;
}

/** Rewrites a 403 into the forbiddenLine; other errors pass through. */
function explainForbidden(err: unknown, verb: string, resource: string, ns?: string): unknown {
  if (err instanceof ClusterError && err.kind === 'forbidden') return new ClusterError('forbidden', forbiddenLine(verb, resource, ns, err), err.status, err.body);
  return err;
}

export async function get<T>(o: Omit<SnapshotOptions, 'target'>, path: string, verb: string, resource: string, ns?: string): Promise<T> {
  try {
    return await getJSON<T>(o.access.kc, path, { timeoutMs: o.requestTimeoutMs, signal: o.signal });
  } catch (err) {
    throw explainForbidden(err, verb, resource, ns);
  }
}

/**
 * LIST with `limit`/`continue` paging, as kubectl does; items get `kind`/`apiVersion` stamped
 * (api-client has checked the list's kind and any item's own). A server that hands out a
 * continue token it gave before would page for ever: a ClusterError.
 */
export async function listAll<T extends object>(o: Omit<SnapshotOptions, 'target'>, path: string, resource: string, kind: string, apiVersion: string, query: Record<string, string> = {}, clusterScoped = false): Promise<T[]> {
  const out: T[] = [];
  let cont = '';
  const seen = new Set<string>();
  const ns = clusterScoped ? undefined : o.access.namespace;
  for (let page = 0; page < 10_000; page++) {
    const q = new URLSearchParams({ ...query, limit: String(o.pageSize ?? 500) });
    if (cont) q.set('continue', cont);
    const body = await get<List<T>>(o, `${path}?${q.toString()}`, 'list', resource, ns);
    for (const it of body.items ?? []) out.push({ apiVersion, kind, ...it });
    cont = typeof body.metadata?.continue === 'string' ? body.metadata.continue : '';
    if (!cont) break;
    if (seen.has(cont)) throw new ClusterError('response', `list ${resource}${ns ? ` in namespace ${ns}` : ''}: the API server repeated a continue token, so paging would never end`);
    seen.add(cont);
  }
  return out;
}

/** An optional read: a 403 (or 404 for single objects) is recorded instead of failing the snapshot. */
export async function optional<T>(snap: { unavailable: UnavailableRead[] }, verb: string, resource: string, ns: string | undefined, fn: () => Promise<T>): Promise<T | undefined> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof ClusterError && err.kind === 'forbidden') {
      snap.unavailable.push({ verb, resource, namespace: ns, message: err.message });
      return undefined;
    }
    throw err;
  }
}

function notFoundMessage(kind: string, ns: string, name: string, hint = ''): ClusterError {
  return new ClusterError('not-found', `${kind} ${ns}/${name} not found${hint}`);
}

/** The target's name must be a valid object name (InvalidNameError, a usage error, before any request). */
function checkTarget(target: SnapshotTarget): void {
  checkObjectName(target.name, target.kind === 'rs' ? 'ReplicaSet' : target.kind === 'rc' ? 'ReplicationController' : 'Deployment');
}

/** Reads the target ReplicaSet(s). Throws ClusterError not-found (with a Deployment hint) or forbidden. */
export async function readTargets(o: SnapshotOptions): Promise<{ deployment?: Deployment; replicaSets: ReplicaSet[] }> {
  const ns = o.access.namespace;
  const { target } = o;
  checkTarget(target);
  if (target.kind === 'rc') {
    try {
      const rc = await get<ReplicationController>(o, resourcePath({ version: 'v1', namespace: ns, resource: 'replicationcontrollers', name: target.name }), 'get', 'replicationcontrollers', ns);
      return { replicaSets: [replicaSetFromReplicationController(rc)] };
    } catch (err) {
      if (err instanceof ClusterError && err.kind === 'not-found') throw notFoundMessage('ReplicationController', ns, target.name);
      throw err;
    }
  }
  if (target.kind === 'rs') {
    try {
      const rs = await get<ReplicaSet>(o, resourcePath({ group: 'apps', version: 'v1', namespace: ns, resource: 'replicasets', name: target.name }), 'get', 'replicasets.apps', ns);
      return { replicaSets: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', ...rs }] };
    } catch (err) {
      if (!(err instanceof ClusterError) || err.kind !== 'not-found') throw err;
      let hint = '';
      try {
        await getJSON(o.access.kc, resourcePath({ group: 'apps', version: 'v1', namespace: ns, resource: 'deployments', name: target.name }), { timeoutMs: o.requestTimeoutMs, signal: o.signal });
        hint = `; a Deployment of that name exists: use deployment/${target.name}`;
      } catch {
        /* no hint */
      }
      throw notFoundMessage('ReplicaSet', ns, target.name, hint);
    }
  }
  let deployment: Deployment;
  try {
    deployment = await get<Deployment>(o, resourcePath({ group: 'apps', version: 'v1', namespace: ns, resource: 'deployments', name: target.name }), 'get', 'deployments.apps', ns);
  } catch (err) {
    if (err instanceof ClusterError && err.kind === 'not-found') throw notFoundMessage('Deployment', ns, target.name);
    throw err;
  }
  const all = await listAll<ReplicaSet>(o, resourcePath({ group: 'apps', version: 'v1', namespace: ns, resource: 'replicasets' }), 'replicasets.apps', 'ReplicaSet', 'apps/v1');
  const uid = deployment.metadata.uid;
  const replicaSets = all.filter((rs) => (rs.metadata.ownerReferences ?? []).some((r) => r.controller === true && r.uid === uid));
  replicaSets.sort((a, b) => (a.metadata.creationTimestamp ?? '').localeCompare(b.metadata.creationTimestamp ?? '') || (a.metadata.name ?? '').localeCompare(b.metadata.name ?? ''));
  return { deployment, replicaSets };
}

/** Takes the snapshot. Throws ClusterError for unreachable/TLS/401/403 on a required read/not found. */
export async function takeSnapshot(o: SnapshotOptions): Promise<LiveSnapshot> {
  checkTarget(o.target);
  const ns = o.access.namespace;
  const unavailable: UnavailableRead[] = [];
  let leaseNote: string | undefined;
  // The pod list is the big read (thousands of pods): started with /version, before the target read.
  const early = o.early ?? startEarlyReads(o);
  const startedAt = early.startedAt;
  const serverVersion = await serverVersionOf(early.version);
  const podsP = early.pods;
  const { deployment, replicaSets } = await readTargets(o);
  const names = new Set(replicaSets.map((r) => r.metadata.name ?? ''));
  const eventQuery: Record<string, string> = o.target.kind === 'rs' || o.target.kind === 'rc'
    ? { fieldSelector: `involvedObject.name=${o.target.name}` }
    : { fieldSelector: 'involvedObject.kind=ReplicaSet' };
  const [pods, rsEvents, depEvents, quotas, nsObj, kcmLease] = await Promise.all([
    podsP,
    listAll<CoreEvent>(o, resourcePath({ version: 'v1', namespace: ns, resource: 'events' }), 'events', 'Event', 'v1', eventQuery),
    o.target.kind === 'deployment'
      ? listAll<CoreEvent>(o, resourcePath({ version: 'v1', namespace: ns, resource: 'events' }), 'events', 'Event', 'v1', { fieldSelector: `involvedObject.kind=Deployment,involvedObject.name=${o.target.name}` })
      : Promise.resolve([] as CoreEvent[]),
    optional({ unavailable }, 'list', 'resourcequotas', ns, () => listAll<ResourceQuota>(o, resourcePath({ version: 'v1', namespace: ns, resource: 'resourcequotas' }), 'resourcequotas', 'ResourceQuota', 'v1')),
    optional({ unavailable }, 'get', 'namespaces', undefined, () => get<Namespace>(o, resourcePath({ version: 'v1', resource: 'namespaces', name: ns }), 'get', 'namespaces')),
    // The controller's leader election record: a restart or leader change resets expectations,
    // and a Lease nobody renews means no ReplicaSet controller runs. 404: no leader election.
    // Outside the ReplicaSet's namespace, so not in the minimal Role: a 403 is noted, not warned.
    (async (): Promise<Lease | undefined> => {
      try {
        return await get<Lease>(o, resourcePath({ group: 'coordination.k8s.io', version: 'v1', namespace: 'kube-system', resource: 'leases', name: 'kube-controller-manager' }), 'get', 'leases.coordination.k8s.io', 'kube-system');
      } catch (err) {
        if (err instanceof ClusterError && err.kind === 'not-found') return undefined;
        if (err instanceof ClusterError && err.kind === 'forbidden') {
          leaseNote = 'the kube-system/kube-controller-manager Lease is not readable (RBAC; optional, see docs/rbac.md): whether the controller runs, or restarted and reset its expectations, was not checked';
          return undefined;
        }
        throw err;
      }
    })(),
  ]);
  const ownerKind = o.target.kind === 'rc' ? 'ReplicationController' : 'ReplicaSet';
  const events = [...rsEvents.filter((e) => e.involvedObject?.kind === ownerKind && names.has(e.involvedObject.name ?? '')), ...depEvents];
  // The controlling owner of each ReplicaSet (a Deployment, when it is one).
  const owners = new Map<string, Deployment | { notFound: true }>();
  const ownerCache = new Map<string, Promise<Deployment | { notFound: true } | undefined>>();
  for (const rs of replicaSets) {
    const ref = (rs.metadata.ownerReferences ?? []).find((r) => r.controller === true);
    if (!ref || ref.kind !== 'Deployment') continue;
    if (dns1123SubdomainProblem(ref.name)) {
      throw new ClusterError('response', `ReplicaSet ${ns}/${rs.metadata.name ?? '?'} names its owner Deployment ${quoteValue(ref.name)}, which is not a valid object name`);
    }
    if (deployment && deployment.metadata.uid === ref.uid) {
      owners.set(rs.metadata.uid ?? '', deployment);
      continue;
    }
    let p = ownerCache.get(ref.name);
    if (!p) {
      p = optional({ unavailable }, 'get', 'deployments.apps', ns, async () => {
        try {
          return await get<Deployment>(o, resourcePath({ group: 'apps', version: 'v1', namespace: ns, resource: 'deployments', name: ref.name }), 'get', 'deployments.apps', ns);
        } catch (err) {
          if (err instanceof ClusterError && err.kind === 'not-found') return { notFound: true as const };
          throw err;
        }
      });
      ownerCache.set(ref.name, p);
    }
    const d = await p;
    if (d) owners.set(rs.metadata.uid ?? '', 'notFound' in d || d.metadata.uid === ref.uid ? d : { notFound: true });
  }
  // The same 403 may be recorded twice (one per ReplicaSet); keep one.
  const seen = new Set<string>();
  const uniq = unavailable.filter((u) => {
    const k = `${u.verb} ${u.resource} ${u.namespace ?? ''}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
  return {
    takenAt: o.now(),
    startedAt,
    server: o.access.server,
    context: o.access.context,
    namespace: ns,
    serverVersion,
    target: o.target,
    deployment,
    replicaSets,
    owners,
    pods,
    events,
    quotas,
    ns: nsObj ? { apiVersion: 'v1', kind: 'Namespace', ...nsObj } : undefined,
    ...(kcmLease ? { kcmLease } : {}),
    ...(leaseNote ? { leaseNote } : {}),
    unavailable: uniq,
    counts: { [o.target.kind === 'rc' ? 'replicationcontrollers' : 'replicasets']: replicaSets.length, pods: pods.length, events: events.length, resourcequotas: quotas?.length ?? 0, namespaces: nsObj ? 1 : 0 },
  };
}

/** Every pod of the namespace (paged). Throws ClusterError (403 names `list pods`). */
export async function listNamespacePods(o: SnapshotOptions): Promise<Pod[]> {
  return listAll<Pod>(o, resourcePath({ version: 'v1', namespace: o.access.namespace, resource: 'pods' }), 'pods', 'Pod', 'v1');
}

/** A fresh GET of the ReplicaSet for CanAdopt's RecheckDeletionTimestamp (`getFresh`). */
export async function getFreshReplicaSet(o: { access: ClusterAccess; requestTimeoutMs?: number; signal?: AbortSignal }, name: string): Promise<ReplicaSet | { notFound: true } | { error: string }> {
  checkObjectName(name, 'ReplicaSet');
  try {
    return await getJSON<ReplicaSet>(o.access.kc, resourcePath({ group: 'apps', version: 'v1', namespace: o.access.namespace, resource: 'replicasets', name }), { timeoutMs: o.requestTimeoutMs, signal: o.signal });
  } catch (err) {
    if (err instanceof ClusterError && err.kind === 'not-found') return { notFound: true };
    return { error: err instanceof Error ? err.message.split('\n')[0] : String(err) };
  }
}
