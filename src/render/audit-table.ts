/**
 * `kexp audit` without --rs: a ranked table of ReplicaSets (worst first) and the input
 * coverage of every audit file. With --rs the full per-ReplicaSet report (table.ts) is used.
 */
import Table from 'cli-table3';
import type { Report, ReplicaSetReport } from '../analysis/report-types.js';
import { isLeakWindow } from '../analysis/report-builder.js';
import type { AuditFileSummary } from '../sources/audit/audit-source.js';
import { terminalSafeDeep } from './terminal-safe.js';

const PLAIN = { head: [] as string[], border: [] as string[] };
const SEV = { critical: 0, warning: 1, info: 2 } as const;
const STATE_RANK: Record<string, number> = { leaked: 0, failing: 1, gated: 2, converging: 3, deleting: 4, unknown: 5, healthy: 6, deleted: 7 };

export function rankReplicaSets(rss: ReplicaSetReport[]): ReplicaSetReport[] {
  const worst = (r: ReplicaSetReport) => Math.min(3, ...r.findings.map((f) => SEV[f.severity]));
  return [...rss].sort((a, b) =>
    worst(a) - worst(b) || (STATE_RANK[a.verdict.state] ?? 9) - (STATE_RANK[b.verdict.state] ?? 9) ||
    b.findings.length - a.findings.length || a.key.localeCompare(b.key));
}

export function renderAuditRanking(report: Report, summaries: AuditFileSummary[]): string {
  report = terminalSafeDeep(report);
  summaries = terminalSafeDeep(summaries);
  const out: string[] = [];
  const rss = rankReplicaSets(report.replicaSets);
  const writesOnly = (report.coverage.controllerWrites ?? []).filter((w) => !w.inReport);
  if (rss.length === 0 && writesOnly.length === 0) out.push('No ReplicaSet controller activity in the audit log: no ReplicaSet objects and no pod writes by the ReplicaSet controller.');
  else if (rss.length === 0) out.push('No ReplicaSet object in the audit log, so no ReplicaSet can be reconstructed (see the writes below).');
  else {
    const tb = new Table({ head: ['ReplicaSet', 'Verdict', 'Worst finding', 'Findings', 'Rounds', 'Failed calls', 'Gated windows', 'Leaks'], style: PLAIN });
    for (const r of rss) {
      const worst = [...r.findings].sort((a, b) => SEV[a.severity] - SEV[b.severity])[0];
      const failed = r.rounds.reduce((n, x) => n + (x.kind === 'create' ? (x.calls ?? 0) - (x.successes ?? 0) + (x.namespaceTerminating ?? 0) : (x.failed?.length ?? 0)), 0);
      const leaks = r.gatedWindows.filter(isLeakWindow).length;
      tb.push([r.key, `${r.verdict.state} [${r.verdict.basis}]`, worst ? `${worst.severity}: ${worst.title.slice(0, 48)}${worst.title.length > 48 ? '…' : ''}` : '—', String(r.findings.length), String(r.rounds.length), String(failed), String(r.gatedWindows.length), String(leaks)]);
    }
    out.push(tb.toString());
    out.push('Run with --rs NAMESPACE/NAME for the full report of one ReplicaSet.');
  }
  if (writesOnly.length) {
    out.push('');
    out.push('Pod writes by the ReplicaSet controller for ReplicaSets whose object is not in the log (no model, writes only) [observed]:');
    const tb = new Table({ head: ['ReplicaSet', 'Creates ok', 'Creates failed', 'Deletes ok', 'Deletes failed', 'First', 'Last'], style: PLAIN });
    for (const w of writesOnly) tb.push([w.replicaSet, String(w.creates), String(w.createFailures), String(w.deletes), String(w.deleteFailures), w.first, w.last]);
    out.push(tb.toString());
  }
  out.push('');
  for (const s of summaries) {
    const skipped = s.linesSkippedByPrefilter + Object.values(s.skipped).reduce((a, b) => a + b, 0);
    out.push(
      `Input: ${s.file} (${s.format}${s.compressed ? ', gzip' : ''}, ${s.apiVersions.join('/') || 'no audit events'}, levels ${s.levels.join('/') || '—'}): ` +
        `${s.linesRead} lines, ${skipped} not relevant, ${s.malformedLines} malformed, ${s.incomplete.count} incomplete, ` +
        `${s.rsControllerWrites} requests by the ReplicaSet controller (pods, status, Events); ${s.start ? new Date(s.start).toISOString() : '—'} → ${s.end ? new Date(s.end).toISOString() : '—'}`,
    );
  }
  for (const a of report.coverage.assumptions.slice(2)) out.push(`Note: ${a}`);
  return out.join('\n') + '\n';
}
