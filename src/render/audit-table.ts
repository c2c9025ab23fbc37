/**
 * `kexp audit` without --rs: the worst ReplicaSet's summary first (verdict, cause, next step
 * with kubectl commands and the `kexp audit … --rs` to see all of it), then a ranked
 * borderless table of ReplicaSets (worst first) and the input coverage of every audit file.
 * With --rs the full per-ReplicaSet report (table.ts) is used.
 */
import type { Report, ReplicaSetReport } from '../analysis/report-types.js';
import { isLeakWindow } from '../analysis/report/gated-windows.js';
import type { AuditFileSummary } from '../sources/audit/audit-source.js';
import { displayLength, formatTable, GAP, type Column } from './columns.js';
import { breakCommand, headlineOf, needsAttention, rankReplicaSets, renderSummary, shellWord } from './next-steps.js';
import { terminalSafeDeep, terminalSafeLine } from './terminal-safe.js';
import { labelled, wrap } from './text.js';
import { clockFor, dateSuffix, sectionDate } from './times.js';
import { ownerNouns, ownerWordsOf } from '../analysis/report/owner-words.js';

const SEV = { critical: 0, warning: 1, info: 2 } as const;

export { rankReplicaSets };

/** The ranking's Verdict cell: the headline state (next-steps.ts), `leaked, now healthy` for an earlier leak. */
function verdictCell(r: ReplicaSetReport): string {
  const h = headlineOf(r);
  return h.now ? `${h.state}, now ${h.now}` : h.state;
}

/**
 * A table whose first column is a name to copy into a command: never cut. When the names fit
 * beside the other columns they are a `fixed` column; when the longest does not, each row's
 * name stands whole on a line of its own above the row's other cells.
 */
function namesWhole(columns: Column[], rows: string[][], o: { width: number; wide: boolean }): string[] {
  const natural = columns.map((c, i) => Math.max(displayLength(c.header), ...rows.map((r) => displayLength(terminalSafeLine(r[i] ?? '')))));
  // What the row needs at least: every fixed column whole, a free-text column down to its floor (columns.ts).
  const least = natural.reduce((n, w, i) => n + (columns[i]!.kind === 'flex' ? Math.min(w, Math.max(displayLength(columns[i]!.header), 12)) : w), 0) + GAP * (columns.length - 1);
  if (o.wide || least <= o.width) return formatTable(columns, rows, o);
  const rest = formatTable(columns.slice(1), rows.map((r) => r.slice(1)), { ...o, indent: '    ' });
  const out = [columns[0]!.header.toUpperCase(), rest[0]!];
  rows.forEach((r, i) => out.push(terminalSafeLine(r[0]!), rest[i + 1]!));
  return out;
}

export interface AuditRankingOptions {
  width?: number;
  wide?: boolean;
  /** The input was cut short by Ctrl-C/SIGTERM: how far it was read (the verdict line says PARTIAL). */
  partial?: string;
}

/**
 * The ranking's head: how many owners, how many need a look and the worst one's summary with
 * the command for its full report (the lines that open the ranking, and the summary repeated
 * at the end of a ranking taller than the terminal).
 */
export function auditRankingSummary(report: Report, summaries: AuditFileSummary[], o: AuditRankingOptions = {}): string[] {
  const width = o.width ?? 100;
  report = terminalSafeDeep(report);
  const rss = rankReplicaSets(report.replicaSets);
  const worst = rss[0];
  if (!worst) return [];
  const bad = rss.filter((r) => needsAttention(r) || headlineOf(r).now !== undefined);
  const nouns = ownerNouns(rss);
  const noun = nouns === 'owners' ? 'owner' : ownerWordsOf(worst).noun;
  const out = [wrap(`${rss.length} ${rss.length === 1 ? noun : nouns}, ${bad.length} needing a look${bad.length ? `; worst: ${worst.key}` : ''}${o.partial ? ` — PARTIAL (interrupted ${o.partial})` : ''}`, width, '')];
  if (bad.length) {
    out.push(...renderSummary(worst, { width, partial: o.partial }));
    out.push(...breakCommand(`kexp audit -n ${worst.namespace} ${worst.name} ${summaries.map((s) => shellWord(s.file)).join(' ')}`, width, '  '));
  }
  return out;
}

export function renderAuditRanking(report: Report, summaries: AuditFileSummary[], o: AuditRankingOptions = {}): string {
  const width = o.width ?? 100;
  const wide = o.wide ?? false;
  report = terminalSafeDeep(report);
  summaries = terminalSafeDeep(summaries);
  const out: string[] = [];
  const rss = rankReplicaSets(report.replicaSets);
  const writesOnly = (report.coverage.controllerWrites ?? []).filter((w) => !w.inReport);
  if (rss.length === 0 && writesOnly.length === 0) out.push(wrap('No ReplicaSet controller activity in the audit log: no ReplicaSet objects and no pod writes by the ReplicaSet controller.', width, ''));
  else if (rss.length === 0) out.push(wrap('No ReplicaSet object in the audit log, so no ReplicaSet can be reconstructed (see the writes below).', width, ''));
  else {
    const worst = rss[0]!;
    // The kind the reports share ("ReplicaSet", "DaemonSet"); reports of mixed kinds are "owners", each row naming its kind.
    const nouns = ownerNouns(rss);
    const mixed = nouns === 'owners';
    const noun = mixed ? 'owner' : ownerWordsOf(worst).noun;
    out.push(...auditRankingSummary(report, summaries, o));
    out.push('');
    // The columns that rank; -o wide adds the verdict's basis, rounds and gated windows.
    const columns: Column[] = [
      { header: mixed ? 'Owner' : noun, kind: 'fixed' }, { header: 'Verdict', kind: 'fixed' },
      ...(wide ? [{ header: 'Basis', kind: 'fixed' as const }] : []),
      { header: 'Findings', kind: 'fixed', align: 'right' },
      ...(wide ? [{ header: 'Rounds', kind: 'fixed' as const, align: 'right' as const }] : []),
      { header: 'Failed', kind: 'fixed', align: 'right' },
      ...(wide ? [{ header: 'Gated', kind: 'fixed' as const, align: 'right' as const }] : []),
      { header: 'Leaks', kind: 'fixed', align: 'right' }, { header: 'Worst finding', kind: 'flex' },
    ];
    const rows = rss.map((r) => {
      // A finding with nothing to do ("Next: None", e.g. expected log noise) is nobody's worst finding.
      const top = [...r.findings].filter((f) => !/^None\b/.test(f.nextStep)).sort((a, b) => SEV[a.severity] - SEV[b.severity])[0];
      const failed = r.rounds.reduce((n, x) => n + (x.kind === 'create' ? (x.calls ?? 0) - (x.successes ?? 0) + (x.namespaceTerminating ?? 0) + (x.timedOut ?? 0) : (x.failed?.length ?? 0)), 0);
      const leaks = r.gatedWindows.filter(isLeakWindow).length;
      return [
        mixed ? `${ownerWordsOf(r).noun} ${r.key}` : r.key, verdictCell(r), ...(wide ? [r.verdict.basis] : []), String(r.findings.length), ...(wide ? [String(r.rounds.length)] : []),
        String(failed), ...(wide ? [String(r.gatedWindows.length)] : []), String(leaks), top ? `${top.severity}: ${top.title}` : '—',
      ];
    });
    out.push(...namesWhole(columns, rows, { width, wide }));
    out.push(wrap(`Run with -n NAMESPACE NAME for the full report of one ${noun}.`, width, ''));
  }
  if (writesOnly.length) {
    out.push('');
    const date = sectionDate(writesOnly.map((w) => w.first));
    const clock = clockFor(date);
    out.push(wrap(`Pod writes by the ReplicaSet controller for ReplicaSets whose object is not in the log (no model, writes only) [observed]${dateSuffix(date)}:`, width, ''));
    const columns: Column[] = [
      { header: 'ReplicaSet', kind: 'fixed' }, { header: 'Creates', kind: 'fixed', align: 'right' }, { header: 'Failed', kind: 'fixed', align: 'right' },
      { header: 'Deletes', kind: 'fixed', align: 'right' }, { header: 'Failed', kind: 'fixed', align: 'right' }, { header: 'First', kind: 'fixed' }, { header: 'Last', kind: 'fixed' },
    ];
    out.push(...namesWhole(columns, writesOnly.map((w) => [w.replicaSet, String(w.creates), String(w.createFailures), String(w.deletes), String(w.deleteFailures), clock(w.first), clock(w.last)]), { width, wide }));
  }
  out.push('');
  for (const s of summaries) {
    // Every line counted once (line-account.ts): the parts add up to the lines read.
    const a = s.lineAccount;
    const extra = [a.blank ? `${a.blank} blank` : '', a.tooLong ? `${a.tooLong} too long` : '', a.surroundingText ? `${a.surroundingText} surrounding text` : ''].filter(Boolean);
    out.push(wrap(
      `Input: ${s.file} (${s.format}${s.compressed ? ', gzip' : ''}, ${s.apiVersions.join('/') || 'no audit events'}, levels ${s.levels.join('/') || '—'}): ` +
        `${s.linesRead} lines: ${a.relevant} relevant, ${a.notRelevant} not relevant, ${a.malformed} malformed, ${a.incomplete} incomplete${extra.length ? `, ${extra.join(', ')}` : ''}; ` +
        `${s.rsControllerWrites} requests by the ReplicaSet controller (pods, status, Events); ${s.start ? new Date(s.start).toISOString() : '—'} → ${s.end ? new Date(s.end).toISOString() : '—'}`,
      width, ''));
  }
  for (const a of report.coverage.assumptions.slice(2)) out.push(labelled('Note: ', a, width));
  return out.join('\n') + '\n';
}
