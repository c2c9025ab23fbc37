/**
 * Writes kube-apiserver audit logs (the log backend's JSON lines, audit.k8s.io/v1 Events at
 * RequestResponse level, in the shape of examples/captures/job-complete/audit.jsonl) of Job
 * scenarios: the Job controller's requests as the real kube-controller-manager makes them (user
 * `system:serviceaccount:kube-system:job-controller`, its client-go user agent) — pod creates
 * with the `batch.kubernetes.io/job-tracking` finalizer, the finalizer-removal PATCHes
 * (`$deleteFromPrimitiveList/finalizers`), the `jobs/status` updates with
 * `status.uncountedTerminatedPods`, its Events — the kubelet's pod status patches
 * (`system:node:<node>`), the cronjob-controller's or a person's Job create and a person's pod
 * delete. Every response carries the whole object as the apiserver returned it; a rejected
 * request carries its Status (code, reason, message). Used by the Job bug-case tests, not by the
 * product.
 *
 * Contract: a `JobAudit` keeps the Job's and its pods' current state and the resourceVersion
 * counter; each method appends one line at the given time (ms) and returns what it wrote;
 * `text(version)` sorts the lines by time and renders them with the user agents of `version`.
 * Cost: O(lines) to render; a scenario is a few dozen lines.
 */
import type { Job, Pod } from '../../src/model/objects.js';

const JOB_SA = 'system:serviceaccount:kube-system:job-controller';
const CRONJOB_SA = 'system:serviceaccount:kube-system:cronjob-controller';
const FINALIZER = 'batch.kubernetes.io/job-tracking';

type Actor = { user: Record<string, unknown>; userAgent: string };
const saActor = (sa: string, id: string): Actor => ({
  user: { username: sa, uid: id, groups: ['system:serviceaccounts', 'system:serviceaccounts:kube-system', 'system:authenticated'] },
  userAgent: `kube-controller-manager/v1.37.2 (linux/amd64) kubernetes/$Format/${sa}`,
});
const ACTORS = {
  'job-controller': saActor(JOB_SA, '2d674cc5-8811-4f98-9a99-job000000001'),
  'cronjob-controller': saActor(CRONJOB_SA, '2d674cc5-8811-4f98-9a99-cronjob00001'),
  person: { user: { username: 'kexp-admin', groups: ['system:masters', 'system:authenticated'] }, userAgent: 'kubectl/v1.37.2 (linux/amd64) kubernetes/abc1234' },
} satisfies Record<string, Actor>;
const kubelet = (node: string): Actor => ({ user: { username: `system:node:${node}`, groups: ['system:nodes', 'system:authenticated'] }, userAgent: 'kubelet/v1.37.2 (linux/amd64) kubernetes/abc1234' });

export type JobActor = keyof typeof ACTORS | { kubelet: string };

/** A rejected request's answer: the HTTP code, the Status reason and message. */
export interface Rejection {
  code: number;
  reason: string;
  message: string;
}

interface Line {
  at: number;
  actor: JobActor;
  verb: 'create' | 'update' | 'patch' | 'delete';
  resource: 'pods' | 'jobs' | 'events' | 'nodes';
  subresource?: 'status';
  namespace?: string;
  name?: string;
  uid?: string;
  rejection?: Rejection;
  requestObject?: unknown;
  responseObject?: unknown;
}

const iso = (ms: number) => new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
const isoS = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

export interface JobAuditOptions {
  namespace?: string;
  name?: string;
  node?: string;
  completions?: number;
  parallelism?: number;
  backoffLimit?: number;
  /** Pods created with the job-tracking finalizer (1.26+; false for the releases before it). */
  trackingFinalizer?: boolean;
}

export class JobAudit {
  readonly ns: string;
  readonly name: string;
  readonly node: string;
  readonly uid: string;
  job!: Job;
  private readonly lines: Line[] = [];
  private rv = 1000;
  private podSeq = 0;
  private readonly finalizer: boolean;
  private readonly opts: Required<Pick<JobAuditOptions, 'completions' | 'parallelism' | 'backoffLimit'>>;

  constructor(o: JobAuditOptions = {}) {
    this.ns = o.namespace ?? 'batch';
    this.name = o.name ?? 'report-28833075';
    this.node = o.node ?? 'node-a';
    this.uid = 'c9e20e21-2d82-4c27-a864-beb9e5372f29';
    this.finalizer = o.trackingFinalizer ?? true;
    this.opts = { completions: o.completions ?? 1, parallelism: o.parallelism ?? 1, backoffLimit: o.backoffLimit ?? 6 };
  }

  private labels() {
    return { 'batch.kubernetes.io/controller-uid': this.uid, 'batch.kubernetes.io/job-name': this.name, 'controller-uid': this.uid, 'job-name': this.name };
  }

  private template() {
    return {
      metadata: { labels: this.labels() },
      spec: { containers: [{ name: 'work', image: 'registry.k8s.io/busybox:1.36', resources: { requests: { cpu: '100m' } } }], restartPolicy: 'Never', terminationGracePeriodSeconds: 30, dnsPolicy: 'ClusterFirst', schedulerName: 'default-scheduler' },
    };
  }

  private push(l: Line) {
    this.lines.push(l);
  }

  /** The Job created by `actor` (the cronjob-controller for a CronJob's Job, else a person). */
  createJob(at: number, actor: 'person' | 'cronjob-controller' = 'cronjob-controller'): Job {
    const spec = { parallelism: this.opts.parallelism, completions: this.opts.completions, backoffLimit: this.opts.backoffLimit, selector: { matchLabels: { 'batch.kubernetes.io/controller-uid': this.uid } }, manualSelector: false, template: this.template(), completionMode: 'NonIndexed', suspend: false, podReplacementPolicy: 'TerminatingOrFailed' };
    this.job = {
      kind: 'Job', apiVersion: 'batch/v1',
      metadata: { name: this.name, namespace: this.ns, uid: this.uid, resourceVersion: String(++this.rv), generation: 1, creationTimestamp: isoS(at), labels: this.labels() },
      spec, status: {},
    } as unknown as Job;
    const req = { kind: 'Job', apiVersion: 'batch/v1', metadata: { name: this.name, namespace: this.ns }, spec: { ...spec, selector: undefined, template: { metadata: {}, spec: this.template().spec } } };
    this.push({ at, actor, verb: 'create', resource: 'jobs', namespace: this.ns, name: this.name, requestObject: JSON.parse(JSON.stringify(req)), responseObject: structuredClone(this.job) });
    return this.job;
  }

  /** The Job controller's pod create; `rejection` answers it with an error instead (no pod made). */
  createPod(at: number, rejection?: Rejection): Pod | undefined {
    const suffix = ['9rcj7', 'x2k4p', 'm7d8q', 'h5n2w', 'c4t9z', 'b8v3r', 'q2w6e', 'z7y1u'][this.podSeq++ % 8]! + (this.podSeq > 8 ? String(this.podSeq) : '');
    const meta = {
      generateName: `${this.name}-`, labels: this.labels(),
      ownerReferences: [{ apiVersion: 'batch/v1', kind: 'Job', name: this.name, uid: this.uid, controller: true, blockOwnerDeletion: true }],
      ...(this.finalizer ? { finalizers: [FINALIZER] } : {}),
    };
    const request = { kind: 'Pod', apiVersion: 'v1', metadata: meta, spec: this.template().spec, status: {} };
    if (rejection) {
      this.push({ at, actor: 'job-controller', verb: 'create', resource: 'pods', namespace: this.ns, rejection, requestObject: request });
      return undefined;
    }
    const pod = {
      kind: 'Pod', apiVersion: 'v1',
      metadata: { name: `${this.name}-${suffix}`, namespace: this.ns, uid: `0a1b2c3d-0000-4000-8000-${String(this.podSeq).padStart(12, '0')}`, resourceVersion: String(++this.rv), creationTimestamp: isoS(at), ...meta },
      spec: { ...this.template().spec, serviceAccountName: 'default' },
      status: { phase: 'Pending', qosClass: 'Burstable' },
    } as unknown as Pod;
    this.push({ at, actor: 'job-controller', verb: 'create', resource: 'pods', namespace: this.ns, requestObject: request, responseObject: structuredClone(pod) });
    return pod;
  }

  /** The kubelet's status patch: the pod Running (ready or not), or finished (Succeeded / Failed). */
  kubeletStatus(at: number, pod: Pod, phase: 'Running' | 'Succeeded' | 'Failed', ready = phase === 'Running'): Pod {
    const t = isoS(at);
    const terminated = phase === 'Running' ? undefined : { exitCode: phase === 'Succeeded' ? 0 : 1, reason: phase === 'Succeeded' ? 'Completed' : 'Error', startedAt: t, finishedAt: t };
    const status = {
      phase, qosClass: 'Burstable', hostIP: '10.0.0.7', podIP: '10.244.1.9', startTime: pod.status?.startTime ?? t,
      conditions: [{ type: 'PodScheduled', status: 'True', lastTransitionTime: t }, { type: 'Ready', status: ready ? 'True' : 'False', lastTransitionTime: t }],
      containerStatuses: [{ name: 'work', image: 'registry.k8s.io/busybox:1.36', ready, restartCount: 0, state: terminated ? { terminated } : { running: { startedAt: t } } }],
    };
    pod.spec = { ...pod.spec, nodeName: this.node } as Pod['spec'];
    pod.status = status as unknown as Pod['status'];
    pod.metadata.resourceVersion = String(++this.rv);
    this.push({ at, actor: { kubelet: this.node }, verb: 'patch', resource: 'pods', subresource: 'status', namespace: this.ns, name: pod.metadata.name, uid: pod.metadata.uid, requestObject: { status: { phase, conditions: status.conditions, containerStatuses: status.containerStatuses } }, responseObject: structuredClone(pod) });
    return pod;
  }

  /** The Job controller's status update (jobs/status) to `status`; `rejection` refuses it (the Job unchanged). */
  jobStatus(at: number, status: Record<string, unknown>, rejection?: Rejection): Job {
    const request = { ...structuredClone(this.job), status: { ...status } };
    if (rejection) {
      this.push({ at, actor: 'job-controller', verb: 'update', resource: 'jobs', subresource: 'status', namespace: this.ns, name: this.name, rejection, requestObject: request });
      return this.job;
    }
    this.job = { ...request, metadata: { ...request.metadata, resourceVersion: String(++this.rv) } } as Job;
    this.push({ at, actor: 'job-controller', verb: 'update', resource: 'jobs', subresource: 'status', namespace: this.ns, name: this.name, requestObject: request, responseObject: structuredClone(this.job) });
    return this.job;
  }

  /** The Job controller's finalizer-removal PATCH of `pod`; `rejection` refuses it (the pod keeps the finalizer). */
  removeFinalizer(at: number, pod: Pod, rejection?: Rejection): Pod {
    const request = { metadata: { '$deleteFromPrimitiveList/finalizers': [FINALIZER] } };
    if (rejection) {
      this.push({ at, actor: 'job-controller', verb: 'patch', resource: 'pods', namespace: this.ns, name: pod.metadata.name, uid: pod.metadata.uid, rejection, requestObject: request });
      return pod;
    }
    pod.metadata = { ...pod.metadata, resourceVersion: String(++this.rv) };
    delete pod.metadata.finalizers;
    this.push({ at, actor: 'job-controller', verb: 'patch', resource: 'pods', namespace: this.ns, name: pod.metadata.name, uid: pod.metadata.uid, requestObject: request, responseObject: structuredClone(pod) });
    return pod;
  }

  /**
   * A delete of `pod` by `actor` with `graceSeconds` (a person's `kubectl delete`: 30; the
   * kubelet's final delete of a stopped pod: 0). With the finalizer still on, the pod stays,
   * terminating (200 with the pod).
   */
  deletePod(at: number, pod: Pod, actor: JobActor = 'person', graceSeconds = 30): Pod {
    const deletionTimestamp = pod.metadata.deletionTimestamp && graceSeconds > 0 ? pod.metadata.deletionTimestamp : isoS(at + graceSeconds * 1000);
    pod.metadata = { ...pod.metadata, resourceVersion: String(++this.rv), deletionTimestamp, deletionGracePeriodSeconds: graceSeconds };
    this.push({ at, actor, verb: 'delete', resource: 'pods', namespace: this.ns, name: pod.metadata.name, uid: pod.metadata.uid, requestObject: { kind: 'DeleteOptions', apiVersion: 'meta.k8s.io/__internal', gracePeriodSeconds: graceSeconds, ...(typeof actor === 'object' ? { preconditions: { uid: pod.metadata.uid } } : {}) }, responseObject: structuredClone(pod) });
    return pod;
  }

  /** An Event of the Job controller about the Job (SuccessfulCreate, FailedCreate, …). */
  event(at: number, reason: string, message: string, type: 'Normal' | 'Warning' = 'Normal'): void {
    const ev = {
      kind: 'Event', apiVersion: 'v1',
      metadata: { name: `${this.name}.${(at * 1000).toString(16)}`, namespace: this.ns, resourceVersion: String(++this.rv), creationTimestamp: isoS(at) },
      involvedObject: { kind: 'Job', namespace: this.ns, name: this.name, uid: this.uid, apiVersion: 'batch/v1', resourceVersion: this.job.metadata.resourceVersion },
      reason, message, source: { component: 'job-controller' }, firstTimestamp: isoS(at), lastTimestamp: isoS(at), count: 1, type, reportingComponent: 'job-controller', reportingInstance: '',
    };
    this.push({ at, actor: 'job-controller', verb: 'create', resource: 'events', namespace: this.ns, name: ev.metadata.name, requestObject: ev, responseObject: ev });
  }

  /** The kubelet's node status heartbeat (a patch of its Ready condition, answered with the Node). */
  nodeHeartbeat(at: number): void {
    const t = isoS(at);
    const node = { kind: 'Node', apiVersion: 'v1', metadata: { name: this.node, uid: '7d1c9a2e-0000-4000-8000-00000000node', resourceVersion: String(++this.rv), labels: { 'kubernetes.io/hostname': this.node } }, spec: {}, status: { conditions: [{ type: 'Ready', status: 'True', lastHeartbeatTime: t, reason: 'KubeletReady' }] } };
    this.push({ at, actor: { kubelet: this.node }, verb: 'patch', resource: 'nodes', subresource: 'status', name: this.node, requestObject: { status: { $setElementOrder$conditions: [{ type: 'Ready' }], conditions: [{ type: 'Ready', lastHeartbeatTime: t }] } }, responseObject: node });
  }

  /** The log's text: lines by time, every component's user agent of `version`. */
  text(version = 'v1.37.2'): string {
    let seq = 0;
    return [...this.lines].sort((a, b) => a.at - b.at).map((l) => {
      const base = typeof l.actor === 'string' ? ACTORS[l.actor] : kubelet(l.actor.kubelet);
      const apiGroup = l.resource === 'jobs' ? 'batch' : undefined;
      const prefix = l.resource === 'jobs' ? '/apis/batch/v1' : '/api/v1';
      const uri = `${prefix}${l.namespace ? `/namespaces/${l.namespace}` : ''}/${l.resource}${l.verb === 'create' ? '' : `/${l.name}`}${l.subresource ? `/${l.subresource}` : ''}`;
      const code = l.rejection?.code ?? (l.verb === 'create' ? 201 : 200);
      const objectRef: Record<string, unknown> = { resource: l.resource };
      if (l.namespace) objectRef.namespace = l.namespace;
      if (l.name && (l.verb !== 'create' || l.resource !== 'pods')) objectRef.name = l.name;
      if (l.uid) objectRef.uid = l.uid;
      if (apiGroup) objectRef.apiGroup = apiGroup;
      objectRef.apiVersion = 'v1';
      if (l.subresource) objectRef.subresource = l.subresource;
      const ev: Record<string, unknown> = {
        kind: 'Event', apiVersion: 'audit.k8s.io/v1', level: 'RequestResponse', auditID: `5f61dcf5-0000-4000-8000-${(++seq).toString(16).padStart(12, '0')}`,
        stage: 'ResponseComplete', requestURI: uri, verb: l.verb, user: base.user, sourceIPs: ['10.0.0.2'], userAgent: base.userAgent.replace('/v1.37.2 ', `/${version} `),
        objectRef,
        responseStatus: l.rejection ? { metadata: {}, status: 'Failure', message: l.rejection.message, reason: l.rejection.reason, code } : { metadata: {}, code },
      };
      if (l.requestObject !== undefined) ev.requestObject = l.requestObject;
      if (l.rejection) ev.responseObject = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: l.rejection.message, reason: l.rejection.reason, code };
      else if (l.responseObject !== undefined) ev.responseObject = l.responseObject;
      ev.requestReceivedTimestamp = iso(l.at - 4);
      ev.stageTimestamp = iso(l.at);
      ev.annotations = { 'authorization.k8s.io/decision': 'allow', 'authorization.k8s.io/reason': 'RBAC: allowed by ClusterRoleBinding "system:controller:job-controller"' };
      return JSON.stringify(ev);
    }).join('\n') + '\n';
  }
}

/** A 504 Timeout of a pod create (the apiserver's own message). */
export const CREATE_TIMEOUT: Rejection = { code: 504, reason: 'Timeout', message: 'the server was unable to return a response in the time allotted, but may still be processing the request (post pods)' };
/** A 500 from a failing admission webhook on a pod create. */
export const WEBHOOK_ERROR: Rejection = { code: 500, reason: 'InternalError', message: 'Internal error occurred: failed calling webhook "pod-policy.example.com": Post "https://pod-policy.webhooks.svc:443/validate?timeout=10s": context deadline exceeded' };
