/**
 * A stand-in for kube-apiserver behind the fault proxy (node:https, certificates from the
 * control plane's own generatePKI), just enough of the API for the proxy's faults: pods and
 * ReplicaSets by name, LIST (paged with `limit`/`continue` like the apiserver), WATCH (the
 * test pushes the events), and watch-list (`sendInitialEvents=true`: an ADDED per stored
 * object, then the `k8s.io/initial-events-end` BOOKMARK, then whatever the test pushes).
 * Any other path answers a small JSON object naming it; writes echo their body.
 *
 * It asks for a client certificate (`requestCert`) and records, for every request, the
 * Authorization header and the SHA-256 fingerprint of the certificate that reached it, so a
 * test can tell whose credentials the proxy forwarded.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import type { ServerResponse } from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { TLSSocket } from 'node:tls';

export type Resource = 'pods' | 'replicasets';

export interface SeenRequest {
  method: string;
  path: string;
  authorization?: string;
  accept?: string;
  userAgent?: string;
  /** fingerprint256 of the client certificate on the connection; absent when none. */
  certFingerprint?: string;
}

export interface UpstreamWatch {
  resource: Resource;
  namespace?: string;
  path: string;
  userAgent?: string;
  res: ServerResponse;
  closed: boolean;
}

export interface FakeUpstream {
  url: string;
  requests: SeenRequest[];
  watches: UpstreamWatch[];
  /** Stored objects by resource, keyed `ns/name`. */
  objects: Record<Resource, Map<string, any>>;
  /** Writes one watch event line to every open watch of `resource` (of its namespace); returns how many got it. */
  push(resource: Resource, event: { type: string; object: any }): number;
  /** Ends every open watch from the server side. */
  endWatches(): void;
  close(): Promise<void>;
}

export function pod(ns: string, name: string, rv: string, extra: Record<string, unknown> = {}): any {
  return { kind: 'Pod', apiVersion: 'v1', metadata: { namespace: ns, name, uid: `uid-${name}`, resourceVersion: rv, labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] }, ...extra };
}

export function bookmark(rv: string, initialEventsEnd = false): { type: string; object: any } {
  return {
    type: 'BOOKMARK',
    object: { kind: 'Pod', apiVersion: 'v1', metadata: { resourceVersion: rv, ...(initialEventsEnd ? { annotations: { 'k8s.io/initial-events-end': 'true' } } : {}) } },
  };
}

const PATHS: Array<[RegExp, Resource]> = [
  [/^\/api\/v1\/(?:namespaces\/([^/]+)\/)?pods(?:\/([^/]+))?$/, 'pods'],
  [/^\/apis\/apps\/v1\/(?:namespaces\/([^/]+)\/)?replicasets(?:\/([^/]+))?$/, 'replicasets'],
];

function status(code: number, reason: string, message: string): string {
  return JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason, message, code });
}

export async function startFakeUpstream(pki: string): Promise<FakeUpstream> {
  const requests: SeenRequest[] = [];
  const watches: UpstreamWatch[] = [];
  const objects: Record<Resource, Map<string, any>> = { pods: new Map(), replicasets: new Map() };
  const server = https.createServer(
    {
      ca: fs.readFileSync(path.join(pki, 'ca.crt')),
      cert: fs.readFileSync(path.join(pki, 'apiserver.crt')),
      key: fs.readFileSync(path.join(pki, 'apiserver.key')),
      requestCert: true,
      rejectUnauthorized: false,
    },
    (req, res) => {
      const peer = (req.socket as TLSSocket).getPeerCertificate();
      requests.push({
        method: req.method ?? '',
        path: req.url ?? '',
        authorization: req.headers.authorization,
        accept: req.headers.accept,
        userAgent: req.headers['user-agent'],
        certFingerprint: peer?.raw ? new crypto.X509Certificate(peer.raw).fingerprint256 : undefined,
      });
      const url = new URL(req.url ?? '/', 'http://upstream');
      const json = (code: number, body: string) => res.writeHead(code, { 'Content-Type': 'application/json' }).end(body);
      if (req.method !== 'GET') {
        let body = '';
        req.setEncoding('utf8');
        req.on('data', (c: string) => (body += c));
        req.on('end', () => json(201, JSON.stringify({ method: req.method, path: url.pathname, body })));
        return;
      }
      const hit = PATHS.map(([re, r]) => [re.exec(url.pathname), r] as const).find(([m]) => m);
      if (!hit) return json(200, JSON.stringify({ kind: 'Other', path: url.pathname }));
      const [m, resource] = hit;
      const ns = m![1];
      const name = m![2];
      const store = objects[resource];
      if (name) {
        const obj = store.get(`${ns}/${name}`);
        return obj ? json(200, JSON.stringify(obj)) : json(404, status(404, 'NotFound', `${resource} "${name}" not found`));
      }
      const items = [...store.entries()].filter(([k]) => ns === undefined || k.startsWith(`${ns}/`)).map(([, o]) => o);
      if (url.searchParams.get('watch') === 'true' || url.searchParams.get('watch') === '1') {
        res.writeHead(200, { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' });
        res.flushHeaders();
        const w: UpstreamWatch = { resource, namespace: ns, path: req.url ?? '', userAgent: req.headers['user-agent'], res, closed: false };
        watches.push(w);
        res.on('close', () => (w.closed = true));
        if (url.searchParams.get('sendInitialEvents') === 'true') {
          for (const o of items) res.write(JSON.stringify({ type: 'ADDED', object: o }) + '\n');
          res.write(JSON.stringify(bookmark('500', true)) + '\n');
        }
        return;
      }
      // Paged like the apiserver: `continue` is opaque to the client (here, the next offset).
      const limit = Number(url.searchParams.get('limit') ?? 0);
      const from = Number(url.searchParams.get('continue') ?? 0);
      const page = limit > 0 ? items.slice(from, from + limit) : items.slice(from);
      const more = limit > 0 && from + limit < items.length;
      const kind = resource === 'pods' ? 'PodList' : 'ReplicaSetList';
      json(200, JSON.stringify({ kind, apiVersion: resource === 'pods' ? 'v1' : 'apps/v1', metadata: { resourceVersion: '500', ...(more ? { continue: String(from + limit) } : {}) }, items: page }));
    },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    watches,
    objects,
    push(resource, event) {
      let n = 0;
      for (const w of watches) {
        if (w.closed || w.resource !== resource) continue;
        if (w.namespace !== undefined && w.namespace !== event.object?.metadata?.namespace && event.type !== 'BOOKMARK') continue;
        w.res.write(JSON.stringify(event) + '\n');
        n++;
      }
      return n;
    },
    endWatches() {
      for (const w of watches) if (!w.closed) w.res.end();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
