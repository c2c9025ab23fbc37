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
 * From the Lease itself (its writes in an audit log, sources/audit/lease.ts) — observed: a write
 * naming a new holder after another one is a takeover; nobody led from the old holder's last
 * renewTime + leaseDurationSeconds (the expiry the new process waited for; a graceful stop does not
 * end it early in 1.37) — or from a write that emptied holderIdentity (a release) — to the new
 * holder's acquireTime. A takeover at or before that expiry leaves no gap. The model is idle from
 * one renewal interval after the old holder's last renewTime when its writes show the cadence
 * (`idleFrom`, inferred): it stopped renewing there, so it had stopped syncing.
 *
 * Both sources may show the same stretch: the Lease's account wins where they overlap
 * (`mergeGaps`).
 *
 * Contract: `leadershipGaps(lines, starts)`, `leaseGaps(writes, starts)`, `leaseWritesRead(writes)`
 * and `mergeGaps` are pure.
 * Cost: O(n log n) in the lines / writes and starts. No I/O, no clock.
 */
import type { SourceRef } from '../../timeline/event.js';

/** The longest a new leader takes from its acquired lease to its ReplicaSet controller's start line. */
export const START_AFTER_ACQUIRE_MS = 60_000;

/**
 * Why nobody led: the leader logged that it lost its Lease; a new process waited for it (log); the
 * holder stopped renewing and its Lease ran out; the holder released it (Lease writes).
 */
export type NoLeaderCause = 'lease-lost' | 'new-process' | 'lease-expired' | 'lease-released';

/** One write of the kube-controller-manager Lease (sources/audit/lease.ts LeaseWrite). */
export interface LeaseObservation {
  at: number;
  holder: string;
  acquireTime?: number;
  renewTime?: number;
  leaseDurationSeconds?: number;
  source: SourceRef;
}

/** One leader-election line of the kube-controller-manager log. */
export interface LeaseLine {
  at: number;
  kind: 'lease-attempt' | 'lease-acquired' | 'lease-lost';
  source: SourceRef;
}

/** A stretch in which no kube-controller-manager led: the model is idle in [from, resumeAt). */
export interface NoLeaderGap {
  /** Nobody led from here: a lost-lease line (observed), the new process's attempt (inferred), the Lease's expiry or release (observed). */
  from: number;
  /**
   * The model is idle from here when earlier than `from`: the old holder stopped renewing one
   * renewal interval (its cadence in the Lease's writes) after its last renewTime, and a process
   * that stopped renewing had stopped syncing (inferred).
   */
  idleFrom?: number;
  /** The new leader acquired the Lease here (undefined: the log ends with nobody leading). */
  acquiredAt?: number;
  /** The model's syncs resume here (the new process's controller start, or the acquire). */
  resumeAt?: number;
  /** Why the previous leader stopped, as far as the input shows. */
  cause: NoLeaderCause;
  basis: 'observed' | 'inferred';
  evidence: SourceRef[];
}

export function leadershipGaps(lines: readonly LeaseLine[], starts: ReadonlyArray<{ at: number; source: SourceRef }>): NoLeaderGap[] {
  const sorted = [...lines].sort((a, b) => a.at - b.at);
  const startTimes = sortedStarts(starts);
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
    const start = startAfter(startTimes, l.at);
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

function sortedStarts(starts: ReadonlyArray<{ at: number; source: SourceRef }>): Array<{ at: number; source: SourceRef }> {
  return [...starts].sort((a, b) => a.at - b.at);
}

/** The ReplicaSet controller's first logged start within START_AFTER_ACQUIRE_MS of an acquire. */
function startAfter(starts: ReadonlyArray<{ at: number; source: SourceRef }>, acquiredAt: number): { at: number; source: SourceRef } | undefined {
  return starts.find((s) => s.at >= acquiredAt && s.at <= acquiredAt + START_AFTER_ACQUIRE_MS);
}

/** The stretches with no leader the Lease's writes show (observed). */
export function leaseGaps(writes: readonly LeaseObservation[], starts: ReadonlyArray<{ at: number; source: SourceRef }>): NoLeaderGap[] {
  const sorted = [...writes].sort((a, b) => a.at - b.at);
  const startTimes = sortedStarts(starts);
  const gaps: NoLeaderGap[] = [];
  let last: LeaseObservation | undefined;
  let released: LeaseObservation | undefined;
  /** The holder's renewTime before its last write (its renewal cadence). */
  let prevRenew: number | undefined;
  for (const w of sorted) {
    if (w.holder === '') {
      if (last && !released) released = w;
      continue;
    }
    if (last && (w.holder !== last.holder || released)) {
      const expiry = last.renewTime !== undefined && last.leaseDurationSeconds !== undefined ? last.renewTime + last.leaseDurationSeconds * 1000 : undefined;
      const from = released?.at ?? expiry;
      const acquiredAt = w.acquireTime ?? w.at;
      if (from !== undefined && acquiredAt > from) {
        const start = startAfter(startTimes, acquiredAt);
        const cadence = prevRenew !== undefined && last.renewTime !== undefined && last.renewTime > prevRenew ? last.renewTime - prevRenew : undefined;
        const idleFrom = !released && cadence !== undefined ? last.renewTime! + cadence : undefined;
        gaps.push({
          from,
          ...(idleFrom !== undefined && idleFrom < from ? { idleFrom } : {}),
          acquiredAt,
          resumeAt: start?.at ?? acquiredAt,
          cause: released ? 'lease-released' : 'lease-expired',
          basis: 'observed',
          evidence: [(released ?? last).source, w.source, ...(start ? [start.source] : [])],
        });
      }
    }
    released = undefined;
    prevRenew = last?.holder === w.holder ? last.renewTime : undefined;
    last = w;
  }
  return gaps;
}

/**
 * The Lease writes `leaseGaps` reads, in its order (by `at`, stable), the others left out — what an
 * audit log's lease pass keeps for the replay, so the list is set by the holder changes and releases
 * in the input, not by its length (a holder renews every 2 s: 43,200 writes a day, all but a few
 * read by no one). Exact: `leaseGaps(leaseWritesRead(w), s)` equals `leaseGaps(w, s)` for any `w`
 * and `s` (test/analysis/engine/leadership.test.ts checks it on random sequences), because
 * `leaseGaps` reads, of a run of writes by one holder (no release between), only the first (the
 * takeover: its acquireTime, source), the last (the old holder's renewTime, lease duration,
 * source) and the one before the last (the renewal cadence); of consecutive releases (empty
 * holder) only the first. Cost: O(n log n) for the sort, one array of the writes kept.
 */
export function leaseWritesRead<T extends LeaseObservation>(writes: readonly T[]): T[] {
  const sorted = [...writes].sort((a, b) => a.at - b.at);
  const kept: T[] = [];
  for (let i = 0; i < sorted.length; i++) {
    const w = sorted[i]!;
    const prev = sorted[i - 1];
    if (w.holder === '') {
      if (prev?.holder !== '') kept.push(w);
      continue;
    }
    const next = sorted[i + 1];
    const startsRun = prev?.holder !== w.holder;
    const endsRun = next?.holder !== w.holder;
    const beforeLast = !endsRun && sorted[i + 2]?.holder !== w.holder;
    if (startsRun || endsRun || beforeLast) kept.push(w);
  }
  return kept;
}

/** The Lease's gaps, and the log's where no Lease gap overlaps them. */
export function mergeGaps(fromLease: readonly NoLeaderGap[], fromLog: readonly NoLeaderGap[]): NoLeaderGap[] {
  const end = (g: NoLeaderGap) => g.resumeAt ?? Number.POSITIVE_INFINITY;
  const start = (g: NoLeaderGap) => g.idleFrom ?? g.from;
  const kept = fromLog.filter((l) => !fromLease.some((g) => start(g) < end(l) && start(l) < end(g)));
  return [...fromLease, ...kept].sort((a, b) => start(a) - start(b));
}
