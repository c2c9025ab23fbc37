/**
 * kexp's own kubeconfig reading (src/sources/live/kubeconfig-file.ts, no client-node): fields
 * map as client-node's loadFromString maps them (compared on the same file), relative paths
 * resolve against the kubeconfig's directory, KUBECONFIG files merge as kubectl merges them
 * (first current-context, first entry of a name), and only the used user's token-file is read.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { entriesOf, mergeKubeconfigs, parseKubeconfigText, readKubeconfigFile } from '../../../src/sources/live/kubeconfig-file.js';
import { loadClusterAccess } from '../../../src/sources/live/kubeconfig.js';
import { ClusterError } from '../../../src/sources/live/cluster-error.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kexp-kubeconfig-file-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

function write(name: string, text: string): string {
  const f = path.join(dir, name);
  fs.writeFileSync(f, text);
  return f;
}

const FULL = [
  'apiVersion: v1', 'kind: Config', 'current-context: c1',
  'clusters:',
  '- name: k1',
  '  cluster: {server: "https://10.0.0.1:6443/", certificate-authority: pki/ca.pem, insecure-skip-tls-verify: true, tls-server-name: api.local, proxy-url: "http://proxy:3128"}',
  '- name: k2',
  '  cluster: {server: "https://10.0.0.2", certificate-authority-data: Q0E=}',
  'users:',
  '- name: u1',
  '  user: {client-certificate: pki/u.crt, client-key: /abs/u.key, as: someone}',
  '- name: u2',
  '  user: {username: admin, password: pw, client-certificate-data: Q0VSVA==, client-key-data: S0VZ}',
  '- name: u3',
  '  user: {auth-provider: {name: oidc, config: {idp-issuer-url: "https://idp"}}}',
  '- name: u4',
  '  user: {exec: {command: plugin, apiVersion: client.authentication.k8s.io/v1}}',
  '- name: u5',
  '  user: {token: inline}',
  'contexts:',
  '- {name: c1, context: {cluster: k1, user: u1, namespace: shop}}',
  '- {name: c2, context: {cluster: k2}}',
].join('\n');

test('entries are what client-node\'s loadFromString + makePathsAbsolute make of the same file', () => {
  const f = write('full.yaml', FULL);
  const ours = readKubeconfigFile(f);
  const kc = new KubeConfig();
  kc.loadFromString(FULL);
  kc.makePathsAbsolute(dir);
  assert.deepEqual(ours.clusters, kc.clusters);
  assert.deepEqual(ours.users, kc.users);
  assert.deepEqual(ours.contexts, kc.contexts);
  assert.equal(ours.currentContext, kc.currentContext);
  assert.equal(ours.clusters[0]!.caFile, path.join(dir, 'pki', 'ca.pem'));
  assert.equal(ours.clusters[0]!.server, 'https://10.0.0.1:6443');
});

test('a missing name, cluster or server is one line naming the file and the entry', () => {
  const cases: Array<[string, string]> = [
    ['clusters: [{cluster: {server: "https://x"}}]', 'clusters[0].name is missing'],
    ['clusters: [{name: a, cluster: {server: "https://x"}}, {name: b}]', 'clusters[1].cluster is missing'],
    ['clusters: [{name: a, cluster: {}}]', 'clusters[0].cluster.server is missing'],
    ['users: [{user: {token: t}}]', 'users[0].name is missing'],
    ['contexts: [{name: c, context: {user: u}}]', 'contexts[0].context.cluster is missing'],
  ];
  for (const [text, what] of cases) {
    assert.throws(() => entriesOf(parseKubeconfigText(text, 'f.yaml'), 'f.yaml'), (e: unknown) => e instanceof ClusterError && e.message === `kubeconfig f.yaml cannot be read: ${what}`);
  }
});

test('KUBECONFIG merge: the first file that sets current-context wins, and the first entry of each name', () => {
  const a = entriesOf(parseKubeconfigText('clusters: [{name: k, cluster: {server: "https://a"}}]\nusers: [{name: u, user: {token: first}}]\ncontexts: [{name: c, context: {cluster: k, user: u}}]', '/x/a'), '/x/a');
  const b = entriesOf(parseKubeconfigText('current-context: c\nclusters: [{name: k, cluster: {server: "https://b"}}, {name: k2, cluster: {server: "https://b2"}}]\nusers: [{name: u, user: {token: second}}]\ncontexts: [{name: c, context: {cluster: k2}}]', '/x/b'), '/x/b');
  const c = entriesOf(parseKubeconfigText('current-context: other', '/x/c'), '/x/c');
  const m = mergeKubeconfigs([a, b, c]);
  assert.equal(m.currentContext, 'c');
  assert.deepEqual(m.clusters.map((x) => [x.name, x.server]), [['k', 'https://a'], ['k2', 'https://b2']]);
  assert.deepEqual(m.users.map((x) => x.token), ['first']);
  assert.deepEqual(m.contexts.map((x) => [x.name, x.cluster]), [['c', 'k']]);
});

test('only the used user\'s token-file is read (relative to its kubeconfig); a missing one is one line naming it', async () => {
  const sub = fs.mkdtempSync(path.join(dir, 'tf-'));
  fs.writeFileSync(path.join(sub, 'token'), 'from-file');
  const text = (current: string) => [
    `current-context: ${current}`,
    'clusters: [{name: k, cluster: {server: "https://127.0.0.1:6443"}}]',
    'users: [{name: good, user: {token-file: token}}, {name: broken, user: {token-file: missing-token}}]',
    'contexts: [{name: g, context: {cluster: k, user: good}}, {name: b, context: {cluster: k, user: broken}}]',
  ].join('\n');
  const f = path.join(sub, 'config');
  fs.writeFileSync(f, text('g'));
  const a = await loadClusterAccess({ kubeconfig: f, env: {} });
  assert.equal(a.kc.getCurrentUser()?.token, 'from-file');
  fs.writeFileSync(f, text('b'));
  await assert.rejects(loadClusterAccess({ kubeconfig: f, env: {} }), (e: unknown) => e instanceof ClusterError && e.message === `the token-file of user "broken" (context "b" in ${f}): file ${path.join(sub, 'missing-token')} does not exist`);
  // Over plain http a token-file is a credential too.
  fs.writeFileSync(f, text('g').replace('https://127.0.0.1:6443', 'http://127.0.0.1:8001'));
  await assert.rejects(loadClusterAccess({ kubeconfig: f, env: {} }), /would send credentials over plain http/);
});
