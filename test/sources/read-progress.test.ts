import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { openInputBytes } from '../../src/sources/input-stream.js';
import { openReaders, readTotals, trackRead } from '../../src/sources/read-progress.js';

test('read-progress: a released reader is counted at its last count and its getter (its stream) is no longer held', () => {
  const file = `/virtual/release-${process.pid}.jsonl`;
  let n = 100;
  let released = false;
  const release = trackRead({ file, size: 1000, read: () => {
    if (released) throw new Error('getter called after release: the stream is still held');
    return n;
  } });
  const before = readTotals();
  n = 400;
  release();
  released = true;
  release(); // twice is harmless
  const after = readTotals();
  assert.equal(after.files, before.files);
  assert.equal(after.read - before.read, 300, 'the released count (400) replaces the live one (100)');
  // A second reader of the same file counts once, at the furthest read.
  let m = 250;
  const r2 = trackRead({ file, size: 1000, read: () => m });
  assert.equal(readTotals().read, after.read, 'a reader behind the released one does not lower the count');
  m = 900;
  assert.equal(readTotals().read - after.read, 500);
  r2();
  assert.equal(readTotals().files, after.files);
});

test('read-progress: reading one file again and again keeps one entry and releases every stream when it closes', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kexp-rp-'));
  try {
    const file = path.join(dir, 'again.jsonl');
    const text = '{"a":1}\n'.repeat(5000);
    fs.writeFileSync(file, text);
    const files0 = readTotals().files;
    const open0 = openReaders();
    for (let i = 0; i < 20; i++) {
      const { stream } = await openInputBytes(file);
      let bytes = 0;
      for await (const c of stream) bytes += c.length;
      assert.equal(bytes, text.length);
    }
    // The last stream's close event may follow its end by a few ticks.
    for (let i = 0; i < 20 && openReaders() > open0; i++) await new Promise((r) => setTimeout(r, 5));
    const t = readTotals();
    assert.equal(t.files, files0 + 1, 'one entry for the file, however often it was read');
    assert.equal(openReaders(), open0, 'every closed stream was released');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
