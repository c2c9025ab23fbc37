/**
 * The envelope registry: which envelopes each reader opens, in which order, and the two-pass
 * recognition of log lines (strict forms first, damaged forms after) that keeps a line damaged
 * for one envelope readable by a later one.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { classifyValue } from '../../src/sources/audit/normalise.js';
import {
  AUDIT_DOCUMENT_ENVELOPES,
  AUDIT_LINE_ENVELOPES,
  auditEnvelope,
  auditLineEnvelope,
  LOG_LINE_ENVELOPES,
  sniffLogLine,
  unwrapLogLine,
} from '../../src/sources/envelope/registry.js';

const KLOG = 'I1130 10:15:02.100000   12345 replica_set.go:389] "Adding"';

describe('registry lists', () => {
  it('the readers open these envelopes, in this order (recognition order; the KCM list is also the order of `wrapped`)', () => {
    assert.deepEqual(
      LOG_LINE_ENVELOPES.map((e) => e.name),
      ['cri', 'docker', 'timestamp'],
    );
    assert.deepEqual(
      AUDIT_LINE_ENVELOPES.map((e) => e.name),
      ['cloudwatch-lines'],
    );
    assert.deepEqual(
      AUDIT_DOCUMENT_ENVELOPES.map((e) => e.name),
      ['gke', 'eks', 'aks', 'ecs', 'loki'],
    );
  });

  it('names are unique across the lists (they are format names and record origins)', () => {
    const names = [...LOG_LINE_ENVELOPES, ...AUDIT_LINE_ENVELOPES, ...AUDIT_DOCUMENT_ENVELOPES].map((e) => e.name);
    assert.equal(new Set(names).size, names.length);
  });

  it('auditEnvelope / auditLineEnvelope find an audit envelope by its format name, nothing else', () => {
    assert.equal(auditEnvelope('loki')?.name, 'loki');
    assert.equal(auditEnvelope('cloudwatch-lines')?.name, 'cloudwatch-lines');
    assert.equal(auditEnvelope('audit-log'), undefined);
    assert.equal(auditEnvelope('cri'), undefined);
    assert.equal(auditLineEnvelope('cloudwatch-lines')?.name, 'cloudwatch-lines');
    assert.equal(auditLineEnvelope('gke'), undefined);
    assert.equal(auditLineEnvelope(undefined), undefined);
  });
});

describe('unwrapLogLine: the first strict form, then the first damaged form, else the line itself', () => {
  it('each envelope opens its own lines; a plain line is its own payload', () => {
    assert.equal(unwrapLogLine(`2025-11-30T10:15:02Z stderr F ${KLOG}`).wrapper, 'cri');
    assert.equal(unwrapLogLine(JSON.stringify({ log: `${KLOG}\n`, stream: 'stderr' })).wrapper, 'docker');
    assert.equal(unwrapLogLine(`2025-11-30T10:15:02Z ${KLOG}`).wrapper, 'timestamp');
    assert.deepEqual(unwrapLogLine(KLOG), { inner: KLOG });
    assert.deepEqual(unwrapLogLine('{"ts":1,"msg":"x"}'), { inner: '{"ts":1,"msg":"x"}' });
  });

  it('CRI before --timestamps: a CRI line is never read as a --timestamps line with `stderr F` in its payload', () => {
    const u = unwrapLogLine(`2025-11-30T10:15:02Z stderr F ${KLOG}`);
    assert.equal(u.inner, KLOG);
  });

  it('a damaged CRI form that is a valid --timestamps line is read as one (damage is only checked after every strict form)', () => {
    // `stdout:` is not a CRI stream field (no blank after it), but this is a valid --timestamps line.
    assert.deepEqual(unwrapLogLine('2025-11-30T10:15:02Z stdout: x'), { inner: 'stdout: x', wrapper: 'timestamp', wrapperAt: Date.parse('2025-11-30T10:15:02Z') });
    // A time no strict form accepts, with a stream after it: damaged CRI.
    assert.deepEqual(unwrapLogLine('2025-11-30T10:15:02.1234567890Z stderr F x'), { inner: '', error: 'malformed CRI log line' });
  });

  it('an envelope that recognises its line but finds it damaged answers at once (docker: broken JSON)', () => {
    assert.deepEqual(unwrapLogLine('{"log":"I1130 10:1'), { inner: '', error: 'malformed docker json-file line (not valid JSON)' });
  });
});

describe('sniffLogLine: every envelope loose prefix stripped in turn', () => {
  it('CRI, --timestamps, both, neither', () => {
    assert.equal(sniffLogLine(`2025-11-30T10:15:02Z stdout F ${KLOG}`), KLOG);
    assert.equal(sniffLogLine(`2025-11-30T10:15:02Z ${KLOG}`), KLOG);
    assert.equal(sniffLogLine(`2025-11-30T10:15:02Z stdout F 2025-11-30T10:15:02Z ${KLOG}`), KLOG);
    assert.equal(sniffLogLine(KLOG), KLOG);
    // docker json-file has no loose form: left as it is.
    const docker = JSON.stringify({ log: KLOG, stream: 'stderr' });
    assert.equal(sniffLogLine(docker), docker);
  });
});

describe('the audit reader classifies a document by the registry, after the native shapes', () => {
  it('one document of each envelope is classified as that envelope', () => {
    const docs: Record<string, unknown> = {
      gke: { protoPayload: { methodName: 'io.k8s.core.v1.pods.create' } },
      eks: { messageType: 'DATA_MESSAGE', logEvents: [] },
      aks: { records: [] },
      ecs: { kubernetes: { audit: { kind: 'Event' } } },
      loki: { line: '{}', labels: {} },
    };
    for (const e of AUDIT_DOCUMENT_ENVELOPES) {
      const c = classifyValue(docs[e.name]);
      assert.deepEqual(c, { audit: true, format: e.name }, e.name);
    }
  });

  it('a native audit Event is never taken for an envelope; the first envelope in order wins', () => {
    assert.deepEqual(classifyValue({ kind: 'Event', apiVersion: 'audit.k8s.io/v1', protoPayload: {} }), { audit: true, format: 'audit-log', apiVersion: 'audit.k8s.io/v1' });
    // Both a GKE protoPayload and an AKS records list: GKE comes first.
    assert.deepEqual(classifyValue({ protoPayload: {}, records: [] }), { audit: true, format: 'gke' });
  });
});
