/**
 * Builds kube-apiserver audit logs (audit.k8s.io/v1, RequestResponse, ResponseComplete) in
 * memory, shaped like the captures in examples/captures/: the ReplicaSet controller's pod
 * creates/deletes/patches with its service-account identity and credential id, the
 * deployment controller's scale updates, kubelet status patches, users' writes. Used to
 * rebuild the public bug reports of ../shared/docs/bug-cases.md as audit logs.
 */
import { writeFileSync } from 'node:fs';
import { suffix, uid } from './recording-builder.js';

const RS_SA = 'system:serviceaccount:kube-system:replicaset-controller';
const KCM_UA = 'kube-controller-manager/v1.37.2 (linux/amd64) kubernetes/$Format';

export interface Actor {
  username: string;
  userAgent?: string;
  credential?: string;
}

export const actors = {
  rsController: (credential = 'JTI=11111111-aaaa-4bbb-8ccc-000000000001'): Actor => ({ username: RS_SA, userAgent: `${KCM_UA}/${RS_SA}`, credential }),
  deploymentController: (): Actor => ({ username: 'system:serviceaccount:kube-system:deployment-controller', userAgent: `${KCM_UA}/system:serviceaccount:kube-system:deployment-controller` }),
  gc: (): Actor => ({ username: 'system:serviceaccount:kube-system:generic-garbage-collector', userAgent: `${KCM_UA}/system:serviceaccount:kube-system:generic-garbage-collector` }),
  kubelet: (node = 'node-1'): Actor => ({ username: `system:node:${node}`, userAgent: 'kubelet/v1.37.2 (linux/amd64) kubernetes/$Format' }),
  user: (name = 'alice'): Actor => ({ username: name, userAgent: 'kubectl/v1.37.2 (linux/amd64) kubernetes/$Format' }),
};

export class AuditLogBuilder {
  lines: string[] = [];
  t: number;
  rv = 5000;
  rs: any;
  readonly rsUid: string;
  pods = new Map<string, any>();
  private n = 0;
  rsController: Actor = actors.rsController();

  constructor(readonly ns = 'shop', readonly rsName = 'web-7d9c6b8f5d', start = Date.UTC(2026, 10, 30, 10, 0, 0)) {
    this.t = start;
    this.rsUid = uid('rs');
  }

  advance(ms: number): this {
    this.t += ms;
    return this;
  }

  private iso(ms = this.t, whole = false): string {
    const d = new Date(Math.floor(ms));
    return whole ? d.toISOString().replace(/\.\d{3}Z$/, 'Z') : d.toISOString().replace('Z', '000Z');
  }

  /** One ResponseComplete audit event; the request takes `latencyMs` (received before `t`). */
  record(o: { actor: Actor; verb: string; resource: string; subresource?: string; name?: string; apiGroup?: string; code: number; requestObject?: any; responseObject?: any; status?: any; latencyMs?: number }): this {
    const objectRef: any = { resource: o.resource, namespace: this.ns, apiVersion: o.apiGroup ? 'v1' : 'v1' };
    if (o.name) objectRef.name = o.name;
    if (o.apiGroup) objectRef.apiGroup = o.apiGroup;
    if (o.subresource) objectRef.subresource = o.subresource;
    const user: any = { username: o.actor.username, groups: ['system:authenticated'] };
    if (o.actor.credential) user.extra = { 'authentication.kubernetes.io/credential-id': [o.actor.credential] };
    const ev: any = {
      kind: 'Event', apiVersion: 'audit.k8s.io/v1', level: 'RequestResponse', auditID: uid('aud'), stage: 'ResponseComplete',
      requestURI: `/${o.apiGroup ? `apis/${o.apiGroup}/v1` : 'api/v1'}/namespaces/${this.ns}/${o.resource}${o.name ? `/${o.name}` : ''}${o.subresource ? `/${o.subresource}` : ''}`,
      verb: o.verb, user, sourceIPs: ['10.0.0.2'], userAgent: o.actor.userAgent, objectRef,
      responseStatus: o.status ?? { metadata: {}, code: o.code },
      requestReceivedTimestamp: this.iso(this.t - (o.latencyMs ?? 5)), stageTimestamp: this.iso(),
    };
    if (o.requestObject !== undefined) ev.requestObject = o.requestObject;
    if (o.responseObject !== undefined) ev.responseObject = o.responseObject;
    this.lines.push(JSON.stringify(ev));
    return this;
  }

  /** The ReplicaSet, created (first call) or updated by the deployment controller. */
  replicaSet(replicas: number, actor = actors.deploymentController(), o: { existedSince?: number } = {}): this {
    // The first write creates it, unless it existed before the log starts (then an update).
    const first = !this.rs && o.existedSince === undefined;
    this.rs = {
      apiVersion: 'apps/v1', kind: 'ReplicaSet',
      metadata: {
        name: this.rsName, namespace: this.ns, uid: this.rsUid, resourceVersion: String(++this.rv), generation: (this.rs?.metadata.generation ?? 0) + 1,
        creationTimestamp: this.rs?.metadata.creationTimestamp ?? this.iso(o.existedSince ?? this.t, true), labels: { app: 'web' },
        ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: 'dep-uid-0001', controller: true, blockOwnerDeletion: true }],
      },
      spec: { replicas, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'app', image: 'nginx:1.27' }] } } },
      status: this.rs?.status ?? { replicas: 0 },
    };
    return this.record({ actor, verb: first ? 'create' : 'update', resource: 'replicasets', apiGroup: 'apps', name: first ? undefined : this.rsName, code: first ? 201 : 200, requestObject: this.rs, responseObject: this.rs });
  }

  /** The ReplicaSet controller's status write (the end of a sync). */
  rsStatus(replicas: number): this {
    this.rs = structuredClone(this.rs);
    this.rs.metadata.resourceVersion = String(++this.rv);
    this.rs.status = { replicas, fullyLabeledReplicas: replicas, observedGeneration: this.rs.metadata.generation };
    return this.record({ actor: this.rsController, verb: 'update', resource: 'replicasets', subresource: 'status', apiGroup: 'apps', name: this.rsName, code: 200, requestObject: this.rs, responseObject: this.rs });
  }

  private newPod(name: string, owned: boolean, labels = { app: 'web' }): any {
    return {
      apiVersion: 'v1', kind: 'Pod',
      metadata: {
        name, ...(owned ? { generateName: `${this.rsName}-` } : {}), namespace: this.ns, uid: uid('pod'), resourceVersion: String(++this.rv),
        creationTimestamp: this.iso(this.t, true), labels,
        ...(owned ? { ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: this.rsName, uid: this.rsUid, controller: true, blockOwnerDeletion: true }] } : {}),
      },
      spec: { containers: [{ name: 'app', image: 'nginx:1.27' }] },
      status: { phase: 'Pending' },
    };
  }

  /** A pod create by the ReplicaSet controller: 201, or a failure status (403 quota, 504 timeout, …). */
  controllerCreate(o: { code?: number; message?: string; reason?: string; causes?: any[]; latencyMs?: number; actor?: Actor } = {}): string | undefined {
    const code = o.code ?? 201;
    const name = `${this.rsName}-${suffix(++this.n)}`;
    const pod = this.newPod(name, true);
    const req = { ...structuredClone(pod), metadata: { generateName: `${this.rsName}-`, labels: pod.metadata.labels, ownerReferences: pod.metadata.ownerReferences } };
    if (code >= 200 && code < 300) {
      this.pods.set(name, pod);
      this.record({ actor: o.actor ?? this.rsController, verb: 'create', resource: 'pods', code, requestObject: req, responseObject: pod, latencyMs: o.latencyMs });
      return name;
    }
    const status = { metadata: {}, status: 'Failure', message: o.message ?? 'error', reason: o.reason ?? 'Forbidden', code, ...(o.causes ? { details: { causes: o.causes } } : {}) };
    this.record({ actor: o.actor ?? this.rsController, verb: 'create', resource: 'pods', code, requestObject: req, responseObject: { kind: 'Status', apiVersion: 'v1', ...status }, status, latencyMs: o.latencyMs });
    return undefined;
  }

  /** A bare pod (no owner) created by a user. */
  userPod(name: string, labels = { app: 'web' }): this {
    const pod = this.newPod(name, false, labels);
    this.pods.set(name, pod);
    return this.record({ actor: actors.user(), verb: 'create', resource: 'pods', code: 201, requestObject: pod, responseObject: pod });
  }

  /** A graceful delete (deletionTimestamp set, the pod lives on): by the controller unless `actor` says otherwise. */
  deletePod(name: string, o: { actor?: Actor; code?: number; graceSeconds?: number } = {}): this {
    const code = o.code ?? 200;
    const pod = this.pods.get(name);
    if (code === 404 || !pod) {
      const status = { metadata: {}, status: 'Failure', message: `pods "${name}" not found`, reason: 'NotFound', code: 404 };
      return this.record({ actor: o.actor ?? this.rsController, verb: 'delete', resource: 'pods', name, code: 404, status, responseObject: { kind: 'Status', apiVersion: 'v1', ...status } });
    }
    const p = structuredClone(pod);
    p.metadata.resourceVersion = String(++this.rv);
    p.metadata.deletionTimestamp = this.iso(this.t + (o.graceSeconds ?? 30) * 1000, true);
    p.metadata.deletionGracePeriodSeconds = o.graceSeconds ?? 30;
    this.pods.set(name, p);
    return this.record({ actor: o.actor ?? this.rsController, verb: 'delete', resource: 'pods', name, code, requestObject: { kind: 'DeleteOptions', apiVersion: 'v1', preconditions: { uid: pod.metadata.uid } }, responseObject: p });
  }

  /** The kubelet's final delete (grace 0): the pod is gone. */
  removePod(name: string): this {
    const pod = this.pods.get(name);
    this.pods.delete(name);
    const p = structuredClone(pod);
    p.metadata.resourceVersion = String(++this.rv);
    return this.record({ actor: actors.kubelet(), verb: 'delete', resource: 'pods', name, code: 200, requestObject: { kind: 'DeleteOptions', apiVersion: 'v1', gracePeriodSeconds: 0 }, responseObject: p });
  }

  /** The kubelet's status patch (phase, ready). */
  podStatus(name: string, phase: string, o: { ready?: boolean; reason?: string } = {}): this {
    const p = structuredClone(this.pods.get(name));
    p.metadata.resourceVersion = String(++this.rv);
    p.spec.nodeName = 'node-1';
    p.status = { phase, ...(o.reason ? { reason: o.reason, message: `Pod was rejected: ${o.reason}` } : {}), conditions: [{ type: 'Ready', status: o.ready ? 'True' : 'False', lastTransitionTime: this.iso(this.t, true) }] };
    this.pods.set(name, p);
    return this.record({ actor: actors.kubelet(), verb: 'patch', resource: 'pods', subresource: 'status', name, code: 200, requestObject: { status: p.status }, responseObject: p });
  }

  /** The controller's adoption patch of an orphan (ownerReference added). */
  adoptPod(name: string, actor = this.rsController): this {
    const p = structuredClone(this.pods.get(name));
    const ref = { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: this.rsName, uid: this.rsUid, controller: true, blockOwnerDeletion: true };
    p.metadata.resourceVersion = String(++this.rv);
    p.metadata.ownerReferences = [ref];
    this.pods.set(name, p);
    return this.record({ actor, verb: 'patch', resource: 'pods', name, code: 200, requestObject: { metadata: { ownerReferences: [ref], uid: p.metadata.uid } }, responseObject: p });
  }

  text(): string {
    return this.lines.join('\n') + '\n';
  }

  write(path: string): string {
    writeFileSync(path, this.text());
    return path;
  }
}
