/**
 * DaemonSets from kube-apiserver audit logs: the audit source turns daemonsets and nodes write
 * bodies into observations (kubelet heartbeats that change neither labels nor taints folded
 * away), the DaemonSet controller's pod writes carry their owner, its Events reach the DaemonSet
 * view, and `kexp audit` (spawned) reports the DaemonSet with its rounds. The logs are written by
 * test/support/daemonset-audit.ts in the shape of examples/captures/<name>/audit.jsonl.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { kexp } from '../support/cli.js';
import { openAuditSource } from '../../src/sources/audit/audit-source.js';
import type { TimelineEvent } from '../../src/timeline/event.js';
import { daemonPod, daemonSet, dsEvent, node, T0 } from '../support/daemonset-recording.js';
import { changed } from '../model/daemonset/daemonset-harness.js';
import { auditLog, dsStatus, eventCreate, nodeCreate, nodeHeartbeat, podCreate, type AuditLine } from '../support/daemonset-audit.js';

const S = 1000;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kexp-ds-audit-'));
const hb = (ms: number) => new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z');

function status(desired: number, current: number, observedGeneration: number) {
  return { desiredNumberScheduled: desired, currentNumberScheduled: current, numberMisscheduled: 0, numberReady: 0, updatedNumberScheduled: current, numberAvailable: 0, numberUnavailable: desired, observedGeneration };
}

/**
 * Two nodes heartbeat (n1 twice, unchanged), a person creates DaemonSet kube-system/agent, the
 * controller creates a pod on each node and writes its status; a third node registers a minute
 * later and gets its pod.
 */
function scenario(): { text: string; pods: string[] } {
  const [n1, n2, n3] = ['n1', 'n2', 'n3'].map((n) => node(n, { 'kubernetes.io/os': 'linux' }));
  const ds = daemonSet();
  const created = changed(ds, () => {});
  const p1 = daemonPod(ds, 'n1', { at: T0 + 5 * S, name: 'agent-q7x2k' });
  const p2 = daemonPod(ds, 'n2', { at: T0 + 5 * S, name: 'agent-m4v9d' });
  const p3 = daemonPod(ds, 'n3', { at: T0 + 60 * S, name: 'agent-z8c4w' });
  const lines: AuditLine[] = [
    nodeHeartbeat(T0, n1!, hb(T0)),
    nodeHeartbeat(T0 + 100, n2!, hb(T0)),
    nodeHeartbeat(T0 + 2 * S, changed(n1!, () => {}), hb(T0 + 2 * S)),
    { at: T0 + 5 * S - 100, actor: 'person', verb: 'create', resource: 'daemonsets', namespace: 'kube-system', requestObject: ds, responseObject: created },
    podCreate(T0 + 5 * S, p1),
    eventCreate(T0 + 5 * S + 10, dsEvent(ds, T0 + 5 * S, 'SuccessfulCreate', `Created pod: ${p1.metadata.name}`)),
    podCreate(T0 + 5 * S + 30, p2),
    eventCreate(T0 + 5 * S + 40, dsEvent(ds, T0 + 5 * S, 'SuccessfulCreate', `Created pod: ${p2.metadata.name}`)),
    dsStatus(T0 + 5 * S + 80, changed(created, (d) => { d.status = status(2, 2, 1); })),
    nodeHeartbeat(T0 + 12 * S, changed(n2!, () => {}), hb(T0 + 12 * S)),
    nodeCreate(T0 + 60 * S, n3!),
    podCreate(T0 + 60 * S + 30, p3),
    eventCreate(T0 + 60 * S + 40, dsEvent(ds, T0 + 60 * S, 'SuccessfulCreate', `Created pod: ${p3.metadata.name}`)),
    dsStatus(T0 + 60 * S + 80, changed(created, (d) => { d.status = status(3, 3, 1); })),
  ];
  return { text: auditLog(lines), pods: [p1, p2, p3].map((p) => p.metadata.name!) };
}

test('the audit source: DaemonSet and Node states from write bodies, a heartbeat that changes neither labels nor taints folded, the daemon pods\' writes owned by the DaemonSet, its Events kept', async () => {
  const file = path.join(dir, 'source.jsonl');
  const { text } = scenario();
  fs.writeFileSync(file, text);
  const src = await openAuditSource(file, { diagnostics: { problem: (p) => assert.fail(`${p.file}:${p.line}: ${p.message}`), warn: () => undefined } });
  const events: TimelineEvent[] = [];
  for await (const e of src.events) events.push(e);
  const observed = events.filter((e) => e.type === 'observed').map((e) => e.type === 'observed' ? `${e.kind} ${e.watchType} ${(e.object as { metadata: { name?: string } }).metadata.name}` : '');
  assert.deepEqual(observed, [
    'Node MODIFIED n1', 'Node MODIFIED n2',
    'DaemonSet ADDED agent',
    'Pod ADDED agent-q7x2k', 'Event ADDED agent.1', 'Pod ADDED agent-m4v9d', 'Event ADDED agent.2',
    'DaemonSet MODIFIED agent',
    'Node ADDED n3',
    'Pod ADDED agent-z8c4w', 'Event ADDED agent.3',
    'DaemonSet MODIFIED agent',
  ]);
  // A Node is passed on as what the DaemonSet controller reads: no status.
  const n1 = events.find((e) => e.type === 'observed' && e.kind === 'Node');
  assert.ok(n1 && n1.type === 'observed');
  assert.deepEqual(Object.keys(n1.object as object).sort(), ['apiVersion', 'kind', 'metadata', 'spec']);
  assert.deepEqual((n1.object as { metadata: { labels?: unknown } }).metadata.labels, { 'kubernetes.io/os': 'linux' });
  // Node writes are states only: no write event; the daemon pods' creates carry their owner.
  const writes = events.filter((e) => e.type === 'write');
  assert.equal(writes.filter((w) => w.type === 'write' && w.resource === 'nodes').length, 0);
  const podCreates = writes.filter((w) => w.type === 'write' && w.resource === 'pods');
  assert.equal(podCreates.length, 3);
  for (const w of podCreates) {
    assert.ok(w.type === 'write');
    assert.equal(w.actor?.controller, 'daemon-set-controller');
    assert.deepEqual(w.owner && { state: w.owner.state, kind: w.owner.state === 'owned' ? w.owner.kind : undefined }, { state: 'owned', kind: 'DaemonSet' });
  }
  const summary = src.summary();
  assert.equal(summary.nodeWritesFolded, 2, 'the unchanged heartbeats of n1 and n2');
  assert.equal(summary.lineAccount.relevant, 14, 'every line read');
});

test('kexp audit of a DaemonSet scenario: the DaemonSet report with its two create rounds (the first nodes, then the node that registered), healthy, exit 0', () => {
  const file = path.join(dir, 'audit.jsonl');
  const { text, pods } = scenario();
  fs.writeFileSync(file, text);
  const r = kexp(['audit', file, '-o', 'json']);
  assert.equal(r.code, 0, r.stderr);
  const report = JSON.parse(r.stdout) as { replicaSets: Array<{ kind?: string; key: string; verdict: { state: string }; rounds: Array<{ kind: string; n: number; successes: number; keys?: string[] }>; counts: { desired: { last: number } } }> };
  assert.equal(report.replicaSets.length, 1, 'no ReplicaSet report for the daemon pods');
  const ds = report.replicaSets[0]!;
  assert.equal(ds.kind, 'DaemonSet');
  assert.equal(ds.key, 'kube-system/agent');
  assert.equal(ds.verdict.state, 'healthy');
  assert.deepEqual(ds.rounds.map((x) => [x.kind, x.n, x.successes]), [['create', 2, 2], ['create', 1, 1]]);
  assert.equal(ds.counts.desired.last, 3, 'the desired count the controller last wrote');
  const table = kexp(['audit', file]);
  assert.equal(table.code, 0, table.stderr);
  assert.match(table.stdout, /^kube-system\/agent\s+healthy\s+0\s+0\s+0\s/m);
  assert.equal(table.stderr, '', 'nothing to warn about');
  const one = kexp(['audit', file, '--rs', 'kube-system/agent', '-o', 'json']);
  const adoption = (JSON.parse(one.stdout) as { replicaSets: Array<{ adoption: { rows: Array<{ pod: string }> } }> }).replicaSets[0]!.adoption.rows.map((x) => x.pod).sort();
  assert.deepEqual(adoption, pods.map((p) => `kube-system/${p}`).sort(), 'the pods the DaemonSet controller created, by their audit bodies');
});
