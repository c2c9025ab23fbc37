/**
 * Finding rules of a kube-controller-manager log given beside a report (its own account of the
 * same time; src/analysis/controller-log.ts fuses it): windows only the log shows (a record
 * kexp could not know), syncs the 1.36+ consistency gate skipped, sync decisions where kexp's
 * reconstruction disagrees with the log, clocks that disagree, and the informer lag of the
 * controller's own creates ("Pod created" handler lines against the writes' times).
 *
 * Each rule reads ControllerLogFacts. Pure: no I/O, no clock; each rule is O(what it reads).
 */
import { ownerResource } from '../report/owner-kind.js';
import { ownerWordsOf } from '../report/owner-words.js';
import type { GroundTruth } from '../../sources/kcm-log/ground-truth.js';
import type { SourceRef } from '../../timeline/event.js';
import type { FidelityScore } from '../fidelity.js';
import type { Finding, GatedWindow, ReplicaSetReport, RollingUpdateChecks } from '../report-types.js';
import { ref } from '../report/evidence-refs.js';
import { isLeakWindow } from '../report/gated-windows.js';
import { SAME_WINDOW_MS, type Disagreement, type MatchedWindow } from '../report/log-windows.js';
import { fmtDuration, plural } from '../report/wording.js';
import { EXPECTATIONS_TIMEOUT_MS } from '../../model/expectations.js';
import type { FindingRule } from './finding-rule.js';
import type { FinalizerDisagreement } from '../report/log-stores.js';

export { SAME_WINDOW_MS };

/** kexp's findings that state a window's leak (or its round in flight). */
const LEAK_IDS = new Set(['expectation-leak-expired', 'expectations-expired-informer-lag', 'expectation-leak-open', 'gated-at-end']);

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
  /** Its findings once kexp's leak findings followed the log's windows (controller-log.ts). */
  findings: Finding[];
  /** kexp's windows the log showed, each with the log's window that replaced it (report/log-windows.ts). */
  matched: MatchedWindow[];
  /** Where kexp and the log disagree on a window: one line each, both sources cited. */
  disagreements: Disagreement[];
  /** What the log shows of it, and kexp's score against that. */
  truth?: GroundTruth;
  score?: FidelityScore;
  /** kexp's own gated windows (before the log's replaced them). */
  windows: GatedWindow[];
  lag: InformerLag;
  /** The informer lag summary (median) the report states. */
  medianLagMs?: number;
  /** A DaemonSet: the log's rolling-update checks, compared with kexp's record (report/log-stores.ts). */
  rollingUpdateChecks?: RollingUpdateChecks;
  /** A Job: a finalizer removal the input shows that the log's tracking store still awaited at its end. */
  finalizerDisagreement?: FinalizerDisagreement;
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
  reads: 'the syncs the log shows skipped by the 1.36+ consistency gate (StaleControllerConsistencyReplicaSet, …DaemonSet, …Job)',
  fires: 'any such skip: the informer was behind the controller\'s own writes — not expectations gating',
  find({ rs, truth }) {
    const cs = truth?.consistencySkips ?? [];
    if (!truth || !cs.length) return undefined;
    const o = ownerWordsOf(rs);
    const first = cs[0]!;
    const last = cs[cs.length - 1]!;
    return {
      id: 'consistency-gate-skips',
      severity: 'info',
      title: `The 1.36+ consistency gate skipped ${cs.length} sync(s) from ${logTime(first.at)} to ${logTime(last.at)}: the ${first.resource} informer was behind the controller's own writes — not expectations gating`,
      basis: 'observed',
      at: logTime(first.at),
      explanation:
        `With ${o.consistencyGate.feature} (beta, on by default since 1.36) ${o.sync} first checks that its informers have observed the resourceVersion of the controller's own last write for ${rs.key}; ` +
        `until then the sync returns an error before SatisfiedExpectations (no create, delete or status write) and the key is requeued with backoff. ` +
        `The log shows read resourceVersion ${first.readResourceVersion ?? '?'} < written ${first.writtenResourceVersion ?? '?'} at the first skip${last.readResourceVersion !== undefined ? ` and ${last.readResourceVersion} < ${last.writtenResourceVersion ?? '?'} at the last` : ''}. ` +
        `These syncs are not counted as gated by expectations; they show how far the informer lagged the controller's writes.`,
      nextStep: `If the skips last long, check the apiserver's watch latency and kube-controller-manager's informer health (kube-controller-manager's metric ${o.consistencyGate.metric}{group,resource} counts the skips).`,
      evidence: [ref(first.source), ...(cs.length > 1 ? [ref(last.source)] : [])],
    };
  },
};

export const controllerLogLeak: FindingRule<ControllerLogFacts, MatchedWindow> = {
  name: 'expectation-leak-expired',
  ids: ['expectation-leak-expired', 'expectation-leak-open', 'expectation-leak-until-deleted'],
  reads: 'each window of kexp\'s the log showed, as the log shows it (report/log-windows.ts), and kexp\'s leak findings once they followed the log',
  fires: 'the log shows that window expired, still open past the 5-minute timeout, or unfulfilled past the timeout until the owner\'s deletion, and no finding of kexp\'s states that leak',
  each: (c) => c.matched,
  find({ log: t, kexp, fused: w }, { rs, findings }) {
    if (w.basis !== 'observed') return undefined;
    if (w.endedBy === 'rs-deleted' && t.satisfiedAt === undefined && t.end !== undefined && t.end - t.start > EXPECTATIONS_TIMEOUT_MS && t.gatedSyncs > 0) {
      return {
        id: 'expectation-leak-until-deleted',
        severity: 'warning',
        title: `The controller stayed gated ${fmtDuration(t.end - t.start)} on an unfulfilled record until the ${ownerWordsOf(rs).noun}'s deletion removed it, as its log shows`,
        basis: 'observed',
        at: w.start,
        explanation:
          `kube-controller-manager logged "Setting expectations" for ${rs.key} at ${logTime(t.start)} (${ref(t.startSource)}), ${plural(t.gatedSyncs, 'gated sync')}, ` +
          `no sync after the 5-minute ExpectationsTimeout (expiry is passive), and the ${ownerWordsOf(rs).noun}'s deletion at ${logTime(t.end)}${t.endSource ? ` (${ref(t.endSource)})` : ''} removed the record. ` +
          `The deletion, not the timeout, ended it.`,
        nextStep: 'Find why the writes it waited for were never observed by the controller (a watch gap or relist, a deletion its informer missed).',
        evidence: w.evidence,
      };
    }
    if (!isLeakWindow(w) || (w.endedBy !== 'expired' && w.endedBy !== 'open')) return undefined;
    if (findings.some((f) => LEAK_IDS.has(f.id) && (f.at === w.start || f.at === kexp.start) && f.id !== 'gated-at-end')) return undefined;
    const left = w.remaining ? `${w.remaining.add} creation(s) and ${w.remaining.del} deletion(s)` : 'counters the log does not print';
    const kexpSays = `kexp's reconstruction of the same window ${kexp.endedBy === 'open' ? 'has it open at the end of the input' : `has it end ${kexp.endedBy} at ${kexp.end}`}${kexp.evidence[0] ? ` (${kexp.evidence[0]})` : ''}.`;
    if (w.endedBy === 'expired') {
      return {
        id: 'expectation-leak-expired',
        severity: 'warning',
        title: `Expectations leaked and were only cleared by the 5-minute timeout (after ${fmtDuration(w.durationMs ?? 0)}), as the controller's log shows`,
        basis: 'observed',
        at: w.start,
        explanation:
          `kube-controller-manager logged ${t.startedBy === 'setting' ? '"Setting expectations"' : 'a "still waiting" sync'} for ${rs.key} at ${logTime(t.start)} (${ref(t.startSource)}), ` +
          `${plural(t.gatedSyncs, 'gated sync')} ("Controller still waiting on expectations"), and "Controller expectations expired" at ${logTime(t.end!)}${t.endSource ? ` (${ref(t.endSource)})` : ''}: ` +
          `${left} were never observed. ${kexpSays} The controller's log is its own account.`,
        nextStep: 'Find why those writes were never observed by the controller (a watch gap or relist, a deletion its informer missed, an orphaned pod) around the window\'s start.',
        evidence: w.evidence,
      };
    }
    return {
      id: 'expectation-leak-open',
      severity: 'critical',
      title: `Controller gated by a leaked expectation, as its log shows: only the timeout (or deleting the ${ownerWordsOf(rs).noun}) will clear it`,
      basis: 'observed',
      at: w.start,
      explanation:
        `kube-controller-manager logged ${t.startedBy === 'setting' ? '"Setting expectations"' : 'a "still waiting" sync'} for ${rs.key} at ${logTime(t.start)} (${ref(t.startSource)}) and ` +
        `${plural(t.gatedSyncs, 'gated sync')} since; its record is still unfulfilled at the end of the input, past the 5-minute ExpectationsTimeout. ` +
        `Expiry is passive: the controller recovers only at the first sync after it. ${kexpSays}`,
      nextStep: `Trigger a sync, e.g. \`kubectl annotate ${ownerResource(rs)} ${rs.name} -n ${rs.namespace} kexp.io/poke="$(date +%s)" --overwrite\`.`,
      evidence: w.evidence,
    };
  },
};

export const controllerLogDisagrees: FindingRule<ControllerLogFacts> = {
  name: 'controller-log-disagrees',
  ids: ['controller-log-disagrees'],
  reads: 'kexp\'s decision at each SatisfiedExpectations line of the log (analysis/fidelity.ts; a DaemonSet\'s rolling-update checks too, report/log-stores.ts), and each window where kexp\'s end differs from the log\'s (report/log-windows.ts)',
  fires: 'a sync decision or a window of the log that kexp\'s reconstruction contradicts (info: the report follows the log there, so this never becomes the cause)',
  find({ rs, truth, score, disagreements, rollingUpdateChecks, finalizerDisagreement }) {
    const syncs = score?.syncs.mismatched ?? 0;
    const checks = rollingUpdateChecks?.kexp?.mismatched ?? 0;
    if (!truth || !score || (syncs === 0 && disagreements.length === 0 && checks === 0 && !finalizerDisagreement)) return undefined;
    const parts = [
      ...(syncs ? [`${syncs} of ${score.syncs.total} sync decisions`] : []),
      ...(disagreements.length ? [plural(disagreements.length, 'window')] : []),
      ...(checks ? [`${checks} of ${rollingUpdateChecks!.total} rolling-update checks`] : []),
      ...(finalizerDisagreement ? ['its finalizer tracking'] : []),
    ];
    // A DaemonSet's second SatisfiedExpectations after manage (update.go): whether its rolling update ran.
    const checkLine = checks
      ? [`the controller's log shows ${plural(checks, 'rolling-update check')} (updateDaemonSet's SatisfiedExpectations after manage: the rolling update runs only when fulfilled) deciding otherwise than kexp's record at the same time (${rollingUpdateChecks!.kexp!.mismatchRefs.slice(0, 3).join(', ')})`]
      : [];
    const lines = [...disagreements.map((d) => d.text), ...score.mismatches.slice(0, 5), ...checkLine, ...(finalizerDisagreement ? [finalizerDisagreement.text] : [])];
    return {
      id: 'controller-log-disagrees',
      severity: 'info',
      title: `kexp's reconstruction disagrees with the controller's log in ${parts.join(' and ')}: the report follows the log`,
      basis: 'observed',
      at: truth.gatedWindows[0] !== undefined ? logTime(truth.gatedWindows[0].start) : rs.rounds[0]?.at,
      explanation:
        `Which source says what: ${lines.join('; ')}. ` +
        `The controller's log is its own account of what its informer showed it: where it covers the time its windows, gated syncs and expiries are the report's; kexp's inputs saw the cluster, not the controller's cache.`,
      nextStep: 'Look for what the controller saw and kexp\'s inputs do not show around those times: events its informer got late or never (a watch gap, a relist), a restart, calls it made that the input lacks.',
      evidence: [...new Set([...disagreements.flatMap((d) => d.evidence), ...score.mismatchRefs.slice(0, 5), ...(rollingUpdateChecks?.kexp?.mismatchRefs.slice(0, 3) ?? []), ...(finalizerDisagreement?.evidence ?? [])])].slice(0, 12),
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
