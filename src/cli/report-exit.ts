/**
 * Maps the result of a command that finished to kexp's exit code (the error that stops one is
 * mapped by error-exit.ts). For a Report, precedence highest first: input problems (6), the one
 * ReplicaSet asked for is absent (8), leak (4), gated (3), failing (5), otherwise 0.
 *
 * The table (README "Exit codes" says the same). Per ReplicaSet, from its verdict (state and
 * basis), its gated windows and its findings; a verdict, window or finding whose basis is
 * `unknown` never sets a code:
 *
 * | what the report shows (basis observed or inferred)                                  | code |
 * |--------------------------------------------------------------------------------------|------|
 * | verdict `leaked`                                                                     | 4    |
 * | any verdict, with a leak window: ended `expired` (only the timeout freed it, even     | 4    |
 * |   when it is over at the end of the input), or `open` with a leak cause — observed     |      |
 * |   (the controller's log) or backed by a leak finding of known basis                   |      |
 * | …but a window the ReplicaSet's deletion ended (`rs-deleted`, namespace-terminating     | —    |
 * |   creates included): the deletion, not the timeout, freed it                          |      |
 * | verdict `gated` (a round in flight) or `stalled` (the input shows no write and no      | 3    |
 * |   status write of the controller after a change of its pods, or its own status still  |      |
 * |   counts pods the input saw deleted: its cache holds them)                            |      |
 * | verdict `failing`; or a `create-failures` / `failed-writes` finding on a ReplicaSet    | 5    |
 * |   neither deleted nor healthy (past failures of one that got there are history)       |      |
 * | `healthy`, `converging`, `deleting`, `deleted`, `unknown`, or any verdict of basis     | 0    |
 * |   unknown, with none of the above                                                     |      |
 *
 * With a kube-controller-manager log fused, its windows are the report's where it covers the
 * time (analysis/report/log-windows.ts), so the code follows the log there.
 */
import type { GatedWindow, Report, ReplicaSetReport } from '../analysis/report-types.js';
import { isLeakWindow } from '../analysis/report/gated-windows.js';
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
 * Findings that state a window's leak (their `at` is the window's start). Not
 * `expectations-expired-informer-lag`: the round's pods all arrived, only after the expiry — late,
 * not leaked (kubernetes#129795) — unless the controller's own log shows the expiry (observed).
 */
const LEAK_FINDINGS = new Set(['expectation-leak-expired', 'expectation-leak-open', 'expectation-leak-namespace-terminating-open', 'expectation-leak-suspected']);

const known = (x: { basis: string }) => x.basis !== 'unknown';

/**
 * The ReplicaSet's leak windows that set exit code 4 (see the table): a leak window of known
 * basis not ended by the ReplicaSet's deletion, observed (the controller's own log) or backed
 * by a leak finding of known basis at its start.
 */
export function countedLeakWindows(rs: ReplicaSetReport): GatedWindow[] {
  return rs.gatedWindows.filter((w) => known(w) && w.endedBy !== 'rs-deleted' && isLeakWindow(w) &&
    (w.basis === 'observed' || rs.findings.some((f) => known(f) && LEAK_FINDINGS.has(f.id) && f.at === w.start)));
}

/** The exit code one ReplicaSet's report stands for, by the table (0 when it sets none). */
export function exitCodeOfReplicaSet(rs: ReplicaSetReport): ExitCode {
  if ((rs.verdict.state === 'leaked' && known(rs.verdict)) || countedLeakWindows(rs).length > 0) return EXIT.LEAK;
  // Stalled: the controller is not acting on a change either (its informer has not delivered it).
  if ((rs.verdict.state === 'gated' || rs.verdict.state === 'stalled') && known(rs.verdict)) return EXIT.GATED;
  if (rs.verdict.state === 'failing' && known(rs.verdict)) return EXIT.FAILING;
  // A deleted ReplicaSet's past failures are history, and so are a healthy one's: not a failing controller now.
  if (rs.verdict.state !== 'deleted' && rs.verdict.state !== 'healthy' && rs.findings.some((f) => known(f) && FAILED_WRITE_FINDINGS.has(f.id))) return EXIT.FAILING;
  return EXIT.OK;
}

/** Leak (4) before gated (3) before failing (5). */
const REPORT_PRECEDENCE: ExitCode[] = [EXIT.LEAK, EXIT.GATED, EXIT.FAILING];

/**
 * `absent`: the one ReplicaSet the command line named (NAME or --rs) is nowhere in the input —
 * 8, unless there were input problems (6: the unreadable part may hold it).
 */
export function exitCodeFor(report: Report, inputProblems: number, absent = false): ExitCode {
  if (inputProblems > 0) return EXIT.INPUT;
  if (absent) return EXIT.NOT_FOUND;
  const codes = new Set(report.replicaSets.map(exitCodeOfReplicaSet));
  return REPORT_PRECEDENCE.find((c) => codes.has(c)) ?? EXIT.OK;
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
