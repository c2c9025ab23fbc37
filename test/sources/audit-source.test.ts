import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { describe, it } from 'node:test';
import { gzipSync } from 'node:zlib';
import { openAuditSource } from '../../src/sources/audit/audit-source.js';
import { InputError } from '../../src/sources/source.js';
import { at, collect, fx, shape, withoutSource } from '../fixtures/audit/helpers.js';

const RS_UID = 'a1b2c3d4-1111-4222-8333-944455556666';
const RS_SA = 'system:serviceaccount:kube-system:replicaset-controller';
const RS_SA_UA = 'kube-controller-manager/v1.33.1 (linux/amd64) kubernetes/8adc0f0/system:serviceaccount:kube-system:replicaset-controller';
const RS_OWNER = { state: 'owned', kind: 'ReplicaSet', name: 'web-7d9c6b8f5d', uid: RS_UID } as const;
const QUOTA_MSG = 'pods "web-7d9c6b8f5d-m5n8w" is forbidden: exceeded quota: compute, requested: pods=1, used: pods=10, limited: pods=10';
const NS_TERM_MSG = 'pods "web-7d9c6b8f5d-" is forbidden: unable to create new content in namespace shop because it is being terminated';

const MAIN_ORDER = [
  'W:3:create:pods:201',
  'O:3:Pod:ADDED',
  'W:4:create:events:201',
  'O:4:Event:ADDED',
  'W:5:create:pods:403',
  'W:6:update:replicasets/status:200',
  'O:6:ReplicaSet:MODIFIED',
  'W:7:patch:pods/status:200',
  'O:7:Pod:MODIFIED',
  // line 9 completed 10 ms before line 8 but was written after it: reordered
  'W:9:patch:events:200',
  'O:9:Event:MODIFIED',
  'W:8:delete:pods:200',
  'O:8:Pod:MODIFIED',
  'W:10:delete:pods:200',
  'O:10:Pod:DELETED',
  'W:11:patch:pods:200',
  'O:11:Pod:MODIFIED',
  'W:12:delete:namespaces:200',
  'O:12:Namespace:MODIFIED',
  'W:13:create:pods:403',
  'W:14:update:replicasets/status:409',
  'W:15:update:replicasets:200',
  'O:15:ReplicaSet:MODIFIED',
  'W:16:update:replicasets:200',
  'W:17:create:pods:500',
  'W:18:create:pods:201',
  'W:22:delete:replicasets:200',
  'O:22:ReplicaSet:DELETED',
  'W:23:update:resourcequotas/status:200',
  'W:24:deletecollection:pods:200',
  'O:24:Pod:MODIFIED',
];

describe('audit source: v1 RequestResponse log (input-formats §1.6–1.9)', async () => {
  const r = await collect(fx('v1-requestresponse.log'));
  const byLine = (line: number) => r.writes.find((w) => w.source.line === line)!;
  const obsLine = (line: number) => r.observed.filter((o) => o.source.line === line);

  it('emits writes and observations in stageTimestamp order', () => {
    assert.deepEqual(shape(r.events), MAIN_ORDER);
    for (let i = 1; i < r.events.length; i++) assert.ok(r.events[i]!.at >= r.events[i - 1]!.at, `event ${i} out of order`);
    assert.deepEqual(r.problems, []);
  });

  it('pod create by the RS controller: fields, µs times, actor, owner', () => {
    const w = byLine(3);
    assert.equal(w.at, at('10:15:02.131977'));
    assert.equal(w.receivedAt, at('10:15:02.118204'));
    assert.equal(w.at, Date.parse('2025-03-04T10:15:02.131Z') + 0.977);
    assert.equal(w.atBasis, 'audit-stage');
    assert.deepEqual(w.source, { file: fx('v1-requestresponse.log'), line: 3 });
    assert.equal(w.auditID, '3f1c2a9e-5b7d-4c1a-9e2f-7a6b5c4d3e21');
    assert.deepEqual(w.actor, {
      username: RS_SA,
      userAgent: RS_SA_UA,
      controller: 'replicaset-controller',
      name: 'replicaset-controller',
      component: 'replicaset-controller',
    });
    assert.equal(w.verb, 'create');
    assert.equal(w.resource, 'pods');
    assert.equal(w.apiGroup, '');
    assert.equal(w.namespace, 'shop');
    // objectRef has no name for a generateName create; the name comes from the responseObject
    assert.equal(w.name, 'web-7d9c6b8f5d-x2k9p');
    assert.deepEqual(w.status, { code: 201 });
    assert.equal(w.level, 'RequestResponse');
    assert.equal(w.stage, 'ResponseComplete');
    assert.deepEqual(w.owner, { ...RS_OWNER, basis: 'response' });
    assert.equal((w.requestObject as { metadata: { generateName: string } }).metadata.generateName, 'web-7d9c6b8f5d-');
    assert.equal((w.responseObject as { metadata: { uid: string } }).metadata.uid, '5e6f7a8b-2222-4333-8444-955566667777');
    assert.equal(w.annotations?.['authorization.k8s.io/decision'], 'allow');
    const [o] = obsLine(3);
    assert.equal(o!.kind, 'Pod');
    assert.equal(o!.watchType, 'ADDED');
    assert.equal(o!.at, w.at);
    assert.equal(o!.atBasis, 'audit-stage');
    assert.equal(o!.object, w.responseObject);
  });

  it('quota 403: status, no name, owner from the request body, no observation', () => {
    const w = byLine(5);
    assert.deepEqual(w.status, { code: 403, reason: 'Forbidden', message: QUOTA_MSG });
    assert.equal(w.name, undefined);
    assert.deepEqual(w.owner, { ...RS_OWNER, basis: 'request' });
    assert.equal(w.actor.controller, 'replicaset-controller');
    assert.deepEqual(obsLine(5), []);
  });

  it('NamespaceTerminating 403 carries details.causes (JSON key reason → type)', () => {
    const w = byLine(13);
    assert.deepEqual(w.status, {
      code: 403,
      reason: 'Forbidden',
      message: NS_TERM_MSG,
      causes: [{ type: 'NamespaceTerminating', message: 'namespace shop is being terminated', field: 'metadata.namespace' }],
    });
  });

  it('RS status update, 409 conflict, and a deployment-controller update (root credentials + UA suffix)', () => {
    const s = byLine(6);
    assert.equal(s.subresource, 'status');
    assert.equal(s.apiGroup, 'apps');
    assert.equal(s.name, 'web-7d9c6b8f5d');
    assert.equal(s.actor.controller, 'replicaset-controller');
    assert.equal((obsLine(6)[0]!.object.metadata as { resourceVersion: string }).resourceVersion, '48214');
    const c = byLine(14);
    assert.deepEqual(c.status.code, 409);
    assert.equal(c.status.reason, 'Conflict');
    const d = byLine(15);
    assert.deepEqual(d.actor, {
      username: 'system:kube-controller-manager',
      userAgent: 'kube-controller-manager/v1.31.2 (linux/amd64) kubernetes/5864a46/deployment-controller',
      name: 'deployment-controller',
      component: 'deployment-controller',
    });
  });

  it('graceful delete → MODIFIED (deletionTimestamp set); kubelet final delete → DELETED', () => {
    const g = byLine(8);
    assert.equal(g.actor.controller, 'replicaset-controller');
    assert.deepEqual(g.owner, { ...RS_OWNER, basis: 'response' });
    const [gm] = obsLine(8);
    assert.equal(gm!.watchType, 'MODIFIED');
    assert.equal(gm!.object.metadata.deletionTimestamp, '2025-03-04T10:15:33Z');
    const k = byLine(10);
    assert.equal(k.actor.name, 'kubelet');
    assert.equal(k.actor.node, 'node-a');
    assert.equal(k.actor.controller, undefined);
    assert.deepEqual(k.requestObject, {
      kind: 'DeleteOptions',
      apiVersion: 'meta.k8s.io/v1',
      gracePeriodSeconds: 0,
      preconditions: { uid: '9a8b7c6d-3333-4444-8555-a66677778888' },
    });
    const [km] = obsLine(10);
    assert.equal(km!.watchType, 'DELETED');
    assert.equal(km!.object.metadata.resourceVersion, '48390');
  });

  it('adoption patch: owner after the patch', () => {
    const w = byLine(11);
    assert.equal(w.verb, 'patch');
    assert.deepEqual(w.owner, { ...RS_OWNER, basis: 'response' });
    assert.equal(obsLine(11)[0]!.watchType, 'MODIFIED');
  });

  it('namespace delete kept alive by spec.finalizers → MODIFIED (Terminating)', () => {
    const [o] = obsLine(12);
    assert.equal(o!.kind, 'Namespace');
    assert.equal(o!.watchType, 'MODIFIED');
    assert.equal(byLine(12).actor.name, 'other');
  });

  it('no-op update (same resourceVersion), Panic, dry run: writes without observations', () => {
    assert.deepEqual(obsLine(16), []);
    assert.equal(r.source.summary().noopWrites, 1);
    const p = byLine(17);
    assert.equal(p.stage, 'Panic');
    assert.equal(p.status.code, 500);
    assert.equal(p.status.reason, 'InternalError');
    assert.equal(byLine(18).name, 'debug-pod');
    assert.deepEqual(obsLine(18), []);
  });

  it('RS delete answered with a Status → DELETED with the last RS seen in the log', () => {
    const w = byLine(22);
    assert.equal(w.actor.name, 'garbage-collector');
    assert.equal(w.actor.component, 'generic-garbage-collector');
    const [o] = obsLine(22);
    assert.equal(o!.kind, 'ReplicaSet');
    assert.equal(o!.watchType, 'DELETED');
    const rs = o!.object as { metadata: { resourceVersion: string }; spec: { replicas: number } };
    assert.equal(rs.metadata.resourceVersion, '48420');
    assert.equal(rs.spec.replicas, 0);
  });

  it('deletecollection: one observation per returned item', () => {
    const w = byLine(24);
    assert.equal(w.actor.name, 'namespace-controller');
    assert.deepEqual(w.owner, { state: 'unknown' });
    assert.deepEqual(
      obsLine(24).map((o) => [o.kind, o.watchType, o.object.metadata.name]),
      [['Pod', 'MODIFIED', 'web-7d9c6b8f5d-x2k9p']],
    );
  });

  it('Events not about a ReplicaSet (kubelet Pulled, line 19) are dropped by default', () => {
    assert.equal(r.writes.some((w) => w.source.line === 19), false);
  });

  it('summary: counts, range, levels, incomplete request', () => {
    const s = r.source.summary();
    assert.equal(s.format, 'audit-log');
    assert.equal(s.compressed, false);
    assert.deepEqual(s.apiVersions, ['audit.k8s.io/v1']);
    assert.deepEqual(s.levels, ['Request', 'RequestResponse']);
    assert.deepEqual(s.stages, { RequestReceived: 2, ResponseComplete: 18, Panic: 1 });
    assert.equal(s.start, at('10:15:02.050000'));
    assert.equal(s.end, at('10:15:07.000000'));
    assert.equal(s.linesRead, 25);
    assert.equal(s.linesSkippedByPrefilter, 4);
    assert.equal(s.malformedLines, 0);
    assert.equal(s.auditRecords, 21);
    assert.equal(s.writeEvents, 19);
    assert.equal(s.observedEvents, 12);
    assert.equal(s.rsControllerWrites, 10);
    assert.deepEqual(s.outOfOrder, { count: 0, maxLateMs: 0 });
    assert.deepEqual(s.incomplete, {
      count: 1,
      examples: [
        {
          line: 21,
          auditID: '11111111-0000-4000-8000-000000000021',
          stage: 'RequestReceived',
          verb: 'delete',
          resource: 'pods',
          namespace: 'shop',
          name: 'web-7d9c6b8f5d-zz9x8',
          at: at('10:15:06.650000'),
        },
      ],
    });
    assert.deepEqual(r.warnings, [
      `${fx('v1-requestresponse.log')}: 1 request(s) on pods/replicasets/… were received but never completed in this file ` +
        `(no ResponseComplete/Panic — apiserver restart or truncated log); e.g. ${fx('v1-requestresponse.log')}:21 RequestReceived delete pods shop/web-7d9c6b8f5d-zz9x8`,
    ]);
    const cov = r.source.coverage();
    assert.equal(cov.format, 'audit:audit-log');
    assert.equal(cov.timeBasis, 'audit-stage');
    assert.equal(cov.events, 31);
    assert.equal(cov.problems, 0);
    assert.equal(cov.endMarker, false);
    assert.equal(cov.start, s.start);
    assert.equal(cov.end, s.end);
  });

  it('the prefilter changes nothing but the skip count', async () => {
    const all = await collect(fx('v1-requestresponse.log'), { prefilter: false });
    assert.deepEqual(withoutSource(all.events), withoutSource(r.events));
    assert.equal(all.source.summary().linesSkippedByPrefilter, 0);
    assert.equal(all.source.summary().auditRecords, 25);
  });

  it('allEvents keeps the kubelet Event', async () => {
    const all = await collect(fx('v1-requestresponse.log'), { allEvents: true });
    assert.equal(all.writes.length, 20);
    const k = all.writes.find((w) => w.source.line === 19)!;
    assert.equal(k.resource, 'events');
    assert.equal(k.actor.name, 'kubelet');
  });

  it('since/until limit what is emitted', async () => {
    const w = await collect(fx('v1-requestresponse.log'), { since: Date.parse('2025-03-04T10:15:03Z'), until: Date.parse('2025-03-04T10:15:06Z') });
    assert.deepEqual(shape(w.events), MAIN_ORDER.slice(MAIN_ORDER.indexOf('W:9:patch:events:200'), MAIN_ORDER.indexOf('W:13:create:pods:403')));
    assert.equal(w.source.summary().rsControllerWrites, 3);
    assert.equal(w.source.coverage().events, 10);
  });

  it('a record later than the reorder window is passed on late and counted', async () => {
    const w = await collect(fx('v1-requestresponse.log'), { reorderWindowMs: 0 });
    const s = shape(w.events);
    assert.ok(s.indexOf('W:8:delete:pods:200') < s.indexOf('W:9:patch:events:200'));
    // Line 9 is 10.342 ms older than line 8, which was already released.
    assert.deepEqual(w.source.summary().outOfOrder, { count: 2, maxLateMs: 10, firstLine: 9 });
    assert.match(w.warnings.at(-1)!, /2 event\(s\) were more than 0 ms out of stageTimestamp order .*first at line 9/);
  });
});

describe('audit source: Metadata level, KCM without service-account credentials', async () => {
  const r = await collect(fx('v1-metadata.log'));
  const byLine = (line: number) => r.writes.find((w) => w.source.line === line)!;

  it('writes only, RS controller recognised by its user-agent suffix', () => {
    assert.deepEqual(shape(r.events), [
      'W:1:create:pods:201',
      'W:2:create:pods:403',
      'W:3:delete:pods:200',
      'W:5:update:pods/status:200',
      'W:6:delete:pods:200',
      'W:7:create:pods:403',
    ]);
    assert.deepEqual(byLine(1).actor, {
      username: 'system:kube-controller-manager',
      userAgent: 'kube-controller-manager/v1.31.2 (linux/amd64) kubernetes/5864a46/replicaset-controller',
      controller: 'replicaset-controller',
      name: 'replicaset-controller',
      component: 'replicaset-controller',
    });
    assert.equal(byLine(5).actor.name, 'kubelet');
    assert.equal(r.source.summary().rsControllerWrites, 5);
  });

  it('at Metadata level the created pod and its owner are unknown', () => {
    const w = byLine(1);
    assert.equal(w.name, undefined);
    assert.equal(w.level, 'Metadata');
    assert.equal(w.requestObject, undefined);
    assert.equal(w.responseObject, undefined);
    assert.deepEqual(w.owner, { state: 'unknown' });
    assert.deepEqual(byLine(3).owner, { state: 'unknown' });
  });

  it('error details survive at Metadata level', () => {
    assert.deepEqual(byLine(2).status, { code: 403, reason: 'Forbidden', message: QUOTA_MSG });
    assert.deepEqual(byLine(7).status.causes, [{ type: 'NamespaceTerminating', message: 'namespace shop is being terminated', field: 'metadata.namespace' }]);
  });

  it('a delete learns its owner from the pod body seen earlier (kubelet status update at Request level)', () => {
    assert.deepEqual(byLine(5).owner, { ...RS_OWNER, basis: 'request' });
    assert.deepEqual(byLine(6).owner, { ...RS_OWNER, basis: 'earlier-state' });
    assert.equal(byLine(6).name, 'web-7d9c6b8f5d-x2k9p');
  });

  it('summary levels; the shared-informers watch is not a write and not pending', () => {
    const s = r.source.summary();
    assert.deepEqual(s.levels, ['Metadata', 'Request']);
    assert.equal(s.incomplete.count, 0);
    assert.equal(s.linesSkippedByPrefilter, 1);
  });
});

describe('audit source: older API versions (§1.10)', async () => {
  const r = await collect(fx('v1beta1.log'));

  it('reads v1beta1 (with and without apiVersion), v1beta1 with only `timestamp`, and v1alpha1', () => {
    assert.deepEqual(shape(r.events), [
      'W:1:create:pods:201',
      'O:1:Pod:ADDED',
      'W:2:update:replicasets/status:200',
      'W:3:delete:pods:200',
      'W:4:update:replicasets:200',
    ]);
    const [create, status, del, alpha] = r.writes;
    assert.equal(create!.at, at('10:15:02.131977'));
    assert.equal(create!.name, 'web-7d9c6b8f5d-x2k9p');
    assert.equal(status!.at, at('10:15:02.160100'));
    assert.equal(status!.level, 'Request');
    assert.equal(status!.actor.controller, 'replicaset-controller');
    // Only the seconds-precision `timestamp`: it is both the receive and the stage time.
    assert.equal(del!.at, Date.parse('2025-03-04T10:15:04Z'));
    assert.equal(del!.receivedAt, Date.parse('2025-03-04T10:15:04Z'));
    assert.equal(del!.actor.name, 'other');
    // v1alpha1: no apiGroup in objectRef; the group comes from apiVersion `extensions/v1beta1`.
    assert.equal(alpha!.apiGroup, 'extensions');
    assert.equal(alpha!.actor.name, 'deployment-controller');
  });

  it('an unknown audit apiVersion is a FILE:LINE problem', () => {
    assert.deepEqual(r.problems, [
      { file: fx('v1beta1.log'), line: 5, message: 'unsupported audit apiVersion "audit.k8s.io/v2" (kexp reads audit.k8s.io/v1, v1beta1, v1alpha1)' },
    ]);
    const s = r.source.summary();
    assert.deepEqual(s.apiVersions, ['audit.k8s.io/v1alpha1', 'audit.k8s.io/v1beta1']);
    assert.equal(s.problems, 1);
    assert.equal(r.source.coverage().problems, 1);
  });
});

describe('audit source: webhook EventList batches', () => {
  it('NDJSON of EventLists (one POST body per line)', async () => {
    const r = await collect(fx('webhook-eventlist.ndjson'));
    assert.deepEqual(shape(r.events), [
      'W:1:create:pods:201',
      'O:1:Pod:ADDED',
      'W:1:update:replicasets/status:200',
      'O:1:ReplicaSet:MODIFIED',
      'W:2:delete:pods:200',
      'O:2:Pod:MODIFIED',
    ]);
    assert.equal(r.source.summary().format, 'audit-webhook');
    assert.equal(r.writes[0]!.at, at('10:15:02.131977'));
  });

  it('a pretty-printed EventList document', async () => {
    const r = await collect(fx('webhook-eventlist-pretty.json'));
    assert.deepEqual(shape(r.events), ['W:1:create:pods:201', 'O:1:Pod:ADDED', 'W:1:delete:pods:200', 'O:1:Pod:MODIFIED']);
    assert.equal(r.source.summary().format, 'audit-webhook');
  });
});

describe('audit source: YAML-encoded events', () => {
  it('reads `---`-separated audit events', async () => {
    const r = await collect(fx('audit.yaml'));
    assert.equal(r.source.summary().format, 'audit-yaml');
    const text = readFileSync(fx('audit.yaml'), 'utf8').split('\n');
    const second = text.indexOf('---') + 2;
    assert.deepEqual(shape(r.events), ['W:1:create:pods:201', 'O:1:Pod:ADDED', `W:${second}:create:events:201`, `O:${second}:Event:ADDED`]);
    assert.equal(r.writes[0]!.at, at('10:15:02.131977'));
    assert.equal(r.writes[0]!.name, 'web-7d9c6b8f5d-x2k9p');
  });
});

describe('audit source: GKE Cloud Logging', () => {
  const GKE_ORDER = [
    'W:1:create:pods:201',
    'O:1:Pod:ADDED',
    'W:2:create:pods:403',
    'W:3:update:replicasets/status:200',
    'O:3:ReplicaSet:MODIFIED',
    'W:5:delete:pods:200',
    'O:5:Pod:MODIFIED',
  ];

  it('NDJSON LogEntries map back to audit writes', async () => {
    const r = await collect(fx('gke.ndjson'));
    assert.deepEqual(shape(r.events), GKE_ORDER);
    const [create, quota, status] = r.writes;
    assert.equal(create!.auditID, '44444444-0000-4000-8000-000000000001');
    assert.equal(create!.at, at('10:15:02.131977'));
    assert.equal(create!.receivedAt, undefined);
    // GKE's resourceName includes the server-generated name.
    assert.equal(create!.name, 'web-7d9c6b8f5d-x2k9p');
    assert.equal(create!.namespace, 'shop');
    assert.equal(create!.level, 'RequestResponse');
    assert.deepEqual(create!.status, { code: 201 });
    assert.equal(create!.actor.controller, 'replicaset-controller');
    assert.equal((create!.requestObject as Record<string, unknown>)['@type'], undefined);
    assert.equal((create!.responseObject as { kind: string }).kind, 'Pod');
    assert.deepEqual(create!.owner, { ...RS_OWNER, basis: 'response' });
    assert.deepEqual(quota!.status, { code: 403, reason: 'Forbidden', message: QUOTA_MSG });
    assert.equal(quota!.level, 'Request');
    assert.equal(status!.subresource, 'status');
    assert.equal(status!.apiGroup, 'apps');
    const s = r.source.summary();
    assert.equal(s.format, 'gke');
    assert.deepEqual(s.apiVersions, ['gke']);
    assert.equal(s.linesSkippedByPrefilter, 1);
  });

  it('a gcloud JSON array (newest first) comes out sorted', async () => {
    const nd = await collect(fx('gke.ndjson'));
    const arr = await collect(fx('gke-array.json'));
    assert.equal(arr.source.summary().format, 'gke');
    assert.deepEqual(
      arr.events.map((e) => e.at),
      nd.events.map((e) => e.at),
    );
    assert.deepEqual(
      arr.writes.map((w) => [w.verb, w.name, w.status.code]),
      nd.writes.map((w) => [w.verb, w.name, w.status.code]),
    );
  });
});

describe('audit source: EKS CloudWatch exports', () => {
  it('filter-log-events output (pretty JSON, audit and KCM streams mixed)', async () => {
    const r = await collect(fx('eks-filter-log-events.json'));
    assert.deepEqual(shape(r.events), ['W:1:create:pods:201', 'O:1:Pod:ADDED', 'W:1:delete:pods:200', 'O:1:Pod:MODIFIED']);
    const s = r.source.summary();
    assert.equal(s.format, 'eks');
    assert.deepEqual(s.skipped, { 'klog-message': 1 });
    assert.equal(s.recordsSkippedByPrefilter, 1); // the lease
    assert.deepEqual(r.warnings, [
      `${fx('eks-filter-log-events.json')}: 1 wrapped message(s) were not audit events (e.g. kube-controller-manager log lines; read those with \`kexp kcm-log\`)`,
    ]);
  });

  it('subscription payloads, CONTROL_MESSAGE skipped', async () => {
    const r = await collect(fx('eks-subscription.ndjson'));
    assert.deepEqual(shape(r.events), [
      'W:2:create:pods:201',
      'O:2:Pod:ADDED',
      'W:2:update:replicasets/status:200',
      'O:2:ReplicaSet:MODIFIED',
      'W:3:delete:pods:200',
      'O:3:Pod:MODIFIED',
    ]);
    assert.equal(r.source.summary().linesSkippedByPrefilter, 1);
    const all = await collect(fx('eks-subscription.ndjson'), { prefilter: false });
    assert.deepEqual(all.source.summary().skipped, { 'cloudwatch-control-message': 1 });
    assert.deepEqual(withoutSource(all.events), withoutSource(r.events));
  });
});

describe('audit source: Firehose objects concatenated without separators (`}{`)', () => {
  it('reads them as consecutive JSON values', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kexp-firehose-'));
    const p = join(dir, 'firehose-00001');
    writeFileSync(p, readFileSync(fx('eks-subscription.ndjson'), 'utf8').trim().split('\n').join(''));
    const r = await collect(p);
    assert.equal(r.source.summary().format, 'eks');
    assert.deepEqual(
      r.writes.map((w) => [w.verb, w.resource, w.status.code]),
      [
        ['create', 'pods', 201],
        ['update', 'replicasets', 200],
        ['delete', 'pods', 200],
      ],
    );
    assert.deepEqual(r.problems, []);
  });
});

describe('audit source: AKS diagnostic records', () => {
  it('kube-audit and kube-audit-admin records; other categories skipped', async () => {
    const r = await collect(fx('aks-records.json'));
    assert.deepEqual(shape(r.events), ['W:1:create:pods:201', 'O:1:Pod:ADDED', 'W:1:update:replicasets/status:200', 'O:1:ReplicaSet:MODIFIED']);
    const s = r.source.summary();
    assert.equal(s.format, 'aks');
    assert.deepEqual(s.skipped, { 'aks-category:kube-controller-manager': 1 });
    assert.equal(s.recordsSkippedByPrefilter, 1);
  });
});

describe('audit source: damaged input', () => {
  it('non-JSON line, cut-off line and truncated last line are FILE:LINE problems; good lines still read', async () => {
    const r = await collect(fx('damaged.log'));
    const f = fx('damaged.log');
    assert.deepEqual(r.problems, [
      { file: f, line: 2, message: 'not JSON ("this is not json"); skipped' },
      { file: f, line: 3, message: 'truncated line: the record breaks off after 900 bytes (no closing brace); skipped' },
      { file: f, line: 5, message: 'truncated last record (the input ends without a newline inside it); skipped' },
    ]);
    assert.deepEqual(shape(r.events), ['W:1:create:pods:201', 'O:1:Pod:ADDED', 'W:4:delete:pods:200', 'O:4:Pod:MODIFIED']);
    const s = r.source.summary();
    assert.equal(s.malformedLines, 3);
    assert.equal(s.linesRead, 5);
  });

  it('an over-long line is skipped and reported', async () => {
    const r = await collect(fx('v1-requestresponse.log'), { maxLineBytes: 2100 });
    const long = r.problems.filter((p) => /longer than the limit/.test(p.message));
    assert.deepEqual(
      long.map((p) => p.line),
      [3, 4, 6, 14, 15, 16],
    );
    assert.equal(long[0]!.message, 'record of 2143 bytes is longer than the limit; skipped');
    assert.equal(r.source.summary().linesTooLong, 6);
    assert.equal(r.writes.some((w) => w.source.line === 3), false);
    assert.equal(r.writes.length, 13);
  });

  it('problems beyond maxProblemsShown are counted, not shown', async () => {
    const r = await collect(fx('damaged.log'), { maxProblemsShown: 1 });
    assert.equal(r.problems.length, 1);
    assert.equal(r.source.summary().problems, 3);
    assert.match(r.warnings[0]!, /more than 1 problems/);
  });
});

describe('audit source: gzip and stdin', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kexp-audit-'));
  const plain = readFileSync(fx('v1-requestresponse.log'));
  const cut = plain.indexOf(10, plain.length >> 1) + 1;
  // Two gzip members, as `cat a.log.gz b.log.gz` of rotated files produces.
  const gz = Buffer.concat([gzipSync(plain.subarray(0, cut)), gzipSync(plain.subarray(cut))]);
  const gzPath = join(dir, 'audit.log.1'); // no .gz extension: sniffed from the magic bytes
  writeFileSync(gzPath, gz);

  it('reads concatenated gzip members exactly like the plain file', async () => {
    const p = await collect(fx('v1-requestresponse.log'));
    const z = await collect(gzPath);
    assert.deepEqual(withoutSource(z.events), withoutSource(p.events));
    assert.equal(z.source.summary().compressed, true);
    assert.equal(z.source.summary().bytes, plain.length);
    assert.equal(z.events[0]!.source.file, gzPath);
  });

  it('reads gzip from stdin (`-`), even when the first chunk is one byte', async () => {
    const stdin = Readable.from([gz.subarray(0, 1), gz.subarray(1, 100), gz.subarray(100)]);
    const z = await collect('-', { stdin });
    assert.equal(z.writes.length, 19);
    assert.equal(z.writes[0]!.source.file, '-');
    assert.equal(z.source.summary().compressed, true);
  });

  it('a UTF-8 BOM and CRLF line endings change nothing', async () => {
    const crlf = join(dir, 'windows.log');
    writeFileSync(crlf, Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(plain.toString('utf8').replace(/\n/g, '\r\n'))]));
    const p = await collect(fx('v1-requestresponse.log'));
    const w = await collect(crlf);
    assert.deepEqual(w.problems, []);
    assert.deepEqual(withoutSource(w.events), withoutSource(p.events));
  });

  it('damaged gzip → the lines before the damage are read; the damage is a FILE:LINE problem', async () => {
    const bad = join(dir, 'damaged.log.gz');
    writeFileSync(bad, gz.subarray(0, gz.length - 40));
    const r = await collect(bad);
    assert.equal(r.problems.length, 1);
    assert.equal(r.problems[0]!.file, bad);
    assert.match(r.problems[0]!.message, /^gzip data is damaged or truncated here \(zlib Z_BUF_ERROR: unexpected end of file\); the complete lines before it were read/);
    assert.ok(r.writes.length > 0);
  });

  it('a missing file → InputError', async () => {
    await assert.rejects(openAuditSource(join(dir, 'nope.log'), { diagnostics: { problem: () => {}, warn: () => {} } }), (e: unknown) => {
      assert.ok(e instanceof InputError);
      assert.match(e.message, /nope\.log: cannot read: ENOENT/);
      return true;
    });
  });
});

describe('audit source: inputs that are not audit logs', () => {
  const cases: Array<[string, RegExp]> = [
    ['not-audit/watch.ndjson', /watch\.ndjson:1: this is a watch stream .* not an apiserver audit log; read it with `kexp replay`$/],
    ['not-audit/recording.jsonl', /recording\.jsonl:1: this is a kexp recording, not an apiserver audit log; read it with `kexp replay`$/],
    ['not-audit/core-events.json', /core-events\.json:1: this is a Kubernetes object dump \(v1 List\), not an apiserver audit log; read it with `kexp replay`$/],
    ['not-audit/kcm.log', /kcm\.log:1: this is a klog text log .* read it with `kexp kcm-log`$/],
    ['not-audit/kcm.json', /kcm\.json:1: this is a component JSON log, not an apiserver audit log; read it with `kexp kcm-log`$/],
    ['not-audit/legacy-audit.log', /legacy-audit\.log:1: this is the legacy text audit format/],
    ['not-audit/empty.log', /empty\.log: input is empty: no audit events$/],
  ];
  for (const [name, re] of cases) {
    it(name, async () => {
      await assert.rejects(openAuditSource(fx(name), { diagnostics: { problem: () => {}, warn: () => {} } }), (e: unknown) => {
        assert.ok(e instanceof InputError, String(e));
        assert.match(e.message, re);
        return true;
      });
    });
  }
});
