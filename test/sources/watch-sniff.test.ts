import { test } from 'node:test';
import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';

import { InputError } from '../../src/sources/source.js';
import { openWatchSource } from '../../src/sources/watch/index.js';
import { sniffPrefix } from '../../src/sources/watch/sniff.js';
import { fx, recorder, tmpFile } from './watch-helpers.js';

async function openError(path: string): Promise<string> {
  const r = recorder();
  try {
    await openWatchSource(path, { diagnostics: r.diagnostics });
  } catch (err) {
    assert.ok(err instanceof InputError, `expected InputError, got ${String(err)}`);
    assert.equal(err.file, path);
    assert.equal(err.message.includes('\n'), false, 'one line');
    return err.message;
  }
  assert.fail('expected an InputError');
}

test('empty file → InputError "file is empty"', async () => {
  const f = fx('empty.jsonl');
  assert.equal(await openError(f), `${f}: file is empty`);
  const gz = tmpFile('empty.gz', gzipSync(Buffer.alloc(0)));
  assert.equal(await openError(gz), `${gz}: file is empty (gzip stream holds no data)`);
  const blank = tmpFile('blank.jsonl', '\n  \r\n\n');
  assert.equal(await openError(blank), `${blank}: file contains only blank lines`);
});

test('missing file → InputError, no stack', async () => {
  const f = fx('does-not-exist.jsonl');
  assert.equal(await openError(f), `${f}: cannot open: no such file`);
});

test('audit log is recognised and pointed to `kexp audit`', async () => {
  const f = fx('audit.log');
  assert.equal(await openError(f), `${f}: looks like an audit log (audit.k8s.io/v1 Event); use \`kexp audit\``);
  const gz = tmpFile('audit.log.gz', gzipSync(Buffer.from(`\n${JSON.stringify({ kind: 'EventList', apiVersion: 'audit.k8s.io/v1', items: [] }, null, 2)}`)));
  assert.equal(await openError(gz), `${gz}: looks like an audit webhook batch (audit.k8s.io/v1 EventList); use \`kexp audit\``);
});

test('kube-controller-manager logs are recognised and pointed to `kexp kcm-log`', async () => {
  const f = fx('kcm.log');
  assert.equal(await openError(f), `${f}: looks like a kube-controller-manager log (klog text); use \`kexp kcm-log\``);
  const json = tmpFile('kcm.json', '{"ts":1796033702481.2346,"logger":"replicaset-controller","caller":"replicaset/replica_set.go:598","msg":"Too few replicas","v":2}\n');
  assert.equal(await openError(json), `${json}: looks like a kube-controller-manager JSON log; use \`kexp kcm-log\``);
  const cri = tmpFile(
    'kcm-cri.log',
    '2026-11-30T10:15:02.123456789Z stderr F I1130 10:15:02.123456       1 replica_set.go:598] "Too few replicas" need=3 creating=1\n',
  );
  assert.equal(await openError(cri), `${cri}: looks like a kube-controller-manager log in CRI container-log format; use \`kexp kcm-log\``);
});

test('other unrecognised inputs get a one-line description', async () => {
  const zip = tmpFile('x.zip', Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x14, 0, 0, 0]));
  assert.equal(await openError(zip), `${zip}: looks like a zip archive; unpack it first`);
  const gke = tmpFile('gke.json', '{"insertId":"1a2b","protoPayload":{"@type":"type.googleapis.com/google.cloud.audit.AuditLog"}}\n');
  assert.equal(await openError(gke), `${gke}: looks like a GKE Cloud Logging audit export (protoPayload); use \`kexp audit\``);
  const txt = tmpFile('notes.txt', 'The ReplicaSet did not scale up after the quota was raised.\n');
  assert.equal(
    await openError(txt),
    `${txt}: unrecognised input (first line: "The ReplicaSet did not scale up after the quota was raised."); expected a kexp recording, watch events, kubectl -w output (JSON or YAML) or a list`,
  );
  const other = tmpFile('o.json', '{"name":"web","replicas":3}\n');
  assert.equal(
    await openError(other),
    `${other}: unrecognised JSON: the first object has keys "name", "replicas" (expected a kexp recording, watch events, kubectl -w output or a list)`,
  );
  const kwok = tmpFile('kwok.yaml', 'kind: ResourcePatch\napiVersion: action.kwok.x-k8s.io/v1alpha1\nresource:\n  version: v1\n  resource: pods\n');
  assert.equal(await openError(kwok), `${kwok}: looks like a kwok snapshot recording (ResourcePatch); kexp does not read it — record with \`kexp record\``);
});

test('sniffPrefix decides from the first line or the first keys of a pretty value', () => {
  const s = (t: string, final = true) => sniffPrefix(Buffer.from(t), final);
  assert.deepEqual(s('{"kexpRecording":1,"kexpVersion":"0.1.0"}\n'), { format: 'kexp-recording', framing: 'lines' });
  assert.deepEqual(s('{"type":"ADDED","object":{"kind":"Pod"}}\n'), { format: 'watch-events', framing: 'lines' });
  assert.deepEqual(s('{"kind":"Pod","apiVersion":"v1","metadata":{}}\n'), { format: 'kubectl-watch-json', framing: 'values' });
  assert.deepEqual(s('{\n    "apiVersion": "v1",\n    "kind": "Pod",\n', false), { format: 'kubectl-watch-json', framing: 'values' });
  assert.deepEqual(s('{\n    "apiVersion": "v1",\n', false), { needMore: true });
  assert.deepEqual(s('{\n  "object": {\n', false), { format: 'watch-events', framing: 'values' });
  assert.deepEqual(s('{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"48420"},"items":[]}\n'), { format: 'list', framing: 'values' });
  assert.deepEqual(s('[\n  {\n    "kind": "Pod",\n    "apiVersion": "v1"\n  }\n]\n'), { format: 'list', framing: 'values' });
  assert.deepEqual(s('apiVersion: v1\nkind: Pod\nmetadata:\n  name: web-7d9c6b8f5d-x7k2p\n'), { format: 'yaml', framing: 'yaml' });
  assert.deepEqual(s('object:\n  apiVersion: v1\n', false), { format: 'yaml', framing: 'yaml' });
  assert.deepEqual(s('\uFEFF{"type":"ADDED","object":{}}\n'), { format: 'watch-events', framing: 'lines' });
  assert.deepEqual(s('[]\n'), { format: 'list', framing: 'values' });
});
