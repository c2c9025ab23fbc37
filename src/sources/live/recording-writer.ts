/**
 * Writes a kexp recording (docs/recording-format.md) crash-safely: every line is one complete
 * JSON object written with write() calls that are never interleaved with another line, so
 * Ctrl-C or kill -9 can at worst leave a partial last line (which the reader reports and
 * skips); `close()` appends the end line and fsyncs.
 *
 * The file is opened safely:
 * - it is created with mode 0600 and O_EXCL: an existing file (or anything else at that path,
 *   a dangling symlink included) is refused unless `overwrite` is set;
 * - O_NOFOLLOW: a symlink at the path is never followed, even with `overwrite` (someone who can
 *   plant a link in the directory must not make kexp write, or truncate, the link's target);
 * - with `overwrite`, only a regular file or a character device (`/dev/null`) is replaced;
 *   a FIFO, socket or directory is refused (O_NONBLOCK keeps even a FIFO swapped in at the last
 *   moment from blocking the open); an existing regular file is truncated and set to 0600.
 *
 * Every I/O failure is a RecordingFileError naming the file and the errno. After a failed
 * write the writer is dead: later calls are no-ops and `close()` only releases the descriptor
 * (the end line cannot be written to a full disk; the reader reports the missing end marker).
 */
import fs from 'node:fs';
import { formatRecordingLine, formatRecvTime, recordingHeader, type RecordingEndLine, type RecordingEndReason, type RecordingHeader, type RecordingUnwatched } from '../watch/recording-format.js';
import { redactObject } from './redaction.js';

export interface RecordingCounts {
  events: number;
  byResource: Record<string, number>;
  gaps: number;
}

const ERRNO_TEXT: Record<string, string> = {
  ENOSPC: 'no space left on device',
  EDQUOT: 'disk quota exceeded',
  EIO: 'I/O error',
  EROFS: 'read-only file system',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  ENOENT: 'no such file or directory',
  ENOTDIR: 'a path component is not a directory',
  EISDIR: 'is a directory',
  EFBIG: 'file too large',
  ENXIO: 'no reader on the other end',
  EAGAIN: 'the device would block',
  EPIPE: 'broken pipe',
};

/** The recording file cannot be created or written; `code` is the errno name (ENOSPC, EEXIST, …). */
export class RecordingFileError extends Error {
  constructor(
    readonly file: string,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'RecordingFileError';
  }

  static from(file: string, err: unknown, doing: 'create' | 'write' | 'sync'): RecordingFileError {
    const code = (err as NodeJS.ErrnoException | undefined)?.code ?? 'EIO';
    if (code === 'EEXIST') return new RecordingFileError(file, code, `${file} already exists; pass --overwrite to replace it`);
    if (code === 'ELOOP') return new RecordingFileError(file, code, `${file} is a symbolic link; kexp does not write through links (ELOOP): give the target's own path`);
    const what = ERRNO_TEXT[code] ?? ((err as Error | undefined)?.message ?? String(err)).split('\n')[0];
    return new RecordingFileError(file, code, `cannot ${doing} the recording ${file}: ${code} (${what})`);
  }
}

function kindOf(st: fs.Stats): string {
  if (st.isDirectory()) return 'a directory';
  if (st.isFIFO()) return 'a FIFO';
  if (st.isSocket()) return 'a socket';
  if (st.isSymbolicLink()) return 'a symbolic link';
  if (st.isBlockDevice()) return 'a block device';
  return 'not a regular file';
}

/** Regular files and character devices (/dev/null) may be replaced with `overwrite`; nothing else. */
function replaceable(st: fs.Stats): boolean {
  return st.isFile() || st.isCharacterDevice();
}

/**
 * Checks, before anything is read from the cluster, that `file` can be created: nothing
 * exists there (or, with `overwrite`, a regular file or character device that is not a
 * symlink). The open itself re-checks (O_EXCL/O_NOFOLLOW), so a race only moves the error.
 * Throws RecordingFileError.
 */
export function checkRecordingTarget(file: string, overwrite: boolean): void {
  let st: fs.Stats;
  try {
    st = fs.lstatSync(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw RecordingFileError.from(file, err, 'create');
  }
  if (st.isSymbolicLink()) throw RecordingFileError.from(file, { code: 'ELOOP' }, 'create');
  if (!overwrite) throw RecordingFileError.from(file, { code: 'EEXIST' }, 'create');
  if (!replaceable(st)) throw new RecordingFileError(file, 'EINVAL', `${file} is ${kindOf(st)}; the recording must be a regular file`);
}

const C = fs.constants;
// O_NOFOLLOW/O_NONBLOCK are 0 where the platform lacks them (Windows); O_EXCL still refuses links there.
const NOFOLLOW = C.O_NOFOLLOW ?? 0;
const NONBLOCK = C.O_NONBLOCK ?? 0;

export class RecordingWriter {
  private fd: number;
  readonly counts: RecordingCounts = { events: 0, byResource: {}, gaps: 0 };
  private closed = false;
  private failed?: RecordingFileError;
  private readonly regular: boolean;

  /**
   * Creates `path` (mode 0600; see the module comment for what is refused) and writes the
   * header. Throws RecordingFileError; a file it created is removed again if the header
   * cannot be written.
   */
  constructor(
    readonly path: string,
    header: Omit<RecordingHeader, 'kexpRecording'>,
    private readonly redact: boolean,
    overwrite = false,
  ) {
    const flags = C.O_WRONLY | C.O_CREAT | NOFOLLOW | NONBLOCK | (overwrite ? C.O_TRUNC : C.O_EXCL);
    // Only a file this writer created is removed on failure (with overwrite: if nothing was there before).
    let created = !overwrite;
    if (overwrite) {
      try {
        fs.lstatSync(path);
      } catch {
        created = true;
      }
    }
    try {
      this.fd = fs.openSync(path, flags, 0o600);
    } catch (err) {
      throw RecordingFileError.from(path, err, 'create');
    }
    try {
      const st = fs.fstatSync(this.fd);
      if (!replaceable(st)) throw new RecordingFileError(path, 'EINVAL', `${path} is ${kindOf(st)}; the recording must be a regular file`);
      this.regular = st.isFile();
      // An existing file keeps its old mode on open: force 0600. Never on a device (/dev/null's mode is not ours).
      if (this.regular) fs.fchmodSync(this.fd, 0o600);
      this.write(formatRecordingLine(recordingHeader(header)));
    } catch (err) {
      this.closed = true;
      try {
        fs.closeSync(this.fd);
      } catch {
        /* the descriptor is gone either way */
      }
      if (created) fs.rmSync(path, { force: true });
      throw err instanceof RecordingFileError ? err : RecordingFileError.from(path, err, 'create');
    }
  }

  /** Writes `s` completely (write() may take fewer bytes than given) or throws RecordingFileError. */
  private write(s: string): void {
    if (this.failed) throw this.failed;
    const buf = Buffer.from(s, 'utf8');
    try {
      for (let off = 0; off < buf.length;) off += fs.writeSync(this.fd, buf, off, buf.length - off);
    } catch (err) {
      this.failed = RecordingFileError.from(this.path, err, 'write');
      throw this.failed;
    }
  }

  /** Appends one event line. Throws RecordingFileError. */
  event(src: string, type: string, object: Record<string, unknown>, recvAt: number, synthetic?: string): void {
    if (this.closed) return;
    const obj = this.redact ? redactObject(object) : object;
    const line: Record<string, unknown> = { recv: formatRecvTime(recvAt), src, event: { type, object: obj } };
    if (synthetic) line.synthetic = synthetic;
    this.write(JSON.stringify(line) + '\n');
    if (type !== 'BOOKMARK') {
      this.counts.events++;
      this.counts.byResource[src] = (this.counts.byResource[src] ?? 0) + 1;
    }
  }

  /** Appends one gap line. Throws RecordingFileError. */
  gap(src: string, reason: 'watch-relist' | 'watch-reconnect', detail: string, recvAt: number): void {
    if (this.closed) return;
    this.write(formatRecordingLine({ recv: formatRecvTime(recvAt), src, gap: { reason, detail } }));
    this.counts.gaps++;
  }

  /**
   * Appends the end line, fsyncs and closes. Safe to call twice. After a failed write it only
   * closes the descriptor. Throws RecordingFileError when the end line or the fsync fails
   * (the descriptor is closed anyway).
   */
  close(reason: RecordingEndReason, recvAt: number, detail?: string, unwatched?: RecordingUnwatched[]): void {
    if (this.closed) return;
    this.closed = true;
    try {
      if (this.failed) return;
      const end: RecordingEndLine['end'] = { reason };
      if (detail) end.detail = detail;
      if (unwatched && unwatched.length > 0) end.unwatched = unwatched;
      this.write(formatRecordingLine({ recv: formatRecvTime(recvAt), end }));
      try {
        fs.fsyncSync(this.fd);
      } catch (err) {
        // Character devices cannot be fsynced (EINVAL); that is not a lost write.
        if (this.regular || (err as NodeJS.ErrnoException).code !== 'EINVAL') throw RecordingFileError.from(this.path, err, 'sync');
      }
    } finally {
      try {
        fs.closeSync(this.fd);
      } catch {
        /* already reported, or nothing left to lose */
      }
    }
  }
}
