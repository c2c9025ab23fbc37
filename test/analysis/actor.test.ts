/**
 * Actor (#21 item 5): only the controller's own writes make rounds. A person removing a pod's
 * ownerReference is not an adoption by the controller, and an adoption is claimed only from the
 * controller's PATCH (audit) or the pod's ownerReference change (watch).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
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
