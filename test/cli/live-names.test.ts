/**
 * Hostile names and responses against `explain`, `record` and `adopt` (the built CLI, a local
 * stand-in API server): a crafted namespace or object name is refused before any request
 * (exit 2 from a flag or argument, 7 from the kubeconfig), and a response of another kind than
 * the one requested (Secrets answered to a pod list) is refused with one line (exit 7) instead
 * of being stamped with the requested kind and written out.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { replicaSet, runKexp, sendJSON, startHostileApi, stderrLines, tempDir, writeKubeconfig, type HostileApi } from '../support/hostile-api.js';

const SECRET_VALUE = 'c2VjcmV0LXZhbHVlLTQy';
let api: HostileApi;
let dir: string;
let kc: string;
/** Paths the server answered with Secrets (as if the path had been turned into a Secret list). */
const secretPaths = new Set<string>();

before(async () => {
  api = await startHostileApi({
    override: (_req, res, url) => {
      if (secretPaths.has(url.pathname) && url.searchParams.get('watch') !== 'true') {
        sendJSON(res, 200, { kind: 'SecretList', apiVersion: 'v1', metadata: { resourceVersion: '5' }, items: [{ metadata: { name: 'db', namespace: 'shop', uid: 's1' }, data: { password: SECRET_VALUE } }] });
        return true;
      }
      return false;
    },
  });
  dir = tempDir('live-names');
  kc = writeKubeconfig(dir, 'plain', { server: api.url, namespace: 'shop' });
});

after(async () => {
  await api.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

function assertOneLine(r: { stderr: string }, re: RegExp): void {
  const lines = r.stderr.split('\n').filter((l) => l.trim() !== '');
  assert.equal(lines.length, 1, `one line on stderr, got:\n${r.stderr}`);
  assert.match(lines[0], re);
  assert.doesNotMatch(r.stderr, /\bat .+:\d+:\d+/, 'no stack trace');
}

test('a crafted -n is a usage error (exit 2) for explain, record and adopt, before any request', async () => {
  const before = api.requests.length;
  const rec = path.join(dir, 'crafted.kexp.jsonl');
  for (const args of [
    ['explain', 'web', '-q', '-n', 'x/secrets?'],
    ['record', 'web', '-q', '-n', 'x/secrets?', '-f', rec, '--duration', '1s'],
    ['adopt', 'web', '-n', 'x/secrets?'],
    ['adopt', 'web', '-n', '../'],
    ['explain', 'web', '-q', '-n', 'Shop'],
  ]) {
    const r = await runKexp([...args, '--kubeconfig', kc]);
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    const ns = args[args.indexOf('-n') + 1];
    assertOneLine(r, new RegExp(`^kexp: namespace ${JSON.stringify(ns).replace(/[.?/]/g, '\\$&')} \\(given by -n/--namespace\\) is not a valid namespace name: it must consist of lowercase letters`));
    assert.equal(r.stdout, '');
  }
  assert.equal(api.requests.length, before, `no request reached the server: ${api.requests.slice(before).map((q) => q.url).join(', ')}`);
  assert.equal(fs.existsSync(rec), false, 'no recording was started');
});

test('a namespace from the kubeconfig that is not a DNS-1123 label: exit 7, one line naming it and the context, no request', async () => {
  const before = api.requests.length;
  const bad = writeKubeconfig(dir, 'badns', { server: api.url, namespace: 'x/secrets?' });
  const r = await runKexp(['explain', 'web', '-q', '--kubeconfig', bad]);
  assert.equal(r.code, 7, r.stderr);
  assertOneLine(r, new RegExp(`^kexp: namespace "x/secrets\\?" \\(of context "c" in ${bad.replace(/[.]/g, '\\.')}\\) is not a valid namespace name`));
  const num = writeKubeconfig(dir, 'numns', { server: api.url, namespace: 42 });
  const n = await runKexp(['adopt', 'web', '--kubeconfig', num]);
  assert.equal(n.code, 7, n.stderr);
  assertOneLine(n, /^kexp: namespace 42 \(of context "c" in .*\) is not a valid namespace name: it is a number, not a string$/);
  assert.equal(api.requests.length, before);
});

test('an object name that is not a DNS-1123 subdomain: exit 2 before any request', async () => {
  const before = api.requests.length;
  const long = 'a'.repeat(254);
  const e = await runKexp(['explain', long, '-q', '--kubeconfig', kc]);
  assert.equal(e.code, 2, e.stderr);
  assertOneLine(e, /^kexp: ReplicaSet name "a{80}…" is not a valid object name: it is 254 characters long \(at most 253\)$/);
  const d = await runKexp(['explain', `deployment/${long}`, '-q', '--kubeconfig', kc]);
  assert.equal(d.code, 2, d.stderr);
  assertOneLine(d, /^kexp: Deployment name "a{80}…" is not a valid object name/);
  const a = await runKexp(['adopt', 'web..x', '--kubeconfig', kc]);
  assert.equal(a.code, 2, a.stderr);
  assert.equal(stderrLines(a).length, 1);
  assert.equal(api.requests.length, before);
});

test('Secrets answered to a pod list: explain, adopt and record refuse them (exit 7, one line), nothing of them is printed or written', async () => {
  secretPaths.add('/api/v1/namespaces/shop/pods');
  try {
    const e = await runKexp(['explain', 'web', '-q', '-o', 'json', '--kubeconfig', kc]);
    assert.equal(e.code, 7, e.stderr);
    assertOneLine(e, /^kexp: GET \/api\/v1\/namespaces\/shop\/pods returned kind "SecretList" of apiVersion "v1", not PodList of v1$/);
    assert.equal(e.stdout, '');
    const a = await runKexp(['adopt', 'web', '-o', 'json', '--kubeconfig', kc]);
    assert.equal(a.code, 7, a.stderr);
    assert.equal(a.stdout, '');
    const file = path.join(dir, 'secrets.kexp.jsonl');
    const r = await runKexp(['record', 'web', '-q', '-f', file, '--duration', '5s', '--kubeconfig', kc], { killAfterMs: 30_000 });
    assert.equal(r.code, 7, r.stderr);
    assertOneLine(r, /returned kind "SecretList"/);
    const written = fs.readFileSync(file, 'utf8');
    assert.ok(!written.includes(SECRET_VALUE), 'no Secret data in the recording');
    assert.doesNotMatch(written, /"kind":"Pod"/);
    assert.match(written.trim().split('\n').pop() ?? '', /"end":\{"reason":"error","detail":"GET \/api\/v1\/namespaces\/shop\/pods returned kind/);
    for (const out of [e, a, r]) assert.ok(!(out.stdout + out.stderr).includes(SECRET_VALUE));
  } finally {
    secretPaths.clear();
  }
});

test('a single object of another kind, or a list item of another kind, is refused (exit 7)', async () => {
  const api2 = await startHostileApi({
    override: (_req, res, url) => {
      if (url.pathname === '/apis/apps/v1/namespaces/shop/replicasets/web') {
        sendJSON(res, 200, { kind: 'Secret', apiVersion: 'v1', metadata: { name: 'web', namespace: 'shop' }, data: { password: SECRET_VALUE } });
        return true;
      }
      return false;
    },
  });
  const api3 = await startHostileApi({
    override: (_req, res, url) => {
      if (url.pathname === '/api/v1/namespaces/shop/pods') {
        sendJSON(res, 200, { kind: 'PodList', apiVersion: 'v1', metadata: {}, items: [{ kind: 'Secret', apiVersion: 'v1', metadata: { name: 'db', namespace: 'shop' }, data: { password: SECRET_VALUE } }] });
        return true;
      }
      return false;
    },
  });
  try {
    const a = await runKexp(['adopt', 'web', '--kubeconfig', writeKubeconfig(dir, 'rs-secret', { server: api2.url, namespace: 'shop' })]);
    assert.equal(a.code, 7, a.stderr);
    assertOneLine(a, /^kexp: GET \/apis\/apps\/v1\/namespaces\/shop\/replicasets\/web returned kind "Secret" of apiVersion "v1", not ReplicaSet of apps\/v1$/);
    const b = await runKexp(['adopt', 'web', '-o', 'json', '--kubeconfig', writeKubeconfig(dir, 'item-secret', { server: api3.url, namespace: 'shop' })]);
    assert.equal(b.code, 7, b.stderr);
    assertOneLine(b, /^kexp: GET \/api\/v1\/namespaces\/shop\/pods returned a PodList whose item 0 is of kind "Secret"$/);
    assert.ok(!(a.stdout + a.stderr + b.stdout + b.stderr).includes(SECRET_VALUE));
  } finally {
    await api2.close();
    await api3.close();
  }
});

test('an owner reference naming a Deployment that cannot exist ("..") is refused, not followed into another path (exit 7)', async () => {
  const api4 = await startHostileApi({
    override: (_req, res, url) => {
      if (url.pathname === '/apis/apps/v1/namespaces/shop/replicasets/web') {
        const rs = replicaSet();
        (rs.metadata as Record<string, unknown>).ownerReferences = [{ apiVersion: 'apps/v1', kind: 'Deployment', name: '..', uid: 'd1', controller: true }];
        sendJSON(res, 200, rs);
        return true;
      }
      return false;
    },
  });
  try {
    const e = await runKexp(['explain', 'web', '-q', '--kubeconfig', writeKubeconfig(dir, 'owner-dots', { server: api4.url, namespace: 'shop' })]);
    assert.equal(e.code, 7, e.stderr);
    assertOneLine(e, /^kexp: ReplicaSet shop\/web names its owner Deployment "\.\.", which is not a valid object name$/);
    // `deployments/..` would have resolved to the namespace's collection root.
    const paths = api4.requests.map((q) => q.url.split('?')[0]);
    assert.ok(!paths.some((p) => p.startsWith('/apis/apps/v1/namespaces/shop/deployments') || p === '/apis/apps/v1/namespaces/shop/'), paths.join(', '));
  } finally {
    await api4.close();
  }
});
