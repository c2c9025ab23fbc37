/**
 * Audit integrity: the same audit events given twice (the same file twice, overlapping log
 * rotations) are counted once and said — never doubled into a second round of writes.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { auditFiles } from '../../src/pipeline/audit-files.js';
import { AuditLogBuilder } from '../support/audit-builder.js';

test('an audit log given twice, or rotated with an overlap, gives the report of the log given once, with the duplicates named', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'kexp-audit-dup-'));
  const b = new AuditLogBuilder();
  b.replicaSet(3);
  for (let i = 0; i < 3; i++) b.advance(5).controllerCreate();
  const f = b.write(join(dir, 'audit.log'));
  const once = await auditFiles({ files: [f] });
  const rs = (r: typeof once) => r.report.replicaSets.find((x) => x.key === `${b.ns}/${b.rsName}`)!;
  assert.deepEqual(rs(once).rounds.map((r) => [r.kind, r.n, r.writes]), [['create', 3, 3]]);

  const warnings: string[] = [];
  const twice = await auditFiles({ files: [f, f], onWarning: (m) => warnings.push(m) });
  assert.deepEqual(rs(twice).rounds.map((r) => [r.kind, r.n, r.writes]), [['create', 3, 3]]);
  assert.deepEqual(rs(twice).accounting, rs(once).accounting);
  assert.equal(twice.rsControllerWrites, once.rsControllerWrites);
  assert.deepEqual(twice.report.coverage.controllerWrites, once.report.coverage.controllerWrites);
  const lines = readFileSync(f, 'utf8').split('\n').filter(Boolean).length;
  const w = warnings.find((m) => /duplicate audit event/.test(m));
  assert.ok(w, warnings.join('\n'));
  assert.match(w, new RegExp(`^${lines} duplicate audit event`));
  assert.ok(twice.report.coverage.assumptions.some((a) => /duplicate audit event/.test(a)));

  // A rotation overlap: the second file repeats the last two events of the first.
  const all = readFileSync(f, 'utf8').split('\n').filter(Boolean);
  const a = join(dir, 'audit-1.log');
  const c = join(dir, 'audit-2.log');
  writeFileSync(a, all.slice(0, -1).join('\n') + '\n');
  writeFileSync(c, all.slice(-3).join('\n') + '\n');
  const rotated = await auditFiles({ files: [a, c] });
  assert.deepEqual(rs(rotated).rounds.map((r) => [r.kind, r.n, r.writes]), [['create', 3, 3]]);
  assert.equal(rotated.rsControllerWrites, once.rsControllerWrites);
});
