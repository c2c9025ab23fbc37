/** Spawns the built CLI (bin/run.js) the way a user would and captures its output. */
import { spawnSync } from 'node:child_process';
import path from 'node:path';

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

const BIN = path.resolve(new URL('../../bin/run.js', import.meta.url).pathname);

export function kexp(args: string[], opts: { input?: string; env?: NodeJS.ProcessEnv; cwd?: string } = {}): CliResult {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    input: opts.input,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1', ...opts.env },
    cwd: opts.cwd,
    timeout: 60_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}
