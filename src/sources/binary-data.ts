/**
 * Binary input, recognised so that every command rejects it with one line instead of
 * echoing raw bytes or reading forever:
 *
 * - `binaryKind` names what the first non-blank bytes of an input are when they are no text (or
 *   text kexp does not read): an archive or another compression (zip, tar, bzip2, xz, zstd),
 *   UTF-16 text (with or without a byte-order mark), or binary data — a NUL byte, or
 *   more than 5 % control bytes / invalid UTF-8 in the first 512 bytes (`/dev/urandom` has no
 *   NUL in most 512-byte windows but is ~50 % invalid UTF-8). Text logs and JSON hold neither.
 * - `NulRunGuard` stops a stream that turns into endless binary data after a valid start
 *   (`cat log /dev/zero`, a device, a file zero-filled after a crash that never ends): once a
 *   run of bytes without a line break is longer than the longest line kexp accepts *and*
 *   contains a NUL byte, no text line can come out of it, so reading stops there. A shorter
 *   NUL region (a few zero-filled blocks after a crash, then text again) is only a bad line, and
 *   an over-long line of text is skipped by the line splitter as before; both keep reading.
 */

/** Bytes examined for the control-byte ratio. */
const WINDOW = 512;

/** The first `n` bytes as hex, for messages (never the raw bytes). */
export function hexBytes(buf: Buffer, n = 8): string {
  return [...buf.subarray(0, n)].map((b) => b.toString(16).padStart(2, '0')).join(' ');
}

/** Control bytes that never occur in text logs (TAB, LF, CR, VT, FF and ESC are allowed). */
function isControl(c: number): boolean {
  return (c < 32 && c !== 9 && c !== 10 && c !== 13 && c !== 12 && c !== 11 && c !== 27) || c === 127;
}

/** A NUL, or more than 5 % control bytes / invalid UTF-8 sequences. */
export function looksBinary(b: Buffer): boolean {
  if (b.length === 0) return false;
  let bad = 0;
  for (let i = 0; i < b.length; i++) {
    const c = b[i]!;
    if (c === 0) return true;
    if (isControl(c)) bad++;
  }
  // A multi-byte character cut at the end of the window is not invalid: leave up to 3 bytes out.
  let end = b.length;
  for (let k = 1; k <= 3 && end - k >= 0; k++) {
    const c = b[end - k]!;
    if (c < 0x80) break;
    if (c >= 0xc0) {
      const need = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2;
      if (k < need) end -= k;
      break;
    }
  }
  const text = b.toString('utf8', 0, end);
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 0xfffd) bad++;
  return bad * 20 > b.length;
}

/**
 * UTF-16 text (PowerShell's `>` and Windows editors write it): a byte-order mark (FF FE little-,
 * FE FF big-endian), or without one ASCII text whose every other byte is NUL in the first 64
 * bytes. `LE`/`BE`, or undefined.
 */
function utf16Order(buf: Buffer): 'LE' | 'BE' | undefined {
  if (buf.length >= 2 && buf[0] === 0xff && buf[1] === 0xfe) return 'LE';
  if (buf.length >= 2 && buf[0] === 0xfe && buf[1] === 0xff) return 'BE';
  const n = Math.min(buf.length, 64) & ~1;
  if (n < 8) return undefined;
  const ascii = (c: number): boolean => (c >= 0x20 && c < 0x7f) || c === 9 || c === 10 || c === 13;
  let le = true;
  let be = true;
  for (let i = 0; i < n; i += 2) {
    const a = buf[i]!;
    const b = buf[i + 1]!;
    if (!(ascii(a) && b === 0)) le = false;
    if (!(a === 0 && ascii(b))) be = false;
    if (!le && !be) return undefined;
  }
  return le ? 'LE' : 'BE';
}

/**
 * Names archives, other compressions and binary data from the first bytes of an input's content
 * (`buf` starts at its first non-blank byte); undefined for text.
 */
export function binaryKind(buf: Buffer): string | undefined {
  if (buf.length >= 4 && buf[0] === 0x50 && buf[1] === 0x4b && buf[2] === 3 && buf[3] === 4) return 'looks like a zip archive; unpack it first';
  if (buf.length >= 3 && buf.toString('latin1', 0, 3) === 'BZh') return 'looks like bzip2 data; decompress it first (kexp reads plain or gzip)';
  if (buf.length >= 6 && buf[0] === 0xfd && buf.toString('latin1', 1, 5) === '7zXZ') {
    return 'looks like xz data; decompress it first (kexp reads plain or gzip)';
  }
  if (buf.length >= 4 && buf[0] === 0x28 && buf[1] === 0xb5 && buf[2] === 0x2f && buf[3] === 0xfd) {
    return 'looks like zstd data; decompress it first (kexp reads plain or gzip)';
  }
  // POSIX/GNU tar: "ustar" at offset 257 of the first header (a .tar.gz is seen here after gunzip).
  if (buf.length >= 262 && buf.toString('latin1', 257, 262) === 'ustar') return 'looks like a tar archive; unpack it first (tar -xf FILE) and give kexp the files or their directory';
  const utf16 = utf16Order(buf);
  if (utf16) return `looks like UTF-16${utf16} text; convert it to UTF-8 first (iconv -f UTF-16${utf16} -t UTF-8)`;
  if (looksBinary(buf.subarray(0, WINDOW))) return `looks like binary data (first bytes ${hexBytes(buf)})`;
  return undefined;
}

/**
 * Watches a byte stream for a run without a line break that is longer than `limit` bytes and
 * contains a NUL byte (see the module comment). Cost on ordinary text: one `indexOf` and one
 * `lastIndexOf` of LF per chunk, each stopping at the first/last line break; only chunks inside
 * a long line are searched for NUL.
 */
export class NulRunGuard {
  /** Bytes since the last LF. */
  private run = 0;
  private runHasNul = false;

  constructor(readonly limit: number) {}

  /** Feeds the next chunk; returns the problem text once the stream must stop, else undefined. */
  check(chunk: Buffer): string | undefined {
    const lastNl = chunk.lastIndexOf(10);
    if (lastNl === -1) {
      this.run += chunk.length;
      if (!this.runHasNul) this.runHasNul = chunk.indexOf(0) !== -1;
    } else {
      this.run = chunk.length - lastNl - 1;
      this.runHasNul = this.run > 0 && chunk.indexOf(0, lastNl + 1) !== -1;
    }
    if (this.run > this.limit && this.runHasNul) {
      return (
        `binary data: more than ${mib(this.limit)} MiB without a line break, with NUL bytes; ` +
        'stopped reading here (is the input a device such as /dev/zero, or a damaged file?)'
      );
    }
    return undefined;
  }
}

function mib(n: number): string {
  const m = n / (1 << 20);
  return Number.isInteger(m) ? String(m) : m.toFixed(2);
}
