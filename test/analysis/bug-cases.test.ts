/**
 * The public incidents of ../shared/docs/bug-cases.md, rebuilt as audit logs (the controller's
 * own writes, as the captures in examples/captures/ record them), each asserting the diagnosis
 * the case states — and that kexp invents no write and accounts for every one it sees.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { auditFiles } from '../../src/pipeline/audit-files.js';
import type { ReplicaSetReport } from '../../src/analysis/report-types.js';
import { exitCodeFor } from '../../src/cli/report-exit.js';
import { AuditLogBuilder, actors } from '../support/audit-builder.js';
import { validateReport } from '../support/report-schema.js';
import { backoffInflation, bareAdoptedFewerCreated, quotaBurst, clobberedExtraDelete, createsAfterOwnerDeletion, lateFirstCreate, terminatingOrphan, replacementChurn, staleCountSurplus, timedOutCreate } from '../support/bug-case-inputs.js';

const dir = mkdtempSync(join(tmpdir(), 'kexp-bug-cases-'));

async function audit(name: string, b: AuditLogBuilder) {
  const file = b.write(join(dir, `${name}.audit.jsonl`));
  const res = await auditFiles({ files: [file] });
  assert.deepEqual(res.problems, []);
  assert.deepEqual(validateReport(res.report), []);
  const rs = res.report.replicaSets.find((r) => r.key === `${b.ns}/${b.rsName}`);
  assert.ok(rs, 'the ReplicaSet is reported');
  // Every write in exactly one round or one finding.
  assert.equal(rs.accounting.writes, rs.accounting.inRounds + rs.accounting.inFindings, 'accounting identity');
  assert.equal(rs.rounds.reduce((n, r) => n + r.writes, 0), rs.accounting.inRounds);
  return { report: res.report, rs, exit: exitCodeFor(res.report, 0) };
}

const finding = (rs: ReplicaSetReport, id: string) => rs.findings.find((f) => f.id === id);
const ids = (rs: ReplicaSetReport) => rs.findings.map((f) => f.id);

export function dump(rs: ReplicaSetReport): string {
  return JSON.stringify({ verdict: rs.verdict, accounting: rs.accounting, rounds: rs.rounds.map((r) => `${r.at} ${r.kind} n=${r.n} ${r.basis} w=${r.writes} u=${r.unknown ?? 0} um=${r.unmade ?? 0} ${r.forced ?? ''}`), windows: rs.gatedWindows.map((w) => `${w.start} ${w.endedBy} ${w.basis}`), findings: rs.findings.map((f) => `${f.id} ${f.severity} ${f.basis} ${f.writes ?? ''}: ${f.title}`), syncs: rs.syncs }, null, 1);
}

test('#110631: the first create came 5 m 04 s after the scale-up — an unobserved record from before the log expiring, not an invented write', async () => {
  const { rs, exit } = await audit('110631', lateFirstCreate());
  // The scale-up's create is not invented: the sync at +0 is withheld, the one write is the round at +5 m.
  assert.equal(rs.syncs.byOutcome.withheld, 1);
  assert.deepEqual(rs.rounds.map((r) => [r.kind, r.n, r.basis, r.writes, r.unknown ?? 0]), [['create', 1, 'observed', 1, 0]]);
  const f = finding(rs, 'late-first-write');
  assert.ok(f, ids(rs).join());
  assert.match(f.title, /first create came 5m4s after/);
  assert.match(f.explanation, /record from before the input starts/);
  assert.match(f.explanation, /5-minute ExpectationsTimeout \(kubernetes#110631\)/);
  assert.match(f.nextStep, /earlier ReplicaSet with the same name/);
  assert.equal(rs.verdict.state, 'healthy');
  assert.equal(exit, 0);
});

test('#129795 (lag): creates again after the record expired while its informer lagged — the over-create, then the surplus deleted', async () => {
  const b = new AuditLogBuilder();
  b.replicaSet(0);
  b.advance(1000).replicaSet(3);
  for (let i = 0; i < 3; i++) b.advance(5).controllerCreate();
  b.advance(10).rsStatus(0); // its informer had not delivered the pods
  b.advance(301_000).replicaSet(3, actors.user());
  for (let i = 0; i < 3; i++) b.advance(5).controllerCreate();
  b.advance(20_000);
  for (const p of [...b.pods.keys()].slice(3)) b.advance(5).deletePod(p);
  const { rs } = await audit('129795', b);
  const f = finding(rs, 'expiry-over-create');
  assert.ok(f, ids(rs).join());
  assert.match(f.explanation, /had expired, so the sync passed the gate and created 3 pod\(s\)/);
  assert.match(f.explanation, /kubernetes#129795/);
  // The creates prove the controller's cache lacked the first round's pods: kexp holds them
  // back, its record expires unfulfilled (a leak), and the over-create is a round of its own.
  assert.match(f.explanation, /kexp held them back as unobserved/);
  assert.deepEqual(rs.rounds.map((r) => [r.kind, r.n, r.writes]), [['create', 3, 3], ['create', 3, 3], ['delete', 3, 3]]);
  assert.deepEqual([rs.accounting.writes, rs.accounting.inRounds, rs.accounting.inFindings], [9, 9, 0]);
  assert.deepEqual(rs.gatedWindows.slice(0, 1).map((w) => [w.endedBy, w.remaining?.add]), [['expired', 3]]);
  assert.ok((rs.viewUnknown ?? []).length >= 1, 'the decisions while kexp had delivered what the controller had not are unknown');
});

test('#24: a delete its own count did not call for (a lost or clobbered record) is an extra-delete finding', async () => {
  const b = clobberedExtraDelete('v1.37.2');
  const pods = [...b.pods.keys()];
  const { rs } = await audit('24', b);
  const f = finding(rs, 'extra-delete');
  assert.ok(f, ids(rs).join());
  assert.equal(f.writes, 1);
  assert.match(f.explanation, new RegExp(pods[2]!));
  assert.match(f.explanation, /3 active pod\(s\) for 3 desired/);
  assert.deepEqual(rs.rounds.map((r) => [r.kind, r.n, r.writes]), [['create', 5, 5], ['delete', 2, 2], ['create', 1, 1]]);
});

test('#28: a create from a stale count is a surplus-create finding, and the surplus delete is a round', async () => {
  const { rs } = await audit('28', staleCountSurplus('v1.37.2'));
  const f = finding(rs, 'surplus-create');
  assert.ok(f, ids(rs).join());
  assert.equal(f.writes, 1);
  assert.match(f.explanation, /2 active pod\(s\) for 2 desired/);
  assert.deepEqual(rs.rounds.map((r) => [r.kind, r.n, r.writes]), [['create', 2, 2], ['delete', 1, 1]]);
});

test('kube-controller-manager restarted in the middle of a scale-up: a new credential after a pause; the cut round and the rest are accounted for', async () => {
  const b = new AuditLogBuilder();
  b.replicaSet(0);
  b.advance(1000).replicaSet(10);
  for (let i = 0; i < 7; i++) b.advance(5).controllerCreate();
  b.advance(40_000);
  b.rsController = actors.rsController('JTI=22222222-aaaa-4bbb-8ccc-000000000002');
  for (let i = 0; i < 3; i++) b.advance(5).controllerCreate();
  b.advance(10).rsStatus(10);
  const { rs, report } = await audit('restart', b);
  assert.deepEqual(rs.rounds.map((r) => [r.kind, r.n, r.writes, r.unmade ?? 0]), [['create', 10, 7, 3], ['create', 3, 3, 0]]);
  const f = finding(rs, 'controller-restarted');
  assert.ok(f, ids(rs).join());
  assert.match(f.title, /middle of a create round \(7 of 10 calls made\)/);
  assert.match(f.explanation, /after 40s without any write/);
  assert.ok(!finding(rs, 'writes-withheld'), 'the pause is explained by the restart');
  assert.ok(report.coverage.assumptions.some((a) => /restarted at .* new credential after 40s/.test(a)));
  assert.equal(rs.accounting.inFindings, 0);
});

test('a credential rotation while the controller keeps writing is not a restart', async () => {
  const b = new AuditLogBuilder();
  b.replicaSet(0);
  b.advance(1000).replicaSet(4);
  for (let i = 0; i < 2; i++) b.advance(5).controllerCreate();
  b.rsController = actors.rsController('JTI=33333333-aaaa-4bbb-8ccc-000000000003');
  for (let i = 0; i < 2; i++) b.advance(5).controllerCreate();
  const { rs, report } = await audit('rotation', b);
  assert.ok(!finding(rs, 'controller-restarted'), ids(rs).join());
  assert.ok(!report.coverage.assumptions.some((a) => /restarted/.test(a)));
  assert.deepEqual(rs.rounds.map((r) => [r.kind, r.n, r.writes]), [['create', 4, 4]]);
});

test('#17/#18: adopting a pod that is already being deleted is flagged with the ClaimObject rule it broke', async () => {
  const b = new AuditLogBuilder();
  b.userPod('p1');
  b.advance(100).deletePod('p1', { actor: actors.user() });
  b.advance(1000).replicaSet(1);
  b.advance(5).adoptPod('p1');
  b.advance(5).controllerCreate();
  const { rs } = await audit('18', b);
  const f = finding(rs, 'unexpected-claim');
  assert.ok(f, ids(rs).join());
  assert.equal(f.severity, 'warning');
  assert.match(f.title, /adopted 1 pod that was already being deleted/);
  assert.match(f.explanation, /kubernetes#44144/);
  assert.deepEqual(rs.rounds.map((r) => [r.kind, r.n, r.writes]), [['create', 1, 1]]);
});

test('#20/#21: an orphan matching the selector is adopted in a claim round, and counts toward replicas', async () => {
  const b = new AuditLogBuilder();
  b.userPod('nginx');
  b.advance(60_000).replicaSet(3);
  b.advance(5).adoptPod('nginx');
  b.advance(5).controllerCreate();
  b.advance(5).controllerCreate();
  const { rs } = await audit('21', b);
  assert.deepEqual(rs.rounds.map((r) => [r.kind, r.n, r.basis, r.writes]), [['claim', 1, 'observed', 1], ['create', 2, 'observed', 2]]);
  assert.deepEqual(rs.rounds[0]!.adopted, [`${b.ns}/nginx`]);
  const f = finding(rs, 'adoption');
  assert.ok(f);
  assert.match(f.explanation, /Orphan pod .* matching the selector/);
  assert.equal(rs.accounting.inFindings, 0);
});

test('#15: pods failing within seconds of creation and replaced are grouped as replacement churn by reason', async () => {
  const { rs, exit } = await audit('15', replacementChurn('v1.37.2'));
  const f = finding(rs, 'replacement-churn');
  assert.ok(f, ids(rs).join());
  assert.match(f.title, /5 pods failed within seconds of creation \(OutOfmemory\)/);
  assert.match(f.explanation, /not the controller/);
  assert.equal(rs.accounting.writes, 5);
  assert.ok(!rs.findings.some((x) => x.id.startsWith('expectation-leak')));
  assert.equal(exit, 0);
});

test('#14: failures re-triggered by events inflate the backoff to the 1000 s cap; the create comes only then', async () => {
  // The retries as client-go's rate-limited delaying queue schedules them (see backoffInflation).
  const b = backoffInflation('v1.37.2');
  const { rs } = await audit('14', b);
  const f = finding(rs, 'backoff-inflated');
  assert.ok(f, ids(rs).join());
  assert.match(f.title, /backed off to 16m40s after 19 failed syncs/);
  assert.match(f.explanation, /kubernetes#98656/);
  assert.match(f.explanation, /Expectations were not the gate/);
  assert.ok(finding(rs, 'create-failures'));
  assert.ok(!finding(rs, 'writes-withheld'), ids(rs).join());
  assert.equal(rs.accounting.inFindings, 0);
});

test('a creation round longer than the match window (500 creates over 70 s, a throttled client) is still one round, with no failure', async () => {
  const b = new AuditLogBuilder();
  b.replicaSet(0);
  b.advance(1000).replicaSet(500);
  for (let i = 0; i < 500; i++) b.advance(140).controllerCreate();
  b.advance(10).rsStatus(500);
  const { rs, exit } = await audit('long-round', b);
  assert.deepEqual(rs.rounds.map((r) => [r.kind, r.n, r.writes, r.unknown ?? 0, r.errors.length]), [['create', 500, 500, 0, 0]]);
  assert.ok(!finding(rs, 'create-failures'));
  assert.equal(rs.accounting.inFindings, 0);
  assert.equal(rs.verdict.state, 'healthy');
  assert.equal(exit, 0);
});

test('#67662 (v1.12): a create that timed out counted as a success — the record waits 5 min, then nothing retries until a later trigger; modelled from the user agent\'s version', async () => {
  const { report, rs, exit } = await audit('67662', timedOutCreate('v1.12.10'));
  assert.equal(report.k8sVersion.version, 'v1.12.10');
  assert.equal(report.k8sVersion.basis, 'input');
  assert.equal(report.k8sVersion.modelledAs, 'v1.25');
  assert.ok(report.k8sVersion.differences?.some((d) => /kubernetes#67662/.test(d)), JSON.stringify(report.k8sVersion));
  assert.ok(report.coverage.assumptions.some((a) => /older than kexp models: replayed as v1\.25/.test(a)));
  const first = rs.rounds[0]!;
  assert.deepEqual([first.kind, first.n, first.timedOut, first.basis], ['create', 1, 1, 'observed'], dump(rs));
  const w = rs.gatedWindows[0]!;
  assert.equal(w.endedBy, 'expired', dump(rs));
  const f = finding(rs, 'expectation-leak-expired');
  assert.ok(f, ids(rs).join());
  assert.match(f.explanation, /timed out \(504\) and was counted as a success: manageReplicas swallowed IsTimeout before v1\.18 \(kubernetes#67662\)/);
  assert.equal(exit, 4);
  // The create after the expiry replaces the timed-out one, which made no pod the input shows: no over-create to warn of.
  assert.ok(!ids(rs).includes('expiry-over-create'), ids(rs).join());
});

test('#67662 fixed (v1.17.1, v1.37.2): the same timed-out create is a failure the controller walks back, never a leak', async () => {
  for (const v of ['v1.17.1', 'v1.37.2']) {
    const { rs } = await audit(`67662-${v}`, timedOutCreate(v));
    assert.equal(rs.rounds[0]!.timedOut, undefined, v);
    assert.ok(!finding(rs, 'expectation-leak-expired'), `${v}: ${ids(rs).join()}`);
    assert.ok(!rs.gatedWindows.some((w) => w.endedBy === 'expired'), `${v}: ${dump(rs)}`);
  }
});

test('#57191: creates after the ReplicaSet\'s deletion was requested are the controller acting on a cache without the deletionTimestamp — a warning that accounts for every such write, and the Cause', async () => {
  const { rs } = await audit('57191', createsAfterOwnerDeletion('v1.9.0', 60, 20));
  const f = finding(rs, 'writes-after-owner-deletion');
  assert.ok(f, dump(rs));
  assert.deepEqual([f.severity, f.basis, f.writes], ['warning', 'observed', 60]);
  assert.match(f.title, /made 60 pod writes after density\/rc-7's deletion was requested/);
  assert.match(f.explanation, /its deletion was requested at .*\(deletionTimestamp\)/);
  assert.ok(!ids(rs).includes('unexplained-writes'), ids(rs).join());
  assert.equal(rs.rounds.filter((r) => r.kind === 'create').reduce((n, r) => n + r.writes, 0), 60, 'the creates before the deletion are a round');
});

test('#94851: the adopted bare pod counts as a replica (2 created, not 3), and the adoption says it runs another image than the template', async () => {
  const { rs } = await audit('94851', bareAdoptedFewerCreated('v1.19.0'));
  const f = finding(rs, 'adoption');
  assert.ok(f, dump(rs));
  assert.match(f.explanation, /default\/nginx runs nginx:1\.19 in container \w+ where the template has nginx:1\.27: adoption matches labels only/);
  assert.deepEqual(rs.rounds.filter((r) => r.kind === 'create').map((r) => r.n), [2]);
});

test('#44144 fixed (v1.7): an orphan being deleted that matches the selector is not adopted, and the report names it as such at the end', async () => {
  const b = terminatingOrphan('v1.7.0', false);
  const { rs } = await audit('44144', b);
  const f = finding(rs, 'terminating-orphans');
  assert.ok(f, dump(rs));
  assert.deepEqual([f.severity, f.basis], ['info', 'observed']);
  assert.match(f.explanation, /is being deleted and has no controllerRef\. ClaimObject never adopts a pod being deleted \(kubernetes#44144\), so it is not counted either/);
  assert.ok(!rs.rounds.some((r) => r.kind === 'claim'), 'no adoption');
});

test('#49145 (v1.7, before slow start): all 495 creates of one sync rejected by the quota are one round, the version says why, and the ReplicaSet is failing (exit 5)', async () => {
  const { report, rs, exit } = await audit('49145', quotaBurst('v1.7.0'));
  assert.ok(report.k8sVersion.differences?.some((d) => /slow-start batches came in v1\.8 \(kubernetes#49142/.test(d)), JSON.stringify(report.k8sVersion));
  const creates = rs.rounds.filter((r) => r.kind === 'create');
  assert.deepEqual(creates.map((r) => [r.n, r.writes]), [[5, 5], [495, 495]], dump(rs));
  assert.equal(rs.verdict.state, 'failing');
  assert.match(rs.verdict.summary, /its last creation round \(.*\) failed: .*exceeded quota/);
  assert.equal(exit, 5);
});
