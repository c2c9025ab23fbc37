/**
 * `kexp explain` reaches a kubeconfig error without loading the Kubernetes client: the CLI is
 * spawned with a module-resolution hook (node's module.register) that logs every module whose
 * URL is @kubernetes/client-node or kexp's kubeconfig-client chunk. No kubeconfig, a YAML error,
 * a missing certificate file and a malformed exec section each exit 7 with their one line and
 * no such module resolved; so does a valid token kubeconfig (LightKubeConfig makes its requests),
 * while one with a proxy-url (server unreachable) does load it, which shows the hook sees the
 * import when it happens.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const BIN = path.resolve(new URL('../../bin/run.js', import.meta.url).pathname);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kexp-explain-startup-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

const hooks = path.join(dir, 'hooks.mjs');
fs.writeFileSync(hooks, `import fs from 'node:fs';
export async function resolve(specifier, context, next) {
  const r = await next(specifier, context);
  if (/kubeconfig-client|@kubernetes\\/client-node/.test(r.url)) fs.appendFileSync(process.env.KEXP_TEST_MODULE_LOG, r.url + '\\n');
  return r;
}
`);
const register = path.join(dir, 'register.mjs');
fs.writeFileSync(register, `import { register } from 'node:module';\nregister(${JSON.stringify(new URL(`file://${hooks}`).href)});\n`);

function explain(env: Record<string, string>, args: string[] = []): { code: number | null; stderr: string; loaded: string[] } {
  const log = path.join(dir, `modules-${Math.random().toString(36).slice(2)}.log`);
  fs.writeFileSync(log, '');
  const r = spawnSync(process.execPath, ['--import', register, BIN, 'explain', '-n', 'default', 'web', '--request-timeout', '2s', ...args], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '', HOME: dir, NO_COLOR: '1', KEXP_TEST_MODULE_LOG: log, ...env },
    timeout: 30_000,
  });
  return { code: r.status, stderr: r.stderr, loaded: fs.readFileSync(log, 'utf8').split('\n').filter(Boolean) };
}

function kubeconfig(name: string, text: string): string {
  const f = path.join(dir, name);
  fs.writeFileSync(f, text);
  return f;
}

const valid = (cluster: string, user = '{token: t0k}') => [
  'apiVersion: v1', 'kind: Config', 'current-context: c',
  `clusters: [{name: k, cluster: ${cluster}}]`,
  `users: [{name: u, user: ${user}}]`,
  'contexts: [{name: c, context: {cluster: k, user: u}}]',
].join('\n');

test('kubeconfig errors are printed without loading @kubernetes/client-node', () => {
  const cases: Array<[Record<string, string>, RegExp]> = [
    [{}, /^kexp: no kubeconfig found: pass --kubeconfig, set KUBECONFIG, or create ~\/\.kube\/config\n$/],
    [{ KUBECONFIG: path.join(dir, 'nonexistent') }, /^kexp: none of the files in KUBECONFIG exist \(.*nonexistent\)\n$/],
    [{ KUBECONFIG: kubeconfig('bad.yaml', 'clusters: [\n  {name: a\n') }, /^kexp: kubeconfig .*bad\.yaml:\d+ is not valid YAML: /],
    [{ KUBECONFIG: kubeconfig('noca.yaml', valid('{server: "https://127.0.0.1:6443", certificate-authority: ca.pem}')) }, /^kexp: the certificate-authority of cluster "k" \(context "c" in KUBECONFIG=.*noca\.yaml\): file .*\/ca\.pem does not exist\n$/],
    [{ KUBECONFIG: kubeconfig('exec.yaml', valid('{server: "https://127.0.0.1:6443"}', '{exec: {command: plugin, args: [1]}}')) }, /^kexp: user "u": the exec credential plugin "plugin" has args that are not a list of strings\n$/],
  ];
  for (const [env, message] of cases) {
    const r = explain(env);
    assert.equal(r.code, 7, r.stderr);
    assert.match(r.stderr, message);
    assert.deepEqual(r.loaded, [], `${JSON.stringify(env)}: the Kubernetes client was loaded`);
  }
});

test('a usable token kubeconfig does not load the Kubernetes client either (LightKubeConfig), and fails on the unreachable server with exit 7', () => {
  const r = explain({ KUBECONFIG: kubeconfig('ok.yaml', valid('{server: "https://127.0.0.1:1"}')) });
  assert.equal(r.code, 7, r.stderr);
  assert.match(r.stderr, /^kexp: cannot reach the API server at https:\/\/127\.0\.0\.1:1: ECONNREFUSED\n$/);
  assert.deepEqual(r.loaded, []);
});

test('a kubeconfig with a proxy-url does load the Kubernetes client (the hook sees it), and fails on the unreachable proxy with exit 7', () => {
  const r = explain({ KUBECONFIG: kubeconfig('proxy.yaml', valid('{server: "https://127.0.0.1:1", proxy-url: "http://127.0.0.1:1"}')) });
  assert.equal(r.code, 7, r.stderr);
  assert.ok(r.loaded.some((u) => /kubeconfig-client/.test(u)), r.loaded.join(', '));
});
