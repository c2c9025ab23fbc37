/**
 * Scripted ReplicaSet scenarios run against the real control plane (kube-apiserver +
 * kube-controller-manager built from Go modules). Each scenario gets its own namespace
 * and a kexp recording that starts before the first object is created, so the model sees
 * every round from its start (control-plane.md §6 for the kubelet-less tricks used here).
 */
import { apiRequest, type ControlPlane } from '../control-plane/control-plane.js';

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface ScenarioContext {
  cp: ControlPlane;
  ns: string;
  log: (m: string) => void;
}

export interface Scenario {
  name: string;
  /** What a reader of examples/ should learn from it. */
  summary: string;
  /** The ReplicaSet the recording is about (`deployment/NAME` for rollouts). */
  target: string;
  run(ctx: ScenarioContext): Promise<void>;
}

type Api = <T = any>(method: string, path: string, body?: unknown, ct?: string) => Promise<T>;

export function api(cp: ControlPlane): Api {
  return async (method, path, body, ct) => {
    const r = await apiRequest(cp, method, path, body, ct);
    if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${(r.body as { message?: string })?.message ?? r.text.slice(0, 200)}`);
    return r.body as never;
  };
}

export async function until<T>(what: string, timeoutMs: number, fn: () => Promise<T | undefined | false>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline) throw new Error(`scenario: timeout waiting for ${what}${last ? ` (last error: ${String(last)})` : ''}`);
    await sleep(200);
  }
}

export function replicaSet(name: string, ns: string, replicas: number, opts: { nodeName?: string; labels?: Record<string, string> } = {}) {
  const labels = opts.labels ?? { app: name };
  return {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: { name, namespace: ns, labels },
    spec: {
      replicas,
      selector: { matchLabels: labels },
      template: {
        metadata: { labels },
        spec: {
          ...(opts.nodeName ? { nodeName: opts.nodeName } : {}),
          terminationGracePeriodSeconds: 30,
          containers: [{ name: 'app', image: 'registry.k8s.io/pause:3.10', env: [{ name: 'API_TOKEN', value: 'not-a-real-secret' }] }],
        },
      },
    },
  };
}

export const NODE = 'fake-node-1';

/** The fake Node pods are bound to (no kubelet runs it); scenarios running side by side may both create it. */
export async function ensureNode(call: Api): Promise<void> {
  try {
    await call('GET', `/api/v1/nodes/${NODE}`);
  } catch {
    await call('POST', '/api/v1/nodes', {
      apiVersion: 'v1', kind: 'Node',
      metadata: { name: NODE, labels: { 'kubernetes.io/hostname': NODE, 'kubernetes.io/os': 'linux' } },
    }).catch((e: Error) => {
      if (!/: 409 /.test(e.message)) throw e;
    });
  }
}

async function pods(call: Api, ns: string, selector: string): Promise<any[]> {
  const l = await call<{ items: any[] }>('GET', `/api/v1/namespaces/${ns}/pods?labelSelector=${encodeURIComponent(selector)}`);
  return l.items;
}

async function rsStatus(call: Api, ns: string, name: string): Promise<any> {
  return call('GET', `/apis/apps/v1/namespaces/${ns}/replicasets/${name}`);
}

/** Waits until the RS controller has synced the latest spec and reports `active` replicas. */
async function settled(call: Api, ns: string, name: string, active: number, timeoutMs = 60000): Promise<void> {
  await until(`${ns}/${name} to report ${active} replicas`, timeoutMs, async () => {
    const rs = await rsStatus(call, ns, name);
    return rs.status?.observedGeneration === rs.metadata.generation && (rs.status?.replicas ?? 0) === active;
  });
}

export async function scale(call: Api, ns: string, name: string, replicas: number): Promise<void> {
  await call('PATCH', `/apis/apps/v1/namespaces/${ns}/replicasets/${name}`, { spec: { replicas } }, 'application/merge-patch+json');
}

export async function markReady(call: Api, ns: string, pod: any): Promise<void> {
  const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  const cond = (type: string) => ({ type, status: 'True', lastTransitionTime: now });
  await call('PATCH', `/api/v1/namespaces/${ns}/pods/${pod.metadata.name}/status`, {
    status: { phase: 'Running', conditions: ['PodScheduled', 'Initialized', 'ContainersReady', 'Ready'].map(cond) },
  }, 'application/merge-patch+json');
}

export const SCENARIOS: Scenario[] = [
  {
    name: 'scale-up-gated',
    summary: 'A new ReplicaSet scales 0→5: the controller raises add=5, creates in slow-start batches 1,2,2 and is gated until all five ADDs are observed.',
    target: 'web',
    async run({ cp, ns }) {
      const call = api(cp);
      await call('POST', `/apis/apps/v1/namespaces/${ns}/replicasets`, replicaSet('web', ns, 0));
      await sleep(1500);
      await scale(call, ns, 'web', 5);
      await settled(call, ns, 'web', 5);
    },
  },
  {
    name: 'quota-rejected',
    summary: 'Scale 0→5 under a ResourceQuota of 2 pods: creates beyond the quota fail with 403, are walked back at once, so the controller is not gated; it retries with backoff.',
    target: 'web',
    async run({ cp, ns }) {
      const call = api(cp);
      await call('POST', `/api/v1/namespaces/${ns}/resourcequotas`, { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'pods' }, spec: { hard: { pods: '2' } } });
      await until('quota status', 30000, async () => {
        const q = await call<any>('GET', `/api/v1/namespaces/${ns}/resourcequotas/pods`);
        return q.status?.hard?.pods !== undefined && q.status?.used?.pods !== undefined;
      });
      await call('POST', `/apis/apps/v1/namespaces/${ns}/replicasets`, replicaSet('web', ns, 0));
      await sleep(1500);
      await scale(call, ns, 'web', 5);
      await settled(call, ns, 'web', 2);
      await sleep(8000);
    },
  },
  {
    name: 'namespace-terminating-leak',
    summary: 'The namespace is deleted while the ReplicaSet scales up: creates are rejected with NamespaceTerminating, counted as successes, so add stays >0 (a leak) until the namespace controller deletes the ReplicaSet.',
    target: 'web',
    async run({ cp, ns }) {
      const call = api(cp);
      await ensureNode(call);
      // A ConfigMap with a finalizer keeps the namespace Terminating after its content is gone.
      await call('POST', `/api/v1/namespaces/${ns}/configmaps`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'hold', finalizers: ['kexp.test/hold'] } });
      await call('POST', `/apis/apps/v1/namespaces/${ns}/replicasets`, replicaSet('web', ns, 0, { nodeName: NODE }));
      await sleep(1500);
      await call('DELETE', `/api/v1/namespaces/${ns}`);
      await scale(call, ns, 'web', 3);
      await until('the ReplicaSet to be deleted by the namespace controller', 60000, async () => {
        const r = await apiRequest(cp, 'GET', `/apis/apps/v1/namespaces/${ns}/replicasets/web`);
        return r.status === 404;
      });
      await sleep(2000);
    },
  },
  {
    name: 'scale-down-graceful',
    summary: 'Scale 5→2 with pods bound to a node and Running/Ready: the controller picks 3 pods, raises del=3 keyed by namespace/name; each graceful deletion (deletionTimestamp set) is counted once; later force-deletes change nothing.',
    target: 'web',
    async run({ cp, ns }) {
      const call = api(cp);
      await ensureNode(call);
      await call('POST', `/apis/apps/v1/namespaces/${ns}/replicasets`, replicaSet('web', ns, 5, { nodeName: NODE }));
      await settled(call, ns, 'web', 5);
      for (const p of await pods(call, ns, 'app=web')) await markReady(call, ns, p);
      await sleep(1500);
      await scale(call, ns, 'web', 2);
      await settled(call, ns, 'web', 2);
      await sleep(1500);
      for (const p of await pods(call, ns, 'app=web')) {
        if (p.metadata.deletionTimestamp) await call('DELETE', `/api/v1/namespaces/${ns}/pods/${p.metadata.name}`, { gracePeriodSeconds: 0 });
      }
      await sleep(1500);
    },
  },
  {
    name: 'pod-deleted-replaced',
    summary: 'A user deletes one of 3 pods: it is not an expected deletion (no del change); the controller sees 2 active pods and creates a replacement (add=1).',
    target: 'web',
    async run({ cp, ns }) {
      const call = api(cp);
      await call('POST', `/apis/apps/v1/namespaces/${ns}/replicasets`, replicaSet('web', ns, 3));
      await settled(call, ns, 'web', 3);
      await sleep(1000);
      const [victim] = await pods(call, ns, 'app=web');
      await call('DELETE', `/api/v1/namespaces/${ns}/pods/${victim.metadata.name}`);
      await sleep(3000);
      await settled(call, ns, 'web', 3);
    },
  },
  {
    name: 'orphan-adopted',
    summary: 'An orphan pod with matching labels exists before the ReplicaSet (replicas=2): the controller adopts it (one live GET, one patch) and creates only one pod.',
    target: 'web',
    async run({ cp, ns }) {
      const call = api(cp);
      await call('POST', `/api/v1/namespaces/${ns}/pods`, {
        apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web-handmade', labels: { app: 'web' } },
        spec: { containers: [{ name: 'app', image: 'registry.k8s.io/pause:3.10' }] },
      });
      await sleep(1000);
      await call('POST', `/apis/apps/v1/namespaces/${ns}/replicasets`, replicaSet('web', ns, 2));
      await settled(call, ns, 'web', 2);
      await sleep(2000);
    },
  },
  {
    name: 'pod-relabelled-released',
    summary: 'An owned pod is relabelled so the selector no longer matches: the controller releases it (patch removing the controllerRef) and creates a replacement.',
    target: 'web',
    async run({ cp, ns }) {
      const call = api(cp);
      await call('POST', `/apis/apps/v1/namespaces/${ns}/replicasets`, replicaSet('web', ns, 2));
      await settled(call, ns, 'web', 2);
      await sleep(1000);
      const [p] = await pods(call, ns, 'app=web');
      await call('PATCH', `/api/v1/namespaces/${ns}/pods/${p.metadata.name}`, { metadata: { labels: { app: 'debug' } } }, 'application/merge-patch+json');
      await sleep(3000);
      await settled(call, ns, 'web', 2);
    },
  },
  {
    name: 'rs-recreated',
    summary: 'A ReplicaSet with 2 pods is deleted (orphaning its pods) and recreated under the same name: deleteRS clears the expectations; the new ReplicaSet (new UID) adopts the orphans.',
    target: 'web',
    async run({ cp, ns }) {
      const call = api(cp);
      await call('POST', `/apis/apps/v1/namespaces/${ns}/replicasets`, replicaSet('web', ns, 2));
      await settled(call, ns, 'web', 2);
      await sleep(1000);
      await call('DELETE', `/apis/apps/v1/namespaces/${ns}/replicasets/web`, { propagationPolicy: 'Orphan' });
      await until('web deleted', 30000, async () => (await apiRequest(cp, 'GET', `/apis/apps/v1/namespaces/${ns}/replicasets/web`)).status === 404);
      await until('pods orphaned', 30000, async () => (await pods(call, ns, 'app=web')).every((p) => !(p.metadata.ownerReferences ?? []).length));
      await call('POST', `/apis/apps/v1/namespaces/${ns}/replicasets`, replicaSet('web', ns, 3));
      await settled(call, ns, 'web', 3);
      await sleep(2000);
    },
  },
  {
    name: 'burst-600',
    summary: 'Scale 0→600: burstReplicas caps a round at 500 (batches 1,2,4,…,245), the controller is gated until all 500 ADDs are seen, then creates the last 100.',
    target: 'web',
    async run({ cp, ns }) {
      const call = api(cp);
      await call('POST', `/apis/apps/v1/namespaces/${ns}/replicasets`, replicaSet('web', ns, 0));
      await sleep(1500);
      await scale(call, ns, 'web', 600);
      await settled(call, ns, 'web', 600, 240000);
      await sleep(2000);
    },
  },
  {
    name: 'deployment-rollout',
    summary: 'A Deployment with 3 replicas is rolled out to a new template: two ReplicaSets scale in opposite directions under the deployment controller.',
    target: 'deployment/web',
    async run({ cp, ns }) {
      const call = api(cp);
      const dep = (image: string) => ({
        apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: ns },
        spec: {
          replicas: 3, progressDeadlineSeconds: 30, selector: { matchLabels: { app: 'web' } },
          strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 1 } },
          template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'app', image }] } },
        },
      });
      await call('POST', `/apis/apps/v1/namespaces/${ns}/deployments`, dep('registry.k8s.io/pause:3.9'));
      await until('first rollout', 60000, async () => {
        const d = await call<any>('GET', `/apis/apps/v1/namespaces/${ns}/deployments/web`);
        return d.status?.replicas === 3 && d.status?.observedGeneration === d.metadata.generation;
      });
      await sleep(1000);
      await call('PATCH', `/apis/apps/v1/namespaces/${ns}/deployments/web`, { spec: { template: { spec: { containers: [{ name: 'app', image: 'registry.k8s.io/pause:3.10' }] } } } }, 'application/strategic-merge-patch+json');
      // Pods never become available without a kubelet; the rollout stops at maxUnavailable.
      await sleep(10000);
    },
  },
];
