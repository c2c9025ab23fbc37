/**
 * `kexp record` against a hostile API server (test/support/fake-apiserver.ts): `--duration`
 * ends it promptly whatever the server sends, a server that does not speak the API is one
 * line and exit 7 with an `error` end line, and a failing recording file is one line and
 * exit 6 at once. Wall times are bounded loosely (the CLI itself takes ~1 s to start). Needs
 * `npm run build`.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startFakeApiServer, type FakeApiOptions, type FakeApiServer, type WatchBehaviour } from '../support/fake-apiserver.js';
import { BIN, runKexp } from '../support/spawn-cli.js';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kexp-record-hostile-'));
const servers: FakeApiServer[] = [];
after(async () => {
  await Promise.all(servers.map((s) => s.close()));
  fs.rmSync(tmp, { recursive: true, force: true });
});

async function server(o: FakeApiOptions): Promise<FakeApiServer> {
  const s = await startFakeApiServer(o);
  servers.push(s);
  return s;
}

const all = (b: WatchBehaviour): FakeApiOptions => ({ watch: { replicasets: b, pods: b, events: b, namespaces: b } });

function lines(file: string): Array<Record<string, any>> {
  return fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, any>);
}

const STACK = /\n\s+at .+:\d+:\d+/;

for (const [mode, what] of [
  ['bookmarks', 'a BOOKMARK every 100 ms on every watch'],
  ['stream', 'every watch streams events forever'],
  ['no-headers', 'no watch is ever answered'],
] as const) {
  test(`--duration 1s ends promptly when ${what}`, { timeout: 30_000 }, async () => {
    const srv = await server(all(mode));
    const file = path.join(tmp, `${mode}.kexp.jsonl`);
    const r = await runKexp(['record', 'web', '--kubeconfig', srv.kubeconfig, '-f', file, '--duration', '1s'], { timeoutMs: 20_000 });
    assert.equal(r.timedOut, false, 'record did not end');
    assert.ok(r.ms < 10_000, `took ${Math.round(r.ms)} ms`);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /^wrote .*: \d+ events, 0 gaps \(duration\)\n$/);
    const l = lines(file);
    assert.equal(l[0]!.kexpRecording, 1);
    assert.deepEqual(l[l.length - 1]!.end, { reason: 'duration' });
    const events = l.filter((x) => x.event);
    assert.deepEqual(events.filter((x) => x.synthetic === 'initial-list').map((x) => x.src).sort(), ['namespaces', 'pods', 'replicasets']);
    if (mode === 'bookmarks') assert.ok(events.filter((x) => x.event.type === 'BOOKMARK').length >= 10);
    if (mode === 'stream') assert.ok(events.filter((x) => x.event.type === 'MODIFIED').length >= 50);
    // The recorder hung up every watch.
    assert.equal(srv.openWatches(), 0);
  });
}

test('an endless watch line (bytes, no newline): exit 7, one line naming the watch and the 16 MiB bound, "error" end line', { timeout: 30_000 }, async () => {
  const srv = await server({ watch: { pods: 'endless-line' } });
  const file = path.join(tmp, 'endless.kexp.jsonl');
  const r = await runKexp(['record', 'web', '--kubeconfig', srv.kubeconfig, '-f', file], { timeoutMs: 20_000 });
  assert.equal(r.timedOut, false);
  assert.equal(r.code, 7, r.stderr);
  assert.equal(r.stderr.split('\n').filter(Boolean).length, 1, r.stderr);
  assert.match(r.stderr, /^kexp: WATCH \/api\/v1\/namespaces\/shop\/pods: the server sent a watch line longer than 16 MiB without a newline/);
  assert.doesNotMatch(r.stderr, STACK);
  const end = lines(file).pop()!.end;
  assert.equal(end.reason, 'error');
  assert.match(end.detail, /longer than 16 MiB/);
  // kexp hung up once the bound was reached instead of reading on.
  assert.equal(srv.openWatches(), 0);
  assert.ok(srv.streamedBytes() < 256 * 1024 * 1024, `${srv.streamedBytes()} bytes streamed`);
});

test('an HTML page (200) for the initial LIST: exit 7, one terminal-safe line, header + "error" end line and no events', { timeout: 30_000 }, async () => {
  const srv = await server({ list: { pods: 'html' } });
  const file = path.join(tmp, 'html.kexp.jsonl');
  const r = await runKexp(['record', 'web', '--kubeconfig', srv.kubeconfig, '-f', file, '--duration', '5s'], { timeoutMs: 20_000 });
  assert.equal(r.code, 7, r.stderr);
  assert.ok(r.ms < 10_000);
  assert.equal(r.stderr.split('\n').filter(Boolean).length, 1, r.stderr);
  assert.match(r.stderr, /^kexp: GET \/api\/v1\/namespaces\/shop\/pods returned 200 with content-type "text\/html", not JSON/);
  assert.ok(!r.stderr.includes('\u001b'), 'the page\'s ESC byte is not echoed raw');
  const l = lines(file);
  assert.equal(l.length, 2, JSON.stringify(l));
  assert.equal(l[0]!.kexpRecording, 1);
  assert.equal(l[1]!.end.reason, 'error');
  assert.match(l[1]!.end.detail, /not JSON/);
});

test('the duration ends before the initial LISTs complete: exit 7 (nothing replayable), never an empty recording with exit 0', { timeout: 30_000 }, async () => {
  const srv = await server({ listDelayMs: 4000 });
  const file = path.join(tmp, 'slow.kexp.jsonl');
  const r = await runKexp(['record', 'web', '--kubeconfig', srv.kubeconfig, '-f', file, '--duration', '1s'], { timeoutMs: 20_000 });
  assert.equal(r.code, 7, r.stderr);
  assert.ok(r.ms < 4000 + 1000, `took ${Math.round(r.ms)} ms: the pending LISTs were not abandoned`);
  assert.match(r.stderr, /^kexp: the recording time ended before the initial list of [a-z, ]+ in namespace shop completed: nothing replayable was recorded\n$/);
  const l = lines(file);
  assert.equal(l.length, 2);
  assert.equal(l[1]!.end.reason, 'error');
});

test('a write error in the middle of a recording (file size limit: EFBIG) ends it at once: exit 6, one line naming the file and the errno', { timeout: 30_000 }, async () => {
  const srv = await server({ watch: { pods: 'stream' } });
  const file = path.join(tmp, 'efbig.kexp.jsonl');
  // `ulimit -f 16`: writes beyond 16 KiB fail with EFBIG (Node ignores SIGXFSZ), as a full disk fails with ENOSPC.
  const child = spawn('bash', ['-c', 'ulimit -f 16 && exec "$0" "$1" record web --kubeconfig "$2" -f "$3"', process.execPath, BIN, srv.kubeconfig, file], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  child.stdout.resume();
  const t0 = performance.now();
  const kill = setTimeout(() => child.kill('SIGKILL'), 20_000);
  const [code, signal] = await new Promise<[number | null, string | null]>((res) => child.on('close', (c, s) => res([c, s])));
  clearTimeout(kill);
  assert.equal(signal, null, 'no hang (killed by the test) and no death by signal');
  assert.equal(code, 6, stderr);
  assert.ok(performance.now() - t0 < 10_000);
  assert.equal(stderr, `kexp: cannot write the recording ${file}: EFBIG (file too large)\n`);
  assert.equal(fs.statSync(file).size, 16 * 1024);
  assert.equal(srv.openWatches(), 0);
});

test('-f /dev/full --overwrite: exit 6 with ENOSPC at once, and the device\'s mode is left alone', { timeout: 30_000, skip: !fs.existsSync('/dev/full') && 'no /dev/full' }, async () => {
  const srv = await server({});
  const mode = fs.statSync('/dev/full').mode;
  const r = await runKexp(['record', 'web', '--kubeconfig', srv.kubeconfig, '-f', '/dev/full', '--overwrite', '--duration', '5s'], { timeoutMs: 20_000 });
  assert.equal(r.code, 6, r.stderr);
  assert.equal(r.stderr, 'kexp: cannot write the recording /dev/full: ENOSPC (no space left on device)\n');
  assert.ok(r.ms < 10_000);
  assert.equal(fs.statSync('/dev/full').mode, mode, 'kexp must not chmod a device');
  assert.equal(srv.requests.filter((q) => q.includes('watch=true')).length, 0, 'nothing was watched');
});

for (const [mode, what] of [
  ['redirect', 'every WATCH is a 302 to a login page'],
  ['bad-line', 'every WATCH answers a line that is not JSON'],
] as const) {
  test(`a watch that never works (${what}): record says so (exit 7, the end line names it), replay says unknown`, { timeout: 40_000 }, async () => {
    const srv = await server(all(mode));
    const file = path.join(tmp, `never-${mode}.kexp.jsonl`);
    const r = await runKexp(['record', 'web', '--kubeconfig', srv.kubeconfig, '-f', file, '--duration', '3s'], { timeoutMs: 20_000 });
    assert.equal(r.timedOut, false);
    assert.ok(r.ms < 10_000, `took ${Math.round(r.ms)} ms`);
    assert.equal(r.code, 7, r.stderr);
    assert.doesNotMatch(r.stderr, STACK);
    const never = r.stderr.split('\n').filter((l) => l.startsWith('kexp: the watch of'));
    assert.equal(never.length, 1, r.stderr);
    assert.match(never[0]!, /^kexp: the watch of [a-z, ]+ never worked \(\d+ attempts from \d{4}-\d\d-\d\dT[\d:.]+Z; last answer: .+\): the recording holds only the initial list/);
    assert.match(never[0]!, mode === 'redirect' ? /WATCH answered 302/ : /not/);
    const l = lines(file);
    const end = l[l.length - 1]!.end;
    assert.equal(end.reason, 'duration');
    assert.deepEqual((end.unwatched as Array<{ resource: string }>).map((u) => u.resource).sort(), ['events', 'namespaces', 'pods', 'replicasets']);
    for (const u of end.unwatched as Array<{ attempts: number; since: string; detail: string }>) {
      assert.ok(u.attempts >= 1);
      assert.match(u.since, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
      assert.ok(u.detail.length > 0);
    }
    // Replayed, the time after the initial list is unknown: never HEALTHY.
    const rep = await runKexp(['replay', file, '-o', 'json'], { timeoutMs: 20_000 });
    const report = JSON.parse(rep.stdout) as { replicaSets: Array<{ verdict: { state: string; basis: string; summary: string }; findings: Array<{ id: string; evidence: string[] }> }> };
    assert.ok(report.replicaSets.length > 0);
    for (const rs of report.replicaSets) {
      assert.equal(rs.verdict.state, 'unknown');
      assert.equal(rs.verdict.basis, 'unknown');
      assert.match(rs.verdict.summary, /never worked/);
      assert.deepEqual(rs.findings[0]!.evidence, [`${file}:${l.length}`]);
    }
    assert.match(rep.stderr, new RegExp(`${file.replaceAll('.', '\\.')}:${l.length}: the recorder's watch of .*never worked`));
    const table = await runKexp(['replay', file], { timeoutMs: 20_000 });
    assert.doesNotMatch(table.stdout, /HEALTHY/);
    assert.match(table.stdout, /Verdict: UNKNOWN/);
  });
}

test('a watch that works once is no "never worked", even if it fails later', { timeout: 30_000 }, async () => {
  const srv = await server(all('events'));
  const file = path.join(tmp, 'worked.kexp.jsonl');
  const r = await runKexp(['record', 'web', '--kubeconfig', srv.kubeconfig, '-f', file, '--duration', '2s'], { timeoutMs: 20_000 });
  assert.equal(r.code, 0, r.stderr);
  assert.doesNotMatch(r.stderr, /never worked/);
  assert.equal(lines(file).pop()!.end.unwatched, undefined);
});
