/**
 * Where `kexp record -f FILE` may write: a new file with mode 0600; an existing file only with
 * --overwrite (then truncated and set to 0600); never through a symbolic link (not even with
 * --overwrite, not even a dangling one), never into a directory. A refused FILE is one line,
 * exit 6, before anything is read from the cluster. Needs `npm run build`.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startFakeApiServer, type FakeApiServer } from '../support/fake-apiserver.js';
import { runKexp } from '../support/spawn-cli.js';

let srv: FakeApiServer;
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kexp-record-file-'));

before(async () => {
  srv = await startFakeApiServer({});
});
after(async () => {
  await srv.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

const record = (file: string, ...more: string[]) => runKexp(['record', 'web', '--kubeconfig', srv.kubeconfig, '-f', file, '--duration', '300ms', ...more], { timeoutMs: 20_000 });

function mode(file: string): string {
  return (fs.statSync(file).mode & 0o777).toString(8);
}

test('a new file is created with mode 0600 and holds a complete recording', { timeout: 30_000 }, async () => {
  const file = path.join(tmp, 'new.kexp.jsonl');
  const r = await record(file);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(mode(file), '600');
  const l = fs.readFileSync(file, 'utf8').trim().split('\n').map((x) => JSON.parse(x));
  assert.equal(l[0].kexpRecording, 1);
  assert.deepEqual(l[l.length - 1].end, { reason: 'duration' });
});

test('an existing file is refused without --overwrite: exit 6, one line, file untouched, no request sent', { timeout: 30_000 }, async () => {
  const file = path.join(tmp, 'exists.kexp.jsonl');
  fs.writeFileSync(file, 'precious\n', { mode: 0o644 });
  const before = srv.requests.length;
  const r = await record(file);
  assert.equal(r.code, 6, r.stderr);
  assert.equal(r.stderr, `kexp: ${file} already exists; pass --overwrite to replace it\n`);
  assert.equal(fs.readFileSync(file, 'utf8'), 'precious\n');
  assert.equal(mode(file), '644');
  assert.equal(srv.requests.length, before, 'the file is checked before the cluster is read');
});

test('--overwrite replaces an existing regular file and makes it 0600', { timeout: 30_000 }, async () => {
  const file = path.join(tmp, 'replace.kexp.jsonl');
  fs.writeFileSync(file, 'old content that is longer than nothing\n'.repeat(1000), { mode: 0o644 });
  const r = await record(file, '--overwrite');
  assert.equal(r.code, 0, r.stderr);
  assert.equal(mode(file), '600');
  const text = fs.readFileSync(file, 'utf8');
  assert.ok(!text.includes('old content'), 'truncated');
  assert.equal(JSON.parse(text.split('\n')[0]!).kexpRecording, 1);
});

for (const overwrite of [false, true]) {
  test(`a symlink at FILE is never followed${overwrite ? ', even with --overwrite' : ''}: exit 6, the target untouched`, { timeout: 30_000 }, async () => {
    const target = path.join(tmp, `target-${overwrite}`);
    const link = path.join(tmp, `link-${overwrite}.kexp.jsonl`);
    fs.writeFileSync(target, 'do not touch\n', { mode: 0o644 });
    fs.symlinkSync(target, link);
    const r = await record(link, ...(overwrite ? ['--overwrite'] : []));
    assert.equal(r.code, 6, r.stderr);
    assert.equal(r.stderr, `kexp: ${link} is a symbolic link; kexp does not write through links (ELOOP): give the target's own path\n`);
    assert.equal(fs.readFileSync(target, 'utf8'), 'do not touch\n');
    assert.equal(mode(target), '644');
    assert.ok(fs.lstatSync(link).isSymbolicLink());
  });
}

test('a dangling symlink at FILE is refused too (it would create the link\'s target)', { timeout: 30_000 }, async () => {
  const target = path.join(tmp, 'nowhere', '..', 'created-through-link');
  const link = path.join(tmp, 'dangling.kexp.jsonl');
  fs.symlinkSync(target, link);
  const r = await record(link);
  assert.equal(r.code, 6, r.stderr);
  assert.match(r.stderr, /is a symbolic link/);
  assert.equal(fs.existsSync(path.join(tmp, 'created-through-link')), false);
});

test('a directory is refused with --overwrite; a missing parent directory is one line naming the errno', { timeout: 30_000 }, async () => {
  const dir = path.join(tmp, 'adir');
  fs.mkdirSync(dir);
  const r = await record(dir, '--overwrite');
  assert.equal(r.code, 6, r.stderr);
  assert.equal(r.stderr, `kexp: ${dir} is a directory; the recording must be a regular file\n`);
  const missing = path.join(tmp, 'no-such-dir', 'x.kexp.jsonl');
  const m = await record(missing);
  assert.equal(m.code, 6, m.stderr);
  assert.equal(m.stderr, `kexp: cannot create the recording ${missing}: ENOENT (no such file or directory)\n`);
});

test('--duration 0 is a usage error (it would silently mean "forever")', { timeout: 30_000 }, async () => {
  const r = await runKexp(['record', 'web', '--kubeconfig', srv.kubeconfig, '-f', path.join(tmp, 'zero.jsonl'), '--duration', '0s'], { timeoutMs: 20_000 });
  assert.equal(r.code, 2, r.stderr);
  assert.equal(r.stderr, 'kexp: --duration must be longer than 0, got "0s"\n');
});

test('-f /dev/null --overwrite records into the device (no fsync error) and leaves its mode alone', { timeout: 30_000, skip: !fs.existsSync('/dev/null') && 'no /dev/null' }, async () => {
  const before = fs.statSync('/dev/null').mode;
  const r = await record('/dev/null', '--overwrite');
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /^wrote \/dev\/null: \d+ events, 0 gaps \(duration\)\n$/);
  assert.equal(fs.statSync('/dev/null').mode, before);
});
