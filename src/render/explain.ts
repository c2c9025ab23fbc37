/**
 * `kexp explain`'s output, through the same renderers as replay and audit: the terminal text
 * is table.ts's ReplicaSet block (summary with the explain next steps, the snapshot's facts,
 * chart, gated windows, the recent timeline, rounds seen by --watch, findings, adoption), and
 * the HTML is html.ts's timeline page with explain's facts, recent timeline and next steps
 * added and the Report embedded. Both only read the ExplainResult.
 */
import type { ExplainResult, RsExplanation } from '../pipeline/explain-live.js';
import { escapeHtml, renderHtml } from './html.js';
import { coverageLines, renderReplicaSet, type RsExtras } from './table.js';
import { terminalSafeDeep } from './terminal-safe.js';
import { wrap } from './text.js';
import { reportSummary } from './next-steps.js';

export interface ExplainRenderOptions {
  width?: number;
  wide?: boolean;
  color?: boolean;
}

const TIMELINE_NOTE = 'API timestamps are whole seconds and Events keep only first/last time and a count; watch times are kexp\'s receive times';

function ts(ms: number, coarse: boolean): string {
  const s = new Date(Math.floor(ms)).toISOString().replace('T', ' ').replace('Z', '');
  return coarse ? s.slice(0, 19) : s.slice(0, 23);
}

function factsLine(e: RsExplanation): string {
  const f = e.facts;
  if (typeof f === 'string') return f;
  return `desired ${f.desired}, active ${f.active}, terminating ${f.terminating}, ready ${f.ready}${f.finished ? `, finished ${f.finished}` : ''}; ` +
    `status.replicas ${f.statusReplicas ?? 0}, observedGeneration ${f.observedGeneration ?? '—'}/${f.generation ?? '—'}; ` +
    `namespace ${f.nsKnown ? (f.nsTerminating ? 'Terminating' : 'Active') : 'not readable'}`;
}

function extrasOf(e: RsExplanation, watched: boolean): RsExtras {
  return {
    facts: factsLine(e),
    steps: e.nextSteps,
    timeline: { rows: e.timeline, omitted: e.timelineOmitted, note: TIMELINE_NOTE },
    noWindows: watched ? 'none seen during the watch' : 'none inferred (a snapshot cannot see the controller\'s expectations; --watch follows its rounds)',
    // A snapshot is one point in time: a chart would span only the milliseconds of the read.
    ...(watched ? {} : { chartNote: 'Timeline: none drawn — a snapshot is one point in time; the recent timeline below lists what the objects and Events record, and --watch 30s follows the controller\'s rounds on a chart.' }),
  };
}

/** The terminal rendering, `width` columns wide (default 100). */
export function renderExplainText(r: ExplainResult, o: ExplainRenderOptions = {}): string {
  r = terminalSafeDeep(r);
  const width = o.width ?? 100;
  const c = { width, wide: o.wide ?? false, color: o.color ?? false, start: r.report.coverage.start, end: r.report.coverage.end };
  const out: string[] = [];
  for (const e of r.explanations) {
    out.push(...renderReplicaSet(e.report, c, extrasOf(e, Boolean(r.watch))));
    out.push('');
  }
  const w = r.watch;
  out.push(wrap(`Read ${ts(r.snapshot.takenAt, false)} UTC from ${r.snapshot.server} (context ${r.snapshot.context}, namespace ${r.snapshot.namespace})`, width, ''));
  out.push(wrap(w ? `Watched ${(w.durationMs / 1000).toFixed(1)}s (${w.endReason}): ${w.events} events, ${w.gaps} gaps${w.problems ? `, ${w.problems} problems` : ''}${w.kept ? `; recording kept in ${w.file}` : ''}` : 'No watch (snapshot only); add --watch 30s to follow the controller\'s rounds.', width, ''));
  out.push(...coverageLines(r.report, width).filter((l) => !l.startsWith('Input: live:')));
  return out.join('\n') + '\n';
}

/** The summary repeated at the end of a text taller than the terminal (screen-summary.ts): each owner's verdict, cause and explain's next steps. */
export function explainSummary(r: ExplainResult, o: { width: number }): string[] {
  r = terminalSafeDeep(r);
  const steps = new Map(r.explanations.map((e) => [e.report.key, e.nextSteps]));
  return reportSummary(r.explanations.map((e) => e.report), { width: o.width, stepsOf: (rs) => steps.get(rs.key) });
}

/** The shared timeline page (html.ts) with explain's facts, recent timeline and next steps, and the Report embedded. */
export function renderExplainHtml(r: ExplainResult): string {
  const e = escapeHtml;
  const byKey = new Map(r.explanations.map((x) => [x.report.key, x]));
  return renderHtml(r.report, {
    lead: `Read ${e(ts(r.snapshot.takenAt, false))} UTC from ${e(r.snapshot.server)} (context ${e(r.snapshot.context)}, namespace ${e(r.snapshot.namespace)})` +
      (r.watch ? `; watched ${(r.watch.durationMs / 1000).toFixed(1)} s (${e(r.watch.endReason)}).` : '; snapshot only.'),
    embedReport: true,
    sections: (rs) => {
      const x = byKey.get(rs.key);
      if (!x) return '';
      const parts: string[] = [];
      parts.push(`<p class="meta">${e(factsLine(x))}</p>`);
      parts.push('<h3>Next steps</h3><ol>');
      for (const s of x.nextSteps) parts.push(`<li>${e(s)}</li>`);
      parts.push('</ol>');
      parts.push(`<h3>Recent timeline <span class="meta">(UTC; ${e(TIMELINE_NOTE)})</span></h3>`);
      if (x.timelineOmitted) parts.push(`<p class="meta">… ${x.timelineOmitted} earlier entries omitted</p>`);
      parts.push('<table><thead><tr><th>At</th><th>Basis</th><th>From</th><th>What</th></tr></thead><tbody>');
      for (const t of x.timeline) parts.push(`<tr><td class="mono">${e(ts(t.at, t.coarse))}</td><td>${e(t.basis)}</td><td>${e(t.from)}</td><td>${e(t.text)}</td></tr>`);
      parts.push('</tbody></table>');
      return parts.join('\n');
    },
  });
}
