import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { describe, it } from 'node:test';
import { gzipSync } from 'node:zlib';
import { InputReader, JsonValueSplitter, type Line } from '../../src/sources/audit/line-reader.js';
import { findStringValue, keyScanner, NeedleScanner } from '../../src/sources/audit/line-filter.js';

const dir = mkdtempSync(join(tmpdir(), 'kexp-lines-'));
function file(name: string, content: string | Buffer): string {
  const p = join(dir, name);
  writeFileSync(p, content);
  return p;
}
async function all(gen: AsyncGenerator<Line[]>): Promise<Line[]> {
  const out: Line[] = [];
  for await (const b of gen) out.push(...b);
  return out;
}

describe('InputReader.lines', () => {
  const text = 'alpha\r\n\nbravo-is-longer-than-a-chunk\ncharlie\n\ndelta';

  for (const chunkSize of [1, 3, 7, 1 << 20]) {
    it(`splits across chunk boundaries (chunk ${chunkSize}), CRLF, empty lines, unterminated last line`, async () => {
      const r = new InputReader(file(`a${chunkSize}.txt`, text), { chunkSize });
      const lines = await all(r.lines());
      assert.deepEqual(lines, [
        { no: 1, text: 'alpha' },
        { no: 3, text: 'bravo-is-longer-than-a-chunk' },
        { no: 4, text: 'charlie' },
        { no: 6, text: 'delta', unterminated: true },
      ]);
      assert.equal(r.stats.lines, 6);
      assert.equal(r.stats.emptyLines, 2);
      assert.equal(r.stats.bytes, Buffer.byteLength(text));
      assert.equal(r.lastLineText(), 'delta');
    });
  }

  it('the prefilter sees only its own line slice, and never the unterminated last line', async () => {
    const seen: string[] = [];
    const r = new InputReader(file('f.txt', 'keep 1\ndrop 2\nkeep 3\ndrop 4'), { chunkSize: 5 });
    r.filter = (buf, s, e) => {
      const t = buf.toString('utf8', s, e);
      seen.push(t);
      return t.startsWith('keep');
    };
    const lines = await all(r.lines());
    assert.deepEqual(seen, ['keep 1', 'drop 2', 'keep 3']);
    assert.deepEqual(
      lines.map((l) => l.text),
      ['keep 1', 'keep 3', 'drop 4'],
    );
    assert.equal(r.stats.skippedByFilter, 1);
  });

  it('drops lines longer than maxLineBytes, with their line numbers', async () => {
    const tooLong: Array<[number, number]> = [];
    const body = 'short\n' + 'x'.repeat(50) + '\nok\n' + 'y'.repeat(30);
    for (const chunkSize of [4, 1 << 20]) {
      tooLong.length = 0;
      const r = new InputReader(file(`l${chunkSize}.txt`, body), { chunkSize, maxLineBytes: 20, onTooLong: (l, b) => tooLong.push([l, b]) });
      const lines = await all(r.lines());
      assert.deepEqual(
        lines.map((l) => [l.no, l.text]),
        [
          [1, 'short'],
          [3, 'ok'],
        ],
      );
      assert.deepEqual(tooLong, [
        [2, 50],
        [4, 30],
      ]);
      assert.equal(r.stats.tooLong, 2);
    }
  });

  it('gunzips by magic bytes, across concatenated members, whatever the name', async () => {
    const gz = Buffer.concat([gzipSync('one\ntwo\n'), gzipSync('three\n')]);
    const r = new InputReader(file('plain-name.log', gz));
    assert.deepEqual(
      (await all(r.lines())).map((l) => l.text),
      ['one', 'two', 'three'],
    );
    assert.equal(r.stats.compressed, true);
    assert.equal(r.stats.bytes, 14);
  });

  it('reads stdin for `-`, with a one-byte first chunk', async () => {
    const gz = gzipSync('{"a":1}\n{"b":2}\n');
    const r = new InputReader('-', { stdin: Readable.from([gz.subarray(0, 1), gz.subarray(1)]) });
    assert.deepEqual(
      (await all(r.lines())).map((l) => l.text),
      ['{"a":1}', '{"b":2}'],
    );
  });

  it('peek() does not consume: lines() replays the peeked bytes', async () => {
    const r = new InputReader(file('p.txt', 'a\nb\nc\nd\n'), { chunkSize: 2 });
    const { head, eof } = await r.peek(2, 1 << 20);
    assert.equal(head.toString(), 'a\nb\n');
    assert.equal(eof, false);
    assert.deepEqual(
      (await all(r.lines())).map((l) => l.text),
      ['a', 'b', 'c', 'd'],
    );
  });
});

describe('JsonValueSplitter', () => {
  const pretty = '{\n  "a": "x}{\\"]",\n  "b": [1, {"c": 2}]\n}\n\n{"d": "\\\\"}\n[\n  {"e": 1},\n  {"f": [2]}\n]\n';

  it('splits concatenated pretty values and unwraps a top-level array (byte-by-byte and whole)', () => {
    for (const step of [1, 2, 5, pretty.length]) {
      const s = new JsonValueSplitter();
      const buf = Buffer.from(pretty);
      const out: Line[] = [];
      for (let i = 0; i < buf.length; i += step) out.push(...s.push(buf.subarray(i, i + step)));
      out.push(...s.end());
      assert.deepEqual(
        out.map((l) => [l.no, JSON.parse(l.text)]),
        [
          [1, { a: 'x}{"]', b: [1, { c: 2 }] }],
          [6, { d: '\\' }],
          [8, { e: 1 }],
          [9, { f: [2] }],
        ],
        `step ${step}`,
      );
    }
  });

  it('reports an unclosed value at the end as unterminated, and stray text', () => {
    const strays: Array<[number, string]> = [];
    const s = new JsonValueSplitter(1 << 20, undefined, (l, t) => strays.push([l, t]));
    const out = [...s.push(Buffer.from('oops\n{"a":1}\n{"b":')), ...s.end()];
    assert.deepEqual(out, [
      { no: 2, text: '{"a":1}' },
      { no: 3, text: '{"b":', unterminated: true },
    ]);
    assert.deepEqual(strays, [[1, 'oops']]);
  });
});

describe('findStringValue / NeedleScanner (byte-level prefilter)', () => {
  const is = (v: string) => v === 'pods' || v === 'replicasets';
  const find = (text: string, escaped = false) => {
    const b = Buffer.from(text);
    return findStringValue(b, 0, b.length, keyScanner('resource', escaped), escaped, is);
  };

  it('finds the value of a key inside a line, tolerating whitespace', () => {
    assert.equal(find('{"objectRef":{"resource":"pods","name":"x"}}'), 'pods');
    assert.equal(find('{"objectRef": {"resource" : "replicasets"}}'), 'replicasets');
    assert.equal(find('{"objectRef":{"resource":"leases"}}'), undefined);
  });

  it('looks at every occurrence, not only the first', () => {
    assert.equal(find('{"requestObject":{"env":[{"resource":"limits.cpu"}]},"objectRef":{"resource":"pods"}}'), 'pods');
  });

  it('does not match keys that only start with the name, nor escaped text in the plain mode', () => {
    assert.equal(find('{"resourceVersion":"pods"}'), undefined);
    assert.equal(find('{"message":"{\\"resource\\":\\"pods\\"}"}'), undefined);
  });

  it('an anchored occurrence (right after `"objectRef":{`) decides alone', () => {
    const b = Buffer.from('{"objectRef":{"resource":"leases"},"requestObject":{"resource":"pods"}}');
    const anchor = Buffer.from('"objectRef":{');
    assert.equal(findStringValue(b, 0, b.length, keyScanner('resource'), false, is, anchor), undefined);
    assert.equal(findStringValue(b, 0, b.length, keyScanner('resource'), false, is), 'pods');
    const sorted = Buffer.from('{"objectRef":{"apiVersion":"v1","resource":"leases"},"requestObject":{"resource":"pods"}}');
    assert.equal(findStringValue(sorted, 0, sorted.length, keyScanner('resource'), false, is, anchor), 'pods');
  });

  it('escaped mode finds keys inside JSON-encoded strings (EKS message, AKS properties.log)', () => {
    assert.equal(find('{"message":"{\\"resource\\":\\"pods\\"}"}', true), 'pods');
  });

  it('stays inside the line range even when the next occurrence is in a later line', () => {
    const b = Buffer.from('{"a":1}\n{"b":2}\n{"resource":"pods"}\n{"resource":"leases"}\n');
    const sc = keyScanner('resource');
    const lines: Array<[number, number]> = [];
    let p = 0;
    for (let nl = b.indexOf(10); nl >= 0; nl = b.indexOf(10, p)) {
      lines.push([p, nl]);
      p = nl + 1;
    }
    assert.deepEqual(
      lines.map(([s, e]) => findStringValue(b, s, e, sc, false, () => true) ?? null),
      [null, null, 'pods', 'leases'],
    );
    const ns = new NeedleScanner(Buffer.from('pods'));
    assert.equal(ns.find(b, 0, 7), -1);
    assert.equal(ns.find(b, 8, 15), -1);
    assert.equal(ns.find(b, 16, 35), 29);
  });
});
