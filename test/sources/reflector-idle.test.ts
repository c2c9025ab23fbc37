/**
 * The recorder's reflector on a quiet watch: an idle timeout on a watch that gets no bookmarks
 * (core/v1 Events) resumes from the last resourceVersion without a gap marker; only a resume
 * that at once delivers events the dead connection held back is marked. A local HTTP server
 * plays the API server.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import { Reflector } from '../../src/sources/live/reflector.js';

async function serve(onWatch: (n: number, res: http.ServerResponse) => void): Promise<{ kc: KubeConfig; close: () => Promise<void>; watches: () => number }> {
  let watches = 0;
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.searchParams.get('watch') === 'true' || url.searchParams.has('allowWatchBookmarks')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      onWatch(++watches, res);
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ kind: 'EventList', apiVersion: 'v1', metadata: { resourceVersion: '10' }, items: [] }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'c', server: `http://127.0.0.1:${port}`, skipTLSVerify: true }],
    users: [{ name: 'u' }],
    contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
    currentContext: 'x',
  });
  return { kc, watches: () => watches, close: () => new Promise((r) => { server.closeAllConnections(); server.close(() => r()); }) };
}

async function record(onWatch: (n: number, res: http.ServerResponse) => void, ms: number) {
  const srv = await serve(onWatch);
  const gaps: string[] = [];
  const events: string[] = [];
  const ac = new AbortController();
  const r = new Reflector({
    kc: srv.kc, path: '/api/v1/namespaces/shop/events', kind: 'Event', apiVersion: 'v1', signal: ac.signal, now: () => Date.now(), idleTimeoutMs: 150,
    sink: { event: (type, obj) => events.push(`${type} ${(obj.metadata as { name?: string }).name}`), gap: (reason, detail) => gaps.push(`${reason}: ${detail}`) },
  });
  const run = r.run();
  await new Promise((res) => setTimeout(res, ms));
  ac.abort();
  await run;
  await srv.close();
  return { gaps, events, watches: srv.watches() };
}

test('a quiet watch without bookmarks is resumed after the idle timeout with no gap marker', async () => {
  const { gaps, watches } = await record(() => { /* never sends anything */ }, 700);
  assert.ok(watches >= 3, `resumed ${watches} times`);
  assert.deepEqual(gaps, []);
});

test('a resume that at once delivers events held back by the dead connection is marked as a gap', async () => {
  const ev = (name: string, rv: string) => JSON.stringify({ type: 'ADDED', object: { kind: 'Event', apiVersion: 'v1', metadata: { name, namespace: 'shop', uid: name, resourceVersion: rv } } }) + '\n';
  const { gaps, events } = await record((n, res) => {
    if (n === 2) res.write(ev('held-back', '11'));
  }, 500);
  assert.deepEqual(events, ['ADDED held-back']);
  assert.equal(gaps.length, 1);
  assert.match(gaps[0]!, /^watch-reconnect: no data for 150 ms .*receive times are late/);
});
