/**
 * How many columns the terminal renderers may use.
 *
 * Decision order (first match wins):
 * 1. `$COLUMNS`, when it is a positive integer (what a user sets to choose a width, e.g.
 *    `COLUMNS=132 kexp replay … | less`; bash keeps it as a shell variable, not exported);
 * 2. the columns of the TTY stdout is (`process.stdout.columns`);
 * 3. when stdout is a pipe or a file, the columns of the terminal kexp runs in — its stderr
 *    when that is the terminal, else its controlling terminal `/dev/tty` (src/cli/terminal-size.ts
 *    reads them): `kexp replay … | less` or `| cat` in an 80-column pane lays out for 80, as
 *    git and less themselves do;
 * 4. 80 when none of these is known (a TTY that does not report its size, a CI job, cron):
 *    the classic terminal width. Nothing is lost: `-o wide` prints every cell in full, `-o json`
 *    everything.
 * Widths below 40 are raised to 40: no useful table fits in less.
 * Pure: the caller passes the environment, the TTY state and the terminal's size.
 */

export const MIN_WIDTH = 40;
export const TTY_DEFAULT_WIDTH = 80;
/** The width when nothing tells it (no COLUMNS, no terminal anywhere). */
export const PIPE_DEFAULT_WIDTH = TTY_DEFAULT_WIDTH;

export interface WidthInput {
  env: Record<string, string | undefined>;
  isTTY: boolean | undefined;
  /** The TTY's columns (`process.stdout.columns`), if known. */
  columns?: number;
  /** When stdout is no TTY: the columns of the terminal kexp runs in (stderr's or /dev/tty's), if any. */
  terminalColumns?: number;
}

export function outputWidth({ env, isTTY, columns, terminalColumns }: WidthInput): number {
  const fromEnv = env.COLUMNS?.trim();
  if (fromEnv && /^\d+$/.test(fromEnv) && Number(fromEnv) > 0) return Math.max(MIN_WIDTH, Number(fromEnv));
  if (isTTY && columns && columns > 0) return Math.max(MIN_WIDTH, columns);
  if (!isTTY && terminalColumns && terminalColumns > 0) return Math.max(MIN_WIDTH, terminalColumns);
  return isTTY ? TTY_DEFAULT_WIDTH : PIPE_DEFAULT_WIDTH;
}
