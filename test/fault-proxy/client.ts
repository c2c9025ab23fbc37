/**
 * The callers in the fault proxy's tests: one request (status, headers, body), and a watch
 * whose lines are kept with the time they arrived, so a test can measure a delay and check
 * an order. Every connection is fresh (`agent: false`): which client certificate a request
 * carries must not depend on a pooled connection.
 */
import type { IncomingHttpHeaders } from 'node:http';
import https from 'node:https';

export interface Caller {
  ca: Buffer;
  cert?: Buffer;
  key?: Buffer;
  headers?: Record<string, string>;
}

export interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  json(): any;
}

export function call(base: string, path: string, who: Caller, method = 'GET', body?: string): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = https.request(new URL(path, base), { method, ca: who.ca, cert: who.cert, key: who.key, agent: false, headers: who.headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json: () => JSON.parse(text) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

export interface Line {
  at: number;
  ev: any;
}

export interface ClientWatch {
  status: number;
  lines: Line[];
  /** How the stream ended: `end` (a clean end of the response) or `error` (a reset connection). */
  ended: Promise<'end' | 'error'>;
  /** Resolves with the first line (from index `from`) that `pred` picks; rejects after `timeoutMs`. */
  next(pred: (ev: any) => boolean, timeoutMs?: number, from?: number): Promise<Line>;
  close(): void;
}

export function watch(base: string, path: string, who: Caller): Promise<ClientWatch> {
  return new Promise((resolve, reject) => {
    const req = https.request(new URL(path, base), { ca: who.ca, cert: who.cert, key: who.key, agent: false, headers: who.headers }, (res) => {
      const lines: Line[] = [];
      const waiters = new Set<() => void>();
      let buf = '';
      let settle!: (how: 'end' | 'error') => void;
      const ended = new Promise<'end' | 'error'>((r) => (settle = r));
      res.setEncoding('utf8');
      res.on('data', (c: string) => {
        buf += c;
        let i: number;
        while ((i = buf.indexOf('\n')) >= 0) {
          const line = buf.slice(0, i);
          buf = buf.slice(i + 1);
          if (line.trim()) lines.push({ at: Date.now(), ev: JSON.parse(line) });
        }
        for (const w of [...waiters]) w();
      });
      res.on('end', () => settle('end'));
      res.on('aborted', () => settle('error'));
      res.on('error', () => settle('error'));
      req.on('error', () => settle('error'));
      resolve({
        status: res.statusCode ?? 0,
        lines,
        ended,
        next(pred, timeoutMs = 5000, from = 0) {
          return new Promise((ok, fail) => {
            const check = () => {
              const hit = lines.slice(from).find((l) => pred(l.ev));
              if (!hit) return;
              waiters.delete(check);
              clearTimeout(t);
              ok(hit);
            };
            const t = setTimeout(() => {
              waiters.delete(check);
              fail(new Error(`no matching watch line within ${timeoutMs} ms; got ${JSON.stringify(lines.map((l) => l.ev.type + ' ' + (l.ev.object?.metadata?.name ?? '')))}`));
            }, timeoutMs);
            waiters.add(check);
            check();
          });
        },
        close: () => req.destroy(),
      });
    });
    req.on('error', reject);
    req.end();
  });
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** Polls `pred` every 20 ms until it holds; rejects naming `what` after `timeoutMs`. */
export async function until(what: string, pred: () => boolean, timeoutMs = 5000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!pred()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}
