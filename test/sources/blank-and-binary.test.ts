/**
 * The byte-level pieces behind leading blank lines, binary input and gzip trailing garbage:
 * skipBlankLines, NulRunGuard, binaryKind, gunzipMembers, and the audit InputReader built on
 * them (line numbers after skipped blank lines, bounded memory for a gzip bomb).
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { constants, deflateRawSync, gzipSync } from 'node:zlib';

import { binaryKind, looksBinary, NulRunGuard } from '../../src/sources/binary-data.js';
import { crc32, GzipDataError, GzipTrailingGarbage, gunzipMembers } from '../../src/sources/gzip-members.js';
import { blankLineChunks, LineSplitter, openInputBytes, skipBlankLines } from '../../src/sources/input-stream.js';
import { InputReader } from '../../src/sources/audit/line-reader.js';

const dir = mkdtempSync(join(tmpdir(), 'kexp-blank-binary-'));
after(() => rmSync(dir, { recursive: true, force: true }));
function tmpFile(name: string, content: string | Buffer): string {
  const p = join(dir, name);
  writeFileSync(p, content);
  return p;
}

function puller(chunks: (string | Buffer)[]): () => Promise<Buffer | undefined> {
  const q = chunks.map((c) => (Buffer.isBuffer(c) ? c : Buffer.from(c)));
  return async () => q.shift();
}

test('skipBlankLines: counts blank lines across chunks, keeps the first content line whole', async () => {
  const r = await skipBlankLines(puller(['\n\n', '  ', '\r\n', ' \t', '  {"a":1}\n{"b":2}\n']));
  assert.equal(r.lines, 3);
  assert.equal(r.rest?.toString(), ' \t  {"a":1}\n{"b":2}\n');
  assert.equal(r.bytes, 6);
  // A byte order mark at the start is dropped; no blank line: nothing counted.
  const bom = await skipBlankLines(puller([Buffer.from([0xef, 0xbb, 0xbf]), 'x\n']));
  assert.deepEqual([bom.lines, bom.rest?.toString()], [0, 'x\n']);
  const bom2 = await skipBlankLines(puller([Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('\n\nI1130 x\n')])]));
  assert.deepEqual([bom2.lines, bom2.rest?.toString()], [2, 'I1130 x\n']);
  // Only blank lines: no rest, every byte counted.
  const only = await skipBlankLines(puller(['\n \n', '\r\n', '  ']));
  assert.deepEqual(only, { lines: 3, bytes: 7, rest: undefined });
  // Large chunks of line breaks (the fast path) and the end of a chunk at a line start.
  const big = await skipBlankLines(puller([Buffer.alloc(1 << 20, 10), Buffer.alloc(1 << 20, 10), 'z']));
  assert.deepEqual([big.lines, big.bytes, big.rest?.toString()], [2 << 20, 2 << 20, 'z']);
});

test('blankLineChunks re-emits exactly n line breaks; LineSplitter firstLine numbers from there', () => {
  const n = 3_000_001;
  let total = 0;
  let chunks = 0;
  for (const c of blankLineChunks(n)) {
    assert.equal(c.indexOf(0), -1);
    assert.equal(c.every((b) => b === 10), true);
    total += c.length;
    chunks++;
  }
  assert.equal(total, n);
  assert.equal(chunks, 3);
  const s = new LineSplitter({ firstLine: 42 });
  assert.deepEqual(s.push(Buffer.from('a\nb\n')), [
    { line: 42, text: 'a', truncatedFinal: false },
    { line: 43, text: 'b', truncatedFinal: false },
  ]);
});

test('NulRunGuard: only a run longer than the limit that holds a NUL byte stops the stream', () => {
  const g = new NulRunGuard(100);
  assert.equal(g.check(Buffer.from('ok line\n')), undefined);
  assert.equal(g.check(Buffer.alloc(60)), undefined);
  assert.equal(g.check(Buffer.alloc(40)), undefined); // 100 bytes: not more than the limit
  assert.match(g.check(Buffer.alloc(1)) ?? '', /^binary data: more than 0\.00 MiB without a line break, with NUL bytes; stopped reading here/);
  // A long line of text is the line splitter's business (skipped as too long), never a stop.
  const t = new NulRunGuard(100);
  assert.equal(t.check(Buffer.alloc(500, 0x61)), undefined);
  // A line break resets the run: 90 NULs, newline, 90 NULs is two short runs.
  const r = new NulRunGuard(100);
  assert.equal(r.check(Buffer.concat([Buffer.alloc(90), Buffer.from('\n'), Buffer.alloc(90)])), undefined);
  assert.equal(r.check(Buffer.from('\n')), undefined);
  assert.equal(r.check(Buffer.alloc(90)), undefined);
  // A NUL early in a long run counts once the run is over the limit.
  const e = new NulRunGuard(100);
  assert.equal(e.check(Buffer.concat([Buffer.from('\n'), Buffer.alloc(1), Buffer.alloc(50, 0x61)])), undefined);
  assert.notEqual(e.check(Buffer.alloc(60, 0x61)), undefined);
});

test('binaryKind: NUL, random bytes and archives are named; UTF-8 text, even cut mid-character, is not', () => {
  assert.equal(binaryKind(Buffer.alloc(10)), 'looks like binary data (first bytes 00 00 00 00 00 00 00 00)');
  const rnd = Buffer.from(randomBytes(4096).map((b) => (b === 0 ? 1 : b))); // no NUL: the ratio decides
  assert.match(binaryKind(rnd) ?? '', /^looks like binary data \(first bytes ([0-9a-f]{2} ){7}[0-9a-f]{2}\)$/);
  assert.equal(binaryKind(Buffer.from([0x50, 0x4b, 3, 4, 0, 0])), 'looks like a zip archive; unpack it first');
  assert.equal(binaryKind(Buffer.from('BZh91AY')), 'looks like bzip2 data; decompress it first (kexp reads plain or gzip)');
  const text = Buffer.from('I1130 10:15:02.123456 1 x.go:1] "Créé — 日本語 ✓"\n'.repeat(40));
  for (let cut = 500; cut < 512; cut++) assert.equal(looksBinary(text.subarray(0, cut)), false, `cut at ${cut}`);
  assert.equal(binaryKind(text), undefined);
  assert.equal(binaryKind(Buffer.from('\u001b[31mred\u001b[0m log line\n')), undefined);
});

async function gunzipAll(data: Buffer, chunk: number): Promise<{ out: Buffer; err?: Error }> {
  async function* src() {
    for (let i = 0; i < data.length; i += chunk) yield data.subarray(i, i + chunk);
  }
  const parts: Buffer[] = [];
  try {
    for await (const b of gunzipMembers(src(), { chunkSize: 4096, readAhead: 16384 })) parts.push(b);
  } catch (e) {
    return { out: Buffer.concat(parts), err: e as Error };
  }
  return { out: Buffer.concat(parts) };
}

test('gunzipMembers: every member before trailing garbage is delivered in full, at any chunking', async () => {
  const a = Buffer.from(randomBytes(2_000).toString('base64'));
  const b = Buffer.from('second member\n');
  const ma = gzipSync(a);
  const mb = gzipSync(b);
  const data = Buffer.concat([ma, mb, Buffer.from('junkjunk\n')]);
  for (const chunk of [1, 2, 3, 7, 10, 18, 100, 4096, ma.length, ma.length - 8, ma.length + 1, data.length]) {
    const r = await gunzipAll(data, chunk);
    assert.ok(r.err instanceof GzipTrailingGarbage, `chunk ${chunk}: ${String(r.err)}`);
    assert.equal(r.err.offset, ma.length + mb.length);
    assert.equal(r.err.message, `trailing garbage after the gzip data ignored (from byte ${ma.length + mb.length} of the compressed input on)`);
    assert.ok(r.out.equals(Buffer.concat([a, b])), `chunk ${chunk}: all output`);
  }
  // Garbage that starts like a member (0x1f) but is none; a lone newline (`echo >> file.gz`).
  for (const junk of [Buffer.from([0x1f, 0x00, 0x41]), Buffer.from('\n')]) {
    const r = await gunzipAll(Buffer.concat([ma, junk]), 5);
    assert.ok(r.err instanceof GzipTrailingGarbage);
    assert.ok(r.out.equals(a));
  }
  // Zero padding is ignored (up to 1 MiB); more zeros are garbage.
  assert.equal((await gunzipAll(Buffer.concat([ma, mb, Buffer.alloc(4096)]), 1000)).err, undefined);
  const long = await gunzipAll(Buffer.concat([ma, Buffer.alloc((1 << 20) + 10)]), 1 << 16);
  assert.ok(long.err instanceof GzipTrailingGarbage);
  // A zero-padded tail that then holds other bytes is garbage too.
  assert.ok((await gunzipAll(Buffer.concat([ma, Buffer.alloc(10), Buffer.from('x')]), 3)).err instanceof GzipTrailingGarbage);
});

test('gunzipMembers: optional header fields are skipped; damage is reported with zlib codes and messages', async () => {
  const body = Buffer.from('hello gzip header fields\n'.repeat(50));
  const plain = gzipSync(body);
  const extra = Buffer.from([4, 0, 0x41, 0x42, 2, 0]);
  const header = Buffer.from(plain.subarray(0, 10));
  header[3] = 0x04 | 0x08 | 0x10 | 0x02; // FEXTRA FNAME FCOMMENT FHCRC
  const withFields = Buffer.concat([header, extra, Buffer.from('name.log\0'), Buffer.from('a comment\0'), Buffer.from([0xaa, 0xbb]), plain.subarray(10)]);
  for (const chunk of [1, 4, 1000]) {
    const r = await gunzipAll(Buffer.concat([withFields, plain]), chunk);
    assert.equal(r.err, undefined);
    assert.ok(r.out.equals(Buffer.concat([body, body])));
  }
  const expectError = async (data: Buffer, code: string, message: string) => {
    const r = await gunzipAll(data, 64);
    assert.ok(r.err instanceof Error, message);
    assert.equal((r.err as GzipDataError).code, code);
    assert.equal(r.err.message, message);
    return r.out;
  };
  const badCrc = Buffer.from(plain);
  badCrc[badCrc.length - 8] ^= 1;
  assert.ok((await expectError(badCrc, 'Z_DATA_ERROR', 'incorrect data check')).equals(body));
  const badLen = Buffer.from(plain);
  badLen[badLen.length - 1] ^= 1;
  await expectError(badLen, 'Z_DATA_ERROR', 'incorrect length check');
  await expectError(plain.subarray(0, plain.length - 3), 'Z_BUF_ERROR', 'unexpected end of file');
  await expectError(plain.subarray(0, plain.length - 20), 'Z_BUF_ERROR', 'unexpected end of file');
  await expectError(plain.subarray(0, 6), 'Z_BUF_ERROR', 'unexpected end of file');
  const method = Buffer.from(plain);
  method[2] = 7;
  await expectError(method, 'Z_DATA_ERROR', 'unknown compression method');
  const flags = Buffer.from(plain);
  flags[3] = 0x80;
  await expectError(flags, 'Z_DATA_ERROR', 'unknown header flags set');
  // A second member cut short is truncation, not garbage.
  await expectError(Buffer.concat([plain, plain.subarray(0, 30)]), 'Z_BUF_ERROR', 'unexpected end of file');
});

/**
 * One gzip member of 1 GiB of line breaks, ~1 MiB on disk: 16 sync-flushed raw deflate pieces
 * of 64 MiB each (independent blocks may follow each other in one deflate stream), a final
 * empty block, and the trailer's CRC-32 and length of the whole.
 */
function bomb(): string {
  const piece = Buffer.alloc(64 << 20, 10);
  const flushed = deflateRawSync(piece, { level: 9, finishFlush: constants.Z_SYNC_FLUSH });
  let crc = 0;
  for (let i = 0; i < 16; i++) crc = crc32(piece, crc);
  const trailer = Buffer.alloc(8);
  trailer.writeUInt32LE(crc, 0);
  trailer.writeUInt32LE((16 * piece.length) % 2 ** 32, 4);
  const header = Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3]);
  return tmpFile('bomb.gz', Buffer.concat([header, ...Array.from({ length: 16 }, () => flushed), deflateRawSync(Buffer.alloc(0)), trailer]));
}

test('the bomb is a valid gzip file of 1 GiB', async () => {
  let n = 0;
  for await (const c of (await openInputBytes(bomb())).stream) n += c.length;
  assert.equal(n, 1 << 30);
});

async function growthWhileIdle(start: () => Promise<void>): Promise<number> {
  const before = process.memoryUsage();
  await start();
  await new Promise((r) => setTimeout(r, 700));
  const after = process.memoryUsage();
  return Math.max(after.arrayBuffers - before.arrayBuffers, after.rss - before.rss);
}

test('a gzip bomb stays bounded: inflating pauses while the reader does not read (openInputBytes)', async () => {
  const f = bomb();
  const s = await openInputBytes(f);
  const it = s.stream[Symbol.asyncIterator]();
  const grown = await growthWhileIdle(async () => {
    await it.next();
  });
  assert.ok(grown < 96 << 20, `grew by ${grown >> 20} MiB while idle`);
  // Reading on delivers the data (line breaks only, so the binary-data guard stays quiet).
  let n = 0;
  for (let r = await it.next(); !r.done && n < 256 << 20; r = await it.next()) {
    assert.equal(r.value.indexOf(0), -1);
    n += r.value.length;
  }
  assert.ok(n >= 256 << 20);
  await it.return?.(undefined);
});

test('a gzip bomb stays bounded in the audit reader too', async () => {
  const f = bomb();
  const reader = new InputReader(f);
  const grown = await growthWhileIdle(async () => {
    await reader.peek(1, 1);
  });
  reader.close();
  assert.ok(grown < 96 << 20, `grew by ${grown >> 20} MiB while idle`);
});

test('InputReader: lines(), values() and readAll() number lines as in the file after skipped blank lines', async () => {
  const blank = '\n'.repeat(1000) + '  \r\n';
  const lines = new InputReader(tmpFile('blank-lines.jsonl', `${blank}{"a":1}\n\n{"b":2}\n`));
  assert.deepEqual(await lines.skipLeadingBlankLines(), { lines: 1001, bytes: 1004, content: true });
  const got: Array<[number, string]> = [];
  for await (const batch of lines.lines()) for (const l of batch) got.push([l.no, l.text]);
  assert.deepEqual(got, [
    [1002, '{"a":1}'],
    [1004, '{"b":2}'],
  ]);
  assert.equal(lines.stats.lines, 1004);
  const values = new InputReader(tmpFile('blank-values.json', `${blank}[\n  {"a":1},\n  {"b":2}\n]\n`));
  await values.skipLeadingBlankLines();
  const vals: number[] = [];
  for await (const batch of values.values()) for (const v of batch) vals.push(v.no);
  assert.deepEqual(vals, [1003, 1004]);
  const yaml = new InputReader(tmpFile('blank.yaml', `${blank}kind: Event\n`));
  await yaml.skipLeadingBlankLines();
  const all = (await yaml.readAll(1 << 20)).toString();
  assert.equal(all.split('\n').findIndex((l) => l.startsWith('kind:')) + 1, 1002);
  const only = new InputReader(tmpFile('only-blank.jsonl', blank));
  assert.deepEqual(await only.skipLeadingBlankLines(), { lines: 1001, bytes: 1004, content: false });
});

test('InputReader: a valid start then endless NUL bytes stops with one damage report at the line it cut', async () => {
  const damage: Array<[number, string]> = [];
  const reader = new InputReader('-', {
    stdin: (async function* () {
      yield Buffer.from('{"a":1}\n{"b":2}\n');
      for (;;) yield Buffer.alloc(1 << 16);
    })() as never,
    maxLineBytes: 1 << 20,
    onDamage: (line, message) => damage.push([line, message]),
  });
  let n = 0;
  for await (const batch of reader.lines()) n += batch.length;
  assert.equal(n, 2);
  assert.deepEqual(damage, [
    [3, 'binary data: more than 1 MiB without a line break, with NUL bytes; stopped reading here (is the input a device such as /dev/zero, or a damaged file?)'],
  ]);
});
