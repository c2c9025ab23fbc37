/**
 * The live registry: every ReplicaSet, ReplicationController, DaemonSet and Job `kexp serve`
 * follows, and the current report of each. It is the sink of serve's reflectors (cluster-watch.ts)
 * and the one place that runs the engine: an evaluation replays the journal (journal.ts, the
 * cluster's rolling recording) through pipeline/replay-files.ts — the same reader, one engine per
 * owner kind (pipeline/owner-kind-replay.ts) and report builder as `kexp replay` and
 * `kexp explain --watch` — up to now, and keeps the Report it gives.
 *
 * Contract:
 * - `sink(resource)` is a ReflectorSink: events go to the journal (redacted) and are counted;
 *   gaps are journaled (the replay reports them) and counted as watch restarts; an owner's labels
 *   are kept for `-l`.
 * - `evaluate(now)` folds the journal to `historyMs`, replays it to `now` (one evaluation at a
 *   time: a call during one waits for it and returns its result) and returns an Evaluation: the
 *   Report (generator.command `serve`, evidence cited as `serve-journal:LINE` of that evaluation's
 *   journal) narrowed to the selection (`-l` on the owner's labels), and each object's entry by
 *   `Kind/namespace/name`. What came before serve started (or before the journal's fold) is unknown
 *   to the replay, which says so per object (`initialState.basis: unknown`).
 * - `ready` once every watch delivered its initial list (cluster-watch.ts calls `synced`).
 *
 * Cost: memory that of the journal (O(objects) + O(events within historyMs)) plus the last
 * Report (O(objects × their windows and rounds within historyMs)); an evaluation costs a replay
 * of the journal, O(events within historyMs), and a temporary file of that size.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Report, ReplicaSetReport } from '../analysis/report-types.js';
import { ownerKindOf } from '../analysis/report/owner-kind.js';
import type { LabelSelector } from '../model/objects.js';
import { labelSelectorMatches } from '../model/selector.js';
import type { ReflectorSink } from '../sources/live/reflector.js';
import type { RecordingWatch } from '../sources/watch/recording-format.js';
import { KEXP_VERSION } from '../version.js';
import { Journal, OWNER_RESOURCES } from './journal.js';

/** Owner kind of each owner resource. */
const KIND_OF_RESOURCE: Readonly<Record<string, string>> = {
  replicasets: 'ReplicaSet',
  replicationcontrollers: 'ReplicationController',
  daemonsets: 'DaemonSet',
  jobs: 'Job',
};

/** The file name evidence is cited by (the journal is rewritten at every evaluation). */
export const JOURNAL_CITE = 'serve-journal';

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
  /** Where the evaluation's temporary recording is written (default: a private temporary directory). */
  tmpDir?: string;
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
  /** Input problems the replay found (malformed objects). */
  problems: number;
}

export function objectId(kind: string, namespace: string, name: string): string {
  return `${kind}/${namespace}/${name}`;
}

export class ServeRegistry {
  readonly journal: Journal;
  /** Events journaled, per resource. */
  readonly eventsByResource = new Map<string, number>();
  /** Watch restarts (gaps and resumed reconnects), per resource and reason. */
  readonly watchRestarts = new Map<string, number>();
  /** Objects of each owner kind the watches currently show (before `-l`). */
  private readonly owners = new Map<string, Map<string, Record<string, string>>>();
  private readonly unsynced = new Set<string>();
  private dir?: string;
  private running?: Promise<Evaluation>;
  private readonly warned = new Set<string>();
  last?: Evaluation;
  evaluations = 0;

  constructor(private readonly o: RegistryOptions) {
    this.journal = new Journal(o.historyMs);
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
        this.journal.event(resource, type, object, at, synthetic);
        this.eventsByResource.set(resource, (this.eventsByResource.get(resource) ?? 0) + 1);
        if (OWNER_RESOURCES.has(resource)) this.noteOwner(resource, type, object);
      },
      gap: (reason, detail, at) => {
        this.journal.gap(resource, reason, detail, at);
        this.countRestart(resource, reason === 'watch-relist' ? 'relist' : 'reconnect');
      },
      reconnect: () => this.countRestart(resource, 'resumed'),
      synced: () => {
        this.unsynced.delete(resource);
      },
    };
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

  /** Replays the journal up to `now`; concurrent calls share one run. */
  evaluate(now: number): Promise<Evaluation> {
    if (this.running) return this.running;
    this.running = this.run(now).finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private async run(now: number): Promise<Evaluation> {
    const started = performance.now();
    this.journal.compact(now);
    const text = this.journal.text(now, { kexpVersion: KEXP_VERSION, serverVersion: this.o.serverVersion, namespace: this.o.namespace, watches: this.o.watches });
    this.dir ??= fs.mkdtempSync(path.join(this.o.tmpDir ?? os.tmpdir(), 'kexp-serve-'));
    const file = path.join(this.dir, 'journal.kexp.jsonl');
    fs.writeFileSync(file, text, { mode: 0o600 });
    const { replayFiles } = await import('../pipeline/replay-files.js');
    let rep;
    try {
      rep = await replayFiles({
        files: [file],
        onWarning: (m) => {
          // The same warnings come back at every evaluation: each is passed on once.
          const w = m.split(file).join(JOURNAL_CITE);
          if (/does not appear|kinds kexp does not model/.test(w) || this.warned.has(w)) return;
          if (this.warned.size < 1000) this.warned.add(w);
          this.o.onWarning?.(w);
        },
      });
    } finally {
      fs.rmSync(file, { force: true });
    }
    const report = JSON.parse(JSON.stringify(rep.report).split(JSON.stringify(file).slice(1, -1)).join(JOURNAL_CITE)) as Report;
    report.generator = { ...report.generator, command: 'serve' };
    report.replicaSets = report.replicaSets.filter((r) => this.selected(r));
    const objects = new Map<string, ReplicaSetReport>();
    for (const r of report.replicaSets) objects.set(objectId(ownerKindOf(r), r.namespace, r.name), r);
    const ev: Evaluation = { at: now, tookMs: performance.now() - started, report, objects, lines: text.length === 0 ? 0 : this.journal.size.lines, problems: rep.problems.length };
    this.last = ev;
    this.evaluations++;
    return ev;
  }

  /** Removes the temporary directory. */
  close(): void {
    if (this.dir) fs.rmSync(this.dir, { recursive: true, force: true });
    this.dir = undefined;
  }
}
