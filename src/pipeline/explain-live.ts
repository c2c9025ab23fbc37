/**
 * `kexp explain`'s engine room. Two halves:
 *
 * 1. Pure analysis of a point-in-time snapshot (src/sources/live/snapshot.ts) of one
 *    ReplicaSet, in src/analysis/snapshot-analysis.ts: counts, conditions, Events (aggregated
 *    ones too), quotas, namespace phase, owner → a verdict with its basis, findings with next
 *    steps, the reconstructed recent timeline (from Events' first/lastTimestamp and count, pod
 *    creation/deletion timestamps, managedFields times) and the adoption table. A snapshot cannot see the controller's
 *    expectations; it says so (`unknown`) and infers only what the API state forces:
 *    - RS deletionTimestamp → deleting;
 *    - namespace Terminating, RS not deleted, fewer active pods than desired → the
 *      NamespaceTerminating expectation leak;
 *    - ReplicaFailure condition or FailedCreate/FailedDelete newer than the last progress → failing;
 *    - pods missing (or surplus), the controller has synced the spec, nothing failed and
 *      nothing moved for 30 s → gated on an expectation that is not being fulfilled
 *      (a leak once that has lasted longer than the 5-minute ExpectationsTimeout);
 *    - active == desired and observedGeneration == generation → healthy.
 * 2. Orchestration: snapshot, then optionally `--watch DURATION` — the same Reflectors and
 *    recording format as `kexp record` (a temporary recording, or the user's `--record FILE`),
 *    replayed through the controller model — and a merge of both into one Report
 *    (`generator.command: "explain"`, schema/report.schema.json).
 *
 * The terminal and HTML renderings are in src/render/explain.ts (the same renderers as
 * replay and audit); they only read the result.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ReplicaSet } from '../model/objects.js';
import { DEFAULT_K8S_VERSION, versionInfo, type VersionInfo } from '../model/version.js';
import { iso } from '../analysis/iso.js';
import {
  REPORT_SCHEMA_VERSION,
  type Finding,
  type InputSummary,
  type Report,
  type ReplicaSetReport,
  type VerdictState,
} from '../analysis/report-types.js';
import { ClusterError } from '../sources/live/cluster-error.js';
import type { ClusterAccess } from '../sources/live/kubeconfig.js';
import { takeSnapshot, type Deployment, type EarlyReads, type LiveSnapshot, type SnapshotTarget } from '../sources/live/snapshot.js';
import type { WorkloadSnapshotTarget } from '../sources/live/workload-snapshot.js';
import { KEXP_VERSION } from '../version.js';
import { checkRecordingTarget } from '../sources/live/recording-writer.js';
import { analyseSnapshot, type SnapshotAnalysis } from '../analysis/snapshot-analysis.js';
import { snapshotReplicaSetReport } from '../analysis/report/snapshot-report.js';
import { eventsAsReplicaSets } from '../analysis/report/owner-snapshot.js';
import { ownerWords } from '../analysis/report/owner-words.js';
import { LIVE_REFS, LIVE_RC_REFS } from '../analysis/report/snapshot-refs.js';
import { STALL_MS, type RsFacts, type TimelineEntry } from '../analysis/report/snapshot-state.js';
import { sortFindings } from '../analysis/findings/finding-rule.js';

const TIMELINE_MAX = 40;

// ------------------------------------------------------------------------------------------ types

export interface RsExplanation {
  /** The schema'd part (also in Report.replicaSets). */
  report: ReplicaSetReport;
  /** A ReplicaSet's snapshot facts, or a DaemonSet's or Job's facts line (workload-explain.ts). */
  facts: RsFacts | string;
  timeline: TimelineEntry[];
  timelineOmitted: number;
  nextSteps: string[];
}

export interface ExplainResult {
  report: Report;
  explanations: RsExplanation[];
  snapshot: { takenAt: number; server: string; context: string; namespace: string; unavailable: LiveSnapshot['unavailable'] };
  watch?: { file: string; kept: boolean; durationMs: number; endReason: string; events: number; gaps: number; problems: number };
  warnings: string[];
}

// ------------------------------------------------------------------------------------------ merge with a watch


/**
 * The final verdict of `explain`: the watch sees the controller act (or not) and is newer than
 * the snapshot, so its gated/leaked/failing/deleted verdicts win; the snapshot's
 * deleting and NamespaceTerminating leak are facts the watch cannot contradict; a watch that
 * ends healthy overrides a snapshot that was converging.
 */
export function mergeVerdict(snap: ReplicaSetReport['verdict'], watch: ReplicaSetReport['verdict'] | undefined, watchSawProgress: boolean): ReplicaSetReport['verdict'] {
  if (!watch) return snap;
  const strong: VerdictState[] = ['deleted', 'deleting', 'leaked', 'gated', 'failing'];
  if (watch.state === 'deleted' || watch.state === 'deleting') return watch;
  if (snap.state === 'deleting' || (snap.state === 'leaked' && /NamespaceTerminating/.test(snap.summary))) return snap;
  if (strong.includes(watch.state)) return watch;
  if (watch.state === 'healthy') return watch;
  if ((snap.state === 'failing' || snap.state === 'gated' || snap.state === 'leaked') && !watchSawProgress) return snap;
  return watch.state === 'unknown' ? snap : watch;
}

export function timelineFromWatch(r: ReplicaSetReport, watchStart: number, watchEnd: number): TimelineEntry[] {
  const out: TimelineEntry[] = [];
  out.push({ at: watchStart, basis: 'observed', from: 'watch', coarse: false, text: 'watch started (initial list); expectations unknown until the first round kexp sees' });
  for (const x of r.rounds) {
    const at = Date.parse(x.at);
    if (x.kind === 'create') {
      out.push({ at, basis: x.basis, from: 'watch', coarse: false, text: `sync: create round of ${x.n} (batches ${x.batches?.join(',') ?? '?'}; ${x.successes ?? '?'} succeeded${x.namespaceTerminating ? `, ${x.namespaceTerminating} rejected NamespaceTerminating` : ''}${x.errors.length ? `; ${x.errors[0]}` : ''})` });
    } else {
      out.push({ at, basis: x.basis, from: 'watch', coarse: false, text: `sync: delete round of ${x.n} (${(x.keys ?? []).slice(0, 4).join(', ')}${(x.keys ?? []).length > 4 ? ', …' : ''})` });
    }
  }
  for (const w of r.gatedWindows) {
    out.push({ at: Date.parse(w.start), basis: w.basis, from: 'watch', coarse: false, text: `gated: expectations raised add=${w.raised.add} del=${w.raised.del}` });
    if (w.end) out.push({ at: Date.parse(w.end), basis: w.basis, from: 'watch', coarse: false, text: `gate ${w.endedBy === 'fulfilled' ? 'lifted: expectations fulfilled' : `ended: ${w.endedBy}`}` });
  }
  out.push({ at: watchEnd, basis: 'observed', from: 'watch', coarse: false, text: `watch ended: ${r.verdict.state}` });
  return out;
}

export function nextStepsOf(findings: Finding[], verdict: ReplicaSetReport['verdict'], watched: boolean, name: string, ns: string): string[] {
  const steps: string[] = [];
  for (const f of sortFindings([...findings])) {
    if (f.nextStep && !/^None\b/.test(f.nextStep) && !steps.includes(f.nextStep)) steps.push(f.nextStep);
  }
  if (!watched && (verdict.state === 'converging' || verdict.state === 'gated')) {
    steps.push(`See whether the controller is gated on its own writes: \`kexp explain ${name} -n ${ns} --watch 30s\`.`);
  }
  if (steps.length === 0) steps.push('Nothing to do.');
  return steps;
}

// ------------------------------------------------------------------------------------------ orchestration

export interface ExplainOptions {
  access: ClusterAccess;
  /** A ReplicaSet or a Deployment's (explainLive), a DaemonSet or a Job (workload-explain.ts explainWorkload). */
  target: SnapshotTarget | WorkloadSnapshotTarget;
  /** Watch for this long after the snapshot (0/undefined: snapshot only). */
  watchMs?: number;
  /** Keep the watch recording here (otherwise a temporary file, deleted afterwards). */
  recordFile?: string;
  /** Replace an existing regular file at recordFile (never a symlink). Default false. */
  overwrite?: boolean;
  signal: AbortSignal;
  now: () => number;
  requestTimeoutMs?: number;
  /** The server version and pod reads, when the command line had them started early (src/cli/explain-prefetch.ts). */
  early?: EarlyReads;
  onWarning?: (m: string) => void;
  onProgress?: (m: string) => void;
}

function snapshotInput(s: LiveSnapshot): InputSummary {
  const objects = Object.values(s.counts).reduce((a, b) => a + b, 0);
  return { file: `live:${s.context}/${s.namespace}`, format: 'live-snapshot', timeBasis: 'object-timestamp', start: iso(s.startedAt), end: iso(s.takenAt), events: objects, problems: 0, endMarker: true };
}

/** Merges the watch replay's report for one RS with the snapshot analysis. */
function mergeRs(snapRep: ReplicaSetReport, a: SnapshotAnalysis, w: ReplicaSetReport): ReplicaSetReport {
  const watchSawProgress = w.rounds.some((r) => (r.successes ?? 0) > 0 || r.kind === 'delete') || w.counts.active.first !== w.counts.active.last;
  const verdict = mergeVerdict(a.verdict, w.verdict, watchSawProgress);
  const ids = new Set(w.findings.map((f) => f.id));
  // Snapshot findings the watch superseded: a leak/gate the watch contradicts.
  const drop = new Set<string>();
  if (verdict !== a.verdict) {
    for (const id of ['gated-no-progress', 'expectation-leak-suspected', 'failing-creates', 'delete-failures']) if (w.verdict.state === 'healthy') drop.add(id);
  }
  const findings = sortFindings([...w.findings, ...a.findings.filter((f) => !ids.has(f.id) && !drop.has(f.id))]);
  const windows = w.gatedWindows.length ? w.gatedWindows : verdict === a.verdict ? a.windows : [];
  return {
    ...w,
    owner: w.owner ?? snapRep.owner,
    verdict,
    gatedWindows: windows,
    findings,
    initialState: { ...w.initialState, reason: `before the watch started the controller's expectations are unknown (a snapshot cannot see them); ${w.initialState.reason}` },
  };
}

/** Runs `kexp explain`: snapshot, optional watch + replay, merge. Throws ClusterError, or RecordingFileError for --record FILE. */
export async function explainLive(o: ExplainOptions): Promise<ExplainResult> {
  // Refuse an unusable --record FILE before reading anything from the cluster.
  if (o.recordFile && o.watchMs) checkRecordingTarget(o.recordFile, o.overwrite ?? false);
  if (o.target.kind === 'ds' || o.target.kind === 'job') throw new RangeError('explainLive: a DaemonSet or Job target goes to workload-explain.ts explainWorkload');
  const target: SnapshotTarget = { kind: o.target.kind, name: o.target.name };
  const warnings: string[] = [];
  const warn = (m: string) => {
    warnings.push(m);
    o.onWarning?.(m);
  };
  o.onProgress?.('reading');
  const snap = await takeSnapshot({ access: o.access, target, now: o.now, requestTimeoutMs: o.requestTimeoutMs, signal: o.signal, ...(o.early ? { early: o.early } : {}) });
  if (snap.replicaSets.length === 0) throw new ClusterError('not-found', `Deployment ${snap.namespace}/${target.name} controls no ReplicaSet yet`);
  for (const u of snap.unavailable) warn(`${u.message} (continuing without it)`);
  let version: VersionInfo = { version: DEFAULT_K8S_VERSION, basis: 'default' };
  if (snap.serverVersion) {
    try {
      version = versionInfo(snap.serverVersion, 'input');
      if (version.modelledAs) warn(`server version ${version.version} is replayed as ${version.modelledAs}: ${version.differences!.join(' ')}`);
    } catch {
      warn(`server version ${snap.serverVersion} is not a Kubernetes 1.x version; using ${DEFAULT_K8S_VERSION}`);
    }
  }
  // A ReplicationController is read as the ReplicaSet its manager converts it to (readTargets), its
  // manager's Events as the ReplicaSet controller's: the same code runs for both (owner-kind.ts).
  const rc = target.kind === 'rc';
  const events = rc ? eventsAsReplicaSets('ReplicationController', target.name, snap.events) : snap.events;
  const refs = rc ? LIVE_RC_REFS : LIVE_REFS;
  const analyses = snap.replicaSets.map((rs) => ({
    rs,
    a: analyseSnapshot(rs, { pods: snap.pods, events, quotas: snap.quotas, ns: snap.ns, owner: snap.owners.get(rs.metadata.uid ?? ''), unavailable: snap.unavailable, ...(snap.kcmLease ? { kcmLease: snap.kcmLease } : {}), ...(rc ? { words: ownerWords('rc') } : {}) }, snap.takenAt, refs),
  }));
  // Deployment-level events go to the timeline of every ReplicaSet (already in analyseSnapshot via snap.events).
  let watchInfo: ExplainResult['watch'];
  let watchReport: Report | undefined;
  let watchStart = 0;
  let watchEnd = 0;
  if (o.watchMs && o.watchMs > 0 && !o.signal.aborted) {
    let dir: string | undefined;
    const file = o.recordFile ?? path.join((dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kexp-explain-'))), 'watch.kexp.jsonl');
    try {
      // The watch and replay machinery (sources, replay engine, report builder) is loaded only
      // for --watch: a snapshot-only explain does not pay for it at start-up (bench/explain).
      const [{ recordLive }, { replayFiles }] = await Promise.all([import('./record-live.js'), import('./replay-files.js')]);
      o.onProgress?.('watching');
      watchStart = o.now();
      const res = await recordLive({
        access: o.access, target, file, overwrite: Boolean(o.recordFile && o.overwrite), redact: true, signal: o.signal, durationMs: Number.isFinite(o.watchMs) ? o.watchMs : undefined, now: o.now, requestTimeoutMs: o.requestTimeoutMs,
        onWarning: (m) => warn(m),
        onSynced: () => o.onProgress?.('watching-synced'),
      });
      watchEnd = o.now();
      if (res.error) throw res.error;
      o.onProgress?.('replaying');
      const rep = await replayFiles({ files: [file], onWarning: (m) => { if (!/does not appear/.test(m)) warn(m); } });
      // Evidence in a temporary recording that is deleted afterwards is cited as `live-watch:LINE`.
      watchReport = o.recordFile ? rep.report : (JSON.parse(JSON.stringify(rep.report).split(JSON.stringify(file).slice(1, -1)).join('live-watch')) as Report);
      watchInfo = { file, kept: Boolean(o.recordFile), durationMs: Math.round(watchEnd - watchStart), endReason: res.endReason, events: res.counts.events, gaps: res.counts.gaps, problems: rep.problems.length };
    } finally {
      if (dir) fs.rmSync(dir, { recursive: true, force: true });
    }
  }
  const explanations: RsExplanation[] = [];
  for (const { rs, a } of analyses) {
    const entry = snapshotReplicaSetReport(rs, a, snap.takenAt, events, refs);
    const snapRep: ReplicaSetReport = rc ? { kind: 'ReplicationController', ...entry } : entry;
    const w = watchReport?.replicaSets.find((r) => r.key === snapRep.key && r.kind === snapRep.kind && (!r.uid || !rs.metadata.uid || r.uids.includes(rs.metadata.uid)));
    const report = w ? mergeRs(snapRep, a, w) : snapRep;
    let timeline = [...a.timeline];
    if (w) timeline = timeline.concat(timelineFromWatch(w, watchStart, watchEnd)).sort((x, y) => x.at - y.at);
    const omitted = Math.max(0, timeline.length - TIMELINE_MAX);
    explanations.push({
      report,
      facts: a.facts,
      timeline: timeline.slice(omitted),
      timelineOmitted: omitted,
      nextSteps: nextStepsOf(report.findings, report.verdict, Boolean(w), rs.metadata.name ?? '', rs.metadata.namespace ?? ''),
    });
  }
  const inputs: InputSummary[] = [snapshotInput(snap)];
  if (watchReport) {
    for (const i of watchReport.inputs) inputs.push({ ...i, file: watchInfo?.kept ? i.file : 'live-watch', format: `${i.format} (live watch)` });
  }
  const timeBasis = [
    'object-timestamp: the snapshot\'s timeline comes from API timestamps (Events\' firstTimestamp/lastTimestamp/count, pod creation/deletion times, managedFields): whole seconds, aggregated Events keep only their first and last time',
    ...(watchReport ? watchReport.coverage.timeBasis : []),
  ];
  const assumptions = [
    'A snapshot cannot see the controller\'s expectations; verdicts from a snapshot are inferred from counts, conditions, Events and the namespace phase.',
    `No progress for ${STALL_MS / 1000} s while pods are missing or surplus, with the spec processed and no failure, is taken as "not acting" (gated); beyond the 5-minute ExpectationsTimeout as a leak.`,
    ...(snap.leaseNote ? [snap.leaseNote.replace(/^t/, 'T') + '.'] : []),
    ...(watchReport ? watchReport.coverage.assumptions : []),
  ];
  const report: Report = {
    schemaVersion: REPORT_SCHEMA_VERSION,
    generator: { name: 'kexp', version: KEXP_VERSION, command: 'explain' },
    k8sVersion: watchReport?.k8sVersion ?? version,
    inputs,
    coverage: {
      start: iso(snap.startedAt),
      end: iso(watchInfo ? watchEnd : snap.takenAt),
      timeBasis,
      assumptions,
      gaps: watchReport?.coverage.gaps ?? [],
      problems: watchReport?.coverage.problems ?? { count: 0, examples: [] },
    },
    replicaSets: explanations.map((e) => e.report),
  };
  return {
    report,
    explanations,
    snapshot: { takenAt: snap.takenAt, server: snap.server, context: snap.context, namespace: snap.namespace, unavailable: snap.unavailable },
    watch: watchInfo,
    warnings,
  };
}
