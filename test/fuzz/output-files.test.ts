/**
 * Hostile input, class "where kexp writes" (issue #23, Low): `--html PATH` must write only the
 * file named — a symbolic link planted at PATH is refused (its target untouched), a directory is
 * refused — and every failure to write the page is one line with exit 6 (README, exit codes),
 * for each command that takes --html (replay, audit, explain writes after its report: not run
 * here, it needs a cluster). Spawns the built CLI.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { kexp } from '../support/cli.js';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kexp-out-'));
process.on('exit', () => fs.rmSync(tmp, { recursive: true, force: true }));
const RECORDING = 'examples/scale-up-gated.kexp.jsonl';
const AUDIT = 'examples/captures/scale-up-gated/audit.jsonl';
const STACK = /\n\s+at .+:\d+:\d+/;

for (const [cmd, input] of [['replay', RECORDING], ['audit', AUDIT]] as const) {
  test(`${cmd} --html: a symlink at the path is refused and its target left alone; a directory or a missing directory is one line, exit 6`, () => {
    const target = path.join(tmp, `${cmd}-victim.txt`);
    fs.writeFileSync(target, 'precious\n');
    const link = path.join(tmp, `${cmd}-report.html`);
    fs.symlinkSync(target, link);
    const r = kexp([cmd, input, '--html', link]);
    assert.equal(r.code, 6, r.stderr);
    assert.equal(fs.readFileSync(target, 'utf8'), 'precious\n', 'the link\'s target is untouched');
    const lines = r.stderr.split('\n').filter((l) => l.includes('--html'));
    assert.equal(lines.length, 1, r.stderr);
    assert.match(lines[0]!, new RegExp(`cannot write --html ${link.replaceAll('.', '\\.')}: it is a symbolic link`));
    assert.doesNotMatch(r.stderr, STACK);

    for (const [where, why] of [[tmp, /it is a directory|EISDIR/], [path.join(tmp, 'nope', 'x.html'), /ENOENT/]] as const) {
      const d = kexp([cmd, input, '--html', where]);
      assert.equal(d.code, 6, `${where}: ${d.stderr}`);
      assert.match(d.stderr, why);
      assert.doesNotMatch(d.stderr, STACK);
    }

    // A regular file is replaced (truncated first: no stale tail of a longer old page).
    const ok = path.join(tmp, `${cmd}-ok.html`);
    fs.writeFileSync(ok, 'x'.repeat(50_000_000));
    const w = kexp([cmd, input, '--html', ok]);
    assert.notEqual(w.code, 6, w.stderr);
    assert.match(fs.readFileSync(ok, 'utf8'), /<\/html>\s*$/);
  });
}
