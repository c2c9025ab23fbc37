/**
 * Credentials never printed, and exec credential plugins bounded, against the built CLI and a
 * local https stand-in API server (self-signed certificate from the openssl CLI):
 * - a password in the kubeconfig's server URL (`https://admin:PASS@host`) appears in no message,
 *   table, HTML page, JSON result or recording — the server is shown without userinfo;
 * - error messages that echo the request's credentials (a proxy quoting the Authorization
 *   header) are printed with those credentials removed;
 * - a hanging exec plugin is stopped at --request-timeout (with what it started), a failing or
 *   garbage-printing one is one line naming its command, never its output (exit 7);
 *   a working one authenticates.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { runKexp, selfSignedCert, sendJSON, startHostileApi, stderrLines, tempDir, writeKubeconfig, type HostileApi, type RunResult, type TlsFiles } from '../support/hostile-api.js';

const PASSWORD = 'pw-Zq8-not-real-3141';
const TOKEN = 'tok-kexp-test-not-real-2718281828';
const EXEC_TOKEN = 'exec-tok-not-real-1618033988';
let dir: string;
let tls: TlsFiles;
let api: HostileApi;
/** Paths answered with an error whose message echoes the request's Authorization header. */
const echo = new Map<string, number>();

before(async () => {
  dir = tempDir('live-credentials');
  tls = selfSignedCert(dir);
  api = await startHostileApi({
    tls,
    override: (req, res, url) => {
      const status = echo.get(url.pathname);
      if (status === undefined || url.searchParams.get('watch') === 'true') return false;
      const auth = req.headers.authorization ?? '';
      const basic = Buffer.from(`admin:${PASSWORD}`).toString('base64');
      sendJSON(res, status, { kind: 'Status', apiVersion: 'v1', status: 'Failure', code: status, message: `proxy says: header was "${auth}"; basic ${basic}; user admin:${PASSWORD}; token=${TOKEN}\nsecond line` });
      return true;
    },
  });
});

after(async () => {
  await api.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

function withUserinfo(url: string): string {
  return url.replace('https://', `https://admin:${PASSWORD}@`);
}

function kubeconfig(name: string, user: Record<string, unknown> = { token: TOKEN }, server = withUserinfo(api.url)): string {
  return writeKubeconfig(dir, name, { server, cluster: { 'certificate-authority': tls.cert }, user, namespace: 'shop' });
}

function assertNoCredentials(r: RunResult, ...files: string[]): void {
  const all = r.stdout + r.stderr + files.map((f) => (fs.existsSync(f) ? fs.readFileSync(f, 'utf8') : '')).join('');
  for (const s of [PASSWORD, TOKEN, EXEC_TOKEN, Buffer.from(`admin:${PASSWORD}`).toString('base64')]) {
    assert.ok(!all.includes(s), `${JSON.stringify(s)} must not be printed or written:\n${all.slice(0, 2000)}`);
  }
}

function oneLine(r: RunResult): string {
  const lines = stderrLines(r);
  assert.equal(lines.length, 1, `one line on stderr, got:\n${r.stderr}`);
  assert.doesNotMatch(r.stderr, /\bat .+:\d+:\d+/);
  return lines[0];
}

test('a password in the server URL is used for nothing shown: adopt -o json, explain table and HTML show the server without it', async () => {
  const kc = kubeconfig('userinfo');
  const a = await runKexp(['adopt', 'web', '-o', 'json', '--kubeconfig', kc]);
  assert.equal(a.code, 0, a.stderr);
  assert.equal(JSON.parse(a.stdout).source.server, api.url);
  assertNoCredentials(a);
  const html = path.join(dir, 'explain.html');
  const e = await runKexp(['explain', 'web', '-q', '--html', html, '--kubeconfig', kc], { env: { COLUMNS: '100' } });
  assert.equal(e.code, 0, e.stderr);
  assert.match(e.stdout, new RegExp(`from ${api.url.replace(/[.]/g, '\\.')} \\(context c, namespace shop\\)`));
  assert.match(fs.readFileSync(html, 'utf8'), new RegExp(`UTC from ${api.url.replace(/[.]/g, '\\.')} \\(context c`));
  assertNoCredentials(e, html);
  // The token, not the URL's password, authenticated every request.
  assert.ok(api.requests.length > 0 && api.requests.every((q) => q.authorization === `Bearer ${TOKEN}`));
});

test('an unreachable server with a password in its URL: one line, exit 7, without the password', async () => {
  const r = await runKexp(['adopt', 'web', '--kubeconfig', kubeconfig('unreachable', { token: TOKEN }, `https://admin:${PASSWORD}@127.0.0.1:1`)]);
  assert.equal(r.code, 7, r.stderr);
  assert.equal(oneLine(r), 'kexp: cannot reach the API server at https://127.0.0.1:1: ECONNREFUSED');
  assertNoCredentials(r);
});

test('error messages echoing the credentials are printed without them (500 and 403, explain, adopt, record)', async () => {
  const kc = kubeconfig('echo');
  echo.set('/apis/apps/v1/namespaces/shop/replicasets/web', 500);
  try {
    const e = await runKexp(['explain', 'web', '-q', '--kubeconfig', kc]);
    assert.equal(e.code, 7, e.stderr);
    const line = oneLine(e);
    assert.match(line, /^kexp: GET \/apis\/apps\/v1\/namespaces\/shop\/replicasets\/web failed: 500 proxy says: header was "Bearer \[REDACTED\]"; basic \[REDACTED\]; user admin:\[REDACTED\]; token=\[REDACTED\] second line$/);
    assertNoCredentials(e);
    const file = path.join(dir, 'echo.kexp.jsonl');
    const r = await runKexp(['record', 'web', '-q', '-f', file, '--duration', '2s', '--kubeconfig', kc], { killAfterMs: 30_000 });
    assert.equal(r.code, 7, r.stderr);
    assert.match(oneLine(r), /failed: 500 proxy says: header was "Bearer \[REDACTED\]"/);
    assertNoCredentials(r, file);
  } finally {
    echo.clear();
  }
  echo.set('/api/v1/namespaces/shop/pods', 403);
  try {
    const a = await runKexp(['adopt', 'web', '--kubeconfig', kc]);
    assert.equal(a.code, 7, a.stderr);
    assert.match(oneLine(a), /^kexp: forbidden: cannot list pods in namespace shop \(proxy says: header was "Bearer \[REDACTED\]"; .*\); see "Permissions" in the README/);
    assertNoCredentials(a);
  } finally {
    echo.clear();
  }
});

function plugin(name: string, body: string): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, `#!/bin/sh\n${body}\n`, { mode: 0o755 });
  return file;
}

function execUser(command: string): Record<string, unknown> {
  return { exec: { apiVersion: 'client.authentication.k8s.io/v1', command, args: ['--secret-arg', 'ARG-NOT-ECHOED'], interactiveMode: 'Never' } };
}

test('a working exec plugin authenticates the requests', async () => {
  const cmd = plugin('good-plugin', `test "$(printf %s "$KUBERNETES_EXEC_INFO" | grep -c '"interactive":false')" = 1 || exit 9\nprintf '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"${EXEC_TOKEN}"}}'`);
  const seen = api.requests.length;
  const r = await runKexp(['adopt', 'web', '--kubeconfig', kubeconfig('exec-good', execUser(cmd), api.url)]);
  assert.equal(r.code, 0, r.stderr);
  const mine = api.requests.slice(seen);
  assert.ok(mine.length >= 3 && mine.every((q) => q.authorization === `Bearer ${EXEC_TOKEN}`), JSON.stringify(mine));
  assertNoCredentials(r);
});

test('a hanging exec plugin is stopped at --request-timeout, with the process it started: exit 7, one line naming it', async () => {
  const marker = `${600 + Math.floor(Math.random() * 1000) / 1000}`;
  const cmd = plugin('hanging-plugin', `echo PLUGIN-STDERR-SECRET >&2\nsleep ${marker}`);
  const r = await runKexp(['adopt', 'web', '--request-timeout', '2s', '--kubeconfig', kubeconfig('exec-hang', execUser(cmd), api.url)], { killAfterMs: 30_000 });
  assert.equal(r.code, 7, r.stderr);
  assert.ok(r.ms < 15_000, `took ${r.ms} ms`);
  assert.match(oneLine(r), new RegExp(`^kexp: the exec credential plugin ${JSON.stringify(cmd).replace(/[.]/g, '\\.')} did not finish within the request timeout \\(\\d+ ms\\); it was stopped$`));
  assert.ok(!r.stderr.includes('PLUGIN-STDERR-SECRET') && !r.stderr.includes('ARG-NOT-ECHOED'));
  let left = '';
  try {
    left = execFileSync('pgrep', ['-f', `sleep ${marker}`], { encoding: 'utf8' });
  } catch {
    /* pgrep exits 1 when nothing matches */
  }
  assert.equal(left.trim(), '', 'the plugin\'s child was killed with it');
});

test('exec plugins that fail or print garbage: one line naming the command, never their output (exit 7)', async () => {
  const cases: Array<[string, string, RegExp]> = [
    ['garbage-plugin', 'echo GARBAGE-STDOUT-123\necho GARBAGE-STDERR-456 >&2', /printed something that is not JSON \(an ExecCredential was expected\)$/],
    ['failing-plugin', 'echo GARBAGE-STDERR-789 >&2\necho GARBAGE-STDOUT-789\nexit 3', /exited with code 3$/],
    ['wrong-kind-plugin', 'echo \'{"kind":"Secret","status":{"token":"GARBAGE-TOKEN-000"}}\'', /printed JSON that is not an ExecCredential$/],
    ['no-token-plugin', 'echo \'{"kind":"ExecCredential","status":{"expirationTimestamp":"GARBAGE-TS"}}\'', /printed an ExecCredential with neither a token nor a client certificate and key$/],
  ];
  for (const [name, body, re] of cases) {
    const cmd = plugin(name, body);
    const r = await runKexp(['adopt', 'web', '--kubeconfig', kubeconfig(`exec-${name}`, execUser(cmd), api.url)]);
    assert.equal(r.code, 7, `${name}: ${r.stderr}`);
    const line = oneLine(r);
    assert.ok(line.startsWith(`kexp: the exec credential plugin ${JSON.stringify(cmd)} `), line);
    assert.match(line, re);
    assert.doesNotMatch(r.stdout + r.stderr, /GARBAGE|ARG-NOT-ECHOED/);
  }
  const missing = await runKexp(['adopt', 'web', '--kubeconfig', kubeconfig('exec-missing', execUser(path.join(dir, 'no-such-plugin')), api.url)]);
  assert.equal(missing.code, 7, missing.stderr);
  assert.match(oneLine(missing), /^kexp: the exec credential plugin ".*no-such-plugin" was not found \(is it installed and on PATH\?\)$/);
});
