/**
 * Leadership: when no kube-controller-manager led, from its own leader-election lines. Every
 * controller of the process — the ReplicaSet controller among them — runs only while the process
 * holds the kube-system/kube-controller-manager Lease (cmd/kube-controller-manager/app/
 * controllermanager.go Run: leaderElectAndRun, OnStartedLeading starts the controllers,
 * OnStoppedLeading exits; client-go tools/leaderelection/leaderelection.go acquire / renew). So
 * no sync, gated or not, happens between the moment one process stops leading and the moment the
 * next one starts its controllers; the syncs due in between run at the new start, with the new
 * process's empty expectations.
 *
 * In v1.37.2 a SIGTERM does not release the Lease (ControllerManagerReleaseLeaderElectionLockOnExit
 * is alpha, off): the new process logs "Attempting to acquire leader lease..." and waits until the
 * old holder's renewTime + leaseDurationSeconds before "Successfully acquired lease".
 *
 * From the log (lines in time order):
 * - "Failed to renew lease" / "leaderelection lost/stopped" (≤1.26: "failed to renew lease …",
 *   "leaderelection lost"): the process that logged it stopped leading there — observed;
 * - "Attempting to acquire leader lease..." followed by "Successfully acquired lease": a new
 *   process waiting for the Lease. Nobody led from the attempt at the latest (the previous process
 *   had stopped; when exactly is not in the log) — inferred; a lost-lease line before it is the
 *   observed start instead;
 * - the model resumes at the first "Starting controller" of the ReplicaSet controller within
 *   START_AFTER_ACQUIRE_MS of the acquire (its workers start after the caches sync), else at the acquire.
 * A log whose first attempt comes before any line of a leading process (a process start-up) gives
 * an idle stretch that costs nothing: nothing is queued yet.
 *
 * Limitation: a standby of an HA control plane also logs the attempt line while another process
 * leads; a log of one process cannot tell the two apart (the other process's syncs then look
 * idle until the acquire).
 *
 * Contract: `leadershipGaps(lines, starts)` is pure. Cost: O(lines + starts). No I/O, no clock.
 */
import type { SourceRef } from '../../timeline/event.js';

/** The longest a new leader takes from its acquired lease to its ReplicaSet controller's start line. */
export const START_AFTER_ACQUIRE_MS = 60_000;

/** One leader-election line of the kube-controller-manager log. */
export interface LeaseLine {
  at: number;
  kind: 'lease-attempt' | 'lease-acquired' | 'lease-lost';
  source: SourceRef;
}

/** A stretch in which no kube-controller-manager led: the model is idle in [from, resumeAt). */
export interface NoLeaderGap {
  /** Nobody led from here: a lost-lease line (observed) or the new process's attempt (inferred). */
  from: number;
  /** The new leader acquired the Lease here (undefined: the log ends with nobody leading). */
  acquiredAt?: number;
  /** The model's syncs resume here (the new process's controller start, or the acquire). */
  resumeAt?: number;
  /** Why the previous leader stopped, as far as the log shows. */
  cause: 'lease-lost' | 'new-process';
  basis: 'observed' | 'inferred';
  evidence: SourceRef[];
}

export function leadershipGaps(lines: readonly LeaseLine[], starts: ReadonlyArray<{ at: number; source: SourceRef }>): NoLeaderGap[] {
  const sorted = [...lines].sort((a, b) => a.at - b.at);
  const startTimes = [...starts].sort((a, b) => a.at - b.at);
  const gaps: NoLeaderGap[] = [];
  let open: NoLeaderGap | undefined;
  for (const l of sorted) {
    if (l.kind === 'lease-lost') {
      if (!open) open = { from: l.at, cause: 'lease-lost', basis: 'observed', evidence: [l.source] };
      continue;
    }
    if (l.kind === 'lease-attempt') {
      if (!open) open = { from: l.at, cause: 'new-process', basis: 'inferred', evidence: [l.source] };
      else open.evidence.push(l.source);
      continue;
    }
    // acquired
    if (!open) continue; // an acquire without its attempt in the log: where nobody led is unknown
    const start = startTimes.find((s) => s.at >= l.at && s.at <= l.at + START_AFTER_ACQUIRE_MS);
    open.acquiredAt = l.at;
    open.resumeAt = start?.at ?? l.at;
    open.evidence.push(l.source);
    if (start) open.evidence.push(start.source);
    gaps.push(open);
    open = undefined;
  }
  if (open) gaps.push(open);
  return gaps;
}
