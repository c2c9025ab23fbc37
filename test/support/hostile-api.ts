/**
 * A small stand-in for the Kubernetes API server, for tests of kexp's live commands against
 * servers and kubeconfigs that misbehave: a node:http (or node:https, with a self-signed
 * certificate made by the `openssl` CLI at test time) server that answers like a real API
 * server for one namespace (`shop`) with one ReplicaSet (`web`) and its pod, unless a test's
 * `override` answers a request first. Every request is recorded (method, URL, Authorization).
 *
 * Also: kubeconfig files written to a temp directory, and `runKexp`, which spawns the built CLI
 * asynchronously (the server runs in the test's own process, so a synchronous spawn would
 * deadlock) and reports exit code, output and wall time.
 */
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';

export interface SeenRequest {
  method: string;
  url: string;
  authorization?: string;
  /** Impersonate-User, and every Impersonate-Group header (in order). */
  impersonateUser?: string;
  impersonateGroups?: string[];
}

export interface HostileApi {
  /** `http://127.0.0.1:PORT` or `https://127.0.0.1:PORT`. */
  url: string;
  port: number;
  requests: SeenRequest[];
  close(): Promise<void>;
}

/** Answers the request itself (return true) or leaves it to the well-behaved default (false). */
export type Override = (req: http.IncomingMessage, res: http.ServerResponse, url: URL) => boolean;

export interface TlsFiles {
  dir: string;
  cert: string;
  key: string;
}

export const NS = 'shop';
const RS_UID = 'rs-uid-1';

export function replicaSet(): Record<string, unknown> {
  return {
    kind: 'ReplicaSet', apiVersion: 'apps/v1',
    metadata: { name: 'web', namespace: NS, uid: RS_UID, resourceVersion: '10', generation: 1, creationTimestamp: '2026-01-01T00:00:00Z' },
    spec: { replicas: 1, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'x' }] } } },
    status: { replicas: 1, readyReplicas: 1, availableReplicas: 1, observedGeneration: 1 },
  };
}

export function pod(): Record<string, unknown> {
  return {
    metadata: {
      name: 'web-1', namespace: NS, uid: 'pod-uid-1', resourceVersion: '11', labels: { app: 'web' }, creationTimestamp: '2026-01-01T00:00:01Z',
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web', uid: RS_UID, controller: true, blockOwnerDeletion: true }],
    },
    spec: { containers: [{ name: 'c', image: 'x' }] },
    status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] },
  };
}

export function sendJSON(res: http.ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

function list(kind: string, apiVersion: string, items: unknown[]): Record<string, unknown> {
  return { kind, apiVersion, metadata: { resourceVersion: '12' }, items };
}

/** The well-behaved part: what a real API server answers for namespace `shop`. */
function defaultAnswer(req: http.IncomingMessage, res: http.ServerResponse, url: URL): void {
  const p = url.pathname;
  if (url.searchParams.get('watch') === 'true') {
    // A watch that stays open and quiet; closed when the server closes.
    res.writeHead(200, { 'content-type': 'application/json' });
    return;
  }
  if (p === '/version') return sendJSON(res, 200, { major: '1', minor: '30', gitVersion: 'v1.30.0' });
  if (p === `/apis/apps/v1/namespaces/${NS}/replicasets/web`) return sendJSON(res, 200, replicaSet());
  if (p === `/apis/apps/v1/namespaces/${NS}/replicasets`) return sendJSON(res, 200, list('ReplicaSetList', 'apps/v1', [replicaSet()]));
  if (p === `/api/v1/namespaces/${NS}/pods`) return sendJSON(res, 200, list('PodList', 'v1', [pod()]));
  if (p === `/api/v1/namespaces/${NS}/events`) return sendJSON(res, 200, list('EventList', 'v1', []));
  if (p === `/api/v1/namespaces/${NS}/resourcequotas`) return sendJSON(res, 200, list('ResourceQuotaList', 'v1', []));
  if (p === `/api/v1/namespaces/${NS}`) return sendJSON(res, 200, { kind: 'Namespace', apiVersion: 'v1', metadata: { name: NS, uid: 'ns-uid', resourceVersion: '1' }, status: { phase: 'Active' } });
  if (p === '/api/v1/namespaces') return sendJSON(res, 200, list('NamespaceList', 'v1', [{ metadata: { name: NS, uid: 'ns-uid', resourceVersion: '1' }, status: { phase: 'Active' } }]));
  sendJSON(res, 404, { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'NotFound', code: 404, message: `${p} not found` });
}

/** Starts the server on 127.0.0.1 (https when `tls` is given). */
export async function startHostileApi(opts: { tls?: TlsFiles; override?: Override } = {}): Promise<HostileApi> {
  const requests: SeenRequest[] = [];
  const handler = (req: http.IncomingMessage, res: http.ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const groups: string[] = [];
    for (let i = 0; i < req.rawHeaders.length; i += 2) if (req.rawHeaders[i]!.toLowerCase() === 'impersonate-group') groups.push(req.rawHeaders[i + 1]!);
    const user = req.headers['impersonate-user'];
    requests.push({
      method: req.method ?? '',
      url: req.url ?? '',
      ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}),
      ...(typeof user === 'string' ? { impersonateUser: user } : {}),
      ...(groups.length ? { impersonateGroups: groups } : {}),
    });
    res.on('error', () => undefined);
    if (opts.override?.(req, res, url)) return;
    defaultAnswer(req, res, url);
  };
  const server = opts.tls
    ? https.createServer({ cert: fs.readFileSync(opts.tls.cert), key: fs.readFileSync(opts.tls.key) }, handler)
    : http.createServer(handler);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `${opts.tls ? 'https' : 'http'}://127.0.0.1:${port}`,
    port,
    requests,
    close: () => new Promise((r) => {
      server.closeAllConnections();
      server.close(() => r());
    }),
  };
}

/** A temp directory, removed by the caller (or left in os.tmpdir()). */
export function tempDir(prefix: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), `kexp-${prefix}-`));
}

/** A self-signed certificate for 127.0.0.1, made with the openssl CLI. */
export function selfSignedCert(dir: string): TlsFiles {
  const cert = path.join(dir, 'server.crt');
  const key = path.join(dir, 'server.key');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '2', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], { stdio: 'ignore' });
  return { dir, cert, key };
}

export interface KubeconfigSpec {
  server: string;
  cluster?: Record<string, unknown>;
  user?: Record<string, unknown>;
  namespace?: unknown;
}

/** Writes a one-context kubeconfig (JSON, which is YAML) and returns its path. */
export function writeKubeconfig(dir: string, name: string, spec: KubeconfigSpec): string {
  const file = path.join(dir, `${name}.kubeconfig`);
  const context: Record<string, unknown> = { cluster: 'k', user: 'u' };
  if (spec.namespace !== undefined) context.namespace = spec.namespace;
  fs.writeFileSync(file, JSON.stringify({
    apiVersion: 'v1', kind: 'Config', 'current-context': 'c',
    clusters: [{ name: 'k', cluster: { server: spec.server, ...spec.cluster } }],
    users: [{ name: 'u', user: spec.user ?? {} }],
    contexts: [{ name: 'c', context }],
  }, null, 2), { mode: 0o600 });
  return file;
}

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

const BIN = path.resolve(new URL('../../bin/run.js', import.meta.url).pathname);

/** Spawns `./bin/run.js ARGS` without blocking the event loop; kills it after `killAfterMs`. */
export function runKexp(args: string[], opts: { killAfterMs?: number; env?: NodeJS.ProcessEnv; cwd?: string } = {}): Promise<RunResult> {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, NO_COLOR: '1', ...opts.env }, cwd: opts.cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const t = setTimeout(() => child.kill('SIGKILL'), opts.killAfterMs ?? 60_000);
    child.on('close', (code) => {
      clearTimeout(t);
      resolve({ code, stdout, stderr, ms: Date.now() - started });
    });
  });
}

/** The non-empty lines of stderr. */
export function stderrLines(r: RunResult): string[] {
  return r.stderr.split('\n').filter((l) => l.trim() !== '');
}
