import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { PassThrough, Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';

import { InputError } from '../../src/sources/source.js';
import type { GapEvent, ObservedEvent } from '../../src/timeline/event.js';
import {
  RECORDING_FORMAT_VERSION,
  formatRecordingLine,
  formatRecvTime,
  openWatchSource,
  parseRfc3339,
  recordingHeader,
  type WatchFileCoverage,
} from '../../src/sources/watch/index.js';
import { brief, collect, fx, recorder, T, tmpFile } from './watch-helpers.js';

const REC = fx('recording.jsonl');

test('kexp recording: events in file order at their µs receive times', async () => {
  const { source, events, problems, warnings } = await collect(REC);
  assert.equal(source.format, 'kexp-recording');
  assert.equal(source.timeBasis, 'received');
  assert.deepEqual(events.map(brief), [
    '2 ReplicaSet ADDED web-7d9c6b8f5d@48190',
    '3 Pod ADDED web-7d9c6b8f5d-x7k2p@48102',
    '4 Namespace ADDED shop@1187',
    '6 Pod ADDED web-7d9c6b8f5d-m4q9z@48211',
    '7 Event ADDED web-7d9c6b8f5d.187c5a1e2f3b4c5d@48215',
    '8 Pod MODIFIED web-7d9c6b8f5d-m4q9z@48219',
    '9 gap watch-relist [Pod]',
    '11 Pod MODIFIED web-7d9c6b8f5d-m4q9z@48390',
  ]);
  assert.deepEqual(
    events.map((e) => e.at),
    [
      T(10, 15, 0, 412.031),
      T(10, 15, 0, 415.872),
      T(10, 15, 0, 419.31),
      T(10, 15, 2, 134.512),
      T(10, 15, 2, 136.02),
      T(10, 15, 2, 201.733),
      T(10, 15, 40, 0.105),
      T(10, 15, 40, 52.001),
    ],
  );
  assert.ok(events.every((e) => e.atBasis === 'received' && e.source.file === REC));
  const gap = events[6] as GapEvent;
  assert.equal(gap.detail, 'too old resource version: 48219 (48377)');
  // The BOOKMARK (line 5) is consumed silently; the relisted, unchanged x7k2p (line 10) is a duplicate.
  assert.deepEqual(problems, []);
  assert.deepEqual(warnings, [
    `${REC}: dropped 1 duplicate event (same uid and resourceVersion as the object's previous event, e.g. an initial list repeated after kubectl restarted); first at ${REC}:10`,
  ]);
  const cov = source.coverage() as WatchFileCoverage;
  assert.equal(cov.events, 8);
  assert.equal(cov.problems, 0);
  assert.equal(cov.start, T(10, 15, 0, 402.118)); // header startedAt
  assert.equal(cov.end, T(10, 16, 0, 402.311)); // end line
  assert.equal(cov.endMarker, true);
  assert.deepEqual(cov.endReason, { reason: 'duration', detail: '--duration 1m0s elapsed' });
  assert.equal(cov.header?.serverVersion, 'v1.37.2');
  assert.equal(cov.header?.redacted, true);
  // The API object is passed through verbatim.
  const pod = events[1] as ObservedEvent;
  assert.equal(pod.object.metadata.ownerReferences?.[0]?.uid, '5f0c2a8e-3b1d-4c7e-9a2f-6d8e1b4c7a90');
});

test('kexp recording: header is available as soon as the source is open', async () => {
  const r = recorder();
  const s = await openWatchSource(REC, { diagnostics: r.diagnostics });
  assert.equal(s.coverage().header?.replicaSet, 'web-7d9c6b8f5d');
  assert.equal(s.coverage().events, 0);
  await s.events[Symbol.asyncIterator]().return?.(undefined); // closes the file unread
});

test('kexp recording: truncated last line is a problem with its line number; events before it are kept', async () => {
  const file = fx('recording-truncated.jsonl');
  const { source, events, problems } = await collect(file);
  assert.deepEqual(events.map(brief), ['2 ReplicaSet ADDED web-7d9c6b8f5d@48190', '3 Pod ADDED web-7d9c6b8f5d-x7k2p@48102']);
  assert.deepEqual(problems, [{ file, line: 4, message: 'truncated line (no closing brace; recording interrupted?)' }]);
  const cov = source.coverage();
  assert.equal(cov.endMarker, false);
  assert.equal(cov.problems, 1);
  assert.equal(cov.end, T(10, 15, 0, 415.872));
});

test('kexp recording: out-of-order recv keeps file order, clamps, and warns once', async () => {
  const file = fx('recording-out-of-order.jsonl');
  const { events, warnings, problems } = await collect(file);
  assert.deepEqual(
    events.map((e) => [e.source.line, e.at]),
    [
      [2, T(10, 15, 1)],
      [3, T(10, 15, 1)],
      [4, T(10, 15, 2)],
      [5, T(10, 15, 2)],
    ],
  );
  assert.deepEqual(problems, []);
  assert.deepEqual(warnings, [
    `${file}: 2 events have a receive time earlier than the line before (first at ${file}:3); kept file order and clamped to the previous time`,
  ]);
});

test('kexp recording: a newer format version is one clear InputError', async () => {
  const file = fx('recording-v2.jsonl');
  const r = recorder();
  await assert.rejects(openWatchSource(file, { diagnostics: r.diagnostics }), (err: unknown) => {
    assert.ok(err instanceof InputError);
    assert.equal(
      err.message,
      `${file}:1: recording format version 2 (written by kexp 0.9.0) is newer than this kexp understands (up to 1); upgrade kexp`,
    );
    return true;
  });
});

test('kexp recording: gzip (sniffed by magic bytes, concatenated members) reads the same events', async () => {
  const text = readFileSync(REC);
  const cut = text.indexOf('\n', 3000) + 1;
  const gz = Buffer.concat([gzipSync(text.subarray(0, cut)), gzipSync(text.subarray(cut))]);
  const file = tmpFile('recording.bin', gz); // no .gz extension on purpose
  const { source, events, problems } = await collect(file);
  assert.equal(source.format, 'kexp-recording');
  assert.equal(events.length, 8);
  assert.equal(events[7]!.at, T(10, 15, 40, 52.001));
  assert.deepEqual(problems, []);
});

test('kexp recording: a cut gzip stream is a problem; what was decoded before is kept', async () => {
  const gz = gzipSync(readFileSync(REC));
  const file = tmpFile('recording.jsonl.gz', gz.subarray(0, gz.length - 600));
  const { events, problems } = await collect(file);
  assert.ok(events.length >= 1 && events.length < 8, `kept ${events.length} events`);
  assert.equal(problems.length, 1);
  assert.match(problems[0]!.message, /^gzip data is corrupt\/truncated after \d+ bytes \(zlib: unexpected end of file\)$/);
  assert.ok(problems[0]!.line >= 2);
});

test('kexp recording: from stdin (`-`)', async () => {
  const text = readFileSync(REC);
  // Deliver in small odd-sized chunks like a pipe would.
  const chunks: Buffer[] = [];
  for (let i = 0; i < text.length; i += 977) chunks.push(text.subarray(i, i + 977));
  const { source, events } = await collect('-', { stdin: Readable.from(chunks) });
  assert.equal(source.file, '-');
  assert.equal(source.format, 'kexp-recording');
  assert.equal(events.length, 8);
  assert.equal(events[0]!.source.file, '-');
  assert.equal(events[3]!.source.line, 6);
});

test('kexp recording: bad lines mid-file are problems and reading continues', async () => {
  const lines = readFileSync(REC, 'utf8').split('\n');
  lines.splice(3, 0, 'not json at all', '{"recv":"2026-11-30T10:15:00.416000Z","src":"pods"}', '[1,2]');
  const file = tmpFile('rec.jsonl', lines.join('\n'));
  const { events, problems } = await collect(file);
  assert.equal(events.length, 8);
  assert.deepEqual(problems, [
    { file, line: 4, message: `not JSON (Unexpected token 'o', "not json at all" is not valid JSON)` },
    { file, line: 5, message: 'unknown recording line (none of "event", "gap", "end")' },
    { file, line: 6, message: 'not a recording line (expected a JSON object)' },
  ]);
});

test('kexp recording: forced format on a file without a header is an InputError', async () => {
  const r = recorder();
  await assert.rejects(
    openWatchSource(fx('pods-watch-events.jsonl'), { format: 'kexp-recording', diagnostics: r.diagnostics }),
    { name: 'InputError', message: `${fx('pods-watch-events.jsonl')}:1: not a kexp recording header (no "kexpRecording" field)` },
  );
});

test('formatRecordingLine / formatRecvTime / parseRfc3339 round-trip', () => {
  assert.equal(RECORDING_FORMAT_VERSION, 1);
  const at = T(10, 15, 2, 134.512);
  assert.equal(formatRecvTime(at), '2026-11-30T10:15:02.134512Z');
  assert.equal(parseRfc3339('2026-11-30T10:15:02.134512Z'), at);
  assert.equal(parseRfc3339('2026-11-30T11:15:02.134512+01:00'), at);
  assert.equal(parseRfc3339('2026-11-30T10:15:02Z'), T(10, 15, 2));
  assert.equal(parseRfc3339('2026-11-30 10:15:02'), undefined);
  assert.equal(formatRecvTime(T(10, 15, 2)), '2026-11-30T10:15:02.000000Z');
  const header = recordingHeader({
    kexpVersion: '0.1.0',
    namespace: 'shop',
    replicaSet: 'web-7d9c6b8f5d',
    startedAt: formatRecvTime(at),
    watches: [{ resource: 'pods', namespace: 'shop' }],
    redacted: true,
  });
  const line = formatRecordingLine(header);
  assert.equal(line.endsWith('\n'), true);
  assert.equal(line.indexOf('\n'), line.length - 1);
  assert.equal(JSON.parse(line).kexpRecording, 1);
  const ev = formatRecordingLine({
    recv: formatRecvTime(at),
    src: 'events',
    event: { type: 'ADDED', object: { kind: 'Event', message: 'line one\nline two' } },
  });
  assert.equal(ev.indexOf('\n'), ev.length - 1, 'newlines inside strings are escaped');
});

test('kexp recording written with formatRecordingLine is read back', async () => {
  const start = T(10, 15, 0, 0.5);
  const pod = {
    kind: 'Pod',
    apiVersion: 'v1',
    metadata: { name: 'web-7d9c6b8f5d-x7k2p', namespace: 'shop', uid: '8c1e4b2a-7d3f-4e9a-b6c5-2f1a0d9e8b73', resourceVersion: '48102' },
  };
  const text =
    formatRecordingLine(
      recordingHeader({ kexpVersion: '0.1.0', startedAt: formatRecvTime(start), watches: [{ resource: 'pods', namespace: 'shop' }], redacted: false }),
    ) +
    formatRecordingLine({ recv: formatRecvTime(start + 1.25), src: 'pods', event: { type: 'ADDED', object: pod } }) +
    formatRecordingLine({ recv: formatRecvTime(start + 2), src: 'pods', gap: { reason: 'watch-reconnect', detail: 'connection reset' } }) +
    formatRecordingLine({ recv: formatRecvTime(start + 3), end: { reason: 'error', detail: 'forbidden: cannot watch pods' } });
  const file = tmpFile('w.jsonl', text);
  const { source, events, warnings } = await collect(file);
  assert.deepEqual(events.map(brief), ['2 Pod ADDED web-7d9c6b8f5d-x7k2p@48102', '3 gap watch-reconnect [Pod]']);
  assert.deepEqual(events.map((e) => e.at), [start + 1.25, start + 2]);
  assert.deepEqual(warnings, [`${file}:4: recording ended with an error: forbidden: cannot watch pods`]);
  assert.equal(source.coverage().endMarker, true);
});

test('kexp recording: events stream while the input is still open (live pipe)', async () => {
  const lines = readFileSync(REC, 'utf8').split('\n');
  const pipe = new PassThrough();
  pipe.write(`${lines[0]}\n${lines[1]}\n`);
  const r = recorder();
  const source = await openWatchSource('-', { diagnostics: r.diagnostics, stdin: pipe });
  const it = source.events[Symbol.asyncIterator]();
  const first = await it.next(); // resolves although the pipe has not ended
  assert.equal(first.done, false);
  assert.equal(brief(first.value as ObservedEvent), '2 ReplicaSet ADDED web-7d9c6b8f5d@48190');
  pipe.end(`${lines[2]}\n`);
  const second = await it.next();
  assert.equal(brief(second.value as ObservedEvent), '3 Pod ADDED web-7d9c6b8f5d-x7k2p@48102');
  assert.equal((await it.next()).done, true);
  assert.equal(source.coverage().events, 2);
});
