/**
 * Maps a Report (plus input problems) to kexp's exit code. Precedence, highest first:
 * input problems (6), leak (4), gated (3), failing (5), otherwise 0.
 */
import type { Report } from '../analysis/report-types.js';
import { EXIT, type ExitCode } from './exit-codes.js';

export function exitCodeFor(report: Report, inputProblems: number): ExitCode {
  if (inputProblems > 0) return EXIT.INPUT;
  const rss = report.replicaSets;
  // Exit codes rest only on what the evidence supports: a verdict or finding whose basis is
  // `unknown` (the input cannot tell) never changes the code.
  const known = (x: { basis: string }) => x.basis !== 'unknown';
  const leak = rss.some((r) => (r.verdict.state === 'leaked' && known(r.verdict)) ||
    r.findings.some((f) => known(f) && f.id.startsWith('expectation-leak') && f.id !== 'expectation-leak-namespace-terminating'));
  if (leak) return EXIT.LEAK;
  if (rss.some((r) => r.verdict.state === 'gated' && known(r.verdict))) return EXIT.GATED;
  // A deleted ReplicaSet's past failures are history, not a failing controller now.
  const live = rss.filter((r) => r.verdict.state !== 'deleted');
  if (live.some((r) => (r.verdict.state === 'failing' && known(r.verdict)) || r.findings.some((f) => known(f) && f.id === 'create-failures'))) return EXIT.FAILING;
  return EXIT.OK;
}
