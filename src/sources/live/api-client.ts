/**
 * A thin raw-JSON client over @kubernetes/client-node's KubeConfig: GET a path and get
 * the wire JSON back (client-node's typed APIs deserialise timestamps into Date objects;
 * recordings must hold the objects exactly as the API sent them). Authentication (token,
 * client certificate, exec plugin) comes from `KubeConfig.applyToHTTPSOptions`.
 *
 * Errors are ClusterError with a one-line message naming the request; credentials never
 * appear in messages.
 */
import https from 'node:https';
import http from 'node:http';
import type { KubeConfig } from '@kubernetes/client-node';

export type ClusterErrorKind = 'unreachable' | 'tls' | 'unauthorized' | 'forbidden' | 'not-found' | 'timeout' | 'http' | 'config';

export class ClusterError extends Error {
  constructor(
    readonly kind: ClusterErrorKind,
    message: string,
    readonly status?: number,
    readonly body?: unknown,
  ) {
    super(message);
    this.name = 'ClusterError';
  }
}

export interface GetOptions {
  signal?: AbortSignal;
  /** Request timeout in ms (kubectl's --request-timeout); 0 = none. */
  timeoutMs?: number;
}

function describeNetError(server: string, err: NodeJS.ErrnoException): ClusterError {
  const code = err.code ?? '';
  if (['ECONNREFUSED', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'ECONNRESET', 'EAI_AGAIN'].includes(code)) {
    return new ClusterError('unreachable', `cannot reach the API server at ${server}: ${code}`);
  }
  if (/CERT|SSL|TLS|SELF_SIGNED|UNABLE_TO_VERIFY/i.test(code) || /certificate|tls|ssl/i.test(err.message)) {
    return new ClusterError('tls', `TLS handshake with ${server} failed: ${code || err.message}`);
  }
  return new ClusterError('unreachable', `request to ${server} failed: ${code || err.message}`);
}

/** GET `path` (with query) and parse the JSON body. Throws ClusterError. */
export async function getJSON<T = unknown>(kc: KubeConfig, path: string, opts: GetOptions = {}): Promise<T> {
  const cluster = kc.getCurrentCluster();
  if (!cluster) throw new ClusterError('config', 'the kubeconfig has no current cluster');
  const url = new URL(cluster.server + path);
  const reqOpts: https.RequestOptions = { method: 'GET', headers: { Accept: 'application/json' } };
  await kc.applyToHTTPSOptions(reqOpts);
  const mod = url.protocol === 'http:' ? http : https;
  return await new Promise<T>((resolve, reject) => {
    const req = mod.request(url, { ...reqOpts, signal: opts.signal, timeout: opts.timeoutMs || undefined }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', (e) => reject(describeNetError(cluster.server, e)));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let body: unknown;
        try {
          body = text ? JSON.parse(text) : undefined;
        } catch {
          body = text;
        }
        const status = res.statusCode ?? 0;
        if (status >= 200 && status < 300) return resolve(body as T);
        const msg = (body as { message?: string } | undefined)?.message ?? `HTTP ${status}`;
        if (status === 401) return reject(new ClusterError('unauthorized', `the API server rejected the credentials (401 Unauthorized): expired or invalid; GET ${url.pathname}`, status, body));
        if (status === 403) return reject(new ClusterError('forbidden', msg, status, body));
        if (status === 404) return reject(new ClusterError('not-found', msg, status, body));
        reject(new ClusterError('http', `GET ${url.pathname} failed: ${status} ${msg}`, status, body));
      });
    });
    req.on('timeout', () => req.destroy(new ClusterError('timeout', `GET ${url.pathname} timed out after ${opts.timeoutMs} ms`)));
    req.on('error', (e: NodeJS.ErrnoException) => reject(e instanceof ClusterError ? e : e.name === 'AbortError' ? e : describeNetError(cluster.server, e)));
    req.end();
  });
}
