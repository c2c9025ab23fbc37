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

test('kexp audit of job-dropped-add: the add=2 record only the 5-minute expiry freed (observed from the job-controller\'s creates), 9 gated syncs (the log\'s 10 but the one kexp could not know of), exit 4', () => {
  const { code, jobs, stderr } = report(DROPPED);
  assert.equal(code, 4, stderr);
  assert.equal(jobs.length, 1);
  const job = jobs[0]!;
  assert.equal(job.kind, 'Job');
  assert.equal(job.key, 'kexp-job-dropped-add/work');
  assert.deepEqual(job.rounds.map((r) => [r.kind, r.n, r.successes, r.basis]), [['create', 2, 2, 'observed']]);
  assert.deepEqual(job.gatedWindows.map((w) => [w.start, w.end, w.endedBy, w.raised, w.gatedSyncs]), [
    ['2026-12-05T07:59:12.314Z', '2026-12-05T08:04:19.362Z', 'expired', { add: 2, del: 0 }, 9],
  ]);
  // The status write at 07:59:16.548 counts work-ktzm8 ready: the controller had it and lacked work-9dtz6 (view-swap.test.ts).
  assert.deepEqual([job.gatedWindows[0]!.remaining?.add, job.gatedWindows[0]!.remaining?.del], [1, 0]);
  assert.ok(job.findings.some((f) => f.id === 'expectation-leak-expired' && f.basis !== 'unknown'), JSON.stringify(job.findings));
  assert.equal(job.accounting.inFindings, 0);
  const table = kexp(['audit', DROPPED], { env: { COLUMNS: '120' } });
  assert.equal(table.code, 4, table.stderr);
  assert.match(table.stdout, /^kexp-job-dropped-add\/work\s+leaked, now healthy\s+2\s+0\s+1\s+warning: Expectations leaked/m);
  assert.match(table.stdout, /Cause:\s+Expectations leaked and were only cleared by the 5-minute timeout/);
});

test('a metadata-only write to a Job\'s pod (the garbage collector orphaning it) is completed with what the Job model reads of the pod: its phase, its containers\' restarts and finish times', async () => {
  const fs = await import('node:fs');
  const os = await import('node:os');
  const path = await import('node:path');
  const lines = fs.readFileSync(COMPLETE, 'utf8').split('\n').slice(0, 30);
  const last = JSON.parse(lines[29]!) as { stageTimestamp: string; responseObject: { metadata: Record<string, unknown> } };
  assert.equal(last.responseObject.metadata.name, 'work-472r8', 'line 30: the kubelet\'s status patch that ends the pod Succeeded');
  const at = new Date(Date.parse(last.stageTimestamp) + 5).toISOString();
  const { ownerReferences: _o, ...orphaned } = last.responseObject.metadata;
  lines.push(JSON.stringify({
    kind: 'Event', apiVersion: 'audit.k8s.io/v1', level: 'RequestResponse', auditID: 'gc-orphan-1', stage: 'ResponseComplete',
    requestURI: '/api/v1/namespaces/kexp-job-complete/pods/work-472r8', verb: 'patch',
    user: { username: 'system:serviceaccount:kube-system:generic-garbage-collector' },
    userAgent: 'kube-controller-manager/v1.37.2 (linux/amd64) kubernetes/$Format/system:serviceaccount:kube-system:generic-garbage-collector',
    objectRef: { resource: 'pods', namespace: 'kexp-job-complete', name: 'work-472r8', apiVersion: 'v1' },
    responseStatus: { metadata: {}, code: 200 },
    requestObject: { metadata: { ownerReferences: [{ $patch: 'delete', uid: 'c9e20e21-2d82-4c27-a864-beb9e5372f29' }], uid: orphaned.uid } },
    responseObject: { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: { ...orphaned, resourceVersion: '9999' } },
    requestReceivedTimestamp: at, stageTimestamp: at,
  }));
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'kexp-job-audit-')), 'audit.jsonl');
  fs.writeFileSync(file, lines.join('\n') + '\n');
  const src = await openAuditSource(file, { diagnostics: { problem: (p) => assert.fail(`${p.file}:${p.line}: ${p.message}`), warn: () => undefined } });
  let completed: unknown;
  for await (const e of src.events) if (e.type === 'observed' && e.kind === 'Pod' && e.source.line === 31) completed = e.object;
  const pod = completed as { metadata: { ownerReferences?: unknown; resourceVersion: string }; status: { phase: string; containerStatuses: unknown } };
  assert.ok(pod, 'the metadata-only patch is an observation of the pod');
  assert.equal(pod.metadata.resourceVersion, '9999');
  assert.equal(pod.metadata.ownerReferences, undefined, 'orphaned');
  assert.equal(pod.status.phase, 'Succeeded');
  assert.deepEqual(pod.status.containerStatuses, [{ name: 'work', restartCount: 0, state: { terminated: { finishedAt: '2026-12-05T07:59:54Z' } } }]);
});
