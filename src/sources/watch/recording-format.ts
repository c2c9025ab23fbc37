/**
 * kexp's own recording format (version 1): the types of its NDJSON lines, the writer helper
 * `kexp record` uses, and the receive-time codec. docs/recording-format.md is the normative
 * description; keep the two in step.
 *
 * A recording is one JSON object per line:
 *   line 1      header  {"kexpRecording":1,"kexpVersion":…,"startedAt":…,"watches":[…],"redacted":true,…}
 *   then        event   {"recv":…,"src":"pods","event":{"type":"ADDED","object":{…}}}   (API watch event verbatim)
 *               gap     {"recv":…,"src":"pods","gap":{"reason":"watch-relist","detail":…}}
 *   optionally  end     {"recv":…,"end":{"reason":"duration","detail":…}}               (last line)
 */
import { isRecord } from '../../model/objects.js';
import { typeName } from '../type-name.js';

/** The format version this kexp writes and the highest it reads. */
export const RECORDING_FORMAT_VERSION = 1;

/** One watch the recorder ran. `src` on event/gap lines names the watch by `resource`. */
export interface RecordingWatch {
  /** Plural resource name as in the API path: `replicasets`, `pods`, `events`, `namespaces`. */
  resource: string;
  /** Namespace of a namespaced watch. */
  namespace?: string;
  /** Single-object watch (`fieldSelector=metadata.name=…`), e.g. the namespace itself. */
  name?: string;
  labelSelector?: string;
  fieldSelector?: string;
}

export interface RecordingHeader {
  kexpRecording: number;
  /** Version of the kexp that wrote the file. */
  kexpVersion: string;
  /** `gitVersion` of the apiserver (`/version`), e.g. `v1.37.2`. */
  serverVersion?: string;
  /**
   * Namespace and the object the recording was made for: the field names its kind — `replicaSet`,
   * `deployment`, `replicationController`, `daemonSet` or `job` (one of them).
   */
  namespace?: string;
  replicaSet?: string;
  deployment?: string;
  replicationController?: string;
  daemonSet?: string;
  job?: string;
  /**
   * Watches the recorder could not run (RBAC): the recording goes on without them, so what they
   * would have shown is unknown to a replay (e.g. no Nodes: a DaemonSet's node placement).
   */
  unavailable?: RecordingUnavailable[];
  /** RFC 3339 UTC with microseconds: when the recorder started its watches. */
  startedAt: string;
  watches: RecordingWatch[];
  /** True when the recorder removed or replaced sensitive values (see docs/recording-format.md). */
  redacted: boolean;
}

/** A watch the recorder was refused: its resource, the verb refused, the API server's one line. */
export interface RecordingUnavailable {
  resource: string;
  verb: string;
  message: string;
}

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

/** A Kubernetes watch event exactly as the API sent it. */
export interface WireWatchEvent {
  type: WatchEventType;
  object: Record<string, unknown>;
}

export interface RecordingEventLine {
  /** Receive time, RFC 3339 UTC with exactly 6 fractional digits. */
  recv: string;
  /** The `resource` of the watch (header `watches`) the event arrived on. */
  src: string;
  event: WireWatchEvent;
  /**
   * Set when the recorder produced the event from a LIST rather than a watch: the items of the
   * initial list (`initial-list`) or of a relist after a 410/reconnect (`relist`, including
   * the DELETED it derives for objects missing from the new list). Readers treat these like
   * watch events.
   */
  synthetic?: 'initial-list' | 'relist';
}

export type RecordingGapReason = 'watch-relist' | 'watch-reconnect';

export interface RecordingGapLine {
  recv: string;
  src: string;
  gap: { reason: RecordingGapReason; detail?: string };
}

export type RecordingEndReason = 'duration' | 'interrupted' | 'error';

export interface RecordingEndLine {
  recv: string;
  end: {
    reason: RecordingEndReason;
    detail?: string;
    /**
     * Watches that never worked (every attempt answered with something other than a watch
     * stream: a redirect, an HTML page, a line that is not an event, a close with nothing
     * delivered): from `since` on, the recording holds nothing of that resource but its initial
     * list, so a replay cannot know what happened after it.
     */
    unwatched?: RecordingUnwatched[];
  };
}

/** A watch that never worked: the resource, its attempts, the first one's receive time, the last answer. */
export interface RecordingUnwatched {
  resource: string;
  attempts: number;
  /** RFC 3339 receive time of the first failed attempt's start. */
  since: string;
  detail: string;
}

export type RecordingBodyLine = RecordingEventLine | RecordingGapLine | RecordingEndLine;
export type RecordingLine = RecordingHeader | RecordingBodyLine;

/**
 * Serialises one recording line: a single JSON object, no raw newline inside (JSON.stringify
 * escapes them), terminated by exactly one `\n`. Write the returned string with ONE write
 * call so a crash can only ever leave a partial *last* line.
 */
export function formatRecordingLine(line: RecordingLine): string {
  return JSON.stringify(line) + '\n';
}

/** Builds the header line's object with the current format version. */
export function recordingHeader(fields: Omit<RecordingHeader, 'kexpRecording'>): RecordingHeader {
  return { kexpRecording: RECORDING_FORMAT_VERSION, ...fields };
}

function pad(n: number, width: number): string {
  return String(n).padStart(width, '0');
}

/**
 * Epoch milliseconds (a fraction carries µs) → `2026-11-30T10:15:02.134512Z`
 * (RFC 3339, UTC, exactly six fractional digits; sub-µs is rounded).
 */
export function formatRecvTime(epochMs: number): string {
  const us = Math.round(epochMs * 1000);
  const secs = Math.floor(us / 1_000_000);
  const frac = us - secs * 1_000_000;
  return new Date(secs * 1000).toISOString().slice(0, 19) + '.' + pad(frac, 6) + 'Z';
}

const RFC3339 = /^(\d{4})-(\d\d)-(\d\d)[Tt](\d\d):(\d\d):(\d\d)(?:\.(\d{1,9}))?(?:([Zz])|([+-])(\d\d):(\d\d))$/;

/** Date.UTC of the hour last seen by the fast path (`YYYY-MM-DDTHH` → ms): receive times of a recording share it for thousands of lines. */
let hourKey = '';
let hourMs = 0;

/** Two ASCII digits at `i` as a number, or -1. */
function two(s: string, i: number): number {
  const a = s.charCodeAt(i) - 48;
  const b = s.charCodeAt(i + 1) - 48;
  return a >= 0 && a <= 9 && b >= 0 && b <= 9 ? a * 10 + b : -1;
}

/**
 * The common shape `YYYY-MM-DDTHH:MM:SS[.f{1,9}]Z` without the regular expression (a recording
 * has one receive time per line and a pod several timestamps: profiled at ~6 % of a replay's
 * source side). Returns undefined for any other shape, which the general path then reads; the
 * result equals the general path's to the bit (the same Date.UTC of the same fields, the same
 * fraction arithmetic).
 */
function fastRfc3339Z(s: string): number | undefined {
  const n = s.length;
  if (n < 20 || n > 30) return undefined;
  const z = s.charCodeAt(n - 1);
  if ((z !== 90 && z !== 122) || s.charCodeAt(4) !== 45 || s.charCodeAt(7) !== 45 || s.charCodeAt(13) !== 58 || s.charCodeAt(16) !== 58) return undefined;
  const t = s.charCodeAt(10);
  if (t !== 84 && t !== 116) return undefined;
  const mi = two(s, 14);
  const sec = two(s, 17);
  if (mi < 0 || sec < 0) return undefined;
  let frac = 0;
  if (n > 20) {
    // `.` and 1 to 9 digits before the Z.
    if (s.charCodeAt(19) !== 46 || n === 21) return undefined;
    for (let i = 20; i < n - 1; i++) {
      const d = s.charCodeAt(i) - 48;
      if (d < 0 || d > 9) return undefined;
      frac = frac * 10 + d;
    }
    for (let i = n - 1 - 20; i < 9; i++) frac *= 10;
  }
  const key = s.slice(0, 13);
  if (key !== hourKey) {
    const y1 = two(s, 0);
    const y2 = two(s, 2);
    const mo = two(s, 5);
    const d = two(s, 8);
    const h = two(s, 11);
    if (y1 < 0 || y2 < 0 || mo < 0 || d < 0 || h < 0) return undefined;
    const base = Date.UTC(y1 * 100 + y2, mo - 1, d, h, 0, 0);
    if (Number.isNaN(base)) return undefined;
    hourKey = key;
    hourMs = base;
  }
  let ms = hourMs + mi * 60_000 + sec * 1000;
  if (n > 20) ms += frac / 1e6;
  return ms;
}

/**
 * RFC 3339 → epoch milliseconds keeping the fraction (µs/ns precision as a fractional ms).
 * `Date.parse` would drop everything below the millisecond. Undefined when not RFC 3339.
 */
export function parseRfc3339(s: unknown): number | undefined {
  if (typeof s !== 'string') return undefined;
  return fastRfc3339Z(s) ?? parseRfc3339General(s);
}

/** The general path of parseRfc3339 (any offset, by the regular expression); exported for the test that checks the fast path against it. */
export function parseRfc3339General(s: string): number | undefined {
  const m = RFC3339.exec(s);
  if (!m) return undefined;
  let ms = Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!);
  if (Number.isNaN(ms)) return undefined;
  if (m[9]) {
    const off = (+m[10]! * 60 + +m[11]!) * 60_000;
    ms += m[9] === '+' ? -off : off;
  }
  if (m[7]) ms += Number(m[7].padEnd(9, '0')) / 1e6;
  return ms;
}

export type ParsedRecordingLine =
  | { kind: 'header'; header: RecordingHeader }
  | { kind: 'event'; line: RecordingEventLine; recvAt: number }
  | { kind: 'gap'; line: RecordingGapLine; recvAt: number }
  | { kind: 'end'; line: RecordingEndLine; recvAt: number }
  | { kind: 'invalid'; message: string };

/**
 * Checks a header object. Returns an error message (one line) or undefined.
 * A version above RECORDING_FORMAT_VERSION is an error: the reader cannot know what changed.
 */
export function checkRecordingHeader(obj: unknown): string | undefined {
  if (!isRecord(obj) || !('kexpRecording' in obj)) return 'not a kexp recording header (no "kexpRecording" field)';
  const v = obj.kexpRecording;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1) {
    return `invalid recording format version ${JSON.stringify(v)} (expected a positive integer)`;
  }
  if (v > RECORDING_FORMAT_VERSION) {
    const by = typeof obj.kexpVersion === 'string' ? ` (written by kexp ${obj.kexpVersion})` : '';
    return `recording format version ${v}${by} is newer than this kexp understands (up to ${RECORDING_FORMAT_VERSION}); upgrade kexp`;
  }
  if (parseRfc3339(obj.startedAt) === undefined) return 'recording header has no valid "startedAt" time';
  // The fields kexp reads must have their types: a damaged header is named, never a crash.
  for (const k of ['kexpVersion', 'serverVersion', 'namespace', 'replicaSet', 'deployment', 'replicationController', 'daemonSet', 'job'] as const) {
    if (obj[k] !== undefined && obj[k] !== null && typeof obj[k] !== 'string') return `recording header field "${k}" is ${typeName(obj[k])}, expected a string`;
  }
  if (obj.redacted !== undefined && typeof obj.redacted !== 'boolean') return `recording header field "redacted" is ${typeName(obj.redacted)}, expected true or false`;
  if (obj.unavailable !== undefined) {
    if (!Array.isArray(obj.unavailable)) return `recording header field "unavailable" is ${typeName(obj.unavailable)}, expected a list`;
    const i = obj.unavailable.findIndex((u) => !isRecord(u) || ['resource', 'verb', 'message'].some((k) => typeof u[k] !== 'string'));
    if (i >= 0) return `recording header "unavailable[${i}]" is not {resource, verb, message} with string values`;
  }
  if (obj.watches !== undefined) {
    if (!Array.isArray(obj.watches)) return `recording header field "watches" is ${typeName(obj.watches)}, expected a list`;
    const i = obj.watches.findIndex((w) => !isRecord(w) || typeof w.resource !== 'string' || ['namespace', 'name'].some((k) => w[k] !== undefined && typeof w[k] !== 'string'));
    if (i >= 0) return `recording header "watches[${i}]" is not {resource, namespace?, name?} with string values`;
  }
  return undefined;
}

/** Classifies one parsed body line of a recording. */
export function classifyRecordingLine(obj: unknown): ParsedRecordingLine {
  if (!isRecord(obj)) return { kind: 'invalid', message: 'not a recording line (expected a JSON object)' };
  if ('kexpRecording' in obj) {
    const err = checkRecordingHeader(obj);
    return err ? { kind: 'invalid', message: err } : { kind: 'header', header: obj as unknown as RecordingHeader };
  }
  if (typeof obj.recv !== 'string') return { kind: 'invalid', message: 'recording line without "recv" time' };
  const recvAt = parseRfc3339(obj.recv);
  if (recvAt === undefined) {
    return { kind: 'invalid', message: `recording line with invalid "recv" time ${JSON.stringify(obj.recv).slice(0, 60)}` };
  }
  const hasEvent = 'event' in obj;
  if ((hasEvent ? 1 : 0) + ('gap' in obj ? 1 : 0) + ('end' in obj ? 1 : 0) > 1) {
    const parts = ['event', 'gap', 'end'].filter((k) => k in obj);
    return { kind: 'invalid', message: `recording line with both ${parts.map((p) => `"${p}"`).join(' and ')}` };
  }
  if (hasEvent) {
    if (typeof obj.src !== 'string') return { kind: 'invalid', message: 'event line without "src"' };
    if (!isRecord(obj.event)) return { kind: 'invalid', message: '"event" is not an object' };
    if (!isRecord(obj.event.object)) return { kind: 'invalid', message: '"event.object" is not an object' };
    if (!kindOfSrc(obj.src)) return { kind: 'invalid', message: `unknown "src" ${JSON.stringify(obj.src).slice(0, 40)} (expected one of ${Object.keys(RESOURCE_KINDS).join(', ')})` };
    return { kind: 'event', line: obj as unknown as RecordingEventLine, recvAt };
  }
  if ('gap' in obj) {
    if (!isRecord(obj.gap) || typeof obj.gap.reason !== 'string') {
      return { kind: 'invalid', message: 'gap line without "gap.reason"' };
    }
    if (!['watch-relist', 'watch-reconnect', 'watch-ended', 'file-boundary'].includes(obj.gap.reason)) {
      return { kind: 'invalid', message: `gap line with unknown reason ${JSON.stringify(obj.gap.reason).slice(0, 40)}` };
    }
    return { kind: 'gap', line: obj as unknown as RecordingGapLine, recvAt };
  }
  if ('end' in obj) {
    if (!isRecord(obj.end) || typeof obj.end.reason !== 'string') {
      return { kind: 'invalid', message: 'end line without "end.reason"' };
    }
    return { kind: 'end', line: obj as unknown as RecordingEndLine, recvAt };
  }
  return { kind: 'invalid', message: 'unknown recording line (none of "event", "gap", "end")' };
}

/** Watch resource (the `src` of a line) → the kind kexp sees on it. */
export const RESOURCE_KINDS: Readonly<Record<string, string>> = {
  pods: 'Pod',
  replicasets: 'ReplicaSet',
  replicationcontrollers: 'ReplicationController',
  daemonsets: 'DaemonSet',
  nodes: 'Node',
  // Read and skipped as a kind kexp does not model (the DaemonSet controller's revision history).
  controllerrevisions: 'ControllerRevision',
  jobs: 'Job',
  events: 'Event',
  namespaces: 'Namespace',
};

/** `src` may be `pods` or `pods/shop`; returns the kind when the resource is known. */
export function kindOfSrc(src: string | undefined): string | undefined {
  if (!src) return undefined;
  const slash = src.indexOf('/');
  return RESOURCE_KINDS[slash === -1 ? src : src.slice(0, slash)];
}
