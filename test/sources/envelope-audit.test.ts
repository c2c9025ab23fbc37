/**
 * The envelopes around audit events, each on its own: what it recognises, what it hands to the
 * reader's sink (objects, JSON text with the field it came from, finished records, skips and
 * problems — every one citing the document's line), and its byte prefilter.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AuditRecord } from '../../src/sources/audit/record.js';
import { aks } from '../../src/sources/envelope/aks.js';
import { cloudwatchLines } from '../../src/sources/envelope/cloudwatch-lines.js';
import { ecs } from '../../src/sources/envelope/ecs.js';
import { eks } from '../../src/sources/envelope/eks.js';
import type { AuditDocumentEnvelope, PayloadSink } from '../../src/sources/envelope/envelope.js';
import { gke, parseGkeMethod, parseGkeNonResourceMethod } from '../../src/sources/envelope/gke.js';
import { loki } from '../../src/sources/envelope/loki.js';

type Call = [string, ...unknown[]];

/** Opens `v` at line 7 and returns what the envelope handed over, in order. */
function open(env: AuditDocumentEnvelope, v: Record<string, unknown>): Call[] {
  const calls: Call[] = [];
  const sink: PayloadSink<AuditRecord> = {
    object: (o, line) => calls.push(['object', o, line]),
    text: (s, line, where) => calls.push(['text', s, line, where]),
    record: (r) => calls.push(['record', r]),
    problem: (line, m) => calls.push(['problem', line, m]),
    skipped: (reason, line) => calls.push(['skipped', reason, line]),
  };
  env.unwrap(v, 7, sink);
  return calls;
}

/** Runs a line filter on one line (with some bytes around it, as in a chunk). */
function passes(filter: (buf: Buffer, start: number, end: number) => boolean, line: string): boolean {
  const buf = Buffer.from(`x\n${line}\ny`);
  return filter(buf, 2, 2 + Buffer.byteLength(line));
}

const event = (o: Record<string, unknown>) => ({
  kind: 'Event',
  apiVersion: 'audit.k8s.io/v1',
  level: 'Metadata',
  auditID: 'a1',
  stage: 'ResponseComplete',
  verb: 'create',
  user: { username: 'system:serviceaccount:kube-system:replicaset-controller' },
  objectRef: { resource: 'pods', namespace: 'shop', apiVersion: 'v1' },
  responseStatus: { code: 201 },
  stageTimestamp: '2025-03-04T10:15:02.131977Z',
  ...o,
});
const lease = event({ verb: 'update', objectRef: { resource: 'leases', namespace: 'kube-node-lease', name: 'n', apiGroup: 'coordination.k8s.io' } });

describe('cloudwatch-lines: `<ISO time> <audit JSON>`', () => {
  it('unwrap: the JSON after the time; a line without the prefix is not this envelope', () => {
    const json = JSON.stringify(event({}));
    assert.deepEqual(cloudwatchLines.unwrap(`2025-03-04T10:15:02.131Z ${json}`), { inner: json, wrapper: 'cloudwatch-lines' });
    assert.deepEqual(cloudwatchLines.unwrap(`2025-03-04T10:15:02+0100 ${json}`), { inner: json, wrapper: 'cloudwatch-lines' });
    assert.equal(cloudwatchLines.unwrap(json), undefined);
    assert.equal(cloudwatchLines.unwrap('2025-03-04T10:15:02.131Z not json'), undefined);
  });

  it('lineFilter: the log backend prefilter on the bytes after the time; no prefix goes to the parser', () => {
    const f = cloudwatchLines.lineFilter(false);
    assert.equal(passes(f, `2025-03-04T10:15:02.131Z ${JSON.stringify(event({}))}`), true);
    assert.equal(passes(f, `2025-03-04T10:15:02.131Z ${JSON.stringify(lease)}`), false);
    assert.equal(passes(f, 'garbage in the middle'), true);
  });

  it('wording: what messages call it', () => {
    assert.deepEqual(cloudwatchLines.wording, {
      input: 'a CloudWatch Logs export',
      line: 'a CloudWatch export line `<time> <audit JSON>`',
      expected: 'expected one audit event per line after the time',
    });
  });
});

describe('gke: a Cloud Logging LogEntry is translated into one audit record', () => {
  const entry = {
    insertId: 'i1',
    operation: { id: 'op1', first: true, last: true },
    protoPayload: {
      '@type': 'type.googleapis.com/google.cloud.audit.AuditLog',
      serviceName: 'k8s.io',
      methodName: 'io.k8s.core.v1.pods.create',
      resourceName: 'core/v1/namespaces/shop/pods/web-1',
      authenticationInfo: { principalEmail: 'system:serviceaccount:kube-system:replicaset-controller' },
      requestMetadata: { callerIp: '10.0.0.2', callerSuppliedUserAgent: 'kube-controller-manager/v1.33.1' },
      request: { '@type': 'core.k8s.io/v1.Pod', kind: 'Pod' },
      status: { code: 0 },
    },
    timestamp: '2025-03-04T10:15:02.131977Z',
    labels: { 'authorization.k8s.io/decision': 'allow' },
  };

  it('recognised by an object protoPayload', () => {
    assert.equal(gke.recognise(entry), true);
    assert.equal(gke.recognise({ protoPayload: 'x' }), false);
  });

  it('the record: objectRef from methodName and resourceName, status from google.rpc, level from the bodies, time from the entry', () => {
    const calls = open(gke, structuredClone(entry));
    assert.equal(calls.length, 1);
    assert.equal(calls[0]![0], 'record');
    const r = calls[0]![1] as AuditRecord;
    assert.deepEqual(r, {
      line: 7,
      origin: 'gke',
      apiVersion: 'gke',
      stage: 'ResponseComplete',
      verb: 'create',
      user: { username: 'system:serviceaccount:kube-system:replicaset-controller' },
      responseStatus: { code: 201, status: 'Success' },
      objectRef: { apiGroup: '', apiVersion: 'v1', resource: 'pods', namespace: 'shop', name: 'web-1' },
      auditID: 'op1',
      userAgent: 'kube-controller-manager/v1.33.1',
      sourceIPs: ['10.0.0.2'],
      requestObject: { kind: 'Pod' },
      level: 'Request',
      stageAt: Date.parse('2025-03-04T10:15:02.131Z') + 0.977,
      annotations: { 'authorization.k8s.io/decision': 'allow' },
    });
  });

  it('other payload types and services are skipped; an unknown methodName is a problem; a non-resource method is a record without objectRef', () => {
    const other = (p: object) => ({ ...entry, protoPayload: { ...entry.protoPayload, ...p } });
    assert.deepEqual(open(gke, other({ '@type': 'type.googleapis.com/other' })), [['skipped', 'gke-non-auditlog', 7]]);
    assert.deepEqual(open(gke, other({ serviceName: 'compute.googleapis.com' })), [['skipped', 'gke-non-kubernetes', 7]]);
    assert.deepEqual(open(gke, other({ methodName: 'google.container.v1.ClusterManager.GetCluster' })), [
      ['problem', 7, 'GKE entry with an unrecognised methodName "google.container.v1.ClusterManager.GetCluster"'],
    ]);
    const [[, r]] = open(gke, other({ methodName: 'io.k8s.get', resourceName: 'readyz' })) as [[string, AuditRecord]];
    assert.equal(r.objectRef, undefined);
    assert.equal(r.requestURI, '/readyz');
    assert.equal(r.verb, 'get');
  });

  it('a failure maps the gRPC code to HTTP and a Kubernetes reason', () => {
    const [[, r]] = open(gke, { ...entry, protoPayload: { ...entry.protoPayload, status: { code: 6, message: 'exists' } } }) as [[string, AuditRecord]];
    assert.deepEqual(r.responseStatus, { code: 409, status: 'Failure', reason: 'AlreadyExists', message: 'exists' });
  });

  it('methodName parsing', () => {
    assert.deepEqual(parseGkeMethod('io.k8s.apps.v1.replicasets.status.update'), { group: 'apps', version: 'v1', resource: 'replicasets', subresource: 'status', verb: 'update' });
    assert.equal(parseGkeMethod('io.k8s.get'), undefined);
    assert.equal(parseGkeNonResourceMethod('io.k8s.healthz.get'), 'get');
    assert.equal(parseGkeNonResourceMethod('io.k8s.core.v1.pods.get'), undefined);
  });

  it('lineFilter: decides on the methodName alone; a line without one goes to the parser', () => {
    const f = gke.lineFilter(false);
    assert.equal(passes(f, JSON.stringify(entry)), true);
    assert.equal(passes(f, JSON.stringify({ ...entry, protoPayload: { ...entry.protoPayload, methodName: 'io.k8s.core.v1.pods.get' } })), false);
    assert.equal(passes(f, JSON.stringify({ ...entry, protoPayload: { ...entry.protoPayload, methodName: 'io.k8s.get' } })), false);
    // Events only when about a ReplicaSet or by its controller (allEvents false).
    const eventCreate = { ...entry.protoPayload, methodName: 'io.k8s.core.v1.events.create' };
    assert.equal(passes(f, JSON.stringify({ ...entry, protoPayload: eventCreate })), true);
    assert.equal(passes(f, JSON.stringify({ ...entry, protoPayload: { ...eventCreate, authenticationInfo: { principalEmail: 'system:node:n' } } })), false);
    assert.equal(passes(gke.lineFilter(true), JSON.stringify({ ...entry, protoPayload: { ...eventCreate, authenticationInfo: { principalEmail: 'system:node:n' } } })), true);
    assert.equal(passes(f, JSON.stringify({ protoPayload: {} })), true);
  });
});

describe('eks: CloudWatch exports and subscription payloads, one audit event per message', () => {
  it('recognised by logEvents, a messageType, or an events list with messages', () => {
    assert.equal(eks.recognise({ logEvents: [] }), true);
    assert.equal(eks.recognise({ messageType: 'DATA_MESSAGE' }), true);
    assert.equal(eks.recognise({ events: [{ message: '{}' }] }), true);
    assert.equal(eks.recognise({ events: [{ other: 1 }] }), false);
  });

  it('each message is JSON text (where it came from named); a control message is skipped', () => {
    assert.deepEqual(open(eks, { messageType: 'DATA_MESSAGE', logEvents: [{ message: '{"a":1}' }, 'x'] }), [
      ['text', '{"a":1}', 7, 'logEvents[].message'],
      ['text', undefined, 7, 'logEvents[].message'],
    ]);
    assert.deepEqual(open(eks, { events: [{ message: '{"b":2}' }] }), [['text', '{"b":2}', 7, 'events[].message']]);
    assert.deepEqual(open(eks, { messageType: 'CONTROL_MESSAGE', logEvents: [{ message: 'CWL CONTROL MESSAGE' }] }), [['skipped', 'cloudwatch-control-message', 7]]);
  });

  it('lineFilter: the escaped audit fields of the whole batch', () => {
    const f = eks.lineFilter(false);
    assert.equal(passes(f, JSON.stringify({ logEvents: [{ message: JSON.stringify(lease) }, { message: JSON.stringify(event({})) }] })), true);
    assert.equal(passes(f, JSON.stringify({ logEvents: [{ message: JSON.stringify(lease) }] })), false);
  });
});

describe('aks: diagnostic records, kube-audit categories', () => {
  it('recognised by a records list or one record with category and properties', () => {
    assert.equal(aks.recognise({ records: [] }), true);
    assert.equal(aks.recognise({ category: 'kube-audit', properties: {} }), true);
    assert.equal(aks.recognise({ category: 'kube-audit' }), false);
  });

  it('the log string as JSON text, a log object as an object; other categories skipped; damaged records are problems', () => {
    const obj = event({});
    assert.deepEqual(
      open(aks, {
        records: [
          { category: 'kube-audit', properties: { log: '{"x":1}' } },
          { Category: 'kube-audit-admin', properties: { log: obj } },
          { category: 'kube-apiserver', properties: { log: 'I0304 …' } },
          { category: 'kube-audit', properties: {} },
          'not a record',
        ],
      }),
      [
        ['text', '{"x":1}', 7, 'records[].properties.log'],
        ['object', obj, 7],
        ['skipped', 'aks-category:kube-apiserver', 7],
        ['problem', 7, 'AKS record without properties.log'],
        ['problem', 7, 'AKS records[] entry is not an object'],
      ],
    );
    assert.deepEqual(open(aks, { category: 'kube-audit', properties: { log: '{"y":2}' } }), [['text', '{"y":2}', 7, 'records[].properties.log']]);
  });
});

describe('ecs: Elastic / OpenSearch documents, hits and search responses', () => {
  it('recognised by kubernetes.audit (nested or dotted), a _source, or hits.hits', () => {
    assert.equal(ecs.recognise({ kubernetes: { audit: {} } }), true);
    assert.equal(ecs.recognise({ 'kubernetes.audit': {} }), true);
    assert.equal(ecs.recognise({ _source: {} }), true);
    assert.equal(ecs.recognise({ hits: { hits: [] } }), true);
    assert.equal(ecs.recognise({ kubernetes: { pod: {} } }), false);
  });

  it('the audit Event object; kind restored when the pipeline dropped it; one with no audit field is a problem', () => {
    const audit = { apiVersion: 'audit.k8s.io/v1', stage: 'ResponseComplete' };
    assert.deepEqual(open(ecs, { kubernetes: { audit: { ...audit } } }), [['object', { ...audit, kind: 'Event' }, 7]]);
    assert.deepEqual(open(ecs, { 'kubernetes.audit': { kind: 'Event', auditID: 'x' } }), [['object', { kind: 'Event', auditID: 'x' }, 7]]);
    assert.deepEqual(open(ecs, { kubernetes: { audit: { verb: 'create' } } }), [['problem', 7, 'ECS document whose kubernetes.audit has no apiVersion, auditID or stage']]);
  });

  it('hits: each _source read as a document (a bare audit Event too); other documents skipped; a hit without _source is a problem', () => {
    const doc = { kubernetes: { audit: { kind: 'Event', auditID: 'x' } } };
    const bare = { kind: 'Event', auditID: 'y' };
    assert.deepEqual(open(ecs, { hits: { hits: [{ _source: doc }, { _source: bare }, { _source: { message: 'nginx' } }, { _id: '1' }] } }), [
      ['object', doc, 7],
      ['object', bare, 7],
      ['skipped', 'ecs-non-audit', 7],
      ['problem', 7, 'search hit without an object _source'],
    ]);
    assert.deepEqual(open(ecs, { _index: 'audit', _source: doc }), [['object', doc, 7]]);
  });

  it('lineFilter: the log backend prefilter on the unescaped fields; a search response goes to the parser', () => {
    const f = ecs.lineFilter(false);
    assert.equal(passes(f, JSON.stringify({ '@timestamp': 't', kubernetes: { audit: event({}) } })), true);
    assert.equal(passes(f, JSON.stringify({ '@timestamp': 't', kubernetes: { audit: lease } })), false);
    assert.equal(passes(f, JSON.stringify({ hits: { hits: [{ _source: { kubernetes: { audit: lease } } }] } })), true);
  });
});

describe('loki: logcli --output=jsonl lines', () => {
  it('recognised by a string line with labels or a string timestamp', () => {
    assert.equal(loki.recognise({ line: '{}', labels: {} }), true);
    assert.equal(loki.recognise({ line: '{}', timestamp: '2025-03-04T10:15:02Z' }), true);
    assert.equal(loki.recognise({ line: '{}' }), false);
    assert.equal(loki.recognise({ line: 1, labels: {} }), false);
  });

  it('the line is JSON text (the reader skips non-JSON lines of other components)', () => {
    assert.deepEqual(open(loki, { labels: {}, line: 'I0304 10:15:02.123456 1 x.go:1] hi' }), [['text', 'I0304 10:15:02.123456 1 x.go:1] hi', 7, 'line']]);
  });

  it('lineFilter: the escaped audit fields inside line', () => {
    const f = loki.lineFilter(false);
    assert.equal(passes(f, JSON.stringify({ labels: {}, line: JSON.stringify(event({})) })), true);
    assert.equal(passes(f, JSON.stringify({ labels: {}, line: JSON.stringify(lease) })), false);
  });
});
