/**
 * HTTPS_PROXY / HTTP_PROXY / NO_PROXY for API requests, as kubectl (Go's
 * golang.org/x/net/http/httpproxy) reads them:
 *
 * - an https server goes through HTTPS_PROXY (or https_proxy), an http server (`kubectl proxy`)
 *   through HTTP_PROXY (or http_proxy); the upper-case name wins when not empty; a value without a scheme is
 *   `http://`; only http:// proxies are supported (a CONNECT tunnel carries the TLS);
 * - `localhost` and loopback addresses are never proxied;
 * - NO_PROXY (or no_proxy) is a comma-separated list: `*` (no proxy at all), an IP address, a
 *   CIDR block, a host name (`example.com` matches it and its subdomains, `.example.com` only
 *   subdomains), each optionally with `:port`;
 * - a `proxy-url` in the kubeconfig's cluster wins over the environment (client-node's agent).
 *
 * Why not a library: Node 20 has no environment-proxy support in node:http (NODE_USE_ENV_PROXY
 * is Node 24, EnvHttpProxyAgent is undici's, which node:https does not use), and kexp may add no
 * dependency. An https request goes through a CONNECT tunnel (http.request method CONNECT, then
 * tls.connect over the socket); an http request is sent in absolute form to the proxy.
 * The proxy's userinfo becomes Proxy-Authorization and is never printed.
 */
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import type { Duplex } from 'node:stream';
import tls from 'node:tls';
import { ClusterError } from './cluster-error.js';

/** The proxy for `target` under `env`, or undefined for a direct connection. Throws ClusterError('config') for a proxy URL kexp cannot use. */
export function proxyFor(target: URL, env: NodeJS.ProcessEnv): URL | undefined {
  const raw = target.protocol === 'https:' ? (env.HTTPS_PROXY || env.https_proxy) : (env.HTTP_PROXY || env.http_proxy);
  if (!raw) return undefined;
  const host = target.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  const port = target.port || (target.protocol === 'https:' ? '443' : '80');
  if (host === 'localhost' || isLoopback(host)) return undefined;
  if (!useProxy(host, port, env.NO_PROXY || env.no_proxy || '')) return undefined;
  const name = target.protocol === 'https:' ? 'HTTPS_PROXY' : 'HTTP_PROXY';
  let proxy: URL;
  try {
    proxy = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(raw) ? raw : `http://${raw}`);
  } catch {
    throw new ClusterError('config', `${name} is not a URL`);
  }
  if (proxy.protocol !== 'http:') throw new ClusterError('config', `${name} ${displayProxy(proxy)}: only http:// proxies are supported`);
  return proxy;
}

/** The proxy URL without userinfo, for messages. */
export function displayProxy(p: URL): string {
  return `${p.protocol}//${p.host}`;
}

function isLoopback(host: string): boolean {
  if (net.isIPv4(host)) return host.startsWith('127.');
  if (net.isIPv6(host)) return host === '::1' || /^::ffff:127\./i.test(host);
  return false;
}

/** Go's httpproxy useProxy: false when NO_PROXY matches host:port. */
function useProxy(host: string, port: string, noProxy: string): boolean {
  for (let entry of noProxy.split(',').map((e) => e.trim().toLowerCase()).filter(Boolean)) {
    if (entry === '*') return false;
    if (entry.includes('/')) {
      // CIDR: net.BlockList does the address arithmetic.
      const [addr, bits] = entry.split('/') as [string, string];
      const family = net.isIPv6(addr) ? 'ipv6' : net.isIPv4(addr) ? 'ipv4' : undefined;
      const hostFamily = net.isIPv6(host) ? 'ipv6' : net.isIPv4(host) ? 'ipv4' : undefined;
      if (family && hostFamily === family && /^\d+$/.test(bits)) {
        const list = new net.BlockList();
        list.addSubnet(addr, Number(bits), family);
        if (list.check(host, family)) return false;
      }
      continue;
    }
    let entryPort: string | undefined;
    const m = /^(\[[^\]]+\]|[^:]+):(\d+)$/.exec(entry);
    if (m) {
      entry = m[1]!;
      entryPort = m[2];
    }
    entry = entry.replace(/^\[|\]$/g, '');
    if (entryPort !== undefined && entryPort !== port) continue;
    if (net.isIP(entry)) {
      if (entry === host) return false;
      continue;
    }
    if (entry.startsWith('*.')) entry = entry.slice(1);
    if (entry.startsWith('.')) {
      if (host.endsWith(entry)) return false;
    } else if (host === entry || host.endsWith(`.${entry}`)) return false;
  }
  return true;
}

function proxyAuthorization(p: URL): Record<string, string> {
  if (!p.username && !p.password) return {};
  const cred = `${decodeURIComponent(p.username)}:${decodeURIComponent(p.password)}`;
  return { 'Proxy-Authorization': `Basic ${Buffer.from(cred).toString('base64')}` };
}

type ConnectOptions = tls.ConnectionOptions & { host?: string; port?: number | string };
type Created = (err: Error | null, stream: Duplex) => void;

/** An https.Agent whose connections are TLS over a CONNECT tunnel through `proxy`. */
export class TunnelAgent extends https.Agent {
  constructor(private readonly proxy: URL) {
    super({ keepAlive: false });
  }

  // Node's agent calls createConnection(options, callback) and takes the socket from the
  // callback when none is returned, which lets the tunnel be set up asynchronously.
  override createConnection(reqOptions: https.RequestOptions, callback?: Created): undefined {
    const options = reqOptions as ConnectOptions;
    const done = (err: Error | null, socket?: Duplex) => callback?.(err, socket as Duplex);
    const target = `${options.host}:${options.port}`;
    const shown = displayProxy(this.proxy);
    const req = http.request({
      host: this.proxy.hostname,
      port: this.proxy.port || 80,
      method: 'CONNECT',
      path: target,
      headers: { Host: target, ...proxyAuthorization(this.proxy) },
    });
    req.once('connect', (res, socket) => {
      if (res.statusCode !== 200) {
        socket.destroy();
        done(new ClusterError('unreachable', `the proxy ${shown} (HTTPS_PROXY) refused to connect to ${target}: HTTP ${res.statusCode}${res.statusMessage ? ` ${res.statusMessage}` : ''}`));
        return;
      }
      const servername = options.servername ?? (net.isIP(String(options.host)) ? undefined : String(options.host));
      done(null, tls.connect({ ...options, socket, ...(servername ? { servername } : {}) }));
    });
    req.once('error', (err: NodeJS.ErrnoException) => done(new ClusterError('unreachable', `cannot reach the proxy ${shown} (HTTPS_PROXY): ${err.code ?? err.message}`)));
    req.end();
    return undefined;
  }
}

/** An http.Agent whose connections go to `proxy`; requests through it are sent in absolute form. */
export class HttpProxyAgent extends http.Agent {
  constructor(readonly proxy: URL) {
    super({ keepAlive: false });
  }

  override createConnection(_options: http.ClientRequestArgs, callback?: Created): undefined {
    const done = (err: Error | null, socket?: Duplex) => callback?.(err, socket as Duplex);
    const socket = net.connect({ host: this.proxy.hostname, port: Number(this.proxy.port || 80) });
    const onError = (err: NodeJS.ErrnoException) => done(new ClusterError('unreachable', `cannot reach the proxy ${displayProxy(this.proxy)} (HTTP_PROXY): ${err.code ?? err.message}`));
    socket.once('error', onError);
    socket.once('connect', () => {
      socket.off('error', onError);
      done(null, socket);
    });
    return undefined;
  }
}

/** The agent for requests to `server` under `env`, or undefined for a direct connection. */
export function proxyAgentFor(server: URL, env: NodeJS.ProcessEnv): http.Agent | undefined {
  const p = proxyFor(server, env);
  if (!p) return undefined;
  return server.protocol === 'https:' ? new TunnelAgent(p) : new HttpProxyAgent(p);
}

/**
 * Points `reqOpts` at the proxy agent (unless the kubeconfig's own proxy-url made client-node's
 * agent one): for plain http, the request line carries the absolute URL and the proxy's
 * credentials go in Proxy-Authorization.
 */
export function routeThroughProxy(reqOpts: https.RequestOptions, url: URL, agent: http.Agent | undefined, kubeconfigProxy: boolean): void {
  if (!agent || kubeconfigProxy) return;
  reqOpts.agent = agent;
  if (agent instanceof HttpProxyAgent) {
    reqOpts.path = url.href;
    reqOpts.headers = { ...(reqOpts.headers as Record<string, string>), ...proxyAuthorization(agent.proxy) };
  }
}
