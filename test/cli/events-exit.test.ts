/**
 * The exit code of a ReplicaSet known only from Events follows what its Events show: its
 * FailedCreate / FailedDelete Events are observed failed calls, so the CLI exits 5 ("creates or
 * deletes are failing") as it does for failed creates seen in a watch or an audit log; only
 * successful writes exit 0. Spawned on `kubectl get events -o json` output (a List, 4-space
 * indent, test/cli/fixtures/events-failedcreate.json) and on `kubectl get events -w -o json`.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { kexp } from '../support/cli.js';
import type { Report } from '../../src/analysis/report-types.js';

const FIXTURE = path.resolve(new URL('./fixtures/events-failedcreate.json', import.meta.url).pathname);
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kexp-events-exit-'));
type Ev = Record<string, unknown> & { reason: string; message: string; type: string; count: number };
const LIST = JSON.parse(fs.readFileSync(FIXTURE, 'utf8')) as { items: Ev[] };

function write(name: string, items: Ev[], watch = false): string {
  const f = path.join(tmp, name);
  fs.writeFileSync(f, watch ? items.map((e) => JSON.stringify(e, null, 4)).join('\n') + '\n' : JSON.stringify({ ...LIST, items }, null, 4) + '\n');
  return f;
}

test('kubectl get events -o json with FailedCreate Events of a ReplicaSet known only from Events: exit 5, the finding observed', () => {
  const r = kexp(['replay', FIXTURE, '--output', 'json']);
  assert.equal(r.code, 5, r.stderr);
  const rep = JSON.parse(r.stdout) as Report;
  assert.deepEqual(rep.replicaSets.map((x) => [x.key, x.verdict.state, x.verdict.basis]), [['shop/web-7d9c6b8f5d', 'unknown', 'unknown']]);
  const f = rep.replicaSets[0]!.findings.find((x) => x.id === 'failed-writes')!;
  assert.deepEqual([f.basis, f.title], ['observed', '7 failed pod writes (FailedCreate / FailedDelete Events)']);
  assert.match(f.explanation, /exceeded quota: pods/);
  // The text form exits the same way.
  assert.equal(kexp(['replay', FIXTURE]).code, 5);
});

test('the same Events without the FailedCreate: exit 0 (successful writes are no failure)', () => {
  const f = write('events-ok.json', LIST.items.filter((e) => e.reason !== 'FailedCreate'));
  const r = kexp(['replay', f, '--output', 'json']);
  assert.equal(r.code, 0, r.stderr);
  const rep = JSON.parse(r.stdout) as Report;
  assert.deepEqual(rep.replicaSets[0]!.findings.map((x) => x.id), ['desired-changes', 'replicaset-not-in-input']);
});

test('FailedDelete Events alone: exit 5', () => {
  const del: Ev = {
    ...LIST.items[2]!, reason: 'FailedDelete', count: 2,
    message: 'Error deleting: admission webhook "pods.policy.example.com" denied the request: pod is protected',
    metadata: { ...(LIST.items[2]!.metadata as object), name: 'web-7d9c6b8f5d.17f0a1b2c3d40009' },
  };
  const r = kexp(['replay', write('events-faileddelete.json', [del]), '--output', 'json']);
  assert.equal(r.code, 5, r.stderr);
  const rs = (JSON.parse(r.stdout) as Report).replicaSets[0]!;
  assert.deepEqual(rs.rounds.map((x) => [x.kind, x.n, x.errors.length]), [['delete', 2, 1]]);
});

test('kubectl get events -w -o json (a stream, not a List) with a FailedCreate: exit 5', () => {
  const r = kexp(['replay', write('events-watch.json', LIST.items, true), '--output', 'json']);
  assert.equal(r.code, 5, r.stderr);
  assert.ok((JSON.parse(r.stdout) as Report).replicaSets[0]!.findings.some((x) => x.id === 'failed-writes' && x.basis === 'observed'));
});

test('a FailedCreate written by another component is not the ReplicaSet controller\'s failure: exit 0', () => {
  const other = LIST.items.map((e) => (e.reason === 'FailedCreate' ? { ...e, source: { component: 'some-operator' }, reportingComponent: 'some-operator' } : e));
  const r = kexp(['replay', write('events-other.json', other), '--output', 'json']);
  assert.equal(r.code, 0, r.stderr);
});
