/**
 * Snapshots are states, not histories: `kubectl get rs,pods,events -o json` (pretty or `jq -c`)
 * is one state at the snapshot time, its Events are evidence of earlier rounds, and a
 * ReplicaSet whose own status says every replica is ready is never failing.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { replayFiles } from '../../src/pipeline/replay-files.js';
import { exitCodeFor } from '../../src/cli/report-exit.js';
import { validateReport } from '../support/report-schema.js';

const dir = mkdtempSync(join(tmpdir(), 'kexp-snapshot-'));
const RS_UID = '5f0c2a8e-3b1d-4c7e-9a2f-6d8e1b4c7a90';

function rs(status: Record<string, number>, generation = 3) {
  return {
    apiVersion: 'apps/v1', kind: 'ReplicaSet',
    metadata: { name: 'web-7d9c6b8f5d', namespace: 'shop', uid: RS_UID, resourceVersion: '900', generation, creationTimestamp: '2026-11-30T09:58:41Z', labels: { app: 'web' },
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: 'dep-1', controller: true, blockOwnerDeletion: true }] },
    spec: { replicas: 3, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'app', image: 'nginx' }] } } },
    status: { observedGeneration: generation, ...status },
  };
}
const pod = (name: string, created: string) => ({
  apiVersion: 'v1', kind: 'Pod',
  metadata: { name, namespace: 'shop', uid: `uid-${name}`, resourceVersion: '800', creationTimestamp: created, labels: { app: 'web' },
    ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-7d9c6b8f5d', uid: RS_UID, controller: true, blockOwnerDeletion: true }] },
  spec: { nodeName: 'n1', containers: [{ name: 'app', image: 'nginx' }] },
  status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: created }] },
});
const event = (name: string, reason: string, message: string, count: number, first: string, last: string, type = 'Normal') => ({
  apiVersion: 'v1', kind: 'Event', metadata: { name, namespace: 'shop', uid: `uid-${name}`, resourceVersion: '700' },
  involvedObject: { kind: 'ReplicaSet', namespace: 'shop', name: 'web-7d9c6b8f5d', uid: RS_UID, apiVersion: 'apps/v1' },
  reason, message, type, count, firstTimestamp: first, lastTimestamp: last, source: { component: 'replicaset-controller' },
});

function list(items: unknown[]) {
  return { apiVersion: 'v1', kind: 'List', metadata: { resourceVersion: '' }, items };
}

async function run(name: string, body: unknown, compact = false) {
  const file = join(dir, name);
  writeFileSync(file, compact ? JSON.stringify(body) + '\n' : JSON.stringify(body, null, 4) + '\n');
  const res = await replayFiles({ files: [file] });
  assert.deepEqual(res.problems, []);
  assert.deepEqual(validateReport(res.report), []);
  return res.report;
}

const healthyItems = [
  rs({ replicas: 3, readyReplicas: 3, availableReplicas: 3, fullyLabeledReplicas: 3 }),
  pod('web-7d9c6b8f5d-a', '2026-11-30T10:01:00Z'), pod('web-7d9c6b8f5d-b', '2026-11-30T10:01:00Z'), pod('web-7d9c6b8f5d-c', '2026-11-30T10:02:10Z'),
  event('web.1', 'FailedCreate', 'Error creating: pods "web-7d9c6b8f5d-x" is forbidden: exceeded quota: q', 4, '2026-11-30T10:00:00Z', '2026-11-30T10:01:30Z', 'Warning'),
  event('web.2', 'SuccessfulCreate', 'Created pod: web-7d9c6b8f5d-c', 1, '2026-11-30T10:02:10Z', '2026-11-30T10:02:10Z'),
];

for (const compact of [false, true]) {
  test(`a List (${compact ? 'jq -c' : 'kubectl get -o json'}) is one state: no simulated rounds, Events are its rounds, a ready ReplicaSet is healthy`, async () => {
    const report = await run(`healthy${compact ? '-c' : ''}.json`, list(healthyItems), compact);
    const r = report.replicaSets[0]!;
    assert.equal(r.verdict.state, 'healthy');
    assert.equal(r.syncs.total, 0, 'nothing simulated');
    assert.equal(r.initialState.basis, 'unknown');
    assert.equal(report.coverage.start, '2026-11-30T10:02:10.000Z', 'the snapshot time is its newest timestamp');
    assert.deepEqual(r.rounds.map((x) => [x.kind, x.n, x.basis, x.writes, x.errors.length]), [['create', 4, 'observed', 4, 1], ['create', 1, 'observed', 1, 0]]);
    assert.deepEqual([r.accounting.writes, r.accounting.inRounds, r.accounting.failed], [5, 5, 4]);
    assert.ok(r.findings.some((f) => f.id === 'past-write-failures'));
    assert.ok(!r.findings.some((f) => f.id === 'failing-creates'));
    assert.equal(exitCodeFor(report, 0), 0);
  });
}

test('without pods in the snapshot, counts come from the ReplicaSet status, and ready = replicas is never failing', async () => {
  const report = await run('rs-only.json', list([rs({ replicas: 3, readyReplicas: 3, availableReplicas: 3 }), healthyItems[4], healthyItems[5]]));
  const r = report.replicaSets[0]!;
  assert.equal(r.verdict.state, 'healthy');
  assert.equal(r.counts.active.last, 3);
  assert.ok(r.findings.some((f) => f.id === 'pods-not-in-input' && f.basis === 'unknown'));
  assert.equal(exitCodeFor(report, 0), 0);
});

test('missing pods with a recent FailedCreate in the snapshot: failing, with the Event as evidence', async () => {
  const report = await run('failing.json', list([
    rs({ replicas: 1, readyReplicas: 1 }),
    pod('web-7d9c6b8f5d-a', '2026-11-30T10:01:00Z'),
    event('web.1', 'FailedCreate', 'Error creating: pods "web-7d9c6b8f5d-x" is forbidden: exceeded quota: q', 7, '2026-11-30T10:00:00Z', '2026-11-30T10:05:00Z', 'Warning'),
  ]));
  const r = report.replicaSets[0]!;
  assert.equal(r.verdict.state, 'failing');
  const f = r.findings.find((x) => x.id === 'failing-creates')!;
  assert.ok(f);
  assert.match(f.evidence.join(), /failing\.json:\d+/);
  assert.equal(exitCodeFor(report, 0), 5);
});
