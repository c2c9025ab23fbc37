/**
 * The audit reader's byte prefilters: which JSON lines of an audit log are worth parsing,
 * decided from the raw bytes (line-filter.ts) by the objectRef's resource, the verb, the stage
 * and the apiVersion — for the log backend's one Event per line, webhook batches, and audit
 * events JSON-encoded inside an envelope's string fields (`escaped`). Envelopes build their own
 * filters from these (src/sources/envelope).
 *
 * Contract: a filter may let through lines the semantic check (relevance.ts, audit-source.ts)
 * then drops, never the other way round; a line that is damaged or not what the format should
 * hold goes to the parser, which reports it.
 * Cost: the hot path of `kexp audit`. On the apiserver's own encoding one needle scan finds the
 * objectRef's resource right after the Event's fixed first bytes, so an irrelevant line costs a
 * scan of its first bytes and no allocation; other layouts scan for each key once per line.
 */
import { AUDIT_API_VERSIONS } from './record.js';
import { endsWithBrace, findStringValue, keyScanner, NeedleScanner, type LineFilter } from './line-filter.js';
import { RESOURCE_NAMES, RESOURCES, WRITE_VERBS } from './relevance.js';

const STAGE_NAMES = new Set(['RequestReceived', 'ResponseStarted', 'ResponseComplete', 'Panic']);
const RESOURCE_VALUES = Object.keys(RESOURCES).map((r) => ({ name: r, bytes: Buffer.from(`${r}"`) }));

/** Which of `values` (`name"`) starts at `buf[p]`, without decoding. */
function matchValue(buf: Buffer, p: number, end: number, values: ReadonlyArray<{ name: string; bytes: Buffer }>): string | undefined {
  next: for (const v of values) {
    const b = v.bytes;
    if (p + b.length > end) continue;
    for (let k = 0; k < b.length; k++) if (buf[p + k] !== b[k]) continue next;
    return v.name;
  }
  return undefined;
}

/** `ReplicaSet` (involvedObject.kind) and `replicaset` (RS controller user / user agent) share `eplica`. */
const RS_NEEDLE = new NeedleScanner(Buffer.from('eplica'));
export function mentionsReplicaSet(buf: Buffer, start: number, end: number): boolean {
  const line = buf.subarray(start, end);
  for (let i = RS_NEEDLE.indexIn(line, 0); i >= 0; i = RS_NEEDLE.indexIn(line, i + 6)) {
    // eplicaSet / eplicaset
    if ((line[i + 6] === 83 || line[i + 6] === 115) && line[i + 7] === 101 && line[i + 8] === 116 && (line[i - 1] === 82 || line[i - 1] === 114)) return true;
  }
  return false;
}

/**
 * `DaemonSet"` (an involvedObject's kind, the value's closing quote right after it: inside a
 * message the quote would be escaped) and `daemon-set-controller` (the DaemonSet controller's
 * user / user agent) share `aemon`. `escaped`: the audit event is a JSON-encoded string inside an
 * envelope (EKS, AKS, Loki), where the kind's own closing quote is `\"` and a message's `\\\"`.
 */
const DS_NEEDLE = new NeedleScanner(Buffer.from('aemon'));
const DS_KIND_TAIL = Buffer.from('Set"');
const DS_ESCAPED_KIND_TAIL = Buffer.from('Set\\"');
const DS_CLIENT_TAIL = Buffer.from('-set-controller');
export function mentionsDaemonSet(buf: Buffer, start: number, end: number, escaped = false): boolean {
  const line = buf.subarray(start, end);
  const kindTail = escaped ? DS_ESCAPED_KIND_TAIL : DS_KIND_TAIL;
  for (let i = DS_NEEDLE.indexIn(line, 0); i >= 0; i = DS_NEEDLE.indexIn(line, i + 5)) {
    if (line[i - 1] === 68 && startsWith(line, i + 5, kindTail)) return true; // DaemonSet" (DaemonSet\" escaped)
    if (line[i - 1] === 100 && startsWith(line, i + 5, DS_CLIENT_TAIL)) return true; // daemon-set-controller
  }
  return false;
}

/**
 * `"Job"` — an involvedObject's (or regarding's) kind, the whole value: `CronJob"` or a message's
 * `Job` is not it; `escaped` (inside an envelope's JSON-encoded string) its closing quote is `\"`
 * and a message's `\\\"` — and `job-controller` after `:` or `/`, how the Job controller's user
 * (its service account) and user agent end (`cronjob-controller` is another client). The semantic
 * check (relevance.ts eventIsAboutOwner) reads the same two things decoded, so no Event about a Job
 * or by the Job controller is skipped here.
 */
const JOB_KIND = Buffer.from('Job');
const JOB_CLIENT = Buffer.from('job-controller');
export function mentionsJob(buf: Buffer, start: number, end: number, escaped = false): boolean {
  const line = buf.subarray(start, end);
  for (let i = line.indexOf(JOB_KIND); i >= 0; i = line.indexOf(JOB_KIND, i + 3)) {
    if (line[i - 1] !== 34) continue;
    if (escaped ? line[i + 3] === 92 && line[i + 4] === 34 : line[i + 3] === 34) return true; // "Job" (\"Job\" escaped)
  }
  for (let i = line.indexOf(JOB_CLIENT); i >= 0; i = line.indexOf(JOB_CLIENT, i + 14)) {
    if (line[i - 1] === 58 || line[i - 1] === 47) return true; // :job-controller or /job-controller
  }
  return false;
}

/** An Event line that may concern a modelled controller: about (or by the controller of) a ReplicaSet, a DaemonSet or a Job. */
export function mentionsOwner(buf: Buffer, start: number, end: number, escaped = false): boolean {
  return mentionsReplicaSet(buf, start, end) || mentionsDaemonSet(buf, start, end, escaped) || mentionsJob(buf, start, end, escaped);
}

/** How the apiserver's log backend starts every line: `{"kind":"Event","apiVersion":"audit.k8s.io/v1`. */
const EVENT_HEAD = Buffer.from('{"kind":"Event","apiVersion":"audit.k8s.io/v1');
const BETA1 = Buffer.from('beta1"');
const ALPHA1 = Buffer.from('alpha1"');

/** The line (from `p`, its `{`) starts like the apiserver writes a v1/v1beta1/v1alpha1 audit Event. */
function hasEventHead(buf: Buffer, p: number, end: number): boolean {
  const n = EVENT_HEAD.length;
  if (end - p < n + 8) return false;
  for (let k = 0; k < n; k++) if (buf[p + k] !== EVENT_HEAD[k]) return false;
  const q = p + n;
  if (buf[q] === 34) return true;
  return startsWith(buf, q, BETA1) || startsWith(buf, q, ALPHA1);
}

function startsWith(buf: Buffer, p: number, b: Buffer): boolean {
  if (p + b.length > buf.length) return false;
  for (let k = 0; k < b.length; k++) if (buf[p + k] !== b[k]) return false;
  return true;
}

/**
 * Prefilter for lines holding native audit JSON: `escaped` when the audit events are
 * JSON-encoded strings inside a wrapper (EKS/AKS); `oneRecordPerLine` when each line is a
 * single audit event (log backend), which lets the objectRef's resource decide alone.
 *
 * A line is only skipped when it looks like what it should be: for the log backend, an audit
 * Event of a known apiVersion whose objectRef, in the apiserver's own field order
 * (`"objectRef":{"resource":"…"`), names a resource kexp does not read — or, off that layout, one
 * with a stage and a verb (and, for a write, an objectRef); for webhook batches, an EventList with
 * an items list. Anything else goes to the parser, which reports it (a malformed or foreign line
 * must never pass silently as "not relevant"). On the fast path a record of a resource kexp never
 * reads is not checked further: one of them missing its stage or verb is skipped unreported, as
 * nothing of it would be read (test/sources/audit-prefilter-differential.test.ts compares the
 * events with and without the prefilter). Lines in the apiserver's own encoding are recognised by
 * their first bytes, so this costs nothing on the fast path.
 */
export function auditLineFilter(escaped: boolean, allEvents: boolean, oneRecordPerLine = !escaped): LineFilter {
  // Fast path for the apiserver's own encoding (Go field order): `"objectRef":{"resource":"…"` —
  // a long needle (quicker to scan for) that lands right on the value, once per line.
  const native = oneRecordPerLine && !escaped;
  const canonical = native ? new NeedleScanner(Buffer.from('"objectRef":{"resource":"')) : undefined;
  const resourceKey = keyScanner('resource', escaped);
  const anchor = oneRecordPerLine ? Buffer.from(escaped ? '\\"objectRef\\":{' : '"objectRef":{') : undefined;
  const verbKey = keyScanner('verb', escaped);
  const stageKey = keyScanner('stage');
  const apiVersionKey = keyScanner('apiVersion');
  const objectRefKey = keyScanner('objectRef');
  const objectRefObject = new NeedleScanner(Buffer.from('"objectRef":{'));
  const itemsKey = new NeedleScanner(Buffer.from('"items":['));
  const responseObjectKey = keyScanner('responseObject', escaped);
  // A body (its key as the format writes it: escaped inside an envelope's string) or the controller's client name.
  const bodyKeys = [keyScanner('requestObject', escaped), responseObjectKey];
  const rcEvidence = [...bodyKeys, new NeedleScanner(Buffer.from('replication-controller'))];
  const dsEvidence = [...bodyKeys, new NeedleScanner(Buffer.from('daemon-set-controller'))];
  const jobEvidence = [...bodyKeys, new NeedleScanner(JOB_CLIENT)];
  const mayShow = (needles: readonly NeedleScanner[], buf: Buffer, start: number, end: number) => needles.some((n) => n.find(buf, start, end) >= 0);
  const isResource = (v: string) => RESOURCE_NAMES.has(v);
  const isOtherResource = (v: string) => v !== 'events' && RESOURCE_NAMES.has(v);
  const isWrite = (v: string) => WRITE_VERBS.has(v);
  const isStage = (v: string) => STAGE_NAMES.has(v);
  const isAuditVersion = (v: string) => AUDIT_API_VERSIONS.has(v);
  const any = () => true;
  /**
   * The line is not relevant: skip it (false) when it has the shape of an audit event / batch,
   * else let the parser report it (true).
   */
  const irrelevant = (buf: Buffer, start: number, end: number, head: boolean, checkedRef: boolean): boolean => {
    if (escaped) return false;
    if (!native) return itemsKey.find(buf, start, end) < 0;
    if (!head && findStringValue(buf, start, end, apiVersionKey, false, isAuditVersion) === undefined) return true;
    if (checkedRef) return false;
    if (findStringValue(buf, start, end, stageKey, false, isStage) === undefined) return true;
    const verb = findStringValue(buf, start, end, verbKey, false, any);
    if (verb === undefined) return true;
    if (!WRITE_VERBS.has(verb)) return false;
    // A write without objectRef: a resource request must have one (the parser decides from requestURI).
    if (objectRefKey.find(buf, start, end) < 0) return true;
    // An objectRef that is not an object (damage): the parser reports it.
    if (objectRefObject.find(buf, start, end) < 0) return true;
    // A write whose objectRef.resource is not a string (damage): the parser reports it. Only
    // lines off the canonical layout get here, so the fast path pays nothing.
    return resourceKey.find(buf, start, end) >= 0 && findStringValue(buf, start, end, resourceKey, false, any) === undefined;
  };
  return (buf, start, end) => {
    // A line that cannot be a JSON object, or was cut short, goes to the parser, which reports it (cheap checks).
    let p = start;
    while (p < end && (buf[p] === 32 || buf[p] === 9)) p++;
    if (buf[p] !== 123 || !endsWithBrace(buf, start, end)) return true;
    const head = native && hasEventHead(buf, p, end);
    let r: string | undefined;
    const c = canonical?.find(buf, start, end) ?? -1;
    if (c >= 0) {
      r = matchValue(buf, c + canonical!.needle.length, end, RESOURCE_VALUES);
      if (r === undefined) return irrelevant(buf, start, end, head, true);
    } else {
      r = findStringValue(buf, start, end, resourceKey, escaped, isResource, anchor);
      if (r === undefined) return irrelevant(buf, start, end, head, false);
    }
    if (findStringValue(buf, start, end, verbKey, escaped, isWrite) === undefined) {
      // Not a write — or no verb at all, which the parser reports.
      if (!native) return false;
      return findStringValue(buf, start, end, verbKey, false, any) === undefined || irrelevant(buf, start, end, head, true);
    }
    if (!allEvents && r === 'events') {
      // Only Events about a ReplicaSet or a DaemonSet, or by their controllers, are kept. A line
      // holding several records (webhook batch, EKS/AKS wrapper) is also kept for another relevant resource.
      if (!oneRecordPerLine && findStringValue(buf, start, end, resourceKey, escaped, isOtherResource) !== undefined) return true;
      return mentionsOwner(buf, start, end, escaped);
    }
    // A node write is read only with its response body (relevance.ts nodeWriteIsRelevant): the
    // kubelet's body-less status heartbeats are skipped here, unparsed, as before nodes were read.
    if (r === 'nodes' && oneRecordPerLine) return responseObjectKey.find(buf, start, end) >= 0;
    // Writes to replicationcontrollers matter with an object body or by the RC controller
    // (relevance.ts rcWriteIsRelevant); a body-less sweep by another client is not decoded.
    if (r === 'replicationcontrollers' && oneRecordPerLine) return mayShow(rcEvidence, buf, start, end);
    // The same for daemonsets (relevance.ts dsWriteIsRelevant).
    if (r === 'daemonsets' && oneRecordPerLine) return mayShow(dsEvidence, buf, start, end);
    // And for jobs (relevance.ts jobWriteIsRelevant): a body, or the Job controller's client name.
    if (r === 'jobs' && oneRecordPerLine) return mayShow(jobEvidence, buf, start, end);
    return true;
  };
}

const INNER_RESOURCE_RE = /"resource"\s*:\s*"(pods|replicasets|daemonsets|jobs|nodes|events|namespaces|resourcequotas|deployments)"/;
const INNER_VERB_RE = /"verb"\s*:\s*"(create|update|patch|delete|deletecollection)"/;

/**
 * The test on a wrapped audit event's JSON text (EKS `message`, AKS `properties.log`, Loki
 * `line`) before it is parsed (normalise.ts `innerFilter`): a write to a relevant resource.
 */
export function innerFilter(allEvents: boolean): (json: string) => boolean {
  return (s) => {
    const m = INNER_RESOURCE_RE.exec(s);
    if (!m || !INNER_VERB_RE.test(s)) return false;
    if (!allEvents && m[1] === 'events') return s.includes('ReplicaSet') || s.includes('replicaset') || s.includes('DaemonSet') || s.includes('daemon-set-controller') || s.includes('"Job"') || s.includes('job-controller');
    if (m[1] === 'nodes') return s.includes('"responseObject"');
    return true;
  };
}
