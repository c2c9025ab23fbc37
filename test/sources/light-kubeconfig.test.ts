/**
 * LightKubeConfig (src/sources/live/light-kubeconfig.ts) against the library it stands in for:
 * for every kind of configuration it serves, `applyToHTTPSOptions` must leave exactly the request
 * options (and agent options) that client-node's KubeConfig leaves; configurations it does not
 * serve are routed to client-node by loadClusterAccess.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { KubeConfig, type Cluster, type User } from '@kubernetes/client-node';
import { LightKubeConfig, needsClientNode } from '../../src/sources/live/light-kubeconfig.js';
import { routeExecUsers } from '../../src/sources/live/exec-credential.js';
import { loadClusterAccess } from '../../src/sources/live/kubeconfig.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kexp-light-kc-'));
const file = (name: string, text: string) => {
  const p = path.join(dir, name);
  fs.writeFileSync(p, text);
  return p;
};
const caFile = file('ca.crt', '-----BEGIN CERTIFICATE-----\nCA\n-----END CERTIFICATE-----\n');
const certFile = file('client.crt', '-----BEGIN CERTIFICATE-----\nCLIENT\n-----END CERTIFICATE-----\n');
const keyFile = file('client.key', '-----BEGIN PRIVATE KEY-----\nKEY\n-----END PRIVATE KEY-----\n');
const b64 = (s: string) => Buffer.from(s).toString('base64');
// An exec plugin that prints a token and a client certificate (a node one-liner: no shell quoting).
const plugin = file('plugin.cjs', `process.stdout.write(JSON.stringify({ apiVersion: 'client.authentication.k8s.io/v1', kind: 'ExecCredential', status: { token: 'exec-token', clientCertificateData: 'EXEC-CERT', clientKeyData: 'EXEC-KEY' } }));`);
const exec = { command: process.execPath, args: [plugin], apiVersion: 'client.authentication.k8s.io/v1', env: [] };

const https1: Cluster = { name: 'c', server: 'https://10.0.0.1:6443', caFile, skipTLSVerify: false };
const cases: Array<{ what: string; cluster: Cluster; user?: User }> = [
  { what: 'client certificate and key files, CA file', cluster: https1, user: { name: 'u', certFile, keyFile } },
  { what: 'certificate data, key data, CA data', cluster: { name: 'c', server: 'https://h', caData: b64('CA-DATA'), skipTLSVerify: false }, user: { name: 'u', certData: b64('CERT'), keyData: b64('KEY') } },
  { what: 'bearer token, tls-server-name', cluster: { ...https1, tlsServerName: 'api.internal' }, user: { name: 'u', token: 'tok-1' } },
  { what: 'basic auth, insecure-skip-tls-verify', cluster: { name: 'c', server: 'https://h', skipTLSVerify: true }, user: { name: 'u', username: 'admin', password: 'pw' } },
  { what: 'the kubeconfig\'s `as` (impersonateUser) and a token', cluster: https1, user: { name: 'u', token: 'tok-2', impersonateUser: 'jane' } },
  { what: 'a user without credentials', cluster: https1, user: { name: 'u' } },
  { what: 'no user entry for the context (no TLS options at all, as client-node)', cluster: https1 },
  { what: 'plain http (kubectl proxy; kubeconfig.ts marks it skipTLSVerify)', cluster: { name: 'c', server: 'http://127.0.0.1:8001', skipTLSVerify: true }, user: { name: 'u' } },
  { what: 'an exec plugin', cluster: https1, user: { name: 'u', exec } as unknown as User },
  { what: 'an exec plugin and a token (the token wins)', cluster: https1, user: { name: 'u', exec, token: 'kubeconfig-token' } as unknown as User },
];

const agentOptionKeys = ['ca', 'cert', 'key', 'rejectUnauthorized', 'servername', 'timeout'] as const;

async function optionsOf(kc: { applyToHTTPSOptions(o: https.RequestOptions): Promise<void> }): Promise<{ opts: Record<string, unknown>; agent: Record<string, unknown>; agentClass: string }> {
  const o: https.RequestOptions = { method: 'GET', headers: { Accept: 'application/json' } };
  await kc.applyToHTTPSOptions(o);
  const { agent, ...rest } = o;
  const a = agent as http.Agent & { options: Record<string, unknown> };
  const agentOpts = Object.fromEntries(agentOptionKeys.filter((k) => a.options[k] !== undefined).map((k) => [k, a.options[k]]));
  return { opts: JSON.parse(JSON.stringify(rest)), agent: JSON.parse(JSON.stringify(agentOpts)), agentClass: Object.getPrototypeOf(a) === https.Agent.prototype ? 'https.Agent' : Object.getPrototypeOf(a) === http.Agent.prototype ? 'http.Agent' : 'other' };
}

for (const c of cases) {
  test(`LightKubeConfig.applyToHTTPSOptions = client-node's: ${c.what}`, async () => {
    const options = { clusters: [c.cluster], users: c.user ? [c.user] : [], contexts: [{ name: 'ctx', cluster: 'c', user: 'u' }], currentContext: 'ctx' };
    assert.equal(needsClientNode(c.cluster, c.user ?? null), false);
    const full = new KubeConfig();
    full.loadFromOptions(structuredClone(options));
    routeExecUsers(full); // kexp's client-node path runs exec plugins through the same BoundedExecAuth
    const light = new LightKubeConfig(structuredClone(options));
    const want = await optionsOf(full);
    const got = await optionsOf(light);
    assert.deepEqual(got, want);
    assert.notEqual(got.agentClass, 'other');
    assert.deepEqual(light.getCurrentCluster(), full.getCurrentCluster());
    assert.deepEqual(light.getCurrentUser()?.name, full.getCurrentUser()?.name);
  });
}

test('the exec plugin\'s credential is on the options (token, certificate, key)', async () => {
  const light = new LightKubeConfig({ clusters: [https1], users: [{ name: 'u', exec } as unknown as User], contexts: [{ name: 'ctx', cluster: 'c', user: 'u' }], currentContext: 'ctx' });
  const o: https.RequestOptions = { headers: {} };
  await light.applyToHTTPSOptions(o);
  assert.equal((o.headers as Record<string, string>).Authorization, 'Bearer exec-token');
  assert.equal(o.cert, 'EXEC-CERT');
  assert.equal(o.key, 'EXEC-KEY');
});

test('needsClientNode: an auth-provider or a proxy-url', () => {
  assert.equal(needsClientNode({ ...https1, proxyUrl: 'socks5://127.0.0.1:1080' }, { name: 'u', token: 't' }), true);
  assert.equal(needsClientNode(https1, { name: 'u', authProvider: { name: 'oidc', config: {} } }), true);
  assert.equal(needsClientNode(https1, { name: 'u', token: 't' }), false);
  assert.equal(needsClientNode(https1, null), false);
});

test('loadClusterAccess: a certificate kubeconfig gets LightKubeConfig, an auth-provider one client-node\'s KubeConfig', async () => {
  const kubeconfig = (user: string) => file(`kc-${Math.random().toString(36).slice(2)}.yaml`, [
    'apiVersion: v1', 'kind: Config', 'current-context: ctx',
    `clusters: [{name: c, cluster: {server: "https://10.0.0.1:6443", certificate-authority: ${JSON.stringify(caFile)}}}]`,
    `users: [{name: u, user: ${user}}]`,
    'contexts: [{name: ctx, context: {cluster: c, user: u, namespace: shop}}]', '',
  ].join('\n'));
  const cert = await loadClusterAccess({ kubeconfig: kubeconfig(`{client-certificate: ${JSON.stringify(certFile)}, client-key: ${JSON.stringify(keyFile)}}`), env: {} });
  assert.ok(cert.kc instanceof LightKubeConfig);
  const oidc = await loadClusterAccess({ kubeconfig: kubeconfig('{auth-provider: {name: oidc, config: {client-id: x, id-token: y, refresh-token: r, idp-issuer-url: "https://idp"}}}'), env: {} });
  assert.ok(oidc.kc instanceof KubeConfig);
  assert.equal(oidc.namespace, 'shop');
});
