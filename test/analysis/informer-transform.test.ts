/**
 * The engine keeps pods projected (src/analysis/engine/informer-transform.ts, cachedPod): what the
 * model and the ledger read survives, the bulk (managedFields, containers, volumes) does not.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cachedPod, type Pod } from '../../src/model/objects.js';
import { informerView } from '../../src/analysis/engine/informer-transform.js';
import type { TimelineEvent } from '../../src/timeline/event.js';

const pod: Pod = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: {
    name: 'web-abcde', generateName: 'web-', namespace: 'shop', uid: 'u1', resourceVersion: '7',
    creationTimestamp: '2026-01-01T00:00:00Z', deletionTimestamp: null, labels: { app: 'web' },
    annotations: { 'controller.kubernetes.io/pod-deletion-cost': '5' },
    ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web', uid: 'rs1', controller: true }],
    finalizers: ['f'],
    managedFields: [{ manager: 'kube-controller-manager', fieldsV1: { 'f:metadata': {} } }],
  } as Pod['metadata'],
  spec: {
    nodeName: 'node-1',
    initContainers: [{ name: 'sidecar', restartPolicy: 'Always', image: 'x' } as { name: string; restartPolicy: string }],
    containers: [{ name: 'app', image: 'nginx:1.27', env: [{ name: 'A', value: 'b' }] } as { name: string }],
    volumes: [{ name: 'token' }],
  },
  status: {
    phase: 'Running',
    reason: 'Evicted',
    conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: '2026-01-01T00:00:05Z' }],
    containerStatuses: [{ name: 'app', restartCount: 3, ready: true, image: 'img', state: { running: {} } } as { name: string }],
    initContainerStatuses: [{ name: 'sidecar', restartCount: 1, ready: false }],
  },
};

test('cachedPod keeps what the model reads and drops the bulk', () => {
  const c = cachedPod(pod);
  assert.deepEqual(c, {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: 'web-abcde', generateName: 'web-', namespace: 'shop', uid: 'u1', resourceVersion: '7',
      creationTimestamp: '2026-01-01T00:00:00Z', deletionTimestamp: null, labels: { app: 'web' },
      annotations: { 'controller.kubernetes.io/pod-deletion-cost': '5' },
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web', uid: 'rs1', controller: true }],
      finalizers: ['f'],
    },
    spec: { nodeName: 'node-1', initContainers: [{ name: 'sidecar', restartPolicy: 'Always' }], containers: [{ name: 'app', image: 'nginx:1.27' }] },
    status: {
      phase: 'Running',
      reason: 'Evicted',
      conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: '2026-01-01T00:00:05Z' }],
      containerStatuses: [{ name: 'app', restartCount: 3, ready: true }],
      initContainerStatuses: [{ name: 'sidecar', restartCount: 1, ready: false }],
    },
  });
  assert.ok('managedFields' in pod.metadata, 'the input object is not changed');
});

test('cachedPod keeps null and absent parts as they were', () => {
  assert.deepEqual(cachedPod({ metadata: { name: 'a' }, spec: null, status: null }), { metadata: { name: 'a' }, spec: null, status: null });
  assert.deepEqual(cachedPod({ metadata: { name: 'a' } }), { metadata: { name: 'a' } });
});

const src = { file: 'audit.log', line: 3 };

test('informerView projects observed pods and pod write bodies, and nothing else', () => {
  const obs = { type: 'observed', at: 1, atBasis: 'audit-stage', source: src, kind: 'Pod', watchType: 'ADDED', object: pod } as TimelineEvent;
  const v = informerView(obs) as { object: Pod };
  assert.deepEqual(v.object.spec?.containers, [{ name: 'app', image: 'nginx:1.27' }], 'name and image only');
  assert.equal(v.object.metadata.name, 'web-abcde');
  const create = { type: 'write', at: 1, atBasis: 'audit-stage', source: src, verb: 'create', resource: 'pods', requestObject: pod, responseObject: pod, status: { code: 201 } } as unknown as TimelineEvent;
  const w = informerView(create) as { requestObject: Pod; responseObject: Pod };
  assert.equal(w.requestObject.metadata.generateName, 'web-');
  assert.equal((w.responseObject.metadata as { managedFields?: unknown }).managedFields, undefined);
  // A delete's request is DeleteOptions and a status patch's request is a patch: left as they are.
  const patch = { metadata: { ownerReferences: [{ uid: 'rs1', $patch: 'delete' }] }, spec: { containers: [] } };
  const p = informerView({ ...create, verb: 'patch', requestObject: patch } as TimelineEvent) as { requestObject: unknown };
  assert.equal(p.requestObject, patch);
  const rsEvent = { ...obs, kind: 'ReplicaSet', object: { metadata: { name: 'web' }, spec: { template: { spec: { containers: [] } } } } } as TimelineEvent;
  assert.equal(informerView(rsEvent), rsEvent);
  const status = { ...create, verb: 'delete', responseObject: { kind: 'Status', metadata: {}, status: 'Success' } } as TimelineEvent;
  assert.equal(informerView(status), status);
});

test('cachedPod keeps a part of the wrong shape as it came, for the shape checks to report', () => {
  const odd = { metadata: { name: 'a' }, spec: { initContainers: 'sidecar' }, status: { containerStatuses: { web: {} }, initContainerStatuses: [null] } } as unknown as Pod;
  const c = cachedPod(odd) as unknown as { spec: { initContainers: unknown }; status: { containerStatuses: unknown; initContainerStatuses: unknown } };
  assert.equal(c.spec.initContainers, 'sidecar');
  assert.deepEqual(c.status.containerStatuses, { web: {} });
  assert.deepEqual(c.status.initContainerStatuses, [null]);
  assert.equal((cachedPod({ metadata: { name: 'a' }, spec: 'x', status: 7 } as unknown as Pod) as unknown as { spec: unknown }).spec, 'x');
});

test('an audit pod body of the wrong shape is an input problem, not a crash', async () => {
  const { auditFiles } = await import('../../src/pipeline/audit-files.js');
  const fs = await import('node:fs');
  const os = await import('node:os');
  const path = await import('node:path');
  const lines = fs.readFileSync('test/fixtures/audit/v1-requestresponse.log', 'utf8').split('\n');
  const i = lines.findIndex((l) => l.includes('"verb":"create"') && l.includes('"resource":"pods"') && l.includes('"responseObject"'));
  assert.ok(i >= 0, 'the fixture has a pod create with its response');
  const rec = JSON.parse(lines[i]!);
  rec.responseObject.status = { ...(rec.responseObject.status ?? {}), containerStatuses: { web: { ready: true } } };
  lines[i] = JSON.stringify(rec);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kexp-shape-'));
  const file = path.join(dir, 'audit.log');
  fs.writeFileSync(file, lines.join('\n'));
  const res = await auditFiles({ files: [file] });
  assert.ok(res.problems.some((p) => p.line === i + 1 && /containerStatuses is not a list of objects/.test(p.message)), JSON.stringify(res.problems));
});
