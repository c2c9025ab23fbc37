/**
 * `kubectl cluster-info dump` to stdout: pretty-printed Lists one after another (NodeList,
 * EventList, …, ReplicaSetList, PodList per namespace) with container log blocks between
 * "==== START logs for container … ====" and "==== END logs …" lines. kexp reads the Lists as
 * one snapshot and skips each log block whole, with one note (not one problem per log line).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { replayFiles } from '../../src/pipeline/replay-files.js';
import { JsonValueScanner, type ScanItem } from '../../src/sources/watch/json-values.js';

const RS_UID = '6f3a9c1e-2b4d-4e8f-9a0b-1c2d3e4f5a6b';
const list = (kind: string, items: unknown[]) => JSON.stringify({ kind, apiVersion: 'v1', metadata: { resourceVersion: '1234' }, items }, null, 4);
const rs = {
  metadata: { name: 'coredns-6f6b679f8f', namespace: 'kube-system', uid: RS_UID, resourceVersion: '420', generation: 1, creationTimestamp: '2024-09-01T10:00:00Z', labels: { 'k8s-app': 'kube-dns', 'pod-template-hash': '6f6b679f8f' },
    ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'coredns', uid: 'dep-1', controller: true, blockOwnerDeletion: true }] },
  spec: { replicas: 1, selector: { matchLabels: { 'k8s-app': 'kube-dns', 'pod-template-hash': '6f6b679f8f' } }, template: { metadata: { labels: { 'k8s-app': 'kube-dns', 'pod-template-hash': '6f6b679f8f' } }, spec: { containers: [{ name: 'coredns', image: 'registry.k8s.io/coredns/coredns:v1.11.1' }] } } },
  status: { replicas: 1, fullyLabeledReplicas: 1, readyReplicas: 1, availableReplicas: 1, observedGeneration: 1 },
};
const pod = {
  metadata: { name: 'coredns-6f6b679f8f-abcde', generateName: 'coredns-6f6b679f8f-', namespace: 'kube-system', uid: 'pod-1', resourceVersion: '500', creationTimestamp: '2024-09-01T10:00:05Z', labels: { 'k8s-app': 'kube-dns', 'pod-template-hash': '6f6b679f8f' },
    ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'coredns-6f6b679f8f', uid: RS_UID, controller: true, blockOwnerDeletion: true }] },
  spec: { nodeName: 'minikube', containers: [{ name: 'coredns', image: 'registry.k8s.io/coredns/coredns:v1.11.1' }] },
  status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: '2024-09-01T10:00:20Z' }] },
};
const ev = (n: number, reason: string, message: string, t: string) => ({
  metadata: { name: `coredns-6f6b679f8f.17f0${n}`, namespace: 'kube-system', uid: `ev-${n}`, resourceVersion: String(600 + n) },
  involvedObject: { kind: 'ReplicaSet', namespace: 'kube-system', name: 'coredns-6f6b679f8f', uid: RS_UID, apiVersion: 'apps/v1', resourceVersion: '400' },
  reason, message, source: { component: 'replicaset-controller' }, firstTimestamp: t, lastTimestamp: t, count: 1, type: 'Normal',
});
const block = (container: string, pod: string, lines: string[]) =>
  [`==== START logs for container ${container} of pod ${pod} ====`, ...lines, `==== END logs for container ${container} of pod ${pod} ====`].join('\n');

const DUMP = [
  list('NodeList', [{ metadata: { name: 'minikube', uid: 'node-1', creationTimestamp: '2024-09-01T09:00:00Z' } }]),
  list('EventList', [
    ev(1, 'SuccessfulCreate', 'Created pod: coredns-6f6b679f8f-zz9xq', '2024-09-01T09:59:58Z'),
    ev(2, 'SuccessfulCreate', 'Created pod: coredns-6f6b679f8f-abcde', '2024-09-01T10:00:05Z'),
    ev(3, 'SuccessfulDelete', 'Deleted pod: coredns-6f6b679f8f-zz9xq', '2024-09-01T10:00:06Z'),
  ]),
  list('ReplicationControllerList', []),
  list('ServiceList', []),
  list('DaemonSetList', []),
  list('DeploymentList', []),
  list('ReplicaSetList', [rs]),
  list('PodList', [pod]),
  block('coredns', 'kube-system/coredns-6f6b679f8f-abcde', ['.:53', '[INFO] plugin/reload: Running configuration SHA512 = 591cf328', 'CoreDNS-1.11.1', '{"level":"info"}']),
  block('kube-controller-manager', 'kube-system/kube-controller-manager-minikube', ['I0901 10:00:05.123456       1 replica_set.go:676] "Too few replicas" replicaSet="kube-system/coredns-6f6b679f8f" need=1 creating=1']),
].join('\n') + '\n';

test('a cluster-info dump is one snapshot: its Lists are read, its log blocks skipped with one note, its Events become rounds', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'kexp-dump-'));
  const file = join(dir, 'cluster-info.dump');
  writeFileSync(file, DUMP);
  const res = await replayFiles({ files: [file] });
  assert.deepEqual(res.problems, [], 'no problem per log line');
  // The kube-controller-manager block is read as a controller log (src/sources/dump-log-blocks.ts).
  assert.ok(res.warnings.some((w) => /skipped 2 container log blocks of a cluster-info dump/.test(w) && /the kube-controller-manager log block \(lines \d+–\d+\) is read as a controller log/.test(w)), res.warnings.join('\n'));
  const r = res.report.replicaSets.find((x) => x.key === 'kube-system/coredns-6f6b679f8f')!;
  assert.ok(r);
  assert.equal(r.verdict.state, 'healthy');
  assert.equal(r.syncs.total, 0);
  assert.deepEqual(r.rounds.map((x) => [x.kind, x.n, x.basis]), [['create', 1, 'observed'], ['create', 1, 'observed'], ['delete', 1, 'observed']]);
  assert.deepEqual([r.accounting.writes, r.accounting.inRounds, r.accounting.byKind.create, r.accounting.byKind.delete], [3, 3, 2, 1]);
  assert.match(r.rounds[0]!.evidence, /cluster-info\.dump:\d+/);
});

test('the scanner finds the log markers whatever the chunk boundaries', () => {
  const whole = new JsonValueScanner().push(Buffer.from(DUMP));
  const kinds = (items: ScanItem[]) => items.map((i) => (i.kind === 'value' ? `value@${i.line}` : i.kind === 'log-block' ? `log@${i.line}-${i.endLine}` : `problem@${i.line}`));
  for (const size of [1, 7, 31, 64, 4096]) {
    const sc = new JsonValueScanner();
    const items: ScanItem[] = [];
    const buf = Buffer.from(DUMP);
    for (let i = 0; i < buf.length; i += size) sc.push(buf.subarray(i, i + size), items);
    sc.end(items);
    assert.deepEqual(kinds(items), kinds(whole), `chunks of ${size} bytes`);
  }
  assert.equal(whole.filter((i) => i.kind === 'log-block').length, 2);
  assert.equal(whole.filter((i) => i.kind === 'problem').length, 0);
});

test('a log block without its END line is closed by the next List or START line, as a problem (nothing after it is lost)', async () => {
  const cut = [
    list('NodeList', []),
    '==== START logs for container coredns of pod kube-system/coredns-6f6b679f8f-abcde ====',
    '.:53',
    '{"level":"info","msg":"one-line JSON log"}',
    list('ReplicaSetList', [rs]),
    '==== START logs for container etcd of pod kube-system/etcd-minikube ====',
    'etcd log line',
    '==== START logs for container kube-proxy of pod kube-system/kube-proxy-x ====',
    'proxy log line',
    '==== END logs for container kube-proxy of pod kube-system/kube-proxy-x ====',
    list('PodList', [pod]),
  ].join('\n') + '\n';
  const dir = mkdtempSync(join(tmpdir(), 'kexp-dump-'));
  const file = join(dir, 'cut.dump');
  writeFileSync(file, cut);
  const res = await replayFiles({ files: [file] });
  const lineOf = (text: string) => cut.split('\n').findIndex((l) => l.startsWith(text)) + 1;
  assert.deepEqual(res.problems.map((p) => `${p.line}: ${p.message.replace(/ \(.*?\)/, '')}`), [
    `${lineOf('==== START logs for container coredns')}: container log block has no "==== END logs" line; it is taken to end before line ${lineOf('==== START logs for container coredns') + 3}`,
    `${lineOf('==== START logs for container etcd')}: container log block has no "==== END logs" line; it is taken to end before line ${lineOf('==== START logs for container kube-proxy')}`,
  ]);
  const r = res.report.replicaSets.find((x) => x.key === 'kube-system/coredns-6f6b679f8f')!;
  assert.ok(r, 'the List after the unterminated block is read');
  assert.equal(r.counts.active.last, 1, 'and so is the PodList after the second one');
});
