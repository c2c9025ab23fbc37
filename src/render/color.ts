/**
 * Whether terminal output is coloured, and the few ANSI SGR styles the renderers use.
 *
 * Decision order (first match wins), following https://no-color.org ("user-level configuration
 * files and per-instance command-line arguments should override NO_COLOR") and the FORCE_COLOR
 * convention of Node and most CLI tools:
 * 1. `--no-color` (flag === false) → off; `--color` (flag === true) → on;
 * 2. `NO_COLOR` set to a non-empty value → off;
 * 3. `FORCE_COLOR` set: `0`/`false` → off, anything else (also empty) → on;
 * 4. `TERM=dumb` → off;
 * 5. otherwise on exactly when stdout is a TTY.
 * Pure: the caller passes the environment and the TTY state.
 */

export interface ColorInput {
  /** The `--color`/`--no-color` flag: false for `--no-color`, true for `--color`, undefined if absent. */
  flag?: boolean;
  env: Record<string, string | undefined>;
  isTTY: boolean | undefined;
}

export function useColor({ flag, env, isTTY }: ColorInput): boolean {
  if (flag === false) return false;
  if (flag === true) return true;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  const force = env.FORCE_COLOR;
  if (force !== undefined) return !/^(0|false)$/i.test(force.trim());
  if (env.TERM === 'dumb') return false;
  return isTTY === true;
}

/** SGR parameter strings for the styles the chart uses. */
export const SGR = {
  dim: '2',
  bold: '1',
  red: '31',
  green: '32',
  yellow: '33',
  blue: '34',
  magenta: '35',
  cyan: '36',
  brightRed: '91',
  brightYellow: '93',
  brightBlue: '94',
} as const;

/** Wraps `text` in an SGR style (`codes` joined with `;`), or returns it unchanged for no codes. */
export function paint(text: string, codes: string | undefined): string {
  if (!codes || text === '') return text;
  return `\x1b[${codes}m${text}\x1b[0m`;
}

// eslint-disable-next-line no-control-regex
const ANSI_RE = /\x1b\[[0-9;]*m/g;

/** Removes SGR sequences (for measuring or testing coloured text). */
export function stripAnsi(text: string): string {
  return text.replace(ANSI_RE, '');
}
