/**
 * loadClusterAccess on hostile and broken kubeconfigs (files in a temp directory), and the
 * ExecCredential reader: YAML errors name FILE:LINE, aliases are limited, oversized files are
 * refused, `-n` is checked before any file is read, the kubeconfig's namespace is checked
 * (exit 7), relative token-file paths resolve against the kubeconfig's directory, KUBECONFIG
 * takes the first file's current-context, the displayed server has no userinfo while the
 * KubeConfig keeps it, http servers get client-node's plain agent, legacy command
 * auth-providers are refused.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadClusterAccess, MAX_KUBECONFIG_BYTES, parseKubeconfigText } from '../../src/sources/live/kubeconfig.js';
import { ClusterError } from '../../src/sources/live/cluster-error.js';
import { InvalidNameError } from '../../src/sources/live/names.js';
import { parseExecCredential, routeExecUsers } from '../../src/sources/live/exec-credential.js';
import { LightKubeConfig } from '../../src/sources/live/light-kubeconfig.js';
import { KubeConfig } from '@kubernetes/client-node';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kexp-live-kubeconfig-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

function write(name: string, text: string): string {
  const f = path.join(dir, name);
  fs.writeFileSync(f, text);
  return f;
}

function config(o: { server?: string; namespace?: string; user?: string; extra?: string } = {}): string {
  return [
    'apiVersion: v1',
    'kind: Config',
    'current-context: c',
    'clusters:',
    `- name: k\n  cluster:\n    server: ${o.server ?? 'https://127.0.0.1:6443'}`,
    'users:',
    `- name: u\n  user: ${o.user ?? '{token: t0k}'}`,
    'contexts:',
    `- name: c\n  context: {cluster: k, user: u${o.namespace !== undefined ? `, namespace: ${JSON.stringify(o.namespace)}` : ''}}`,
    o.extra ?? '',
  ].join('\n');
}

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (e) {
    return e;
  }
  assert.fail('expected a throw');
}

async function rejected(fn: () => Promise<unknown>): Promise<unknown> {
  try {
    await fn();
  } catch (e) {
    return e;
  }
  assert.fail('expected a rejection');
}

test('a valid kubeconfig: the namespace, context, displayed server (no userinfo); the KubeConfig keeps the real URL', async () => {
  const f = write('ok.yaml', config({ server: 'https://admin:pw-secret@127.0.0.1:6443', namespace: 'shop' }));
  const a = await loadClusterAccess({ kubeconfig: f, env: {} });
  assert.equal(a.namespace, 'shop');
  assert.equal(a.context, 'c');
  assert.equal(a.server, 'https://127.0.0.1:6443');
  assert.equal(a.kc.getCurrentCluster()?.server, 'https://admin:pw-secret@127.0.0.1:6443');
  assert.equal((await loadClusterAccess({ kubeconfig: write('nons.yaml', config()), env: {} })).namespace, 'default');
  assert.equal((await loadClusterAccess({ kubeconfig: f, namespace: 'other', env: {} })).namespace, 'other');
});

test('-n is checked before the kubeconfig is read (a usage error even without a kubeconfig)', async () => {
  const e = await rejected(() => loadClusterAccess({ kubeconfig: path.join(dir, 'does-not-exist'), namespace: 'x/secrets?', env: {} }));
  assert.ok(e instanceof InvalidNameError && e.origin === 'argument', String(e));
});

test('a kubeconfig namespace that is not a DNS-1123 label is an InvalidNameError from the kubeconfig', async () => {
  const f = write('badns.yaml', config({ namespace: '../kube-system' }));
  const e = await rejected(() => loadClusterAccess({ kubeconfig: f, env: {} }));
  assert.ok(e instanceof InvalidNameError && e.origin === 'kubeconfig', String(e));
  assert.equal((e as Error).message, `namespace "../kube-system" (of context "c" in ${f}) is not a valid namespace name: it must consist of lowercase letters, digits and '-', and start and end with a letter or digit (a DNS-1123 label)`);
});

test('YAML errors name FILE:LINE; aliases are limited; a non-mapping is refused', () => {
  const dup = thrown(() => parseKubeconfigText('apiVersion: v1\nkind: Config\nkind: Other\n', 'f.yaml'));
  assert.ok(dup instanceof ClusterError && dup.kind === 'config');
  assert.equal((dup as Error).message, 'kubeconfig f.yaml:3 is not valid YAML: Map keys must be unique');
  const bad = thrown(() => parseKubeconfigText('clusters: [\n  {name: a\n', 'g.yaml'));
  assert.match((bad as Error).message, /^kubeconfig g\.yaml:\d+ is not valid YAML: /);
  // A few aliases are fine; an exponential fan-out is not.
  assert.deepEqual(parseKubeconfigText('a: &x {k: 1}\nb: *x\n', 'h.yaml'), { a: { k: 1 }, b: { k: 1 } });
  const lines = ['a0: &a0 [1, 2, 3, 4, 5, 6, 7, 8, 9]'];
  for (let i = 1; i <= 8; i++) lines.push(`a${i}: &a${i} [${Array(9).fill(`*a${i - 1}`).join(', ')}]`);
  const started = Date.now();
  const bomb = thrown(() => parseKubeconfigText(lines.join('\n'), 'bomb.yaml'));
  assert.equal((bomb as Error).message, 'kubeconfig bomb.yaml uses YAML aliases excessively (more than 100 expansions); refusing it as a resource-exhaustion attempt');
  assert.ok(Date.now() - started < 2000);
  assert.equal((thrown(() => parseKubeconfigText('- a\n- b\n', 'list.yaml')) as Error).message, 'kubeconfig list.yaml is not a mapping (a kubeconfig has clusters, users and contexts)');
});

test('a kubeconfig larger than the limit is refused without being read whole', async () => {
  const f = path.join(dir, 'huge.yaml');
  fs.writeFileSync(f, Buffer.alloc(MAX_KUBECONFIG_BYTES + 1, 0x20));
  const e = await rejected(() => loadClusterAccess({ kubeconfig: f, env: {} }));
  assert.ok(e instanceof ClusterError && e.kind === 'config');
  assert.equal((e as Error).message, `kubeconfig ${f} is larger than 16 MiB; not a kubeconfig`);
});

test('a relative token-file is read from the kubeconfig\'s directory (as kubectl does), not the working directory', async () => {
  const sub = fs.mkdtempSync(path.join(dir, 'tf-'));
  fs.writeFileSync(path.join(sub, 'token'), 'token-from-file');
  const f = path.join(sub, 'config.yaml');
  fs.writeFileSync(f, config({ user: '{token-file: token}' }));
  const a = await loadClusterAccess({ kubeconfig: f, env: {} });
  assert.equal(a.kc.getCurrentUser()?.token, 'token-from-file');
});

test('KUBECONFIG: the first file\'s current-context, later files merged', async () => {
  const first = write('first.yaml', config({ namespace: 'one' }));
  const second = write('second.yaml', [
    'apiVersion: v1', 'kind: Config', 'current-context: c2',
    'clusters: [{name: k2, cluster: {server: "https://127.0.0.2:6443"}}]',
    'users: [{name: u2, user: {token: t2}}]',
    'contexts: [{name: c2, context: {cluster: k2, user: u2, namespace: two}}]',
  ].join('\n'));
  const a = await loadClusterAccess({ env: { KUBECONFIG: `${first}${path.delimiter}${second}` } });
  assert.equal(a.context, 'c');
  assert.equal(a.namespace, 'one');
  const b = await loadClusterAccess({ env: { KUBECONFIG: `${first}${path.delimiter}${second}` }, context: 'c2' });
  assert.equal(b.namespace, 'two');
  assert.equal(b.server, 'https://127.0.0.2:6443');
});

test('http servers: without credentials client-node gets its plain http agent; with any credential the load is refused', async () => {
  const f = write('proxy.yaml', config({ server: 'http://127.0.0.1:8001', user: '{}' }));
  const a = await loadClusterAccess({ kubeconfig: f, env: {} });
  const opts: { agent?: unknown; headers?: Record<string, string> } = {};
  await a.kc.applyToHTTPSOptions(opts);
  assert.equal((opts.agent as { protocol?: string }).protocol, 'http:');
  assert.equal(opts.headers?.Authorization, undefined);
  for (const user of ['{token: t0k}', '{username: a, password: b}', '{client-certificate-data: eA==, client-key-data: eA==}', '{auth-provider: {name: oidc, config: {}}}']) {
    const e = await rejected(() => loadClusterAccess({ kubeconfig: write('proxy-cred.yaml', config({ server: 'http://127.0.0.1:8001', user })), env: {} }));
    assert.ok(e instanceof ClusterError && e.kind === 'config', user);
    assert.match((e as Error).message, /would send credentials over plain http to http:\/\/127\.0\.0\.1:8001; use https/);
  }
});

test('legacy gcp/azure auth-providers with a cmd-path are refused (client-node would run them synchronously, unbounded)', async () => {
  const f = write('gcp.yaml', config({ user: '{auth-provider: {name: gcp, config: {cmd-path: /usr/bin/gcloud, cmd-args: "config config-helper"}}}' }));
  const e = await rejected(() => loadClusterAccess({ kubeconfig: f, env: {} }));
  assert.ok(e instanceof ClusterError && e.kind === 'config');
  assert.match((e as Error).message, /^user "u" of context "c" uses the legacy gcp auth-provider with a cmd-path, which kexp does not run/);
});

test('an auth-provider that would send no credential is one line (issue #23): oidc without an id-token or with an expired one it cannot renew, an unknown provider; a renewable or valid oidc user loads', async () => {
  const jwt = (exp: number): string => `${Buffer.from('{"alg":"none"}').toString('base64url')}.${Buffer.from(JSON.stringify({ exp })).toString('base64url')}.sig`;
  const refused: Array<[string, RegExp]> = [
    ['{auth-provider: {name: oidc, config: {client-id: x}}}', /^user "u" of context "c" uses the oidc auth-provider without an id-token: kexp would send no credentials/],
    [`{auth-provider: {name: oidc, config: {id-token: "${jwt(1_600_000_000)}"}}}`, /^user "u" of context "c" uses the oidc auth-provider whose id-token expired at 2020-09-13T12:26:40\.000Z, with no client-id, refresh-token and idp-issuer-url to renew it: kexp would send no credentials/],
    ['{auth-provider: {name: oidc, config: {id-token: opaque}}}', /whose id-token is not a JWT with an expiry/],
    ['{auth-provider: {name: openstack, config: {ttl: 10m}}}', /^user "u" of context "c" uses the "openstack" auth-provider, which kexp does not run .*would send no credentials/],
  ];
  for (const [user, want] of refused) {
    const e = await rejected(() => loadClusterAccess({ kubeconfig: write('oidc.yaml', config({ user })), env: {} }));
    assert.ok(e instanceof ClusterError && e.kind === 'config', user);
    assert.match((e as Error).message, want, user);
    assert.ok(!(e as Error).message.includes('\n'));
  }
  for (const user of [
    `{auth-provider: {name: oidc, config: {id-token: "${jwt(Math.floor(Date.now() / 1000) + 3600)}"}}}`,
    `{auth-provider: {name: oidc, config: {id-token: "${jwt(1_600_000_000)}", client-id: x, refresh-token: r, idp-issuer-url: "https://idp"}}}`,
    '{token: t0k, auth-provider: {name: openstack}}',
  ]) {
    await loadClusterAccess({ kubeconfig: write('oidc-ok.yaml', config({ user })), env: {} });
  }
});

test('an exec user is run by kexp\'s bounded authenticator (LightKubeConfig; on client-node\'s KubeConfig, routed to it); a malformed exec section is refused', async () => {
  const f = write('exec.yaml', config({ user: '{exec: {command: my-plugin-that-is-not-installed, args: [a], apiVersion: client.authentication.k8s.io/v1}}' }));
  const a = await loadClusterAccess({ kubeconfig: f, env: {} });
  assert.ok(a.kc instanceof LightKubeConfig);
  // BoundedExecAuth's one line (client-node's ExecAuth would throw spawn's own error instead).
  await assert.rejects(a.kc.applyToHTTPSOptions({ headers: {}, signal: AbortSignal.timeout(10_000) }), (e: Error) => e instanceof ClusterError && e.message === 'the exec credential plugin "my-plugin-that-is-not-installed" was not found (is it installed and on PATH?)');
  // The client-node path (auth-providers, proxy-url) routes exec users the same way.
  const full = new KubeConfig();
  full.loadFromOptions({ clusters: [{ name: 'k', server: 'https://127.0.0.1:6443', skipTLSVerify: false }], users: [{ name: 'u', exec: { command: 'my-plugin', args: ['a'], apiVersion: 'client.authentication.k8s.io/v1' } } as never], contexts: [{ name: 'c', cluster: 'k', user: 'u' }], currentContext: 'c' });
  routeExecUsers(full);
  const u = full.getCurrentUser();
  assert.equal(u?.exec, undefined, 'client-node\'s ExecAuth must not claim it');
  assert.deepEqual(u?.authProvider, { name: 'kexp-bounded-exec', config: { kexpExec: { command: 'my-plugin', args: ['a'], env: [], apiVersion: 'client.authentication.k8s.io/v1', provideClusterInfo: false } } });
  const bad = write('exec-bad.yaml', config({ user: '{exec: {command: my-plugin, args: [1, 2]}}' }));
  const e = await rejected(() => loadClusterAccess({ kubeconfig: bad, env: {} }));
  assert.equal((e as Error).message, 'user "u": the exec credential plugin "my-plugin" has args that are not a list of strings');
});

test('parseExecCredential: a token or a certificate and key; otherwise why, never quoting the output', () => {
  assert.deepEqual(parseExecCredential('{"kind":"ExecCredential","status":{"token":"t","expirationTimestamp":"2030-01-01T00:00:00Z"}}'), { token: 't', clientCertificateData: undefined, clientKeyData: undefined, expirationTimestamp: '2030-01-01T00:00:00Z' });
  assert.equal(typeof parseExecCredential('{"kind":"ExecCredential","status":{"clientCertificateData":"c","clientKeyData":"k"}}'), 'object');
  const cases: Array<[string, string]> = [
    ['SECRET-GARBAGE', 'printed something that is not JSON (an ExecCredential was expected)'],
    ['{"kind":"Secret","data":{"x":"SECRET"}}', 'printed JSON that is not an ExecCredential'],
    ['{"kind":"ExecCredential"}', 'printed an ExecCredential without a status'],
    ['{"kind":"ExecCredential","status":{"clientCertificateData":"SECRET"}}', 'printed an ExecCredential with neither a token nor a client certificate and key'],
    ['{"kind":"ExecCredential","status":{"token":"a\\nb"}}', 'printed a token containing a line break'],
  ];
  for (const [out, why] of cases) assert.equal(parseExecCredential(out), why);
});

test('YAML merge keys (`<<`), which client-node\'s js-yaml reads, still work', async () => {
  const f = write('merge.yaml', [
    'apiVersion: v1', 'kind: Config', 'current-context: c',
    'base: &base {cluster: k, user: u}',
    'clusters: [{name: k, cluster: {server: "https://127.0.0.1:6443"}}]',
    'users: [{name: u, user: {token: t}}]',
    'contexts: [{name: c, context: {<<: *base, namespace: merged}}]',
  ].join('\n'));
  const a = await loadClusterAccess({ kubeconfig: f, env: {} });
  assert.equal(a.namespace, 'merged');
  assert.equal(a.kc.getCurrentUser()?.token, 't');
});
