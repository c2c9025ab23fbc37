/**
 * GKE Cloud Logging LogEntries of Kubernetes audit logs (`gcloud logging read --format=json`
 * arrays, or one entry per line from a sink/export): a `google.cloud.audit.AuditLog`
 * protoPayload whose methodName (`io.k8s.core.v1.pods.create`), resourceName
 * (`core/v1/namespaces/shop/pods/web-…`), authenticationInfo, requestMetadata, request,
 * response and google.rpc status are the audit event in other words (input-formats.md §1.11
 * "GKE"). This envelope translates rather than wraps: each entry becomes one audit record.
 *
 * Contract: entries of other services or payload types are skipped (counted); a methodName
 * that is neither a resource method nor a non-resource one (`io.k8s.get` of `/readyz`) is a
 * problem; non-resource requests become records without objectRef, like the apiserver's own,
 * valid and not relevant. GKE logs completed requests only (a long-running request's first
 * entry is ResponseStarted) and does not say the policy level: it is inferred from the bodies
 * present. The entry's timestamp (≈ completion) is the record's stageTimestamp.
 * Cost: the byte prefilter reads only the methodName (the same decision the translation would
 * take); a relevant entry costs its JSON.parse and a few string splits.
 */
import { isRecord } from '../../model/objects.js';
import { endsWithBrace, findStringValue, keyScanner, type LineFilter } from '../audit/line-filter.js';
import { parseMicroTime } from '../audit/micro-time.js';
import { mentionsOwner } from '../audit/prefilter.js';
import type { AuditObjectRef, AuditRecord, AuditResponseStatus, AuditStage } from '../audit/record.js';
import { RESOURCE_NAMES, WRITE_VERBS } from '../audit/relevance.js';
import type { AuditDocumentEnvelope, PayloadSink } from './envelope.js';

type Obj = Record<string, unknown>;

function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

export const gke: AuditDocumentEnvelope<'gke'> = {
  name: 'gke',
  recognise: (v) => isRecord(v.protoPayload),
  unwrap(v, line, sink) {
    const r = gkeRecord(v, line, sink);
    if (r) sink.record(r);
  },
  lineFilter: gkeLineFilter,
};

/** GKE Cloud Logging LogEntry → audit record (completed requests only; no stages). */
function gkeRecord(e: Obj, line: number, sink: PayloadSink<AuditRecord>): AuditRecord | undefined {
  const p = e.protoPayload as Obj;
  const type = str(p['@type']);
  if (type !== undefined && type !== 'type.googleapis.com/google.cloud.audit.AuditLog') {
    sink.skipped('gke-non-auditlog', line);
    return undefined;
  }
  if (str(p.serviceName) !== undefined && p.serviceName !== 'k8s.io') {
    sink.skipped('gke-non-kubernetes', line);
    return undefined;
  }
  const method = str(p.methodName);
  const m = method ? parseGkeMethod(method) : undefined;
  const nonResource = m === undefined && method !== undefined ? parseGkeNonResourceMethod(method) : undefined;
  if (!m && nonResource === undefined) {
    sink.problem(line, `GKE entry with an unrecognised methodName ${JSON.stringify(method ?? null)}`);
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

/**
 * GKE LogEntry lines: skipped only when their methodName is one the parser would read as a
 * request kexp does not need (a resource method on another resource or a read, or a
 * non-resource method such as `io.k8s.get` of `/readyz`), so a line is classified the same
 * whether the prefilter or the parser decides — anywhere in the file. A line without a
 * methodName the prefilter can read (none, escaped, longer than 64 bytes) goes to the parser.
 */
function gkeLineFilter(allEvents: boolean): LineFilter {
  const methodKey = keyScanner('methodName');
  const responseKey = keyScanner('response');
  const any = () => true;
  return (buf, start, end) => {
    let p = start;
    while (p < end && (buf[p] === 32 || buf[p] === 9)) p++;
    if (buf[p] !== 123 || !endsWithBrace(buf, start, end)) return true;
    const v = findStringValue(buf, start, end, methodKey, false, any);
    if (v === undefined) return true;
    const m = parseGkeMethod(v);
    if (m === undefined) return parseGkeNonResourceMethod(v) === undefined;
    if (!RESOURCE_NAMES.has(m.resource) || !WRITE_VERBS.has(m.verb)) return false;
    if (!allEvents && m.resource === 'events') return mentionsOwner(buf, start, end);
    // A node write is read only with its response body (audit/relevance.ts nodeWriteIsRelevant).
    if (m.resource === 'nodes') return responseKey.find(buf, start, end) >= 0;
    return true;
  };
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
