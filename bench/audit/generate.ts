/**
 * Writes a realistic apiserver audit log of about N MB for benchmarking the audit reader.
 *
 *   npx tsx bench/audit/generate.ts --mb 1024 --out /tmp/audit.log [--seed 42] [--wrap ecs|cloudwatch]
 *
 * `--wrap` writes the same traffic as a log store exports it (bench/audit/run-wrappers.sh):
 * `ecs` one Filebeat/Elastic ECS document per line with the Event under `kubernetes.audit`;
 * `cloudwatch` CloudWatch Logs export lines `<ISO time> <audit JSON>`.
 *
 * Traffic mix by line count (deterministic for a given seed), modelled on a busy 50-node
 * cluster with a kubeadm-like policy (reads at Metadata, writes at Request, pods and
 * replicasets at RequestResponse, RequestReceived omitted):
 *   ~40 % lease renewals (kubelets, leader election), ~17 % configmap reads/updates,
 *   ~19 % node status patches and node reads, ~15 % Events (kubelet/scheduler about pods,
 *   a few by the ReplicaSet controller), ~4 % other (secrets, endpointslices, SARs),
 *   ~5 % pods and replicasets (reads, creates/deletes by the RS controller, kubelet status
 *   patches, scheduler bindings, RS status updates).
 * stageTimestamps increase at ~2000 requests/s with up to 5 ms of jitter (files are nearly,
 * not exactly, ordered). All names are invented.
 *
 * Scale options (the defaults write the same file as before they existed, byte for byte):
 *   --replicasets M   M ReplicaSets over the 8 namespaces (default 48: one per app and namespace)
 *   --pods N          live pods the generator keeps track of (default 5000); with --replicasets
 *                     or --lifecycle, the log opens with the ReplicaSet controller creating N pods
 *                     (N / M per ReplicaSet, its spec.replicas), like a cluster scaled up at the start
 *   --lifecycle       pods end like in a cluster: each controller delete is followed ~30 s later
 *                     by the kubelet's final delete (grace 0: the pod is gone), and a pod the
 *                     generator stops tracking is deleted rather than forgotten; without it,
 *                     deleted pods stay terminating and dropped ones live on in a replay
 *
 *   npx tsx bench/audit/generate.ts --mb 1024 --pods 50000 --replicasets 500 --lifecycle --out /tmp/audit-50k.log
 */
import { createWriteStream, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';

const args = process.argv.slice(2);
const opt = (name: string, def: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] ? args[i + 1]! : def;
};
const targetBytes = Number(opt('mb', '100')) * 1024 * 1024;
const outPath = opt('out', 'audit.log');
let seed = Number(opt('seed', '42')) >>> 0;
const wrapMode = opt('wrap', 'plain');
if (!['plain', 'ecs', 'cloudwatch'].includes(wrapMode)) throw new Error(`--wrap ${wrapMode}: expected plain, ecs or cloudwatch`);
const maxPods = Number(opt('pods', '5000'));
const rsCount = args.includes('--replicasets') ? Number(opt('replicasets', '48')) : undefined;
const lifecycle = args.includes('--lifecycle');
/** Open with the initial population (and keep spec.replicas = pods per ReplicaSet). */
const scaled = rsCount !== undefined || lifecycle;

/** mulberry32 */
function rand(): number {
  seed = (seed + 0x6d2b79f5) >>> 0;
  let t = seed;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
const hex = (n: number) => {
  let s = '';
  for (let i = 0; i < n; i++) s += '0123456789abcdef'[Math.floor(rand() * 16)];
  return s;
};
const uuid = () => `${hex(8)}-${hex(4)}-4${hex(3)}-8${hex(3)}-${hex(12)}`;
const GEN = 'bcdfghjklmnpqrstvwxz2456789';
const suffix = () => Array.from({ length: 5 }, () => GEN[Math.floor(rand() * GEN.length)]).join('');

const NODES = Array.from({ length: 50 }, (_, i) => `node-${String(i).padStart(2, '0')}`);
const NAMESPACES = ['shop', 'billing', 'search', 'checkout', 'catalog', 'auth', 'media', 'batch'];
const APPS = ['web', 'api', 'worker', 'cache', 'gateway', 'indexer'];
const RSS =
  rsCount === undefined
    ? NAMESPACES.flatMap((ns) => APPS.map((app) => ({ ns, app, name: `${app}-${hex(10)}`, uid: uuid(), rv: 10000 + Math.floor(rand() * 1000) })))
    : Array.from({ length: rsCount }, (_, i) => {
        const ns = NAMESPACES[i % NAMESPACES.length]!;
        const k = Math.floor(i / NAMESPACES.length);
        const app = k < APPS.length ? APPS[k]! : `${APPS[k % APPS.length]}${Math.floor(k / APPS.length)}`;
        return { ns, app, name: `${app}-${hex(10)}`, uid: uuid(), rv: 10000 + Math.floor(rand() * 1000) };
      });
/** spec.replicas of every ReplicaSet in a scaled log. */
const PER_RS = Math.max(1, Math.round(maxPods / RSS.length));
const pods: Array<{ ns: string; name: string; uid: string; rs: (typeof RSS)[number]; node: string }> = [];

let clock = Date.parse('2025-03-04T10:00:00Z') * 1000; // µs
let rv = 500000;
function micro(us: number): string {
  const ms = Math.floor(us / 1000);
  const d = new Date(ms).toISOString(); // 2025-03-04T10:00:00.123Z
  return `${d.slice(0, 23)}${String(Math.floor(us % 1000)).padStart(3, '0')}Z`;
}
const secs = (us: number) => new Date(Math.floor(us / 1e6) * 1000).toISOString().replace('.000', '');

const UA_KUBELET = 'kubelet/v1.33.1 (linux/amd64) kubernetes/8adc0f0';
const UA_KCM = (c: string) => `kube-controller-manager/v1.33.1 (linux/amd64) kubernetes/8adc0f0/system:serviceaccount:kube-system:${c}`;
const SA = (n: string) => ({
  username: `system:serviceaccount:kube-system:${n}`,
  uid: uuid(),
  groups: ['system:serviceaccounts', 'system:serviceaccounts:kube-system', 'system:authenticated'],
});
const NODE_USER = (n: string) => ({ username: `system:node:${n}`, groups: ['system:nodes', 'system:authenticated'] });
const ALLOW = (reason: string) => ({ 'authorization.k8s.io/decision': 'allow', 'authorization.k8s.io/reason': reason });

interface Req {
  level: string;
  uri: string;
  verb: string;
  user: unknown;
  ua: string;
  ref: Record<string, unknown>;
  code: number;
  req?: unknown;
  resp?: unknown;
  latencyUs: number;
  reason?: string;
}

function line(r: Req): string {
  const jitter = Math.floor(rand() * 5000);
  const recv = clock - r.latencyUs - jitter;
  const o: Record<string, unknown> = {
    kind: 'Event',
    apiVersion: 'audit.k8s.io/v1',
    level: r.level,
    auditID: uuid(),
    stage: 'ResponseComplete',
    requestURI: r.uri,
    verb: r.verb,
    user: r.user,
    sourceIPs: [`10.0.${Math.floor(rand() * 4)}.${1 + Math.floor(rand() * 250)}`],
    userAgent: r.ua,
    objectRef: r.ref,
    responseStatus: { metadata: {}, code: r.code },
  };
  if (r.req !== undefined) o.requestObject = r.req;
  if (r.resp !== undefined) o.responseObject = r.resp;
  o.requestReceivedTimestamp = micro(recv);
  o.stageTimestamp = micro(clock - jitter);
  o.annotations = ALLOW(r.reason ?? 'RBAC: allowed by ClusterRoleBinding "system:basic-user" of ClusterRole "system:basic-user" to Group "system:authenticated"');
  return JSON.stringify(o);
}

function managedFields(manager: string, us: number) {
  return [
    {
      manager,
      operation: 'Update',
      apiVersion: 'v1',
      time: secs(us),
      fieldsType: 'FieldsV1',
      fieldsV1: { 'f:metadata': { 'f:generateName': {}, 'f:labels': { '.': {}, 'f:app': {}, 'f:pod-template-hash': {} }, 'f:ownerReferences': { '.': {} } }, 'f:spec': { 'f:containers': {} } },
    },
  ];
}
function podObject(p: (typeof pods)[number], phase: string, us: number, extraMeta: Record<string, unknown> = {}) {
  return {
    kind: 'Pod',
    apiVersion: 'v1',
    metadata: {
      name: p.name,
      generateName: `${p.rs.name}-`,
      namespace: p.ns,
      uid: p.uid,
      resourceVersion: String(++rv),
      creationTimestamp: secs(us),
      labels: { app: p.rs.app, 'pod-template-hash': p.rs.name.slice(-10) },
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: p.rs.name, uid: p.rs.uid, controller: true, blockOwnerDeletion: true }],
      managedFields: managedFields('kube-controller-manager', us),
      ...extraMeta,
    },
    spec: {
      volumes: [{ name: 'kube-api-access-' + suffix(), projected: { sources: [{ serviceAccountToken: { expirationSeconds: 3607, path: 'token' } }], defaultMode: 420 } }],
      containers: [
        {
          name: p.rs.app,
          image: `registry.example.com/${p.ns}/${p.rs.app}:1.${Math.floor(rand() * 20)}`,
          ports: [{ containerPort: 8080, protocol: 'TCP' }],
          resources: { limits: { cpu: '500m', memory: '256Mi' }, requests: { cpu: '100m', memory: '128Mi' } },
          volumeMounts: [{ name: 'kube-api-access', readOnly: true, mountPath: '/var/run/secrets/kubernetes.io/serviceaccount' }],
          readinessProbe: { httpGet: { path: '/healthz', port: 8080, scheme: 'HTTP' }, timeoutSeconds: 1, periodSeconds: 10, successThreshold: 1, failureThreshold: 3 },
          terminationMessagePath: '/dev/termination-log',
          terminationMessagePolicy: 'File',
          imagePullPolicy: 'IfNotPresent',
        },
      ],
      restartPolicy: 'Always',
      terminationGracePeriodSeconds: 30,
      dnsPolicy: 'ClusterFirst',
      serviceAccountName: 'default',
      nodeName: phase === 'Pending' ? undefined : p.node,
      securityContext: {},
      schedulerName: 'default-scheduler',
      tolerations: [
        { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
        { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
      ],
      priority: 0,
      enableServiceLinks: true,
      preemptionPolicy: 'PreemptLowerPriority',
    },
    status: {
      phase,
      conditions: [
        { type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: secs(us) },
        { type: 'Ready', status: phase === 'Running' ? 'True' : 'False', lastProbeTime: null, lastTransitionTime: secs(us) },
      ],
      qosClass: 'Burstable',
    },
  };
}
function rsObject(r: (typeof RSS)[number], replicas: number) {
  return {
    kind: 'ReplicaSet',
    apiVersion: 'apps/v1',
    metadata: {
      name: r.name,
      namespace: r.ns,
      uid: r.uid,
      resourceVersion: String(++rv),
      generation: 3,
      creationTimestamp: '2025-03-01T08:00:00Z',
      labels: { app: r.app, 'pod-template-hash': r.name.slice(-10) },
      annotations: { 'deployment.kubernetes.io/desired-replicas': String(replicas), 'deployment.kubernetes.io/max-replicas': String(replicas + 1), 'deployment.kubernetes.io/revision': '7' },
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: r.app, uid: uuid(), controller: true, blockOwnerDeletion: true }],
    },
    spec: {
      replicas,
      selector: { matchLabels: { app: r.app, 'pod-template-hash': r.name.slice(-10) } },
      template: { metadata: { labels: { app: r.app, 'pod-template-hash': r.name.slice(-10) } }, spec: { containers: [{ name: r.app, image: `registry.example.com/${r.ns}/${r.app}:1.7` }] } },
    },
    status: { replicas, fullyLabeledReplicas: replicas, readyReplicas: replicas - 1, availableReplicas: replicas - 1, observedGeneration: 3 },
  };
}

const RS_CTRL_REASON =
  'RBAC: allowed by ClusterRoleBinding "system:controller:replicaset-controller" of ClusterRole "system:controller:replicaset-controller" to ServiceAccount "replicaset-controller/kube-system"';

/** Pods deleted gracefully whose final delete (by the kubelet, grace 0) is due at `at` (µs). */
const pendingFinal: Array<{ p: (typeof pods)[number]; at: number; controller: boolean }> = [];

/**
 * The end of a graceful deletion: a pod the generator dropped is first deleted by the
 * ReplicaSet controller (`controller`), then — or for one it deleted earlier — the kubelet
 * deletes it with grace 0 and the response is the pod's final state (a watcher sees DELETED).
 */
function finalDelete(f: (typeof pendingFinal)[number]): string {
  const { p } = f;
  if (f.controller) {
    f.controller = false;
    f.at = clock + 30e6;
    pendingFinal.push(f);
    return line({
      level: 'RequestResponse',
      uri: `/api/v1/namespaces/${p.ns}/pods/${p.name}`,
      verb: 'delete',
      user: SA('replicaset-controller'),
      ua: UA_KCM('replicaset-controller'),
      ref: { resource: 'pods', namespace: p.ns, name: p.name, apiVersion: 'v1' },
      code: 200,
      req: { kind: 'DeleteOptions', apiVersion: 'meta.k8s.io/v1' },
      resp: podObject(p, 'Running', clock, { deletionTimestamp: secs(clock + 30e6), deletionGracePeriodSeconds: 30 }),
      latencyUs: 4000,
      reason: RS_CTRL_REASON,
    });
  }
  return line({
    level: 'RequestResponse',
    uri: `/api/v1/namespaces/${p.ns}/pods/${p.name}`,
    verb: 'delete',
    user: NODE_USER(p.node),
    ua: UA_KUBELET,
    ref: { resource: 'pods', namespace: p.ns, name: p.name, apiVersion: 'v1' },
    code: 200,
    req: { kind: 'DeleteOptions', apiVersion: 'meta.k8s.io/v1', gracePeriodSeconds: 0, preconditions: { uid: p.uid } },
    resp: podObject(p, 'Succeeded', clock, { deletionTimestamp: secs(clock), deletionGracePeriodSeconds: 0 }),
    latencyUs: 3000,
    reason: '',
  });
}

/** The initial population of a scaled log: the controller creating PER_RS pods for each ReplicaSet. */
const initial: Array<(typeof pods)[number]> = scaled
  ? RSS.flatMap((rs) => Array.from({ length: PER_RS }, () => ({ ns: rs.ns, name: `${rs.name}-${suffix()}`, uid: uuid(), rs, node: pick(NODES) })))
  : [];
let initialDone = 0;

function createLine(p: (typeof pods)[number]): string {
  const body = podObject(p, 'Pending', clock);
  const { name: _n, uid: _u, resourceVersion: _r, creationTimestamp: _c, managedFields: _m, ...reqMeta } = body.metadata;
  return line({
    level: 'RequestResponse',
    uri: `/api/v1/namespaces/${p.ns}/pods`,
    verb: 'create',
    user: SA('replicaset-controller'),
    ua: UA_KCM('replicaset-controller'),
    ref: { resource: 'pods', namespace: p.ns, apiVersion: 'v1' },
    code: 201,
    req: { ...body, metadata: reqMeta, status: {} },
    resp: body,
    latencyUs: 6000 + Math.floor(rand() * 10000),
    reason: RS_CTRL_REASON,
  });
}

function next(): string {
  clock += 300 + Math.floor(rand() * 400); // ~2000 req/s
  if (initialDone < initial.length) {
    const p = initial[initialDone++]!;
    pods.push(p);
    return createLine(p);
  }
  if (pendingFinal.length && pendingFinal[0]!.at <= clock) return finalDelete(pendingFinal.shift()!);
  const x = rand();
  const node = pick(NODES);
  if (x < 0.4) {
    // lease renewals
    const leader = rand() < 0.1;
    const name = leader ? pick(['kube-controller-manager', 'kube-scheduler']) : node;
    const ns = leader ? 'kube-system' : 'kube-node-lease';
    return line({
      level: 'Request',
      uri: `/apis/coordination.k8s.io/v1/namespaces/${ns}/leases/${name}?timeout=10s`,
      verb: 'update',
      user: leader ? { username: `system:${name}`, groups: ['system:authenticated'] } : NODE_USER(node),
      ua: leader ? `${name}/v1.33.1 (linux/amd64) kubernetes/8adc0f0/leader-election` : UA_KUBELET,
      ref: { resource: 'leases', namespace: ns, name, uid: uuid(), apiGroup: 'coordination.k8s.io', apiVersion: 'v1', resourceVersion: String(rv) },
      code: 200,
      req: {
        kind: 'Lease',
        apiVersion: 'coordination.k8s.io/v1',
        metadata: { name, namespace: ns, uid: uuid(), resourceVersion: String(++rv), creationTimestamp: '2025-03-01T08:00:00Z' },
        spec: { holderIdentity: leader ? `cp-0_${uuid()}` : name, leaseDurationSeconds: 40, renewTime: micro(clock) },
      },
      latencyUs: 1500 + Math.floor(rand() * 3000),
    });
  }
  if (x < 0.57) {
    const ns = pick([...NAMESPACES, 'kube-system']);
    const get = rand() < 0.8;
    const name = pick(['kube-root-ca.crt', 'app-config', 'feature-flags', 'extension-apiserver-authentication']);
    return line({
      level: 'Metadata',
      uri: `/api/v1/namespaces/${ns}/configmaps/${name}`,
      verb: get ? 'get' : 'update',
      user: SA(pick(['root-ca-cert-publisher', 'default', 'config-reloader'])),
      ua: `config-reloader/v0.9.1 (linux/amd64)`,
      ref: { resource: 'configmaps', namespace: ns, name, apiVersion: 'v1' },
      code: 200,
      latencyUs: 800 + Math.floor(rand() * 2000),
    });
  }
  if (x < 0.76) {
    if (rand() < 0.7) {
      return line({
        level: 'Request',
        uri: `/api/v1/nodes/${node}/status?timeout=10s`,
        verb: 'patch',
        user: NODE_USER(node),
        ua: UA_KUBELET,
        ref: { resource: 'nodes', name: node, apiVersion: 'v1', subresource: 'status' },
        code: 200,
        req: {
          status: {
            $setElementOrder$conditions: [{ type: 'MemoryPressure' }, { type: 'DiskPressure' }, { type: 'PIDPressure' }, { type: 'Ready' }],
            conditions: ['MemoryPressure', 'DiskPressure', 'PIDPressure', 'Ready'].map((t) => ({ lastHeartbeatTime: secs(clock), type: t })),
            allocatable: { cpu: '7910m', 'ephemeral-storage': '95551679124', memory: '31792840Ki', pods: '110' },
            images: Array.from({ length: 6 }, () => ({ names: [`registry.example.com/${pick(NAMESPACES)}/${pick(APPS)}@sha256:${hex(64)}`], sizeBytes: Math.floor(rand() * 4e8) })),
          },
        },
        latencyUs: 3000 + Math.floor(rand() * 5000),
        reason: '',
      });
    }
    return line({
      level: 'Metadata',
      uri: `/api/v1/nodes/${node}?resourceVersion=0&timeout=10s`,
      verb: 'get',
      user: NODE_USER(node),
      ua: UA_KUBELET,
      ref: { resource: 'nodes', name: node, apiVersion: 'v1' },
      code: 200,
      latencyUs: 400 + Math.floor(rand() * 800),
      reason: '',
    });
  }
  if (x < 0.91) {
    // Events: mostly kubelet/scheduler about pods; a few by the RS controller.
    const byRs = rand() < 0.02;
    const r = pick(RSS);
    const podName = `${r.name}-${suffix()}`;
    const evName = `${byRs ? r.name : podName}.${hex(16)}`;
    const body = {
      kind: 'Event',
      apiVersion: 'v1',
      metadata: { name: evName, namespace: r.ns, creationTimestamp: null },
      involvedObject: byRs
        ? { kind: 'ReplicaSet', namespace: r.ns, name: r.name, uid: r.uid, apiVersion: 'apps/v1', resourceVersion: String(r.rv) }
        : { kind: 'Pod', namespace: r.ns, name: podName, uid: uuid(), apiVersion: 'v1', resourceVersion: String(rv), fieldPath: `spec.containers{${r.app}}` },
      reason: byRs ? 'SuccessfulCreate' : pick(['Pulled', 'Created', 'Started', 'Scheduled', 'Killing']),
      message: byRs ? `Created pod: ${podName}` : `Container image "registry.example.com/${r.ns}/${r.app}:1.7" already present on machine`,
      source: byRs ? { component: 'replicaset-controller' } : { component: 'kubelet', host: node },
      firstTimestamp: secs(clock),
      lastTimestamp: secs(clock),
      count: 1,
      type: 'Normal',
      eventTime: null,
      reportingComponent: byRs ? 'replicaset-controller' : 'kubelet',
      reportingInstance: byRs ? '' : node,
    };
    return line({
      level: 'Request',
      uri: `/api/v1/namespaces/${r.ns}/events`,
      verb: 'create',
      user: byRs ? SA('replicaset-controller') : NODE_USER(node),
      ua: byRs ? UA_KCM('replicaset-controller') : UA_KUBELET,
      ref: { resource: 'events', namespace: r.ns, name: evName, apiVersion: 'v1' },
      code: 201,
      req: body,
      latencyUs: 1500 + Math.floor(rand() * 3000),
      reason: byRs ? RS_CTRL_REASON : '',
    });
  }
  if (x < 0.95) {
    const ns = pick(NAMESPACES);
    const kind = pick(['secrets', 'endpointslices', 'serviceaccounts']);
    return line({
      level: 'Metadata',
      uri: kind === 'endpointslices' ? `/apis/discovery.k8s.io/v1/namespaces/${ns}/endpointslices` : `/api/v1/namespaces/${ns}/${kind}`,
      verb: 'list',
      user: NODE_USER(node),
      ua: UA_KUBELET,
      ref: { resource: kind, namespace: ns, apiVersion: 'v1', ...(kind === 'endpointslices' ? { apiGroup: 'discovery.k8s.io' } : {}) },
      code: 200,
      latencyUs: 2000 + Math.floor(rand() * 8000),
    });
  }
  // ~5 %: pods and replicasets.
  const y = rand();
  const r = pick(RSS);
  if (y < 0.35 || pods.length < 20) {
    if (y < 0.25 && pods.length >= 20) {
      const p = pick(pods);
      return line({
        level: 'Metadata',
        uri: `/api/v1/namespaces/${p.ns}/pods/${p.name}`,
        verb: 'get',
        user: NODE_USER(p.node),
        ua: UA_KUBELET,
        ref: { resource: 'pods', namespace: p.ns, name: p.name, apiVersion: 'v1' },
        code: 200,
        latencyUs: 500 + Math.floor(rand() * 800),
      });
    }
    const p = { ns: r.ns, name: `${r.name}-${suffix()}`, uid: uuid(), rs: r, node };
    pods.push(p);
    if (pods.length > maxPods) {
      // --lifecycle: the oldest pod is replaced (a rolling churn); otherwise a fifth is forgotten at once.
      const gone = pods.splice(0, lifecycle ? 1 : Math.ceil(maxPods / 5));
      // The controller scales them away (and the kubelet finishes the deletion ~30 s later).
      if (lifecycle) for (const g of gone) pendingFinal.push({ p: g, at: clock + 30e6 + Math.floor(rand() * 2e6), controller: true });
    }
    const body = podObject(p, 'Pending', clock);
    const { name: _n, uid: _u, resourceVersion: _r, creationTimestamp: _c, managedFields: _m, ...reqMeta } = body.metadata;
    return line({
      level: 'RequestResponse',
      uri: `/api/v1/namespaces/${r.ns}/pods`,
      verb: 'create',
      user: SA('replicaset-controller'),
      ua: UA_KCM('replicaset-controller'),
      ref: { resource: 'pods', namespace: r.ns, apiVersion: 'v1' },
      code: 201,
      req: { ...body, metadata: reqMeta, status: {} },
      resp: body,
      latencyUs: 6000 + Math.floor(rand() * 10000),
      reason: RS_CTRL_REASON,
    });
  }
  const p = pick(pods);
  if (y < 0.6) {
    return line({
      level: 'RequestResponse',
      uri: `/api/v1/namespaces/${p.ns}/pods/${p.name}/status`,
      verb: 'patch',
      user: NODE_USER(p.node),
      ua: UA_KUBELET,
      ref: { resource: 'pods', namespace: p.ns, name: p.name, apiVersion: 'v1', subresource: 'status' },
      code: 200,
      req: { metadata: { uid: p.uid }, status: { $setElementOrder$conditions: [{ type: 'Ready' }], conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: secs(clock) }], phase: 'Running' } },
      resp: podObject(p, 'Running', clock),
      latencyUs: 3000 + Math.floor(rand() * 5000),
      reason: '',
    });
  }
  if (y < 0.7) {
    return line({
      level: 'Request',
      uri: `/api/v1/namespaces/${p.ns}/pods/${p.name}/binding`,
      verb: 'create',
      user: { username: 'system:kube-scheduler', groups: ['system:authenticated'] },
      ua: 'kube-scheduler/v1.33.1 (linux/amd64) kubernetes/8adc0f0/scheduler',
      ref: { resource: 'pods', namespace: p.ns, name: p.name, apiVersion: 'v1', subresource: 'binding' },
      code: 201,
      req: { kind: 'Binding', apiVersion: 'v1', metadata: { name: p.name, namespace: p.ns, uid: p.uid }, target: { kind: 'Node', name: p.node } },
      latencyUs: 2000 + Math.floor(rand() * 3000),
    });
  }
  if (y < 0.82) {
    if (lifecycle) {
      pods.splice(pods.indexOf(p), 1);
      pendingFinal.push({ p, at: clock + 30e6 + Math.floor(rand() * 2e6), controller: false });
    }
    return line({
      level: 'RequestResponse',
      uri: `/api/v1/namespaces/${p.ns}/pods/${p.name}`,
      verb: 'delete',
      user: SA('replicaset-controller'),
      ua: UA_KCM('replicaset-controller'),
      ref: { resource: 'pods', namespace: p.ns, name: p.name, apiVersion: 'v1' },
      code: 200,
      req: { kind: 'DeleteOptions', apiVersion: 'meta.k8s.io/v1' },
      resp: podObject(p, 'Running', clock, { deletionTimestamp: secs(clock + 30e6), deletionGracePeriodSeconds: 30 }),
      latencyUs: 4000 + Math.floor(rand() * 6000),
      reason: RS_CTRL_REASON,
    });
  }
  if (y < 0.95) {
    const random = 2 + Math.floor(rand() * 8);
    const replicas = scaled ? PER_RS : random;
    return line({
      level: 'RequestResponse',
      uri: `/apis/apps/v1/namespaces/${r.ns}/replicasets/${r.name}/status`,
      verb: 'update',
      user: SA('replicaset-controller'),
      ua: UA_KCM('replicaset-controller'),
      ref: { resource: 'replicasets', namespace: r.ns, name: r.name, uid: r.uid, apiGroup: 'apps', apiVersion: 'v1', resourceVersion: String(rv), subresource: 'status' },
      code: 200,
      req: rsObject(r, replicas),
      resp: rsObject(r, replicas),
      latencyUs: 3000 + Math.floor(rand() * 5000),
      reason: RS_CTRL_REASON,
    });
  }
  return line({
    level: 'Metadata',
    uri: `/apis/apps/v1/namespaces/${r.ns}/replicasets/${r.name}`,
    verb: 'get',
    user: SA('replicaset-controller'),
    ua: UA_KCM('replicaset-controller'),
    ref: { resource: 'replicasets', namespace: r.ns, name: r.name, apiGroup: 'apps', apiVersion: 'v1' },
    code: 200,
    latencyUs: 500 + Math.floor(rand() * 800),
    reason: RS_CTRL_REASON,
  });
}

/** The line as the chosen log store exports it (its time: the Event's stageTimestamp, to the ms). */
let ecsOffset = 0;
function wrap(l: string): string {
  if (wrapMode === 'plain') return l;
  const i = l.indexOf('"stageTimestamp":"') + 18;
  const ms = l.slice(i, i + 23) + 'Z';
  if (wrapMode === 'cloudwatch') return `${ms} ${l}`;
  ecsOffset += l.length + 1;
  return (
    `{"@timestamp":"${ms}","agent":{"name":"cp-1","type":"filebeat","version":"8.13.4"},` +
    `"data_stream":{"dataset":"kubernetes.audit_logs","namespace":"default","type":"logs"},"ecs":{"version":"8.11.0"},` +
    `"event":{"dataset":"kubernetes.audit_logs","kind":"event"},"host":{"name":"cp-1"},"input":{"type":"filestream"},` +
    `"kubernetes":{"audit":${l}},"log":{"file":{"path":"/var/log/kubernetes/kube-apiserver-audit.log"},"offset":${ecsOffset}}}`
  );
}

mkdirSync(dirname(outPath), { recursive: true });
const out = createWriteStream(outPath);
let written = 0;
let lines = 0;
const t0 = Date.now();
while (written < targetBytes) {
  const parts: string[] = [];
  let size = 0;
  while (size < 4 << 20 && written + size < targetBytes) {
    const l = wrap(next()) + '\n';
    parts.push(l);
    size += l.length;
    lines++;
  }
  const chunk = parts.join('');
  written += Buffer.byteLength(chunk);
  if (!out.write(chunk)) await new Promise<void>((res) => out.once('drain', () => res()));
}
await new Promise<void>((res) => out.end(() => res()));
process.stderr.write(`wrote ${outPath}: ${(written / 1e6).toFixed(1)} MB, ${lines} lines in ${((Date.now() - t0) / 1000).toFixed(1)} s\n`);
