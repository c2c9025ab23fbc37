/**
 * What a DaemonSet's or a Job's controller log tells beyond its sync gate, as a report says it —
 * the same words for `kexp kcm-log` (the log alone) and for a replayed report the log is fused
 * into (analysis/controller-log.ts):
 * - a DaemonSet's rolling-update checks: updateDaemonSet's second SatisfiedExpectations after
 *   manage (pkg/controller/daemon/update.go; ground-truth.ts `rollingUpdateChecks`) — the rolling
 *   update runs only when it says fulfilled; it is no sync decision. Fused, each check is compared
 *   with kexp's reconstructed record at its time (fidelity.ts decisionMatches): the log's account
 *   wins, and where kexp's record said otherwise the report cites the lines;
 * - a Job's finalizer-tracking store: the pods whose `batch.kubernetes.io/job-tracking` finalizer
 *   removal the controller waits to observe (pkg/controller/job/tracking_utils.go;
 *   sources/kcm-log/finalizer-tracking.ts) — no counts, no timeout, not the sync gate.
 * Basis: observed (the controller's own lines). Pure: no I/O, no clock; O(checks × kexp's
 * expectation changes) for the comparison, O(UIDs) for the tracking.
 */
import type { FinalizerTracking } from '../../sources/kcm-log/finalizer-tracking.js';
import type { GroundTruth } from '../../sources/kcm-log/ground-truth.js';
import { decisionMatches } from '../fidelity.js';
import { iso } from '../iso.js';
import type { FinalizerRemovalsReport, FinalizerTrackingSummary, ReplicaSetReport, RollingUpdateChecks } from '../report-types.js';
import { ref } from './evidence-refs.js';

/** kexp's decision is compared with each check at ±this (receive-time skew, as the sync decisions are scored). */
const CHECK_SKEW_MS = 50;

/**
 * The rolling-update checks of one DaemonSet's log (undefined when it has none); with `kexp`, its
 * reconstructed report, each check compared with kexp's record at the check's time.
 */
export function rollingUpdateChecks(g: GroundTruth, kexp?: ReplicaSetReport): RollingUpdateChecks | undefined {
  const cs = g.rollingUpdateChecks;
  if (!cs?.length) return undefined;
  const n = (d: string) => cs.filter((c) => c.decision === d).length;
  const first = cs.find((c) => c.decision === 'gated');
  const out: RollingUpdateChecks = { total: cs.length, fulfilled: n('fulfilled'), stillWaiting: n('gated'), expired: n('expired'), ...(first ? { firstStillWaiting: ref(first.source) } : {}), basis: 'observed' };
  if (kexp) {
    const k = { matched: 0, mismatched: 0, unknown: 0, mismatchRefs: [] as string[] };
    for (const c of cs) {
      const m = decisionMatches(kexp, c.at, c.decision === 'gated' ? 'gated' : 'ungated', CHECK_SKEW_MS);
      if (m === 'matched') k.matched++;
      else if (m === 'unknown') k.unknown++;
      else {
        k.mismatched++;
        if (k.mismatchRefs.length < 10) k.mismatchRefs.push(ref(c.source));
      }
    }
    out.kexp = k;
  }
  return out;
}

/** A Job's finalizer tracking (finalizer-tracking.ts) as a report says it. */
export function finalizerTrackingSummary(t: FinalizerTracking): FinalizerTrackingSummary {
  return {
    lines: t.expected.length,
    expected: t.expected.reduce((n, x) => n + x.uids.length, 0),
    observed: t.observed,
    dropped: t.dropped,
    awaited: t.awaited.map((a) => ({ uid: a.uid, since: iso(a.since)!, evidence: ref(a.source) })),
    basis: 'observed',
    evidence: t.expected[0] ? ref(t.expected[0].source) : '',
  };
}

/** Where the log and the input disagree on a finalizer: the line the report prints, and its evidence. */
export interface FinalizerDisagreement {
  text: string;
  evidence: string[];
}

/**
 * The log's finalizer tracking against the removals and holders the input shows (the log wins:
 * it is the controller's own store): the holders it never expected a removal of while the log
 * covered their time (it had not tried), those it still awaited at its end (patched, the update
 * not yet observed), and — a disagreement — UIDs it still awaited at its end whose removal the
 * input shows before that end (its informer had not delivered the update). `logEnd`: the log's
 * last line.
 */
export function finalizersAgainstLog(f: FinalizerRemovalsReport, t: FinalizerTracking, logEnd: number): { log?: string; disagreement?: FinalizerDisagreement } {
  const expected = new Set(t.expected.flatMap((x) => x.uids));
  const awaited = new Map(t.awaited.map((a) => [a.uid, a]));
  const covered = f.held.filter((h) => h.uid !== undefined && h.since !== undefined && Date.parse(h.since) <= logEnd);
  const never = covered.filter((h) => !expected.has(h.uid!));
  const waiting = f.held.filter((h) => h.uid !== undefined && awaited.has(h.uid));
  const parts: string[] = [];
  const names = (hs: typeof f.held) => hs.slice(0, 3).map((h) => h.pod.slice(h.pod.indexOf('/') + 1)).join(', ') + (hs.length > 3 ? ', …' : '');
  if (never.length) parts.push(`no "Expecting tracking finalizers removed" of the controller's log names ${never.length === f.held.length ? (never.length === 1 ? 'it' : 'any of them') : `${never.length} of them (${names(never)})`} up to its end at ${iso(logEnd)}: the controller had not tried to remove it`);
  if (waiting.length) parts.push(`the controller's log still awaited the removal of ${waiting.length === f.held.length ? (waiting.length === 1 ? 'it' : 'them') : `${waiting.length} (${names(waiting)})`} at its end (${waiting.slice(0, 2).map((h) => awaited.get(h.uid!)!.source).map(ref).join(', ')}): removal requested, not yet observed`);
  const removed = new Set(f.removedUids);
  const stale = t.awaited.filter((a) => removed.has(a.uid));
  const out: { log?: string; disagreement?: FinalizerDisagreement } = {};
  if (parts.length) out.log = parts.join('; ');
  if (stale.length) {
    out.disagreement = {
      text: `the controller's log still awaited the job-tracking finalizer removal of ${stale.length === 1 ? 'a pod' : `${stale.length} pods`} at its end (${stale.slice(0, 3).map((a) => `${a.uid} since ${iso(a.since)}`).join('; ')}) that the input shows removed (${f.evidence.slice(0, 2).join(', ')}): its informer had not delivered the update`,
      evidence: stale.slice(0, 3).map((a) => ref(a.source)),
    };
  }
  return out;
}
