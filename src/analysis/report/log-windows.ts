/**
 * The controller's own windows in the report. Where a kube-controller-manager log that shows the
 * gate's decisions (-v=4: "Setting expectations", "still waiting", "expired", "fulfilled")
 * covers the time, its gated windows REPLACE kexp's reconstruction: a window of kexp's the log
 * shows (same start within SAME_WINDOW_MS) takes the log's start, end, ended-by, counters and
 * gated syncs, basis `observed`, and keeps kexp's account in its note; a window only the log
 * shows is added; a window of kexp's inside the log's span that the log does not show keeps
 * its own (inferred/unknown) basis, with a note and a disagreement line. A window is
 * `observed` only with the log's own end: a window still open when the log ends before the
 * input does has an unknown end (basis unknown), or kexp's end if kexp saw it end after the
 * log stopped (basis kexp's). Log ends map to the report's: fulfilled → fulfilled, expired →
 * expired, deleted → rs-deleted, restart → reset, superseded (a later Setting with no sync line
 * between) → reset.
 *
 * logVerdict makes the verdict follow the log when it covers the end of the input: a window of
 * the log's open then (still open, or ending after it) is the controller's gate at the end
 * (leaked when unfulfilled past the 5-minute ExpectationsTimeout, else gated; observed); kexp's
 * leaked/gated verdict on a window the log shows ended falls back to the counts (healthy or
 * converging, inferred). What the log shows after the input's end does not change the verdict.
 *
 * Mirrors SatisfiedExpectations / ControlleeExpectations.isExpired in
 * pkg/controller/controller_utils.go (the 5-minute timeout counted from the Set).
 * Pure: no I/O, no clock. fuseWindows is O(kexp's windows × the log's windows).
 */
import { EXPECTATIONS_TIMEOUT_MS } from '../../model/expectations.js';
import type { GatedWindow as LogWindow } from '../../sources/kcm-log/ground-truth.js';
import { iso } from '../iso.js';
import type { GatedWindow, ReplicaSetReport, WindowEnd } from '../report-types.js';
import { ref } from './evidence-refs.js';
import { isLeakWindow, leakNote } from './gated-windows.js';
import { fmtDuration, plural } from './wording.js';
import { ownerWordsOf } from './owner-words.js';

/** How far apart kexp's window start and the log's may be to be the same window. */
export const SAME_WINDOW_MS = 2000;

/** How a window taken from the log begins its note. */
const LOG_NOTE = 'the controller\'s log: ';

/** The time the log covers (its first to its last line). */
export interface LogSpan {
  start: number;
  end: number;
}

/** One of kexp's windows the log showed, and the window the report now has in its place. */
export interface MatchedWindow {
  log: LogWindow;
  kexp: GatedWindow;
  fused: GatedWindow;
}

/** Where kexp and the log disagree on a window: the line the report prints, and its evidence. */
export interface Disagreement {
  text: string;
  evidence: string[];
}

export interface WindowFusion {
  /** The report's windows, by start: the log's where it covers the time, kexp's elsewhere. */
  windows: GatedWindow[];
  matched: MatchedWindow[];
  /** Log windows kexp had no window for. */
  logOnly: LogWindow[];
  /** The report's windows that are the log's own (start and end from the log). */
  fromLog: GatedWindow[];
  /** One line per disagreement: what the log says and what kexp says, each with its file:line. */
  disagreements: Disagreement[];
}

const ENDED: Record<LogWindow['ended'], WindowEnd> = {
  fulfilled: 'fulfilled',
  expired: 'expired',
  deleted: 'rs-deleted',
  restart: 'reset',
  superseded: 'reset',
  open: 'open',
};

/** How the log's window began, cited. */
function startWords(t: LogWindow): string {
  return t.startedBy === 'setting'
    ? `"Setting expectations" at ${ref(t.startSource)}`
    : `a "still waiting" sync at ${ref(t.startSource)} (its log starts inside the window)`;
}

/** How the log's window ended, cited (`open`: at the end of the log). */
function endWords(t: LogWindow): string {
  if (t.ended === 'open') return 'still open at the end of the log';
  const how = t.ended === 'superseded' ? 'superseded by a later "Setting expectations" (the sync line between is not in the log)' : `ended ${t.ended}`;
  return `${how} at ${iso(t.end)}${t.endSource ? ` (${ref(t.endSource)})` : ''}`;
}

/** How kexp's window ended, cited by its first evidence. */
function kexpWords(w: GatedWindow): string {
  return `${w.endedBy === 'open' ? 'open at the end of the input' : `ended ${w.endedBy} at ${w.end}`}, ${plural(w.gatedSyncs, 'gated sync')}${w.evidence[0] ? ` (${w.evidence[0]})` : ''}`;
}

/** The report's window for the log's window `t` (kexp's matching window `w`, if any). */
function fromLog(t: LogWindow, w: GatedWindow | undefined, span: LogSpan, reportEnd: number | undefined): GatedWindow {
  const logCoversEnd = reportEnd === undefined || span.end >= reportEnd - SAME_WINDOW_MS;
  const notes = [`${LOG_NOTE}${startWords(t)}, ${endWords(t)}, ${plural(t.gatedSyncs, 'gated sync')}`];
  if (t.ended === 'open' && !logCoversEnd && w && w.endedBy !== 'open' && w.end !== undefined && Date.parse(w.end) > span.end) {
    // The log stops inside the window and kexp saw it end later: the end is kexp's.
    return {
      ...w,
      gatedSyncs: Math.max(w.gatedSyncs, t.gatedSyncs),
      evidence: [...new Set([ref(t.startSource), ...w.evidence])].slice(0, 12),
      note: [w.note, `${notes[0]}; the log ends at ${iso(span.end)}, so its end is kexp's reconstruction`].filter(Boolean).join('; '),
    };
  }
  const out: GatedWindow = {
    start: iso(t.start)!,
    endedBy: ENDED[t.ended],
    basis: t.ended === 'open' && !logCoversEnd ? 'unknown' : 'observed',
    raised: t.expected ? { ...t.expected, ...(w?.raised.keys ? { keys: w.raised.keys } : {}) } : (w?.raised ?? { add: 0, del: 0 }),
    gatedSyncs: t.gatedSyncs,
    evidence: [...new Set([ref(t.startSource), ...(t.endSource ? [ref(t.endSource)] : []), ...(w?.evidence ?? [])])].slice(0, 12),
  };
  if (t.end !== undefined) {
    out.end = iso(t.end);
    out.durationMs = Math.round(t.end - t.start);
  }
  if (t.satisfiedAt !== undefined) out.fulfilledAt = iso(t.satisfiedAt);
  const remaining = t.leaked ?? w?.remaining;
  if (remaining && out.endedBy !== 'fulfilled') out.remaining = remaining;
  if (t.ended === 'open') {
    const stop = logCoversEnd ? Math.max(span.end, reportEnd ?? span.end) : span.end;
    out.durationMs = Math.max(0, Math.round(stop - t.start));
    if (t.startedBy === 'setting') out.expiresAt = iso(t.start + EXPECTATIONS_TIMEOUT_MS);
    if (!logCoversEnd) notes.push(`the log ends at ${iso(span.end)} with the window open: how it ended is not in it`);
    else if (t.satisfiedAt === undefined && stop - t.start > EXPECTATIONS_TIMEOUT_MS) {
      notes.push(leakNote(`the controller's log shows the record unfulfilled for ${fmtDuration(stop - t.start)}, longer than the 5-minute ExpectationsTimeout`));
    }
  }
  if (w) notes.push(`kexp's reconstruction: ${kexpWords(w)}${w.note ? ` — ${w.note}` : ''}`);
  out.note = notes.join('; ');
  return out;
}

/**
 * The report's windows once the log's replace kexp's (see the module comment). `kexp` are the
 * report's windows as built from the other inputs, `logWindows` the log's for the same
 * ReplicaSet, `files` the log's files (cited when the log lacks a window), `noun` the owner's kind
 * as the notes name it.
 */
export function fuseWindows(kexp: GatedWindow[], logWindows: LogWindow[], span: LogSpan, reportEnd: number | undefined, files: string[], noun = 'ReplicaSet'): WindowFusion {
  const used = new Set<LogWindow>();
  const windows: GatedWindow[] = [];
  const matched: MatchedWindow[] = [];
  const disagreements: Disagreement[] = [];
  // Pairs by distance, nearest first: each window of kexp's takes the nearest log window within
  // SAME_WINDOW_MS that no nearer pair took.
  const pairs: Array<{ w: GatedWindow; t: LogWindow; d: number }> = [];
  for (const w of kexp) {
    for (const t of logWindows) {
      const d = Math.abs(t.start - Date.parse(w.start));
      if (d <= SAME_WINDOW_MS) pairs.push({ w, t, d });
    }
  }
  pairs.sort((x, y) => x.d - y.d);
  const pairOf = new Map<GatedWindow, LogWindow>();
  for (const { w, t } of pairs) {
    if (pairOf.has(w) || used.has(t)) continue;
    pairOf.set(w, t);
    used.add(t);
  }
  for (const w of kexp) {
    const start = Date.parse(w.start);
    const t = pairOf.get(w);
    if (t) {
      const fused = fromLog(t, w, span, reportEnd);
      windows.push(fused);
      matched.push({ log: t, kexp: w, fused });
      // kexp's window open at the end of the input is no disagreement with a log end after it.
      const endedAfterInput = w.endedBy === 'open' && t.end !== undefined && reportEnd !== undefined && t.end > reportEnd;
      const endDiffers = t.ended !== 'open' && !endedAfterInput && (ENDED[t.ended] !== w.endedBy || (w.end !== undefined && t.end !== undefined && Math.abs(Date.parse(w.end) - t.end) > SAME_WINDOW_MS));
      if (endDiffers) {
        disagreements.push({
          text: `window from ${iso(t.start)}: the controller's log says ${endWords(t)} after ${plural(t.gatedSyncs, 'gated sync')}; kexp's reconstruction says ${kexpWords(w)}`,
          evidence: [ref(t.endSource ?? t.startSource), ...w.evidence.slice(0, 1)],
        });
      }
    } else if (start >= span.start && start <= span.end) {
      // The log covers this time but shows no such window (or could not attribute its lines).
      windows.push({ ...w, note: [w.note, `the controller's log covers this time but shows no "Setting expectations" of this ${noun} within ${SAME_WINDOW_MS / 1000} s of it: kexp's reconstruction (${w.basis})`].filter(Boolean).join('; ') });
      disagreements.push({
        text: `window from ${w.start}: kexp's reconstruction says ${kexpWords(w)}; the controller's log (${files.join(', ')}) shows no "Setting expectations" of this ${noun} then`,
        evidence: w.evidence.slice(0, 1),
      });
    } else windows.push(w);
  }
  const logOnly = logWindows.filter((t) => !used.has(t));
  for (const t of logOnly) windows.push(fromLog(t, undefined, span, reportEnd));
  windows.sort((a, b) => a.start.localeCompare(b.start));
  return { windows, matched, logOnly, disagreements, fromLog: windows.filter((w) => w.basis === 'observed' && (w.note ?? '').startsWith(LOG_NOTE)) };
}

/**
 * The verdict once the log's windows are the report's: when the log covers the end of the
 * input, a window of the log's open there is the gate now (leaked or gated, observed); kexp's
 * leaked or gated verdict that the log shows ended falls back to the counts. Deleted and
 * deleting ReplicaSets, and a log that ends before the input, keep kexp's verdict.
 */
export function logVerdict(rs: ReplicaSetReport, fromLog: GatedWindow[], span: LogSpan, reportEnd: number | undefined): ReplicaSetReport['verdict'] {
  const v = rs.verdict;
  if (v.state === 'deleted' || v.state === 'deleting') return v;
  if (reportEnd !== undefined && span.end < reportEnd - SAME_WINDOW_MS) return v;
  // The verdict is at the end of the report's time: a window of the log's that ends after it was open then.
  const at = reportEnd ?? span.end;
  const open = fromLog.find((w) => w.basis === 'observed' && Date.parse(w.start) <= at && (w.endedBy === 'open' || (w.end !== undefined && Date.parse(w.end) > at)));
  const satisfied = open?.fulfilledAt !== undefined && Date.parse(open.fulfilledAt) <= at;
  if (open && !satisfied) {
    const cite = open.evidence[0] ? ` (${open.evidence[0]})` : '';
    const leak = open.endedBy === 'open' ? isLeakWindow(open) : at - Date.parse(open.start) > EXPECTATIONS_TIMEOUT_MS;
    if (leak) {
      return { state: 'leaked', basis: 'observed', summary: `gated by a leaked expectation since ${open.start}: the controller's log shows the record unfulfilled past the 5-minute timeout at the end of the input, ${plural(open.gatedSyncs, 'gated sync')}${cite}` };
    }
    return { state: 'gated', basis: 'observed', summary: `gated on its own writes since ${open.start} (the controller's log: ${plural(open.gatedSyncs, 'gated sync')}${cite})` };
  }
  if (v.state === 'leaked' || v.state === 'gated') {
    const active = rs.counts.active.last;
    const desired = rs.counts.desired.last;
    const why = 'the controller\'s log shows no window open at the end of the input';
    const o = ownerWordsOf(rs);
    return active === desired
      ? { state: 'healthy', basis: 'inferred', summary: `controller healthy: ${active}/${desired} pods active${o.desiredMeans ? ` (desired: the ${o.desiredMeans})` : ''}; ${why}` }
      : { state: 'converging', basis: 'inferred', summary: `converging: ${active} of ${desired} ${o.unit}${o.desiredMeans ? ` (${o.desiredMeans})` : ''} active; ${why}` };
  }
  return v;
}
