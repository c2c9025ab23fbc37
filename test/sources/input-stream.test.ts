import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';

import { InputError } from '../../src/sources/source.js';
import { InputCutError, LineSplitter, openInputBytes, splitLines, type SplitLine } from '../../src/sources/input-stream.js';
import { fx, tmpFile } from './watch-helpers.js';

async function lines(chunks: (string | Buffer)[], opts?: { maxLineBytes?: number }): Promise<SplitLine[]> {
  const out: SplitLine[] = [];
  const src = (async function* () {
    for (const c of chunks) yield Buffer.isBuffer(c) ? c : Buffer.from(c);
  })();
  for await (const l of splitLines(src, opts)) out.push(l);
  return out;
}

async function readAll(stream: AsyncIterable<Buffer>): Promise<string> {
  const parts: Buffer[] = [];
  for await (const c of stream) parts.push(c);
  return Buffer.concat(parts).toString('utf8');
}

test('splitLines: LF and CRLF, blank lines, final line without newline', async () => {
  assert.deepEqual(await lines(['a\r\nbb\n\nccc']), [
    { line: 1, text: 'a', truncatedFinal: false },
    { line: 2, text: 'bb', truncatedFinal: false },
    { line: 3, text: '', truncatedFinal: false },
    { line: 4, text: 'ccc', truncatedFinal: true },
  ]);
  assert.deepEqual(await lines(['x\n']), [{ line: 1, text: 'x', truncatedFinal: false }]);
});

test('splitLines: lines and CRLF split across chunks, multi-byte UTF-8 split across chunks', async () => {
  const text = Buffer.from('{"msg":"Créé — ok"}\r\n{"b":2}\n');
  const byteByByte = [...text].map((b) => Buffer.from([b]));
  assert.deepEqual(await lines(byteByByte), [
    { line: 1, text: '{"msg":"Créé — ok"}', truncatedFinal: false },
    { line: 2, text: '{"b":2}', truncatedFinal: false },
  ]);
  assert.deepEqual(await lines(['ab\r', '\ncd\n']), [
    { line: 1, text: 'ab', truncatedFinal: false },
    { line: 2, text: 'cd', truncatedFinal: false },
  ]);
});

test('splitLines: strips a UTF-8 BOM on line 1 only', async () => {
  assert.deepEqual(await lines([Buffer.from([0xef, 0xbb, 0xbf]), 'a\n\uFEFFb\n']), [
    { line: 1, text: 'a', truncatedFinal: false },
    { line: 2, text: '\uFEFFb', truncatedFinal: false },
  ]);
});

test('splitLines: an over-long line is reported by size and not buffered', async () => {
  assert.deepEqual(await lines(['short\n0123456789', 'abcdef\nok\n'], { maxLineBytes: 10 }), [
    { line: 1, text: 'short', truncatedFinal: false },
    { line: 2, text: '', truncatedFinal: false, tooLongBytes: 16 },
    { line: 3, text: 'ok', truncatedFinal: false },
  ]);
  const s = new LineSplitter({ maxLineBytes: 4 });
  assert.deepEqual(s.push(Buffer.from('123456789')), []);
  assert.deepEqual(s.end(), [{ line: 1, text: '', truncatedFinal: true, tooLongBytes: 9 }]);
});

test('openInputBytes: plain file, gzip sniffed by magic bytes (not extension), concatenated members', async () => {
  const plain = await openInputBytes(fx('kcm.log'));
  assert.equal(plain.gzip, false);
  assert.match(await readAll(plain.stream), /^I1130 10:15:02\.123456/);
  const gz = tmpFile('data.txt', Buffer.concat([gzipSync('one\n'), gzipSync('two\n')]));
  const z = await openInputBytes(gz);
  assert.equal(z.gzip, true);
  assert.equal(z.file, gz);
  assert.equal(await readAll(z.stream), 'one\ntwo\n');
});

test('openInputBytes: `-` reads the given stdin stream (gzip too)', async () => {
  const s = await openInputBytes('-', Readable.from([Buffer.from([0x1f]), Buffer.from([0x8b]), gzipSync('hello\n').subarray(2)]));
  assert.equal(s.file, '-');
  assert.equal(s.gzip, true);
  assert.equal(await readAll(s.stream), 'hello\n');
  const t = await openInputBytes('-', Readable.from(['a\n', 'b\n']));
  assert.equal(t.gzip, false);
  assert.equal(await readAll(t.stream), 'a\nb\n');
});

test('openInputBytes: empty input is an InputError', async () => {
  await assert.rejects(openInputBytes(fx('empty.jsonl')), { name: 'InputError', message: `${fx('empty.jsonl')}: file is empty` });
  await assert.rejects(openInputBytes('-', Readable.from([])), { name: 'InputError', message: '-: file is empty' });
});

test('openInputBytes: truncated or corrupt gzip surfaces as InputError naming the file', async () => {
  const body = Buffer.from('{"type":"ADDED"}\n'.repeat(2000));
  const gz = gzipSync(body);
  const cut = tmpFile('cut.gz', gz.subarray(0, Math.floor(gz.length / 2)));
  const s = await openInputBytes(cut);
  let got = 0;
  await assert.rejects(
    (async () => {
      for await (const c of s.stream) got += c.length;
    })(),
    (err: unknown) => {
      assert.ok(err instanceof InputError);
      assert.equal(err.file, cut);
      assert.equal(err.message, `${cut}: gzip data is corrupt/truncated after ${got} bytes (zlib: unexpected end of file)`);
      return true;
    },
  );
  // A header that is not gzip at the very start fails before any data.
  const badHeader = tmpFile('bad-header.gz', Buffer.concat([Buffer.from([0x1f, 0x8b, 7]), gzipSync('ok\n').subarray(3)]));
  await assert.rejects(openInputBytes(badHeader), {
    name: 'InputError',
    message: `${badHeader}: gzip data is corrupt/truncated after 0 bytes (zlib: unknown compression method)`,
  });
});

test('openInputBytes: trailing garbage after the gzip data: the members before it are read in full, then InputCutError', async () => {
  const m = gzipSync('ok\n');
  const trailing = tmpFile('trailing.gz', Buffer.concat([m, Buffer.from('garbage')]));
  const s = await openInputBytes(trailing);
  const got: Buffer[] = [];
  await assert.rejects(
    (async () => {
      for await (const c of s.stream) got.push(c);
    })(),
    (err: unknown) => {
      assert.ok(err instanceof InputCutError);
      assert.equal(err.message, `${trailing}: trailing garbage after the gzip data ignored (from byte ${m.length} of the compressed input on)`);
      return true;
    },
  );
  assert.equal(Buffer.concat(got).toString(), 'ok\n');
  // Zero padding after the last member is no garbage.
  const padded = tmpFile('padded.gz', Buffer.concat([m, gzipSync('two\n'), Buffer.alloc(512)]));
  assert.equal(await readAll((await openInputBytes(padded)).stream), 'ok\ntwo\n');
});

test('openInputBytes: a directory or missing file is an InputError', async () => {
  await assert.rejects(openInputBytes('/nonexistent/x.jsonl'), { name: 'InputError', message: '/nonexistent/x.jsonl: cannot open: no such file' });
  const dir = fx('');
  await assert.rejects(
    (async () => {
      const s = await openInputBytes(dir);
      await readAll(s.stream);
    })(),
    { name: 'InputError', message: `${dir}: cannot read: is a directory` },
  );
});
