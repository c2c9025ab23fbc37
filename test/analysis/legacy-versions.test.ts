/**
 * Releases older than kexp models exactly, taken from the input (#21 item 8): bug-cases #5
 * (kubernetes#69376) — before v1.17 a ReplicaSet deleted and recreated under the same name
 * inherits the old record — replayed from a recording whose server version says v1.12.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { replayFiles } from '../../src/pipeline/replay-files.js';
import { recreatedUnderSameName } from '../support/bug-case-inputs.js';

const dir = mkdtempSync(join(tmpdir(), 'kexp-legacy-'));

function recreated(version: string): string {
  const f = join(dir, `recreated-${version}.kexp.jsonl`);
  writeFileSync(f, recreatedUnderSameName(version));
  return f;
}

test('#69376 on v1.12 (from the recording\'s server version): the recreated ReplicaSet inherits the record and is gated until the expiry; on v1.37 it is not', async () => {
  const { report } = await replayFiles({ files: [recreated('v1.12.10')] });
  assert.deepEqual([report.k8sVersion.version, report.k8sVersion.basis, report.k8sVersion.modelledAs], ['v1.12.10', 'input', 'v1.25']);
  const rs = report.replicaSets[0]!;
  const w = rs.gatedWindows[0]!;
  assert.equal(w.endedBy, 'expired');
  const leak = rs.findings.find((f) => f.id === 'expectation-leak-expired');
  assert.ok(leak, rs.findings.map((f) => f.id).join());
  assert.match(leak.explanation, /deleted and recreated under the same name at .* the new ReplicaSet \(uid rs-u2-0000-0000-0000-000000000002\) inherited the old one's record .*kubernetes#69376/);
  // The recreation finding says the same, never that the deletion cleared the record.
  const re = rs.findings.find((f) => f.id === 'rs-recreated')!;
  assert.match(re.explanation, /the new ReplicaSet inherits it, still waiting for \d+ creation\(s\)/);
  assert.doesNotMatch(re.explanation, /cleared its expectations|starts with none/);

  const modern = (await replayFiles({ files: [recreated('v1.37.2')] })).report.replicaSets[0]!;
  assert.equal(modern.gatedWindows[0]!.endedBy, 'rs-deleted', 'deleteRS deletes the record from v1.17 on');
  assert.ok(!modern.findings.some((f) => /inherited the old one's record|inherits it/.test(f.explanation)));
  assert.match(modern.findings.find((f) => f.id === 'rs-recreated')!.explanation, /The new one starts with none/);
});
