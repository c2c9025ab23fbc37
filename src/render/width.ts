/**
 * How many columns the terminal renderers may use.
 *
 * Decision order (first match wins):
 * 1. `$COLUMNS`, when it is a positive integer (what the shell exports, and what a user sets
 *    to choose a width, e.g. `COLUMNS=80 kexp replay … | less`);
 * 2. the columns of the TTY stdout is (`process.stdout.columns`);
 * 3. 80 when stdout is a TTY that does not report its size (the classic terminal width);
 * 4. 100 when stdout is a file or a pipe: such output is read later in an editor, a CI log
 *    or a pager, usually wider than 80 columns, and a fixed width keeps it reproducible.
 *    Nothing is lost either way: `-o wide` prints every cell in full, `-o json` everything.
 * Widths below 40 are raised to 40: no useful table fits in less.
 * Pure: the caller passes the environment and the TTY state.
 */

export const MIN_WIDTH = 40;
export const TTY_DEFAULT_WIDTH = 80;
export const PIPE_DEFAULT_WIDTH = 100;

export interface WidthInput {
  env: Record<string, string | undefined>;
  isTTY: boolean | undefined;
  /** The TTY's columns (`process.stdout.columns`), if known. */
  columns?: number;
}

export function outputWidth({ env, isTTY, columns }: WidthInput): number {
  const fromEnv = env.COLUMNS?.trim();
  if (fromEnv && /^\d+$/.test(fromEnv) && Number(fromEnv) > 0) return Math.max(MIN_WIDTH, Number(fromEnv));
  if (isTTY && columns && columns > 0) return Math.max(MIN_WIDTH, columns);
  return isTTY ? TTY_DEFAULT_WIDTH : PIPE_DEFAULT_WIDTH;
}
