/**
 * The progress line of the file commands (replay, audit, kcm-log): on an interactive terminal
 * only (never in a pipe, a file or CI — the same rule as the spinner, src/cli/spinner.ts), an ora
 * spinner on stderr that says how much of the input was read, how fast, and how long is left:
 * `reading 2 files: 412 MB of 1.0 GB (41%), 180 MB/s, about 3s left`. The figures come from the
 * readers (src/sources/read-progress.ts). `stop()` clears it before the result is printed.
 */
import { readTotals } from '../sources/read-progress.js';
import type { Ora } from 'ora';
import { createSpinner, spinnerEnabled } from './spinner.js';

export interface Progress {
  stop(): void;
}

const MB = 1024 * 1024;

function size(n: number): string {
  return n >= 1024 * MB ? `${(n / 1024 / MB).toFixed(1)} GB` : `${Math.round(n / MB)} MB`;
}

/** The line for `read` bytes of `total` after `ms` milliseconds (exported for tests). */
export function progressText(files: number, read: number, total: number | undefined, ms: number): string {
  const rate = ms > 0 ? (read / ms) * 1000 : 0;
  const what = `reading ${files === 1 ? 'the input' : `${files} inputs`}: ${size(read)}`;
  if (total === undefined || total === 0) return `${what}${rate > 0 ? `, ${size(rate)}/s` : ''}`;
  const pct = Math.min(100, Math.floor((read / total) * 100));
  const left = rate > 0 ? Math.max(0, Math.ceil((total - read) / rate)) : undefined;
  return `${what} of ${size(total)} (${pct}%)${rate > 0 ? `, ${size(rate)}/s` : ''}${left !== undefined && pct < 100 ? `, about ${left}s left` : pct >= 100 ? ', analysing' : ''}`;
}

/** The spinner on screen, if any: lines written to stderr meanwhile clear it first (see clearedFor). */
let active: Ora | undefined;

/** Runs `write` (a stderr line) with the progress line cleared, then draws it again. */
export function clearedFor(write: () => void): void {
  if (!active) return write();
  active.clear();
  write();
  active.render();
}

/** Shows progress while `work` runs (on a terminal only). */
export async function withProgress<T>(work: Promise<T>, quiet = false): Promise<T> {
  const p = startProgress(quiet);
  try {
    return await work;
  } finally {
    p.stop();
  }
}

export function startProgress(quiet = false, now: () => number = Date.now): Progress {
  if (!spinnerEnabled(quiet)) return { stop() {} };
  const started = now();
  const spinner = createSpinner('reading the input', quiet);
  active = spinner;
  const timer = setInterval(() => {
    const t = readTotals();
    spinner.text = progressText(t.files, t.read, t.size, now() - started);
  }, 200);
  timer.unref();
  return {
    stop() {
      clearInterval(timer);
      spinner.stop();
      if (active === spinner) active = undefined;
    },
  };
}
