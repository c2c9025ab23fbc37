/**
 * Jobs in dumps and must-gathers: `kexp replay DIR` (spawned) reads a must-gather's
 * namespaces/<ns>/batch/jobs.yaml (its per-Job copy batch/jobs/<name>.yaml counted as a copy) and a
 * directory's jobs.json, and a Job List in a file whose name says nothing, by its kind before its
 * metadata — not a CronJob List, whose status.active names Jobs too. The snapshot counts and names
 * the Jobs in one line and does not analyse them. The Job is the real one of the job-complete
 * capture (its last state, as the audit log's GET returned it).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { stringify } from 'yaml';
import { kexp } from '../support/cli.js';
import type { Report } from '../../src/analysis/report-types.js';

const CAPTURE = fs.readFileSync('examples/captures/job-complete/audit.jsonl', 'utf8').split('\n');
/** Line 74: the person's GET of Job kexp-job-complete/work after it completed. */
const JOB = (JSON.parse(CAPTURE[73]!) as { responseObject: { kind: string; metadata: { name: string; namespace: string; uid: string } } }).responseObject;
/** Line 67: a pod List of the Job's pods. */
const PODS = (JSON.parse(CAPTURE[66]!) as { responseObject: { kind: string; items: unknown[] } }).responseObject;
const NS = JOB.metadata.namespace;
const NOTE = (names: string) => `${names} in the snapshot, not analysed: a Job's status shows its counts, not whether its controller was gated on its expectations or its tracking finalizers — that shows only in a history; replay a recording, a watch dump or an audit log of it (kexp replay, kexp audit).`;

function write(root: string, rel: string, text: string): void {
  const f = path.join(root, rel);
  fs.mkdirSync(path.dirname(f), { recursive: true });
  fs.writeFileSync(f, text);
}

function lines(s: string): string[] {
  return s.split('\n').filter((l) => l !== '');
}

test('replay on a must-gather with batch/jobs.yaml: the Job read and named in the snapshot, its per-Job copy counted, not analysed', () => {
  assert.equal(JOB.kind, 'Job');
  assert.equal(PODS.kind, 'PodList');
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'kexp-job-mg-'));
  write(root, `namespaces/${NS}/${NS}.yaml`, stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS, uid: 'ns-uid', creationTimestamp: '2026-12-05T07:59:50Z' }, status: { phase: 'Active' } }));
  write(root, `namespaces/${NS}/core/pods.yaml`, stringify({ ...PODS, apiVersion: 'v1' }));
  write(root, `namespaces/${NS}/batch/jobs.yaml`, stringify({ apiVersion: 'batch/v1', kind: 'JobList', items: [JOB] }));
  write(root, `namespaces/${NS}/batch/jobs/work.yaml`, stringify(JOB));
  const r = kexp(['replay', root, '-o', 'json']);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(lines(r.stderr), [`warning: ${root} (must-gather): read 3 List files; skipped 1 file: 1 per-Job copies of listed Jobs`]);
  const rep = JSON.parse(r.stdout) as Report;
  assert.deepEqual(rep.replicaSets, [], 'no report for a Job from a state');
  assert.ok(rep.coverage.assumptions.includes(NOTE(`1 Job(s) (${NS}/work)`)), rep.coverage.assumptions.join('\n'));
  assert.ok(rep.coverage.assumptions.includes('0 ReplicaSet(s), 6 pod(s), 0 Event(s), 1 namespace(s) in the snapshot.'), rep.coverage.assumptions.join('\n'));
  // Without the namespace's List, the per-Job copy is read in its place.
  fs.rmSync(path.join(root, `namespaces/${NS}/batch/jobs.yaml`));
  const alone = kexp(['replay', root, '-o', 'json']);
  assert.equal(alone.code, 0, alone.stderr);
  assert.ok((JSON.parse(alone.stdout) as Report).coverage.assumptions.includes(NOTE(`1 Job(s) (${NS}/work)`)));
});

test('replay on a directory of Lists: jobs.json by its name, a Job List in a file whose name says nothing by its kind; a CronJob List naming a Job in its status is not one', () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'kexp-job-dir-'));
  const other = { ...JOB, metadata: { ...JOB.metadata, name: 'nightly-29001', uid: 'uid-nightly-29001' } };
  write(root, 'jobs.json', JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [JOB] }, null, 4));
  // One Job as the apiserver writes it (kind, apiVersion, metadata), saved under a name of the user's choosing.
  write(root, 'saved.yaml', stringify(other));
  const cron = {
    apiVersion: 'v1', kind: 'List', items: [{
      apiVersion: 'batch/v1', kind: 'CronJob', metadata: { name: 'nightly', namespace: NS, uid: 'uid-nightly' },
      spec: { schedule: '0 1 * * *', jobTemplate: { spec: {} } },
      status: { active: [{ apiVersion: 'batch/v1', kind: 'Job', name: 'nightly-29001', namespace: NS, uid: 'uid-nightly-29001' }] },
    }],
  };
  // The same as kubectl prints it (apiVersion, kind, metadata), with yet another name.
  const adhoc = { apiVersion: 'batch/v1', kind: 'Job', metadata: { ...JOB.metadata, name: 'adhoc', uid: 'uid-adhoc' }, spec: (JOB as { spec?: unknown }).spec, status: (JOB as { status?: unknown }).status };
  write(root, 'notes/backup.json', JSON.stringify(adhoc, null, 2));
  write(root, 'cron.yaml', stringify(cron));
  write(root, 'cron.json', JSON.stringify(cron, null, 2));
  const r = kexp(['replay', root, '-o', 'json']);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(lines(r.stderr), [`warning: ${root} (directory): read 3 List files; skipped 2 files: 2 other kinds`]);
  const rep = JSON.parse(r.stdout) as Report;
  assert.ok(rep.coverage.assumptions.includes(NOTE(`3 Job(s) (${NS}/adhoc, ${NS}/nightly-29001, ${NS}/work)`)), rep.coverage.assumptions.join('\n'));
});
