/**
 * The HTTP endpoint of `kexp serve` (node:http), read-only:
 *
 *   GET /metrics                  Prometheus exposition (metrics.ts)
 *   GET /healthz                  200 while the process serves
 *   GET /readyz                   200 once every watch delivered its initial list and the first
 *                                 report is built; 503 naming what it waits for before that
 *   GET /explain/KIND/NS/NAME     the object's report as `kexp explain` gives it (object-report.ts):
 *                                 JSON (schema/report.schema.json), or the HTML page when the
 *                                 request's Accept prefers text/html. KIND is the kind or any
 *                                 type name kubectl accepts for it (rs, ReplicaSet, ds, job, rc, …).
 *
 * Contract: every other method is 405 (with Allow), every other path 404; a malformed path is 400;
 * an object serve does not report is 404; before the first report 503. Responses carry no
 * credential and no Secret content (serve never reads Secrets; objects are redacted as
 * `kexp record` redacts them) and `Cache-Control: no-store`. `/explain` rebuilds the report when
 * the last one is older than `freshMs`. The listener binds where it is told (serve.ts defaults to
 * loopback). Cost: per request, at most one evaluation (shared with any running one).
 */
import http from 'node:http';
import { kindOfTypeName, KIND_NAMES } from '../pipeline/live-target.js';
import { renderExplainHtml } from '../render/explain.js';
import type { ServeMetrics } from './metrics.js';
import { objectReport, type ServeSource } from './object-report.js';
import { objectId, type Evaluation, type ServeRegistry } from './registry.js';

export interface ServeHttpOptions {
  registry: ServeRegistry;
  metrics: ServeMetrics;
  source: ServeSource;
  now: () => number;
  /** Rebuild the report for /explain when the last one is older than this (ms). Default 2000. */
  freshMs?: number;
  /** Runs an evaluation and updates the metrics (serve.ts's evaluation step). */
  evaluate: () => Promise<Evaluation>;
}

const OWNER_KINDS = new Set(['ReplicaSet', 'ReplicationController', 'DaemonSet', 'Job']);

/** KIND of an /explain path: the API kind or a kubectl type name, as the owner kind; undefined for others. */
export function explainKind(s: string): string | undefined {
  const t = kindOfTypeName(s);
  if (t && t !== 'deployment') return KIND_NAMES[t];
  const exact = [...OWNER_KINDS].find((k) => k.toLowerCase() === s.toLowerCase());
  return exact;
}

/** Whether the Accept header prefers HTML to JSON (a browser's does). */
export function wantsHtml(accept: string | undefined): boolean {
  if (!accept) return false;
  let html = -1;
  let json = -1;
  for (const part of accept.split(',')) {
    const [type, ...params] = part.trim().split(';').map((x) => x.trim());
    const q = Number(params.find((p) => p.startsWith('q='))?.slice(2) ?? '1');
    const w = Number.isFinite(q) ? q : 0;
    if (type === 'text/html') html = Math.max(html, w);
    if (type === 'application/json') json = Math.max(json, w);
  }
  return html > 0 && html >= json;
}

function send(res: http.ServerResponse, status: number, type: string, body: string, extra: Record<string, string> = {}): void {
  res.writeHead(status, { 'Content-Type': type, 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff', ...extra });
  res.end(body);
}

function sendError(res: http.ServerResponse, status: number, message: string): void {
  send(res, status, 'application/json; charset=utf-8', JSON.stringify({ error: message }) + '\n');
}

export function createServeHandler(o: ServeHttpOptions): http.RequestListener {
  const freshMs = o.freshMs ?? 2000;
  return (req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://kexp.invalid');
      if (req.method !== 'GET' && req.method !== 'HEAD') return sendError(res, 405, `${req.method} is not allowed: kexp serve is read-only`), undefined;
      const p = url.pathname;
      if (p === '/healthz') return send(res, 200, 'text/plain; charset=utf-8', 'ok\n');
      if (p === '/readyz') {
        if (!o.registry.ready) return send(res, 503, 'text/plain; charset=utf-8', `waiting for the initial list of: ${o.registry.pending.join(', ')}\n`);
        if (!o.registry.last) return send(res, 503, 'text/plain; charset=utf-8', 'waiting for the first report\n');
        return send(res, 200, 'text/plain; charset=utf-8', 'ok\n');
      }
      if (p === '/metrics') return send(res, 200, o.metrics.contentType, await o.metrics.text());
      if (p === '/explain' || p.startsWith('/explain/')) {
        const parts = p.split('/').slice(2).map((x) => {
          try {
            return decodeURIComponent(x);
          } catch {
            return '\u0000';
          }
        });
        if (parts.length !== 3 || parts.some((x) => x === '' || x.includes('\u0000'))) return sendError(res, 400, 'expected /explain/KIND/NAMESPACE/NAME (KIND: rs, rc, ds or job)');
        const kind = explainKind(parts[0]!);
        if (!kind) return sendError(res, 400, `"${parts[0]!.slice(0, 60)}" is not a kind kexp serve follows: rs, rc, ds or job`);
        if (!o.registry.ready) return sendError(res, 503, `not ready: waiting for the initial list of ${o.registry.pending.join(', ')}`);
        let ev = o.registry.last;
        if (!ev || o.now() - ev.at > freshMs) ev = await o.evaluate();
        const id = objectId(kind, parts[1]!, parts[2]!);
        const r = objectReport(ev, id, o.source);
        if (!r) return sendError(res, 404, `${kind} ${parts[1]}/${parts[2]} is not reported by this kexp serve (not in its namespace or selector, or not seen)`);
        if (wantsHtml(req.headers.accept)) return send(res, 200, 'text/html; charset=utf-8', renderExplainHtml(r), { Vary: 'Accept' });
        return send(res, 200, 'application/json; charset=utf-8', JSON.stringify(r.report, null, 2) + '\n', { Vary: 'Accept' });
      }
      return sendError(res, 404, `no such endpoint ${p.slice(0, 80)}: /metrics, /healthz, /readyz, /explain/KIND/NAMESPACE/NAME`);
    })().catch((err: unknown) => {
      if (!res.headersSent) sendError(res, 500, `kexp serve: ${String((err as Error)?.message ?? err).split('\n')[0]}`);
      else res.destroy();
    });
  };
}
