/**
 * Directories as inputs, as a user runs them: `kexp replay DIR` on a `kubectl cluster-info dump
 * --output-directory` tree and on a must-gather tree (test/fixtures/dumps), `kexp audit DIR` on
 * the must-gather; a dump cut in the middle of a List; an empty directory; an Events-only file
 * and a dump pasted into markdown notes.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { kexp } from '../support/cli.js';
import type { Report } from '../../src/analysis/report-types.js';

const FX = path.resolve(new URL('../fixtures/dumps', import.meta.url).pathname);
const CID = path.join(FX, 'cluster-info');
const MG = path.join(FX, 'must-gather');
const MG_ROOT = path.join(MG, 'must-gather.local.5081914223462139283', 'quay-io-openshift-release-dev-ocp-v4-0-art-dev-sha256-8f1d2c');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kexp-dumps-'));

function noStack(s: string): void {
  assert.doesNotMatch(s, /\n\s+at .+\(.+:\d+:\d+\)/, 'no stack trace');
}
function lines(s: string): string[] {
  return s.split('\n').filter((l) => l !== '');
}

test('replay on a cluster-info dump directory: its Lists are one snapshot, Events are rounds, the KCM log is fused, skipped files are one line', () => {
  const r = kexp(['replay', CID, '--output', 'json']);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(lines(r.stderr), [`warning: ${CID} (kubectl cluster-info dump): read 9 List files, 1 kube-controller-manager log; skipped 11 files: 6 other kinds, 5 other logs`]);
  const rep = JSON.parse(r.stdout) as Report;
  assert.deepEqual(rep.replicaSets.map((x) => [x.key, x.verdict.state]), [['default/web-5c8f7b9d6', 'healthy'], ['kube-system/coredns-6f6b679f8f', 'healthy']]);
  const dns = rep.replicaSets[1]!;
  // The realdata case of issue #12: SuccessfulCreate ×2 and SuccessfulDelete ×1 are reported.
  assert.deepEqual(dns.rounds.map((x) => [x.kind, x.n, x.basis, x.at]), [
    ['create', 1, 'observed', '2024-09-01T09:59:02.000Z'],
    ['create', 1, 'observed', '2024-09-01T09:59:02.000Z'],
    ['delete', 1, 'observed', '2024-09-01T09:59:20.000Z'],
  ]);
  assert.deepEqual([dns.accounting.writes, dns.accounting.byKind.create, dns.accounting.byKind.delete], [3, 2, 1]);
  assert.match(dns.rounds[2]!.evidence, /kube-system\/events\.json:\d+$/);
  assert.deepEqual(dns.counts.desired, { first: 2, last: 1, min: 1, max: 2 }, 'ScalingReplicaSet "to 1 from 2"');
  const web = rep.replicaSets[0]!;
  assert.deepEqual(web.counts.desired, { first: 1, last: 3, min: 1, max: 3 }, '"to 1", then "to 3 from 1"');
  const dc = web.findings.find((f) => f.id === 'desired-changes')!;
  assert.equal(dc.basis, 'observed');
  assert.match(dc.title, /Desired count changed 2 times by Deployment web: →1 at 2024-09-01T10:01:00.000Z, 1→3 at 2024-09-01T10:02:10.000Z/);
  // The kube-controller-manager container log is fused as --kcm-log would be.
  const logFile = path.join(CID, 'kube-system', 'kube-controller-manager-minikube', 'logs.txt');
  const input = rep.inputs.find((i) => i.file === logFile)!;
  assert.ok(input, rep.inputs.map((i) => i.file).join(', '));
  assert.deepEqual([input.format, input.problems, input.start, input.end], ['kcm-log', 0, '2024-09-01T09:58:50.100Z', '2024-09-01T10:02:11.010Z']);
  assert.deepEqual(dns.controllerLog?.files, [logFile]);
  // nodes.json and the two (empty) daemonsets.json are read too: the one node is named, not analysed.
  assert.equal(rep.inputs.filter((i) => i.format === 'list').length, 9);
  assert.ok(rep.coverage.assumptions.includes('1 node(s) in the snapshot, not analysed: a DaemonSet\'s controller decides from the nodes at each sync, and what it decided shows only in a history — replay a recording, a watch dump or an audit log of it (kexp replay, kexp audit).'), rep.coverage.assumptions.join('\n'));
});

test('replay on a must-gather tree: YAML Lists, the Namespace, the KCM container log; audit logs named with the command that reads them', () => {
  const r = kexp(['replay', MG, '--output', 'json']);
  assert.equal(r.code, 5, r.stderr); // failing
  assert.deepEqual(lines(r.stderr), [
    `warning: ${MG} (must-gather): read 8 List files, 1 kube-controller-manager log; skipped 16 files: 3 other kinds, 4 other logs, 3 per-pod copies of listed pods, 3 empty, 3 other files`,
    `warning: ${MG}: 1 kube-apiserver audit log(s) found (not read by replay): analyse them with \`kexp audit ${MG}\``,
  ]);
  const rep = JSON.parse(r.stdout) as Report;
  assert.deepEqual(rep.replicaSets.map((x) => x.key), ['shop/web-7d9c6b8f5d']);
  const web = rep.replicaSets[0]!;
  assert.deepEqual([web.verdict.state, web.verdict.basis], ['failing', 'observed']);
  assert.match(web.verdict.summary, /2\/4 active.*exceeded quota: pods/);
  assert.deepEqual(web.rounds.map((x) => [x.kind, x.n, x.basis, x.errors.length]), [['create', 1, 'observed', 0], ['create', 1, 'observed', 0], ['create', 3, 'observed', 1]]);
  assert.deepEqual(web.counts.desired, { first: 2, last: 4, min: 2, max: 4 });
  const kcm = path.join(MG_ROOT, 'namespaces', 'openshift-kube-controller-manager', 'pods', 'kube-controller-manager-master-0', 'kube-controller-manager', 'kube-controller-manager', 'logs', 'current.log');
  assert.deepEqual(web.controllerLog?.files, [kcm]);
  assert.ok(rep.inputs.some((i) => i.file === path.join(MG_ROOT, 'namespaces', 'shop', 'apps', 'replicasets.yaml') && i.events === 1));
  assert.ok(!rep.inputs.some((i) => /cluster-policy-controller|previous\.log|audit_logs/.test(i.file)), 'other containers, empty logs and audit logs are not read');
});

test('audit on a must-gather tree reads its kube-apiserver audit logs and fuses the KCM log', () => {
  const r = kexp(['audit', MG, '--output', 'json']);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(lines(r.stderr), [
    `warning: ${MG} (must-gather): read 1 kube-controller-manager log, 1 kube-apiserver audit log; skipped 16 files: 3 other kinds, 4 other logs, 3 per-pod copies of listed pods, 3 empty, 3 other files; its 8 List file(s) are read by \`kexp replay ${MG}\``,
  ]);
  const rep = JSON.parse(r.stdout) as Report;
  const files = rep.inputs.map((i) => [path.relative(MG_ROOT, i.file), i.format, i.events]);
  assert.deepEqual(files, [
    ['audit_logs/kube-apiserver/master-0-audit-2024-09-01T10-15-00.000.log.gz', 'audit:audit-log', 4],
    ['namespaces/openshift-kube-controller-manager/pods/kube-controller-manager-master-0/kube-controller-manager/kube-controller-manager/logs/current.log', 'kcm-log', 5],
  ]);
});

test('audit on a directory without audit logs: one line naming what it looked for, exit 6', () => {
  const r = kexp(['audit', CID]);
  assert.equal(r.code, 6);
  assert.deepEqual(lines(r.stderr), [`kexp: ${CID}: no audit logs: looked for kube-apiserver audit logs (audit_logs/kube-apiserver/*.log of a must-gather, audit*.log) and kube-controller-manager logs; it holds 9 List file(s): read them with \`kexp replay ${CID}\``]);
});

test('a dump cut in the middle of a List: the items before the cut are used, one problem line, exit 6', () => {
  const dir = path.join(tmp, 'cut');
  fs.cpSync(CID, dir, { recursive: true });
  const pods = path.join(dir, 'default', 'pods.json');
  const text = fs.readFileSync(pods, 'utf8');
  // Cut inside the third pod (kubectl killed while writing).
  const third = text.indexOf('"name": "web-5c8f7b9d6-x7k2p"');
  fs.writeFileSync(pods, text.slice(0, third + 10));
  const thirdLine = text.slice(0, text.lastIndexOf('{', third)).split('\n').length;
  const r = kexp(['replay', dir, '--output', 'json']);
  assert.equal(r.code, 6);
  noStack(r.stderr);
  const problems = lines(r.stderr).filter((l) => !l.startsWith('warning: '));
  assert.deepEqual(problems, [
    `${pods}:${thirdLine - 1}: truncated value at end of input (no closing brace; recording interrupted?)`,
    'kexp: 1 input problem(s); exit code 6',
  ]);
  const web = (JSON.parse(r.stdout) as Report).replicaSets.find((x) => x.key === 'default/web-5c8f7b9d6')!;
  assert.equal(web.counts.active.last, 2, 'the two pods before the cut');
});

test('an empty directory: one line naming what kexp looked for, exit 6', () => {
  const dir = fs.mkdtempSync(path.join(tmp, 'empty-'));
  const r = kexp(['replay', dir]);
  assert.equal(r.code, 6);
  assert.equal(r.stdout, '');
  assert.deepEqual(lines(r.stderr), [
    `kexp: ${dir}: nothing kexp can use: looked for ReplicaSet, Pod, Event, Namespace, DaemonSet, Job and Node Lists (<ns>/replicasets.json of a cluster-info dump, namespaces/<ns>/apps/replicasets.yaml and core/{pods,events}.yaml of a must-gather, or any List of those kinds) and kube-controller-manager container logs; the directory is empty`,
  ]);
});

test('a directory of other files only: the one line counts them', () => {
  const dir = fs.mkdtempSync(path.join(tmp, 'other-'));
  fs.writeFileSync(path.join(dir, 'services.json'), JSON.stringify({ kind: 'ServiceList', apiVersion: 'v1', items: [] }));
  fs.writeFileSync(path.join(dir, 'notes.txt'), 'nothing\n');
  const r = kexp(['replay', dir]);
  assert.equal(r.code, 6);
  assert.match(r.stderr, /nothing kexp can use: looked for .*; skipped 2 files: 1 other kinds, 1 other logs\n$/);
});

const EVENTS = {
  apiVersion: 'v1', kind: 'List', metadata: { resourceVersion: '' },
  items: [
    { apiVersion: 'v1', kind: 'Event', metadata: { name: 'web.17f00', namespace: 'shop', uid: 'e0' }, involvedObject: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', namespace: 'shop', uid: 'd1' },
      reason: 'ScalingReplicaSet', message: 'Scaled up replica set web-7d9 from 2 to 5', source: { component: 'deployment-controller' }, firstTimestamp: '2024-09-01T10:00:04Z', lastTimestamp: '2024-09-01T10:00:04Z', count: 1, type: 'Normal' },
    { apiVersion: 'v1', kind: 'Event', metadata: { name: 'web-7d9.17f01', namespace: 'shop', uid: 'e1' }, involvedObject: { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-7d9', namespace: 'shop', uid: 'u1' },
      reason: 'SuccessfulCreate', message: 'Created pod: web-7d9-abcde', source: { component: 'replicaset-controller' }, firstTimestamp: '2024-09-01T10:00:05Z', lastTimestamp: '2024-09-01T10:00:05Z', count: 1, type: 'Normal' },
    { apiVersion: 'v1', kind: 'Event', metadata: { name: 'web-7d9.17f02', namespace: 'shop', uid: 'e2' }, involvedObject: { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-7d9', namespace: 'shop', uid: 'u1' },
      reason: 'FailedCreate', message: 'Error creating: pods "web-7d9-zz" is forbidden: exceeded quota: pods', source: { component: 'replicaset-controller' }, firstTimestamp: '2024-09-01T10:00:05Z', lastTimestamp: '2024-09-01T10:00:35Z', count: 2, type: 'Warning' },
  ],
};

test('kubectl get events -A -o json alone: per-ReplicaSet rounds (observed), desired 2→5, state unknown', () => {
  const f = path.join(tmp, 'events.json');
  fs.writeFileSync(f, JSON.stringify(EVENTS, null, 4));
  const r = kexp(['replay', f, '--output', 'json']);
  assert.equal(r.code, 5, r.stderr); // its FailedCreate Events are observed failed creates (src/cli/report-exit.ts)
  const rep = JSON.parse(r.stdout) as Report;
  assert.deepEqual(rep.replicaSets.map((x) => x.key), ['shop/web-7d9']);
  const rs = rep.replicaSets[0]!;
  assert.deepEqual([rs.verdict.state, rs.verdict.basis], ['unknown', 'unknown']);
  assert.match(rs.verdict.summary, /known only from Events: 3 creates, 0 deletes \(2 failed\), desired 2→5; its state .* is not in the input/);
  assert.deepEqual(rs.rounds.map((x) => [x.kind, x.n, x.basis, x.successes, x.skipped]), [['create', 1, 'observed', 1, 0], ['create', 2, 'observed', 0, 2]]);
  assert.deepEqual(rs.counts.desired, { first: 2, last: 5, min: 2, max: 5 });
  assert.deepEqual(rs.owner, { kind: 'Deployment', name: 'web', uid: 'd1' });
  assert.deepEqual(rs.findings.map((x) => x.id), ['failed-writes', 'desired-changes', 'replicaset-not-in-input']);
  assert.ok(rep.coverage.assumptions.some((a) => /1 ReplicaSet\(s\) known only from Events \(shop\/web-7d9\)/.test(a)));
});

test('a dump pasted into markdown notes: the text around the JSON is one summary line, not a problem per line', () => {
  const json = JSON.stringify(EVENTS, null, 2);
  const md = ['# Incident 4711', '', 'Output of `kubectl get events -A -o json`:', '', '```json', json, '```', '', '- web stuck at 1/5', '- quota?', ''].join('\n');
  const f = path.join(tmp, 'notes.md');
  fs.writeFileSync(f, md);
  const r = kexp(['replay', f, '--output', 'json']);
  assert.equal(r.code, 5, r.stderr); // the FailedCreate Event
  const jsonEnd = 5 + json.split('\n').length;
  assert.deepEqual(lines(r.stderr), [`warning: ${f}: skipped 9 lines of text around the JSON (markdown, console output) in 2 regions: lines 1–5, ${jsonEnd + 1}–${jsonEnd + 4}`]);
  assert.equal((JSON.parse(r.stdout) as Report).replicaSets[0]!.rounds.length, 2);
});

test('kubectl get events -w -o json alone: the newest version of each Event counts (an aggregated count of 3 is 3 writes)', () => {
  const [scale, create] = [EVENTS.items[0]!, EVENTS.items[1]!];
  const again = { ...create, count: 3, lastTimestamp: '2024-09-01T10:00:09Z', message: 'Created pod: web-7d9-abcde', metadata: { ...create.metadata, resourceVersion: '2' } };
  const f = path.join(tmp, 'events-watch.json');
  fs.writeFileSync(f, [scale, { ...create, metadata: { ...create.metadata, resourceVersion: '1' } }, again].map((e) => JSON.stringify(e, null, 4)).join('\n') + '\n');
  const r = kexp(['replay', f, '--output', 'json']);
  assert.equal(r.code, 0, r.stderr);
  const rep = JSON.parse(r.stdout) as Report;
  assert.deepEqual(rep.replicaSets.map((x) => [x.key, x.verdict.state]), [['shop/web-7d9', 'unknown']]);
  const rs = rep.replicaSets[0]!;
  assert.deepEqual(rs.rounds.map((x) => [x.kind, x.n, x.basis, x.at]), [['create', 3, 'observed', '2024-09-01T10:00:09.000Z']]);
  assert.match(rs.rounds[0]!.evidence, /events-watch\.json:\d+$/);
  assert.deepEqual(rs.counts.desired, { first: 2, last: 5, min: 2, max: 5 });
});
