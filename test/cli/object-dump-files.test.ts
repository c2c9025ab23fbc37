/**
 * Object dumps given as files (issue #21 item 9): a YAML or JSON List, one object, or several
 * documents of distinct objects is the point-in-time snapshot it is — the same report as the
 * directory holding it — while a `kubectl get -w` stream (an object seen again with another
 * resourceVersion) stays a stream; a kube-controller-manager log among the files, or in a
 * `kube-controller-manager/` folder of the tree, is found by its content and fused as `--kcm-log`
 * fuses it; compact JSON is read; a dump pasted from Markdown or a terminal is read or refused
 * with its line. The fixtures are written here in the shape of a must-gather's
 * `namespaces/<ns>/{apps/replicasets.yaml, core/pods.yaml, core/events.yaml}` (real-shaped: the
 * fields `oc adm must-gather` writes for a Deployment's ReplicaSet at 2/2 ready).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { kexp } from '../support/cli.js';
import { parse as yamlParse } from 'yaml';
import type { Report } from '../../src/analysis/report-types.js';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kexp-objdump-'));
const TREE = path.join(tmp, 'mg');
const NS = path.join(TREE, 'namespaces', 'shop');
const RS_FILE = path.join(NS, 'apps', 'replicasets.yaml');
const PODS_FILE = path.join(NS, 'core', 'pods.yaml');
const EVENTS_FILE = path.join(NS, 'core', 'events.yaml');
const KCM_FILE = path.join(TREE, 'kube-controller-manager', 'current.log');

const RS_UID = '5b0c7d1e-3f7a-4e0b-9a4d-2d1f6c7e8a90';
const pod = (name: string, uid: string, created: string): string[] => [
  '- apiVersion: v1',
  '  kind: Pod',
  '  metadata:',
  `    creationTimestamp: "${created}"`,
  '    generateName: web-6b45f48495-',
  '    labels:',
  '      app: web',
  '      pod-template-hash: 6b45f48495',
  `    name: ${name}`,
  '    namespace: shop',
  '    ownerReferences:',
  '    - apiVersion: apps/v1',
  '      blockOwnerDeletion: true',
  '      controller: true',
  '      kind: ReplicaSet',
  '      name: web-6b45f48495',
  `      uid: ${RS_UID}`,
  `    resourceVersion: "${uid.slice(0, 4).replace(/\D/g, '7')}1"`,
  `    uid: ${uid}`,
  '  spec:',
  '    containers:',
  '    - image: nginx:1.21',
  '      name: web',
  '  status:',
  '    conditions:',
  '    - lastTransitionTime: "2021-08-03T09:31:40Z"',
  '      status: "True"',
  '      type: Ready',
  '    phase: Running',
];
const RS_YAML = [
  '---',
  'apiVersion: apps/v1',
  'items:',
  '- apiVersion: apps/v1',
  '  kind: ReplicaSet',
  '  metadata:',
  '    annotations:',
  '      deployment.kubernetes.io/desired-replicas: "2"',
  '      deployment.kubernetes.io/revision: "3"',
  '    creationTimestamp: "2021-08-03T09:27:34Z"',
  '    generation: 3',
  '    labels:',
  '      app: web',
  '      pod-template-hash: 6b45f48495',
  '    name: web-6b45f48495',
  '    namespace: shop',
  '    ownerReferences:',
  '    - apiVersion: apps/v1',
  '      blockOwnerDeletion: true',
  '      controller: true',
  '      kind: Deployment',
  '      name: web',
  '      uid: 0e6f3a2b-8c1d-4f5e-b7a9-6d2c1b0a9f87',
  '    resourceVersion: "41960"',
  `    uid: ${RS_UID}`,
  '  spec:',
  '    replicas: 2',
  '    selector:',
  '      matchLabels:',
  '        app: web',
  '        pod-template-hash: 6b45f48495',
  '    template:',
  '      metadata:',
  '        labels:',
  '          app: web',
  '          pod-template-hash: 6b45f48495',
  '      spec:',
  '        containers:',
  '        - image: nginx:1.21',
  '          name: web',
  '  status:',
  '    availableReplicas: 2',
  '    fullyLabeledReplicas: 2',
  '    observedGeneration: 3',
  '    readyReplicas: 2',
  '    replicas: 2',
  'kind: ReplicaSetList',
  'metadata:',
  '  resourceVersion: "41969"',
  '',
].join('\n');
const PODS_YAML = ['---', 'apiVersion: v1', 'items:', ...pod('web-6b45f48495-75kvf', '9a1b2c3d-0000-4e5f-8a7b-1c2d3e4f5a01', '2021-08-03T09:27:34Z'), ...pod('web-6b45f48495-9248b', '9a1b2c3d-0000-4e5f-8a7b-1c2d3e4f5a02', '2021-08-03T09:31:34Z'), 'kind: PodList', 'metadata:', '  resourceVersion: "41970"', ''].join('\n');
const event = (name: string, reason: string, message: string, at: string, involved: { kind: string; name: string; uid: string }): string[] => [
  '- apiVersion: v1',
  '  count: 1',
  `  firstTimestamp: "${at}"`,
  '  involvedObject:',
  `    apiVersion: apps/v1`,
  `    kind: ${involved.kind}`,
  `    name: ${involved.name}`,
  '    namespace: shop',
  `    uid: ${involved.uid}`,
  '  kind: Event',
  `  lastTimestamp: "${at}"`,
  `  message: '${message}'`,
  '  metadata:',
  `    creationTimestamp: "${at}"`,
  `    name: ${name}`,
  '    namespace: shop',
  `    resourceVersion: "${name.length}00"`,
  `    uid: 7c8d9e0f-1111-4a2b-9c3d-${name.length.toString().padStart(12, '0')}`,
  `  reason: ${reason}`,
  '  source:',
  `    component: ${involved.kind === 'ReplicaSet' ? 'replicaset-controller' : 'deployment-controller'}`,
  '  type: Normal',
];
const RS_REF = { kind: 'ReplicaSet', name: 'web-6b45f48495', uid: RS_UID };
const EVENTS_YAML = [
  '---',
  'apiVersion: v1',
  'items:',
  ...event('web.169800a1', 'ScalingReplicaSet', 'Scaled up replica set web-6b45f48495 to 1', '2021-08-03T09:27:34Z', { kind: 'Deployment', name: 'web', uid: '0e6f3a2b-8c1d-4f5e-b7a9-6d2c1b0a9f87' }),
  ...event('web-6b45f48495.169800a2', 'SuccessfulCreate', 'Created pod: web-6b45f48495-75kvf', '2021-08-03T09:27:34Z', RS_REF),
  ...event('web.169800a3aa', 'ScalingReplicaSet', 'Scaled up replica set web-6b45f48495 to 2', '2021-08-03T09:31:34Z', { kind: 'Deployment', name: 'web', uid: '0e6f3a2b-8c1d-4f5e-b7a9-6d2c1b0a9f87' }),
  ...event('web-6b45f48495.169800a4aa', 'SuccessfulCreate', 'Created pod: web-6b45f48495-9248b', '2021-08-03T09:31:34Z', RS_REF),
  'kind: EventList',
  'metadata:',
  '  resourceVersion: "41971"',
  '',
].join('\n');
// kube-controller-manager 1.21 at -v=2, as `kubectl logs --timestamps` saves it (no `logger=`).
const KCM_LOG = [
  '2021-08-03T09:29:19.116789188Z I0803 09:29:19.116752       1 controllermanager.go:187] Version: v1.21.1',
  '2021-08-03T09:31:13.908306194Z I0803 09:31:13.908300       1 controllermanager.go:612] Starting "replicaset"',
  '2021-08-03T09:31:13.913927926Z I0803 09:31:13.913905       1 controllermanager.go:627] Started "replicaset"',
  '2021-08-03T09:31:13.914037408Z I0803 09:31:13.914016       1 shared_informer.go:240] Waiting for caches to sync for ReplicaSet',
  '2021-08-03T09:31:34.322171268Z I0803 09:31:34.322130       1 replica_set.go:559] "Too few replicas" replicaSet="shop/web-6b45f48495" need=2 creating=1',
  '2021-08-03T09:31:34.372731197Z I0803 09:31:34.372688       1 event.go:291] "Event occurred" object="shop/web-6b45f48495" kind="ReplicaSet" apiVersion="apps/v1" type="Normal" reason="SuccessfulCreate" message="Created pod: web-6b45f48495-9248b"',
  '',
].join('\n');

fs.mkdirSync(path.dirname(RS_FILE), { recursive: true });
fs.mkdirSync(path.dirname(PODS_FILE), { recursive: true });
fs.mkdirSync(path.dirname(KCM_FILE), { recursive: true });
fs.writeFileSync(RS_FILE, RS_YAML);
fs.writeFileSync(PODS_FILE, PODS_YAML);
fs.writeFileSync(EVENTS_FILE, EVENTS_YAML);
fs.writeFileSync(KCM_FILE, KCM_LOG);

function json(args: string[]): { code: number | null; report: Report; stderr: string } {
  const r = kexp(['replay', ...args, '--output', 'json']);
  assert.ok(r.stdout.startsWith('{'), `${args.join(' ')}: ${r.stderr}`);
  return { code: r.code, report: JSON.parse(r.stdout) as Report, stderr: r.stderr };
}

/** What must be equal between a directory and its files: every ReplicaSet's analysis. */
function analysis(rep: Report): unknown {
  return rep.replicaSets.map((r) => ({ ...r, controllerLog: r.controllerLog ? { ...r.controllerLog, files: undefined } : undefined }));
}

function assertConverged(rep: Report, what: string): void {
  assert.deepEqual(rep.replicaSets.map((r) => [r.key, r.verdict.state]), [['shop/web-6b45f48495', 'healthy']], what);
  for (const r of rep.replicaSets) {
    assert.deepEqual(r.gatedWindows, [], `${what}: ${r.key} has no gated window`);
    assert.ok(!r.findings.some((f) => /leak/.test(f.id)), `${what}: ${r.key} has no leak finding`);
  }
}

test('a YAML List given as a file is a snapshot: 2/2 ready stays HEALTHY with no create round or gated window invented', () => {
  const r = json([RS_FILE]);
  assert.equal(r.code, 0, r.stderr);
  assert.doesNotMatch(r.stderr, /inferred ADDED/, 'not read as a watch stream');
  assert.deepEqual(r.report.inputs.map((i) => [i.format, i.events]), [['list', 1]]);
  assertConverged(r.report, 'the List alone');
  assert.equal(r.report.replicaSets[0]!.verdict.basis, 'observed');
  assert.deepEqual(r.report.replicaSets[0]!.rounds, [], 'no Events given: no round');
});

test('the three Lists and the KCM log given as files give the directory\'s report; the log is found by content and fused as --kcm-log', () => {
  const dir = json([TREE]);
  assert.equal(dir.code, 0, dir.stderr);
  assert.match(dir.stderr, /read 3 List files, 1 kube-controller-manager log/);
  assertConverged(dir.report, 'directory');
  const files = json([RS_FILE, PODS_FILE, EVENTS_FILE, KCM_FILE]);
  assert.equal(files.code, 0, files.stderr);
  assertConverged(files.report, 'files');
  const flag = json([RS_FILE, PODS_FILE, EVENTS_FILE, '--kcm-log', KCM_FILE]);
  assert.equal(flag.code, 0, flag.stderr);
  assert.deepEqual(analysis(files.report), analysis(dir.report));
  assert.deepEqual(analysis(flag.report), analysis(dir.report));
  // The log is an input of each, read as a kube-controller-manager log.
  for (const rep of [dir.report, files.report, flag.report]) {
    assert.deepEqual(rep.inputs.filter((i) => i.format === 'kcm-log').map((i) => i.file), [KCM_FILE]);
    assert.deepEqual(rep.inputs.filter((i) => i.format === 'list').map((i) => i.file).sort(), [EVENTS_FILE, PODS_FILE, RS_FILE].sort());
  }
  // The rounds are the Events' (one create each), whatever the order the files are given in.
  assert.deepEqual(dir.report.replicaSets[0]!.rounds.map((x) => [x.kind, x.n, x.at]), [
    ['create', 1, '2021-08-03T09:27:34.000Z'],
    ['create', 1, '2021-08-03T09:31:34.000Z'],
  ]);
  const reordered = json([KCM_FILE, EVENTS_FILE, PODS_FILE, RS_FILE]);
  assert.deepEqual(analysis(reordered.report), analysis(dir.report));
});

test('a directory with only the KCM log given beside it reads it; a log alone is still refused with the command that reads it', () => {
  const onlyLists = path.join(tmp, 'lists');
  fs.mkdirSync(onlyLists, { recursive: true });
  fs.copyFileSync(RS_FILE, path.join(onlyLists, 'replicasets.yaml'));
  fs.copyFileSync(PODS_FILE, path.join(onlyLists, 'pods.yaml'));
  const r = json([onlyLists, KCM_FILE]);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(r.report.inputs.filter((i) => i.format === 'kcm-log').map((i) => i.file), [KCM_FILE]);
  const alone = kexp(['replay', KCM_FILE]);
  assert.equal(alone.code, 6);
  assert.match(alone.stderr, /this is a kube-controller-manager log: read it with `kexp kcm-log`/);
});

test('one object, and several documents of distinct objects, are a snapshot; an object seen again with another resourceVersion is a watch stream', () => {
  const list = fs.readFileSync(RS_FILE, 'utf8');
  // `kubectl get rs web-6b45f48495 -o yaml`: the item at column 0.
  const item = list.split('\n').slice(3, -4).map((l) => l.replace(/^(- | {2})/, '')).join('\n') + '\n';
  const one = path.join(tmp, 'rs-one.yaml');
  fs.writeFileSync(one, item);
  const r1 = json([one]);
  assert.equal(r1.code, 0, r1.stderr);
  assert.doesNotMatch(r1.stderr, /inferred ADDED/);
  assertConverged(r1.report, 'one object');
  assert.equal(r1.report.coverage.timeBasis[0]!.startsWith('snapshot'), true);
  // `kubectl get -w -o yaml`: the same ReplicaSet printed again after a change (1/2 ready, then 2/2).
  const before = item.replace('resourceVersion: "41960"', 'resourceVersion: "41950"').replace('readyReplicas: 2', 'readyReplicas: 1').replace('availableReplicas: 2', 'availableReplicas: 1');
  const stream = path.join(tmp, 'rs-watch.yaml');
  fs.writeFileSync(stream, `${before}---\n${item}`);
  const r2 = json([stream]);
  assert.match(r2.stderr, /this format has no watch event types; kexp inferred ADDED/, 'read as a watch stream');
  assert.equal(r2.report.coverage.timeBasis.some((t) => t.startsWith('snapshot')), false);
  // Two documents of distinct objects (`kubectl get rs … -o yaml; echo ---; kubectl get pod … -o yaml`).
  const podLines = fs.readFileSync(PODS_FILE, 'utf8').split('\n');
  const second = podLines.indexOf('- apiVersion: v1', 4);
  const unlist = (ls: string[]) => ls.map((l) => l.replace(/^(- | {2})/, '')).join('\n') + '\n';
  const docs = path.join(tmp, 'rs-and-pods.yaml');
  fs.writeFileSync(docs, [item, unlist(podLines.slice(3, second)), unlist(podLines.slice(second, podLines.indexOf('kind: PodList')))].join('---\n'));
  const r3 = json([docs]);
  assert.equal(r3.code, 0, r3.stderr);
  assert.doesNotMatch(r3.stderr, /inferred ADDED/);
  assertConverged(r3.report, 'documents of objects');
  assert.match(r3.report.coverage.assumptions.join('\n'), /1 ReplicaSet\(s\), 2 pod\(s\), 0 Event\(s\)/);
});

test('compact JSON: a List on one line (jq -c) and several one-line Lists are the same snapshot as the YAML files', () => {
  const yamlRep = json([RS_FILE, PODS_FILE, EVENTS_FILE]).report;
  const asJson = (f: string) => kexp(['replay', f, '--output', 'json']);
  // The JSON `kubectl get rs,pods,events -o json | jq -c .` prints: one List, items with their kind.
  const items = [RS_FILE, PODS_FILE, EVENTS_FILE].flatMap((f) => {
    const l = yamlParse(fs.readFileSync(f, 'utf8').replace(/^---\n/, '')) as { kind: string; items: Array<Record<string, unknown>> };
    return l.items.map((i) => ({ ...i, kind: i.kind ?? l.kind.replace(/List$/, '') }));
  });
  const oneLine = path.join(tmp, 'all.json');
  fs.writeFileSync(oneLine, JSON.stringify({ apiVersion: 'v1', items, kind: 'List', metadata: { resourceVersion: '' } }) + '\n');
  const r = asJson(oneLine);
  assert.equal(r.code, 0, r.stderr);
  assert.doesNotMatch(r.stderr, /truncated/);
  const rep = JSON.parse(r.stdout) as Report;
  assert.deepEqual(rep.inputs.map((i) => [i.format, i.events, i.problems]), [['list', items.length, 0]]);
  assert.deepEqual(rep.replicaSets.map((x) => [x.key, x.verdict.state, x.rounds.length]), yamlRep.replicaSets.map((x) => [x.key, x.verdict.state, x.rounds.length]));
  const perKind = path.join(tmp, 'per-kind.json');
  fs.writeFileSync(perKind, ['ReplicaSet', 'Pod', 'Event'].map((k) => JSON.stringify({ apiVersion: 'v1', kind: 'List', items: items.filter((i) => i.kind === k) })).join('\n') + '\n');
  const r2 = asJson(perKind);
  assert.equal(r2.code, 0, r2.stderr);
  assert.deepEqual((JSON.parse(r2.stdout) as Report).replicaSets.map((x) => [x.key, x.verdict.state, x.rounds.length]), [['shop/web-6b45f48495', 'healthy', 2]]);
});

test('a dump pasted from Markdown or a terminal is read through its fences and prompts, with the file\'s own line numbers; an ambiguous paste is refused with its line', () => {
  const md = path.join(tmp, 'notes.md');
  const rsBody = RS_YAML.replace(/^---\n/, '');
  fs.writeFileSync(md, ['# Incident notes', '', 'The ReplicaSet after the rollout:', '', '```yaml', rsBody.trimEnd(), '```', '', 'and what I ran:', '```bash', 'kubectl get pods -n shop', '```', ''].join('\n'));
  const r = json([md]);
  assert.equal(r.code, 0, r.stderr);
  assertConverged(r.report, 'markdown');
  // The ReplicaSet is cited at its line in the notes (the fence opens at line 5, the item at 8).
  assert.match(JSON.stringify(r.report.replicaSets[0]), new RegExp(`${md.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:8\\b`));
  const term = path.join(tmp, 'capture.txt');
  fs.writeFileSync(term, ['$ kubectl -n shop get rs -o yaml', rsBody.trimEnd(), '$ kubectl -n shop get pods', 'NAME                   READY   STATUS    RESTARTS   AGE', 'web-6b45f48495-75kvf   1/1     Running   0          4m', ''].join('\n'));
  const t = json([term]);
  assert.equal(t.code, 0, t.stderr);
  assertConverged(t.report, 'terminal capture');
  assert.deepEqual(t.report.inputs.map((i) => [i.format, i.events, i.problems]), [['list', 1, 0]], 'the table after `get pods` is skipped, not a problem');
  const bad = path.join(tmp, 'describe.txt');
  fs.writeFileSync(bad, ['', '$ kubectl -n shop describe rs web-6b45f48495', 'Name:         web-6b45f48495', 'Namespace:    shop', ''].join('\n'));
  const b = kexp(['replay', bad]);
  assert.equal(b.code, 6);
  assert.equal(b.stderr.trim(), `kexp: ${bad}:2: \`$ kubectl -n shop describe rs web-6b45f48495\` prints no YAML or JSON (no -o yaml/-o json): the lines after it are not a dump`);
  const quoted = path.join(tmp, 'quoted.md');
  fs.writeFileSync(quoted, ['Seen in the ticket:', '> ```yaml', '> apiVersion: apps/v1', '> kind: ReplicaSet', '> ```', ''].join('\n'));
  const q = kexp(['replay', quoted]);
  assert.equal(q.code, 6);
  assert.match(q.stderr.trim(), new RegExp(`^kexp: ${quoted.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:2: the dump is quoted`));
});
