/**
 * The owner kind of a per-controller report: the ReplicaSet (the report's first unit, whose
 * reports carry no `kind`, so they stay as they were) or another kind replayed by its own engine
 * (the ReplicationController: pipeline/owner-kind-replay.ts). `withOwnerKind` adds one kind's
 * reports to the Report: each marked with its kind, all sorted by key as buildReport sorts them,
 * a ReplicaSet before another kind's report of the same `namespace/name`. `ownerKindOf` reads it
 * back; `ownerResource` is the kubectl resource short name of the kind. The coverage's assumption
 * about when the controller syncs is restated for the kinds the Report then holds.
 *
 * Pure; O(reports × log reports) for the sort, nothing when the kind has no report.
 */
import type { OwnerReportKind, Report, ReplicaSetReport } from '../report-types.js';
import { ownerWords, ownerWordsOf, syncAssumption } from './owner-words.js';

export function withOwnerKind(report: Report, kind: Exclude<OwnerReportKind, 'ReplicaSet'>, reports: ReplicaSetReport[]): Report {
  if (reports.length === 0) return report;
  // Stable: the ReplicaSets come first, so they stay before another kind's report of the same key.
  const all = [...report.replicaSets, ...reports.map((r): ReplicaSetReport => ({ kind, ...r }))];
  all.sort((a, b) => a.key.localeCompare(b.key));
  // The report's assumption about when the controller syncs names the kinds it now reports.
  const was = syncAssumption([ownerWordsOf({}).noun]);
  const held = new Set(all.map((r) => ownerWordsOf(r).resource));
  const now = syncAssumption((['rs', 'rc', 'ds', 'job'] as const).filter((k) => held.has(k)).map((k) => ownerWords(k).noun));
  const assumptions = report.coverage.assumptions.map((a) => (a === was ? now : a));
  return { ...report, coverage: { ...report.coverage, assumptions }, replicaSets: all };
}

export function ownerKindOf(r: Pick<ReplicaSetReport, 'kind'>): OwnerReportKind {
  return r.kind ?? 'ReplicaSet';
}

/** `kubectl get rs` / `kubectl get rc` / `kubectl get ds` / `kubectl get job`. */
export function ownerResource(r: Pick<ReplicaSetReport, 'kind'>): 'rs' | 'rc' | 'ds' | 'job' {
  return r.kind === 'ReplicationController' ? 'rc' : r.kind === 'DaemonSet' ? 'ds' : r.kind === 'Job' ? 'job' : 'rs';
}
