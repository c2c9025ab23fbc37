/**
 * kube-controller-manager log → ControllerLogEvents (`kexp kcm-log`).
 *
 * Reads klog text or JSON logs (plain, gzip, stdin; optionally CRI / docker json-file /
 * `kubectl logs --timestamps` wrapped) written at -v=4, keeps the ReplicaSet controller's
 * lines from the catalogue (controller-semantics.md §8) and emits them as ControllerLogEvents
 * (atBasis `log`, source = file:first line of the record), in time order; the
 * ReplicationController manager's, the DaemonSet controller's and the Job controller's lines
 * likewise, marked with their `ownerKind` (stats `ownerKinds`).
 *
 * - Lines of other controllers and uncatalogued lines are skipped silently and counted
 *   (`stats()`); malformed wrapper lines, impossible klog dates and cut-off partial lines are
 *   reported as input problems (FILE:LINE) and skipped.
 * - A file that is not a KCM log (an audit log, a watch dump, a recording, YAML) is rejected
 *   with an InputError that names the command that reads it.
 * - Which ReplicaSet a line is about, and whether it is about a ReplicaSet at all, follows the
 *   attribution rule documented in attribute.ts. That rule needs facts from the whole file
 *   (which keys are ReplicaSets, every sync's interval, the pairing of keyless lines), so the
 *   file is read twice; stdin is first spooled to a temporary file. Memory grows with the number
 *   of syncs and keyless expectations lines (tens of bytes each), not with the file size.
 * - klog headers have no year and are in KCM's local time zone: see clock.ts
 *   (`year`/`tzOffsetMinutes` options, defaults from wrapper timestamps, the other inputs' time
 *   (`otherInputsAt`) or the file's mtime, UTC).
 * - Log lines from concurrent goroutines can be a little out of order; a reorder window of
 *   REORDER_MS restores time order (later stragglers are emitted late and counted). Records more
 *   than OUT_OF_ORDER_MS earlier than one before them are kept and warned about (FILE:LINE).
 * - A record repeated verbatim within REORDER_MS (a log shipper's duplicate) is dropped, in both
 *   passes, with one warning naming the first duplicate.
 * - Damage: lines that are no log record at all (not klog, not JSON log, not a Go panic or other
 *   process output) after the first record are problems (before it they are a preamble — a
 *   container's shell lines — skipped with one warning, records.ts); so are catalogued values that are not valid (`creating=-7`),
 *   JSON records with a bad `ts`/`msg`, and a last line cut off without its newline. Damaged
 *   gzip data keeps every complete line before the damage and reports the damage at its line.
 * - Coverage `start`/`end` are the times of the first/last log record of the file (any
 *   controller), i.e. the span the log covers, not only the span of ReplicaSet lines.
 */
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import type { ControllerLogEvent, TimelineEvent } from '../../timeline/event.js';
import { isRecord } from '../../model/objects.js';
import { binaryKind } from '../binary-data.js';
import { InputCutError, LineSplitter, openInputBytes, skipBlankLines, type SplitLine } from '../input-stream.js';
import { type Diagnostics, type FileCoverage, InputError, type OpenedSource } from '../source.js';
import { FactsBuilder, type FileFacts, Resolver } from './attribute.js';
import { type ClockOptions, RecordClock, type TzBasis, type YearBasis } from './clock.js';
import { LOG_LINE_ENVELOPES, type LogEnvelopeName, unwrapLogLine } from '../envelope/registry.js';
import { KLOG_HEADER_RE } from './klog-text.js';
import { provesV4 } from './verbosity.js';
import { type InformerRelist, InformerRelists } from './informer-relists.js';
import { olderThanModelledNote, olderThanModelledWording } from './log-era.js';
import { type PhysicalLine, type RawRecord, RecordAssembler, type RecordItem } from './records.js';
import type { ParsedKcmLine } from './parse-line.js';
import { describeImplausible, implausibleAlone, latestFor } from '../../timeline/plausible-time.js';

export interface KcmLogOptions {
  diagnostics: Diagnostics;
  /** Year of the first klog header (klog prints none). Default: see clock.ts. */
  year?: number;
  /** KCM's time zone, minutes east of UTC. Default: from wrapper timestamps, else UTC. */
  tzOffsetMinutes?: number;
  /** Stream read when path is `-` (default process.stdin). */
  stdin?: NodeJS.ReadableStream;
  /** Reference time for the default year instead of the file's mtime (epoch ms; tests). */
  mtime?: number;
  /**
   * A time (epoch ms) the other inputs of the run show (`replay`/`audit` with `--kcm-log`):
   * without `year` or wrapper timestamps, the klog year is the one that puts the first record
   * nearest it (stats `yearBasis` `other-input`), not the mtime's.
   */
  otherInputsAt?: number;
  /**
   * Read only lines `from`…`to` (1-based, inclusive) of the file, keeping the file's line
   * numbers: the kube-controller-manager container log inside a `kubectl cluster-info dump`
   * printed to one file (src/sources/dump-log-blocks.ts). Not for stdin.
   */
  lines?: LineRange;
}

/** Lines `from`…`to` (1-based, inclusive) of a file. */
export interface LineRange {
  from: number;
  to: number;
}

export type KcmLogFormat = 'kcm-log-text' | 'kcm-log-json';

/** What was read and what was skipped, beyond FileCoverage. Valid once events are consumed. */
export interface KcmLogStats {
  physicalLines: number;
  /** Log records (klog text or JSON), continuation lines not counted. */
  records: number;
  textRecords: number;
  jsonRecords: number;
  /** Records per envelope they came in (registry order). */
  wrapped: Record<LogEnvelopeName, number>;
  continuationLines: number;
  blankLines: number;
  /** Non-empty lines that are no log record (e.g. Go panic output), the preamble's included. */
  unrecognisedLines: number;
  /**
   * The non-empty lines before the file's first log record (a container's shell preamble):
   * how many, the first and last line, and how many of them are not output a KCM process writes
   * (`notKlog`). Skipped with one warning when `notKlog` > 0, never a problem.
   */
  preamble?: { lines: number; from: number; to: number; notKlog: number };
  /** Records outside the catalogue (most of a -v=4 log: other controllers, informers, …). */
  uncatalogued: number;
  /** Catalogued lines written by other controllers, per controller family. */
  excluded: Record<string, number>;
  /** Shared-code lines (≤1.26, no logger) that could not be attributed; skipped. */
  ambiguous: number;
  /** ReplicaSet events emitted. */
  events: number;
  /**
   * Lines of the other controllers kexp reports (ReplicationController, DaemonSet, Job) emitted
   * with their kind, per kind: how many, and of their keyless lines how many took their key from
   * neighbouring lines (`contextResolved`) and how many could not (`contextUnresolved`, emitted
   * without a key). Absent when the log has none. They are counted in `excluded` too.
   */
  ownerKinds?: Partial<Record<NonNullable<ControllerLogEvent['ownerKind']>, { events: number; contextResolved: number; contextUnresolved: number }>>;
  /** Keyless (1.27+ `{}`) / clobbering lines whose ReplicaSet came from neighbouring lines. */
  contextResolved: number;
  /** … and those for which no neighbouring line told (emitted without rsKey). */
  contextUnresolved: number;
  /** Events that arrived after later ones had been emitted (beyond the reorder window). */
  late: number;
  /** Records more than OUT_OF_ORDER_MS earlier than a record before them (kept). */
  outOfOrder: number;
  /** Verbatim repeats of a record within REORDER_MS, dropped. */
  duplicates: number;
  problems: number;
  /**
   * Lines in wording only releases older than the oldest modelled one print (log-era.ts): the
   * first such line, its wording and how many there are. Said in one warning.
   */
  olderThanModelled?: { line: number; wording: string; lines: number };
  tzOffsetMinutes?: number;
  tzBasis?: TzBasis;
  yearBasis?: YearBasis;
  /** Lines of other controllers printed only at -v≥4 (shared expectations code): the process's -v is ≥4. */
  v4LinesOfOthers?: number;
  /** The release the process says it runs, from its first start-up line (startupVersion), and that line. */
  version?: { version: string; line: number };
  /** The Pod / ReplicaSet / ReplicationController informers' relists from their reflector lines (informer-relists.ts). */
  informerRelists: InformerRelist[];
}

export interface KcmOpenedSource extends OpenedSource {
  format: KcmLogFormat;
  stats(): KcmLogStats;
}

/** Lines that decide klog text or JSON, from the first log line on. */
const SNIFF_LINES = 200;
/**
 * Lines looked through for the first log line: a container's preamble (a shell's `set -x`, flag
 * deprecation notices, a wrapper's banner) can run to thousands of lines before kube-controller-
 * manager's first klog line; the reader skips it with one warning. Bounded by SNIFF_MAX_BYTES too.
 */
const SNIFF_PREAMBLE_LINES = 10_000;
const REORDER_MS = 5000;
/** Goroutines interleave lines by microseconds to milliseconds; a second back in time is damage. */
const OUT_OF_ORDER_MS = 1000;

/** Opens a kube-controller-manager log. Throws InputError when the file is unreadable or is not a KCM log. */
export async function openKcmLogSource(path: string, opts: KcmLogOptions): Promise<KcmOpenedSource> {
  const file = path;
  let readPath = path;
  let tmp: string | undefined;
  /** Gzip damage met while spooling stdin (the spooled text ends at it). */
  let stdinDamage: string | undefined;
  const clockOpts: ClockOptions = {};
  if (opts.year !== undefined) clockOpts.year = opts.year;
  if (opts.tzOffsetMinutes !== undefined) clockOpts.tzOffsetMinutes = opts.tzOffsetMinutes;

  if (path === '-') {
    tmp = await mkdtemp(join(tmpdir(), 'kexp-kcm-'));
    readPath = join(tmp, 'stdin.log');
    try {
      stdinDamage = await spool(opts.stdin, readPath);
    } catch (e) {
      await rm(tmp, { recursive: true, force: true });
      throw e;
    }
    clockOpts.reference = opts.mtime ?? Date.now();
    clockOpts.referenceKind = opts.mtime !== undefined ? 'mtime' : 'now';
  } else {
    if (opts.mtime !== undefined) clockOpts.reference = opts.mtime;
    else {
      try {
        clockOpts.reference = (await stat(path)).mtimeMs;
      } catch {
        /* openInputBytes reports it */
      }
    }
    clockOpts.referenceKind = 'mtime';
  }
  if (opts.otherInputsAt !== undefined) {
    clockOpts.reference = opts.otherInputsAt;
    clockOpts.referenceKind = 'other-input';
  }

  let format: KcmLogFormat;
  try {
    format = await sniff(readPath, file, opts.lines);
  } catch (e) {
    if (tmp) await rm(tmp, { recursive: true, force: true });
    throw e;
  }

  const stats: KcmLogStats = {
    physicalLines: 0,
    records: 0,
    textRecords: 0,
    jsonRecords: 0,
    wrapped: Object.fromEntries(LOG_LINE_ENVELOPES.map((e) => [e.name, 0])) as Record<LogEnvelopeName, number>,
    continuationLines: 0,
    blankLines: 0,
    unrecognisedLines: 0,
    uncatalogued: 0,
    excluded: {},
    ambiguous: 0,
    events: 0,
    contextResolved: 0,
    contextUnresolved: 0,
    late: 0,
    outOfOrder: 0,
    duplicates: 0,
    problems: 0,
    informerRelists: [],
  };
  let first: number | undefined;
  let last: number | undefined;
  /** Where the warnings point: the first line of each kind. */
  const firstLine: WarningLines = {};
  let maxBackMs = 0;

  async function* events(): AsyncGenerator<TimelineEvent> {
    try {
      // Pass 1: facts for the attribution rule.
      const facts = await collectFacts(readPath, file, clockOpts, stdinDamage, opts.lines);
      // Pass 2: resolve and emit.
      const clock = new RecordClock(clockOpts);
      // No record can be timed after the log is read, nor outside 2014–9000
      // (src/timeline/plausible-time.ts): such a record is a problem at its line and is left out.
      // The read-time bound judges the times the input states in full (a JSON record's ts, a
      // wrapper's timestamp); a klog header's year is not the input's but chosen (clock.ts: by
      // `--year`, the other inputs, the mtime), so only the range applies to it.
      const latest = (): number | undefined => latestFor(Date.now());
      const resolver = new Resolver(facts, file);
      const relists = new InformerRelists();
      const buffer = new Reorder(REORDER_MS);
      const dedup = new Dedup(REORDER_MS);
      let newest = -Infinity;
      let newestLine = 0;
      const problem = (line: number, message: string): void => {
        stats.problems++;
        opts.diagnostics.problem({ file, line, message });
      };
      const handle = (item: RecordItem, ready: ControllerLogEvent[]): void => {
        if (item.type !== 'record') {
          if (item.type === 'problem') problem(item.line, item.message);
          else if (item.type === 'continuation') stats.continuationLines++;
          else if (item.type === 'blank') stats.blankLines++;
          else {
            stats.unrecognisedLines++;
            if (item.preamble) {
              const p = (stats.preamble ??= { lines: 0, from: item.line, to: item.line, notKlog: 0 });
              p.lines++;
              p.to = item.line;
              if (item.junk !== undefined) p.notKlog++;
            } else if (item.junk !== undefined) problem(item.line, `not a log record (${item.junk}); skipped`);
          }
          return;
        }
        const r = item.record;
        let reported = false;
        const rec = clock.parse(r, (m) => {
          reported = true;
          problem(r.line, m);
        });
        if (!rec) {
          if (!reported) stats.unrecognisedLines++;
          return;
        }
        const badTime = implausibleAlone(rec.at, rec.format === 'json' || rec.wrapper !== undefined ? latest() : undefined);
        if (badTime) {
          problem(r.line, `${describeImplausible('record time', badTime)}; left out`);
          return;
        }
        const dupOf = dedup.check(r, rec.at);
        if (dupOf !== undefined) {
          stats.duplicates++;
          firstLine.duplicate ??= { line: r.line, of: dupOf };
          return;
        }
        if (rec.at < newest - OUT_OF_ORDER_MS) {
          stats.outOfOrder++;
          firstLine.outOfOrder ??= { line: r.line, newestLine, backMs: newest - rec.at };
          maxBackMs = Math.max(maxBackMs, newest - rec.at);
        }
        if (rec.at > newest) {
          newest = rec.at;
          newestLine = r.line;
        }
        if (rec.invalid) {
          problem(r.line, `invalid ${rec.invalid.join(', ')} in "${rec.msg.length > 60 ? `${rec.msg.slice(0, 60)}…` : rec.msg}"; left out (unknown)`);
        }
        stats.records++;
        if (rec.format === 'json') stats.jsonRecords++;
        else stats.textRecords++;
        if (rec.wrapper) stats.wrapped[rec.wrapper]++;
        if (first === undefined || rec.at < first) first = rec.at;
        if (last === undefined || rec.at > last) last = rec.at;
        const old = olderThanModelledWording(rec.msg, rec.structured);
        if (old !== undefined) {
          if (stats.olderThanModelled) stats.olderThanModelled.lines++;
          else stats.olderThanModelled = { line: r.line, wording: old, lines: 1 };
        }
        const res = resolver.resolve(rec, r.line, r.text);
        switch (res.status) {
          case 'uncatalogued':
            stats.uncatalogued++;
            if (rec.reflector) relists.see(rec.reflector, rec.at, { file, line: r.line });
            if (stats.version === undefined) {
              const v = startupVersion(rec, r.text);
              if (v) stats.version = { version: v, line: r.line };
            }
            break;
          case 'ambiguous':
            stats.ambiguous++;
            firstLine.ambiguous ??= r.line;
            break;
          case 'excluded':
            stats.excluded[res.family] = (stats.excluded[res.family] ?? 0) + 1;
            // -v is the process's: another controller's -v≥4 line (a DaemonSet's expectations) proves it too.
            if (rec.kind !== undefined && provesV4(rec.kind)) stats.v4LinesOfOthers = (stats.v4LinesOfOthers ?? 0) + 1;
            // A ReplicationController, DaemonSet or Job line goes on (its reader reports it with its
            // kind), counted as before: with the other controllers' lines, not among the ReplicaSet events.
            if (res.event) {
              const kind = res.event.ownerKind!;
              const k = ((stats.ownerKinds ??= {})[kind] ??= { events: 0, contextResolved: 0, contextUnresolved: 0 });
              k.events++;
              if (res.context === 'resolved') k.contextResolved++;
              else if (res.context === 'unresolved') {
                k.contextUnresolved++;
                (firstLine.unresolvedOf ??= {})[kind] ??= r.line;
              }
              buffer.push(res.event);
              for (const e of buffer.drain(false)) ready.push(e);
            }
            break;
          case 'rs':
            if (res.context === 'resolved') stats.contextResolved++;
            else if (res.context === 'unresolved') {
              stats.contextUnresolved++;
              firstLine.unresolved ??= r.line;
            }
            buffer.push(res.event);
            for (const e of buffer.drain(false)) ready.push(e);
        }
      };
      const ready: ControllerLogEvent[] = [];
      for await (const batch of recordBatches(readPath, file, stats, stdinDamage, opts.lines)) {
        for (const item of batch) handle(item, ready);
        for (const e of ready) if (e.ownerKind === undefined) stats.events++;
        yield* ready;
        ready.length = 0;
      }
      for (const e of buffer.drain(true)) {
        if (e.ownerKind === undefined) stats.events++;
        yield e;
      }
      stats.late = buffer.late;
      stats.informerRelists = relists.relists();
      if (clock.tzOffsetMinutes !== undefined) stats.tzOffsetMinutes = clock.tzOffsetMinutes;
      if (clock.tzBasis) stats.tzBasis = clock.tzBasis;
      if (clock.yearBasis) stats.yearBasis = clock.yearBasis;
      warnings(file, stats, opts.diagnostics, firstLine, maxBackMs);
    } finally {
      if (tmp) await rm(tmp, { recursive: true, force: true });
    }
  }

  return {
    file,
    format,
    timeBasis: 'log',
    events: events(),
    coverage(): FileCoverage {
      const c: FileCoverage = {
        file,
        format,
        timeBasis: 'log',
        endMarker: false,
        events: stats.events,
        problems: stats.problems,
      };
      if (first !== undefined) c.start = first;
      if (last !== undefined) c.end = last;
      return c;
    },
    stats: () => stats,
  };
}

/** The lines the end-of-file warnings point at (the first of each kind). */
interface WarningLines {
  ambiguous?: number;
  unresolved?: number;
  /** The first keyless line of each other kind that no neighbouring line tied to a key. */
  unresolvedOf?: Partial<Record<NonNullable<ControllerLogEvent['ownerKind']>, number>>;
  outOfOrder?: { line: number; newestLine: number; backMs: number };
  duplicate?: { line: number; of: number };
}

function warnings(
  file: string,
  s: KcmLogStats,
  d: Diagnostics,
  at: WarningLines,
  maxBackMs: number,
): void {
  const where = (line: number | undefined) => (line !== undefined ? `${file}:${line}` : file);
  if (s.preamble && s.preamble.notKlog > 0) {
    const p = s.preamble;
    d.warn(
      `${where(p.from)}: skipped ${p.lines} line${p.lines === 1 ? '' : 's'} before the first log record ` +
        `(line${p.from === p.to ? ` ${p.from}` : `s ${p.from}–${p.to}`}: not klog, e.g. a container's shell preamble)`,
    );
  }
  if (s.olderThanModelled) {
    const o = s.olderThanModelled;
    d.warn(olderThanModelledNote(where(o.line), o.wording, o.lines));
  }
  // (a log of the ReplicationController manager, the DaemonSet or the Job controller alone has its lines: they are reported with their kind)
  if (s.records > 0 && s.events === 0 && !s.olderThanModelled && !s.ownerKinds) {
    d.warn(
      `${file}: no ReplicaSet, ReplicationController, DaemonSet or Job controller lines found in ${s.records} log records; ` +
        'kexp needs kube-controller-manager logs written at -v=4 (--v=4) with those controllers enabled',
    );
  }
  if (s.ambiguous > 0) {
    d.warn(
      `${where(at.ambiguous)}: ${s.ambiguous} line(s) from code the ReplicaSet, ReplicationController, DaemonSet and Job controllers share ` +
        '(no logger name; a key no line of a known controller names, or that two controllers\' lines name) could not be attributed to a kind ' +
        'and were skipped (unknown kind; the first is this line)',
    );
  }
  if (s.contextUnresolved > 0) {
    d.warn(
      `${where(at.unresolved)}: ${s.contextUnresolved} expectations line(s) name no ReplicaSet (v1.27+ logs the expectations as {}) and ` +
        'could not be matched to one from neighbouring lines; they are reported without a ReplicaSet (the first is this line)',
    );
  }
  for (const [kind, k] of Object.entries(s.ownerKinds ?? {})) {
    if (!k.contextUnresolved) continue;
    d.warn(
      `${where(at.unresolvedOf?.[kind as keyof NonNullable<WarningLines['unresolvedOf']>])}: ${k.contextUnresolved} expectations line(s) of the ${kind} controller name no ${kind} ` +
        '(v1.27+ logs the expectations as {}) and could not be matched to one from neighbouring lines; they are reported without a key (the first is this line)',
    );
  }
  if (s.outOfOrder > 0 && at.outOfOrder) {
    const o = at.outOfOrder;
    d.warn(
      `${where(o.line)}: ${s.outOfOrder} log record(s) are more than ${OUT_OF_ORDER_MS / 1000} s earlier than a record before them ` +
        `(up to ${(maxBackMs / 1000).toFixed(1)} s; the first is this line, ${(o.backMs / 1000).toFixed(1)} s before line ${o.newestLine}); ` +
        'they were kept and put in time order' +
        (s.late > 0 ? `, ${s.late} of them beyond the ${REORDER_MS / 1000} s reorder window` : ''),
    );
  }
  if (s.duplicates > 0 && at.duplicate) {
    d.warn(
      `${where(at.duplicate.line)}: ${s.duplicates} duplicate log record(s) (the same text as an earlier record within ${REORDER_MS / 1000} s) ` +
        `were dropped; this line repeats line ${at.duplicate.of}`,
    );
  }
}

/**
 * Drops verbatim repeats of a record (log shippers re-send lines): the same text (and wrapper
 * time) as a record less than `windowMs` of log time earlier. Deterministic, so both passes drop
 * the same lines.
 */
class Dedup {
  private readonly seen = new Map<string, { line: number; at: number }>();
  private readonly order: Array<{ key: string; at: number }> = [];
  private head = 0;
  private newest = -Infinity;

  constructor(private readonly windowMs: number) {}

  /** The line of the earlier record `r` repeats, or undefined (then `r` is remembered). */
  check(r: RawRecord, at: number): number | undefined {
    const key = r.wrapperAt !== undefined ? `${r.wrapperAt}\u0000${r.text}` : r.text;
    const prev = this.seen.get(key);
    if (prev && Math.abs(at - prev.at) <= this.windowMs) return prev.line;
    if (at > this.newest) this.newest = at;
    while (this.head < this.order.length && this.order[this.head]!.at < this.newest - this.windowMs) {
      const o = this.order[this.head++]!;
      const cur = this.seen.get(o.key);
      if (cur && cur.at === o.at) this.seen.delete(o.key);
    }
    if (this.head > 4096) {
      this.order.splice(0, this.head);
      this.head = 0;
    }
    this.seen.set(key, { line: r.line, at });
    this.order.push({ key, at });
    return undefined;
  }
}

/**
 * The input stopped early after good data (thrown by openInputBytes after the bytes before it:
 * damaged gzip, trailing garbage after the gzip data, endless binary data): what to report at
 * the line it cut, else undefined.
 */
function gzipDamage(e: unknown): string | undefined {
  if (!(e instanceof InputCutError)) return undefined;
  const zlib = /^gzip data is corrupt\/truncated after \d+ bytes \(zlib: ([^)]*)\)$/.exec(e.reason);
  return zlib ? `gzip data is damaged or truncated here (zlib: ${zlib[1]})` : e.reason;
}

/** Copies stdin (decompressed) to `to`; returns the gzip damage that ended it early, if any. */
async function spool(stdin: NodeJS.ReadableStream | undefined, to: string): Promise<string | undefined> {
  const input = await openInputBytes('-', stdin);
  const out = createWriteStream(to);
  try {
    for await (const chunk of input.stream) {
      if (!out.write(chunk)) await once(out, 'drain');
    }
    return undefined;
  } catch (e) {
    const damage = gzipDamage(e);
    if (damage === undefined) throw e;
    return damage;
  } finally {
    out.end();
    await once(out, 'close');
  }
}

/**
 * Reads the file and yields its record items in batches (one batch per read chunk), so the
 * per-line work stays synchronous.
 */
async function* recordBatches(readPath: string, file: string, stats?: KcmLogStats, spoolDamage?: string, range?: LineRange): AsyncGenerator<RecordItem[]> {
  const input = await openInputBytes(readPath);
  const splitter = new LineSplitter();
  const assembler = new RecordAssembler();
  const lines: SplitLine[] = [];
  let damage = spoolDamage;
  /** Keeps the lines inside `range` (all without one); true once the range is behind. */
  const inRange = (ls: SplitLine[]): boolean => {
    if (!range) return false;
    let w = 0;
    for (const l of ls) if (l.line >= range.from && l.line <= range.to) ls[w++] = l;
    const past = ls.length > 0 && ls[ls.length - 1]!.line >= range.to;
    ls.length = w;
    return past;
  };
  try {
    for await (const chunk of input.stream) {
      lines.length = 0;
      splitter.push(chunk, lines);
      const past = inRange(lines);
      const out: RecordItem[] = [];
      for (const l of lines) assembler.push(physical(l), out);
      if (stats) stats.physicalLines += lines.length;
      if (out.length > 0) yield out;
      if (past) {
        // The rest of the file is not this log (the dump's next Lists): stop reading.
        const out: RecordItem[] = [];
        assembler.end(out);
        if (out.length > 0) yield out;
        return;
      }
    }
  } catch (e) {
    damage = gzipDamage(e);
    if (damage === undefined) {
      // Errors name the temporary file for stdin; name what the user gave.
      if (e instanceof InputError && e.file !== file) throw new InputError(file, e.line, e.message.replace(`${e.file}: `, ''));
      throw e;
    }
  }
  const out: RecordItem[] = [];
  if (damage !== undefined) {
    // Every complete line before the damage was read; the line it cut is reported, not parsed.
    const line = splitter.linesSeen + 1;
    assembler.end(out);
    out.push({
      type: 'problem',
      line,
      message: `${damage}; the ${splitter.linesSeen} complete line(s) before it were read`,
    });
    if (stats) stats.physicalLines += 1;
    yield out;
    return;
  }
  lines.length = 0;
  splitter.end(lines);
  inRange(lines);
  for (const l of lines) assembler.push(physical(l), out);
  if (stats) stats.physicalLines += lines.length;
  assembler.end(out);
  if (out.length > 0) yield out;
}

function physical(l: SplitLine): PhysicalLine {
  const p: PhysicalLine = { line: l.line, text: l.text };
  if (l.tooLongBytes !== undefined) p.tooLongBytes = l.tooLongBytes;
  if (l.truncatedFinal) p.truncatedFinal = true;
  return p;
}

/** Longest line looked at while sniffing (longer ones are skipped by the sniffer). */
const SNIFF_MAX_LINE_BYTES = 1 << 20;
/** Bytes of content (after the leading blank lines) read at most while sniffing. */
const SNIFF_MAX_BYTES = 8 << 20;

/**
 * The first lines with content, for sniffing: at most `max` non-blank lines and
 * SNIFF_MAX_BYTES of content. Leading blank lines, any amount of them, are only counted
 * (`skipBlankLines`), so memory stays bounded and line numbers stay right; the content's
 * first bytes are checked for binary data (NUL bytes, `/dev/zero`) before any line is split,
 * so a binary input is rejected after one read instead of being searched for a line break.
 */
async function headLines(readPath: string, file: string, max: number, range?: LineRange): Promise<SplitLine[]> {
  const input = await openInputBytes(readPath);
  const it = input.stream[Symbol.asyncIterator]();
  const out: SplitLine[] = [];
  const rename = (e: unknown): unknown =>
    e instanceof InputError && e.file !== file ? new InputError(file, e.line, e.message.replace(`${e.file}: `, '')) : e;
  try {
    const pull = async (): Promise<Buffer | undefined> => {
      const r = await it.next();
      return r.done ? undefined : r.value;
    };
    const skipped = await skipBlankLines(pull);
    if (skipped.rest === undefined) return out;
    const bin = range ? undefined : binaryKind(skipped.rest.subarray(firstNonBlank(skipped.rest)));
    if (bin) throw new InputError(file, 0, `${bin}; not a kube-controller-manager log`);
    const splitter = new LineSplitter({ maxLineBytes: SNIFF_MAX_LINE_BYTES, firstLine: skipped.lines + 1 });
    const lines: SplitLine[] = [];
    let bytes = 0;
    let chunk: Buffer | undefined = skipped.rest;
    let nonBlank = 0;
    const take = (ls: SplitLine[]): boolean => {
      for (const l of ls) {
        if (range && l.line < range.from) continue;
        if (range && l.line > range.to) return true;
        if (l.tooLongBytes === undefined && l.text.trim() === '') continue;
        out.push(l);
        if (++nonBlank >= max) return true;
      }
      return false;
    };
    while (chunk !== undefined) {
      lines.length = 0;
      if (take(splitter.push(chunk, lines))) return out;
      // Within a range, the bytes before it (the dump's Lists) do not count against the limit.
      if (!range || splitter.linesSeen >= range.from) bytes += chunk.length;
      if (bytes >= SNIFF_MAX_BYTES) return out;
      chunk = await pull();
    }
    lines.length = 0;
    take(splitter.end(lines));
  } catch (e) {
    if (gzipDamage(e) !== undefined) return out; // reported when the file is read
    throw rename(e);
  } finally {
    await it.return?.(undefined);
  }
  return out;
}

/** Index of the first byte that is not a blank (space, tab, CR, LF). */
function firstNonBlank(b: Buffer): number {
  let i = 0;
  while (i < b.length && (b[i] === 32 || b[i] === 9 || b[i] === 13 || b[i] === 10)) i++;
  return i;
}

async function collectFacts(readPath: string, file: string, clockOpts: ClockOptions, spoolDamage: string | undefined, range: LineRange | undefined): Promise<FileFacts> {
  const clock = new RecordClock(clockOpts);
  const facts = new FactsBuilder();
  const dedup = new Dedup(REORDER_MS);
  for await (const batch of recordBatches(readPath, file, undefined, spoolDamage, range)) {
    for (const item of batch) {
      if (item.type !== 'record') continue;
      const rec = clock.parse(item.record);
      if (!rec || dedup.check(item.record, rec.at) !== undefined) continue;
      if (rec.kind !== undefined || rec.otherKey) facts.add(rec, item.record.line);
    }
  }
  return facts.finish();
}

// ---------------------------------------------------------------------------------------------
// sniffing

interface Foreign {
  what: string;
  hint: string;
}

const AUDIT_HINT = 'read it with `kexp audit`';
const REPLAY_HINT = 'read it with `kexp replay`';

function foreignJson(o: unknown): Foreign | undefined {
  if (Array.isArray(o)) return { what: 'a JSON array', hint: 'read watch dumps with `kexp replay` and audit logs with `kexp audit`' };
  if (!isRecord(o)) return undefined;
  if ('kexpRecording' in o || ('recv' in o && 'event' in o)) return { what: 'a kexp recording', hint: REPLAY_HINT };
  const apiVersion = typeof o.apiVersion === 'string' ? o.apiVersion : '';
  if (apiVersion.startsWith('audit.k8s.io') || 'auditID' in o) return { what: 'an apiserver audit log', hint: AUDIT_HINT };
  if ('protoPayload' in o || 'logEvents' in o || ('records' in o && Array.isArray(o.records)) || 'messageType' in o) {
    return { what: 'a cloud audit-log export', hint: AUDIT_HINT };
  }
  if (typeof o.type === 'string' && /^(ADDED|MODIFIED|DELETED|BOOKMARK|ERROR)$/.test(o.type) && 'object' in o) {
    return { what: 'a watch stream', hint: REPLAY_HINT };
  }
  if (apiVersion && typeof o.kind === 'string') return { what: `a Kubernetes ${o.kind} document`, hint: REPLAY_HINT };
  return undefined;
}

function foreignText(line: string): Foreign | undefined {
  const t = line.trim();
  if (/^\S+ AUDIT: id="/.test(t)) return { what: 'a legacy text audit log', hint: AUDIT_HINT };
  if (/^(apiVersion|kind):\s/.test(t) || t === '---') return { what: 'a YAML document (kubectl get -o yaml)', hint: REPLAY_HINT };
  if (t === '{' || t === '[') return { what: 'a pretty-printed JSON document', hint: 'read watch dumps with `kexp replay` and audit logs with `kexp audit`' };
  return undefined;
}

async function sniff(readPath: string, file: string, range?: LineRange): Promise<KcmLogFormat> {
  let text = 0;
  let json = 0;
  let nonEmpty = 0;
  let firstForeign: { line: number; f: Foreign } | undefined;
  let sinceFirst = 0;
  for (const l of await headLines(readPath, file, SNIFF_PREAMBLE_LINES, range)) {
    if (l.tooLongBytes !== undefined || l.text.trim() === '') continue;
    nonEmpty++;
    // Before the first log line: a preamble (looked through, up to SNIFF_PREAMBLE_LINES); from
    // it on, SNIFF_LINES lines decide the format. Without a log line, a foreign first line or the
    // first SNIFF_LINES lines say what the input is.
    if (text + json > 0 ? ++sinceFirst > SNIFF_LINES : firstForeign !== undefined) break;
    const u = unwrapLogLine(l.text);
    if (u.error) continue;
    const inner = u.inner;
    if (KLOG_HEADER_RE.test(inner)) {
      text++;
      continue;
    }
    if (inner.charCodeAt(0) === 0x7b) {
      let v: unknown;
      try {
        v = JSON.parse(inner);
      } catch {
        v = undefined;
      }
      if (isRecord(v) && typeof v.ts === 'number' && typeof v.msg === 'string') {
        json++;
        continue;
      }
      if (text + json === 0 && !firstForeign) {
        const f = foreignJson(v);
        if (f) firstForeign = { line: l.line, f };
      }
      continue;
    }
    if (text + json === 0 && !firstForeign && nonEmpty === 1) {
      const f = foreignText(inner);
      if (f) firstForeign = { line: l.line, f };
    }
  }
  if (firstForeign && text + json === 0) {
    throw new InputError(file, firstForeign.line, `this is ${firstForeign.f.what}, not a kube-controller-manager log; ${firstForeign.f.hint}`);
  }
  if (nonEmpty === 0) throw new InputError(file, 0, 'file holds no log lines');
  if (text + json === 0) {
    throw new InputError(
      file,
      0,
      `not a kube-controller-manager log: none of the first ${nonEmpty.toLocaleString('en-US')} lines is a klog line ` +
        '(`I0304 10:15:02.123456 1 file.go:123] …`) or a JSON log line (`{"ts":…,"msg":…}`)',
    );
  }
  return json > text ? 'kcm-log-json' : 'kcm-log-text';
}

// ---------------------------------------------------------------------------------------------
// reorder window

class Reorder {
  private heap: Array<{ e: ControllerLogEvent; seq: number }> = [];
  private seq = 0;
  private newest = -Infinity;
  private released = -Infinity;
  late = 0;

  constructor(private readonly windowMs: number) {}

  push(e: ControllerLogEvent): void {
    if (e.at < this.released) this.late++;
    if (e.at > this.newest) this.newest = e.at;
    const h = this.heap;
    const item = { e, seq: this.seq++ };
    h.push(item);
    let i = h.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!less(item, h[p]!)) break;
      h[i] = h[p]!;
      i = p;
    }
    h[i] = item;
  }

  *drain(all: boolean): Generator<ControllerLogEvent> {
    const limit = all ? Infinity : this.newest - this.windowMs;
    while (this.heap.length > 0 && (all || this.heap[0]!.e.at <= limit)) {
      const top = this.pop();
      if (top.e.at > this.released) this.released = top.e.at;
      yield top.e;
    }
  }

  private pop(): { e: ControllerLogEvent; seq: number } {
    const h = this.heap;
    const top = h[0]!;
    const lastItem = h.pop()!;
    if (h.length === 0) return top;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = -1;
      let best = lastItem;
      if (l < h.length && less(h[l]!, best)) {
        m = l;
        best = h[l]!;
      }
      if (r < h.length && less(h[r]!, best)) {
        m = r;
        best = h[r]!;
      }
      if (m < 0) break;
      h[i] = h[m]!;
      i = m;
    }
    h[i] = lastItem;
    return top;
  }
}

function less(a: { e: ControllerLogEvent; seq: number }, b: { e: ControllerLogEvent; seq: number }): boolean {
  return a.e.at < b.e.at || (a.e.at === b.e.at && a.seq < b.seq);
}

/**
 * The kube-controller-manager start-up line naming its release: `Version: v1.21.1+38b3ecc`
 * (klog.Infof in cmd/kube-controller-manager/app/controllermanager.go Run, up to about 1.26) or
 * `"Starting" version="v1.37.2"` (logger.Info there from contextual logging on).
 */
function startupVersion(rec: ParsedKcmLine, text: string): string | undefined {
  if (rec.file !== undefined && rec.file !== 'controllermanager.go') return undefined;
  const m = /^Version: (v\d+\.\d+\.\d+\S*)$/.exec(rec.msg);
  if (m) return m[1];
  if (rec.structured && rec.msg === 'Starting') {
    const v = /(?:^|\s|")version"?[=:]\s*"?(v\d+\.\d+\.\d+[^"\s,}]*)/.exec(text);
    if (v) return v[1];
  }
  return undefined;
}
