/**
 * The DaemonSet controller's and the Job controller's lines in a kube-controller-manager log
 * (issue #22): their wording in the v1.21 printf form and the v1.28+ structured form (klog text
 * and JSON), read from pkg/controller/daemon/daemon_controller.go, pkg/controller/job/
 * job_controller.go and tracking_utils.go at v1.21.14, v1.25.16, v1.28.15 and v1.37.2; their
 * attribution to kind and key (attribute.ts) on hand-written logs and on the real v1.37.2
 * controller code's output (test/fixtures/kcm-log/sim-ds-job.go.txt: every expectations value
 * carries its real key and counts); their ground truth (ground-truth.ts, finalizer-tracking.ts).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { parseKcmLine, type ParsedKcmLine } from '../../src/sources/kcm-log/parse-line.js';
import { openKcmLogSource, type KcmLogStats } from '../../src/sources/kcm-log/kcm-log-source.js';
import { buildGroundTruth } from '../../src/sources/kcm-log/ground-truth.js';
import { buildFinalizerTracking } from '../../src/sources/kcm-log/finalizer-tracking.js';
import { olderThanModelledWording } from '../../src/sources/kcm-log/log-era.js';
import type { ControllerLogEvent } from '../../src/timeline/event.js';
import type { InputProblem } from '../../src/sources/source.js';

const FX = 'test/fixtures/kcm-log';
const ctx = { year: 2026, tzOffsetMinutes: 0 };
const parse = (line: string): ParsedKcmLine => {
  const r = parseKcmLine(line, ctx);
  assert.ok(r, line);
  return r;
};
/** What kexp reads of a line: kind, family, key, numbers, keys. */
const read = (line: string) => {
  const r = parse(line);
  return { kind: r.kind, family: r.family, key: r.rsKey, name: r.rsName, numbers: r.numbers, keys: r.keys, side: r.setSide };
};

test('v1.37 text: the DaemonSet controller\'s lines (daemon_controller.go v1.37.2)', () => {
  assert.deepEqual(
    read('I1205 08:08:01.812535    6973 daemon_controller.go:1060] "Nodes needing daemon pods for daemon set, creating" daemonset="kube-system/node-exporter" needCount=["node-1","node-2","node-3","node-4"] createCount=4'),
    { kind: 'too-few-replicas', family: 'daemonset', key: 'kube-system/node-exporter', name: undefined, numbers: { nodesNeeding: 4, creating: 4 }, keys: undefined, side: 'after' },
  );
  assert.deepEqual(
    read('I1205 08:08:07.854293    6973 daemon_controller.go:1122] "Pods to delete for daemon set, deleting" daemonset="monitoring/log-agent" toDeleteCount=["log-agent-f9xbd"] deleteCount=1'),
    { kind: 'too-many-replicas', family: 'daemonset', key: 'monitoring/log-agent', name: undefined, numbers: { deleting: 1 }, keys: ['monitoring/log-agent-f9xbd'], side: undefined },
  );
  // Every sync that passes the gate logs both, N = 0 included.
  assert.deepEqual(read('I1205 08:08:01.825910    6973 daemon_controller.go:1122] "Pods to delete for daemon set, deleting" daemonset="kube-system/node-exporter" toDeleteCount=null deleteCount=0').numbers, { deleting: 0 });
  assert.deepEqual(read('I1205 08:08:01.827105    6973 daemon_controller.go:1283] "Finished syncing daemon set" daemonset="kube-system/node-exporter" time="17.211107ms"'), {
    kind: 'finished-syncing', family: 'daemonset', key: 'kube-system/node-exporter', name: undefined, numbers: { durationMs: 17.211107 }, keys: undefined, side: undefined,
  });
  assert.equal(read('I1205 08:13:56.500000    6973 daemon_controller.go:1312] "Daemon set has been deleted" daemonset="monitoring/log-agent"').kind, 'rs-deleted-sync');
  const deleting = parse('I1205 08:13:56.400000    6973 daemon_controller.go:334] "Deleting daemon set" logger="daemonset-controller" daemonset="monitoring/log-agent"');
  assert.deepEqual([deleting.kind, deleting.aux, deleting.family, deleting.familyBasis, deleting.rsKey], ['other', 'rs-deleting', 'daemonset', 'logger', 'monitoring/log-agent']);
  const added = parse('I1205 08:08:01.812890    6973 daemon_controller.go:605] "Pod added" logger="daemonset-controller" pod="kube-system/node-exporter-lj8w9"');
  assert.deepEqual([added.kind, added.aux, added.family, added.podKey], ['other', 'pod-added', 'daemonset', 'kube-system/node-exporter-lj8w9']);
  const deleted = parse('I1205 08:08:07.859030    6973 daemon_controller.go:722] "Pod deleted" logger="daemonset-controller" pod="monitoring/log-agent-f9xbd"');
  assert.deepEqual([deleted.aux, deleted.family], ['pod-deleted', 'daemonset']);
  assert.deepEqual(read('I1205 08:08:07.851680    6973 daemon_controller.go:1103] "Failed creation, decrementing expectations for daemon set" daemonset="kube-system/node-exporter"').kind, 'failed-create');
  const slow = parse('I1205 08:08:07.851700    6973 daemon_controller.go:1114] "Slow-start failure. Skipping creation pods, decrementing expectations for daemon set" skippedPods=2 daemonset="kube-system/node-exporter"');
  assert.deepEqual([slow.kind, slow.family, slow.rsKey, slow.numbers, slow.lowersAtOnce], ['slow-start-failure', 'daemonset', 'kube-system/node-exporter', { podsSkipped: 2 }, true]);
  assert.equal(read('I1205 08:08:07.851800    6973 daemon_controller.go:1134] "Failed deletion, decremented expectations for daemon set" daemonset="kube-system/node-exporter"').kind, 'failed-delete');
  assert.deepEqual(read('I1205 08:08:01.302000    6973 daemon_controller.go:364] "Starting daemon sets controller"').kind, 'controller-started');
  assert.equal(read('I1205 08:08:01.302000    6973 daemon_controller.go:364] "Starting daemon sets controller"').family, 'daemonset');
  // Its failed sync (processNextWorkItem): the DaemonSet's from daemon_controller.go …
  const failed = parse('E1205 08:08:07.851900    6973 daemon_controller.go:393] "Unhandled Error" err="kube-system/node-exporter failed with : pods \\"node-exporter-8kfht\\" is forbidden: exceeded quota: pods-quota" logger="UnhandledError"');
  assert.deepEqual([failed.kind, failed.family, failed.rsKey, failed.onlyForKeysOf], ['sync-failed', 'daemonset', 'kube-system/node-exporter', undefined]);
  // … and from another caller (the JSON logger names wait/backoff.go) only if the key is a DaemonSet's (attribute.ts).
  const other = parse('{"ts":1796458087851.9,"logger":"UnhandledError","caller":"wait/backoff.go:255","msg":"Unhandled Error","err":"kube-system/node-exporter failed with : boom"}');
  assert.deepEqual([other.kind, other.family, other.onlyForKeysOf], ['sync-failed', 'unknown', 'daemonset']);
  // The same wording from the PVC expand controller is nobody's the file tells.
  assert.equal(parse('E1205 08:08:07.851900    6973 expand_controller.go:204] "Unhandled Error" err="shop/data failed with : boom" logger="UnhandledError"').onlyForKeysOf, 'daemonset');
});

test('v1.37 text: the Job controller\'s lines (job_controller.go, tracking_utils.go v1.37.2)', () => {
  assert.deepEqual(read('I1205 08:08:01.809735    6973 job_controller.go:1858] "Too few pods running" key="batch/nightly" need=2 creating=2'), {
    kind: 'too-few-replicas', family: 'job', key: 'batch/nightly', name: undefined, numbers: { need: 2, creating: 2 }, keys: undefined, side: 'after',
  });
  assert.deepEqual(read('I1205 08:08:20.000136    6973 job_controller.go:1806] "Too many pods running for job" job="batch/nightly" deleted=1 target=1'), {
    kind: 'too-many-replicas', family: 'job', key: 'batch/nightly', name: undefined, numbers: { need: 1, deleting: 1 }, keys: undefined, side: 'after',
  });
  assert.deepEqual(read('I1205 08:09:00.000100    6973 job_controller.go:1764] "Deleting all active pods in suspended job" job="batch/nightly" active=2'), {
    kind: 'too-many-replicas', family: 'job', key: 'batch/nightly', name: undefined, numbers: { need: 0, deleting: 2 }, keys: undefined, side: 'before',
  });
  assert.deepEqual(read('I1205 08:08:01.815000    6973 job_controller.go:920] "Finished syncing job" key="batch/nightly" elapsed="5.31ms"').numbers, { durationMs: 5.31 });
  assert.equal(read('I1205 08:13:56.600000    6973 job_controller.go:948] "Job has been deleted" key="batch/report"').kind, 'rs-deleted-sync');
  assert.equal(read('I1205 08:08:01.816000    6973 job_controller.go:1934] "Failed creation, decrementing expectations" job="batch/nightly"').kind, 'failed-create');
  assert.deepEqual(read('I1205 08:08:01.816100    6973 job_controller.go:1947] "Slow-start failure. Skipping creating pods, decrementing expectations" skippedCount=3 job="batch/nightly"').numbers, { podsSkipped: 3 });
  assert.equal(read('I1205 08:08:01.816200    6973 job_controller.go:1272] "Failed to delete Pod" job="batch/nightly" pod="batch/nightly-5qvzn" err="boom"').kind, 'failed-delete');
  assert.deepEqual(read('I1205 08:08:03.837000    6973 tracking_utils.go:80] "Expecting tracking finalizers removed" key="batch/nightly" podUIDs=["7ntsh42c-kkbj","64qrkvt8-2djb"]'), {
    kind: 'finalizers-expected', family: 'job', key: 'batch/nightly', name: undefined, numbers: undefined, keys: ['7ntsh42c-kkbj', '64qrkvt8-2djb'], side: undefined,
  });
  assert.deepEqual(read('I1205 08:08:05.900000    6973 tracking_utils.go:102] "Observed tracking finalizer removed" logger="job-controller" key="batch/nightly" podUID="7ntsh42c-kkbj"').keys, ['7ntsh42c-kkbj']);
  assert.equal(read('I1205 08:08:01.314000    6973 job_controller.go:334] "Starting job controller"').family, 'job');
  // "enqueueing job" (V(2)): not catalogued, but it names the Job its pod handler's lower was about.
  const enq = parse('I1205 08:08:01.817210    6973 job_controller.go:716] "enqueueing job" logger="job-controller" key="batch/nightly" delay="1s"');
  assert.deepEqual([enq.kind, enq.otherKey], [undefined, { key: 'batch/nightly', family: 'job', enqueued: true }]);
});

test('v1.25 InfoS: the finalizer tracking names its Job as job= (tracking_utils.go v1.25.16)', () => {
  assert.deepEqual(read('I0304 10:00:10.000000       1 tracking_utils.go:75] "Expecting tracking finalizers removed" job="batch/nightly" podUIDs=[a1 b2]'), {
    kind: 'finalizers-expected', family: 'job', key: 'batch/nightly', name: undefined, numbers: undefined, keys: ['a1', 'b2'], side: undefined,
  });
  assert.deepEqual(read('I0304 10:00:11.000000       1 tracking_utils.go:99] "Observed tracking finalizer removed" job="batch/nightly" podUID="a1"').keys, ['a1']);
});

test('JSON (--logging-format=json): the same lines, the same reading', () => {
  const nn = parse('{"ts":1796457968049.6,"caller":"daemon/daemon_controller.go:1060","msg":"Nodes needing daemon pods for daemon set, creating","v":4,"daemonset":{"name":"node-exporter","namespace":"kube-system"},"needCount":["node-1","node-2"],"createCount":2}');
  assert.deepEqual([nn.kind, nn.family, nn.rsKey, nn.numbers, nn.setSide], ['too-few-replicas', 'daemonset', 'kube-system/node-exporter', { nodesNeeding: 2, creating: 2 }, 'after']);
  const few = parse('{"ts":1796457968046.2,"caller":"job/job_controller.go:1858","msg":"Too few pods running","v":4,"key":"batch/nightly","need":2,"creating":2}');
  assert.deepEqual([few.kind, few.family, few.rsKey, few.numbers], ['too-few-replicas', 'job', 'batch/nightly', { need: 2, creating: 2 }]);
  const fin = parse('{"ts":1796457970056.6,"caller":"job/tracking_utils.go:80","msg":"Expecting tracking finalizers removed","v":4,"key":"batch/nightly","podUIDs":["u1","u2"]}');
  assert.deepEqual([fin.kind, fin.family, fin.keys], ['finalizers-expected', 'job', ['u1', 'u2']]);
  const sync = parse('{"ts":1796457968060.1,"caller":"daemon/daemon_controller.go:1283","msg":"Finished syncing daemon set","v":4,"daemonset":"kube-system/node-exporter","time":"11.19ms"}');
  assert.deepEqual([sync.kind, sync.rsKey, sync.numbers], ['finished-syncing', 'kube-system/node-exporter', { durationMs: 11.19 }]);
});

test('v1.21 printf: the DaemonSet\'s and Job\'s wording (daemon_controller.go, job_controller.go v1.21.14; v1.16.4 where it differs)', () => {
  // The DaemonSet's round lines name it without its namespace (ds.Name).
  assert.deepEqual(read('I0304 10:00:05.000136       1 daemon_controller.go:968] Nodes needing daemon pods for daemon set log-agent: [node-5 node-6 node-7], creating 3'), {
    kind: 'too-few-replicas', family: 'daemonset', key: undefined, name: 'log-agent', numbers: { creating: 3, nodesNeeding: 3 }, keys: undefined, side: 'after',
  });
  assert.deepEqual(read('I0304 10:00:00.000241       1 daemon_controller.go:1030] Pods to delete for daemon set node-exporter: [node-exporter-x2g9r], deleting 1').numbers, { deleting: 1 });
  assert.deepEqual(read('I0304 10:00:00.000236       1 daemon_controller.go:968] Nodes needing daemon pods for daemon set node-exporter: [], creating 0').numbers, { creating: 0, nodesNeeding: 0 });
  assert.deepEqual(read('I0304 10:00:00.004170       1 daemon_controller.go:1163] Finished syncing daemon set "kube-system/node-exporter" (4.01ms)'), {
    kind: 'finished-syncing', family: 'daemonset', key: 'kube-system/node-exporter', name: undefined, numbers: { durationMs: 4.01 }, keys: undefined, side: undefined,
  });
  assert.deepEqual(read('I0304 10:06:00.000000       1 daemon_controller.go:1172] daemon set has been deleted kube-system/node-exporter').kind, 'rs-deleted-sync');
  assert.deepEqual(read('I0304 10:00:05.002200       1 daemon_controller.go:1011] Failed creation, decrementing expectations for set "monitoring"/"log-agent"'), {
    kind: 'failed-create', family: 'daemonset', key: 'monitoring/log-agent', name: undefined, numbers: undefined, keys: undefined, side: undefined,
  });
  const slow = parse('I0304 10:00:05.002230       1 daemon_controller.go:1022] Slow-start failure. Skipping creation of 2 pods, decrementing expectations for set "monitoring"/"log-agent"');
  assert.deepEqual([slow.kind, slow.family, slow.rsKey, slow.numbers, slow.lowersAtOnce], ['slow-start-failure', 'daemonset', 'monitoring/log-agent', { podsSkipped: 2 }, true]);
  const jslow = parse('I0304 10:00:05.002230       1 job_controller.go:872] Slow-start failure. Skipping creation of 2 pods, decrementing expectations for job "batch"/"nightly"');
  assert.deepEqual([jslow.family, jslow.rsKey, jslow.lowersAtOnce], ['job', 'batch/nightly', undefined]);
  assert.equal(read('I0304 10:00:05.002500       1 daemon_controller.go:1039] Failed deletion, decremented expectations for set "kube-system"/"node-exporter"').kind, 'failed-delete');
  assert.equal(read('I0304 10:00:05.002500       1 daemon_controller.go:1093] Failed deletion, decrementing expectations for set "kube-system"/"node-exporter"').key, 'kube-system/node-exporter');
  assert.deepEqual(read('I0304 10:00:10.000136       1 job_controller.go:810] Too few pods running job "batch/nightly", need 2, creating 2'), {
    kind: 'too-few-replicas', family: 'job', key: 'batch/nightly', name: undefined, numbers: { need: 2, creating: 2 }, keys: undefined, side: 'after',
  });
  assert.deepEqual(read('I0304 10:00:10.000136       1 job_controller.go:699] Too many pods running job "batch/nightly", need 1, deleting 1').numbers, { need: 1, deleting: 1 });
  assert.deepEqual(read('I0304 10:06:00.000100       1 job_controller.go:459] Job has been deleted: batch/nightly').kind, 'rs-deleted-sync');
  assert.deepEqual(read('I0304 10:00:10.000500       1 job_controller.go:714] Failed to delete nightly-5qvzn, decrementing expectations for job "batch"/"nightly"').key, 'batch/nightly');
  assert.deepEqual(read('I0304 10:00:10.001400       1 job_controller.go:446] Finished syncing job "batch/nightly" (1.3ms)').numbers, { durationMs: 1.3 });
  assert.equal(read('I0304 09:59:58.000100       1 daemon_controller.go:285] Starting daemon sets controller').kind, 'controller-started');
  assert.equal(read('I0304 09:59:58.000200       1 job_controller.go:150] Starting job controller').family, 'job');
  const failed = parse('E0304 10:00:05.002360       1 daemon_controller.go:320] monitoring/log-agent failed with : pods "log-agent-8kfht" is forbidden: exceeded quota');
  assert.deepEqual([failed.kind, failed.family, failed.rsKey], ['sync-failed', 'daemonset', 'monitoring/log-agent']);
  // These wordings are printed through v1.25: a log with them is not older than modelled.
  assert.equal(olderThanModelledWording('Slow-start failure. Skipping creation of 2 pods, decrementing expectations for set "monitoring"/"log-agent"', false), undefined);
  assert.equal(olderThanModelledWording('Slow-start failure. Skipping creation of 2 pods, decrementing expectations for job "batch"/"nightly"', false), undefined);
  assert.ok(olderThanModelledWording('Slow-start failure. Skipping creation of 2 pods, decrementing expectations for ReplicaSet shop/web', false));
});

interface Read {
  events: ControllerLogEvent[];
  problems: InputProblem[];
  warnings: string[];
  stats: KcmLogStats;
}

async function readLog(path: string): Promise<Read> {
  const problems: InputProblem[] = [];
  const warnings: string[] = [];
  const src = await openKcmLogSource(path, { diagnostics: { problem: (p) => problems.push(p), warn: (w) => warnings.push(w) }, year: 2026 });
  const events: ControllerLogEvent[] = [];
  for await (const e of src.events) if (e.type === 'controller-log') events.push(e);
  return { events, problems, warnings, stats: src.stats() };
}

const NE = 'kube-system/node-exporter';

test('a v1.37 DaemonSet log (sync path without logger, expectations={}): every line its kind and key, the Sets\' counts from their round lines, the rolling-update checks marked', async () => {
  const r = await readLog(join(FX, 'ds-delete-leak-v1.37.log'));
  assert.deepEqual(r.problems, []);
  assert.ok(r.events.every((e) => e.ownerKind === 'DaemonSet'));
  assert.ok(r.events.every((e) => e.rsKey === NE || e.logKind === 'controller-started'));
  assert.deepEqual(
    r.events.filter((e) => e.logKind === 'setting-expectations').map((e) => [e.source.line, e.add, e.del, e.numbers?.fromContext]),
    [
      [5, 0, 1, 1],
      [55, 0, 1, 1],
      [65, 0, 0, 1],
    ],
  );
  const gates = r.events.filter((e) => ['expectations-fulfilled', 'expectations-expired', 'still-waiting', 'never-recorded'].includes(e.logKind));
  assert.deepEqual(gates.filter((e) => e.numbers?.rollingUpdateCheck).map((e) => [e.source.line, e.logKind]), [
    [9, 'still-waiting'],
    [60, 'expectations-fulfilled'],
    [68, 'expectations-fulfilled'],
  ]);
  assert.equal(gates.filter((e) => !e.numbers?.rollingUpdateCheck).length, 13); // never recorded, 10 refused, expired, fulfilled
  // The delete that found its pod gone lowers the record without a line of its own: no anchor, no key.
  assert.equal(r.stats.ambiguous, 1);
  assert.match(r.warnings.join('\n'), /ds-delete-leak-v1\.37\.log:59: 1 line\(s\) from code the ReplicaSet, ReplicationController, DaemonSet and Job controllers share/);
  assert.deepEqual(r.stats.ownerKinds, { DaemonSet: { events: r.events.length, contextResolved: 18, contextUnresolved: 0 } });
  // Its ground truth: the Set waiting for one delete, refused 10 times, freed only by the timeout.
  const g = buildGroundTruth(r.events).get(NE)!;
  assert.deepEqual(
    g.gatedWindows.map((w) => [w.startSource.line, w.endSource?.line, w.ended, w.expected, w.leaked, w.leakedBasis, w.gatedSyncs]),
    [
      [5, 54, 'expired', { add: 0, del: 1 }, { add: 0, del: 1 }, 'reconstructed', 10],
      [55, 60, 'fulfilled', { add: 0, del: 1 }, undefined, undefined, 0],
    ],
  );
  assert.deepEqual(g.rollingUpdateChecks?.map((c) => [c.source.line, c.decision]), [[9, 'gated'], [60, 'fulfilled'], [68, 'fulfilled']]);
  assert.equal(g.syncs.length, 13);
});

test('a v1.21 printf log: keyed expectations attributed by the DaemonSets\' and Job\'s own lines, round lines by name, pod control without namespace', async () => {
  const r = await readLog(join(FX, 'ds-job-v1.21-printf.log'));
  assert.deepEqual(r.problems, []);
  assert.deepEqual(r.warnings, []);
  assert.equal(r.stats.ambiguous, 0);
  assert.equal(r.stats.events, 0); // no ReplicaSet line
  const byKind = (k: string) => r.events.filter((e) => e.ownerKind === k);
  assert.deepEqual(
    byKind('DaemonSet').filter((e) => e.logKind === 'too-few-replicas' || e.logKind === 'too-many-replicas').map((e) => [e.source.line, e.rsKey, e.numbers]),
    [
      [5, NE, { creating: 0, nodesNeeding: 0 }],
      [6, NE, { deleting: 1 }],
      [14, 'monitoring/log-agent', { creating: 3, nodesNeeding: 3 }],
      [19, 'monitoring/log-agent', { deleting: 0 }],
      [78, NE, { creating: 0, nodesNeeding: 0 }],
      [79, NE, { deleting: 0 }],
    ],
  );
  // "Controller nightly created pod nightly-5qvzn": the only owner named nightly is the Job.
  assert.deepEqual(byKind('Job').filter((e) => e.logKind === 'controller-created-pod' || e.logKind === 'deleting-pod').map((e) => [e.source.line, e.rsKey]), [
    [27, 'batch/nightly'],
    [28, 'batch/nightly'],
    [41, 'batch/nightly'],
  ]);
  const ds = buildGroundTruth(byKind('DaemonSet'));
  assert.deepEqual(ds.get(NE)!.gatedWindows.map((w) => [w.ended, w.leaked, w.leakedBasis, w.gatedSyncs]), [['expired', { add: 0, del: 1 }, 'logged', 10]]);
  // The slow start's one LowerExpectations(2, 0) line, and the failed create's own.
  assert.deepEqual(ds.get('monitoring/log-agent')!.lowers.map((l) => [l.add, l.del]), [[2, 0], [0, 0]]);
  const job = buildGroundTruth(byKind('Job')).get('batch/nightly')!;
  assert.deepEqual(job.raises.map((x) => [x.add, x.del]), [[2, 0], [0, 1]]);
  assert.deepEqual(job.gatedWindows.map((w) => [w.ended, w.gatedSyncs]), [['fulfilled', 1], ['fulfilled', 0]]);
});

for (const variant of ['text', 'json']) {
  test(`the real v1.37.2 DaemonSet, Job and ReplicaSet code (${variant}): every expectations line attributed to its real kind, key and counts`, async () => {
    const file = join(FX, `sim-v1.37.2-ds-job-${variant}.log.gz`);
    const r = await readLog(file);
    // zap's own "Logger.check error" line in the JSON log is not a record.
    assert.deepEqual(r.problems.map((p) => p.line), variant === 'json' ? [305] : []);
    const raw = gunzipSync(readFileSync(file)).toString().split('\n');
    const byLine = new Map(r.events.map((e) => [e.source.line, e]));
    const kindOf = (key: string) => (key.startsWith('batch/') ? 'Job' : key.startsWith('shop/') ? undefined : 'DaemonSet');
    const tally: Record<string, { ok: number; wrong: string[] }> = {};
    let sets = 0;
    raw.forEach((l, i) => {
      const m = /truthKey[=":]+([^"]+)"[, ]*"?truthAdd"?[=:](-?\d+)[, ]*"?truthDel"?[=:](-?\d+)/.exec(l);
      if (!m) return;
      const [, key, add, del] = m;
      const what = /(Setting|Lowered) expectations|expectations (fulfilled|expired)|still waiting/.exec(l)![0];
      const t = (tally[`${kindOf(key!) ?? 'ReplicaSet'} ${what}`] ??= { ok: 0, wrong: [] });
      const e = byLine.get(i + 1);
      if (e?.rsKey === key && e.ownerKind === kindOf(key!)) t.ok++;
      else t.wrong.push(`line ${i + 1}: ${e ? `${e.ownerKind ?? 'ReplicaSet'} ${e.rsKey}` : 'not emitted'}, truth ${key}`);
      if (e && what === 'Setting expectations') {
        assert.deepEqual([e.add, e.del], [Number(add), Number(del)], `counts of line ${i + 1}`);
        sets++;
      }
    });
    for (const [k, t] of Object.entries(tally)) assert.deepEqual(t.wrong, [], k);
    assert.ok(sets >= 30, `${sets} Setting lines checked`);
    for (const k of ['DaemonSet Setting expectations', 'DaemonSet Lowered expectations', 'DaemonSet still waiting', 'DaemonSet expectations fulfilled', 'DaemonSet expectations expired', 'Job Setting expectations', 'Job Lowered expectations', 'Job expectations fulfilled']) {
      assert.ok((tally[k]?.ok ?? 0) > 0, `${k}: ${JSON.stringify(tally[k])}`);
    }
    // The swallowed delete: node-exporter's record waited for it until the timeout.
    const ds = buildGroundTruth(r.events.filter((e) => e.ownerKind === 'DaemonSet')).get(NE)!;
    const leak = ds.gatedWindows.filter((w) => w.ended === 'expired');
    assert.equal(leak.length, 1);
    assert.deepEqual(leak[0]!.leaked, { add: 0, del: 1 });
    assert.ok(leak[0]!.gatedSyncs >= 15, String(leak[0]!.gatedSyncs));
    assert.ok(leak[0]!.end! - leak[0]!.start > 300_000);
    // The Jobs' finalizer tracking: each pod's UID expected once its pod finished; observed when this
    // simulator deleted the pod (the fake clientset's pod updates carry no resourceVersion, so only
    // the deletion reaches the Job controller); batch/report's dropped with the Job.
    const jobs = buildFinalizerTracking(r.events.filter((e) => e.ownerKind === 'Job'));
    const nightly = jobs.get('batch/nightly')!;
    const report = jobs.get('batch/report')!;
    const expected = (t: typeof nightly) => t.expected.reduce((n, x) => n + x.uids.length, 0);
    assert.equal(expected(nightly), nightly.observed + nightly.awaited.length + nightly.dropped);
    assert.ok(nightly.observed > 0);
    assert.equal(report.dropped + report.observed, expected(report));
    assert.ok(report.dropped > 0);
    assert.deepEqual(report.awaited, []);
  });
}

test('a key two kinds name (a DaemonSet and a ReplicaSet both called shop/web): its shared-code lines are of unknown kind, skipped and said; the lines that name their controller keep it', async () => {
  const TS = 'timestamp:time.Time{wall:0xc0f6c5a1a5f0b2c8, ext:12345678901, loc:(*time.Location)(0x6e4b8a0)}';
  const f = join(mkdtempSync(join(tmpdir(), 'kexp-two-kinds-')), 'kcm.log');
  writeFileSync(f, [
    'I0304 10:00:00.000100       1 replica_set.go:563] Too few replicas for ReplicaSet shop/web, need 1, creating 1',
    'I0304 10:00:00.000300       1 daemon_controller.go:1163] Finished syncing daemon set "shop/web" (1.1ms)',
    `I0304 10:00:01.000000       1 controller_utils.go:223] Setting expectations &controller.ControlleeExpectations{add:1, del:0, key:"shop/web", ${TS}}`,
    `I0304 10:00:01.000100       1 controller_utils.go:195] Controller still waiting on expectations &controller.ControlleeExpectations{add:1, del:0, key:"shop/web", ${TS}}`,
  ].join('\n') + '\n');
  const r = await readLog(f);
  assert.equal(r.stats.ambiguous, 2);
  assert.deepEqual(r.events.map((e) => [e.source.line, e.ownerKind ?? 'ReplicaSet', e.logKind]), [
    [1, 'ReplicaSet', 'too-few-replicas'],
    [2, 'DaemonSet', 'finished-syncing'],
  ]);
  assert.match(r.warnings.join('\n'), /kcm\.log:3: 2 line\(s\) from code the ReplicaSet, ReplicationController, DaemonSet and Job controllers share .*could not be attributed to a kind/);
});
