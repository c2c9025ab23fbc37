/**
 * Node placement coverage of a replay: whether the recordings replayed show the Nodes a DaemonSet
 * controller places its pods by. `kexp record ds/NAME` watches every Node; a credential that may
 * not list them (a namespaced Role cannot grant a cluster-scoped resource) makes it record without
 * them and say so in the header (`unavailable: [{resource: "nodes", …}]`, docs/recording-format.md).
 * Replaying a DaemonSet without its Nodes would have the model decide that no node wants a daemon
 * pod and predict deletes the controller never made: writes invented. So when a recording that
 * names a DaemonSet watch lacks the Nodes (refused, or never watched), every DaemonSet report of
 * the replay says node placement is unknown instead: verdict `unknown`, no syncs, rounds, windows,
 * expectation changes or findings of the model (its writes stay counted, by the one finding that
 * says why), and one coverage assumption. The observed counts and series stay.
 *
 * Contract: `withNodePlacementCoverage(report, headers)` returns the report unchanged unless some
 * header lacks the Nodes and the report has a DaemonSet entry. Pure; O(headers + reports).
 */
import type { Report, ReplicaSetReport } from '../analysis/report-types.js';
import type { RecordingHeader } from '../sources/watch/recording-format.js';

/** A recording header (with the file it opens) whose DaemonSet watch ran without Nodes, and why. */
function nodesMissing(h: { file: string; header?: Partial<RecordingHeader> }): string | undefined {
  const header = h.header;
  if (!header) return undefined;
  const refused = (Array.isArray(header.unavailable) ? header.unavailable : []).find((u) => u?.resource === 'nodes');
  if (refused) return `${h.file}:1: the recorder could not ${refused.verb} nodes (${refused.message.split('\n')[0]!.slice(0, 200)})`;
  const watches = Array.isArray(header.watches) ? header.watches : [];
  if (watches.some((w) => w?.resource === 'daemonsets') && !watches.some((w) => w?.resource === 'nodes')) return `${h.file}:1: the recording watched DaemonSets but not Nodes`;
  return undefined;
}

function placementUnknown(r: ReplicaSetReport, why: string, evidence: string): ReplicaSetReport {
  const writes = r.accounting.writes;
  return {
    ...r,
    verdict: { state: 'unknown', basis: 'unknown', summary: `node placement unknown: ${why} — the DaemonSet controller decides which nodes get a daemon pod from the Nodes, so its syncs are not replayed` },
    syncs: { total: 0, byOutcome: {} },
    rounds: [],
    gatedWindows: [],
    expectations: [],
    expectationsTruncated: false,
    accounting: { ...r.accounting, inRounds: 0, inFindings: writes },
    // The model's findings came from syncs it ran without the Nodes: none of them stands.
    findings: [{
      id: 'node-placement-unknown', severity: 'warning', basis: 'unknown', title: 'Node placement unknown',
      explanation: `${why}. Without the Nodes the DaemonSet controller's decisions (nodeShouldRunDaemonPod, daemon_controller.go) cannot be replayed: kexp does not predict its rounds, gated windows or findings${writes ? `; the controller's ${writes} pod write${writes === 1 ? '' : 's'} the recording shows are not placed in rounds` : ''}.`,
      nextStep: 'Record with a credential that may list and watch nodes (docs/rbac.md: the ClusterRole for DaemonSets), or give the controller\'s -v=4 log to `kexp kcm-log`.',
      evidence: [evidence],
      ...(writes ? { writes } : {}),
    }],
  };
}

/** The report with its DaemonSet entries marked when a recording lacks the Nodes (see the header). */
export function withNodePlacementCoverage(report: Report, headers: Array<{ file: string; header?: Partial<RecordingHeader> }>): Report {
  const why = headers.map(nodesMissing).find((x) => x !== undefined);
  if (!why || !report.replicaSets.some((r) => r.kind === 'DaemonSet')) return report;
  const evidence = why.slice(0, why.indexOf(': '));
  const reason = why.slice(why.indexOf(': ') + 2);
  return {
    ...report,
    coverage: { ...report.coverage, assumptions: [...report.coverage.assumptions, `Node placement unknown (${why}): DaemonSet verdicts are unknown and their syncs are not replayed.`] },
    replicaSets: report.replicaSets.map((r) => (r.kind === 'DaemonSet' ? placementUnknown(r, reason, evidence) : r)),
  };
}
