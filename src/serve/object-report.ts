/**
 * One object's report as `kexp explain` gives it, from serve's latest evaluation: the Report
 * narrowed to that object (the same schema'd document `kexp explain -o json` prints, with
 * generator.command `serve`) and the ExplainResult the explain renderers read
 * (render/explain.ts: the HTML page), its timeline and next steps made by explain-live.ts's own
 * helpers from what the journal showed.
 *
 * Contract: `objectReport(ev, id, source)` returns undefined when the evaluation reports no such
 * object. The report is the one `kexp replay` gives for the object's journal (registry.ts
 * `reportOf`); the watch it describes is that journal: from its coverage start to the evaluation.
 * Pure apart from reading the evaluation; O(the object's report).
 */
import { nextStepsOf, timelineFromWatch, type ExplainResult } from '../pipeline/explain-live.js';
import { ownerResource } from '../analysis/report/owner-kind.js';
import { reportOf, type Evaluation } from './registry.js';

const TIMELINE_MAX = 40;

export interface ServeSource {
  server: string;
  context: string;
  /** `-n NS`, or `*` for every namespace. */
  namespace: string;
}

export function objectReport(ev: Evaluation, id: string, source: ServeSource): ExplainResult | undefined {
  const entry = ev.objects.get(id);
  const report = reportOf(ev, id);
  const f = ev.frames.get(id);
  if (!entry || !report || !f) return undefined;
  const start = report.coverage.start ? Date.parse(report.coverage.start) : ev.at;
  const timeline = timelineFromWatch(entry, start, ev.at);
  const omitted = Math.max(0, timeline.length - TIMELINE_MAX);
  const resource = ownerResource(entry);
  const facts = `${entry.kind ?? 'ReplicaSet'} ${entry.key}: desired ${entry.counts.desired.last}, active ${entry.counts.active.last}, ready ${entry.counts.ready.last}` +
    `; followed live by kexp serve since ${new Date(start).toISOString()} (before that the controller's expectations are unknown)`;
  return {
    report,
    explanations: [{
      report: entry,
      facts,
      timeline: timeline.slice(omitted),
      timelineOmitted: omitted,
      nextSteps: nextStepsOf(entry.findings, entry.verdict, true, resource === 'rs' ? entry.name : `${resource}/${entry.name}`, entry.namespace),
    }],
    snapshot: { takenAt: ev.at, server: source.server, context: source.context, namespace: source.namespace, unavailable: [] },
    watch: { file: 'serve-journal', kept: false, durationMs: Math.max(0, ev.at - start), endReason: 'serving', events: f.lines, gaps: report.coverage.gaps.length, problems: f.problems },
    warnings: [],
  };
}
