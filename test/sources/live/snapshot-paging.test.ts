/**
 * Pipelined pod-list paging (src/sources/live/snapshot.ts, listAll): the request for page n+1
 * goes out from the continue token at the start of page n's body, before that body is complete;
 * the pages read are exactly those of sequential paging, whatever the early token said.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { continueTokenInHead, listNamespacePods } from '../../../src/sources/live/snapshot.js';
import { loadClusterAccess } from '../../../src/sources/live/kubeconfig.js';
import { writeKubeconfig } from '../../support/hostile-api.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kexp-paging-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

const POD_LIST = '/api/v1/namespaces/shop/pods';
const pod = (name: string) => ({ metadata: { name, namespace: 'shop', uid: `uid-${name}` }, status: { phase: 'Pending' } });

/** A plain-http API server (kubectl proxy style); `handle` gets the continue token ('' for the first page). */
async function serve(handle: (cont: string, res: http.ServerResponse) => void): Promise<{ url: string; requests: string[]; close: () => Promise<void> }> {
  const requests: string[] = [];
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    assert.equal(url.pathname, POD_LIST);
    const cont = url.searchParams.get('continue') ?? '';
    requests.push(cont);
    handle(cont, res);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise<void>((r) => {
      server.closeAllConnections();
      server.close(() => r());
    }),
  };
}

async function podsFrom(url: string): Promise<string[]> {
  const access = await loadClusterAccess({ kubeconfig: writeKubeconfig(dir, `k${Math.random().toString(36).slice(2)}`, { server: url, namespace: 'shop' }), env: {} });
  const pods = await listNamespacePods({ access, target: { kind: 'rs', name: 'web' }, now: () => 0, requestTimeoutMs: 10_000 });
  return pods.map((p) => p.metadata.name ?? '');
}

test('continueTokenInHead: the token of a list whose metadata comes before its items', () => {
  assert.equal(continueTokenInHead('{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"9","continue":"eyJ2Ijo","remainingItemCount":4500},"items":[{"metadata":'), 'eyJ2Ijo');
  assert.equal(continueTokenInHead('{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"9"},"items":[{"metadata":'), undefined, 'last page');
  assert.equal(continueTokenInHead('{"kind":"PodList","items":[],"metadata":{"continue":"x"}}'), undefined, 'items first: nothing to go on');
  assert.equal(continueTokenInHead('{"kind":"PodList","metadata":{"continue":"x"'), undefined, 'cut before the items');
  assert.equal(continueTokenInHead('{"metadata":{"continue":""},"items":['), undefined);
});

test('page n+1 is asked for while page n is still arriving, and every pod comes back once, in order', { timeout: 10_000 }, async () => {
  const waiting = new Map<string, () => void>(); // token of the next page → finish this page's body
  const api = await serve((cont, res) => {
    const n = cont === '' ? 0 : Number(cont.slice(1));
    const next = n < 3 ? `p${n + 1}` : undefined;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write(`{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"7"${next ? `,"continue":"${next}"` : ''}},"items":[`);
    const rest = `${[0, 1].map((i) => JSON.stringify(pod(`web-${n}-${i}`))).join(',')}]}`;
    // The rest of this page only once the next page has been requested: sequential paging
    // would wait here for ever (the test's timeout).
    if (next) waiting.set(next, () => res.end(rest));
    else res.end(rest);
    waiting.get(cont)?.();
  });
  try {
    assert.deepEqual(await podsFrom(api.url), ['web-0-0', 'web-0-1', 'web-1-0', 'web-1-1', 'web-2-0', 'web-2-1', 'web-3-0', 'web-3-1']);
    assert.deepEqual(api.requests, ['', 'p1', 'p2', 'p3']);
  } finally {
    await api.close();
  }
});

test('an early token that the complete body contradicts: the early page is dropped, the pages read are the sequential ones', async () => {
  // Duplicate keys: JSON.parse keeps the last `metadata`, so the head says "wrong" and the body "p1".
  const api = await serve((cont, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    if (cont === '') res.end(`{"kind":"PodList","apiVersion":"v1","metadata":{"continue":"wrong"},"items":[${JSON.stringify(pod('a'))}],"metadata":{"continue":"p1"}}`);
    else if (cont === 'wrong') res.end(`{"kind":"PodList","apiVersion":"v1","metadata":{},"items":[${JSON.stringify(pod('never'))}]}`);
    else res.end(`{"kind":"PodList","apiVersion":"v1","metadata":{},"items":[${JSON.stringify(pod('b'))}]}`);
  });
  try {
    assert.deepEqual(await podsFrom(api.url), ['a', 'b']);
    assert.ok(api.requests.includes('p1'));
  } finally {
    await api.close();
  }
});

test('a list whose items come before its metadata is paged sequentially', async () => {
  const api = await serve((cont, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    const n = cont === '' ? 0 : Number(cont.slice(1));
    res.end(JSON.stringify({ items: [pod(`p-${n}`)], kind: 'PodList', apiVersion: 'v1', metadata: n < 2 ? { continue: `p${n + 1}` } : {} }));
  });
  try {
    assert.deepEqual(await podsFrom(api.url), ['p-0', 'p-1', 'p-2']);
    assert.deepEqual(api.requests, ['', 'p1', 'p2']);
  } finally {
    await api.close();
  }
});

test('a failing page fails the list with its own error, and the early request for the next one is cancelled', async () => {
  let cancelled = false;
  const api = await serve((cont, res) => {
    if (cont === '') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"kind":"PodList","apiVersion":"v1","metadata":{"continue":"p1"},"items":[');
      setTimeout(() => res.end('{"metadata": not json'), 50);
    } else {
      res.on('close', () => (cancelled ||= !res.writableEnded));
      res.writeHead(200, { 'content-type': 'application/json' });
      setTimeout(() => res.end('{"kind":"PodList","apiVersion":"v1","metadata":{},"items":[]}'), 500);
    }
  });
  try {
    await assert.rejects(podsFrom(api.url), /GET \/api\/v1\/namespaces\/shop\/pods returned 200 with a body that is not valid JSON/);
    assert.deepEqual(api.requests, ['', 'p1']);
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(cancelled, true, 'the early request was cancelled, not left to finish');
  } finally {
    await api.close();
  }
});
