/**
 * `kexp serve` spawned (the built CLI: needs `npm run build`): bad flags are one line and exit 2
 * before anything is read; against the fake API server (test/support/fake-apiserver.ts: one
 * ReplicaSet `web` with one pod in `shop`, Nodes forbidden) it listens on loopback, is not ready
 * until its initial lists are in, then serves /readyz, /metrics, /explain (JSON and HTML by
 * Accept), refuses writes, and stops on SIGTERM with exit 0 and on SIGINT with 130; a port in
 * use is one line, exit 1; an unreachable cluster one line, exit 7.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { startFakeApiServer, type FakeApiServer } from '../support/fake-apiserver.js';
import { runKexp, startKexp, waitFor, type Running } from '../support/spawn-cli.js';

let srv: FakeApiServer;
before(async () => {
  srv = await startFakeApiServer({});
});
after(async () => {
  await srv.close();
});

function get(url: string, headers: Record<string, string> = {}, method = 'GET'): Promise<{ status: number; type: string; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type'] ?? ''), body }));
    });
    req.on('error', reject);
    req.end();
  });
}

async function started(args: string[]): Promise<{ run: Running; url: string }> {
  const run = startKexp(['serve', '--kubeconfig', srv.kubeconfig, '--listen', '127.0.0.1:0', '--interval', '1s', ...args], { timeoutMs: 60_000 });
  await waitFor('serve to listen', 20_000, () => /listening on http:\/\/[^ ]+/.test(run.stderr()));
  const url = /listening on (http:\/\/[^ ]+)/.exec(run.stderr())![1]!;
  return { run, url };
}

const bad: Array<[string[], RegExp]> = [
  [['-A', '-n', 'shop'], /-A\/--all-namespaces cannot be combined with -n\/--namespace/],
  [['--listen', 'nope'], /--listen "nope" has no port/],
  [['--listen', ':9797'], /has no host/],
  [['--listen', '127.0.0.1:70000'], /has an invalid port/],
  [['--history', '1m'], /--history must be at least 6m/],
  [['--interval', '10ms'], /--interval must be at least 1s/],
  [['--interval', 'soon'], /invalid duration "soon"/],
  [['-l', 'app in (web'], /selector|parenthes|\)/i],
  [['-n', 'Shop_1'], /-n\/--namespace "Shop_1"/],
  [['--lisen', 'x'], /unknown flag --lisen; did you mean --listen\?/],
];

for (const [args, msg] of bad) {
  test(`bad flags: kexp serve ${args.join(' ')} → one line, exit 2`, { timeout: 30_000 }, async () => {
    const r = await runKexp(['serve', '--kubeconfig', srv.kubeconfig, ...args], { timeoutMs: 20_000 });
    assert.equal(r.code, 2, r.stderr);
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
    assert.match(r.stderr, msg);
    assert.equal(r.stdout, '');
  });
}

test('serves /readyz, /metrics and /explain from the cluster, read-only; SIGTERM stops it with exit 0', { timeout: 60_000 }, async () => {
  const { run, url } = await started(['-n', 'shop']);
  try {
    assert.match(url, /^http:\/\/127\.0\.0\.1:\d+$/, 'loopback');
    await waitFor('ready', 20_000, () => /kexp serve: ready/.test(run.stderr()));
    assert.match(run.stderr(), /forbidden: cannot list nodes/, 'the forbidden optional watch is named once');
    assert.equal((await get(`${url}/healthz`)).status, 200);
    assert.equal((await get(`${url}/readyz`)).status, 200);
    const m = await get(`${url}/metrics`);
    assert.equal(m.status, 200);
    assert.match(m.type, /^text\/plain; version=0\.0\.4/);
    assert.match(m.body, /^kexp_objects_tracked\{kind="ReplicaSet"\} 1$/m);
    assert.match(m.body, /^kexp_ready 1$/m);
    assert.match(m.body, /^kexp_events_processed_total\{resource="pods"\} 1$/m);
    assert.match(m.body, /^kexp_kcm_lease_observed 0$/m);
    assert.match(m.body, /^kexp_process_resident_memory_bytes \d+/m);
    const j = await get(`${url}/explain/rs/shop/web`);
    assert.equal(j.status, 200, j.body);
    assert.match(j.type, /application\/json/);
    const rep = JSON.parse(j.body);
    assert.equal(rep.generator.command, 'serve');
    assert.deepEqual(rep.replicaSets.map((r: { key: string }) => r.key), ['shop/web']);
    assert.equal(rep.replicaSets[0].initialState.basis, 'unknown', 'what came before serve started is unknown');
    assert.doesNotMatch(j.body, /Bearer|token/i);
    const h = await get(`${url}/explain/ReplicaSet/shop/web`, { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' });
    assert.equal(h.status, 200);
    assert.match(h.type, /text\/html/);
    assert.match(h.body, /<html/i);
    assert.equal((await get(`${url}/explain/rs/shop/nothere`)).status, 404);
    assert.equal((await get(`${url}/explain/deployment/shop/web`)).status, 400);
    assert.equal((await get(`${url}/explain/rs/shop`)).status, 400);
    assert.equal((await get(`${url}/nope`)).status, 404);
    assert.equal((await get(`${url}/metrics`, {}, 'POST')).status, 405);
  } finally {
    run.child.kill('SIGTERM');
  }
  const r = await run.done;
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /stopped \(SIGTERM\)/);
  assert.equal(srv.openWatches(), 0, 'every watch released');
});

test('Ctrl-C (SIGINT) stops it with exit 130', { timeout: 60_000 }, async () => {
  const { run } = await started(['-n', 'shop', '-q']);
  await new Promise((r) => setTimeout(r, 500));
  run.child.kill('SIGINT');
  const r = await run.done;
  assert.equal(r.code, 130, r.stderr);
  assert.match(r.stderr, /^kexp: interrupted$/m);
});

test('a port in use is one line, exit 1; an unreachable cluster one line, exit 7', { timeout: 60_000 }, async () => {
  const { run, url } = await started(['-n', 'shop', '-q']);
  try {
    const port = new URL(url).port;
    const r = await runKexp(['serve', '--kubeconfig', srv.kubeconfig, '-n', 'shop', '--listen', `127.0.0.1:${port}`], { timeoutMs: 20_000 });
    assert.equal(r.code, 1, r.stderr);
    assert.equal(r.stderr.trim(), `kexp: cannot listen on 127.0.0.1:${port}: EADDRINUSE (the port is in use)`);
  } finally {
    run.child.kill('SIGTERM');
    await run.done;
  }
  const kc = srv.kubeconfig.replace(/kubeconfig$/, 'unreachable');
  const fs = await import('node:fs');
  fs.writeFileSync(kc, fs.readFileSync(srv.kubeconfig, 'utf8').replace(srv.url, 'https://127.0.0.1:1'), { mode: 0o600 });
  const r = await runKexp(['serve', '--kubeconfig', kc, '-n', 'shop', '--listen', '127.0.0.1:0', '--request-timeout', '5s'], { timeoutMs: 30_000 });
  assert.equal(r.code, 7, r.stderr);
  assert.equal(r.stderr.trim().split('\n').filter((l) => l.startsWith('kexp:')).length, 1, r.stderr);
});

test('/readyz is 503, naming what it waits for, until the initial lists are in', { timeout: 60_000 }, async () => {
  const slow = await startFakeApiServer({ listDelayMs: 3000 });
  const run = startKexp(['serve', '--kubeconfig', slow.kubeconfig, '-n', 'shop', '--listen', '127.0.0.1:0', '--interval', '1s'], { timeoutMs: 60_000 });
  try {
    await waitFor('serve to listen', 20_000, () => /listening on http:\/\/[^ ]+/.test(run.stderr()));
    const url = /listening on (http:\/\/[^ ]+)/.exec(run.stderr())![1]!;
    const early = await get(`${url}/readyz`);
    assert.equal(early.status, 503);
    assert.match(early.body, /^waiting for the initial list of: .*pods/);
    assert.equal((await get(`${url}/healthz`)).status, 200, 'alive while not ready');
    assert.equal((await get(`${url}/explain/rs/shop/web`)).status, 503);
    await waitFor('ready', 30_000, () => /kexp serve: ready/.test(run.stderr()));
    assert.equal((await get(`${url}/readyz`)).status, 200);
  } finally {
    run.child.kill('SIGTERM');
    await run.done;
    await slow.close();
  }
});
