/**
 * Writes kube-apiserver audit logs (the log backend's JSON lines, audit.k8s.io/v1 Events at
 * RequestResponse level, in the shape of examples/captures/<name>/audit.jsonl) of DaemonSet
 * scenarios: the DaemonSet controller's requests as the real kube-controller-manager makes them
 * (user `system:serviceaccount:kube-system:daemon-set-controller`, its client-go user agent),
 * kubelets' node registrations and status heartbeats (`system:node:<node>`, whose responses carry
 * the whole Node, status included), a person's DaemonSet create. Used by the DaemonSet audit
 * tests, not by the product.
 */
import type { CoreEvent, DaemonSet, Node, Pod } from '../../src/model/objects.js';

const DS_SA = 'system:serviceaccount:kube-system:daemon-set-controller';
const DS_UA = `kube-controller-manager/v1.37.2 (linux/amd64) kubernetes/$Format/${DS_SA}`;

type Actor = { user: Record<string, unknown>; userAgent: string };
const dsController: Actor = {
  user: { username: DS_SA, uid: '5b0d1f7e-daemon-set', groups: ['system:serviceaccounts', 'system:serviceaccounts:kube-system', 'system:authenticated'], extra: { 'authentication.kubernetes.io/credential-id': ['JTI=0c1f0d7e-ds'] } },
  userAgent: DS_UA,
};
const person: Actor = { user: { username: 'kexp-admin', groups: ['system:masters', 'system:authenticated'] }, userAgent: 'kubectl/v1.37.2 (linux/amd64) kubernetes/abc1234' };
const kubelet = (node: string): Actor => ({ user: { username: `system:node:${node}`, groups: ['system:nodes', 'system:authenticated'] }, userAgent: 'kubelet/v1.37.2 (linux/amd64) kubernetes/abc1234' });
const PODGC_SA = 'system:serviceaccount:kube-system:pod-garbage-collector';
const podGc: Actor = { user: { username: PODGC_SA, groups: ['system:serviceaccounts', 'system:serviceaccounts:kube-system', 'system:authenticated'] }, userAgent: `kube-controller-manager/v1.37.2 (linux/amd64) kubernetes/$Format/${PODGC_SA}` };
/** The taint manager of the node lifecycle controller (NoExecute evictions). */
const NODE_SA = 'system:serviceaccount:kube-system:node-controller';
const nodeController: Actor = { user: { username: NODE_SA, groups: ['system:serviceaccounts', 'system:serviceaccounts:kube-system', 'system:authenticated'] }, userAgent: `kube-controller-manager/v1.37.2 (linux/amd64) kubernetes/$Format/${NODE_SA}` };
/** kube-controller-manager itself: its leader election (the kube-system/kube-controller-manager Lease). */
const kcm: Actor = { user: { username: 'system:kube-controller-manager', groups: ['system:authenticated'] }, userAgent: 'kube-controller-manager/v1.37.2 (linux/amd64) kubernetes/abc1234/leader-election' };

export interface AuditLine {
  at: number;
  actor: 'ds-controller' | 'person' | 'pod-gc' | 'node-controller' | 'kcm' | { kubelet: string };
  verb: 'create' | 'update' | 'patch' | 'delete';
  resource: 'pods' | 'daemonsets' | 'nodes' | 'events' | 'leases';
  /** The service-account token's credential id (`user.extra`), when not the DaemonSet controller's default: another kube-controller-manager process. */
  credential?: string;
  subresource?: 'status';
  namespace?: string;
  name?: string;
  code?: number;
  /** When the apiserver received the request (default 3 ms before `at`, the response). */
  receivedAt?: number;
  /** The responseStatus of a failed request (its reason and message), when not just the code. */
  status?: { metadata: Record<string, never>; code: number; status?: string; reason?: string; message?: string };
  requestObject?: unknown;
  responseObject?: unknown;
}

let seq = 0;
const iso = (ms: number) => new Date(ms).toISOString().replace('Z', '000Z').replace(/\.(\d{6})\d*Z$/, '.$1Z');

function uriOf(l: AuditLine): string {
  const base = l.resource === 'daemonsets' ? '/apis/apps/v1' : l.resource === 'leases' ? '/apis/coordination.k8s.io/v1' : '/api/v1';
  const ns = l.namespace ? `/namespaces/${l.namespace}` : '';
  const name = l.verb === 'create' ? '' : `/${l.name}`;
  return `${base}${ns}/${l.resource}${name}${l.subresource ? `/${l.subresource}` : ''}`;
}

/**
 * One audit Event line, fields in the apiserver's order. `version`: the release of every
 * component's user agent (kube-controller-manager, kubectl, kubelet), v1.37.2 unless given.
 */
export function auditLine(l: AuditLine, version = 'v1.37.2'): string {
  const base = l.actor === 'ds-controller' ? dsController : l.actor === 'person' ? person : l.actor === 'pod-gc' ? podGc : l.actor === 'node-controller' ? nodeController : l.actor === 'kcm' ? kcm : kubelet(l.actor.kubelet);
  const user = l.credential ? { ...base.user, extra: { 'authentication.kubernetes.io/credential-id': [l.credential] } } : base.user;
  const actor = { user, userAgent: base.userAgent.replace('/v1.37.2 ', `/${version} `) };
  const objectRef: Record<string, unknown> = { resource: l.resource };
  if (l.namespace) objectRef.namespace = l.namespace;
  if (l.name && l.verb !== 'create') objectRef.name = l.name;
  objectRef.apiGroup = l.resource === 'daemonsets' ? 'apps' : l.resource === 'leases' ? 'coordination.k8s.io' : undefined;
  objectRef.apiVersion = 'v1';
  if (l.subresource) objectRef.subresource = l.subresource;
  const code = l.code ?? (l.verb === 'create' ? 201 : 200);
  const status = l.status ?? { metadata: {}, code };
  const ev: Record<string, unknown> = {
    kind: 'Event', apiVersion: 'audit.k8s.io/v1', level: 'RequestResponse', auditID: `00000000-0000-4000-8000-${(++seq).toString(16).padStart(12, '0')}`,
    stage: 'ResponseComplete', requestURI: uriOf(l), verb: l.verb, user: actor.user, sourceIPs: ['172.18.0.2'], userAgent: actor.userAgent,
    objectRef: JSON.parse(JSON.stringify(objectRef)), responseStatus: status,
  };
  if (l.requestObject !== undefined) ev.requestObject = l.requestObject;
  if (l.responseObject !== undefined) ev.responseObject = l.responseObject;
  ev.requestReceivedTimestamp = iso(l.receivedAt ?? l.at - 3);
  ev.stageTimestamp = iso(l.at);
  ev.annotations = { 'authorization.k8s.io/decision': 'allow', 'authorization.k8s.io/reason': '' };
  return JSON.stringify(ev);
}

/** The DaemonSet controller's create of a daemon pod (the request without a name, the response the pod). */
export function podCreate(at: number, pod: Pod): AuditLine {
  const { name: _n, uid: _u, resourceVersion: _r, creationTimestamp: _c, ...meta } = pod.metadata;
  return { at, actor: 'ds-controller', verb: 'create', resource: 'pods', namespace: pod.metadata.namespace, requestObject: { ...pod, metadata: meta, status: {} }, responseObject: pod };
}

/** The DaemonSet controller's status update (daemonsets/status). */
export function dsStatus(at: number, ds: DaemonSet): AuditLine {
  return { at, actor: 'ds-controller', verb: 'update', resource: 'daemonsets', subresource: 'status', namespace: ds.metadata.namespace, name: ds.metadata.name, requestObject: ds, responseObject: ds };
}

/** A core Event the DaemonSet controller records. */
export function eventCreate(at: number, ev: CoreEvent): AuditLine {
  return { at, actor: 'ds-controller', verb: 'create', resource: 'events', namespace: ev.metadata.namespace, requestObject: ev, responseObject: ev };
}

/** A kubelet's node status heartbeat: a patch of conditions, answered with the whole Node. */
export function nodeHeartbeat(at: number, node: Node, heartbeat: string): AuditLine {
  const name = node.metadata.name!;
  const status = { conditions: [{ type: 'Ready', status: 'True', lastHeartbeatTime: heartbeat, reason: 'KubeletReady' }], images: [{ names: ['registry.k8s.io/pause:3.10'], sizeBytes: 320368 }] };
  return {
    at, actor: { kubelet: name }, verb: 'patch', resource: 'nodes', subresource: 'status', name,
    requestObject: { status: { $setElementOrder$conditions: [{ type: 'Ready' }], conditions: [{ type: 'Ready', lastHeartbeatTime: heartbeat }] } },
    responseObject: { ...node, status },
  };
}

/**
 * A write of the kube-controller-manager Lease by the process `holder` (client-go's LeaseLock:
 * `update` on every renewal and takeover; `acquiredAt` is the holder's acquireTime).
 */
export function kcmLease(at: number, holder: string, acquiredAt: number, transitions: number): AuditLine {
  const micro = (ms: number) => new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
  const lease = {
    kind: 'Lease', apiVersion: 'coordination.k8s.io/v1',
    metadata: { name: 'kube-controller-manager', namespace: 'kube-system', resourceVersion: String(Math.floor(at / 1000) % 100000) },
    spec: { holderIdentity: holder, leaseDurationSeconds: 15, acquireTime: micro(acquiredAt), renewTime: micro(at), leaseTransitions: transitions },
  };
  return { at, actor: 'kcm', verb: 'update', resource: 'leases', namespace: 'kube-system', name: 'kube-controller-manager', requestObject: lease, responseObject: lease };
}

/** A kubelet registering its node (create nodes). */
export function nodeCreate(at: number, node: Node): AuditLine {
  return { at, actor: { kubelet: node.metadata.name! }, verb: 'create', resource: 'nodes', requestObject: node, responseObject: node };
}

/**
 * The opening of a DaemonSet audit log: two kubelets' heartbeats at `t0`, a person's create of the
 * DaemonSet `at` − 100 ms, the controller's creates of its two daemon pods at `at` and `at` + 30 ms
 * and its status write (`withStatus`) at `at` + 80 ms.
 */
export function daemonSetOpening(t0: number, at: number, nodes: [Node, Node], ds: DaemonSet, created: DaemonSet, pods: [Pod, Pod], withStatus: DaemonSet): AuditLine[] {
  const hb = new Date(t0).toISOString().replace(/\.\d+Z$/, 'Z');
  return [
    nodeHeartbeat(t0, nodes[0], hb),
    nodeHeartbeat(t0 + 100, nodes[1], hb),
    { at: at - 100, actor: 'person', verb: 'create', resource: 'daemonsets', namespace: 'kube-system', requestObject: ds, responseObject: created },
    podCreate(at, pods[0]),
    podCreate(at + 30, pods[1]),
    dsStatus(at + 80, withStatus),
  ];
}

export function auditLog(lines: AuditLine[], version = 'v1.37.2'): string {
  return [...lines].sort((a, b) => a.at - b.at).map((l) => auditLine(l, version)).join('\n') + '\n';
}

