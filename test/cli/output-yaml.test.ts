/** `-o yaml` is the same document as `-o json` (kubectl's two machine-readable outputs). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parse } from 'yaml';
import { kexp } from '../support/cli.js';

for (const args of [
  ['replay', 'examples/quota-rejected.kexp.jsonl'],
  ['audit', 'examples/captures/quota-rejected/audit.jsonl'],
  ['adopt', 'web', '-n', 'kexp-orphan-adopted', '--from', 'examples/orphan-adopted.kexp.jsonl'],
]) {
  test(`kexp ${args.join(' ')} -o yaml equals -o json`, () => {
    const j = kexp([...args, '-o', 'json']);
    const y = kexp([...args, '-o', 'yaml']);
    assert.equal(y.code, j.code, y.stderr);
    assert.doesNotMatch(y.stdout, /^\s*[{[]/, 'YAML, not JSON');
    assert.deepEqual(parse(y.stdout), JSON.parse(j.stdout));
  });
}
