/**
 * `openAuditSource`: one apiserver audit input (file, `.gz`, or stdin) → a stageTimestamp-ordered
 * stream of TimelineEvents for the ReplicaSet controller model (merging several apiservers'
 * files is another module's job).
 *
 * - A `write` event for every create/update/patch/delete/deletecollection on pods (incl.
 *   status/binding/eviction/… subresources, not exec/attach/portforward/proxy/log),
 *   replicasets (incl. status), events (core; by default only those about a ReplicaSet or made
 *   by the RS controller — see `allEvents`), namespaces, resourcequotas and deployments.
 * - Additionally an `observed` event when a successful write carries its resulting object
 *   (RequestResponse level): ADDED for create, MODIFIED for update/patch, and for delete
 *   MODIFIED while the object lives on (graceful deletion: `deletionTimestamp` + grace > 0,
 *   finalizers, namespace `spec.finalizers`, HTTP 202) or DELETED when it is gone (immediate
 *   delete returning the final object, or a `Status` response → the last object seen in this
 *   log, or a stub from objectRef).
 * - Stages (input-formats.md §1.2): ResponseComplete and Panic are the records; a
 *   RequestReceived/ResponseStarted whose auditID never completes in the file is reported as
 *   incomplete at the end. Only auditIDs of relevant writes are remembered (bounded).
 *
 * Output order: events are released through a bounded reorder window (2 s of stageTimestamp
 * by default) because audit files are only nearly ordered (each request is logged when it
 * completes). JSON-array / pretty-printed / YAML inputs (exports such as `gcloud logging read`,
 * which is newest-first) are sorted completely. Anything later than the window is released
 * out of order and counted (`outOfOrder`).
 */
import type { Readable } from 'node:stream';
import type { ObservedEvent, StatusCause, TimelineEvent, WriteEvent } from '../../timeline/event.js';
import { InputError, type Diagnostics, type FileCoverage, type OpenedSource } from '../source.js';
import { binaryKind } from '../binary-data.js';
import { isRecord } from '../../model/objects.js';
import { actorOf, BoundedMap, PodOwnerTracker, type AuditActor, type PodOwnership } from './attribution.js';
import { InputReader, JsonValueSplitter, type Line } from './line-reader.js';
import { endsWithBrace, findStringValue, keyScanner, NeedleScanner, type LineFilter } from './line-filter.js';
import { AuditNormaliser, classifyValue, CLOUDWATCH_LINE_RE, CRI_RE, KLOG_RE, LEGACY_AUDIT_RE, parseGkeMethod, parseGkeNonResourceMethod } from './normalise.js';
import { parseMicroTime } from './micro-time.js';
import { AUDIT_API_VERSIONS, type AuditLevel, type AuditRecord, type AuditStage } from './record.js';
import { LineCounter, parseAllDocuments } from 'yaml';
import { ReorderBuffer } from './reorder.js';
import { LineAccount, type LineAccountCounts } from './line-account.js';
import { describeImplausible, isPlausibleTime, MAX_DEVIATION_MS, PlausibleTimeWindow } from '../../timeline/plausible-time.js';

/**
 * `cloudwatch-lines`: a CloudWatch Logs export, one `<ISO time> <audit JSON>` per line; `ecs`:
 * Elastic/OpenSearch documents or a search response; `loki`: `logcli --output=jsonl` lines.
 */
export type AuditFormat = 'audit-log' | 'audit-webhook' | 'audit-yaml' | 'gke' | 'eks' | 'aks' | 'ecs' | 'loki' | 'cloudwatch-lines';

export interface AuditSourceOptions {
  diagnostics: Diagnostics;
  /** Stream read when the path is `-` (default process.stdin). */
  stdin?: Readable;
  /** Epoch ms; events before it are not emitted (state is still learned from them). */
  since?: number;
  /** Epoch ms; events after it are not emitted. */
  until?: number;
  /** Reorder window in ms of stageTimestamp (default 2000). */
  reorderWindowMs?: number;
  /** Emit every core Event write, not only those about a ReplicaSet / by the RS controller. */
  allEvents?: boolean;
  /** Byte-level prefilter before JSON.parse (default true; false parses every line). */
  prefilter?: boolean;
  /** Longest line / JSON value kept (default 64 MiB). */
  maxLineBytes?: number;
  /** Largest whole document for YAML input (default 256 MiB). */
  maxDocumentBytes?: number;
  /** Problems passed to diagnostics per file before only counting (default 100). */
  maxProblemsShown?: number;
}

/** A write event with the audit-specific details kexp can use (a structural WriteEvent). */
export interface AuditWriteEvent extends WriteEvent {
  actor: AuditActor;
  /** API group of the resource (`''` core, `apps`). */
  apiGroup: string;
  stage: 'ResponseComplete' | 'Panic';
  /** For pod writes: the controller owner (ReplicaSet, …), `none`, or `unknown`. */
  owner?: PodOwnership;
  annotations?: Record<string, string>;
}

export interface IncompleteRequest {
  line: number;
  auditID: string;
  stage: AuditStage;
  verb: string;
  resource: string;
  subresource?: string;
  namespace?: string;
  name?: string;
  at?: number;
}

/** Per-file facts for the report's input-coverage section. */
export interface AuditFileSummary {
  file: string;
  format: AuditFormat;
  compressed: boolean;
  apiVersions: string[];
  /**
   * Policy levels of the audit records kexp decoded (every record of a YAML/JSON document;
   * in JSON lines, the lines the byte prefilter let through — it decodes no others).
   */
  levels: AuditLevel[];
  /** Policy levels of the relevant records (what kexp could see of pods/RS writes). */
  relevantLevels: AuditLevel[];
  stages: Partial<Record<AuditStage, number>>;
  /** Epoch ms of the earliest / latest audit record read (incl. the file's last line). */
  start?: number;
  end?: number;
  /** Uncompressed bytes read. */
  bytes: number;
  /**
   * Units read: lines (JSON lines), top-level JSON values (pretty/array input) or YAML
   * documents, plus regions of text skipped between JSON values and a unit cut by damaged gzip
   * data. Always the sum of `lineAccount` (see line-account.ts).
   */
  linesRead: number;
  /** Every unit of `linesRead` in exactly one category. */
  lineAccount: LineAccountCounts;
  linesSkippedByPrefilter: number;
  /** Wrapped records (EKS/AKS) skipped by the prefilter without parsing. */
  recordsSkippedByPrefilter: number;
  malformedLines: number;
  linesTooLong: number;
  auditRecords: number;
  writeEvents: number;
  observedEvents: number;
  rsControllerWrites: number;
  /** Successful updates/patches whose result had the same resourceVersion as before (no watch event). */
  noopWrites: number;
  incomplete: { count: number; examples: IncompleteRequest[] };
  outOfOrder: { count: number; maxLateMs: number; firstLine?: number };
  /** Records deliberately skipped, by reason (non-audit messages, other AKS categories, …). */
  skipped: Record<string, number>;
  /** `audit.k8s.io/truncated` records (bodies removed by the apiserver). */
  truncatedRecords: number;
  problems: number;
  /** Problems counted but not passed to the diagnostics (beyond the first `maxShown`). */
  problemsNotShown: number;
}

export interface AuditCoverage extends FileCoverage {
  audit: AuditFileSummary;
}

export interface AuditOpenedSource extends OpenedSource {
  coverage(): AuditCoverage;
  summary(): AuditFileSummary;
}

// ---------------------------------------------------------------------------------------
// What is relevant.

const WRITE_VERBS = new Set(['create', 'update', 'patch', 'delete', 'deletecollection']);

interface ResourceInfo {
  groups: readonly string[];
  /** Kind of the ObservedEvent produced from its bodies, when the model consumes it. */
  observed?: 'Pod' | 'ReplicaSet' | 'Event' | 'Namespace';
  kind: string;
}

const RESOURCES: Record<string, ResourceInfo> = {
  pods: { groups: [''], observed: 'Pod', kind: 'Pod' },
  replicasets: { groups: ['apps', 'extensions'], observed: 'ReplicaSet', kind: 'ReplicaSet' },
  events: { groups: [''], observed: 'Event', kind: 'Event' },
  namespaces: { groups: [''], observed: 'Namespace', kind: 'Namespace' },
  resourcequotas: { groups: [''], kind: 'ResourceQuota' },
  deployments: { groups: ['apps', 'extensions'], kind: 'Deployment' },
};
const RESOURCE_NAMES = new Set(Object.keys(RESOURCES));
const STAGE_NAMES = new Set(['RequestReceived', 'ResponseStarted', 'ResponseComplete', 'Panic']);
/** Pod subresources that are not writes to the pod object. */
const NON_WRITE_POD_SUBRESOURCES = new Set(['exec', 'attach', 'portforward', 'proxy', 'log']);

// ---------------------------------------------------------------------------------------
// Prefilters (byte level, inside the line; see line-filter.ts). They may let through lines
// the semantic check then drops, never the other way round.

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
const RS_NEEDLE = Buffer.from('eplica');
function mentionsReplicaSet(buf: Buffer, start: number, end: number): boolean {
  const line = buf.subarray(start, end);
  for (let i = line.indexOf(RS_NEEDLE); i >= 0; i = line.indexOf(RS_NEEDLE, i + 6)) {
    // eplicaSet / eplicaset
    if ((line[i + 6] === 83 || line[i + 6] === 115) && line[i + 7] === 101 && line[i + 8] === 116 && (line[i - 1] === 82 || line[i - 1] === 114)) return true;
  }
  return false;
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
  for (let k = 0; k < b.length; k++) if (buf[p + k] !== b[k]) return false;
  return true;
}

/**
 * Prefilter for lines holding native audit JSON: `escaped` when the audit events are
 * JSON-encoded strings inside a wrapper (EKS/AKS); `oneRecordPerLine` when each line is a
 * single audit event (log backend), which lets the objectRef's resource decide alone.
 *
 * A line is only skipped when it looks like what it should be: for the log backend, an audit
 * Event of a known apiVersion with a stage and a verb (and, for a write, an objectRef); for
 * webhook batches, an EventList with an items list. Anything else goes to the parser, which
 * reports it (a malformed or foreign line must never pass silently as "not relevant"). Lines
 * in the apiserver's own encoding are recognised by their first bytes, so this costs nothing
 * on the fast path.
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
      // Only Events about a ReplicaSet or by the RS controller are kept. A line holding several
      // records (webhook batch, EKS/AKS wrapper) is also kept for another relevant resource.
      if (!oneRecordPerLine && findStringValue(buf, start, end, resourceKey, escaped, isOtherResource) !== undefined) return true;
      return mentionsReplicaSet(buf, start, end);
    }
    return true;
  };
}

/**
 * GKE LogEntry lines: skipped only when their methodName is one the parser would read as a
 * request kexp does not need (a resource method on another resource or a read, or a
 * non-resource method such as `io.k8s.get` of `/readyz`), so a line is classified the same
 * whether the prefilter or the parser decides — anywhere in the file. A line without a
 * methodName the prefilter can read (none, escaped, longer than 64 bytes) goes to the parser.
 */
export function gkeLineFilter(allEvents: boolean): LineFilter {
  const methodKey = keyScanner('methodName');
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
    if (!allEvents && m.resource === 'events') return mentionsReplicaSet(buf, start, end);
    return true;
  };
}

/**
 * ECS documents, one per line (Filebeat output, an Elasticsearch/OpenSearch export, one search
 * hit per line): the audit Event's fields appear unescaped inside `kubernetes.audit`, so the
 * log-backend prefilter decides, less its fast path for the apiserver's own first bytes. A line
 * holding a whole search response (several hits) goes to the parser.
 */
export function ecsLineFilter(allEvents: boolean): LineFilter {
  const inner = auditLineFilter(false, allEvents, true);
  const hitsList = new NeedleScanner(Buffer.from('"hits":['));
  return (buf, start, end) => hitsList.find(buf, start, end) >= 0 || inner(buf, start, end);
}

/**
 * CloudWatch Logs export lines `<ISO-8601 time> <audit JSON>`: the log-backend prefilter on the
 * bytes after the time (its fast path included, the message is the apiserver's own line). A line
 * without the time prefix goes to the parser.
 */
export function cloudwatchLineFilter(allEvents: boolean): LineFilter {
  const inner = auditLineFilter(false, allEvents, true);
  return (buf, start, end) => {
    const json = cloudwatchMessageStart(buf, start, end);
    return json < 0 || inner(buf, json, end);
  };
}

/** Where the JSON starts after a CloudWatch export line's time prefix (`…Z {`), or -1. */
function cloudwatchMessageStart(buf: Buffer, start: number, end: number): number {
  // `2025-03-04T10:15:02.131Z ` is 25 bytes; offsets and long fractions allow a few more.
  const limit = Math.min(end - 1, start + 40);
  if (buf[start + 4] !== 45 || buf[start + 10] !== 84) return -1;
  for (let i = start + 19; i < limit; i++) if (buf[i] === 32) return buf[i + 1] === 123 ? i + 1 : -1;
  return -1;
}

const INNER_RESOURCE_RE = /"resource"\s*:\s*"(pods|replicasets|events|namespaces|resourcequotas|deployments)"/;
const INNER_VERB_RE = /"verb"\s*:\s*"(create|update|patch|delete|deletecollection)"/;

function innerFilter(allEvents: boolean): (json: string) => boolean {
  return (s) => {
    const m = INNER_RESOURCE_RE.exec(s);
    if (!m || !INNER_VERB_RE.test(s)) return false;
    if (!allEvents && m[1] === 'events') return s.includes('ReplicaSet') || s.includes('replicaset');
    return true;
  };
}

// ---------------------------------------------------------------------------------------

type Mode = 'lines' | 'values' | 'yaml';

interface Sniffed {
  mode: Mode;
  format?: AuditFormat;
  apiVersion?: string;
  firstAt?: number;
}

const PEEK_LINES = 20;
const PEEK_BYTES = 8 << 20;
/** A YAML stream starts with `---`, a directive, a comment, a `key:` line or a `- ` list item. */
const YAML_START_RE = /^(---|%YAML|#|"?[A-Za-z_][\w./-]*"?\s*:(\s|$)|- )/;

function rejectValue(file: string, line: number, what: string, hint: string): InputError {
  return new InputError(file, line, `this is ${what}, not an apiserver audit log; ${hint}`);
}

/**
 * Decides how to read the input from its first bytes; throws InputError for non-audit input.
 * Leading blank lines, any amount, are skipped first (counted, not kept: memory stays bounded,
 * and `base` keeps the line numbers of messages those of the file); archives and binary data
 * are named from the first bytes of content (binary-data.ts).
 */
async function sniff(reader: InputReader, file: string): Promise<Sniffed> {
  const skipped = await reader.skipLeadingBlankLines();
  if (!skipped.content) throw new InputError(file, 0, skipped.bytes === 0 ? 'input is empty: no audit events' : 'file contains only blank lines');
  /** Lines before the first line of `head`. */
  const base = skipped.lines;
  const { head, eof } = await reader.peek(PEEK_LINES, PEEK_BYTES);
  let ws = 0;
  while (ws < head.length && (head[ws] === 32 || head[ws] === 9 || head[ws] === 10 || head[ws] === 13)) ws++;
  const bin = binaryKind(head.subarray(ws));
  if (bin) throw new InputError(file, 0, `${bin}; not an apiserver audit log`);
  let text = head.toString('utf8');
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const firstNonWs = text.search(/\S/);
  if (firstNonWs < 0) {
    if (eof) throw new InputError(file, 0, 'input is empty: no audit events');
    return { mode: 'lines' };
  }
  const lines = text.split('\n');
  const firstIdx = lines.findIndex((l) => l.trim() !== '');
  const firstLine = lines[firstIdx]!.replace(/\r$/, '');
  const firstTrim = firstLine.trim();
  const c0 = text[firstNonWs];

  if (c0 === '[' || (c0 === '{' && firstTrim === '{')) return sniffValues(head, eof, file, base);

  if (c0 === '{') {
    // NDJSON: classify on the first parseable complete line.
    const complete = eof ? lines.length : lines.length - 1;
    let firstBad = 0;
    for (let i = firstIdx; i < complete && i < firstIdx + PEEK_LINES; i++) {
      const t = lines[i]!.trim();
      if (t === '') continue;
      let v: unknown;
      try {
        v = JSON.parse(t);
      } catch {
        firstBad ||= base + i + 1;
        continue;
      }
      const c = classifyValue(v);
      if (!c.audit) throw rejectValue(file, base + i + 1, c.what, c.hint);
      const s: Sniffed = { mode: 'lines', format: c.format };
      if (c.apiVersion) s.apiVersion = c.apiVersion;
      const at = firstTime(v);
      if (at !== undefined) s.firstAt = at;
      return s;
    }
    if (complete <= firstIdx) return { mode: 'lines' }; // one huge first line: decide when it is read
    // Not line-delimited after all (e.g. `{ "kind": …` pretty-printed)?
    try {
      return sniffValues(head, eof, file, base);
    } catch (e) {
      if (e instanceof InputError && e.line === 0) {
        throw new InputError(file, firstBad, 'not an audit log: the first lines are not valid JSON');
      }
      throw e;
    }
  }

  // Text.
  const cw = CLOUDWATCH_LINE_RE.exec(firstLine);
  if (cw) {
    // A CloudWatch Logs export: the time CloudWatch stamped, then the message (the audit JSON).
    const s: Sniffed = { mode: 'lines', format: 'cloudwatch-lines' };
    let v: unknown;
    try {
      v = JSON.parse(firstLine.slice(cw[0].length));
    } catch {
      return s; // a first message longer than the peek, or damaged: the reader reports it
    }
    const c = classifyValue(v);
    if (!c.audit || c.format !== 'audit-log') {
      throw rejectValue(file, base + firstIdx + 1, `a CloudWatch Logs export of ${c.audit ? `${c.format} documents` : c.what}`, 'expected one audit event per line after the time');
    }
    if (c.apiVersion) s.apiVersion = c.apiVersion;
    const at = firstTime(v);
    if (at !== undefined) s.firstAt = at;
    return s;
  }
  if (KLOG_RE.test(firstLine)) throw rejectValue(file, base + firstIdx + 1, 'a klog text log (kube-controller-manager or another component)', 'read it with `kexp kcm-log`');
  const cri = CRI_RE.exec(firstLine);
  if (cri) {
    const inner = firstLine.slice(cri[0].length);
    if (KLOG_RE.test(inner)) throw rejectValue(file, base + firstIdx + 1, 'a container log (CRI format) of a klog component', 'read it with `kexp kcm-log`');
    throw new InputError(
      file,
      base + firstIdx + 1,
      "this is a container log (CRI format `<time> stdout F <line>`); strip the prefix first, e.g. `cut -d' ' -f4- FILE | kexp audit -`",
    );
  }
  if (LEGACY_AUDIT_RE.test(firstLine)) {
    throw new InputError(
      file,
      base + firstIdx + 1,
      'this is the legacy text audit format (--audit-log-format=legacy), which has no bodies or status details; configure --audit-log-format=json',
    );
  }
  if (YAML_START_RE.test(firstLine)) return { mode: 'yaml', format: 'audit-yaml' };
  throw new InputError(file, base + firstIdx + 1, `not an audit log: the first line is neither JSON nor YAML (${JSON.stringify(firstTrim.slice(0, 60))})`);
}

/** A short printable description of a bad line: quoted text, or "binary data" (never raw bytes). */
function sample(t: string): string {
  const s = t.slice(0, 60);
  let bad = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0 || c === 0xfffd || (c < 32 && c !== 9) || c === 127) bad++;
  }
  if (bad * 10 > s.length || s.includes('\0')) return `binary data, ${Buffer.byteLength(t)} bytes`;
  return JSON.stringify(s);
}

function sniffValues(head: Buffer, eof: boolean, file: string, base: number): Sniffed {
  const splitter = new JsonValueSplitter(PEEK_BYTES * 2, undefined, undefined, undefined, undefined, base + 1);
  const vals = splitter.push(head);
  if (eof) vals.push(...splitter.end());
  for (const v of vals.slice(0, PEEK_LINES)) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(v.text);
    } catch {
      continue;
    }
    const c = classifyValue(parsed);
    if (!c.audit) throw rejectValue(file, v.no, c.what, c.hint);
    const s: Sniffed = { mode: 'values', format: c.format };
    if (c.apiVersion) s.apiVersion = c.apiVersion;
    return s;
  }
  if (!eof && vals.length === 0) return { mode: 'values' }; // first value > 8 MiB: decide when read
  throw new InputError(file, 0, 'not an audit log: no complete JSON value could be parsed at the start');
}

/** The time of the first record in a value, whatever its wrapper (nothing is reported). */
function firstTime(v: unknown): number | undefined {
  const recs: AuditRecord[] = [];
  new AuditNormaliser({ problem: () => undefined, skipped: () => undefined }).fromValue(v, 0, recs);
  return recs.find((r) => r.stageAt !== undefined)?.stageAt;
}

const STAGE_TS_RE = /"stageTimestamp"\s*:\s*"([^"]+)"/;
/** The same inside a JSON-encoded string (Loki `line`, EKS `message`, AKS `properties.log`). */
const ESCAPED_STAGE_TS_RE = /\\"stageTimestamp\\"\s*:\s*\\"([^"\\]+)\\"/;
/** A request URI of a resource (not `/api`, `/apis/<group>/<version>` discovery or a non-resource path). */
const RESOURCE_URI_RE = /^\/(api\/[^/?]+|apis\/[^/?]+\/[^/?]+)\/[^/?]/;
const V1BETA1_TS_RE = /"timestamp"\s*:\s*"([^"]+)"/;

// ---------------------------------------------------------------------------------------

interface ObjMemo {
  uid?: string;
  rv?: string;
  /**
   * Last object: full for ReplicaSets and Namespaces; for pods only what metadata-only
   * writes cannot carry (spec.nodeName, status.phase/conditions), to complete a
   * PartialObjectMetadata response (the garbage collector patches through the metadata client).
   */
  obj?: unknown;
}

/** The parts of a pod the controller model reads outside metadata. */
function podRest(obj: unknown): unknown {
  if (!isRecord(obj)) return undefined;
  const spec = isRecord(obj.spec) ? { nodeName: obj.spec.nodeName } : undefined;
  const st = isRecord(obj.status) ? { phase: obj.status.phase, conditions: obj.status.conditions } : undefined;
  return { apiVersion: obj.apiVersion ?? 'v1', kind: 'Pod', spec, status: st };
}

/** True when a write's result is an object that no longer exists (deletion finished by it). */
function finishedDeletion(obj: unknown, kind: string): boolean {
  const meta = isRecord(obj) && isRecord(obj.metadata) ? obj.metadata : undefined;
  if (!meta || !meta.deletionTimestamp) return false;
  if (Array.isArray(meta.finalizers) && meta.finalizers.length > 0) return false;
  if (kind === 'Pod') return meta.deletionGracePeriodSeconds === 0;
  return kind === 'ReplicaSet';
}

type Obj = Record<string, unknown>;
function metaOf(o: unknown): Obj | undefined {
  return isRecord(o) && isRecord(o.metadata) ? o.metadata : undefined;
}
function s(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

/** Opens one audit input and sniffs its format. Throws InputError for unreadable / non-audit input. */
export async function openAuditSource(path: string, opts: AuditSourceOptions): Promise<AuditOpenedSource> {
  const diag = opts.diagnostics;
  const maxShown = opts.maxProblemsShown ?? 100;
  const allEvents = opts.allEvents ?? false;
  const usePrefilter = opts.prefilter ?? true;
  const since = opts.since ?? -Infinity;
  const until = opts.until ?? Infinity;

  const summary: AuditFileSummary = {
    file: path,
    format: 'audit-log',
    compressed: false,
    apiVersions: [],
    levels: [],
    relevantLevels: [],
    stages: {},
    bytes: 0,
    linesRead: 0,
    lineAccount: { relevant: 0, notRelevant: 0, malformed: 0, incomplete: 0, blank: 0, tooLong: 0, surroundingText: 0 },
    linesSkippedByPrefilter: 0,
    recordsSkippedByPrefilter: 0,
    malformedLines: 0,
    linesTooLong: 0,
    auditRecords: 0,
    writeEvents: 0,
    observedEvents: 0,
    rsControllerWrites: 0,
    noopWrites: 0,
    incomplete: { count: 0, examples: [] },
    outOfOrder: { count: 0, maxLateMs: 0 },
    skipped: {},
    truncatedRecords: 0,
    problems: 0,
    problemsNotShown: 0,
  };
  let emitted = 0;
  let suppressedNotice = false;
  const report = (line: number, message: string): void => {
    summary.problems++;
    if (summary.problems <= maxShown) diag.problem({ file: path, line, message });
    else summary.problemsNotShown++;
    if (summary.problems > maxShown && !suppressedNotice) {
      suppressedNotice = true;
      diag.warn(`${path}: more than ${maxShown} problems; the rest are only counted (see the input-coverage summary)`);
    }
  };
  // Every unit read is counted once (line-account.ts). `unit` is the unit being parsed: the
  // line number for JSON lines, a running number for JSON values and YAML documents (several
  // values may start on one line).
  const account = new LineAccount();
  let unit = 0;
  /** Units read that the reader does not count in `stats.lines` (skipped text, a line cut by damage). */
  let extraUnits = 0;
  /** Something in the unit being parsed could not be used: a problem, and the unit is malformed. */
  const problem = (line: number, message: string): void => {
    account.malformed(unit);
    report(line, message);
  };
  /** A record (possibly released after later units were parsed) could not be used. */
  const recProblem = (rec: AuditRecord, message: string): void => {
    account.malformed(rec.unit ?? rec.line);
    report(rec.line, message);
  };

  const reader = new InputReader(path, {
    ...(opts.stdin ? { stdin: opts.stdin } : {}),
    ...(opts.maxLineBytes ? { maxLineBytes: opts.maxLineBytes } : {}),
    onTooLong: (line, bytes) => report(line, `record of ${bytes} bytes is longer than the limit; skipped`),
    onStray: (line, text) => {
      extraUnits++;
      account.add('surroundingText');
      report(line, `text outside any JSON value (${sample(text)}); skipped up to the next value`);
    },
    onCut: (line) => {
      account.malformedUnread();
      report(line, 'truncated value: it breaks off before its closing brace; skipped');
    },
    onDamage: (line, message) => {
      extraUnits++;
      account.malformedUnread();
      report(line, message);
    },
  });
  const sniffed = await sniff(reader, path);
  summary.compressed = reader.stats.compressed;
  let format: AuditFormat | undefined = sniffed.format;
  if (format) summary.format = format;

  const apiVersions = new Set<string>();
  const levels = new Set<AuditLevel>();
  const relevantLevels = new Set<AuditLevel>();
  // The first record's time (sniffed; the prefilter may skip that line) joins the coverage at
  // the end, if it agrees with the times the records gave (see finish()).

  const normaliser = new AuditNormaliser(
    {
      problem,
      skipped: (reason) => {
        if (reason === 'prefilter') summary.recordsSkippedByPrefilter++;
        else summary.skipped[reason] = (summary.skipped[reason] ?? 0) + 1;
      },
    },
    usePrefilter ? { innerFilter: innerFilter(allEvents) } : {},
  );

  const setFilter = (f: AuditFormat | undefined): void => {
    if (!usePrefilter || sniffed.mode !== 'lines' || f === undefined) return;
    if (f === 'audit-log') reader.filter = auditLineFilter(false, allEvents, true);
    else if (f === 'audit-webhook') reader.filter = auditLineFilter(false, allEvents, false);
    else if (f === 'gke') reader.filter = gkeLineFilter(allEvents);
    else if (f === 'eks' || f === 'aks') reader.filter = auditLineFilter(true, allEvents, false);
    else if (f === 'loki') reader.filter = auditLineFilter(true, allEvents, true);
    else if (f === 'ecs') reader.filter = ecsLineFilter(allEvents);
    else if (f === 'cloudwatch-lines') reader.filter = cloudwatchLineFilter(allEvents);
  };
  setFilter(format);

  const window = opts.reorderWindowMs ?? 2000;
  // Exports that are whole documents / arrays are often not in time order (gcloud prints
  // newest first): sort them completely.
  const reorder = new ReorderBuffer<TimelineEvent>(sniffed.mode === 'lines' ? window : Infinity);
  const SORT_ALL_CAP = 2_000_000;

  const pending = new BoundedMap<string, IncompleteRequest>(100_000);
  const owners = new PodOwnerTracker();
  const objects = new BoundedMap<string, ObjMemo>(50_000);

  /** A time read outside the records (first/last line) counts when it is near the records' own. */
  const agreesWithCoverage = (at: number): boolean =>
    isPlausibleTime(at) && (summary.start === undefined || (at >= summary.start - MAX_DEVIATION_MS && at <= summary.end! + MAX_DEVIATION_MS));
  const noteTime = (at: number | undefined): void => {
    if (at === undefined) return;
    if (summary.start === undefined || at < summary.start) summary.start = at;
    if (summary.end === undefined || at > summary.end) summary.end = at;
  };

  /** Records (lines) with at least one event released out of order. */
  let lateRecords = 0;
  let lastLateLine = -1;
  const push = (ev: TimelineEvent): void => {
    if (ev.at < since || ev.at > until) return;
    const late = reorder.late;
    reorder.push(ev);
    if (reorder.late !== late && ev.source.line !== lastLateLine) {
      lastLateLine = ev.source.line;
      lateRecords++;
    }
  };

  // Implausible times (src/timeline/plausible-time.ts): a record whose stageTimestamp is far
  // from its neighbours' is a problem at its line and keeps its place in file order, timed by
  // its requestReceivedTimestamp when that one is plausible, else by the record before it.
  let lastDecidedAt: number | undefined;
  /** Units of the records the time window holds, oldest first (they are released in order). */
  const heldUnits: number[] = [];
  const timeWindow = new PlausibleTimeWindow<AuditRecord>((rec, at, bad) => {
    heldUnits.shift();
    if (bad) {
      const received = rec.requestReceivedAt;
      const usable = received !== undefined && isPlausibleTime(received) && (bad.around === undefined || Math.abs(received - bad.around) <= MAX_DEVIATION_MS);
      const fallback = usable ? received : lastDecidedAt;
      recProblem(
        rec,
        `${describeImplausible('stageTimestamp', bad)}; ${fallback === undefined ? 'skipped (no plausible time to place it at)' : usable ? 'timed by its requestReceivedTimestamp' : 'kept in file order at the previous record\'s time'}`,
      );
      if (fallback === undefined) return;
      at = fallback;
    }
    if (at !== undefined) {
      lastDecidedAt = at;
      rec.stageAt = at;
      // A requestReceivedTimestamp far from the decided time is as implausible: not used.
      if (rec.requestReceivedAt !== undefined && Math.abs(rec.requestReceivedAt - at) > MAX_DEVIATION_MS) {
        recProblem(rec, `${describeImplausible('requestReceivedTimestamp', { t: rec.requestReceivedAt, reason: 'far-from-neighbours', around: at }, 'its stageTimestamp')}; not used`);
        delete rec.requestReceivedAt;
      }
    }
    handleRecord(rec);
  });
  const takeRecord = (rec: AuditRecord): void => {
    rec.unit = unit;
    heldUnits.push(unit);
    timeWindow.push(rec, rec.stageAt);
  };

  const handleRecord = (rec: AuditRecord): void => {
    summary.auditRecords++;
    apiVersions.add(rec.apiVersion);
    if (rec.level) levels.add(rec.level);
    summary.stages[rec.stage] = (summary.stages[rec.stage] ?? 0) + 1;
    noteTime(rec.stageAt);
    const ref = rec.objectRef;
    const info = ref?.resource !== undefined ? RESOURCES[ref.resource] : undefined;
    let relevant =
      info !== undefined &&
      info.groups.includes(ref!.apiGroup) &&
      WRITE_VERBS.has(rec.verb) &&
      !(ref!.resource === 'pods' && ref!.subresource !== undefined && NON_WRITE_POD_SUBRESOURCES.has(ref!.subresource));
    if (relevant && ref!.resource === 'events' && !allEvents) relevant = eventIsAboutRs(rec);

    if (rec.stage === 'RequestReceived' || rec.stage === 'ResponseStarted') {
      if (relevant && rec.auditID !== undefined && !pending.has(rec.auditID)) {
        const p: IncompleteRequest = { line: rec.line, auditID: rec.auditID, stage: rec.stage, verb: rec.verb, resource: ref!.resource! };
        if (ref!.subresource) p.subresource = ref!.subresource;
        if (ref!.namespace) p.namespace = ref!.namespace;
        if (ref!.name) p.name = ref!.name;
        if (rec.stageAt !== undefined) p.at = rec.stageAt;
        pending.set(rec.auditID, p);
      }
      if (relevant) account.staged(rec.unit ?? rec.line);
      return;
    }
    if (rec.auditID !== undefined) pending.delete(rec.auditID);
    if (!relevant) {
      // A resource request always names its object: a write without objectRef is damaged.
      if (ref === undefined && WRITE_VERBS.has(rec.verb) && (rec.requestURI === undefined || RESOURCE_URI_RE.test(rec.requestURI))) {
        recProblem(rec, `audit event without objectRef${rec.requestURI !== undefined ? ` (requestURI ${JSON.stringify(rec.requestURI.slice(0, 100))})` : ''}; skipped`);
      } else if (rec.malformed?.startsWith('audit event whose objectRef') && WRITE_VERBS.has(rec.verb)) {
        // Damage that hides which object was written: relevance cannot be decided, so say it.
        recProblem(rec, `${rec.malformed}; skipped`);
      } else summary.skipped['not-relevant'] = (summary.skipped['not-relevant'] ?? 0) + 1;
      return;
    }
    // Fields a completed write needs: without them it would be taken for a failure or for
    // someone else's write.
    if (rec.malformed) {
      recProblem(rec, `${rec.malformed}; skipped`);
      return;
    }
    const st = rec.responseStatus;
    if (rec.stage === 'ResponseComplete' || st !== undefined) {
      if (st === undefined) {
        recProblem(rec, 'audit event without responseStatus; skipped');
        return;
      }
      const code = st.code as unknown;
      if (code === undefined && rec.stage === 'ResponseComplete') {
        recProblem(rec, 'audit event without responseStatus.code; skipped');
        return;
      }
      if (code !== undefined && (typeof code !== 'number' || !Number.isInteger(code) || code < 100 || code > 599)) {
        recProblem(rec, `audit event with invalid responseStatus.code ${JSON.stringify(code)}; skipped`);
        return;
      }
    }
    if (rec.level) relevantLevels.add(rec.level);
    if (rec.annotations?.['audit.k8s.io/truncated'] === 'true') summary.truncatedRecords++;
    const at = rec.stageAt;
    if (at === undefined) {
      recProblem(
        rec,
        rec.invalidTime !== undefined
          ? `audit event with invalid stageTimestamp ${rec.invalidTime}; skipped`
          : 'audit event without stageTimestamp or timestamp; skipped',
      );
      return;
    }
    account.relevant(rec.unit ?? rec.line);
    buildEvents(rec, at, info!);
  };

  const buildEvents = (rec: AuditRecord, at: number, info: ResourceInfo): void => {
    const ref = rec.objectRef!;
    const resource = ref.resource!;
    const st = rec.responseStatus ?? {};
    const code = typeof st.code === 'number' ? st.code : rec.stage === 'Panic' ? 500 : 0;
    const status: WriteEvent['status'] = { code };
    const reason = st.reason ?? (rec.stage === 'Panic' ? 'InternalError' : undefined);
    if (reason !== undefined) status.reason = reason;
    if (st.message !== undefined) status.message = st.message;
    const causes = st.details?.causes;
    if (Array.isArray(causes) && causes.length > 0) {
      status.causes = causes.map((c) => {
        const out: StatusCause = {};
        // metav1.StatusCause.Type serialises as `reason`.
        const type = c.reason ?? c.type;
        if (type !== undefined) out.type = type;
        if (c.message !== undefined) out.message = c.message;
        if (c.field !== undefined) out.field = c.field;
        return out;
      });
    }
    const success = code >= 200 && code < 300;
    const resp = rec.responseObject;
    const name = ref.name ?? (success && rec.verb === 'create' ? s(metaOf(resp)?.name) : undefined);
    const actor = actorOf(rec);
    const ev: AuditWriteEvent = {
      type: 'write',
      at,
      atBasis: 'audit-stage',
      source: { file: path, line: rec.line },
      actor,
      verb: rec.verb,
      resource,
      apiGroup: ref.apiGroup,
      stage: rec.stage as 'ResponseComplete' | 'Panic',
      status,
    };
    if (rec.auditID !== undefined) ev.auditID = rec.auditID;
    if (ref.subresource !== undefined) ev.subresource = ref.subresource;
    if (ref.namespace !== undefined) ev.namespace = ref.namespace;
    if (name !== undefined) ev.name = name;
    if (rec.requestReceivedAt !== undefined) ev.receivedAt = rec.requestReceivedAt;
    if (rec.level !== undefined) ev.level = rec.level;
    if (rec.requestObject !== undefined) ev.requestObject = rec.requestObject;
    if (resp !== undefined) ev.responseObject = resp;
    if (rec.annotations !== undefined) ev.annotations = rec.annotations;
    if (resource === 'pods') ev.owner = owners.observe(rec, success, name);
    summary.writeEvents++;
    push(ev);
    if (actor.replicaSetController && at >= since && at <= until) summary.rsControllerWrites++;

    if (!success || resp === undefined || info.observed === undefined) return;
    if (rec.requestURI !== undefined && /[?&]dryRun=/.test(rec.requestURI)) return;
    const kind = info.observed;
    const src = { file: path, line: rec.line };
    if (rec.verb === 'deletecollection') {
      const items = isRecord(resp) && Array.isArray(resp.items) ? resp.items : [];
      for (const item of items) {
        const wt = deleteOutcome(item, code, kind);
        if (wt) observe(kind, wt, item, at, src, ref.namespace);
      }
      return;
    }
    if (rec.verb === 'delete' && isStatus(resp)) {
      const d = isRecord(resp.details) ? resp.details : {};
      const key = objKey(kind, ref.namespace, ref.name ?? s(d.name));
      const last = objects.get(key);
      const stub = {
        apiVersion: kind === 'ReplicaSet' ? 'apps/v1' : 'v1',
        kind,
        metadata: { name: ref.name ?? s(d.name), namespace: ref.namespace, uid: s(d.uid) ?? last?.uid },
      };
      observe(kind, 'DELETED', last?.obj ?? stub, at, src, ref.namespace);
      return;
    }
    let body: unknown = resp;
    if (isRecord(resp) && resp.kind === 'PartialObjectMetadata' && isRecord(resp.metadata) && (kind === 'Pod' || kind === 'ReplicaSet')) {
      // A metadata-only write (garbage collector, other metadata clients): complete it with the
      // last full state seen; the metadata (owners, labels, finalizers, deletion) is what changed.
      const last = objects.get(objKey(kind, s(resp.metadata.namespace) ?? ref.namespace, s(resp.metadata.name)))?.obj;
      if (!isRecord(last)) return;
      body = { ...last, apiVersion: kind === 'Pod' ? 'v1' : 'apps/v1', kind, metadata: resp.metadata };
    } else if (!kindMatches(resp, kind)) {
      // A subresource write answers with another kind (a Scale, Binding or Eviction): not an
      // object state. A write to the resource itself (or its status) answering with another
      // kind is damaged.
      if ((ref.subresource === undefined || ref.subresource === 'status') && isRecord(resp) && isRecord(resp.metadata) && resp.kind !== 'Status') {
        recProblem(rec, `audit ${rec.verb} of ${resource} whose responseObject has kind ${JSON.stringify(resp.kind).slice(0, 60)}, not ${kind}; skipped`);
      }
      return;
    }
    let wt: 'ADDED' | 'MODIFIED' | 'DELETED' | undefined = rec.verb === 'create' ? 'ADDED' : rec.verb === 'delete' ? deleteOutcome(body, code, kind) : 'MODIFIED';
    if (wt === 'MODIFIED' && (rec.verb === 'update' || rec.verb === 'patch') && finishedDeletion(body, kind)) wt = 'DELETED';
    if (wt) observe(kind, wt, body, at, src, ref.namespace);
  };

  const observe = (
    kind: ResourceInfo['observed'] & string,
    watchType: 'ADDED' | 'MODIFIED' | 'DELETED',
    obj: unknown,
    at: number,
    source: { file: string; line: number },
    ns: string | undefined,
  ): void => {
    const meta = metaOf(obj) ?? {};
    const key = objKey(kind, s(meta.namespace) ?? ns, s(meta.name));
    const uid = s(meta.uid);
    const rv = s(meta.resourceVersion);
    const prev = objects.get(key);
    if (watchType === 'MODIFIED' && prev && rv !== undefined && prev.rv === rv && (prev.uid === undefined || prev.uid === uid)) {
      summary.noopWrites++; // no change stored, so no watch event either
      return;
    }
    if (watchType === 'DELETED') objects.delete(key);
    else {
      const memo: ObjMemo = {};
      if (uid !== undefined) memo.uid = uid;
      if (rv !== undefined) memo.rv = rv;
      // Full objects only for the few, small-numbered kinds whose delete answers with a Status.
      if (kind === 'ReplicaSet' || kind === 'Namespace') memo.obj = obj;
      else if (kind === 'Pod') memo.obj = podRest(obj);
      objects.set(key, memo);
    }
    const ev = { type: 'observed', at, atBasis: 'audit-stage', source, kind, watchType, object: obj } as ObservedEvent;
    summary.observedEvents++;
    push(ev);
  };

  let valueNo = 0;
  const handleText = (line: Line): void => {
    unit = sniffed.mode === 'lines' ? line.no : ++valueNo;
    account.parsed(unit);
    let text = line.no === 1 && line.text.charCodeAt(0) === 0xfeff ? line.text.slice(1) : line.text;
    if (format === 'cloudwatch-lines') {
      const cw = CLOUDWATCH_LINE_RE.exec(text);
      if (cw) text = text.slice(cw[0].length);
      else if (!text.trimStart().startsWith('{')) {
        problem(line.no, `not a CloudWatch export line \`<time> <audit JSON>\` (${sample(text.trim())}); skipped`);
        return;
      }
    }
    let v: unknown;
    try {
      v = JSON.parse(text);
    } catch (e) {
      const t = text.trim();
      if (line.unterminated) problem(line.no, 'truncated last record (the input ends without a newline inside it); skipped');
      else if (!t.startsWith('{') && !t.startsWith('[')) problem(line.no, `not JSON (${sample(t)}); skipped`);
      else if (sniffed.mode === 'lines' && t.startsWith('{') && !t.endsWith('}')) {
        problem(line.no, `truncated line: the record breaks off after ${Buffer.byteLength(line.text)} bytes (no closing brace); skipped`);
      } else problem(line.no, `malformed JSON (${(e as Error).message}); skipped`);
      return;
    }
    if (format === undefined) {
      // Sniffing could not decide from the first bytes (huge first record).
      const c = classifyValue(v);
      if (!c.audit) throw rejectValue(path, line.no, c.what, c.hint);
      format = c.format;
      summary.format = format;
      setFilter(format);
    }
    const recs: AuditRecord[] = [];
    normaliser.fromValue(v, line.no, recs);
    for (const r of recs) takeRecord(r);
  };

  // YAML is parsed as a whole when the source is opened, so a file that is neither JSON nor
  // audit YAML is rejected here rather than halfway through the stream.
  let yamlDocs: Array<{ line: number; value: unknown; unit: number }> = [];
  /** YAML documents read (units), empty ones included. */
  let yamlUnits = 0;
  if (sniffed.mode === 'yaml') {
    const buf = await reader.readAll(opts.maxDocumentBytes ?? 256 << 20);
    const lc = new LineCounter();
    const docs = parseAllDocuments(buf.toString('utf8'), { lineCounter: lc });
    const list = Array.isArray(docs) ? docs : [docs];
    let classified = false;
    for (const doc of list) {
      // The first line of the document's content (not its `---` marker).
      const line = lc.linePos(doc.contents?.range[0] ?? doc.range[0]).line;
      unit = ++valueNo;
      if (doc.errors.length > 0) {
        account.parsed(unit);
        const msg = doc.errors[0]!.message.split('\n')[0];
        if (!classified) throw new InputError(path, line, `not an audit log: neither JSON nor valid YAML (${msg})`);
        problem(line, `YAML: ${msg}`);
        continue;
      }
      const v: unknown = doc.toJS();
      if (v === null || v === undefined) {
        // An empty document (only comments, or `---` with nothing after it).
        account.add('blank');
        continue;
      }
      if (!classified) {
        const c = classifyValue(v);
        if (!c.audit) throw rejectValue(path, line, c.what, c.hint);
        classified = true;
      }
      yamlDocs.push({ line, value: v, unit });
    }
    if (!classified) throw new InputError(path, 0, 'not an audit log: the YAML holds no documents');
    yamlUnits = valueNo;
  }

  const readYaml = (): void => {
    for (const { line, value, unit: u } of yamlDocs) {
      unit = u;
      account.parsed(unit);
      const recs: AuditRecord[] = [];
      normaliser.fromValue(value, line, recs);
      for (const r of recs) takeRecord(r);
    }
    yamlDocs = [];
  };

  async function* events(): AsyncGenerator<TimelineEvent> {
    try {
      if (sniffed.mode === 'yaml') readYaml();
      else {
        const batches = sniffed.mode === 'lines' ? reader.lines() : reader.values();
        for await (const batch of batches) {
          for (const line of batch) {
            handleText(line);
            // No record of this unit or an earlier one can arrive once the window released it.
            account.settle(Math.min(unit + 1, heldUnits[0] ?? Infinity));
            for (let ev = reorder.popReady(); ev !== undefined; ev = reorder.popReady()) {
              emitted++;
              yield ev;
            }
          }
          if (reorder.windowMs === Infinity && reorder.size > SORT_ALL_CAP) {
            reorder.windowMs = window;
            diag.warn(`${path}: more than ${SORT_ALL_CAP} events buffered for sorting; continuing with a ${window} ms reorder window`);
          }
        }
      }
      timeWindow.flush();
      for (let ev = reorder.popReady(true); ev !== undefined; ev = reorder.popReady(true)) {
        emitted++;
        yield ev;
      }
      finish();
    } finally {
      reader.close();
    }
  }

  const finish = (): void => {
    const st = reader.stats;
    summary.compressed = st.compressed;
    summary.bytes = st.bytes;
    summary.linesSkippedByPrefilter = st.skippedByFilter;
    summary.linesTooLong = st.tooLong;
    // The file's last line is usually skipped by the prefilter: still count its time.
    const last = sniffed.mode === 'lines' ? reader.lastLineText() : undefined;
    if (last !== undefined) {
      const m = STAGE_TS_RE.exec(last) ?? ESCAPED_STAGE_TS_RE.exec(last) ?? V1BETA1_TS_RE.exec(last);
      const at = m ? parseMicroTime(m[1]) : undefined;
      if (at !== undefined && agreesWithCoverage(at)) noteTime(at);
    }
    if (sniffed.firstAt !== undefined && agreesWithCoverage(sniffed.firstAt)) noteTime(sniffed.firstAt);
    summary.apiVersions = [...apiVersions].sort();
    summary.levels = (['Metadata', 'Request', 'RequestResponse'] as const).filter((l) => levels.has(l));
    summary.relevantLevels = (['Metadata', 'Request', 'RequestResponse'] as const).filter((l) => relevantLevels.has(l));
    const examples = [...pending.values()].slice(0, 5);
    summary.incomplete = { count: pending.size + pending.evicted, examples };
    // The line account: units never parsed are counted from the reader's statistics.
    if (sniffed.mode === 'yaml') {
      summary.linesRead = yamlUnits + extraUnits;
    } else {
      account.add('blank', st.emptyLines);
      account.add('tooLong', st.tooLong);
      account.add('notRelevant', st.skippedByFilter);
      summary.linesRead = st.lines + extraUnits;
    }
    summary.lineAccount = { ...account.close(summary.incomplete.count) };
    summary.malformedLines = summary.lineAccount.malformed;
    if (summary.incomplete.count > 0) {
      const ex = examples
        .map((p) => `${path}:${p.line} ${p.stage} ${p.verb} ${p.resource}${p.subresource ? '/' + p.subresource : ''} ${p.namespace ? p.namespace + '/' : ''}${p.name ?? ''}`.trimEnd())
        .join('; ');
      diag.warn(
        `${path}: ${summary.incomplete.count} request(s) on pods/replicasets/… were received but never completed in this file ` +
          `(no ResponseComplete/Panic — apiserver restart or truncated log); e.g. ${ex}`,
      );
    }
    summary.outOfOrder = { count: reorder.late, maxLateMs: Math.round(reorder.maxLateMs) };
    if (reorder.firstLate) summary.outOfOrder.firstLine = reorder.firstLate.source.line;
    if (reorder.late > 0) {
      // maxBehindMs is measured against the newest record seen, so it is always above the window
      // (maxLateMs, in the summary, against the last one passed on).
      diag.warn(
        `${path}: ${reorder.late} event(s) were more than ${window} ms out of stageTimestamp order (up to ${Math.round(reorder.maxBehindMs)} ms; ` +
          `${lateRecords} record(s), first at line ${summary.outOfOrder.firstLine}); they were passed on late. Sort the file by stageTimestamp for an exact order.`,
      );
    }
    const nonAudit = (summary.skipped['klog-message'] ?? 0) + (summary.skipped['non-json-message'] ?? 0);
    if (nonAudit > 0) diag.warn(`${path}: ${nonAudit} wrapped message(s) were not audit events (e.g. kube-controller-manager log lines; read those with \`kexp kcm-log\`)`);
  };

  const source: AuditOpenedSource = {
    file: path,
    format: format ?? 'audit-log',
    timeBasis: 'audit-stage',
    events: events(),
    coverage(): AuditCoverage {
      const cov: AuditCoverage = {
        file: path,
        format: `audit:${summary.format}`,
        timeBasis: 'audit-stage',
        endMarker: false,
        events: emitted,
        problems: summary.problems,
        audit: summary,
      };
      if (summary.start !== undefined) cov.start = summary.start;
      if (summary.end !== undefined) cov.end = summary.end;
      return cov;
    },
    summary: () => summary,
  };
  return source;
}

/** A core Event write concerns the RS controller when it made it or the Event is about a ReplicaSet. */
function eventIsAboutRs(rec: AuditRecord): boolean {
  if (actorOf(rec).replicaSetController) return true;
  for (const body of [rec.requestObject, rec.responseObject]) {
    if (!isRecord(body)) continue;
    const io = isRecord(body.involvedObject) ? body.involvedObject : isRecord(body.regarding) ? body.regarding : undefined;
    if (io && io.kind === 'ReplicaSet') return true;
  }
  return false;
}

function objKey(kind: string, ns: string | undefined, name: string | undefined): string {
  return `${kind}/${ns ?? ''}/${name ?? ''}`;
}

function isStatus(o: unknown): o is Obj {
  return isRecord(o) && o.kind === 'Status';
}

function kindMatches(o: unknown, kind: string): boolean {
  if (!isRecord(o) || !isRecord(o.metadata)) return false;
  return o.kind === undefined || o.kind === kind;
}

/**
 * What a watcher sees after a delete that returned the object: MODIFIED while it lives on
 * (graceful deletion pending, finalizers, namespace finalizers, 202 Accepted), DELETED
 * when the response is the object's final state (grace 0 / no graceful strategy).
 */
function deleteOutcome(o: unknown, code: number, kind: string): 'MODIFIED' | 'DELETED' | undefined {
  if (!isRecord(o) || !isRecord(o.metadata)) return undefined;
  if (o.kind !== undefined && o.kind !== kind) return undefined;
  if (code === 202) return 'MODIFIED';
  const m = o.metadata;
  if (Array.isArray(m.finalizers) && m.finalizers.length > 0) return 'MODIFIED';
  if (kind === 'Namespace') {
    const spec = isRecord(o.spec) ? o.spec : {};
    if (Array.isArray(spec.finalizers) && spec.finalizers.length > 0) return 'MODIFIED';
  }
  const grace = m.deletionGracePeriodSeconds;
  if (m.deletionTimestamp && typeof grace === 'number' && grace > 0) return 'MODIFIED';
  return 'DELETED';
}
