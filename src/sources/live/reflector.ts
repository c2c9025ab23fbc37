/**
 * kexp's own list+watch loop for one resource path, on @kubernetes/client-node's raw
 * `Watch` (not its informer; see libraries.md B.1 for why). Mirrors the parts of client-go's
 * Reflector (tools/cache/reflector.go) a recorder needs:
 *
 * - LIST, then emit every item as a synthetic ADDED (what an informer's initial list does);
 * - WATCH from the list's resourceVersion with `allowWatchBookmarks=true` and a server-side
 *   `timeoutSeconds`; a normal server close resumes from the last seen resourceVersion
 *   (events or bookmarks) without loss, so it is not a gap;
 * - an error (connection reset, apiserver restart) → reconnect with jittered backoff
 *   (1 s doubling to 30 s) from the last resourceVersion, reported as a `watch-reconnect` gap
 *   (nothing is lost if the resume succeeds, but the receive times inside are late);
 * - `ERROR` with code 410 (Expired/Gone) → a `watch-relist` gap, LIST again, emit the new
 *   items as ADDED and, for objects that disappeared meanwhile, a synthetic DELETED of the
 *   last known object (the informer's DeletedFinalStateUnknown);
 * - a client-side idle timeout aborts a half-open connection that delivers nothing;
 * - 401/403 on a WATCH (credentials expired, RBAC lacks `watch`) ends the loop with a
 *   ClusterError: retrying cannot help;
 * - an AbortSignal (Ctrl-C) ends the loop cleanly.
 *
 * Every event is stamped with its receive time from the injected clock.
 */
import { Watch, type KubeConfig } from '@kubernetes/client-node';
import { ClusterError, getJSON } from './api-client.js';

export type ReflectorEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK';

export interface ReflectorSink {
  event(type: ReflectorEventType, object: Record<string, unknown>, recvAt: number, synthetic?: 'initial-list' | 'relist'): void;
  gap(reason: 'watch-relist' | 'watch-reconnect', detail: string, recvAt: number): void;
  /** Called once after the first LIST has been emitted. */
  synced?(): void;
}

export interface ReflectorOptions {
  kc: KubeConfig;
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
  /** Called with errors that end the loop (e.g. 403); retried errors are reported as gaps. */
  onFatal?: (err: ClusterError) => void;
}

interface ListBody {
  metadata?: { resourceVersion?: string };
  items?: Array<Record<string, unknown>>;
}

function metaOf(o: Record<string, unknown>): { uid?: string; resourceVersion?: string; name?: string; namespace?: string } {
  return (o.metadata ?? {}) as { uid?: string; resourceVersion?: string; name?: string; namespace?: string };
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const t = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(t);
      resolve();
    }, { once: true });
  });
}

type WatchResult = { kind: 'closed' } | { kind: 'idle'; detail: string } | { kind: 'expired'; detail: string } | { kind: 'error'; detail: string } | { kind: 'fatal'; error: ClusterError };

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

  constructor(private readonly o: ReflectorOptions) {}

  private query(): string {
    const q = new URLSearchParams();
    if (this.o.fieldSelector) q.set('fieldSelector', this.o.fieldSelector);
    if (this.o.labelSelector) q.set('labelSelector', this.o.labelSelector);
    const s = q.toString();
    return s ? `?${s}` : '';
  }

  private async list(synthetic: 'initial-list' | 'relist'): Promise<void> {
    const body = await getJSON<ListBody>(this.o.kc, this.o.path + this.query(), { signal: this.o.signal, timeoutMs: this.o.requestTimeoutMs });
    const at = this.o.now();
    const seen = new Set<string>();
    for (const item of body.items ?? []) {
      const obj = { apiVersion: this.o.apiVersion, kind: this.o.kind, ...item };
      const uid = metaOf(obj).uid ?? '';
      seen.add(uid);
      const prev = this.known.get(uid);
      this.known.set(uid, obj);
      if (synthetic === 'relist' && prev && metaOf(prev).resourceVersion === metaOf(obj).resourceVersion) continue;
      this.o.sink.event(prev ? 'MODIFIED' : 'ADDED', obj, at, synthetic);
    }
    if (synthetic === 'relist') {
      for (const [uid, obj] of this.known) {
        if (!seen.has(uid)) {
          this.known.delete(uid);
          this.o.sink.event('DELETED', obj, at, 'relist');
        }
      }
    }
    this.rv = body.metadata?.resourceVersion ?? '';
  }

  /** Runs until the signal aborts or a fatal error (401/403/404 on LIST). */
  async run(): Promise<void> {
    const { signal } = this.o;
    try {
      await this.list('initial-list');
    } catch (err) {
      if (signal.aborted) return;
      throw err;
    }
    this.o.sink.synced?.();
    let backoff = 1000;
    while (!signal.aborted) {
      const r = await this.watchOnce();
      if (signal.aborted) return;
      if (r.kind === 'fatal') throw r.error;
      if (r.kind === 'closed') {
        backoff = 1000;
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
        this.o.sink.gap('watch-relist', r.detail, this.o.now());
        try {
          await this.list('relist');
          backoff = 1000;
        } catch (err) {
          if (err instanceof ClusterError && (err.kind === 'forbidden' || err.kind === 'unauthorized')) throw err;
          await sleep(backoff, signal);
          backoff = Math.min(backoff * 2, 30000);
          this.rv = '';
        }
        continue;
      }
      // error: reconnect from the last resourceVersion after a jittered backoff
      this.o.sink.gap('watch-reconnect', r.detail, this.o.now());
      await sleep(backoff * (0.8 + Math.random() * 0.4), signal);
      backoff = Math.min(backoff * 2, 30000);
      if (!this.rv) {
        try {
          await this.list('relist');
        } catch {
          /* retried on the next round */
        }
      }
    }
  }

  private async watchOnce(): Promise<WatchResult> {
    const { signal } = this.o;
    const w = new Watch(this.o.kc);
    const query: Record<string, string | number | boolean> = {
      allowWatchBookmarks: true,
      timeoutSeconds: this.o.timeoutSeconds ?? 240,
      resourceVersion: this.rv,
    };
    if (this.o.fieldSelector) query.fieldSelector = this.o.fieldSelector;
    if (this.o.labelSelector) query.labelSelector = this.o.labelSelector;
    return await new Promise((resolve) => {
      let settled = false;
      let controller: AbortController | undefined;
      let idle: NodeJS.Timeout | undefined;
      let result: WatchResult = { kind: 'closed' };
      const finish = () => {
        if (settled) return;
        settled = true;
        if (idle) clearTimeout(idle);
        signal.removeEventListener('abort', onAbort);
        controller?.abort();
        resolve(result);
      };
      const armIdle = () => {
        if (idle) clearTimeout(idle);
        idle = setTimeout(() => {
          result = { kind: 'idle', detail: `no data for ${this.o.idleTimeoutMs ?? 90000} ms (half-open connection?)` };
          finish();
        }, this.o.idleTimeoutMs ?? 90000);
      };
      const onAbort = () => finish();
      signal.addEventListener('abort', onAbort, { once: true });
      armIdle();
      w.watch(
        this.o.path,
        query,
        (type: string, obj: Record<string, unknown>) => {
          armIdle();
          const at = this.o.now();
          if (type === 'ERROR') {
            const st = obj as { code?: number; message?: string; reason?: string };
            result = st.code === 410 ? { kind: 'expired', detail: st.message ?? 'resourceVersion too old (410)' } : { kind: 'error', detail: st.message ?? 'watch ERROR event' };
            finish();
            return;
          }
          const m = metaOf(obj);
          if (m.resourceVersion) this.rv = m.resourceVersion;
          if (type === 'BOOKMARK') {
            this.o.sink.event('BOOKMARK', obj, at);
            return;
          }
          if (type !== 'ADDED' && type !== 'MODIFIED' && type !== 'DELETED') return;
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
        },
        (err: unknown) => {
          if (err && !signal.aborted && result.kind === 'closed') {
            const e = err as { message?: string; statusCode?: number; code?: string };
            const fatal = fatalWatchStatus(e.statusCode, this.o.path);
            if (fatal) result = { kind: 'fatal', error: fatal };
            else if (e.statusCode === 410) result = { kind: 'expired', detail: '410 Gone' };
            else result = { kind: 'error', detail: e.code ?? e.message ?? String(err) };
          }
          finish();
        },
      ).then((c) => {
        controller = c;
        if (settled) c.abort();
      }, (err: unknown) => {
        const e = err as { message?: string; statusCode?: number; code?: string };
        const fatal = fatalWatchStatus(e?.statusCode, this.o.path);
        result = fatal ? { kind: 'fatal', error: fatal } : e?.statusCode === 410 ? { kind: 'expired', detail: '410 Gone' } : { kind: 'error', detail: e?.code ?? e?.message ?? String(err) };
        finish();
      });
    });
  }
}

export interface ObjectPollerOptions {
  kc: KubeConfig;
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
 * 401/403 end the loop with the ClusterError; other errors are retried on the next tick.
 */
export class ObjectPoller {
  constructor(private readonly o: ObjectPollerOptions) {}

  async run(): Promise<void> {
    const { signal } = this.o;
    let last: Record<string, unknown> | undefined;
    let first = true;
    while (!signal.aborted) {
      try {
        const obj = { apiVersion: this.o.apiVersion, kind: this.o.kind, ...(await getJSON<Record<string, unknown>>(this.o.kc, this.o.path, { signal, timeoutMs: this.o.requestTimeoutMs })) };
        const at = this.o.now();
        if (!last) this.o.sink.event('ADDED', obj, at, first ? 'initial-list' : undefined);
        else if (metaOf(last).resourceVersion !== metaOf(obj).resourceVersion) this.o.sink.event('MODIFIED', obj, at);
        last = obj;
      } catch (err) {
        if (signal.aborted) return;
        if (err instanceof ClusterError && (err.kind === 'forbidden' || err.kind === 'unauthorized')) throw err;
        if (err instanceof ClusterError && err.kind === 'not-found' && last) {
          this.o.sink.event('DELETED', last, this.o.now());
          last = undefined;
        }
        if (first && !(err instanceof ClusterError && err.kind === 'not-found')) throw err;
      }
      if (first) {
        first = false;
        this.o.sink.synced?.();
      }
      await sleep(this.o.intervalMs ?? 2000, signal);
    }
  }
}
