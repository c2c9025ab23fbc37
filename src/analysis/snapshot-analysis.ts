/**
 * Analysis of a point-in-time snapshot of one ReplicaSet (a live read by `kexp explain`, or a
 * snapshot file: `kubectl get -o json`, a List, a cluster-info dump): its state
 * (report/snapshot-state.ts: counts, conditions, Events — aggregated ones too —, quotas,
 * namespace phase, owner, the reconstructed recent timeline) → the `snapshot` findings of the
 * catalogue (findings/snapshot-rules.ts), a verdict with its basis (report/verdict.ts), an
 * inferred open window when it is gated or leaked, and the adoption table. A snapshot cannot see
 * the controller's expectations; it says so (`unknown`) and infers only what the API state forces:
 * - RS deletionTimestamp → deleting;
 * - namespace Terminating, RS not deleted, fewer active pods than desired → the
 *   NamespaceTerminating expectation leak;
 * - ReplicaFailure condition or FailedCreate/FailedDelete newer than the last progress → failing;
 * - pods missing (or surplus), the controller has synced the spec, nothing failed and nothing
 *   moved for 30 s → gated on an expectation that is not being fulfilled (a leak once that has
 *   lasted longer than the 5-minute ExpectationsTimeout);
 * - status.replicas above the active pods that exist, observedGeneration == generation → a held
 *   deletion (findings/snapshot-rules.ts heldDeletionSnapshot): gated, inferred, until the expiry;
 * - active == desired and observedGeneration == generation → healthy.
 * Pure: no I/O, no clock (`now` is the snapshot time). O(pods + Events of the namespace).
 */
import { EXPECTATIONS_TIMEOUT_MS } from '../model/expectations.js';
import type { ReplicaSet } from '../model/objects.js';
import { iso } from './iso.js';
import { findingsFor } from './findings/catalogue.js';
import type { AdoptionRow, Finding, GatedWindow, ReplicaSetReport } from './report-types.js';
import { adoptionTable } from './report/adoption-table.js';
import { snapshotWindow } from './report/gated-windows.js';
import { LIVE_REFS, type SnapshotRefs } from './report/snapshot-refs.js';
import { readSnapshot, type RsFacts, type SnapshotInput, type SnapshotState, type TimelineEntry } from './report/snapshot-state.js';
import { snapshotVerdict } from './report/verdict.js';

export interface SnapshotAnalysis {
  facts: RsFacts;
  verdict: ReplicaSetReport['verdict'];
  findings: Finding[];
  windows: GatedWindow[];
  timeline: TimelineEntry[];
  adoption: AdoptionRow[];
  counts: { desired: number; active: number; terminating: number; ready: number };
}

/**
 * Analyses one ReplicaSet of a snapshot. Pure: `now` is the snapshot time.
 */
export function analyseSnapshot(rs: ReplicaSet, input: SnapshotInput, now: number, refs: SnapshotRefs = LIVE_REFS): SnapshotAnalysis {
  const s = readSnapshot(rs, input, now, refs);
  const findings = findingsFor('snapshot', s);
  const held = findings.find((f) => f.id === 'held-deletion');
  const verdict = held && ['healthy', 'converging'].includes(snapshotVerdict(s).state) ? heldVerdict(s) : snapshotVerdict(s);
  const { desired, active, terminating, ready } = s;
  return {
    facts: {
      desired, active, terminating, ready, finished: s.finished, statusReplicas: rs.status?.replicas, generation: s.generation, observedGeneration: s.observedGeneration,
      orphansMatching: s.orphansMatching, otherControllerMatching: s.otherControllerMatching,
      nsTerminating: s.nsTerminating, nsKnown: s.ns !== undefined, deletingSince: s.deletingSince, lastProgress: s.lastProgress, lastSpecChange: s.lastSpecChange, failing: s.failing,
    },
    verdict,
    findings,
    windows: held && verdict.state === 'gated' ? heldWindow(s) : snapshotWindow(s, verdict.state),
    timeline: s.timeline.sort((a, b) => a.at - b.at),
    adoption: adoptionTable(rs, input.pods, 'non-empty'),
    counts: { desired, active, terminating, ready },
  };
}

/**
 * The verdict of a held deletion: the controller's own status counts a pod that is gone, so a
 * delete expectation waiting for it gates every sync until its informer delivers the deletion or
 * the record expires (inferred: the snapshot cannot show the record).
 */
function heldVerdict(s: SnapshotState): ReplicaSetReport['verdict'] {
  const replicas = s.rs.status?.replicas ?? 0;
  return {
    state: 'gated', basis: 'inferred',
    summary: `held deletion: status.replicas ${replicas} while ${s.active} active pods exist (observedGeneration current) — the controller's cache still holds ${replicas - s.active === 1 ? 'a deleted pod' : 'deleted pods'}; expect a gate until its informer delivers the deletion or the 5-minute expiry`,
  };
}

/** The held deletion's open window: from the last pod change the snapshot shows (the real Set may be earlier), expiring 5 minutes after. */
function heldWindow(s: SnapshotState): GatedWindow[] {
  const start = Math.max(s.lastProgress ?? 0, s.lastSpecChange ?? 0) || s.now;
  return [{
    start: iso(start)!,
    endedBy: 'open',
    basis: 'inferred',
    raised: { add: 0, del: (s.rs.status?.replicas ?? 0) - s.active },
    gatedSyncs: 0,
    expiresAt: iso(start + EXPECTATIONS_TIMEOUT_MS),
    durationMs: Math.max(0, Math.round(s.now - start)),
    evidence: [],
    note: 'inferred from the snapshot: status.replicas counts more active pods than exist with a current observedGeneration; start is the last sign of progress, the real Set may be earlier',
  }];
}
