/**
 * The citation format of src/analysis/report/evidence-refs.ts: `parseRef` is the exact inverse of
 * `ref` — every SourceRef comes back from its citation (file names holding ':' included), and a
 * string `ref` does not make parses to nothing.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseRef, ref, refs } from '../../../src/analysis/report/evidence-refs.js';
import type { SourceRef } from '../../../src/timeline/event.js';

test('parseRef(ref(s)) is s, for file names with and without ":"', () => {
  const files = ['audit.jsonl', 'examples/captures/deletion-lag/audit.jsonl.gz', '-', 'serve-journal', 'C:\\logs\\audit.log', 'a:b', 'a:12', 'x:', ':', '::1:', 'dir:1/kcm.log', ' spaced name ', ''];
  const lines = [1, 2, 9, 10, 12, 737_559, 2 ** 31, Number.MAX_SAFE_INTEGER];
  for (const file of files) {
    for (const line of lines) {
      const s: SourceRef = { file, line };
      const r = ref(s);
      assert.equal(r, `${file}:${line}`);
      assert.deepEqual(parseRef(r), s, r);
    }
  }
  assert.deepEqual(parseRef('a:b:12'), { file: 'a:b', line: 12 });
  assert.deepEqual(parseRef('x::3'), { file: 'x:', line: 3 });
  // The citations refs() gives read back as the refs given.
  const given: SourceRef[] = [{ file: 'k:cm.log', line: 4 }, { file: 'audit.jsonl', line: 17 }];
  assert.deepEqual(refs(given).map(parseRef), given);
});

test('parseRef: a string ref() does not make is no citation', () => {
  for (const r of ['', 'audit.jsonl', 'audit.jsonl:', 'audit.jsonl:0', 'audit.jsonl:-3', 'audit.jsonl:1.5', 'audit.jsonl:1.0', 'audit.jsonl:012', 'audit.jsonl: 7', 'audit.jsonl:7 ', 'audit.jsonl:1e3', 'audit.jsonl:0x1f', 'serve-journal:end', 'serve-journal:?5', 'events/web-1', 'a:b', `f:${2 ** 53}`]) {
    assert.equal(parseRef(r), undefined, JSON.stringify(r));
  }
  // Whatever it accepts, ref() writes back unchanged.
  for (const r of ['a:1', 'a:b:2', ':3']) assert.equal(ref(parseRef(r)), r);
});
