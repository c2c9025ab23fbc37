/**
 * Hostile input, class "rendering linear in the input" (issue #23): one Event message of a
 * megabyte — anyone who can create Events in a namespace can write one — took 43 s to lay out
 * as one word (400 KB) and minutes as wide/combining characters, because the word wrapper broke
 * a long word by re-slicing its rest. Reproduced here in the sweep's form (a FailedCreate Event
 * message in a recording, shown in the findings and the failure table) with three payloads: a
 * 1 MB word, 1 MB of short words, 1 MB of wide/combining characters and emoji. Asserted for
 * each: every output (table, wide, json, yaml, html) within a generous bound (BOUND_MS, far
 * above the ~0.5 s they take, for a loaded 2-core machine); the terminal outputs say the text
 * was cut and stay small; json and yaml keep the message whole. The renderer helpers the
 * tables and prose go through (wrap, formatTable, the sanitiser) are also timed directly on
 * the payloads, since `explain` serves the same renderers live.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { wrap } from '../../src/render/text.js';
import { formatTable } from '../../src/render/columns.js';
import { terminalSafeDeep, terminalSafeLine } from '../../src/render/terminal-safe.js';
import { cutForTerminal, MAX_RUN, MAX_TEXT } from '../../src/render/long-text.js';

const BOUND_MS = 5_000;
const MB = 1 << 20;
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kexp-long-'));
process.on('exit', () => fs.rmSync(tmp, { recursive: true, force: true }));

const PAYLOADS: Record<string, string> = {
  'one word': 'x'.repeat(MB),
  'short words': 'word '.repeat(MB / 5),
  'wide and combining': '日e\u0301\u{1F600}'.repeat(MB / 5),
};

/** The built CLI, as test/support/cli.ts spawns it, with room for the megabytes -o json writes. */
function kexp(args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [path.resolve('bin/run.js'), ...args], { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' }, maxBuffer: 64 * MB, timeout: 60_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function timed<T>(f: () => T): { v: T; ms: number } {
  const t0 = performance.now();
  const v = f();
  return { v, ms: performance.now() - t0 };
}

for (const [name, payload] of Object.entries(PAYLOADS)) {
  test(`replay: a FailedCreate message of 1 MB (${name}) renders in every output within the bound`, () => {
    const lines = fs.readFileSync('examples/quota-rejected.kexp.jsonl', 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, any>);
    const i = lines.findIndex((l) => l.event?.object?.reason === 'FailedCreate');
    const message = `${lines[i]!.event.object.message} ${payload}`;
    lines[i]!.event.object.message = message;
    const file = path.join(tmp, `${name.replace(/\W/g, '-')}.kexp.jsonl`);
    fs.writeFileSync(file, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    const html = path.join(tmp, 'r.html');
    for (const o of ['table', 'wide', 'json', 'yaml']) {
      const { v: r, ms } = timed(() => kexp(['replay', '-o', o, ...(o === 'table' ? ['--html', html] : []), file]));
      assert.ok(ms < BOUND_MS, `-o ${o}: ${Math.round(ms)} ms`);
      assert.equal(r.code, 5, `-o ${o}: exit ${r.code} ${r.stderr.slice(0, 300)}`); // creates failing, as unmutated
      if (o === 'json' || o === 'yaml') {
        assert.ok(r.stdout.length > MB, `-o ${o} keeps the message whole`);
      } else {
        assert.match(r.stdout, /…\[cut: [\d,]+\s+characters(\s+in\s+all)?;\s+-o\s+json\s+has\s+them\s+all\]/, `-o ${o} says what was cut`);
        assert.ok(r.stdout.length < 200_000, `-o ${o}: ${r.stdout.length} bytes`);
      }
    }
    assert.ok(fs.statSync(html).size > MB, 'the HTML report keeps the message whole');
  });

  test(`renderer helpers are linear on 1 MB (${name})`, () => {
    const w = timed(() => wrap(payload, 80, '    '));
    assert.ok(w.ms < BOUND_MS, `wrap: ${Math.round(w.ms)} ms`);
    assert.ok(w.v.split('\n').every((l) => [...l].length <= 80));
    const t = timed(() => formatTable([{ header: 'a', kind: 'fixed' }, { header: 'message', kind: 'flex' }], [['1', payload], ['2', 'short']], { width: 100, wide: true }));
    assert.ok(t.ms < BOUND_MS, `formatTable: ${Math.round(t.ms)} ms`);
    assert.ok(t.v[1]!.includes('[cut:') && t.v[1]!.length < MAX_TEXT + 200, 'a wide cell is cut, and says so');
    const s = timed(() => terminalSafeDeep({ findings: [{ explanation: payload }] }));
    assert.ok(s.ms < BOUND_MS);
    assert.ok(s.v.findings[0]!.explanation.length < MAX_TEXT + 100);
    assert.ok(timed(() => terminalSafeLine(payload)).ms < BOUND_MS);
  });
}

test('cutForTerminal: short text and runs are the same string; cuts keep whole code points and count characters', () => {
  const ok = 'a '.repeat(MAX_RUN) + 'b'.repeat(MAX_RUN);
  assert.equal(cutForTerminal(ok), ok);
  const run = 'a'.repeat(MAX_RUN - 1) + '\u{1F600}'.repeat(10);
  const cut = cutForTerminal(`x ${run} y`);
  assert.equal(cut, `x ${'a'.repeat(MAX_RUN - 1)}…[cut: ${MAX_RUN - 1 + 10} characters; -o json has them all] y`);
  const long = 'ab '.repeat(MAX_TEXT);
  // Cut at the last blank at or before MAX_TEXT (MAX_TEXT is even: 'ab ' puts a blank at MAX_TEXT - 1 - …).
  const cutLong = cutForTerminal(long);
  assert.ok(cutLong.endsWith(`ab…[cut: ${(3 * MAX_TEXT).toLocaleString('en-US')} characters in all; -o json has them all]`), cutLong.slice(-80));
  assert.ok(long.startsWith(cutLong.slice(0, cutLong.indexOf('…'))) && cutLong.indexOf('…') <= MAX_TEXT && cutLong.indexOf('…') > MAX_TEXT - 4);
  // A megabyte run near the start: cut as a run first, the whole string after, no mark split.
  const both = cutForTerminal('x'.repeat(MB) + ' tail'.repeat(MAX_TEXT));
  assert.equal((both.match(/\[cut:/g) ?? []).length, 2);
  assert.ok(both.includes(`…[cut: ${MB.toLocaleString('en-US')} characters; -o json has them all] tail`));
});
