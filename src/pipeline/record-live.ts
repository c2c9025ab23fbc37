/**
 * `kexp record`'s engine room: check the recording file can be created, resolve the target
 * (live-target.ts: a ReplicaSet, a Deployment, an RC, a DaemonSet or a Job), start one Reflector
 * per watched resource (`watchesFor`: the owner kind, pods and Events in the namespace, the
 * namespace itself; for a DaemonSet every Node and the ControllerRevisions, optional: a 403 on
 * them is probed before the header, named in its `unavailable`, and the recording goes on) and
 * write everything they deliver into a kexp recording until the duration ends or the signal
 * aborts. Shared by the command, `kexp explain --watch` and
 * the e2e scenario runner.
 *
 * How a recording ends (the end line's reason, and RecordResult):
 * - `duration` / `interrupted`: the timer or the signal aborted every reflector; they release
 *   their connections and timers at once, so this returns promptly whatever the server sends;
 * - `error` with a ClusterError: a watch gave up (403, 401, a server that does not speak the
 *   API: a non-list LIST answer, an endless watch line), or the duration ended before every
 *   initial LIST completed (a recording without its starting state cannot be replayed);
 * - a RecordingFileError (disk full, I/O error): the run stops at the first failed write; no
 *   end line can be written, the descriptor is closed;
 * - a programming error (TypeError, …) is a bug: the file gets an `error` end line and the
 *   error is rethrown.
 * No file is created when the target cannot be resolved.
 */
import { getJSON } from '../sources/live/api-client.js';
import { ClusterError } from '../sources/live/cluster-error.js';
import type { ClusterAccess } from '../sources/live/kubeconfig.js';
import { ObjectPoller, Reflector, type ReflectorSink } from '../sources/live/reflector.js';
import { checkRecordingTarget, RecordingFileError, RecordingWriter, type RecordingCounts } from '../sources/live/recording-writer.js';
import type { RecordingHeader, RecordingUnavailable, RecordingUnwatched, RecordingWatch } from '../sources/watch/recording-format.js';
import { resourcePath } from '../sources/live/resource-paths.js';
import { KIND_NAMES, parseLiveTarget, type LiveTarget, type LiveTargetKind } from './live-target.js';
import { formatRecvTime } from '../sources/watch/recording-format.js';
import { KEXP_VERSION } from '../version.js';

/** What `kexp record` follows (live-target.ts): a ReplicaSet, a Deployment's, an RC, a DaemonSet or a Job. */
export type RecordTarget = LiveTarget;

/**
 * Parses one `TARGET` argument (`NAME`, `rs/NAME`, `deployment/NAME`, `rc/NAME`, `ds/NAME`,
 * `job/NAME`, …: live-target.ts). Throws Error on others.
 */
export function parseTarget(s: string): RecordTarget {
  return parseLiveTarget([s]);
}

/** The API collection of each target kind (its group, version and plural resource). */
const TARGET_RESOURCES: Readonly<Record<LiveTargetKind, { group?: string; version: string; resource: string; apiResource: string }>> = {
  rs: { group: 'apps', version: 'v1', resource: 'replicasets', apiResource: 'replicasets.apps' },
  deployment: { group: 'apps', version: 'v1', resource: 'deployments', apiResource: 'deployments.apps' },
  rc: { version: 'v1', resource: 'replicationcontrollers', apiResource: 'replicationcontrollers' },
  ds: { group: 'apps', version: 'v1', resource: 'daemonsets', apiResource: 'daemonsets.apps' },
  job: { group: 'batch', version: 'v1', resource: 'jobs', apiResource: 'jobs.batch' },
};

/** One watch of a recording: the header entry, its API path and kind, and how it is run. */
export interface TargetWatch extends RecordingWatch {
  path: string;
  kind: string;
  apiVersion: string;
  /** The owner kind's watch: listed after every other watch has synced (as the controller's caches are before its workers run). */
  owner?: boolean;
  /** A 403 on it is written into the header's `unavailable` and the recording goes on without it. */
  optional?: boolean;
}

/**
 * The watches a target's controller needs, as its informers have them: the owner kind of the
 * namespace (a Deployment's ReplicaSets are ReplicaSets), its pods, the Events, the namespace;
 * for a DaemonSet also every Node (cluster-scoped: the DaemonSet controller's node informer,
 * nodeShouldRunDaemonPod decides placement from them) and the namespace's ControllerRevisions
 * (its revision history; kexp's replay reads none of them yet), both optional.
 */
export function watchesFor(target: RecordTarget, ns: string): TargetWatch[] {
  const owner: TargetWatch = target.kind === 'rc'
    ? { resource: 'replicationcontrollers', namespace: ns, path: resourcePath({ version: 'v1', namespace: ns, resource: 'replicationcontrollers' }), kind: 'ReplicationController', apiVersion: 'v1', owner: true }
    : target.kind === 'ds'
      ? { resource: 'daemonsets', namespace: ns, path: resourcePath({ group: 'apps', version: 'v1', namespace: ns, resource: 'daemonsets' }), kind: 'DaemonSet', apiVersion: 'apps/v1', owner: true }
      : target.kind === 'job'
        ? { resource: 'jobs', namespace: ns, path: resourcePath({ group: 'batch', version: 'v1', namespace: ns, resource: 'jobs' }), kind: 'Job', apiVersion: 'batch/v1', owner: true }
        : { resource: 'replicasets', namespace: ns, path: resourcePath({ group: 'apps', version: 'v1', namespace: ns, resource: 'replicasets' }), kind: 'ReplicaSet', apiVersion: 'apps/v1', owner: true };
  const out: TargetWatch[] = [owner];
  if (target.kind === 'ds') {
    out.push({ resource: 'controllerrevisions', namespace: ns, path: resourcePath({ group: 'apps', version: 'v1', namespace: ns, resource: 'controllerrevisions' }), kind: 'ControllerRevision', apiVersion: 'apps/v1', optional: true });
  }
  out.push(
    { resource: 'pods', namespace: ns, path: resourcePath({ version: 'v1', namespace: ns, resource: 'pods' }), kind: 'Pod', apiVersion: 'v1' },
    { resource: 'events', namespace: ns, path: resourcePath({ version: 'v1', namespace: ns, resource: 'events' }), kind: 'Event', apiVersion: 'v1' },
  );
  if (target.kind === 'ds') out.push({ resource: 'nodes', path: resourcePath({ version: 'v1', resource: 'nodes' }), kind: 'Node', apiVersion: 'v1', optional: true });
  out.push({ resource: 'namespaces', name: ns, fieldSelector: `metadata.name=${ns}`, path: '/api/v1/namespaces', kind: 'Namespace', apiVersion: 'v1' });
  return out;
}

/** The header field naming the target (its name says the kind: docs/recording-format.md). */
function targetField(t: RecordTarget): Partial<RecordingHeader> {
  switch (t.kind) {
    case 'rs': return { replicaSet: t.name };
    case 'deployment': return { deployment: t.name };
    case 'rc': return { replicationController: t.name };
    case 'ds': return { daemonSet: t.name };
    case 'job': return { job: t.name };
  }
}

/** What a replay loses without an optional watch (the warning's and the header's words). */
function withoutIt(resource: string): string {
  return resource === 'nodes'
    ? 'recording without Nodes: the DaemonSet\'s node placement will be unknown to the replay'
    : `recording without ${resource}`;
}

/** Turns a 403 on a watched resource into the one line the README's Role fixes. */
export function forbiddenMessage(verb: string, resource: string, namespace: string | undefined, err: ClusterError): string {
  return `forbidden: cannot ${verb} ${resource}${namespace ? ` in namespace ${namespace}` : ''} (${err.message.split('\n')[0]}); see "Permissions" in the README (docs/rbac.md) for the minimal Role`;
}

export interface RecordOptions {
  access: ClusterAccess;
  target: RecordTarget;
  file: string;
  redact: boolean;
  signal: AbortSignal;
  durationMs?: number;
  now: () => number;
  requestTimeoutMs?: number;
  onProgress?: (c: RecordingCounts) => void;
  onWarning?: (m: string) => void;
  /** Record even if the target does not exist yet (it may be created while recording). Default false. */
  allowMissingTarget?: boolean;
  /** Called once every watch has delivered its initial list. */
  onSynced?: () => void;
  /** Replace an existing regular file at `file` (never a symlink). Default false: an existing file is refused. */
  overwrite?: boolean;
}

export interface RecordResult {
  counts: RecordingCounts;
  endReason: 'duration' | 'interrupted' | 'error';
  /** Watches that never worked (Reflector.neverWorked), as the end line carries them. */
  unwatched?: RecordingUnwatched[];
  error?: ClusterError | RecordingFileError;
}

/** Checks the target exists; returns the server version. Throws ClusterError (or the abort error when `signal` aborts). */
export async function resolveTarget(access: ClusterAccess, target: RecordTarget, timeoutMs?: number, signal?: AbortSignal): Promise<string | undefined> {
  const ns = access.namespace;
  const r = TARGET_RESOURCES[target.kind];
  try {
    await getJSON(access.kc, resourcePath({ ...r, namespace: ns, name: target.name }), { timeoutMs, signal });
  } catch (err) {
    if (err instanceof ClusterError && err.kind === 'not-found') {
      let hint = '';
      if (target.kind === 'rs') {
        try {
          await getJSON(access.kc, `/apis/apps/v1/namespaces/${ns}/deployments/${target.name}`, { timeoutMs, signal });
          hint = `; a Deployment of that name exists: use deployment/${target.name}`;
        } catch {
          /* no hint */
        }
      }
      throw new ClusterError('not-found', `${KIND_NAMES[target.kind]} ${ns}/${target.name} not found${hint}`);
    }
    if (err instanceof ClusterError && err.kind === 'forbidden') {
      throw new ClusterError('forbidden', forbiddenMessage('get', r.apiResource, ns, err));
    }
    throw err;
  }
  try {
    const v = await getJSON<{ gitVersion?: unknown }>(access.kc, '/version', { timeoutMs, signal });
    return typeof v?.gitVersion === 'string' ? v.gitVersion : undefined;
  } catch {
    return undefined;
  }
}

/** Records until the duration ends or `signal` aborts. Throws RecordingFileError (file refused) or ClusterError (target) before anything is written. */
export async function recordLive(o: RecordOptions): Promise<RecordResult> {
  const ns = o.access.namespace;
  checkRecordingTarget(o.file, o.overwrite ?? false);
  let serverVersion: string | undefined;
  try {
    serverVersion = await resolveTarget(o.access, o.target, o.requestTimeoutMs, o.signal);
  } catch (err) {
    if (!(o.allowMissingTarget && err instanceof ClusterError && err.kind === 'not-found')) throw err;
    const v = await getJSON<{ gitVersion?: unknown }>(o.access.kc, '/version', { timeoutMs: o.requestTimeoutMs, signal: o.signal }).catch(() => undefined);
    serverVersion = typeof v?.gitVersion === 'string' ? v.gitVersion : undefined;
  }
  // An optional watch the credential may not list (Nodes are cluster-scoped: a namespaced Role
  // cannot grant them) is probed before the header is written, so the header can say so.
  const unavailable: RecordingUnavailable[] = [];
  const watches: TargetWatch[] = [];
  for (const w of watchesFor(o.target, ns)) {
    if (w.optional) {
      try {
        await getJSON(o.access.kc, `${w.path}?limit=1`, { timeoutMs: o.requestTimeoutMs, signal: o.signal });
      } catch (err) {
        if (!(err instanceof ClusterError && err.kind === 'forbidden')) throw err;
        const message = forbiddenMessage('list', w.resource, w.namespace, err);
        unavailable.push({ resource: w.resource, verb: 'list', message });
        o.onWarning?.(`${message}; ${withoutIt(w.resource)}`);
        continue;
      }
    }
    watches.push(w);
  }
  let pendingSync = watches.length;
  const writer = new RecordingWriter(o.file, {
    kexpVersion: KEXP_VERSION,
    serverVersion,
    namespace: ns,
    ...targetField(o.target),
    startedAt: formatRecvTime(o.now()),
    watches: watches.map(({ resource, namespace, name, fieldSelector }) => ({ resource, ...(namespace ? { namespace } : {}), ...(name ? { name } : {}), ...(fieldSelector ? { fieldSelector } : {}) })),
    ...(unavailable.length ? { unavailable } : {}),
    redacted: o.redact,
  }, o.redact, o.overwrite ?? false);
  const inner = new AbortController();
  const onAbort = () => inner.abort();
  o.signal.addEventListener('abort', onAbort, { once: true });
  let timer: NodeJS.Timeout | undefined;
  if (o.durationMs) timer = setTimeout(() => inner.abort(), o.durationMs);
  let fatal: ClusterError | undefined;
  let writeError: RecordingFileError | undefined;
  let bug: unknown;
  const unsynced = new Set(watches.map((w) => w.resource));
  // The owners' initial list (ReplicaSets, RCs, DaemonSets or Jobs) is written after the others'
  // (namespace, Events, pods, Nodes), the way kube-controller-manager's informer caches are all
  // synced before its workers run: a replay then syncs each existing owner with its pods, nodes
  // and namespace already known, instead of predicting a bogus creation round for pods that are
  // merely listed later.
  let othersSynced!: () => void;
  const othersReady = new Promise<void>((resolve) => (othersSynced = resolve));
  inner.signal.addEventListener('abort', () => othersSynced(), { once: true });
  let pendingOthers = watches.length - 1;
  const reflectors: Array<{ resource: string; reflector: Reflector }> = [];
  const runs = watches.map(async (w) => {
    if (w.owner) {
      await othersReady;
      if (inner.signal.aborted) return;
    }
    const sink: ReflectorSink = {
      event: (type, obj, at, synthetic) => {
        writer.event(w.resource, type, obj, at, synthetic);
        o.onProgress?.(writer.counts);
      },
      synced: () => {
        unsynced.delete(w.resource);
        if (!w.owner && --pendingOthers === 0) othersSynced();
        if (--pendingSync === 0) o.onSynced?.();
      },
      gap: (reason, detail, at) => {
        writer.gap(w.resource, reason, detail, at);
        o.onWarning?.(`${w.resource}: ${reason} (${detail})`);
      },
      // Nothing is lost once a retry from the last resourceVersion works; one that never works is said at the end (unwatched).
      reconnect: (detail) => o.onWarning?.(`${w.resource}: watch reconnect (${detail}); retrying from the last resourceVersion`),
    };
    const reflector = new Reflector({
      kc: o.access.kc, path: w.path, kind: w.kind, apiVersion: w.apiVersion, fieldSelector: w.fieldSelector,
      signal: inner.signal, now: o.now, requestTimeoutMs: o.requestTimeoutMs, sink,
    });
    reflectors.push({ resource: w.resource, reflector });
    let started = false;
    const run = w.resource !== 'namespaces'
      ? reflector.run()
      : reflector.run().catch((err: unknown) => {
        // A namespaced Role can grant `get` on its own Namespace but never list/watch of the
        // cluster-scoped collection: poll the object instead (docs/rbac.md).
        if (started || !(err instanceof ClusterError && err.kind === 'forbidden')) throw err;
        o.onWarning?.(`cannot list/watch namespaces at cluster scope; polling namespace ${ns} every 2 s instead (its changes are seen up to 2 s late)`);
        return new ObjectPoller({ kc: o.access.kc, path: `/api/v1/namespaces/${ns}`, kind: 'Namespace', apiVersion: 'v1', signal: inner.signal, now: o.now, requestTimeoutMs: o.requestTimeoutMs, sink }).run();
      });
    const origSynced = sink.synced;
    sink.synced = () => {
      started = true;
      origSynced?.();
    };
    return run.catch((err: unknown) => {
      if (err instanceof RecordingFileError) {
        writeError ??= err;
        inner.abort();
        return;
      }
      if (inner.signal.aborted) return;
      // A programming error is a bug (exit 1, never passed off as a cluster problem); any other
      // failure of a request (e.g. the credential plugin) is a cluster problem, as before.
      if (err instanceof TypeError || err instanceof ReferenceError || err instanceof RangeError) {
        bug ??= err;
        inner.abort();
        return;
      }
      const ce = err instanceof ClusterError ? err : new ClusterError('http', String((err as Error)?.message ?? err).split('\n')[0]!);
      // The API server's 403 message names the verb ("cannot list resource …"); a refused WATCH is reported as "cannot watch resource …".
      const verb = /cannot (\w+) resource/.exec(ce.message)?.[1] ?? 'list/watch';
      if (w.optional && ce.kind === 'forbidden') {
        // Allowed to list (the probe) but not to watch, or RBAC changed meanwhile: what was
        // recorded of it stays; the rest of the recording goes on without it.
        o.onWarning?.(`${forbiddenMessage(verb, w.resource, w.namespace, ce)}; ${withoutIt(w.resource)} from ${formatRecvTime(o.now())} on`);
        if (unsynced.delete(w.resource)) {
          if (--pendingOthers === 0) othersSynced();
          if (--pendingSync === 0) o.onSynced?.();
        }
        return;
      }
      fatal ??= ce.kind === 'forbidden' ? new ClusterError('forbidden', forbiddenMessage(verb, w.resource, w.namespace, ce)) : ce;
      inner.abort();
    });
  });
  await Promise.all(runs);
  if (timer) clearTimeout(timer);
  o.signal.removeEventListener('abort', onAbort);
  let error: ClusterError | RecordingFileError | undefined = writeError ?? fatal;
  let endReason: RecordResult['endReason'] = error || bug ? 'error' : o.signal.aborted ? 'interrupted' : 'duration';
  if (endReason === 'duration' && unsynced.size > 0) {
    error = new ClusterError('timeout', `the recording time ended before the initial list of ${[...unsynced].join(', ')} in namespace ${ns} completed: nothing replayable was recorded`);
    endReason = 'error';
  }
  const unwatched: RecordingUnwatched[] = [];
  for (const { resource, reflector } of reflectors) {
    const never = reflector.neverWorked();
    if (never) unwatched.push({ resource, attempts: never.attempts, since: formatRecvTime(never.since), detail: never.detail.split('\n')[0]!.slice(0, 300) });
  }
  try {
    writer.close(endReason, o.now(), bug ? `kexp bug: ${String((bug as Error)?.message ?? bug).split('\n')[0]}` : error?.message, unwatched);
  } catch (err) {
    if (!(err instanceof RecordingFileError)) throw err;
    error ??= err;
  }
  if (bug) throw bug;
  return { counts: writer.counts, endReason, error, ...(unwatched.length ? { unwatched } : {}) };
}
