/**
 * Byte-level input reader for audit logs: a file or stdin (`-`), gzip recognised by its
 * magic bytes (never by the file name; concatenated gzip members are read through), read in
 * 1 MiB chunks and split on Buffers into lines (NDJSON) or into top-level JSON values
 * (pretty-printed / concatenated JSON, JSON arrays), with an optional byte-level prefilter
 * that is evaluated inside each line's slice *before* any string is decoded or parsed.
 *
 * Why this is hand-written rather than `readline`, `split2` or `stream-json`
 * (measured in /work/shared/docs/libraries.md §B.6, 370 MB of audit-like lines, Node 20):
 * readline / split2 manage ~80–90 MB/s, an own Buffer splitter (`indexOf(10)`, parse per line)
 * ~200 MB/s, and the same splitter with a byte-level prefilter (parse only ~1 % of lines)
 * ~670 MB/s plain and ~740 MB/s gzip. Audit logs are GBs of leases, configmaps and node
 * heartbeats of which kexp needs a few percent, so the prefilter is the hot path. A needle
 * must never be searched past the line: an unbounded `buf.indexOf(needle, start)` from every
 * line start walks the rest of the chunk for each line that lacks it (the §B.6 run dropped to
 * 6 MB/s). `NeedleScanner` below keeps the position of the next occurrence instead, so each
 * byte is scanned once and no per-line Buffer views are allocated. Our own numbers, on a
 * generated 1 GB log, are in bench/audit/RESULTS.md.
 * Over-long lines are kept as a list of pieces (one `Buffer.concat` at the end) and are
 * dropped once they exceed `maxLineBytes`; gzip/stream errors propagate as InputError.
 */
import { createReadStream } from 'node:fs';
import { pipeline, Readable } from 'node:stream';
import { createGunzip, type ZlibOptions } from 'node:zlib';
import { InputError } from '../source.js';

export const CHUNK_SIZE = 1 << 20;
/** Longest line (or JSON value) kept; longer ones are counted and skipped. */
export const DEFAULT_MAX_LINE_BYTES = 64 << 20;

/** Decides from the raw bytes `buf[start, end)` of one line whether it is worth parsing. */
export type LineFilter = (buf: Buffer, start: number, end: number) => boolean;

export interface Line {
  /** 1-based line number (for a JSON value: the line its first byte is on). */
  no: number;
  text: string;
  /** The file ended inside this line (no trailing newline / value not closed). */
  unterminated?: boolean;
}

export interface ReaderStats {
  /** Input was gzip (sniffed from the first two bytes). */
  compressed: boolean;
  /** Uncompressed bytes delivered. */
  bytes: number;
  /** Lines seen (every newline-terminated line plus a final unterminated one, empty ones included). */
  lines: number;
  emptyLines: number;
  /** Lines the prefilter rejected without decoding. */
  skippedByFilter: number;
  /** Lines / values longer than maxLineBytes, dropped. */
  tooLong: number;
  /** Bytes outside any JSON value in values mode (stray text between values). */
  strayBytes: number;
}

export interface InputReaderOptions {
  /** Stream to read when `file` is `-` (default process.stdin). */
  stdin?: Readable;
  chunkSize?: number;
  maxLineBytes?: number;
  /** Called for every over-long line / value that is dropped. */
  onTooLong?: (line: number, bytes: number) => void;
  /** Called (at most once per line) when values mode meets bytes that cannot start a value. */
  onStray?: (line: number, sample: string) => void;
}

const GZIP_MAGIC0 = 0x1f;
const GZIP_MAGIC1 = 0x8b;
/** Decompressed bytes gunzip may buffer ahead of the reader. */
const GUNZIP_READ_AHEAD = 16 << 20;

/**
 * One input, read once. Use `peek()` to sniff the format, then exactly one of `lines()`,
 * `values()` or `readAll()`; the bytes returned by `peek()` are replayed to them.
 */
export class InputReader {
  readonly stats: ReaderStats = {
    compressed: false,
    bytes: 0,
    lines: 0,
    emptyLines: 0,
    skippedByFilter: 0,
    tooLong: 0,
    strayBytes: 0,
  };
  /** Prefilter for `lines()`; may be set or replaced at any time (read per line). */
  filter: LineFilter | undefined;

  private readonly chunkSize: number;
  private readonly maxLineBytes: number;
  private iter: AsyncIterator<Buffer> | undefined;
  private source: Readable | undefined;
  private readonly peeked: Buffer[] = [];
  private ended = false;
  /** Raw bytes of the last line seen by `lines()` (its buffer stays referenced, nothing copied). */
  private lastBuf: Buffer | undefined;
  private lastStart = 0;
  private lastEnd = 0;

  constructor(
    readonly file: string,
    private readonly opts: InputReaderOptions = {},
  ) {
    this.chunkSize = opts.chunkSize ?? CHUNK_SIZE;
    this.maxLineBytes = opts.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  }

  /**
   * Reads ahead until `minNewlines` newlines or `maxBytes` bytes (uncompressed) are buffered,
   * or the input ends. Returns the buffered bytes (a copy) and whether the input ended.
   */
  async peek(minNewlines: number, maxBytes: number): Promise<{ head: Buffer; eof: boolean }> {
    let size = this.peeked.reduce((n, b) => n + b.length, 0);
    let newlines = this.peeked.reduce((n, b) => n + countByte(b, 10), 0);
    while (!this.ended && newlines < minNewlines && size < maxBytes) {
      const c = await this.pull();
      if (!c) break;
      this.peeked.push(c);
      size += c.length;
      newlines += countByte(c, 10);
    }
    return { head: Buffer.concat(this.peeked, size), eof: this.ended };
  }

  /** Whole (uncompressed) input as one Buffer; InputError past maxBytes. */
  async readAll(maxBytes: number): Promise<Buffer> {
    const parts: Buffer[] = [];
    let size = 0;
    for (;;) {
      const c = await this.next();
      if (!c) break;
      this.stats.bytes += c.length;
      size += c.length;
      if (size > maxBytes) {
        throw new InputError(this.file, 0, `document is larger than ${mib(maxBytes)} MiB; split it into JSON lines first`);
      }
      parts.push(c);
    }
    return Buffer.concat(parts, size);
  }

  /**
   * Newline-delimited records, one batch per chunk (only lines that pass `filter`; empty
   * lines are counted and dropped). A trailing `\r` is removed.
   */
  async *lines(): AsyncGenerator<Line[]> {
    const max = this.maxLineBytes;
    let carry: Buffer[] = [];
    let carryLen = 0;
    let dropping = false; // inside an over-long line
    let dropBytes = 0;
    let lineNo = 0;
    for (;;) {
      const chunk = await this.next();
      if (!chunk) break;
      this.stats.bytes += chunk.length;
      const out: Line[] = [];
      let pos = 0;
      if (carryLen > 0 || dropping) {
        const nl = chunk.indexOf(10);
        if (nl < 0) {
          if (dropping) dropBytes += chunk.length;
          else {
            carry.push(chunk);
            carryLen += chunk.length;
            if (carryLen > max) {
              dropping = true;
              dropBytes = carryLen;
              carry = [];
              carryLen = 0;
            }
          }
          continue;
        }
        lineNo++;
        if (dropping) {
          this.dropLine(lineNo, dropBytes + nl);
          dropping = false;
        } else if (carryLen + nl > max) {
          this.dropLine(lineNo, carryLen + nl);
          carry = [];
          carryLen = 0;
        } else {
          carry.push(chunk.subarray(0, nl));
          const whole = Buffer.concat(carry, carryLen + nl);
          carry = [];
          carryLen = 0;
          this.emitLine(whole, 0, whole.length, lineNo, out, false);
        }
        pos = nl + 1;
      }
      for (;;) {
        const nl = chunk.indexOf(10, pos);
        if (nl < 0) break;
        lineNo++;
        if (nl - pos > max) this.dropLine(lineNo, nl - pos);
        else this.emitLine(chunk, pos, nl, lineNo, out, false);
        pos = nl + 1;
      }
      if (pos < chunk.length) {
        const rest = chunk.length - pos;
        if (rest > max) {
          dropping = true;
          dropBytes = rest;
        } else {
          carry.push(chunk.subarray(pos));
          carryLen = rest;
        }
      }
      if (out.length > 0) yield out;
    }
    if (dropping) {
      lineNo++;
      this.dropLine(lineNo, dropBytes);
    } else if (carryLen > 0) {
      lineNo++;
      const whole = Buffer.concat(carry, carryLen);
      const out: Line[] = [];
      this.emitLine(whole, 0, whole.length, lineNo, out, true);
      if (out.length > 0) yield out;
    }
  }

  /** Text of the last line `lines()` saw (decoded on demand), e.g. to read its timestamp. */
  lastLineText(): string | undefined {
    return this.lastBuf?.toString('utf8', this.lastStart, this.lastEnd);
  }

  /**
   * Top-level JSON values (objects, or arrays nested in a top-level array), one batch per
   * chunk. The elements of a top-level array are delivered one by one, so a large
   * `[{…},{…}]` export streams. Does not validate JSON: it tracks strings, escapes and
   * bracket depth only, and `JSON.parse` judges each value.
   */
  async *values(): AsyncGenerator<Line[]> {
    const splitter = new JsonValueSplitter(this.maxLineBytes, this.opts.onTooLong, this.opts.onStray, this.stats);
    for (;;) {
      const chunk = await this.next();
      if (!chunk) break;
      this.stats.bytes += chunk.length;
      const out = splitter.push(chunk);
      if (out.length > 0) yield out;
    }
    const tail = splitter.end();
    if (tail.length > 0) yield tail;
  }

  private emitLine(buf: Buffer, start: number, end: number, no: number, out: Line[], unterminated: boolean): void {
    this.stats.lines++;
    if (end > start && buf[end - 1] === 13) end--;
    if (end === start) {
      this.stats.emptyLines++;
      return;
    }
    this.lastBuf = buf;
    this.lastStart = start;
    this.lastEnd = end;
    const f = this.filter;
    // An unterminated last line always goes to the parser so a truncated record is reported.
    if (f !== undefined && !unterminated && !f(buf, start, end)) {
      this.stats.skippedByFilter++;
      return;
    }
    const line: Line = { no, text: buf.toString('utf8', start, end) };
    if (unterminated) line.unterminated = true;
    out.push(line);
  }

  private dropLine(no: number, bytes: number): void {
    this.stats.lines++;
    this.stats.tooLong++;
    this.lastBuf = undefined;
    this.opts.onTooLong?.(no, bytes);
  }

  /** Releases the underlying file (safe to call more than once; stdin is left open). */
  close(): void {
    this.ended = true;
    this.peeked.length = 0;
    if (this.source && this.file !== '-') this.source.destroy();
  }

  private async next(): Promise<Buffer | undefined> {
    if (this.peeked.length > 0) return this.peeked.shift();
    return this.pull();
  }

  /** Next raw (decompressed) chunk from the source; undefined at the end. */
  private async pull(): Promise<Buffer | undefined> {
    if (this.ended) return undefined;
    if (!this.iter) this.iter = await this.open();
    let r: IteratorResult<Buffer>;
    try {
      r = await this.iter.next();
    } catch (e) {
      this.ended = true;
      throw this.wrapError(e);
    }
    if (r.done) {
      this.ended = true;
      return undefined;
    }
    return r.value;
  }

  private wrapError(e: unknown): Error {
    if (e instanceof InputError) return e;
    const err = e as NodeJS.ErrnoException;
    const msg = err?.message ?? String(e);
    if (this.stats.compressed && typeof err?.code === 'string' && err.code.startsWith('Z_')) {
      return new InputError(
        this.file,
        0,
        `gzip data is damaged or truncated (zlib ${err.code}: ${msg}) after ${this.stats.bytes} uncompressed bytes; ` +
          'check the file with `gzip -t`, or decompress what is readable with `gzip -dc FILE > out.log` and read that',
      );
    }
    return new InputError(this.file, 0, `cannot read: ${msg}`);
  }

  private async open(): Promise<AsyncIterator<Buffer>> {
    const source: Readable =
      this.file === '-'
        ? (this.opts.stdin ?? process.stdin)
        : createReadStream(this.file, { highWaterMark: this.chunkSize });
    this.source = source;
    const raw = source[Symbol.asyncIterator]() as AsyncIterator<Buffer | string>;
    const head: Buffer[] = [];
    let headLen = 0;
    // Sniff the gzip magic: stdin may deliver fewer than two bytes in its first chunk.
    try {
      while (headLen < 2) {
        const r = await raw.next();
        if (r.done) break;
        const b = typeof r.value === 'string' ? Buffer.from(r.value) : r.value;
        head.push(b);
        headLen += b.length;
      }
    } catch (e) {
      throw this.wrapError(e);
    }
    const first = Buffer.concat(head, headLen);
    const rest = async function* (): AsyncGenerator<Buffer> {
      if (first.length > 0) yield first;
      for (;;) {
        const r = await raw.next();
        if (r.done) return;
        yield typeof r.value === 'string' ? Buffer.from(r.value) : r.value;
      }
    };
    if (first.length >= 2 && first[0] === GZIP_MAGIC0 && first[1] === GZIP_MAGIC1) {
      this.stats.compressed = true;
      // gunzip reads concatenated members (rotated logs joined with `cat a.gz b.gz`). A deep
      // output buffer lets inflate (thread pool) run ahead while the line splitter works;
      // with the default it stalls on back-pressure and the two take turns.
      // (zlib passes its options on to the Transform constructor; @types/node omits highWaterMark.)
      const gunzip = createGunzip({ chunkSize: this.chunkSize, highWaterMark: GUNZIP_READ_AHEAD } as ZlibOptions);
      pipeline(Readable.from(rest(), { objectMode: false }), gunzip, () => {
        /* errors surface through the async iterator below */
      });
      return gunzip[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
    }
    return rest();
  }
}

/**
 * Splits a byte stream into top-level JSON values by tracking strings, escapes and bracket
 * depth; a top-level `[` is unwrapped so that its elements come out one by one.
 */
export class JsonValueSplitter {
  private depth = 0;
  private inString = false;
  private escape = false;
  private inArray = false;
  private line = 1;
  private valueLine = 0;
  private pieces: Buffer[] = [];
  private pieceLen = 0;
  private dropping = false;
  private strayLine = 0;

  constructor(
    private readonly maxBytes: number = DEFAULT_MAX_LINE_BYTES,
    private readonly onTooLong?: (line: number, bytes: number) => void,
    private readonly onStray?: (line: number, sample: string) => void,
    private readonly stats?: ReaderStats,
  ) {}

  push(chunk: Buffer): Line[] {
    const out: Line[] = [];
    let start = this.depth > 0 ? 0 : -1; // start of the current value inside this chunk
    const n = chunk.length;
    for (let i = 0; i < n; i++) {
      const c = chunk[i]!;
      if (this.inString) {
        if (this.escape) this.escape = false;
        else if (c === 92) this.escape = true;
        else if (c === 34) this.inString = false;
        continue;
      }
      if (c === 10) {
        this.line++;
        continue;
      }
      if (this.depth > 0) {
        if (c === 34) this.inString = true;
        else if (c === 123 || c === 91) this.depth++;
        else if (c === 125 || c === 93) {
          this.depth--;
          if (this.depth === 0) {
            this.finishValue(chunk, start, i + 1, out);
            start = -1;
          }
        }
        continue;
      }
      // depth 0: between values
      if (c === 32 || c === 9 || c === 13) continue;
      if (this.inArray && (c === 44 || c === 93)) {
        if (c === 93) this.inArray = false;
        continue;
      }
      if (c === 91 && !this.inArray) {
        this.inArray = true;
        continue;
      }
      if (c === 123 || c === 91) {
        this.depth = 1;
        this.valueLine = this.line;
        start = i;
        continue;
      }
      if (this.stats) this.stats.strayBytes++;
      if (this.strayLine !== this.line) {
        this.strayLine = this.line;
        const end = chunk.indexOf(10, i);
        this.onStray?.(this.line, chunk.toString('utf8', i, Math.min(end < 0 ? n : end, i + 80)));
      }
    }
    if (this.depth > 0 && start >= 0) this.keep(chunk.subarray(start));
    return out;
  }

  /** Flushes at the end of input: an unclosed value is returned marked `unterminated`. */
  end(): Line[] {
    if (this.depth === 0) return [];
    const out: Line[] = [];
    if (this.dropping) {
      this.onTooLong?.(this.valueLine, this.pieceLen);
      if (this.stats) this.stats.tooLong++;
    } else if (this.pieceLen > 0) {
      out.push({ no: this.valueLine, text: Buffer.concat(this.pieces, this.pieceLen).toString('utf8'), unterminated: true });
    }
    this.pieces = [];
    this.pieceLen = 0;
    this.depth = 0;
    return out;
  }

  private keep(b: Buffer): void {
    if (this.dropping) {
      this.pieceLen += b.length;
      return;
    }
    this.pieces.push(b);
    this.pieceLen += b.length;
    if (this.pieceLen > this.maxBytes) {
      this.dropping = true;
      this.pieces = [];
    }
  }

  private finishValue(chunk: Buffer, start: number, end: number, out: Line[]): void {
    if (start < 0) start = 0;
    if (this.stats) this.stats.lines++;
    const len = this.pieceLen + (end - start);
    if (this.dropping || len > this.maxBytes) {
      this.onTooLong?.(this.valueLine, len);
      if (this.stats) this.stats.tooLong++;
    } else if (this.pieceLen === 0) {
      out.push({ no: this.valueLine, text: chunk.toString('utf8', start, end) });
    } else {
      this.pieces.push(chunk.subarray(start, end));
      out.push({ no: this.valueLine, text: Buffer.concat(this.pieces, len).toString('utf8') });
    }
    this.pieces = [];
    this.pieceLen = 0;
    this.dropping = false;
  }
}

// ---------------------------------------------------------------------------------------
// Prefilter building blocks. All of them look only inside `buf[start, end)`.

const isWs = (c: number | undefined) => c === 32 || c === 9 || c === 10 || c === 13;

/**
 * Finds a needle inside lines of one chunk without re-scanning: it remembers where the next
 * occurrence after the previous query is, so consecutive queries on increasing line ranges of
 * the same Buffer scan every byte at most once (an unbounded `indexOf` from each line start
 * would walk the rest of the chunk for every line lacking the needle — libraries.md §B.6).
 */
export class NeedleScanner {
  private buf: Buffer | undefined;
  private from = 0;
  /** Next occurrence at or after `from`; -1 = unknown, Infinity = none left in `buf`. */
  private next = -1;

  constructor(readonly needle: Buffer) {}

  /** First occurrence in `buf[start, end)`, or -1. */
  find(buf: Buffer, start: number, end: number): number {
    if (buf !== this.buf || start < this.from) {
      this.buf = buf;
      this.next = -1;
    }
    this.from = start;
    if (this.next < start) {
      const i = buf.indexOf(this.needle, start);
      this.next = i < 0 ? Infinity : i;
    }
    return this.next + this.needle.length <= end ? this.next : -1;
  }
}

/**
 * Finds `"key"` (or `\"key\"` when `escaped`, i.e. inside a JSON-encoded string such as an
 * EKS `message` or AKS `properties.log`) followed by `:` and a string value, inside
 * `buf[start, end)`, and returns the first value for which `accept` is true — without decoding
 * the line. Every occurrence of the key is tried (key order in re-serialised files is not
 * fixed, and pod specs contain `"resource"` keys of their own) — unless the occurrence is
 * immediately preceded by `anchor`, which makes it decisive: e.g. `"objectRef":{` before
 * `"resource"` can only be the audit objectRef's own resource (its first field), so an
 * unaccepted value there ends the search without scanning the rest of the line (most lines
 * are irrelevant, and the bodies after objectRef are most of their bytes). Values longer than
 * 64 bytes or containing escapes are not considered.
 */
export function findStringValue(
  buf: Buffer,
  start: number,
  end: number,
  key: NeedleScanner,
  escaped: boolean,
  accept: (value: string) => boolean,
  anchor?: Buffer,
): string | undefined {
  const klen = key.needle.length;
  let from = start;
  for (;;) {
    const i = key.find(buf, from, end);
    if (i < 0) return undefined;
    from = i + klen;
    const decisive = anchor !== undefined && i - anchor.length >= start && endsWith(buf, i, anchor);
    let p = from;
    while (p < end && isWs(buf[p])) p++;
    if (buf[p] !== 58) continue;
    p++;
    while (p < end && isWs(buf[p])) p++;
    if (escaped) {
      if (buf[p] !== 92 || buf[p + 1] !== 34) continue;
      p += 2;
    } else {
      if (buf[p] !== 34) continue;
      p++;
    }
    const limit = Math.min(end, p + 64);
    let q = p;
    while (q < limit && buf[q] !== 34 && buf[q] !== 92) q++;
    if (q >= limit) continue;
    const closes = escaped ? buf[q] === 92 && buf[q + 1] === 34 : buf[q] === 34;
    if (!closes) continue;
    const v = buf.toString('latin1', p, q);
    if (accept(v)) return v;
    if (decisive) return undefined;
  }
}

/** True when `buf[.., at)` ends with `suffix`. */
function endsWith(buf: Buffer, at: number, suffix: Buffer): boolean {
  const n = suffix.length;
  for (let k = 1; k <= n; k++) if (buf[at - k] !== suffix[n - k]) return false;
  return true;
}

/** A scanner for `"key"` or, escaped, `\"key\"`. */
export function keyScanner(key: string, escaped = false): NeedleScanner {
  return new NeedleScanner(Buffer.from(escaped ? `\\"${key}\\"` : `"${key}"`, 'latin1'));
}

function countByte(b: Buffer, byte: number): number {
  let n = 0;
  let i = b.indexOf(byte);
  while (i >= 0) {
    n++;
    i = b.indexOf(byte, i + 1);
  }
  return n;
}

function mib(n: number): number {
  return Math.round(n / (1 << 20));
}
