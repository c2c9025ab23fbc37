/**
 * `kexp explain` and `kexp adopt` against a real control plane (kube-apiserver + KCM + etcd,
 * test/e2e/control-plane). One control plane for the file; each test has its own namespace.
 * Needs `npm run build` first (the CLI is spawned from bin/run.js).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startControlPlane, apiRequest, type ControlPlane } from './control-plane/control-plane.js';
import { api, replicaSet, until, sleep } from './scenarios/scenarios.js';
import { kexp } from '../support/cli.js';
import { validateReport } from '../support/report-schema.js';

const BIN = path.resolve(new URL('../../bin/run.js', import.meta.url).pathname);
const NODE = 'fake-node-1';
let cp: ControlPlane;
let call: ReturnType<typeof api>;
let env: NodeJS.ProcessEnv;
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kexp-live-explain-'));
let nsCounter = 0;

before(async () => {
  cp = await startControlPlane();
  call = api(cp);
  // The text assertions read whole timeline cells: 100 columns (piped output defaults to 80, which cuts them).
  env = { KUBECONFIG: cp.kubeconfigPath, COLUMNS: '100' };
  await call('POST', '/api/v1/nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name: NODE, labels: { 'kubernetes.io/hostname': NODE } } });
});

after(async () => {
  await cp?.stop();
});

async function namespace(prefix: string): Promise<string> {
  const ns = `${prefix}-${++nsCounter}-${Date.now() % 100000}`;
  await call('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  await until(`default SA in ${ns}`, 30000, async () => (await apiRequest(cp, 'GET', `/api/v1/namespaces/${ns}/serviceaccounts/default`)).status === 200);
  return ns;
}

async function settled(ns: string, name: string, replicas: number): Promise<void> {
  await until(`${ns}/${name} settled at ${replicas}`, 60000, async () => {
    const rs = await call<any>('GET', `/apis/apps/v1/namespaces/${ns}/replicasets/${name}`);
    return rs.status?.observedGeneration === rs.metadata.generation && (rs.status?.replicas ?? 0) === replicas;
  });
}

async function scale(ns: string, name: string, replicas: number): Promise<void> {
  await call('PATCH', `/apis/apps/v1/namespaces/${ns}/replicasets/${name}`, { spec: { replicas } }, 'application/merge-patch+json');
}

function noStack(s: string): void {
  assert.doesNotMatch(s, /\n\s+at .+:\d+:\d+\)?/, 'no stack trace');
}

function json(r: { stdout: string; stderr: string; code: number | null }): any {
  try {
    return JSON.parse(r.stdout);
  } catch {
    assert.fail(`stdout is not JSON (exit ${r.code}): ${r.stdout.slice(0, 500)}\nstderr: ${r.stderr}`);
  }
}

function schemaOk(report: unknown): void {
  assert.deepEqual(validateReport(report), []);
}

test('healthy ReplicaSet: verdict healthy, exit 0, -o json validates, --html is written', async () => {
  const ns = await namespace('healthy');
  await call('POST', `/apis/apps/v1/namespaces/${ns}/replicasets`, replicaSet('web', ns, 3, { nodeName: NODE }));
  await settled(ns, 'web', 3);
  const html = path.join(tmp, 'healthy.html');
  const t = kexp(['explain', 'web', '-n', ns, '--html', html], { env });
  assert.equal(t.code, 0, t.stderr);
  assert.match(t.stdout, /^Verdict: HEALTHY \[observed\] — healthy: 3\/3 active/m);
  assert.match(t.stdout, /Recent timeline/);
  // The timeline groups creates by second: the three may fall in one second or in two.
  const created = [...t.stdout.matchAll(/observed\s+pod\s+(\d+) pods? created/g)].reduce((n, m) => n + Number(m[1]), 0);
  assert.equal(created, 3, t.stdout);
  assert.match(t.stdout, /unknown\s+snapshot\s+the controller's expectations are not visible/);
  assert.match(t.stdout, /Adoption \(ClaimObject for each candidate pod: keep 3\)/);
  noStack(t.stderr);
  const page = fs.readFileSync(html, 'utf8');
  assert.match(page, /HEALTHY/);
  // The same timeline page as replay and audit: its own scripts only (hashed in the CSP), no network.
  assert.match(page, /Content-Security-Policy" content="default-src &#39;none&#39;; script-src &#39;sha256-/);
  assert.match(page, /connect-src &#39;none&#39;/);
  assert.doesNotMatch(page, /<script[^>]+src=|<link[^>]+href="https?:/);
  const j = kexp(['explain', 'web', '-n', ns, '-o', 'json'], { env });
  assert.equal(j.code, 0, j.stderr);
  const report = json(j);
  schemaOk(report);
  assert.equal(report.generator.command, 'explain');
  assert.equal(report.replicaSets[0].verdict.state, 'healthy');
  assert.equal(report.replicaSets[0].adoption.rows.length, 3);
  assert.equal(report.replicaSets[0].initialState.basis, 'unknown');
});

test('scale-up in flight during --watch: verdict gated, exit 3, an open inferred gated window and a create round', async () => {
  const ns = await namespace('inflight');
  await call('POST', `/apis/apps/v1/namespaces/${ns}/replicasets`, replicaSet('web', ns, 0));
  await settled(ns, 'web', 0);
  // KCM creates at its client QPS (20/s by default): 120 creates take ~6 s, longer than the rest of the watch.
  const child = spawn(process.execPath, [BIN, 'explain', 'web', '-n', ns, '--watch', '4s', '-o', 'json'], { env: { ...process.env, ...env, NO_COLOR: '1' } });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c) => (stdout += c));
  child.stderr.on('data', (c) => (stderr += c));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  await until('the watch to be synced', 20000, async () => /watching .* for 4s/.test(stderr));
  await scale(ns, 'web', 120);
  const code = await exited;
  assert.equal(code, 3, stderr);
  const report = JSON.parse(stdout);
  schemaOk(report);
  const rs = report.replicaSets[0];
  assert.equal(rs.verdict.state, 'gated');
  assert.ok(rs.rounds.some((r: any) => r.kind === 'create' && r.n === 120), JSON.stringify(rs.rounds));
  const open = rs.gatedWindows.find((w: any) => w.endedBy === 'open');
  assert.ok(open, JSON.stringify(rs.gatedWindows));
  assert.equal(open.raised.add, 120);
  assert.ok(open.remaining.add > 0);
  assert.ok(rs.findings.some((f: any) => f.id === 'gated-at-end'));
  assert.equal(report.inputs[1].file, 'live-watch');
  await settled(ns, 'web', 120);
});

test('namespace terminating: creates rejected with NamespaceTerminating → verdict leaked, exit 4 (snapshot and --watch)', async () => {
  const ns = await namespace('leak');
  const CRB = '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/system:controller:namespace-controller';
  const crb = await call<any>('GET', CRB);
  // A ConfigMap with a finalizer keeps the namespace Terminating; with the namespace controller's
  // binding removed for the test, the namespace controller cannot delete the ReplicaSet either
  // (control-plane.md §6.4), so the state stays put while kexp looks at it.
  await call('POST', `/api/v1/namespaces/${ns}/configmaps`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'hold', finalizers: ['kexp.test/hold'] } });
  await call('POST', `/apis/apps/v1/namespaces/${ns}/replicasets`, replicaSet('web', ns, 1, { nodeName: NODE }));
  await settled(ns, 'web', 1);
  await call('DELETE', CRB);
  try {
    await sleep(500);
    await call('DELETE', `/api/v1/namespaces/${ns}`);
    await scale(ns, 'web', 3);
    await until('the RS controller to sync the new spec', 30000, async () => {
      const rs = await call<any>('GET', `/apis/apps/v1/namespaces/${ns}/replicasets/web`);
      return rs.status?.observedGeneration === rs.metadata.generation;
    });
    // The creates were rejected (audit log: 403 with cause NamespaceTerminating), and no pod appeared.
    await until('a NamespaceTerminating rejection in the audit log', 30000, async () => fs.readFileSync(cp.auditLogPath, 'utf8').split('\n').some((l) => l.includes(`"namespace":"${ns}"`) && l.includes('NamespaceTerminating') && l.includes('"verb":"create"')));
    const t = kexp(['explain', 'web', '-n', ns], { env });
    assert.equal(t.code, 4, t.stdout + t.stderr);
    assert.match(t.stdout, /^Verdict: LEAKED \[inferred\] — namespace .* is terminating/m);
    assert.match(t.stdout, /NamespaceTerminating/);
    assert.match(t.stdout, /namespace deletion requested|deletion requested \(phase Termin/); // the cell may be cut to the width
    assert.match(t.stdout, /open, record expires/);
    const j = kexp(['explain', 'web', '-n', ns, '-o', 'json'], { env });
    assert.equal(j.code, 4);
    const report = json(j);
    schemaOk(report);
    assert.equal(report.replicaSets[0].verdict.state, 'leaked');
    assert.ok(report.replicaSets[0].findings.some((f: any) => f.id === 'expectation-leak-namespace-terminating-open'));
    const w = kexp(['explain', 'web', '-n', ns, '--watch', '2s', '-o', 'json'], { env });
    assert.equal(w.code, 4, w.stderr);
    const wr = json(w);
    schemaOk(wr);
    const rs = wr.replicaSets[0];
    assert.equal(rs.verdict.state, 'leaked');
    assert.ok(rs.rounds.some((r: any) => r.kind === 'create' && r.namespaceTerminating === 2), JSON.stringify(rs.rounds));
    assert.ok(rs.findings.some((f: any) => f.id === 'expectation-leak-open'));
  } finally {
    delete crb.metadata.resourceVersion;
    delete crb.metadata.uid;
    delete crb.metadata.creationTimestamp;
    delete crb.metadata.managedFields;
    await call('POST', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', crb);
    await call('PATCH', `/api/v1/namespaces/${ns}/configmaps/hold`, { metadata: { finalizers: null } }, 'application/merge-patch+json').catch(() => undefined);
  }
});

test('ResourceQuota rejects creates: verdict failing (observed), exit 5', async () => {
  const ns = await namespace('quota');
  await call('POST', `/api/v1/namespaces/${ns}/resourcequotas`, { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'pods' }, spec: { hard: { pods: '1' } } });
  await until('quota status', 30000, async () => (await call<any>('GET', `/api/v1/namespaces/${ns}/resourcequotas/pods`)).status?.used?.pods !== undefined);
  await call('POST', `/apis/apps/v1/namespaces/${ns}/replicasets`, replicaSet('web', ns, 3));
  await until('ReplicaFailure condition', 60000, async () => {
    const rs = await call<any>('GET', `/apis/apps/v1/namespaces/${ns}/replicasets/web`);
    return (rs.status?.conditions ?? []).some((c: any) => c.type === 'ReplicaFailure' && c.status === 'True');
  });
  const t = kexp(['explain', 'web', '-n', ns], { env });
  assert.equal(t.code, 5, t.stdout + t.stderr);
  assert.match(t.stdout, /^Verdict: FAILING \[observed\] — creates failing \(1\/3 active\)/m);
  assert.match(t.stdout, /exceeded quota/);
  assert.match(t.stdout, /Warning FailedCreate/);
  assert.match(t.stdout, /Raise the ResourceQuota/);
  schemaOk(json(kexp(['explain', 'web', '-n', ns, '-o', 'json'], { env })));
});

test('ReplicaSet being deleted (held by a finalizer): verdict deleting, exit 0', async () => {
  const ns = await namespace('deleting');
  const rs = replicaSet('web', ns, 2, { nodeName: NODE }) as any;
  rs.metadata.finalizers = ['kexp.test/hold'];
  await call('POST', `/apis/apps/v1/namespaces/${ns}/replicasets`, rs);
  await settled(ns, 'web', 2);
  await call('DELETE', `/apis/apps/v1/namespaces/${ns}/replicasets/web`, { propagationPolicy: 'Orphan' });
  try {
    const t = kexp(['explain', 'web', '-n', ns], { env });
    assert.equal(t.code, 0, t.stderr);
    assert.match(t.stdout, /^Verdict: DELETING \[observed\]/m);
    assert.match(t.stdout, /kexp\.test\/hold/);
  } finally {
    await call('PATCH', `/apis/apps/v1/namespaces/${ns}/replicasets/web`, { metadata: { finalizers: null } }, 'application/merge-patch+json').catch(() => undefined);
  }
});

test('not found: one line, exit 8, with a hint when a Deployment of that name exists; deployment/NAME works', async () => {
  const ns = await namespace('nf');
  const r = kexp(['explain', 'nosuch', '-n', ns], { env });
  assert.equal(r.code, 8);
  assert.equal(r.stdout, '');
  assert.equal(r.stderr.trim(), `kexp: ReplicaSet ${ns}/nosuch not found`);
  await call('POST', `/apis/apps/v1/namespaces/${ns}/deployments`, {
    apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'api' },
    spec: { replicas: 2, selector: { matchLabels: { app: 'api' } }, template: { metadata: { labels: { app: 'api' } }, spec: { containers: [{ name: 'app', image: 'registry.k8s.io/pause:3.10' }] } } },
  });
  const h = kexp(['explain', 'api', '-n', ns], { env });
  assert.equal(h.code, 8);
  assert.match(h.stderr, /ReplicaSet .*\/api not found; a Deployment of that name exists: use deployment\/api/);
  noStack(h.stderr);
  await until('the Deployment\'s ReplicaSet to have 2 pods', 60000, async () => {
    const l = await call<any>('GET', `/apis/apps/v1/namespaces/${ns}/replicasets`);
    return l.items.length === 1 && l.items[0].status?.replicas === 2;
  });
  const d = kexp(['explain', 'deployment/api', '-n', ns, '-o', 'json'], { env });
  assert.equal(d.code, 0, d.stderr);
  const report = json(d);
  schemaOk(report);
  assert.equal(report.replicaSets.length, 1);
  assert.equal(report.replicaSets[0].owner.kind, 'Deployment');
  assert.equal(report.replicaSets[0].verdict.state, 'healthy');
});

test('kexp adopt: live decisions (adopt, release, keep) with CanAdopt\'s live re-read; --from a recording says the re-read is not available', async () => {
  const ns = await namespace('adopt');
  await call('POST', `/apis/apps/v1/namespaces/${ns}/replicasets`, replicaSet('web', ns, 2, { nodeName: NODE }));
  await settled(ns, 'web', 2);
  const pods = (await call<any>('GET', `/api/v1/namespaces/${ns}/pods`)).items;
  // Freeze kube-controller-manager so the orphan and the relabelled pod stay unclaimed/unreleased while kexp looks.
  process.kill(cp.pids.kcm!, 'SIGSTOP');
  try {
    await call('POST', `/api/v1/namespaces/${ns}/pods`, {
      apiVersion: 'v1', kind: 'Pod', metadata: { name: 'handmade', labels: { app: 'web' } },
      spec: { nodeName: NODE, containers: [{ name: 'app', image: 'registry.k8s.io/pause:3.10' }] },
    });
    await call('PATCH', `/api/v1/namespaces/${ns}/pods/${pods[0].metadata.name}`, { metadata: { labels: { app: 'debug' } } }, 'application/merge-patch+json');
    const t = kexp(['adopt', 'web', '-n', ns], { env });
    assert.equal(t.code, 0, t.stderr);
    assert.match(t.stdout, /CanAdopt now: passes — a fresh GET of .*\/web has the same UID/);
    assert.match(t.stdout, /handmade\s+adopt\s+yes/);
    assert.match(t.stdout, new RegExp(`${pods[0].metadata.name}\\s+release\\s+no`));
    assert.match(t.stdout, new RegExp(`${pods[1].metadata.name}\\s+keep\\s+yes`));
    const j = JSON.parse(kexp(['adopt', 'web', '-n', ns, '-o', 'json'], { env }).stdout);
    assert.equal(j.schemaVersion, 'kexp.adopt/v1');
    assert.equal(j.canAdopt.available, true);
    assert.equal(j.canAdopt.ok, true);
    assert.deepEqual(j.summary, { adopt: 1, keep: 1, release: 1 });
  } finally {
    process.kill(cp.pids.kcm!, 'SIGCONT');
  }
  // The controller now adopts the orphan, releases the relabelled pod and creates a replacement.
  await until('adoption and release', 30000, async () => {
    const l = (await call<any>('GET', `/api/v1/namespaces/${ns}/pods`)).items;
    const hm = l.find((p: any) => p.metadata.name === 'handmade');
    return hm?.metadata.ownerReferences?.length === 1;
  });
  const rec = path.join(tmp, 'adopt.kexp.jsonl');
  const r = kexp(['record', 'web', '-n', ns, '-f', rec, '--duration', '2s', '-q'], { env });
  assert.equal(r.code, 0, r.stderr);
  const f = kexp(['adopt', 'web', '--from', rec], {});
  assert.equal(f.code, 0, f.stderr);
  assert.match(f.stdout, /CanAdopt now: not available — not available from a recording/);
  assert.match(f.stdout, /handmade\s+keep\s+yes/);
  const fj = JSON.parse(kexp(['adopt', 'web', '--from', rec, '-o', 'json']).stdout);
  assert.equal(fj.canAdopt.available, false);
  assert.equal(fj.source.kind, 'file');
});
