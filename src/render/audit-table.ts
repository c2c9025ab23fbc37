/**
 * `kexp audit` without --rs: the worst ReplicaSet's summary first (verdict, cause, next step
 * with kubectl commands and the `kexp audit … --rs` to see all of it), then a ranked
 * borderless table of ReplicaSets (worst first) and the input coverage of every audit file.
 * With --rs the full per-ReplicaSet report (table.ts) is used.
 */
import type { Report, ReplicaSetReport } from '../analysis/report-types.js';
import { isLeakWindow } from '../analysis/report/gated-windows.js';
import type { AuditFileSummary } from '../sources/audit/audit-source.js';
import { formatTable, type Column } from './columns.js';
import { breakCommand, needsAttention, renderSummary, shellWord } from './next-steps.js';
import { terminalSafeDeep } from './terminal-safe.js';
import { labelled, wrap } from './text.js';
import { clockFor, dateSuffix, sectionDate } from './times.js';
import { ownerNouns, ownerWordsOf } from '../analysis/report/owner-words.js';

const SEV = { critical: 0, warning: 1, info: 2 } as const;
const STATE_RANK: Record<string, number> = { leaked: 0, failing: 1, gated: 2, stalled: 2, converging: 3, deleting: 4, unknown: 5, healthy: 6, deleted: 7 };

export function rankReplicaSets(rss: ReplicaSetReport[]): ReplicaSetReport[] {
  const worst = (r: ReplicaSetReport) => Math.min(3, ...r.findings.map((f) => SEV[f.severity]));
  return [...rss].sort((a, b) =>
    worst(a) - worst(b) || (STATE_RANK[a.verdict.state] ?? 9) - (STATE_RANK[b.verdict.state] ?? 9) ||
    b.findings.length - a.findings.length || a.key.localeCompare(b.key));
}

export interface AuditRankingOptions {
  width?: number;
  wide?: boolean;
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
    const bad = rss.filter(needsAttention);
    // The kind the reports share ("ReplicaSet", "DaemonSet"); reports of mixed kinds are "owners", each row naming its kind.
    const nouns = ownerNouns(rss);
    const mixed = nouns === 'owners';
    const noun = mixed ? 'owner' : ownerWordsOf(worst).noun;
    out.push(wrap(`${rss.length} ${rss.length === 1 ? noun : nouns}, ${bad.length} needing a look${bad.length ? `; worst: ${worst.key}` : ''}`, width, ''));
    if (bad.length) {
      out.push(...renderSummary(worst, { width }));
      out.push(...breakCommand(`kexp audit ${summaries.map((s) => shellWord(s.file)).join(' ')} --rs ${worst.key}`, width, '  '));
    }
    out.push('');
    // The columns that rank; -o wide adds the verdict's basis, rounds and gated windows.
    const columns: Column[] = [
      { header: mixed ? 'Owner' : noun, kind: 'text' }, { header: 'Verdict', kind: 'fixed' },
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
        mixed ? `${ownerWordsOf(r).noun} ${r.key}` : r.key, r.verdict.state, ...(wide ? [r.verdict.basis] : []), String(r.findings.length), ...(wide ? [String(r.rounds.length)] : []),
        String(failed), ...(wide ? [String(r.gatedWindows.length)] : []), String(leaks), top ? `${top.severity}: ${top.title}` : '—',
      ];
    });
    out.push(...formatTable(columns, rows, { width, wide }));
    out.push(wrap(`Run with --rs NAMESPACE/NAME for the full report of one ${noun}.`, width, ''));
  }
  if (writesOnly.length) {
    out.push('');
    const date = sectionDate(writesOnly.map((w) => w.first));
    const clock = clockFor(date);
    out.push(wrap(`Pod writes by the ReplicaSet controller for ReplicaSets whose object is not in the log (no model, writes only) [observed]${dateSuffix(date)}:`, width, ''));
    const columns: Column[] = [
      { header: 'ReplicaSet', kind: 'text' }, { header: 'Creates', kind: 'fixed', align: 'right' }, { header: 'Failed', kind: 'fixed', align: 'right' },
      { header: 'Deletes', kind: 'fixed', align: 'right' }, { header: 'Failed', kind: 'fixed', align: 'right' }, { header: 'First', kind: 'fixed' }, { header: 'Last', kind: 'fixed' },
    ];
    out.push(...formatTable(columns, writesOnly.map((w) => [w.replicaSet, String(w.creates), String(w.createFailures), String(w.deletes), String(w.deleteFailures), clock(w.first), clock(w.last)]), { width, wide }));
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
