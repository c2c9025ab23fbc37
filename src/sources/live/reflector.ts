/**
 * kexp's own list+watch loop for one resource path, on @kubernetes/client-node's raw
 * `Watch` (not its informer; see libraries.md B.1 for why). Mirrors the parts of client-go's
 * Reflector (tools/cache/reflector.go) a recorder needs:
 *
 * - LIST, then emit every item as a synthetic ADDED (what an informer's initial list does);
 * - WATCH from the list's resourceVersion with `allowWatchBookmarks=true` and a server-side
 *   `timeoutSeconds`; a normal server close resumes from the last seen resourceVersion
 *   (events or bookmarks) without loss, so it is not a gap;
 * - an error (connection reset, apiserver restart, a line that is not an event) → reconnect
 *   with jittered backoff (1 s doubling to 30 s) from the last resourceVersion. The server
 *   sends again every event after that resourceVersion, so nothing is lost and this is not a
 *   gap (the sink's `reconnect` hears of it, for a warning); if the server can no longer
 *   serve that resourceVersion it answers 410, and that relist is the gap;
 * - `ERROR` or HTTP 410 (Expired/Gone) → a `watch-relist` gap, LIST again, emit the new
 *   items as ADDED and, for objects that disappeared meanwhile, a synthetic DELETED of the
 *   last known object (the informer's DeletedFinalStateUnknown);
 * - a client-side idle timeout aborts a half-open connection that delivers nothing;
 * - 401/403 on a WATCH (credentials expired, RBAC lacks `watch`) ends the loop with a
 *   ClusterError: retrying cannot help;
 * - a hostile or broken server cannot make it hold more than one bounded line
 *   (watch-stream.ts: a line over 16 MiB ends the loop with a ClusterError), a watch line
 *   that is not an event, or carries another kind, is a `watch-reconnect` gap, and a LIST
 *   answer that is not a list of the requested kind (an HTML login page, a Status, a
 *   SecretList) ends the loop with a ClusterError;
 * - a watch the server closes at once with nothing delivered is retried after the same
 *   backoff as an error, so a server that hangs up immediately is not hammered;
 * - a watch that never works — every attempt an error (a 302 to a login page, a line that is
 *   not an event) or closed at once with nothing delivered — is retried like any error, and
 *   `neverWorked()` says so afterwards: the recorder must not pass "nothing happened" off as
 *   "nothing lost";
 * - an AbortSignal (Ctrl-C, the end of `--duration`) ends the loop at once: every timer and
 *   connection of the current watch is released before `run()` resolves, and nothing arms a
 *   timer or reaches the sink after that;
 * - a sink that throws (the recording's disk is full) ends the loop: `run()` rejects with
 *   that error.
 *
 * Every event is stamped with its receive time from the injected clock.
 */
import { isRecord } from '../../model/objects.js';
import type { KubeAccess } from './light-kubeconfig.js';
import { getJSON } from './api-client.js';
import { ClusterError } from './cluster-error.js';
import { openWatchStream, type WatchStream } from './watch-stream.js';

export type ReflectorEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK';

export interface ReflectorSink {
  event(type: ReflectorEventType, object: Record<string, unknown>, recvAt: number, synthetic?: 'initial-list' | 'relist'): void;
  gap(reason: 'watch-relist' | 'watch-reconnect', detail: string, recvAt: number): void;
  /** A watch error the reflector resumed from (continuity kept: not a gap). */
  reconnect?(detail: string, recvAt: number): void;
  /** Called once after the first LIST has been emitted. */
  synced?(): void;
}

export interface ReflectorOptions {
  kc: KubeAccess;
  /** Collection path, e.g. `/api/v1/namespaces/shop/pods`. */
  path: string;
  /** `kind` to stamp on list items (lists omit it on items), e.g. `Pod`. */
  kind: string;
  apiVersion: string;
  fieldSelector?: string;
  labelSelector?: string;
  sink: ReflectorSink;
  signal: AbortSignal;
  /** Clock in epoch ms (injected for tests). */
  now: () => number;
  /** Server-side watch timeout (s). Default 240. */
  timeoutSeconds?: number;
  /** Abort a watch that delivers nothing (not even a bookmark) for this long. Default 90 s. */
  idleTimeoutMs?: number;
  requestTimeoutMs?: number;
  /** Longest watch line accepted (default MAX_WATCH_LINE_BYTES, 16 MiB). */
  maxLineBytes?: number;
}

interface ListBody {
  metadata?: { resourceVersion?: string };
  items?: Array<Record<string, unknown>>;
}

function metaOf(o: Record<string, unknown>): { uid?: string; resourceVersion?: string; name?: string; namespace?: string } {
  return (o.metadata ?? {}) as { uid?: string; resourceVersion?: string; name?: string; namespace?: string };
}

/** Waits `ms`, or less if the signal aborts; leaves no timer or listener behind either way. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(t);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const t = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

type WatchResult =
  | { kind: 'closed' }
  | { kind: 'idle'; detail: string }
  | { kind: 'expired'; detail: string }
  | { kind: 'error'; detail: string }
  | { kind: 'fatal'; error: ClusterError }
  | { kind: 'sink-error'; error: unknown };

/** What a sink threw, carried through the retry logic untouched (it is never retried). */
class SinkError {
  constructor(readonly cause: unknown) {}
}

/** A watch that closes sooner than this with nothing delivered is retried after a backoff. */
const FAST_CLOSE_MS = 1000;

/** A short, printable description of a body that should have been a list. */
function describeBody(body: unknown): string {
  if (typeof body === 'string') return `not JSON: ${JSON.stringify(body.length > 60 ? `${body.slice(0, 60)}…` : body)}`;
  if (body === undefined) return 'an empty body';
  if (!isRecord(body)) return `a JSON ${Array.isArray(body) ? 'array' : body === null ? 'null' : typeof body}`;
  const kind = (body as { kind?: unknown }).kind;
  return typeof kind === 'string' ? `a ${JSON.stringify(kind.slice(0, 60))}` : 'a JSON object that is not a list';
}

/** After an idle resume, events arriving this soon are a backlog a half-open connection held back. */
const IDLE_BACKLOG_MS = 2000;

/** A watch request the API server refused for good (401/403): retrying cannot help. */
function fatalWatchStatus(status: number | undefined, path: string): ClusterError | undefined {
  const resource = path.split('/').filter(Boolean).pop() ?? path;
  if (status === 403) return new ClusterError('forbidden', `cannot watch resource "${resource}" (403 Forbidden on WATCH ${path})`, 403);
  if (status === 401) return new ClusterError('unauthorized', `the API server rejected the credentials (401 Unauthorized): expired or invalid; WATCH ${path}`, 401);
  return undefined;
}

export class Reflector {
  private rv = '';
  private known = new Map<string, Record<string, unknown>>(); // uid → last object
  /** Set when the watch resumed after an idle timeout (see run). */
  private idleResumeAt?: number;
  private idleDetail = '';
  /** Whether the current watch delivered anything (an event or a bookmark). */
  private delivered = false;
  /** Watch attempts ended (aborts not counted), those that failed, the first failure's start, the last failure. */
  private attempts = 0;
  private failures = 0;
  private firstFailureAt: number | undefined;
  private lastFailure = '';

  constructor(private readonly o: ReflectorOptions) {}

  private query(): string {
    const q = new URLSearchParams();
    if (this.o.fieldSelector) q.set('fieldSelector', this.o.fieldSelector);
    if (this.o.labelSelector) q.set('labelSelector', this.o.labelSelector);
    const s = q.toString();
    return s ? `?${s}` : '';
  }

  /** LISTs and checks the answer is a `<Kind>List` with an `items` array. Throws ClusterError. */
  private async list(synthetic: 'initial-list' | 'relist'): Promise<void> {
    const body = await getJSON<unknown>(this.o.kc, this.o.path + this.query(), { signal: this.o.signal, timeoutMs: this.o.requestTimeoutMs });
    const listKind = `${this.o.kind}List`;
    const b = body as ListBody & { kind?: unknown };
    if (!isRecord(body) || b.kind !== listKind || !(Array.isArray(b.items) || b.items === null)) {
      throw new ClusterError('http', `LIST ${this.o.path} answered 200 with ${describeBody(body)} instead of a ${listKind}; is a proxy or login page in the way?`);
    }
    const at = this.o.now();
    const seen = new Set<string>();
    for (const item of b.items ?? []) {
      if (!isRecord(item)) {
        throw new ClusterError('http', `LIST ${this.o.path} answered a ${listKind} with an item that is not an object`);
      }
      const obj = { apiVersion: this.o.apiVersion, kind: this.o.kind, ...item };
      const uid = metaOf(obj).uid ?? '';
      seen.add(uid);
      const prev = this.known.get(uid);
      this.known.set(uid, obj);
      if (synthetic === 'relist' && prev && metaOf(prev).resourceVersion === metaOf(obj).resourceVersion) continue;
      this.emit(prev ? 'MODIFIED' : 'ADDED', obj, at, synthetic);
    }
    if (synthetic === 'relist') {
      for (const [uid, obj] of this.known) {
        if (!seen.has(uid)) {
          this.known.delete(uid);
          this.emit('DELETED', obj, at, 'relist');
        }
      }
    }
    this.rv = typeof b.metadata?.resourceVersion === 'string' ? b.metadata.resourceVersion : '';
  }

  private emit(type: ReflectorEventType, object: Record<string, unknown>, recvAt: number, synthetic?: 'initial-list' | 'relist'): void {
    try {
      this.o.sink.event(type, object, recvAt, synthetic);
    } catch (err) {
      throw new SinkError(err);
    }
  }

  private emitGap(reason: 'watch-relist' | 'watch-reconnect', detail: string, recvAt: number): void {
    try {
      this.o.sink.gap(reason, detail, recvAt);
    } catch (err) {
      throw new SinkError(err);
    }
  }

  /**
   * After run(): the watch was tried and never worked (every attempt failed), with the number
   * of attempts, when the first began (epoch ms) and the last failure; undefined otherwise (it
   * worked once, or no attempt ended).
   */
  neverWorked(): { attempts: number; since: number; detail: string } | undefined {
    if (this.attempts === 0 || this.failures < this.attempts || this.firstFailureAt === undefined) return undefined;
    return { attempts: this.attempts, since: this.firstFailureAt, detail: this.lastFailure };
  }

  /** Counts one ended watch attempt. */
  private attempted(startedAt: number, failure: string | undefined): void {
    this.attempts++;
    if (failure === undefined) return;
    this.failures++;
    this.firstFailureAt ??= startedAt;
    this.lastFailure = failure;
  }

  /** Runs until the signal aborts, a fatal error (401/403/404 on LIST, a broken server; ClusterError) or a sink error (rethrown as is). */
  async run(): Promise<void> {
    try {
      await this.loop();
    } catch (err) {
      if (err instanceof SinkError) throw err.cause;
      throw err;
    }
  }

  private async loop(): Promise<void> {
    const { signal } = this.o;
    try {
      await this.list('initial-list');
    } catch (err) {
      if (signal.aborted && !(err instanceof SinkError)) return;
      throw err;
    }
    try {
      this.o.sink.synced?.();
    } catch (err) {
      throw new SinkError(err);
    }
    let backoff = 1000;
    while (!signal.aborted) {
      const startedAt = this.o.now();
      this.delivered = false;
      const r = await this.watchOnce();
      if (r.kind === 'sink-error') throw new SinkError(r.error);
      if (signal.aborted) return;
      if (r.kind === 'fatal') throw r.error;
      const fastClose = r.kind === 'closed' && !this.delivered && this.o.now() - startedAt < FAST_CLOSE_MS;
      this.attempted(startedAt, r.kind === 'error' && !this.delivered ? r.detail : fastClose ? 'the server closed the watch at once with nothing delivered' : undefined);
      if (r.kind === 'closed') {
        if (fastClose) {
          await sleep(backoff * (0.8 + Math.random() * 0.4), signal);
          backoff = Math.min(backoff * 2, 30000);
        } else {
          backoff = 1000;
        }
        continue;
      }
      if (r.kind === 'idle') {
        // A quiet watch (Events get no bookmarks) or a half-open connection: resuming from the
        // last resourceVersion loses nothing, so this is not a gap — unless the resumed watch
        // at once delivers events the dead connection held back (their receive times are late).
        this.idleResumeAt = this.o.now();
        this.idleDetail = r.detail;
        continue;
      }
      if (r.kind === 'expired') {
        this.emitGap('watch-relist', r.detail, this.o.now());
        try {
          await this.list('relist');
          backoff = 1000;
        } catch (err) {
          if (err instanceof SinkError) throw err;
          if (err instanceof ClusterError && (err.kind === 'forbidden' || err.kind === 'unauthorized')) throw err;
          await sleep(backoff, signal);
          backoff = Math.min(backoff * 2, 30000);
          this.rv = '';
        }
        continue;
      }
      // error: reconnect from the last resourceVersion after a jittered backoff (no gap: the
      // resumed watch replays what came after it, or answers 410 and the relist is the gap)
      try {
        this.o.sink.reconnect?.(r.detail, this.o.now());
      } catch (err) {
        throw new SinkError(err);
      }
      await sleep(backoff * (0.8 + Math.random() * 0.4), signal);
      backoff = Math.min(backoff * 2, 30000);
      if (!this.rv && !signal.aborted) {
        try {
          await this.list('relist');
        } catch (err) {
          if (err instanceof SinkError) throw err;
          /* otherwise retried on the next round */
        }
      }
    }
  }

  /**
   * One WATCH until the server closes it, an error, the idle timeout or the abort signal.
   * Everything that can fire — the idle timer, stream callbacks, the abort listener — goes
   * through `finish`, which runs once: it clears the idle timer, closes the stream and
   * resolves. After it nothing is delivered to the sink and no timer is ever armed again, so
   * a stopped watch holds nothing that keeps the process alive.
   */
  private async watchOnce(): Promise<WatchResult> {
    const { signal } = this.o;
    const q = new URLSearchParams({ watch: 'true', allowWatchBookmarks: 'true', timeoutSeconds: String(this.o.timeoutSeconds ?? 240), resourceVersion: this.rv });
    if (this.o.fieldSelector) q.set('fieldSelector', this.o.fieldSelector);
    if (this.o.labelSelector) q.set('labelSelector', this.o.labelSelector);
    const idleMs = this.o.idleTimeoutMs ?? 90000;
    return await new Promise<WatchResult>((resolve) => {
      let settled = false;
      let idle: NodeJS.Timeout | undefined;
      let stream: WatchStream | undefined;
      const finish = (result: WatchResult) => {
        if (settled) return;
        settled = true;
        clearTimeout(idle);
        idle = undefined;
        signal.removeEventListener('abort', onAbort);
        stream?.close();
        resolve(result);
      };
      const armIdle = () => {
        if (settled) return;
        clearTimeout(idle);
        idle = setTimeout(() => finish({ kind: 'idle', detail: `no data for ${idleMs} ms (half-open connection?)` }), idleMs);
      };
      const onAbort = () => finish({ kind: 'closed' });
      if (signal.aborted) return finish({ kind: 'closed' });
      signal.addEventListener('abort', onAbort, { once: true });
      armIdle();
      stream = openWatchStream({
        kc: this.o.kc,
        path: this.o.path + '?' + q.toString(),
        maxLineBytes: this.o.maxLineBytes,
        onEvent: (type, obj) => {
          if (settled) return;
          armIdle();
          this.delivered = true;
          const r = this.onWatchEvent(type, obj);
          if (r) finish(r);
        },
        onEnd: (e) => {
          if (e.kind === 'thrown') return finish({ kind: 'sink-error', error: e.error });
          if (e.kind === 'closed') return finish({ kind: 'closed' });
          if (e.kind === 'error') return finish({ kind: 'error', detail: e.detail });
          if (e.kind === 'too-long') return finish({ kind: 'fatal', error: new ClusterError('http', `WATCH ${this.o.path}: ${e.detail}`) });
          if (e.kind === 'credentials') return finish({ kind: 'fatal', error: new ClusterError('config', e.detail) });
          const fatal = fatalWatchStatus(e.status, this.o.path);
          if (fatal) return finish({ kind: 'fatal', error: fatal });
          if (e.status === 410) return finish({ kind: 'expired', detail: e.message === 'HTTP 410' ? '410 Gone' : e.message });
          finish({ kind: 'error', detail: `WATCH answered ${e.status}: ${e.message}` });
        },
      });
      if (settled) stream.close();
    });
  }

  /** Handles one event of a running watch; returns a result when it ends the watch. Throws what the sink throws. */
  private onWatchEvent(type: string, obj: Record<string, unknown>): WatchResult | undefined {
    const at = this.o.now();
    if (type === 'ERROR') {
      const st = obj as { code?: number; message?: string; reason?: string };
      return st.code === 410 ? { kind: 'expired', detail: st.message ?? 'resourceVersion too old (410)' } : { kind: 'error', detail: st.message ?? 'watch ERROR event' };
    }
    if (typeof obj.kind === 'string' && obj.kind !== this.o.kind) {
      return { kind: 'error', detail: `the ${this.o.path} watch sent a ${JSON.stringify(obj.kind).slice(0, 80)} object, not a ${this.o.kind}` };
    }
    const m = metaOf(obj);
    if (m.resourceVersion) this.rv = m.resourceVersion;
    if (type === 'BOOKMARK') {
      this.o.sink.event('BOOKMARK', obj, at);
      return undefined;
    }
    if (type !== 'ADDED' && type !== 'MODIFIED' && type !== 'DELETED') return undefined;
    if (this.idleResumeAt !== undefined) {
      if (at - this.idleResumeAt <= IDLE_BACKLOG_MS) {
        this.o.sink.gap('watch-reconnect', `${this.idleDetail}; events held back by the dead connection arrived on resume, their receive times are late`, this.idleResumeAt);
      }
      this.idleResumeAt = undefined;
    }
    const full = { apiVersion: this.o.apiVersion, kind: this.o.kind, ...obj };
    if (type === 'DELETED') this.known.delete(m.uid ?? '');
    else this.known.set(m.uid ?? '', full);
    this.o.sink.event(type, full, at);
    return undefined;
  }
}

export interface ObjectPollerOptions {
  kc: KubeAccess;
  /** Object path, e.g. `/api/v1/namespaces/shop`. */
  path: string;
  kind: string;
  apiVersion: string;
  sink: ReflectorSink;
  signal: AbortSignal;
  now: () => number;
  /** Poll interval (ms). Default 2000. */
  intervalMs?: number;
  requestTimeoutMs?: number;
}

/**
 * The fallback for a single object the user may `get` but not list/watch (a namespaced Role can
 * grant `get` on its own Namespace object, never `list`/`watch` of the cluster-scoped collection):
 * GET it every `intervalMs`, emit ADDED first, MODIFIED when its resourceVersion changes and
 * DELETED (of the last known object) on 404. Receive times are then late by up to one interval.
 * 401/403 end the loop with the ClusterError; other errors are retried on the next tick (the
 * first read's are thrown). An answer that is not an object of the expected kind is such an
 * error. A sink that throws ends the loop with its error.
 */
export class ObjectPoller {
  constructor(private readonly o: ObjectPollerOptions) {}

  private async read(): Promise<Record<string, unknown>> {
    const body = await getJSON<unknown>(this.o.kc, this.o.path, { signal: this.o.signal, timeoutMs: this.o.requestTimeoutMs });
    const kind = (body as { kind?: unknown } | undefined)?.kind;
    if (!isRecord(body) || (kind !== undefined && kind !== this.o.kind)) {
      throw new ClusterError('http', `GET ${this.o.path} answered 200 with ${describeBody(body)} instead of a ${this.o.kind}`);
    }
    return { apiVersion: this.o.apiVersion, kind: this.o.kind, ...(body as Record<string, unknown>) };
  }

  async run(): Promise<void> {
    const { signal } = this.o;
    let last: Record<string, unknown> | undefined;
    let first = true;
    while (!signal.aborted) {
      let obj: Record<string, unknown> | undefined;
      let gone = false;
      try {
        obj = await this.read();
      } catch (err) {
        if (signal.aborted) return;
        if (err instanceof ClusterError && (err.kind === 'forbidden' || err.kind === 'unauthorized')) throw err;
        gone = err instanceof ClusterError && err.kind === 'not-found';
        if (first && !gone) throw err;
      }
      const at = this.o.now();
      if (obj) {
        if (!last) this.o.sink.event('ADDED', obj, at, first ? 'initial-list' : undefined);
        else if (metaOf(last).resourceVersion !== metaOf(obj).resourceVersion) this.o.sink.event('MODIFIED', obj, at);
        last = obj;
      } else if (gone && last) {
        this.o.sink.event('DELETED', last, at);
        last = undefined;
      }
      if (first) {
        first = false;
        this.o.sink.synced?.();
      }
      await sleep(this.o.intervalMs ?? 2000, signal);
    }
  }
}
