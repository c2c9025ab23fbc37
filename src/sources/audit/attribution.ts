/**
 * Who made an audit-logged request, and which ReplicaSet a pod write concerns.
 *
 * Actor (input-formats.md §1.4): the ReplicaSet controller is
 * - `system:serviceaccount:kube-system:replicaset-controller` (KCM with
 *   `--use-service-account-credentials=true`, kubeadm/most distros/GKE), or
 * - `system:kube-controller-manager` whose client-go user agent ends in `/replicaset-controller`
 *   (`--use-service-account-credentials=false`; only the UA suffix tells the controllers apart).
 * Other KCM clients (deployment, replication, daemon-set, job, garbage collector, the shared
 * informers that make the RS controller's watches), kubelets and the scheduler get their own
 * names so a timeline can say "kubelet node-3 deleted the pod", not just "someone".
 *
 * Owner of a pod write: a create names its controller in the body's ownerReferences
 * (requestObject, and responseObject at RequestResponse level); a delete does not, so the
 * owner comes from the pod's last state seen earlier in the same log (a bounded map filled
 * from request/response bodies) or from the delete's own responseObject. When neither is
 * available the owner is `unknown` — never guessed from the name prefix (§1.5: generated
 * names are cut to 58 characters of the RS name).
 */
import type { AuditRecord } from './record.js';
import type { ControllerComponent, OwnerBasis, WriteOwner as PodOwnership } from '../../timeline/event.js';

export type ActorName =
  | 'replicaset-controller'
  | 'replicationcontroller'
  | 'daemonset-controller'
  | 'job-controller'
  | 'deployment-controller'
  | 'statefulset-controller'
  | 'garbage-collector'
  | 'pod-garbage-collector'
  | 'namespace-controller'
  | 'shared-informers'
  | 'kube-controller-manager'
  | 'kubelet'
  | 'scheduler'
  | 'apiserver'
  | 'other';

export interface AuditActor {
  /**
   * The authenticated user (audit `user`): with `Impersonate-*` headers the real one, never the
   * user impersonated — a write made as the controller by someone else is that someone's.
   */
  username: string;
  /** The user a request impersonated (audit `impersonatedUser`), when it did. */
  impersonated?: string;
  userAgent?: string;
  /** The pod-owning controller whose client made the request (its service account or user-agent suffix), if any. */
  controller?: ControllerComponent;
  name: ActorName;
  /** KCM client name (`replicaset-controller`, `endpointslice-controller`, …) when known. */
  component?: string;
  /** Node name for kubelet requests (`system:node:<node>`). */
  node?: string;
  /** `authentication.kubernetes.io/credential-id` of the request (token JTI, certificate hash). */
  credential?: string;
}

const SA_PREFIX = 'system:serviceaccount:kube-system:';
const KCM_USER = 'system:kube-controller-manager';

/** KCM client names (service-account names / UA suffixes) with their own actor name. */
const KCM_CLIENTS: Record<string, ActorName> = {
  'replicaset-controller': 'replicaset-controller',
  'replication-controller': 'replicationcontroller',
  'daemon-set-controller': 'daemonset-controller',
  'job-controller': 'job-controller',
  'deployment-controller': 'deployment-controller',
  'statefulset-controller': 'statefulset-controller',
  'generic-garbage-collector': 'garbage-collector',
  'pod-garbage-collector': 'pod-garbage-collector',
  'namespace-controller': 'namespace-controller',
  'shared-informers': 'shared-informers',
};

/** KCM client names that are pod-owning controllers (timeline/event.ts ControllerComponent). */
const CONTROLLER_COMPONENTS: ReadonlySet<string> = new Set<ControllerComponent>(['replicaset-controller', 'replication-controller', 'daemon-set-controller', 'job-controller']);

/**
 * `kube-controller-manager/v1.31.2 (linux/amd64) kubernetes/5864a46/replicaset-controller` →
 * `replicaset-controller`; with SA credentials the suffix is the SA username, whose last
 * segment is returned.
 */
export function userAgentClient(ua: string | undefined): string | undefined {
  if (!ua) return undefined;
  const m = /\) kubernetes\/[0-9a-f]+\/(.+)$/.exec(ua);
  if (!m) return undefined;
  const suffix = m[1]!;
  return suffix.startsWith(SA_PREFIX) ? suffix.slice(SA_PREFIX.length) : suffix;
}

function kcmActor(component: string): ActorName {
  const known = KCM_CLIENTS[component];
  if (known) return known;
  return 'kube-controller-manager';
}

/** Names the client that made an audit-logged request. */
export function actorOf(ev: Pick<AuditRecord, 'user' | 'impersonatedUser' | 'userAgent'>): AuditActor {
  const username = ev.user.username;
  const actor: AuditActor = { username, name: 'other' };
  if (ev.userAgent !== undefined) actor.userAgent = ev.userAgent;
  if (ev.user.credential !== undefined) actor.credential = ev.user.credential;
  if (ev.impersonatedUser?.username) {
    // kube-controller-manager's clients never impersonate (controllerContext.NewClient builds a
    // client per service account, cmd/kube-controller-manager/app/controllermanager.go): a
    // request impersonating a controller is the real user's, out of the controller's rounds.
    actor.impersonated = ev.impersonatedUser.username;
    return actor;
  }
  if (username.startsWith(SA_PREFIX)) {
    const sa = username.slice(SA_PREFIX.length);
    // Only KCM's own service accounts are controllers; coredns, kube-proxy … stay `other`.
    if (KCM_CLIENTS[sa] || /(-controller|-garbage-collector|^horizontal-pod-autoscaler|^attachdetach|^persistent-volume-binder)$/.test(sa)) {
      actor.name = kcmActor(sa);
      actor.component = sa;
    }
  } else if (username === KCM_USER) {
    const client = userAgentClient(ev.userAgent);
    actor.name = client ? kcmActor(client) : 'kube-controller-manager';
    if (client) actor.component = client;
  } else if (username.startsWith('system:node:')) {
    actor.name = 'kubelet';
    actor.node = username.slice('system:node:'.length);
  } else if (username === 'system:kube-scheduler') {
    actor.name = 'scheduler';
  } else if (username === 'system:apiserver') {
    actor.name = 'apiserver';
  }
  if (actor.component !== undefined && CONTROLLER_COMPONENTS.has(actor.component)) actor.controller = actor.component as ControllerComponent;
  return actor;
}

// ---------------------------------------------------------------------------------------

/** Map with insertion-order eviction once `cap` entries are held (re-set refreshes an entry). */
export class BoundedMap<K, V> {
  private readonly m = new Map<K, V>();
  evicted = 0;
  constructor(readonly cap: number) {}
  get size(): number {
    return this.m.size;
  }
  get(k: K): V | undefined {
    return this.m.get(k);
  }
  has(k: K): boolean {
    return this.m.has(k);
  }
  set(k: K, v: V): void {
    if (this.m.has(k)) this.m.delete(k);
    this.m.set(k, v);
    if (this.m.size > this.cap) {
      const first = this.m.keys().next();
      if (!first.done) {
        this.m.delete(first.value);
        this.evicted++;
      }
    }
  }
  delete(k: K): boolean {
    return this.m.delete(k);
  }
  values(): IterableIterator<V> {
    return this.m.values();
  }
}

/** How a pod write's owner was determined. */
export type { OwnerBasis, WriteOwner as PodOwnership } from '../../timeline/event.js';

interface RefLike {
  kind?: unknown;
  name?: unknown;
  uid?: unknown;
  controller?: unknown;
  $patch?: unknown;
}

interface MetaLike {
  name?: unknown;
  uid?: unknown;
  ownerReferences?: unknown;
}

function metaOf(o: unknown): MetaLike | undefined {
  if (typeof o !== 'object' || o === null) return undefined;
  const m = (o as { metadata?: unknown }).metadata;
  return typeof m === 'object' && m !== null ? (m as MetaLike) : undefined;
}

function kindOf(o: unknown): string | undefined {
  if (typeof o !== 'object' || o === null) return undefined;
  const k = (o as { kind?: unknown }).kind;
  return typeof k === 'string' ? k : undefined;
}

/** The controller owner in a full object's metadata: owned, or none. */
function controllerOwner(meta: MetaLike, basis: OwnerBasis): PodOwnership {
  const refs = Array.isArray(meta.ownerReferences) ? (meta.ownerReferences as RefLike[]) : [];
  const c = refs.find((r) => r && r.controller === true);
  if (!c) return { state: 'none', basis };
  return { state: 'owned', kind: String(c.kind ?? ''), name: String(c.name ?? ''), uid: String(c.uid ?? ''), basis };
}

interface PodMemo {
  uid?: string;
  owner: PodOwnership;
}

/**
 * Remembers, per pod `namespace/name`, its uid and controller owner from every pod body seen,
 * and answers "which RS does this pod write concern". Bounded (insertion-order eviction).
 */
export class PodOwnerTracker {
  private readonly pods: BoundedMap<string, PodMemo>;

  constructor(cap = 200_000) {
    this.pods = new BoundedMap(cap);
  }

  get evicted(): number {
    return this.pods.evicted;
  }

  /**
   * Owner for one pod write and update of the memory. `success` = 2xx response. `name` is the
   * pod name when known (objectRef, GKE resourceName, or the create's responseObject).
   */
  observe(rec: AuditRecord, success: boolean, name: string | undefined): PodOwnership {
    const ns = rec.objectRef?.namespace ?? '';
    const key = name !== undefined ? `${ns}/${name}` : undefined;
    const resp = rec.responseObject;
    const req = rec.requestObject;
    const respMeta = success && kindOf(resp) !== 'Status' ? metaOf(resp) : undefined;

    // 1. The response is the pod after the write (RequestResponse level): authoritative.
    if (respMeta && (kindOf(resp) === 'Pod' || kindOf(resp) === undefined)) {
      const owner = controllerOwner(respMeta, 'response');
      if (key) this.remember(key, respMeta, owner);
      return owner;
    }
    const verb = rec.verb;
    // 2. Creates and updates send a full Pod body.
    const reqKind = kindOf(req);
    if ((verb === 'create' || verb === 'update') && (reqKind === 'Pod' || (reqKind === undefined && !rec.objectRef?.subresource))) {
      const reqMeta = metaOf(req);
      if (reqMeta) {
        const owner = controllerOwner(reqMeta, 'request');
        if (key && success) this.remember(key, reqMeta, owner);
        return owner;
      }
    }
    // 3. Adoption / release patches (input-formats.md §1.9).
    if (verb === 'patch') {
      const reqMeta = metaOf(req);
      const refs = reqMeta && Array.isArray(reqMeta.ownerReferences) ? (reqMeta.ownerReferences as RefLike[]) : undefined;
      if (refs) {
        const adopt = refs.find((r) => r && r.controller === true && r.$patch !== 'delete');
        if (adopt) {
          const owner: PodOwnership = {
            state: 'owned',
            kind: String(adopt.kind ?? ''),
            name: String(adopt.name ?? ''),
            uid: String(adopt.uid ?? ''),
            basis: 'patch',
          };
          if (key && success) this.remember(key, reqMeta!, owner);
          return owner;
        }
        const before = key ? this.pods.get(key) : undefined;
        const release = refs.find((r) => r && r.$patch === 'delete');
        if (release && before?.owner.state === 'owned' && before.owner.uid === release.uid) {
          // Released: the write concerns the old owner; afterwards the pod has none.
          if (key && success) this.pods.set(key, { ...before, owner: { state: 'none', basis: 'patch' } });
          return { ...before.owner, basis: 'earlier-state' };
        }
      }
    }
    // 4. Anything else (delete, status patch, Metadata level): what was seen earlier.
    if (!key) return { state: 'unknown' };
    const memo = this.pods.get(key);
    if (!memo) return { state: 'unknown' };
    const precondition = deletePreconditionUid(req);
    if (precondition !== undefined && memo.uid !== undefined && precondition !== memo.uid) return { state: 'unknown' };
    if (memo.owner.state === 'unknown') return memo.owner;
    return { ...memo.owner, basis: 'earlier-state' };
  }

  private remember(key: string, meta: MetaLike, owner: PodOwnership): void {
    const memo: PodMemo = { owner };
    if (typeof meta.uid === 'string') memo.uid = meta.uid;
    else {
      const before = this.pods.get(key);
      if (before?.uid) memo.uid = before.uid;
    }
    this.pods.set(key, memo);
  }
}

function deletePreconditionUid(req: unknown): string | undefined {
  if (kindOf(req) !== 'DeleteOptions') return undefined;
  const p = (req as { preconditions?: { uid?: unknown } }).preconditions;
  return typeof p?.uid === 'string' ? p.uid : undefined;
}
