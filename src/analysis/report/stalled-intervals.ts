/**
 * A recording's watch stalled beyond the horizon kexp repairs (timeline/stalled-watch.ts,
 * STALL_HORIZON_MS): its late changes keep the recorder's order, not the apiserver's, so what the
 * replay concluded from the order of the changes in that time may be false (a create "surplus"
 * because the ReplicaSet update that called for it arrived after it, a delete outside every round,
 * a window the late pods kept open). The input cannot tell the true order there: each such
 * conclusion keeps its place in the report with basis `unknown` and the reason, never dropped,
 * and the exit code, which rests on known bases only (cli/report-exit.ts), no longer rests on it.
 *
 * What is marked, per owner report in a namespace the stalled watch's late changes name (every
 * namespace when one was cluster-scoped): a finding whose time falls in [from, until] of a stalled
 * interval or that cites a line of its backlog; a round likewise; a gated window whose start or end
 * falls in it or that cites its backlog. An item whose evidence lies only in other inputs (the
 * controller's own log: its observed windows) is left as it is; one already unknown gets the
 * reason too. The verdict becomes unknown when it
 * rests on a marked item: `gated` on a marked open window, `leaked` on a marked leak finding,
 * `stalled` or `failing` when its last round or an open window is marked. One assumption per
 * interval says what stalled, from when to when, and the backlog's first line.
 *
 * Contract: `withStalledIntervals(report, intervals)` returns `report` itself when `intervals` is
 * empty (a recording without such a stall is reported byte for byte as before). Pure: no I/O, no
 * clock; O(intervals × (findings + rounds + windows + evidence)) per owner report.
 */
import type { Finding, GatedWindow, Report, ReplicaSetReport, RoundReport } from '../report-types.js';
import type { StalledInterval } from '../../timeline/stalled-watch.js';
import { STALL_HORIZON_MS } from '../../timeline/stalled-watch.js';
import { iso } from '../iso.js';
import { parseRef } from './evidence-refs.js';

function seconds(ms: number): string {
  return ms >= 10_000 ? `${Math.round(ms / 1000)} s` : `${(ms / 1000).toFixed(1)} s`;
}

/** Why an item's basis is unknown, in the report's words. */
export function stallReason(iv: StalledInterval): string {
  return (
    `the recorder's ${iv.kind} watch stalled ${seconds(iv.until - iv.from)} (${iso(iv.from)} to ${iso(iv.until)}; its backlog first at ${iv.file}:${iv.firstLine}): ` +
    `the order of the changes in that time is the recorder's, not the apiserver's`
  );
}

/** The report's assumption for one stalled interval. */
export function stallAssumption(iv: StalledInterval): string {
  return (
    `A stalled watch of the recorder beyond the ${seconds(STALL_HORIZON_MS)} kexp puts back in resourceVersion order: the ${iv.kind} watch of ${iv.file} stalled ${seconds(iv.until - iv.from)}, ` +
    `from ${iso(iv.from)} to ${iso(iv.until)} — ${iv.count} change(s) it delivered by ${iso(iv.until)} (first at ${iv.file}:${iv.firstLine}) carry resourceVersions below ones other watches had delivered more than ${seconds(STALL_HORIZON_MS)} earlier, ` +
    `and were made no earlier than ${iso(iv.from)}. The order of the changes in that time is the recorder's, not the apiserver's: ` +
    `the findings, gated windows and rounds there${iv.namespaces ? ` (namespace${iv.namespaces.size === 1 ? '' : 's'} ${[...iv.namespaces].sort().join(', ')})` : ''} have basis unknown.`
  );
}

class Marker {
  constructor(private readonly iv: StalledInterval) {}

  inTime(at: string | undefined): boolean {
    if (at === undefined) return false;
    const t = Date.parse(at);
    // Report times are to the millisecond (floored), as the assumption prints `from`.
    return t >= Math.floor(this.iv.from) && t <= this.iv.until;
  }

  /** Whether the item can rest on the recording's order: no evidence, or some of it in the stalled file. */
  fromRecording(evidence: readonly string[]): boolean {
    return evidence.length === 0 || evidence.some((r) => parseRef(r)?.file === this.iv.file);
  }

  citesBacklog(evidence: readonly string[]): boolean {
    return evidence.some((r) => {
      const p = parseRef(r);
      return p !== undefined && p.file === this.iv.file && p.line >= this.iv.firstLine && p.line <= this.iv.lastLine;
    });
  }

  finding(f: Finding): boolean {
    return this.fromRecording(f.evidence) && (this.inTime(f.at) || this.citesBacklog(f.evidence));
  }

  round(r: RoundReport): boolean {
    const ev = [r.evidence];
    return this.fromRecording(ev) && (this.inTime(r.at) || this.citesBacklog(ev));
  }

  window(w: GatedWindow): boolean {
    return this.fromRecording(w.evidence) && (this.inTime(w.start) || this.inTime(w.end) || this.citesBacklog(w.evidence));
  }
}

const withNote = (note: string | undefined, why: string): string => (note ? `${note}; basis unknown: ${why}` : `basis unknown: ${why}`);

function markOwner(r: ReplicaSetReport, intervals: readonly StalledInterval[]): ReplicaSetReport {
  let findings = r.findings;
  let rounds = r.rounds;
  let gatedWindows = r.gatedWindows;
  const markedFindings = new Set<Finding>();
  const markedRounds = new Set<RoundReport>();
  const markedWindows = new Set<GatedWindow>();
  let verdictWhy: string | undefined;
  for (const iv of intervals) {
    if (iv.namespaces && !iv.namespaces.has(r.namespace)) continue;
    const m = new Marker(iv);
    const why = stallReason(iv);
    findings = findings.map((f) => {
      if (!m.finding(f)) return f;
      const g: Finding = { ...f, basis: 'unknown', explanation: `${f.explanation} Basis unknown: ${why}.` };
      markedFindings.add(g);
      return g;
    });
    rounds = rounds.map((x) => {
      if (!m.round(x)) return x;
      const y: RoundReport = { ...x, basis: 'unknown', note: withNote(x.note, why) };
      markedRounds.add(y);
      return y;
    });
    gatedWindows = gatedWindows.map((w) => {
      if (!m.window(w)) return w;
      const v: GatedWindow = { ...w, basis: 'unknown', note: withNote(w.note, why) };
      markedWindows.add(v);
      return v;
    });
    if (verdictWhy === undefined && (markedFindings.size || markedRounds.size || markedWindows.size)) verdictWhy = why;
  }
  if (markedFindings.size + markedRounds.size + markedWindows.size === 0) return r;
  let verdict = r.verdict;
  if (verdict.basis !== 'unknown' && restsOnMarked(r.verdict.state, findings, rounds, gatedWindows, markedFindings, markedRounds, markedWindows)) {
    verdict = { ...verdict, basis: 'unknown', summary: `${verdict.summary} (basis unknown: ${verdictWhy})` };
  }
  return { ...r, verdict, findings, rounds, gatedWindows };
}

/** Whether the verdict's state rests on an item the stall made unknown (see the header). */
function restsOnMarked(
  state: ReplicaSetReport['verdict']['state'],
  findings: Finding[],
  rounds: RoundReport[],
  windows: GatedWindow[],
  mf: Set<Finding>,
  mr: Set<RoundReport>,
  mw: Set<GatedWindow>,
): boolean {
  const openMarked = windows.some((w) => w.endedBy === 'open' && mw.has(w));
  switch (state) {
    case 'gated':
      return openMarked;
    case 'leaked':
      return findings.some((f) => mf.has(f) && f.id === 'expectation-leak-open') || openMarked;
    case 'stalled':
    case 'failing': {
      const last = rounds[rounds.length - 1];
      return openMarked || (last !== undefined && mr.has(last));
    }
    default:
      return false;
  }
}

/** The report with what the stalled intervals make unknown marked so, and one assumption each (see the header). */
export function withStalledIntervals(report: Report, intervals: readonly StalledInterval[]): Report {
  if (intervals.length === 0) return report;
  return {
    ...report,
    coverage: { ...report.coverage, assumptions: [...report.coverage.assumptions, ...intervals.map(stallAssumption)] },
    replicaSets: report.replicaSets.map((r) => markOwner(r, intervals)),
  };
}
