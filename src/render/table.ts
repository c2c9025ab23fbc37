/**
 * Renders a Report as terminal text, one block per ReplicaSet, in the order an operator
 * reads it: the summary (src/render/next-steps.ts: verdict, cause, next step with kubectl
 * commands), the counts, the timeline chart, then borderless kubectl-style tables (gated
 * windows, rounds), the findings and the adoption table; input coverage last.
 * Everything fits `width` columns (src/render/width.ts decides it): tables shrink their
 * free-text columns and cut them with `…`, prose is word-wrapped. `wide` (`-o wide`) adds the
 * wide-only columns (evidence, writes, errors) and prints every row and cell in full.
 * Times are HH:MM:SS.mmm UTC with the date once in each section's title.
 * Reads the Report only; computes nothing. `kexp explain` passes its extra sections
 * (facts, recent timeline, next steps) through `RsExtras`.
 */
import type { GatedWindow, Report, ReplicaSetReport, RoundReport } from '../analysis/report-types.js';
import { adoptionTable, decisionCounts } from './adoption.js';
import { renderChart, shortDuration } from './chart.js';
import { displayLength, formatTable, type Column } from './columns.js';
import { renderSummary, rankFindings } from './next-steps.js';
import { terminalSafeDeep } from './terminal-safe.js';
import { fitLine, labelled, wrap } from './text.js';
import { clockFor, dateSuffix, sectionDate } from './times.js';
import { ownerKindOf } from '../analysis/report/owner-kind.js';
import { desiredMeaning, endedByLabel } from '../analysis/report/owner-words.js';
import { finalizerRemovalsLine, finalizerTrackingLine, rollingUpdateChecksLine } from './workload-stores.js';

export const MAX_ROUNDS = 20;
const EVIDENCE_SHOWN = 3;
/** Tables start under their section title. */
const TI = '  ';

export interface RenderOptions {
  /** Colour the chart (decide with useColor() from ./color.js). Default false. */
  color?: boolean;
  /** `-o wide`: wide-only columns, every row and cell in full. */
  wide?: boolean;
  /** The input was cut short by Ctrl-C/SIGTERM: how far it was read (each verdict line says PARTIAL). */
  partial?: string;
}

/** What `kexp explain` adds to a ReplicaSet's block. */
export interface RsExtras {
  /** Replaces the counts line. */
  facts?: string;
  /** Next steps (replaces the findings' own). */
  steps?: string[];
  /** The recent timeline: rows of time (epoch ms), coarse (whole seconds), basis, source, text. */
  timeline?: { rows: Array<{ at: number; coarse: boolean; basis: string; from: string; text: string }>; omitted: number; note: string };
  /** What to say when there is no gated window. */
  noWindows?: string;
  /**
   * Said in place of the chart when there is no span of time to draw (`kexp explain` without
   * --watch: a snapshot is one point in time; its chart would span only the read's milliseconds).
   */
  chartNote?: string;
}

interface Ctx {
  width: number;
  wide: boolean;
  color: boolean;
  partial?: string;
  start?: string;
  end?: string;
}

function dur(ms: number | undefined): string {
  return ms === undefined ? '—' : shortDuration(ms);
}

const pod = (key: string) => key.split('/')[1] ?? key;

function windowsSection(r: ReplicaSetReport, c: Ctx, noWindows: string): string[] {
  const out: string[] = [];
  const date = sectionDate(r.gatedWindows.map((w) => w.start));
  const clock = clockFor(date);
  out.push(`  Gated windows${r.gatedWindows.length ? dateSuffix(date) : ''}`);
  if (r.gatedWindows.length === 0) return [...out, wrap(noWindows, c.width, '    ')];
  const columns: Column[] = [
    { header: 'Start', kind: 'fixed' }, { header: 'End', kind: 'fixed' }, { header: 'Lasted', kind: 'fixed', align: 'right' },
    { header: 'Ended by', kind: 'fixed' }, { header: 'Raised', kind: 'fixed' }, { header: 'Syncs', kind: 'fixed', align: 'right' },
    { header: 'Basis', kind: 'fixed' },
    ...(c.wide ? [{ header: 'Left', kind: 'fixed' as const }, { header: 'Evidence', kind: 'flex' as const }] : []),
  ];
  const rows = r.gatedWindows.map((w: GatedWindow) => [
    clock(w.start), w.end ? clock(w.end) : 'open', dur(w.durationMs), endedByLabel(r, w.endedBy), `${w.raised.add}/${w.raised.del}`, String(w.gatedSyncs), w.basis,
    ...(c.wide ? [w.remaining ? `${w.remaining.add}/${w.remaining.del}` : '—', w.evidence.join(', ')] : []),
  ]);
  out.push(...formatTable(columns, rows, { width: c.width, wide: c.wide, indent: TI }));
  for (const w of r.gatedWindows) {
    const notes: string[] = [];
    if (w.endedBy === 'open') notes.push(`open, record expires ${w.expiresAt ? clock(w.expiresAt) : '?'}${w.remaining ? ` (left add=${w.remaining.add} del=${w.remaining.del})` : ''}; recovery needs a sync after that`);
    else if (w.remaining && (w.remaining.add || w.remaining.del)) notes.push(`left add=${w.remaining.add} del=${w.remaining.del}`);
    if (w.note) notes.push(w.note);
    if (notes.length) out.push(wrap(`${clock(w.start)}: ${notes.join('; ')}`, c.width, '    '));
  }
  return out;
}

function roundDetail(x: RoundReport, wide: boolean): string {
  const list = (keys: string[] | undefined) => {
    const k = keys ?? [];
    if (wide || k.length <= 1) return k.map(pod).join(',');
    return `${pod(k[0]!)} +${k.length - 1}`;
  };
  const parts: string[] = [];
  if (x.kind === 'claim') {
    if (x.adopted?.length) parts.push(`adopted ${list(x.adopted)}`);
    if (x.released?.length) parts.push(`released ${list(x.released)}`);
  } else if (x.kind === 'create') parts.push(`batches ${x.batches?.join(',') ?? '?'}`);
  else parts.push(list(x.keys));
  if (x.timedOut) parts.push(`${x.timedOut} timed out (504), counted as success (before 1.18)`);
  if (x.errors.length) parts.push(wide ? x.errors.join('; ') : x.errors[0]!);
  return parts.join('; ');
}

function roundsSection(r: ReplicaSetReport, c: Ctx): string[] {
  const out: string[] = [];
  const a = r.accounting;
  const shown = c.wide ? r.rounds : r.rounds.slice(-MAX_ROUNDS);
  const date = sectionDate(shown.map((x) => x.at));
  const clock = clockFor(date);
  out.push(wrap(`Rounds${r.rounds.length ? dateSuffix(date) : ''}: creates, deletes and adopt/release claims; the controller's writes in the input: ${a.writes}, ${a.inRounds} in rounds, ${a.inFindings} in findings`, c.width, '  '));
  if (r.rounds.length === 0) return [...out, '    none'];
  // Counts no shown round has (NamespaceTerminating rejections, unknown outcomes) are left out unless wide.
  const nsTerm = c.wide || shown.some((x) => (x.namespaceTerminating ?? 0) > 0);
  const unknown = c.wide || shown.some((x) => (x.unknown ?? 0) > 0);
  const columns: Column[] = [
    { header: 'At', kind: 'fixed' }, { header: 'Kind', kind: 'fixed' }, { header: 'N', kind: 'fixed', align: 'right' },
    { header: 'OK', kind: 'fixed', align: 'right' }, { header: 'Failed', kind: 'fixed', align: 'right' },
    ...(nsTerm ? [{ header: 'NsTerm', kind: 'fixed' as const, align: 'right' as const }] : []),
    ...(unknown ? [{ header: 'Unknown', kind: 'fixed' as const, align: 'right' as const }] : []),
    { header: 'Basis', kind: 'fixed' },
    ...(c.wide ? [{ header: 'Writes', kind: 'fixed' as const, align: 'right' as const }] : []),
    { header: 'Detail', kind: 'flex' },
    ...(c.wide ? [{ header: 'Evidence', kind: 'flex' as const }] : []),
  ];
  const rows = shown.map((x) => {
    const claimed = [...(x.adopted ?? []), ...(x.released ?? [])];
    // Rejections the controller counted as successes (NamespaceTerminating; a timeout before 1.18) are no OK pod.
    const ok = x.kind === 'create' ? (x.successes ?? 0) - (x.namespaceTerminating ?? 0) - (x.timedOut ?? 0) : x.kind === 'claim' ? claimed.length : x.n - (x.failed?.length ?? 0) - (x.unknown ?? 0) - (x.unmade ?? 0);
    const failed = x.kind === 'claim' ? 0 : (x.skipped ?? x.failed?.length ?? 0) + (x.timedOut ?? 0);
    return [
      clock(x.at), x.kind, String(x.n), String(ok), String(failed),
      ...(nsTerm ? [String(x.namespaceTerminating ?? 0)] : []), ...(unknown ? [String(x.unknown ?? 0)] : []), x.basis,
      ...(c.wide ? [String(x.writes)] : []), roundDetail(x, c.wide), ...(c.wide ? [x.evidence] : []),
    ];
  });
  if (r.rounds.length > shown.length) out.push(`    (${r.rounds.length - shown.length} earlier rounds in -o wide and -o json)`);
  out.push(...formatTable(columns, rows, { width: c.width, wide: c.wide, indent: TI }));
  return out;
}

function findingsSection(r: ReplicaSetReport, c: Ctx): string[] {
  const date = sectionDate(r.findings.map((f) => f.at));
  const clock = clockFor(date);
  const out = [`  Findings${r.findings.some((f) => f.at) ? dateSuffix(date) : ''}`];
  if (r.findings.length === 0) out.push('    none');
  for (const f of rankFindings(r.findings)) {
    out.push(wrap(`[${f.severity.toUpperCase()}] ${f.title} (${f.basis}${f.at ? `, ${clock(f.at)}` : ''})`, c.width, '    '));
    out.push(wrap(f.explanation, c.width, '        '));
    out.push(labelled('        Next: ', f.nextStep, c.width));
    if (f.evidence.length) {
      if (c.wide) out.push(`        Evidence: ${f.evidence.join(', ')}`);
      else {
        // The count first, so a cut line still says that -o wide has them all.
        const more = f.evidence.length > EVIDENCE_SHOWN ? ` (${f.evidence.length}; -o wide lists all)` : '';
        out.push(fitLine(`        Evidence${more}: ${f.evidence.slice(0, EVIDENCE_SHOWN).join(', ')}`, c.width));
      }
    }
  }
  return out;
}

function timelineSection(t: NonNullable<RsExtras['timeline']>, c: Ctx): string[] {
  const date = sectionDate(t.rows.map((x) => new Date(x.at).toISOString()));
  const clock = clockFor(date);
  const out = [wrap(`Recent timeline${dateSuffix(date)}; ${t.note}`, c.width, '  ')];
  if (t.omitted) out.push(`    … ${t.omitted} earlier entries omitted`);
  const rows = t.rows.map((x) => [x.coarse ? clock(x.at).replace(/\.\d{3}$/, '') : clock(x.at), x.basis, x.from, x.text]);
  out.push(...formatTable([{ header: 'At', kind: 'fixed' }, { header: 'Basis', kind: 'fixed' }, { header: 'From', kind: 'fixed' }, { header: 'What', kind: 'flex' }], rows, { width: c.width, wide: c.wide, indent: TI }));
  return out;
}

/** `head` plus `tail` when both fit (or wide), else `head` alone, cut to the width. */
function headerLine(head: string, tail: string, c: Ctx): string {
  return c.wide || displayLength(head + tail) <= c.width ? head + tail : fitLine(head, c.width);
}

/** What only a DaemonSet or a Job has beside its gate (render/workload-stores.ts); none for a ReplicaSet. */
function workloadLines(r: ReplicaSetReport, c: Ctx): string[] {
  const clock = clockFor(sectionDate([r.finalizerRemovals?.first, ...(r.controllerLog?.finalizerTracking?.awaited.map((a) => a.since) ?? [])].filter((t): t is string => t !== undefined)));
  const out: string[] = [];
  if (r.controllerLog?.rollingUpdateChecks) out.push(rollingUpdateChecksLine(r.controllerLog.rollingUpdateChecks, c.width));
  if (r.finalizerRemovals) out.push(finalizerRemovalsLine(r.finalizerRemovals, clock, c.width, c.wide));
  if (r.controllerLog?.finalizerTracking) out.push(finalizerTrackingLine(r.controllerLog.finalizerTracking, clock, c.width, c.wide));
  return out;
}

/** The block of one ReplicaSet (exported for `kexp explain`). */
export function renderReplicaSet(r: ReplicaSetReport, c: Ctx, x: RsExtras = {}): string[] {
  const out: string[] = [];
  out.push(headerLine(`${ownerKindOf(r)} ${r.key}${r.owner ? `  owner ${r.owner.kind}/${r.owner.name}` : ''}`, r.uid ? `  uid ${r.uid}` : '', c));
  out.push(...renderSummary(r, { width: c.width, steps: x.steps, partial: c.partial }));
  out.push('');
  if (x.facts) out.push(wrap(x.facts, c.width, '  '));
  else {
    const n = r.counts;
    out.push(wrap(
      `Desired ${n.desired.first}→${n.desired.last}${desiredMeaning(r)}; active ${n.active.first}→${n.active.last} (max ${n.active.max}); ` +
        `terminating ${n.terminating.last} (max ${n.terminating.max}); ready ${n.ready.last}; syncs ${r.syncs.total}` +
        (r.syncs.byOutcome.gated ? ` (${r.syncs.byOutcome.gated} gated)` : ''), c.width, '  '));
  }
  if (r.initialState.basis === 'unknown') {
    const clock = clockFor(undefined);
    out.push(wrap(`Before ${r.initialState.until ? clock(r.initialState.until) : 'any round'}: expectations unknown (${r.initialState.reason}).`, c.width, '  '));
  } else out.push(wrap(`Expectations known from the start: ${r.initialState.reason}.`, c.width, '  '));
  out.push('');
  out.push(x.chartNote !== undefined ? wrap(x.chartNote, c.width, '  ') : renderChart(r, { width: c.width, color: c.color, start: c.start, end: c.end }));
  out.push('');
  out.push(...windowsSection(r, c, x.noWindows ?? 'none: the controller was never gated on its own writes in the covered time'));
  out.push('');
  const stores = workloadLines(r, c);
  if (stores.length) out.push(...stores, '');
  if (x.timeline) {
    out.push(...timelineSection(x.timeline, c));
    out.push('');
  }
  if (!x.timeline || r.rounds.length) {
    out.push(...roundsSection(r, c));
    out.push('');
  }
  out.push(...findingsSection(r, c));
  out.push('');
  const at = r.adoption.at ? ` at ${clockFor(undefined)(r.adoption.at)} UTC` : '';
  out.push(wrap(`Adoption (ClaimObject for each candidate pod: ${decisionCounts(r.adoption.rows) || 'none'})${at}`, c.width, '  '));
  if (r.adoption.rows.length === 0) out.push('    no candidate pods');
  else out.push(...adoptionTable(r.adoption.rows, { width: c.width, wide: c.wide, indent: TI }));
  return out;
}

/** The input coverage lines (every command's footer). */
export function coverageLines(report: Report, width: number, partial?: string): string[] {
  const out: string[] = [];
  const cov = report.coverage;
  const clock = clockFor(undefined);
  const recordingLike = (f: string) => f === 'kexp-recording';
  // The DaemonSets and Jobs whose own lines of the log were fused into their reports (analysis/controller-log.ts).
  const fused = [...new Set(report.replicaSets.filter((r) => (r.kind === 'DaemonSet' || r.kind === 'Job') && r.controllerLog).map((r) => r.kind!))];
  const kcmWhat = `log lines about ReplicaSets${fused.length ? `; its ${fused.join(' and ')} lines fused into their reports` : ''}`;
  for (const i of report.inputs) {
    const what = i.format === 'list' ? 'objects' : i.format === 'kcm-log' ? kcmWhat : i.format === 'live-snapshot' ? 'objects read' : 'events';
    out.push(wrap(`Input: ${i.file} (${i.format}, ${i.events} ${what}${i.problems ? `, ${i.problems} problem${i.problems === 1 ? '' : 's'}` : ''}${i.endMarker || !recordingLike(i.format) ? '' : partial ? ', read until the interruption' : ', no end marker'})`, width, '').trimStart());
  }
  const start = clock(cov.start);
  const end = cov.start && cov.end && cov.start.slice(0, 10) === cov.end.slice(0, 10) ? clockFor(cov.start.slice(0, 10))(cov.end) : clock(cov.end);
  out.push(wrap(`Covered: ${start} → ${end} UTC`, width, ''));
  const v = report.k8sVersion;
  out.push(wrap(`Model: Kubernetes ${v.version} (${v.basis})${v.modelledAs ? `, replayed as ${v.modelledAs}` : ''}`, width, ''));
  // A release kexp does not model exactly: what is and is not modelled for it, in the text report too.
  for (const d of v.differences ?? []) out.push(wrap(`       ${d}`, width, '       '));
  for (const b of cov.timeBasis) out.push(labelled('Times: ', b, width));
  if (cov.gaps.length) out.push(labelled('Gaps: ', cov.gaps.map((g) => `${clock(g.at)} ${g.reason} (${g.evidence})`).join('; '), width));
  if (cov.problems.count) out.push(labelled('Problems: ', `${cov.problems.count} input line(s) skipped, e.g. ${cov.problems.examples[0]}`, width));
  return out;
}

/**
 * The whole report as text, `width` columns wide (default 100, for callers that pass none; commands
 * pass the width of their stdout, src/cli/output.ts). `color` (default false) colours the chart.
 */
export function renderTable(report: Report, width = 100, opts: RenderOptions = {}): string {
  report = terminalSafeDeep(report);
  const c: Ctx = { width, wide: opts.wide ?? false, color: opts.color ?? false, partial: opts.partial, start: report.coverage.start, end: report.coverage.end };
  const out: string[] = [];
  if (report.replicaSets.length === 0) out.push('No ReplicaSet found in the input.');
  for (const r of report.replicaSets) {
    out.push(...renderReplicaSet(r, c));
    out.push('');
  }
  out.push(...coverageLines(report, width, opts.partial));
  return out.join('\n') + '\n';
}
