/**
 * The running `kexp serve`: the cluster watch (cluster-watch.ts) feeding the registry
 * (registry.ts) and the Lease (kcm-lease.ts), the evaluation every `intervalMs` once the initial
 * lists are in (the report rebuilt, the metrics updated: metrics.ts), and the HTTP endpoint
 * (http-server.ts). Used by the command (commands/serve.ts), the e2e test and the bench.
 *
 * Contract: `startServe(o)` binds the listener first (a bind error rejects before any cluster
 * read), then reads the server version and probes the optional watches, and returns a handle:
 * `address` (where it listens), `done` — resolves when `signal` aborts and everything is released
 * (watches, timers, the listener, the temporary directory), rejects with the ClusterError that
 * stopped a required watch (after releasing the same). On start every object's past is unknown:
 * the first evaluation replays the initial lists, and the report says so per object.
 *
 * Cost: see registry.ts (memory O(objects) + O(events within the history); an evaluation replays
 * the history) and metrics.ts (series bounded by the objects in trouble).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { LabelSelector } from '../model/objects.js';
import { getJSON } from '../sources/live/api-client.js';
import type { ClusterAccess } from '../sources/live/kubeconfig.js';
import { probeWatches, runClusterWatch, serveWatches } from './cluster-watch.js';
import { createServeHandler } from './http-server.js';
import { KcmLease } from './kcm-lease.js';
import type { ListenAddress } from './listen-address.js';
import { ServeMetrics } from './metrics.js';
import { ServeRegistry, type Evaluation } from './registry.js';

export interface ServeOptions {
  access: ClusterAccess;
  /** `-n NS` (undefined: `-A`, every namespace). */
  namespace?: string;
  selector?: LabelSelector;
  listen: ListenAddress;
  historyMs: number;
  intervalMs: number;
  signal: AbortSignal;
  now: () => number;
  requestTimeoutMs?: number;
  onWarning?: (m: string) => void;
  onInfo?: (m: string) => void;
}

export interface ServeHandle {
  address: { host: string; port: number; url: string };
  registry: ServeRegistry;
  done: Promise<void>;
}

function listenOn(server: http.Server, a: ListenAddress): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    const onError = (err: NodeJS.ErrnoException) => {
      server.off('listening', onListening);
      reject(new Error(`cannot listen on ${a.host}:${a.port}: ${err.code ?? err.message}${err.code === 'EADDRINUSE' ? ' (the port is in use)' : err.code === 'EADDRNOTAVAIL' ? ' (no such local address)' : err.code === 'EACCES' ? ' (permission denied)' : ''}`));
    };
    const onListening = () => {
      server.off('error', onError);
      resolve(server.address() as AddressInfo);
    };
    server.once('error', onError);
    server.once('listening', onListening);
    server.listen(a.port, a.host);
  });
}

export async function startServe(o: ServeOptions): Promise<ServeHandle> {
  const watches = serveWatches(o.namespace);
  const lease = new KcmLease();
  let handler: http.RequestListener = (_req, res) => {
    res.writeHead(503).end('starting\n');
  };
  const server = http.createServer((req, res) => handler(req, res));
  server.keepAliveTimeout = 5000;
  server.requestTimeout = 30000;
  server.headersTimeout = 10000;
  const info = await listenOn(server, o.listen);
  const host = info.family === 'IPv6' ? `[${info.address}]` : info.address;
  const closeServer = () => new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
  let registry: ServeRegistry;
  let run: Awaited<ReturnType<typeof probeWatches>>;
  let serverVersion: string | undefined;
  try {
    const v = await getJSON<{ gitVersion?: unknown }>(o.access.kc, '/version', { timeoutMs: o.requestTimeoutMs, signal: o.signal }).catch(() => undefined);
    serverVersion = typeof v?.gitVersion === 'string' ? v.gitVersion : undefined;
    run = await probeWatches({ kc: o.access.kc, watches, signal: o.signal, requestTimeoutMs: o.requestTimeoutMs, onWarning: o.onWarning });
    registry = new ServeRegistry({
      historyMs: o.historyMs,
      namespace: o.namespace,
      selector: o.selector,
      watches: run.run.filter((w) => !w.lease).map(({ resource, namespace, name, fieldSelector }) => ({ resource, ...(namespace ? { namespace } : {}), ...(name ? { name } : {}), ...(fieldSelector ? { fieldSelector } : {}) })),
      serverVersion,
      onWarning: o.onWarning,
    });
  } catch (err) {
    await closeServer();
    throw err;
  }
  const metrics = new ServeMetrics(registry);
  const evaluate = async (): Promise<Evaluation> => {
    const now = o.now();
    const ev = await registry.evaluate(now);
    metrics.update(ev, lease.state(o.now()), { leaderChanges: lease.leaderChanges, restarts: lease.restarts });
    return ev;
  };
  handler = createServeHandler({ registry, metrics, now: o.now, evaluate, source: { server: o.access.server, context: o.access.context, namespace: o.namespace ?? '*' } });
  const inner = new AbortController();
  const onAbort = () => inner.abort();
  o.signal.addEventListener('abort', onAbort, { once: true });
  let timer: NodeJS.Timeout | undefined;
  let readyTold = false;
  const tick = async () => {
    timer = undefined;
    if (inner.signal.aborted) return;
    if (registry.ready) {
      try {
        const ev = await evaluate();
        if (!readyTold) {
          readyTold = true;
          o.onInfo?.(`ready: ${ev.objects.size} object(s) reported (${[...registry.tracked()].map(([k, n]) => `${k} ${n}`).join(', ')}); what came before ${new Date(registry.coverageStart ?? ev.at).toISOString()} is unknown`);
        }
      } catch (err) {
        o.onWarning?.(`evaluation failed: ${String((err as Error)?.message ?? err).split('\n')[0]}`);
      }
    }
    if (!inner.signal.aborted) timer = setTimeout(() => void tick(), registry.ready ? o.intervalMs : 250);
  };
  const watching = runClusterWatch({
    kc: o.access.kc,
    watches: run.run,
    sinkOf: (w) => (w.lease ? lease.sink : registry.sink(w.resource)),
    signal: inner.signal,
    now: o.now,
    requestTimeoutMs: o.requestTimeoutMs,
    onWarning: o.onWarning,
    onUnavailable: (w) => registry.dropWatch(w.resource),
  });
  for (const w of run.unavailable) registry.dropWatch(w.resource);
  const leaseWatch = run.run.find((w) => w.lease);
  if (leaseWatch) registry.dropWatch(leaseWatch.resource);
  timer = setTimeout(() => void tick(), 250);
  const done = (async () => {
    try {
      await watching;
    } finally {
      inner.abort();
      if (timer) clearTimeout(timer);
      o.signal.removeEventListener('abort', onAbort);
      await closeServer();
      registry.close();
    }
  })();
  return { address: { host: info.address, port: info.port, url: `http://${host}:${info.port}` }, registry, done };
}
