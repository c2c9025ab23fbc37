import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';

import type { CoreEvent } from '../../src/model/objects.js';
import type { GapEvent, ObservedEvent } from '../../src/timeline/event.js';
import { WATCH_FORMATS, openWatchSource } from '../../src/sources/watch/index.js';
import { brief, collect, fx, recorder, T, tmpFile } from './watch-helpers.js';

test('WATCH_FORMATS lists the five formats', () => {
  assert.deepEqual([...WATCH_FORMATS], ['kexp-recording', 'watch-events', 'kubectl-watch-json', 'yaml', 'list']);
});

test('watch-events: bookmark, 410 gap, non-JSON line, missing uid, duplicate, DELETED time (CRLF file)', async () => {
  const file = fx('pods-watch-events.jsonl');
  const { source, events, problems, warnings } = await collect(file);
  assert.equal(source.format, 'watch-events');
  assert.equal(source.timeBasis, 'object-timestamp');
  assert.deepEqual(events.map(brief), [
    '1 Pod ADDED web-7d9c6b8f5d-x7k2p@48102',
    '2 Pod ADDED web-7d9c6b8f5d-m4q9z@48211',
    '4 Pod MODIFIED web-7d9c6b8f5d-m4q9z@48219',
    '6 Pod MODIFIED web-7d9c6b8f5d-x7k2p@48400',
    '7 Pod DELETED web-7d9c6b8f5d-x7k2p@48431',
    '8 gap watch-relist [Pod]',
  ]);
  assert.deepEqual(
    events.map((e) => e.at),
    [
      T(10, 2, 19), // x7k2p: latest of creation 10:02:11 and Ready 10:02:19
      T(10, 15, 2), // m4q9z creationTimestamp
      T(10, 15, 2),
      T(10, 15, 40), // deletionTimestamp 10:16:10 − 30 s grace
      T(10, 15, 40), // DELETED: deletionTimestamp 10:15:40 − 0 (not the later Ready=False 10:15:41)
      T(10, 15, 40), // the gap keeps the previous time
    ],
  );
  assert.ok(events.every((e) => e.atBasis === 'object-timestamp'));
  assert.equal((events[5] as GapEvent).detail, 'watch expired (410 Expired: too old resource version: 48431 (48600)); the watcher must relist');
  assert.deepEqual(problems, [
    { file, line: 5, message: `not JSON (Unexpected token 'U', "Unable to "... is not valid JSON)` },
    { file, line: 9, message: 'Pod shop/web-7d9c6b8f5d-q2w3e without metadata.uid; skipped' },
  ]);
  assert.deepEqual(warnings, [
    `${file}: dropped 1 duplicate event (same uid and resourceVersion as the object's previous event, e.g. an initial list repeated after kubectl restarted); first at ${file}:10`,
  ]);
  const cov = source.coverage();
  assert.deepEqual(
    { events: cov.events, problems: cov.problems, start: cov.start, end: cov.end, endMarker: cov.endMarker },
    { events: 6, problems: 2, start: T(10, 2, 19), end: T(10, 15, 40), endMarker: false },
  );
});

test('watch-events: a non-410 ERROR is a problem, unknown types are problems', async () => {
  const status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'etcdserver: request timed out', reason: 'InternalError', code: 500 };
  const file = tmpFile('w.jsonl', `${JSON.stringify({ type: 'ERROR', object: status })}\n${JSON.stringify({ type: 'SYNC', object: {} })}\n`);
  const { events, problems } = await collect(file);
  assert.deepEqual(events, []);
  assert.deepEqual(problems, [
    { file, line: 1, message: 'watch ERROR event: 500 InternalError: etcdserver: request timed out' },
    { file, line: 2, message: 'unknown watch event type "SYNC"; skipped' },
  ]);
});

test('watch-events: other kinds are skipped with one summary warning', async () => {
  const file = fx('mixed-kinds-watch.jsonl');
  const { events, problems, warnings } = await collect(file);
  assert.deepEqual(events.map(brief), ['1 ReplicaSet ADDED web-7d9c6b8f5d@48190', '4 ReplicaSet MODIFIED web-7d9c6b8f5d@48209']);
  assert.deepEqual(problems, []);
  assert.deepEqual(warnings, [`${file}: skipped 3 objects of kinds kexp does not model: Deployment (2), Service (1)`]);
});

test('watch-events: gzip and stdin', async () => {
  const raw = readFileSync(fx('pods-watch-events.jsonl'));
  const viaGzipStdin = await collect('-', { stdin: Readable.from([gzipSync(raw)]) });
  assert.equal(viaGzipStdin.source.format, 'watch-events');
  assert.equal(viaGzipStdin.events.length, 6);
  assert.equal(viaGzipStdin.problems.length, 2);
  assert.equal(viaGzipStdin.problems[0]!.file, '-');
  assert.equal(viaGzipStdin.problems[0]!.line, 5);
});

test('events.k8s.io/v1 Events are normalised to the core/v1 shape', async () => {
  const file = fx('events-v1-watch.jsonl');
  const { events, problems } = await collect(file);
  assert.deepEqual(problems, []);
  assert.deepEqual(events.map(brief), [
    '1 Event ADDED web-7d9c6b8f5d.187c5a1e2f3b4c5d@48215',
    '2 Event MODIFIED web-7d9c6b8f5d.187c5a2b9d0e1f23@48502',
  ]);
  const [a, b] = events.map((e) => (e as ObservedEvent).object as CoreEvent & Record<string, unknown>);
  assert.equal(a!.apiVersion, 'v1');
  assert.equal(a!.kind, 'Event');
  assert.deepEqual(a!.involvedObject, {
    kind: 'ReplicaSet',
    namespace: 'shop',
    name: 'web-7d9c6b8f5d',
    uid: '5f0c2a8e-3b1d-4c7e-9a2f-6d8e1b4c7a90',
    apiVersion: 'apps/v1',
    resourceVersion: '48190',
  });
  assert.equal(a!.message, 'Created pod: web-7d9c6b8f5d-m4q9z');
  assert.equal(a!.reason, 'SuccessfulCreate');
  assert.equal(a!.count, 1);
  assert.equal(a!.firstTimestamp, '2026-11-30T10:15:02Z');
  assert.equal(a!.lastTimestamp, '2026-11-30T10:15:02Z');
  assert.deepEqual(a!.source, { component: 'replicaset-controller' });
  assert.equal(a!.reportingComponent, 'replicaset-controller');
  assert.equal('regarding' in a!, false);
  assert.equal('note' in a!, false);
  // deprecatedCount 0 → series.count
  assert.equal(b!.count, 4);
  assert.equal(b!.type, 'Warning');
  assert.match(b!.message ?? '', /^Error creating: pods "web-7d9c6b8f5d-k9j8h" is forbidden: exceeded quota/);
  assert.deepEqual(
    events.map((e) => e.at),
    [T(10, 15, 2), T(10, 15, 21, 482.113)], // lastTimestamp, then series.lastObservedTime (µs)
  );
});

test('kubectl-watch-json: pretty concatenated objects, inferred types, Status → watch-ended gap, repeated list dropped', async () => {
  const file = fx('kubectl-watch.json');
  const { source, events, problems, warnings } = await collect(file);
  assert.equal(source.format, 'kubectl-watch-json');
  assert.deepEqual(events.map(brief), [
    '1 Pod ADDED web-7d9c6b8f5d-x7k2p@48102',
    '62 Pod ADDED web-7d9c6b8f5d-m4q9z@48211',
    '108 Pod MODIFIED web-7d9c6b8f5d-m4q9z@48219',
    '163 gap watch-ended [Pod]',
    '288 Pod MODIFIED web-7d9c6b8f5d-m4q9z@48390',
  ]);
  assert.deepEqual(
    events.map((e) => e.at),
    [T(10, 2, 19), T(10, 15, 2), T(10, 15, 2), T(10, 15, 2), T(10, 15, 9)],
  );
  assert.equal((events[3] as GapEvent).detail, 'watch ended with Status 410 Expired: too old resource version: 48219 (48377)');
  assert.deepEqual(problems, []);
  assert.deepEqual(warnings, [
    `${file}: dropped 2 duplicate events (same uid and resourceVersion as the object's previous event, e.g. an initial list repeated after kubectl restarted); first at ${file}:172`,
    `${file}: this format has no watch event types; kexp inferred ADDED on the first sight of each uid and MODIFIED afterwards, and deletions are not visible (record with \`kexp record\` or \`kubectl get -w --output-watch-events\`)`,
  ]);
});

test('kubectl-watch-json: text between values and a value cut off by a restart are problems', async () => {
  const text = readFileSync(fx('kubectl-watch.json'), 'utf8').split('\n');
  // Lines 1-61 = x7k2p, 62-107 = m4q9z@48211, 108-162 = m4q9z@48219. Insert a kubectl warning
  // after the first object and cut the second one after 20 lines (kubectl killed, restarted, appending).
  const damaged = [
    ...text.slice(0, 61),
    'W1130 10:15:30.123456   40211 reflector.go:561] watch ended',
    ...text.slice(61, 81),
    ...text.slice(107),
  ].join('\n');
  const file = tmpFile('damaged.json', damaged);
  const { events, problems } = await collect(file);
  assert.deepEqual(problems, [
    { file, line: 62, message: 'not JSON (unexpected text "W1130 10:15:30.123456   40211 reflector.go:561] watch ended")' },
    { file, line: 63, message: 'truncated value (no closing brace; recording interrupted?)' },
  ]);
  assert.deepEqual(events.map(brief), [
    '1 Pod ADDED web-7d9c6b8f5d-x7k2p@48102',
    '83 Pod ADDED web-7d9c6b8f5d-m4q9z@48219',
    '138 gap watch-ended [Pod]',
    '263 Pod MODIFIED web-7d9c6b8f5d-m4q9z@48390',
  ]);
});

test('kubectl-watch-json: a truncated final value is a problem at its first line', async () => {
  const text = readFileSync(fx('kubectl-watch.json'), 'utf8');
  const cut = text.split('\n').slice(0, 80).join('\n');
  const file = tmpFile('cut.json', cut);
  const { events, problems } = await collect(file);
  assert.deepEqual(events.map(brief), ['1 Pod ADDED web-7d9c6b8f5d-x7k2p@48102']);
  assert.deepEqual(problems, [
    { file, line: 62, message: 'truncated value at end of input (no closing brace; recording interrupted?)' },
  ]);
});

test('yaml: kubectl get -w -o yaml (documents separated by ---)', async () => {
  const file = fx('kubectl-watch.yaml');
  const { source, events, problems, warnings } = await collect(file);
  assert.equal(source.format, 'yaml');
  assert.deepEqual(events.map(brief), [
    '1 Pod ADDED web-7d9c6b8f5d-x7k2p@48102',
    '43 Pod ADDED web-7d9c6b8f5d-m4q9z@48211',
    '75 Pod MODIFIED web-7d9c6b8f5d-m4q9z@48219',
  ]);
  assert.deepEqual(events.map((e) => e.at), [T(10, 2, 19), T(10, 15, 2), T(10, 15, 2)]);
  assert.deepEqual(problems, []);
  assert.equal(warnings.length, 1);
  assert.match(warnings[0]!, /no watch event types/);
  const pod = (events[0] as ObservedEvent & { kind: 'Pod' }).object;
  assert.equal(pod.metadata.creationTimestamp, '2026-11-30T10:02:11Z'); // a string, not a Date
  assert.equal(pod.status?.phase, 'Running');
});

test('yaml: --output-watch-events documents (type/object wrapper) incl. DELETED', async () => {
  const file = fx('kubectl-watch-events.yaml');
  const { source, events, problems, warnings } = await collect(file);
  assert.equal(source.format, 'yaml');
  assert.deepEqual(events.map(brief), [
    '1 Pod ADDED web-7d9c6b8f5d-x7k2p@48102',
    '45 Pod ADDED web-7d9c6b8f5d-m4q9z@48211',
    '79 Pod MODIFIED web-7d9c6b8f5d-m4q9z@48219',
    '119 Pod DELETED web-7d9c6b8f5d-x7k2p@48431',
  ]);
  assert.deepEqual(events.map((e) => e.at), [T(10, 2, 19), T(10, 15, 2), T(10, 15, 2), T(10, 15, 40)]);
  assert.deepEqual(problems, []);
  assert.deepEqual(warnings, []);
});

test('yaml: a broken document is a problem at its line; the next document is read', async () => {
  const docs = readFileSync(fx('kubectl-watch.yaml'), 'utf8').split('---\n');
  const broken = docs[1]!.replace('  name: web-7d9c6b8f5d-m4q9z\n', '  name: [web-7d9c6b8f5d-m4q9z\n');
  const file = tmpFile('b.yaml', [docs[0], broken, docs[2]].join('---\n'));
  const { events, problems } = await collect(file);
  assert.deepEqual(events.map(brief), ['1 Pod ADDED web-7d9c6b8f5d-x7k2p@48102', '75 Pod ADDED web-7d9c6b8f5d-m4q9z@48219']);
  assert.deepEqual(problems, [
    { file, line: 52, message: 'not YAML (Flow sequence in block collection must be sufficiently indented and end with a ])' },
  ]);
});

test('list: raw API PodList (one line, items without kind) → ADDED for each item', async () => {
  const file = fx('podlist-raw.json');
  const { source, events, problems, warnings } = await collect(file);
  assert.equal(source.format, 'list');
  assert.deepEqual(events.map(brief), [
    '1 Pod ADDED web-7d9c6b8f5d-x7k2p@48102',
    '1 Pod ADDED web-7d9c6b8f5d-m4q9z@48390',
    '1 Pod ADDED web-7d9c6b8f5d-r8t5w@48220',
  ]);
  assert.ok(events.every((e) => (e as ObservedEvent).object.kind === 'Pod' && (e as ObservedEvent).object.apiVersion === 'v1'));
  // r8t5w's own time (10:15:02) is earlier than m4q9z's Ready (10:15:09): kept non-decreasing.
  assert.deepEqual(events.map((e) => e.at), [T(10, 2, 19), T(10, 15, 9), T(10, 15, 9)]);
  assert.deepEqual(problems, []);
  assert.deepEqual(warnings, []);
});

test('list: kubectl get -o json List (pretty, items with kind) cites each item line', async () => {
  const file = fx('list-kubectl.json');
  const { source, events, problems } = await collect(file);
  assert.equal(source.format, 'list');
  assert.deepEqual(events.map(brief), [
    '4 ReplicaSet ADDED web-7d9c6b8f5d@48209',
    '67 Pod ADDED web-7d9c6b8f5d-x7k2p@48102',
    '128 Pod ADDED web-7d9c6b8f5d-m4q9z@48390',
  ]);
  assert.deepEqual(events.map((e) => e.at), [T(9, 58, 41), T(10, 2, 19), T(10, 15, 9)]);
  assert.deepEqual(problems, []);
});

test('list: a PodList in YAML takes the item kind from the list', async () => {
  const yaml = [
    'apiVersion: v1',
    'kind: PodList',
    'metadata:',
    '  resourceVersion: "48420"',
    'items:',
    '- metadata:',
    '    name: web-7d9c6b8f5d-x7k2p',
    '    namespace: shop',
    '    uid: 8c1e4b2a-7d3f-4e9a-b6c5-2f1a0d9e8b73',
    '    resourceVersion: "48102"',
    '    creationTimestamp: "2026-11-30T10:02:11Z"',
    '- metadata:',
    '    name: web-7d9c6b8f5d-m4q9z',
    '    namespace: shop',
    '    uid: b2d7f1c4-9e6a-4a3b-8c5d-1e0f2a7b6c94',
    '    resourceVersion: "48211"',
    '    creationTimestamp: "2026-11-30T10:15:02Z"',
    '',
  ].join('\n');
  const file = tmpFile('podlist.yaml', yaml);
  const { source, events, problems } = await collect(file);
  assert.equal(source.format, 'list'); // a YAML List is a snapshot, named as the JSON one
  assert.deepEqual(events.map(brief), ['6 Pod ADDED web-7d9c6b8f5d-x7k2p@48102', '12 Pod ADDED web-7d9c6b8f5d-m4q9z@48211']);
  assert.deepEqual(problems, []);
});

test('forced format: --format list on a kubectl watch file, unknown format name', async () => {
  const forced = await collect(fx('kubectl-watch.json'), { format: 'list' });
  assert.equal(forced.source.format, 'list');
  assert.equal(forced.events.length, 5);
  assert.deepEqual(forced.warnings.length, 1); // duplicates only; no type-inference warning for lists
  const r = recorder();
  await assert.rejects(openWatchSource(fx('recording.jsonl'), { format: 'har', diagnostics: r.diagnostics }), {
    name: 'InputError',
    message: `${fx('recording.jsonl')}: unknown format "har"; expected one of kexp-recording, watch-events, kubectl-watch-json, yaml, list`,
  });
});

test('pretty-printed watch events (jq output) are read as watch-events', async () => {
  const lines = readFileSync(fx('pods-watch-events.jsonl'), 'utf8').split('\r\n').filter((l) => l.startsWith('{'));
  const pretty = lines.slice(0, 3).map((l) => JSON.stringify(JSON.parse(l), null, 2)).join('\n') + '\n';
  const file = tmpFile('pretty.json', pretty);
  const { source, events, problems } = await collect(file);
  assert.equal(source.format, 'watch-events');
  assert.deepEqual(events.map(brief).map((s) => s.replace(/^\d+ /, '')), [
    'Pod ADDED web-7d9c6b8f5d-x7k2p@48102',
    'Pod ADDED web-7d9c6b8f5d-m4q9z@48211',
  ]);
  assert.equal(events[0]!.source.line, 1);
  assert.deepEqual(problems, []);
});

test('an object without the fields the model needs is a problem', async () => {
  const lines = [
    { type: 'ADDED', object: { kind: 'Pod', apiVersion: 'v1', metadata: { namespace: 'shop', resourceVersion: '1' } } },
    { type: 'ADDED', object: { kind: 'ReplicaSet', apiVersion: 'apps/v1', metadata: { name: 'web-7d9c6b8f5d', uid: '5f0c2a8e-3b1d-4c7e-9a2f-6d8e1b4c7a90' } } },
    { type: 'ADDED', object: { apiVersion: 'v1', metadata: { name: 'x' } } },
    { type: 'ADDED' },
  ];
  const file = tmpFile('m.jsonl', lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
  const { events, problems } = await collect(file);
  assert.deepEqual(events, []);
  assert.deepEqual(problems, [
    { file, line: 1, message: 'Pod without metadata.name, metadata.uid; skipped' },
    { file, line: 2, message: 'ReplicaSet web-7d9c6b8f5d without metadata.namespace; skipped' },
    { file, line: 3, message: 'object without "kind"; skipped' },
    { file, line: 4, message: 'watch event without an object; skipped' },
  ]);
});

test('objects without any timestamp wait for the first timed event', async () => {
  const pod = (name: string, uid: string, rv: string, created?: string) => ({
    type: 'MODIFIED',
    object: { kind: 'Pod', apiVersion: 'v1', metadata: { name, namespace: 'shop', uid, resourceVersion: rv, ...(created ? { creationTimestamp: created } : {}) } },
  });
  const file = tmpFile(
    't.jsonl',
    [
      pod('web-7d9c6b8f5d-x7k2p', '8c1e4b2a-7d3f-4e9a-b6c5-2f1a0d9e8b73', '48102'),
      pod('web-7d9c6b8f5d-m4q9z', 'b2d7f1c4-9e6a-4a3b-8c5d-1e0f2a7b6c94', '48211', '2026-11-30T10:15:02Z'),
      pod('web-7d9c6b8f5d-x7k2p', '8c1e4b2a-7d3f-4e9a-b6c5-2f1a0d9e8b73', '48300'),
    ]
      .map((l) => JSON.stringify(l))
      .join('\n'),
  );
  const { events } = await collect(file);
  assert.deepEqual(
    events.map((e) => [e.source.line, e.at]),
    [
      [1, T(10, 15, 2)],
      [2, T(10, 15, 2)],
      [3, T(10, 15, 2)],
    ],
  );
});
