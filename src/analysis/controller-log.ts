/**
 * Fuses a kube-controller-manager log into a report: the controller's own account of the same
 * time wins over kexp's reconstruction. Its "Controller still waiting on expectations" /
 * "expectations fulfilled / expired" lines are the controller's decisions
 * (SatisfiedExpectations in pkg/controller/controller_utils.go): where a log at -v=4 covers the
 * time, its gated windows, gated syncs, expiries and restarts replace kexp's
 * (report/log-windows.ts; `observed` only with the log's own end), kexp's leak findings and the
 * verdict follow them, and where the two disagree one info finding says which source says what
 * (clocks are suggested only on evidence of skew — a handler line before its create — or not at
 * all: a log that does not overlap the input is not fused). Below -v=4 the windows stay kexp's.
 * A window only the log shows (a record from before the input) is a finding too
 * (findings/controller-log-rules.ts). Its addPod
 * handler lines ("Pod created" pod=…) give the informer lag of each create the input shows (the
 * write's time → the handler's time).
 *
 * fuseControllerLog is the one place this happens, for every pipeline: `replay` and `audit` (a
 * replayed report: the log must overlap the replayed time, the writes of each ReplicaSet give
 * the lags, and the report states the log as an assumption), a snapshot (`replay` of Lists: the
 * log is the only view of the expectations there is), and `kcm-log --compare` (a report read
 * from a file: scored against the log, `scores`, and not amended). The log's files join the
 * inputs of the report it amends.
 *
 * Pure: no I/O, no clock; the input report is not modified. Times of the log are the
 * kube-controller-manager host's clock. Costs one fidelity score per ReplicaSet of the log
 * (O(its syncs × kexp's expectation changes)) and O(writes) per ReplicaSet for the lags.
 */
import type { GroundTruth } from '../sources/kcm-log/ground-truth.js';
import type { FinalizerTracking } from '../sources/kcm-log/finalizer-tracking.js';
import { finalizersAgainstLog, finalizerTrackingSummary, rollingUpdateChecks } from './report/log-stores.js';
import type { InformerRelist } from '../sources/kcm-log/informer-relists.js';
import type { FileCoverage } from '../sources/source.js';
import type { SourceRef } from '../timeline/event.js';
import { findingsFor } from './findings/catalogue.js';
import type { InformerLag } from './findings/controller-log-rules.js';
import { scoreReplicaSet, type FidelityScore } from './fidelity.js';
import type { ReplayResult } from './engine/replay-result.js';
import type { LeaseLine } from './engine/leadership.js';
import { inputSummary, timeBasisLine } from './report/coverage.js';
import { isLeakWindow } from './report/gated-windows.js';
import { fuseWindows, logVerdict, type LogSpan, type MatchedWindow, type WindowFusion } from './report/log-windows.js';
import { writesSince } from './report/replayed-track.js';
import type { Finding, GatedWindow, Report, ReplicaSetReport } from './report-types.js';
import type { ControllerWrite } from './engine/write-ledger.js';
import type { CallPause } from './engine/create-evidence.js';
import { fmtDuration } from './report/wording.js';
import { ownerWordsOf } from './report/owner-words.js';

/** What the controller's log holds, per ReplicaSet key, plus its addPod handler lines. */
export interface ControllerLogInput {
  files: string[];
  truths: Map<string, GroundTruth>;
  /** "Pod created" handler lines: when the controller's informer delivered each pod. */
  podAdded: Map<string, { at: number; source: SourceRef }>;
  /** "Starting replicaset controller": a new process (a restart or a leader change) starts with no expectations. */
  starts: Array<{ at: number; source: SourceRef }>;
  /** Leader-election lines of the kube-controller-manager's own Lease (analysis/engine/leadership.ts). */
  leaseLines?: LeaseLine[];
  /** The log's files as inputs of the report (absent: the report lists none of them). */
  coverage?: FileCoverage[];
  /** One line per log saying where the year of its klog lines came from (the report's time bases). */
  yearNotes?: string[];
  /**
   * Whether the log shows the gate's decisions (-v=4 or above, from its reader's assessment);
   * absent: judged from the ground truth (any sync decision or Set in it).
   */
  gateVisible?: boolean;
  /** The controller's Pod / ReplicaSet / ReplicationController informers' relists (reflector lines; absent: none logged). */
  relists?: InformerRelist[];
  /** A Job controller's log: its finalizer UID-tracking store per Job key (sources/kcm-log/finalizer-tracking.ts). */
  finalizerTracking?: Map<string, FinalizerTracking>;
}

/**
 * What the report was built from: a replay (`replay` of a stream, `audit`: its time range and
 * each ReplicaSet's writes from `since` on), a snapshot (no writes), or nothing kexp built — a
 * finished report read from a file (`kcm-log --compare`), which is scored, not amended.
 */
export type FusionBasis = { kind: 'replay'; result: ReplayResult; since?: number } | { kind: 'snapshot' } | { kind: 'report-file' };

export interface ControllerLogFusion {
  report: Report;
  /** Each ReplicaSet of the log scored against the report's (all unknown when the report lacks it). */
  scores: Map<string, FidelityScore>;
  /** Why the log was not fused (it does not overlap the replayed time): said as a warning. */
  notUsed?: string;
}

/** A "Pod created" handler line this much before the create means the clocks disagree. */
const CLOCK_TOLERANCE_MS = 2000;

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

/**
 * The controller log's time range against the other inputs': a log from another day (or a
 * klog clock in another time zone) must not be fused as if it were the same time. Returns a
 * warning when they do not overlap.
 */
export function controllerLogOverlap(coverage: FileCoverage[], start: number | undefined, end: number | undefined): string | undefined {
  const ks = Math.min(...coverage.map((c) => c.start ?? Infinity));
  const ke = Math.max(...coverage.map((c) => c.end ?? -Infinity));
  if (start === undefined || end === undefined || !Number.isFinite(ks) || !Number.isFinite(ke)) return undefined;
  if (ke < start || ks > end) {
    const d = (x: number) => new Date(x).toISOString();
    return `the kube-controller-manager log covers ${d(ks)} → ${d(ke)}, the other inputs ${d(start)} → ${d(end)}: no overlap (another day, or its clock's time zone differs: klog prints local time); it was not used`;
  }
  return undefined;
}

/** The informer lag of the creates among `writes` the log's handler saw. */
function informerLag(writes: ControllerWrite[], log: ControllerLogInput): InformerLag {
  let lags: number[] = [];
  let max: InformerLag['max'];
  let earliest: InformerLag['earliest'];
  for (const w of writes) {
    if (w.kind !== 'create' || w.outcome !== 'ok' || !w.pod) continue;
    const seen = log.podAdded.get(w.pod);
    if (!seen) continue;
    const ms = seen.at - w.at;
    if (!earliest || ms < earliest.ms) earliest = { ms, pod: w.pod, source: seen.source };
    lags.push(Math.max(0, ms));
    if (!max || ms > max.ms) max = { ms: Math.max(0, ms), pod: w.pod, source: seen.source };
  }
  // A pod "added" well before its create: the two clocks disagree (klog prints local time), so
  // no lag is measured and the reader is told.
  const skewed = earliest !== undefined && earliest.ms < -CLOCK_TOLERANCE_MS;
  if (skewed) {
    lags = [];
    max = undefined;
  }
  return { lags, ...(max ? { max } : {}), ...(earliest ? { earliest } : {}), skewed };
}

/** kexp's findings about a window's leak: the log's window replaces what they rest on. */
const LEAK_FINDINGS = new Set(['expectation-leak-expired', 'expectations-expired-informer-lag', 'expectation-leak-open', 'gated-at-end', 'expectation-leak-namespace-terminating']);

/** Whether the log's window `w` ends the way kexp's finding `id` says its window did. */
function sameEnd(id: string, w: GatedWindow): boolean {
  switch (id) {
    case 'expectation-leak-expired':
    case 'expectations-expired-informer-lag':
      return w.endedBy === 'expired';
    case 'expectation-leak-open':
      return w.endedBy === 'open' && isLeakWindow(w);
    case 'gated-at-end':
      return w.endedBy === 'open' && !isLeakWindow(w);
    default: // expectation-leak-namespace-terminating: the ReplicaSet's deletion ended it
      return w.endedBy === 'rs-deleted';
  }
}

/** What the log covers of the time (its lines' span; without coverage, its ReplicaSets' lines). */
function logSpan(log: ControllerLogInput): LogSpan | undefined {
  const cov = log.coverage ?? [];
  let start = Math.min(...cov.map((c) => c.start ?? Infinity));
  let end = Math.max(...cov.map((c) => c.end ?? -Infinity));
  if (!Number.isFinite(start) || !Number.isFinite(end)) {
    const times = [...log.truths.values()].flatMap((g) => [...g.syncs.map((x) => x.at), ...g.raises.map((x) => x.at), ...g.gatedWindows.flatMap((w) => [w.start, ...(w.end !== undefined ? [w.end] : [])])]);
    start = Math.min(...times);
    end = Math.max(...times);
  }
  return Number.isFinite(start) && Number.isFinite(end) ? { start, end } : undefined;
}

/** The findings' wording of a count of gated syncs (report/wording.ts plural). */
function gatedPhrase(n: number): string {
  return `${n} gated sync${n === 1 ? '' : 's'}`;
}

/** Whether the log shows the gate's decisions (-v=4): said by its reader, else by any decision or Set in it. */
function showsGate(log: ControllerLogInput): boolean {
  return log.gateVisible ?? [...log.truths.values()].some((g) => g.syncs.length > 0 || g.raises.length > 0);
}

/**
 * kexp's leak findings once the log's windows replaced kexp's: a finding on a window the log
 * shows the same way (an expiry, a leak still open, a round still in flight) becomes observed
 * with the log's evidence; one the log contradicts is dropped (the disagreement finding says so,
 * and the log's own leak, if any, is found by controllerLogLeak).
 */
function leakFindingsFollowLog(findings: Finding[], matched: MatchedWindow[]): Finding[] {
  const out: Finding[] = [];
  for (const f of findings) {
    const m = LEAK_FINDINGS.has(f.id) ? matched.find((x) => x.kexp.start === f.at) : undefined;
    if (!m || m.fused.basis !== 'observed') {
      out.push(f);
      continue;
    }
    const w = m.fused;
    if (!sameEnd(f.id, w)) continue;
    // The count of gated syncs is the log's too: kexp's own stays beside it.
    const k = m.kexp.gatedSyncs;
    const explanation = k === w.gatedSyncs
      ? f.explanation
      : f.explanation.replace(`(${gatedPhrase(k)}`, `(${gatedPhrase(w.gatedSyncs)} in the controller's log; kexp's reconstruction counted ${k}`);
    out.push({ ...f, explanation, basis: 'observed', at: w.start, evidence: [...new Set([...w.evidence, ...f.evidence])].slice(0, 12) });
  }
  return out;
}

/**
 * Checks one ReplicaSet's report against the controller's log and returns it amended. Where
 * the log shows the gate (-v=4) its windows replace kexp's (report/log-windows.ts), kexp's leak
 * findings and the verdict follow them, and each disagreement is said with both sources;
 * below -v=4 the windows stay kexp's. `writes` are the controller writes kexp accounted for
 * (for the informer lag); `reportEnd` the end of the report's covered time.
 */
/**
 * A pause of a round's calls (slow-api-calls) that one sync of the log spans — its "Finished
 * syncing" duration reaching back before the pause and its end after it — is the controller's own
 * account that the same sync made the calls late: observed, with the log's line, where a recording
 * alone could not tell it from a restart (basis unknown there). Pure.
 */
function slowCallsInOneSync(findings: Finding[], pauses: CallPause[], truth: GroundTruth | undefined, noun = 'ReplicaSet'): Finding[] {
  const spans = truth?.longSyncs;
  if (!spans?.length || !pauses.length) return findings;
  return findings.map((f) => {
    if (f.id !== 'slow-api-calls' || f.at === undefined) return f;
    const p = pauses.find((x) => new Date(x.from).toISOString() === f.at);
    // The log's times are the controller's; the input's are the apiserver's or the recorder's: a second of slack.
    const s = p && spans.find((x) => x.start <= p.from + 1000 && x.end >= p.until - 1000);
    if (!p || !s) return f;
    const line = `${s.source.file}:${s.source.line}`;
    return {
      ...f,
      basis: 'observed',
      explanation: `${f.explanation} The controller's log shows one sync of this ${noun} from ${new Date(s.start).toISOString()} to ${new Date(s.end).toISOString()} ("Finished syncing" after ${fmtDuration(s.end - s.start)}, ${line}): the same sync made these calls.`,
      evidence: f.evidence.includes(line) ? f.evidence : [...f.evidence, line],
    };
  });
}

function fuseReplicaSet(rs: ReplicaSetReport, writes: ControllerWrite[], log: ControllerLogInput, truth: GroundTruth | undefined, score: FidelityScore | undefined, reportEnd: number | undefined, pauses: CallPause[] = []): ReplicaSetReport {
  const lag = informerLag(writes, log);
  if (!truth && lag.lags.length === 0) return rs;
  let findings = [...rs.findings];
  const out: ReplicaSetReport = { ...rs };
  const summary: NonNullable<ReplicaSetReport['controllerLog']> = { files: log.files, syncs: 0, decisionsMatched: 0, decisionsMismatched: 0, decisionsUnknown: 0, windowsConfirmed: 0 };
  if (lag.lags.length) summary.informerLagMs = { writes: lag.lags.length, median: Math.round(median(lag.lags)), max: Math.round(lag.max!.ms) };
  let fusion: WindowFusion | undefined;
  const span = logSpan(log);
  if (truth && score) {
    summary.syncs = score.syncs.total;
    summary.decisionsMatched = score.syncs.matched;
    summary.decisionsMismatched = score.syncs.mismatched;
    summary.decisionsUnknown = score.syncs.unknown;
    if (span && showsGate(log)) {
      // The controller's own account replaces the reconstruction where it covers the time.
      fusion = fuseWindows(rs.gatedWindows, truth.gatedWindows, span, reportEnd, log.files, ownerWordsOf(rs).noun);
      summary.windowsConfirmed = fusion.matched.length;
      out.gatedWindows = fusion.windows;
      findings = leakFindingsFollowLog(findings, fusion.matched);
      out.verdict = logVerdict(rs, fusion.fromLog, span, reportEnd);
    }
  }
  // What only a DaemonSet's or a Job's log tells beyond the gate (report/log-stores.ts): the log's own account.
  const checks = rs.kind === 'DaemonSet' && truth ? rollingUpdateChecks(truth, rs) : undefined;
  if (checks) summary.rollingUpdateChecks = checks;
  const tracking = rs.kind === 'Job' ? log.finalizerTracking?.get(rs.key) : undefined;
  if (tracking) summary.finalizerTracking = finalizerTrackingSummary(tracking);
  const finalizers = tracking && rs.finalizerRemovals && span ? finalizersAgainstLog(rs.finalizerRemovals, tracking, span.end) : undefined;
  if (finalizers?.log) out.finalizerRemovals = { ...rs.finalizerRemovals!, log: finalizers.log };
  findings.push(...findingsFor('controller-log', {
    rs,
    ...(checks ? { rollingUpdateChecks: checks } : {}),
    ...(finalizers?.disagreement ? { finalizerDisagreement: finalizers.disagreement } : {}),
    findings,
    ...(truth ? { truth } : {}),
    ...(score ? { score } : {}),
    windows: rs.gatedWindows,
    matched: fusion?.matched ?? [],
    disagreements: fusion?.disagreements ?? [],
    lag,
    medianLagMs: summary.informerLagMs?.median,
  }));
  findings = slowCallsInOneSync(findings, pauses, truth, ownerWordsOf(rs).noun);
  // Findings that send the reader to the controller's log: it is here.
  for (let i = 0; i < findings.length; i++) {
    if (findings[i]!.id === 'input-disagrees-with-model') {
      findings[i] = { ...findings[i]!, nextStep: `The controller's log was given: controllerLog (${summary.decisionsMatched} of ${summary.syncs} decisions matched) and the controller-log findings are its own account of these rounds.` };
    }
  }
  out.findings = findings;
  out.controllerLog = summary;
  return out;
}

/** Each ReplicaSet of the log scored against the report's first of that key (undefined: every decision unknown). */
function scoresOf(report: Report, log: ControllerLogInput, known = new Map<string, FidelityScore>()): Map<string, FidelityScore> {
  for (const [key, truth] of log.truths) {
    if (!known.has(key)) known.set(key, scoreReplicaSet(truth, report.replicaSets.find((r) => r.key === key)));
  }
  return known;
}

/**
 * Fuses `log` into `report` (see FusionBasis). A replayed report uses the log only if it
 * overlaps the replayed time, measures the informer lag on each ReplicaSet's writes, and states
 * the log's time basis and the fusion in its coverage; a snapshot's report takes the log's
 * windows and decisions as the only view of the expectations there is.
 */
export function fuseControllerLog(report: Report, log: ControllerLogInput, basis: FusionBasis): ControllerLogFusion {
  if (basis.kind === 'report-file') return { report, scores: scoresOf(report, log) };
  const replayed = basis.kind === 'replay' ? basis : undefined;
  const coverage = log.coverage ?? [];
  const timeBasis = [...report.coverage.timeBasis];
  const assumptions = [...report.coverage.assumptions];
  let notUsed: string | undefined;
  if (replayed) {
    // A replayed report states one line per time basis of its inputs: the log's is one of them.
    const have = new Set(report.inputs.map((i) => i.timeBasis));
    for (const b of new Set(coverage.map((c) => c.timeBasis))) if (!have.has(b)) timeBasis.push(timeBasisLine(b));
    notUsed = controllerLogOverlap(coverage, replayed.result.start, replayed.result.end);
  }
  timeBasis.push(...(log.yearNotes ?? []));
  const writesOf = (key: string): ControllerWrite[] => {
    const t = replayed?.result.tracks.get(key);
    if (!t) return [];
    return replayed!.since !== undefined ? writesSince(t, replayed!.since) : t.writes;
  };
  const scores = new Map<string, FidelityScore>();
  const replicaSets = notUsed ? report.replicaSets : report.replicaSets.map((rs) => {
    const truth = log.truths.get(rs.key);
    const score = truth ? scoreReplicaSet(truth, rs) : undefined;
    if (score && !scores.has(rs.key)) scores.set(rs.key, score);
    const pauses = (replayed?.result.tracks.get(rs.key)?.rounds ?? []).flatMap((r) => (r.evidence?.pause ? [r.evidence.pause] : []));
    return fuseReplicaSet(rs, writesOf(rs.key), log, truth, score, report.coverage.end !== undefined ? Date.parse(report.coverage.end) : undefined, pauses);
  });
  if (notUsed) assumptions.push(notUsed[0]!.toUpperCase() + notUsed.slice(1) + '.');
  else if (replayed) {
    assumptions.push(showsGate(log)
      ? `kube-controller-manager's own log (${log.files.join(', ')}) is the controller's account where it covers the time: its gated windows, gated syncs and expiries replace kexp's reconstruction (observed, with the log's own end), the verdict and leak findings follow them, its decisions are compared with kexp's, and its "Pod created" handler lines measure the informer lag of each create.`
      : `kube-controller-manager's own log (${log.files.join(', ')}) is below -v=4: it shows no gate decision, so the gated windows stay kexp's reconstruction; its "Pod created" handler lines measure the informer lag of each create.`);
  }
  return {
    report: { ...report, inputs: [...report.inputs, ...coverage.map(inputSummary)], coverage: { ...report.coverage, timeBasis, assumptions }, replicaSets },
    scores: scoresOf(report, log, scores),
    ...(notUsed ? { notUsed } : {}),
  };
}
