/**
 * A thin raw-JSON client over a kubeconfig (light-kubeconfig.ts, or @kubernetes/client-node's KubeConfig): GET a path and get
 * the wire JSON back (client-node's typed APIs deserialise timestamps into Date objects;
 * recordings must hold the objects exactly as the API sent them). Authentication (token,
 * client certificate, exec plugin) comes from `KubeAccess.applyToHTTPSOptions`.
 *
 * Every GET is bounded, and everything it can fail with is a ClusterError (exit 7, or 8 for a
 * 404) with one line naming the request:
 * - credential acquisition (which may run an exec plugin) and the whole request, body
 *   included, must finish within `timeoutMs` (--request-timeout; the socket must also not idle
 *   that long); credential acquisition alone gets DEFAULT_CREDENTIAL_TIMEOUT_MS (exec-credential.ts)
 *   when it is 0;
 * - a response body is read up to MAX_BODY_BYTES (an error body up to MAX_ERROR_BODY_BYTES);
 * - a 2xx that is not JSON (an HTML login page from a proxy) or not valid JSON is refused,
 *   naming its content-type;
 * - a response to a resource path must be of the kind that path asks for (resource-paths.ts):
 *   PodList of v1 for a pod list, items of kind Pod when they carry a kind, …;
 * - messages show the server without userinfo, and server text (an error body's `message`)
 *   only through scrubServerText, with the caller's own credentials removed;
 * - credentials are never sent over plain http.
 */
import https from 'node:https';
import http from 'node:http';
import { isRecord } from '../../model/objects.js';
import { KEXP_VERSION } from '../../version.js';
import type { KubeAccess } from './light-kubeconfig.js';
import { callerSecrets, displayServer, scrubServerText } from './credentials.js';
import { expectedKindOf, type ExpectedKind } from './resource-paths.js';
import { routeThroughProxy } from './proxy.js';
import { ClusterError } from './cluster-error.js';
import { DEFAULT_CREDENTIAL_TIMEOUT_MS } from './exec-credential.js';
import { addImpersonation, requestSettings } from './request-settings.js';

export interface GetOptions {
  signal?: AbortSignal;
  /** Request timeout in ms (kubectl's --request-timeout): socket idleness and the whole request; 0 = none. */
  timeoutMs?: number;
  /** Internal: this GET is the one retry after a kept-alive connection was found closed. */
  staleRetry?: boolean;
}

/**
 * The largest response body kexp reads. Pod lists are paged at 500 items (a few MiB even with
 * large pods) and single objects are far smaller, so this is never reached by a real API
 * server; it stops an endless or hostile response long before memory runs out. It is also
 * half of V8's string limit (~512 MiB in Node 20): a bigger body could not even be decoded
 * for JSON.parse, and parsing needs several times the text's size again.
 */
/**
 * kexp's User-Agent, in kubectl's form (`kubectl/v1.30.0 (linux/amd64) …`), so an audit log or
 * apiserver metrics show kexp's reads as kexp's.
 */
export const USER_AGENT = `kexp/v${KEXP_VERSION} (${process.platform}/${process.arch})`;

export const MAX_BODY_BYTES = 256 * 1024 * 1024;
/** An error body is a Status object of a few hundred bytes; more is an HTML page or worse. */
export const MAX_ERROR_BODY_BYTES = 1024 * 1024;

function describeNetError(server: string, err: NodeJS.ErrnoException, secrets: string[]): ClusterError {
  const code = err.code ?? '';
  const detail = code || scrubServerText(err.message, secrets);
  if (['ECONNREFUSED', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'ECONNRESET', 'EAI_AGAIN'].includes(code)) {
    return new ClusterError('unreachable', `cannot reach the API server at ${server}: ${code}`);
  }
  if (/CERT|SSL|TLS|SELF_SIGNED|UNABLE_TO_VERIFY|PEM|ASN1|DECODER/i.test(code) || /certificate|tls|ssl/i.test(err.message)) {
    return new ClusterError('tls', `TLS handshake with ${server} failed: ${detail}`);
  }
  return new ClusterError('unreachable', `request to ${server} failed: ${detail}`);
}

/** Whether a content-type names JSON (`application/json`, `application/merge-patch+json`, …). */
function isJsonType(ct: string): boolean {
  return /^application\/([\w.-]+\+)?json\s*(;|$)/i.test(ct.trim());
}

/** Why `body` is not what `expect` says the path returns, or undefined. */
function kindProblem(body: unknown, expect: ExpectedKind): string | undefined {
  if (!isRecord(body)) return `a JSON ${Array.isArray(body) ? 'array' : body === null ? 'null' : typeof body}, not a ${expect.kind}`;
  const b = body as { kind?: unknown; apiVersion?: unknown; items?: unknown };
  if (b.kind !== expect.kind || b.apiVersion !== expect.apiVersion) {
    return `kind ${JSON.stringify(b.kind ?? null)} of apiVersion ${JSON.stringify(b.apiVersion ?? null)}, not ${expect.kind} of ${expect.apiVersion}`;
  }
  if (!expect.itemKind) return undefined;
  if (b.items === undefined || b.items === null) return undefined;
  if (!Array.isArray(b.items)) return `a ${expect.kind} whose items are not a list`;
  for (let i = 0; i < b.items.length; i++) {
    const it = b.items[i] as { kind?: unknown; apiVersion?: unknown } | null;
    if (!isRecord(it)) return `a ${expect.kind} whose item ${i} is not an object`;
    // Items of a List usually carry no kind; one that does must be the listed kind.
    if (it.kind !== undefined && it.kind !== expect.itemKind) return `a ${expect.kind} whose item ${i} is of kind ${JSON.stringify(it.kind)}`;
    if (it.apiVersion !== undefined && it.apiVersion !== expect.apiVersion) return `a ${expect.kind} whose item ${i} is of apiVersion ${JSON.stringify(it.apiVersion)}`;
  }
  return undefined;
}

/** Whether request options carry any credential. */
function carriesCredentials(o: https.RequestOptions, url: URL): boolean {
  const h = (o.headers ?? {}) as Record<string, unknown>;
  return Boolean(Object.keys(h).some((k) => k.toLowerCase() === 'authorization') || o.auth || o.cert || o.key || o.pfx || url.username || url.password);
}

/**
 * The options of one GET to `url` as the kubeconfig says — kexp's headers (User-Agent,
 * impersonation), the credentials `applyToHTTPSOptions` sets (an exec plugin bounded by
 * `credentialSignal`), never over plain http, routed through a proxy when one applies — and the
 * caller's own secrets, to scrub from anything the server echoes. Shared by getJSON and the watch
 * stream. Throws ClusterError('config'), or the reason of `abort` when it fired.
 */
export async function prepareGet(
  kc: KubeAccess,
  url: URL,
  credentialSignal: AbortSignal,
  abort?: AbortSignal,
): Promise<{ reqOpts: https.RequestOptions; secrets: string[] }> {
  const cluster = kc.getCurrentCluster();
  const server = displayServer(String(cluster?.server ?? url.origin));
  const headers: Record<string, string | string[]> = { Accept: 'application/json', 'User-Agent': USER_AGENT };
  addImpersonation(kc, headers);
  const reqOpts: https.RequestOptions = { method: 'GET', headers, signal: credentialSignal };
  try {
    await kc.applyToHTTPSOptions(reqOpts);
  } catch (err) {
    if (abort?.aborted) throw abort.reason ?? err;
    if (err instanceof ClusterError) throw err;
    throw new ClusterError('config', `cannot set up the credentials for ${server}: ${scrubServerText((err as Error)?.message ?? String(err))}`);
  }
  // The caller sets the request's own signal; the credential deadline ends here.
  delete reqOpts.signal;
  if (abort?.aborted) throw abort.reason;
  if (url.protocol === 'http:' && carriesCredentials(reqOpts, url)) {
    throw new ClusterError('config', `refusing to send credentials over plain http to ${server}; use https`);
  }
  routeThroughProxy(reqOpts, url, requestSettings(kc).agent, Boolean(cluster?.proxyUrl));
  return { reqOpts, secrets: callerSecrets(reqOpts, url) };
}

/**
 * One keep-alive agent per protocol for getJSON's direct connections. client-node's
 * applyToHTTPSOptions hands every request a fresh agent, i.e. a new TCP connection, TLS context
 * and handshake per GET (16 handshakes for `explain` on 5,000 pods, ~10–15 ms of CPU each on
 * both ends). Everything that agent knew is also on the request options (ca, cert, key,
 * servername, rejectUnauthorized, …), and Node's Agent keeps a separate pool for each distinct
 * set of those (Agent.getName), so a credential that changes (an exec plugin's new client
 * certificate) gets a new connection, never another user's socket. Idle sockets are unref'd by
 * the agent and do not keep the process alive. Proxy agents (the kubeconfig's proxy-url, or
 * HTTPS_PROXY) are left alone: they are not exactly http(s).Agent. Watch streams (watch-stream.ts)
 * use the same agent, so a watch starts on a warm connection like the list before it.
 */
const sharedAgents = { 'https:': new https.Agent({ keepAlive: true }), 'http:': new http.Agent({ keepAlive: true }) };

export function shareConnections(reqOpts: https.RequestOptions, url: URL): void {
  const a = reqOpts.agent;
  if (!a || (url.protocol !== 'https:' && url.protocol !== 'http:')) return;
  const proto = Object.getPrototypeOf(a);
  if (proto === https.Agent.prototype && url.protocol === 'https:') reqOpts.agent = sharedAgents['https:'];
  else if (proto === http.Agent.prototype && url.protocol === 'http:') reqOpts.agent = sharedAgents['http:'];
}

/** GET `path` (with query) and parse the JSON body. Throws ClusterError (or the AbortError of `opts.signal`). */
export async function getJSON<T = unknown>(kc: KubeAccess, path: string, opts: GetOptions = {}): Promise<T> {
  const cluster = kc.getCurrentCluster();
  if (!cluster) throw new ClusterError('config', 'the kubeconfig has no current cluster');
  const server = displayServer(String(cluster.server));
  let url: URL;
  try {
    url = new URL(cluster.server + path);
  } catch {
    throw new ClusterError('config', `the cluster server ${JSON.stringify(server)} is not a URL`);
  }
  const what = `GET ${url.pathname}`;
  const timeoutMs = opts.timeoutMs && opts.timeoutMs > 0 ? opts.timeoutMs : 0;
  const started = Date.now();

  // Credentials: client-node may run an exec plugin here; bounded by the request's deadline.
  const credDeadline = AbortSignal.timeout(timeoutMs || DEFAULT_CREDENTIAL_TIMEOUT_MS);
  const { reqOpts, secrets } = await prepareGet(kc, url, opts.signal ? AbortSignal.any([opts.signal, credDeadline]) : credDeadline, opts.signal);
  shareConnections(reqOpts, url);
  const remaining = timeoutMs ? timeoutMs - (Date.now() - started) : 0;
  if (timeoutMs && remaining <= 0) throw new ClusterError('timeout', `${what} timed out after ${timeoutMs} ms (while getting credentials)`);
  const mod = url.protocol === 'http:' ? http : https;
  const expect = expectedKindOf(path);

  return await new Promise<T>((resolve, reject) => {
    let done = false;
    let deadline: NodeJS.Timeout | undefined;
    const settle = (err: unknown, value?: T) => {
      if (done) return;
      done = true;
      if (deadline) clearTimeout(deadline);
      if (err) reject(err);
      else resolve(value as T);
    };
    let req: http.ClientRequest;
    try {
      req = mod.request(url, { ...reqOpts, signal: opts.signal, timeout: timeoutMs || undefined }, (res) => {
        const status = res.statusCode ?? 0;
        const ok = status >= 200 && status < 300;
        const ct = String(res.headers['content-type'] ?? '');
        const fail = (err: ClusterError) => {
          settle(err);
          req.destroy();
        };
        if (ok && ct && !isJsonType(ct)) {
          return fail(new ClusterError('response', `${what} returned ${status} with content-type ${JSON.stringify(scrubServerText(ct, secrets))}, not JSON (a login page or proxy in front of the API server?)`, status));
        }
        const limit = ok ? MAX_BODY_BYTES : MAX_ERROR_BODY_BYTES;
        const declared = Number(res.headers['content-length']);
        if (ok && Number.isFinite(declared) && declared > limit) {
          return fail(new ClusterError('response', `${what} returned a body of ${declared} bytes, more than the ${limit / 1024 / 1024} MiB kexp reads`, status));
        }
        const chunks: Buffer[] = [];
        let size = 0;
        let truncated = false;
        res.on('data', (c: Buffer) => {
          if (done || truncated) return;
          size += c.length;
          if (size > limit) {
            if (ok) return fail(new ClusterError('response', `${what} returned more than the ${limit / 1024 / 1024} MiB kexp reads; stopped reading`, status));
            truncated = true; // an oversized error body: its start is enough for the status line
            chunks.push(c.subarray(0, c.length - (size - limit)));
            res.destroy();
            finish();
            return;
          }
          chunks.push(c);
        });
        res.on('error', (e: NodeJS.ErrnoException) => {
          if (!truncated) settle(e instanceof ClusterError ? e : describeNetError(server, e, secrets));
        });
        const finish = () => {
          if (done) return;
          const text = Buffer.concat(chunks).toString('utf8');
          let body: unknown;
          let parsed = true;
          try {
            body = text ? JSON.parse(text) : undefined;
          } catch {
            parsed = false;
            body = undefined;
          }
          if (ok) {
            if (!parsed || body === undefined) {
              return settle(new ClusterError('response', `${what} returned ${status} with ${parsed ? 'an empty body' : 'a body that is not valid JSON'} (content-type ${JSON.stringify(scrubServerText(ct, secrets) || 'none')})`, status));
            }
            const problem = expect ? kindProblem(body, expect) : undefined;
            if (problem) return settle(new ClusterError('response', `${what} returned ${problem}`, status));
            return settle(undefined, body as T);
          }
          const rawMsg = (body as { message?: unknown } | undefined)?.message;
          const serverSaid = typeof rawMsg === 'string' && rawMsg.trim() !== '';
          const msg = serverSaid ? scrubServerText(rawMsg, secrets) : `HTTP ${status}${http.STATUS_CODES[status] ? ` ${http.STATUS_CODES[status]}` : ''}`;
          if (status === 401) return settle(new ClusterError('unauthorized', `the API server rejected the credentials (401 Unauthorized): expired or invalid; ${what}`, status));
          if (status === 403) return settle(new ClusterError('forbidden', msg, status));
          if (status === 404) return settle(new ClusterError('not-found', msg, status));
          settle(new ClusterError('http', `${what} failed: ${serverSaid ? `${status} ` : ''}${msg}`, status));
        };
        res.on('end', finish);
      });
    } catch (err) {
      // Synchronous failures building the TLS context (a certificate or key that is not PEM).
      return settle(describeNetError(server, err as NodeJS.ErrnoException, secrets));
    }
    const timedOut = () => new ClusterError('timeout', `${what} timed out after ${timeoutMs} ms`);
    if (timeoutMs) {
      // --request-timeout bounds the whole request, not only socket idleness: a server that
      // trickles an endless body never idles.
      deadline = setTimeout(() => {
        settle(timedOut());
        req.destroy();
      }, Math.max(1, timeoutMs - (Date.now() - started)));
    }
    req.on('timeout', () => {
      settle(timedOut());
      req.destroy();
    });
    req.on('error', (e: NodeJS.ErrnoException) => {
      if (e.name === 'AbortError' && opts.signal?.aborted) return settle(e);
      if (!done && req.reusedSocket && e.code === 'ECONNRESET' && !opts.staleRetry) {
        // A kept-alive connection (sharedAgents) that the server closed as it was being reused:
        // the GET never reached it, so it is sent once more on a new connection (Node's advice
        // for keep-alive agents), within what is left of the deadline.
        done = true;
        if (deadline) clearTimeout(deadline);
        const left = timeoutMs ? Math.max(1, timeoutMs - (Date.now() - started)) : 0;
        getJSON<T>(kc, path, { ...opts, timeoutMs: left, staleRetry: true }).then(resolve, reject);
        return;
      }
      settle(e instanceof ClusterError ? e : describeNetError(server, e, secrets));
    });
    req.end();
  });
}
