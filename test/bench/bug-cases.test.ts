/**
 * The judge of bench/bug-cases: on a case kexp gets right (#15, replacement churn, rebuilt as a
 * v1.16.6 audit log) every criterion holds; on the same report deliberately broken — the
 * diagnosis finding dropped, an invented write, a leak claimed, an inference marked observed —
 * the judge names exactly the criteria that fail and grades it down.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CASES } from '../../bench/bug-cases/cases.js';
import { criteriaOf, runKexp } from '../../bench/bug-cases/run.js';
import { caseGrade, judge, type CaseRun } from '../../bench/bug-cases/judge.js';

const dir = mkdtempSync(join(tmpdir(), 'kexp-bug-cases-judge-'));
const spec = (n: number) => {
  const c = CASES.find((x) => x.n === n);
  assert.ok(c && c.runs.length > 0, `case ${n}`);
  return c.runs[0]!;
};

test('a case kexp diagnoses right (#15 replacement churn, v1.16.6 audit): every criterion holds', async () => {
  const s = spec(15);
  const run = await runKexp(s, dir);
  assert.equal(run.rs?.key, 'shop/web-7d9c6b8f5d');
  const j = judge(run, criteriaOf(s));
  assert.deepEqual(j.failed, []);
  assert.equal(j.grade, 'fully right');
  assert.equal(j.met, j.total);
  assert.ok(j.total >= 10, `${j.total} criteria`);
});

test('the same report deliberately broken: the judge names each failed criterion and grades it down', async () => {
  const s = spec(15);
  const run = await runKexp(s, dir);
  const broken: CaseRun = structuredClone(run);
  const rs = broken.rs!;
  // The diagnosis finding gone, replaced by a leak claim of basis observed; one write invented.
  rs.findings = rs.findings.filter((f) => f.id !== 'replacement-churn');
  rs.findings.push({ id: 'expectation-leak-expired', severity: 'warning', basis: 'observed', title: 'Expectations leaked', explanation: 'invented', nextStep: 'Wait.', at: rs.rounds[0]!.at } as (typeof rs.findings)[number]);
  rs.accounting.writes += 1;
  rs.accounting.inRounds += 1;
  rs.accounting.byKind.create += 1;
  broken.exit = 4;
  const j = judge(broken, criteriaOf(s));
  const failed = j.failed.map((f) => f.name);
  assert.ok(failed.some((n) => /^exit 0/.test(n)), failed.join('\n'));
  assert.ok(failed.some((n) => /^replacement churn/.test(n)), failed.join('\n'));
  assert.ok(failed.some((n) => /^Cause line is the replacement-churn finding/.test(n)), failed.join('\n'));
  assert.ok(failed.includes('no leak claimed'), failed.join('\n'));
  assert.ok(failed.some((n) => /every controller write of the log accounted/.test(n)), failed.join('\n'));
  const accounting = j.failed.find((f) => /every controller write/.test(f.name))!;
  assert.match(accounting.why, /writes 6 \(input: 5\)/);
  assert.equal(j.grade, 'wrong', 'the only key criterion (the diagnosis finding) fails');
  assert.equal(j.met + j.failed.length, j.total);

  // Keep the diagnosis, break only the exit code: partly right, one criterion failed.
  const partly: CaseRun = { ...run, exit: 5 };
  const p = judge(partly, criteriaOf(s));
  assert.deepEqual(p.failed.map((f) => [f.name.startsWith('exit 0'), f.why]), [[true, 'exit 5']]);
  assert.equal(p.grade, 'partly right');
  assert.equal(caseGrade(['fully right', p.grade]), 'partly right');
  assert.equal(caseGrade(['wrong', 'wrong']), 'wrong');
});

test('a diagnosis claimed with basis observed where the case calls for an inference fails its criterion (#1)', async () => {
  const s = spec(1);
  const run = await runKexp(s, dir);
  const forged: CaseRun = structuredClone(run);
  const f = forged.rs!.findings.find((x) => x.id === 'late-first-write' || x.id === 'expectation-leak-expired');
  assert.ok(f, forged.rs!.findings.map((x) => x.id).join());
  f.basis = 'observed';
  const j = judge(forged, criteriaOf(s));
  const diag = j.failed.find((x) => /^gated from the scale-up/.test(x.name));
  assert.ok(diag, j.failed.map((x) => x.name).join('\n'));
  assert.match(diag.why, /basis observed, wanted inferred/);
});
