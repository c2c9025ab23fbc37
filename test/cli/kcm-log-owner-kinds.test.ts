/**
 * `kexp kcm-log` on DaemonSet and Job lines (issue #22): each is reported with its kind, its
 * gated windows, verdict, Cause and exit code as a ReplicaSet's; `--rs NS/NAME` picks any
 * kind's owner by its key. The logs are hand-written from the upstream formats
 * (test/fixtures/kcm-log/README.md) and the real v1.37.2 controller code's output.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { kexp } from '../support/cli.js';

const FX = 'test/fixtures/kcm-log';
const LEAK = `${FX}/ds-delete-leak-v1.37.log`;
const V121 = `${FX}/ds-job-v1.21-printf.log`;
const NE = 'kube-system/node-exporter';

test('a DaemonSet -v=4 log whose delete expectation only the timeout freed: that leak, with its kind, and exit 4', () => {
  const r = kexp(['kcm-log', LEAK, '--year', '2026', '-o', 'json']);
  assert.equal(r.code, 4, r.stderr);
  const out = JSON.parse(r.stdout);
  assert.equal(out.replicaSets.length, 1);
  const ds = out.replicaSets[0];
  assert.equal(ds.kind, 'DaemonSet');
  assert.equal(ds.key, NE);
  assert.deepEqual(ds.gatedWindows, [
    {
      start: '2026-03-04T10:00:00.000Z', end: '2026-03-04T10:05:30.000Z', ended: 'expired',
      expected: { add: 0, del: 1 }, leaked: { add: 0, del: 1 }, gatedSyncs: 10, evidence: `${LEAK}:5`,
    },
    { start: '2026-03-04T10:05:30.000Z', end: '2026-03-04T10:05:30.003Z', ended: 'fulfilled', expected: { add: 0, del: 1 }, gatedSyncs: 0, evidence: `${LEAK}:55` },
  ]);
  // The gate decided 13 syncs; the three checks before the rolling update are not syncs.
  assert.deepEqual(ds.syncs, { total: 13, gated: 10, fulfilled: 1, expired: 1, neverRecorded: 1, finishedLines: 13, basis: 'gate-decisions' });
  assert.deepEqual(ds.rollingUpdateChecks, { total: 3, fulfilled: 2, stillWaiting: 1, expired: 0, firstStillWaiting: `${LEAK}:9`, basis: 'observed' });
  assert.deepEqual(ds.rounds.map((x: { kind: string; count: number; evidence: string }) => [x.kind, x.count, x.evidence]), [['delete', 1, `${LEAK}:7`], ['delete', 1, `${LEAK}:57`]]);
  assert.deepEqual(out.ownerKindRestarts, { DaemonSet: ['2026-03-04T09:59:58.000Z'] });
  assert.equal(out.verbosity.atLeastV4, true);
  // The delete that found its pod gone (NotFound) lowers the record with no line of its own.
  assert.deepEqual(r.stderr.trim().split('\n'), [
    `warning: ${LEAK}:59: 1 line(s) from code the ReplicaSet, ReplicationController, DaemonSet and Job controllers share (no logger name; a key no line of a known controller names, or that two controllers' lines name) could not be attributed to a kind and were skipped (unknown kind; the first is this line)`,
  ]);

  const text = kexp(['kcm-log', LEAK, '--year', '2026'], { env: { COLUMNS: '300' } });
  assert.equal(text.code, 4);
  assert.match(text.stdout, /^Verdict: LEAKED \[observed\] — expectations of DaemonSet kube-system\/node-exporter leaked and only the 5-minute timeout cleared them \(exit code 4\); now HEALTHY \[observed\]: not gated at the end of the log \(1 DaemonSet\), after the leak below\.\n/);
  assert.match(text.stdout, new RegExp(`\\nCause: +Expectations leaked and were only cleared by the 5-minute timeout \\(after 5m30s\\): DaemonSet ${NE}, 10 gated syncs from 2026-03-04T10:00:00\\.000Z \\(${LEAK.replace(/[./]/g, '\\$&')}:5\\)\\.\\n`));
  assert.match(text.stdout, /\n {2}kubectl -n kube-system describe ds node-exporter\n/);
  assert.match(text.stdout, /\nDaemonSet kube-system\/node-exporter {2}\(kube-controller-manager's own account: observed\)\n/);
  assert.match(text.stdout, /Rounds \(observed: "Nodes needing daemon pods \/ Pods to delete for daemon set"\)/);
  assert.match(text.stdout, /Rolling-update checks \(observed: .*\): 3 — 2 fulfilled, 1 still waiting \(rolling update skipped\)/);
  assert.match(text.stdout, /\n {2}10:00:00\.000 +10:05:30\.000 +expired +0\/1 +0\/1 +10 /);
  assert.match(text.stdout, /\nDaemonSet controller starts \(its expectations wiped\): 2026-03-04 09:59:58\.000\n/);
  assert.match(text.stdout, /0 ReplicaSet lines, 43 DaemonSet lines, 0 from other controllers skipped, 18 keyless lines attributed from context/);

  // The same log cut before the timeout: still gated at its end — LEAKED, exit 4.
  const cut = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'kexp-ds-cut-')), 'kcm.log');
  fs.writeFileSync(cut, fs.readFileSync(LEAK, 'utf8').split('\n').slice(0, 52).join('\n') + '\n');
  const gated = kexp(['kcm-log', cut, '--year', '2026'], { env: { COLUMNS: '300' } });
  assert.equal(gated.code, 4, gated.stderr);
  assert.match(gated.stdout, /^Verdict: LEAKED \[observed\] — kube-controller-manager's log shows 1 DaemonSet still gated on expectations at its end: DaemonSet kube-system\/node-exporter\.\n/);
});

test('a lower inside the window that names no key (v1.27+ prints {}, no neighbouring line tells): what the expired record waited for is unknown, not 0/1', () => {
  const lines = fs.readFileSync(LEAK, 'utf8').split('\n');
  // The DaemonSet's pod handler lowered some record at 10:02 — its "Pod deleted" line is not in the log.
  lines.splice(30, 0, 'I0304 10:02:00.000000       1 controller_utils.go:249] "Lowered expectations" logger="daemonset-controller" expectations={}');
  const f = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'kexp-ds-lower-')), 'kcm.log');
  fs.writeFileSync(f, lines.join('\n'));
  const r = kexp(['kcm-log', f, '--year', '2026', '-o', 'json']);
  assert.equal(r.code, 4, r.stderr);
  assert.match(r.stderr, new RegExp(`warning: ${f.replace(/[./]/g, '\\$&')}:31: 1 expectations line\\(s\\) of the DaemonSet controller name no DaemonSet`));
  const w = JSON.parse(r.stdout).replicaSets[0].gatedWindows[0];
  assert.equal(w.ended, 'expired');
  assert.equal(w.leaked, undefined);
  assert.equal(w.leakedUnknown, '1 "Lowered expectations" line(s) of this controller inside the window name no key (v1.27+ logs {}), so what it still waited for is not known');
  const text = kexp(['kcm-log', f, '--year', '2026'], { env: { COLUMNS: '300' } });
  assert.match(text.stdout, /\n {2}10:00:00\.000 +10:05:30\.000 +expired +0\/1 +\? +10 /);
  assert.match(text.stdout, /\n {2}Leaked \? \(window from 10:00:00\.000\): 1 "Lowered expectations" line\(s\) of this controller inside the window name no key/);
});

test('a v1.21 printf log: DaemonSets and a Job, each with its kind; the leak decides the exit code and leads the verdict, the failing create follows it', () => {
  const r = kexp(['kcm-log', V121, '--year', '2026', '-o', 'json']);
  assert.equal(r.code, 4, r.stderr);
  assert.equal(r.stderr, '');
  const out = JSON.parse(r.stdout);
  assert.deepEqual(out.replicaSets.map((x: { kind: string; key: string }) => [x.kind, x.key]), [['Job', 'batch/nightly'], ['DaemonSet', NE], ['DaemonSet', 'monitoring/log-agent']]);
  const [job, ne, la] = out.replicaSets;
  assert.deepEqual(ne.gatedWindows.map((w: { ended: string; leaked?: object; gatedSyncs: number }) => [w.ended, w.leaked, w.gatedSyncs]), [['expired', { add: 0, del: 1 }, 10]]);
  assert.deepEqual(job.rounds.map((x: { kind: string; count: number; desired: number }) => [x.kind, x.count, x.desired]), [['create', 2, 2], ['delete', 1, 1]]);
  assert.equal(job.deleted, '2026-03-04T10:06:00.000Z');
  assert.deepEqual(job.accounting, { writes: 3, inRounds: 3, rounds: 2, outsideRounds: [] });
  assert.equal(la.failures.length, 1);
  assert.equal(la.failures[0].current, true);
  assert.deepEqual(la.failures[0].commands, ['kubectl -n monitoring describe resourcequota', 'kubectl -n monitoring get events --field-selector involvedObject.name=log-agent']);
  assert.deepEqual(la.slowStartFailures.map((x: { podsSkipped: number }) => x.podsSkipped), [2]);
  assert.equal(la.syncFailures, 1);

  const text = kexp(['kcm-log', V121, '--year', '2026'], { env: { COLUMNS: '300' } });
  assert.match(text.stdout, /^Verdict: LEAKED \[observed\] — expectations of DaemonSet kube-system\/node-exporter leaked and only the 5-minute timeout cleared them \(exit code 4\); now FAILING \[observed\]: creates failing for DaemonSet monitoring\/log-agent: a ResourceQuota of the namespace is exhausted/);
  assert.match(text.stdout, /\nCause: +Expectations leaked and were only cleared by the 5-minute timeout \(after 5m30s\): DaemonSet kube-system\/node-exporter, 10 gated syncs/);
  assert.match(text.stdout, /\nJob batch\/nightly {2}\(kube-controller-manager's own account: observed\)\n {2}Syncs 5: 1 gated \(still waiting\), 3 fulfilled, 0 expired, 1 never recorded\n {2}Rounds \(observed: "Too few \/ Too many pods running"\)/);
});

test('--rs NS/NAME picks an owner of any kind by its key (kcm-log takes no TYPE/NAME); one the log does not name exits 8', () => {
  const ds = kexp(['kcm-log', V121, '--year', '2026', '--rs', NE, '-o', 'json']);
  assert.equal(ds.code, 4);
  assert.deepEqual(JSON.parse(ds.stdout).replicaSets.map((x: { kind: string; key: string }) => [x.kind, x.key]), [['DaemonSet', NE]]);
  const job = kexp(['kcm-log', V121, '--year', '2026', '--rs', 'batch/nightly', '-o', 'json']);
  assert.equal(job.code, 0, job.stderr);
  assert.deepEqual(JSON.parse(job.stdout).replicaSets.map((x: { kind: string; key: string }) => [x.kind, x.key]), [['Job', 'batch/nightly']]);
  const none = kexp(['kcm-log', V121, '--year', '2026', '--rs', 'batch/other']);
  assert.equal(none.code, 8);
  assert.match(none.stderr, /warning: no ReplicaSet, ReplicationController, DaemonSet or Job batch\/other appears in the log/);
});

test('the real v1.37.2 DaemonSet, Job and ReplicaSet code\'s log: the DaemonSet\'s leak (exit 4), the Jobs\' finalizer tracking', () => {
  const f = `${FX}/sim-v1.37.2-ds-job-text.log.gz`;
  const r = kexp(['kcm-log', f, '-o', 'json']);
  assert.equal(r.code, 4, r.stderr);
  const out = JSON.parse(r.stdout);
  assert.deepEqual(out.replicaSets.map((x: { kind?: string; key: string }) => [x.kind ?? 'ReplicaSet', x.key]), [
    ['Job', 'batch/nightly'], ['Job', 'batch/report'], ['DaemonSet', NE], ['DaemonSet', 'monitoring/log-agent'], ['ReplicaSet', 'shop/web-5c8d7f9b6d'],
  ]);
  const ne = out.replicaSets[2];
  const leak = ne.gatedWindows.filter((w: { ended: string }) => w.ended === 'expired');
  assert.equal(leak.length, 1);
  assert.deepEqual(leak[0].leaked, { add: 0, del: 1 });
  const nightly = out.replicaSets[0].finalizerTracking;
  assert.equal(nightly.basis, 'observed');
  assert.equal(nightly.expected, nightly.observed + nightly.awaited.length + nightly.dropped);
  assert.ok(nightly.observed > 0);
  const report = out.replicaSets[1].finalizerTracking;
  assert.ok(report.dropped > 0);
  assert.deepEqual(report.awaited, []);
  for (const x of out.replicaSets.filter((y: { kind?: string }) => y.kind === 'Job')) {
    assert.ok(x.gatedWindows.every((w: { ended: string }) => w.ended === 'fulfilled'), JSON.stringify(x.gatedWindows));
  }
  assert.ok(out.inputs[0].stats.ownerKinds.DaemonSet.events > 200);
  assert.equal(out.inputs[0].stats.ownerKinds.Job.contextUnresolved, 0);
});
