/**
 * Bug cases of ../shared/docs/bug-cases.md rebuilt as watch recordings (what an informer — or
 * kexp's recorder — saw): kexp must say what the recording supports and nothing more.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { replayFiles } from '../../src/pipeline/replay-files.js';
import type { ReplicaSetReport } from '../../src/analysis/report-types.js';
import { exitCodeFor } from '../../src/cli/report-exit.js';
import { RecordingBuilder } from '../support/recording-builder.js';
import { validateReport } from '../support/report-schema.js';

const dir = mkdtempSync(join(tmpdir(), 'kexp-bug-watch-'));

async function replay(name: string, b: RecordingBuilder) {
  const file = join(dir, `${name}.kexp.jsonl`);
  writeFileSync(file, b.text());
  const res = await replayFiles({ files: [file] });
  assert.deepEqual(res.problems, []);
  assert.deepEqual(validateReport(res.report), []);
  const rs = res.report.replicaSets.find((r) => r.key === `${b.ns}/${b.rsName}`)!;
  assert.ok(rs);
  assert.equal(rs.accounting.writes, rs.accounting.inRounds + rs.accounting.inFindings, 'accounting identity');
  return { rs, exit: exitCodeFor(res.report, 0) };
}

const ids = (rs: ReplicaSetReport) => rs.findings.map((f) => f.id);
export function dump(rs: ReplicaSetReport): string {
  return JSON.stringify({ verdict: rs.verdict, accounting: rs.accounting, rounds: rs.rounds.map((r) => `${r.at} ${r.kind} n=${r.n} ${r.basis} w=${r.writes} u=${r.unknown ?? 0} ${r.note ?? ''}`), windows: rs.gatedWindows.map((w) => `${w.start} ${w.endedBy} ${w.basis}`), findings: rs.findings.map((f) => `${f.id} ${f.severity} ${f.basis} ${f.writes ?? ''}: ${f.title}`) }, null, 1);
}

const finding = (rs: ReplicaSetReport, id: string) => rs.findings.find((f) => f.id === id);

test('#129795 from a recording with Events: the creates are reported at once, their pods arrive 5 m 20 s later — informer lag, then the over-create', async () => {
  const b = new RecordingBuilder();
  b.namespace().replicaSet(0);
  b.advance(1000).replicaSet(3);
  for (let i = 1; i <= 3; i++) b.advance(5).event('SuccessfulCreate', `Created pod: ${b.rsName}-late${i}`);
  b.advance(301_000).rsStatus(0);
  for (let i = 1; i <= 3; i++) b.advance(5).event('SuccessfulCreate', `Created pod: ${b.rsName}-again${i}`);
  b.advance(19_000);
  const names: string[] = [];
  for (let i = 1; i <= 3; i++) names.push(b.addPod(i, { name: `${b.rsName}-late${i}` }));
  for (let i = 1; i <= 3; i++) names.push(b.addPod(10 + i, { name: `${b.rsName}-again${i}` }));
  b.advance(1000);
  for (const n of names.slice(3)) b.gracefulDelete(n).event('SuccessfulDelete', `Deleted pod: ${n}`);
  b.advance(2000).end();
  const { rs, exit } = await replay('129795-watch', b);
  assert.deepEqual(rs.rounds.map((r) => [r.kind, r.n, r.writes, r.unknown ?? 0]), [['create', 3, 3, 0], ['create', 3, 3, 0], ['delete', 3, 3, 0]]);
  const lag = finding(rs, 'expectations-expired-informer-lag');
  assert.ok(lag, ids(rs).join());
  assert.match(lag.title, /5m20s later/);
  assert.match(lag.explanation, /late1/);
  assert.ok(!finding(rs, 'expectation-leak-expired'), 'pods that arrive late are not a leak');
  const over = finding(rs, 'expiry-over-create');
  assert.ok(over);
  assert.match(over.explanation, /3 earlier creates showed up only after this sync/);
  assert.equal(exit, 0);
});

test('a dropped pod ADD in a recording without Events: the create is unknown, not failed, and no exit code rests on it', async () => {
  const b = new RecordingBuilder('shop', 'web-7d9c6b8f5d', Date.UTC(2026, 10, 30, 10, 0, 0), ['replicasets', 'pods', 'namespaces']);
  b.namespace().replicaSet(0);
  b.advance(1000).replicaSet(2);
  b.advance(20).addPod(1);
  b.advance(400_000).rsStatus(1);
  b.advance(20).addPod(2);
  b.advance(1000).end();
  const { rs, exit } = await replay('dropped-add-noevents', b);
  assert.deepEqual(rs.rounds.map((r) => [r.kind, r.n, r.basis, r.writes, r.unknown ?? 0, r.errors.length]), [['create', 2, 'inferred', 1, 1, 0], ['create', 1, 'inferred', 1, 0, 0]]);
  assert.ok(!rs.findings.some((f) => f.id === 'create-failures'), 'never "assumed failed"');
  const leak = finding(rs, 'expectation-leak-expired');
  assert.ok(leak);
  assert.equal(leak.basis, 'unknown');
  assert.equal(leak.severity, 'info');
  assert.equal(finding(rs, 'expiry-over-create')?.basis, 'unknown');
  assert.equal(exit, 0);
});

test('a dropped pod ADD with Events: the leak names the pod SuccessfulCreate reported and the input never showed', async () => {
  const b = new RecordingBuilder();
  b.namespace().replicaSet(0);
  b.advance(1000).replicaSet(2);
  b.advance(10).event('SuccessfulCreate', `Created pod: ${b.rsName}-aaaaa`);
  b.advance(10).event('SuccessfulCreate', `Created pod: ${b.rsName}-lost1`);
  b.advance(10).addPod(1, { name: `${b.rsName}-aaaaa` });
  b.advance(305_000).rsStatus(1);
  b.advance(10).event('SuccessfulCreate', `Created pod: ${b.rsName}-bbbbb`);
  b.advance(10).addPod(2, { name: `${b.rsName}-bbbbb` });
  b.advance(1000).end();
  const { rs, exit } = await replay('dropped-add-events', b);
  const leak = finding(rs, 'expectation-leak-expired');
  assert.ok(leak, ids(rs).join());
  assert.notEqual(leak.basis, 'unknown');
  assert.match(leak.explanation, /Created but never observed: shop\/web-7d9c6b8f5d-lost1/);
  assert.equal(rs.accounting.writes, 3);
  assert.equal(exit, 4);
});

test('two ReplicaSets race to adopt one orphan: the winner owns the adopt write, the loser is told its patch was rejected', async () => {
  const b = new RecordingBuilder();
  b.namespace().replicaSet(1);
  b.advance(1000).addPod(1);
  const other = structuredClone(b.rs);
  other.metadata.name = 'web-other';
  other.metadata.uid = 'rs-uid-other';
  other.spec.replicas = 0;
  b.advance(10).emit('replicasets', 'ADDED', other);
  b.advance(60_000);
  const stray = b.addPod(50, { name: 'stray', owned: false });
  b.advance(20).updatePod(stray, (p) => {
    p.metadata.ownerReferences = [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-other', uid: 'rs-uid-other', controller: true, blockOwnerDeletion: true }];
  });
  b.advance(5000).end();
  const file = join(dir, 'adopt-race.kexp.jsonl');
  writeFileSync(file, b.text());
  const res = await replayFiles({ files: [file] });
  assert.deepEqual(res.problems, []);
  const loser = res.report.replicaSets.find((r) => r.key === `${b.ns}/${b.rsName}`)!;
  const winner = res.report.replicaSets.find((r) => r.key === `${b.ns}/web-other`)!;
  assert.equal(loser.accounting.byKind.adopt, 0, dump(loser));
  assert.ok(loser.rounds.every((r) => !(r.adopted ?? []).length), 'the loser adopted nothing');
  const tried = finding(loser, 'adoption');
  assert.ok(tried, dump(loser));
  assert.match(tried.explanation, /invalid/i);
  assert.equal(winner.accounting.byKind.adopt, 1);
  assert.deepEqual(winner.rounds.find((r) => r.kind === 'claim')?.adopted, [`${b.ns}/stray`]);
  assert.equal(loser.verdict.state, 'healthy');
});
