/**
 * deploy/ against the real kube-apiserver (issue #24, "check the manifests against the real
 * apiserver"): every object of deploy/kexp-serve.yaml — Namespace, ServiceAccount, ClusterRole,
 * ClusterRoleBinding, Role, RoleBinding, Deployment, Service — is sent as a server-side dry-run
 * (`?dryRun=All`: decoded, defaulted, validated and admitted, never stored) over raw HTTPS with
 * the admin certificate (no kubectl here), and each must be accepted and not stored.
 * deploy/servicemonitor.yaml and deploy/prometheusrule.yaml need the Prometheus Operator's CRDs,
 * which this control plane does not install: the apiserver answers 404 for their resources, and
 * the test asserts exactly that (they are checked by test/deploy/rules.test.ts instead).
 *
 * Then the RBAC is applied for real and `kexp serve -A` runs with a token of the kexp-serve
 * ServiceAccount (TokenRequest): it turns ready with no 403 (the roles grant everything serve
 * watches, the kube-controller-manager Lease included), and the same token may not read a Secret
 * nor write a pod (read-only). Ctrl-C (SIGINT) and SIGTERM stop serve with the exit codes the
 * README documents (130, 0). Needs `npm run build` first. About 40 s.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import https from 'node:https';
import YAML from 'yaml';
import { startControlPlane, apiRequest, type ControlPlane } from './control-plane/control-plane.js';
import { WORKLOAD_CONTROLLERS } from './scenarios/run-workload-scenarios.js';
import { until } from './scenarios/scenarios.js';
import { startKexp, waitFor } from '../support/spawn-cli.js';

const DEPLOY = path.resolve(new URL('../../deploy', import.meta.url).pathname);
let cp: ControlPlane;
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kexp-serve-manifests-'));

before(async () => {
  cp = await startControlPlane({ controllers: WORKLOAD_CONTROLLERS, leaderElect: true });
});

after(async () => {
  await cp?.stop();
  fs.rmSync(tmp, { recursive: true, force: true });
});

type Obj = { apiVersion: string; kind: string; metadata: { name: string; namespace?: string } };

/** The collection path of an object (the kinds deploy/ uses). */
function collection(o: Obj): string {
  const plural: Record<string, string> = {
    Namespace: 'namespaces', ServiceAccount: 'serviceaccounts', ClusterRole: 'clusterroles', ClusterRoleBinding: 'clusterrolebindings',
    Role: 'roles', RoleBinding: 'rolebindings', Deployment: 'deployments', Service: 'services', ServiceMonitor: 'servicemonitors', PrometheusRule: 'prometheusrules',
  };
  const res = plural[o.kind];
  assert.ok(res, `a kind this test knows: ${o.kind}`);
  const group = o.apiVersion.includes('/') ? `/apis/${o.apiVersion}` : `/api/${o.apiVersion}`;
  return `${group}${o.metadata.namespace ? `/namespaces/${o.metadata.namespace}` : ''}/${res}`;
}

function docs(file: string): Obj[] {
  return YAML.parseAllDocuments(fs.readFileSync(path.join(DEPLOY, file), 'utf8')).map((d) => d.toJSON() as Obj).filter(Boolean);
}

/** A request with a bearer token (the ServiceAccount's), not the admin certificate. */
function asToken(token: string, method: string, p: string, body?: unknown): Promise<number> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const req = https.request(new URL(p, cp.apiURL), {
      method, ca: fs.readFileSync(cp.caPath), headers: { Authorization: `Bearer ${token}`, Accept: 'application/json', ...(payload ? { 'Content-Type': 'application/json' } : {}) },
    }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(payload);
  });
}

test('deploy/kexp-serve.yaml: every core object passes a server-side dry-run; the Operator CRDs are not installed (404)', async (t) => {
  const objs = docs('kexp-serve.yaml');
  assert.deepEqual(objs.map((o) => o.kind), ['Namespace', 'ServiceAccount', 'ClusterRole', 'ClusterRoleBinding', 'Role', 'RoleBinding', 'Deployment', 'Service']);
  const accepted: string[] = [];
  for (const o of objs) {
    const r = await apiRequest(cp, 'POST', `${collection(o)}?dryRun=All&fieldValidation=Strict`, o);
    assert.equal(r.status, 201, `${o.kind} ${o.metadata.name}: ${r.status} ${r.text.slice(0, 500)}`);
    assert.equal((r.body as Obj).kind, o.kind);
    // A dry-run stores nothing.
    const got = await apiRequest(cp, 'GET', `${collection(o)}/${o.metadata.name}`);
    assert.equal(got.status, 404, `${o.kind} ${o.metadata.name} was not stored by the dry-run`);
    if (o.kind === 'Namespace') {
      // The namespaced objects are admitted only into a namespace that exists.
      const made = await apiRequest(cp, 'POST', collection(o), o);
      assert.equal(made.status, 201, made.text.slice(0, 300));
    }
    accepted.push(`${o.kind}/${o.metadata.name}`);
  }
  t.diagnostic(`accepted by the apiserver (dryRun=All): ${accepted.join(', ')}`);
  // The Deployment as the apiserver defaulted it: still non-root, no privilege escalation, bounded.
  const dep = objs.find((o) => o.kind === 'Deployment')!;
  const d = (await apiRequest<any>(cp, 'POST', `${collection(dep)}?dryRun=All`, dep)).body;
  const c = d.spec.template.spec.containers[0];
  assert.equal(d.spec.template.spec.securityContext.runAsNonRoot, true);
  assert.equal(c.securityContext.allowPrivilegeEscalation, false);
  assert.ok(c.resources.limits.memory && c.resources.requests.cpu);

  // The Prometheus Operator's kinds: no such resource on a cluster without its CRDs.
  for (const file of ['servicemonitor.yaml', 'prometheusrule.yaml']) {
    for (const o of docs(file)) {
      const r = await apiRequest(cp, 'POST', `${collection(o)}?dryRun=All`, o);
      assert.equal(r.status, 404, `${o.kind}: the monitoring.coreos.com CRDs are not installed on this control plane, so the apiserver has no such resource (${r.status})`);
    }
  }
  t.diagnostic('ServiceMonitor and PrometheusRule: not checked here — the Prometheus Operator CRDs are not installed (404); test/deploy/rules.test.ts checks their rules');
});

test('the RBAC of deploy/kexp-serve.yaml is enough for `kexp serve -A` (no 403, Lease seen) and grants no Secret and no write', async () => {
  const objs = docs('kexp-serve.yaml');
  for (const o of objs) {
    if (o.kind === 'Deployment' || o.kind === 'Service') continue;
    const r = await apiRequest(cp, 'POST', collection(o), o);
    assert.ok(r.status === 201 || r.status === 409, `${o.kind} ${o.metadata.name}: ${r.status} ${r.text.slice(0, 300)}`);
  }
  const sa = objs.find((o) => o.kind === 'ServiceAccount')!;
  const tr = await until('a token of the ServiceAccount', 30_000, async () => {
    const r = await apiRequest<any>(cp, 'POST', `/api/v1/namespaces/${sa.metadata.namespace}/serviceaccounts/${sa.metadata.name}/token`, { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 3600 } });
    return r.status === 201 ? (r.body.status.token as string) : undefined;
  });
  const kubeconfig = path.join(tmp, 'kubeconfig-sa');
  fs.writeFileSync(kubeconfig, YAML.stringify({
    apiVersion: 'v1', kind: 'Config', 'current-context': 'sa',
    clusters: [{ name: 'cp', cluster: { server: cp.apiURL, 'certificate-authority': cp.caPath } }],
    users: [{ name: 'kexp-serve', user: { token: tr } }],
    contexts: [{ name: 'sa', context: { cluster: 'cp', user: 'kexp-serve' } }],
  }), { mode: 0o600 });
  // Read-only: no Secret, no pod write (checked with the token itself).
  assert.equal(await asToken(tr, 'GET', '/api/v1/secrets'), 403);
  assert.equal(await asToken(tr, 'GET', '/api/v1/namespaces/kube-system/secrets'), 403);
  assert.equal(await asToken(tr, 'POST', '/api/v1/namespaces/default/pods', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'x' }, spec: { containers: [{ name: 'x', image: 'x' }] } }), 403);
  assert.equal(await asToken(tr, 'GET', '/api/v1/pods?limit=1'), 200);

  const serve = startKexp(['serve', '--kubeconfig', kubeconfig, '-A', '--listen', '127.0.0.1:0', '--interval', '1s'], { timeoutMs: 90_000 });
  try {
    await waitFor('serve to listen', 30_000, () => /listening on http:\/\/\S+/.test(serve.stderr()));
    await waitFor('ready', 45_000, () => /kexp serve: ready/.test(serve.stderr()) || serve.child.exitCode !== null);
    assert.match(serve.stderr(), /kexp serve: ready/, serve.stderr());
    const url = /listening on (http:\/\/\S+)/.exec(serve.stderr())![1]!;
    await until('the Lease observed', 20_000, async () => /^kexp_kcm_lease_observed 1$/m.test(await (await fetch(`${url}/metrics`)).text()));
    assert.doesNotMatch(serve.stderr(), /forbidden|\b403\b|cannot (list|watch)/i, 'no watch refused');
  } finally {
    serve.child.kill('SIGTERM');
  }
  const done = await serve.done;
  assert.equal(done.code, 0, done.stderr);
});

test('Ctrl-C (SIGINT) stops `kexp serve` with exit 130, SIGTERM with 0, each in one line', async () => {
  for (const [signal, code] of [['SIGINT', 130], ['SIGTERM', 0]] as const) {
    const serve = startKexp(['serve', '--kubeconfig', cp.kubeconfigPath, '-A', '--listen', '127.0.0.1:0', '--interval', '1s'], { timeoutMs: 60_000 });
    try {
      await waitFor('ready', 45_000, () => /kexp serve: ready/.test(serve.stderr()) || serve.child.exitCode !== null);
    } finally {
      serve.child.kill(signal);
    }
    const done = await serve.done;
    assert.equal(done.code, code, `${signal}: ${done.stderr}`);
    assert.doesNotMatch(done.stderr, /\n\s+at .+:\d+:\d+\)?/, 'no stack trace');
    assert.match(done.stderr.trim().split('\n').pop()!, signal === 'SIGINT' ? /^kexp: interrupted$/ : /^kexp serve: stopped \(SIGTERM\)$/);
  }
});
