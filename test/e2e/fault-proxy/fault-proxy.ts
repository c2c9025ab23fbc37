/**
 * A fault-injecting HTTPS proxy in front of kube-apiserver, for driving the real
 * kube-controller-manager into the incidents kexp diagnoses (informer lag, lost watch events,
 * relists that hide a deletion, 410 Gone, brown-outs). See README.md beside this file.
 *
 * TLS: the proxy serves a certificate from the control plane's own PKI and asks for a client
 * certificate. Every request goes upstream with the caller's own credentials, so the audit log
 * keeps the real identities: an `Authorization` header (the controllers' service-account bearer
 * tokens) is forwarded as it is; a caller that presented a client certificate is forwarded with
 * the same certificate — the proxy holds the key pairs it may present (`identities`) and picks
 * the one whose certificate the caller presented. A caller with a certificate the proxy does
 * not hold gets a 502 that says so, never another identity.
 *
 * Reading events: list and watch requests for pods and replicasets are asked upstream as JSON
 * (the controller-manager asks for protobuf first, JSON second; client-go decodes whatever
 * content type the response carries), so the proxy can read, hold back, drop or add events.
 * Everything else passes through byte for byte.
 *
 * Every fault the proxy injects is written to the fault log (faults.ts) at the time it happens.
 * Node built-ins only: a proxy that must rewrite single watch events in flight has no
 * off-the-shelf counterpart (http-proxy and friends pass bodies through untouched).
 */
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import crypto from 'node:crypto';
import type net from 'node:net';
import type tls from 'node:tls';
import { terminalSafeLine } from '../../../src/render/terminal-safe.js';
import { FaultLog, parseRule, ruleMatches, type FaultRule } from './faults.js';

export interface FaultProxyOptions {
  /** kube-apiserver's URL, e.g. https://127.0.0.1:6443. */
  upstream: string;
  /** The control plane's CA: verifies the upstream and the callers' client certificates. */
  caFile: string;
  /** The proxy's serving certificate and key (signed by the same CA, SAN 127.0.0.1). */
  certFile: string;
  keyFile: string;
  /** Client key pairs the proxy may present upstream for a caller that presented the same certificate. */
  identities: Array<{ certFile: string; keyFile: string }>;
  /** Fault log (JSON Lines); none when absent. */
  faultLog?: string;
  /** Listen port (0: any free port). */
  port?: number;
  /** Also serve the control endpoint on this port (0: any free port). */
  controlPort?: number;
  /** One-line warnings (upstream errors, unknown client certificates); default stderr. */
  warn?: (line: string) => void;
}

interface OpenWatch {
  resource: string;
  userAgent: string;
  res: http.ServerResponse;
  upstream?: http.ClientRequest;
  closed: boolean;
  /** Sends the events held back for `namespace` (all when absent) now, in order; returns how many. */
  flush?: (namespace?: string) => number;
}

interface Stall {
  client?: string;
  done: boolean;
  release: Promise<void>;
  end: () => void;
}

interface Identity {
  fingerprint: string;
  agent: https.Agent;
  cert: Buffer;
  key: Buffer;
}

interface Target {
  resource: 'pods' | 'replicasets';
  namespace?: string;
  name?: string;
  subresource?: string;
}

const PATHS: Array<[RegExp, 'pods' | 'replicasets']> = [
  [/^\/api\/v1\/(?:namespaces\/([^/]+)\/)?pods(?:\/([^/]+))?(?:\/([^/]+))?$/, 'pods'],
  [/^\/apis\/apps\/v1\/(?:namespaces\/([^/]+)\/)?replicasets(?:\/([^/]+))?(?:\/([^/]+))?$/, 'replicasets'],
];

/** How long the proxy asks the apiserver to keep a watch open (see handle). */
const WATCH_TIMEOUT_S = 1800;

export function targetOf(pathname: string): Target | undefined {
  // A malformed escape (`%E0`) is no pod or ReplicaSet: the request passes through untouched.
  const decode = (s: string | undefined) => {
    if (s === undefined) return undefined;
    try {
      return decodeURIComponent(s);
    } catch {
      return null;
    }
  };
  for (const [re, resource] of PATHS) {
    const m = re.exec(pathname);
    if (!m) continue;
    const namespace = decode(m[1]);
    const name = decode(m[2]);
    if (namespace === null || name === null) return undefined;
    return { resource, namespace, name, subresource: m[3] };
  }
  return undefined;
}

function fingerprintOf(pem: Buffer): string {
  return new crypto.X509Certificate(pem).fingerprint256;
}

function readOrThrow(what: string, file: string): Buffer {
  try {
    return fs.readFileSync(file);
  } catch (e) {
    throw new Error(`fault proxy: cannot read ${what} ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
}

function statusBody(code: number, reason: string, message: string): string {
  return JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code });
}

type Meta = { namespace?: string; name?: string; resourceVersion?: string; deletionTimestamp?: string; annotations?: Record<string, string> };
type WatchEvent = { type: string; object: { metadata?: Meta; kind?: string } };

export class FaultProxy {
  url = '';
  controlURL?: string;
  readonly log: FaultLog;
  private readonly rules = new Map<number, FaultRule>();
  private nextId = 1;
  private readonly watches = new Set<OpenWatch>();
  /** Last state seen of each object a hide-deletion rule keeps alive (`resource ns/name`). */
  private readonly lastSeen = new Map<string, unknown>();
  /** Names (`ns/name`) on the pages of a paged LIST so far, by the continue token that asks for the next page. */
  private readonly pages = new Map<string, Set<string>>();
  /**
   * Stalls in force. A stall is over when its timer fires (`done`), not by the clock: a timer
   * may fire a millisecond "early" by Date.now(), and a line that went by the clock could then
   * overtake one still waiting for the timer.
   */
  private stalls: Stall[] = [];
  private closing = false;
  private server?: https.Server;
  private control?: http.Server;
  private readonly identities: Identity[] = [];
  private readonly anonymous: https.Agent;
  private readonly upstream: URL;
  private readonly warn: (line: string) => void;
  private readonly timers = new Set<NodeJS.Timeout>();

  private constructor(private readonly opts: FaultProxyOptions) {
    this.upstream = new URL(opts.upstream);
    const ca = readOrThrow('CA certificate', opts.caFile);
    this.anonymous = new https.Agent({ ca, keepAlive: true });
    for (const id of opts.identities) {
      const cert = readOrThrow('client certificate', id.certFile);
      const key = readOrThrow('client key', id.keyFile);
      let fingerprint: string;
      try {
        fingerprint = fingerprintOf(cert);
      } catch (e) {
        throw new Error(`fault proxy: ${id.certFile} is not a PEM certificate: ${(e as Error).message}`);
      }
      this.identities.push({ fingerprint, cert, key, agent: new https.Agent({ ca, cert, key, keepAlive: true }) });
    }
    this.log = new FaultLog(opts.faultLog);
    // Warnings carry what callers sent (a URL, a certificate's CN): made safe for a terminal.
    this.warn = opts.warn ?? ((l) => process.stderr.write(terminalSafeLine(l) + '\n'));
  }

  static async start(opts: FaultProxyOptions): Promise<FaultProxy> {
    const p = new FaultProxy(opts);
    const ca = readOrThrow('CA certificate', opts.caFile);
    const cert = readOrThrow('serving certificate', opts.certFile);
    const key = readOrThrow('serving key', opts.keyFile);
    let server: https.Server;
    try {
      server = https.createServer({ ca, cert, key, requestCert: true, rejectUnauthorized: false }, (req, res) => void p.handle(req, res));
    } catch (e) {
      throw new Error(`fault proxy: serving certificate ${opts.certFile}: ${(e as Error).message}`);
    }
    // Watches stay open for minutes; the default timeouts would cut them.
    server.requestTimeout = 0;
    server.headersTimeout = 60_000;
    server.keepAliveTimeout = 120_000;
    // A client that gives up mid-handshake must not take the proxy down.
    server.on('tlsClientError', () => undefined);
    try {
      await listen(server, opts.port ?? 0);
      p.server = server;
      p.url = `https://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
      if (opts.controlPort !== undefined) {
        const control = http.createServer((req, res) => void p.handleControl(req, res));
        await listen(control, opts.controlPort);
        p.control = control;
        p.controlURL = `http://127.0.0.1:${(control.address() as net.AddressInfo).port}`;
      }
    } catch (e) {
      await p.close();
      throw e;
    }
    return p;
  }

  // ------------------------------------------------------------------------------ faults

  /** Adds a rule; returns its id. A hide-deletion rule first fetches the object's current state. */
  async add(input: FaultRule | unknown): Promise<number> {
    const rule = parseRule(input);
    const id = this.nextId++;
    if (rule.action === 'hide-deletion' && !this.lastSeen.has(`${rule.resource} ${rule.namespace}/${rule.name}`)) {
      const obj = await this.fetchObject(rule.resource, rule.namespace, rule.name);
      this.lastSeen.set(`${rule.resource} ${rule.namespace}/${rule.name}`, obj);
    }
    this.rules.set(id, rule);
    this.log.write({ action: 'rule-added', rule: id, resource: rule.resource, namespace: rule.namespace, name: rule.name, client: rule.client, detail: JSON.stringify(rule) });
    return id;
  }

  remove(id: number): boolean {
    const rule = this.rules.get(id);
    if (!rule) return false;
    this.rules.delete(id);
    this.log.write({ action: 'rule-removed', rule: id, resource: rule.resource, namespace: rule.namespace, name: rule.name });
    return true;
  }

  /** Removes every rule `pred` selects (a finished scenario's rules); returns how many. */
  removeWhere(pred: (r: FaultRule) => boolean): number {
    let n = 0;
    for (const [id, r] of [...this.rules]) if (pred(r) && this.remove(id)) n++;
    return n;
  }

  list(): Array<{ id: number; rule: FaultRule }> {
    return [...this.rules].map(([id, rule]) => ({ id, rule }));
  }

  /**
   * Ends the open watches of `resource` (all resources when absent) of matching clients:
   * `end` closes the response cleanly (the reflector re-watches from its last resourceVersion),
   * `reset` destroys the connection (a dropped connection). Returns how many were ended.
   */
  endWatches(opts: { resource?: string; client?: string; mode?: 'end' | 'reset' } = {}): number {
    let n = 0;
    for (const w of [...this.watches]) {
      if (opts.resource && w.resource !== opts.resource) continue;
      if (opts.client && !w.userAgent.includes(opts.client)) continue;
      n++;
      this.closeWatch(w, opts.mode ?? 'end');
      this.log.write({ action: opts.mode === 'reset' ? 'watch-reset' : 'watch-ended', resource: w.resource, client: w.userAgent });
    }
    return n;
  }

  /**
   * Delivers now, in order, the watch events held back by `delay` rules (the informer catches
   * up); later events are no longer held unless a delay rule still matches them. Returns how
   * many events were released.
   */
  flush(opts: { resource?: string; namespace?: string; client?: string } = {}): number {
    let n = 0;
    for (const w of this.watches) {
      if (opts.resource && w.resource !== opts.resource) continue;
      if (opts.client && !w.userAgent.includes(opts.client)) continue;
      n += w.flush?.(opts.namespace) ?? 0;
    }
    this.log.write({ action: 'flush', resource: opts.resource, namespace: opts.namespace, client: opts.client, detail: `${n} held event(s) delivered` });
    return n;
  }

  /** Holds every request and watch event of matching clients for `ms` (an apiserver brown-out). */
  stall(ms: number, client?: string): void {
    let resolve!: () => void;
    const release = new Promise<void>((r) => (resolve = r));
    const end = () => {
      s.done = true;
      this.stalls = this.stalls.filter((x) => x !== s);
      resolve();
    };
    const s: Stall = { client, done: false, release, end };
    this.stalls.push(s);
    this.timer(s.end, ms);
    this.log.write({ action: 'stall', client, detail: `${ms} ms` });
  }

  private stallFor(userAgent: string): Stall | undefined {
    return this.stalls.find((s) => !s.done && (s.client === undefined || userAgent.includes(s.client)));
  }

  async close(): Promise<void> {
    this.closing = true;
    // Requests held by a stall go on to find the proxy closing (their sockets are closed below).
    for (const s of [...this.stalls]) s.end();
    for (const w of [...this.watches]) this.closeWatch(w, 'reset');
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    await Promise.all([this.server, this.control].filter(Boolean).map((s) => new Promise<void>((r) => {
      s!.close(() => r());
      s!.closeAllConnections?.();
    })));
    this.anonymous.destroy();
    for (const id of this.identities) id.agent.destroy();
  }

  // ------------------------------------------------------------------------------ requests

  private timer(fn: () => void, ms: number): NodeJS.Timeout {
    const t = setTimeout(() => {
      this.timers.delete(t);
      fn();
    }, Math.max(0, ms));
    this.timers.add(t);
    return t;
  }

  private cancelTimer(t: NodeJS.Timeout): void {
    clearTimeout(t);
    this.timers.delete(t);
  }

  private async stalled(userAgent: string): Promise<void> {
    for (let s = this.stallFor(userAgent); s; s = this.stallFor(userAgent)) await s.release;
  }

  private agentFor(req: http.IncomingMessage): https.Agent | { error: string } {
    const sock = req.socket as tls.TLSSocket;
    const peer = sock.getPeerCertificate?.();
    if (!peer || !peer.raw) return this.anonymous;
    if (!sock.authorized) return { error: `client certificate CN=${peer.subject?.CN ?? '?'} was not accepted with the control plane's CA (${String(sock.authorizationError)})` };
    const fp = new crypto.X509Certificate(peer.raw).fingerprint256;
    const id = this.identities.find((i) => i.fingerprint === fp);
    if (!id) return { error: `client certificate CN=${peer.subject?.CN ?? '?'} is not one the proxy holds a key for, so it cannot forward the caller's identity` };
    return id.agent;
  }

  /** One request: a bug in the proxy answers 502 with one line, never an unhandled rejection that ends the process. */
  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    try {
      await this.forward(req, res);
    } catch (e) {
      const line = `fault proxy: ${req.method} ${req.url}: ${String((e as Error)?.message ?? e).split('\n')[0]}`;
      this.warn(line);
      if (!res.headersSent && !res.destroyed) res.writeHead(502, { 'Content-Type': 'application/json' }).end(statusBody(502, 'BadGateway', line));
      else res.destroy();
    }
  }

  private async forward(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const userAgent = String(req.headers['user-agent'] ?? '');
    await this.stalled(userAgent);
    if (res.destroyed || this.closing) return; // the caller gave up during the stall
    const agent = this.agentFor(req);
    if ('error' in agent) {
      this.warn(`fault proxy: ${agent.error}`);
      res.writeHead(502, { 'Content-Type': 'application/json' }).end(statusBody(502, 'BadGateway', `fault proxy: ${agent.error}`));
      return;
    }
    // The request line goes upstream as it came; the parsed URL only decides what to do with it
    // (a base is needed, and `//host/…` must not be read as another host).
    const rawPath = req.url ?? '/';
    const url = new URL(rawPath.startsWith('/') ? `http://upstream${rawPath}` : rawPath, 'http://upstream');
    const target = req.method === 'GET' ? targetOf(url.pathname) : undefined;
    const collection = target && !target.name;
    const watch = collection && (url.searchParams.get('watch') === 'true' || url.searchParams.get('watch') === '1');
    const headers: http.OutgoingHttpHeaders = { ...req.headers, host: this.upstream.host };
    // Hop-by-hop headers belong to the caller's connection, not to the proxy's (RFC 9110 §7.6.1).
    for (const h of ['connection', 'keep-alive', 'proxy-connection', 'upgrade']) delete headers[h];
    if (collection) headers.accept = 'application/json';

    if (watch) {
      const gone = this.firstRule(target.resource, userAgent, (r) => r.action === 'gone', target.namespace);
      if (gone) {
        const [id, rule] = gone;
        if (rule.action === 'gone' && --rule.count <= 0) this.rules.delete(id);
        this.log.write({ action: 'gone', rule: id, resource: target.resource, namespace: target.namespace, event: 'WATCH', client: userAgent, resourceVersion: url.searchParams.get('resourceVersion') ?? undefined });
        const rv = url.searchParams.get('resourceVersion') ?? '0';
        res.writeHead(410, { 'Content-Type': 'application/json' }).end(statusBody(410, 'Expired', `too old resource version: ${rv} (${rv})`));
        return;
      }
    }

    // A watch the apiserver ends (its timeoutSeconds, 5–10 min for an informer) while events are
    // held back stays open towards the client until they drain, and meanwhile nothing else of
    // that watch reaches the client — with a 330 s delay of one namespace that would starve every
    // other namespace. Ask the apiserver to keep watches open for 30 minutes instead.
    let upstreamPath = rawPath;
    if (watch) {
      const t = Number(url.searchParams.get('timeoutSeconds') ?? '0');
      if (t < WATCH_TIMEOUT_S) upstreamPath = rawPath.replace(/([?&])timeoutSeconds=\d*/, `$1timeoutSeconds=${WATCH_TIMEOUT_S}`) + (url.searchParams.has('timeoutSeconds') ? '' : `${rawPath.includes('?') ? '&' : '?'}timeoutSeconds=${WATCH_TIMEOUT_S}`);
    }
    const up = https.request(
      { protocol: 'https:', hostname: this.upstream.hostname, port: this.upstream.port, method: req.method, path: upstreamPath, headers, agent },
      (upRes) => {
        if (watch && upRes.statusCode === 200) return this.pipeWatch(target, url, userAgent, upRes, res, up);
        if (collection && upRes.statusCode === 200) return void this.sendList(target, url, upRes, res);
        res.writeHead(upRes.statusCode ?? 502, upRes.headers);
        upRes.pipe(res);
      },
    );
    up.on('error', (e) => {
      if (res.destroyed) return; // the caller hung up first; nothing to tell
      const line = `fault proxy: upstream ${this.upstream.origin}: ${(e as NodeJS.ErrnoException).code ?? e.message}`;
      if (!res.headersSent) {
        this.warn(line);
        res.writeHead(502, { 'Content-Type': 'application/json' }).end(statusBody(502, 'BadGateway', line));
      } else res.destroy();
    });
    res.on('close', () => {
      if (!res.writableFinished) up.destroy();
    });
    req.pipe(up);
  }

  private firstRule(resource: string, userAgent: string, pred: (r: FaultRule) => boolean, ns?: string, name?: string): [number, FaultRule] | undefined {
    for (const entry of this.rules) if (pred(entry[1]) && ruleMatches(entry[1], resource, userAgent, ns, name)) return entry;
    return undefined;
  }

  private remember(resource: string, obj: { metadata?: Meta }): void {
    const m = obj.metadata;
    // The state to serve in place of a deletion is the last one before it began.
    if (!m?.name || m.deletionTimestamp) return;
    const key = `${resource} ${m.namespace ?? ''}/${m.name}`;
    if (this.lastSeen.has(key) || [...this.rules.values()].some((r) => r.action === 'hide-deletion' && r.resource === resource && r.namespace === m.namespace && r.name === m.name)) {
      this.lastSeen.set(key, obj);
    }
  }

  /**
   * The hide-deletion objects a relist of `target` must still contain but does not. A relist
   * filtered by a label or field selector is left as it is: the proxy does not evaluate
   * selectors, and an object the selector would not pick must not appear.
   */
  private hidden(target: Target, url: URL, userAgent: string, present: Set<string>): Array<{ id: number; obj: unknown; key: string }> {
    const out: Array<{ id: number; obj: unknown; key: string }> = [];
    if (url.searchParams.get('labelSelector') || url.searchParams.get('fieldSelector')) return out;
    for (const [id, r] of this.rules) {
      if (r.action !== 'hide-deletion' || r.resource !== target.resource) continue;
      if (r.client !== undefined && !userAgent.includes(r.client)) continue;
      if (target.namespace !== undefined && target.namespace !== r.namespace) continue;
      const key = `${r.namespace}/${r.name}`;
      const obj = this.lastSeen.get(`${r.resource} ${key}`);
      if (obj && !present.has(key)) out.push({ id, obj, key });
    }
    return out;
  }

  /**
   * A LIST of pods or ReplicaSets: remembers the objects hide-deletion rules keep alive, and
   * adds those the list lacks. A paged list (`limit`, `continue`) gets them on its last page
   * only, and only if no page had them: the names seen so far are kept per continue token.
   */
  private sendList(target: Target, url: URL, upRes: http.IncomingMessage, res: http.ServerResponse): void {
    const chunks: Buffer[] = [];
    upRes.on('data', (c: Buffer) => chunks.push(c));
    upRes.on('end', () => {
      let body = Buffer.concat(chunks);
      const userAgent = String((res.req?.headers ?? {})['user-agent'] ?? '');
      try {
        const list = JSON.parse(body.toString('utf8')) as { metadata?: { continue?: string }; items?: Array<{ metadata?: Meta }> };
        for (const item of list.items ?? []) this.remember(target.resource, item);
        const token = url.searchParams.get('continue');
        const present = new Set(token ? this.pages.get(token) : []);
        if (token) this.pages.delete(token);
        for (const i of list.items ?? []) present.add(`${i.metadata?.namespace}/${i.metadata?.name}`);
        if (list.metadata?.continue) {
          this.pages.set(list.metadata.continue, present);
          // A client that never asks for the next page leaves its token behind; keep the newest few.
          if (this.pages.size > 64) this.pages.delete(this.pages.keys().next().value!);
        }
        const add = list.metadata?.continue ? [] : this.hidden(target, url, userAgent, present);
        if (add.length) {
          list.items = [...(list.items ?? []), ...(add.map((a) => a.obj) as Array<{ metadata?: Meta }>)];
          for (const a of add) this.log.write({ action: 'hide-deletion', rule: a.id, resource: target.resource, namespace: a.key.split('/')[0], name: a.key.split('/')[1], event: 'LIST', client: userAgent, detail: 'served in a relist after its deletion' });
          body = Buffer.from(JSON.stringify(list));
        }
      } catch {
        /* not JSON (a Table, an error): pass through */
      }
      const headers = { ...upRes.headers, 'content-length': String(body.length) };
      delete headers['transfer-encoding'];
      res.writeHead(upRes.statusCode ?? 200, headers).end(body);
    });
    upRes.on('error', () => res.destroy());
  }

  private pipeWatch(target: Target, url: URL, userAgent: string, upRes: http.IncomingMessage, res: http.ServerResponse, up: http.ClientRequest): void {
    const w: OpenWatch = { resource: target.resource, userAgent, res, upstream: up, closed: false };
    this.watches.add(w);
    const headers = { ...upRes.headers };
    delete headers['content-length'];
    res.writeHead(200, headers);
    res.flushHeaders();
    const initial = url.searchParams.get('sendInitialEvents') === 'true';
    let inInitial = initial;
    const presentInitial = new Set<string>();
    // Held-back lines in the order they came. A line of a namespace goes out when its time has
    // come and no earlier line of the same namespace is still held (a delay removed mid-way
    // keeps the order); a line of no namespace (a BOOKMARK, an ERROR) goes out when no earlier
    // line at all is held. One pump decides, in this order — not one timer per line, since
    // timers due at the same millisecond fire in no guaranteed order.
    const held: Array<{ line: string; key: string | undefined; at: number }> = [];
    let pumpTimer: { at: number; t: NodeJS.Timeout } | undefined;
    let pendingWrites = 0;
    let upstreamEnded = false;
    const finish = () => {
      if (upstreamEnded && pendingWrites === 0 && held.length === 0 && !w.closed) {
        w.closed = true;
        this.watches.delete(w);
        res.end();
      }
    };
    const send = (line: string) => {
      if (w.closed) return;
      const stall = this.stallFor(userAgent);
      if (stall) {
        pendingWrites++;
        void stall.release.then(() => {
          pendingWrites--;
          send(line);
          finish();
        });
        return;
      }
      res.write(line + '\n');
    };
    const pump = () => {
      const now = Date.now();
      const blocked = new Set<string | undefined>();
      let next = Infinity;
      for (let i = 0; i < held.length; ) {
        const h = held[i];
        const free = h.key === undefined ? blocked.size === 0 : h.at <= now && !blocked.has(h.key);
        if (free) {
          held.splice(i, 1);
          send(h.line);
          continue;
        }
        blocked.add(h.key);
        if (h.at > now) next = Math.min(next, h.at);
        i++;
      }
      if (next !== Infinity && (!pumpTimer || pumpTimer.at > next)) {
        if (pumpTimer) this.cancelTimer(pumpTimer.t);
        pumpTimer = {
          at: next,
          t: this.timer(() => {
            pumpTimer = undefined;
            pump();
          }, next - now),
        };
      }
      finish();
    };
    // A flush makes the held lines of a namespace (every held line when absent) due now.
    w.flush = (namespace?: string) => {
      let n = 0;
      for (const h of held) {
        if (namespace !== undefined && h.key !== undefined && h.key !== namespace) continue;
        h.at = 0;
        n++;
      }
      pump();
      return n;
    };
    const emit = (line: string, ns: string | undefined, delayMs: number) => {
      const now = Date.now();
      if (!held.length && delayMs <= 0) return send(line);
      held.push({ line, key: ns, at: now + Math.max(0, delayMs) });
      pump();
    };
    const handleEvent = (line: string) => {
      let ev: WatchEvent;
      try {
        ev = JSON.parse(line) as WatchEvent;
      } catch {
        return emit(line, undefined, 0);
      }
      const meta = ev.object?.metadata ?? {};
      const ns = meta.namespace;
      const name = meta.name;
      if (ev.type === 'BOOKMARK' || ev.type === 'ERROR') {
        if (ev.type === 'BOOKMARK' && inInitial && meta.annotations?.['k8s.io/initial-events-end'] === 'true') {
          inInitial = false;
          for (const h of this.hidden(target, url, userAgent, presentInitial)) {
            this.log.write({ action: 'hide-deletion', rule: h.id, resource: target.resource, namespace: h.key.split('/')[0], name: h.key.split('/')[1], event: 'ADDED', client: userAgent, detail: 'served in a watch-list relist after its deletion' });
            emit(JSON.stringify({ type: 'ADDED', object: h.obj }), h.key.split('/')[0], 0);
          }
        }
        // A bookmark never overtakes held-back events (its resourceVersion would tell the
        // client it has seen them), but with nothing held back it passes at once: a delay of
        // one namespace must not hold up a cluster-wide informer's initial-events-end.
        return emit(line, undefined, 0);
      }
      if (inInitial) presentInitial.add(`${ns}/${name}`);
      // A hidden object is served as the client last saw it alive, not as its DELETED event shows it.
      if (ev.type !== 'DELETED') this.remember(target.resource, ev.object);
      for (const [id, r] of this.rules) {
        if (!ruleMatches(r, target.resource, userAgent, ns, name)) continue;
        // A deletion shows first as a MODIFIED carrying deletionTimestamp (graceful, or held by a
        // finalizer), then as DELETED: hiding it drops both.
        const dropIt = (r.action === 'drop' && r.events.includes(ev.type as never)) || (r.action === 'hide-deletion' && (ev.type === 'DELETED' || meta.deletionTimestamp !== undefined));
        if (!dropIt) continue;
        if (r.action === 'drop' && r.count !== undefined && --r.count <= 0) this.rules.delete(id);
        this.log.write({ action: r.action === 'drop' ? 'drop' : 'hide-deletion', rule: id, resource: target.resource, namespace: ns, name, event: ev.type, resourceVersion: meta.resourceVersion, client: userAgent });
        return;
      }
      let delay = 0;
      let ruleId: number | undefined;
      for (const [id, r] of this.rules) {
        if (r.action === 'delay' && r.delayMs > delay && ruleMatches(r, target.resource, userAgent, ns, name)) {
          delay = r.delayMs;
          ruleId = id;
        }
      }
      if (delay > 0) this.log.write({ action: 'delay', rule: ruleId, resource: target.resource, namespace: ns, name, event: ev.type, resourceVersion: meta.resourceVersion, client: userAgent, detail: `${delay} ms` });
      emit(line, ns, delay);
    };
    let buf = '';
    upRes.setEncoding('utf8');
    upRes.on('data', (chunk: string) => {
      buf += chunk;
      let i: number;
      while ((i = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, i);
        buf = buf.slice(i + 1);
        if (line.trim()) handleEvent(line);
      }
    });
    upRes.on('end', () => {
      if (buf.trim()) handleEvent(buf);
      upstreamEnded = true;
      finish();
    });
    upRes.on('error', () => this.closeWatch(w, 'reset'));
    res.on('close', () => {
      w.closed = true;
      this.watches.delete(w);
      up.destroy();
      // Lines still held back die with the connection; the client re-watches from the last
      // resourceVersion it did see.
      held.length = 0;
      if (pumpTimer) this.cancelTimer(pumpTimer.t);
      pumpTimer = undefined;
    });
  }

  private closeWatch(w: OpenWatch, mode: 'end' | 'reset'): void {
    if (w.closed) return;
    w.closed = true;
    this.watches.delete(w);
    w.upstream?.destroy();
    if (mode === 'reset') w.res.socket?.destroy();
    else w.res.end();
  }

  private fetchObject(resource: string, ns: string, name: string): Promise<unknown> {
    const base = resource === 'pods' ? '/api/v1' : '/apis/apps/v1';
    const agent = this.identities[0]?.agent;
    if (!agent) return Promise.reject(new Error('fault proxy: hide-deletion needs an identity to read the object'));
    return new Promise((resolve, reject) => {
      const r = https.get(
        { protocol: 'https:', hostname: this.upstream.hostname, port: this.upstream.port, path: `${base}/namespaces/${encodeURIComponent(ns)}/${resource}/${encodeURIComponent(name)}`, agent, headers: { accept: 'application/json' } },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (c: string) => (text += c));
          res.on('end', () => {
            if (res.statusCode !== 200) return reject(new Error(`fault proxy: hide-deletion: GET ${resource} ${ns}/${name}: HTTP ${res.statusCode}`));
            try {
              resolve(JSON.parse(text));
            } catch {
              reject(new Error(`fault proxy: hide-deletion: GET ${resource} ${ns}/${name}: the answer is not JSON`));
            }
          });
        },
      );
      r.on('error', (e) => reject(new Error(`fault proxy: upstream ${this.upstream.origin}: ${(e as NodeJS.ErrnoException).code ?? e.message}`)));
    });
  }

  // ------------------------------------------------------------------------------ control endpoint

  /**
   * POST /rules (a rule as JSON) → {id}; DELETE /rules/ID; GET /rules; POST /end-watches
   * {resource?, client?, mode?}; POST /stall {ms, client?}; GET /log (the fault log).
   */
  private async handleControl(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const reply = (code: number, body: unknown): void => void res.writeHead(code, { 'Content-Type': 'application/json' }).end(JSON.stringify(body) + '\n');
    try {
      let text = '';
      for await (const c of req) text += c;
      let body: Record<string, unknown> = {};
      try {
        body = text ? JSON.parse(text) : {};
      } catch {
        return reply(400, { error: 'control: the request body is not JSON' });
      }
      if (!body || typeof body !== 'object') return reply(400, { error: 'control: the request body must be a JSON object' });
      const p = new URL(req.url ?? '/', 'http://x').pathname;
      const optString = (k: string) => body[k] === undefined || (typeof body[k] === 'string' && body[k] !== '');
      if (req.method === 'POST' && p === '/rules') return reply(200, { id: await this.add(body) });
      if (req.method === 'GET' && p === '/rules') return reply(200, this.list());
      if (req.method === 'DELETE' && /^\/rules\/\d+$/.test(p)) return this.remove(Number(p.slice(7))) ? reply(200, { removed: Number(p.slice(7)) }) : reply(404, { error: `no rule ${p.slice(7)}` });
      if (req.method === 'POST' && p === '/end-watches') {
        if (!optString('resource') || !optString('client')) return reply(400, { error: 'end-watches: resource and client must be strings' });
        if (body.mode !== undefined && body.mode !== 'end' && body.mode !== 'reset') return reply(400, { error: `end-watches: unknown mode ${JSON.stringify(body.mode)} (known: end, reset)` });
        return reply(200, { ended: this.endWatches(body as { resource?: string; client?: string; mode?: 'end' | 'reset' }) });
      }
      if (req.method === 'POST' && p === '/stall') {
        if (!(typeof body.ms === 'number' && body.ms > 0)) return reply(400, { error: 'stall needs ms > 0' });
        if (!optString('client')) return reply(400, { error: 'stall: client must be a string' });
        this.stall(body.ms, body.client as string | undefined);
        return reply(200, { stalledMs: body.ms });
      }
      if (req.method === 'GET' && p === '/log') return reply(200, this.log.entries);
      return reply(404, { error: `unknown control request ${req.method} ${p} (POST /rules, GET /rules, DELETE /rules/ID, POST /end-watches, POST /stall, GET /log)` });
    } catch (e) {
      return reply(400, { error: String((e as Error).message).split('\n')[0] });
    }
  }
}

function listen(server: net.Server, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', (e) => reject(new Error(`fault proxy: cannot listen on 127.0.0.1:${port}: ${(e as NodeJS.ErrnoException).code ?? e.message}`)));
    server.listen(port, '127.0.0.1', () => resolve());
  });
}
