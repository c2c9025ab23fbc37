/**
 * Permissions and cluster-access failures of the live commands against a real control plane:
 * the minimal Role of docs/rbac.md is enough; a Role lacking one permission gets one clear
 * line naming the verb, resource and namespace (exit 7); unreachable server, TLS failure and
 * rejected credentials are one line each (exit 7), never a stack trace, never the token.
 * One control plane for the file; each test has its own namespace.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startControlPlane, apiRequest, type ControlPlane } from './control-plane/control-plane.js';
import { api, replicaSet, until } from './scenarios/scenarios.js';
import { kexp } from '../support/cli.js';

let cp: ControlPlane;
let call: ReturnType<typeof api>;
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kexp-live-access-'));
let nsCounter = 0;

before(async () => {
  cp = await startControlPlane();
  call = api(cp);
});

after(async () => {
  await cp?.stop();
});

type Rule = { apiGroups: string[]; resources: string[]; verbs: string[] };

/** The minimal Role of docs/rbac.md. */
const MINIMAL: Rule[] = [
  { apiGroups: ['apps'], resources: ['replicasets'], verbs: ['get', 'list', 'watch'] },
  { apiGroups: [''], resources: ['pods', 'events', 'resourcequotas'], verbs: ['get', 'list', 'watch'] },
  { apiGroups: [''], resources: ['namespaces'], verbs: ['get'] },
  { apiGroups: ['apps'], resources: ['deployments'], verbs: ['get'] },
];

/** The rules docs/rbac.md's Role adds for rc/NAME, ds/NAME and job/NAME (not needed for a ReplicaSet). */
const OTHER_KINDS: Rule[] = [
  { apiGroups: [''], resources: ['replicationcontrollers'], verbs: ['get', 'list', 'watch'] },
  { apiGroups: ['apps'], resources: ['daemonsets', 'controllerrevisions'], verbs: ['get', 'list', 'watch'] },
  { apiGroups: ['batch'], resources: ['jobs'], verbs: ['get', 'list', 'watch'] },
];

/** docs/rbac.md's Role, parsed from the document itself so the test keeps the doc honest. */
function rulesFromDoc(): Rule[] {
  const md = fs.readFileSync(new URL('../../docs/rbac.md', import.meta.url), 'utf8');
  const yaml = /```yaml\n([\s\S]*?)```/.exec(md)?.[1] ?? '';
  const rules: Rule[] = [];
  let cur: Partial<Rule> | undefined;
  for (const raw of yaml.split('\n')) {
    const line = raw.replace(/#.*$/, '').trimEnd();
    const m = /^\s*(-\s+)?(apiGroups|resources|verbs):\s*\[(.*)\]/.exec(line);
    if (!m) continue;
    if (m[1]) {
      cur = {};
      rules.push(cur as Rule);
    }
    (cur as Record<string, string[]>)[m[2]] = m[3].split(',').map((s) => s.trim().replace(/^"|"$/g, '')).filter((s, i, a) => s !== '' || a.length === 1);
  }
  return rules;
}

async function namespace(prefix: string): Promise<string> {
  const ns = `${prefix}-${++nsCounter}-${Date.now() % 100000}`;
  await call('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  await until(`default SA in ${ns}`, 30000, async () => (await apiRequest(cp, 'GET', `/api/v1/namespaces/${ns}/serviceaccounts/default`)).status === 200);
  await call('POST', `/apis/apps/v1/namespaces/${ns}/replicasets`, replicaSet('web', ns, 1));
  await until('web settled', 30000, async () => (await call<any>('GET', `/apis/apps/v1/namespaces/${ns}/replicasets/web`)).status?.replicas === 1);
  return ns;
}

function kubeconfig(name: string, cluster: Record<string, unknown>, user: Record<string, unknown>): string {
  const file = path.join(tmp, `${name}.kubeconfig`);
  fs.writeFileSync(file, JSON.stringify({
    apiVersion: 'v1', kind: 'Config', 'current-context': 'c',
    clusters: [{ name: 'k', cluster }], users: [{ name: 'u', user }], contexts: [{ name: 'c', context: { cluster: 'k', user: 'u' } }],
  }), { mode: 0o600 });
  return file;
}

/** A ServiceAccount bound to a Role with `rules`, and a kubeconfig with a token for it (TokenRequest). */
async function limitedUser(ns: string, name: string, rules: Rule[]): Promise<{ kubeconfig: string; token: string }> {
  await call('POST', `/api/v1/namespaces/${ns}/serviceaccounts`, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name } });
  await call('POST', `/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/roles`, { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name }, rules });
  await call('POST', `/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/rolebindings`, {
    apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name }, subjects: [{ kind: 'ServiceAccount', name, namespace: ns }],
  });
  const tr = await call<any>('POST', `/api/v1/namespaces/${ns}/serviceaccounts/${name}/token`, { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 3600 } });
  const token = tr.status.token as string;
  return { kubeconfig: kubeconfig(`${ns}-${name}`, { server: cp.apiURL, 'certificate-authority': cp.caPath }, { token }), token };
}

function oneLineNoStack(stderr: string, secret?: string): void {
  // The namespace-polling notice (minimal Role, see docs/rbac.md) is a warning, not part of the error.
  const ls = stderr.trim().split('\n').filter((l) => !l.startsWith('warning: cannot list/watch namespaces at cluster scope'));
  assert.equal(ls.length, 1, `one line on stderr, got:\n${stderr}`);
  assert.doesNotMatch(stderr, /\bat .+:\d+:\d+/);
  if (secret) assert.ok(!stderr.includes(secret), 'the token must not be printed');
}

test('the minimal Role of docs/rbac.md is enough for explain (with --watch), record and adopt', async () => {
  const ns = await namespace('rbac-ok');
  const docRules = rulesFromDoc();
  assert.deepEqual(docRules, [...MINIMAL, ...OTHER_KINDS], 'docs/rbac.md Role');
  const u = await limitedUser(ns, 'kexp', docRules);
  const e = kexp(['explain', 'web', '-n', ns, '--watch', '2s', '--kubeconfig', u.kubeconfig]);
  assert.equal(e.code, 0, e.stderr);
  assert.match(e.stdout, /Verdict: HEALTHY/);
  assert.doesNotMatch(e.stderr, /forbidden/);
  // The only warning: the namespace is polled (a Role cannot grant list/watch of the cluster-scoped collection).
  assert.deepEqual(e.stderr.split('\n').filter((l) => l.startsWith('warning:')).map((l) => l.replace(/namespace \S+/, 'namespace NS')), ['warning: cannot list/watch namespaces at cluster scope; polling namespace NS every 2 s instead (its changes are seen up to 2 s late)']);
  const r = kexp(['record', 'web', '-n', ns, '-f', path.join(tmp, 'ok.kexp.jsonl'), '--duration', '2s', '-q', '--kubeconfig', u.kubeconfig]);
  assert.equal(r.code, 0, r.stderr);
  const a = kexp(['adopt', 'web', '-n', ns, '--kubeconfig', u.kubeconfig]);
  assert.equal(a.code, 0, a.stderr);
});

test('a Role lacking `watch events`: explain --watch and record fail with one line naming verb, resource and namespace (exit 7)', async () => {
  const ns = await namespace('rbac-nowatch');
  const rules = MINIMAL.map((r) => (r.resources.includes('events') ? { ...r, resources: ['pods', 'resourcequotas'] } : r)).concat([{ apiGroups: [''], resources: ['events'], verbs: ['get', 'list'] }]);
  const u = await limitedUser(ns, 'nowatch', rules);
  const snap = kexp(['explain', 'web', '-n', ns, '--kubeconfig', u.kubeconfig]);
  assert.equal(snap.code, 0, `a snapshot needs no watch: ${snap.stderr}`);
  const e = kexp(['explain', 'web', '-n', ns, '--watch', '3s', '--kubeconfig', u.kubeconfig]);
  assert.equal(e.code, 7, e.stdout + e.stderr);
  assert.equal(e.stdout, '');
  oneLineNoStack(e.stderr, u.token);
  assert.match(e.stderr, new RegExp(`^kexp: forbidden: cannot watch events in namespace ${ns} .*docs/rbac\\.md.* minimal Role`, 'm'));
  const r = kexp(['record', 'web', '-n', ns, '-f', path.join(tmp, 'nowatch.kexp.jsonl'), '--duration', '3s', '-q', '--kubeconfig', u.kubeconfig]);
  assert.equal(r.code, 7, r.stderr);
  assert.match(r.stderr, new RegExp(`forbidden: cannot watch events in namespace ${ns}`));
  assert.doesNotMatch(r.stderr, /\bat .+:\d+:\d+/);
});

test('a Role lacking `list pods`: explain fails with "cannot list pods in namespace …" (exit 7)', async () => {
  const ns = await namespace('rbac-nopods');
  const rules = MINIMAL.map((r) => (r.resources.includes('pods') ? { ...r, resources: ['events', 'resourcequotas'] } : r));
  const u = await limitedUser(ns, 'nopods', rules);
  const e = kexp(['explain', 'web', '-n', ns, '--kubeconfig', u.kubeconfig]);
  assert.equal(e.code, 7, e.stdout + e.stderr);
  oneLineNoStack(e.stderr, u.token);
  assert.match(e.stderr, new RegExp(`^kexp: forbidden: cannot list pods in namespace ${ns} \\(.*cannot list resource "pods".*\\); see "Permissions" in the README \\(docs/rbac\\.md\\)`));
});

test('optional reads forbidden (namespaces, resourcequotas, deployments): explain still answers, warns, and reports what it could not check', async () => {
  const ns = await namespace('rbac-partial');
  const rules: Rule[] = [
    { apiGroups: ['apps'], resources: ['replicasets'], verbs: ['get', 'list', 'watch'] },
    { apiGroups: [''], resources: ['pods', 'events'], verbs: ['get', 'list', 'watch'] },
  ];
  const u = await limitedUser(ns, 'partial', rules);
  const e = kexp(['explain', 'web', '-n', ns, '-o', 'json', '--kubeconfig', u.kubeconfig]);
  assert.equal(e.code, 0, e.stderr);
  assert.match(e.stderr, /warning: forbidden: cannot get namespaces/);
  assert.match(e.stderr, /warning: forbidden: cannot list resourcequotas in namespace/);
  const rep = JSON.parse(e.stdout);
  const ids = rep.replicaSets[0].findings.map((f: any) => f.id);
  assert.ok(ids.includes('read-forbidden'), ids.join(','));
});

test('unreachable server, TLS failure, rejected credentials: one line each, exit 7, no stack, no token', async () => {
  const token = 'kexp-test-not-a-real-token-0123456789abcdef';
  const unreachable = kexp(['explain', 'web', '-n', 'default', '--kubeconfig', kubeconfig('unreach', { server: 'https://127.0.0.1:1', 'certificate-authority': cp.caPath }, { token })]);
  assert.equal(unreachable.code, 7);
  oneLineNoStack(unreachable.stderr, token);
  assert.match(unreachable.stderr, /^kexp: cannot reach the API server at https:\/\/127\.0\.0\.1:1: ECONNREFUSED/);
  // No certificate-authority: the control plane's self-signed CA is not trusted.
  const tls = kexp(['explain', 'web', '-n', 'default', '--kubeconfig', kubeconfig('tls', { server: cp.apiURL }, { token })]);
  assert.equal(tls.code, 7);
  oneLineNoStack(tls.stderr, token);
  assert.match(tls.stderr, /^kexp: TLS handshake with https:\/\/127\.0\.0\.1:\d+ failed/);
  const bad = kexp(['explain', 'web', '-n', 'default', '--kubeconfig', kubeconfig('badtoken', { server: cp.apiURL, 'certificate-authority': cp.caPath }, { token })]);
  assert.equal(bad.code, 7);
  oneLineNoStack(bad.stderr, token);
  assert.match(bad.stderr, /401 Unauthorized\): expired or invalid/);
  const rec = kexp(['record', 'web', '-n', 'default', '-f', path.join(tmp, 'x.jsonl'), '--duration', '1s', '--kubeconfig', kubeconfig('badtoken2', { server: cp.apiURL, 'certificate-authority': cp.caPath }, { token })]);
  assert.equal(rec.code, 7);
  assert.ok(!rec.stderr.includes(token));
  const missing = kexp(['explain', 'web', '--kubeconfig', path.join(tmp, 'nope.kubeconfig')]);
  assert.equal(missing.code, 7);
  oneLineNoStack(missing.stderr);
  assert.match(missing.stderr, /kubeconfig .*nope\.kubeconfig does not exist/);
});
