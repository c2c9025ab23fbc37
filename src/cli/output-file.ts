/**
 * A file kexp writes a result to (`--html FILE`): opened so that it writes only what the user
 * named. O_NOFOLLOW: a symbolic link at the path is refused, never followed (someone who can
 * plant a link where a report is written must not make kexp overwrite the link's target; a
 * directory component that is a link is the user's own path and is followed). A directory,
 * socket or block device is refused; a regular file is truncated and replaced; a character
 * device (/dev/null) or a FIFO (`--html >(cat)`) is written as it is.
 *
 * Contract: `writeOutputFile(flag, file, data)` writes all of `data` or throws OutputFileError,
 * one line naming the flag, the file and the errno — exit 6 (cli/error-exit.ts), as the
 * recording file's errors.
 * Cost: one open, fstat and write.
 */
import fs from 'node:fs';

const WHY: Record<string, string> = {
  ENOENT: 'no such directory',
  ENOTDIR: 'a path component is not a directory',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EROFS: 'read-only file system',
  ENOSPC: 'no space left on device',
  EDQUOT: 'disk quota exceeded',
  EFBIG: 'file too large',
  EIO: 'I/O error',
  EISDIR: 'is a directory',
};

/** An output file cannot be created or written. */
export class OutputFileError extends Error {
  constructor(
    readonly file: string,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'OutputFileError';
  }
}

function kindOf(st: fs.Stats): string | undefined {
  if (st.isDirectory()) return 'a directory';
  if (st.isSocket()) return 'a socket';
  if (st.isBlockDevice()) return 'a block device';
  return undefined;
}

/** Writes `data` to `file` for `flag` (e.g. `--html`); see the module comment. */
export function writeOutputFile(flag: string, file: string, data: string): void {
  let fd: number;
  try {
    fd = fs.openSync(file, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK, 0o644);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'EIO';
    if (code === 'ELOOP') throw new OutputFileError(file, code, `cannot write ${flag} ${file}: it is a symbolic link, and kexp does not write through links (ELOOP); give the target's own path`);
    if (code === 'ENXIO') throw new OutputFileError(file, code, `cannot write ${flag} ${file}: a FIFO with no reader (ENXIO)`);
    throw new OutputFileError(file, code, `cannot write ${flag} ${file}: ${code} (${WHY[code] ?? (err as Error).message.split('\n')[0]})`);
  }
  try {
    const st = fs.fstatSync(fd);
    const refused = kindOf(st);
    if (refused) throw new OutputFileError(file, 'EINVAL', `cannot write ${flag} ${file}: it is ${refused}`);
    if (st.isFile()) fs.ftruncateSync(fd, 0);
    else if (st.isFIFO()) {
      // Opened without blocking (a FIFO with no reader fails above); write with blocking I/O.
      const flags = fs.constants.O_WRONLY;
      fs.closeSync(fd);
      fd = fs.openSync(file, flags | fs.constants.O_NOFOLLOW);
    }
    fs.writeFileSync(fd, data);
  } catch (err) {
    if (err instanceof OutputFileError) throw err;
    const code = (err as NodeJS.ErrnoException).code ?? 'EIO';
    throw new OutputFileError(file, code, `cannot write ${flag} ${file}: ${code} (${WHY[code] ?? (err as Error).message.split('\n')[0]})`);
  } finally {
    try {
      fs.closeSync(fd);
    } catch {
      /* closed already, or nothing left to lose */
    }
  }
}
