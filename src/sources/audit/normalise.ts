/**
 * Turns one parsed JSON/YAML value from an audit input into zero or more normalised audit
 * records (record.ts), whatever it came in:
 *
 * - `audit.k8s.io/v1` / `v1beta1` / `v1alpha1` `Event` (log backend, one per line), including
 *   v1beta1 files that carry only the seconds-precision `timestamp` and files written without
 *   `apiVersion` (input-formats.md §1.1, §1.10);
 * - `audit.k8s.io/*` `EventList` (webhook backend batches, §1.11);
 * - any document envelope of the registry (src/sources/envelope/registry.ts: GKE, EKS, AKS,
 *   ECS, Loki), tried in its order after the two native shapes; the payloads an envelope hands
 *   over are read like top-level values (an envelope's object may be another envelope) and
 *   their records carry the envelope's name as `origin`.
 * Line envelopes (CloudWatch export lines) are opened by the source before the line is parsed.
 *
 * It never throws: unknown shapes and versions are reported through the sink with the line
 * number so the caller can print FILE:LINE problems. `classifyValue` names what a value is for
 * the sniffer: an audit format, or the non-audit input it looks like and the command that reads it.
 * Cost: one pass over the parsed value; wrapped events (JSON text in a string field) are tested
 * with `innerFilter` before they are parsed.
 */
import { isRecord } from '../../model/objects.js';
import { KLOG_RE } from '../kcm-log/klog-text.js';
import { isDockerLogRecord } from '../envelope/docker-json-file.js';
import type { PayloadSink } from '../envelope/envelope.js';
import { AUDIT_DOCUMENT_ENVELOPES, type AuditDocumentEnvelopeName } from '../envelope/registry.js';
import { typeName } from '../type-name.js';
import { parseMicroTime } from './micro-time.js';
import { AUDIT_API_VERSIONS, type AuditLevel, type AuditObjectRef, type AuditRecord, type AuditResponseStatus, type AuditStage, type AuditUser } from './record.js';

/** What the normaliser reports besides records. */
export interface NormaliseSink {
  /** A record/wrapper that should have been audit data but could not be used. */
  problem(line: number, message: string): void;
  /** A record that is deliberately skipped (counted by reason, not a problem). */
  skipped(reason: string, line: number): void;
}

export interface NormaliseOptions {
  /**
   * Cheap test on a wrapped audit event's JSON text (EKS `message`, AKS `properties.log`, Loki
   * `line`) before it is parsed; false skips it (counted as `prefilter`).
   */
  innerFilter?: (json: string) => boolean;
}

const STAGES = new Set<string>(['RequestReceived', 'ResponseStarted', 'ResponseComplete', 'Panic']);
const LEVELS = new Set<string>(['Metadata', 'Request', 'RequestResponse']);

type Obj = Record<string, unknown>;

function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

/** What a top-level value is, for format sniffing. */
export type ValueClass =
  | { audit: true; format: 'audit-log' | 'audit-webhook' | AuditDocumentEnvelopeName; apiVersion?: string }
  | { audit: false; what: string; hint: string };

const REPLAY_HINT = 'read it with `kexp replay`';
const KCM_HINT = 'read it with `kexp kcm-log`';

/** Classifies a parsed value: which audit format or envelope it is, or what non-audit thing it looks like. */
export function classifyValue(v: unknown): ValueClass {
  if (Array.isArray(v)) {
    const first = v.find((x) => x !== null && x !== undefined);
    if (first === undefined) return { audit: false, what: 'an empty JSON array', hint: 'nothing to read' };
    // Only one level: the elements of an array must be objects (no recursion into nested arrays).
    if (Array.isArray(first)) return { audit: false, what: 'a JSON array of arrays', hint: 'expected audit events (JSON objects)' };
    return classifyValue(first);
  }
  if (!isRecord(v)) return { audit: false, what: `a JSON ${v === null ? 'null' : typeof v}`, hint: 'expected audit events (JSON objects)' };
  const kind = str(v.kind);
  const apiVersion = str(v.apiVersion);
  if (kind === 'Event' && apiVersion?.startsWith('audit.k8s.io/')) return { audit: true, format: 'audit-log', apiVersion };
  if (kind === 'Event' && apiVersion === undefined && ('auditID' in v || 'stage' in v)) return { audit: true, format: 'audit-log' };
  if (kind === 'EventList' && apiVersion?.startsWith('audit.k8s.io/')) return { audit: true, format: 'audit-webhook', apiVersion };
  for (const e of AUDIT_DOCUMENT_ENVELOPES) if (e.recognise(v)) return { audit: true, format: e.name };
  // Not audit: say what it is and which command reads it.
  if (str(v.type) !== undefined && isRecord(v.object) && /^(ADDED|MODIFIED|DELETED|BOOKMARK|ERROR)$/.test(str(v.type)!)) {
    return { audit: false, what: 'a watch stream (`{"type":"ADDED","object":…}`)', hint: REPLAY_HINT };
  }
  if ('recv' in v && isRecord(v.event)) return { audit: false, what: 'a kexp recording', hint: REPLAY_HINT };
  if (Object.keys(v).some((k) => k.toLowerCase().startsWith('kexp')) || /kexp/i.test(str(v.format) ?? '')) {
    return { audit: false, what: 'a kexp recording', hint: REPLAY_HINT };
  }
  if (kind === 'ResourcePatch') return { audit: false, what: 'a kwok recording', hint: REPLAY_HINT };
  if (kind === 'Event' && (apiVersion === 'v1' || apiVersion === 'events.k8s.io/v1')) {
    return { audit: false, what: `a Kubernetes Event object (${apiVersion}), not an audit event`, hint: REPLAY_HINT };
  }
  if (kind !== undefined && apiVersion !== undefined && !apiVersion.startsWith('audit.k8s.io/')) {
    return { audit: false, what: `a Kubernetes object dump (${apiVersion} ${kind})`, hint: REPLAY_HINT };
  }
  if (kind !== undefined && apiVersion?.startsWith('audit.k8s.io/')) {
    return { audit: false, what: `an unsupported audit kind ${apiVersion} ${kind}`, hint: 'expected audit Event or EventList' };
  }
  if ('ts' in v && ('msg' in v || 'caller' in v)) return { audit: false, what: 'a component JSON log', hint: KCM_HINT };
  if (isDockerLogRecord(v)) {
    return { audit: false, what: 'a Docker json-file container log', hint: `unwrap it (jq -r .log) and ${KCM_HINT} for controller logs` };
  }
  const keys = Object.keys(v);
  if (keys.length === 0) return { audit: false, what: 'an empty JSON object', hint: 'expected apiserver audit events' };
  return { audit: false, what: `an unrecognised JSON object (keys: ${keys.slice(0, 6).join(', ')})`, hint: 'expected apiserver audit events' };
}

export class AuditNormaliser {
  /** Where the records of the value being normalised go (`fromValue`'s `out`). */
  private out: AuditRecord[] = [];
  /** The sink each document envelope hands its payloads to, by its index in the registry. */
  private readonly envelopeSinks: ReadonlyArray<PayloadSink<AuditRecord>>;

  constructor(
    private readonly sink: NormaliseSink,
    private readonly opts: NormaliseOptions = {},
  ) {
    this.envelopeSinks = AUDIT_DOCUMENT_ENVELOPES.map((e) => this.payloadSink(e.name));
  }

  /**
   * Appends the audit records contained in `v` (found at `line`) to `out`. An array's elements
   * must be objects: other elements (numbers, nested arrays, …) are reported once per array,
   * never recursed into.
   */
  fromValue(v: unknown, line: number, out: AuditRecord[]): void {
    this.out = out;
    this.value(v, line, 'log');
  }

  private value(v: unknown, line: number, origin: string): void {
    if (Array.isArray(v)) {
      if (v.length === 0) {
        this.sink.problem(line, 'not an audit event: an empty JSON array');
        return;
      }
      let bad = 0;
      let firstBad = '';
      for (const item of v) {
        if (isRecord(item)) this.fromObject(item, line, origin);
        else if (bad++ === 0) firstBad = typeName(item);
      }
      if (bad > 0) {
        this.sink.problem(
          line,
          bad === v.length
            ? `not an audit event: a JSON array of ${v.length} non-object item(s) (the first is ${firstBad})`
            : `${bad} of the ${v.length} items of this JSON array are not objects (the first is ${firstBad}); they were skipped`,
        );
      }
      return;
    }
    if (!isRecord(v)) {
      this.sink.problem(line, `expected a JSON object, found ${typeName(v)}`);
      return;
    }
    this.fromObject(v, line, origin);
  }

  private fromObject(v: Obj, line: number, origin: string): void {
    const kind = str(v.kind);
    const apiVersion = str(v.apiVersion);
    if (kind === 'Event' && (apiVersion !== undefined || 'auditID' in v || 'stage' in v)) {
      if (apiVersion === undefined || AUDIT_API_VERSIONS.has(apiVersion)) {
        const r = this.fromNative(v, line, origin, apiVersion);
        if (r) this.out.push(r);
        return;
      }
      if (apiVersion.startsWith('audit.k8s.io/')) {
        this.sink.problem(line, `unsupported audit apiVersion "${apiVersion}" (kexp reads audit.k8s.io/v1, v1beta1, v1alpha1)`);
        return;
      }
    }
    if (kind === 'EventList' && apiVersion?.startsWith('audit.k8s.io/')) {
      if (!AUDIT_API_VERSIONS.has(apiVersion)) {
        this.sink.problem(line, `unsupported audit apiVersion "${apiVersion}" on EventList`);
        return;
      }
      if (!Array.isArray(v.items)) {
        if (v.items !== undefined && v.items !== null) this.sink.problem(line, `audit EventList whose items is ${typeName(v.items)}, not a list`);
        else this.sink.problem(line, 'audit EventList without items');
        return;
      }
      let bad = 0;
      for (const item of v.items) {
        if (!isRecord(item)) {
          bad++;
          continue;
        }
        // Tolerate batch items written without kind/apiVersion (they inherit the list's).
        if (item.kind === undefined) item.kind = 'Event';
        if (item.apiVersion === undefined) item.apiVersion = apiVersion;
        this.fromObject(item, line, origin === 'log' ? 'webhook' : origin);
      }
      if (bad > 0) this.sink.problem(line, `${bad} item(s) of this audit EventList are not objects; skipped`);
      return;
    }
    for (let i = 0; i < AUDIT_DOCUMENT_ENVELOPES.length; i++) {
      const e = AUDIT_DOCUMENT_ENVELOPES[i]!;
      if (e.recognise(v)) {
        e.unwrap(v, line, this.envelopeSinks[i]!);
        return;
      }
    }
    const c = classifyValue(v);
    this.sink.problem(line, c.audit ? 'unrecognised audit wrapper' : `not an audit event: ${c.what}`);
  }

  /** Where an envelope's payloads go: read as values of their own, with the envelope's name as origin. */
  private payloadSink(origin: string): PayloadSink<AuditRecord> {
    return {
      object: (v, line) => this.fromObject(v, line, origin),
      text: (s, line, where) => this.fromInner(s, line, origin, where),
      record: (r) => this.out.push(r),
      problem: (line, message) => this.sink.problem(line, message),
      skipped: (reason, line) => this.sink.skipped(reason, line),
    };
  }

  /** A JSON-encoded audit event inside a wrapper string. */
  private fromInner(s: unknown, line: number, origin: string, where: string): void {
    if (typeof s !== 'string') {
      this.sink.problem(line, `${where} is not a string`);
      return;
    }
    const t = s.trimStart();
    if (!t.startsWith('{')) {
      // A log store holds whatever was shipped: other components' lines are not audit events.
      if (KLOG_RE.test(t)) this.sink.skipped('klog-message', line);
      else this.sink.skipped('non-json-message', line);
      return;
    }
    if (this.opts.innerFilter && !this.opts.innerFilter(t)) {
      this.sink.skipped('prefilter', line);
      return;
    }
    let v: unknown;
    try {
      v = JSON.parse(t);
    } catch (e) {
      this.sink.problem(line, `${where} is not valid JSON (${(e as Error).message})`);
      return;
    }
    this.value(v, line, origin);
  }

  private fromNative(v: Obj, line: number, origin: string, apiVersion: string | undefined): AuditRecord | undefined {
    const stage = str(v.stage);
    if (stage === undefined || !STAGES.has(stage)) {
      this.sink.problem(line, `audit event without a valid stage (${JSON.stringify(v.stage ?? null)})`);
      return undefined;
    }
    const verb = str(v.verb);
    if (verb === undefined) {
      this.sink.problem(line, 'audit event without verb');
      return undefined;
    }
    const user = isRecord(v.user) ? v.user : {};
    const stageAt = parseMicroTime(v.stageTimestamp) ?? parseMicroTime(v.timestamp);
    const rawTime = v.stageTimestamp ?? v.timestamp;
    const requestReceivedAt = parseMicroTime(v.requestReceivedTimestamp) ?? parseMicroTime(v.timestamp);
    // Files written without apiVersion (re-serialised exports): v1beta1 when they carry the
    // v1beta1-only `timestamp`, otherwise v1.
    const av = apiVersion ?? ('timestamp' in v ? 'audit.k8s.io/v1beta1' : 'audit.k8s.io/v1');
    const level = str(v.level);
    const rec: AuditRecord = {
      line,
      origin,
      apiVersion: av,
      stage: stage as AuditStage,
      verb,
      user: toUser(user),
    };
    if (level !== undefined && LEVELS.has(level)) rec.level = level as AuditLevel;
    if (typeof v.auditID === 'string') rec.auditID = v.auditID;
    if (typeof v.requestURI === 'string') rec.requestURI = v.requestURI;
    if (isRecord(v.impersonatedUser)) rec.impersonatedUser = toUser(v.impersonatedUser);
    if (typeof v.userAgent === 'string') rec.userAgent = v.userAgent;
    if (Array.isArray(v.sourceIPs)) rec.sourceIPs = v.sourceIPs.filter((x): x is string => typeof x === 'string');
    if (isRecord(v.objectRef)) rec.objectRef = toObjectRef(v.objectRef);
    if (isRecord(v.responseStatus)) rec.responseStatus = v.responseStatus as AuditResponseStatus;
    if (v.requestObject !== undefined && v.requestObject !== null) rec.requestObject = v.requestObject;
    if (v.responseObject !== undefined && v.responseObject !== null) rec.responseObject = v.responseObject;
    if (stageAt !== undefined) rec.stageAt = stageAt;
    if (requestReceivedAt !== undefined) rec.requestReceivedAt = requestReceivedAt;
    if (isRecord(v.annotations)) rec.annotations = v.annotations as Record<string, string>;
    if (stageAt === undefined && rawTime !== undefined && rawTime !== null) rec.invalidTime = JSON.stringify(rawTime).slice(0, 60);
    if (!isRecord(v.user)) rec.malformed = v.user === undefined || v.user === null ? 'audit event without user' : `audit event whose user is ${typeName(v.user)}`;
    else if (typeof v.user.username !== 'string') rec.malformed = 'audit event without user.username';
    else if (v.responseStatus !== undefined && v.responseStatus !== null && !isRecord(v.responseStatus)) {
      rec.malformed = `audit event whose responseStatus is ${typeName(v.responseStatus)}`;
    } else if (v.objectRef !== undefined && v.objectRef !== null && !isRecord(v.objectRef)) {
      rec.malformed = `audit event whose objectRef is ${typeName(v.objectRef)}`;
    } else if (isRecord(v.objectRef)) {
      // A damaged field would make the write look like someone else's or nobody's.
      const ref = v.objectRef;
      const bad = OBJECT_REF_FIELDS.find((k) => ref[k] !== undefined && ref[k] !== null && typeof ref[k] !== 'string');
      if (bad) rec.malformed = `audit event whose objectRef.${bad} is ${typeName(ref[bad])}`;
    }
    if (rec.malformed === undefined) {
      for (const k of ['requestObject', 'responseObject'] as const) {
        if (v[k] !== undefined && v[k] !== null && !isRecord(v[k])) {
          rec.malformed = `audit event whose ${k} is ${typeName(v[k])}`;
          break;
        }
      }
    }
    return rec;
  }
}

/** An audit user (`user`, `impersonatedUser`) with the fields kexp reads. */
function toUser(u: Obj): AuditUser {
  const out: AuditUser = { username: str(u.username) ?? '' };
  if (typeof u.uid === 'string') out.uid = u.uid;
  if (Array.isArray(u.groups)) out.groups = u.groups.filter((g): g is string => typeof g === 'string');
  const cred = isRecord(u.extra) ? u.extra['authentication.kubernetes.io/credential-id'] : undefined;
  if (Array.isArray(cred) && typeof cred[0] === 'string') out.credential = cred[0];
  return out;
}

/** The objectRef fields kexp reads; each must be a string when present. */
const OBJECT_REF_FIELDS = ['resource', 'namespace', 'name', 'apiGroup', 'apiVersion', 'subresource', 'uid', 'resourceVersion'] as const;

function toObjectRef(o: Obj): AuditObjectRef {
  let apiGroup = str(o.apiGroup);
  const apiVersion = str(o.apiVersion);
  if (apiGroup === undefined) {
    // v1alpha1: no apiGroup; apiVersion holds group/version.
    const slash = apiVersion?.indexOf('/') ?? -1;
    apiGroup = slash > 0 ? apiVersion!.slice(0, slash) : '';
  }
  const ref: AuditObjectRef = { apiGroup };
  for (const k of ['resource', 'namespace', 'name', 'uid', 'apiVersion', 'resourceVersion', 'subresource'] as const) {
    const s = str(o[k]);
    if (s !== undefined && s !== '') ref[k] = s;
  }
  return ref;
}
