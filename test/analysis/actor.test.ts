/**
 * Actor (#21 item 5): only the controller's own writes make rounds. A person removing a pod's
 * ownerReference is not an adoption by the controller, and an adoption is claimed only from the
 * controller's PATCH (audit) or the pod's ownerReference change (watch).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { auditFiles } from '../../src/pipeline/audit-files.js';
import { AuditLogBuilder, actors } from '../support/audit-builder.js';

const dir = mkdtempSync(join(tmpdir(), 'kexp-actor-'));

/** 2 pods; a person orphans one (ownerReferences removed by kubectl); the controller replaces it. */
function orphanedByPerson(adoptedBack: boolean): AuditLogBuilder {
  const b = new AuditLogBuilder();
  b.replicaSet(0);
  b.advance(1000).replicaSet(2);
  b.advance(20).controllerCreate();
  b.advance(20).controllerCreate();
  b.advance(10).rsStatus(2);
  const name = [...b.pods.keys()][0]!;
  const p = structuredClone(b.pods.get(name));
  p.metadata.resourceVersion = String(++b.rv);
  p.metadata.ownerReferences = [];
  if (!adoptedBack) p.metadata.labels = { app: 'debug' }; // out of the selector as well
  b.pods.set(name, p);
  b.advance(30_000).record({ actor: actors.user(), verb: 'patch', resource: 'pods', name, code: 200, requestObject: { metadata: { ownerReferences: null } }, responseObject: p });
  if (adoptedBack) b.advance(20).adoptPod(name);
  else b.advance(20).controllerCreate();
  b.advance(10).rsStatus(2);
  return b;
}

test('a person removing an ownerReference is no adoption by the controller; its replacement create is explained in a round', async () => {
  const b = orphanedByPerson(false);
  const res = await auditFiles({ files: [b.write(join(dir, 'orphaned.audit.jsonl'))] });
  const rs = res.report.replicaSets.find((r) => r.key === `${b.ns}/${b.rsName}`)!;
  assert.deepEqual(rs.rounds.map((r) => [r.kind, r.n, r.writes, r.basis]), [['create', 2, 2, 'observed'], ['create', 1, 1, 'observed']]);
  assert.ok(!rs.findings.some((f) => f.id === 'adoption'), rs.findings.map((f) => f.id).join());
  assert.ok(!rs.findings.some((f) => f.id === 'surplus-create'), rs.findings.map((f) => f.id).join());
  assert.equal(rs.accounting.inFindings, 0);
  assert.equal(rs.verdict.state, 'healthy');
});

test('an orphan still matching the selector: adopted by the controller\'s PATCH (observed), once; with no PATCH in a log that records the controller\'s writes, no adoption is claimed', async () => {
  const b = orphanedByPerson(true);
  const res = await auditFiles({ files: [b.write(join(dir, 'adopted.audit.jsonl'))] });
  const rs = res.report.replicaSets.find((r) => r.key === `${b.ns}/${b.rsName}`)!;
  const claims = rs.rounds.filter((r) => r.kind === 'claim');
  assert.deepEqual(claims.map((r) => [r.n, r.writes, r.basis, r.adopted?.length]), [[1, 1, 'observed', 1]]);
  const f = rs.findings.find((x) => x.id === 'adoption');
  assert.ok(f);
  assert.equal(f.basis, 'observed');
  assert.match(f.title, /adopted 1 pod$/);

  // The same log without the controller's PATCH: the model would adopt, the input shows no patch.
  const noPatch = new AuditLogBuilder();
  noPatch.lines = b.lines.filter((l) => !(l.includes('"verb":"patch"') && l.includes('replicaset-controller')));
  const res2 = await auditFiles({ files: [noPatch.write(join(dir, 'no-patch.audit.jsonl'))] });
  const rs2 = res2.report.replicaSets.find((r) => r.key === `${b.ns}/${b.rsName}`)!;
  assert.equal(rs2.rounds.filter((r) => r.kind === 'claim').length, 0, JSON.stringify(rs2.rounds));
  assert.ok(!rs2.findings.some((x) => x.id === 'adoption'));
});

test('a person\'s POST of a pod with the ReplicaSet\'s controllerRef is named as that person\'s, never the controller\'s create', async () => {
  const b = new AuditLogBuilder();
  b.replicaSet(0);
  b.advance(1000).replicaSet(1);
  b.advance(20).controllerCreate();
  b.advance(10).rsStatus(1);
  const q = structuredClone(b.pods.get([...b.pods.keys()][0]!));
  q.metadata.name = 'web-by-hand';
  delete q.metadata.generateName;
  q.metadata.uid = 'by-hand-uid';
  q.metadata.resourceVersion = String(++b.rv);
  b.pods.set('web-by-hand', q);
  b.advance(30_000).record({ actor: actors.user('bob'), verb: 'create', resource: 'pods', code: 201, requestObject: q, responseObject: q });
  b.advance(20).deletePod('web-by-hand');
  b.advance(10).rsStatus(1);
  const res = await auditFiles({ files: [b.write(join(dir, 'by-hand.audit.jsonl'))] });
  const rs = res.report.replicaSets.find((r) => r.key === `${b.ns}/${b.rsName}`)!;
  const f = rs.findings.find((x) => x.id === 'other-actor-writes');
  assert.ok(f, rs.findings.map((x) => x.id).join());
  assert.match(f.explanation, /shop\/web-by-hand: created with this ReplicaSet's controllerRef by bob/);
  assert.equal(f.severity, 'info');
  assert.ok(!rs.findings.some((x) => x.id === 'surplus-create'));
  assert.deepEqual(rs.rounds.map((r) => [r.kind, r.n, r.writes]), [['create', 1, 1], ['delete', 1, 1]]);
  assert.equal(rs.accounting.inFindings, 0);
});

test('real capture (v1.37.2): a person orphans a pod and creates one with the controllerRef — from the recording, no surplus create, the person\'s writes named, the adoption back inferred', async () => {
  const { replayFiles } = await import('../../src/pipeline/replay-files.js');
  const res = await replayFiles({ files: ['examples/person-orphans-and-creates.kexp.jsonl'] });
  const rs = res.report.replicaSets.find((r) => r.key === 'kexp-person-orphans-and-creates/web')!;
  const ids = rs.findings.map((f) => f.id);
  assert.ok(!ids.includes('surplus-create') && !ids.includes('unattributed-writes'), ids.join());
  const other = rs.findings.find((f) => f.id === 'other-actor-writes');
  assert.ok(other, ids.join());
  assert.match(other.title, /created 1 pod with this ReplicaSet's controllerRef and orphaned 1 of its pods/);
  assert.match(other.explanation, /web-by-hand: created with this ReplicaSet's controllerRef by another actor/);
  assert.equal(rs.findings.find((f) => f.id === 'adoption')?.basis, 'inferred');
  assert.equal(rs.accounting.inFindings, 0);
});

test('owner at the time of the call: the controller\'s DELETE of a pod orphaned while the call was in flight stays in its round, and the orphaned-delete leak names exactly that pod', async () => {
  const b = new AuditLogBuilder();
  b.replicaSet(0);
  b.advance(1000).replicaSet(3);
  for (let i = 0; i < 3; i++) b.advance(20).controllerCreate();
  b.advance(10).rsStatus(3);
  b.advance(30_000).replicaSet(2, actors.deploymentController());
  const victim = [...b.pods.keys()][2]!;
  const p = structuredClone(b.pods.get(victim));
  p.metadata.resourceVersion = String(++b.rv);
  p.metadata.ownerReferences = [];
  p.metadata.labels = { app: 'debug' };
  b.pods.set(victim, p);
  b.advance(2).record({ actor: actors.user(), verb: 'patch', resource: 'pods', name: victim, code: 200, requestObject: { metadata: { ownerReferences: null, labels: { app: 'debug' } } }, responseObject: p });
  b.advance(5).deletePod(victim);
  b.advance(10).rsStatus(2);
  b.advance(400_000).replicaSet(2, actors.user()); // a trigger after the expiry
  b.advance(10).rsStatus(2);
  const res = await auditFiles({ files: [b.write(join(dir, 'orphaned-delete.audit.jsonl'))] });
  const rs = res.report.replicaSets.find((r) => r.key === `${b.ns}/${b.rsName}`)!;
  const del = rs.rounds.find((r) => r.kind === 'delete')!;
  assert.deepEqual([del.n, del.writes, del.basis, del.keys], [1, 1, 'observed', [`${b.ns}/${victim}`]]);
  assert.equal(rs.accounting.writes, 4);
  assert.equal(rs.accounting.inFindings, 0);
  const leak = rs.findings.find((f) => f.id === 'expectation-leak-expired');
  assert.ok(leak, rs.findings.map((f) => f.id).join());
  assert.match(leak.explanation, new RegExp(`Deletions never observed: ${b.ns}/${victim}\\.`));
  assert.match(leak.explanation, /lost its controllerRef at .* \(alice\) before its deletion was observed.*orphaned-delete leak/);
  const { exitCodeFor } = await import('../../src/cli/report-exit.js');
  assert.equal(exitCodeFor(res.report, 0), 4);
});

/**
 * The real capture's audit log with lines added after the controller's adoption PATCH (line 28,
 * answered at 02:06:05.141): `extra` maps each added line's request time to the line it copies.
 */
async function personOrphansWith(name: string, extra: Array<{ copy: number; at: string; rv?: string; orphan?: boolean }>) {
  const lines = readFileSync('examples/captures/person-orphans-and-creates/audit.jsonl', 'utf8').trimEnd().split('\n');
  const added = extra.map((x, i) => {
    const e = JSON.parse(lines[x.copy - 1]!);
    e.auditID = `00000000-0000-4000-8000-00000000000${i}`;
    e.requestReceivedTimestamp = x.at;
    e.stageTimestamp = x.at.replace(/\d{3}Z$/, (ms) => `${String(Number(ms.slice(0, 3)) + 2).padStart(3, '0')}Z`);
    if (x.rv) e.responseObject.metadata.resourceVersion = x.rv;
    return JSON.stringify(e);
  });
  const file = join(dir, name);
  writeFileSync(file, [...lines.slice(0, 28), ...added, ...lines.slice(28)].join('\n') + '\n');
  const res = await auditFiles({ files: [file] });
  return res.report.replicaSets.find((r) => r.key === 'kexp-person-orphans-and-creates/web')!;
}

test('real capture (v1.37.2): the controller adopts the orphan a second time (no-op PATCH) before its informer delivered the first — named as its stale view, inferred, not as a claim kexp cannot place', async () => {
  const plain = await auditFiles({ files: ['examples/captures/person-orphans-and-creates/audit.jsonl'] });
  const rs0 = plain.report.replicaSets.find((r) => r.key === 'kexp-person-orphans-and-creates/web')!;
  assert.ok(!rs0.findings.some((f) => f.id === 'repeat-adopt' || f.id === 'unexpected-claim'), rs0.findings.map((f) => f.id).join());

  // The repeat: the same PATCH 5 ms after the first one's response, the object unchanged (resourceVersion 250).
  const rs = await personOrphansWith('repeat-adopt.audit.jsonl', [{ copy: 28, at: '2026-12-05T02:06:05.146000Z' }]);
  const f = rs.findings.find((x) => x.id === 'repeat-adopt');
  assert.ok(f, rs.findings.map((x) => x.id).join());
  assert.deepEqual([f.severity, f.basis, f.at], ['info', 'inferred', '2026-12-05T02:06:05.146Z']);
  assert.match(f.title, /adopted 1 pod it had already adopted: its informer had not yet delivered its own adoption/);
  assert.match(f.explanation, /web-46cdr\).*with a PATCH at 2026-12-05T02:06:05\.067Z \(.*repeat-adopt\.audit\.jsonl:28\).*in the 5 ms between/s);
  assert.deepEqual(f.evidence.map((x) => x.replace(/^.*:/, '')), ['28', '29']);
  assert.ok(!rs.findings.some((x) => x.id === 'unexpected-claim'));
  assert.equal(rs.findings.find((x) => x.id === 'adoption')?.basis, 'observed', 'the first adoption stays the round it was');
  assert.deepEqual([rs.accounting.writes, rs.accounting.inRounds, rs.accounting.inFindings], [6, 5, 1]);
});

test('an adoption after the pod was orphaned again is a new adoption, not a repeat', async () => {
  // The person removes the ownerReference again after the controller's adoption, and the controller adopts it once more.
  const rs = await personOrphansWith('readopt-after-orphan.audit.jsonl', [
    { copy: 25, at: '2026-12-05T02:06:06.000000Z', rv: '251' },
    { copy: 28, at: '2026-12-05T02:06:06.100000Z', rv: '252' },
  ]);
  assert.ok(!rs.findings.some((x) => x.id === 'repeat-adopt'), rs.findings.map((x) => x.id).join());
  assert.deepEqual(rs.rounds.filter((r) => r.kind === 'claim').map((r) => [r.at, r.writes, r.basis]), [
    ['2026-12-05T02:06:05.059Z', 1, 'observed'],
    ['2026-12-05T02:06:06.000Z', 1, 'observed'],
  ], 'each adoption a round of its own');
});
