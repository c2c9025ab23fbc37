/**
 * terminalSafeDeep copies on write: what needed no change is returned as it is (no copy of
 * thousands of adoption rows per rendering), what did is a copy, and the input is never changed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { terminalSafeDeep } from '../../src/render/terminal-safe.js';

test('terminalSafeDeep: untouched subtrees are the same objects, changed paths are copies, the input stays as it was', () => {
  const rows = Array.from({ length: 3 }, (_, i) => ({ pod: `shop/web-${i}`, action: 'keep', claimed: true }));
  const input = {
    report: { rows, note: 'plain' },
    findings: [{ title: 'ok' }, { title: 'evil \u001b]0;pwned\u0007 title', n: 1 }],
    when: new Date(0),
  };
  const before = JSON.stringify(input);
  const out = terminalSafeDeep(input);
  assert.equal(JSON.stringify(input), before, 'the input is not changed');
  assert.notEqual(out, input);
  assert.equal(out.report, input.report, 'nothing unsafe under report: returned as it is');
  assert.equal(out.report.rows, rows);
  assert.notEqual(out.findings, input.findings);
  assert.equal(out.findings[0], input.findings[0]);
  assert.notEqual(out.findings[1], input.findings[1]);
  assert.deepEqual(Object.keys(out.findings[1]!), ['title', 'n'], 'key order kept');
  assert.equal(out.findings[1]!.n, 1);
  assert.doesNotMatch(out.findings[1]!.title, /[\u001b\u0007]/);
  assert.equal(out.when, input.when);
  const safe = { a: ['x', { b: 'y' }] };
  assert.equal(terminalSafeDeep(safe), safe);
});
