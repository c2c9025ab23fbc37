/**
 * `kexp explain --watch` against a hostile API server (test/support/fake-apiserver.ts): the
 * watch ends at its duration whatever the server streams; one Ctrl-C in a real terminal
 * (spinner on) or one SIGTERM ends it early, still prints the explanation of what was seen,
 * closes `--record FILE` with an `interrupted` end line and exits 130; `--record` follows
 * `kexp record`'s file rules. Needs `npm run build`.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startFakeApiServer, type FakeApiOptions, type FakeApiServer } from '../support/fake-apiserver.js';
import { HAS_PYTHON_PTY, runInPty } from '../support/pty-run.js';
import { runKexp, startKexp, waitFor } from '../support/spawn-cli.js';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kexp-explain-watch-'));
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

const STREAMING: FakeApiOptions = { watch: { replicasets: 'bookmarks', pods: 'stream', events: 'bookmarks', namespaces: 'bookmarks' } };

function endOf(file: string): unknown {
  const l = fs.readFileSync(file, 'utf8').trimEnd().split('\n');
  return (JSON.parse(l[l.length - 1]!) as { end?: unknown }).end;
}

test('--watch 1s ends promptly while a watch streams forever, and explains what it saw', { timeout: 30_000 }, async () => {
  const srv = await server(STREAMING);
  const r = await runKexp(['explain', 'web', '--kubeconfig', srv.kubeconfig, '--watch', '1s'], { timeoutMs: 20_000 });
  assert.equal(r.timedOut, false);
  assert.ok(r.ms < 10_000, `took ${Math.round(r.ms)} ms`);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^Verdict: HEALTHY/m);
  assert.match(r.stdout, /^Watched 1\.\ds \(duration\): \d+ events, 0 gaps/m);
  // A watch has a span of time: its chart is drawn (a snapshot's is not).
  assert.match(r.stdout, /^ {2}Timeline \S+ \S+ -> \S+ UTC, 1 col = /m);
  assert.equal(srv.openWatches(), 0);
});

test('one Ctrl-C in a real terminal during --watch: the explanation so far, the recording closed "interrupted", exit 130', { timeout: 60_000, skip: !HAS_PYTHON_PTY && 'python3 with pty is not installed' }, async () => {
  const srv = await server(STREAMING);
  const file = path.join(tmp, 'pty.kexp.jsonl');
  const env: NodeJS.ProcessEnv = { ...process.env, TERM: 'xterm-256color' };
  delete env.CI;
  delete env.NO_COLOR;
  const r = await runInPty(['explain', 'web', '--kubeconfig', srv.kubeconfig, '--watch', '60s', '--record', file], { env, file, needle: '"src":"replicasets"', delayMs: 500 });
  assert.equal(r.signal, null, `killed by signal ${r.signal}: ${JSON.stringify(r.output.slice(-400))}`);
  assert.equal(r.code, 130, r.output.slice(-800));
  assert.ok(r.msAfterCtrlC !== null && r.msAfterCtrlC < 5000, `exited ${r.msAfterCtrlC} ms after Ctrl-C`);
  assert.ok(r.output.includes('\u001b[?25l'), 'the spinner was on');
  assert.match(r.output, /Verdict: HEALTHY/);
  assert.match(r.output, /Watched \d+\.\ds \(interrupted\): \d+ events, 0 gaps; recording kept in /);
  assert.match(r.output, /kexp: interrupted; the explanation covers what was seen until then/);
  assert.deepEqual(endOf(file), { reason: 'interrupted' });
});

test('one SIGTERM during --watch: the explanation so far, exit 130', { timeout: 60_000 }, async () => {
  const srv = await server(STREAMING);
  const file = path.join(tmp, 'term.kexp.jsonl');
  const run = startKexp(['explain', 'web', '--kubeconfig', srv.kubeconfig, '--watch', '60s', '--record', file], { timeoutMs: 30_000 });
  await waitFor('the watch to list the ReplicaSets', 20_000, () => fs.existsSync(file) && fs.readFileSync(file, 'utf8').includes('"src":"replicasets"'));
  const sent = performance.now();
  run.child.kill('SIGTERM');
  const r = await run.done;
  assert.equal(r.signal, null);
  assert.equal(r.code, 130, r.stderr);
  assert.ok(performance.now() - sent < 5000);
  assert.match(r.stdout, /^Watched \d+\.\ds \(interrupted\)/m);
  assert.deepEqual(endOf(file), { reason: 'interrupted' });
});

test('kubectl forms: `explain rs web -w` (and `-w` before the target) watches until the signal — no duration needed — then explains it, exit 130', { timeout: 60_000 }, async () => {
  const srv = await server(STREAMING);
  for (const [args, name] of [[['rs', 'web', '-w'], 'w1'], [['-w', 'web'], 'w2']] as const) {
    const file = path.join(tmp, `${name}.kexp.jsonl`);
    const run = startKexp(['explain', ...args, '--kubeconfig', srv.kubeconfig, '--record', file], { timeoutMs: 30_000 });
    await waitFor('the watch to list the ReplicaSets', 20_000, () => fs.existsSync(file) && fs.readFileSync(file, 'utf8').includes('"src":"replicasets"'));
    // Still watching well after a 1 ms timer would have fired (Infinity is no setTimeout delay).
    await new Promise((r) => setTimeout(r, 1500));
    assert.equal(run.child.exitCode, null, `${args.join(' ')}: ended before the signal: ${run.stderr()}`);
    run.child.kill('SIGTERM');
    const r = await run.done;
    assert.equal(r.code, 130, r.stderr);
    assert.match(r.stdout, /^Verdict: HEALTHY/m, args.join(' '));
    assert.match(r.stdout, /^Watched \d+\.\ds \(interrupted\)/m);
  }
});

test('watchWithoutDuration: -w/--watch without a duration is until-interrupted; with one, as given', async () => {
  const { watchWithoutDuration } = await import('../../src/commands/explain.js');
  assert.deepEqual(watchWithoutDuration(['web', '-w']), ['web', '--watch=until-interrupted']);
  assert.deepEqual(watchWithoutDuration(['-w', 'web']), ['--watch=until-interrupted', 'web']);
  assert.deepEqual(watchWithoutDuration(['web', '--watch', '30s']), ['web', '--watch', '30s']);
  assert.deepEqual(watchWithoutDuration(['web', '-w', '1m', '-o', 'json']), ['web', '-w', '1m', '-o', 'json']);
  assert.deepEqual(watchWithoutDuration(['web', '--watch', '-o', 'json']), ['web', '--watch=until-interrupted', '-o', 'json']);
  assert.deepEqual(watchWithoutDuration(['web', '--', '-w']), ['web', '--', '-w']);
  // A word starting with a digit is the DURATION, checked as one (an invalid one is reported as such).
  assert.deepEqual(watchWithoutDuration(['web', '--watch', '1x']), ['web', '--watch', '1x']);
});

test('--watch against an endless watch line: exit 7, one line, no stack trace', { timeout: 30_000 }, async () => {
  const srv = await server({ watch: { events: 'endless-line' } });
  const r = await runKexp(['explain', 'web', '--kubeconfig', srv.kubeconfig, '--watch', '30s', '-q'], { timeoutMs: 20_000 });
  assert.equal(r.code, 7, r.stderr);
  assert.ok(r.ms < 10_000);
  assert.equal(r.stderr, 'kexp: WATCH /api/v1/namespaces/shop/events: the server sent a watch line longer than 16 MiB without a newline (line 1); a watch event carries one object and etcd stores objects of at most ~1.5 MiB, so the server or a proxy in between is not speaking the watch protocol\n');
  assert.equal(r.stdout, '');
});

test('--record FILE follows record\'s rules: an existing file is refused before any request (exit 6); --overwrite needs --record (exit 2)', { timeout: 30_000 }, async () => {
  const srv = await server({});
  const file = path.join(tmp, 'exists.kexp.jsonl');
  fs.writeFileSync(file, 'keep\n');
  const r = await runKexp(['explain', 'web', '--kubeconfig', srv.kubeconfig, '--watch', '1s', '--record', file], { timeoutMs: 20_000 });
  assert.equal(r.code, 6, r.stderr);
  assert.equal(r.stderr, `kexp: ${file} already exists; pass --overwrite to replace it\n`);
  assert.equal(srv.requests.length, 0);
  assert.equal(fs.readFileSync(file, 'utf8'), 'keep\n');
  const o = await runKexp(['explain', 'web', '--kubeconfig', srv.kubeconfig, '--overwrite'], { timeoutMs: 20_000 });
  assert.equal(o.code, 2, o.stderr);
  assert.equal(o.stderr, 'kexp: --overwrite needs --record FILE\n');
  const ok = await runKexp(['explain', 'web', '--kubeconfig', srv.kubeconfig, '--watch', '300ms', '--record', file, '--overwrite'], { timeoutMs: 20_000 });
  assert.equal(ok.code, 0, ok.stderr);
  assert.deepEqual(endOf(file), { reason: 'duration' });
  assert.equal((fs.statSync(file).mode & 0o777).toString(8), '600');
});
