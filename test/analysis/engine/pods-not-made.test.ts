/**
 * An owner older than the input whose only round in kexp's replay is kexp's own first sync at the
 * input's initial LIST, never shown by the input (report/gated-windows.ts unseenBeforeInput): no
 * round of the controller is known to be in flight, and why the pods were not made the input cannot
 * tell. The rebuilt input of kubernetes#128358 (test/support/bug-case-inputs.ts jobZeroOfOneNoPods:
 * a CronJob's Job at 0/1 for 84 minutes, no pod, no Event; a 2-minute recording on v1.28.13).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { replayFiles } from '../../../src/pipeline/replay-files.js';
import { exitCodeFor } from '../../../src/cli/report-exit.js';
import { jobZeroOfOneNoPods } from '../../support/bug-case-inputs.js';

test('#128358 rebuilt: the Job wants 1 pod, none made in the input — basis unknown, the causes and what to collect named, no round claimed in flight, exit 0', async () => {
  const file = join(mkdtempSync(join(tmpdir(), 'kexp-128358-')), 'rec.kexp.jsonl');
  writeFileSync(file, jobZeroOfOneNoPods());
  const r = await replayFiles({ files: [file], onWarning: () => undefined });
  const job = r.report.replicaSets.find((x) => x.key === 'zzz/xxxxx-job-28833075')!;
  assert.deepEqual([job.verdict.state, job.verdict.basis], ['unknown', 'unknown']);
  assert.doesNotMatch(job.verdict.summary, /in flight/);
  const f = job.findings.find((x) => x.id === 'pods-not-made-unexplained')!;
  assert.deepEqual([f.basis, f.severity], ['unknown', 'warning']);
  assert.match(f.title, /wants 1 pod more/);
  assert.match(f.explanation, /created at 2026-11-30T03:45:08\.000Z, 84m\d+s before the input shows it/);
  assert.match(f.explanation, /status\.startTime \(2026-11-30T03:45:08Z\) shows the Job controller synced it then/);
  assert.match(f.explanation, /cannot tell/);
  assert.match(f.nextStep, /-v=4/);
  assert.match(f.nextStep, /audit log/);
  assert.equal(job.findings.some((x) => x.id === 'gated-at-end'), false);
  assert.equal(exitCodeFor(r.report, r.problems.length), 0);
});
