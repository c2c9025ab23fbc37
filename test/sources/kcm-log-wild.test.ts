/**
 * kube-controller-manager logs as they are in the wild (issue #21 item 9): a container's shell
 * preamble before the first klog record, multi-line records whose continuation lines carry the
 * record's envelope stamp, the controllers' Event lines, and reflector lines. Small real-shaped
 * lines (the shapes of an OpenShift 4.8 / Kubernetes 1.21 KCM container log read with
 * `kubectl logs --timestamps`), written to a temporary file.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import type { ControllerLogEvent } from '../../src/timeline/event.js';
import type { InputProblem } from '../../src/sources/source.js';
import { openKcmLogSource, type KcmLogStats } from '../../src/sources/kcm-log/kcm-log-source.js';

const dir = mkdtempSync(join(tmpdir(), 'kexp-kcm-wild-'));
let n = 0;
function file(lines: string[]): string {
  const f = join(dir, `log-${n++}.log`);
  writeFileSync(f, lines.join('\n') + '\n');
  return f;
}

interface Read {
  events: ControllerLogEvent[];
  problems: InputProblem[];
  warnings: string[];
  stats: KcmLogStats;
}

async function read(path: string): Promise<Read> {
  const problems: InputProblem[] = [];
  const warnings: string[] = [];
  const src = await openKcmLogSource(path, { diagnostics: { problem: (p) => problems.push(p), warn: (w) => warnings.push(w) } });
  const events: ControllerLogEvent[] = [];
  for await (const e of src.events) if (e.type === 'controller-log' && e.ownerKind === undefined) events.push(e); // the ReplicaSets' (RC lines apart)
  return { events, problems, warnings, stats: src.stats() };
}

/** `kubectl logs --timestamps` prefix. */
const ts = (t: string, line: string) => `2021-08-03T${t}Z ${line}`;

const SHELL = [
  ts('09:29:18.630092808', `+ timeout 3m /bin/bash -exuo pipefail -c 'while [ -n "$(ss -Htanop \\( sport = 10257 \\))" ]; do sleep 1; done'`),
  ts('09:29:18.634196491', "++ ss -Htanop '(' sport = 10257 ')'"),
  ts('09:29:18.638563205', 'Copying system trust bundle'),
  ts('09:29:18.641279125', '+ exec hyperkube kube-controller-manager --openshift-config=/etc/kubernetes/config.yaml'),
];
const FIRST = ts('09:29:18.740857985', 'I0803 09:29:18.740742       1 feature_gate.go:244] feature gates: &{map[APIPriorityAndFairness:true]}');

test('a shell preamble before the first record: one warning naming its lines, no problem', async () => {
  const r = await read(file([...SHELL, FIRST]));
  assert.deepEqual(r.problems, []);
  const notes = r.warnings.filter((w) => /before the first log record/.test(w));
  assert.equal(notes.length, 1, r.warnings.join('\n'));
  assert.match(notes[0]!, /:1: skipped 4 lines before the first log record \(lines 1–4: not klog, e\.g\. a container's shell preamble\)$/);
  assert.deepEqual(r.stats.preamble, { lines: 4, from: 1, to: 4, notKlog: 4 });
  assert.equal(r.stats.records, 1);
});

test('junk after the first record is still a problem; the preamble before it is not', async () => {
  const r = await read(file([SHELL[0]!, FIRST, ts('09:29:19.000000001', '+ echo late shell line')]));
  assert.equal(r.problems.length, 1);
  assert.equal(r.problems[0]!.line, 3);
  assert.match(r.problems[0]!.message, /not a log record \("\+ echo late shell line"\); skipped/);
  assert.match(r.warnings.join('\n'), /skipped 1 line before the first log record \(line 1: not klog/);
});

test('process output a KCM writes before its first record (a flag deprecation) is no preamble note', async () => {
  const r = await read(file([ts('09:29:18.700000000', 'Flag --port has been deprecated, see --secure-port instead.'), FIRST]));
  assert.deepEqual(r.problems, []);
  assert.deepEqual(r.warnings.filter((w) => /before the first log record/.test(w)), []);
  assert.deepEqual(r.stats.preamble, { lines: 1, from: 1, to: 1, notKlog: 0 });
});

const AWS = [
  ts('09:31:15.980734188', 'I0803 09:31:15.980642       1 aws.go:3114] Existing security group ingress: sg-04806cf8f4a00af30 [{'),
  ts('09:31:15.980734188', '  FromPort: 80,'),
  ts('09:31:15.980734188', '  IpProtocol: "tcp",'),
  ts('09:31:15.980734188', '} {'),
  ts('09:31:15.980734188', '  FromPort: 443,'),
  ts('09:31:15.980734188', '}]'),
];

test('a multi-line record: lines with the record\'s envelope stamp are its continuation, not junk', async () => {
  const next = ts('09:31:16.022272222', 'I0803 09:31:16.022218       1 aws_loadbalancer.go:1523] Creating proxy protocol policy on load balancer');
  const r = await read(file([FIRST, ...AWS, next]));
  assert.deepEqual(r.problems, []);
  assert.equal(r.stats.records, 3);
  assert.equal(r.stats.continuationLines, 5);
  assert.equal(r.stats.unrecognisedLines, 0);
});

test('a stamp-shared continuation needs the same stamp: a `}]` stamped later is junk; two records may share a stamp', async () => {
  const lines = [
    FIRST,
    ts('09:31:15.718081898', 'I0803 09:31:15.714605       1 aws.go:3452] Ignoring private subnet for public ELB "subnet-0f42f81bbda4269db"'),
    ts('09:31:15.718081898', 'I0803 09:31:15.714626       1 aws.go:3452] Ignoring private subnet for public ELB "subnet-05de65b6177fde5e8"'),
    ts('09:31:15.980734188', '}]'),
  ];
  const r = await read(file(lines));
  assert.equal(r.stats.records, 3);
  assert.equal(r.stats.continuationLines, 0);
  assert.equal(r.problems.length, 1);
  assert.equal(r.problems[0]!.line, 4);
});

test('CRI-wrapped: the same stamp joins a continuation line too', async () => {
  const cri = (t: string, line: string) => `2021-08-03T${t}Z stderr F ${line}`;
  const r = await read(file([
    cri('09:31:15.980734188', 'I0803 09:31:15.980642       1 aws.go:3114] Existing security group ingress: sg-1 [{'),
    cri('09:31:15.980734188', '} {'),
    cri('09:31:15.980734188', '}]'),
  ]));
  assert.deepEqual(r.problems, []);
  assert.equal(r.stats.records, 1);
  assert.equal(r.stats.continuationLines, 2);
});

// ---------------------------------------------------------------------------------------------
// the controllers' Event lines (client-go tools/record/event.go)

const CONSOLE = [
  FIRST,
  ts('09:31:34.267406885', 'I0803 09:31:34.267366       1 replica_set.go:595] "Too many replicas" replicaSet="openshift-console/console-7994575dc5" need=0 deleting=1'),
  ts('09:31:34.267501196', 'I0803 09:31:34.267487       1 controller_utils.go:602] "Deleting pod" controller="console-7994575dc5" pod="openshift-console/console-7994575dc5-8x8qm"'),
  ts('09:31:34.267710721', 'I0803 09:31:34.267681       1 event.go:291] "Event occurred" object="openshift-console/console" kind="Deployment" apiVersion="apps/v1" type="Normal" reason="ScalingReplicaSet" message="Scaled down replica set console-7994575dc5 to 0"'),
  ts('09:31:34.285671523', 'I0803 09:31:34.285619       1 event.go:291] "Event occurred" object="openshift-console/console-7994575dc5" kind="ReplicaSet" apiVersion="apps/v1" type="Normal" reason="SuccessfulDelete" message="Deleted pod: console-7994575dc5-8x8qm"'),
];

test('a ReplicaSet\'s Event is a certain ReplicaSet line: the shared replica_set.go / controller_utils.go lines of its key are attributed', async () => {
  const r = await read(file(CONSOLE));
  assert.deepEqual(r.problems, []);
  assert.equal(r.stats.ambiguous, 0);
  assert.deepEqual(r.events.map((e) => `${e.source.line}:${e.logKind}:${e.rsKey}`), [
    '2:too-many-replicas:openshift-console/console-7994575dc5',
    '3:deleting-pod:openshift-console/console-7994575dc5',
    '5:controller-event:openshift-console/console-7994575dc5',
  ]);
  assert.deepEqual(r.events[2]!.event, { involvedKind: 'ReplicaSet', type: 'Normal', reason: 'SuccessfulDelete', note: 'Deleted pod: console-7994575dc5-8x8qm', pod: 'openshift-console/console-7994575dc5-8x8qm' });
  // The Deployment's ScalingReplicaSet is the deployment controller's: counted, not a ReplicaSet line.
  assert.deepEqual(r.stats.excluded, { other: 1 });
});

test('without the Event line the same shared lines stay unattributable (ambiguous), as before', async () => {
  const r = await read(file(CONSOLE.filter((l) => !l.includes('kind="ReplicaSet"'))));
  assert.equal(r.events.length, 0);
  assert.equal(r.stats.ambiguous, 2);
});

test('the printf Event form (StartLogging): kind, key, reason and message from the ObjectReference', async () => {
  const r = await read(file([
    FIRST,
    'I0803 09:31:31.214506       1 event.go:282] Event(v1.ObjectReference{Kind:"ReplicaSet", Namespace:"shop", Name:"web-6b7f9c5d48", UID:"3f1c", APIVersion:"apps/v1", ResourceVersion:"8812", FieldPath:""}): type: \'Warning\' reason: \'FailedCreate\' Error creating: pods "web-6b7f9c5d48-zt5vb" is forbidden: exceeded quota: pods',
    'I0803 09:31:32.000000       1 event.go:282] Event(v1.ObjectReference{Kind:"ReplicationController", Namespace:"shop", Name:"legacy", UID:"9a", APIVersion:"v1", ResourceVersion:"7", FieldPath:""}): type: \'Normal\' reason: \'SuccessfulCreate\' Created pod: legacy-x2b9q',
    'I0803 09:31:33.000000       1 event.go:282] Event(v1.ObjectReference{Kind:"DaemonSet", Namespace:"kube-system", Name:"agent", UID:"1", APIVersion:"apps/v1", ResourceVersion:"7", FieldPath:""}): type: \'Normal\' reason: \'SuccessfulCreate\' Created pod: agent-q8x7w',
  ].map((l, i) => (i === 0 ? l : ts(`09:31:3${i}.300000000`, l)))));
  assert.deepEqual(r.problems, []);
  assert.equal(r.events.length, 1);
  const e = r.events[0]!;
  assert.equal(e.rsKey, 'shop/web-6b7f9c5d48');
  assert.deepEqual(e.event, { involvedKind: 'ReplicaSet', type: 'Warning', reason: 'FailedCreate', note: 'Error creating: pods "web-6b7f9c5d48-zt5vb" is forbidden: exceeded quota: pods' });
  assert.deepEqual(r.stats.excluded, { replicationcontroller: 1, daemonset: 1 });
});

test('the start-up line names the release: printf "Version: …" (≤1.26) and structured "Starting" version=… (contextual logging)', async () => {
  const old = await read(file([
    'I0803 09:29:19.116752       1 controllermanager.go:187] Version: v1.21.1+38b3ecc',
    'I0803 09:29:19.216752       1 controllermanager.go:187] Version: v1.99.0',
  ]));
  assert.deepEqual(old.stats.version, { version: 'v1.21.1+38b3ecc', line: 1 }, 'the first start-up line');
  const now = await read(file([
    'I1130 02:38:40.100000   14267 controllermanager.go:204] "Starting" version="v1.37.2"',
  ]));
  assert.deepEqual(now.stats.version, { version: 'v1.37.2', line: 1 });
  const other = await read(file(['I1130 02:38:40.100000   14267 server.go:204] "Starting" version="v1.37.2"']));
  assert.equal(other.stats.version, undefined, 'another component\'s start-up line');
});

test('-v is the process\'s: a DaemonSet\'s -v=4 expectations lines make a log with only the ReplicaSet controller\'s start line -v≥4, not "below -v=4"', async () => {
  const { kcmLogFiles } = await import('../../src/pipeline/kcm-log-files.js');
  const f = file([
    'I1130 02:38:40.100000   14267 replica_set.go:182] "Starting controller" name="replicaset"',
    'I1130 02:39:01.486655   14267 daemon_controller.go:1000] "Setting expectations" logger="daemonset-controller" expectations={"add":2,"del":0,"key":"kube-system/fluentd"}',
    'I1130 02:39:01.496655   14267 controller_utils.go:245] "Lowered expectations" logger="daemonset-controller" expectations={"add":1,"del":0,"key":"kube-system/fluentd"}',
  ]);
  const warnings: string[] = [];
  const { result } = await kcmLogFiles({ files: [f], year: 2026, onWarning: (w: string) => warnings.push(w) } as never);
  assert.equal(result.verbosity.atLeastV4, true);
  assert.ok(!warnings.some((w) => /below -v=4/.test(w)), warnings.join('\n'));
  const v2 = file(['I1130 02:38:40.100000   14267 replica_set.go:182] "Starting controller" name="replicaset"']);
  const { result: r2 } = await kcmLogFiles({ files: [v2], year: 2026 } as never);
  assert.equal(r2.verbosity.atLeastV4, false, 'no -v≥4 line of any controller');
});
