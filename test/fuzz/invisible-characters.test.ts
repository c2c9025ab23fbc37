/**
 * Hostile input, class "text that reads differently from its bytes" (issue #23, Low): zero-width
 * and bidi-mark characters (U+061C, U+200B–D, U+200E/F, U+2060, U+FEFF, U+2028, tag characters)
 * and bidi controls in a pod name and an Event message must reach neither the terminal (table,
 * stderr) nor the HTML page raw: each renderer shows them as visible escapes in one place
 * (render/terminal-safe.ts, render/html.ts escapeHtml), while JSON keeps the exact characters.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { terminalSafe } from '../../src/render/terminal-safe.js';
import { escapeHtml } from '../../src/render/html.js';
import { RecordingBuilder } from '../support/recording-builder.js';
import { kexp } from '../support/cli.js';

const INVISIBLE = ['\u061c', '\u200b', '\u200c', '\u200d', '\u200e', '\u200f', '\u2028', '\u2060', '\ufeff', '\u{e0041}', '\u{e007f}', '\u202e', '\u2067'];
const RAW = /[\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u2069\ufeff\u{e0000}-\u{e007f}]/u;
const HIDDEN = `adm${INVISIBLE.join('')}in`;

test('each renderer\'s one place: terminalSafe and escapeHtml show every invisible or bidi character as an escape', () => {
  for (const c of INVISIBLE) {
    const code = c.codePointAt(0)!;
    const want = code > 0xffff ? `\\u{${code.toString(16)}}` : `\\u${code.toString(16).padStart(4, '0')}`;
    assert.equal(terminalSafe(`a${c}b`), `a${want}b`, want);
    assert.equal(escapeHtml(`a${c}b`), `a${want}b`, want);
  }
  assert.equal(terminalSafe('plain ü 日本 😀'), 'plain ü 日本 😀', 'other characters untouched');
  assert.equal(escapeHtml('<b>ü</b>'), '&lt;b&gt;ü&lt;/b&gt;');
});

test('a pod name and an Event message with invisible characters: visible in table, stderr and HTML, exact in JSON', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kexp-invisible-'));
  const b = new RecordingBuilder();
  b.namespace().replicaSet(2);
  b.advance(5).event('FailedCreate', `Error creating: pods "x" is forbidden: ${HIDDEN}`, 'Warning');
  b.advance(5).addPod(1, { name: `web-${HIDDEN}` });
  b.advance(1000).end();
  const f = path.join(dir, 'invisible.kexp.jsonl');
  fs.writeFileSync(f, b.text());
  const html = path.join(dir, 'r.html');
  const t0 = Date.now();
  const table = kexp(['replay', f, '-o', 'wide', '--html', html]);
  assert.ok(Date.now() - t0 < 10_000);
  assert.ok(table.stdout.length > 0, table.stderr);
  assert.doesNotMatch(table.stdout, RAW);
  assert.doesNotMatch(table.stderr, RAW);
  assert.match(table.stdout, /adm\\u061c\\u200b/);
  const page = fs.readFileSync(html, 'utf8');
  // The page's visible text: its embedded JSON data (script elements) keeps the exact characters, JSON-escaped or not.
  const visible = page.replace(/<script[\s\S]*?<\/script>/g, '');
  assert.doesNotMatch(visible, RAW);
  assert.match(visible, /adm\\u061c\\u200b/);
  // The embedded data hold none raw either: the chart's data (its tooltips) show the escapes,
  // the embedded report keeps the exact characters behind JSON's \u escapes.
  for (const id of ['kexp-data', 'kexp-report']) {
    const body = new RegExp(`<script type="application/json" id="${id}">([\\s\\S]*?)</script>`).exec(page)?.[1];
    if (id === 'kexp-report' && body === undefined) continue;
    assert.ok(body !== undefined, id);
    assert.doesNotMatch(body, RAW, id);
    const data = JSON.stringify(JSON.parse(body));
    if (id === 'kexp-data') {
      assert.doesNotMatch(data, RAW, 'chart data: visible escapes');
      assert.ok(data.includes('adm\\\\u061c\\\\u200b'), 'a tooltip shows the escapes');
    } else assert.ok(data.includes(HIDDEN), 'embedded report: exact');
  }
  const json = kexp(['replay', f, '-o', 'json']);
  assert.ok(JSON.stringify(JSON.parse(json.stdout)).includes(HIDDEN), 'JSON keeps the exact characters');
  fs.rmSync(dir, { recursive: true, force: true });
});
