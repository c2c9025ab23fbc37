import { test } from 'node:test';
import assert from 'node:assert/strict';

import { JsonValueScanner, type ScanItem } from '../../src/sources/watch/json-values.js';

function scan(text: string, chunkSize = Infinity, opts?: { maxValueBytes?: number }): ScanItem[] {
  const sc = new JsonValueScanner(opts);
  const out: ScanItem[] = [];
  const buf = Buffer.from(text);
  const step = Number.isFinite(chunkSize) ? chunkSize : buf.length || 1;
  for (let i = 0; i < buf.length; i += step) sc.push(buf.subarray(i, i + step), out);
  sc.end(out);
  return out;
}

const TRICKY = [
  '{',
  '    "kind": "Pod",',
  '    "metadata": {"name": "web-7d9c6b8f5d-x7k2p", "annotations": {"note": "braces } { ] [ and \\"quotes\\" and \\\\"}}',
  '}',
  '{"kind":"Pod","metadata":{"name":"b"}} {"kind":"Pod","metadata":{"name":"c"}}',
  '',
].join('\n');

test('JsonValueScanner: concatenated values with braces and escapes inside strings', () => {
  const items = scan(TRICKY);
  assert.deepEqual(
    items.map((i) => (i.kind === 'value' ? [i.line, JSON.parse(i.text).metadata.name] : [i.line, i.message])),
    [
      [1, 'web-7d9c6b8f5d-x7k2p'],
      [5, 'b'],
      [5, 'c'],
    ],
  );
  assert.equal(JSON.parse((items[0] as { text: string }).text).metadata.annotations.note, 'braces } { ] [ and "quotes" and \\');
});

test('JsonValueScanner: identical results for every chunk size (byte by byte included)', () => {
  const list = JSON.stringify(
    { apiVersion: 'v1', kind: 'PodList', metadata: { resourceVersion: '48420' }, items: [{ metadata: { name: 'a\\"}' } }, { metadata: { name: 'é' } }] },
    null,
    2,
  );
  const text = `${TRICKY}${list}\n`;
  const whole = scan(text);
  for (const size of [1, 2, 3, 7, 64]) assert.deepEqual(scan(text, size), whole, `chunk size ${size}`);
  assert.equal(whole.length, 5);
});

test('JsonValueScanner: lists are exploded with the list kind, nested "items" are not', () => {
  const text = JSON.stringify({
    kind: 'PodList',
    apiVersion: 'v1',
    metadata: { resourceVersion: '48420' },
    items: [
      { metadata: { name: 'a' }, spec: { volumes: [{ configMap: { items: [{ key: 'k', path: 'p' }] } }] } },
      { metadata: { name: 'b' } },
    ],
  });
  const items = scan(text + '\n');
  assert.deepEqual(
    items.map((i) => (i.kind === 'value' ? [JSON.parse(i.text).metadata.name, i.fromList] : i)),
    [
      ['a', { kind: 'PodList', apiVersion: 'v1' }],
      ['b', { kind: 'PodList', apiVersion: 'v1' }],
    ],
  );
  // A top-level array: its elements, one per line in this layout.
  const arr = scan('[\n{"kind":"Pod","metadata":{"name":"x"}},\n{"kind":"Pod","metadata":{"name":"y"}},\n3\n]\n');
  assert.deepEqual(
    arr.map((i) => (i.kind === 'value' ? [i.line, JSON.parse(i.text).metadata.name] : [i.line, i.message])),
    [
      [2, 'x'],
      [3, 'y'],
      [4, 'list element is not an object; skipped'],
    ],
  );
});

test('JsonValueScanner: garbage between values, a raw newline in a string, and end of input inside a value', () => {
  const text = [
    '{"kind":"Pod","metadata":{"name":"a"}}',
    'error: watch closed',
    'still garbage',
    '{"kind":"Pod","metadata":{"name":"bro',
    'ken"}}',
    '{"kind":"Pod","metadata":{"name":"c"}}',
    '{"kind":"Pod",',
  ].join('\n');
  assert.deepEqual(
    scan(text).map((i) => (i.kind === 'value' ? [i.line, JSON.parse(i.text).metadata.name] : [i.line, i.message])),
    [
      [1, 'a'],
      [2, 'not JSON (unexpected text "error: watch closed")'],
      [4, 'truncated value (no closing brace; recording interrupted?)'],
      [6, 'c'],
      [7, 'truncated value at end of input (no closing brace; recording interrupted?)'],
    ],
  );
});

test('JsonValueScanner: values over the size limit are skipped with a problem', () => {
  const big = JSON.stringify({ kind: 'Pod', metadata: { name: 'x'.repeat(200) } });
  const items = scan(`${big}\n{"kind":"Pod","metadata":{"name":"ok"}}\n`, 16, { maxValueBytes: 100 });
  assert.deepEqual(
    items.map((i) => (i.kind === 'value' ? [i.line, JSON.parse(i.text).metadata.name] : [i.line, i.message])),
    [
      [1, 'value larger than 100 bytes; skipped'],
      [2, 'ok'],
    ],
  );
});
