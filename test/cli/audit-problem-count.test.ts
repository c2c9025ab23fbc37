/** `kexp audit -o json` states the exact problem count even when only the first 100 are kept. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { kexp } from '../support/cli.js';

test('150 damaged lines: coverage.problems.count is 150, stderr says 50 more were not shown, exit 6', () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kexp-probs-'));
  const f = path.join(tmp, 'audit.jsonl');
  const bad = '{"kind":"Event","apiVersion":"audit.k8s.io/v1","stage":"ResponseComplete"\n'.repeat(150);
  fs.writeFileSync(f, fs.readFileSync('examples/captures/scale-up-gated/audit.jsonl', 'utf8') + bad);
  const r = kexp(['audit', f, '-o', 'json']);
  assert.equal(r.code, 6);
  const report = JSON.parse(r.stdout);
  assert.equal(report.coverage.problems.count, 150);
  assert.equal(report.inputs[0].problems, 150);
  assert.match(r.stderr, /… and 50 more input problem\(s\) not shown/);
  assert.match(r.stderr, /150 input problem\(s\); exit code 6/);
  fs.rmSync(tmp, { recursive: true, force: true });
});
