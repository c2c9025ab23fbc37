/**
 * Watch coverage of a replay: whether the recordings replayed saw the changes after their
 * initial lists. A recorder whose watch never worked (every attempt a redirect, an HTML page, a
 * line that is not an event, a close with nothing delivered: Reflector.neverWorked) holds the
 * initial list of that resource and nothing after it; its end line names the resource
 * (`end.unwatched`, docs/recording-format.md). Replayed as it is, such a recording reads as
 * "nothing happened": a HEALTHY verdict over minutes nobody saw. So when a recording's watch of
 * the owners' kinds, their pods or the Nodes never worked, every report entry's verdict becomes
 * `unknown` with the reason, one finding says why (evidence: the end line), and one coverage
 * assumption; what the model derived from the initial list (rounds, series) stays. A watch of
 * Events or the namespace that never worked is one assumption only: the objects themselves were
 * watched.
 *
 * Contract: `withWatchCoverage(report, inputs)` returns the report unchanged unless an input's
 * end line names a watch that never worked. Pure; O(inputs + reports).
 */
import type { Report, ReplicaSetReport } from '../analysis/report-types.js';
import type { RecordingEndLine } from '../sources/watch/recording-format.js';
import { isRecord } from '../model/objects.js';

/** Resources whose missing watch leaves only supporting evidence out (the report's objects were watched). */
const SUPPORTING = new Set(['events', 'namespaces']);

export interface WatchCoverageInput {
  file: string;
  endReason?: RecordingEndLine['end'];
  endLine?: number;
}

interface Unwatched {
  where: string;
  resources: string[];
  since: string;
  detail: string;
}

function unwatchedOf(i: WatchCoverageInput): Unwatched | undefined {
  const list = i.endReason?.unwatched;
  if (!Array.isArray(list)) return undefined;
  const ok = list.filter((u) => isRecord(u) && typeof u.resource === 'string');
  if (ok.length === 0) return undefined;
  const first = ok.map((u) => (typeof u.since === 'string' ? u.since : '')).filter(Boolean).sort()[0] ?? 'its start';
  const last = ok[ok.length - 1]!;
  return {
    where: `${i.file}:${i.endLine ?? 0}`,
    resources: ok.map((u) => u.resource),
    since: first,
    detail: typeof last.detail === 'string' ? last.detail.slice(0, 200) : 'no watch stream',
  };
}

function unknownAfter(r: ReplicaSetReport, u: Unwatched): ReplicaSetReport {
  const what = `the recorder's watch of ${u.resources.join(', ')} never worked (from ${u.since}: ${u.detail})`;
  return {
    ...r,
    verdict: { state: 'unknown', basis: 'unknown', summary: `unknown after ${u.since}: ${what}, so the recording holds their initial list only` },
    findings: [
      {
        id: 'watch-never-worked',
        severity: 'warning',
        basis: 'unknown',
        title: 'The recording\'s watch never worked',
        explanation: `${what}. The recording holds the initial list of ${u.resources.length === 1 ? 'it' : 'them'} and nothing after: no change, round or gated window after ${u.since} could be seen, so their absence says nothing.`,
        nextStep: 'Record again where the API server\'s watch answers (a proxy or login page in the way answers with redirects or HTML), or give the controller\'s -v=4 log to `kexp kcm-log`.',
        evidence: [u.where],
      },
      ...r.findings,
    ],
  };
}

/** The report with its verdicts unknown when a recording's watch never worked (see the header). */
export function withWatchCoverage(report: Report, inputs: WatchCoverageInput[]): Report {
  const all = inputs.map(unwatchedOf).filter((u): u is Unwatched => u !== undefined);
  if (all.length === 0) return report;
  const assumptions = all.map((u) => `${u.where}: the recorder's watch of ${u.resources.join(', ')} never worked from ${u.since} (${u.detail}); only the initial list is recorded.`);
  const blind = all.find((u) => u.resources.some((r) => !SUPPORTING.has(r)));
  return {
    ...report,
    coverage: { ...report.coverage, assumptions: [...report.coverage.assumptions, ...assumptions] },
    replicaSets: blind ? report.replicaSets.map((r) => unknownAfter(r, blind)) : report.replicaSets,
  };
}
