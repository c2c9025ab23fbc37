/**
 * Jobs from kube-apiserver audit logs: `kexp audit` (spawned) on the audit logs of the real
 * v1.37.2 job-controller captures (examples/captures/job-complete and job-dropped-add, made by
 * test/e2e/scenarios/run-workload-scenarios.ts) reads the Job from its write bodies (the person's
 * create, the controller's status updates), the job-controller's pod creates and Events, and
 * reports the Job with its rounds and gated windows. The controller's finalizer-removal PATCHes
 * (one per finished pod) are its writes but no claims: no adopt, nothing unexplained.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { kexp } from '../support/cli.js';
import { openAuditSource } from '../../src/sources/audit/audit-source.js';
import type { TimelineEvent } from '../../src/timeline/event.js';

const COMPLETE = 'examples/captures/job-complete/audit.jsonl';
const DROPPED = 'examples/captures/job-dropped-add/audit.jsonl';

interface JobReport {
  kind?: string;
  key: string;
  verdict: { state: string };
  rounds: Array<{ kind: string; n: number; successes: number; basis: string }>;
  gatedWindows: Array<{ start: string; end?: string; endedBy: string; basis: string; raised: { add: number; del: number }; gatedSyncs: number }>;
  accounting: { evidence: string; writes: number; inRounds: number; inFindings: number; byKind: Record<string, number> };
  findings: Array<{ id: string; basis: string }>;
}

function report(file: string): { code: number | null; jobs: JobReport[]; stderr: string } {
  const r = kexp(['audit', file, '-o', 'json']);
  return { code: r.code, stderr: r.stderr, jobs: (JSON.parse(r.stdout) as { replicaSets: JobReport[] }).replicaSets };
}

test('the audit source reads a Job from its write bodies: the create, every status update of the job-controller; its Events and pod writes kept', async () => {
  const src = await openAuditSource(COMPLETE, { diagnostics: { problem: (p) => assert.fail(`${p.file}:${p.line}: ${p.message}`), warn: () => undefined } });
  const events: TimelineEvent[] = [];
  for await (const e of src.events) events.push(e);
  const jobs = events.filter((e) => e.type === 'observed' && e.kind === 'Job');
  assert.deepEqual(jobs.map((e) => (e.type === 'observed' ? `${e.watchType} ${e.source.line}` : '')), [
    'ADDED 12', ...[19, 27, 33, 35, 40, 42, 49, 52, 58, 60, 64, 66, 70, 72].map((l) => `MODIFIED ${l}`),
  ]);
  const status = events.filter((e) => e.type === 'write' && e.resource === 'jobs');
  assert.equal(status.length, 15, 'the create and the 14 status updates');
  const events_ = events.filter((e) => e.type === 'observed' && e.kind === 'Event');
  assert.equal(events_.length, 7, 'the job-controller\'s Events about the Job (SuccessfulCreate, Completed)');
  const finalizerPatches = events.filter((e) => e.type === 'write' && e.resource === 'pods' && e.verb === 'patch' && e.actor?.controller === 'job-controller');
  assert.equal(finalizerPatches.length, 6, 'one tracking-finalizer removal per finished pod');
  assert.equal(src.summary().lineAccount.relevant, 49);
});

test('kexp audit of job-complete: the Job with its three create rounds, each window fulfilled, the finalizer removals no claim, healthy, exit 0', () => {
  const { code, jobs, stderr } = report(COMPLETE);
  assert.equal(code, 0, stderr);
  assert.equal(jobs.length, 1, 'no ReplicaSet report for the Job\'s pods');
  const job = jobs[0]!;
  assert.equal(job.kind, 'Job');
  assert.equal(job.key, 'kexp-job-complete/work');
  assert.equal(job.verdict.state, 'healthy');
  assert.deepEqual(job.rounds.map((r) => [r.kind, r.n, r.successes, r.basis]), [['create', 3, 3, 'observed'], ['create', 1, 1, 'observed'], ['create', 2, 2, 'observed']]);
  assert.deepEqual(job.gatedWindows.map((w) => [w.start, w.endedBy, w.raised.add]), [
    ['2026-12-05T07:59:52.341Z', 'fulfilled', 3],
    ['2026-12-05T07:59:55.591Z', 'fulfilled', 1],
    ['2026-12-05T08:00:01.628Z', 'fulfilled', 2],
  ]);
  assert.deepEqual(
    { writes: job.accounting.writes, inRounds: job.accounting.inRounds, inFindings: job.accounting.inFindings, adopt: job.accounting.byKind.adopt },
    { writes: 6, inRounds: 6, inFindings: 0, adopt: 0 },
    'the six creates; the six finalizer-removal PATCHes are neither adopts nor unexplained',
  );
  assert.deepEqual(job.findings, []);
  const table = kexp(['audit', COMPLETE]);
  assert.equal(table.code, 0, table.stderr);
  assert.match(table.stdout, /^kexp-job-complete\/work\s+healthy\s+0\s+0\s+0\s/m);
});

test('kexp audit of job-dropped-add: the add=2 record only the 5-minute expiry freed (observed from the job-controller\'s creates), 8 gated syncs, exit 4', () => {
  const { code, jobs, stderr } = report(DROPPED);
  assert.equal(code, 4, stderr);
  assert.equal(jobs.length, 1);
  const job = jobs[0]!;
  assert.equal(job.kind, 'Job');
  assert.equal(job.key, 'kexp-job-dropped-add/work');
  assert.deepEqual(job.rounds.map((r) => [r.kind, r.n, r.successes, r.basis]), [['create', 2, 2, 'observed']]);
  assert.deepEqual(job.gatedWindows.map((w) => [w.start, w.end, w.endedBy, w.raised, w.gatedSyncs]), [
    ['2026-12-05T07:59:12.314Z', '2026-12-05T08:04:19.362Z', 'expired', { add: 2, del: 0 }, 8],
  ]);
  assert.ok(job.findings.some((f) => f.id === 'expectation-leak-expired' && f.basis !== 'unknown'), JSON.stringify(job.findings));
  assert.equal(job.accounting.inFindings, 0);
  const table = kexp(['audit', DROPPED]);
  assert.equal(table.code, 4, table.stderr);
  assert.match(table.stdout, /^kexp-job-dropped-add\/work\s+healthy\s+2\s+0\s+1\s+warning: Expectations leaked/m);
  assert.match(table.stdout, /Cause:\s+Expectations leaked and were only cleared by the 5-minute timeout/);
});
