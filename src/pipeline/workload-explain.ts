/**
 * `kexp explain ds/NAME|job/NAME`: explain-live.ts's orchestration for a DaemonSet or a Job.
 *
 * 1. The snapshot (sources/live/workload-snapshot.ts) analysed by the kind's pure analysis
 *    (analysis/daemonset-snapshot.ts, analysis/job-snapshot.ts): only what a snapshot can show.
 * 2. With `--watch DURATION`: the same reflectors and recording as `kexp record ds/NAME|job/NAME`
 *    (record-live.ts: the owner kind, pods, Events, namespace, and for a DaemonSet every Node),
 *    replayed by the same engine as `kexp replay` (pipeline/replay-files.ts → owner-kind-replay.ts:
 *    the DaemonSet or Job engine); the report's DaemonSet/Job entry of the target is merged with
 *    the snapshot's as explain-live.ts merges a ReplicaSet's (mergeVerdict: the watch's
 *    gated/leaked/failing/deleted verdicts win, a watch that ends healthy overrides a snapshot's
 *    inference, the snapshot's deleting stays).
 *
 * Contract: returns the ExplainResult explain-live.ts does (one explanation, the report's entry
 * marked with its kind); throws ClusterError (not found, forbidden on a required read), or
 * RecordingFileError for --record FILE. Cost: the snapshot's reads; with --watch, the recording
 * and its replay (O(events watched)).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { iso } from '../analysis/iso.js';
import { analyseDaemonSetSnapshot, type OwnerSnapshotAnalysis } from '../analysis/daemonset-snapshot.js';
import { analyseJobSnapshot } from '../analysis/job-snapshot.js';
import { sortFindings } from '../analysis/findings/finding-rule.js';
import { STALL_MS, type TimelineEntry } from '../analysis/report/snapshot-state.js';
import { REPORT_SCHEMA_VERSION, type InputSummary, type Report, type ReplicaSetReport } from '../analysis/report-types.js';
import { DEFAULT_K8S_VERSION, versionInfo, type VersionInfo } from '../model/version.js';
import { takeWorkloadSnapshot, type WorkloadSnapshot, type WorkloadSnapshotTarget } from '../sources/live/workload-snapshot.js';
import { KEXP_VERSION } from '../version.js';
import { mergeVerdict, nextStepsOf, timelineFromWatch, type ExplainOptions, type ExplainResult } from './explain-live.js';

const TIMELINE_MAX = 40;

/** Findings of the snapshot a watch that ended healthy contradicts. */
const SUPERSEDED_BY_HEALTHY = new Set(['daemonset-spec-not-observed']);

function snapshotInput(s: WorkloadSnapshot): InputSummary {
  const objects = Object.values(s.counts).reduce((a, b) => a + b, 0);
  return { file: `live:${s.context}/${s.namespace}`, format: 'live-snapshot', timeBasis: 'object-timestamp', start: iso(s.startedAt), end: iso(s.takenAt), events: objects, problems: 0, endMarker: true };
}

/** The watch's entry merged into the snapshot's (explain-live.ts mergeRs, for a DaemonSet or a Job). */
function mergeWorkload(a: OwnerSnapshotAnalysis, w: ReplicaSetReport): ReplicaSetReport {
  const snap = a.report;
  const watchSawProgress = w.rounds.some((r) => (r.successes ?? 0) > 0 || r.kind === 'delete') || w.counts.active.first !== w.counts.active.last;
  const verdict = mergeVerdict(snap.verdict, w.verdict, watchSawProgress);
  const ids = new Set(w.findings.map((f) => f.id));
  const drop = w.verdict.state === 'healthy' && verdict !== snap.verdict ? SUPERSEDED_BY_HEALTHY : new Set<string>();
  return {
    ...w,
    owner: w.owner ?? snap.owner,
    verdict,
    findings: sortFindings([...w.findings, ...snap.findings.filter((f) => !ids.has(f.id) && !drop.has(f.id))]),
    initialState: { ...w.initialState, reason: `before the watch started the controller's expectations are unknown (a snapshot cannot see them); ${w.initialState.reason}` },
  };
}

/** Runs `kexp explain ds/NAME|job/NAME`: snapshot, optional watch + replay, merge. */
export async function explainWorkload(o: ExplainOptions & { target: WorkloadSnapshotTarget }): Promise<ExplainResult> {
  const warnings: string[] = [];
  const warn = (m: string) => {
    warnings.push(m);
    o.onWarning?.(m);
  };
  o.onProgress?.('reading');
  const snap = await takeWorkloadSnapshot({ access: o.access, target: o.target, now: o.now, requestTimeoutMs: o.requestTimeoutMs, signal: o.signal, ...(o.early ? { early: o.early } : {}) });
  for (const u of snap.unavailable) warn(`${u.message} (continuing without it${u.resource === 'nodes' ? ': node placement unknown' : ''})`);
  let version: VersionInfo = { version: DEFAULT_K8S_VERSION, basis: 'default' };
  if (snap.serverVersion) {
    try {
      version = versionInfo(snap.serverVersion, 'input');
      if (version.modelledAs) warn(`server version ${version.version} is replayed as ${version.modelledAs}: ${version.differences!.join(' ')}`);
    } catch {
      warn(`server version ${snap.serverVersion} is not a Kubernetes 1.x version; using ${DEFAULT_K8S_VERSION}`);
    }
  }
  const analysis = snap.kind === 'ds'
    ? analyseDaemonSetSnapshot(snap.daemonSet, { pods: snap.pods, events: snap.events, ...(snap.nodes ? { nodes: snap.nodes } : {}), ...(snap.ns ? { ns: snap.ns } : {}) }, snap.takenAt)
    : analyseJobSnapshot(snap.job, { pods: snap.pods, events: snap.events, ...(snap.ns ? { ns: snap.ns } : {}) }, snap.takenAt);
  const kind = snap.kind === 'ds' ? 'DaemonSet' : 'Job';
  const uid = analysis.report.uid;
  let watchInfo: ExplainResult['watch'];
  let watchReport: Report | undefined;
  let watchStart = 0;
  let watchEnd = 0;
  if (o.watchMs && o.watchMs > 0 && !o.signal.aborted) {
    let dir: string | undefined;
    const file = o.recordFile ?? path.join((dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kexp-explain-'))), 'watch.kexp.jsonl');
    try {
      const [{ recordLive }, { replayFiles }] = await Promise.all([import('./record-live.js'), import('./replay-files.js')]);
      o.onProgress?.('watching');
      watchStart = o.now();
      const res = await recordLive({
        access: o.access, target: o.target, file, overwrite: Boolean(o.recordFile && o.overwrite), redact: true, signal: o.signal, durationMs: Number.isFinite(o.watchMs) ? o.watchMs : undefined, now: o.now, requestTimeoutMs: o.requestTimeoutMs,
        onWarning: (m) => warn(m),
        onSynced: () => o.onProgress?.('watching-synced'),
      });
      watchEnd = o.now();
      if (res.error) throw res.error;
      o.onProgress?.('replaying');
      // The ControllerRevisions are recorded for the record's sake; the replay skips them (a kind kexp does not model): not worth a warning here.
      const rep = await replayFiles({ files: [file], onWarning: (m) => { if (!/does not appear|kinds kexp does not model: ControllerRevision \(\d+\)$/.test(m)) warn(m); } });
      watchReport = o.recordFile ? rep.report : (JSON.parse(JSON.stringify(rep.report).split(JSON.stringify(file).slice(1, -1)).join('live-watch')) as Report);
      watchInfo = { file, kept: Boolean(o.recordFile), durationMs: Math.round(watchEnd - watchStart), endReason: res.endReason, events: res.counts.events, gaps: res.counts.gaps, problems: rep.problems.length };
    } finally {
      if (dir) fs.rmSync(dir, { recursive: true, force: true });
    }
  }
  const w = watchReport?.replicaSets.find((r) => r.kind === kind && r.key === analysis.report.key && (!r.uid || !uid || r.uids.includes(uid)));
  const report = w ? mergeWorkload(analysis, w) : analysis.report;
  let timeline: TimelineEntry[] = [...analysis.timeline];
  if (w) timeline = timeline.concat(timelineFromWatch(w, watchStart, watchEnd)).sort((x, y) => x.at - y.at);
  const omitted = Math.max(0, timeline.length - TIMELINE_MAX);
  const resource = snap.kind === 'ds' ? 'ds' : 'job';
  const steps = nextStepsOf(report.findings, report.verdict, Boolean(w), `${resource}/${report.name}`, report.namespace);
  const inputs: InputSummary[] = [snapshotInput(snap)];
  if (watchReport) for (const i of watchReport.inputs) inputs.push({ ...i, file: watchInfo?.kept ? i.file : 'live-watch', format: `${i.format} (live watch)` });
  const result: Report = {
    schemaVersion: REPORT_SCHEMA_VERSION,
    generator: { name: 'kexp', version: KEXP_VERSION, command: 'explain' },
    k8sVersion: watchReport?.k8sVersion ?? version,
    inputs,
    coverage: {
      start: iso(snap.startedAt),
      end: iso(watchInfo ? watchEnd : snap.takenAt),
      timeBasis: [
        'object-timestamp: the snapshot\'s timeline comes from API timestamps (Events\' firstTimestamp/lastTimestamp/count, pod creation/deletion times, conditions, managedFields): whole seconds, aggregated Events keep only their first and last time',
        ...(watchReport ? watchReport.coverage.timeBasis : []),
      ],
      assumptions: [
        `A snapshot cannot see the ${kind} controller's expectations; verdicts from a snapshot are inferred from its status, observedGeneration, pods, conditions and Events.`,
        `No progress for ${STALL_MS / 1000} s while pods are missing, a spec change unprocessed or finished pods uncounted is taken as "not acting" (gated); when a gate began cannot be told from a snapshot, so no window is inferred.`,
        ...(watchReport ? watchReport.coverage.assumptions : []),
      ],
      gaps: watchReport?.coverage.gaps ?? [],
      problems: watchReport?.coverage.problems ?? { count: 0, examples: [] },
    },
    replicaSets: [report],
  };
  return {
    report: result,
    explanations: [{ report, facts: analysis.facts, timeline: timeline.slice(omitted), timelineOmitted: omitted, nextSteps: steps }],
    snapshot: { takenAt: snap.takenAt, server: snap.server, context: snap.context, namespace: snap.namespace, unavailable: snap.unavailable },
    watch: watchInfo,
    warnings,
  };
}
