import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { actorOf, BoundedMap, PodOwnerTracker, userAgentClient } from '../../src/sources/audit/attribution.js';
import { AuditNormaliser, classifyValue } from '../../src/sources/audit/normalise.js';
import { parseMicroTime } from '../../src/sources/audit/micro-time.js';
import type { AuditRecord } from '../../src/sources/audit/record.js';
import { parseGkeMethod, parseGkeResourceName } from '../../src/sources/envelope/gke.js';
import { ReorderBuffer } from '../../src/sources/audit/reorder.js';

describe('parseMicroTime', () => {
  it('keeps microseconds as a fraction of a millisecond', () => {
    assert.equal(parseMicroTime('2025-03-04T10:15:02.131977Z'), Date.parse('2025-03-04T10:15:02.131Z') + 0.977);
    assert.equal(parseMicroTime('2025-03-04T10:15:02.000001Z'), Date.parse('2025-03-04T10:15:02Z') + 0.001);
  });
  it('accepts seconds, other fraction lengths and offsets; rejects garbage', () => {
    assert.equal(parseMicroTime('2017-09-11T19:55:05Z'), Date.parse('2017-09-11T19:55:05Z'));
    assert.equal(parseMicroTime('2025-03-04T10:15:02.5Z'), Date.parse('2025-03-04T10:15:02.500Z'));
    assert.equal(parseMicroTime('2025-03-04T12:15:02.131977+02:00'), Date.parse('2025-03-04T10:15:02.131Z') + 0.977);
    assert.equal(parseMicroTime('2025-03-04T10:15:02.1320000Z'), Date.parse('2025-03-04T10:15:02.132Z'));
    assert.equal(parseMicroTime('yesterday'), undefined);
    assert.equal(parseMicroTime('2025-03-04T10:15:61.000000Z'), undefined);
    assert.equal(parseMicroTime('2025-03-04T10:15:0x.000000Z'), undefined);
    // the minute cache must not leak between different minutes
    assert.equal(parseMicroTime('2025-03-04T10:16:00.000001Z'), Date.parse('2025-03-04T10:16:00Z') + 0.001);
    assert.equal(parseMicroTime('2025-03-04T10:15:59.999999Z'), Date.parse('2025-03-04T10:15:59.999Z') + 0.999);
    assert.equal(parseMicroTime(17), undefined);
  });
});

describe('GKE method and resource names', () => {
  it('parses methodName', () => {
    assert.deepEqual(parseGkeMethod('io.k8s.core.v1.pods.create'), { group: '', version: 'v1', resource: 'pods', verb: 'create' });
    assert.deepEqual(parseGkeMethod('io.k8s.apps.v1.replicasets.status.update'), {
      group: 'apps',
      version: 'v1',
      resource: 'replicasets',
      subresource: 'status',
      verb: 'update',
    });
    assert.deepEqual(parseGkeMethod('io.k8s.authorization.rbac.v1.clusterroles.create'), {
      group: 'authorization.rbac',
      version: 'v1',
      resource: 'clusterroles',
      verb: 'create',
    });
    assert.equal(parseGkeMethod('google.container.v1.ClusterManager.CreateCluster'), undefined);
  });
  it('parses resourceName (namespaced, the namespace itself, cluster-scoped)', () => {
    const pods = parseGkeMethod('io.k8s.core.v1.pods.create')!;
    assert.deepEqual(parseGkeResourceName('core/v1/namespaces/shop/pods/web-7d9c6b8f5d-x2k9p', pods), {
      apiGroup: '',
      apiVersion: 'v1',
      resource: 'pods',
      namespace: 'shop',
      name: 'web-7d9c6b8f5d-x2k9p',
    });
    assert.deepEqual(parseGkeResourceName('core/v1/namespaces/shop/pods', pods), { apiGroup: '', apiVersion: 'v1', resource: 'pods', namespace: 'shop' });
    const ns = parseGkeMethod('io.k8s.core.v1.namespaces.delete')!;
    assert.deepEqual(parseGkeResourceName('core/v1/namespaces/shop', ns), { apiGroup: '', apiVersion: 'v1', resource: 'namespaces', name: 'shop' });
    const nodes = parseGkeMethod('io.k8s.core.v1.nodes.patch')!;
    assert.deepEqual(parseGkeResourceName('core/v1/nodes/node-a', nodes), { apiGroup: '', apiVersion: 'v1', resource: 'nodes', name: 'node-a' });
  });
});

describe('classifyValue', () => {
  it('names audit wrappers and non-audit shapes', () => {
    assert.deepEqual(classifyValue({ kind: 'Event', apiVersion: 'audit.k8s.io/v1', stage: 'ResponseComplete' }), { audit: true, format: 'audit-log', apiVersion: 'audit.k8s.io/v1' });
    assert.deepEqual(classifyValue({ kind: 'Event', auditID: 'x', stage: 'ResponseComplete' }), { audit: true, format: 'audit-log' });
    assert.deepEqual(classifyValue({ records: [] }), { audit: true, format: 'aks' });
    assert.deepEqual(classifyValue({ messageType: 'CONTROL_MESSAGE' }), { audit: true, format: 'eks' });
    assert.deepEqual(classifyValue([{ protoPayload: {} }]), { audit: true, format: 'gke' });
    const watch = classifyValue({ type: 'MODIFIED', object: {} });
    assert.equal(watch.audit, false);
    assert.match(!watch.audit ? watch.hint : '', /kexp replay/);
    const ev = classifyValue({ kind: 'Event', apiVersion: 'v1', involvedObject: {} });
    assert.match(!ev.audit ? ev.what : '', /Kubernetes Event object/);
  });
});

describe('AuditNormaliser problems', () => {
  function run(v: unknown): { recs: AuditRecord[]; problems: Array<[number, string]>; skipped: string[] } {
    const problems: Array<[number, string]> = [];
    const skipped: string[] = [];
    const recs: AuditRecord[] = [];
    new AuditNormaliser({ problem: (l, m) => problems.push([l, m]), skipped: (r) => skipped.push(r) }).fromValue(v, 7, recs);
    return { recs, problems, skipped };
  }
  it('reports unknown wrapper shapes and bad records with the line', () => {
    assert.deepEqual(run({ hello: 'world' }).problems, [[7, 'not an audit event: an unrecognised JSON object (keys: hello)']]);
    assert.deepEqual(run({ kind: 'Event', apiVersion: 'audit.k8s.io/v1', verb: 'get' }).problems, [[7, 'audit event without a valid stage (null)']]);
    assert.deepEqual(run({ records: [{ category: 'kube-audit', properties: { log: '{"kind":' } }] }).problems, [
      [7, 'records[].properties.log is not valid JSON (Unexpected end of JSON input)'],
    ]);
    assert.deepEqual(run({ protoPayload: { '@type': 'type.googleapis.com/google.cloud.audit.AuditLog', serviceName: 'container.googleapis.com' } }).skipped, ['gke-non-kubernetes']);
  });
});

describe('actorOf', () => {
  const rec = (username: string, userAgent?: string, impersonated?: string) =>
    ({ user: { username }, ...(userAgent ? { userAgent } : {}), ...(impersonated ? { impersonatedUser: { username: impersonated } } : {}) }) as Pick<
      AuditRecord,
      'user' | 'userAgent' | 'impersonatedUser'
    >;
  const name = (u: string, ua?: string) => actorOf(rec(u, ua)).name;

  it('recognises the RS controller both ways', () => {
    assert.equal(actorOf(rec('system:serviceaccount:kube-system:replicaset-controller')).controller, 'replicaset-controller');
    assert.equal(
      actorOf(rec('system:kube-controller-manager', 'kube-controller-manager/v1.31.2 (linux/amd64) kubernetes/5864a46/replicaset-controller')).controller,
      'replicaset-controller',
    );
    // A different KCM client with root credentials is not the RS controller: it is named as itself.
    assert.equal(
      actorOf(rec('system:kube-controller-manager', 'kube-controller-manager/v1.31.2 (linux/amd64) kubernetes/5864a46/replication-controller')).controller,
      'replication-controller',
    );
    // Someone else pretending with a user agent is not it either.
    assert.equal(actorOf(rec('alice', 'kube-controller-manager/v1.31.2 (linux/amd64) kubernetes/5864a46/replicaset-controller')).controller, undefined);
  });

  it('names other actors', () => {
    const kcm = (c: string) => `kube-controller-manager/v1.31.2 (linux/amd64) kubernetes/5864a46/${c}`;
    assert.equal(name('system:serviceaccount:kube-system:replication-controller'), 'replicationcontroller');
    assert.equal(name('system:serviceaccount:kube-system:daemon-set-controller'), 'daemonset-controller');
    assert.equal(name('system:serviceaccount:kube-system:job-controller'), 'job-controller');
    assert.equal(name('system:serviceaccount:kube-system:deployment-controller'), 'deployment-controller');
    assert.equal(name('system:serviceaccount:kube-system:generic-garbage-collector'), 'garbage-collector');
    assert.equal(name('system:kube-controller-manager', kcm('shared-informers')), 'shared-informers');
    assert.equal(name('system:kube-controller-manager', kcm('generic-garbage-collector')), 'garbage-collector');
    assert.equal(name('system:kube-controller-manager', kcm('endpointslice-controller')), 'kube-controller-manager');
    assert.equal(name('system:kube-controller-manager'), 'kube-controller-manager');
    assert.equal(name('system:serviceaccount:kube-system:coredns'), 'other');
    assert.equal(name('system:kube-scheduler'), 'scheduler');
    assert.deepEqual(actorOf(rec('system:node:node-a', 'kubelet/v1.33.1 (linux/amd64) kubernetes/8adc0f0')), {
      username: 'system:node:node-a',
      userAgent: 'kubelet/v1.33.1 (linux/amd64) kubernetes/8adc0f0',
      name: 'kubelet',
      node: 'node-a',
    });
    // Impersonation: the real (authenticated) user made the request; the impersonated one is
    // named beside it, and impersonating a controller does not make the write the controller's.
    assert.deepEqual(actorOf(rec('system:admin', undefined, 'bob')), { username: 'system:admin', impersonated: 'bob', name: 'other' });
    const asController = actorOf(rec('alice', 'kubectl/v1.37.2', 'system:serviceaccount:kube-system:replicaset-controller'));
    assert.equal(asController.controller, undefined);
    assert.equal(asController.name, 'other');
    assert.equal(asController.username, 'alice');
  });

  it('userAgentClient', () => {
    assert.equal(userAgentClient('kube-controller-manager/v1.28.14 (linux/amd64) kubernetes/a4ef1a6/system:serviceaccount:kube-system:replicaset-controller'), 'replicaset-controller');
    assert.equal(userAgentClient('kubectl/v1.33.1 (linux/amd64) kubernetes/8adc0f0'), undefined);
    assert.equal(userAgentClient(undefined), undefined);
  });
});

describe('PodOwnerTracker', () => {
  const RS = { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-7d9c6b8f5d', uid: 'rs-1', controller: true };
  const base = (verb: string, extra: Partial<AuditRecord>): AuditRecord => ({
    line: 1,
    origin: 'log',
    apiVersion: 'audit.k8s.io/v1',
    stage: 'ResponseComplete',
    verb,
    user: { username: 'x' },
    objectRef: { apiGroup: '', resource: 'pods', namespace: 'shop', name: 'p1' },
    ...extra,
  });

  it('adoption and release patches at Request level', () => {
    const t = new PodOwnerTracker();
    const adopt = t.observe(base('patch', { requestObject: { metadata: { ownerReferences: [RS], uid: 'pod-1' } } }), true, 'p1');
    assert.deepEqual(adopt, { state: 'owned', kind: 'ReplicaSet', name: 'web-7d9c6b8f5d', uid: 'rs-1', basis: 'patch' });
    const release = t.observe(base('patch', { requestObject: { metadata: { ownerReferences: [{ $patch: 'delete', uid: 'rs-1' }], uid: 'pod-1' } } }), true, 'p1');
    assert.deepEqual(release, { state: 'owned', kind: 'ReplicaSet', name: 'web-7d9c6b8f5d', uid: 'rs-1', basis: 'earlier-state' });
    assert.deepEqual(t.observe(base('delete', {}), true, 'p1'), { state: 'none', basis: 'earlier-state' });
  });

  it('a delete precondition for another uid makes the owner unknown', () => {
    const t = new PodOwnerTracker();
    t.observe(base('update', { requestObject: { kind: 'Pod', metadata: { name: 'p1', uid: 'old', ownerReferences: [RS] } } }), true, 'p1');
    const del = t.observe(base('delete', { requestObject: { kind: 'DeleteOptions', preconditions: { uid: 'new' } } }), true, 'p1');
    assert.deepEqual(del, { state: 'unknown' });
  });

  it('binding/eviction bodies are not pod bodies', () => {
    const t = new PodOwnerTracker();
    const b = t.observe(
      base('create', { objectRef: { apiGroup: '', resource: 'pods', namespace: 'shop', name: 'p1', subresource: 'binding' }, requestObject: { kind: 'Binding', metadata: { name: 'p1' } } }),
      true,
      'p1',
    );
    assert.deepEqual(b, { state: 'unknown' });
  });

  it('is bounded', () => {
    const t = new PodOwnerTracker(2);
    for (const n of ['a', 'b', 'c']) t.observe(base('update', { requestObject: { kind: 'Pod', metadata: { name: n, ownerReferences: [RS] } } }), true, n);
    assert.equal(t.evicted, 1);
    assert.deepEqual(t.observe(base('delete', {}), true, 'a'), { state: 'unknown' });
    assert.equal(t.observe(base('delete', {}), true, 'c').state, 'owned');
  });
});

describe('BoundedMap and ReorderBuffer', () => {
  it('BoundedMap evicts the oldest entry; a re-set refreshes', () => {
    const m = new BoundedMap<string, number>(2);
    m.set('a', 1);
    m.set('b', 2);
    m.set('a', 3);
    m.set('c', 4);
    assert.deepEqual([...m.values()], [3, 4]);
    assert.equal(m.evicted, 1);
  });

  it('ReorderBuffer releases after the window, in (at, arrival) order, and counts late items', () => {
    const b = new ReorderBuffer<{ at: number; id: string }>(10);
    const out: string[] = [];
    const push = (at: number, id: string) => {
      b.push({ at, id });
      for (const x of b.drain()) out.push(x.id);
    };
    push(100, 'a');
    push(105, 'c');
    push(103, 'b');
    push(105, 'd');
    assert.deepEqual([...out], []);
    push(116, 'e');
    assert.deepEqual([...out], ['a', 'b', 'c', 'd']);
    push(90, 'late');
    assert.deepEqual([...out], ['a', 'b', 'c', 'd', 'late']);
    assert.equal(b.late, 1);
    assert.equal(b.maxLateMs, 15);
    for (const x of b.drain(true)) out.push(x.id);
    assert.deepEqual(out.slice(-1), ['e']);
  });
});
