/**
 * Hostile input, class "what comes before and beside a KCM log" (issue #23, Low): a container
 * preamble of thousands of non-klog lines before kube-controller-manager's first klog line is
 * skipped with one warning (the report is the log's own), a file of text with no log line in the
 * first 10,000 lines is one line and exit 6, and `kexp kcm-log - -` is the usage error replay and
 * audit give (exit 2), never a second read of standard input. Spawns the built CLI; bounded.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { kexp } from '../support/cli.js';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kexp-kcm-edges-'));
process.on('exit', () => fs.rmSync(tmp, { recursive: true, force: true }));
const LOG = 'test/fixtures/kcm-log/ds-delete-leak-v1.37.log';

test('a preamble of 3,000 non-klog lines before the log: skipped with one warning, the same report', () => {
  const base = kexp(['kcm-log', LOG, '-o', 'json']);
  const pre = Array.from({ length: 3000 }, (_, i) => (i % 2 ? `+ exec kube-controller-manager --v=4 # ${i}` : `Flag --some-flag has been deprecated (${i})`)).join('\n') + '\n';
  const f = path.join(tmp, 'pre.log');
  fs.writeFileSync(f, pre + fs.readFileSync(LOG, 'utf8'));
  const t0 = Date.now();
  const r = kexp(['kcm-log', f, '-o', 'json']);
  assert.ok(Date.now() - t0 < 10_000);
  assert.equal(r.code, base.code, r.stderr);
  assert.match(r.stderr, new RegExp(`${f.replaceAll('.', '\\.')}:1: skipped 3000 lines before the first log record`));
  const verdicts = (s: string) => (JSON.parse(s) as { verdict?: unknown }).verdict;
  assert.deepEqual(verdicts(r.stdout), verdicts(base.stdout));
});

test('text with no log line in its first 10,000 lines: one line, exit 6', () => {
  const f = path.join(tmp, 'numbers.log');
  fs.writeFileSync(f, Array.from({ length: 20_000 }, (_, i) => String(i)).join('\n') + '\n');
  const r = kexp(['kcm-log', f]);
  assert.equal(r.code, 6);
  assert.equal(r.stderr, `kexp: ${f}: not a kube-controller-manager log: none of the first 10,000 lines is a klog line (\`I0304 10:15:02.123456 1 file.go:123] …\`) or a JSON log line (\`{"ts":…,"msg":…}\`)\n`);
});

test('kcm-log - -: standard input read once, a usage error (exit 2) as in replay and audit', () => {
  for (const cmd of ['kcm-log', 'replay', 'audit']) {
    const r = kexp([cmd, '-', '-'], { input: fs.readFileSync(LOG, 'utf8') });
    assert.equal(r.code, 2, `${cmd}: ${r.stderr}`);
    assert.equal(r.stderr, 'kexp: standard input ("-") can be read only once; give the other inputs as files\n', cmd);
  }
});
