/**
 * One Ctrl-C (or SIGTERM) ends `kexp record` promptly and cleanly: exit 130, the summary
 * line, and an `interrupted` end line in the recording. The Ctrl-C case runs under a real
 * pseudo-terminal with the spinner on, where ora's cursor handling (signal-exit) used to
 * re-raise SIGINT and kill kexp by signal with no end line. Needs `npm run build`.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startFakeApiServer, type FakeApiServer } from '../support/fake-apiserver.js';
import { HAS_PYTHON_PTY, runInPty } from '../support/pty-run.js';
import { startKexp, waitFor } from '../support/spawn-cli.js';

let srv: FakeApiServer;
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kexp-record-interrupt-'));

before(async () => {
  srv = await startFakeApiServer({ watch: { pods: 'bookmarks', events: 'bookmarks', replicasets: 'bookmarks', namespaces: 'bookmarks' } });
});
after(async () => {
  await srv.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

function lastLine(file: string): Record<string, unknown> {
  const lines = fs.readFileSync(file, 'utf8').trimEnd().split('\n');
  return JSON.parse(lines[lines.length - 1]!) as Record<string, unknown>;
}

/** The terminal environment of a person: no CI (the spinner would be off), no NO_COLOR. */
function terminalEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, TERM: 'xterm-256color' };
  delete env.CI;
  delete env.NO_COLOR;
  return env;
}

test('one Ctrl-C in a real terminal, spinner on: exit 130 (not death by SIGINT), summary, "interrupted" end line', { skip: !HAS_PYTHON_PTY && 'python3 with pty is not installed' }, async () => {
  const file = path.join(tmp, 'pty.kexp.jsonl');
  const r = await runInPty(['record', 'web', '--kubeconfig', srv.kubeconfig, '-f', file], { env: terminalEnv(), file, needle: '"src":"replicasets"', delayMs: 500 });
  assert.equal(r.signal, null, `killed by signal ${r.signal}; output: ${JSON.stringify(r.output.slice(-500))}`);
  assert.equal(r.code, 130, r.output.slice(-500));
  assert.ok(r.msAfterCtrlC !== null && r.msAfterCtrlC < 5000, `exited ${r.msAfterCtrlC} ms after Ctrl-C`);
  // The spinner really ran: ora hid the cursor and drew a frame with the progress text.
  assert.ok(r.output.includes('\u001b[?25l'), 'the spinner hid the cursor');
  const plain = r.output.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '');
  assert.match(plain, /[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] recording shop\/web: \d+ events/);
  assert.match(r.output, /wrote .*pty\.kexp\.jsonl: \d+ events, 0 gaps \(interrupted\)/);
  assert.deepEqual(lastLine(file).end, { reason: 'interrupted' });
  assert.doesNotMatch(r.output, /\n\s+at .+:\d+:\d+/);
});

test('SIGTERM: exit 130 promptly with an "interrupted" end line', async () => {
  const file = path.join(tmp, 'term.kexp.jsonl');
  const run = startKexp(['record', 'web', '--kubeconfig', srv.kubeconfig, '-f', file], { timeoutMs: 30_000 });
  await waitFor('the ReplicaSets to be listed', 20_000, () => fs.existsSync(file) && fs.readFileSync(file, 'utf8').includes('"src":"replicasets"'));
  await new Promise((r) => setTimeout(r, 500));
  const sent = performance.now();
  run.child.kill('SIGTERM');
  const r = await run.done;
  assert.equal(r.timedOut, false);
  assert.equal(r.signal, null);
  assert.equal(r.code, 130, r.stderr);
  assert.ok(performance.now() - sent < 5000, `exited ${Math.round(performance.now() - sent)} ms after SIGTERM`);
  assert.match(r.stderr, /\(interrupted\)/);
  assert.deepEqual(lastLine(file).end, { reason: 'interrupted' });
  // Bookmarks kept arriving until the end; they are recorded (readers use their resourceVersions).
  assert.ok(fs.readFileSync(file, 'utf8').includes('"type":"BOOKMARK"'));
});
