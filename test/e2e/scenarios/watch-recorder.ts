/**
 * The watch recorder of the workload captures: a raw dump of the watch streams of any resources
 * (DaemonSets, Jobs, ControllerRevisions, Nodes, Pods, Events, the Namespace), written in kexp's
 * recording format version 1 (docs/recording-format.md: a header line, then one line per API
 * watch event verbatim with its receive time, gap lines, an end line). `kexp record` records a
 * ReplicaSet's namespace only; this harness-side recorder is for the kinds it cannot follow yet.
 *
 * Contract: `startWatchRecorder` lists each resource, writes the items as `initial-list` ADDED
 * lines, then watches from the list's resourceVersion (bookmarks on) and writes every event as
 * the apiserver sent it. A watch the server ends is re-opened from the last resourceVersion; a
 * 410 Gone is written as its ERROR event and a `watch-relist` gap, then the resource is listed
 * again (`relist` lines, DELETED for objects the new list lacks). `stop()` ends every watch and
 * writes the end line. Objects are not redacted (`redacted: false`): the captures run on a
 * throwaway control plane and hold nothing secret. Each line is one write call
 * (formatRecordingLine), so a crash can only cut the last line.
 *
 * Cost: one HTTPS connection per watched resource for the recording's life; memory O(objects
 * watched) for the uid → object map a relist compares against.
 */
import fs from 'node:fs';
import https from 'node:https';
import { apiRequest, type ControlPlane } from '../control-plane/control-plane.js';
import {
  formatRecordingLine,
  formatRecvTime,
  recordingHeader,
  type RecordingLine,
  type RecordingWatch,
  type WireWatchEvent,
} from '../../../src/sources/watch/recording-format.js';

/** One watched resource: `watch` goes into the header; `path` is its API collection path. */
export interface RecordedWatch {
  watch: RecordingWatch;
  /** e.g. `/apis/apps/v1/namespaces/ns/daemonsets`, `/api/v1/nodes`. */
  path: string;
}

export interface WatchRecorder {
  /** Resolves once every initial list is written. */
  synced: Promise<void>;
  /** Events written so far (initial-list items included). */
  readonly events: number;
  /** Ends every watch, writes the end line and closes the file. */
  stop(detail?: string): Promise<void>;
}

type Access = Pick<ControlPlane, 'apiURL' | 'caPath' | 'adminCertPath' | 'adminKeyPath'>;

function query(w: RecordingWatch, extra: Record<string, string>): string {
  const q = new URLSearchParams(extra);
  if (w.labelSelector) q.set('labelSelector', w.labelSelector);
  if (w.fieldSelector) q.set('fieldSelector', w.fieldSelector);
  else if (w.name) q.set('fieldSelector', `metadata.name=${w.name}`);
  return q.toString();
}

export function startWatchRecorder(cp: Access, file: string, watches: RecordedWatch[], header: Record<string, unknown> = {}): WatchRecorder {
  const origin = performance.timeOrigin;
  const now = () => formatRecvTime(origin + performance.now());
  const fd = fs.openSync(file, 'w');
  let closed = false;
  let events = 0;
  const write = (line: RecordingLine) => {
    if (!closed) fs.writeSync(fd, formatRecordingLine(line));
  };
  write({ ...recordingHeader({ kexpVersion: 'e2e-watch-recorder', startedAt: now(), watches: watches.map((w) => w.watch), redacted: false }), ...header });
  const ca = fs.readFileSync(cp.caPath);
  const cert = fs.readFileSync(cp.adminCertPath);
  const key = fs.readFileSync(cp.adminKeyPath);
  const open = new Set<import('node:http').ClientRequest>();

  const one = async (w: RecordedWatch, onSynced: () => void) => {
    const src = w.watch.resource;
    const known = new Map<string, Record<string, unknown>>();
    const list = async (synthetic: 'initial-list' | 'relist'): Promise<string> => {
      const r = await apiRequest<any>(cp, 'GET', `${w.path}?${query(w.watch, {})}`);
      if (r.status !== 200) throw new Error(`watch recorder: LIST ${w.path}: ${r.status} ${r.text.slice(0, 200)}`);
      const kind = String(r.body.kind ?? '').replace(/List$/, '');
      const seen = new Set<string>();
      for (const item of r.body.items as Record<string, any>[]) {
        const object = { kind, apiVersion: r.body.apiVersion, ...item };
        const uid = item.metadata.uid as string;
        seen.add(uid);
        const before = known.get(uid) as any;
        if (synthetic === 'relist' && before?.metadata?.resourceVersion === item.metadata.resourceVersion) continue;
        known.set(uid, object);
        events++;
        write({ recv: now(), src, event: { type: before ? 'MODIFIED' : 'ADDED', object }, synthetic });
      }
      for (const [uid, object] of [...known]) {
        if (seen.has(uid)) continue;
        known.delete(uid);
        events++;
        write({ recv: now(), src, event: { type: 'DELETED', object }, synthetic });
      }
      return r.body.metadata.resourceVersion as string;
    };
    let rv = await list('initial-list');
    onSynced();
    while (!closed) {
      const outcome = await new Promise<'ended' | 'gone'>((resolve, reject) => {
        const req = https.request(
          new URL(`${w.path}?${query(w.watch, { watch: '1', resourceVersion: rv, allowWatchBookmarks: 'true', timeoutSeconds: '1800' })}`, cp.apiURL),
          { method: 'GET', ca, cert, key, headers: { Accept: 'application/json' } },
          (res) => {
            if (res.statusCode === 410) {
              res.resume();
              resolve('gone');
              return;
            }
            if (res.statusCode !== 200) {
              reject(new Error(`watch recorder: WATCH ${w.path}: ${res.statusCode}`));
              res.resume();
              return;
            }
            let buf = '';
            let gone = false;
            res.setEncoding('utf8');
            res.on('data', (chunk: string) => {
              buf += chunk;
              for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
                const text = buf.slice(0, nl);
                buf = buf.slice(nl + 1);
                if (!text.trim()) continue;
                const event = JSON.parse(text) as WireWatchEvent;
                const obj = event.object as any;
                if (event.type === 'ERROR') {
                  gone = obj?.code === 410;
                } else {
                  rv = obj.metadata.resourceVersion;
                  if (event.type === 'DELETED') known.delete(obj.metadata.uid);
                  else if (event.type !== 'BOOKMARK') known.set(obj.metadata.uid, obj);
                }
                events++;
                write({ recv: now(), src, event });
              }
            });
            res.on('end', () => resolve(gone ? 'gone' : 'ended'));
            res.on('error', () => resolve('ended'));
            res.on('close', () => resolve(gone ? 'gone' : 'ended'));
          },
        );
        open.add(req);
        req.on('close', () => open.delete(req));
        req.on('error', (e) => (closed ? resolve('ended') : reject(e)));
        req.end();
      });
      if (closed) break;
      if (outcome === 'gone') {
        write({ recv: now(), src, gap: { reason: 'watch-relist', detail: `410 Gone on the watch from resourceVersion ${rv}` } });
        rv = await list('relist');
      }
    }
  };

  const syncs: Promise<void>[] = [];
  const runs: Promise<void>[] = [];
  let failure: Error | undefined;
  for (const w of watches) {
    let synced!: () => void;
    syncs.push(new Promise<void>((r) => (synced = r)));
    runs.push(
      one(w, synced).catch((e: Error) => {
        failure ??= e;
        synced();
      }),
    );
  }
  return {
    synced: Promise.all(syncs).then(() => {
      if (failure) throw failure;
    }),
    get events() {
      return events;
    },
    async stop(detail = 'the scenario ended') {
      if (closed) return;
      write({ recv: now(), end: { reason: 'duration', detail } });
      closed = true;
      for (const req of open) req.destroy();
      await Promise.all(runs);
      fs.closeSync(fd);
      if (failure) throw failure;
    },
  };
}
