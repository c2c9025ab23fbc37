/**
 * `kexp kcm-log`: parse kube-controller-manager logs into the ground-truth timeline per owner —
 * every ReplicaSet, and, with their kind, every ReplicationController, DaemonSet and Job whose
 * controller's lines the log holds (sources/kcm-log/attribute.ts tells them apart) — optionally
 * scoring a kexp Report (`--compare`) against it: the logs are read into the same
 * ControllerLogInput `replay` and `audit` fuse (controller-log-files.ts), and the scores are those
 * of that fusion (src/analysis/controller-log.ts). Each kind's lines make their own ground truth
 * with the same kind-agnostic machinery (ground-truth.ts over model/controller/gated-windows.ts);
 * a Job also gets its finalizer-tracking store (finalizer-tracking.ts), a DaemonSet its
 * rolling-update checks apart from its gate decisions.
 */
import fs from 'node:fs';
import { openKcmLogSource, type KcmLogStats } from '../sources/kcm-log/kcm-log-source.js';
import type { GroundTruth } from '../sources/kcm-log/ground-truth.js';
import type { InformerRelist } from '../sources/kcm-log/informer-relists.js';
import type { Diagnostics, InputProblem } from '../sources/source.js';
import { collectDiagnostics } from '../sources/diagnostics.js';
import { assessVerbosity } from '../sources/kcm-log/verbosity.js';
import { InputError } from '../sources/source.js';
import type { ControllerLogEvent } from '../timeline/event.js';
import { compareTimeline } from '../timeline/event.js';
import type { Report } from '../analysis/report-types.js';
import { REPORT_SCHEMA_VERSION } from '../analysis/report-types.js';
import { sumScores, type FidelityScore } from '../analysis/fidelity.js';
import { fuseControllerLog } from '../analysis/controller-log.js';
import { controllerLogInput } from './controller-log-files.js';
import { iso } from '../analysis/iso.js';
import { KEXP_VERSION } from '../version.js';
import { ReadInterrupt } from './read-interrupt.js';
import { isRecord } from '../model/objects.js';
import { isRound, type KcmLogEvent, type KcmLogFailure, logEvents, type ReplicaSetEvents, type RoundConfirmation } from './kcm-log-events.js';
import { buildFinalizerTracking } from '../sources/kcm-log/finalizer-tracking.js';
import { finalizerTrackingSummary, rollingUpdateChecks } from '../analysis/report/log-stores.js';
import type { FinalizerTrackingSummary, RollingUpdateChecks } from '../analysis/report-types.js';
import { buildGroundTruth } from '../sources/kcm-log/ground-truth.js';

export const KCM_LOG_SCHEMA_VERSION = 'kexp.kcm-log/v1';

/** The kinds kcm-log reports besides ReplicaSets (an entry's `kind`; absent for a ReplicaSet). */
export type KcmLogOwnerKind = NonNullable<ControllerLogEvent['ownerKind']>;

/** kubectl's short resource name of each kind (next steps and commands). */
export const KUBECTL_RESOURCE: Record<KcmLogOwnerKind | 'ReplicaSet', string> = { ReplicaSet: 'rs', ReplicationController: 'rc', DaemonSet: 'ds', Job: 'job' };

export interface KcmLogReplicaSet {
  /**
   * The owner's kind; absent for a ReplicaSet. A ReplicationController (the RC manager runs the
   * ReplicaSet code), a DaemonSet or a Job: its controller's own lines, attributed by its logger,
   * caller file, message or key (sources/kcm-log/attribute.ts).
   */
  kind?: KcmLogOwnerKind;
  key: string;
  /**
   * total..neverRecorded: SatisfiedExpectations decisions (V(4) lines). `finishedLines`: the
   * "Finished syncing" lines seen (V(0) in 1.28–1.32, V(4) since 1.33). `basis` says what the
   * sync count rests on: the gate's decisions, the "Finished syncing" lines only (below -v=4
   * on 1.28–1.32), or nothing (`not-logged`: the log's verbosity prints no per-sync line, which
   * is not "no syncs").
   */
  syncs: {
    total: number; gated: number; fulfilled: number; expired: number; neverRecorded: number;
    finishedLines: number; basis: 'gate-decisions' | 'finished-syncing' | 'not-logged';
  };
  /**
   * The rounds the controller announced ("Too few replicas … creating N", "Too many replicas …
   * deleting N"; V(2), so present at the verbosities distributions run): `count` = N, `desired`
   * = the spec.replicas it acted on (`need=`). Basis `observed`: the controller's own line.
   */
  rounds: Array<{ at: string; kind: 'create' | 'delete'; count?: number; desired?: number; basis: 'observed'; evidence: string; confirmed?: RoundConfirmation }>;
  /**
   * The controller's own Events about this ReplicaSet ("Event occurred" kind="ReplicaSet"; V0 up
   * to 1.26, V3 in 1.37): SuccessfulCreate / SuccessfulDelete confirm a round's calls
   * (`rounds[].confirmed`), FailedCreate / FailedDelete are `failures` (kcm-log-events.ts).
   */
  events: KcmLogEvent[];
  failures: KcmLogFailure[];
  /** When the log shows the ReplicaSet deleted (its last "deleted" line): its failures before it are history. */
  deleted?: string;
  /** add/del are null when the log does not tell them (e.g. the line they come from is damaged). */
  raises: Array<{ at: string; add: number | null; del: number | null; keys?: string[]; evidence: string }>;
  /**
   * `leaked`: the counts the expired record still waited for. `leakedUnknown`: why they are not
   * given though the window expired — the log does not tell them (a lower whose count no line
   * tells, a Set whose counts it does not print), or they were reconstructed and lines that
   * lowered some record of this controller inside the window name no key (they may be too high).
   */
  gatedWindows: Array<{ start: string; end?: string; ended: string; expected?: { add: number; del: number }; leaked?: { add: number; del: number }; leakedUnknown?: string; gatedSyncs: number; evidence: string }>;
  clobbers: Array<{ at: string; keys: string[]; evidence: string }>;
  slowStartFailures: Array<{ at: string; podsSkipped?: number; evidence: string }>;
  /** [1.36+] Syncs skipped by the consistency gate (not expectations gating), and other failed syncs. */
  consistencySkips: Array<{ at: string; resource: string; readResourceVersion?: number; writtenResourceVersion?: number; evidence: string }>;
  syncFailures: number;
  /**
   * The pod writes the log shows ("Controller created pod", "Deleting pod" lines) and where each
   * went: into the round of the "Too few / Too many replicas" line before it, or outside every
   * round (writes = inRounds + outsideRounds.length). Failed creates appear only as the sync's
   * error line and its "Slow-start failure" line, not one line per call.
   */
  accounting: { writes: number; inRounds: number; rounds: number; outsideRounds: Array<{ at: string; kind: 'create' | 'delete'; pod?: string; evidence: string }> };
  /**
   * A DaemonSet: its second SatisfiedExpectations per sync that passed the gate (updateDaemonSet,
   * after manage): the rolling update runs only when it is satisfied. Not counted in `syncs`.
   */
  rollingUpdateChecks?: RollingUpdateChecks;
  /**
   * A Job: its finalizer UID-tracking store (finalizer-tracking.ts) — the pods whose
   * job-tracking finalizer removal the controller waits to observe. `expected`: UIDs it expected
   * over the log (`lines` lines), `observed`: removals it saw, `dropped`: UIDs the Job's deletion
   * or a controller start dropped, `awaited`: UIDs still waited for at the end of the log. No
   * counts, no timeout: not the sync gate (that is `gatedWindows`).
   */
  finalizerTracking?: FinalizerTrackingSummary;
  compare?: FidelityScore;
}

/** Where the year of a file's klog lines came from (klog headers print none). */
export interface KcmLogYear {
  value?: number;
  basis: 'option' | 'wrapper' | 'other-input' | 'mtime' | 'now' | 'in-records';
  /** When the year is a guess (file mtime, current date) or borrowed: said on the file's Input line. */
  note?: string;
}

export interface KcmLogResult {
  schemaVersion: typeof KCM_LOG_SCHEMA_VERSION;
  generator: { name: 'kexp'; version: string; command: 'kcm-log' };
  inputs: Array<{ file: string; format: string; start?: string; end?: string; year: KcmLogYear; stats: Omit<KcmLogStats, 'informerRelists'> }>;
  /**
   * What the ReplicaSet lines say about the log's -v: `atLeastV4` false when no line printed only
   * at -v≥4 is present (then `note` says that gate/expectations decisions are not visible).
   * `olderThanModelled`: the log's wording is older than the oldest modelled release (its reader
   * said so in one line); the -v rules of modelled releases are not applied to it.
   */
  verbosity: { atLeastV4: boolean; note?: string; olderThanModelled?: boolean };
  restarts: string[];
  /**
   * The other kinds' controller starts ("Starting daemon sets controller", "Starting job
   * controller", the RC manager's "Starting controller"): each controller's expectations store is
   * its own, so each start wipes its records. Absent when none of the reported kinds logged one.
   */
  ownerKindRestarts?: Partial<Record<KcmLogOwnerKind, string[]>>;
  /**
   * The Pod / ReplicaSet / ReplicationController informers' relists the reflector lines show
   * (sources/kcm-log/informer-relists.ts): why, when the LIST started and when it was the cache;
   * a part the log does not show is absent. Absent: no such line.
   */
  informerRelists?: KcmLogRelist[];
  replicaSets: KcmLogReplicaSet[];
  compare?: { report: string; overall: FidelityScore };
}

/** One informer relist, times as ISO strings and evidence as file:line. */
export interface KcmLogRelist {
  informer: InformerRelist['informer'];
  cause: InformerRelist['cause'];
  watchEnded?: { at: string; evidence: string; err?: string };
  start?: { at: string; evidence: string };
  end?: { at: string; evidence: string };
}

function relistOut(r: InformerRelist): KcmLogRelist {
  const p = (x: { at: number; source: { file: string; line: number } }) => ({ at: iso(x.at)!, evidence: ref(x.source) });
  return {
    informer: r.informer,
    cause: r.cause,
    ...(r.watchEnded ? { watchEnded: { ...p(r.watchEnded), ...(r.watchEnded.err !== undefined ? { err: r.watchEnded.err } : {}) } } : {}),
    ...(r.start ? { start: p(r.start) } : {}),
    ...(r.end ? { end: p(r.end) } : {}),
  };
}

function ref(s: { file: string; line: number }): string {
  return `${s.file}:${s.line}`;
}

/** Assigns each logged pod write to the round ("Too few/many replicas … creating/deleting N") before it. */
export function logAccounting(events: ControllerLogEvent[]): Map<string, KcmLogReplicaSet['accounting']> {
  const out = new Map<string, KcmLogReplicaSet['accounting']>();
  const open = new Map<string, { create?: { left: number }; delete?: { left: number } }>();
  for (const e of events) {
    if (!e.rsKey) continue;
    let a = out.get(e.rsKey);
    if (!a) out.set(e.rsKey, (a = { writes: 0, inRounds: 0, rounds: 0, outsideRounds: [] }));
    const cur = open.get(e.rsKey) ?? {};
    open.set(e.rsKey, cur);
    if (e.logKind === 'too-few-replicas' || e.logKind === 'too-many-replicas') {
      if (!isRound(e)) continue;
      a.rounds++;
      if (e.logKind === 'too-few-replicas') cur.create = { left: e.numbers?.creating ?? Infinity };
      else cur.delete = { left: e.numbers?.deleting ?? Infinity };
    } else if (e.logKind === 'controller-created-pod' || e.logKind === 'deleting-pod') {
      const kind = e.logKind === 'controller-created-pod' ? 'create' : 'delete';
      a.writes++;
      const r = cur[kind];
      if (r && r.left > 0) {
        r.left--;
        a.inRounds++;
      } else {
        const pod = /pod="([^"]+)"/.exec(e.message)?.[1];
        a.outsideRounds.push({ at: iso(e.at)!, kind, ...(pod ? { pod } : {}), evidence: ref(e.source) });
      }
    }
  }
  return out;
}

/** Per ReplicaSet: its announced rounds and its "Finished syncing" lines (both below -v=4 in some versions). */
export interface RoundsAndSyncLines {
  rounds: KcmLogReplicaSet['rounds'];
  finishedLines: number;
}

export function logRounds(events: ControllerLogEvent[]): Map<string, RoundsAndSyncLines> {
  const out = new Map<string, RoundsAndSyncLines>();
  for (const e of events) {
    if (!e.rsKey) continue;
    let r = out.get(e.rsKey);
    if (!r) out.set(e.rsKey, (r = { rounds: [], finishedLines: 0 }));
    if (e.logKind === 'finished-syncing') r.finishedLines++;
    else if (isRound(e)) {
      const create = e.logKind === 'too-few-replicas';
      const count = e.numbers?.[create ? 'creating' : 'deleting'];
      const desired = e.numbers?.need;
      r.rounds.push({
        at: iso(e.at)!, kind: create ? 'create' : 'delete',
        ...(count !== undefined ? { count } : {}), ...(desired !== undefined ? { desired } : {}),
        basis: 'observed', evidence: ref(e.source),
      });
    }
  }
  return out;
}

/** The Events of each key against its rounds (kcm-log-events.ts). */
function eventsOf(events: ControllerLogEvent[], seen: Map<string, RoundsAndSyncLines>, resource = 'rs'): Map<string, ReplicaSetEvents> {
  return logEvents(events, new Map([...seen].map(([k, v]) => [k, v.rounds])), (e) => ref(e.source), resource);
}

/**
 * The times of this controller's "Lowered expectations" lines that name no key (v1.27+ prints
 * `{}` and no neighbouring line told whose it was), sorted: a window holding one may have been
 * lowered more than its reconstruction says.
 */
function unkeyedLowers(events: ControllerLogEvent[]): number[] {
  return events.filter((e) => e.logKind === 'lowered-expectations' && e.rsKey === undefined).map((e) => e.at).sort((a, b) => a - b);
}

/** Index of the first time ≥ t in sorted `ts` (ts.length when none). */
function firstAtOrAfter(ts: number[], t: number): number {
  let lo = 0;
  let hi = ts.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (ts[mid]! < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Index of the first time > t in sorted `ts`. */
function firstAfter(ts: number[], t: number): number {
  let lo = 0;
  let hi = ts.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (ts[mid]! <= t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function toRS(
  g: GroundTruth,
  accounting: KcmLogReplicaSet['accounting'] = { writes: 0, inRounds: 0, rounds: 0, outsideRounds: [] },
  seen: RoundsAndSyncLines = { rounds: [], finishedLines: 0 },
  evs: ReplicaSetEvents = { events: [], confirmations: [], failures: [] },
  unkeyed: number[] = [],
): KcmLogReplicaSet {
  /** Lowers that name no key inside [start, end] (`unkeyed` is sorted). */
  const unkeyedIn = (start: number, end: number): number => firstAfter(unkeyed, end) - firstAtOrAfter(unkeyed, start);
  const count = (d: string) => g.syncs.filter((s) => s.decision === d).length;
  const basis = g.syncs.length > 0 ? 'gate-decisions' : seen.finishedLines > 0 ? 'finished-syncing' : 'not-logged';
  return {
    key: g.rsKey,
    syncs: {
      total: g.syncs.length, gated: count('gated'), fulfilled: count('fulfilled'), expired: count('expired'), neverRecorded: count('never-recorded'),
      finishedLines: seen.finishedLines, basis,
    },
    rounds: seen.rounds.map((r, i) => {
      const c = evs.confirmations[i];
      return c && c.succeeded + c.failed > 0 ? { ...r, confirmed: c } : r;
    }),
    events: evs.events,
    failures: evs.failures,
    ...(evs.deletedAt !== undefined ? { deleted: iso(evs.deletedAt)! } : {}),
    raises: g.raises.map((r) => ({
      at: iso(r.at)!,
      add: r.countsUnknown ? null : r.add,
      del: r.countsUnknown ? null : r.del,
      ...(r.keys ? { keys: r.keys } : {}),
      evidence: ref(r.source),
    })),
    gatedWindows: g.gatedWindows.map((w) => {
      const blurred = w.leaked && w.leakedBasis === 'reconstructed' && w.end !== undefined ? unkeyedIn(w.start, w.end) : 0;
      const unknown = blurred
        ? `${blurred} "Lowered expectations" line(s) of this controller inside the window name no key (v1.27+ logs {}), so what it still waited for is not known`
        : w.ended === 'expired' && !w.leaked
          ? 'the log does not tell the record\'s counts at the expiry (a Set or a lower whose counts no line tells), so what it still waited for is not known'
          : undefined;
      return {
        start: iso(w.start)!, ...(w.end !== undefined ? { end: iso(w.end) } : {}), ended: w.ended,
        ...(w.expected ? { expected: w.expected } : {}),
        ...(w.leaked && !blurred ? { leaked: w.leaked } : {}),
        ...(unknown ? { leakedUnknown: unknown } : {}),
        gatedSyncs: w.gatedSyncs, evidence: ref(w.startSource),
      };
    }),
    clobbers: g.clobbers.map((c) => ({ at: iso(c.at)!, keys: c.keys, evidence: ref(c.source) })),
    slowStartFailures: g.slowStartFailures.map((c) => ({ at: iso(c.at)!, podsSkipped: c.podsSkipped, evidence: ref(c.source) })),
    consistencySkips: g.consistencySkips.map((c) => ({ at: iso(c.at)!, resource: c.resource, readResourceVersion: c.readResourceVersion, writtenResourceVersion: c.writtenResourceVersion, evidence: ref(c.source) })),
    syncFailures: g.syncFailures.length,
    accounting,
  };
}

/** The kinds reported besides ReplicaSets, in the order their entries follow a ReplicaSet of the same key. */
const OTHER_KINDS: KcmLogOwnerKind[] = ['ReplicationController', 'DaemonSet', 'Job'];

/**
 * The entries of one other kind (ReplicationController, DaemonSet, Job) from its lines alone,
 * built as a ReplicaSet's are: its own ground truth (its expectations store is its own, its
 * restarts its own "Starting … controller" lines), rounds, Events and pod writes.
 */
function ownerEntries(kind: KcmLogOwnerKind, events: ControllerLogEvent[], only: string | undefined): KcmLogReplicaSet[] {
  const accounting = logAccounting(events);
  const seen = logRounds(events);
  const evs = eventsOf(events, seen, KUBECTL_RESOURCE[kind]);
  const unkeyed = unkeyedLowers(events);
  const tracking = kind === 'Job' ? buildFinalizerTracking(events) : undefined;
  const truths = [...buildGroundTruth(events).values()].filter((g) => !only || g.rsKey === only).sort((a, b) => a.rsKey.localeCompare(b.rsKey));
  return truths.map((g) => {
    const entry: KcmLogReplicaSet = { kind, ...toRS(g, accounting.get(g.rsKey), seen.get(g.rsKey), evs.get(g.rsKey), unkeyed) };
    const checks = kind === 'DaemonSet' ? rollingUpdateChecks(g) : undefined;
    if (checks) entry.rollingUpdateChecks = checks;
    const t = tracking?.get(g.rsKey);
    if (t) entry.finalizerTracking = finalizerTrackingSummary(t);
    return entry;
  });
}

export interface KcmLogOptions {
  files: string[];
  rs?: string;
  compare?: string;
  year?: number;
  stdin?: NodeJS.ReadableStream;
  onProblem?: (p: InputProblem) => void;
  onWarning?: (m: string) => void;
  /** Ctrl-C/SIGTERM: stop reading, analyse what was read (read-interrupt.ts). */
  signal?: AbortSignal;
}

type Json = Record<string, unknown>;
const what = (v: unknown): string => (v === null ? 'null' : Array.isArray(v) ? 'a list' : typeof v === 'object' ? 'an object' : `a ${typeof v}`);

/**
 * Why `v` is not a kexp report that --compare can score (the parts fidelity.ts reads), or
 * undefined. Names the first bad field, e.g. `replicaSets[2].expectations is a string, not a list`.
 */
export function reportShapeError(v: unknown): string | undefined {
  if (!isRecord(v)) return `not a kexp report (the file holds ${what(v)}, not a report object)`;
  if (v.schemaVersion !== REPORT_SCHEMA_VERSION) {
    return `not a kexp report (schemaVersion ${JSON.stringify(v.schemaVersion) ?? 'undefined'}, expected ${REPORT_SCHEMA_VERSION})`;
  }
  if (!Array.isArray(v.replicaSets)) return `not a valid kexp report: replicaSets is ${what(v.replicaSets)}, not a list`;
  for (const [i, rs] of v.replicaSets.entries()) {
    const at = `replicaSets[${i}]`;
    if (!isRecord(rs)) return `not a valid kexp report: ${at} is ${what(rs)}, not an object`;
    if (typeof rs.key !== 'string') return `not a valid kexp report: ${at}.key is ${what(rs.key)}, not a string`;
    if (!isRecord(rs.initialState) || typeof rs.initialState.basis !== 'string') return `not a valid kexp report: ${at}.initialState is missing or malformed`;
    for (const list of ['expectations', 'gatedWindows'] as const) {
      const xs = rs[list];
      if (!Array.isArray(xs)) return `not a valid kexp report: ${at}.${list} is ${what(xs)}, not a list`;
      for (const [j, x] of xs.entries()) {
        const time = list === 'expectations' ? 'at' : 'start';
        if (!isRecord(x) || typeof x[time] !== 'string' || Number.isNaN(Date.parse(x[time]))) {
          return `not a valid kexp report: ${at}.${list}[${j}] has no valid "${time}" time`;
        }
        if (list === 'expectations' && typeof x.op !== 'string') return `not a valid kexp report: ${at}.expectations[${j}].op is ${what(x.op)}, not a string`;
      }
    }
  }
  return undefined;
}

interface ReadFile {
  file: string;
  events: ControllerLogEvent[];
  input: KcmLogResult['inputs'][number];
  relists: InformerRelist[];
}

async function readOne(f: string, o: KcmLogOptions, diagnostics: Diagnostics, year: number | undefined, stop?: ReadInterrupt, stdin = o.stdin): Promise<ReadFile> {
  const events: ControllerLogEvent[] = [];
  const src = await openKcmLogSource(f, { diagnostics, ...(year !== undefined ? { year } : {}), ...(stdin ? { stdin } : {}) });
  for await (const e of src.events) {
    if (stop?.reached(e.source)) break;
    if (e.type === 'controller-log') events.push(e);
  }
  const cov = src.coverage();
  const { informerRelists, ...stats } = src.stats();
  const value = cov.start !== undefined ? new Date(cov.start).getUTCFullYear() : undefined;
  const basis: KcmLogYear['basis'] = stats.yearBasis ?? 'in-records';
  return { file: f, events, relists: informerRelists, input: { file: f, format: src.format, start: iso(cov.start), end: iso(cov.end), year: { ...(value !== undefined ? { value } : {}), basis }, stats } };
}

/**
 * Reads every file. The year of klog text lines: --year; else, per file, its wrapper
 * timestamps; else the year another input of the same run tells (a wrapped or JSON log, which
 * carry full dates) — such a file is read again with it; else the file's mtime (the current
 * date for stdin), which is a guess and said so (`year.note`, printed on the file's Input line).
 */
async function readAll(o: KcmLogOptions, diagnostics: Diagnostics, stop?: ReadInterrupt): Promise<{ events: ControllerLogEvent[]; inputs: KcmLogResult['inputs']; relists: InformerRelist[] }> {
  const read: ReadFile[] = [];
  const stdin = stop && o.stdin ? stop.stdin(o.stdin) : o.stdin;
  for (const f of o.files) {
    if (read.length && stop?.stopped()) break; // interrupted: the files not started are not read
    read.push(await readOne(f, o, diagnostics, o.year, stop, stdin));
  }
  const guessed = (r: ReadFile) => r.input.year.basis === 'mtime' || r.input.year.basis === 'now';
  const told = read.find((r) => (r.input.year.basis === 'wrapper' || r.input.year.basis === 'in-records') && r.input.year.value !== undefined);
  for (const [i, r] of read.entries()) {
    if (!guessed(r)) continue;
    // stdin cannot be read twice; its year stays the current date's.
    if (told && r.file !== '-' && !o.signal?.aborted) {
      const again = await readOne(r.file, o, collectDiagnostics(), told.input.year.value);
      again.input.year = { value: again.input.year.value, basis: 'other-input', note: `year ${told.input.year.value} of the klog lines taken from ${told.file}` };
      read[i] = again;
      continue;
    }
    const y = r.input.year.value;
    const from = r.input.year.basis === 'mtime' ? "the file's modification time (mtime)" : 'the current date (stdin has no file time)';
    // Shown on the input's line of the report (text and JSON), not as a warning: the year is a
    // stated assumption, not a problem of the input.
    r.input.year.note = `klog lines carry no year; took ${y ?? '?'} from ${from}; pass --year if the log is from another year`;
  }
  return { events: read.flatMap((r) => r.events), inputs: read.map((r) => r.input), relists: read.flatMap((r) => r.relists) };
}

/** Throws InputError for unreadable inputs or a --compare file that is not a kexp report. */
export async function kcmLogFiles(o: KcmLogOptions): Promise<{ result: KcmLogResult; problems: InputProblem[]; interrupted?: string }> {
  const diagnostics = collectDiagnostics(o.onProblem, o.onWarning);
  const problems = diagnostics.problems;
  let report: Report | undefined;
  if (o.compare) {
    let text: string;
    try {
      text = fs.readFileSync(o.compare, 'utf8');
    } catch (err) {
      throw new InputError(o.compare, 0, `cannot read: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new InputError(o.compare, 0, 'not JSON; --compare expects the output of `kexp replay|audit -o json`');
    }
    const bad = reportShapeError(parsed);
    if (bad) throw new InputError(o.compare, 0, `${bad}; --compare expects the output of \`kexp replay|audit -o json\``);
    report = parsed as Report;
  }
  const stop = o.signal ? new ReadInterrupt(o.signal) : undefined;
  const read = await readAll(o, diagnostics, stop);
  // The ReplicationController manager's, the DaemonSet's and the Job's lines (attribute.ts) are read apart: reported with their kind.
  const byKind = new Map<KcmLogOwnerKind | undefined, ControllerLogEvent[]>();
  for (const e of read.events) {
    const l = byKind.get(e.ownerKind);
    if (l) l.push(e);
    else byKind.set(e.ownerKind, [e]);
  }
  for (const l of byKind.values()) l.sort(compareTimeline);
  const events = byKind.get(undefined) ?? [];
  const inputs = read.inputs;
  const log = controllerLogInput(o.files, events, compareTimeline);
  const truth = log.truths;
  const accounting = logAccounting(events);
  const seen = logRounds(events);
  const evs = eventsOf(events, seen);
  const rsUnkeyed = unkeyedLowers(events);
  let rss = [...truth.values()].sort((a, b) => a.rsKey.localeCompare(b.rsKey));
  if (o.rs) rss = rss.filter((g) => g.rsKey === o.rs);
  const restarts = [...new Set(rss.flatMap((g) => g.restarts))].sort((a, b) => a - b).map((t) => iso(t)!);
  // The -v of the log, from the lines of every kind read (-v is the process's; the RC manager runs the ReplicaSet code).
  const v = assessVerbosity(read.events.map((e) => e.logKind));
  // A line of another controller printed only at -v≥4 (the shared expectations code) proves it as well.
  if (!v.atLeastV4 && inputs.some((i) => (i.stats.v4LinesOfOthers ?? 0) > 0)) v.atLeastV4 = true;
  const verbosity: KcmLogResult['verbosity'] = { atLeastV4: v.atLeastV4, ...(inputs.some((i) => i.stats.olderThanModelled) ? { olderThanModelled: true } : {}) };
  // A log older than modelled is said so by its reader (one line); the -v rules below are those of modelled releases.
  if (!v.atLeastV4 && read.events.length > 0 && !verbosity.olderThanModelled) {
    const sync = v.linesByKind['finished-syncing'] ?? 0;
    verbosity.note =
      'the log is below -v=4 (no expectations or "Controller created pod" line): gate and expectations decisions are not visible ' +
      `(they need kube-controller-manager -v=4); rounds come from "Too few / Too many replicas" lines, syncs from ` +
      (sync > 0 ? `${sync} "Finished syncing" line(s)` : 'nothing (syncs not logged at this verbosity)');
    diagnostics.warn(verbosity.note);
  }
  const out: KcmLogResult = {
    schemaVersion: KCM_LOG_SCHEMA_VERSION,
    generator: { name: 'kexp', version: KEXP_VERSION, command: 'kcm-log' },
    inputs,
    verbosity,
    restarts,
    ...(read.relists.length ? { informerRelists: read.relists.map(relistOut) } : {}),
    replicaSets: rss.map((g) => toRS(g, accounting.get(g.rsKey), seen.get(g.rsKey), evs.get(g.rsKey), rsUnkeyed)),
  };
  const others: KcmLogReplicaSet[] = [];
  for (const kind of OTHER_KINDS) {
    const kindEvents = byKind.get(kind);
    if (!kindEvents) continue;
    const entries = ownerEntries(kind, kindEvents, o.rs);
    others.push(...entries);
    const starts = kindEvents.filter((e) => e.logKind === 'controller-started').map((e) => iso(e.at)!);
    if (entries.length && starts.length) (out.ownerKindRestarts ??= {})[kind] = [...new Set(starts)];
  }
  if (others.length) {
    // By key, and for one key in the order ReplicaSet, ReplicationController, DaemonSet, Job (a stable sort).
    out.replicaSets = [...out.replicaSets, ...others].sort((a, b) => a.key.localeCompare(b.key));
  }
  if (report) {
    const inReport = new Set(report.replicaSets.map((r) => r.key));
    if (rss.length > 0 && !rss.some((g) => inReport.has(g.rsKey))) {
      const list = (keys: string[]) => (keys.length ? keys.slice(0, 3).join(', ') + (keys.length > 3 ? ', …' : '') : 'none');
      diagnostics.warn(
        `${o.compare}: the report covers none of the log's ${rss.length} ReplicaSet(s) (log: ${list(rss.map((g) => g.rsKey))}; ` +
          `report: ${list([...inReport])}); every decision is scored unknown`,
      );
    }
    const fused = fuseControllerLog(report, log, { kind: 'report-file' });
    const scores: FidelityScore[] = [];
    // (the RCs' entries are not scored: --compare scores the report's ReplicaSets)
    const byKey = new Map(out.replicaSets.filter((r) => r.kind === undefined).map((r) => [r.key, r]));
    for (const g of rss) {
      const s = fused.scores.get(g.rsKey)!;
      byKey.get(g.rsKey)!.compare = s;
      scores.push(s);
    }
    out.compare = { report: o.compare!, overall: sumScores(scores) };
  }
  return { result: out, problems, ...(stop?.interrupted ? { interrupted: stop.describe() } : {}) };
}
