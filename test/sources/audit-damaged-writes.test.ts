/**
 * A controller write whose body is damaged (objectRef or responseObject of the wrong type)
 * is a problem at FILE:LINE — never silently dropped as "not relevant" — with the prefilter
 * on (the default) as well as off.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { auditFiles } from '../../src/pipeline/audit-files.js';
import { AuditLogBuilder } from '../support/audit-builder.js';

test('damaged controller writes are counted as problems at their line, and the rest of the round stands', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'kexp-audit-damaged-'));
  const b = new AuditLogBuilder();
  b.replicaSet(4);
  for (let i = 0; i < 4; i++) b.advance(5).controllerCreate();
  const f = b.write(join(dir, 'audit.log'));
  const lines = readFileSync(f, 'utf8').split('\n').filter(Boolean);
  const n = lines.length;
  const damage: Array<[number, (o: any) => void, RegExp]> = [
    [n - 3, (o) => (o.objectRef = { resource: 5, namespace: [] }), /objectRef\.resource is a number/],
    [n - 2, (o) => (o.objectRef.name = { x: 1 }), /objectRef\.name is an? object/],
    [n - 1, (o) => (o.responseObject = 'garbage'), /responseObject is a string/],
  ];
  for (const [i, mutate] of damage) {
    const o = JSON.parse(lines[i]!);
    mutate(o);
    lines[i] = JSON.stringify(o);
  }
  writeFileSync(f, lines.join('\n') + '\n');
  const res = await auditFiles({ files: [f] });
  assert.equal(res.problems.length, damage.length, res.problems.map((p) => p.message).join('\n'));
  damage.forEach(([i, , msg], k) => {
    assert.equal(res.problems[k]!.line, i + 1);
    assert.match(res.problems[k]!.message, msg);
  });
  assert.equal(res.report.coverage.problems?.count, damage.length);
  const rs = res.report.replicaSets.find((r) => r.key === `${b.ns}/${b.rsName}`)!;
  assert.equal(rs.accounting.writes, 1, 'the undamaged create is still accounted');
});
