#!/usr/bin/env node
// `kexp --version`, `-v` and `version` print oclif's version line without loading oclif
// (src/cli/version-fast-path.ts says when and why); everything else goes through oclif — in a
// Node started again with kexp's heap settings when the input files are large
// (src/cli/heap-settings.ts says when and why); for `explain`, its first reads start before oclif
// loads (src/cli/explain-prefetch.ts).
import fs from 'node:fs';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { versionLine } from '../dist/cli/version-fast-path.js';
import { heapRelaunch, RELAUNCHED_ENV } from '../dist/cli/heap-settings.js';
import { installStdoutGuard } from '../dist/cli/output.js';

const args = process.argv.slice(2);
const line = versionLine(args, JSON.parse(fs.readFileSync(new URL('../package.json', import.meta.url), 'utf8')));
const fileSize = (a) => {
  try {
    const s = fs.statSync(a);
    return s.isFile() ? s.size : undefined;
  } catch {
    return undefined;
  }
};
const relaunch = line === undefined ? heapRelaunch(args, process.env, process.execArgv, fileSize) : undefined;
if (line !== undefined) {
  installStdoutGuard();
  process.stdout.write(line);
} else if (relaunch) {
  const child = spawn(process.execPath, [...relaunch, fileURLToPath(import.meta.url), ...args], { stdio: 'inherit', env: { ...process.env, [RELAUNCHED_ENV]: '1' } });
  // A terminal's Ctrl-C reaches the whole process group, the command too, which handles it;
  // a signal sent to this process alone (kill, timeout) is passed on.
  const ignore = () => undefined;
  process.on('SIGINT', ignore);
  const forward = (sig) => child.kill(sig);
  process.on('SIGTERM', forward);
  process.on('SIGHUP', forward);
  child.on('error', (err) => {
    process.stderr.write(`kexp: cannot start ${process.execPath}: ${err.message}\n`);
    process.exit(1);
  });
  child.on('exit', (code, signal) => {
    if (signal) {
      process.off('SIGINT', ignore);
      process.off('SIGTERM', forward);
      process.off('SIGHUP', forward);
      process.kill(process.pid, signal);
    } else process.exit(code ?? 1);
  });
} else {
  // explain's pod list and /version start from argv while oclif loads (src/cli/explain-prefetch.ts).
  const prefetch = args[0] === 'explain' ? await import('../dist/cli/explain-prefetch.js') : undefined;
  await prefetch?.startExplainPrefetch(args);
  const { execute } = await import('@oclif/core');
  installStdoutGuard();
  try {
    await execute({ dir: import.meta.url });
  } finally {
    prefetch?.abandonExplainPrefetch();
  }
}
