/**
 * Fused sources: a kube-controller-manager log beside an audit log or a recording (given with
 * --kcm-log, or detected among the inputs) checks the reconstruction with the controller's own
 * decisions and measures the informer lag of each create.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { auditFiles } from '../../src/pipeline/audit-files.js';
import { replayFiles } from '../../src/pipeline/replay-files.js';
import { AuditLogBuilder, actors } from '../support/audit-builder.js';
import { validateReport } from '../support/report-schema.js';
import { RecordingBuilder } from '../support/recording-builder.js';
import { exitCodeFor } from '../../src/cli/report-exit.js';
import { causeOf } from '../../src/render/next-steps.js';

const dir = mkdtempSync(join(tmpdir(), 'kexp-fusion-'));

test('an audit log with the controller log among its inputs: every decision checked, windows observed, informer lag measured', async () => {
  const { report, problems } = await auditFiles({ files: ['examples/captures/quota-rejected/audit.jsonl', 'examples/captures/quota-rejected/kcm.log'] });
  assert.deepEqual(problems, []);
  assert.deepEqual(validateReport(report), []);
  const rs = report.replicaSets.find((r) => r.key === 'kexp-quota-rejected/web')!;
  assert.deepEqual(rs.controllerLog && [rs.controllerLog.syncs, rs.controllerLog.decisionsMatched, rs.controllerLog.decisionsMismatched], [13, 13, 0]);
  assert.equal(rs.controllerLog!.informerLagMs?.writes, 2);
  assert.ok(rs.gatedWindows.every((w) => w.basis === 'observed'));
  assert.ok(!rs.findings.some((f) => f.id === 'controller-log-gated' || f.id === 'controller-log-disagrees'), rs.findings.map((f) => f.id).join());
});

test('a recording with --kcm-log: the leak the controller logged is observed, not inferred', async () => {
  const { report } = await replayFiles({ files: ['examples/namespace-terminating-leak.kexp.jsonl'], kcmLogs: ['examples/captures/namespace-terminating-leak/kcm.log'] });
  const rs = report.replicaSets[0]!;
  assert.equal(rs.gatedWindows[0]!.basis, 'observed');
  assert.equal(rs.findings.find((f) => f.id === 'expectation-leak-namespace-terminating')!.basis, 'observed');
  assert.ok(report.coverage.assumptions.some((a) => /kube-controller-manager's own log/.test(a)));
});

test('#110631 with the controller log: the record kexp could not know is shown from the log, gated until its expiry', async () => {
  const b = new AuditLogBuilder();
  b.replicaSet(1, actors.deploymentController(), { existedSince: b.t - 86_400_000 });
  b.advance(303_900).replicaSet(1, actors.user());
  b.advance(100);
  b.controllerCreate();
  b.advance(10).rsStatus(1);
  const audit = b.write(join(dir, 'audit.jsonl'));
  const key = `${b.ns}/${b.rsName}`;
  const t = (s: number) => {
    const d = new Date(Date.UTC(2026, 10, 30, 10, 0, 0) + s * 1000);
    return `I1130 ${d.toISOString().slice(11, 23)}000`;
  };
  const kcm = [
    // An earlier create (before the audit log) was never observed: the record add=1 holds it.
    `${t(-2)}   12345 controller_utils.go:232] "Setting expectations" logger="replicaset-controller" expectations={add:1 del:0 key:${key}}`,
    `${t(0.05)}   12345 controller_utils.go:204] "Controller still waiting on expectations" logger="replicaset-controller" expectations={add:1 del:0 key:${key}}`,
    `${t(303.95)}   12345 controller_utils.go:210] "Controller expectations expired" logger="replicaset-controller" expectations={add:1 del:0 key:${key}}`,
    `${t(303.96)}   12345 controller_utils.go:232] "Setting expectations" logger="replicaset-controller" expectations={add:1 del:0 key:${key}}`,
  ].join('\n') + '\n';
  writeFileSync(join(dir, 'kcm.log'), kcm);
  const { report, problems } = await auditFiles({ files: [audit], kcmLogs: [join(dir, 'kcm.log')] });
  assert.deepEqual(problems, []);
  const rs = report.replicaSets[0]!;
  const f = rs.findings.find((x) => x.id === 'controller-log-gated')!;
  assert.ok(f, rs.findings.map((x) => x.id).join());
  assert.equal(f.basis, 'observed');
  assert.equal(f.severity, 'warning');
  assert.match(f.explanation, /1 creation\(s\) and 0 deletion\(s\) were never observed/);
  assert.ok(rs.findings.some((x) => x.id === 'late-first-write'));
});

test('a restart in the controller log resets the expectations kexp replays: the record in flight is dropped, the new process\'s creates are a round', async () => {
  const { RecordingBuilder } = await import('../support/recording-builder.js');
  const b = new RecordingBuilder();
  b.namespace().replicaSet(0);
  b.advance(1000).replicaSet(3);
  b.advance(10).event('SuccessfulCreate', `Created pod: ${b.rsName}-aaaaa`);
  b.advance(10).addPod(1, { name: `${b.rsName}-aaaaa` });
  // kube-controller-manager dies with two creates of the round in flight (never made) …
  b.advance(30_000);
  // … and the new process, started with no expectations, creates the two missing pods.
  b.advance(1000).event('SuccessfulCreate', `Created pod: ${b.rsName}-bbbbb`);
  b.advance(5).event('SuccessfulCreate', `Created pod: ${b.rsName}-ccccc`);
  b.advance(10).addPod(2, { name: `${b.rsName}-bbbbb` });
  b.advance(5).addPod(3, { name: `${b.rsName}-ccccc` });
  b.advance(2000).end();
  const rec = join(dir, 'restart.kexp.jsonl');
  writeFileSync(rec, b.text());
  const t = (s: number) => `I1130 ${new Date(Date.UTC(2026, 10, 30, 10, 0, 0) + s * 1000).toISOString().slice(11, 23)}000`;
  writeFileSync(join(dir, 'restart-kcm.log'), `${t(31)}   54321 replica_set.go:285] "Starting controller" logger="replicaset-controller" name="replicaset"\n`);

  const without = (await replayFiles({ files: [rec] })).report.replicaSets[0]!;
  // Without the log a recording cannot tell a restart from the same sync's calls hanging 31 s:
  // the pause is reported with its cause not established (basis unknown, both named).
  const paused = without.findings.find((f) => f.id === 'slow-api-calls');
  assert.ok(paused, without.findings.map((f) => f.id).join());
  assert.equal(paused.basis, 'unknown');
  assert.match(paused.explanation, /a restart whose new process created the rest/);

  const { report, problems } = await replayFiles({ files: [rec, join(dir, 'restart-kcm.log')] });
  assert.deepEqual(problems, []);
  const rs = report.replicaSets[0]!;
  const f = rs.findings.find((x) => x.id === 'controller-restarted')!;
  assert.ok(f, rs.findings.map((x) => x.id).join());
  assert.match(f.explanation, /logged the start of its ReplicaSet controller/);
  assert.ok(!rs.findings.some((x) => x.id === 'record-contradicted'));
  assert.deepEqual(rs.gatedWindows.map((w) => w.endedBy), ['reset', 'fulfilled']);
  assert.equal(rs.accounting.inFindings, 0);
});

test('a kube-controller-manager log alone given to replay or audit is named, with the command that reads it', async () => {
  await assert.rejects(replayFiles({ files: ['examples/captures/scale-up-gated/kcm.log'] }), /kube-controller-manager log: read it with `kexp kcm-log`, or give it beside a recording/);
  await assert.rejects(auditFiles({ files: ['examples/captures/scale-up-gated/kcm.log'] }), /kube-controller-manager log: read it with `kexp kcm-log`, or give it beside an audit log/);
});

test('the controller log is listed among the inputs', async () => {
  const { report } = await auditFiles({ files: ['examples/captures/scale-up-gated/audit.jsonl'], kcmLogs: ['examples/captures/scale-up-gated/kcm.log'] });
  assert.deepEqual(report.inputs.map((i) => i.format), ['audit:audit-log', 'kcm-log']);
  assert.ok(report.coverage.assumptions.some((a) => /match window \(60 s\)/.test(a)));
});

test('a controller log of another day is not fused; the same log twice is read once; a shifted clock measures no lag', async () => {
  const orig = readFileSync('examples/captures/scale-up-gated/kcm.log', 'utf8');
  const dayLater = join(dir, 'day-later.log');
  writeFileSync(dayLater, orig.replace(/^([IWEF])1130 /gm, '$11201 '));
  const warned: string[] = [];
  const a = await auditFiles({ files: ['examples/captures/scale-up-gated/audit.jsonl'], kcmLogs: [dayLater], onWarning: (m) => warned.push(m) });
  assert.equal(a.report.replicaSets[0]!.controllerLog, undefined);
  assert.ok(warned.some((w) => /no overlap/.test(w)), warned.join('\n'));

  const copy = join(dir, 'copy.log');
  writeFileSync(copy, orig);
  const twice: string[] = [];
  const b = await auditFiles({ files: ['examples/captures/scale-up-gated/audit.jsonl', copy], kcmLogs: ['examples/captures/scale-up-gated/kcm.log'], onWarning: (m) => twice.push(m) });
  assert.equal(b.report.replicaSets[0]!.controllerLog!.syncs, 5, 'not doubled');
  assert.ok(twice.some((w) => /the same kube-controller-manager log/.test(w)));

  // Three seconds earlier (still overlapping): every "Pod created" precedes its create.
  const earlier = join(dir, 'earlier.log');
  const shift = (hms: string) => new Date(Date.parse(`2026-11-30T${hms}Z`) - 3_000).toISOString().slice(11, 23);
  writeFileSync(earlier, orig.replace(/^([IWEF]1130 )(\d\d:\d\d:\d\d\.\d{3})/gm, (_m, p: string, hms: string) => `${p}${shift(hms)}`));
  const c = await auditFiles({ files: ['examples/captures/scale-up-gated/audit.jsonl'], kcmLogs: [earlier] });
  const rs = c.report.replicaSets[0]!;
  assert.equal(rs.controllerLog?.informerLagMs, undefined);
  assert.ok(rs.findings.some((f) => f.id === 'controller-log-clock'), rs.findings.map((f) => f.id).join());
});

test('--kcm-log beside a snapshot is read and fused (the only view of the expectations there is)', async () => {
  const { report } = await replayFiles({ files: ['test/fixtures/watch/list-kubectl.json'], kcmLogs: ['examples/captures/scale-up-gated/kcm.log'] });
  assert.ok(report.inputs.some((i) => i.format === 'kcm-log'));
});

test('the log wins on a restart: the window it shows ended by the restart is reset (not fulfilled), the restart stays the cause, the disagreement is info and suggests no clocks', async () => {
  const { report } = await auditFiles({ files: ['examples/captures/kcm-restart-scale-up/audit.jsonl.gz'], kcmLogs: ['examples/captures/kcm-restart-scale-up/kcm.log.gz'] });
  const rs = report.replicaSets[0]!;
  assert.deepEqual(rs.gatedWindows.map((w) => [w.endedBy, w.basis]), [['reset', 'observed'], ['fulfilled', 'observed']]);
  assert.equal(rs.gatedWindows[0]!.end, '2026-12-01T22:16:36.236Z', 'the log\'s own end');
  assert.match(rs.gatedWindows[0]!.note!, /kcm\.log\.gz:312/);
  const d = rs.findings.find((f) => f.id === 'controller-log-disagrees')!;
  assert.equal(d.severity, 'info');
  assert.match(d.explanation, /the controller's log says ended restart at .*kcm\.log\.gz:312.*; kexp's reconstruction says ended fulfilled/);
  assert.ok(rs.findings.every((f) => !/clock/i.test(f.nextStep)), 'same host, overlapping spans: no clock advice');
  assert.match(causeOf(rs)!, /restarted/);
});

test('the log wins on a window kexp counted differently: its gated syncs and end are the report\'s, kexp\'s in the note; ends that agree are no disagreement', async () => {
  const { report } = await replayFiles({ files: ['examples/delayed-add-no-surplus.kexp.jsonl'], kcmLogs: ['examples/captures/delayed-add-no-surplus/kcm.log'] });
  const rs = report.replicaSets[0]!;
  const w = rs.gatedWindows.find((x) => x.start === '2026-12-01T22:05:39.955Z')!;
  assert.deepEqual([w.basis, w.endedBy, w.end, w.gatedSyncs], ['observed', 'fulfilled', '2026-12-01T22:05:42.978Z', 5]);
  // kexp held the round's pod back from its ADD (the status writes counted 2 of 3) and closed the
  // window when the controller's create showed its gate passed, with one gated sync more.
  assert.match(w.note!, /kexp's reconstruction: ended fulfilled at 2026-12-01T22:05:42\.995Z, 6 gated syncs/);
  // Both ended it fulfilled within 17 ms: nothing to disagree about.
  assert.ok(!rs.findings.some((f) => f.id === 'controller-log-disagrees'), rs.findings.map((f) => f.id).join());
});

test('the log wins on a leak still open at the end of the recording: leaked, observed, exit 4 — its deletion after the input ends is the log\'s account, not the verdict\'s', async () => {
  const { report } = await replayFiles({ files: ['examples/dropped-add-no-trigger.kexp.jsonl'], kcmLogs: ['examples/captures/dropped-add-no-trigger/kcm.log'] });
  const rs = report.replicaSets[0]!;
  assert.deepEqual([rs.verdict.state, rs.verdict.basis], ['leaked', 'observed']);
  assert.deepEqual(rs.gatedWindows.map((w) => [w.endedBy, w.basis, w.gatedSyncs]), [['rs-deleted', 'observed', 3]]);
  assert.ok(rs.findings.some((f) => f.id === 'expectation-leak-until-deleted' && f.basis === 'observed'));
  assert.equal(exitCodeFor(report, 0), 4);
  // The audit log ends after the deletion: deleted, and the deletion (not the timeout) freed it: 0, as `kcm-log` says.
  const a = await auditFiles({ files: ['examples/captures/dropped-add-no-trigger/audit.jsonl'], kcmLogs: ['examples/captures/dropped-add-no-trigger/kcm.log'] });
  assert.equal(a.report.replicaSets[0]!.verdict.state, 'deleted');
  assert.equal(exitCodeFor(a.report, 0), 0);
});

test('a gap in one watch is a gap in that stream only: an Events relist inside a leak keeps it a leak (4); a pods relist makes it unknown', async () => {
  const b = new RecordingBuilder();
  b.namespace().replicaSet(0);
  b.advance(1000).replicaSet(3);
  for (let i = 1; i <= 3; i++) b.advance(5).event('SuccessfulCreate', `Created pod: ${b.rsName}-p${i}`);
  b.advance(10).addPod(1, { name: `${b.rsName}-p1` });
  b.advance(10).addPod(2, { name: `${b.rsName}-p2` });
  b.advance(60_000);
  const gapAt = b.t;
  b.advance(250_000).rsStatus(2);
  b.advance(1000).end();
  const gapLine = (src: string) => JSON.stringify({ recv: new Date(gapAt).toISOString().replace('Z', '000Z').replace(/\.(\d{3})000Z$/, '.$1000Z'), src, gap: { reason: 'watch-relist', detail: 'too old resource version' } });
  const lines = b.text().split('\n');
  const at = lines.findIndex((l) => l.includes('"rsStatus"') || (l.includes('"replicasets"') && l.includes('"readyReplicas"'))) ;
  const write = (name: string, src?: string) => {
    const out = [...lines];
    if (src) out.splice(at > 0 ? at : out.length - 2, 0, gapLine(src));
    const f = join(dir, name);
    writeFileSync(f, out.join('\n'));
    return f;
  };
  const code = async (f: string) => exitCodeFor((await replayFiles({ files: [f] })).report, 0);
  assert.equal(await code(write('leak.kexp.jsonl')), 4, 'the leak alone');
  assert.equal(await code(write('leak-events-gap.kexp.jsonl', 'events')), 4, 'a quiet Events watch relisted');
  assert.equal(await code(write('leak-pods-gap.kexp.jsonl', 'pods')), 0, 'the pods watch relisted: the window rests on what the gap may hide');
});

test('the leak finding on a window the log shows states the log\'s count of gated syncs, kexp\'s beside it (deletion-loss)', async () => {
  const { report } = await replayFiles({ files: ['examples/deletion-loss.kexp.jsonl', 'examples/captures/deletion-loss/kcm.log'] });
  const f = report.replicaSets[0]!.findings.find((x) => x.id === 'expectation-leak-expired')!;
  assert.ok(f, report.replicaSets[0]!.findings.map((x) => x.id).join());
  assert.equal(f.basis, 'observed');
  assert.match(f.explanation, /\(6 gated syncs in the controller's log; kexp's reconstruction counted \d+\)/);
});

test('slow API calls from a recording are the same sync\'s when the controller\'s log shows one sync spanning the pause ("Finished syncing" with its duration): basis observed, the line cited', async () => {
  const alone = await replayFiles({ files: ['examples/client-brownout.kexp.jsonl.gz'] });
  const f0 = alone.report.replicaSets[0]!.findings.find((f) => f.id === 'slow-api-calls')!;
  assert.equal(f0.basis, 'unknown', 'a recording alone cannot tell late calls from a restart');
  const { report } = await replayFiles({ files: ['examples/client-brownout.kexp.jsonl.gz'], kcmLogs: ['examples/captures/client-brownout/kcm.log.gz'] });
  const f = report.replicaSets[0]!.findings.find((x) => x.id === 'slow-api-calls')!;
  assert.equal(f.basis, 'observed');
  assert.match(f.explanation, /one sync of this ReplicaSet from 2026-12-05T02:03:11\.227Z to 2026-12-05T02:03:30\.283Z \("Finished syncing" after 19s, examples\/captures\/client-brownout\/kcm\.log\.gz:711\)/);
  assert.ok(f.evidence.includes('examples/captures/client-brownout/kcm.log.gz:711'));
  // A log whose syncs are all short confirms nothing.
  const other = await replayFiles({ files: ['examples/client-brownout.kexp.jsonl.gz'], kcmLogs: ['examples/captures/scale-up-gated/kcm.log'] });
  assert.equal(other.report.replicaSets.find((r) => r.key === report.replicaSets[0]!.key)?.findings.find((x) => x.id === 'slow-api-calls')?.basis, 'unknown');
});
