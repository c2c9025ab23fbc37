/**
 * HTTPS_PROXY / HTTP_PROXY / NO_PROXY: an https API server is reached through a CONNECT tunnel
 * (TLS verified end to end, the proxy sees no credential), an http one (`kubectl proxy` behind a
 * proxy) in absolute form; NO_PROXY matching as Go's httpproxy; a refusing proxy is one line, exit 7.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { runKexp, startHostileApi, tempDir, writeKubeconfig, type HostileApi } from '../support/hostile-api.js';
import { proxyFor } from '../../src/sources/live/proxy.js';

const HOST = 'api.kexp.invalid';
const TOKEN = 'tok-proxy-secret-123';

interface SeenByProxy { method: string; target: string; auth?: string; authorization?: string }

/** A tiny forward proxy: CONNECT tunnels and absolute-form GETs, every host mapped to 127.0.0.1. */
async function startProxy(opts: { refuse?: boolean } = {}): Promise<{ url: string; seen: SeenByProxy[]; close(): Promise<void> }> {
  const seen: SeenByProxy[] = [];
  const server = http.createServer((req, res) => {
    const u = new URL(req.url ?? '/');
    seen.push({ method: req.method ?? '', target: req.url ?? '', ...(req.headers['proxy-authorization'] ? { auth: req.headers['proxy-authorization'] } : {}) });
    const headers = { ...req.headers };
    delete headers['proxy-authorization'];
    const up = http.request({ host: '127.0.0.1', port: u.port, path: u.pathname + u.search, method: req.method, headers }, (r) => {
      res.writeHead(r.statusCode ?? 502, r.headers);
      r.pipe(res);
    });
    up.on('error', () => res.destroy());
    req.pipe(up);
  });
  const sockets = new Set<net.Socket>();
  server.on('connection', (s) => sockets.add(s));
  server.on('connect', (req, client: net.Socket, head) => {
    seen.push({ method: 'CONNECT', target: req.url ?? '', ...(req.headers['proxy-authorization'] ? { auth: req.headers['proxy-authorization'] } : {}), ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}) });
    if (opts.refuse) {
      client.end('HTTP/1.1 403 Forbidden\r\n\r\n');
      return;
    }
    const port = Number((req.url ?? '').split(':').pop());
    const up = net.connect({ host: '127.0.0.1', port }, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      up.write(head);
      up.pipe(client);
      client.pipe(up);
    });
    sockets.add(up);
    up.on('error', () => client.destroy());
    client.on('error', () => up.destroy());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () => new Promise<void>((r) => {
      for (const s of sockets) s.destroy();
      server.close(() => r());
    }),
  };
}

let dir: string;
let tlsApi: HostileApi;
let plainApi: HostileApi;
let ca: string;

before(async () => {
  dir = tempDir('live-proxy');
  const cert = path.join(dir, 'server.crt');
  const key = path.join(dir, 'server.key');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '2', '-subj', `/CN=${HOST}`, '-addext', `subjectAltName=DNS:${HOST}`], { stdio: 'ignore' });
  ca = cert;
  tlsApi = await startHostileApi({ tls: { dir, cert, key } });
  plainApi = await startHostileApi();
});

after(async () => {
  await tlsApi.close();
  await plainApi.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const noProxyEnv = { HTTPS_PROXY: '', https_proxy: '', HTTP_PROXY: '', http_proxy: '', NO_PROXY: '', no_proxy: '' };

test('https through HTTPS_PROXY: a CONNECT tunnel, TLS verified for the real host name, the token never shown to the proxy', async () => {
  const proxy = await startProxy();
  try {
    const kc = writeKubeconfig(dir, 'tls', { server: `https://${HOST}:${tlsApi.port}`, cluster: { 'certificate-authority': ca }, user: { token: TOKEN }, namespace: 'shop' });
    tlsApi.requests.length = 0;
    const r = await runKexp(['explain', 'web', '--kubeconfig', kc, '--watch', '1s'], { env: { ...noProxyEnv, HTTPS_PROXY: `http://bob:s3cret@${proxy.url.slice(7)}` } });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /ReplicaSet shop\/web/);
    assert.ok(proxy.seen.length > 0 && proxy.seen.every((s) => s.method === 'CONNECT' && s.target === `${HOST}:${tlsApi.port}`), JSON.stringify(proxy.seen));
    assert.ok(proxy.seen.every((s) => s.auth === `Basic ${Buffer.from('bob:s3cret').toString('base64')}` && s.authorization === undefined));
    assert.ok(tlsApi.requests.some((q) => q.url.includes('watch=true')), 'the watch went through the tunnel too');
    assert.ok(tlsApi.requests.every((q) => q.authorization === `Bearer ${TOKEN}`));
    assert.doesNotMatch(r.stderr + r.stdout, /s3cret|tok-proxy-secret/);
  } finally {
    await proxy.close();
  }
});

test('NO_PROXY matching the host (as a domain suffix) goes direct: the invalid name then does not resolve, exit 7', async () => {
  const proxy = await startProxy();
  try {
    const kc = writeKubeconfig(dir, 'np', { server: `https://${HOST}:${tlsApi.port}`, cluster: { 'certificate-authority': ca }, namespace: 'shop' });
    const r = await runKexp(['explain', 'web', '--kubeconfig', kc, '--request-timeout', '5s'], { env: { ...noProxyEnv, HTTPS_PROXY: proxy.url, NO_PROXY: 'example.com,.invalid' } });
    assert.equal(r.code, 7, r.stderr);
    assert.equal(proxy.seen.length, 0);
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
  } finally {
    await proxy.close();
  }
});

test('http (kubectl proxy) through HTTP_PROXY: absolute-form requests', async () => {
  const proxy = await startProxy();
  try {
    const kc = writeKubeconfig(dir, 'plain', { server: `http://${HOST}:${plainApi.port}`, namespace: 'shop' });
    const r = await runKexp(['explain', 'web', '--kubeconfig', kc], { env: { ...noProxyEnv, http_proxy: proxy.url } });
    assert.equal(r.code, 0, r.stderr);
    assert.ok(proxy.seen.length > 0);
    for (const s of proxy.seen) assert.match(s.target, new RegExp(`^http://${HOST.replaceAll('.', '\\.')}:${plainApi.port}/`));
  } finally {
    await proxy.close();
  }
});

test('a proxy that refuses the tunnel: one line naming it (without its password), exit 7', async () => {
  const proxy = await startProxy({ refuse: true });
  try {
    const kc = writeKubeconfig(dir, 'refused', { server: `https://${HOST}:${tlsApi.port}`, cluster: { 'certificate-authority': ca }, namespace: 'shop' });
    const r = await runKexp(['explain', 'web', '--kubeconfig', kc], { env: { ...noProxyEnv, HTTPS_PROXY: `http://bob:s3cret@${proxy.url.slice(7)}` } });
    assert.equal(r.code, 7, r.stderr);
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
    assert.match(r.stderr, new RegExp(`the proxy ${proxy.url.replaceAll('.', '\\.')} \\(HTTPS_PROXY\\) refused to connect to ${HOST.replaceAll('.', '\\.')}:${tlsApi.port}: HTTP 403`));
    assert.doesNotMatch(r.stderr, /s3cret|bob/);
  } finally {
    await proxy.close();
  }
});

test('proxyFor: scheme choice, loopback never proxied, NO_PROXY entries as Go reads them', () => {
  const env = { HTTPS_PROXY: 'proxy.corp:3128', HTTP_PROXY: 'http://p2:8080' };
  assert.equal(proxyFor(new URL('https://k8s.example.com:6443'), env)?.href, 'http://proxy.corp:3128/');
  assert.equal(proxyFor(new URL('http://k8s.example.com:8001'), env)?.href, 'http://p2:8080/');
  assert.equal(proxyFor(new URL('https://127.0.0.1:6443'), env), undefined);
  assert.equal(proxyFor(new URL('https://localhost:6443'), env), undefined);
  assert.equal(proxyFor(new URL('https://[::1]:6443'), env), undefined);
  const with_ = (no: string, u: string) => proxyFor(new URL(u), { ...env, NO_PROXY: no }) === undefined ? 'direct' : 'proxy';
  assert.equal(with_('example.com', 'https://k8s.example.com'), 'direct');
  assert.equal(with_('example.com', 'https://example.com'), 'direct');
  assert.equal(with_('.example.com', 'https://example.com'), 'proxy');
  assert.equal(with_('.example.com', 'https://a.example.com'), 'direct');
  assert.equal(with_('ample.com', 'https://example.com'), 'proxy');
  assert.equal(with_('example.com:6443', 'https://k8s.example.com:6443'), 'direct');
  assert.equal(with_('example.com:6443', 'https://k8s.example.com:443'), 'proxy');
  assert.equal(with_('10.0.0.0/8', 'https://10.1.2.3:6443'), 'direct');
  assert.equal(with_('10.0.0.0/8', 'https://11.1.2.3:6443'), 'proxy');
  assert.equal(with_('10.1.2.3', 'https://10.1.2.3'), 'direct');
  assert.equal(with_('*', 'https://anything.example'), 'direct');
  assert.equal(with_(' other.org , example.com ', 'https://k8s.example.com'), 'direct');
  assert.throws(() => proxyFor(new URL('https://k8s.example.com'), { HTTPS_PROXY: 'socks5://u:pw@p:1080' }), /HTTPS_PROXY socks5:\/\/p:1080: only http:\/\/ proxies are supported/);
});
