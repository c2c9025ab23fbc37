/**
 * The envelopes around kube-controller-manager log lines, each on its own: how it recognises a
 * line (strict `unwrap`, `damaged`, loose `sniff`) and what it yields — the payload, the
 * envelope's own time, whether the payload continues on the next line.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cri } from '../../src/sources/envelope/cri.js';
import { dockerJsonFile, isDockerLogRecord } from '../../src/sources/envelope/docker-json-file.js';
import { startsWithDateTime } from '../../src/sources/envelope/envelope.js';
import { kubectlTimestamps } from '../../src/sources/envelope/kubectl-timestamps.js';

const KLOG = 'I1130 10:15:02.100000   12345 replica_set.go:389] "Adding"';

describe('startsWithDateTime: the cheap test before the timestamp-first envelopes', () => {
  it('a date-time first, longer than 20 characters', () => {
    assert.equal(startsWithDateTime('2025-11-30T10:15:02Z x'), true);
    assert.equal(startsWithDateTime('2025-11-30T10:15:02Z'), false); // 20 characters
    assert.equal(startsWithDateTime(KLOG), false);
    assert.equal(startsWithDateTime('2025/11/30T10:15:02Z xx'), false);
    assert.equal(startsWithDateTime(''), false);
  });
});

describe('cri: `<time> <stream> <P|F> <line>`', () => {
  it('F and P tags, the time to the nanosecond, an empty payload', () => {
    assert.deepEqual(cri.unwrap(`2025-11-30T10:15:02.100000012Z stderr F ${KLOG}`), {
      inner: KLOG,
      wrapper: 'cri',
      wrapperAt: Date.parse('2025-11-30T10:15:02.100Z') + 0.000012,
    });
    assert.deepEqual(cri.unwrap('2025-11-30T10:15:02Z stdout P I1130 10:15'), {
      inner: 'I1130 10:15',
      wrapper: 'cri',
      wrapperAt: Date.parse('2025-11-30T10:15:02Z'),
      partial: true,
    });
    // No tag, no payload: an empty record line.
    assert.deepEqual(cri.unwrap('2025-11-30T10:15:02+01:00 stdout'), { inner: '', wrapper: 'cri', wrapperAt: Date.parse('2025-11-30T09:15:02Z') });
  });

  it('not this envelope: plain klog, a --timestamps line, a stream word not followed by a blank', () => {
    assert.equal(cri.unwrap(KLOG), undefined);
    assert.equal(cri.unwrap(`2025-11-30T10:15:02.1004Z ${KLOG}`), undefined);
    assert.equal(cri.unwrap('2025-11-30T10:15:02Z stdout: hello there'), undefined);
  });

  it('an impossible time in the strict form is an error; a stream after a time-like word is damaged', () => {
    assert.deepEqual(cri.unwrap('2025-11-31T10:15:02Z stderr F I1130'), { inner: '', error: 'malformed CRI log line (bad timestamp 2025-11-31T10:15:02Z)' });
    assert.equal(cri.damaged!('2025-11-30T10:15:02.1234567890Z stderr F x'), 'malformed CRI log line');
    assert.equal(cri.damaged!('2025-11-30T10:15:02Z stdoutx F something'), undefined);
    // The cheap test comes first: a line of 20 characters or less is never damaged CRI.
    assert.equal(cri.damaged!('2025-11-30TX stdout'), undefined);
  });

  it('sniff: the loose prefix (any time, a tag required) and the payload after it', () => {
    assert.equal(cri.sniff!(`2025-11-31Tnonsense stdout F ${KLOG}`), KLOG);
    assert.equal(cri.sniff!('2025-11-30T10:15:02Z stdout hello'), undefined);
    assert.equal(cri.sniff!(KLOG), undefined);
  });
});

describe('docker json-file: `{"log":…,"stream":…,"time":…}`', () => {
  const line = (o: object) => JSON.stringify(o);

  it('the log without its newline, the runtime time; a log without a newline continues', () => {
    assert.deepEqual(dockerJsonFile.unwrap(line({ log: `${KLOG}\n`, stream: 'stderr', time: '2025-11-30T10:15:02.1005Z' })), {
      inner: KLOG,
      wrapper: 'docker',
      wrapperAt: Date.parse('2025-11-30T10:15:02.100Z') + 0.5,
    });
    assert.deepEqual(dockerJsonFile.unwrap(line({ log: 'I1130 10:1', stream: 'stderr' })), { inner: 'I1130 10:1', wrapper: 'docker', partial: true });
  });

  it('not this envelope: no "log", a JSON log record, a log that is not a string, neither stream nor time', () => {
    assert.equal(dockerJsonFile.unwrap(KLOG), undefined);
    assert.equal(dockerJsonFile.unwrap('{"ts":1,"msg":"x"}'), undefined);
    assert.equal(dockerJsonFile.unwrap(line({ log: 7, stream: 'stderr' })), undefined);
    assert.equal(dockerJsonFile.unwrap(line({ log: 'x\n' })), undefined);
    assert.equal(dockerJsonFile.unwrap('["log"]'), undefined);
    // Broken JSON that looks like a component's JSON log record is left to its parser.
    assert.equal(dockerJsonFile.unwrap('{"ts":1,"msg":"x","log":'), undefined);
  });

  it('damage: broken JSON, a time that is no RFC 3339 time', () => {
    assert.deepEqual(dockerJsonFile.unwrap('{"log":"I1130 10:1'), { inner: '', error: 'malformed docker json-file line (not valid JSON)' });
    assert.deepEqual(dockerJsonFile.unwrap(line({ log: 'x\n', time: 'yesterday' })), { inner: '', error: 'malformed docker json-file line (bad time "yesterday")' });
  });

  it('isDockerLogRecord: a string log with its stream or time (the audit reader names such a file)', () => {
    assert.equal(isDockerLogRecord({ log: 'x', stream: 'stdout' }), true);
    assert.equal(isDockerLogRecord({ log: 'x', time: 't' }), true);
    assert.equal(isDockerLogRecord({ log: 'x' }), false);
    assert.equal(isDockerLogRecord({ log: 1, stream: 'stdout' }), false);
  });
});

describe('kubectl logs --timestamps: `<RFC3339Nano> <line>`', () => {
  it('the payload after the first blank, the time', () => {
    assert.deepEqual(kubectlTimestamps.unwrap(`2025-11-30T10:15:02.100400000Z ${KLOG}`), {
      inner: KLOG,
      wrapper: 'timestamp',
      wrapperAt: Date.parse('2025-11-30T10:15:02.100Z') + 0.4,
    });
    assert.deepEqual(kubectlTimestamps.unwrap('2025-11-30T10:15:02Z stdout: x'), { inner: 'stdout: x', wrapper: 'timestamp', wrapperAt: Date.parse('2025-11-30T10:15:02Z') });
  });

  it('not this envelope, or an impossible time', () => {
    assert.equal(kubectlTimestamps.unwrap(KLOG), undefined);
    assert.equal(kubectlTimestamps.unwrap('2025-11-30T10:15:02.1234567890Z x'), undefined);
    assert.deepEqual(kubectlTimestamps.unwrap('2025-13-30T10:15:02Z x y z w'), { inner: '', error: 'malformed timestamp prefix 2025-13-30T10:15:02Z' });
  });

  it('sniff: any time ending in Z and a blank', () => {
    assert.equal(kubectlTimestamps.sniff!(`2025-11-30Tanything.Z ${KLOG}`), KLOG);
    assert.equal(kubectlTimestamps.sniff!(`2025-11-30T10:15:02+01:00 ${KLOG}`), undefined);
  });
});
