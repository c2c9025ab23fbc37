import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { gunzipSync, gzipSync } from 'node:zlib';

import type { ControllerLogEvent } from '../../src/timeline/event.js';
import { InputError, type InputProblem } from '../../src/sources/source.js';
import { parseKcmLine, type ParseContext } from '../../src/sources/kcm-log/parse-line.js';
import { unwrapLogLine } from '../../src/sources/envelope/registry.js';
import { parseGoDuration, parseKlogKV, parseRfc3339, readGoQuoted } from '../../src/sources/kcm-log/klog-text.js';
import { openKcmLogSource, type KcmLogOptions, type KcmLogStats } from '../../src/sources/kcm-log/kcm-log-source.js';

const FX = new URL('../fixtures/kcm-log/', import.meta.url).pathname;
const ctx: ParseContext = { year: 2025, tzOffsetMinutes: 0 };
const RS = 'shop/web-7d9c6b8f5d';
/** Epoch ms of a 2025 UTC date/time with µs. */
const utc = (mo: number, d: number, h: number, mi: number, s: number, us = 0): number => Date.UTC(2025, mo - 1, d, h, mi, s) + us / 1000;

interface Read {
  events: ControllerLogEvent[];
  problems: InputProblem[];
  warnings: string[];
  /** The ReplicationController manager's lines (ownerKind set), apart from the ReplicaSet's `events`. */
  rcEvents: ControllerLogEvent[];
  /** The DaemonSet and Job controllers' lines (ownerKind DaemonSet / Job). */
  others: ControllerLogEvent[];
  stats: KcmLogStats;
  coverage: ReturnType<Awaited<ReturnType<typeof openKcmLogSource>>['coverage']>;
  format: string;
}

async function read(path: string, opts: Partial<KcmLogOptions> = {}): Promise<Read> {
  const problems: InputProblem[] = [];
  const warnings: string[] = [];
  const src = await openKcmLogSource(path, {
    diagnostics: { problem: (p) => problems.push(p), warn: (w) => warnings.push(w) },
    ...opts,
  });
  const events: ControllerLogEvent[] = [];
  const rcEvents: ControllerLogEvent[] = [];
  const others: ControllerLogEvent[] = [];
  for await (const e of src.events) {
    assert.equal(e.type, 'controller-log');
    const kind = (e as ControllerLogEvent).ownerKind;
    (kind === undefined ? events : kind === 'ReplicationController' ? rcEvents : others).push(e as ControllerLogEvent);
  }
  return { events, rcEvents, others, problems, warnings, stats: src.stats(), coverage: src.coverage(), format: src.format };
}

const kinds = (evs: ControllerLogEvent[]): string[] => evs.map((e) => e.logKind);
const at = (evs: ControllerLogEvent[], line: number): ControllerLogEvent => {
  const e = evs.find((x) => x.source.line === line);
  assert.ok(e, `no event for line ${line}`);
  return e;
};

// ---------------------------------------------------------------------------------------------
// klog text helpers

test('readGoQuoted: strconv.Quote escapes', () => {
  const s = String.raw`"sync \"shop/web\" failed with a\tb\n\\ \u00e9 \x41 \U0001F600" rest`;
  const q = readGoQuoted(s, 0);
  assert.ok(q);
  assert.equal(q.value, 'sync "shop/web" failed with a\tb\n\\ é A 😀');
  assert.equal(s.slice(q.end), ' rest');
  assert.equal(readGoQuoted('"unterminated', 0), undefined);
});

test('parseKlogKV: quoted, bare, JSON, old %+v composites and multi-line values', () => {
  const kv = parseKlogKV(
    ' logger="replicaset-controller" need=3 ok=true nothing=null expectations={} keys=["shop/a","shop/b"] ' +
      'set={"shop/a":{}} old={add:2 del:0 key:default/foo} list=[shop/a shop/b] m=map[shop/a:{} shop/b:{}] ' +
      'err=<\n\tline one\n\tline "two"\n > after="x"',
  );
  assert.deepEqual(kv, {
    logger: 'replicaset-controller',
    need: 3,
    ok: true,
    nothing: null,
    expectations: {},
    keys: ['shop/a', 'shop/b'],
    set: { 'shop/a': {} },
    old: '{add:2 del:0 key:default/foo}',
    list: '[shop/a shop/b]',
    m: 'map[shop/a:{} shop/b:{}]',
    err: 'line one\nline "two"',
    after: 'x',
  });
});

test('parseGoDuration and parseRfc3339', () => {
  assert.equal(parseGoDuration('54.012µs'), 0.054012);
  assert.equal(parseGoDuration('1.074034ms'), 1.074034);
  assert.equal(parseGoDuration('2m3.5s'), 123_500);
  assert.equal(parseGoDuration('1h0m0s'), 3_600_000);
  assert.equal(parseGoDuration('fast'), undefined);
  assert.equal(parseRfc3339('2025-11-30T10:15:02.123456789Z'), utc(11, 30, 10, 15, 2, 123456.789));
  assert.equal(parseRfc3339('2025-11-30T11:15:02+01:00'), utc(11, 30, 10, 15, 2));
  assert.equal(parseRfc3339('2025-11-31T10:15:02Z'), undefined);
});

// ---------------------------------------------------------------------------------------------
// parseKcmLine

test('1.27+ klog text: header, logger, keyless expectations ({}), family from the logger', () => {
  const r = parseKcmLine(
    'I1130 10:15:02.123456   12345 controller_utils.go:232] "Setting expectations" logger="replicaset-controller" expectations={}',
    ctx,
  );
  assert.ok(r);
  assert.equal(r.at, utc(11, 30, 10, 15, 2, 123456));
  assert.equal(r.severity, 'I');
  assert.equal(r.format, 'klog-text');
  assert.equal(r.pid, 12345);
  assert.equal(r.file, 'controller_utils.go');
  assert.equal(r.callerLine, 232);
  assert.equal(r.logger, 'replicaset-controller');
  assert.equal(r.msg, 'Setting expectations');
  assert.equal(r.kind, 'setting-expectations');
  assert.equal(r.keyless, true);
  assert.equal(r.rsKey, undefined);
  assert.equal(r.family, 'replicaset');
  assert.equal(r.familyBasis, 'logger');
});

test('older klog %+v rendering of expectations: expectations={add:2 del:0 key:default/foo}', () => {
  const r = parseKcmLine(
    'I1130 10:15:02.123456   12345 controller_utils.go:222] "Setting expectations" logger="replicaset-controller" expectations={add:3 del:0 key:shop/web-7d9c6b8f5d}',
    ctx,
  );
  assert.ok(r);
  assert.equal(r.kind, 'setting-expectations');
  assert.equal(r.rsKey, RS);
  assert.equal(r.add, 3);
  assert.equal(r.del, 0);
  assert.equal(r.keyless, undefined);
});

test('≤1.26 printf: &controller.ControlleeExpectations{…} with nested braces; family unknown (controller_utils.go)', () => {
  const r = parseKcmLine(
    'I0304 10:15:02.100560       1 controller_utils.go:240] Lowered expectations &controller.ControlleeExpectations{add:-1, del:2, key:"default/foo", timestamp:time.Time{wall:0xc0f6c5a1a5f0b2c8, ext:12345678901, loc:(*time.Location)(0x5f4c2a0)}}',
    ctx,
  );
  assert.ok(r);
  assert.equal(r.structured, false);
  assert.equal(r.kind, 'lowered-expectations');
  assert.equal(r.rsKey, 'default/foo');
  assert.equal(r.add, -1);
  assert.equal(r.del, 2);
  assert.equal(r.family, 'unknown');
  assert.equal(r.familyBasis, 'file');
  const nr = parseKcmLine('I0304 10:15:02.100050       1 controller_utils.go:206] Controller shop/web either never recorded expectations, or the ttl expired.', ctx);
  assert.equal(nr?.kind, 'never-recorded');
  assert.equal(nr?.rsKey, 'shop/web');
});

test('≤1.26 printf RS lines name their kind: family from the message', () => {
  const cases: Array<[string, string, string, Record<string, number> | undefined]> = [
    ['Too few replicas for ReplicaSet shop/web, need 3, creating 1', 'too-few-replicas', 'replicaset', { need: 3, creating: 1 }],
    ['Too many replicas for ReplicationController shop/legacy, need 1, deleting 2', 'too-many-replicas', 'replicationcontroller', { need: 1, deleting: 2 }],
    ['Slow-start failure. Skipping creation of 4 pods, decrementing expectations for ReplicaSet shop/web', 'slow-start-failure', 'replicaset', { podsSkipped: 4 }],
    ['Finished syncing ReplicaSet "shop/web" (620.5µs)', 'finished-syncing', 'replicaset', { durationMs: 0.6205 }],
    ['ReplicaSet shop/web has been deleted', 'rs-deleted-sync', 'replicaset', undefined],
    ['Starting replicaset controller', 'controller-started', 'replicaset', undefined],
  ];
  for (const [body, kind, family, numbers] of cases) {
    const r = parseKcmLine(`I0304 10:15:02.100000       1 replica_set.go:563] ${body}`, ctx);
    assert.ok(r, body);
    assert.equal(r.kind, kind, body);
    assert.equal(r.family, family, body);
    assert.equal(r.familyBasis, 'message', body);
    assert.deepEqual(r.numbers, numbers, body);
  }
  const fd = parseKcmLine('I0304 10:16:00.000600       1 replica_set.go:615] Failed to delete shop/web-abcde, decremented expectations for ReplicaSet shop/web', ctx);
  assert.equal(fd?.kind, 'failed-delete');
  assert.equal(fd?.rsKey, 'shop/web');
  assert.equal(fd?.podKey, 'shop/web-abcde');
});

test('JSON logging format: ts, caller, KObj objects, keyless {}, error lines without v', () => {
  const r = parseKcmLine(
    '{"ts":1764497702100.09,"logger":"replicaset-controller","caller":"replicaset/replica_set.go:668","msg":"Too few replicas","v":2,"replicaSet":{"name":"web-7d9c6b8f5d","namespace":"shop"},"need":3,"creating":3}',
    ctx,
  );
  assert.ok(r);
  assert.equal(r.format, 'json');
  assert.equal(r.at, 1764497702100.09);
  assert.equal(r.file, 'replica_set.go');
  assert.equal(r.callerLine, 668);
  assert.equal(r.kind, 'too-few-replicas');
  assert.equal(r.rsKey, RS);
  assert.deepEqual(r.numbers, { need: 3, creating: 3 });
  const e = parseKcmLine('{"ts":1764497702100.1,"logger":"replicaset-controller","caller":"controller/controller_utils.go:204","msg":"Controller still waiting on expectations","v":4,"expectations":{}}', ctx);
  assert.equal(e?.kind, 'still-waiting');
  assert.equal(e?.keyless, true);
  const u = parseKcmLine(
    '{"ts":1764497702100.2,"logger":"UnhandledError","caller":"replicaset/replica_set.go:640","msg":"Unhandled Error","err":"sync \\"shop/web-7d9c6b8f5d\\" failed with pods \\"web-x\\" is forbidden: exceeded quota: q"}',
    ctx,
  );
  assert.equal(u?.severity, 'E');
  assert.equal(u?.kind, 'sync-failed');
  assert.equal(u?.rsKey, RS);
  // The UnhandledError logger says nothing about the caller: RS or RC code (replica_set.go).
  assert.equal(u?.family, 'rs-or-rc');
  const c = parseKcmLine('{"ts":1,"logger":"replicaset-controller","caller":"controller/controller_utils.go:371","msg":"Clobbering existing delete keys","keys":{"shop/a":{},"shop/b":{}}}', ctx);
  assert.deepEqual(c?.keys, ['shop/a', 'shop/b']);
});

test('sync failed: 1.37 "Unhandled Error" text with escaped quotes, and the bare ≤1.26 form', () => {
  const r = parseKcmLine(
    'E1130 10:15:02.135479   32352 replica_set.go:640] "Unhandled Error" err="sync \\"shop/web-7d9c6b8f5d\\" failed with pods \\"web-7d9c6b8f5d-5vp48\\" is forbidden: exceeded quota: pods-quota" logger="UnhandledError"',
    ctx,
  );
  assert.equal(r?.kind, 'sync-failed');
  assert.equal(r?.rsKey, RS);
  assert.equal(r?.severity, 'E');
  const b = parseKcmLine('E0304 10:15:02.100600       1 replica_set.go:530] sync "shop/web" failed with pods "web-zzzzz" is forbidden: exceeded quota', ctx);
  assert.equal(b?.kind, 'sync-failed');
  assert.equal(b?.rsKey, 'shop/web');
  // "ReplicaSet has no controller" is a different HandleError: not a sync failure.
  const n2 = parseKcmLine('E1130 10:15:02.100000       1 replica_set.go:311] "Unhandled Error" err="ReplicaSet has no controller: &ReplicaSet{}" logger="UnhandledError"', ctx);
  assert.equal(n2?.kind, undefined);
});

test('multi-line continuation: a value written as key=<…> belongs to the record', () => {
  const text =
    'E1130 10:18:00.000200   12345 replica_set.go:640] "Unhandled Error" err=<\n' +
    '\tsync "shop/web-7d9c6b8f5d" failed with Internal error occurred:\n' +
    '\tcontext deadline exceeded\n' +
    ' > logger="UnhandledError"';
  const r = parseKcmLine(text, ctx);
  assert.equal(r?.kind, 'sync-failed');
  assert.equal(r?.rsKey, RS);
  assert.equal(r?.logger, 'UnhandledError');
});

test('waiting on deletions, received delete, pod control, status update, controller start', () => {
  const w = parseKcmLine(
    `I1130 02:23:57.011008   32456 controller_utils.go:366] "Controller waiting on deletions" logger="replicaset-controller" controller="${RS}" keys=["${RS}-cp7qj","${RS}-jm79w"]`,
    ctx,
  );
  assert.equal(w?.kind, 'waiting-on-deletions');
  assert.equal(w?.rsKey, RS);
  assert.deepEqual(w?.keys, [`${RS}-cp7qj`, `${RS}-jm79w`]);
  const old = parseKcmLine(`I0304 10:16:00.000300       1 controller_utils.go:366] Controller ${RS} waiting on deletions for: [${RS}-a ${RS}-b]`, ctx);
  assert.deepEqual(old?.keys, [`${RS}-a`, `${RS}-b`]);
  const clob = parseKcmLine(`E0304 10:16:00.000350       1 controller_utils.go:370] Clobbering existing delete keys: map[${RS}-f:{} ${RS}-g:{}]`, ctx);
  assert.equal(clob?.kind, 'clobbering-delete-keys');
  assert.deepEqual(clob?.keys, [`${RS}-f`, `${RS}-g`]);
  const rd = parseKcmLine(
    `I1130 02:23:57.011272   32456 controller_utils.go:386] "Controller received delete for pod" logger="replicaset-controller" controller="${RS}" key="${RS}-cp7qj"`,
    ctx,
  );
  assert.equal(rd?.kind, 'received-delete');
  assert.equal(rd?.rsKey, RS);
  assert.deepEqual(rd?.keys, [`${RS}-cp7qj`]);
  const cp = parseKcmLine(
    `I1130 02:18:33.135175   32352 controller_utils.go:613] "Controller created pod" logger="replicaset-controller" controller="web-7d9c6b8f5d" pod="${RS}-s8clb"`,
    ctx,
  );
  assert.equal(cp?.kind, 'controller-created-pod');
  assert.equal(cp?.rsKey, RS);
  assert.equal(cp?.podKey, `${RS}-s8clb`);
  const dp = parseKcmLine(`I1130 02:18:37.136180   32352 controller_utils.go:625] "Deleting pod" logger="replicaset-controller" controller="web-7d9c6b8f5d" pod="${RS}-jvddd"`, ctx);
  assert.equal(dp?.kind, 'deleting-pod');
  assert.equal(dp?.rsKey, RS);
  const su = parseKcmLine(
    `I1130 02:18:33.136093   32352 replica_set_utils.go:68] "Updating status for : ${RS}, replicas 0->2 (need 3), fullyLabeledReplicas 0->2, readyReplicas 0->1, availableReplicas 0->0, terminatingReplicas nil->0, sequence No: 0->1" logger="replicaset-controller"`,
    ctx,
  );
  assert.equal(su?.kind, 'status-update');
  assert.equal(su?.rsKey, RS);
  assert.deepEqual(su?.numbers, {
    replicasFrom: 0,
    replicasTo: 2,
    need: 3,
    fullyLabeledReplicasFrom: 0,
    fullyLabeledReplicasTo: 2,
    readyReplicasFrom: 0,
    readyReplicasTo: 1,
    availableReplicasFrom: 0,
    availableReplicasTo: 0,
    terminatingReplicasTo: 0,
    observedGenerationFrom: 0,
    observedGenerationTo: 1,
  });
  const st = parseKcmLine('I1130 02:18:32.634176   32352 replica_set.go:285] "Starting controller" logger="replicaset-controller" name="replicaset"', ctx);
  assert.equal(st?.kind, 'controller-started');
  assert.equal(st?.family, 'replicaset');
  const dpl = parseKcmLine('I1130 02:18:32.634176   32352 deployment_controller.go:180] "Starting controller" logger="deployment-controller" controller="deployment"', ctx);
  assert.equal(dpl?.family, 'other');
  const sl = parseKcmLine(
    `I1130 02:18:35.135352   32352 replica_set.go:693] "Slow-start failure. Skipping creation of pods, decrementing expectations" logger="replicaset-controller" podsSkipped=2 kind="ReplicaSet" replicaSet="${RS}"`,
    ctx,
  );
  assert.equal(sl?.kind, 'slow-start-failure');
  assert.deepEqual(sl?.numbers, { podsSkipped: 2 });
  const del = parseKcmLine(`I1130 02:24:23.529735   32456 replica_set.go:780] "deleted" logger="replicaset-controller" kind="ReplicaSet" key="${RS}"`, ctx);
  assert.equal(del?.kind, 'rs-deleted-sync');
  assert.equal(del?.rsKey, RS);
});

test('other controllers: RC / DaemonSet / Job loggers and kind= keys decide the family', () => {
  const rc = parseKcmLine(
    'I1130 02:18:33.134984   32352 replica_set.go:759] "Finished syncing" logger="replicationcontroller-controller" kind="ReplicationController" key="shop/legacy" duration="428.71µs"',
    ctx,
  );
  assert.equal(rc?.kind, 'finished-syncing');
  assert.equal(rc?.family, 'replicationcontroller');
  const ds = parseKcmLine('I1130 10:15:02.101200   12345 controller_utils.go:232] "Setting expectations" logger="daemonset-controller" expectations={}', ctx);
  assert.equal(ds?.family, 'daemonset');
  const job = parseKcmLine('I1130 10:15:02.101300   12345 controller_utils.go:204] "Controller still waiting on expectations" logger="job-controller" expectations={}', ctx);
  assert.equal(job?.family, 'job');
  // ≤1.26 structured line without a logger: the kind= key decides.
  const kk = parseKcmLine('I0304 10:15:02.100000       1 replica_set.go:598] "Failed to delete pod, decremented expectations" pod="shop/legacy-abcde" kind="ReplicationController" replicaSet="shop/legacy"', ctx);
  assert.equal(kk?.family, 'replicationcontroller');
  assert.equal(kk?.familyBasis, 'kind');
  const df = parseKcmLine('I0304 10:15:02.100000       1 daemon_controller.go:900] "Controller created pod" controller="node-exporter" pod="kube-system/node-exporter-8hx2v"', ctx);
  assert.equal(df?.family, 'daemonset');
  assert.equal(df?.familyBasis, 'file');
});

test('wrappers: CRI (with P partial tag), docker json-file, kubectl --timestamps; malformed ones', () => {
  const c = unwrapLogLine('2025-11-30T10:15:02.100000012Z stderr F I1130 10:15:02.100000   12345 replica_set.go:389] "Adding"');
  assert.equal(c.wrapper, 'cri');
  assert.equal(c.wrapperAt, utc(11, 30, 10, 15, 2, 100000.012));
  assert.equal(c.inner, 'I1130 10:15:02.100000   12345 replica_set.go:389] "Adding"');
  assert.equal(unwrapLogLine('2025-11-30T10:15:02Z stdout P I1130 10:15').partial, true);
  const d = unwrapLogLine('{"log":"I1130 10:15:02.100000   12345 replica_set.go:389] \\"Adding\\"\\n","stream":"stderr","time":"2025-11-30T10:15:02.1005Z"}');
  assert.equal(d.wrapper, 'docker');
  assert.equal(d.inner, 'I1130 10:15:02.100000   12345 replica_set.go:389] "Adding"');
  assert.equal(d.partial, undefined);
  const t = unwrapLogLine('2025-11-30T10:15:02.100400000Z I1130 10:15:02.100000   12345 replica_set.go:389] "Adding"');
  assert.equal(t.wrapper, 'timestamp');
  assert.match(unwrapLogLine('{"log":"I1130 10:1').error ?? '', /malformed docker/);
  assert.match(unwrapLogLine('2025-11-31T10:15:02Z stderr F I1130').error ?? '', /malformed CRI/);
  // A JSON log line is not a docker wrapper.
  assert.equal(unwrapLogLine('{"ts":1,"msg":"x"}').wrapper, undefined);
  const p = parseKcmLine('2025-11-30T10:15:02.100000012Z stderr F I1130 10:15:02.100000   12345 replica_set.go:389] "Adding" logger="replicaset-controller" replicaSet="shop/web"', ctx);
  assert.equal(p?.wrapper, 'cri');
  assert.equal(p?.aux, 'rs-added');
  assert.equal(p?.rsKey, 'shop/web');
});

test('impossible klog dates are problems; non-log text is not a record', () => {
  const problems: string[] = [];
  const c: ParseContext = { ...ctx, problem: (m) => problems.push(m) };
  assert.equal(parseKcmLine('I1332 10:15:02.100000   12345 replica_set.go:389] "Adding"', c), undefined);
  assert.equal(problems.length, 1);
  assert.equal(parseKcmLine('goroutine 417 [running]:', c), undefined);
  assert.equal(parseKcmLine('Flag --foo has been deprecated', c), undefined);
  assert.equal(problems.length, 1);
});

test('klog time zone offset and the notAfter (mtime) year rule', () => {
  const r = parseKcmLine('I1130 11:15:02.000000   1 a.go:1] "x"', { year: 2025, tzOffsetMinutes: 60 });
  assert.equal(r?.at, utc(11, 30, 10, 15, 2));
  const nye = parseKcmLine('I1231 23:59:59.000000   1 a.go:1] "x"', { year: 2026, tzOffsetMinutes: 0, notAfter: Date.UTC(2026, 0, 1, 0, 5) });
  assert.equal(nye?.at, Date.UTC(2025, 11, 31, 23, 59, 59));
});

// ---------------------------------------------------------------------------------------------
// the source

test('v1.28-style text log: RS lines kept, RC/DaemonSet/Job lines excluded, continuation and junk counted', async () => {
  const r = await read(join(FX, 'v128-text.log'), { year: 2025 });
  assert.equal(r.format, 'kcm-log-text');
  assert.deepEqual(r.problems, []);
  assert.equal(r.events.length, 51); // 50 + its one Event ("Event occurred" kind="ReplicaSet")
  assert.ok(r.events.every((e) => e.rsKey === RS || e.logKind === 'controller-started'));
  assert.ok(r.events.every((e) => e.atBasis === 'log' && e.source.file === join(FX, 'v128-text.log')));
  assert.deepEqual(r.stats.excluded, { replicationcontroller: 4, daemonset: 3, job: 1 });
  assert.equal(r.stats.uncatalogued, 1); // "Finished syncing deployment"
  assert.equal(r.stats.continuationLines, 3);
  assert.equal(r.stats.unrecognisedLines, 1); // goroutine 417 [running]:
  assert.equal(r.stats.blankLines, 1);
  assert.equal(r.stats.records, 60);
  assert.equal(r.stats.ambiguous, 0);
  assert.equal(r.stats.yearBasis, 'option');
  assert.deepEqual(r.coverage, {
    file: join(FX, 'v128-text.log'),
    format: 'kcm-log-text',
    timeBasis: 'log',
    endMarker: false,
    events: 51,
    problems: 0,
    start: utc(11, 30, 10, 15, 0, 100),
    end: utc(11, 30, 10, 25, 0, 200),
  });
  // Exact values of some lines.
  const set1 = at(r.events, 6);
  assert.equal(set1.logKind, 'setting-expectations');
  assert.equal(set1.at, utc(11, 30, 10, 15, 2, 100080));
  assert.equal(set1.add, 3);
  assert.equal(set1.del, 0);
  assert.deepEqual(at(r.events, 7).numbers, { need: 3, creating: 3 });
  assert.equal(at(r.events, 20).logKind, 'still-waiting');
  assert.deepEqual(at(r.events, 34).keys, [`${RS}-x7k2p`, `${RS}-m5n8w`]);
  const failed = at(r.events, 46); // the multi-line "Unhandled Error" record starts at line 46
  assert.equal(failed.logKind, 'sync-failed');
  assert.equal(failed.rsKey, RS);
  assert.match(failed.message, /context deadline exceeded\n > logger="UnhandledError"$/);
  const exp = at(r.events, 50);
  assert.equal(exp.logKind, 'expectations-expired');
  assert.equal(exp.add, 0);
  assert.equal(exp.del, 1);
  const clob = at(r.events, 53);
  assert.equal(clob.logKind, 'clobbering-delete-keys');
  assert.equal(clob.rsKey, RS);
  assert.deepEqual(clob.keys, [`${RS}-m5n8w`]);
  assert.deepEqual(clob.numbers, { fromContext: 1 });
  assert.deepEqual(at(r.events, 31).numbers, { oldReplicas: 3, newReplicas: 1 });
  assert.equal(at(r.events, 64).logKind, 'rs-deleted-sync');
  // The DaemonSet's and the Job's lines (their loggers) come out with their kind and key.
  assert.deepEqual(
    r.others.map((e) => [e.source.line, e.ownerKind, e.logKind, e.rsKey, e.add, e.del]),
    [
      [3, 'DaemonSet', 'controller-started', undefined, undefined, undefined],
      [15, 'DaemonSet', 'setting-expectations', 'kube-system/node-exporter', 1, 0],
      [16, 'DaemonSet', 'controller-created-pod', 'kube-system/node-exporter', undefined, undefined],
      [17, 'Job', 'still-waiting', 'batch/nightly', 1, 0],
    ],
  );
  assert.deepEqual(r.stats.ownerKinds, {
    ReplicationController: { events: 4, contextResolved: 0, contextUnresolved: 0 },
    DaemonSet: { events: 3, contextResolved: 0, contextUnresolved: 0 },
    Job: { events: 1, contextResolved: 0, contextUnresolved: 0 },
  });
  // Time order.
  for (let i = 1; i < r.events.length; i++) assert.ok(r.events[i]!.at >= r.events[i - 1]!.at);
});

test('≤1.26 printf log: shared-code lines attributed by key, other controllers excluded, unknown key ambiguous', async () => {
  const r = await read(join(FX, 'v126-printf.log'), { year: 2025 });
  assert.deepEqual(r.problems, []);
  // (the DaemonSet's "Finished syncing daemon set" line is catalogued now: its key and sync)
  assert.deepEqual(r.stats.excluded, { replicationcontroller: 4, daemonset: 2, job: 2 });
  assert.equal(r.stats.ambiguous, 1); // Setting expectations for ghost/unknown
  assert.equal(r.warnings.length, 2);
  // Its "Too few replicas for ReplicaSet …" round lines are the printf wording of v1.20 and earlier (src/sources/kcm-log/log-era.ts).
  assert.match(r.warnings[0]!, /v126-printf\.log:7: this kube-controller-manager log is older than kexp models/);
  assert.match(r.warnings[1]!, /v126-printf\.log:26: 1 line\(s\) from code the ReplicaSet, ReplicationController, DaemonSet and Job controllers share .* could not be attributed to a kind and were skipped \(unknown kind; the first is this line\)$/);
  // The keyed shared-code lines whose key only a DaemonSet's or a Job's "Finished syncing …" line names are theirs.
  assert.deepEqual(
    r.others.map((e) => [e.source.line, e.ownerKind, e.logKind, e.rsKey, e.add, e.del, e.numbers?.durationMs]),
    [
      [22, 'DaemonSet', 'setting-expectations', 'kube-system/node-exporter', 1, 0, undefined],
      [23, 'DaemonSet', 'finished-syncing', 'kube-system/node-exporter', undefined, undefined, 2.1],
      [24, 'Job', 'still-waiting', 'batch/nightly', 1, 0, undefined],
      [25, 'Job', 'finished-syncing', 'batch/nightly', undefined, undefined, 1.4],
    ],
  );
  assert.equal(r.events.length, 28);
  assert.ok(r.events.every((e) => e.rsKey === RS || e.logKind === 'controller-started'));
  assert.deepEqual(
    r.events.filter((e) => e.logKind.includes('expectations') || e.logKind === 'still-waiting').map((e) => [e.source.line, e.logKind, e.add, e.del]),
    [
      [6, 'setting-expectations', 2, 0],
      [11, 'lowered-expectations', 1, 0],
      [13, 'still-waiting', 1, 0],
      [16, 'lowered-expectations', 0, 0],
      [17, 'expectations-fulfilled', 0, 0],
      [27, 'expectations-fulfilled', 0, 0],
      [31, 'setting-expectations', 0, 1],
      [35, 'lowered-expectations', 0, 0],
    ],
  );
  // ≤1.26 clobbering names no controller: taken from the "waiting on deletions" line before it.
  const clob = at(r.events, 30);
  assert.equal(clob.rsKey, RS);
  assert.deepEqual(clob.keys, [`${RS}-fghij`]);
  // The "sync failed" line (line 9) is emitted after the slow-start lines logged before it.
  assert.deepEqual(
    r.events.slice(6, 10).map((e) => e.source.line),
    [10, 11, 9, 12],
  );
  assert.equal(at(r.events, 8).logKind, 'controller-created-pod');
  assert.equal(at(r.events, 8).rsKey, RS); // "Controller web-7d9c6b8f5d created pod …": name only, one RS of that name
  assert.equal(at(r.events, 32).logKind, 'deleting-pod');
  assert.equal(at(r.events, 33).logKind, 'failed-delete');
});

test('real v1.37.2 controller code output (text; sync path without logger, as in KCM): every keyless line attributed, a leak, clobbering, restart, RC excluded', async () => {
  const r = await read(join(FX, 'sim-v1.37.2-text.log'), { year: 2026 });
  assert.deepEqual(r.problems, []);
  assert.equal(r.stats.contextUnresolved, 0);
  assert.equal(r.stats.contextResolved, 53);
  assert.deepEqual(r.stats.excluded, { replicationcontroller: 30 }); // 28 + the RC's 2 Events
  assert.equal(r.events.length, 161); // 150 + the ReplicaSet's 11 Events
  assert.equal(r.events.filter((e) => e.logKind === 'controller-started').length, 2);
  assert.ok(r.events.every((e) => e.rsKey === RS || e.logKind === 'controller-started' || (e.logKind === 'other' && e.message.includes('Shutting down'))));
  const expired = r.events.filter((e) => e.logKind === 'expectations-expired');
  assert.equal(expired.length, 1);
  assert.equal(expired[0]!.source.line, 158);
  const clob = r.events.find((e) => e.logKind === 'clobbering-delete-keys');
  assert.equal(clob?.rsKey, RS);
  assert.deepEqual(clob?.keys, [`${RS}-pjgsf`]);
  // Keyless Setting lines get their counters from the neighbouring lines.
  assert.deepEqual(
    r.events.filter((e) => e.logKind === 'setting-expectations').map((e) => [e.source.line, e.add, e.del, e.numbers?.fromContext]),
    [
      [25, 3, 0, 1],
      [71, 2, 0, 1],
      [81, 2, 0, 1],
      [106, 0, 3, 1],
      [164, 0, 1, 1],
      [215, 1, 0, 1],
    ],
  );
  const lowered = r.events.filter((e) => e.logKind === 'lowered-expectations');
  assert.equal(lowered.length, 11);
  assert.ok(lowered.every((e) => e.rsKey === RS && (e.numbers?.lowerAdd === 1 || e.numbers?.lowerDel === 1)));
  const failed = r.events.filter((e) => e.logKind === 'sync-failed');
  assert.equal(failed.length, 1);
  assert.equal(failed[0]!.rsKey, RS);
});

test('real v1.37.2 controller output (JSON): same reading as text', async () => {
  const r = await read(join(FX, 'sim-v1.37.2-json.log'));
  assert.equal(r.format, 'kcm-log-json');
  assert.deepEqual(r.problems, []);
  assert.equal(r.stats.jsonRecords, 239);
  assert.equal(r.stats.contextUnresolved, 0);
  assert.deepEqual(r.stats.excluded, { replicationcontroller: 26 }); // 24 + the RC's 2 Events
  assert.deepEqual(
    r.events.filter((e) => e.logKind === 'setting-expectations').map((e) => [e.add, e.del]),
    [
      [3, 0],
      [2, 0],
      [2, 0],
      [0, 3],
      [0, 1],
      [1, 0],
    ],
  );
  assert.equal(r.events.filter((e) => e.logKind === 'expectations-expired').length, 1);
  assert.equal(r.events.filter((e) => e.logKind === 'controller-started').length, 2);
  assert.ok(r.events.filter((e) => e.logKind !== 'controller-started' && e.logKind !== 'other').every((e) => e.rsKey === RS));
});

for (const variant of ['multi-text', 'multi-json', 'multi-nologger-text', 'multi-nologger-json']) {
  test(`ReplicaSets (and RCs) synced concurrently by 5 workers (${variant}, gzip): keyless lines attributed against the real keys`, async () => {
    const file = join(FX, `sim-v1.37.2-${variant}.log.gz`);
    const r = await read(file);
    assert.deepEqual(r.problems, []);
    // The simulator appended the real key of every expectations value as truthKey/truthAdd/truthDel.
    const raw = gunzipSync(readFileSync(file)).toString().split('\n');
    const truth = new Map<number, string>();
    raw.forEach((l, i) => {
      const m = /truthKey[=":]+([^"]+)"/.exec(l);
      if (m) truth.set(i + 1, m[1]!);
    });
    const byLine = new Map(r.events.map((e) => [e.source.line, e]));
    const checked: Record<string, { ok: number; wrong: number; none: number; rcEmitted: number; rsMissing: number }> = {};
    let counts = 0;
    for (const [line, key] of truth) {
      const e = byLine.get(line);
      const kind = /(Setting|Lowered) expectations|expectations (fulfilled|expired)|still waiting/.exec(raw[line - 1]!)![0];
      const c = (checked[kind] ??= { ok: 0, wrong: 0, none: 0, rcEmitted: 0, rsMissing: 0 });
      if (/\/legacy\d$/.test(key)) {
        if (e) c.rcEmitted++; // a ReplicationController's line must never become a ReplicaSet event
        continue;
      }
      if (!e) c.rsMissing++;
      else if (!e.rsKey) c.none++;
      else if (e.rsKey === key) c.ok++;
      else c.wrong++;
      if (e && kind === 'Setting expectations') {
        const a = Number(/truthAdd[=":]+(-?\d+)/.exec(raw[line - 1]!)![1]);
        const d = Number(/truthDel[=":]+(-?\d+)/.exec(raw[line - 1]!)![1]);
        assert.deepEqual([e.add, e.del], [a, d], `counts of line ${line}`);
        counts++;
      }
    }
    assert.ok(counts >= 70, `${counts} Setting lines checked`);
    for (const [k, c] of Object.entries(checked)) assert.equal(c.rcEmitted, 0, `${k}: ${JSON.stringify(c)}`);
    // Setting, Lowered and "still waiting" lines are always right.
    for (const k of ['Setting expectations', 'Lowered expectations', 'still waiting']) {
      const c = checked[k];
      if (!c) continue;
      assert.equal(c.wrong + c.none + c.rsMissing, 0, `${k}: ${JSON.stringify(c)}`);
    }
    // "fulfilled" lines of syncs started within µs of each other may swap (same decision).
    const f = checked['expectations fulfilled']!;
    assert.ok(f.ok / (f.ok + f.wrong + f.none + f.rsMissing) >= 0.97, JSON.stringify(f));
    if (variant.includes('nologger')) assert.ok((r.stats.excluded.replicationcontroller ?? 0) > 400);
  });
}

test('CRI-wrapped log: time zone from the wrapper, P/F pieces joined, continuation lines, malformed line reported', async () => {
  const r = await read(join(FX, 'cri-wrapped.log'));
  assert.deepEqual(r.problems, [
    { file: join(FX, 'cri-wrapped.log'), line: 11, message: 'malformed CRI log line (bad timestamp 2025-11-31T10:15:02.200000000Z)' },
  ]);
  assert.equal(r.stats.tzOffsetMinutes, 60);
  assert.equal(r.stats.tzBasis, 'wrapper');
  assert.equal(r.stats.yearBasis, 'wrapper');
  assert.equal(r.stats.wrapped.cri, 10);
  assert.equal(r.stats.continuationLines, 3);
  assert.deepEqual(kinds(r.events), [
    'other',
    'never-recorded',
    'setting-expectations',
    'too-few-replicas',
    'controller-created-pod',
    'controller-created-pod',
    'controller-created-pod',
    'status-update',
    'finished-syncing',
    'sync-failed',
  ]);
  // klog printed local time (UTC+1); events are in UTC.
  assert.equal(r.events[0]!.at, utc(11, 30, 10, 15, 2, 100000));
  const set = at(r.events, 3);
  assert.equal(set.logKind, 'setting-expectations');
  assert.equal(set.add, 3);
  assert.equal(set.rsKey, RS);
  assert.equal(at(r.events, 12).rsKey, RS);
});

test('docker json-file log: partial pieces joined, a cut-off line reported', async () => {
  const r = await read(join(FX, 'docker-json.log'), { year: 2025 });
  assert.deepEqual(r.problems, [{ file: join(FX, 'docker-json.log'), line: 8, message: 'malformed docker json-file line (not valid JSON)' }]);
  assert.equal(r.stats.wrapped.docker, 6);
  assert.deepEqual(kinds(r.events), [
    'other',
    'never-recorded',
    'setting-expectations',
    'too-few-replicas',
    'controller-created-pod',
    'controller-created-pod',
  ]);
  assert.equal(at(r.events, 6).rsKey, RS);
});

test('not a KCM log: InputError naming the command that reads it', async () => {
  await assert.rejects(read(join(FX, 'audit-not-kcm.log')), (e: unknown) => {
    assert.ok(e instanceof InputError);
    assert.equal(e.line, 1);
    assert.match(e.message, /this is an apiserver audit log, not a kube-controller-manager log; read it with `kexp audit`/);
    return true;
  });
  await assert.rejects(read(join(FX, 'watch-not-kcm.json')), /a watch stream, not a kube-controller-manager log; read it with `kexp replay`/);
  const dir = mkdtempSync(join(tmpdir(), 'kexp-kcm-test-'));
  try {
    writeFileSync(join(dir, 'notes.txt'), 'hello\nworld\n');
    await assert.rejects(read(join(dir, 'notes.txt')), /not a kube-controller-manager log: none of the first 2 lines is a klog line/);
    writeFileSync(join(dir, 'blank.log'), '\n\n');
    await assert.rejects(read(join(dir, 'blank.log')), /file holds no log lines/);
    await assert.rejects(read(join(dir, 'missing.log')), (e: unknown) => e instanceof InputError && /cannot open: no such file/.test(e.message));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('stdin (gzip) is read like a file; no RS lines gives a warning', async () => {
  const text = readFileSync(join(FX, 'v128-text.log'));
  const r = await read('-', { stdin: Readable.from([gzipSync(text)]), year: 2025 });
  assert.equal(r.events.length, 51);
  assert.equal(r.coverage.file, '-');
  assert.ok(r.events.every((e) => e.source.file === '-'));
  const other = 'I1130 10:15:02.101400   12345 deployment_controller.go:591] "Finished syncing deployment" logger="deployment-controller" deployment="shop/web" duration="1.2ms"\n';
  const r2 = await read('-', { stdin: Readable.from([Buffer.from(other)]), year: 2025 });
  assert.equal(r2.events.length, 0);
  assert.equal(r2.warnings.length, 1);
  assert.match(r2.warnings[0]!, /no ReplicaSet, ReplicationController, DaemonSet or Job controller lines found in 1 log records/);
});

test('year: the option applies to the first line and follows New Year; the mtime rule without it', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'kexp-kcm-test-'));
  try {
    const p = join(dir, 'nye.log');
    writeFileSync(
      p,
      [
        'I1231 23:59:59.900000       1 replica_set.go:759] "Finished syncing" logger="replicaset-controller" kind="ReplicaSet" key="shop/web" duration="1ms"',
        'I0101 00:00:00.100000       1 replica_set.go:759] "Finished syncing" logger="replicaset-controller" kind="ReplicaSet" key="shop/web" duration="1ms"',
      ].join('\n') + '\n',
    );
    const a = await read(p, { year: 2025 });
    assert.deepEqual(
      a.events.map((e) => e.at),
      [Date.UTC(2025, 11, 31, 23, 59, 59, 900), Date.UTC(2026, 0, 1, 0, 0, 0, 100)],
    );
    const b = await read(p, { mtime: Date.UTC(2026, 0, 1, 0, 1) });
    assert.deepEqual(
      b.events.map((e) => e.at),
      [Date.UTC(2025, 11, 31, 23, 59, 59, 900), Date.UTC(2026, 0, 1, 0, 0, 0, 100)],
    );
    assert.equal(b.stats.yearBasis, 'mtime');
    const c = await read(p, { year: 2030, tzOffsetMinutes: -300 });
    assert.equal(c.events[0]!.at, Date.UTC(2031, 0, 1, 4, 59, 59, 900));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('ReplicationController manager lines come out apart (ownerKind), keyed by the RC, counted with the other controllers\' lines', async () => {
  const r = await read('test/fixtures/kcm-log/sim-v1.37.2-text.log');
  assert.ok(r.rcEvents.length > 0);
  // (every line names shop/legacy but the controller's own start and shutdown)
  assert.deepEqual(r.rcEvents.filter((e) => !(e.ownerKind === 'ReplicationController' && (e.rsKey === 'shop/legacy' || /controller"? name="replicationcontroller"/.test(e.message)))).map((e) => [e.logKind, e.rsKey, e.source.line]), []);
  assert.equal(r.stats.excluded.replicationcontroller, r.rcEvents.length);
  assert.ok(r.events.every((e) => e.rsKey !== 'shop/legacy'));
  // A log of the RC manager alone: its keyless "Lowered expectations" lines take the RC's key from
  // the "Pod created" lines before them, as the ReplicaSet's do; no "no ReplicaSet lines" warning.
  const rc = await read('test/fixtures/replicationcontroller/kcm.log', { year: 2026 });
  assert.equal(rc.events.length, 0);
  const lowered = rc.rcEvents.filter((e) => e.logKind === 'lowered-expectations');
  assert.deepEqual(lowered.map((e) => e.rsKey), ['kexp-rc-dropped-add/web', 'kexp-rc-dropped-add/web']);
  assert.ok(!rc.warnings.some((w) => /no ReplicaSet controller lines/.test(w)), rc.warnings.join('\n'));
});
