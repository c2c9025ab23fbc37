/**
 * Spawns the built CLI (bin/run.js) asynchronously, for tests whose server runs in the test
 * process itself (test/support/fake-apiserver.ts): spawnSync (test/support/cli.ts) would block
 * the event loop the server needs. Measures the wall time and kills the child (SIGKILL) after
 * `timeoutMs`, reporting that instead of hanging the suite.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

export const BIN = path.resolve(new URL('../../bin/run.js', import.meta.url).pathname);

export interface SpawnResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** Wall time from spawn to exit, ms. */
  ms: number;
  /** The child was still running after timeoutMs and was killed. */
  timedOut: boolean;
}

export interface Running {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  done: Promise<SpawnResult>;
}

export function startKexp(args: string[], opts: { env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}): Running {
  const started = performance.now();
  const env = { ...process.env, NO_COLOR: '1', ...opts.env };
  const child = spawn(process.execPath, [BIN, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (c: string) => (stdout += c));
  child.stderr!.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    child.kill('SIGKILL');
  }, opts.timeoutMs ?? 60_000);
  const done = new Promise<SpawnResult>((resolve) => {
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, ms: performance.now() - started, timedOut });
    });
  });
  return { child, stdout: () => stdout, stderr: () => stderr, done };
}

export function runKexp(args: string[], opts: { env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}): Promise<SpawnResult> {
  return startKexp(args, opts).done;
}

/** Polls `check` every 50 ms until it is true; throws naming `what` after `timeoutMs`. */
export async function waitFor(what: string, timeoutMs: number, check: () => boolean): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
