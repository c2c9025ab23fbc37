/**
 * Wires watch-dump sources to the replay engine and the report builder:
 * open every file (or stdin), merge them in time order, replay, build the Report.
 * Used by `kexp replay` and the golden tests.
 */
import { openWatchSource, type WatchSource } from '../sources/watch/index.js';
import type { FileCoverage, InputProblem, OpenedSource } from '../sources/source.js';
import { collectDiagnostics } from '../sources/diagnostics.js';
import { replayOwnerKinds, withDaemonSets, withReplicationControllers } from './owner-kind-replay.js';
import { withNodePlacementCoverage } from './node-placement-coverage.js';
import type { RecordingHeader } from '../sources/watch/recording-format.js';
import { CAUSAL_WINDOW_MS, CausalOrder } from '../timeline/causal-order.js';
import { replayStream } from './replay-stream.js';
import { StalledWatchMoves, StalledWatchOrder } from '../timeline/stalled-watch.js';
import { snapshotReport } from './snapshot-files.js';
import { dumpShape, shapeOfFormat } from '../sources/watch/dump-shape.js';
import { podRelistEnds, readControllerLogs, versionFromLog, splitControllerLogs, watchInputsTime, type ControllerLogFile } from './controller-log-files.js';
import { fuseControllerLog } from '../analysis/controller-log.js';
import { buildReport } from '../analysis/report-builder.js';
import { withWatchCoverage, type WatchCoverageInput } from './watch-coverage.js';
import { inputsLabel, MemoryBound } from '../sources/memory-bound.js';
import type { Report } from '../analysis/report-types.js';
import { DEFAULT_K8S_VERSION, parseK8sVersion, versionInfo, type VersionInfo } from '../model/version.js';
import { KEXP_VERSION } from '../version.js';
import { dirSummary, expandInputs, lookedFor, skippedSummary } from '../sources/dump-dir.js';
import { InputError } from '../sources/source.js';
import { replicaSetsInEvents } from '../analysis/report/event-rounds.js';
import { eventsOnlyReplicaSetReport } from '../analysis/report/snapshot-report.js';
import type { SnapshotRefs } from '../analysis/report/snapshot-refs.js';
import type { ReplicaSetReport } from '../analysis/report-types.js';
import { objectKey, type CoreEvent, type Pod } from '../model/objects.js';
import type { SourceRef, TimelineEvent } from '../timeline/event.js';
import { seeReplicaSetLabels, tapReplicaSetLabels, type ReplicaSetLabels } from './replicaset-labels.js';
import { ReadInterrupt } from './read-interrupt.js';

export interface ReplayFilesOptions {
  files: string[];
  /** kube-controller-manager logs to fuse (inputs that sniff as one are added automatically). */
  kcmLogs?: string[];
  format?: string;
  rs?: string;
  k8sVersion?: string;
  matchWindowMs?: number;
  stdin?: NodeJS.ReadableStream;
  /** Receives warnings as they happen (commands print them to stderr). */
  onWarning?: (message: string) => void;
  onProblem?: (p: InputProblem) => void;
  /** Ctrl-C/SIGTERM: stop reading, replay what was read (read-interrupt.ts). */
  signal?: AbortSignal;
}

export interface ReplayFilesResult {
  report: Report;
  problems: InputProblem[];
  warnings: string[];
  /** The labels of every ReplicaSet the input showed, by namespace/name (for `-l`). */
  labels: ReplicaSetLabels;
  /** Set when the signal stopped the reading: how far it got ("after N lines of FILE (X MB read)"). */
  interrupted?: string;
  /** The pods the ReplicaSet engine held at the end of input, by namespace/name (what the reports' adoption tables decided over; unset for a snapshot). */
  pods?: ReadonlyMap<string, Pod>;
  /** The earliest sync still due in any owner kind's model after the end (ReplayResult.nextDue); undefined when none is (and for a snapshot). */
  nextDue?: number;
}

/**
 * Picks the version to model: flag, else the recording's serverVersion, else the default. A
 * release kexp does not model exactly is replayed as the nearest it models with its known
 * differences (versionInfo); `note` says so once, on stderr and in the report's assumptions.
 */
function chooseVersion(flag: string | undefined, sources: OpenedSource[]): { info: VersionInfo; note?: string } {
  if (flag) return withNote(versionInfo(flag, 'flag'));
  let note: string | undefined;
  for (const s of sources) {
    const sv = (s.coverage().header as { serverVersion?: string } | undefined)?.serverVersion;
    if (sv) {
      try {
        return withNote(versionInfo(sv, 'input'), s.file);
      } catch (e) {
        // Not a Kubernetes 1.x version at all: the default, and the report says so.
        note ??= `${s.file}: ${(e as Error).message}; modelled ${DEFAULT_K8S_VERSION} instead (behaviour that changed since may differ; the writes are still accounted for).`;
      }
    }
  }
  return { info: { version: DEFAULT_K8S_VERSION, basis: 'default' }, ...(note ? { note } : {}) };
}

function withNote(info: VersionInfo, file?: string): { info: VersionInfo; note?: string } {
  if (!info.modelledAs) return { info };
  return { info, note: `${file ? `${file}: ` : ''}Kubernetes ${info.version} (${info.basis}) is replayed as ${info.modelledAs} with its known differences (see the assumptions).` };
}

/**
 * Replays watch dumps. Throws InputError (unreadable/unrecognised input) or Error (bad
 * --k8s-version); malformed lines are collected in `problems` and do not stop the replay.
 */
export async function replayFiles(opts: ReplayFilesOptions): Promise<ReplayFilesResult> {
  const diagnostics = collectDiagnostics(opts.onProblem, opts.onWarning);
  const { problems, warnings } = diagnostics;
  if (opts.k8sVersion) parseK8sVersion(opts.k8sVersion); // fail fast on a bad flag
  const stop = opts.signal ? new ReadInterrupt(opts.signal) : undefined;
  const stdin = stop && opts.stdin ? stop.stdin(opts.stdin) : opts.stdin;
  // A directory (cluster-info dump, must-gather, a folder of Lists) is walked: its Lists are one
  // snapshot, its kube-controller-manager logs are fused, its audit logs are named for `kexp audit`.
  const expanded = await expandInputs(opts.files);
  const dirLists: string[] = [];
  const dirKcm: string[] = [];
  for (const d of expanded.dirs) {
    if (d.lists.length === 0) {
      const skipped = skippedSummary(d);
      throw new InputError(d.dir, 0, d.auditLogs.length
        ? `no Lists here, only ${d.auditLogs.length} kube-apiserver audit log(s): analyse them with \`kexp audit ${d.dir}\``
        : `nothing kexp can use: ${lookedFor('replay')}; ${d.kcmLogs.length ? `found only ${d.kcmLogs.length} kube-controller-manager log(s) (read with \`kexp kcm-log\`)` : skipped ?? 'the directory is empty'}`);
    }
    diagnostics.warn(dirSummary(d, { lists: true, kcm: true, audit: false }));
    if (d.auditLogs.length) diagnostics.warn(`${d.dir}: ${d.auditLogs.length} kube-apiserver audit log(s) found (not read by replay): analyse them with \`kexp audit ${d.dir}\``);
    dirLists.push(...d.lists);
    dirKcm.push(...d.kcmLogs);
  }
  // Any mix of inputs: a kube-controller-manager log among them is used beside the others.
  const split = opts.format
    ? { kcm: [], rest: expanded.files }
    : expanded.files.length ? await splitControllerLogs(expanded.files, 'replay', { besideDirs: expanded.dirs.length > 0 }) : { kcm: [] as ControllerLogFile[], rest: [] as string[] };
  const kcmLogs: ControllerLogFile[] = [...(opts.kcmLogs ?? []), ...split.kcm, ...dirKcm];
  const sources: WatchSource[] = [];
  // A file of objects is a snapshot or a stream by its content (src/sources/watch/dump-shape.ts):
  // a List, one object or distinct objects are one state, read as a directory's Lists are.
  const snapshotFiles = new Set<WatchSource>();
  for (const f of split.rest) {
    const shape = await dumpShape(f, opts.format);
    const s = await openWatchSource(f, { format: opts.format, diagnostics, stdin, ...(shape === 'snapshot' ? { snapshot: true } : {}) });
    if (shape === 'snapshot' || shapeOfFormat(s.format) === 'snapshot') snapshotFiles.add(s);
    sources.push(s);
  }
  // A directory's files are read as what they are (JSON or YAML Lists, a Namespace object): one snapshot.
  const fromDirs = new Set<WatchSource>();
  for (const f of dirLists) {
    try {
      const s = await openWatchSource(f, { diagnostics, snapshot: true });
      fromDirs.add(s);
      sources.push(s);
    } catch (err) {
      // One unreadable file of a tree (empty, cut before its first value) does not stop the others.
      if (!(err instanceof InputError)) throw err;
      diagnostics.problem({ file: err.file, line: err.line, message: err.message.replace(`${err.line > 0 ? `${err.file}:${err.line}` : err.file}: `, '') });
    }
  }
  const labels: ReplicaSetLabels = new Map();
  if (expanded.dirs.length && sources.length === 0) throw new InputError(expanded.dirs[0]!.dir, 0, `no List in it could be read; ${lookedFor('replay')}`);
  const eventsWatched = sources.some((s) => {
    const h = s.coverage().header as { watches?: Array<{ resource?: string }> } | undefined;
    return h?.watches?.some((w) => w.resource === 'events') ?? false;
  });
  // The version may come from a recording header, which is read when the source opens.
  let version = chooseVersion(opts.k8sVersion, sources);
  const fileSources = sources.filter((s) => !fromDirs.has(s));
  if ((fileSources.length > 0 && fileSources.every((s) => snapshotFiles.has(s))) || (fromDirs.size > 0 && fromDirs.size === sources.length)) {
    for (const s of sources) s.events = tapReplicaSetLabels(s.events, labels);
    if (stop) for (const s of sources) s.events = stop.events(s.events);
    let report = await snapshotReport(sources, { rs: opts.rs, k8sVersion: version.info, diagnostics });
    if (kcmLogs.length) {
      // A controller log beside a snapshot: its windows and decisions are the only view of the
      // controller's expectations there is (the snapshot has none).
      const at = report.coverage.start ? Date.parse(report.coverage.start) : undefined;
      const log = await readControllerLogs(kcmLogs, { diagnostics, ...(at !== undefined ? { otherInputs: { at, what: "the snapshot's time range" } } : {}) });
      report = fuseControllerLog(report, log, { kind: 'snapshot' }).report;
      const fromLog = version.info.basis === 'default' ? versionFromLog(log.version) : undefined;
      if (fromLog) {
        version = fromLog;
        report.k8sVersion = fromLog.info;
      }
    }
    report.coverage.problems = { count: problems.length, examples: problems.slice(0, 5).map((p) => `${p.file}:${p.line}: ${p.message}`) };
    if (version.note) report.coverage.assumptions.push(version.note);
    for (const d of version.info.differences ?? []) report.coverage.assumptions.push(`Kubernetes version: ${d}`);
    if (opts.rs && report.replicaSets.length === 0) {
      warnings.push(`ReplicaSet ${opts.rs} does not appear in the input`);
      opts.onWarning?.(`ReplicaSet ${opts.rs} does not appear in the input`);
    }
    if (stop?.interrupted) report.coverage.assumptions.push(stop.note());
    return { report, problems, warnings, labels, ...(stop?.interrupted ? { interrupted: stop.describe() } : {}) };
  }
  // klog lines carry no year: take it from a recording's start, else the other inputs' times, else the log's own default (its mtime).
  const startedAt = sources.map((src) => (src.coverage().header as { startedAt?: string } | undefined)?.startedAt).find((x) => x !== undefined && !Number.isNaN(Date.parse(x)));
  const otherInputs = !kcmLogs.length ? undefined : startedAt ? { at: Date.parse(startedAt), what: "the recording's start" } : await watchInputsTime(split.rest, opts.format);
  const controllerLog = kcmLogs.length ? await readControllerLogs(kcmLogs, { diagnostics, ...(otherInputs ? { otherInputs } : {}) }) : undefined;
  // Neither the flag nor a recording named the release: the log's start-up line may.
  const fromLog = version.info.basis === 'default' ? versionFromLog(controllerLog?.version) : undefined;
  if (fromLog) version = fromLog;
  // Separate watches of one cluster: updates received out of causal order are put back in
  // resourceVersion order (src/timeline/causal-order.ts).
  let moved = 0;
  const stalled = new StalledWatchMoves();
  const events = new EventsSeen(stop);
  // Merge, taps and causal order without a promise per event (src/pipeline/replay-stream.ts).
  const stream = replayStream(sources.map((s) => s.batches), {
    pulled: (e) => seeReplicaSetLabels(e, labels),
    merged: (e) => events.see(e),
    causal: new StalledWatchOrder(new CausalOrder(CAUSAL_WINDOW_MS, () => moved++), (e, before) => stalled.see(e, before), (e, at) => stalled.seeRetimed(e, at)),
  });
  const k8s = parseK8sVersion(version.info.version);
  // The model holds every owner of the input (--rs narrows the report only): bounded as the reading is.
  const memory = new MemoryBound();
  const inputNames = inputsLabel(opts.files);
  const results = await replayOwnerKinds(stream, {
    onEventReplayed: () => memory.replayed(inputNames),
    version: k8s,
    rsFilter: opts.rs,
    matchWindowMs: opts.matchWindowMs,
    eventsWatched,
    ...(controllerLog ? { controllerStarts: controllerLog.starts, podInformerRelists: podRelistEnds(controllerLog), leaseLines: controllerLog.leaseLines } : {}),
    onInvalidEvent: (src, message) => diagnostics.problem({ file: src.file, line: src.line, message }),
    coverageEnd: () => {
      const ends = sources.map((s) => s.coverage().end).filter((e): e is number => e !== undefined);
      return ends.length ? Math.max(...ends) : undefined;
    },
  });
  const result = results.replicaSets;
  const inputs: FileCoverage[] = sources.map((s) => s.coverage());
  const assumptions: string[] = [];
  if (moved > 0) {
    assumptions.push(`${moved} update(s) from separate watches arrived out of resourceVersion order within ${CAUSAL_WINDOW_MS} ms and were replayed in resourceVersion order (etcd revisions are global to the cluster).`);
  }
  if (stalled.any) assumptions.push(stalled.note());
  if (version.note) {
    assumptions.push(version.note);
    warnings.push(version.note);
    opts.onWarning?.(version.note);
  }
  if (stop?.interrupted) assumptions.push(stop.note());
  if (inputs.some((i) => i.timeBasis === 'object-timestamp')) {
    assumptions.push('Without receive times, event times come from object timestamps; syncs and windows are placed approximately.');
  }
  const build = {
    matchWindowMs: opts.matchWindowMs ?? 5000,
    command: 'replay',
    kexpVersion: KEXP_VERSION,
    k8sVersion: version.info,
    inputs,
    problems,
    assumptions,
  };
  let report = buildReport(result, build);
  if (controllerLog) {
    // The controller's own log checks the reconstruction (unless it covers another time: said).
    const fused = fuseControllerLog(report, controllerLog, { kind: 'replay', result });
    if (fused.notUsed) diagnostics.warn(fused.notUsed);
    report = fused.report;
  }
  // ReplicaSets the stream shows only through the controllers' Events (`kubectl get events -w
  // -o json`, a recording of Events alone): their rounds from the Events, their state unknown.
  const added = events.reportsFor(new Set(report.replicaSets.map((r) => r.key)), opts.rs, result.end);
  if (added.length) {
    report.replicaSets.push(...added);
    report.replicaSets.sort((a, b) => a.key.localeCompare(b.key));
    report.coverage.assumptions.push(`${added.length} ReplicaSet(s) known only from Events (${added.slice(0, 5).map((r) => r.key).join(', ')}${added.length > 5 ? ', …' : ''}): their rounds come from the Events; their state is unknown.`);
  }
  // The ReplicationControllers, replayed by their own engine: their reports beside the ReplicaSets'.
  report = withDaemonSets(withReplicationControllers(report, results, build, controllerLog), results, build, controllerLog);
  // A recording made without the Nodes (RBAC): its DaemonSets' placement is unknown, not replayed.
  report = withNodePlacementCoverage(report, sources.map((s) => ({ file: s.coverage().file, header: s.coverage().header as Partial<RecordingHeader> | undefined })));
  // A recording whose watch never worked: the time after its initial list is unknown.
  report = withWatchCoverage(report, sources.map((s) => s.coverage() as WatchCoverageInput));
  if (opts.rs && report.replicaSets.length === 0) {
    warnings.push(`ReplicaSet ${opts.rs} does not appear in the input`);
    opts.onWarning?.(`ReplicaSet ${opts.rs} does not appear in the input`);
  }
  const dues = [results.replicaSets, results.replicationControllers, results.daemonSets, results.jobs].map((r) => r?.nextDue).filter((d): d is number => d !== undefined);
  return { report, problems, warnings, labels, pods: result.pods, ...(stop?.interrupted ? { interrupted: stop.describe() } : {}), ...(dues.length ? { nextDue: Math.min(...dues) } : {}) };
}

/**
 * The newest version of every core Event a stream carried (an aggregated Event's later
 * versions replace the earlier, so its count is the total), with the FILE:LINE it came from.
 * A DELETED Event (its TTL expired) is kept: the writes it stands for happened.
 */
class EventsSeen {
  private readonly latest = new Map<string, CoreEvent>();
  private readonly where = new WeakMap<object, SourceRef>();

  /** `stop`: the whole stream passes here, so this is where a Ctrl-C ends the reading. */
  constructor(private readonly stop?: ReadInterrupt) {}

  /** Notes one event of the stream; false when the reading must stop (the signal came). */
  see(e: TimelineEvent): boolean {
    if (this.stop?.reached(e.source)) return false;
    if (e.type === 'observed' && e.kind === 'Event' && e.watchType !== 'DELETED') {
      this.latest.set(objectKey(e.object.metadata), e.object);
      this.where.set(e.object, e.source);
    }
    return true;
  }

  reportsFor(known: Set<string>, rs: string | undefined, end: number | undefined): ReplicaSetReport[] {
    if (this.latest.size === 0) return [];
    const all = [...this.latest.values()];
    const cite = (e: CoreEvent) => {
      const r = this.where.get(e);
      return r ? `${r.file}:${r.line}` : `events/${e.metadata.name ?? '?'}`;
    };
    const refs: SnapshotRefs = {
      rs: (name, field) => `replicasets/${name}${field ? `#${field}` : ''}`,
      ns: (name, field) => `namespaces/${name}#${field}`,
      pod: (p) => `pods/${typeof p === 'string' ? p : (p.metadata.name ?? '?')}`,
      event: cite,
      quota: (name) => `resourcequotas/${name}`,
    };
    const out: ReplicaSetReport[] = [];
    for (const [key, ref] of replicaSetsInEvents(all)) {
      if (known.has(key) || (rs && key !== rs)) continue;
      out.push(eventsOnlyReplicaSetReport(ref, all.filter((e) => (e.involvedObject?.namespace ?? e.metadata.namespace) === ref.namespace), end, refs));
    }
    return out;
  }
}
