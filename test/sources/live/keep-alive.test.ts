/**
 * getJSON's shared keep-alive agent (src/sources/live/api-client.ts): consecutive GETs reuse one
 * connection, and a kept-alive connection the server closed as it was being reused costs one
 * retry on a new connection, not an error.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { getJSON } from '../../../src/sources/live/api-client.js';
import { loadClusterAccess } from '../../../src/sources/live/kubeconfig.js';
import { writeKubeconfig } from '../../support/hostile-api.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kexp-keep-alive-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

/** A plain-http server (kubectl proxy style) that counts connections and may drop a reused one. */
async function serve(dropReused: boolean) {
  let connections = 0;
  let requests = 0;
  const perSocket = new WeakMap<object, number>();
  const server = http.createServer((req, res) => {
    requests++;
    const n = (perSocket.get(req.socket) ?? 0) + 1;
    perSocket.set(req.socket, n);
    if (dropReused && n > 1) return req.socket.destroy(); // closed just as it is reused
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ kind: 'Namespace', apiVersion: 'v1', metadata: { name: 'shop' } }));
  });
  server.on('connection', () => connections++);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    counts: () => ({ connections, requests }),
    close: () => new Promise<void>((r) => {
      server.closeAllConnections();
      server.close(() => r());
    }),
  };
}

const access = async (url: string) => loadClusterAccess({ kubeconfig: writeKubeconfig(dir, `k${Math.random().toString(36).slice(2)}`, { server: url, namespace: 'shop' }), env: {} });

test('consecutive GETs share one kept-alive connection', async () => {
  const api = await serve(false);
  try {
    const a = await access(api.url);
    for (let i = 0; i < 3; i++) assert.equal((await getJSON<{ metadata: { name: string } }>(a.kc, '/api/v1/namespaces/shop', { timeoutMs: 5000 })).metadata.name, 'shop');
    assert.deepEqual(api.counts(), { connections: 1, requests: 3 });
  } finally {
    await api.close();
  }
});

test('a kept-alive connection closed by the server as it is reused: one retry on a new connection, no error', async () => {
  const api = await serve(true);
  try {
    const a = await access(api.url);
    assert.equal((await getJSON<{ metadata: { name: string } }>(a.kc, '/api/v1/namespaces/shop', { timeoutMs: 5000 })).metadata.name, 'shop');
    assert.equal((await getJSON<{ metadata: { name: string } }>(a.kc, '/api/v1/namespaces/shop', { timeoutMs: 5000 })).metadata.name, 'shop');
    assert.deepEqual(api.counts(), { connections: 2, requests: 3 });
  } finally {
    await api.close();
  }
});
