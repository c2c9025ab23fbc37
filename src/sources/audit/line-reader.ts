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
 * 6 MB/s). `NeedleScanner` (line-filter.ts, with the other prefilter building blocks) keeps
 * the position of the next occurrence instead, so each byte is scanned once and no per-line
 * Buffer views are allocated. Our own numbers, on a generated 1 GB log, are in
 * bench/audit/RESULTS.md.
 * Over-long lines are kept as a list of pieces (one `Buffer.concat` at the end) and are
 * dropped once they exceed `maxLineBytes`. Damaged or truncated gzip data: every complete line
 * decoded before the damage is delivered and the damage is reported through `onDamage` at the
 * line where it happened (an InputError when nothing could be decoded or no `onDamage` is set);
 * so are bytes after the last gzip member that are no gzip member (trailing garbage: the members
 * before it are read in full, see gzip-members.ts) and a run of more than `maxLineBytes` without
 * a line break that holds NUL bytes (endless binary data such as `/dev/zero` after a valid start:
 * reading stops there, see binary-data.ts); other stream errors propagate as InputError.
 * Leading blank lines, any amount, can be skipped before sniffing (`skipLeadingBlankLines`):
 * they are counted, not kept, and every reader numbers later lines as in the file.
 */
import { createReadStream, ReadStream, statSync } from 'node:fs';
import { trackRead } from '../read-progress.js';
import { Readable } from 'node:stream';
import { NulRunGuard } from '../binary-data.js';
import { GzipTrailingGarbage, gunzipMembers } from '../gzip-members.js';
import { skipBlankLines } from '../input-stream.js';
import { InputError } from '../source.js';
import type { LineFilter } from './line-filter.js';

export const CHUNK_SIZE = 1 << 20;
/** Longest line (or JSON value) kept; longer ones are counted and skipped. */
export const DEFAULT_MAX_LINE_BYTES = 64 << 20;

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
  /** Called (at most once per damaged region) when values mode meets bytes that cannot start a value. */
  onStray?: (line: number, sample: string) => void;
  /** Values mode: a value was cut off (a new value starts in its column, or a string runs into a newline). */
  onCut?: (line: number) => void;
  /**
   * Called once when gzip data turns out damaged or truncated after some lines were decoded:
   * `line` is the line the damage cut (the complete lines before it were delivered). Without
   * it, the damage is thrown as an InputError.
   */
  onDamage?: (line: number, message: string) => void;
}

/** Receives the bytes `buf[start, end)` of a line that passed the filter (rawLines). */
export type RawLineSink = (buf: Buffer, start: number, end: number, no: number, unterminated: boolean) => void;

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
  /**
   * Set by `rawLines()`: the bytes of each line that passes go here instead of being decoded,
   * and `lines()` yields one (empty) batch per chunk, so the caller sees every chunk's end.
   */
  private sink: RawLineSink | undefined;

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
  /** Decompressed bytes pulled from the source (peeked or not). */
  private decoded = 0;
  /** Set when the input ended on damaged gzip data after `decoded` > 0 bytes, or at endless binary data. */
  private damage: InputError | undefined;
  /** Blank lines skipped before the content by `skipLeadingBlankLines`. */
  private blankLines = 0;
  private readonly guard: NulRunGuard;

  constructor(
    readonly file: string,
    private readonly opts: InputReaderOptions = {},
  ) {
    this.chunkSize = opts.chunkSize ?? CHUNK_SIZE;
    this.maxLineBytes = opts.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
    this.guard = new NulRunGuard(this.maxLineBytes);
  }

  /**
   * Reads past the blank lines (spaces, tabs, CR only) at the start of the input — any amount,
   * counted and not kept — so that `peek` sees the first lines with content; `lines()`,
   * `values()` and `readAll()` still number lines as in the file, and the skipped lines count
   * in `stats`. Call before `peek`. `content` is false when nothing but blank lines (or
   * nothing at all: `bytes` 0) came before the end.
   */
  async skipLeadingBlankLines(): Promise<{ lines: number; bytes: number; content: boolean }> {
    const s = await skipBlankLines(() => this.next());
    this.blankLines = s.lines;
    this.stats.lines += s.lines;
    this.stats.emptyLines += s.lines;
    this.stats.bytes += s.bytes;
    if (s.rest !== undefined) this.peeked.unshift(s.rest);
    return { lines: s.lines, bytes: s.bytes, content: s.rest !== undefined || this.damage !== undefined };
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
    if (this.blankLines > 0) {
      // The skipped blank lines go back in, so positions in the document are file lines.
      if (this.blankLines > maxBytes) {
        throw new InputError(this.file, 0, `document is larger than ${mib(maxBytes)} MiB; split it into JSON lines first`);
      }
      parts.push(Buffer.alloc(this.blankLines, 10));
      size = this.blankLines;
    }
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
    const all = Buffer.concat(parts, size);
    if (this.damage) {
      // YAML is parsed as a whole: report the damage on the line it cut, keep the lines before it.
      const lastNl = all.lastIndexOf(10);
      this.reportDamage(countByte(all, 10) + 1);
      return all.subarray(0, lastNl + 1);
    }
    return all;
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
    let lineNo = this.blankLines;
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
      if (out.length > 0 || this.sink !== undefined) yield out;
    }
    if (this.damage) {
      // The line being read when the gzip data broke off is cut: report it, not as a record.
      this.reportDamage(lineNo + 1);
    } else if (dropping) {
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

  /**
   * `lines()` for the reader thread (reader-thread.ts): the lines that pass the filter are not
   * decoded but handed to `sink` as byte ranges (valid until the sink returns); one step per chunk
   * read, after that chunk's lines and its over-long-line callbacks.
   */
  async *rawLines(sink: RawLineSink): AsyncGenerator<void> {
    this.sink = sink;
    try {
      for await (const _ of this.lines()) yield;
    } finally {
      this.sink = undefined;
    }
  }

  /** Bytes of the last line `lines()` saw (a view into the chunk, not a copy). */
  lastLineBytes(): Buffer | undefined {
    return this.lastBuf?.subarray(this.lastStart, this.lastEnd);
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
    const splitter = new JsonValueSplitter(this.maxLineBytes, this.opts.onTooLong, this.opts.onStray, this.stats, this.opts.onCut, this.blankLines + 1);
    for (;;) {
      const chunk = await this.next();
      if (!chunk) break;
      this.stats.bytes += chunk.length;
      const out = splitter.push(chunk);
      if (out.length > 0) yield out;
    }
    if (this.damage) {
      this.reportDamage(splitter.abandon());
      return;
    }
    const tail = splitter.end();
    if (tail.length > 0) yield tail;
  }

  private reportDamage(line: number): void {
    const d = this.damage!;
    this.damage = undefined;
    if (!this.opts.onDamage) throw d;
    this.opts.onDamage(line, d.message.slice(this.file.length + 2));
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
    if (this.sink !== undefined) {
      this.sink(buf, start, end, no, unterminated);
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
      const err = this.wrapError(e);
      // Damaged gzip or trailing garbage after some data: keep what was decoded (the caller reports it).
      if (this.stats.compressed && this.decoded > 0 && (isZlibError(e) || e instanceof GzipTrailingGarbage)) {
        this.damage = err;
        return undefined;
      }
      throw err;
    }
    if (r.done) {
      this.ended = true;
      return undefined;
    }
    const stop = this.guard.check(r.value);
    if (stop !== undefined) {
      // Endless binary data: stop reading; the lines before it were delivered.
      this.ended = true;
      this.damage = new InputError(this.file, 0, stop);
      if (this.source && this.file !== '-') this.source.destroy();
      return undefined;
    }
    this.decoded += r.value.length;
    return r.value;
  }

  private wrapError(e: unknown): InputError {
    if (e instanceof InputError) return e;
    if (e instanceof GzipTrailingGarbage) return new InputError(this.file, 0, e.message);
    const err = e as NodeJS.ErrnoException;
    const msg = err?.message ?? String(e);
    if (this.stats.compressed && isZlibError(e)) {
      if (this.decoded > 0) {
        return new InputError(
          this.file,
          0,
          `gzip data is damaged or truncated here (zlib ${err.code}: ${msg}); the complete lines before it were read; check the file with \`gzip -t\``,
        );
      }
      return new InputError(
        this.file,
        0,
        `gzip data is damaged or truncated (zlib ${err.code}: ${msg}) before any data could be decoded; check the file with \`gzip -t\``,
      );
    }
    return new InputError(this.file, 0, `cannot read: ${msg}`);
  }

  private async open(): Promise<AsyncIterator<Buffer>> {
    const source: Readable =
      this.file === '-'
        ? (this.opts.stdin ?? process.stdin)
        : createReadStream(this.file, { highWaterMark: this.chunkSize });
    if (source instanceof ReadStream) {
      let size: number | undefined;
      try {
        const st = statSync(this.file);
        if (st.isFile()) size = st.size;
      } catch {
        /* the open reports it */
      }
      source.once('close', trackRead({ file: this.file, ...(size !== undefined ? { size } : {}), read: () => (source as ReadStream).bytesRead }));
    }
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
      // Member by member (rotated logs joined with `cat a.gz b.gz`; trailing garbage told apart,
      // gzip-members.ts). Inflate (thread pool) runs up to GUNZIP_READ_AHEAD ahead of the splitter.
      return gunzipMembers(rest(), { chunkSize: this.chunkSize, readAhead: GUNZIP_READ_AHEAD })[Symbol.asyncIterator]();
    }
    return rest();
  }
}

function isZlibError(e: unknown): boolean {
  const code = (e as NodeJS.ErrnoException | undefined)?.code;
  return typeof code === 'string' && code.startsWith('Z_');
}

/**
 * Splits a byte stream into top-level JSON values by tracking strings, escapes and bracket
 * depth; a top-level `[` is unwrapped so that its elements come out one by one.
 *
 * Damage (the approach of src/sources/watch/json-values.ts): pretty-printers (jq, kubectl,
 * gcloud, Python) put each top-level value — or each element of a top-level array — at the
 * same indentation and indent everything nested deeper. So
 * - text between values is reported once (`onStray`) and skipped up to the next line whose
 *   first byte is a `{` (or `[`) at the values' column;
 * - a `{` first on its line at the values' column while a value is still open, or a raw newline
 *   inside a string (JSON has none), means the open value was cut off: it is reported
 *   (`onCut`) and dropped, and reading goes on with the next value.
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
  /** At the start of a line (only blanks seen on it so far), and how many blanks. */
  private lineStart = true;
  private indent = 0;
  /** Column of the top-level values (array elements), once seen at the start of a line. */
  private valueCol = -1;
  /** Skipping damaged text up to the next value start. */
  private resync = false;

  constructor(
    private readonly maxBytes: number = DEFAULT_MAX_LINE_BYTES,
    private readonly onTooLong?: (line: number, bytes: number) => void,
    private readonly onStray?: (line: number, sample: string) => void,
    private readonly stats?: ReaderStats,
    private readonly onCut?: (line: number) => void,
    /** Number of the line the first byte is on (after skipped blank lines, more than 1). */
    firstLine = 1,
  ) {
    this.line = firstLine;
  }

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
        else if (c === 10) {
          // A raw newline cannot be part of a JSON string: the value was cut off here.
          this.cut();
          start = -1;
          this.resync = true;
          this.newLine();
        }
        continue;
      }
      if (c === 10) {
        this.newLine();
        continue;
      }
      let first = false; // first non-blank byte of its line
      if (this.lineStart) {
        if (c === 32 || c === 9 || c === 13) {
          this.indent++;
          continue;
        }
        this.lineStart = false;
        first = true;
      }
      if (this.resync) {
        if (!(first && this.startsValue(c))) {
          if (this.stats) this.stats.strayBytes++;
          continue;
        }
        this.resync = false;
      }
      if (this.depth > 0) {
        if (first && c === 123 && this.valueCol >= 0 && this.indent === this.valueCol) {
          // A new value starts where values start while this one is still open: it was cut off.
          this.cut();
          start = -1;
          // fall through: the new value starts at this byte
        } else {
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
        if (first && this.valueCol < 0) this.valueCol = this.indent;
        this.depth = 1;
        this.valueLine = this.line;
        start = i;
        continue;
      }
      if (this.stats) this.stats.strayBytes++;
      const end = chunk.indexOf(10, i);
      this.onStray?.(this.line, chunk.toString('utf8', i, Math.min(end < 0 ? n : end, i + 80)));
      this.resync = true;
    }
    if (this.depth > 0 && start >= 0) this.keep(chunk.subarray(start));
    return out;
  }

  /** Flushes at the end of input: an unclosed value is returned marked `unterminated`. */
  end(): Line[] {
    if (this.depth === 0) return [];
    const out: Line[] = [];
    // The unclosed value is a unit read like the others (counted in `lines`).
    if (this.stats) this.stats.lines++;
    if (this.dropping) {
      this.onTooLong?.(this.valueLine, this.pieceLen);
      if (this.stats) this.stats.tooLong++;
    } else if (this.pieceLen > 0) {
      out.push({ no: this.valueLine, text: Buffer.concat(this.pieces, this.pieceLen).toString('utf8'), unterminated: true });
    }
    this.reset();
    return out;
  }

  /** The input broke off (damaged data): drops an open value; returns the line it started on (or the current line). */
  abandon(): number {
    const line = this.depth > 0 ? this.valueLine : this.line;
    this.reset();
    return line;
  }

  private startsValue(c: number): boolean {
    if (c === 123) return this.indent === (this.valueCol >= 0 ? this.valueCol : 0);
    return c === 91 && !this.inArray && this.indent === 0;
  }

  private newLine(): void {
    this.line++;
    this.lineStart = true;
    this.indent = 0;
  }

  /** The open value was cut off: report and drop it. */
  private cut(): void {
    if (this.depth === 0) return;
    if (this.stats) this.stats.lines++;
    this.onCut?.(this.valueLine);
    this.reset();
  }

  private reset(): void {
    this.pieces = [];
    this.pieceLen = 0;
    this.depth = 0;
    this.inString = false;
    this.escape = false;
    this.dropping = false;
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
