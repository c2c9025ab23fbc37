/**
 * Terminal escape injection: strings from the input (names, Event messages, error text) must
 * never reach a terminal as control characters, in any command's table or stderr line — while
 * JSON keeps them exactly (its own escaping) and nothing is silently deleted.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { terminalSafe, terminalSafeDeep, terminalSafeLine } from '../../src/render/terminal-safe.js';
import { RecordingBuilder } from '../support/recording-builder.js';
import { kexp } from '../support/cli.js';

// Any C0 control but LF and TAB, DEL, C1, or a bidi control: what a terminal would act on.
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;
const HOSTILE = 'evil\u001b]0;pwned\u0007\u001b[2J\u001b]8;;https://x.example/\u001b\\link\u001b]8;;\u001b\\\u009b31m\r\u202eend';

test('terminalSafe makes every control character visible and keeps newlines; the line form escapes them too', () => {
  assert.equal(terminalSafe('a\u001b[31mb\u0007'), 'a\\x1b[31mb\\x07');
  assert.equal(terminalSafe('x\u009by\u202ez'), 'x\\x9by\\u202ez');
  assert.equal(terminalSafe('one\ntwo\tthree\r'), 'one\ntwo\tthree\\x0d');
  assert.equal(terminalSafeLine('one\ntwo'), 'one\\ntwo');
  assert.equal(terminalSafe(terminalSafe(HOSTILE)), terminalSafe(HOSTILE), 'idempotent');
  assert.doesNotMatch(terminalSafe(HOSTILE), RAW_CONTROL);
  const deep = terminalSafeDeep({ a: [HOSTILE, 3, null], m: new Map([['k', HOSTILE]]), ok: 'plain' });
  assert.doesNotMatch(JSON.stringify(deep.a), /\\u001b/);
  assert.equal(deep.m.get('k'), terminalSafe(HOSTILE));
  assert.equal(deep.ok, 'plain');
});

test('a hostile Event message and pod name reach neither the table nor stderr raw; JSON keeps them', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kexp-term-'));
  const b = new RecordingBuilder();
  b.namespace().replicaSet(2);
  b.advance(5).event('FailedCreate', `Error creating: pods "x" is forbidden: ${HOSTILE}`, 'Warning');
  b.advance(5).addPod(1, { name: `web-7d9c6b8f5d-${HOSTILE}` });
  b.advance(1000).end();
  const f = join(dir, 'hostile.kexp.jsonl');
  writeFileSync(f, b.text());
  const table = kexp(['replay', f]);
  assert.ok(table.stdout.length > 0, table.stderr);
  assert.doesNotMatch(table.stdout, RAW_CONTROL);
  assert.doesNotMatch(table.stderr, RAW_CONTROL);
  assert.match(table.stdout, /\\x1b\]0;pwned\\x07/, 'the escape is shown, not deleted');
  const json = kexp(['replay', f, '-o', 'json']);
  assert.match(json.stdout, /\\u001b\]0;pwned\\u0007/, 'JSON keeps the exact bytes, JSON-escaped');
  const usage = kexp(['replay', '--rs', `ns/${HOSTILE}`, f]);
  assert.equal(usage.code, 2);
  assert.doesNotMatch(usage.stderr, RAW_CONTROL);
  const missing = kexp(['replay', join(dir, `no-such-${HOSTILE}.jsonl`)]);
  assert.doesNotMatch(missing.stderr, RAW_CONTROL);
  assert.match(missing.stderr, /no-such-evil\\x1b/);
  // kcm-log: a key taken from a log line.
  const log = join(dir, 'kcm.log');
  writeFileSync(log, `I1130 02:40:09.216076   14267 replica_set.go:389] "Adding" logger="replicaset-controller" replicaSet="shop/${HOSTILE}"\n`);
  const kcm = kexp(['kcm-log', log]);
  assert.doesNotMatch(kcm.stdout, RAW_CONTROL);
  assert.doesNotMatch(kcm.stderr, RAW_CONTROL);
  assert.match(kcm.stdout + kcm.stderr, /\\x1b/, 'the key is shown, escaped');
});
