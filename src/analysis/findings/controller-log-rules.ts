/**
 * Finding rules of a kube-controller-manager log given beside a report (its own account of the
 * same time; src/analysis/controller-log.ts fuses it): windows only the log shows (a record
 * kexp could not know), syncs the 1.36+ consistency gate skipped, sync decisions where kexp's
 * reconstruction disagrees with the log, clocks that disagree, and the informer lag of the
 * controller's own creates ("Pod created" handler lines against the writes' times).
 *
 * Each rule reads ControllerLogFacts. Pure: no I/O, no clock; each rule is O(what it reads).
 */
import type { GroundTruth } from '../../sources/kcm-log/ground-truth.js';
import type { SourceRef } from '../../timeline/event.js';
import type { FidelityScore } from '../fidelity.js';
import type { GatedWindow, ReplicaSetReport } from '../report-types.js';
import { ref } from '../report/evidence-refs.js';
import type { FindingRule } from './finding-rule.js';

/** How far apart kexp's window start and the log's may be to be the same window. */
export const SAME_WINDOW_MS = 2000;

/** The informer lag of the controller's creates, measured against the log's "Pod created" lines. */
export interface InformerLag {
  /** One lag per create the log's handler saw (ms, ≥ 0); empty when the clocks disagree. */
  lags: number[];
  max?: { ms: number; pod: string; source: SourceRef };
  /** The create the handler saw earliest relative to its write (negative: before it). */
  earliest?: { ms: number; pod: string; source: SourceRef };
  /** A handler line well before its create: the two clocks disagree, nothing is measured. */
  skewed: boolean;
}

export interface ControllerLogFacts {
  /** The ReplicaSet's report as built from the inputs. */
  rs: ReplicaSetReport;
  /** What the log shows of it, and kexp's score against that. */
  truth?: GroundTruth;
  score?: FidelityScore;
  /** Its gated windows once the log confirmed them. */
  windows: GatedWindow[];
  lag: InformerLag;
  /** The informer lag summary (median) the report states. */
  medianLagMs?: number;
}

/** Klog-style time of a log line (the log's times are always finite). */
function logTime(ms: number): string {
  return new Date(Math.floor(ms)).toISOString();
}

export const controllerLogGated: FindingRule<ControllerLogFacts, GroundTruth['gatedWindows'][number]> = {
  name: 'controller-log-gated',
  ids: ['controller-log-gated'],
  reads: 'each window the log shows ("Setting expectations", or a "still waiting" line its log starts inside) that no window of kexp\'s matches',
  fires: 'such a window actually gated a sync, expired, or is still open unsatisfied (a warning when it expired: a leak)',
  each: (c) => c.truth?.gatedWindows ?? [],
  find(t, { rs, windows }) {
    if (windows.some((w) => Math.abs(Date.parse(w.start) - t.start) <= SAME_WINDOW_MS)) return undefined;
    // A record the same sync walked back to zero never gated anything.
    const gated = t.gatedSyncs > 0 || t.ended === 'expired' || (t.ended === 'open' && t.satisfiedAt === undefined);
    if (!gated) return undefined;
    const leaked = t.ended === 'expired';
    return {
      id: 'controller-log-gated',
      severity: leaked ? 'warning' : 'info',
      title: `The controller's log shows it gated from ${logTime(t.start)}${t.expected ? ` (add=${t.expected.add}, del=${t.expected.del})` : ''} where kexp's reconstruction could not`,
      basis: 'observed',
      at: logTime(t.start),
      explanation:
        `kube-controller-manager logged ${t.startedBy === 'gated-sync' ? '"Controller still waiting on expectations" (its log starts inside the window, so the record is older)' : '"Setting expectations"'} for ${rs.key} at ${logTime(t.start)}; ` +
        `the window ${t.end !== undefined ? `ended ${t.ended} at ${logTime(t.end)}` : 'is still open at the end of its log'}${t.gatedSyncs ? ` after ${t.gatedSyncs} gated sync(s)` : ''}. ` +
        `kexp's own inputs do not show this record (it predates them, or its round is not in them); the controller's log is the evidence.` +
        (leaked && t.leaked ? ` ${t.leaked.add} creation(s) and ${t.leaked.del} deletion(s) were never observed: a leak cleared only by the 5-minute timeout.` : ''),
      nextStep: leaked ? 'Find why those writes were never observed (a watch gap, a relist, an orphaned pod) around the window\'s start.' : 'None unless it recurs.',
      evidence: [ref(t.startSource), ...(t.endSource ? [ref(t.endSource)] : [])],
    };
  },
};

export const consistencyGateSkips: FindingRule<ControllerLogFacts> = {
  name: 'consistency-gate-skips',
  ids: ['consistency-gate-skips'],
  reads: 'the syncs the log shows skipped by the 1.36+ consistency gate (StaleControllerConsistencyReplicaSet)',
  fires: 'any such skip: the informer was behind the controller\'s own writes — not expectations gating',
  find({ rs, truth }) {
    const cs = truth?.consistencySkips ?? [];
    if (!truth || !cs.length) return undefined;
    const first = cs[0]!;
    const last = cs[cs.length - 1]!;
    return {
      id: 'consistency-gate-skips',
      severity: 'info',
      title: `The 1.36+ consistency gate skipped ${cs.length} sync(s) from ${logTime(first.at)} to ${logTime(last.at)}: the ${first.resource} informer was behind the controller's own writes — not expectations gating`,
      basis: 'observed',
      at: logTime(first.at),
      explanation:
        `With StaleControllerConsistencyReplicaSet (beta, on by default since 1.36) syncReplicaSet first checks that its informers have observed the resourceVersion of the controller's own last write for ${rs.key}; ` +
        `until then the sync returns an error before SatisfiedExpectations (no create, delete or status write) and the key is requeued with backoff. ` +
        `The log shows read resourceVersion ${first.readResourceVersion ?? '?'} < written ${first.writtenResourceVersion ?? '?'} at the first skip${last.readResourceVersion !== undefined ? ` and ${last.readResourceVersion} < ${last.writtenResourceVersion ?? '?'} at the last` : ''}. ` +
        `These syncs are not counted as gated by expectations; they show how far the informer lagged the controller's writes.`,
      nextStep: 'If the skips last long, check the apiserver\'s watch latency and kube-controller-manager\'s informer health (kube-controller-manager\'s metric replicaset_controller_stale_sync_skips_total{group,resource} counts the skips).',
      evidence: [ref(first.source), ...(cs.length > 1 ? [ref(last.source)] : [])],
    };
  },
};

export const controllerLogDisagrees: FindingRule<ControllerLogFacts> = {
  name: 'controller-log-disagrees',
  ids: ['controller-log-disagrees'],
  reads: 'kexp\'s decision at each SatisfiedExpectations line of the log (analysis/fidelity.ts)',
  fires: 'a sync decision of the log that kexp\'s reconstruction contradicts',
  find({ rs, truth, score }) {
    if (!truth || !score || !(score.syncs.mismatched > 0)) return undefined;
    return {
      id: 'controller-log-disagrees',
      severity: 'warning',
      title: `kexp's reconstruction disagrees with the controller's log in ${score.syncs.mismatched} of ${score.syncs.total} sync decisions`,
      basis: 'observed',
      at: rs.rounds[0]?.at,
      explanation: `${score.mismatches.slice(0, 5).join('; ')}. The controller's log is its own account: where they disagree, trust the log and look for what kexp's inputs lack (a gap, a restart, events the recorder did not see).`,
      nextStep: 'Compare the inputs\' time ranges and clocks (kube-controller-manager logs its host\'s time).',
      evidence: [],
    };
  },
};

export const controllerLogClock: FindingRule<ControllerLogFacts> = {
  name: 'controller-log-clock',
  ids: ['controller-log-clock'],
  reads: 'the "Pod created" handler line of each create against the create\'s time in the input',
  fires: 'a handler line more than 2 s before its create: the two clocks (or klog\'s local time zone) disagree',
  find({ rs, lag }) {
    if (!lag.skewed) return undefined;
    const earliest = lag.earliest!;
    return {
      id: 'controller-log-clock',
      severity: 'warning',
      title: `The controller's log and the input disagree on time by about ${Math.round(-earliest.ms / 1000)} s: no informer lag measured`,
      basis: 'observed',
      at: rs.rounds[0]?.at,
      explanation: `kube-controller-manager logged "Pod created" for ${earliest.pod} ${Math.round(-earliest.ms / 1000)} s before the input shows its create: its clock, or the time zone of its klog timestamps (local time), differs from the input's. Decisions are still compared within ±50 ms and may not match.`,
      nextStep: 'Give the log in UTC (or know its time zone offset) and check the two clocks.',
      evidence: [ref(earliest.source)],
    };
  },
};

export const informerLag: FindingRule<ControllerLogFacts> = {
  name: 'informer-lag',
  ids: ['informer-lag'],
  reads: 'the informer lag of each create: from the write\'s time in the input to the log\'s "Pod created" handler line for the same pod',
  fires: 'the slowest is a second or more (a warning from a minute)',
  find({ rs, lag, medianLagMs }) {
    const maxLag = lag.max;
    if (!(maxLag && maxLag.ms >= 1000)) return undefined;
    return {
      id: 'informer-lag',
      severity: maxLag.ms >= 60_000 ? 'warning' : 'info',
      title: `The controller's informer delivered its own pods up to ${Math.round(maxLag.ms / 1000)} s after their creates (median ${Math.round(medianLagMs!)} ms)`,
      basis: 'observed',
      at: rs.rounds[0]?.at,
      explanation:
        `Measured for ${lag.lags.length} create(s): from the write's time in the input to kube-controller-manager's "Pod created" handler line for the same pod. ` +
        `Slowest: ${maxLag.pod}. Until its informer delivers them the controller stays gated on these creates; past 5 minutes the record expires and it creates again (kubernetes#129795).`,
      nextStep: 'Check the apiserver\'s load and kube-controller-manager\'s watch connections at that time.',
      evidence: [ref(maxLag.source)],
    };
  },
};
