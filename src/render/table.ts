/**
 * Renders a Report as terminal text: per ReplicaSet a verdict line, counts, gated windows,
 * creation/deletion rounds, findings and the adoption table, then input coverage.
 * Reads the Report only; computes nothing. Tables use cli-table3 with colour off
 * (summary-sized tables only: cli-table3 is slow for thousands of rows, libraries.md B.4).
 */
import { wrap } from './text.js';
import Table from 'cli-table3';
import type { Report, ReplicaSetReport } from '../analysis/report-types.js';
import { renderChart } from './chart.js';
import { terminalSafeDeep } from './terminal-safe.js';

const PLAIN = { head: [] as string[], border: [] as string[] };
const MAX_ROUNDS = 20;

function t(iso: string | undefined): string {
  if (!iso) return '—';
  return iso.replace('T', ' ').replace('Z', '');
}

function dur(ms: number | undefined): string {
  if (ms === undefined) return '—';
  if (ms < 1000) return `${ms}ms`;
  const s = ms / 1000;
  if (s < 120) return `${s.toFixed(s < 10 ? 1 : 0)}s`;
  const m = Math.floor(s / 60);
  return m < 120 ? `${m}m${Math.round(s % 60)}s` : `${Math.floor(m / 60)}h${m % 60}m`;
}


function table(head: string[]): Table.Table {
  return new Table({ head, style: PLAIN, wordWrap: false });
}

function renderRS(r: ReplicaSetReport, width: number, chart: { color: boolean; start?: string; end?: string }): string {
  const out: string[] = [];
  out.push(`ReplicaSet ${r.key}${r.uid ? `  (uid ${r.uid})` : ''}${r.owner ? `  owner ${r.owner.kind}/${r.owner.name}` : ''}`);
  out.push(`  Verdict: ${r.verdict.state.toUpperCase()} [${r.verdict.basis}] — ${r.verdict.summary}`);
  const c = r.counts;
  out.push(
    `  Desired ${c.desired.first}→${c.desired.last}   active ${c.active.first}→${c.active.last} (max ${c.active.max})   ` +
      `terminating ${c.terminating.last} (max ${c.terminating.max})   ready ${c.ready.last}   syncs ${r.syncs.total}` +
      (r.syncs.byOutcome.gated ? ` (${r.syncs.byOutcome.gated} gated)` : ''),
  );
  if (r.initialState.basis === 'unknown') out.push(`  Before ${t(r.initialState.until) === '—' ? 'any round' : t(r.initialState.until)}: expectations unknown (${r.initialState.reason}).`);
  else out.push(`  Expectations known from the start: ${r.initialState.reason}.`);
  out.push('');
  out.push(renderChart(r, { width, ...chart }));
  out.push('');
  out.push('  Gated windows');
  if (r.gatedWindows.length === 0) out.push('    none: the controller was never gated on its own writes in the covered time');
  else {
    const tb = table(['Start', 'End', 'Duration', 'Ended by', 'Raised add/del', 'Left add/del', 'Gated syncs', 'Basis']);
    for (const w of r.gatedWindows) {
      tb.push([
        t(w.start), w.end ? t(w.end) : `open (expires ${t(w.expiresAt)})`, dur(w.durationMs), w.endedBy,
        `${w.raised.add}/${w.raised.del}`, w.remaining ? `${w.remaining.add}/${w.remaining.del}` : '—', String(w.gatedSyncs), w.basis,
      ]);
    }
    out.push(tb.toString().replace(/^/gm, '    '));
    for (const w of r.gatedWindows.filter((x) => x.note)) out.push(`    ${t(w.start)}: ${w.note}`);
  }
  out.push('');
  const a = r.accounting;
  out.push(`  Rounds (creates, deletes, adopt/release claims; the controller's writes in the input: ${a.writes}, ${a.inRounds} in rounds, ${a.inFindings} in findings)`);
  if (r.rounds.length === 0) out.push('    none');
  else {
    const tb = table(['At', 'Kind', 'n', 'Batches / pods', 'OK', 'Walked back', 'NsTerminating', 'Unknown', 'Writes', 'Basis', 'Evidence']);
    const podList = (keys: string[] | undefined) => ((keys ?? []).length > 1 ? `${keys![0]!.split('/')[1]} +${keys!.length - 1}` : (keys ?? [])[0]?.split('/')[1] ?? '');
    for (const x of r.rounds.slice(-MAX_ROUNDS)) {
      const claimed = [...(x.adopted ?? []), ...(x.released ?? [])];
      tb.push([
        t(x.at), x.kind, String(x.n),
        x.kind === 'claim' ? podList(claimed) : (x.batches?.join(',') ?? podList(x.keys)),
        String(x.kind === 'create' ? (x.successes ?? 0) - (x.namespaceTerminating ?? 0) : x.kind === 'claim' ? claimed.length : x.n - (x.failed?.length ?? 0) - (x.unknown ?? 0) - (x.unmade ?? 0)),
        String(x.kind === 'claim' ? 0 : (x.skipped ?? x.failed?.length ?? 0)), String(x.namespaceTerminating ?? 0), String(x.unknown ?? 0), String(x.writes), x.basis, x.evidence,
      ]);
    }
    if (r.rounds.length > MAX_ROUNDS) out.push(`    (${r.rounds.length - MAX_ROUNDS} earlier rounds in -o json)`);
    out.push(tb.toString().replace(/^/gm, '    '));
  }
  out.push('');
  out.push('  Findings');
  if (r.findings.length === 0) out.push('    none');
  for (const f of r.findings) {
    out.push(`    [${f.severity.toUpperCase()}] ${f.title}  (${f.basis}${f.at ? `, ${t(f.at)}` : ''})`);
    out.push(wrap(f.explanation, width - 8, '        '));
    out.push(wrap(`Next: ${f.nextStep}`, width - 8, '        '));
    if (f.evidence.length) out.push(`        Evidence: ${f.evidence.join(', ')}`);
  }
  out.push('');
  out.push(`  Adoption (ClaimObject for each candidate pod${r.adoption.at ? `, at ${t(r.adoption.at)}` : ''})`);
  if (r.adoption.rows.length === 0) out.push('    no candidate pods');
  else {
    const tb = table(['Pod', 'Action', 'Claimed', 'Why']);
    // Interesting rows first (adopt/release/ignore), then keeps; long lists are in -o json.
    const order = { adopt: 0, release: 1, ignore: 2, none: 3, keep: 4 } as const;
    const rows = [...r.adoption.rows].sort((a, b) => order[a.action] - order[b.action] || a.pod.localeCompare(b.pod));
    const MAX_ROWS = 20;
    for (const a of rows.slice(0, MAX_ROWS)) tb.push([a.pod, a.action, a.claimed ? 'yes' : 'no', a.reason.length > 70 ? `${a.reason.slice(0, 67)}...` : a.reason]);
    out.push(tb.toString().replace(/^/gm, '    '));
    if (rows.length > MAX_ROWS) out.push(`    (${rows.length - MAX_ROWS} more pods, ${r.adoption.rows.filter((a) => a.action === 'keep').length} of them kept; all in -o json or kexp adopt)`);
  }
  return out.join('\n');
}

/**
 * The whole report as text, `width` columns wide (default 100). `color` (default false) colours
 * the per-ReplicaSet timeline chart; decide it with useColor() from ./color.js.
 */
export function renderTable(report: Report, width = 100, opts: { color?: boolean } = {}): string {
  report = terminalSafeDeep(report);
  const out: string[] = [];
  if (report.replicaSets.length === 0) out.push('No ReplicaSet found in the input.');
  const chart = { color: opts.color ?? false, start: report.coverage.start, end: report.coverage.end };
  for (const r of report.replicaSets) {
    out.push(renderRS(r, width, chart));
    out.push('');
  }
  const cov = report.coverage;
  const recordingLike = (f: string) => f === 'kexp-recording';
  out.push(`Input: ${report.inputs.map((i) => `${i.file} (${i.format}, ${i.events} ${i.format === 'list' ? 'objects' : i.format === 'kcm-log' ? 'log lines about ReplicaSets' : 'events'}${i.problems ? `, ${i.problems} problem${i.problems === 1 ? '' : 's'}` : ''}${i.endMarker || !recordingLike(i.format) ? '' : ', no end marker'})`).join('; ')}`);
  out.push(`Covered: ${t(cov.start)} → ${t(cov.end)}   model: Kubernetes ${report.k8sVersion.version} (${report.k8sVersion.basis})`);
  for (const b of cov.timeBasis) out.push(wrap(`Times: ${b}`, width - 2, '  ').trimStart());
  if (cov.gaps.length) out.push(`Gaps: ${cov.gaps.map((g) => `${t(g.at)} ${g.reason} (${g.evidence})`).join('; ')}`);
  if (cov.problems.count) out.push(`Problems: ${cov.problems.count} input line(s) skipped, e.g. ${cov.problems.examples[0]}`);
  return out.join('\n') + '\n';
}
