// Smoke test of the local control plane (doc §5–§6):
//   start etcd + kube-apiserver + KCM, create a namespace, a fake Node (before any pod, §6.5),
//   a ReplicaSet (replicas=2, template nodeName=fake-node-1), wait for 2 pods, check the KCM -v=4 log
//   for "Setting expectations" and the audit log for a pod create by
//   system:serviceaccount:kube-system:replicaset-controller, print OK, stop.
//
// Usage (from the repository root):
//   npx tsx test/e2e/control-plane/smoke.ts [--extended] [--run-dir DIR] [--k8s-version 1.37.2]
// --extended additionally scales 2→3, marks a pod Running/Ready, deletes a pod gracefully (stays
// Terminating without a kubelet; the RS creates a replacement), scales to 1, then hits a pods=N
// ResourceQuota (403 FailedCreate) — useful for capturing ground-truth logs.
// Logs are kept in <run-dir>/logs (printed at the end).

import * as fs from 'node:fs';
import { startControlPlane, apiRequest, type ControlPlane } from './control-plane.js';

const RS_USER = 'system:serviceaccount:kube-system:replicaset-controller';

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until<T>(what: string, timeoutMs: number, fn: () => Promise<T | undefined | false>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline) throw new Error(`smoke: timeout waiting for ${what}${last ? ` (last error: ${String(last)})` : ''}`);
    await sleep(200);
  }
}

function must(step: string, r: { status: number; text: string }, ok: number[] = [200, 201]): void {
  if (!ok.includes(r.status)) throw new Error(`smoke: ${step} failed: HTTP ${r.status}: ${r.text.slice(0, 500)}`);
}

interface AuditEvent {
  stage: string;
  verb: string;
  user: { username: string };
  objectRef?: { resource?: string; subresource?: string; namespace?: string; name?: string };
  responseStatus?: { code?: number };
  responseObject?: { metadata?: { name?: string } };
}

function auditEvents(cp: ControlPlane): AuditEvent[] {
  const text = fs.existsSync(cp.auditLogPath) ? fs.readFileSync(cp.auditLogPath, 'utf8') : '';
  return text
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as AuditEvent);
}

async function main(): Promise<void> {
  const t0 = Date.now();
  const extended = process.argv.includes('--extended');
  const cp = await startControlPlane({ runDir: arg('--run-dir'), k8sVersion: arg('--k8s-version') });
  console.log(`smoke: control plane v${cp.k8sVersion} (etcd ${cp.etcdVersion}) ready in ${(cp.startupMs / 1000).toFixed(1)}s at ${cp.apiURL}`);
  console.log(`smoke: run dir ${cp.runDir}`);
  try {
    const ver = await apiRequest<{ gitVersion: string }>(cp, 'GET', '/version');
    must('GET /version', ver, [200]);
    if (ver.body.gitVersion !== `v${cp.k8sVersion}`) throw new Error(`smoke: /version says ${ver.body.gitVersion}`);

    const ns = 'kexp-smoke';
    const api = (m: string, p: string, b?: unknown, ct?: string) => apiRequest<any>(cp, m, p, b, ct);
    must('create namespace', await api('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } }));

    // The ServiceAccount admission plugin needs the namespace's default SA (serviceaccount controller).
    await until('default SA in namespace', 30_000, async () => (await api('GET', `/api/v1/namespaces/${ns}/serviceaccounts/default`)).status === 200);

    must(
      'create node',
      await api('POST', '/api/v1/nodes', {
        apiVersion: 'v1',
        kind: 'Node',
        metadata: { name: 'fake-node-1', labels: { 'kubernetes.io/hostname': 'fake-node-1', 'kubernetes.io/os': 'linux' } },
      }),
    );
    const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    must(
      'patch node status Ready',
      await api(
        'PATCH',
        '/api/v1/nodes/fake-node-1/status',
        {
          status: {
            conditions: [{ type: 'Ready', status: 'True', reason: 'KexpFake', message: 'fake node', lastHeartbeatTime: now, lastTransitionTime: now }],
            capacity: { cpu: '8', memory: '32Gi', pods: '110' },
            allocatable: { cpu: '8', memory: '32Gi', pods: '110' },
          },
        },
        'application/merge-patch+json',
      ),
      [200],
    );

    const rsName = 'smoke-rs';
    must(
      'create replicaset',
      await api('POST', `/apis/apps/v1/namespaces/${ns}/replicasets`, {
        apiVersion: 'apps/v1',
        kind: 'ReplicaSet',
        metadata: { name: rsName, labels: { app: 'smoke' } },
        spec: {
          replicas: 2,
          selector: { matchLabels: { app: 'smoke' } },
          template: {
            metadata: { labels: { app: 'smoke' } },
            spec: { nodeName: 'fake-node-1', containers: [{ name: 'pause', image: 'registry.k8s.io/pause:3.10' }] },
          },
        },
      }),
    );

    const listPods = async () => {
      const r = await api('GET', `/api/v1/namespaces/${ns}/pods?labelSelector=app%3Dsmoke`);
      must('list pods', r, [200]);
      return r.body.items as Array<{ metadata: { name: string; deletionTimestamp?: string } }>;
    };
    const activePods = async () => (await listPods()).filter((p) => !p.metadata.deletionTimestamp);
    const waitActive = (n: number, t = 60_000) =>
      until(`${n} active pods`, t, async () => {
        const a = await activePods();
        return a.length === n ? a : undefined;
      });

    const pods = await waitActive(2);
    console.log(`smoke: 2 pods created: ${pods.map((p) => p.metadata.name).join(', ')}`);

    await until('"Setting expectations" in KCM log', 30_000, async () => fs.readFileSync(cp.kcmLogPath, 'utf8').includes('"Setting expectations"'));
    console.log('smoke: KCM log has "Setting expectations"');

    const created = await until('audit pod create by replicaset-controller', 30_000, async () => {
      const ev = auditEvents(cp).filter(
        (e) =>
          e.stage === 'ResponseComplete' &&
          e.verb === 'create' &&
          e.objectRef?.resource === 'pods' &&
          !e.objectRef.subresource &&
          e.objectRef.namespace === ns &&
          e.user.username === RS_USER &&
          e.responseStatus?.code === 201,
      );
      return ev.length >= 2 ? ev : undefined;
    });
    console.log(`smoke: audit log has ${created.length} pod creates by ${RS_USER} (${created.map((e) => e.responseObject?.metadata?.name).join(', ')})`);

    if (extended) {
      const scale = async (n: number) =>
        must(`scale to ${n}`, await api('PATCH', `/apis/apps/v1/namespaces/${ns}/replicasets/${rsName}/scale`, { spec: { replicas: n } }, 'application/merge-patch+json'), [200]);

      await scale(3);
      const three = await waitActive(3);
      console.log('smoke(ext): scaled to 3');

      const ts = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
      const cond = (type: string) => ({ type, status: 'True', lastTransitionTime: ts });
      must(
        'mark pod ready',
        await api(
          'PATCH',
          `/api/v1/namespaces/${ns}/pods/${three[0].metadata.name}/status`,
          { status: { phase: 'Running', conditions: ['PodScheduled', 'Initialized', 'ContainersReady', 'Ready'].map(cond) } },
          'application/merge-patch+json',
        ),
        [200],
      );
      await until('readyReplicas=1', 30_000, async () => (await api('GET', `/apis/apps/v1/namespaces/${ns}/replicasets/${rsName}`)).body.status?.readyReplicas === 1);
      console.log('smoke(ext): readyReplicas=1');

      must('graceful delete pod', await api('DELETE', `/api/v1/namespaces/${ns}/pods/${three[1].metadata.name}`), [200]);
      await until('replacement pod', 30_000, async () => {
        const all = await listPods();
        return all.length === 4 && all.filter((p) => !p.metadata.deletionTimestamp).length === 3;
      });
      console.log(`smoke(ext): ${three[1].metadata.name} terminating, replacement created`);

      await scale(1);
      await waitActive(1);
      console.log('smoke(ext): scaled to 1');

      // Quota: pods=2 counts non-terminal pods (terminating ones too until their grace period ends).
      must(
        'create quota',
        await api('POST', `/api/v1/namespaces/${ns}/resourcequotas`, { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'pods-quota' }, spec: { hard: { pods: '2' } } }),
      );
      await until('quota status', 30_000, async () => {
        const q = (await api('GET', `/api/v1/namespaces/${ns}/resourcequotas/pods-quota`)).body;
        return q.status?.hard?.pods !== undefined && q.status?.used?.pods !== undefined;
      });
      await scale(5);
      await until('FailedCreate 403 in audit log', 30_000, async () =>
        auditEvents(cp).some(
          (e) => e.verb === 'create' && e.objectRef?.resource === 'pods' && e.user.username === RS_USER && e.responseStatus?.code === 403,
        ),
      );
      console.log('smoke(ext): quota rejected pod create (403)');
      await sleep(2000);
    }

    console.log(`smoke: OK (${((Date.now() - t0) / 1000).toFixed(1)}s total)`);
  } finally {
    const ts = Date.now();
    await cp.stop();
    console.log(`smoke: stopped in ${((Date.now() - ts) / 1000).toFixed(1)}s; logs kept in ${cp.runDir}/logs`);
  }
}

main().catch((e: unknown) => {
  console.error(e instanceof Error ? e.message : String(e));
  process.exitCode = 1;
});
