/**
 * One WATCH request to the API server as a stream of watch events, with hard bounds on what
 * the server can make kexp hold:
 *
 * - the response is split into lines by a Buffer splitter that refuses a line longer than
 *   `maxLineBytes` (default 16 MiB): a watch line is one event carrying one object, and etcd
 *   refuses objects over ~1.5 MiB (its default request limit), so a longer line is a broken
 *   server or proxy, not data — the stream ends with `too-long` instead of buffering forever;
 * - a line that is not a watch event (`{"type": …, "object": {…}}`) ends the stream with an
 *   `error` naming it, so the caller resumes from its last resourceVersion and nothing is
 *   silently lost;
 * - a non-200 answer ends it with its status and the Status `message` (at most 64 KiB read);
 * - `close()` destroys the request at once, whatever phase it is in (credentials, connect,
 *   headers, body), and no callback runs after it.
 *
 * Own code instead of @kubernetes/client-node's `Watch` (libraries.md B.1): that one splits
 * lines with readline, which buffers an endless line without limit (a server streaming bytes
 * with no newline grew kexp to hundreds of MB in seconds), silently drops lines that are not
 * JSON (a lost event), and cannot be cancelled before the response headers arrive (a server
 * that never answered kept the process alive after `--duration`). Requests are authenticated
 * like api-client.ts's getJSON: `KubeAccess.applyToHTTPSOptions` (token, client certificate,
 * exec plugin).
 */
import http from 'node:http';
import https from 'node:https';
import { isRecord } from '../../model/objects.js';
import type { KubeAccess } from './light-kubeconfig.js';
import { prepareGet, shareConnections } from './api-client.js';
import { DEFAULT_CREDENTIAL_TIMEOUT_MS } from './exec-credential.js';
import { scrubServerText } from './credentials.js';

/** 16 MiB: more than ten times the largest object etcd stores (~1.5 MiB), far below a memory problem. */
export const MAX_WATCH_LINE_BYTES = 16 * 1024 * 1024;

/** How much of a non-200 answer is read for its Status message. */
const MAX_ERROR_BODY_BYTES = 64 * 1024;

export type WatchStreamEnd =
  /** The server ended the response normally (its timeoutSeconds, or a restart's clean close). */
  | { kind: 'closed' }
  /** Network error, a connection cut mid-line, or a line that is not a watch event: resume from the last resourceVersion. */
  | { kind: 'error'; detail: string }
  /** The server answered with a status other than 200. */
  | { kind: 'status'; status: number; message: string }
  /** A line longer than maxLineBytes: the server is not speaking the watch protocol. */
  | { kind: 'too-long'; detail: string }
  /** The kubeconfig's credentials could not be obtained (exec plugin failed, unreadable files). */
  | { kind: 'credentials'; detail: string };

export interface WatchStreamOptions {
  kc: KubeAccess;
  /** Path with query, e.g. `/api/v1/namespaces/shop/pods?watch=true&resourceVersion=12`. */
  path: string;
  maxLineBytes?: number;
  /** One watch event. May throw: the stream then stops and the error is passed to onEnd as `thrown`. */
  onEvent(type: string, object: Record<string, unknown>): void;
  /** Called exactly once, unless close() came first. */
  onEnd(end: WatchStreamEnd | { kind: 'thrown'; error: unknown }): void;
}

export interface WatchStream {
  /** Stops the stream now; no callback runs afterwards. Idempotent. */
  close(): void;
}

function describe(bytes: Buffer): string {
  const s = bytes.subarray(0, 80).toString('utf8');
  return JSON.stringify(bytes.length > 80 ? `${s}…` : s);
}

function firstLine(err: unknown): string {
  const e = err as NodeJS.ErrnoException | undefined;
  return (e?.code ?? (e?.message ?? String(err)).split('\n')[0]) || 'unknown error';
}

export function openWatchStream(o: WatchStreamOptions): WatchStream {
  const max = o.maxLineBytes ?? MAX_WATCH_LINE_BYTES;
  let done = false;
  let req: http.ClientRequest | undefined;
  let lineNo = 0;
  // Pieces of the line being received; joined once, when its newline arrives.
  let parts: Buffer[] = [];
  let partBytes = 0;

  const end = (e: WatchStreamEnd | { kind: 'thrown'; error: unknown }) => {
    if (done) return;
    done = true;
    req?.destroy();
    parts = [];
    o.onEnd(e);
  };

  const line = (bytes: Buffer) => {
    lineNo++;
    if (bytes.length > 0 && bytes[bytes.length - 1] === 13) bytes = bytes.subarray(0, bytes.length - 1);
    if (bytes.length === 0) return;
    let ev: { type?: unknown; object?: unknown };
    try {
      ev = JSON.parse(bytes.toString('utf8')) as typeof ev;
    } catch {
      end({ kind: 'error', detail: `watch line ${lineNo} is not JSON (${describe(bytes)})` });
      return;
    }
    if (!isRecord(ev) || typeof ev.type !== 'string' || !isRecord(ev.object)) {
      end({ kind: 'error', detail: `watch line ${lineNo} is not a watch event (${describe(bytes)})` });
      return;
    }
    try {
      o.onEvent(ev.type, ev.object as Record<string, unknown>);
    } catch (error) {
      end({ kind: 'thrown', error });
    }
  };

  const tooLong = () => end({ kind: 'too-long', detail: `the server sent a watch line longer than ${Math.round(max / 1048576)} MiB without a newline (line ${lineNo + 1}); a watch event carries one object and etcd stores objects of at most ~1.5 MiB, so the server or a proxy in between is not speaking the watch protocol` });

  const push = (chunk: Buffer) => {
    let start = 0;
    while (!done) {
      const nl = chunk.indexOf(10, start);
      if (nl === -1) {
        const rest = chunk.length - start;
        if (partBytes + rest > max) return tooLong();
        if (rest > 0) {
          parts.push(chunk.subarray(start));
          partBytes += rest;
        }
        return;
      }
      if (partBytes + (nl - start) > max) return tooLong();
      const piece = chunk.subarray(start, nl);
      const whole = parts.length ? Buffer.concat([...parts, piece]) : piece;
      parts = [];
      partBytes = 0;
      start = nl + 1;
      line(whole);
    }
  };

  let secrets: string[] = [];
  const start = async () => {
    const cluster = o.kc.getCurrentCluster();
    if (!cluster) return end({ kind: 'credentials', detail: 'the kubeconfig has no current cluster' });
    const url = new URL(cluster.server + o.path);
    // Credentials as getJSON gets them: an exec plugin is bounded, nothing goes over plain http.
    let reqOpts: https.RequestOptions;
    try {
      ({ reqOpts, secrets } = await prepareGet(o.kc, url, AbortSignal.timeout(DEFAULT_CREDENTIAL_TIMEOUT_MS)));
    } catch (err) {
      return end({ kind: 'credentials', detail: firstLine(err) });
    }
    shareConnections(reqOpts, url);
    if (done) return;
    const mod = url.protocol === 'http:' ? http : https;
    req = mod.request(url, reqOpts, (res) => {
      const status = res.statusCode ?? 0;
      if (status !== 200) {
        const chunks: Buffer[] = [];
        let n = 0;
        res.on('data', (c: Buffer) => {
          if (n < MAX_ERROR_BODY_BYTES) chunks.push(c.subarray(0, MAX_ERROR_BODY_BYTES - n));
          n += c.length;
          if (n >= MAX_ERROR_BODY_BYTES) res.destroy();
        });
        const finish = () => {
          let message = `HTTP ${status}`;
          try {
            const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { message?: unknown };
            if (typeof body?.message === 'string') message = scrubServerText(body.message, secrets);
          } catch {
            /* not a Status: keep "HTTP nnn" */
          }
          end({ kind: 'status', status, message });
        };
        res.on('end', finish);
        res.on('close', finish);
        res.on('error', finish);
        return;
      }
      res.on('data', push);
      res.on('end', () => {
        if (partBytes > 0) end({ kind: 'error', detail: `the watch ended inside line ${lineNo + 1} (${partBytes} bytes without a newline)` });
        else end({ kind: 'closed' });
      });
      res.on('error', (err) => end({ kind: 'error', detail: firstLine(err) }));
      res.on('close', () => end({ kind: 'error', detail: 'connection closed mid-stream' }));
    });
    req.on('error', (err) => end({ kind: 'error', detail: firstLine(err) }));
    req.end();
  };
  void start();
  return { close: () => {
    if (done) return;
    done = true;
    parts = [];
    req?.destroy();
  } };
}
