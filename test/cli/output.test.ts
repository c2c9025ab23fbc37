/**
 * The one output step (src/cli/output.ts): format selection, the text view (width, wide,
 * colour) from the stream and the environment, the JSON writer that waits for a slow reader,
 * and --html as each command writes it (before or after the report, `-` as stdout or as a file
 * name, a failure returned or thrown). The stdout guard is checked on the built CLI
 * (test/cli/output-errors.test.ts: a full disk is one line and exit 6).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { printOutput, writeDocument, type HtmlOptions, type OutputIO, type Printable, type TextView } from '../../src/cli/output.js';
import { UsageError } from '../../src/pipeline/usage-error.js';
import { OutputFileError } from '../../src/cli/output-file.js';
import { renderStructured } from '../../src/render/structured.js';

const DOC = { kind: 'Report', replicaSets: [{ key: 'shop/web', n: 1, note: 'yes' }] };
const REPLAY: HtmlOptions = { before: true, dashIsStdout: true, failureAsValue: true };
const AUDIT: HtmlOptions = { before: true, dashIsStdout: false, failureAsValue: false };
const EXPLAIN: HtmlOptions = { before: false, dashIsStdout: false, failureAsValue: false };

/** A stdout to print to, what the text renderer was asked, and everything written. */
function harness(opts: { isTTY?: boolean; columns?: number; env?: Record<string, string> } = {}) {
  const stdout = Object.assign(new PassThrough(), { isTTY: opts.isTTY, columns: opts.columns });
  const chunks: string[] = [];
  stdout.on('data', (c) => chunks.push(String(c)));
  const io: OutputIO = { stdout, env: opts.env ?? {} };
  const views: TextView[] = [];
  const p: Printable = {
    document: DOC,
    text: (v) => {
      views.push(v);
      return `TABLE ${v.width}${v.wide ? ' wide' : ''}${v.color ? ' color' : ''}\n`;
    },
    html: () => '<!doctype html>page\n',
  };
  return { io, p, views, written: () => chunks.join('') };
}

function tmpDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'kexp-output-'));
}

test('-o json prints the document as JSON.stringify(doc, null, 2) and a newline; -o yaml as renderStructured', async () => {
  const j = harness();
  assert.deepEqual(await printOutput(j.p, { output: 'json' }, undefined, j.io), {});
  assert.equal(j.written(), JSON.stringify(DOC, null, 2) + '\n');
  assert.equal(j.views.length, 0, 'the text renderer is not called');
  const y = harness();
  await printOutput(y.p, { output: 'yaml' }, undefined, y.io);
  assert.equal(y.written(), renderStructured(DOC, 'yaml'));
});

test('-o table / -o wide: the text laid out for this stdout (width, wide, colour)', async () => {
  const pipe = harness();
  await printOutput(pipe.p, { output: 'table' }, undefined, pipe.io);
  assert.equal(pipe.written(), 'TABLE 80\n');
  assert.deepEqual(pipe.views, [{ width: 80, wide: false, color: false }]);

  const tty = harness({ isTTY: true, columns: 132 });
  await printOutput(tty.p, { output: 'wide' }, undefined, tty.io);
  assert.deepEqual(tty.views, [{ width: 132, wide: true, color: true }]);

  const cols = harness({ isTTY: true, columns: 132, env: { COLUMNS: '80', NO_COLOR: '1' } });
  await printOutput(cols.p, { output: 'table' }, undefined, cols.io);
  assert.deepEqual(cols.views, [{ width: 80, wide: false, color: false }]);

  const forced = harness({ env: { NO_COLOR: '1' } });
  await printOutput(forced.p, { output: 'table', color: true }, undefined, forced.io);
  assert.deepEqual(forced.views, [{ width: 80, wide: false, color: true }], '--color wins over NO_COLOR');
});

test('piped from a terminal: its width (asked only when needed); on a terminal taller reports end with the summary again; -o name', async () => {
  const asked: number[] = [];
  const piped = harness();
  piped.io.terminal = () => (asked.push(1), { columns: 64, rows: 20 });
  await printOutput(piped.p, { output: 'table' }, undefined, piped.io);
  assert.equal(piped.written(), 'TABLE 64\n');
  const given = harness({ env: { COLUMNS: '90' } });
  given.io.terminal = () => (asked.push(2), { columns: 64 });
  await printOutput(given.p, { output: 'table' }, undefined, given.io);
  assert.equal(given.written(), 'TABLE 90\n');
  assert.deepEqual(asked, [1], 'COLUMNS set: the terminal is not asked');

  const tall = (isTTY: boolean, rows: number) => {
    const h = harness({ isTTY, columns: 40 });
    Object.assign(h.io.stdout, { rows });
    h.p.text = () => Array.from({ length: 30 }, (_, i) => `line ${i}`).join('\n') + '\n';
    h.p.summary = () => ['Verdict: LEAKED [observed] — x', 'Next:    y'];
    return h;
  };
  const screen = tall(true, 24);
  await printOutput(screen.p, { output: 'table' }, undefined, screen.io);
  const lines = screen.written().split('\n');
  assert.equal(lines.at(-5), 'line 29');
  assert.match(lines.at(-4)!, /^─+ summary \(30 lines above\) ─+$/);
  assert.deepEqual(lines.slice(-3), ['Verdict: LEAKED [observed] — x', 'Next:    y', '']);
  const fits = tall(true, 40);
  await printOutput(fits.p, { output: 'table' }, undefined, fits.io);
  assert.doesNotMatch(fits.written(), /summary/);
  const pipe = tall(false, 24);
  await printOutput(pipe.p, { output: 'table' }, undefined, pipe.io);
  assert.doesNotMatch(pipe.written(), /summary/, 'a pipe or a pager reads from the top');

  const names = harness();
  names.p.names = () => ['replicaset.apps/web', 'daemonset.apps/agent'];
  await printOutput(names.p, { output: 'name' }, undefined, names.io);
  assert.equal(names.written(), 'replicaset.apps/web\ndaemonset.apps/agent\n');
});

test('--html FILE (replay, audit): the page is written before the report, which is printed as usual', async () => {
  const dir = tmpDir();
  for (const mode of [REPLAY, AUDIT]) {
    const h = harness();
    const file = path.join(dir, `r-${mode.failureAsValue}.html`);
    assert.deepEqual(await printOutput(h.p, { output: 'json', html: file }, mode, h.io), {});
    assert.equal(fs.readFileSync(file, 'utf8'), '<!doctype html>page\n');
    assert.equal(h.written(), JSON.stringify(DOC, null, 2) + '\n');
  }
  fs.rmSync(dir, { recursive: true, force: true });
});

test('replay --html -: the page on stdout in place of the report', async () => {
  const h = harness();
  assert.deepEqual(await printOutput(h.p, { output: 'table', html: '-' }, REPLAY, h.io), {});
  assert.equal(h.written(), '<!doctype html>page\n');
  assert.equal(h.views.length, 0);
});

test('audit/explain --html -: `-` is a file name, and the report is printed', async () => {
  const dir = tmpDir();
  const cwd = process.cwd();
  process.chdir(dir);
  try {
    const h = harness();
    await printOutput(h.p, { output: 'table', html: '-' }, AUDIT, h.io);
    assert.equal(h.written(), 'TABLE 80\n');
    assert.equal(fs.readFileSync(path.join(dir, '-'), 'utf8'), '<!doctype html>page\n');
  } finally {
    process.chdir(cwd);
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('replay: a page that cannot be written is returned as an OutputFileError (a failing renderer as a UsageError); the report is still printed', async () => {
  const dir = tmpDir();
  const file = path.join(dir, 'no-such-dir', 'x.html');
  const h = harness();
  const r = await printOutput(h.p, { output: 'table', html: file }, REPLAY, h.io);
  assert.ok(r.htmlFailure instanceof OutputFileError);
  assert.equal(r.htmlFailure.message, `cannot write --html ${file}: ENOENT (no such directory)`);
  assert.equal(h.written(), 'TABLE 80\n');
  // A page renderer that fails is reported the same way, by its message.
  const bad = harness();
  const r2 = await printOutput({ ...bad.p, html: () => { throw new Error('no page\nmore'); } }, { output: 'table', html: path.join(dir, 'y.html') }, REPLAY, bad.io);
  assert.equal(r2.htmlFailure?.message, `cannot write --html ${path.join(dir, 'y.html')}: no page`);
  fs.rmSync(dir, { recursive: true, force: true });
});

test('audit: a page that cannot be written ends the output before the report; explain: after it', async () => {
  const dir = tmpDir();
  const file = path.join(dir, 'no-such-dir', 'x.html');
  const a = harness();
  await assert.rejects(printOutput(a.p, { output: 'table', html: file }, AUDIT, a.io), { name: 'OutputFileError', code: 'ENOENT' });
  assert.equal(a.written(), '');
  const e = harness();
  await assert.rejects(printOutput(e.p, { output: 'table', html: file }, EXPLAIN, e.io), { name: 'OutputFileError', code: 'ENOENT' });
  assert.equal(e.written(), 'TABLE 80\n');
  fs.rmSync(dir, { recursive: true, force: true });
});

test('explain --html FILE: the page is written after the report', async () => {
  const dir = tmpDir();
  const file = path.join(dir, 'e.html');
  const h = harness();
  let printedFirst = false;
  h.p.html = () => {
    printedFirst = h.written() === JSON.stringify(DOC, null, 2) + '\n';
    return 'page';
  };
  await printOutput(h.p, { output: 'json', html: file }, EXPLAIN, h.io);
  assert.ok(printedFirst, 'the report was on stdout when the page was rendered');
  assert.equal(fs.readFileSync(file, 'utf8'), 'page');
  fs.rmSync(dir, { recursive: true, force: true });
});

test('no --html, or a command without HtmlOptions: no page', async () => {
  const h = harness();
  let rendered = false;
  h.p.html = () => {
    rendered = true;
    return 'page';
  };
  await printOutput(h.p, { output: 'table', html: '' }, REPLAY, h.io);
  await printOutput(h.p, { output: 'table', html: 'x.html' }, undefined, h.io);
  assert.equal(rendered, false);
});

test('writeDocument writes the whole JSON document through a slow stream, waiting for drain', async () => {
  const value = { rows: Array.from({ length: 5000 }, (_, i) => ({ i, name: `pod-${i}`, keys: [`ns/pod-${i}`] })) };
  const out = new PassThrough({ highWaterMark: 1024 });
  const parts: Buffer[] = [];
  let drains = 0;
  out.on('drain', () => drains++);
  const reading = (async () => {
    for await (const c of out) {
      parts.push(c as Buffer);
      await new Promise((r) => setImmediate(r));
    }
  })();
  await writeDocument(out, value, 'json');
  out.end();
  await reading;
  assert.equal(Buffer.concat(parts).toString(), renderStructured(value, 'json'));
  assert.ok(drains > 0, 'the writer waited for the reader');
});

test('writeDocument writes YAML whole, as renderStructured', async () => {
  const out = new PassThrough();
  const chunks: string[] = [];
  out.on('data', (c) => chunks.push(String(c)));
  await writeDocument(out, { a: ['1', 2] }, 'yaml');
  assert.equal(chunks.join(''), renderStructured({ a: ['1', 2] }, 'yaml'));
});
