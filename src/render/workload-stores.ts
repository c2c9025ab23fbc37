/**
 * The lines of what only a DaemonSet or a Job has besides its gate, one wording for `kexp
 * kcm-log` (kcm-log-table.ts: the log alone) and for a replayed report (table.ts): the
 * DaemonSet's rolling-update checks and the Job's finalizer-tracking store from the controller's
 * log (analysis/report/log-stores.ts; in a replayed report with kexp's record compared), and the
 * Job's finalizer removals from the input (analysis/finalizer-removals.ts). Each is one wrapped
 * paragraph, printed only when the report holds it (a ReplicaSet's block never has one).
 * Reads the report only; computes nothing. Cost O(the items shown).
 */
import type { FinalizerRemovalsReport, FinalizerTrackingSummary, RollingUpdateChecks } from '../analysis/report-types.js';
import { wrap } from './text.js';

/** Items of a list shown before "… N more (-o wide)". */
const SHOWN = 8;

const plural = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`;

/** A DaemonSet's rolling-update checks; in a replayed report, with kexp's record at the same times. */
export function rollingUpdateChecksLine(c: RollingUpdateChecks, width: number): string {
  const k = c.kexp;
  const kexp = !k
    ? ''
    : `; kexp's reconstructed record agrees with ${k.matched} of ${c.total}${k.mismatched ? `, decides otherwise at ${k.mismatched} (${k.mismatchRefs.slice(0, 3).join(', ')}${k.mismatchRefs.length > 3 ? ', …' : ''}): the log's account stands` : ''}${k.unknown ? `, cannot tell ${k.unknown}` : ''}`;
  return wrap(`Rolling-update checks (observed: updateDaemonSet's second SatisfiedExpectations after manage; the rolling update runs only when satisfied; not counted as syncs): ${c.total} — ${c.fulfilled} fulfilled, ${c.stillWaiting} still waiting (rolling update skipped)${c.expired ? `, ${c.expired} expired` : ''}${c.firstStillWaiting ? ` (first still waiting ${c.firstStillWaiting})` : ''}${kexp}`, width, '  ');
}

/** A Job's finalizer-tracking store as its log shows it. */
export function finalizerTrackingLine(f: FinalizerTrackingSummary, clock: (t: string | undefined) => string, width: number, wide: boolean): string {
  const shown = wide ? f.awaited : f.awaited.slice(0, SHOWN);
  const awaited = f.awaited.length
    ? `; ${f.awaited.length} still awaited at the end of the log — ${shown.map((a) => `${a.uid} since ${clock(a.since)} (${a.evidence})`).join('; ')}${f.awaited.length > shown.length ? `; … ${f.awaited.length - shown.length} more (-o wide)` : ''}`
    : '; none awaited at the end of the log';
  return wrap(`Finalizer tracking (observed: pods whose job-tracking finalizer removal the controller waits to observe; no timeout, not the sync gate): ${f.expected} expected in ${plural(f.lines, 'line')} (first ${f.evidence}), ${f.observed} observed removed${f.dropped ? `, ${f.dropped} dropped with the Job or a controller restart` : ''}${awaited}`, width, '  ');
}

/** A Job's finalizer removals the input shows, and the pods still holding the finalizer at its end. */
export function finalizerRemovalsLine(f: FinalizerRemovalsReport, clock: (t: string | undefined) => string, width: number, wide: boolean): string {
  const who = f.removed === 0 ? '' : f.byController === f.removed ? ', each by the job-controller\'s PATCH' : f.byController ? `, ${f.byController} by the job-controller's PATCH, the others' writer not in the input` : ', the writer not in the input';
  const when = f.first ? ` ${clock(f.first)}${f.last && f.last !== f.first ? ` → ${clock(f.last)}` : ''}` : '';
  const failed = f.failed ? `, ${plural(f.failed, 'PATCH')} failed (the finalizer stays)` : '';
  const ev = f.evidence.length ? ` (${f.evidence.slice(0, 2).join(', ')}${f.removed + f.failed > 2 ? ', …' : ''})` : '';
  const shown = wide ? f.held : f.held.slice(0, SHOWN);
  const held = f.held.length
    ? `; ${f.statement ?? ''}: ${shown.map((h) => `${h.pod.slice(h.pod.indexOf('/') + 1)}${h.since ? ` since ${clock(h.since)}` : ''} (${h.evidence})`).join('; ')}${f.held.length > shown.length ? `; … ${f.held.length - shown.length} more (-o wide)` : ''}`
    : '; no finished or terminating pod holds it at the end of the input';
  const log = f.log ? `; ${f.log}` : '';
  return wrap(`Finalizer removals (observed: trackJobStatusAndRemoveFinalizers removes batch.kubernetes.io/job-tracking once it counted a finished pod): ${f.removed} removed${when}${who}${failed}${ev}${held}${log}`, width, '  ');
}
