/**
 * `openAuditSource`: one apiserver audit input (file, `.gz`, or stdin) → a stageTimestamp-ordered
 * stream of TimelineEvents for the ReplicaSet controller model (merging several apiservers'
 * files is another module's job).
 *
 * - A `write` event for every create/update/patch/delete/deletecollection on pods (incl.
 *   status/binding/eviction/… subresources, not exec/attach/portforward/proxy/log),
 *   replicasets, replicationcontrollers, daemonsets and jobs (incl. status), events (core; by
 *   default only those about a modelled owner or made by its controller — see `allEvents`),
 *   namespaces, resourcequotas and deployments (relevance.ts); nodes only as observations.
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
 *
 * Reading, in this order: sniff.ts decides how the input is split (lines, values, YAML) and
 * its format; the reader (line-reader.ts) skips irrelevant lines by their bytes with the
 * format's prefilter (prefilter.ts, or the envelope's own); a line envelope (CloudWatch export
 * lines) is opened before the line is parsed; normalise.ts turns each parsed value — native or
 * in a document envelope (src/sources/envelope) — into audit records, which are timed
 * (plausible-time), checked for relevance (relevance.ts) and turned into events here.
 */
import type { Readable } from 'node:stream';
import { LineCounter, parseAllDocuments } from 'yaml';
import type { ObservedEvent, StatusCause, TimelineEvent, WriteEvent, WriteVerb } from '../../timeline/event.js';
import { typeName } from '../type-name.js';
import { describeImplausible, implausibleAlone, latestFor, MAX_DEVIATION_MS, PlausibleTimeWindow } from '../../timeline/plausible-time.js';
import { isRecord } from '../../model/objects.js';
import { InputError, type Diagnostics, type FileCoverage, type OpenedSource } from '../source.js';
import { auditLineEnvelope } from '../envelope/registry.js';
import { actorOf, BoundedMap, PodOwnerTracker, type AuditActor, type PodOwnership } from './attribution.js';
import { InputReader, type Line } from './line-reader.js';
import { LineAccount, type LineAccountCounts } from './line-account.js';
import { parseMicroTime } from './micro-time.js';
import { AuditNormaliser, classifyValue } from './normalise.js';
import { leaseWriteOf, type LeaseWrite } from './lease.js';
import { innerFilter } from './prefilter.js';
import { lineFilterOf, prefilterChoice } from './prefilter-choice.js';
import { readerThreadMode, readOnThread, ThreadedLines, type ReaderThreadMode } from './threaded-lines.js';
import type { AuditLevel, AuditRecord, AuditStage } from './record.js';
import { dsWriteIsRelevant, eventIsAboutOwner, jobWriteIsRelevant, NON_WRITE_POD_SUBRESOURCES, nodeWriteIsRelevant, rcWriteIsRelevant, RESOURCES, WRITE_VERBS, isWriteVerb, type ResourceInfo } from './relevance.js';
import { nodeState, NodeStates } from './node-states.js';
import { ReorderBuffer } from './reorder.js';
import { rejectValue, sniff, type AuditFormat } from './sniff.js';
import { deleteOutcome, finishedDeletion, isStatus, kindMatches } from './watch-outcome.js';

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
  /**
   * Read a JSON-lines file on a reader thread (threaded-lines.ts): `auto` above its size
   * threshold, `on` for any regular file, `off` never; default the KEXP_READER_THREAD environment
   * variable's, else `off` (the thread did not pay when measured). The results are the same either way.
   */
  readerThread?: ReaderThreadMode;
  /** Longest line / JSON value kept (default 64 MiB). */
  maxLineBytes?: number;
  /** Largest whole document for YAML input (default 256 MiB). */
  maxDocumentBytes?: number;
  /** Problems passed to diagnostics per file before only counting (default 100). */
  maxProblemsShown?: number;
  /**
   * The lease pass (lease.ts): only the kube-controller-manager Lease writes are read, each handed
   * here; no event is emitted. Its byte prefilter keeps only lines naming `leases`.
   */
  leaseWrites?: (w: LeaseWrite) => void;
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
  /**
   * Node writes whose response changed neither the node's labels nor its taints (the kubelet's
   * status heartbeats), folded away: the DaemonSet controller ignores them (updateNode). Absent
   * when none.
   */
  nodeWritesFolded?: number;
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
   * Last object: full for the owners (ReplicaSets, ReplicationControllers, DaemonSets, Jobs),
   * Namespaces and Nodes; for pods only what metadata-only writes cannot carry and the models read
   * (podRest: spec.nodeName, status.phase/conditions; a Job's pods their containers' restarts and
   * finish times), to complete a PartialObjectMetadata response (the garbage collector patches
   * through the metadata client).
   */
  obj?: unknown;
}

/** The parts of a pod the controller model reads outside metadata. */
function podRest(obj: unknown): unknown {
  if (!isRecord(obj)) return undefined;
  // The required node affinity names the node a daemon pod is for (the DaemonSet model reads it).
  const required = isRecord(obj.spec) && isRecord(obj.spec.affinity) && isRecord(obj.spec.affinity.nodeAffinity) ? obj.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution : undefined;
  const spec = isRecord(obj.spec) ? { nodeName: obj.spec.nodeName, ...(required !== undefined ? { affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: required } } } : {}) } : undefined;
  const st = isRecord(obj.status) ? { phase: obj.status.phase, conditions: obj.status.conditions } : undefined;
  if (spec && st && isJobPod(obj)) return jobPodRest(obj, spec, st);
  return { apiVersion: obj.apiVersion ?? 'v1', kind: 'Pod', spec, status: st };
}

/** The pod's controller is a Job (its controllerRef). */
function isJobPod(obj: Obj): boolean {
  const refs = isRecord(obj.metadata) && Array.isArray(obj.metadata.ownerReferences) ? obj.metadata.ownerReferences : [];
  return refs.some((r) => isRecord(r) && r.controller === true && r.kind === 'Job');
}

/**
 * What the Job model reads of a pod besides the above: each container's restarts and terminated
 * finishedAt (pastBackoffLimitOnFailure, getFinishedTime in pkg/controller/job), and which init
 * containers are sidecars (restartPolicy Always). Only for a Job's pods, so other pods' memos stay
 * as small as they were.
 */
function jobPodRest(obj: Obj, spec: Obj, st: Obj): unknown {
  const containers = (v: unknown) => (Array.isArray(v) ? v.filter(isRecord).map((c) => {
    const terminated = isRecord(c.state) && isRecord(c.state.terminated) ? c.state.terminated : undefined;
    return { name: c.name, restartCount: c.restartCount, ...(terminated ? { state: { terminated: { finishedAt: terminated.finishedAt } } } : {}) };
  }) : undefined);
  const status = isRecord(obj.status) ? obj.status : {};
  const cs = containers(status.containerStatuses);
  const ics = containers(status.initContainerStatuses);
  const inits = isRecord(obj.spec) && Array.isArray(obj.spec.initContainers) ? obj.spec.initContainers.filter(isRecord).map((c) => ({ name: c.name, restartPolicy: c.restartPolicy })) : undefined;
  return {
    apiVersion: obj.apiVersion ?? 'v1',
    kind: 'Pod',
    spec: { ...spec, ...(inits ? { initContainers: inits } : {}) },
    status: { ...st, ...(cs ? { containerStatuses: cs } : {}), ...(ics ? { initContainerStatuses: ics } : {}) },
  };
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

  const onTooLong = (line: number, bytes: number): void => report(line, `record of ${bytes} bytes is longer than the limit; skipped`);
  const onDamage = (line: number, message: string): void => {
    extraUnits++;
    account.malformedUnread();
    report(line, message);
  };
  const reader = new InputReader(path, {
    ...(opts.stdin ? { stdin: opts.stdin } : {}),
    ...(opts.maxLineBytes ? { maxLineBytes: opts.maxLineBytes } : {}),
    onTooLong,
    onStray: (line, text) => {
      extraUnits++;
      account.add('surroundingText');
      report(line, `text outside any JSON value (${sample(text)}); skipped up to the next value`);
    },
    onCut: (line) => {
      account.malformedUnread();
      report(line, 'truncated value: it breaks off before its closing brace; skipped');
    },
    onDamage,
  });
  const sniffed = await sniff(reader, path);
  summary.compressed = reader.stats.compressed;
  let format: AuditFormat | undefined = sniffed.format;
  if (format) summary.format = format;
  /** The line envelope every line is in (CloudWatch export lines), decided by sniffing. */
  const lineEnvelope = auditLineEnvelope(format);

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
    opts.leaseWrites ? { innerFilter: (json: string) => json.includes('leases') } : usePrefilter ? { innerFilter: innerFilter(allEvents) } : {},
  );

  const filterInputs = { leaseWrites: opts.leaseWrites !== undefined, prefilter: usePrefilter, allEvents, lines: sniffed.mode === 'lines' };
  const setFilter = (f: AuditFormat | undefined): void => {
    const choice = prefilterChoice({ ...filterInputs, format: f });
    if (choice !== undefined) reader.filter = lineFilterOf(choice);
  };
  setFilter(format);
  // The file, gzip, line splitting and prefilter on the second core, once the filter is known.
  const threadChoice = prefilterChoice({ ...filterInputs, format });
  const threaded =
    threadChoice !== undefined && sniffed.mode === 'lines' && readOnThread(path, opts.readerThread ?? readerThreadMode(), reader.stats.compressed)
      ? new ThreadedLines(reader, threadChoice, { ...(opts.maxLineBytes ? { maxLineBytes: opts.maxLineBytes } : {}), onTooLong, onDamage })
      : undefined;
  const lineSource: Pick<InputReader, 'lines' | 'stats' | 'lastLineText'> = threaded ?? reader;

  const window = opts.reorderWindowMs ?? 2000;
  // Exports that are whole documents / arrays are often not in time order (gcloud prints
  // newest first): sort them completely.
  const reorder = new ReorderBuffer<TimelineEvent>(sniffed.mode === 'lines' ? window : Infinity);
  const SORT_ALL_CAP = 2_000_000;

  const pending = new BoundedMap<string, IncompleteRequest>(100_000);
  const owners = new PodOwnerTracker();
  const objects = new BoundedMap<string, ObjMemo>(50_000);
  const nodes = new NodeStates();

  // No record can be timed after the log is read (src/timeline/plausible-time.ts latestFor).
  const latest = (): number | undefined => latestFor(Date.now());
  /** A time read outside the records (first/last line) counts when it is near the records' own. */
  const agreesWithCoverage = (at: number): boolean =>
    implausibleAlone(at, latest()) === undefined && (summary.start === undefined || (at >= summary.start - MAX_DEVIATION_MS && at <= summary.end! + MAX_DEVIATION_MS));
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
      const usable = received !== undefined && implausibleAlone(received, latest()) === undefined && (bad.around === undefined || Math.abs(received - bad.around) <= MAX_DEVIATION_MS);
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
  }, true, latest);
  const takeRecord = (rec: AuditRecord): void => {
    rec.unit = unit;
    heldUnits.push(unit);
    timeWindow.push(rec, rec.stageAt);
  };

  const handleRecord = (rec: AuditRecord): void => {
    if (opts.leaseWrites) {
      const w = leaseWriteOf(rec, path);
      if (w) opts.leaseWrites(w);
      return;
    }
    summary.auditRecords++;
    apiVersions.add(rec.apiVersion);
    if (rec.level) levels.add(rec.level);
    summary.stages[rec.stage] = (summary.stages[rec.stage] ?? 0) + 1;
    noteTime(rec.stageAt);
    const ref = rec.objectRef;
    const info = ref?.resource !== undefined ? RESOURCES[ref.resource] : undefined;
    const verb = isWriteVerb(rec.verb) ? rec.verb : undefined;
    let relevant =
      info !== undefined &&
      info.groups.includes(ref!.apiGroup) &&
      verb !== undefined &&
      !(ref!.resource === 'pods' && ref!.subresource !== undefined && NON_WRITE_POD_SUBRESOURCES.has(ref!.subresource));
    if (relevant && ref!.resource === 'events' && !allEvents) relevant = eventIsAboutOwner(rec);
    if (relevant && ref!.resource === 'replicationcontrollers') relevant = rcWriteIsRelevant(rec);
    if (relevant && ref!.resource === 'nodes') relevant = nodeWriteIsRelevant(rec);
    if (relevant && ref!.resource === 'daemonsets') relevant = dsWriteIsRelevant(rec);
    if (relevant && ref!.resource === 'jobs') relevant = jobWriteIsRelevant(rec);

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
    buildEvents(rec, at, info!, verb!);
  };

  const buildEvents = (rec: AuditRecord, at: number, info: ResourceInfo, verb: WriteVerb): void => {
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
    const objectLost = success && rec.verb === 'create' && rec.level === 'RequestResponse' && ref.subresource === undefined && info.observed !== undefined && metaOf(resp) === undefined && rec.annotations?.['audit.k8s.io/truncated'] !== 'true';
    if (objectLost) {
      // At RequestResponse level a successful create's response is the object created
      // (null, absent or a non-object here: a damaged record; the apiserver's truncation drops it
      // with audit.k8s.io/truncated, counted apart). The object exists — the write is
      // kept, counted as a create of an object whose name and state the input does not show;
      // kexp never sees its ADD, so what waited for it is uncertain.
      report(rec.line, `${resource} create answered ${code} without the object it created (responseObject ${resp === undefined ? 'null or absent' : `${typeName(resp)} without metadata`}): counted as a create of an unknown ${resource === 'pods' ? 'pod' : 'object'}; its ADD is not in the input, so a window open across it ends where the input cannot tell (a gap)`);
    }
    const name = ref.name ?? (success && rec.verb === 'create' ? s(metaOf(resp)?.name) : undefined);
    const written = info.statesOnly ? undefined : pushWrite(rec, verb, at, resource, status, name, success);
    if (objectLost) {
      // The created object's ADD is missing from the input as surely as if its watch had dropped
      // it: a gap in that kind's stream at this line, so a window open across it ends where the
      // input cannot tell (basis unknown) instead of a leak kexp would make up.
      // From the request's arrival: the controller's round that made it is dated there.
      const gap: TimelineEvent = { type: 'gap', at: Math.min(at, rec.requestReceivedAt ?? at), atBasis: 'audit-stage', source: { file: path, line: rec.line }, reason: 'object-missing', detail: `${resource} create answered ${code} without the object it created`, kinds: [info.observed!] };
      const owner = written?.owner;
      if (owner?.state === 'owned' && ref.namespace !== undefined) gap.owner = { kind: owner.kind, namespace: ref.namespace, name: owner.name };
      push(gap);
    }
    if (!success || resp === undefined || info.observed === undefined) return;
    if (rec.requestURI !== undefined && /[?&]dryRun=/.test(rec.requestURI)) return;
    observeResponse(rec, at, info.observed, code);
  };

  /** The write event of a relevant write (every relevant resource but those read for their states only). */
  const pushWrite = (rec: AuditRecord, verb: WriteVerb, at: number, resource: string, status: WriteEvent['status'], name: string | undefined, success: boolean): AuditWriteEvent => {
    const ref = rec.objectRef!;
    const resp = rec.responseObject;
    const actor = actorOf(rec);
    const ev: AuditWriteEvent = {
      type: 'write',
      at,
      atBasis: 'audit-stage',
      source: { file: path, line: rec.line },
      actor,
      verb,
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
    if (actor.controller === 'replicaset-controller' && at >= since && at <= until) summary.rsControllerWrites++;
    return ev;
  };

  /** The object states a successful write's response shows, as watch events. */
  const observeResponse = (rec: AuditRecord, at: number, kind: ObservedKind, code: number): void => {
    const ref = rec.objectRef!;
    const resource = ref.resource!;
    const resp = rec.responseObject;
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
        apiVersion: apiVersionOf(kind),
        kind,
        metadata: { name: ref.name ?? s(d.name), namespace: ref.namespace, uid: s(d.uid) ?? last?.uid },
      };
      observe(kind, 'DELETED', last?.obj ?? stub, at, src, ref.namespace);
      return;
    }
    let body: unknown = resp;
    if (isRecord(resp) && resp.kind === 'PartialObjectMetadata' && isRecord(resp.metadata) && (kind === 'Pod' || kind === 'ReplicaSet' || kind === 'ReplicationController' || kind === 'DaemonSet' || kind === 'Job' || kind === 'Node')) {
      // A metadata-only write (garbage collector, other metadata clients): complete it with the
      // last full state seen; the metadata (owners, labels, finalizers, deletion) is what changed.
      const last = objects.get(objKey(kind, s(resp.metadata.namespace) ?? ref.namespace, s(resp.metadata.name)))?.obj;
      if (!isRecord(last)) return;
      body = { ...last, apiVersion: apiVersionOf(kind), kind, metadata: resp.metadata };
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
    kind: ObservedKind,
    watchType: 'ADDED' | 'MODIFIED' | 'DELETED',
    obj: unknown,
    at: number,
    source: { file: string; line: number },
    ns: string | undefined,
  ): void => {
    if (kind === 'Node') {
      // A Node is kept and passed on as the part the DaemonSet controller reads (node-states.ts);
      // a change of neither its labels nor its taints — a kubelet heartbeat — is folded away.
      const state = nodeState(obj);
      if (watchType === 'DELETED') nodes.forget(state);
      else if (nodes.unchanged(state) && watchType === 'MODIFIED') {
        summary.nodeWritesFolded = (summary.nodeWritesFolded ?? 0) + 1;
        return;
      }
      obj = state;
    }
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
      // Full objects only for the few, small-numbered kinds whose delete answers with a Status (a
      // Node: the part kexp keeps of it, node-states.ts).
      if (kind === 'ReplicaSet' || kind === 'ReplicationController' || kind === 'DaemonSet' || kind === 'Job' || kind === 'Namespace' || kind === 'Node') memo.obj = obj;
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
    if (lineEnvelope !== undefined) {
      const u = lineEnvelope.unwrap(text);
      if (u !== undefined) text = u.inner;
      else if (!text.trimStart().startsWith('{')) {
        problem(line.no, `not ${lineEnvelope.wording.line} (${sample(text.trim())}); skipped`);
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
    let finished = false;
    try {
      if (sniffed.mode === 'yaml') readYaml();
      else {
        const batches = sniffed.mode === 'lines' ? lineSource.lines() : reader.values();
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
      finished = true;
    } finally {
      // Stopped before the end (Ctrl-C: the reader of the events returned): the summary still
      // says what was read — the lines up to there — not the zeros it started with.
      if (!finished) finish(true);
      reader.close();
      threaded?.close();
    }
  }

  /** `cut`: the reading was stopped before the end; requests still open are no sign of a truncated log then. */
  const finish = (cut = false): void => {
    const st = lineSource.stats;
    summary.compressed = st.compressed;
    summary.bytes = st.bytes;
    summary.linesSkippedByPrefilter = st.skippedByFilter;
    summary.linesTooLong = st.tooLong;
    // The file's last line is usually skipped by the prefilter: still count its time.
    const last = sniffed.mode === 'lines' ? lineSource.lastLineText() : undefined;
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
    if (summary.incomplete.count > 0 && !cut) {
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

type ObservedKind = NonNullable<ResourceInfo['observed']>;

/** The apiVersion of a stub or completed object of `kind`. */
function apiVersionOf(kind: ObservedKind): string {
  return kind === 'ReplicaSet' || kind === 'DaemonSet' ? 'apps/v1' : kind === 'Job' ? 'batch/v1' : 'v1';
}

function objKey(kind: string, ns: string | undefined, name: string | undefined): string {
  return `${kind}/${ns ?? ''}/${name ?? ''}`;
}
