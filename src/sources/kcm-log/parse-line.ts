/**
 * One kube-controller-manager log record → a classified line (controller-semantics.md §8,
 * input-formats.md §5).
 *
 * Accepted shapes (input-formats.md §5):
 * - klog text: `I0304 10:15:02.123456   1 replica_set.go:598] "Too few replicas" logger="replicaset-controller" …`
 *   (structured) or `I0304 … controller_utils.go:232] Setting expectations &controller.ControlleeExpectations{…}`
 *   (≤1.26 printf). A record may span lines: continuation lines start with a TAB (and a
 *   multi-line value ends with a line ` >`); pass them joined with `\n`.
 * - JSON (`--logging-format=json`): `{"ts":1741083302481.2346,"caller":"…","msg":"…","v":4,…}`.
 * - envelopes around either (src/sources/envelope: CRI
 *   `2025-03-04T10:15:02.123456789Z stderr F <line>`, docker json-file
 *   `{"log":"I0304 …\n","stream":"stderr","time":"…"}`, `kubectl logs --timestamps`
 *   `<RFC3339Nano> <line>`), opened by the registry's `unwrapLogLine`.
 *
 * Which controller a line is about is decided, in this order, by: the contextual logger name
 * (`logger="replicaset-controller"`, 1.27+), a `kind=` key, the kind the printf message names
 * (`Too few replicas for ReplicaSet …`, `… for daemon set`, `… pods running job`), the caller
 * file (replica_set.go → RS or RC; daemon_controller.go → DaemonSet; job_controller.go,
 * tracking_utils.go → Job; controller_utils.go → unknown). The source (kcm-log-source.ts)
 * settles `rs-or-rc`/`unknown` lines with the key rule documented in attribute.ts.
 */
import {
  type Classified,
  type ControllerFamily,
  type FamilyBasis,
  type OtherControllerLine,
  type ReflectorLine,
  classifyMessage,
  classifyReflectorLine,
  fileFamily,
  kindFamily,
  loggerFamily,
  otherControllerKey,
} from './catalogue.js';
import { isRecord } from '../../model/objects.js';
import { type LogEnvelopeName, unwrapLogLine } from '../envelope/registry.js';
import { type KlogClock, parseKlogHeader, parseKlogKV, readGoQuoted } from './klog-text.js';

export type { AuxKind, ControllerFamily, FamilyBasis } from './catalogue.js';

export interface ParseContext extends KlogClock {
  /** Receives the reason when the text looks like a log record but is malformed. */
  problem?: (message: string) => void;
}

/**
 * One KCM log record, classified against the catalogue: the Classified fields (kind is
 * undefined for lines outside the catalogue) plus what the record's header and wrapper tell.
 */
export interface ParsedKcmLine extends Partial<Classified> {
  /** Epoch ms (µs fraction kept). */
  at: number;
  severity: 'I' | 'W' | 'E' | 'F';
  format: 'klog-text' | 'json';
  wrapper?: LogEnvelopeName;
  wrapperAt?: number;
  /** klog header pid (text only). */
  pid?: number;
  /** Caller file basename (`controller_utils.go`). */
  file?: string;
  callerLine?: number;
  logger?: string;
  /** The message (unquoted for structured lines; the whole preformatted text for printf lines). */
  msg: string;
  /** True for a quoted message followed by key/values (or any JSON line). */
  structured: boolean;
  /** Who wrote the line, as far as the line tells (see module doc). */
  family: ControllerFamily;
  familyBasis: FamilyBasis;
  /** Key (and sync duration) named by an uncatalogued line of another controller ("Finished syncing daemon set" …). */
  otherKey?: OtherControllerLine;
  /** A reflector line of the Pod / ReplicaSet / ReplicationController informer (catalogue.ts classifyReflectorLine). */
  reflector?: ReflectorLine;
}

/** Latest epoch ms a log record may carry (9999-12-31T23:59:59.999Z). */
const MAX_TS_MS = 253_402_300_799_999;

function jsonType(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'object') return 'an object';
  return `a ${typeof v}`;
}

function shortJson(v: unknown): string {
  const t = JSON.stringify(v) ?? String(v);
  return t.length > 40 ? `${t.slice(0, 40)}…` : t;
}

/**
 * Parses one record. `text` may carry a wrapper (CRI, docker, --timestamps) and, for klog
 * text, continuation lines joined with `\n` (already unwrapped). Returns undefined when the
 * text is not a KCM log record (ctx.problem is told when it looks like a malformed one).
 */
export function parseKcmLine(text: string, ctx: ParseContext): ParsedKcmLine | undefined {
  const u = unwrapLogLine(text);
  if (u.error) {
    ctx.problem?.(u.error);
    return undefined;
  }
  const rec = parseInner(u.inner, ctx);
  if (rec && u.wrapper) {
    rec.wrapper = u.wrapper;
    if (u.wrapperAt !== undefined) rec.wrapperAt = u.wrapperAt;
  }
  return rec;
}

/** Parses an unwrapped record (klog text or JSON). */
export function parseInner(inner: string, ctx: ParseContext): ParsedKcmLine | undefined {
  const c0 = inner.charCodeAt(0);
  if (c0 === 0x7b /* { */) return parseJsonRecord(inner, ctx);
  if (c0 === 0x49 || c0 === 0x57 || c0 === 0x45 || c0 === 0x46 /* I W E F */) return parseTextRecord(inner, ctx);
  return undefined;
}

function parseTextRecord(s: string, ctx: ParseContext): ParsedKcmLine | undefined {
  const h = parseKlogHeader(s, ctx);
  if (!h) return undefined;
  if (Number.isNaN(h.at)) {
    ctx.problem?.(`klog header has an impossible date (${s.slice(1, 5)})`);
    return undefined;
  }
  let msg: string;
  let structured = false;
  let kvStart = -1;
  if (s.charCodeAt(h.length) === 0x22 /* " */) {
    const q = readGoQuoted(s, h.length);
    if (q) {
      msg = q.value;
      structured = true;
      kvStart = q.end;
    } else msg = s.slice(h.length);
  } else msg = s.slice(h.length);
  let kvCache: Record<string, unknown> | undefined;
  // "Pod created" carries the whole pod (`detail=…`, kilobytes) after the `pod` key kexp needs.
  const until = msg === 'Pod created' ? 'pod' : undefined;
  const kv = (): Record<string, unknown> => (kvCache ??= kvStart >= 0 ? parseKlogKV(s, kvStart, until) : {});
  // The logger key is cheap to find without parsing everything (it follows the message).
  let logger: string | undefined;
  if (structured) {
    const li = s.indexOf(' logger="', kvStart);
    if (li >= 0) {
      const q = readGoQuoted(s, li + 8);
      if (q) logger = q.value;
    }
  }
  return finish(
    {
      at: h.at,
      severity: h.severity,
      format: 'klog-text',
      pid: h.pid,
      file: h.file,
      callerLine: h.callerLine,
      msg,
      structured,
      family: 'unknown',
      familyBasis: 'none',
    },
    logger,
    kv,
  );
}

function parseJsonRecord(s: string, ctx: ParseContext): ParsedKcmLine | undefined {
  let o: unknown;
  try {
    o = JSON.parse(s);
  } catch (e) {
    if (s.startsWith('{"ts":')) ctx.problem?.('malformed JSON log line');
    else ctx.problem?.(`not a log record: malformed JSON (${(e as Error).message})`);
    return undefined;
  }
  if (!isRecord(o)) {
    ctx.problem?.(`not a log record: ${jsonType(o)}`);
    return undefined;
  }
  if (!('ts' in o) && !('msg' in o)) {
    const keys = Object.keys(o);
    ctx.problem?.(`not a log record: a JSON object without "ts" and "msg"${keys.length ? ` (keys: ${keys.slice(0, 6).join(', ')})` : ''}`);
    return undefined;
  }
  if (typeof o.ts !== 'number' || !Number.isFinite(o.ts) || o.ts < 0 || o.ts > MAX_TS_MS) {
    ctx.problem?.(o.ts === undefined ? 'JSON log record without "ts"' : `JSON log record with an invalid "ts" ${shortJson(o.ts)} (expected epoch milliseconds)`);
    return undefined;
  }
  if (typeof o.msg !== 'string') {
    ctx.problem?.(o.msg === undefined ? 'JSON log record without "msg"' : `JSON log record whose "msg" is ${jsonType(o.msg)}, not a string`);
    return undefined;
  }
  const caller = typeof o.caller === 'string' ? o.caller : undefined;
  let file: string | undefined;
  let callerLine: number | undefined;
  if (caller) {
    // `dir/file.go:123` → file.go, 123. Split by lastIndexOf, not by /([^/]+):(\d+)$/: that
    // regex backtracks quadratically on a long caller without a colon (a 100 KB one took 15 s).
    file = caller.slice(caller.lastIndexOf('/') + 1);
    const colon = file.lastIndexOf(':');
    if (colon > 0 && /^\d+$/.test(file.slice(colon + 1))) {
      callerLine = Number(file.slice(colon + 1));
      file = file.slice(0, colon);
    }
  }
  const kv: Record<string, unknown> = {};
  for (const [k, val] of Object.entries(o)) {
    if (k !== 'ts' && k !== 'caller' && k !== 'msg' && k !== 'v' && k !== 'logger') kv[k] = val;
  }
  const rec: ParsedKcmLine = {
    at: o.ts,
    // component-base JSON has no level key: info lines carry "v", error lines do not.
    severity: 'v' in o ? 'I' : 'E',
    format: 'json',
    msg: o.msg,
    structured: true,
    family: 'unknown',
    familyBasis: 'none',
  };
  if (file !== undefined) rec.file = file;
  if (callerLine !== undefined) rec.callerLine = callerLine;
  // A printf message logged through the JSON logger is classified like klog printf text.
  return finish(rec, typeof o.logger === 'string' ? o.logger : undefined, () => kv, true);
}

function finish(
  rec: ParsedKcmLine,
  logger: string | undefined,
  kv: () => Record<string, unknown>,
  alsoPrintf = false,
): ParsedKcmLine {
  if (logger !== undefined) rec.logger = logger;
  let c = classifyMessage(rec.msg, rec.structured, kv);
  if (!c && alsoPrintf) c = classifyMessage(rec.msg, false, kv);
  // A wording other controllers share is the catalogued controller's from its own file, and
  // otherwise only when its key is that controller's.
  if (c?.callerFile !== undefined) {
    if (c.callerFile !== rec.file && c.contentFamily) {
      c.onlyForKeysOf = c.contentFamily;
      delete c.contentFamily;
    }
    delete c.callerFile;
  }
  if (c) applyClassified(rec, c);
  else {
    const ok = otherControllerKey(rec.msg, kv);
    if (ok) rec.otherKey = ok;
    else {
      const rl = classifyReflectorLine(rec.msg, rec.structured, kv) ?? (alsoPrintf && rec.structured ? classifyReflectorLine(rec.msg, false, kv) : undefined);
      if (rl) rec.reflector = rl;
    }
  }
  decideFamily(rec, rec.kind !== undefined ? kv : undefined);
  return rec;
}

function applyClassified(rec: ParsedKcmLine, c: Classified): void {
  for (const [k, v] of Object.entries(c) as Array<[keyof Classified, unknown]>) {
    if (v !== undefined && v !== false) (rec as unknown as Record<string, unknown>)[k] = v;
  }
}

/** Logger → kind= key → kind named in the message → caller file. */
function decideFamily(rec: ParsedKcmLine, kv: (() => Record<string, unknown>) | undefined): void {
  const content = rec.contentFamily;
  delete rec.contentFamily;
  // An Event line is its involved object's controller's (catalogue.ts controllerEvent), whatever logger the broadcaster has.
  if (rec.kind === 'controller-event' && content) {
    rec.family = content;
    rec.familyBasis = 'kind';
    return;
  }
  const lf = loggerFamily(rec.logger);
  if (lf) {
    rec.family = lf;
    rec.familyBasis = 'logger';
    return;
  }
  if (kv) {
    const kf = kindFamily(kv().kind);
    if (kf) {
      rec.family = kf;
      rec.familyBasis = 'kind';
      return;
    }
  }
  if (content) {
    rec.family = content;
    rec.familyBasis = 'message';
    return;
  }
  if (rec.otherKey) {
    rec.family = rec.otherKey.family;
    rec.familyBasis = 'message';
    return;
  }
  rec.family = fileFamily(rec.file);
  rec.familyBasis = rec.file ? 'file' : 'none';
}
