/**
 * Turns one parsed JSON/YAML value from an audit input into zero or more normalised audit
 * records (`AuditRecord`), whatever wrapper it came in:
 *
 * - `audit.k8s.io/v1` / `v1beta1` / `v1alpha1` `Event` (log backend, one per line), including
 *   v1beta1 files that carry only the seconds-precision `timestamp` and files written without
 *   `apiVersion` (input-formats.md §1.1, §1.10);
 * - `audit.k8s.io/*` `EventList` (webhook backend batches, §1.11);
 * - GKE Cloud Logging `LogEntry` with a `google.cloud.audit.AuditLog` protoPayload
 *   (NDJSON or a JSON array), mapped back to audit fields (§1.11 "GKE");
 * - EKS CloudWatch exports: `{"events":[{message}]}` (filter-log-events / get-log-events) and
 *   subscription payloads `{"messageType":"DATA_MESSAGE","logEvents":[{message}]}` (§1.11 "EKS");
 * - AKS diagnostic records `{"records":[{category:"kube-audit"|"kube-audit-admin",
 *   properties:{log:"{…}"}}]}` or one such record per line (§1.11 "AKS");
 * - ECS documents as Elastic (Filebeat's Kubernetes audit integration) and OpenSearch store them:
 *   the audit Event under `kubernetes.audit` (nested, or as the dotted key `"kubernetes.audit"`),
 *   one document per line, one search hit per line (`{"_index",…,"_source":{…}}`, elasticdump),
 *   or a search-API response `{"hits":{"hits":[{"_source":{…}}]}}`. An ECS document without
 *   `kind`/`apiVersion` in its `kubernetes.audit` (the ingest pipeline may drop them) is read as
 *   an `audit.k8s.io/v1` Event;
 * - Grafana Loki `logcli query --output=jsonl` lines `{"labels":{…},"line":"{…audit json…}",
 *   "timestamp":"…"}`: `line` is the Event as a JSON string.
 * The CloudWatch Logs export lines `<ISO-8601 time> {…audit json…}` are unwrapped by the source
 * (a text prefix before the JSON, see `CLOUDWATCH_LINE_RE`); plain `message` lines are native.
 *
 * GKE entries of non-resource requests (`/readyz`, `/healthz`: a `methodName` with no API
 * version segment, e.g. `io.k8s.get`) are records without objectRef, like the apiserver's own
 * non-resource events: valid and not relevant, never malformed.
 *
 * It never throws: unknown shapes and versions are reported through the sink with the
 * line number so the caller can print FILE:LINE problems.
 */
import { isRecord } from '../../model/objects.js';
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
   * Cheap test on a wrapped audit event's JSON text (EKS `message`, AKS `properties.log`)
   * before it is parsed; false skips it (counted as `prefilter`).
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
  | { audit: true; format: 'audit-log' | 'audit-webhook' | 'gke' | 'eks' | 'aks' | 'ecs' | 'loki'; apiVersion?: string }
  | { audit: false; what: string; hint: string };

const REPLAY_HINT = 'read it with `kexp replay`';
const KCM_HINT = 'read it with `kexp kcm-log`';

/** Classifies a parsed value: which audit wrapper it is, or what non-audit thing it looks like. */
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
  if (isRecord(v.protoPayload)) return { audit: true, format: 'gke' };
  if (Array.isArray(v.logEvents) || str(v.messageType) !== undefined) return { audit: true, format: 'eks' };
  if (Array.isArray(v.events) && v.events.some((e) => isRecord(e) && 'message' in e)) return { audit: true, format: 'eks' };
  if (Array.isArray(v.records) || (str(v.category) !== undefined && isRecord(v.properties))) return { audit: true, format: 'aks' };
  if (ecsAudit(v) !== undefined || isRecord(v._source) || (isRecord(v.hits) && Array.isArray(v.hits.hits))) return { audit: true, format: 'ecs' };
  if (isLokiLine(v)) return { audit: true, format: 'loki' };
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
  if (str(v.log) !== undefined && ('stream' in v || 'time' in v)) {
    return { audit: false, what: 'a Docker json-file container log', hint: `unwrap it (jq -r .log) and ${KCM_HINT} for controller logs` };
  }
  const keys = Object.keys(v);
  if (keys.length === 0) return { audit: false, what: 'an empty JSON object', hint: 'expected apiserver audit events' };
  return { audit: false, what: `an unrecognised JSON object (keys: ${keys.slice(0, 6).join(', ')})`, hint: 'expected apiserver audit events' };
}

/** The audit Event of an ECS document: `kubernetes.audit` nested or as a dotted key. */
export function ecsAudit(v: Obj): Obj | undefined {
  const k = v.kubernetes;
  if (isRecord(k) && isRecord(k.audit)) return k.audit;
  const dotted = v['kubernetes.audit'];
  return isRecord(dotted) ? dotted : undefined;
}

/** A `logcli query --output=jsonl` line: `line` (the log line) is a string, with `labels` or `timestamp`. */
function isLokiLine(v: Obj): boolean {
  return typeof v.line === 'string' && (isRecord(v.labels) || typeof v.timestamp === 'string');
}

/**
 * A CloudWatch Logs export line (S3 `create-export-task`, or `--output text` with the time):
 * `2025-03-04T10:15:02.131Z {…}` — an ISO-8601 time, one space, then the message. Group 0 is
 * the prefix to strip.
 */
export const CLOUDWATCH_LINE_RE = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:?\d\d) (?=\{)/;

/** klog text header `I0304 10:15:02.123456       1 file.go:123] `. */
export const KLOG_RE = /^[IWEF]\d{4} \d\d:\d\d:\d\d\.\d{6}\s+\d+ \S+:\d+\] /;
/** CRI container-log prefix `2025-03-04T10:15:02.123456789Z stderr F `. */
export const CRI_RE = /^\d{4}-\d\d-\d\dT\S+ (stdout|stderr) [PF] /;
/** Legacy text audit backend line. */
export const LEGACY_AUDIT_RE = /^\S+ AUDIT: id="/;

export class AuditNormaliser {
  constructor(
    private readonly sink: NormaliseSink,
    private readonly opts: NormaliseOptions = {},
  ) {}

  /**
   * Appends the audit records contained in `v` (found at `line`) to `out`. An array's elements
   * must be objects: other elements (numbers, nested arrays, …) are reported once per array,
   * never recursed into.
   */
  fromValue(v: unknown, line: number, out: AuditRecord[], origin: string = 'log'): void {
    if (Array.isArray(v)) {
      if (v.length === 0) {
        this.sink.problem(line, 'not an audit event: an empty JSON array');
        return;
      }
      let bad = 0;
      let firstBad = '';
      for (const item of v) {
        if (isRecord(item)) this.fromObject(item, line, out, origin);
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
    this.fromObject(v, line, out, origin);
  }

  private fromObject(v: Obj, line: number, out: AuditRecord[], origin: string): void {
    const kind = str(v.kind);
    const apiVersion = str(v.apiVersion);
    if (kind === 'Event' && (apiVersion !== undefined || 'auditID' in v || 'stage' in v)) {
      if (apiVersion === undefined || AUDIT_API_VERSIONS.has(apiVersion)) {
        const r = this.fromNative(v, line, origin, apiVersion);
        if (r) out.push(r);
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
        this.fromObject(item, line, out, origin === 'log' ? 'webhook' : origin);
      }
      if (bad > 0) this.sink.problem(line, `${bad} item(s) of this audit EventList are not objects; skipped`);
      return;
    }
    if (isRecord(v.protoPayload)) {
      const r = this.fromGke(v, line);
      if (r) out.push(r);
      return;
    }
    if (Array.isArray(v.logEvents) || str(v.messageType) !== undefined) {
      if (v.messageType === 'CONTROL_MESSAGE') {
        this.sink.skipped('cloudwatch-control-message', line);
        return;
      }
      for (const e of Array.isArray(v.logEvents) ? v.logEvents : []) this.fromInner(isRecord(e) ? e.message : undefined, line, out, 'eks', 'logEvents[].message');
      return;
    }
    if (Array.isArray(v.events) && v.events.some((e) => isRecord(e) && 'message' in e)) {
      for (const e of v.events) this.fromInner(isRecord(e) ? e.message : undefined, line, out, 'eks', 'events[].message');
      return;
    }
    if (Array.isArray(v.records)) {
      for (const r of v.records) this.fromAksRecord(r, line, out);
      return;
    }
    if (str(v.category) !== undefined && isRecord(v.properties)) {
      this.fromAksRecord(v, line, out);
      return;
    }
    const ecs = ecsAudit(v);
    if (ecs !== undefined) {
      // Tolerate documents whose pipeline dropped kind/apiVersion (they are audit Events).
      if (ecs.kind === undefined) ecs.kind = 'Event';
      if (ecs.kind === 'Event' && !('apiVersion' in ecs) && !('auditID' in ecs) && !('stage' in ecs)) {
        this.sink.problem(line, 'ECS document whose kubernetes.audit has no apiVersion, auditID or stage');
        return;
      }
      this.fromObject(ecs, line, out, 'ecs');
      return;
    }
    if (isRecord(v._source)) {
      this.fromHit(v, line, out);
      return;
    }
    if (isRecord(v.hits) && Array.isArray(v.hits.hits)) {
      for (const h of v.hits.hits) this.fromHit(h, line, out);
      return;
    }
    if (isLokiLine(v)) {
      const t = (v.line as string).trimStart();
      // Loki holds whatever was shipped: other components' lines are not audit events.
      if (!t.startsWith('{')) {
        this.sink.skipped(KLOG_RE.test(t) ? 'klog-message' : 'non-json-message', line);
        return;
      }
      this.fromInner(t, line, out, 'loki', 'line');
      return;
    }
    const c = classifyValue(v);
    this.sink.problem(line, c.audit ? 'unrecognised audit wrapper' : `not an audit event: ${c.what}`);
  }

  /** One search hit: its `_source` is an ECS document (or, re-indexed, a bare audit Event). */
  private fromHit(h: unknown, line: number, out: AuditRecord[]): void {
    const src = isRecord(h) ? h._source : undefined;
    if (!isRecord(src)) {
      this.sink.problem(line, 'search hit without an object _source');
      return;
    }
    if (ecsAudit(src) === undefined && src.kind === undefined) {
      this.sink.skipped('ecs-non-audit', line);
      return;
    }
    this.fromObject(src, line, out, 'ecs');
  }

  private fromAksRecord(r: unknown, line: number, out: AuditRecord[]): void {
    if (!isRecord(r)) {
      this.sink.problem(line, 'AKS records[] entry is not an object');
      return;
    }
    const category = str(r.category) ?? str(r.Category);
    if (category !== undefined && category !== 'kube-audit' && category !== 'kube-audit-admin') {
      this.sink.skipped(`aks-category:${category}`, line);
      return;
    }
    const props = isRecord(r.properties) ? r.properties : undefined;
    const log = props?.log;
    if (log === undefined) {
      this.sink.problem(line, 'AKS record without properties.log');
      return;
    }
    if (isRecord(log)) {
      this.fromObject(log, line, out, 'aks');
      return;
    }
    this.fromInner(log, line, out, 'aks', 'records[].properties.log');
  }

  /** A JSON-encoded audit event inside a wrapper string. */
  private fromInner(s: unknown, line: number, out: AuditRecord[], origin: string, where: string): void {
    if (typeof s !== 'string') {
      this.sink.problem(line, `${where} is not a string`);
      return;
    }
    const t = s.trimStart();
    if (!t.startsWith('{')) {
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
    this.fromValue(v, line, out, origin);
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

  /** GKE Cloud Logging LogEntry → audit record (completed requests only; no stages). */
  private fromGke(e: Obj, line: number): AuditRecord | undefined {
    const p = e.protoPayload as Obj;
    const type = str(p['@type']);
    if (type !== undefined && type !== 'type.googleapis.com/google.cloud.audit.AuditLog') {
      this.sink.skipped('gke-non-auditlog', line);
      return undefined;
    }
    if (str(p.serviceName) !== undefined && p.serviceName !== 'k8s.io') {
      this.sink.skipped('gke-non-kubernetes', line);
      return undefined;
    }
    const method = str(p.methodName);
    const m = method ? parseGkeMethod(method) : undefined;
    const nonResource = m === undefined && method !== undefined ? parseGkeNonResourceMethod(method) : undefined;
    if (!m && nonResource === undefined) {
      this.sink.problem(line, `GKE entry with an unrecognised methodName ${JSON.stringify(method ?? null)}`);
      return undefined;
    }
    const ref = m ? parseGkeResourceName(str(p.resourceName), m) : undefined;
    const auth = isRecord(p.authenticationInfo) ? p.authenticationInfo : {};
    const meta = isRecord(p.requestMetadata) ? p.requestMetadata : {};
    const op = isRecord(e.operation) ? e.operation : undefined;
    // A long-running request (watch, exec) may be logged as a first and a last entry.
    const stage: AuditStage = op && op.first === true && op.last === false ? 'ResponseStarted' : 'ResponseComplete';
    const at = parseMicroTime(e.timestamp);
    const rec: AuditRecord = {
      line,
      origin: 'gke',
      apiVersion: 'gke',
      stage,
      verb: m?.verb ?? nonResource!,
      user: { username: str(auth.principalEmail) ?? '' },
      responseStatus: gkeStatus(p.status, m?.verb ?? nonResource!),
    };
    if (ref) rec.objectRef = ref;
    // A non-resource request names its path in resourceName (`readyz`, `/healthz`).
    else rec.requestURI = '/' + (str(p.resourceName) ?? '').replace(/^\/+/, '');
    const id = str(op?.id) ?? str(e.insertId);
    if (id !== undefined) rec.auditID = id;
    const ua = str(meta.callerSuppliedUserAgent);
    if (ua !== undefined) rec.userAgent = ua;
    const ip = str(meta.callerIp);
    if (ip !== undefined) rec.sourceIPs = [ip];
    const request = dropType(p.request);
    const response = dropType(p.response);
    if (request !== undefined) rec.requestObject = request;
    if (response !== undefined) rec.responseObject = response;
    // GKE entries do not say the policy level; infer it from what is present.
    rec.level = response !== undefined ? 'RequestResponse' : request !== undefined ? 'Request' : 'Metadata';
    if (at !== undefined) rec.stageAt = at;
    if (isRecord(e.labels)) rec.annotations = e.labels as Record<string, string>;
    return rec;
  }
}

/** `a number`, `a string`, `null`, `an array`, … for messages. */

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

/** `@type` keys GKE adds to request/response bodies are dropped. */
function dropType(v: unknown): unknown {
  if (!isRecord(v)) return v ?? undefined;
  if (!('@type' in v)) return v;
  const { ['@type']: _t, ...rest } = v;
  return rest;
}

interface GkeMethod {
  group: string;
  version: string;
  resource: string;
  subresource?: string;
  verb: string;
}

const VERSION_RE = /^v\d+((alpha|beta)\d+)?$/;

/**
 * `io.k8s.core.v1.pods.create`, `io.k8s.apps.v1.replicasets.status.update`,
 * `io.k8s.core.v1.pods.binding.create`: the segment after the version is the resource, then an
 * optional subresource, then the verb.
 */
export function parseGkeMethod(method: string): GkeMethod | undefined {
  const segs = method.split('.');
  if (segs[0] !== 'io' || segs[1] !== 'k8s') return undefined;
  let vi = -1;
  for (let i = 2; i < segs.length; i++) {
    if (VERSION_RE.test(segs[i]!)) {
      vi = i;
      break;
    }
  }
  if (vi < 0 || segs.length < vi + 3) return undefined;
  const groupSegs = segs.slice(2, vi);
  const group = groupSegs.length === 1 && groupSegs[0] === 'core' ? '' : groupSegs.join('.');
  const rest = segs.slice(vi + 1);
  const verb = rest[rest.length - 1]!;
  const m: GkeMethod = { group, version: segs[vi]!, resource: rest[0]!, verb };
  if (rest.length >= 3) m.subresource = rest.slice(1, -1).join('.');
  return m;
}

/**
 * The verb of a non-resource request's methodName (`io.k8s.get`, `io.k8s.healthz.get`): the
 * `io.k8s.` prefix, no API version segment, a lower-case HTTP-method verb last.
 */
export function parseGkeNonResourceMethod(method: string): string | undefined {
  const segs = method.split('.');
  if (segs[0] !== 'io' || segs[1] !== 'k8s' || segs.length < 3) return undefined;
  if (segs.slice(2).some((x) => VERSION_RE.test(x))) return undefined;
  const verb = segs[segs.length - 1]!;
  return /^(get|head|post|put|patch|delete|options)$/.test(verb) ? verb : undefined;
}

/**
 * `core/v1/namespaces/shop/pods/web-7d9c6b8f5d-x2k9p[/status]`, `apps/v1/namespaces/shop/replicasets`,
 * `core/v1/namespaces/shop` (the namespace itself), `core/v1/nodes/n1`.
 * Unlike raw audit, GKE includes the server-generated name of a create.
 */
export function parseGkeResourceName(name: string | undefined, m: GkeMethod): AuditObjectRef {
  const ref: AuditObjectRef = { apiGroup: m.group, apiVersion: m.version, resource: m.resource };
  if (m.subresource) ref.subresource = m.subresource;
  if (!name) return ref;
  const segs = name.split('/');
  let rest = segs;
  if (segs.length >= 2 && VERSION_RE.test(segs[1]!)) rest = segs.slice(2);
  if (m.resource === 'namespaces') {
    if (rest[0] === 'namespaces' && rest[1]) ref.name = rest[1];
    return ref;
  }
  if (rest[0] === 'namespaces' && rest.length >= 3) {
    ref.namespace = rest[1];
    if (rest[3]) ref.name = rest[3];
  } else if (rest[0] === m.resource && rest[1]) {
    ref.name = rest[1];
  }
  return ref;
}

/**
 * google.rpc.Status → HTTP code and Kubernetes reason. GKE writes `{code: 0}` or `{}` for
 * success; failures carry a gRPC code (mapping per the gRPC/HTTP convention — unverified
 * against GKE for every code, see input-formats.md §1.11).
 */
function gkeStatus(s: unknown, verb: string): AuditResponseStatus {
  const st = isRecord(s) ? s : {};
  const code = typeof st.code === 'number' ? st.code : 0;
  const message = str(st.message);
  if (code === 0) return { code: verb === 'create' ? 201 : 200, status: 'Success' };
  const map: Record<number, [number, string]> = {
    1: [499, 'Canceled'],
    2: [500, 'InternalError'],
    3: [422, 'Invalid'],
    4: [504, 'Timeout'],
    5: [404, 'NotFound'],
    6: [409, 'AlreadyExists'],
    7: [403, 'Forbidden'],
    8: [429, 'TooManyRequests'],
    9: [400, 'BadRequest'],
    10: [409, 'Conflict'],
    11: [400, 'BadRequest'],
    12: [405, 'MethodNotAllowed'],
    13: [500, 'InternalError'],
    14: [503, 'ServiceUnavailable'],
    16: [401, 'Unauthorized'],
  };
  const [http, reason] = map[code] ?? [500, 'Unknown'];
  const out: AuditResponseStatus = { code: http, status: 'Failure', reason };
  if (message !== undefined) out.message = message;
  return out;
}
