/**
 * Redaction by allow-list (src/sources/live/redaction.ts): a token hidden anywhere in a hostile
 * Pod, ReplicaSet, Deployment, Event, Secret or ConfigMap never survives, while every field the
 * analysis reads keeps its exact value; and `kexp record`'s writer applies it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { REDACTED, redactObject } from '../../src/sources/live/redaction.js';
import { RecordingWriter } from '../../src/sources/live/recording-writer.js';
import { hostileDeployment, hostilePod, hostileReplicaSet, POD_LABELS, TOKEN } from './redaction-hostile.js';

function leaks(x: unknown): boolean {
  return JSON.stringify(x).includes(TOKEN);
}

/** Redacts and checks the invariants every object must meet: no token, input untouched. */
function redact(obj: any): any {
  assert.ok(leaks(obj), 'the fixture holds the token (else the test proves nothing)');
  const before = JSON.stringify(obj);
  const out = redactObject(obj);
  assert.equal(JSON.stringify(obj), before, 'the input is not modified');
  assert.equal(leaks(out), false, `the token leaked: ${JSON.stringify(out).slice(0, 200)}`);
  return out;
}

test('Pod: the token is gone from args, command, env, probes, lifecycle, volumes, every container kind, annotations, statuses and managedFields', () => {
  const r = redact(hostilePod());
  const c = r.spec.containers[0];
  // Keys and shape stay; values are replaced.
  assert.deepEqual(c.args, [REDACTED, REDACTED]);
  assert.deepEqual(c.command, [REDACTED, REDACTED, REDACTED]);
  assert.deepEqual(c.env, [{ name: REDACTED, value: REDACTED }, { name: REDACTED, valueFrom: { secretKeyRef: { name: REDACTED, key: REDACTED } } }]);
  assert.deepEqual(c.readinessProbe.httpGet.httpHeaders, [{ name: REDACTED, value: REDACTED }]);
  assert.deepEqual(c.lifecycle.postStart.exec.command, [REDACTED, REDACTED]);
  assert.equal(c.image, REDACTED);
  assert.deepEqual(c.securityContext, { privileged: false, readOnlyRootFilesystem: true }, 'booleans carry no credential and are kept');
  assert.deepEqual(r.spec.volumes[0].flexVolume.options, { username: REDACTED, password: REDACTED });
  assert.deepEqual(r.spec.volumes[1].csi.volumeAttributes, { secretProviderClass: REDACTED, token: REDACTED });
  assert.deepEqual(r.spec.volumes[1].csi.nodePublishSecretRef, { name: REDACTED });
  assert.deepEqual(r.spec.initContainers[0].args, [REDACTED, REDACTED]);
  assert.deepEqual(r.spec.ephemeralContainers[0].command, [REDACTED, REDACTED, REDACTED]);
  assert.equal(r.spec.ephemeralContainers[0].targetContainerName, REDACTED);
  assert.deepEqual(r.spec.unknownFutureField, { deep: [{ deeper: REDACTED }] });
  assert.equal(r.status.message, REDACTED);
  assert.equal(r.status.podIP, REDACTED);
  assert.deepEqual(r.status.containerStatuses[0].state, { terminated: { exitCode: REDACTED, reason: REDACTED, message: REDACTED } });
  assert.equal(r.metadata.selfLink, REDACTED);
  // Annotation names are kept, their values replaced — except the allow-listed cost.
  assert.deepEqual(Object.keys(r.metadata.annotations).sort(), Object.keys(hostilePod().metadata.annotations).sort());
  for (const [k, v] of Object.entries(r.metadata.annotations)) {
    assert.equal(v, k === 'controller.kubernetes.io/pod-deletion-cost' ? '-5' : REDACTED, k);
  }
  // A "__proto__" key stays an own property (and redacted), never becomes the prototype.
  assert.equal(Object.getPrototypeOf(r.metadata.annotations), Object.prototype);
  assert.equal(Object.getOwnPropertyDescriptor(r.metadata.annotations, '__proto__')?.value, REDACTED);
  assert.equal(Object.getPrototypeOf(r.spec), Object.prototype);
  assert.deepEqual(Object.getOwnPropertyDescriptor(r.spec, '__proto__')?.value, { token: REDACTED });
  // managedFields: who/when kept, field paths cut to their top level.
  assert.deepEqual(r.metadata.managedFields, [{
    manager: 'kubectl-client-side-apply', operation: 'Update', apiVersion: 'v1', time: '2026-11-30T10:00:01Z', fieldsType: 'FieldsV1',
    fieldsV1: { 'f:metadata': {}, 'f:spec': {} },
  }]);
});

test('Pod: everything the analysis reads keeps its exact value', () => {
  const p = hostilePod();
  const r = redact(p);
  assert.equal(r.apiVersion, 'v1');
  assert.equal(r.kind, 'Pod');
  const { annotations: _a, managedFields: _m, selfLink: _s, ...identity } = p.metadata;
  const { annotations: _ra, managedFields: _rm, selfLink: _rs, ...kept } = r.metadata;
  assert.deepEqual(kept, identity, 'name, generateName, namespace, uid, resourceVersion, generation, timestamps, grace, labels, ownerReferences, finalizers');
  assert.deepEqual(r.metadata.labels, POD_LABELS);
  assert.equal(r.spec.nodeName, 'node-a');
  assert.deepEqual(r.spec.containers.map((c: any) => c.name), ['app']);
  assert.deepEqual(r.spec.initContainers.map((c: any) => [c.name, c.restartPolicy]), [['proxy', 'Always'], ['migrate', undefined]]);
  assert.equal(r.spec.ephemeralContainers[0].name, 'debugger');
  assert.equal(r.status.phase, 'Failed');
  assert.equal(r.status.reason, 'Evicted');
  assert.deepEqual(r.status.conditions, [{ type: 'Ready', status: 'True', lastTransitionTime: '2026-11-30T10:00:02Z', reason: REDACTED, message: REDACTED }]);
  const cs = r.status.containerStatuses[0];
  assert.deepEqual([cs.name, cs.ready, cs.started, cs.restartCount], ['app', true, true, 3]);
  assert.deepEqual(r.status.initContainerStatuses.map((s: any) => [s.name, s.restartCount]), [['proxy', 2]]);
});

test('Pod: nesting deeper than anything read is replaced whole, without exhausting the stack', () => {
  const cutDepth = (v: unknown) => {
    let depth = 0;
    while (Array.isArray(v)) {
      v = v[0];
      depth++;
    }
    return { depth, leaf: v };
  };
  const r = redact(hostilePod());
  const { depth, leaf } = cutDepth(r.spec.deep);
  assert.equal(leaf, REDACTED);
  assert.ok(depth < 100, `cut at depth ${depth}`);
  // Far deeper than JSON.stringify itself survives: the redactor never recurses past its limit.
  let deep: unknown = { token: TOKEN };
  for (let i = 0; i < 200_000; i++) deep = [deep];
  const out = redactObject({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { deep } }) as any;
  assert.deepEqual(cutDepth(out.spec.deep), { depth, leaf: REDACTED });
});

test('ReplicaSet: the template is redacted like a pod; replicas, selector, minReadySeconds, template labels, status and revision annotations are kept', () => {
  const rs = hostileReplicaSet();
  const r = redact(rs);
  assert.deepEqual(r.spec.selector, rs.spec.selector);
  assert.equal(r.spec.replicas, 3);
  assert.equal(r.spec.minReadySeconds, 10);
  assert.deepEqual(r.spec.template.metadata.labels, POD_LABELS);
  assert.equal(r.spec.template.metadata.creationTimestamp, null);
  assert.equal(r.spec.template.metadata.annotations['controller.kubernetes.io/pod-deletion-cost'], '10');
  assert.equal(r.spec.template.metadata.annotations['db-url'], REDACTED);
  assert.deepEqual(r.spec.template.spec.containers[0].args, [REDACTED, REDACTED]);
  assert.equal(r.spec.template.spec.initContainers[0].restartPolicy, 'Always');
  assert.deepEqual(r.status, rs.status, 'counts, observedGeneration and the ReplicaFailure condition with its message');
  assert.deepEqual(r.metadata.ownerReferences, rs.metadata.ownerReferences);
  const a = r.metadata.annotations;
  assert.deepEqual([a['deployment.kubernetes.io/revision'], a['deployment.kubernetes.io/desired-replicas'], a['deployment.kubernetes.io/max-replicas']], ['7', '3', '4']);
  assert.equal(a['kubectl.kubernetes.io/last-applied-configuration'], REDACTED);
  assert.equal(a['kubernetes.io/change-cause'], REDACTED);
  assert.equal(a.app, REDACTED, 'an annotation named like a label is still an annotation');
});

test('Deployment: replicas, selector, paused, template labels and conditions are kept; the strategy is not read and is replaced', () => {
  const d = hostileDeployment();
  const r = redact(d);
  assert.deepEqual([r.spec.replicas, r.spec.minReadySeconds, r.spec.paused], [3, 10, false]);
  assert.deepEqual(r.spec.selector, d.spec.selector);
  assert.deepEqual(r.spec.template.metadata.labels, POD_LABELS);
  assert.deepEqual(r.spec.strategy, { type: REDACTED, rollingUpdate: { maxSurge: REDACTED, maxUnavailable: REDACTED } });
  assert.deepEqual(r.status, d.status);
  assert.deepEqual(r.spec.template.spec.volumes[1].csi.volumeAttributes, { secretProviderClass: REDACTED, token: REDACTED });
});

test('Events: a ReplicaSet\'s keep their message; others (a kubelet echoing a command line) lose it; the reference, reason, counts and times stay', () => {
  const base = {
    apiVersion: 'v1', kind: 'Event',
    metadata: { name: 'web.1', namespace: 'shop', uid: 'ev-1', resourceVersion: '9', creationTimestamp: '2026-11-30T10:00:00Z', annotations: { note: TOKEN } },
    reason: 'SuccessfulCreate', type: 'Normal', count: 2, firstTimestamp: '2026-11-30T10:00:00Z', lastTimestamp: '2026-11-30T10:00:05Z', eventTime: null,
    source: { component: 'replicaset-controller', host: `node-${TOKEN}` }, reportingComponent: 'replicaset-controller', reportingInstance: TOKEN,
    related: { kind: 'Pod', name: TOKEN },
  };
  const rsRef = { kind: 'ReplicaSet', namespace: 'shop', name: 'web-7d9c6b8f5d', uid: 'rs-uid-0001', apiVersion: 'apps/v1', resourceVersion: '100' };
  const rsEvent = { ...base, involvedObject: rsRef, message: 'Created pod: web-7d9c6b8f5d-x2k4q' };
  const r1 = redact({ ...rsEvent, extra: TOKEN });
  const { extra: _e, ...kept } = r1;
  assert.equal(_e, REDACTED);
  assert.deepEqual(kept, {
    ...rsEvent,
    related: { kind: REDACTED, name: REDACTED },
    metadata: { ...base.metadata, annotations: { note: REDACTED } },
    source: { component: 'replicaset-controller', host: REDACTED }, reportingInstance: REDACTED,
  });
  const podRef = { kind: 'Pod', namespace: 'shop', name: 'web-7d9c6b8f5d-x2k4q', uid: 'pod-uid-0001', apiVersion: 'v1', fieldPath: 'spec.containers{app}' };
  const r2 = redact({ ...base, reason: 'Failed', type: 'Warning', involvedObject: podRef, message: `Error: failed to start container "app": exec: "migrate --password=${TOKEN}": not found` });
  assert.equal(r2.message, REDACTED);
  assert.deepEqual(r2.involvedObject, podRef);
  assert.equal(r2.reason, 'Failed');
  // events.k8s.io/v1: regarding/note/deprecated* (the normaliser maps them to the core shape).
  const v1 = {
    apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: base.metadata, regarding: rsRef, note: 'Deleted pod: web-7d9c6b8f5d-x2k4q', reason: 'SuccessfulDelete', type: 'Normal',
    deprecatedCount: 3, deprecatedFirstTimestamp: '2026-11-30T10:00:00Z', deprecatedLastTimestamp: '2026-11-30T10:00:09Z', deprecatedSource: { component: 'replicaset-controller' },
    eventTime: '2026-11-30T10:00:00.123456Z', series: { count: 3, lastObservedTime: '2026-11-30T10:00:09.000001Z' }, reportingController: 'replicaset-controller', reportingInstance: TOKEN,
  };
  const r3 = redact(v1);
  assert.deepEqual({ ...r3, metadata: v1.metadata, reportingInstance: TOKEN }, v1);
  assert.equal(r3.reportingInstance, REDACTED);
  assert.equal(redact({ ...v1, regarding: podRef, note: TOKEN }).note, REDACTED);
});

test('Namespace keeps phase, conditions and deletion; Lease and ResourceQuota keep what `kexp explain` reads', () => {
  const ns = {
    apiVersion: 'v1', kind: 'Namespace',
    metadata: { name: 'shop', uid: 'ns-1', resourceVersion: '5', creationTimestamp: '2026-11-30T09:00:00Z', deletionTimestamp: '2026-11-30T10:00:00Z', labels: { 'kubernetes.io/metadata.name': 'shop' }, annotations: { owner: TOKEN } },
    spec: { finalizers: ['kubernetes'] },
    status: { phase: 'Terminating', conditions: [{ type: 'NamespaceContentRemaining', status: 'True', reason: 'SomeResourcesRemain', message: 'Some resources are remaining: pods. has 3 resource instances', lastTransitionTime: '2026-11-30T10:00:01Z' }] },
  };
  const r = redact(ns);
  assert.deepEqual(r.status, ns.status);
  assert.deepEqual(r.metadata, { ...ns.metadata, annotations: { owner: REDACTED } });
  const lease = {
    apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'kube-controller-manager', namespace: 'kube-system', annotations: { x: TOKEN } },
    spec: { holderIdentity: 'cp-1_5f2e', leaseDurationSeconds: 15, acquireTime: '2026-11-30T09:00:00.000000Z', renewTime: '2026-11-30T10:00:00.000000Z', leaseTransitions: 4, strategy: TOKEN },
  };
  assert.deepEqual(redact(lease).spec, { ...lease.spec, strategy: REDACTED });
  const quota = {
    apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'pods', namespace: 'shop' },
    spec: { hard: { pods: '2' }, scopeSelector: { matchExpressions: [{ scopeName: TOKEN }] } }, status: { hard: { pods: '2' }, used: { pods: '2' } },
  };
  const rq = redact(quota);
  assert.deepEqual([rq.spec.hard, rq.status], [quota.spec.hard, quota.status]);
});

test('Secret, ConfigMap and unknown kinds keep identity only: data values, label values and everything else are replaced', () => {
  const meta = { name: 'db', namespace: 'shop', uid: 's-1', resourceVersion: '3', creationTimestamp: '2026-11-30T09:00:00Z', labels: { team: TOKEN }, annotations: { 'controller.kubernetes.io/pod-deletion-cost': TOKEN } };
  const secret = redact({ apiVersion: 'v1', kind: 'Secret', metadata: meta, type: 'Opaque', data: { password: Buffer.from(TOKEN).toString('base64'), plain: TOKEN }, stringData: { url: TOKEN } });
  assert.deepEqual(secret, {
    apiVersion: 'v1', kind: 'Secret',
    metadata: { ...meta, labels: { team: REDACTED }, annotations: { 'controller.kubernetes.io/pod-deletion-cost': REDACTED } },
    type: REDACTED, data: { password: REDACTED, plain: REDACTED }, stringData: { url: REDACTED },
  });
  assert.equal(JSON.stringify(secret).includes(Buffer.from(TOKEN).toString('base64')), false);
  const cm = redact({ apiVersion: 'v1', kind: 'ConfigMap', metadata: meta, data: { 'app.properties': `db.password=${TOKEN}` }, binaryData: { blob: TOKEN } });
  assert.deepEqual([cm.data, cm.binaryData, cm.metadata.name], [{ 'app.properties': REDACTED }, { blob: REDACTED }, 'db']);
  // No kind at all: nothing beyond identity either (a Pod spec is not trusted without its kind).
  const bare = redact({ metadata: { name: 'x', namespace: 'shop', uid: 'u' }, spec: hostilePod().spec });
  assert.equal(bare.spec.nodeName, REDACTED);
  // A Secret stamped as a Pod (a lying list response) still loses its data: Pods keep no `data`.
  assert.deepEqual(redact({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'db', namespace: 'shop' }, data: { token: TOKEN } }).data, { token: REDACTED });
});

test('BOOKMARK objects keep their resourceVersion and the initial-events-end marker', () => {
  const bm = { kind: 'Pod', apiVersion: 'v1', metadata: { resourceVersion: '12345', annotations: { 'k8s.io/initial-events-end': 'true', other: TOKEN } } };
  assert.deepEqual(redact(bm).metadata, { resourceVersion: '12345', annotations: { 'k8s.io/initial-events-end': 'true', other: REDACTED } });
});

test('the recording writer redacts every object by default and only then (`--no-redact` writes them verbatim)', (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kexp-redact-writer-'));
  const header = { kexpVersion: '0.1.0', startedAt: '2026-11-30T10:00:00.000000Z', watches: [{ resource: 'pods', namespace: 'shop' }] };
  const write = (file: string, redact: boolean) => {
    const w = new RecordingWriter(file, { ...header, redacted: redact }, redact);
    w.event('pods', 'ADDED', hostilePod(), Date.UTC(2026, 10, 30, 10, 0, 1));
    w.event('replicasets', 'ADDED', hostileReplicaSet(), Date.UTC(2026, 10, 30, 10, 0, 2));
    w.close('duration', Date.UTC(2026, 10, 30, 10, 0, 3));
    return fs.readFileSync(file, 'utf8');
  };
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const redacted = write(path.join(dir, 'r.kexp.jsonl'), true);
  assert.equal(redacted.includes(TOKEN), false);
  const lines = redacted.trim().split('\n').map((l) => JSON.parse(l));
  assert.equal(lines.length, 4);
  assert.equal(lines[0].redacted, true);
  assert.equal(lines[1].event.object.spec.nodeName, 'node-a');
  assert.equal(lines[2].event.object.spec.replicas, 3);
  const verbatim = write(path.join(dir, 'v.kexp.jsonl'), false);
  assert.ok(verbatim.includes(`"args":["--token=${TOKEN}"`), 'without redaction the object is written as received');
});
