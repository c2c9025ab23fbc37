/** The file commands' progress line: what it says at each stage, and that readers report bytes. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { progressText } from '../../src/cli/progress.js';
import { readTotals } from '../../src/sources/read-progress.js';
import { openInputBytes } from '../../src/sources/input-stream.js';
import fs from 'node:fs';

const MB = 1024 * 1024;

test('progress: size, percentage, rate and time left; stdin without a size', () => {
  assert.equal(progressText(1, 412 * MB, 1024 * MB, 2000), 'reading the input: 412 MB of 1.0 GB (40%), 206 MB/s, about 3s left');
  assert.equal(progressText(2, 1024 * MB, 1024 * MB, 4000), 'reading 2 inputs: 1.0 GB of 1.0 GB (100%), 256 MB/s, analysing');
  assert.equal(progressText(1, 10 * MB, undefined, 1000), 'reading the input: 10 MB, 10 MB/s');
  assert.equal(progressText(1, 0, 100 * MB, 0), 'reading the input: 0 MB of 100 MB (0%)');
});

test('a file read through the input stream is counted, with its size', async () => {
  const f = 'examples/scale-up-gated.kexp.jsonl';
  const before = readTotals();
  const { stream } = await openInputBytes(f);
  for await (const _ of stream) void _;
  const after = readTotals();
  assert.equal(after.files, before.files + 1);
  assert.equal(after.read - before.read, fs.statSync(f).size);
  assert.equal((after.size ?? 0) - (before.size ?? 0), fs.statSync(f).size);
  // Opened again (a sniff, then the read): still one input.
  const again = await openInputBytes(f);
  for await (const _ of again.stream) void _;
  assert.deepEqual(readTotals(), after);
});
