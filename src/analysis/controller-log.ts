/**
 * Fused sources: the kube-controller-manager's own log beside a watch recording or an audit
 * log. Its "Controller still waiting on expectations" / "expectations fulfilled / expired"
 * lines are the controller's decisions: where they confirm kexp's reconstruction the window
 * becomes `observed`; where they disagree, or show a window kexp could not know (a record from
 * before the input), that is a finding. Its addPod handler lines ("Pod created" pod=…) give
 * the informer lag of each create the input shows (the write's time → the handler's time).
 *
 * Pure: no I/O, no clock. Times of the log are the kube-controller-manager host's clock.
 */
import type { GroundTruth } from '../sources/kcm-log/ground-truth.js';
import type { SourceRef } from '../timeline/event.js';
import { scoreReplicaSet } from './fidelity.js';
import type { Finding, ReplicaSetReport } from './report-types.js';
import type { ControllerWrite } from './engine/write-ledger.js';

/** What the controller's log holds, per ReplicaSet key, plus its addPod handler lines. */
export interface ControllerLogInput {
  files: string[];
  truths: Map<string, GroundTruth>;
  /** "Pod created" handler lines: when the controller's informer delivered each pod. */
  podAdded: Map<string, { at: number; source: SourceRef }>;
  /** "Starting replicaset controller": a new process (a restart or a leader change) starts with no expectations. */
  starts: Array<{ at: number; source: SourceRef }>;
}

/** A "Pod created" handler line this much before the create means the clocks disagree. */
const CLOCK_TOLERANCE_MS = 2000;

/** How far apart kexp's window start and the log's may be to be the same window. */
const SAME_WINDOW_MS = 2000;

function ref(s: SourceRef): string {
  return `${s.file}:${s.line}`;
}

function iso(ms: number): string {
  return new Date(Math.floor(ms)).toISOString();
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

/**
 * Checks one ReplicaSet's report against the controller's log and returns it amended: window
 * bases, the `controllerLog` summary and findings. `writes` are the controller writes kexp
 * accounted for (for the informer lag).
 */
export function fuseControllerLog(rs: ReplicaSetReport, writes: ControllerWrite[], log: ControllerLogInput): ReplicaSetReport {
  const truth = log.truths.get(rs.key);
  let lags: number[] = [];
  let maxLag: { ms: number; pod: string; source: SourceRef } | undefined;
  let earliest: { ms: number; pod: string; source: SourceRef } | undefined;
  for (const w of writes) {
    if (w.kind !== 'create' || w.outcome !== 'ok' || !w.pod) continue;
    const seen = log.podAdded.get(w.pod);
    if (!seen) continue;
    const ms = seen.at - w.at;
    if (!earliest || ms < earliest.ms) earliest = { ms, pod: w.pod, source: seen.source };
    lags.push(Math.max(0, ms));
    if (!maxLag || ms > maxLag.ms) maxLag = { ms: Math.max(0, ms), pod: w.pod, source: seen.source };
  }
  // A pod "added" well before its create: the two clocks disagree (klog prints local time), so
  // no lag is measured and the reader is told.
  const skewed = earliest !== undefined && earliest.ms < -CLOCK_TOLERANCE_MS;
  if (skewed) {
    lags = [];
    maxLag = undefined;
  }
  if (!truth && lags.length === 0) return rs;
  const findings: Finding[] = [...rs.findings];
  const out: ReplicaSetReport = { ...rs, findings };
  const summary: NonNullable<ReplicaSetReport['controllerLog']> = { files: log.files, syncs: 0, decisionsMatched: 0, decisionsMismatched: 0, decisionsUnknown: 0, windowsConfirmed: 0 };
  if (lags.length) summary.informerLagMs = { writes: lags.length, median: Math.round(median(lags)), max: Math.round(maxLag!.ms) };
  if (truth) {
    const score = scoreReplicaSet(truth, rs);
    summary.syncs = score.syncs.total;
    summary.decisionsMatched = score.syncs.matched;
    summary.decisionsMismatched = score.syncs.mismatched;
    summary.decisionsUnknown = score.syncs.unknown;
    // Windows the controller's own log shows: observed.
    const windows = rs.gatedWindows.map((w) => {
      const start = Date.parse(w.start);
      const t = truth.gatedWindows.find((x) => Math.abs(x.start - start) <= SAME_WINDOW_MS);
      if (!t) return w;
      summary.windowsConfirmed++;
      const endsAgree = (t.ended === 'expired') === (w.endedBy === 'expired');
      return {
        ...w,
        basis: endsAgree ? ('observed' as const) : w.basis,
        evidence: [...w.evidence, ref(t.startSource), ...(t.endSource ? [ref(t.endSource)] : [])].slice(0, 12),
        note: [w.note, `the controller's log shows this window (ended ${t.ended}${t.gatedSyncs ? `; it logged ${t.gatedSyncs} gated sync${t.gatedSyncs === 1 ? '' : 's'}` : ''})`].filter(Boolean).join('; '),
      };
    });
    out.gatedWindows = windows;
    // Leak findings resting on a confirmed expired window are observed.
    for (let i = 0; i < findings.length; i++) {
      const f = findings[i]!;
      if (!f.id.startsWith('expectation-leak') && f.id !== 'expectations-expired-informer-lag') continue;
      const w = windows.find((x) => x.start === f.at && x.basis === 'observed');
      if (w) findings[i] = { ...f, basis: 'observed', evidence: [...new Set([...f.evidence, ...w.evidence])].slice(0, 12) };
    }
    // Windows only the log shows: a record kexp could not know (from before the input, or a
    // sync kexp did not reconstruct).
    for (const t of truth.gatedWindows) {
      if (windows.some((w) => Math.abs(Date.parse(w.start) - t.start) <= SAME_WINDOW_MS)) continue;
      // A record the same sync walked back to zero never gated anything.
      const gated = t.gatedSyncs > 0 || t.ended === 'expired' || (t.ended === 'open' && t.satisfiedAt === undefined);
      if (!gated) continue;
      const leaked = t.ended === 'expired';
      findings.push({
        id: 'controller-log-gated',
        severity: leaked ? 'warning' : 'info',
        title: `The controller's log shows it gated from ${iso(t.start)}${t.expected ? ` (add=${t.expected.add}, del=${t.expected.del})` : ''} where kexp's reconstruction could not`,
        basis: 'observed',
        at: iso(t.start),
        explanation:
          `kube-controller-manager logged ${t.startedBy === 'gated-sync' ? '"Controller still waiting on expectations" (its log starts inside the window, so the record is older)' : '"Setting expectations"'} for ${rs.key} at ${iso(t.start)}; ` +
          `the window ${t.end !== undefined ? `ended ${t.ended} at ${iso(t.end)}` : 'is still open at the end of its log'}${t.gatedSyncs ? ` after ${t.gatedSyncs} gated sync(s)` : ''}. ` +
          `kexp's own inputs do not show this record (it predates them, or its round is not in them); the controller's log is the evidence.` +
          (leaked && t.leaked ? ` ${t.leaked.add} creation(s) and ${t.leaked.del} deletion(s) were never observed: a leak cleared only by the 5-minute timeout.` : ''),
        nextStep: leaked ? 'Find why those writes were never observed (a watch gap, a relist, an orphaned pod) around the window\'s start.' : 'None unless it recurs.',
        evidence: [ref(t.startSource), ...(t.endSource ? [ref(t.endSource)] : [])],
      });
    }
    const cs = truth.consistencySkips ?? [];
    if (cs.length) {
      const first = cs[0]!;
      const last = cs[cs.length - 1]!;
      findings.push({
        id: 'consistency-gate-skips',
        severity: 'info',
        title: `The 1.36+ consistency gate skipped ${cs.length} sync(s) from ${iso(first.at)} to ${iso(last.at)}: the ${first.resource} informer was behind the controller's own writes — not expectations gating`,
        basis: 'observed',
        at: iso(first.at),
        explanation:
          `With StaleControllerConsistencyReplicaSet (beta, on by default since 1.36) syncReplicaSet first checks that its informers have observed the resourceVersion of the controller's own last write for ${rs.key}; ` +
          `until then the sync returns an error before SatisfiedExpectations (no create, delete or status write) and the key is requeued with backoff. ` +
          `The log shows read resourceVersion ${first.readResourceVersion ?? '?'} < written ${first.writtenResourceVersion ?? '?'} at the first skip${last.readResourceVersion !== undefined ? ` and ${last.readResourceVersion} < ${last.writtenResourceVersion ?? '?'} at the last` : ''}. ` +
          `These syncs are not counted as gated by expectations; they show how far the informer lagged the controller's writes.`,
        nextStep: 'If the skips last long, check the apiserver\'s watch latency and kube-controller-manager\'s informer health (kube-controller-manager\'s metric replicaset_controller_stale_sync_skips_total{group,resource} counts the skips).',
        evidence: [ref(first.source), ...(cs.length > 1 ? [ref(last.source)] : [])],
      });
    }
    if (score.syncs.mismatched > 0) {
      findings.push({
        id: 'controller-log-disagrees',
        severity: 'warning',
        title: `kexp's reconstruction disagrees with the controller's log in ${score.syncs.mismatched} of ${score.syncs.total} sync decisions`,
        basis: 'observed',
        at: rs.rounds[0]?.at,
        explanation: `${score.mismatches.slice(0, 5).join('; ')}. The controller's log is its own account: where they disagree, trust the log and look for what kexp's inputs lack (a gap, a restart, events the recorder did not see).`,
        nextStep: 'Compare the inputs\' time ranges and clocks (kube-controller-manager logs its host\'s time).',
        evidence: [],
      });
    }
  }
  if (skewed) {
    findings.push({
      id: 'controller-log-clock',
      severity: 'warning',
      title: `The controller's log and the input disagree on time by about ${Math.round(-earliest!.ms / 1000)} s: no informer lag measured`,
      basis: 'observed',
      at: rs.rounds[0]?.at,
      explanation: `kube-controller-manager logged "Pod created" for ${earliest!.pod} ${Math.round(-earliest!.ms / 1000)} s before the input shows its create: its clock, or the time zone of its klog timestamps (local time), differs from the input's. Decisions are still compared within ±50 ms and may not match.`,
      nextStep: 'Give the log in UTC (or know its time zone offset) and check the two clocks.',
      evidence: [ref(earliest!.source)],
    });
  }
  if (maxLag && maxLag.ms >= 1000) {
    findings.push({
      id: 'informer-lag',
      severity: maxLag.ms >= 60_000 ? 'warning' : 'info',
      title: `The controller's informer delivered its own pods up to ${Math.round(maxLag.ms / 1000)} s after their creates (median ${Math.round(summary.informerLagMs!.median)} ms)`,
      basis: 'observed',
      at: rs.rounds[0]?.at,
      explanation:
        `Measured for ${lags.length} create(s): from the write's time in the input to kube-controller-manager's "Pod created" handler line for the same pod. ` +
        `Slowest: ${maxLag.pod}. Until its informer delivers them the controller stays gated on these creates; past 5 minutes the record expires and it creates again (kubernetes#129795).`,
      nextStep: 'Check the apiserver\'s load and kube-controller-manager\'s watch connections at that time.',
      evidence: [ref(maxLag.source)],
    });
  }
  // Findings that send the reader to the controller's log: it is here.
  for (let i = 0; i < findings.length; i++) {
    if (findings[i]!.id === 'input-disagrees-with-model') {
      findings[i] = { ...findings[i]!, nextStep: `The controller's log was given: controllerLog (${summary.decisionsMatched} of ${summary.syncs} decisions matched) and the controller-log findings are its own account of these rounds.` };
    }
  }
  out.controllerLog = summary;
  return out;
}
