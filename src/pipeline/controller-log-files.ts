/**
 * Reads kube-controller-manager logs given beside a recording or an audit log (`--kcm-log`, any
 * input file that sniffs as one, or the kube-controller-manager container log inside a
 * `kubectl cluster-info dump` file, src/sources/dump-log-blocks.ts) into what the report builder
 * fuses with its reconstruction (src/analysis/controller-log.ts).
 *
 * klog text lines carry no year. It comes, per log, from its wrapper timestamps (CRI, docker,
 * `--timestamps`; JSON logs have full times), else from the time of the other inputs of the
 * run (`otherInputs`: they record the same incident), else from the file's mtime (stdin: the
 * current date). Where it came from is said in one line per log (`yearNotes`), as `kexp
 * kcm-log` says it on the log's Input line. `kexp kcm-log --compare` reads its logs into the
 * same ControllerLogInput (controllerLogInput).
 */
import { versionInfo, type VersionInfo } from '../model/version.js';
import fs from 'node:fs';
import { createHash } from 'node:crypto';
import { openKcmLogSource } from '../sources/kcm-log/kcm-log-source.js';
import { buildGroundTruth } from '../sources/kcm-log/ground-truth.js';
import { looksLikeKcmLog } from '../sources/kcm-log/detect.js';
import { assessVerbosity } from '../sources/kcm-log/verbosity.js';
import { kcmLogBlocks, type DumpLogBlock } from '../sources/dump-log-blocks.js';
import { isKcmLogByContent } from '../sources/kcm-log-recognition.js';
import { openWatchSource } from '../sources/watch/index.js';
import { InputError, type Diagnostics, type FileCoverage } from '../sources/source.js';
import type { ControllerLogEvent, SourceRef } from '../timeline/event.js';
import type { ControllerLogInput } from '../analysis/controller-log.js';
import type { InformerRelist } from '../sources/kcm-log/informer-relists.js';
import { buildFinalizerTracking } from '../sources/kcm-log/finalizer-tracking.js';

const POD_CREATED_RE = /"Pod created"[^\n]*?\bpod="([^"]+)"|"msg":"Pod created"[^\n]*?"pod":"([^"]+)"|\bPod created\b[^\n]*?\bpod="?([^"\s]+)/;

/** A controller log: a file, or the lines of a cluster-info dump file that hold one. */
export type ControllerLogFile = string | DumpLogBlock;

/** How a log is named in the report: its file, or `DUMP:FROM-TO` for a dump's block. */
export function controllerLogName(f: ControllerLogFile): string {
  return typeof f === 'string' ? f : `${f.file}:${f.from}-${f.to}`;
}

/**
 * Splits the inputs into kube-controller-manager logs and the rest (each file sniffed); a log
 * alone is refused unless directories were given beside it (`besideDirs`: their Lists). For
 * `replay`, a `kubectl cluster-info dump` file stays in the rest (its Lists) and also gives its
 * kube-controller-manager container log block(s).
 */
export async function splitControllerLogs(files: string[], command: 'replay' | 'audit', o: { besideDirs?: boolean } = {}): Promise<{ kcm: ControllerLogFile[]; rest: string[] }> {
  const kcm: ControllerLogFile[] = [];
  const rest: string[] = [];
  for (const f of files) {
    // By its lines (mostly klog/JSON records), or by records that are kube-controller-manager's
    // after a preamble the line count alone would not pass (src/sources/kcm-log-recognition.ts).
    if ((await looksLikeKcmLog(f)) || (await isKcmLogByContent(f))) kcm.push(f);
    else {
      rest.push(f);
      if (command === 'replay') kcm.push(...(await kcmLogBlocks(f)));
    }
  }
  if (rest.length === 0 && kcm.length > 0 && !o.besideDirs) {
    const first = controllerLogName(kcm[0]!);
    throw new InputError(first, 0, `this is a kube-controller-manager log: read it with \`kexp kcm-log\`, or give it beside ${command === 'audit' ? 'an audit log' : 'a recording'} (\`kexp ${command} FILE --kcm-log ${first}\`)`);
  }
  return { kcm, rest };
}

/** The same log given twice (two names, or as an input and with --kcm-log) is read once. */
function dedupe(files: ControllerLogFile[], diagnostics: Diagnostics): ControllerLogFile[] {
  const seen = new Map<string, string>();
  const out: ControllerLogFile[] = [];
  for (const given of files) {
    const name = controllerLogName(given);
    if (typeof given !== 'string') {
      if (!seen.has(name)) out.push(given);
      seen.set(name, name);
      continue;
    }
    const f = given;
    let id = f;
    try {
      const st = fs.statSync(f);
      const fd = fs.openSync(f, 'r');
      const head = Buffer.alloc(Math.min(st.size, 65536));
      fs.readSync(fd, head, 0, head.length, 0);
      fs.closeSync(fd);
      id = `${st.size}:${createHash('sha1').update(head).digest('hex')}`;
    } catch {
      // unreadable: openKcmLogSource reports it
    }
    const first = seen.get(id);
    if (first !== undefined) {
      diagnostics.warn(`${f}: the same kube-controller-manager log as ${first}; read once`);
      continue;
    }
    seen.set(id, f);
    out.push(f);
  }
  return out;
}

/** A time the other inputs of the run show, and how to name it (`the audit log's first event`). */
export interface OtherInputsTime {
  at: number;
  what: string;
}

export interface ControllerLogOptions {
  diagnostics: Diagnostics;
  /** The year of the klog lines, when the user gave it (overrides everything else). */
  year?: number;
  /** The other inputs' time: the year of klog lines without wrapper timestamps comes from it. */
  otherInputs?: OtherInputsTime;
}

/** Events looked at per watch input by watchInputsTime. */
const WATCH_PEEK_EVENTS = 1000;

/**
 * A time the watch inputs show, read before the replay (which needs the controller log first):
 * the newest time among the first WATCH_PEEK_EVENTS events of each file. The newest, because a
 * `kubectl get -w` dump's first events carry the objects' own timestamps, which can be much
 * older than the incident. Undefined when no file tells (stdin cannot be read twice).
 */
export async function watchInputsTime(files: string[], format: string | undefined): Promise<OtherInputsTime | undefined> {
  const quiet = { problem: () => undefined, warn: () => undefined };
  let best: { at: number; file: string } | undefined;
  for (const f of files) {
    if (f === '-') continue;
    try {
      const src = await openWatchSource(f, { diagnostics: quiet, ...(format ? { format } : {}) });
      let n = 0;
      for await (const e of src.events) {
        if (Number.isFinite(e.at) && (!best || e.at > best.at)) best = { at: e.at, file: f };
        if (++n >= WATCH_PEEK_EVENTS) break;
      }
    } catch {
      // unreadable: the replay reports it
    }
  }
  return best ? { at: best.at, what: `the time of ${best.file}` } : undefined;
}

/** One line saying where the year of a log's klog lines came from, or undefined (full times, or a given year). */
function yearNote(name: string, basis: string | undefined, start: number | undefined, other: OtherInputsTime | undefined): string | undefined {
  if (start === undefined) return undefined;
  const y = new Date(start).getUTCFullYear();
  switch (basis) {
    case 'other-input':
      return `${name}: klog lines carry no year; took ${y} from ${other?.what ?? 'the other inputs'} (${new Date(other?.at ?? start).toISOString()})`;
    case 'mtime':
      return `${name}: klog lines carry no year; took ${y} from the file's modification time (mtime), as the other inputs give no time to take it from; its times may be off by a year if the file was copied later`;
    case 'now':
      return `${name}: klog lines carry no year; took ${y} from the current date (stdin has no file time), as the other inputs give no time to take it from`;
    default:
      return undefined;
  }
}

/**
 * What fusion reads of a controller log (src/analysis/controller-log.ts), from its events in
 * reading order (files, then lines): the ground truth per ReplicaSet and the restarts from the
 * events in `order`, and the first "Pod created" handler line of each pod in reading order.
 */
export function controllerLogInput(files: string[], events: ControllerLogEvent[], order: (a: ControllerLogEvent, b: ControllerLogEvent) => number): ControllerLogInput {
  const podAdded = new Map<string, { at: number; source: SourceRef }>();
  for (const e of events) {
    if (!e.message.includes('Pod created')) continue;
    const m = POD_CREATED_RE.exec(e.message);
    const pod = m?.[1] ?? m?.[2] ?? m?.[3];
    if (pod && !podAdded.has(pod)) podAdded.set(pod, { at: e.at, source: e.source });
  }
  const sorted = [...events].sort(order);
  const starts = sorted.filter((e) => e.logKind === 'controller-started').map((e) => ({ at: e.at, source: e.source }));
  const leaseLines = sorted.flatMap((e) => (e.logKind === 'lease-attempt' || e.logKind === 'lease-acquired' || e.logKind === 'lease-lost' ? [{ at: e.at, kind: e.logKind, source: e.source }] : []));
  // Whether the log shows the gate's decisions (-v=4): below it the windows stay kexp's.
  const gateVisible = assessVerbosity(events.map((e) => e.logKind)).atLeastV4;
  return { files, truths: buildGroundTruth(sorted), podAdded, starts, leaseLines, gateVisible };
}

/** A controller log read whole: the ReplicaSet controller's lines, and each other kind's apart (when the log has any). */
export type ControllerLogs = ControllerLogInput & {
  coverage: FileCoverage[];
  yearNotes: string[];
  replicationControllers?: ControllerLogInput;
  daemonSets?: ControllerLogInput;
  jobs?: ControllerLogInput;
  version?: LoggedVersion;
};

/**
 * Reads the logs given beside the other inputs (each once) into what fusion reads, with their
 * coverage and year notes; the ReplicationController manager's, the DaemonSet controller's and
 * the Job controller's lines apart (`replicationControllers`, `daemonSets`, `jobs`, each when the
 * log has some), for those kinds' reports — the Job's with its finalizer tracking
 * (finalizer-tracking.ts). -v is the process's: a kind's input shows the gate when any line of
 * the process does.
 */
export async function readControllerLogs(given: ControllerLogFile[], o: ControllerLogOptions): Promise<ControllerLogs> {
  const logs = dedupe(given, o.diagnostics);
  const coverage: FileCoverage[] = [];
  const yearNotes: string[] = [];
  const events: ControllerLogEvent[] = [];
  const rcEvents: ControllerLogEvent[] = [];
  const dsEvents: ControllerLogEvent[] = [];
  const jobEvents: ControllerLogEvent[] = [];
  let version: LoggedVersion | undefined;
  let othersV4 = false;
  const relists: InformerRelist[] = [];
  for (const f of logs) {
    const name = controllerLogName(f);
    const src = await openKcmLogSource(typeof f === 'string' ? f : f.file, {
      diagnostics: o.diagnostics,
      ...(o.year !== undefined ? { year: o.year } : {}),
      ...(o.otherInputs !== undefined ? { otherInputsAt: o.otherInputs.at } : {}),
      ...(typeof f === 'string' ? {} : { lines: { from: f.from, to: f.to } }),
    });
    // (consumed whole so its coverage is complete)
    for await (const e of src.events) {
      if (e.type !== 'controller-log') continue;
      if (e.ownerKind === undefined) events.push(e);
      else if (e.ownerKind === 'ReplicationController') rcEvents.push(e);
      else if (e.ownerKind === 'DaemonSet') dsEvents.push(e);
      else if (e.ownerKind === 'Job') jobEvents.push(e);
    }
    const cov = src.coverage();
    coverage.push({ ...cov, file: name, format: 'kcm-log' });
    const note = yearNote(name, src.stats().yearBasis, cov.start, o.otherInputs);
    if (note) yearNotes.push(note);
    const v = src.stats().version;
    if (v && !version) version = { version: v.version, file: name, line: v.line };
    if ((src.stats().v4LinesOfOthers ?? 0) > 0) othersV4 = true;
    relists.push(...src.stats().informerRelists);
  }
  const files = logs.map(controllerLogName);
  const byTime = (a: ControllerLogEvent, b: ControllerLogEvent) => a.at - b.at;
  const input = controllerLogInput(files, events, byTime);
  // -v is the process's: other controllers' -v≥4 lines show the gate would be printed too.
  if (othersV4) input.gateVisible = true;
  // The informers are the process's: the ReplicaSet and ReplicationController controllers share them.
  if (relists.length) input.relists = relists;
  const shared = { coverage, yearNotes, ...(relists.length ? { relists } : {}) };
  // The gate's lines are V(4) in every controller: one kind's -v≥4 lines show the others' would be printed.
  const processV4 = othersV4 || [events, rcEvents, dsEvents, jobEvents].some((es) => es.length > 0 && assessVerbosity(es.map((e) => e.logKind)).atLeastV4);
  const ofKind = (es: ControllerLogEvent[]): ControllerLogInput => {
    const k = controllerLogInput(files, es, byTime);
    return { ...k, ...shared, gateVisible: (k.gateVisible ?? false) || processV4 };
  };
  return {
    ...input,
    coverage,
    yearNotes,
    ...(rcEvents.length ? { replicationControllers: { ...controllerLogInput(files, rcEvents, byTime), ...shared } } : {}),
    ...(dsEvents.length ? { daemonSets: ofKind(dsEvents) } : {}),
    ...(jobEvents.length ? { jobs: { ...ofKind(jobEvents), finalizerTracking: buildFinalizerTracking(jobEvents) } } : {}),
    ...(version ? { version } : {}),
  };
}

/** The release a kube-controller-manager log's start-up line names (kcm-log-source.ts startupVersion). */
export interface LoggedVersion {
  version: string;
  file: string;
  line: number;
}

/**
 * The version to model when neither the flag nor the other inputs named one: the log's start-up
 * line. Undefined when the log has none or names no Kubernetes 1.x release.
 */
export function versionFromLog(v: LoggedVersion | undefined): { info: VersionInfo; note: string } | undefined {
  if (!v) return undefined;
  try {
    const info = versionInfo(v.version, 'input');
    return { info, note: `The kube-controller-manager log names its release at ${v.file}:${v.line}: modelled ${info.version}${info.modelledAs ? `, replayed as ${info.modelledAs} with its known differences (see the assumptions)` : ''}.` };
  } catch {
    return undefined;
  }
}

/** The ends of the controller's pod-informer relists the log shows ("Caches populated"), for the engine (view-alignment.ts). */
export function podRelistEnds(log: Pick<ControllerLogInput, 'relists'>): Array<{ at: number; source: SourceRef }> {
  return (log.relists ?? []).filter((r) => r.informer === 'Pod' && r.end !== undefined).map((r) => r.end!);
}
