/**
 * Bug-cases bench: how many public incidents of ../shared/docs/bug-cases.md kexp diagnoses
 * fully right (issue #21: "≥ 13 of the 16 cases fully right"). Builds every case's input
 * (./cases.ts: rebuilt audit logs and recordings with the incident's release, and the real
 * captures in examples/ that are the case), runs kexp on it through the library entry points
 * (replayFiles, auditFiles) with the exit code of src/cli/report-exit.ts, judges the report
 * with the case's written criteria (./judge.ts), and prints a markdown table; `--write` also
 * writes it into bench/bug-cases/RESULTS.md. `--verbose` prints every failed criterion's reason.
 *
 * Usage: node --import tsx bench/bug-cases/run.ts [--write] [--verbose]
 *
 * Cost: well under 30 s (about 3 s on one core): ~35 inputs of at most a few thousand lines.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { auditFiles } from '../../src/pipeline/audit-files.js';
import { replayFiles } from '../../src/pipeline/replay-files.js';
import { exitCodeFor } from '../../src/cli/report-exit.js';
import { causeOf } from '../../src/render/next-steps.js';
import { CASES, type RunSpec } from './cases.js';
import { caseGrade, exitCode, judge, verdict, type CaseRun, type Grade, type Judgement } from './judge.js';

export interface RunResult {
  spec: RunSpec;
  run?: CaseRun;
  judgement: Judgement;
  /** What kexp said, in one line: verdict, exit, the Cause line. */
  said: string;
}

/** Runs kexp on one input the way the `replay` / `audit` commands do. */
export async function runKexp(spec: RunSpec, dir: string): Promise<CaseRun> {
  const file = spec.input(dir);
  const quiet = { onWarning: () => undefined };
  const res = spec.format === 'audit' ? await auditFiles({ files: [file], ...quiet }) : await replayFiles({ files: [file], ...quiet });
  const report = res.report;
  return { report, rs: report.replicaSets.find((r) => r.key === spec.rsKey), exit: exitCodeFor(report, res.problems.length), problems: res.problems.length };
}

/** The criteria of a run: its expected verdict and exit code, then the case's own. */
export function criteriaOf(spec: RunSpec) {
  return [verdict(spec.expect.verdict), exitCode(spec.expect.exit, spec.expect.exitWhy), ...spec.criteria];
}

export async function runCase(spec: RunSpec, dir: string): Promise<RunResult> {
  try {
    const run = await runKexp(spec, dir);
    const judgement = judge(run, criteriaOf(spec));
    const rs = run.rs;
    const said = rs ? `${rs.verdict.state} [${rs.verdict.basis}], exit ${run.exit}${causeOf(rs) ? `; Cause: ${causeOf(rs)}` : ''}` : `ReplicaSet ${spec.rsKey} not reported, exit ${run.exit}`;
    return { spec, run, judgement, said };
  } catch (e) {
    const total = criteriaOf(spec).length;
    return { spec, judgement: { met: 0, total, failed: [{ name: 'kexp ran', why: `threw: ${(e as Error).message}` }], grade: 'wrong' }, said: `error: ${(e as Error).message}` };
  }
}

function cell(s: string): string {
  return s.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

async function main(): Promise<void> {
  const write = process.argv.includes('--write');
  const verbose = process.argv.includes('--verbose');
  const dir = mkdtempSync(join(tmpdir(), 'kexp-bug-cases-'));
  const started = Date.now();
  const rows: string[] = [];
  const details: string[] = [];
  const grades: Array<{ n: number; title: string; grade: Grade | 'not in scope' }> = [];
  try {
    for (const c of [...CASES].sort((a, b) => a.n - b.n)) {
      if (c.outOfScope) {
        rows.push(`| ${c.n} | ${cell(c.title)} | — | — | — | — | — | not in scope (${c.outOfScope}) |`);
        grades.push({ n: c.n, title: c.title, grade: 'not in scope' });
        continue;
      }
      const results: RunResult[] = [];
      for (const spec of c.runs) results.push(await runCase(spec, dir));
      const grade = caseGrade(results.map((r) => r.judgement.grade));
      grades.push({ n: c.n, title: c.title, grade });
      for (const r of results) {
        const v = r.run?.rs ? `${r.run.rs.verdict.state} [${r.run.rs.verdict.basis}]` : '—';
        const got = `${v} / ${r.run?.exit ?? '—'}`;
        const want = `${r.spec.expect.verdict.join('\\|')} / ${r.spec.expect.exit}`;
        rows.push(`| ${c.n} | ${cell(c.title)} | ${r.spec.format} (${cell(r.spec.label)}) | ${r.spec.version} | ${cell(got)} | ${cell(want)} | ${r.judgement.met}/${r.judgement.total} | ${r.judgement.grade}${results.length > 1 ? ` (case: ${grade})` : ''} |`);
        if (r.judgement.failed.length) {
          details.push(`- **#${c.n} ${r.spec.format} (${r.spec.label})** — kexp: ${cell(r.said).slice(0, 300)}`);
          for (const f of r.judgement.failed) details.push(`  - ✗ ${f.name}: ${cell(f.why).slice(0, verbose ? 2000 : 300)}`);
        }
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const inScope = grades.filter((g) => g.grade !== 'not in scope');
  const fully = inScope.filter((g) => g.grade === 'fully right');
  const partly = inScope.filter((g) => g.grade === 'partly right');
  const wrong = inScope.filter((g) => g.grade === 'wrong');
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  const out = [
    '# Public bug reports: does kexp diagnose them fully right?',
    '',
    'Produced by `node --import tsx bench/bug-cases/run.ts --write` (the cases and their criteria: `bench/bug-cases/cases.ts`, the judge:',
    '`bench/bug-cases/judge.ts`, the inputs: `test/support/bug-case-inputs.ts` and the captures in `examples/`). Every section of',
    '`../shared/docs/bug-cases.md` is one case; the DaemonSet (3, 6, 7, 8, and 32: kubernetes#54096) and outside-core (10, 11) cases belong to issue #22,',
    'and so do the Job reports of #22 (29: kubernetes#78796, 30: #139428 on the release with the bug and on the fixed one, 31:',
    '#127917; their inputs are job-controller audit logs, `test/support/job-audit.ts`; 33: #128358, a Job at 0/1 with no pods for',
    '84 minutes — its thread has no diagnosis and its input, a recording of what the report shows (the Job, no pod, no Event),',
    'does not tell one cause: the right diagnosis is kexp saying so, basis unknown, with the evidence missing and the KCM log at',
    '-v=4 to collect).',
    'Each in-scope case is rebuilt as the inputs kexp reads — an audit log (the controller\'s user agent names the release the',
    'incident happened on) or a kexp recording (its header\'s serverVersion), or the real capture of examples/ that is the case,',
    'read both as its recording and as its audit slice — and kexp is run through its library entry points (`replayFiles`,',
    '`auditFiles`) with the exit code of `src/cli/report-exit.ts`.',
    '',
    '**How "fully right" is judged.** Each run is checked against written criteria derived from the case\'s diagnosis line: the',
    'verdict state, the exit code the README\'s exit-code table calls for (applied to the diagnosis and to how the input ends),',
    'the finding that carries the diagnosis (its id, its basis — never `observed` for an inference — and the key numbers it must',
    'state: the pods, the 5-minute expiry, the round sizes), the Cause line naming that finding, the rounds, and no false claim',
    '(no write beyond those the input shows, every write accounted, no leak where none, none of the findings the diagnosis rules',
    'out). A run is *fully right* when every criterion holds, *wrong* when every key (diagnosis) criterion fails, else *partly',
    'right*; a case is fully right only when every one of its runs is.',
    '',
    `**${fully.length} of ${inScope.length} in-scope cases fully right** (${partly.length} partly right, ${wrong.length} wrong; ${grades.length - inScope.length} not in scope). Run took ${seconds} s.`,
    '',
    '| case | title | input | version | kexp: verdict / exit | expected | criteria met | grade |',
    '|---|---|---|---|---|---|---|---|',
    ...rows,
    '',
    '## Criteria that failed',
    '',
    ...(details.length ? details : ['None.']),
    '',
  ].join('\n');
  process.stdout.write(out);
  if (write) writeFileSync(join('bench', 'bug-cases', 'RESULTS.md'), out.replace(/ Run took [\d.]+ s\./, ''));
}

if (import.meta.url === `file://${process.argv[1]}` || process.argv[1]?.endsWith('bench/bug-cases/run.ts')) {
  await main();
}
