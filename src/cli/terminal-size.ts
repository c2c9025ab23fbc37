/**
 * The size of the terminal kexp runs in when its stdout is not that terminal (`kexp … | less`,
 * `| cat`): stderr's window when stderr is the terminal, else the controlling terminal's
 * (`/dev/tty`, opened, asked for its window size with the TIOCGWINSZ ioctl that tty.WriteStream
 * makes, and closed), as less and git find it. Undefined when there is none (CI, cron, a
 * detached process) or it reports no size.
 *
 * Cost: at most one open, one ioctl and one close, once per command; nothing when stdout is a
 * terminal (its own size is used) or COLUMNS is set.
 */
import fs from 'node:fs';
import tty from 'node:tty';

export interface TerminalSize {
  columns?: number;
  rows?: number;
}

function positive(n: number | undefined): number | undefined {
  return n !== undefined && Number.isInteger(n) && n > 0 ? n : undefined;
}

export function terminalSize(stderr: { isTTY?: boolean; columns?: number; rows?: number } = process.stderr): TerminalSize {
  if (stderr.isTTY && positive(stderr.columns)) return { columns: stderr.columns, rows: positive(stderr.rows) };
  let fd: number | undefined;
  try {
    fd = fs.openSync('/dev/tty', fs.constants.O_RDWR | fs.constants.O_NOCTTY);
    if (!tty.isatty(fd)) return {};
    const ws = new tty.WriteStream(fd);
    fd = undefined; // the stream owns it now
    try {
      const [columns, rows] = ws.getWindowSize();
      return { columns: positive(columns), rows: positive(rows) };
    } finally {
      ws.destroy();
    }
  } catch {
    return {}; // no controlling terminal (ENXIO), or none that answers
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}
