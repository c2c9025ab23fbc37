/**
 * Hostile input, class "what the input is" (issue #23, Low): inputs that are not what kexp reads
 * are named in one line with exit 6 (README, exit codes) — UTF-16 text with or without a
 * byte-order mark, a tar archive plain or gzipped — by replay, audit and kcm-log alike; a
 * directory given through a symbolic link is walked (links inside the tree are not followed),
 * and the links, FIFOs and devices a tree holds are counted in its summary line, not dropped
 * silently; peeking into a directory's gzipped files inflates a bounded prefix of each (64 KiB of
 * gzip can inflate to 66 MB). Spawns the built CLI; each run bounded (< 10 s).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { kexp } from '../support/cli.js';

const BOUND_MS = 10_000;
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kexp-forms-'));
process.on('exit', () => fs.rmSync(tmp, { recursive: true, force: true }));
const RECORDING = 'examples/scale-up-gated.kexp.jsonl';
const MG = path.resolve('test/fixtures/dumps/must-gather');
const STACK = /\n\s+at .+:\d+:\d+/;

function timed(args: string[]) {
  const t0 = Date.now();
  const r = kexp(args);
  const ms = Date.now() - t0;
  assert.ok(ms < BOUND_MS, `${args.join(' ')} took ${ms} ms`);
  return r;
}

test('UTF-16 (with and without a byte-order mark) and tar archives are named, not "binary data"', () => {
  const text = fs.readFileSync(RECORDING, 'utf8');
  const le = Buffer.from(text, 'utf16le');
  const be = Buffer.from(le).swap16();
  const files: Array<[string, Buffer, RegExp]> = [
    ['bom-le.jsonl', Buffer.concat([Buffer.from([0xff, 0xfe]), le]), /looks like UTF-16LE text; convert it to UTF-8 first \(iconv -f UTF-16LE -t UTF-8\)/],
    ['bom-be.jsonl', Buffer.concat([Buffer.from([0xfe, 0xff]), be]), /looks like UTF-16BE text/],
    ['plain-le.jsonl', le, /looks like UTF-16LE text/],
    ['plain-be.jsonl', be, /looks like UTF-16BE text/],
  ];
  const tarFile = path.join(tmp, 'rec.tar');
  execFileSync('tar', ['-cf', tarFile, RECORDING]);
  files.push(['rec.tar', fs.readFileSync(tarFile), /looks like a tar archive; unpack it first/]);
  files.push(['rec.tar.gz', gzipSync(fs.readFileSync(tarFile)), /looks like a tar archive; unpack it first/]);
  for (const [name, bytes, want] of files) {
    const f = path.join(tmp, name);
    fs.writeFileSync(f, bytes);
    for (const cmd of ['replay', 'audit', 'kcm-log']) {
      const r = timed([cmd, f]);
      assert.equal(r.code, 6, `${cmd} ${name}: ${r.stderr}`);
      assert.equal(r.stderr.trim().split('\n').length, 1, `${cmd} ${name}: ${r.stderr}`);
      assert.match(r.stderr, want, `${cmd} ${name}`);
      assert.doesNotMatch(r.stderr, /binary data/);
      assert.doesNotMatch(r.stderr, STACK);
    }
  }
});

test('a symbolic link to a must-gather directory is walked like the directory; links, FIFOs inside a tree are counted', () => {
  const link = path.join(tmp, 'mg-link');
  fs.symlinkSync(MG, link);
  const direct = timed(['replay', MG, '-o', 'json']);
  const viaLink = timed(['replay', link, '-o', 'json']);
  assert.equal(viaLink.code, direct.code, viaLink.stderr);
  assert.doesNotMatch(viaLink.stderr, /is a directory/);
  assert.deepEqual(JSON.parse(viaLink.stdout).replicaSets.map((r: { key: string }) => r.key), JSON.parse(direct.stdout).replicaSets.map((r: { key: string }) => r.key));

  // A tree with a link (to a List elsewhere) and a FIFO beside a List: both counted, neither read.
  const tree = path.join(tmp, 'tree');
  fs.mkdirSync(path.join(tree, 'ns'), { recursive: true });
  const list = { kind: 'ReplicaSetList', apiVersion: 'apps/v1', items: [] };
  fs.writeFileSync(path.join(tree, 'ns', 'replicasets.json'), JSON.stringify(list));
  const outside = path.join(tmp, 'outside.json');
  fs.writeFileSync(outside, JSON.stringify(list));
  fs.symlinkSync(outside, path.join(tree, 'ns', 'linked.json'));
  execFileSync('mkfifo', [path.join(tree, 'ns', 'pipe.json')]);
  const r = timed(['replay', tree]);
  assert.match(r.stderr, /1 symbolic links \(not followed\), 1 FIFOs, sockets or devices \(not read\)/, r.stderr);
});

test('peeking into a directory of gzipped files inflates a bounded prefix of each (200 bombs of 64 MB)', () => {
  const dir = path.join(tmp, 'bombs');
  fs.mkdirSync(dir);
  // 64 MB of spaces after an opening brace: ~64 KiB of gzip, no kind in its first bytes.
  const bomb = gzipSync(Buffer.concat([Buffer.from('{"a":"'), Buffer.alloc(64 << 20, 0x20)]));
  for (let i = 0; i < 200; i++) fs.writeFileSync(path.join(dir, `f${i}.json.gz`), bomb);
  fs.writeFileSync(path.join(dir, 'replicasets.json'), JSON.stringify({ kind: 'ReplicaSetList', apiVersion: 'apps/v1', items: [] }));
  const r = timed(['replay', dir]);
  assert.match(r.stderr, /skipped 200 files: 200 other files/, r.stderr);
});
