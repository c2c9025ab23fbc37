/**
 * Bounded reads and exit codes of the live commands against a misbehaving stand-in API server
 * and broken kubeconfigs (the built CLI): an endless response ends at --request-timeout (a total
 * deadline, not socket idleness) or at the body limit; a non-JSON 200 is exit 7 naming its
 * content-type; `kubectl proxy`'s plain http server works without credentials and is refused
 * with them; unreadable CA/certificate/key files, key data that is not PEM, a server that is not
 * a URL and a YAML alias bomb are each one line with exit 7 — never exit 1, never a stack trace.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { runKexp, selfSignedCert, startHostileApi, stderrLines, tempDir, writeKubeconfig, type HostileApi, type Override, type RunResult } from '../support/hostile-api.js';

let dir: string;
const servers: HostileApi[] = [];

before(() => {
  dir = tempDir('live-bounds');
});

after(async () => {
  await Promise.all(servers.map((s) => s.close()));
  fs.rmSync(dir, { recursive: true, force: true });
});

async function serve(override?: Override, tls = false): Promise<HostileApi> {
  const s = await startHostileApi({ override, ...(tls ? { tls: selfSignedCert(fs.mkdtempSync(path.join(dir, 'tls-'))) } : {}) });
  servers.push(s);
  return s;
}

function oneLine(r: RunResult): string {
  const lines = stderrLines(r);
  assert.equal(lines.length, 1, `one line on stderr, got:\n${r.stderr.slice(0, 3000)}`);
  assert.doesNotMatch(r.stderr, /\bat .+:\d+:\d+/);
  return lines[0];
}

const POD_LIST = '/api/v1/namespaces/shop/pods';

/** Answers the pod list with a JSON list that never ends, written as fast as the client reads. */
const endlessPods: Override = (_req, res, url) => {
  if (url.pathname !== POD_LIST) return false;
  res.writeHead(200, { 'content-type': 'application/json' });
  res.write('{"kind":"PodList","apiVersion":"v1","metadata":{},"items":[');
  const chunk = Buffer.alloc(1 << 20, 0x20);
  const pump = () => {
    while (!res.destroyed && res.write(chunk));
  };
  res.on('drain', pump);
  pump();
  return true;
};

/** Answers the pod list with a JSON list that trickles for ever: 1 KiB every 20 ms, so the socket never idles. */
const tricklingPods: Override = (_req, res, url) => {
  if (url.pathname !== POD_LIST) return false;
  res.writeHead(200, { 'content-type': 'application/json' });
  res.write('{"kind":"PodList","apiVersion":"v1","metadata":{},"items":[');
  const t = setInterval(() => (res.destroyed ? clearInterval(t) : res.write(Buffer.alloc(1024, 0x20))), 20);
  res.on('close', () => clearInterval(t));
  return true;
};

test('a trickling endless list response ends at --request-timeout (a total deadline: the socket never idles): exit 7, one line', async () => {
  const api = await serve(tricklingPods);
  const r = await runKexp(['adopt', 'web', '--request-timeout', '2s', '--kubeconfig', writeKubeconfig(dir, 'endless', { server: api.url, namespace: 'shop' })]);
  assert.equal(r.code, 7, r.stderr);
  assert.equal(oneLine(r), 'kexp: GET /api/v1/namespaces/shop/pods timed out after 2000 ms');
  assert.ok(r.ms < 15_000, `took ${r.ms} ms`);
});

test('without a deadline (--request-timeout 0) an endless response stops at the body limit: exit 7, one line', async () => {
  const api = await serve(endlessPods);
  const r = await runKexp(['adopt', 'web', '--request-timeout', '0', '--kubeconfig', writeKubeconfig(dir, 'endless0', { server: api.url, namespace: 'shop' })], { killAfterMs: 90_000 });
  assert.equal(r.code, 7, r.stderr);
  assert.equal(oneLine(r), 'kexp: GET /api/v1/namespaces/shop/pods returned more than the 256 MiB kexp reads; stopped reading');
});

test('a declared body larger than the limit is refused before reading it', async () => {
  const api = await serve((_req, res, url) => {
    if (url.pathname !== POD_LIST) return false;
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(3 * 1024 * 1024 * 1024) });
    res.write('{"kind":"PodList"');
    return true;
  });
  const r = await runKexp(['explain', 'web', '-q', '--kubeconfig', writeKubeconfig(dir, 'declared', { server: api.url, namespace: 'shop' })]);
  assert.equal(r.code, 7, r.stderr);
  assert.equal(oneLine(r), `kexp: GET /api/v1/namespaces/shop/pods returned a body of ${3 * 1024 * 1024 * 1024} bytes, more than the 256 MiB kexp reads`);
});

test('a 200 that is an HTML login page, or JSON that does not parse: exit 7 naming the content-type, not a JavaScript error', async () => {
  const html = await serve((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end('<html><body>Sign in</body></html>');
    return true;
  });
  const h = await runKexp(['explain', 'web', '-q', '--kubeconfig', writeKubeconfig(dir, 'html', { server: html.url, namespace: 'shop' })]);
  assert.equal(h.code, 7, h.stderr);
  assert.match(oneLine(h), /^kexp: GET \/apis\/apps\/v1\/namespaces\/shop\/replicasets\/web returned 200 with content-type "text\/html; charset=utf-8", not JSON \(a login page or proxy in front of the API server\?\)$/);
  const broken = await serve((_req, res, url) => {
    if (url.pathname !== '/apis/apps/v1/namespaces/shop/replicasets/web') return false;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"kind":"ReplicaSet", <html>');
    return true;
  });
  const b = await runKexp(['adopt', 'web', '--kubeconfig', writeKubeconfig(dir, 'broken', { server: broken.url, namespace: 'shop' })]);
  assert.equal(b.code, 7, b.stderr);
  assert.equal(oneLine(b), 'kexp: GET /apis/apps/v1/namespaces/shop/replicasets/web returned 200 with a body that is not valid JSON (content-type "application/json")');
});

test('kubectl proxy\'s plain http server works without credentials; with credentials kexp refuses before sending any (exit 7)', async () => {
  const api = await serve();
  const ok = await runKexp(['adopt', 'web', '-o', 'json', '--kubeconfig', writeKubeconfig(dir, 'proxy', { server: api.url, namespace: 'shop' })]);
  assert.equal(ok.code, 0, ok.stderr);
  const res = JSON.parse(ok.stdout);
  assert.equal(res.source.server, api.url);
  assert.deepEqual(res.summary, { keep: 1 });
  assert.ok(api.requests.length >= 3 && api.requests.every((q) => q.authorization === undefined), JSON.stringify(api.requests));
  const seen = api.requests.length;
  const token = 'tok-over-http-not-real-0001';
  for (const [name, spec] of [
    ['http-token', { server: api.url, user: { token } }],
    ['http-basic', { server: api.url, user: { username: 'admin', password: token } }],
    ['http-userinfo', { server: api.url.replace('http://', `http://admin:${token}@`) }],
    ['http-exec', { server: api.url, user: { exec: { command: '/bin/echo', apiVersion: 'client.authentication.k8s.io/v1' } } }],
  ] as const) {
    const r = await runKexp(['adopt', 'web', '-n', 'shop', '--kubeconfig', writeKubeconfig(dir, name, spec)]);
    assert.equal(r.code, 7, `${name}: ${r.stderr}`);
    assert.match(oneLine(r), new RegExp(`^kexp: context "c" in .*${name}\\.kubeconfig would send credentials over plain http to ${api.url.replace(/[.]/g, '\\.')}; use https`));
    assert.ok(!r.stderr.includes(token));
  }
  assert.equal(api.requests.length, seen, 'no request was sent');
});

test('unreadable certificate-authority, client-certificate and client-key files: exit 7, one line naming the path, no request', async () => {
  const api = await serve();
  const missing = path.join(dir, 'missing');
  const cases: Array<[string, Record<string, unknown>, Record<string, unknown>, RegExp]> = [
    ['ca', { 'certificate-authority': `${missing}/ca.crt` }, { token: 't' }, /the certificate-authority of cluster "k" \(context "c" in .*\): file .*\/missing\/ca\.crt does not exist$/],
    ['cert', {}, { 'client-certificate': `${missing}/c.crt`, 'client-key': path.join(dir, 'ca.kubeconfig') }, /the client-certificate of user "u" \(context "c" in .*\): file .*\/missing\/c\.crt does not exist$/],
    ['key', {}, { 'client-certificate': path.join(dir, 'ca.kubeconfig'), 'client-key': dir }, /the client-key of user "u" \(context "c" in .*\): file .*live-bounds-\w+ is a directory$/],
  ];
  const https = api.url.replace('http://', 'https://');
  for (const [name, cluster, user, re] of cases) {
    const r = await runKexp(['explain', 'web', '-q', '--kubeconfig', writeKubeconfig(dir, name, { server: https, cluster, user, namespace: 'shop' })]);
    assert.equal(r.code, 7, `${name}: ${r.stderr}`);
    assert.match(oneLine(r), re);
  }
  assert.equal(api.requests.length, 0);
});

test('client certificate and key data that are not PEM: exit 7, one line, not a JavaScript error', async () => {
  const api = await serve(undefined, true);
  const junk = Buffer.from('not a certificate').toString('base64');
  const r = await runKexp(['adopt', 'web', '--kubeconfig', writeKubeconfig(dir, 'junk-pem', { server: api.url, cluster: { 'insecure-skip-tls-verify': true }, user: { 'client-certificate-data': junk, 'client-key-data': junk }, namespace: 'shop' })]);
  assert.equal(r.code, 7, r.stderr);
  assert.match(oneLine(r), /^kexp: TLS handshake with https:\/\/127\.0\.0\.1:\d+ failed: ERR_OSSL_\w+$/);
});

test('a server that is not an http(s) URL: exit 7, one line', async () => {
  for (const [name, server, re] of [
    ['not-url', 'not a url', /^kexp: the server "not a url" of context "c" in .* is not a URL$/],
    ['ftp', 'ftp://user:pw-not-shown@127.0.0.1:21', /^kexp: the server "ftp:\/\/127\.0\.0\.1:21" of context "c" in .* is not an http\(s\) URL$/],
  ] as const) {
    const r = await runKexp(['adopt', 'web', '-n', 'shop', '--kubeconfig', writeKubeconfig(dir, name, { server })]);
    assert.equal(r.code, 7, `${name}: ${r.stderr}`);
    assert.match(oneLine(r), re);
  }
});

test('a YAML alias bomb kubeconfig ("billion laughs"): exit 7 promptly, one line', async () => {
  const lines = ['apiVersion: v1', 'kind: Config', 'a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
  for (let i = 1; i <= 9; i++) lines.push(`a${i}: &a${i} [${Array(9).fill(`*a${i - 1}`).join(',')}]`);
  lines.push('current-context: c', 'clusters: [{name: k, cluster: {server: "https://127.0.0.1:1"}}]');
  lines.push('users: [{name: u, user: {exec: {command: echo, args: *a9, apiVersion: client.authentication.k8s.io/v1}}}]');
  lines.push('contexts: [{name: c, context: {cluster: k, user: u, namespace: shop}}]');
  const file = path.join(dir, 'bomb.kubeconfig');
  fs.writeFileSync(file, lines.join('\n') + '\n');
  const r = await runKexp(['explain', 'web', '-q', '--kubeconfig', file], { killAfterMs: 30_000 });
  assert.equal(r.code, 7, r.stderr);
  assert.ok(r.ms < 10_000, `took ${r.ms} ms`);
  assert.equal(oneLine(r), `kexp: kubeconfig ${file} uses YAML aliases excessively (more than 100 expansions); refusing it as a resource-exhaustion attempt`);
});

test('a pod list that hands out the same continue token again would page for ever: exit 7, one line', async () => {
  let pages = 0;
  const api = await serve((_req, res, url) => {
    if (url.pathname !== POD_LIST) return false;
    pages++;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ kind: 'PodList', apiVersion: 'v1', metadata: { continue: pages === 1 ? 'first' : 'again' }, items: [] }));
    return true;
  });
  const r = await runKexp(['adopt', 'web', '--kubeconfig', writeKubeconfig(dir, 'paging', { server: api.url, namespace: 'shop' })]);
  assert.equal(r.code, 7, r.stderr);
  assert.equal(oneLine(r), 'kexp: list pods in namespace shop: the API server repeated a continue token, so paging would never end');
  assert.equal(pages, 3);
});

test('an error status with an HTML body (a proxy\'s 502 page) is one line with the status, not the page', async () => {
  const api = await serve((_req, res) => {
    res.writeHead(502, { 'content-type': 'text/html' });
    res.end('<html><body><h1>502 Bad Gateway</h1>\n<p>upstream said no</p></body></html>');
    return true;
  });
  const r = await runKexp(['adopt', 'web', '--kubeconfig', writeKubeconfig(dir, 'bad-gateway', { server: api.url, namespace: 'shop' })]);
  assert.equal(r.code, 7, r.stderr);
  assert.equal(oneLine(r), 'kexp: GET /apis/apps/v1/namespaces/shop/replicasets/web failed: HTTP 502 Bad Gateway');
});
