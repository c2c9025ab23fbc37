/**
 * The renderers as a user meets them: `node bin/run.js replay …` (run `npm run build` first).
 * The --html and --color/--no-color flags are checked once src/commands/replay.ts declares them;
 * until then those tests are skipped with the reason.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { kexp } from '../support/cli.js';

const REC = path.resolve(new URL('./fixtures/leak-expired.kexp.jsonl', import.meta.url).pathname);
const { default: Replay } = await import('../../src/commands/replay.js');
const flags = Replay.flags as Record<string, { allowNo?: boolean } | undefined>;
const noHtml = flags.html ? false : 'replay has no --html flag yet';
const noColorFlag = flags.color?.allowNo ? false : 'replay has no --[no-]color flag yet';

test('replay prints a plain ASCII timeline after the verdict lines (NO_COLOR, not a TTY)', () => {
  const r = kexp(['replay', REC], { env: { COLUMNS: '' } });
  assert.equal(r.code, 4, r.stderr);
  assert.ok(!r.stdout.includes('\x1b'), 'no escape codes');
  const lines = r.stdout.split('\n');
  const i = lines.findIndex((l) => l.startsWith('  Timeline '));
  assert.ok(lines.findIndex((l) => l.startsWith('Verdict: ')) === 1, 'the verdict right under the ReplicaSet line');
  assert.ok(i > lines.findIndex((l) => l.startsWith('Verdict: ')), 'chart after the verdict');
  const chart = lines.slice(i, lines.indexOf('  Gated windows (2026-11-30, UTC)'));
  assert.ok(chart.some((l) => /^ {2}gated {5}\|F +L+O+$/.test(l)), chart.join('\n'));
  assert.ok(chart.some((l) => /^ {2}writes {4}\|C +X +X$/.test(l)), chart.join('\n'));
  assert.ok(chart.some((l) => /^ {2}causes {4}\| +T$/.test(l)), 'the first NamespaceTerminating rejection is marked');
  for (const l of chart) {
    assert.ok(l.length <= 100, 'a pipe without COLUMNS gets 100 columns');
    assert.match(l, /^[\x20-\x7e]*$/);
  }
});

test('replay --html FILE writes one self-contained page', { skip: noHtml }, () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kexp-html-'));
  const out = path.join(dir, 'report.html');
  const r = kexp(['replay', REC, '--html', out]);
  assert.equal(r.code, 4, r.stderr);
  const html = fs.readFileSync(out, 'utf8');
  assert.match(html, /^<!doctype html>/);
  assert.match(html, /shop\/web-7d9c6b8f5d/);
  assert.doesNotMatch(html, /\b(?:src|href)\s*=\s*["']?\s*(?:https?:)?\/\//i);
  fs.rmSync(dir, { recursive: true, force: true });
});

test('replay --color colours the chart even when piped; --no-color beats FORCE_COLOR', { skip: noColorFlag }, () => {
  // (The first test runs with NO_COLOR=1; useColor's precedence is unit-tested in chart.test.ts.)
  const colored = kexp(['replay', REC, '--color'], { env: { NO_COLOR: '' } });
  assert.match(colored.stdout, /\x1b\[/);
  const forced = kexp(['replay', REC, '--no-color'], { env: { NO_COLOR: '', FORCE_COLOR: '1' } });
  assert.ok(!forced.stdout.includes('\x1b'));
});
