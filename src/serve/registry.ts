/**
 * The live registry: every ReplicaSet, ReplicationController, DaemonSet and Job `kexp serve`
 * follows, and the current report of each. It is the sink of serve's reflectors (cluster-watch.ts)
 * and the one place that runs the engine. Every line of the stream goes to the journal of each
 * owner it concerns (line-routing.ts: the owner's own object, its pods, the Events about them, its
 * Namespace, the Nodes for a DaemonSet, orphans of its namespace); an evaluation replays, through
 * pipeline/replay-files.ts — the same reader, one engine per owner kind
 * (pipeline/owner-kind-replay.ts) and report builder as `kexp replay` and `kexp explain --watch` —
 * only the journals of the owners whose report may have changed, and keeps the others' reports.
 *
 * Contract:
 * - `sink(resource)` is a ReflectorSink: events are routed to the owners' journals (redacted) and
 *   counted; gaps go to every owner's journal (the replay reports them) and are counted as watch
 *   restarts; an owner's labels are kept for `-l`.
 * - `evaluate(now)` (one evaluation at a time: a call during one waits for it and returns its
 *   result) replays an owner's journal to `now` unless its last report is stable: no line since
 *   its last replay, every report of it settled (`healthy` or `deleted`, no open gated window),
 *   its model's next sync not yet due (replay-files.ts `nextDue`: the controller's workqueue after
 *   the end — requeues, backoff retries), and a replay with no new line at a later end gave the
 *   same report but for its end (the input's end, the adoption table's time). A stable owner's
 *   report is the one a replay to `now` gives (nothing new to replay and nothing due in its model),
 *   with its end moved to `now`; test/serve/incremental.test.ts checks every evaluation against a
 *   replay of the whole stream. A journal holding lines older than 2 × `historyMs` is replayed
 *   (and folded to `historyMs`, journal.ts) whatever its state.
 * - The Evaluation holds the Report (generator.command `serve`, evidence cited as
 *   `serve-journal:SEQ`, SEQ the line's number in serve's stream, stable across evaluations)
 *   narrowed to the selection (`-l` on the owner's labels), each object's entry by
 *   `Kind/namespace/name`, and each object's report as `kexp replay` of its journal gives it
 *   (`reportOf`). What came before serve started (or before its journal's fold) is unknown to the
 *   replay, which says so per object (`initialState.basis: unknown`).
 * - `ready` once every watch delivered its initial list (cluster-watch.ts calls `synced`).
 *
 * Cost: memory O(objects) for the journals' bases (one redacted object each; a line shared by
 * several owners is one object) + O(events within 2 × historyMs) + the last reports; an
 * evaluation replays the owners with new lines (each twice: when the line comes and at the next
 * evaluation, to prove its report stable), with a sync due or an unsettled report, each
 * O(its journal), and O(owners) to assemble the rest.
 */
import { Readable } from 'node:stream';
import { REPORT_SCHEMA_VERSION, type Report, type ReplicaSetReport } from '../analysis/report-types.js';
import { DEFAULT_K8S_VERSION } from '../model/version.js';
import { ownerKindOf } from '../analysis/report/owner-kind.js';
import type { LabelSelector } from '../model/objects.js';
import { labelSelectorMatches } from '../model/selector.js';
import type { ReflectorSink } from '../sources/live/reflector.js';
import type { RecordingWatch } from '../sources/watch/recording-format.js';
import { KEXP_VERSION } from '../version.js';
import { eventLine, gapLine, Journal, OWNER_RESOURCES, type JournalLine, type JournalRecording } from './journal.js';
import { KIND_OF_RESOURCE, LineRouting } from './line-routing.js';

/** The file name evidence is cited by: `serve-journal:SEQ`, SEQ the line's number in serve's stream. */
export const JOURNAL_CITE = 'serve-journal';

/** Verdicts that stay as they are while nothing new arrives (with no open window). */
const SETTLED_VERDICTS = new Set(['healthy', 'deleted']);

/** Owner kinds in the order `kexp replay` reports them (ReplicaSets, then RCs, DaemonSets, Jobs). */
const KIND_ORDER = ['ReplicaSet', 'ReplicationController', 'DaemonSet', 'Job'];

/** A Report without its entries: what an object's report shares with the others of its journal. */
export type ReportFrame = Omit<Report, 'replicaSets'>;

export interface RegistryOptions {
  /** How long the journal keeps events before folding them into its base (ms). */
  historyMs: number;
  /** `-n NS`: the namespace followed (undefined: every namespace). */
  namespace?: string;
  /** `-l`: only owners whose labels match are reported. */
  selector?: LabelSelector;
  /** The watches, for the journal's header. */
  watches: RecordingWatch[];
  serverVersion?: string;
  /** Receives the replay's warnings (once each). */
  onWarning?: (m: string) => void;
}

/** One owner's journal and its last replay. */
interface OwnerJournal {
  journal: Journal;
  /** Lines appended since its last replay. */
  fresh: boolean;
  /** Receive time of its last line. */
  lastLineAt: number;
  last?: {
    frame: ReportFrame;
    entries: ReplicaSetReport[];
    problems: number;
    /** Every report of it settled (SETTLED_VERDICTS, no open window). */
    settled: boolean;
    /** Settled, and a replay at a later time with no new line gave the same report but for its end: kept until a new line or `nextDue`. */
    stable: boolean;
    /** When its model's next sync is due (replay-files.ts `nextDue`): it is replayed again then. */
    nextDue?: number;
  };
}

export interface Evaluation {
  /** The time the replay ran to (epoch ms). */
  at: number;
  /** How long the evaluation took (ms). */
  tookMs: number;
  report: Report;
  /** Each reported object's entry, by `Kind/namespace/name`. */
  objects: Map<string, ReplicaSetReport>;
  /** Journal lines replayed. */
  lines: number;
  /** Input problems the replays found (malformed objects). */
  problems: number;
  /** Owners replayed by this evaluation (the others' reports were kept). */
  replayed: number;
  /** Each reported object's report frame and its journal's lines, by `Kind/namespace/name`. */
  frames: Map<string, { frame: ReportFrame; lines: number; problems: number }>;
}

/** The report `kexp replay` gives for one object of an evaluation: its journal's frame and its entry. */
export function reportOf(ev: Evaluation, id: string): Report | undefined {
  const entry = ev.objects.get(id);
  const f = ev.frames.get(id);
  if (!entry || !f) return undefined;
  return { ...f.frame, replicaSets: [entry] };
}

/** A replay's frame and entries as a replay of the same journal to `end` gives them: the end moved (the input's and the adoption table's). */
function atEnd(l: { frame: ReportFrame; entries: ReplicaSetReport[] }, end: string): { frame: ReportFrame; entries: ReplicaSetReport[] } {
  const was = l.frame.coverage.end;
  return {
    frame: { ...l.frame, inputs: l.frame.inputs.map((i) => ({ ...i, end })), coverage: { ...l.frame.coverage, end } },
    // The adoption table is stated at the end of the input.
    entries: l.entries.map((r) => (r.adoption && r.adoption.at === was ? { ...r, adoption: { ...r.adoption, at: end } } : r)),
  };
}

/** The report's citations of the replayed recording (`-:LINE`) as `serve-journal:SEQ`. */
function citeSeqs(json: string, seqs: number[]): string {
  return json.replace(/(?<![\w./-])-:(\d+)\b/g, (_m, n: string) => {
    const seq = seqs[Number(n) - 1];
    return `${JOURNAL_CITE}:${seq === undefined ? `?${n}` : seq < 0 ? 'end' : seq}`;
  });
}

export function objectId(kind: string, namespace: string, name: string): string {
  return `${kind}/${namespace}/${name}`;
}

/**
 * Replays one journal recording (journal.ts `recording`) as `kexp replay` does, from memory: the
 * Report with generator.command `serve`, its input named `serve-journal` and every citation
 * `serve-journal:SEQ`; the warnings cited the same way.
 */
export async function replayJournal(rec: JournalRecording, onWarning?: (m: string) => void): Promise<{ report: Report; problems: number; nextDue?: number }> {
  const { replayFiles } = await import('../pipeline/replay-files.js');
  const rep = await replayFiles({ files: ['-'], stdin: Readable.from([rec.text]), onWarning: (m) => onWarning?.(citeSeqs(m, rec.seqs)) });
  const report = JSON.parse(citeSeqs(JSON.stringify(rep.report), rec.seqs)) as Report;
  report.generator = { ...report.generator, command: 'serve' };
  report.inputs = report.inputs.map((i) => (i.file === '-' ? { ...i, file: JOURNAL_CITE } : i));
  return { report, problems: rep.problems.length, ...(rep.nextDue !== undefined ? { nextDue: rep.nextDue } : {}) };
}

export class ServeRegistry {
  /** Events journaled, per resource. */
  readonly eventsByResource = new Map<string, number>();
  /** Watch restarts (gaps and resumed reconnects), per resource and reason. */
  readonly watchRestarts = new Map<string, number>();
  /** Objects of each owner kind the watches currently show (before `-l`). */
  private readonly owners = new Map<string, Map<string, Record<string, string>>>();
  private readonly unsynced = new Set<string>();
  private readonly routing = new LineRouting();
  private readonly journals = new Map<string, OwnerJournal>();
  /** Lines received (the last line's SEQ). */
  private seq = 0;
  private startedAt?: number;
  private running?: Promise<Evaluation>;
  private readonly warned = new Set<string>();
  last?: Evaluation;
  evaluations = 0;

  constructor(private readonly o: RegistryOptions) {
    for (const w of o.watches) this.unsynced.add(w.resource);
  }

  /** Whether every watch has delivered its initial list. */
  get ready(): boolean {
    return this.unsynced.size === 0;
  }

  /** The watches still waiting for their initial list. */
  get pending(): string[] {
    return [...this.unsynced];
  }

  /** When what serve knows begins: its first line (undefined before any). */
  get coverageStart(): number | undefined {
    return this.startedAt;
  }

  /** Lines kept in the owners' journals (a line shared by several owners counts for each), owners, and lines received. */
  get journalSize(): { lines: number; owners: number; received: number } {
    let lines = 0;
    for (const j of this.journals.values()) lines += j.journal.size.lines;
    return { lines, owners: this.journals.size, received: this.seq };
  }

  /** A watch that will never sync (forbidden optional watch): readiness stops waiting for it. */
  dropWatch(resource: string): void {
    this.unsynced.delete(resource);
  }

  /** Owner objects the watches show now, per kind (after `-l`). */
  tracked(): Map<string, number> {
    const out = new Map<string, number>();
    for (const [res, m] of this.owners) {
      let n = 0;
      for (const labels of m.values()) if (!this.o.selector || labelSelectorMatches(this.o.selector, labels)) n++;
      out.set(KIND_OF_RESOURCE[res]!, n);
    }
    return out;
  }

  sink(resource: string): ReflectorSink {
    return {
      event: (type, object, at, synthetic) => {
        if (type === 'BOOKMARK') return;
        this.journal(eventLine(++this.seq, resource, type, object, at, synthetic));
        this.eventsByResource.set(resource, (this.eventsByResource.get(resource) ?? 0) + 1);
        if (OWNER_RESOURCES.has(resource)) this.noteOwner(resource, type, object);
      },
      gap: (reason, detail, at) => {
        this.journal(gapLine(++this.seq, resource, reason, detail, at));
        this.countRestart(resource, reason === 'watch-relist' ? 'relist' : 'reconnect');
      },
      reconnect: () => this.countRestart(resource, 'resumed'),
      synced: () => {
        this.unsynced.delete(resource);
      },
    };
  }

  /** Appends a line to the journal of every owner it concerns (an owner made by it first gets its seed). */
  private journal(line: JournalLine): void {
    this.startedAt ??= line.at;
    const to = this.routing.route(line);
    for (const id of this.routing.takeNew()) {
      const j: OwnerJournal = { journal: new Journal(this.o.historyMs, true, this.startedAt), fresh: true, lastLineAt: line.at };
      for (const s of this.routing.seed(id)) if (s.seq < line.seq) j.journal.append(s);
      this.journals.set(id, j);
    }
    for (const id of to) {
      const j = this.journals.get(id);
      if (!j) continue;
      j.journal.append(line);
      j.fresh = true;
      j.lastLineAt = line.at;
    }
  }

  private countRestart(resource: string, reason: string): void {
    const k = `${resource}\u0000${reason}`;
    this.watchRestarts.set(k, (this.watchRestarts.get(k) ?? 0) + 1);
  }

  private noteOwner(resource: string, type: string, object: Record<string, unknown>): void {
    const m = (object.metadata ?? {}) as { namespace?: unknown; name?: unknown; labels?: unknown };
    const key = `${String(m.namespace ?? '')}/${String(m.name ?? '')}`;
    let byKey = this.owners.get(resource);
    if (!byKey) this.owners.set(resource, (byKey = new Map()));
    if (type === 'DELETED') byKey.delete(key);
    else byKey.set(key, m.labels && typeof m.labels === 'object' ? (m.labels as Record<string, string>) : {});
  }

  /** Whether `r` is selected by `-l` (its owner's labels as the watches show them now, else as last seen). */
  private selected(r: ReplicaSetReport): boolean {
    if (!this.o.selector) return true;
    const res = Object.keys(KIND_OF_RESOURCE).find((k) => KIND_OF_RESOURCE[k] === ownerKindOf(r))!;
    const labels = this.owners.get(res)?.get(r.key);
    return labels !== undefined && labelSelectorMatches(this.o.selector, labels);
  }

  /** Evaluates up to `now`; concurrent calls share one run. */
  evaluate(now: number): Promise<Evaluation> {
    if (this.running) return this.running;
    this.running = this.run(now).finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  /** Whether an owner must be replayed: its report may have changed since its last replay. */
  private needsReplay(j: OwnerJournal, now: number): boolean {
    if (!j.last || j.fresh || !j.last.stable) return true;
    if (j.last.nextDue !== undefined && j.last.nextDue <= now) return true;
    const oldest = j.journal.oldestAt;
    return oldest !== undefined && oldest < now - 2 * this.o.historyMs;
  }

  private async replay(j: OwnerJournal, now: number): Promise<void> {
    const rec = j.journal.recording(now, { kexpVersion: KEXP_VERSION, serverVersion: this.o.serverVersion, namespace: this.o.namespace, watches: this.o.watches });
    const { report, problems, nextDue } = await replayJournal(rec, (w) => {
      // The same warnings come back at every evaluation: each is passed on once.
      if (/does not appear|kinds kexp does not model/.test(w) || this.warned.has(w)) return;
      if (this.warned.size < 1000) this.warned.add(w);
      this.o.onWarning?.(w);
    });
    const { replicaSets: entries, ...frame } = report;
    const settled = entries.every((r) => SETTLED_VERDICTS.has(r.verdict.state) && !r.gatedWindows.some((w) => w.endedBy === 'open'));
    // Stable: replayed again with no new line, settled, and the same report as before but for its end.
    const prev = j.last;
    const stable = settled && !j.fresh && prev !== undefined && prev.settled &&
      JSON.stringify(atEnd(prev, frame.coverage.end ?? '')) === JSON.stringify({ frame, entries });
    j.last = { frame, entries, problems, settled, stable, ...(nextDue !== undefined ? { nextDue } : {}) };
    j.fresh = false;
  }

  private async run(now: number): Promise<Evaluation> {
    const started = performance.now();
    let replayed = 0;
    let problems = 0;
    let lines = 0;
    const objects = new Map<string, ReplicaSetReport>();
    const frames = new Map<string, { frame: ReportFrame; lines: number; problems: number }>();
    const entries: ReplicaSetReport[] = [];
    const nowIso = new Date(now).toISOString();
    for (const [id, j] of [...this.journals]) {
      if (this.needsReplay(j, now)) {
        j.journal.compact(now);
        if (j.journal.size.lines === 0 && !j.journal.baseHasOwner) {
          // Its owner is gone and every line about it folded: nothing is left to report.
          this.journals.delete(id);
          this.routing.forget(id);
          continue;
        }
        await this.replay(j, now);
        replayed++;
      } else {
        // Stable and unchanged: a replay to `now` differs only in its end.
        j.last = { ...j.last!, ...atEnd(j.last!, nowIso) };
      }
      const last = j.last!;
      const n = j.journal.size.lines;
      lines += n;
      problems += last.problems;
      for (const r of last.entries) {
        if (!this.selected(r)) continue;
        const oid = objectId(ownerKindOf(r), r.namespace, r.name);
        if (objects.has(oid)) continue;
        objects.set(oid, r);
        frames.set(oid, { frame: last.frame, lines: n, problems: last.problems });
        entries.push(r);
      }
    }
    entries.sort((a, b) => KIND_ORDER.indexOf(ownerKindOf(a)) - KIND_ORDER.indexOf(ownerKindOf(b)) || a.key.localeCompare(b.key));
    const report = this.merged(now, entries, frames, lines, problems);
    const ev: Evaluation = { at: now, tookMs: performance.now() - started, report, objects, lines, problems, replayed, frames };
    this.last = ev;
    this.evaluations++;
    return ev;
  }

  /** The whole evaluation as one Report: serve's coverage, every object's entry. */
  private merged(now: number, entries: ReplicaSetReport[], frames: Evaluation['frames'], lines: number, problems: number): Report {
    const any = frames.values().next().value?.frame;
    const start = this.startedAt !== undefined ? new Date(this.startedAt).toISOString() : undefined;
    const end = new Date(now).toISOString();
    const assumptions = new Set<string>();
    const gaps = new Map<string, Report['coverage']['gaps'][number]>();
    const examples: string[] = [];
    const seen = new Set<ReportFrame>();
    for (const { frame } of frames.values()) {
      if (seen.has(frame)) continue;
      seen.add(frame);
      for (const a of frame.coverage.assumptions) assumptions.add(a);
      for (const g of frame.coverage.gaps) gaps.set(`${g.at}\u0000${g.reason}\u0000${g.evidence}`, g);
      for (const e of frame.coverage.problems.examples) if (examples.length < 5 && !examples.includes(e)) examples.push(e);
    }
    return {
      schemaVersion: REPORT_SCHEMA_VERSION,
      generator: { name: 'kexp', version: KEXP_VERSION, command: 'serve' },
      k8sVersion: any?.k8sVersion ?? { version: DEFAULT_K8S_VERSION, basis: 'default' },
      inputs: [{ file: JOURNAL_CITE, format: 'kexp-recording', timeBasis: 'received', ...(start ? { start } : {}), end, events: lines, problems, endMarker: true }],
      coverage: {
        ...(start ? { start } : {}),
        end,
        timeBasis: any?.coverage.timeBasis ?? [],
        assumptions: [...assumptions],
        gaps: [...gaps.values()].sort((a, b) => a.at.localeCompare(b.at)),
        problems: { count: problems, examples },
      },
      replicaSets: entries,
    };
  }

  /** Releases nothing any more (the journals are replayed from memory); kept for the service's shutdown. */
  close(): void {}
}
