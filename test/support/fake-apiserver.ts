/**
 * A small, deliberately HOSTILE stand-in for kube-apiserver (node:https, self-signed
 * certificate made with the `openssl` CLI) that speaks just enough of the API for
 * `kexp record` and `kexp explain --watch` to resolve a ReplicaSet, take a snapshot, LIST and
 * WATCH: `/version`, the ReplicaSet `web` (one owned pod), the namespace, and list/watch of
 * replicasets, pods, events and namespaces (`?fieldSelector=metadata.name=NS`). The paths are
 * the ones src/pipeline/record-live.ts and src/sources/live/snapshot.ts request (the real
 * shapes are in test/e2e/live-record.test.ts).
 *
 * For misbehaviour tests only. Per resource, a watch can:
 * - `no-headers`: accept the request and never answer;
 * - `quiet`: send the headers and nothing more (a quiet namespace);
 * - `close`: answer 200 with an empty body at once (a server that hangs up);
 * - `bookmarks`: a BOOKMARK every 100 ms, forever;
 * - `stream`: a MODIFIED event every 5 ms, forever, never closing;
 * - `endless-line`: bytes with no newline, forever (as fast as the socket takes them);
 * - `bad-line`: one line that is not JSON, then nothing;
 * - `redirect`: a 302 to a login page (HTML), as an authenticating proxy answers;
 * - `events`: one MODIFIED event, then nothing.
 * and a LIST can answer `html` (200 with an HTML page, as a misconfigured proxy or login
 * portal does) or `wrong-kind` (a SecretList where a list of the watched kind belongs), or
 * answer only after `listDelayMs`.
 *
 * It counts requests, watch connections that are still open and the bytes it streamed, so a
 * test can check that kexp hung up.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import type { ServerResponse } from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';

export type FakeResource = 'replicasets' | 'pods' | 'events' | 'namespaces' | 'replicationcontrollers' | 'daemonsets' | 'jobs' | 'leases';
export type WatchBehaviour = 'no-headers' | 'quiet' | 'close' | 'bookmarks' | 'stream' | 'endless-line' | 'bad-line' | 'events' | 'redirect';

export interface FakeApiOptions {
  namespace?: string;
  /** Watch behaviour per resource (default `quiet`). */
  watch?: Partial<Record<FakeResource, WatchBehaviour>>;
  /** LIST behaviour per resource (default: a proper list). */
  list?: Partial<Record<FakeResource, 'html' | 'wrong-kind'>>;
  /** Every LIST answers after this long (ms). */
  listDelayMs?: number;
}

export interface FakeApiServer {
  url: string;
  /** A kubeconfig file (token auth, the server's certificate as CA) for `--kubeconfig`. */
  kubeconfig: string;
  dir: string;
  /** Watch connections the server has not seen closed yet. */
  openWatches(): number;
  /** Every request line, e.g. `GET /api/v1/namespaces/shop/pods?watch=true&…`. */
  requests: string[];
  /** Bytes written on watch connections so far. */
  streamedBytes(): number;
  close(): Promise<void>;
}

const TOKEN = 'fake-token-0123456789';

let pki: { dir: string; cert: string; key: string } | undefined;

/** A self-signed certificate for 127.0.0.1, made once per test process. */
function certificate(): { dir: string; cert: string; key: string } {
  if (pki) return pki;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kexp-fake-api-'));
  const cert = path.join(dir, 'server.crt');
  const key = path.join(dir, 'server.key');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2', '-subj', '/CN=127.0.0.1',
    '-addext', 'subjectAltName=IP:127.0.0.1', '-addext', 'basicConstraints=critical,CA:TRUE', '-keyout', key, '-out', cert], { stdio: 'ignore' });
  pki = { dir, cert, key };
  return pki;
}

function meta(name: string, ns: string | undefined, rv: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { name, ...(ns ? { namespace: ns } : {}), uid: `uid-${name}`, resourceVersion: rv, creationTimestamp: '2026-01-01T00:00:00Z', ...extra };
}

function objects(ns: string) {
  const rs = {
    metadata: meta('web', ns, '100', { generation: 1 }),
    spec: { replicas: 1, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
    status: { replicas: 1, readyReplicas: 1, availableReplicas: 1, observedGeneration: 1 },
  };
  const pod = {
    metadata: meta('web-a', ns, '101', { labels: { app: 'web' }, ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web', uid: 'uid-web', controller: true, blockOwnerDeletion: true }] }),
    spec: { containers: [{ name: 'c', image: 'nginx' }] },
    status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] },
  };
  const namespace = { metadata: meta(ns, undefined, '5'), status: { phase: 'Active' } };
  return { rs, pod, namespace };
}

function list(kind: string, items: unknown[]): string {
  const apiVersion = kind === 'ReplicaSetList' || kind === 'DaemonSetList' ? 'apps/v1' : kind === 'JobList' ? 'batch/v1' : kind === 'LeaseList' ? 'coordination.k8s.io/v1' : 'v1';
  return JSON.stringify({ kind, apiVersion, metadata: { resourceVersion: '200' }, items });
}

function status(code: number, reason: string, message: string): string {
  return JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason, message, code });
}

export async function startFakeApiServer(o: FakeApiOptions = {}): Promise<FakeApiServer> {
  const ns = o.namespace ?? 'shop';
  const { rs, pod, namespace } = objects(ns);
  const { dir: pkiDir, cert, key } = certificate();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kexp-fake-api-run-'));
  const requests: string[] = [];
  const watches = new Set<ServerResponse>();
  const timers = new Set<NodeJS.Timeout>();
  let streamed = 0;

  const lists: Record<FakeResource, () => string> = {
    replicasets: () => list('ReplicaSetList', [rs]),
    pods: () => list('PodList', [pod]),
    events: () => list('EventList', []),
    namespaces: () => list('NamespaceList', [namespace]),
    // The other owner kinds and the kube-controller-manager Lease `kexp serve` lists: none here.
    replicationcontrollers: () => list('ReplicationControllerList', []),
    daemonsets: () => list('DaemonSetList', []),
    jobs: () => list('JobList', []),
    leases: () => list('LeaseList', []),
  };
  const kinds: Record<FakeResource, { kind: string; apiVersion: string; object: Record<string, unknown> }> = {
    replicasets: { kind: 'ReplicaSet', apiVersion: 'apps/v1', object: rs },
    pods: { kind: 'Pod', apiVersion: 'v1', object: pod },
    events: { kind: 'Event', apiVersion: 'v1', object: { metadata: meta('web.1', ns, '150'), involvedObject: { kind: 'ReplicaSet', name: 'web', namespace: ns, uid: 'uid-web' }, reason: 'SuccessfulCreate', message: 'Created pod: web-a', count: 1 } },
    namespaces: { kind: 'Namespace', apiVersion: 'v1', object: namespace },
    replicationcontrollers: { kind: 'ReplicationController', apiVersion: 'v1', object: { metadata: meta('rc', ns, '160') } },
    daemonsets: { kind: 'DaemonSet', apiVersion: 'apps/v1', object: { metadata: meta('ds', ns, '161') } },
    jobs: { kind: 'Job', apiVersion: 'batch/v1', object: { metadata: meta('job', ns, '162') } },
    leases: { kind: 'Lease', apiVersion: 'coordination.k8s.io/v1', object: { metadata: meta('kube-controller-manager', 'kube-system', '163') } },
  };

  function watch(resource: FakeResource, res: ServerResponse): void {
    if (o.watch?.[resource] === 'redirect') {
      // A proxy's login redirect: 302 to an HTML page, never a watch stream.
      res.writeHead(302, { location: '/oauth/start?rd=%2F', 'content-type': 'text/html' }).end('<a href="/oauth/start">Found</a>.\n');
      return;
    }
    if (o.watch?.[resource] === 'no-headers') {
      watches.add(res);
      res.on('close', () => watches.delete(res));
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json', 'transfer-encoding': 'chunked' });
    res.flushHeaders();
    watches.add(res);
    res.on('close', () => watches.delete(res));
    const send = (s: string) => {
      if (res.destroyed || res.writableEnded) return false;
      streamed += Buffer.byteLength(s);
      return res.write(s);
    };
    const every = (ms: number, fn: () => void) => {
      const t = setInterval(fn, ms);
      timers.add(t);
      res.on('close', () => {
        clearInterval(t);
        timers.delete(t);
      });
    };
    const { kind, apiVersion, object } = kinds[resource];
    let rv = 300;
    switch (o.watch?.[resource] ?? 'quiet') {
      case 'quiet':
        return;
      case 'close':
        res.end();
        return;
      case 'bookmarks':
        every(100, () => send(JSON.stringify({ type: 'BOOKMARK', object: { kind, apiVersion, metadata: { resourceVersion: String(++rv) } } }) + '\n'));
        return;
      case 'events':
        send(JSON.stringify({ type: 'MODIFIED', object: { kind, apiVersion, ...object, metadata: { ...(object.metadata as object), resourceVersion: String(++rv) } } }) + '\n');
        return;
      case 'stream':
        every(5, () => send(JSON.stringify({ type: 'MODIFIED', object: { kind, apiVersion, ...object, metadata: { ...(object.metadata as object), resourceVersion: String(++rv) } } }) + '\n'));
        return;
      case 'bad-line':
        send('<html>proxy error</html>\n');
        return;
      case 'endless-line': {
        const chunk = '{"type":"ADDED","object":{"metadata":{"name":"' + 'x'.repeat(64 * 1024);
        send(chunk);
        const more = () => {
          while (send('x'.repeat(64 * 1024)));
          if (!res.destroyed) res.once('drain', more);
        };
        more();
        return;
      }
    }
  }

  const server = https.createServer({ cert: fs.readFileSync(cert), key: fs.readFileSync(key) }, (req, res) => {
    requests.push(`${req.method} ${req.url}`);
    const url = new URL(req.url ?? '/', 'https://x');
    const p = url.pathname;
    if (req.headers.authorization !== `Bearer ${TOKEN}`) {
      res.writeHead(401, { 'content-type': 'application/json' }).end(status(401, 'Unauthorized', 'Unauthorized'));
      return;
    }
    const json = (code: number, body: string) => res.writeHead(code, { 'content-type': 'application/json' }).end(body);
    if (p === '/version') return json(200, JSON.stringify({ major: '1', minor: '31', gitVersion: 'v1.31.0' }));
    if (p === `/apis/apps/v1/namespaces/${ns}/replicasets/web`) return json(200, JSON.stringify({ kind: 'ReplicaSet', apiVersion: 'apps/v1', ...rs }));
    if (p === `/api/v1/namespaces/${ns}`) return json(200, JSON.stringify({ kind: 'Namespace', apiVersion: 'v1', ...namespace }));
    const collections: Record<string, FakeResource> = {
      [`/apis/apps/v1/namespaces/${ns}/replicasets`]: 'replicasets',
      [`/api/v1/namespaces/${ns}/pods`]: 'pods',
      [`/api/v1/namespaces/${ns}/events`]: 'events',
      '/api/v1/namespaces': 'namespaces',
      [`/api/v1/namespaces/${ns}/replicationcontrollers`]: 'replicationcontrollers',
      [`/apis/apps/v1/namespaces/${ns}/daemonsets`]: 'daemonsets',
      [`/apis/batch/v1/namespaces/${ns}/jobs`]: 'jobs',
      '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases': 'leases',
    };
    // Nodes are cluster-scoped: this credential may not list them (a namespaced Role's user).
    if (p === '/api/v1/nodes') return json(403, status(403, 'Forbidden', 'nodes is forbidden: User "system:serviceaccount:shop:oncall" cannot list resource "nodes" in API group "" at the cluster scope'));
    const resource = collections[p];
    if (resource) {
      if (url.searchParams.get('watch') === 'true') return watch(resource, res);
      const answer = () => {
        const how = o.list?.[resource];
        if (how === 'html') res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><html><body><h1>Sign in</h1>\u001b[31m</body></html>');
        else if (how === 'wrong-kind') json(200, JSON.stringify({ kind: 'SecretList', apiVersion: 'v1', metadata: { resourceVersion: '200' }, items: [{ metadata: meta('db', ns, '7'), data: { password: 'c2VjcmV0' } }] }));
        else json(200, lists[resource]());
      };
      if (!o.listDelayMs) return answer();
      const t = setTimeout(answer, o.listDelayMs);
      timers.add(t);
      res.on('close', () => clearTimeout(t));
      return;
    }
    if (p === `/api/v1/namespaces/${ns}/resourcequotas`) return json(200, list('ResourceQuotaList', []));
    return json(404, status(404, 'NotFound', `the server could not find the requested resource (${p})`));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const kubeconfig = path.join(dir, 'kubeconfig');
  fs.writeFileSync(kubeconfig, [
    'apiVersion: v1',
    'kind: Config',
    `clusters: [{name: fake, cluster: {server: "${url}", certificate-authority: "${path.join(pkiDir, 'server.crt')}"}}]`,
    `users: [{name: fake, user: {token: "${TOKEN}"}}]`,
    `contexts: [{name: fake, context: {cluster: fake, user: fake, namespace: ${ns}}}]`,
    'current-context: fake',
    '',
  ].join('\n'), { mode: 0o600 });
  return {
    url,
    kubeconfig,
    dir,
    requests,
    openWatches: () => watches.size,
    streamedBytes: () => streamed,
    close: () => new Promise<void>((resolve) => {
      for (const t of timers) clearInterval(t);
      server.closeAllConnections();
      server.close(() => {
        fs.rmSync(dir, { recursive: true, force: true });
        resolve();
      });
    }),
  };
}
