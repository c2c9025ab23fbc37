/**
 * Recognition of a kube-controller-manager log by its first records (src/sources/kcm-log-recognition.ts):
 * after a container's shell preamble, klog or JSON records whose callers / start-up lines /
 * logger names are kube-controller-manager's; or log records under a `kube-controller-manager`
 * folder. Another component's klog log, and prose quoting one klog line, are not.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { isKcmLogByContent, recogniseKcmLog } from '../../src/sources/kcm-log-recognition.js';

const TS = (s: string) => `2021-08-03T09:31:${s}Z`;
const PREAMBLE = [
  `${TS('13.100000000')} + timeout 3m /bin/bash -exuo pipefail -c 'while [ -n "$(ss -Htanop \\( sport = 10257 \\))" ]; do sleep 1; done'`,
  `${TS('13.100000001')} ++ ss -Htanop '(' sport = 10257 ')'`,
  `${TS('13.100000002')} + '[' -n '' ']'`,
  `${TS('13.100000003')} + exec hyperkube kube-controller-manager --openshift-config=/etc/kubernetes/config.yaml -v=2`,
];
const KCM = [
  `${TS('13.700000000')} I0803 09:31:13.700000       1 flags.go:59] FLAG: --address="127.0.0.1"`,
  `${TS('13.800000000')} I0803 09:31:13.800000       1 dynamic_serving_content.go:111] Loaded a new cert/key pair`,
  `${TS('13.900000000')} I0803 09:31:13.900000       1 controllermanager.go:187] Version: v1.21.1+38b3ecc`,
  `${TS('13.908000000')} I0803 09:31:13.908300       1 controllermanager.go:612] Starting "replicaset"`,
];
const APISERVER = [
  `${TS('13.700000000')} I0803 09:31:13.700000       1 flags.go:59] FLAG: --advertise-address="10.0.0.1"`,
  `${TS('13.800000000')} I0803 09:31:13.800000       1 server.go:629] external host was not specified, using 10.0.0.1`,
  `${TS('13.900000000')} I0803 09:31:13.900000       1 server.go:181] Version: v1.21.1`,
  `${TS('13.950000000')} I0803 09:31:13.950000       1 httplog.go:94] "HTTP" verb="GET" URI="/healthz" latency="1ms"`,
];

test('a klog log of kube-controller-manager after a shell preamble is recognised by its callers', () => {
  assert.equal(recogniseKcmLog([...PREAMBLE, ...KCM, ''].join('\n'), 'logs/current.log'), true);
  // Without the preamble, and bare klog without the --timestamps prefix.
  assert.equal(recogniseKcmLog([...KCM.map((l) => l.slice(31)), ''].join('\n'), 'x.log'), true);
});

test('another component\'s klog log is not the KCM log, unless the path names kube-controller-manager', () => {
  assert.equal(recogniseKcmLog([...PREAMBLE, ...APISERVER, ''].join('\n'), 'kube-apiserver/current.log'), false);
  assert.equal(recogniseKcmLog([...APISERVER, ''].join('\n'), 'kube-controller-manager/previous.log'), true);
  // A segment that only contains the name (the operator's folder) does not count.
  assert.equal(recogniseKcmLog([...APISERVER, ''].join('\n'), 'openshift-kube-controller-manager-operator/current.log'), false);
});

test('JSON records with the replicaset-controller logger are recognised; prose quoting one klog line is not a log', () => {
  const json = [
    '{"ts":1722503940123.4,"caller":"app/server.go:100","msg":"Starting","v":0}',
    '{"ts":1722503940124.4,"caller":"cache/shared_informer.go:313","msg":"Waiting for caches to sync","v":0}',
    '{"ts":1722503940125.4,"caller":"replicaset/replica_set.go:680","msg":"Too few replicas","logger":"replicaset-controller","v":2}',
    '',
  ].join('\n');
  assert.equal(recogniseKcmLog(json, 'out.log'), true);
  const prose = ['We saw this in the log:', '', KCM[3]!.slice(31), '', 'and then the pods were created.', 'Nothing else happened.', 'Ticket closed.', ''].join('\n');
  assert.equal(recogniseKcmLog(prose, 'notes.txt'), false);
});

test('isKcmLogByContent reads the file (gzip too), the walked path names it, stdin is never read', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kexp-kcmrec-'));
  const f = path.join(dir, 'current.log');
  fs.writeFileSync(f, gzipSync([...PREAMBLE, ...KCM, ''].join('\n')));
  assert.equal(await isKcmLogByContent(f), true);
  const a = path.join(dir, 'a.log');
  fs.writeFileSync(a, [...APISERVER, ''].join('\n'));
  assert.equal(await isKcmLogByContent(a), false);
  assert.equal(await isKcmLogByContent(a, 'kube-controller-manager/a.log'), true);
  assert.equal(await isKcmLogByContent(path.join(dir, 'missing.log')), false);
  assert.equal(await isKcmLogByContent('-'), false);
});

test('a file of Lists framing container logs (stdout cluster-info dump) is not a log, nor is a long preamble of prose', () => {
  const dump = ['{', '    "kind": "NodeList",', '    "items": []', '}', '==== START logs for container kube-controller-manager of pod kube-system/kube-controller-manager-n1 ====', ...KCM.map((l) => l.slice(31)), '==== END logs for container kube-controller-manager of pod kube-system/kube-controller-manager-n1 ====', ''].join('\n');
  assert.equal(recogniseKcmLog(dump, 'dump.txt'), false);
  const blocksFirst = ['==== START logs for container kube-controller-manager of pod kube-system/kube-controller-manager-n1 ====', ...KCM.map((l) => l.slice(31)), ''].join('\n');
  assert.equal(recogniseKcmLog(blocksFirst, 'dump.txt'), false);
  const longProse = [...Array.from({ length: 80 }, (_, i) => `paragraph ${i}`), ...KCM, ''].join('\n');
  assert.equal(recogniseKcmLog(longProse, 'notes.log'), false);
});
