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

export function targetOf(pathname: string): Target | undefined {
  for (const [re, resource] of PATHS) {
    const m = re.exec(pathname);
    if (m) return { resource, namespace: m[1] && decodeURIComponent(m[1]), name: m[2] && decodeURIComponent(m[2]), subresource: m[3] };
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
  private stalls: Array<{ until: number; client?: string; release: Promise<void> }> = [];
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
    this.warn = opts.warn ?? ((l) => process.stderr.write(l + '\n'));
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
    p.server = server;
    await listen(server, opts.port ?? 0);
    p.url = `https://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
    if (opts.controlPort !== undefined) {
      const control = http.createServer((req, res) => void p.handleControl(req, res));
      p.control = control;
      await listen(control, opts.controlPort);
      p.controlURL = `http://127.0.0.1:${(control.address() as net.AddressInfo).port}`;
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
    const until = Date.now() + ms;
    const release = new Promise<void>((r) => this.timer(r, ms));
    this.stalls.push({ until, client, release });
    this.log.write({ action: 'stall', client, detail: `${ms} ms` });
  }

  async close(): Promise<void> {
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

  private timer(fn: () => void, ms: number): void {
    const t = setTimeout(() => {
      this.timers.delete(t);
      fn();
    }, Math.max(0, ms));
    this.timers.add(t);
  }

  private async stalled(userAgent: string): Promise<void> {
    for (;;) {
      const now = Date.now();
      this.stalls = this.stalls.filter((s) => s.until > now);
      const s = this.stalls.find((x) => x.client === undefined || userAgent.includes(x.client));
      if (!s) return;
      await s.release;
    }
  }

  private agentFor(req: http.IncomingMessage): https.Agent | { error: string } {
    const sock = req.socket as tls.TLSSocket;
    const peer = sock.getPeerCertificate?.();
    if (!peer || !peer.raw) return this.anonymous;
    if (!sock.authorized) return { error: `client certificate ${peer.subject?.CN ?? '?'} is not signed by the control plane's CA` };
    const fp = new crypto.X509Certificate(peer.raw).fingerprint256;
    const id = this.identities.find((i) => i.fingerprint === fp);
    if (!id) return { error: `client certificate CN=${peer.subject?.CN ?? '?'} is not one the proxy holds a key for, so it cannot forward the caller's identity` };
    return id.agent;
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const userAgent = String(req.headers['user-agent'] ?? '');
    await this.stalled(userAgent);
    const agent = this.agentFor(req);
    if ('error' in agent) {
      this.warn(`fault proxy: ${agent.error}`);
      res.writeHead(502, { 'Content-Type': 'application/json' }).end(statusBody(502, 'BadGateway', `fault proxy: ${agent.error}`));
      return;
    }
    const url = new URL(req.url ?? '/', this.upstream);
    const target = req.method === 'GET' ? targetOf(url.pathname) : undefined;
    const collection = target && !target.name;
    const watch = collection && (url.searchParams.get('watch') === 'true' || url.searchParams.get('watch') === '1');
    const headers: http.OutgoingHttpHeaders = { ...req.headers, host: this.upstream.host };
    if (collection) headers.accept = 'application/json';

    if (watch) {
      const gone = this.firstRule(target.resource, userAgent, (r) => r.action === 'gone');
      if (gone) {
        const [id, rule] = gone;
        if (rule.action === 'gone' && --rule.count <= 0) this.rules.delete(id);
        this.log.write({ action: 'gone', rule: id, resource: target.resource, client: userAgent, resourceVersion: url.searchParams.get('resourceVersion') ?? undefined });
        const rv = url.searchParams.get('resourceVersion') ?? '0';
        res.writeHead(410, { 'Content-Type': 'application/json' }).end(statusBody(410, 'Expired', `too old resource version: ${rv} (${rv})`));
        return;
      }
    }

    const up = https.request(
      { protocol: 'https:', hostname: this.upstream.hostname, port: this.upstream.port, method: req.method, path: url.pathname + url.search, headers, agent },
      (upRes) => {
        if (watch && upRes.statusCode === 200) return this.pipeWatch(target, url, userAgent, upRes, res, up);
        if (collection && upRes.statusCode === 200) return void this.sendList(target, upRes, res);
        res.writeHead(upRes.statusCode ?? 502, upRes.headers);
        upRes.pipe(res);
      },
    );
    up.on('error', (e) => {
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

  /** The hide-deletion objects a relist of `target` must still contain but does not. */
  private hidden(target: Target, userAgent: string, present: Set<string>): Array<{ id: number; obj: unknown; key: string }> {
    const out: Array<{ id: number; obj: unknown; key: string }> = [];
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

  private sendList(target: Target, upRes: http.IncomingMessage, res: http.ServerResponse): void {
    const chunks: Buffer[] = [];
    upRes.on('data', (c: Buffer) => chunks.push(c));
    upRes.on('end', () => {
      let body = Buffer.concat(chunks);
      const userAgent = String((res.req?.headers ?? {})['user-agent'] ?? '');
      try {
        const list = JSON.parse(body.toString('utf8')) as { items?: Array<{ metadata?: Meta }> };
        for (const item of list.items ?? []) this.remember(target.resource, item);
        const present = new Set((list.items ?? []).map((i) => `${i.metadata?.namespace}/${i.metadata?.name}`));
        const add = this.hidden(target, userAgent, present);
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
    // Per namespace: when the last held-back event of that namespace is released, so later
    // events of the namespace never overtake it (a delay removed mid-way keeps the order).
    const releaseAt = new Map<string, number>();
    let lastRelease = 0;
    let pendingWrites = 0;
    let upstreamEnded = false;
    const finish = () => {
      if (upstreamEnded && pendingWrites === 0 && !w.closed) {
        w.closed = true;
        this.watches.delete(w);
        res.end();
      }
    };
    const send = (line: string) => {
      if (w.closed) return;
      const stall = this.stalls.find((s) => s.until > Date.now() && (s.client === undefined || userAgent.includes(s.client)));
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
    // Events held back, in arrival order: each is sent at its time, or at a flush.
    const held: Array<{ ns: string | undefined; line: string; timer: NodeJS.Timeout; sent: boolean }> = [];
    const release = (h: (typeof held)[number]) => {
      if (h.sent) return;
      h.sent = true;
      clearTimeout(h.timer);
      this.timers.delete(h.timer);
      pendingWrites--;
      send(h.line);
    };
    w.flush = (namespace?: string) => {
      let n = 0;
      for (const h of held) {
        if (h.sent || (namespace !== undefined && h.ns !== undefined && h.ns !== namespace)) continue;
        release(h);
        n++;
      }
      for (let i = held.length - 1; i >= 0; i--) if (held[i]!.sent) held.splice(i, 1);
      if (namespace === undefined) {
        releaseAt.clear();
        lastRelease = 0;
      } else releaseAt.delete(namespace);
      finish();
      return n;
    };
    const emit = (line: string, ns: string | undefined, delayMs: number) => {
      const now = Date.now();
      const key = ns ?? '';
      const at = Math.max(now + delayMs, ns === undefined ? lastRelease : releaseAt.get(key) ?? 0);
      if (at <= now) return send(line);
      releaseAt.set(key, at);
      lastRelease = Math.max(lastRelease, at);
      pendingWrites++;
      const h = { ns, line, sent: false, timer: undefined as unknown as NodeJS.Timeout };
      h.timer = setTimeout(() => {
        this.timers.delete(h.timer);
        release(h);
        const i = held.indexOf(h);
        if (i >= 0) held.splice(i, 1);
        finish();
      }, at - now);
      this.timers.add(h.timer);
      held.push(h);
    };
    const handleEvent = (line: string) => {
      let ev: WatchEvent;
      try {
        ev = JSON.parse(line) as WatchEvent;
      } catch {
        return send(line);
      }
      const meta = ev.object?.metadata ?? {};
      const ns = meta.namespace;
      const name = meta.name;
      if (ev.type === 'BOOKMARK' || ev.type === 'ERROR') {
        if (ev.type === 'BOOKMARK' && inInitial && meta.annotations?.['k8s.io/initial-events-end'] === 'true') {
          inInitial = false;
          for (const h of this.hidden(target, userAgent, presentInitial)) {
            this.log.write({ action: 'hide-deletion', rule: h.id, resource: target.resource, namespace: h.key.split('/')[0], name: h.key.split('/')[1], event: 'ADDED', client: userAgent, detail: 'served in a watch-list relist after its deletion' });
            emit(JSON.stringify({ type: 'ADDED', object: h.obj }), h.key.split('/')[0], 0);
          }
        }
        // A bookmark never overtakes held-back events: its resourceVersion would tell the
        // client it has seen them.
        const delay = Math.max(0, ...[...this.rules.values()].filter((r) => r.action === 'delay' && ruleMatches({ ...r, namespace: undefined, name: undefined }, target.resource, userAgent)).map((r) => (r as { delayMs: number }).delayMs));
        return emit(line, undefined, delay);
      }
      if (inInitial) presentInitial.add(`${ns}/${name}`);
      this.remember(target.resource, ev.object);
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
          res.on('end', () => (res.statusCode === 200 ? resolve(JSON.parse(text)) : reject(new Error(`fault proxy: hide-deletion: GET ${resource} ${ns}/${name}: HTTP ${res.statusCode}`))));
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
      const body = text ? JSON.parse(text) : {};
      const p = new URL(req.url ?? '/', 'http://x').pathname;
      if (req.method === 'POST' && p === '/rules') return reply(200, { id: await this.add(body) });
      if (req.method === 'GET' && p === '/rules') return reply(200, this.list());
      if (req.method === 'DELETE' && p.startsWith('/rules/')) return this.remove(Number(p.slice(7))) ? reply(200, { removed: Number(p.slice(7)) }) : reply(404, { error: `no rule ${p.slice(7)}` });
      if (req.method === 'POST' && p === '/end-watches') return reply(200, { ended: this.endWatches(body) });
      if (req.method === 'POST' && p === '/stall') {
        if (!(typeof body.ms === 'number' && body.ms > 0)) return reply(400, { error: 'stall needs ms > 0' });
        this.stall(body.ms, body.client);
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
