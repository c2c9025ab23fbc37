/**
 * `kubectl cluster-info dump` printed to stdout (one file): the kube-controller-manager
 * container log between its "==== START/END logs …" lines is read as a controller log and
 * fused, as the directory form's logs.txt is. Checked on the same dump in both forms (the
 * stdout form is test/fixtures/dumps/cluster-info concatenated in kubectl's print order) and on
 * a small dump whose -v=4 log shows a leak the Lists cannot.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { kexp } from '../support/cli.js';
import { kcmLogBlocks } from '../../src/sources/dump-log-blocks.js';
import type { Report } from '../../src/analysis/report-types.js';

const CID = path.resolve(new URL('../fixtures/dumps/cluster-info', import.meta.url).pathname);
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kexp-dump-stdout-'));
const lines = (s: string) => s.split('\n').filter((l) => l !== '');

/** kubectl's stdout order: nodes, then per namespace its Lists, then each pod's container logs. */
function stdoutDump(): string {
  const parts = [fs.readFileSync(path.join(CID, 'nodes.json'), 'utf8')];
  for (const ns of ['kube-system', 'default']) {
    for (const r of ['events', 'replication-controllers', 'services', 'daemonsets', 'deployments', 'replicasets', 'pods']) parts.push(fs.readFileSync(path.join(CID, ns, `${r}.json`), 'utf8'));
    const pods = JSON.parse(fs.readFileSync(path.join(CID, ns, 'pods.json'), 'utf8')) as { items: Array<{ metadata: { name: string } }> };
    for (const p of pods.items) {
      const f = path.join(CID, ns, p.metadata.name, 'logs.txt');
      if (fs.existsSync(f)) parts.push(fs.readFileSync(f, 'utf8'));
    }
  }
  return parts.map((p) => (p.endsWith('\n') ? p : `${p}\n`)).join('');
}

test('the stdout form of a cluster-info dump: its KCM log block is fused exactly as the directory form\'s logs.txt', async () => {
  const text = stdoutDump();
  const f = path.join(tmp, 'cluster-info.dump');
  fs.writeFileSync(f, text);
  const all = text.split('\n');
  const start = all.findIndex((l) => l.startsWith('==== START logs for container kube-controller-manager of pod kube-system/kube-controller-manager-minikube')) + 1;
  const end = all.findIndex((l) => l.startsWith('==== END logs for container kube-controller-manager')) + 1;
  assert.ok(start > 0 && end > start);
  assert.deepEqual(await kcmLogBlocks(f), [{ file: f, from: start + 1, to: end - 1, pod: 'kube-system/kube-controller-manager-minikube' }]);

  const r = kexp(['replay', f, '--output', 'json']);
  assert.equal(r.code, 0, r.stderr);
  const first = all.findIndex((l) => l.startsWith('==== START logs')) + 1;
  assert.deepEqual(lines(r.stderr), [
    `warning: ${f}: skipped 2 objects of kinds kexp does not model: Deployment (2)`,
    `warning: ${f}: skipped 6 container log blocks of a cluster-info dump (lines ${first}–${all.length - 1}); the kube-controller-manager log block (lines ${start}–${end}) is read as a controller log`,
  ]);
  const rep = JSON.parse(r.stdout) as Report;
  const name = `${f}:${start + 1}-${end - 1}`;
  const kcm = rep.inputs.find((i) => i.format === 'kcm-log')!;
  const dir = JSON.parse(kexp(['replay', CID, '--output', 'json']).stdout) as Report;
  const dirKcm = dir.inputs.find((i) => i.format === 'kcm-log')!;
  assert.deepEqual([kcm.file, kcm.start, kcm.end, kcm.events, kcm.problems], [name, dirKcm.start, dirKcm.end, dirKcm.events, 0]);
  assert.deepEqual([kcm.start, kcm.end], ['2024-09-01T09:58:50.100Z', '2024-09-01T10:02:11.010Z']);
  assert.ok(rep.coverage.timeBasis.some((b) => b.startsWith(`${name}: klog lines carry no year; took 2024 from the snapshot's time range`)), rep.coverage.timeBasis.join('\n'));
  // Same ReplicaSets, verdicts, rounds, counts and fused controller log in both forms.
  const shape = (x: Report) => x.replicaSets.map((rs) => ({
    key: rs.key, verdict: rs.verdict.state, desired: rs.counts.desired, rounds: rs.rounds.map((o) => [o.kind, o.n, o.basis, o.at]),
    log: rs.controllerLog && { ...rs.controllerLog, files: rs.controllerLog.files.length },
  }));
  assert.deepEqual(shape(rep), shape(dir));
  assert.deepEqual(rep.replicaSets.find((x) => x.key === 'kube-system/coredns-6f6b679f8f')!.controllerLog?.files, [name]);
});

const RS_UID = '3f1c9a2e-7d4b-4e21-9c0a-5b8d6e2f1a47';
const list = (kind: string, items: unknown[]) => JSON.stringify({ kind, apiVersion: 'v1', metadata: { resourceVersion: '9001' }, items }, null, 4);
const labels = { app: 'web', 'pod-template-hash': '6d5f8b7c9' };
const rs = {
  metadata: { name: 'web-6d5f8b7c9', namespace: 'shop', uid: RS_UID, resourceVersion: '8800', generation: 2, creationTimestamp: '2025-03-04T09:00:00Z', labels },
  spec: { replicas: 3, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] } } },
  status: { replicas: 2, fullyLabeledReplicas: 2, readyReplicas: 2, availableReplicas: 2, observedGeneration: 2 },
};
const pod = (n: string) => ({
  metadata: { name: `web-6d5f8b7c9-${n}`, generateName: 'web-6d5f8b7c9-', namespace: 'shop', uid: `pod-${n}`, resourceVersion: '8810', creationTimestamp: '2025-03-04T09:00:05Z', labels,
    ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-6d5f8b7c9', uid: RS_UID, controller: true, blockOwnerDeletion: true }] },
  spec: { nodeName: 'node-1', containers: [{ name: 'web', image: 'nginx:1.27' }] },
  status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: '2025-03-04T09:00:09Z' }] },
});
const K = 'shop/web-6d5f8b7c9';
const KCM = [
  `I0304 10:00:00.000100       1 replica_set.go:285] "Starting controller" logger="replicaset-controller" name="replicaset"`,
  `I0304 10:01:00.100000       1 controller_utils.go:215] "Controller either never recorded expectations, or the ttl expired" logger="replicaset-controller" controller="${K}"`,
  `I0304 10:01:00.100050       1 controller_utils.go:232] "Setting expectations" logger="replicaset-controller" expectations={add:1 del:0 key:${K}}`,
  `I0304 10:01:00.100080       1 replica_set.go:668] "Too few replicas" logger="replicaset-controller" replicaSet="${K}" need=3 creating=1`,
  `I0304 10:01:00.100500       1 controller_utils.go:613] "Controller created pod" logger="replicaset-controller" controller="web-6d5f8b7c9" pod="shop/web-6d5f8b7c9-zz9q1"`,
  `I0304 10:01:00.101000       1 replica_set.go:759] "Finished syncing" logger="replicaset-controller" kind="ReplicaSet" key="${K}" duration="900µs"`,
  `I0304 10:03:00.000000       1 controller_utils.go:204] "Controller still waiting on expectations" logger="replicaset-controller" expectations={add:1 del:0 key:${K}}`,
  `I0304 10:03:00.000100       1 replica_set.go:759] "Finished syncing" logger="replicaset-controller" kind="ReplicaSet" key="${K}" duration="100µs"`,
  `I0304 10:06:01.000000       1 controller_utils.go:200] "Controller expectations expired" logger="replicaset-controller" expectations={add:1 del:0 key:${K}}`,
  `I0304 10:06:01.000100       1 replica_set.go:759] "Finished syncing" logger="replicaset-controller" kind="ReplicaSet" key="${K}" duration="100µs"`,
];
const block = (c: string, p: string, body: string[]) => [`==== START logs for container ${c} of pod ${p} ====`, ...body, `==== END logs for container ${c} of pod ${p} ====`];
const SMALL = [
  list('NodeList', []),
  list('EventList', []),
  list('ReplicaSetList', [rs]),
  list('PodList', [pod('a1b2c'), pod('d3e4f')]),
  ...block('etcd', 'kube-system/etcd-node-1', ['{"level":"info","msg":"ready to serve client requests"}']),
  ...block('kube-controller-manager', 'kube-system/kube-controller-manager-node-1', KCM),
].join('\n') + '\n';

test('a small stdout dump whose -v=4 KCM log shows a leak: the log\'s window is reported, its evidence in the dump\'s own lines', () => {
  const f = path.join(tmp, 'small.dump');
  fs.writeFileSync(f, SMALL);
  const all = SMALL.split('\n');
  const from = all.findIndex((l) => l.startsWith('==== START logs for container kube-controller-manager')) + 2;
  const r = kexp(['replay', f, '--output', 'json']);
  const rep = JSON.parse(r.stdout) as Report;
  const web = rep.replicaSets.find((x) => x.key === K)!;
  const g = web.findings.find((x) => x.id === 'controller-log-gated')!;
  assert.ok(g, web.findings.map((x) => x.id).join());
  assert.deepEqual([g.severity, g.basis, g.at], ['warning', 'observed', '2025-03-04T10:01:00.100Z']);
  assert.match(g.explanation, /1 creation\(s\) and 0 deletion\(s\) were never observed/);
  assert.deepEqual(g.evidence, [`${f}:${from + 2}`, `${f}:${from + 8}`], 'the dump file\'s line numbers');
  assert.deepEqual(web.controllerLog?.files, [`${f}:${from}-${from + KCM.length - 1}`]);
  assert.equal(rep.inputs.find((i) => i.format === 'kcm-log')!.events, KCM.length);
});

test('the block is not read when it cannot be: from stdin (read once) and with a forced --format; the note says how to read it', () => {
  const s = kexp(['replay', '-', '--output', 'json'], { input: SMALL });
  assert.ok(!(JSON.parse(s.stdout) as Report).inputs.some((i) => i.format === 'kcm-log'));
  assert.match(s.stderr, /of kube-controller-manager \(kube-controller-manager of pod kube-system\/kube-controller-manager-node-1\): its lines are a controller log \(stdin is read once: give the dump as a file to have it read too\) — `sed -n '\d+,\d+p' - > kcm\.log`/);
  const f = path.join(tmp, 'forced.dump');
  fs.writeFileSync(f, SMALL);
  const forced = kexp(['replay', f, '--format', 'list', '--output', 'json']);
  assert.ok(!(JSON.parse(forced.stdout) as Report).inputs.some((i) => i.format === 'kcm-log'));
  assert.match(forced.stderr, /its lines are a controller log — `sed -n/);
});

test('kcmLogBlocks: only the kube-controller-manager container of a kube-controller-manager-* pod; an END line lost ends the block at the next List; other files give none', async () => {
  const cut = [list('NodeList', []), ...block('kube-controller-manager', 'kube-system/kube-controller-manager-cp', KCM).slice(0, -1), list('PodList', []),
    ...block('kube-controller-manager', 'kube-system/my-kube-controller-manager-copy', ['x'])].join('\n') + '\n';
  const f = path.join(tmp, 'cut.dump');
  fs.writeFileSync(f, cut);
  const nl = cut.split('\n');
  const startAt = nl.findIndex((l) => l.startsWith('==== START')) + 1;
  assert.deepEqual(await kcmLogBlocks(f), [{ file: f, from: startAt + 1, to: startAt + KCM.length, pod: 'kube-system/kube-controller-manager-cp', unterminated: true }]);
  assert.deepEqual(await kcmLogBlocks('examples/quota-rejected.kexp.jsonl'), []);
  assert.deepEqual(await kcmLogBlocks('-'), []);
});
