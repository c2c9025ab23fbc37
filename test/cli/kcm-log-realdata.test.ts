/**
 * `kexp kcm-log` on the real OpenShift 4.8 (Kubernetes 1.21) kube-controller-manager container
 * log of /work/shared/realdata/openshift-must-gather-aws (PROVENANCE.md there; read in place,
 * never copied): -v=2, `kubectl logs --timestamps` stamps, 9 shell lines before the first klog
 * record, a multi-line AWS message (lines 556–577), and three rounds of a console rollout
 * confirmed by the ReplicaSet controller's own Events (lines 1337–1349). Skipped when the shared
 * folder is absent.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { kexp } from '../support/cli.js';

const REALDATA = process.env.KEXP_REALDATA ?? join(process.cwd(), '..', 'shared', 'realdata');
const LOG = join(REALDATA, 'openshift-must-gather-aws', 'kube-controller-manager', 'current.log');
const skip = !existsSync(LOG) && `${LOG} not present`;

test('the must-gather KCM log: one preamble note, no problem, three rounds confirmed by their Events, gate unknown, exit 0', { skip }, () => {
  const r = kexp(['kcm-log', LOG, '-o', 'json']);
  assert.equal(r.code, 0, r.stderr);
  const err = r.stderr.split('\n').filter(Boolean);
  assert.deepEqual(err.filter((l) => /before the first log record/.test(l)), [
    `warning: ${LOG}:1: skipped 9 lines before the first log record (lines 1–9: not klog, e.g. a container's shell preamble)`,
  ]);
  assert.doesNotMatch(r.stderr, /not a log record|input problem|could not be attributed/);
  const out = JSON.parse(r.stdout);
  assert.equal(out.inputs[0].stats.problems, 0);
  assert.equal(out.inputs[0].stats.continuationLines, 21); // lines 557–577: one AWS message
  assert.equal(out.verbosity.atLeastV4, false);
  const rounds = out.replicaSets.map((rs: { key: string; rounds: Array<{ at: string; kind: string; count: number; desired: number; confirmed: { succeeded: number; failed: number; evidence: string[] } }> }) =>
    rs.rounds.map((x) => [rs.key, x.at, x.kind, x.count, x.desired, x.confirmed.succeeded, x.confirmed.failed, x.confirmed.evidence]));
  assert.deepEqual(rounds.flat(), [
    ['openshift-console/console-6b45f48495', '2021-08-03T09:31:34.322Z', 'create', 1, 2, 1, 0, [`${LOG}:1344`]],
    ['openshift-console/console-7994575dc5', '2021-08-03T09:31:34.267Z', 'delete', 1, 0, 1, 0, [`${LOG}:1341`]],
    ['openshift-console/console-84b5f647b9', '2021-08-03T09:31:54.463Z', 'delete', 1, 0, 1, 0, [`${LOG}:1349`]],
  ]);
  for (const rs of out.replicaSets) {
    assert.deepEqual(rs.gatedWindows, []);
    assert.deepEqual(rs.failures, []);
    assert.equal(rs.syncs.basis, 'not-logged');
  }
  const text = kexp(['kcm-log', LOG], { env: { COLUMNS: '400' } });
  assert.equal(text.code, 0);
  assert.match(text.stdout, /^Verdict: UNKNOWN \[unknown\] — the gate and the expectations are not visible: the log is below -v=4, where they are not printed, so no gated window or leak can be told from it, nor their absence \(3 ReplicaSets, 3 rounds seen, 3 confirmed by the controller's own Events\)\./);
  assert.doesNotMatch(text.stdout, /No ReplicaSet controller activity|HEALTHY|LEAK/);
  assert.match(text.stdout, /09:31:34\.322 create 1 \(desired 2\): 1 SuccessfulCreate \(.*current\.log:1344\)/);
});

test('the must-gather KCM log\'s DaemonSet and Job controllers: their start lines read as theirs (lines 57, 106); at -v=2 they print no sync line, so no DaemonSet or Job is reported', { skip }, () => {
  const r = kexp(['kcm-log', LOG, '-o', 'json']);
  assert.equal(r.code, 0, r.stderr);
  const out = JSON.parse(r.stdout);
  const stats = out.inputs[0].stats;
  // "Starting daemon sets controller" (daemon_controller.go:291), "Starting job controller" (job_controller.go:150),
  // and the ReplicationController manager's "Starting replicationcontroller controller" (replica_set.go:182).
  assert.deepEqual(stats.ownerKinds, {
    DaemonSet: { events: 1, contextResolved: 0, contextUnresolved: 0 },
    ReplicationController: { events: 1, contextResolved: 0, contextUnresolved: 0 },
    Job: { events: 1, contextResolved: 0, contextUnresolved: 0 },
  });
  assert.deepEqual({ daemonset: stats.excluded.daemonset, job: stats.excluded.job, replicationcontroller: stats.excluded.replicationcontroller }, { daemonset: 1, job: 1, replicationcontroller: 1 });
  assert.equal(stats.ambiguous, 0);
  // Only the three console ReplicaSets: a controller's start alone names no owner.
  assert.deepEqual(out.replicaSets.map((x: { kind?: string; key: string }) => [x.kind ?? 'ReplicaSet', x.key]), [
    ['ReplicaSet', 'openshift-console/console-6b45f48495'],
    ['ReplicaSet', 'openshift-console/console-7994575dc5'],
    ['ReplicaSet', 'openshift-console/console-84b5f647b9'],
  ]);
  assert.equal(out.ownerKindRestarts, undefined);
  const text = kexp(['kcm-log', LOG], { env: { COLUMNS: '400' } });
  assert.match(text.stdout, /11 ReplicaSet lines, 1 ReplicationController, 1 DaemonSet, 1 Job lines, 24 from other controllers skipped/);
});
