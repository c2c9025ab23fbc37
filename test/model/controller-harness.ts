/**
 * Test harness for the ReplicaSet-controller model (src/model/replicaset/replicaset-controller.ts).
 *
 * - `ObjectFactory` builds realistic wire-shaped Pods and ReplicaSets: deterministic UIDs,
 *   monotonically increasing resourceVersions, RFC 3339 whole-second timestamps, ownerReferences
 *   exactly as RealPodControl / the adopt patch write them, labels, nodeName, phases and Ready
 *   conditions. `update()` clones an object, applies a change and bumps its resourceVersion, the
 *   way the API server answers a write.
 * - `ScriptedPodControl` implements `PodControl`: every answer the model asks for (create, delete,
 *   the live GET behind CanAdopt, adopt/release patches, the v1.36 consistency check) is scripted
 *   by the test, and every call is recorded and counted. A successful create also builds the Pod
 *   the API server would have returned (`created`), which the test may later deliver as an ADD.
 * - `Clock` is a manual clock in epoch ms.
 * - `newHarness()` wires a controller with all of the above and records its syncs and handler
 *   records.
 *
 * Conventions: namespace "d", RS "foo", key "d/foo" (as in controller-semantics.md §11), or the
 * Deployment-owned "shop/web-7d9c6b8f5d".
 */
import type { OwnerReference, Pod, PodCondition, ReplicaSet } from '../../src/model/objects.js';
import { objectKey } from '../../src/model/objects.js';
import { ReplicaSetController, type HandlerRecord } from '../../src/model/replicaset/replicaset-controller.js';
import type { CreateResult, DeleteResult, PodControl } from '../../src/model/controller/pod-control.js';
import type { SyncRecord } from '../../src/model/controller/sync-record.js';
import type { ExpectationsLogKind, ExpectationsLogLine } from '../../src/model/expectations.js';
import { DEFAULT_K8S_VERSION, parseK8sVersion } from '../../src/model/version.js';

export const MS = 1;
export const SEC = 1000;
export const MIN = 60 * SEC;
export const HOUR = 60 * MIN;
/** controller-semantics.md §1.2: ExpectationsTimeout, used unscaled by the tests that need it. */
export const FIVE_MIN = 5 * MIN;

/** A whole second, like the apiserver's metadata timestamps. */
export const T0 = Date.parse('2025-03-10T09:00:00Z');

/** RFC 3339 as object metadata carries it (whole seconds when the instant is whole). */
export function iso(ms: number): string {
  return new Date(ms).toISOString().replace('.000Z', 'Z');
}

// ───────────────────────────── clock ─────────────────────────────

export class Clock {
  now: number;
  constructor(readonly start: number = T0) {
    this.now = start;
  }
  /** Moves the clock forward and returns the new time. */
  advance(ms: number): number {
    this.now += ms;
    return this.now;
  }
  /** Sets the clock to start + offset and returns it. */
  set(offsetMs: number): number {
    this.now = this.start + offsetMs;
    return this.now;
  }
  /** start + offset, without moving the clock. */
  at(offsetMs: number): number {
    return this.start + offsetMs;
  }
}

// ───────────────────────────── objects ─────────────────────────────

export interface RSOptions {
  name?: string;
  namespace?: string;
  uid?: string;
  /** `null` leaves spec.replicas unset (defaults to 1). */
  replicas?: number | null;
  /** Selector matchLabels and template labels. Default `{app: <name>}`. */
  labels?: Record<string, string>;
  minReadySeconds?: number;
  /** The RS's own controller (a Deployment); absent = standalone RS. */
  owner?: OwnerReference;
  /** deletionTimestamp (epoch ms). */
  deletingAt?: number;
  createdAt?: number;
}

export interface PodOptions {
  /** Owner (controllerRef) and default labels/namespace come from this RS. */
  rs?: ReplicaSet;
  name?: string;
  namespace?: string;
  uid?: string;
  labels?: Record<string, string>;
  /** Overrides the owner: `null` = orphan, an OwnerReference = any controller. */
  owner?: OwnerReference | null;
  phase?: 'Pending' | 'Running' | 'Succeeded' | 'Failed' | 'Unknown';
  /** Ready condition True; default: phase Running. */
  ready?: boolean;
  /** Ready lastTransitionTime (epoch ms); default createdAt + 5 s. */
  readyAt?: number;
  /** spec.nodeName; `null` = unscheduled. Default "node-a" unless phase Pending (then unscheduled). */
  nodeName?: string | null;
  createdAt?: number;
  /** deletionTimestamp (epoch ms); a terminating pod. */
  deletingAt?: number;
  restarts?: number;
}

/** The ownerReference RealPodControl / the adopt patch write. */
export function controllerRefTo(rs: ReplicaSet): OwnerReference {
  return {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    name: rs.metadata.name!,
    uid: rs.metadata.uid!,
    controller: true,
    blockOwnerDeletion: true,
  };
}

export function deploymentRef(name: string, uid: string): OwnerReference {
  return { apiVersion: 'apps/v1', kind: 'Deployment', name, uid, controller: true, blockOwnerDeletion: true };
}

export class ObjectFactory {
  private rv = 4100;
  private uidSeq = 0;
  private nameSeq = 0;

  nextRV(): string {
    this.rv += 1;
    return String(this.rv);
  }

  /** A deterministic RFC 4122-shaped UID. */
  uid(): string {
    this.uidSeq += 1;
    const n = this.uidSeq.toString(16).padStart(12, '0');
    return `5f1c2a9e-7b3d-4e21-9a6c-${n}`;
  }

  /** A generateName suffix like the apiserver's (5 chars, [b-df-hj-np-tv-z2-9]). */
  suffix(): string {
    const alphabet = 'bcdfghjklmnpqrstvwxz2456789';
    let n = this.nameSeq++ * 7919 + 104729;
    let s = '';
    for (let i = 0; i < 5; i++) {
      s += alphabet[n % alphabet.length];
      n = Math.floor(n / alphabet.length);
    }
    return s;
  }

  replicaSet(o: RSOptions = {}): ReplicaSet {
    const name = o.name ?? 'foo';
    const labels = o.labels ?? { app: name };
    const rs: ReplicaSet = {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: {
        name,
        namespace: o.namespace ?? 'd',
        uid: o.uid ?? this.uid(),
        resourceVersion: this.nextRV(),
        generation: 1,
        creationTimestamp: iso(o.createdAt ?? T0 - HOUR),
        labels: { ...labels },
        ...(o.owner ? { ownerReferences: [o.owner] } : {}),
        ...(o.deletingAt !== undefined ? { deletionTimestamp: iso(o.deletingAt), finalizers: ['foregroundDeletion'] } : {}),
      },
      spec: {
        ...(o.replicas === null ? {} : { replicas: o.replicas ?? 1 }),
        ...(o.minReadySeconds !== undefined ? { minReadySeconds: o.minReadySeconds } : {}),
        selector: { matchLabels: { ...labels } },
        template: {
          metadata: { labels: { ...labels } },
          spec: { containers: [{ name: 'app', image: 'registry.example.com/app:1.4.2' }] },
        },
      },
      status: { replicas: 0, observedGeneration: 1 },
    };
    return rs;
  }

  /** The Deployment-owned RS "shop/web-7d9c6b8f5d". */
  webReplicaSet(o: Omit<RSOptions, 'name' | 'namespace' | 'labels' | 'owner'> = {}): ReplicaSet {
    return this.replicaSet({
      ...o,
      name: 'web-7d9c6b8f5d',
      namespace: 'shop',
      labels: { app: 'web', 'pod-template-hash': '7d9c6b8f5d' },
      owner: deploymentRef('web', '0d3e8a41-62b5-4c0f-8e7a-3b9d1f2c6a55'),
    });
  }

  pod(o: PodOptions = {}): Pod {
    const rs = o.rs;
    const phase = o.phase ?? 'Running';
    const ready = o.ready ?? phase === 'Running';
    const createdAt = o.createdAt ?? T0 - 10 * MIN;
    const readyAt = o.readyAt ?? createdAt + 5 * SEC;
    const nodeName = o.nodeName !== undefined ? o.nodeName : phase === 'Pending' ? null : 'node-a';
    const owner = o.owner !== undefined ? o.owner : rs ? controllerRefTo(rs) : null;
    const labels = o.labels ?? (rs ? { ...(rs.spec?.selector?.matchLabels ?? {}) } : { app: 'foo' });
    const conditions: PodCondition[] = [
      { type: 'PodScheduled', status: nodeName ? 'True' : 'False', lastTransitionTime: iso(createdAt) },
    ];
    if (nodeName) {
      conditions.push({ type: 'Ready', status: ready ? 'True' : 'False', lastTransitionTime: iso(ready ? readyAt : createdAt) });
      conditions.push({ type: 'ContainersReady', status: ready ? 'True' : 'False', lastTransitionTime: iso(ready ? readyAt : createdAt) });
    }
    return {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: o.name ?? `${rs?.metadata.name ?? 'pod'}-${this.suffix()}`,
        ...(rs && !o.name ? { generateName: `${rs.metadata.name}-` } : {}),
        namespace: o.namespace ?? rs?.metadata.namespace ?? 'd',
        uid: o.uid ?? this.uid(),
        resourceVersion: this.nextRV(),
        creationTimestamp: iso(createdAt),
        labels,
        ...(owner ? { ownerReferences: [owner] } : {}),
        ...(o.deletingAt !== undefined ? { deletionTimestamp: iso(o.deletingAt), deletionGracePeriodSeconds: 30 } : {}),
      },
      spec: {
        nodeName,
        containers: [{ name: 'app' }],
      },
      status: {
        phase,
        conditions,
        containerStatuses: [{ name: 'app', ready: ready && !!nodeName, restartCount: o.restarts ?? 0 }],
      },
    };
  }

  /** A deep copy with `mutate` applied and a new resourceVersion (an API write). */
  update<T extends Pod | ReplicaSet>(obj: T, mutate: (draft: T) => void = () => {}): T {
    const copy = structuredClone(obj);
    mutate(copy);
    copy.metadata.resourceVersion = this.nextRV();
    return copy;
  }

  /** Same object, same resourceVersion (an informer resync). */
  resync<T extends Pod | ReplicaSet>(obj: T): T {
    return structuredClone(obj);
  }
}

/** Mutators for `ObjectFactory.update`. */
export const mut = {
  replicas: (n: number) => (rs: ReplicaSet) => {
    rs.spec!.replicas = n;
    rs.metadata.generation = (rs.metadata.generation ?? 1) + 1;
  },
  terminating: (at: number) => (p: Pod | ReplicaSet) => {
    p.metadata.deletionTimestamp = iso(at);
    if ((p as Pod).kind === 'Pod') p.metadata.deletionGracePeriodSeconds = 30;
  },
  ready: (at: number) => (p: Pod) => {
    const conds = (p.status!.conditions ??= []);
    for (const t of ['Ready', 'ContainersReady']) {
      const c = conds.find((x) => x.type === t);
      if (c) {
        c.status = 'True';
        c.lastTransitionTime = iso(at);
      } else conds.push({ type: t, status: 'True', lastTransitionTime: iso(at) });
    }
    p.status!.phase = 'Running';
    if (!p.spec!.nodeName) p.spec!.nodeName = 'node-a';
  },
  running: (node = 'node-a') => (p: Pod) => {
    p.spec!.nodeName = node;
    p.status!.phase = 'Running';
  },
  orphan: () => (p: Pod) => {
    delete p.metadata.ownerReferences;
  },
  ownedBy: (rs: ReplicaSet) => (p: Pod) => {
    p.metadata.ownerReferences = [controllerRefTo(rs)];
  },
  labels: (labels: Record<string, string>) => (p: Pod) => {
    p.metadata.labels = { ...labels };
  },
  annotate: (k: string, v: string) => (o: Pod | ReplicaSet) => {
    o.metadata.annotations = { ...(o.metadata.annotations ?? {}), [k]: v };
  },
};

// ───────────────────────────── scripted PodControl ─────────────────────────────

export const ERR = {
  quota:
    'pods "foo-" is forbidden: exceeded quota: compute-resources, requested: pods=1, used: pods=5, limited: pods=5',
  namespaceTerminating: 'pods "foo-" is forbidden: unable to create new content in namespace d because it is being terminated',
  internal: 'Internal error occurred: etcdserver: request timed out',
  conflict: 'Operation cannot be fulfilled on pods "foo-bcdfg": the object has been modified; please apply your changes to the latest version and try again',
} as const;

export interface CreateCallRecord {
  no: number;
  rs: string;
  round: number;
  index: number;
  n: number;
  at: number;
  result: CreateResult;
}
export interface DeleteCallRecord {
  no: number;
  pod: string;
  uid?: string;
  round: number;
  at: number;
  result: DeleteResult;
}
export interface GetCallRecord {
  no: number;
  rs: string;
  at: number;
}
export interface PatchCallRecord {
  no: number;
  pod: string;
  action: 'adopt' | 'release';
  at: number;
}
export type PatchAnswer = 'ok' | 'notfound' | 'invalid' | { error: string };
export type GetAnswer = ReplicaSet | { notFound: true } | { error: string };

export class ScriptedPodControl implements PodControl<ReplicaSet> {
  readonly creates: CreateCallRecord[] = [];
  readonly deletes: DeleteCallRecord[] = [];
  readonly gets: GetCallRecord[] = [];
  readonly patches: PatchCallRecord[] = [];
  readonly consistencyChecks: Array<{ key: string; at: number; behind: boolean }> = [];
  /** The pods successful creates produced (not delivered to the controller). */
  readonly created: Pod[] = [];

  /** Answer for create call number `no` (1-based, counted over the whole test). */
  onCreate: (no: number, rs: ReplicaSet, call: { round: number; index: number; n: number; at: number }) => CreateResult = () => ({ ok: true });
  /** Answer for a delete call. */
  onDelete: (pod: Pod, no: number) => DeleteResult = () => ({ ok: true });
  /** Live GET behind CanAdopt; default: the cached RS itself (alive, same UID). */
  onGet: (cached: ReplicaSet, no: number) => GetAnswer = (rs) => rs;
  onPatch: (pod: Pod, action: 'adopt' | 'release', no: number) => PatchAnswer = () => 'ok';
  /** [1.36+] whether the informer is behind the controller's own writes. */
  onConsistency: (key: string, at: number) => boolean = () => false;

  constructor(private readonly factory: ObjectFactory) {}

  // ── scripting helpers ──
  /** Create calls 1…k (counted over the test) succeed, every later call fails with `error`. */
  createsSucceedUpTo(k: number, error: string = ERR.quota): this {
    this.onCreate = (no) => (no <= k ? { ok: true } : { ok: false, error });
    return this;
  }
  createsFail(error: string = ERR.quota): this {
    this.onCreate = () => ({ ok: false, error });
    return this;
  }
  createsSucceed(): this {
    this.onCreate = () => ({ ok: true });
    return this;
  }
  createsNamespaceTerminating(): this {
    this.onCreate = () => ({ ok: false, error: ERR.namespaceTerminating, namespaceTerminating: true });
    return this;
  }
  /** Per-pod-name delete answers; unlisted pods succeed. */
  deleteAnswers(byName: Record<string, DeleteResult>): this {
    this.onDelete = (pod) => byName[pod.metadata.name ?? ''] ?? { ok: true };
    return this;
  }
  /** The live GET returns this object (e.g. the RS with a deletionTimestamp). */
  liveGet(answer: GetAnswer): this {
    this.onGet = () => answer;
    return this;
  }
  patchesFail(error: string = ERR.conflict): this {
    this.onPatch = () => ({ error });
    return this;
  }
  informerBehind(fn: (key: string, at: number) => boolean): this {
    this.onConsistency = fn;
    return this;
  }

  // ── PodControl ──
  createPod(rs: ReplicaSet, call: { round: number; index: number; n: number; at: number }): CreateResult {
    const no = this.creates.length + 1;
    const result = this.onCreate(no, rs, call);
    this.creates.push({ no, rs: objectKey(rs.metadata), ...call, result });
    if (result.ok) {
      const pod = this.factory.pod({ rs, phase: 'Pending', ready: false, nodeName: null, createdAt: call.at });
      this.created.push(pod);
      return { ok: true, pod: pod.metadata.name };
    }
    return result;
  }

  deletePod(rs: ReplicaSet, pod: Pod, call: { round: number; at: number }): DeleteResult {
    const no = this.deletes.length + 1;
    const result = this.onDelete(pod, no);
    this.deletes.push({ no, pod: objectKey(pod.metadata), uid: pod.metadata.uid, ...call, result });
    return result;
  }

  getFreshOwner(rs: ReplicaSet, at: number): GetAnswer {
    const no = this.gets.length + 1;
    this.gets.push({ no, rs: objectKey(rs.metadata), at });
    return this.onGet(rs, no);
  }

  patchPod(pod: Pod, action: 'adopt' | 'release', at: number): PatchAnswer {
    const no = this.patches.length + 1;
    this.patches.push({ no, pod: objectKey(pod.metadata), action, at });
    return this.onPatch(pod, action, no);
  }

  informerBehindOwnWrites(rsKey: string, at: number): boolean {
    const behind = this.onConsistency(rsKey, at);
    this.consistencyChecks.push({ key: rsKey, at, behind });
    return behind;
  }

  // ── counters ──
  counts(): { creates: number; deletes: number; gets: number; patches: number } {
    return { creates: this.creates.length, deletes: this.deletes.length, gets: this.gets.length, patches: this.patches.length };
  }
  /** Pops the pods created so far (to deliver them as ADDs). */
  takeCreated(n = this.created.length): Pod[] {
    return this.created.splice(0, n);
  }
}

// ───────────────────────────── controller harness ─────────────────────────────

export interface Harness {
  c: ReplicaSetController;
  pc: ScriptedPodControl;
  f: ObjectFactory;
  clock: Clock;
  syncs: SyncRecord[];
  handlers: HandlerRecord[];
}

export interface HarnessOptions {
  version?: string;
  /** expectationsTimeoutMs (fake TTL); default: the real 5 min. */
  timeoutMs?: number;
  burst?: number;
  /** Abort (throw) after this many syncs: guards against a model that requeues forever. */
  maxSyncs?: number;
}

export function newHarness(o: HarnessOptions = {}): Harness {
  const f = new ObjectFactory();
  const pc = new ScriptedPodControl(f);
  const syncs: SyncRecord[] = [];
  const handlers: HandlerRecord[] = [];
  const max = o.maxSyncs ?? 10_000;
  const c = new ReplicaSetController({
    version: parseK8sVersion(o.version ?? DEFAULT_K8S_VERSION),
    podControl: pc,
    ...(o.timeoutMs !== undefined ? { expectationsTimeoutMs: o.timeoutMs } : {}),
    ...(o.burst !== undefined ? { burstReplicas: o.burst } : {}),
    onSync: (s) => {
      syncs.push(s);
      if (syncs.length > max) throw new Error(`more than ${max} syncs: the model keeps requeueing (last requeue ${JSON.stringify(s.requeue)} at +${s.at - T0} ms)`);
    },
    onHandler: (h) => handlers.push(h),
  });
  return { c, pc, f, clock: new Clock(), syncs, handlers };
}

/** Pops every queued key (earliest first) without syncing; returns them. */
export function drainQueue(c: ReplicaSetController): Array<{ key: string; at: number }> {
  const out: Array<{ key: string; at: number }> = [];
  for (let n = c.queue.next(Number.POSITIVE_INFINITY, true); n; n = c.queue.next(Number.POSITIVE_INFINITY, true)) out.push(n);
  return out;
}

/** `{add, del}` of the record, or undefined (∅). */
export function E(c: ReplicaSetController, key = 'd/foo'): { add: number; del: number } | undefined {
  const r = c.expectations.get(key);
  return r ? { add: r.add, del: r.del } : undefined;
}

/** Expectations log lines for a key, optionally only of some kinds and from index `from`. */
export function logOf(c: ReplicaSetController, key = 'd/foo', kinds?: ExpectationsLogKind[], from = 0): ExpectationsLogLine[] {
  return c.expectations.log.slice(from).filter((l) => l.key === key && (!kinds || kinds.includes(l.kind)));
}

/** The SatisfiedExpectations lines (exactly one per evaluated sync). */
export const SATISFIED_KINDS: ExpectationsLogKind[] = ['expectations-fulfilled', 'expectations-expired', 'still-waiting', 'never-recorded'];

/** Delivers `pods` as ADDED at `at`. */
export function addAll(c: ReplicaSetController, pods: Pod[], at: number): void {
  for (const p of pods) c.deliverPod('ADDED', p, at);
}

/** Runs the single sync due now (inclusive) and returns it; fails if not exactly one ran. */
export function syncNow(c: ReplicaSetController, at: number): SyncRecord {
  const ran = c.runDue(at, true);
  if (ran.length !== 1) throw new Error(`expected exactly one sync due at or before ${at - T0} ms, got ${ran.length}: ${ran.map((s) => `${s.key}@${s.at - T0}`).join(', ')}`);
  return ran[0]!;
}
