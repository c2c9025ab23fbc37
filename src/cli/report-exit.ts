/**
 * Maps the result of a command that finished to kexp's exit code (the error that stops one is
 * mapped by error-exit.ts). For a Report, precedence highest first: input problems (6), the one
 * ReplicaSet asked for is absent (8), leak (4), gated (3), failing (5), otherwise 0.
 *
 * Failing (5) follows what the report's basis supports, whatever the input: a `failing` verdict,
 * or a finding (basis observed or inferred) that pod writes failed — see FAILED_WRITE_FINDINGS.
 */
import type { Report } from '../analysis/report-types.js';
import { EXIT, type ExitCode } from './exit-codes.js';

/**
 * Findings (besides a `failing` verdict) that stand for failed create/delete calls of the
 * ReplicaSet controller:
 * - `create-failures`: creation rounds a replay (watch or audit) saw fail;
 * - `failed-writes`: a ReplicaSet known only from Events (`kubectl get events -o json`, a
 *   dump's Events): its FailedCreate/FailedDelete Events are observed failed calls. Whether it
 *   still fails is not in the input, no more than for a replayed round that failed earlier,
 *   which exits 5 too.
 * A snapshot's failures are in its verdict (`failing` when a FailedCreate/FailedDelete is newer
 * than its last progress; `past-write-failures` when the snapshot shows progress since: 0).
 */
const FAILED_WRITE_FINDINGS = new Set(['create-failures', 'failed-writes']);

/**
 * `absent`: the one ReplicaSet the command line named (NAME or --rs) is nowhere in the input —
 * 8, unless there were input problems (6: the unreadable part may hold it).
 */
export function exitCodeFor(report: Report, inputProblems: number, absent = false): ExitCode {
  if (inputProblems > 0) return EXIT.INPUT;
  if (absent) return EXIT.NOT_FOUND;
  const rss = report.replicaSets;
  // Exit codes rest only on what the evidence supports: a verdict or finding whose basis is
  // `unknown` (the input cannot tell) never changes the code.
  const known = (x: { basis: string }) => x.basis !== 'unknown';
  const leak = rss.some((r) => (r.verdict.state === 'leaked' && known(r.verdict)) ||
    r.findings.some((f) => known(f) && f.id.startsWith('expectation-leak') && f.id !== 'expectation-leak-namespace-terminating'));
  if (leak) return EXIT.LEAK;
  // Stalled: the controller is not acting on a change either (its informer has not delivered it).
  if (rss.some((r) => (r.verdict.state === 'gated' || r.verdict.state === 'stalled') && known(r.verdict))) return EXIT.GATED;
  // A deleted ReplicaSet's past failures are history, not a failing controller now.
  const live = rss.filter((r) => r.verdict.state !== 'deleted');
  if (live.some((r) => (r.verdict.state === 'failing' && known(r.verdict)) || r.findings.some((f) => known(f) && FAILED_WRITE_FINDINGS.has(f.id)))) return EXIT.FAILING;
  return EXIT.OK;
}

/**
 * `kexp kcm-log`: input problems (6), the ReplicaSet of --rs absent from the log (8), a leak —
 * a gated window that expired, or is still open with syncs it gated (4) — creates or deletes
 * still failing at the end of the log by the controller's own Warning Events (5), otherwise 0.
 */
export function exitCodeForKcmLog(
  replicaSets: ReadonlyArray<{ gatedWindows: ReadonlyArray<{ ended: string; gatedSyncs: number }>; failures?: ReadonlyArray<{ current: boolean }> }>,
  inputProblems: number,
  absent: boolean,
): ExitCode {
  if (inputProblems > 0) return EXIT.INPUT;
  if (absent) return EXIT.NOT_FOUND;
  const leak = replicaSets.some((r) => r.gatedWindows.some((w) => w.ended === 'expired' || (w.ended === 'open' && w.gatedSyncs > 0)));
  if (leak) return EXIT.LEAK;
  return replicaSets.some((r) => r.failures?.some((f) => f.current)) ? EXIT.FAILING : EXIT.OK;
}

/** `kexp adopt`: input problems in the --from files (6), otherwise 0: decisions are no verdict. */
export function exitCodeForAdoption(inputProblems: number): ExitCode {
  return inputProblems > 0 ? EXIT.INPUT : EXIT.OK;
}

/** `kexp record` that recorded until its end: 130 when Ctrl-C/SIGTERM ended it (the file is closed as interrupted), otherwise 0. */
export function exitCodeForRecording(endReason: string): ExitCode {
  return endReason === 'interrupted' ? EXIT.INTERRUPTED : EXIT.OK;
}
