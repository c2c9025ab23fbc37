/**
 * Byte-level input for every file-reading source: open a path (or `-` for stdin), sniff
 * gzip by its magic bytes, and split the decompressed bytes into lines.
 *
 * Why our own line splitter and not `readline` or `split2`: this is the hot path for
 * multi-GB recordings and audit logs. libraries.md §B.6 measured an async-iterated Buffer
 * splitter built on `indexOf(10)` at ~200 MB/s against ~80–90 MB/s for `readline` and
 * `split2` on the same files (plain and gzip), and `readline` historically swallowed errors
 * from its input stream (nodejs/node#33463) — we need gzip damage to reach the caller.
 *
 * Errors that make the input unreadable surface as `InputError` naming the file, never as a
 * raw zlib/fs exception with a stack. When the input stops early after good data — damaged or
 * truncated gzip, trailing garbage after the gzip members, endless binary data (see
 * binary-data.ts) — the stream delivers every byte before that point and then throws an
 * `InputCutError`, which readers report at the line being read while keeping what they read.
 *
 * `skipBlankLines` lets sniffers look past any amount of leading blank lines with bounded
 * memory: the blank lines are counted, not kept (readers re-emit or offset by the count).
 */
import { open } from 'node:fs/promises';
import { NulRunGuard } from './binary-data.js';
import { GzipDataError, GzipTrailingGarbage, gunzipMembers } from './gzip-members.js';
import { InputError } from './source.js';
import { trackRead } from './read-progress.js';
import { MemoryBound } from './memory-bound.js';

/** Chunk size for file reads (libraries.md §B.6: 1 MiB reads). */
const READ_CHUNK = 1 << 20;
/** Default longest accepted line. A watch event of a 1.5 MiB etcd object stays far below. */
export const DEFAULT_MAX_LINE_BYTES = 64 * 1024 * 1024;
/** Decompressed bytes inflated ahead of the reader. */
const GUNZIP_READ_AHEAD = 4 << 20;

/**
 * The input stopped early, after every byte before the stop was delivered: damaged/truncated
 * gzip data, trailing garbage after the gzip data, or endless binary data. `reason` is the
 * message without the file name.
 */
export class InputCutError extends InputError {
  constructor(
    file: string,
    readonly reason: string,
  ) {
    super(file, 0, reason);
  }
}

export interface InputBytes {
  /** The path as given (`-` for stdin). */
  file: string;
  /** Decompressed bytes. Iterate once. Read/decompress failures throw `InputError`. */
  stream: AsyncIterable<Buffer>;
  /** True when the input started with the gzip magic bytes 1f 8b. */
  gzip: boolean;
}

function fsReason(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  switch (e?.code) {
    case 'ENOENT':
      return 'no such file';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'EISDIR':
      return 'is a directory';
    default:
      return e?.message ?? String(err);
  }
}

function toBuffer(c: unknown): Buffer {
  return Buffer.isBuffer(c) ? c : typeof c === 'string' ? Buffer.from(c, 'utf8') : Buffer.from(c as Uint8Array);
}

/** Wraps a raw byte source so read errors become InputError (the first one wins). */
async function* readGuarded(file: string, src: AsyncIterable<unknown>): AsyncGenerator<Buffer> {
  try {
    for await (const c of src) yield toBuffer(c);
  } catch (err) {
    if (err instanceof InputError) throw err;
    throw new InputError(file, 0, `cannot read: ${fsReason(err)}`);
  }
}

/**
 * Opens `path` (`-` = `stdin`, default `process.stdin`) and returns its decompressed bytes.
 * Gzip is recognised by the magic bytes 1f 8b, not by the file name; concatenated gzip
 * members are read as one stream. Throws InputError for missing/unreadable/empty files.
 * Later the stream throws `InputCutError` (after the bytes before the cut):
 * - damaged gzip data: "gzip data is corrupt/truncated after N bytes (zlib: …)", where N
 *   counts decompressed bytes delivered before the damage;
 * - bytes after the last gzip member that are no gzip member (nor zero padding):
 *   "trailing garbage after the gzip data ignored (…)";
 * - a run without line break longer than `maxLineBytes` that contains NUL bytes:
 *   "binary data: more than … MiB without a line break, with NUL bytes; stopped reading here …".
 */
export async function openInputBytes(
  path: string,
  stdin?: NodeJS.ReadableStream,
  opts: { maxLineBytes?: number } = {},
): Promise<{ file: string; stream: AsyncIterable<Buffer>; gzip: boolean }> {
  const file = path;
  let raw: AsyncIterable<unknown>;
  if (path === '-') {
    raw = (stdin ?? process.stdin) as AsyncIterable<unknown>;
  } else {
    let fh;
    try {
      fh = await open(path, 'r');
    } catch (err) {
      throw new InputError(file, 0, `cannot open: ${fsReason(err)}`);
    }
    const rs = fh.createReadStream({ highWaterMark: READ_CHUNK });
    const st = await fh.stat().catch(() => undefined);
    rs.once('close', trackRead({ file, ...(st?.isFile() ? { size: st.size } : {}), read: () => rs.bytesRead }));
    raw = rs;
  }
  const it = readGuarded(file, raw)[Symbol.asyncIterator]();
  const guardLimit = opts.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;

  // Sniff: collect at least two bytes (a chunk may hold a single byte on a pipe).
  const head: Buffer[] = [];
  let headLen = 0;
  let ended = false;
  while (headLen < 2) {
    const r = await it.next();
    if (r.done) {
      ended = true;
      break;
    }
    if (r.value.length === 0) continue;
    head.push(r.value);
    headLen += r.value.length;
  }
  if (headLen === 0) throw new InputError(file, 0, 'file is empty');
  const first = head.length === 1 ? head[0]! : Buffer.concat(head);
  const gzip = first.length >= 2 && first[0] === 0x1f && first[1] === 0x8b;

  async function* replay(): AsyncGenerator<Buffer> {
    try {
      yield first;
      if (ended) return;
      for (;;) {
        const r = await it.next();
        if (r.done) return;
        yield r.value;
      }
    } finally {
      await it.return?.(undefined);
    }
  }

  if (!gzip) return { file, stream: guarded(file, replay(), guardLimit), gzip: false };

  const unzipped = gunzip(file, replay())[Symbol.asyncIterator]();
  // Pull the first decompressed chunk now so "gzip of nothing" and a bad header fail early.
  let firstOut: IteratorResult<Buffer>;
  do {
    firstOut = await unzipped.next();
  } while (!firstOut.done && firstOut.value.length === 0);
  if (firstOut.done) throw new InputError(file, 0, 'file is empty (gzip stream holds no data)');
  const firstChunk = firstOut.value;
  async function* rest(): AsyncGenerator<Buffer> {
    try {
      yield firstChunk;
      for (;;) {
        const r = await unzipped.next();
        if (r.done) return;
        yield r.value;
      }
    } finally {
      await unzipped.return?.(undefined);
    }
  }
  return { file, stream: guarded(file, rest(), guardLimit), gzip: true };
}

/** Stops the stream at endless binary data (NulRunGuard, binary-data.ts) and at the memory bound (memory-bound.ts). */
async function* guarded(file: string, src: AsyncIterable<Buffer>, limit: number): AsyncGenerator<Buffer> {
  const guard = new NulRunGuard(limit);
  const memory = new MemoryBound();
  for await (const c of src) {
    const stop = guard.check(c);
    if (stop !== undefined) throw new InputCutError(file, stop);
    memory.consumed(file, c.length);
    yield c;
  }
}

async function* gunzip(file: string, src: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
  let out = 0;
  try {
    for await (const b of gunzipMembers(src, { chunkSize: 256 * 1024, readAhead: GUNZIP_READ_AHEAD })) {
      out += b.length;
      yield b;
    }
  } catch (err) {
    if (err instanceof InputError) throw err;
    if (err instanceof GzipTrailingGarbage) throw new InputCutError(file, err.message);
    const e = err as NodeJS.ErrnoException;
    if (err instanceof GzipDataError || (typeof e?.code === 'string' && e.code.startsWith('Z_'))) {
      throw new InputCutError(file, `gzip data is corrupt/truncated after ${out} bytes (zlib: ${e.message})`);
    }
    throw new InputError(file, 0, `cannot read: ${fsReason(err)}`);
  }
}

/** What `skipBlankLines` skipped, and where the content starts. */
export interface BlankLinesSkipped {
  /** Complete blank lines skipped (line breaks counted). */
  lines: number;
  /** Bytes skipped (not part of `rest`). */
  bytes: number;
  /**
   * The input from the start of its first non-blank line (spaces before its first character
   * included, a UTF-8 byte order mark at the very start dropped): the first chunk of the rest.
   * Undefined when the input ended with blank lines only.
   */
  rest: Buffer | undefined;
}

/** A chunk of line breaks, to compare against and to re-emit blank lines from. */
let newlines: Buffer | undefined;
function newlineBuffer(): Buffer {
  newlines ??= Buffer.alloc(READ_CHUNK, 10);
  return newlines;
}

/** Whitespace kept from before the first non-blank character of its line (longer runs are dropped). */
const MAX_INDENT_KEPT = 64 * 1024;

/**
 * Reads past the blank lines (only spaces, tabs, CR) at the start of an input, counting them
 * instead of keeping them, so that a sniffer decides on the first lines with content whatever
 * precedes them, with memory bounded by one chunk. `next` returns the next chunk, undefined at
 * the end.
 */
export async function skipBlankLines(next: () => Promise<Buffer | undefined>): Promise<BlankLinesSkipped> {
  let lines = 0;
  let consumed = 0;
  /** Blanks after the last line break seen: the start of the line that may hold content. */
  let indent: Buffer[] = [];
  let indentLen = 0;
  let atStart = true;
  for (;;) {
    const c = await next();
    if (c === undefined) return { lines, bytes: consumed, rest: undefined };
    consumed += c.length;
    let i = 0;
    if (atStart) {
      atStart = false;
      if (c.length >= 3 && c[0] === 0xef && c[1] === 0xbb && c[2] === 0xbf) i = 3;
    }
    const nl = newlineBuffer();
    if (i === 0 && indentLen === 0 && c.length <= nl.length && c.equals(nl.subarray(0, c.length))) {
      lines += c.length; // fast path: a chunk of empty lines
      continue;
    }
    let lastNl = -1;
    const from = i;
    for (; i < c.length; i++) {
      const b = c[i]!;
      if (b === 10) {
        lines++;
        lastNl = i;
      } else if (b !== 13 && b !== 32 && b !== 9) break;
    }
    if (lastNl !== -1) {
      indent = [];
      indentLen = 0;
    }
    const lineStart = lastNl !== -1 ? lastNl + 1 : from;
    if (i === c.length) {
      if (lineStart < c.length && indentLen + (c.length - lineStart) <= MAX_INDENT_KEPT) {
        indent.push(c.subarray(lineStart));
        indentLen += c.length - lineStart;
      }
      continue;
    }
    const own = c.subarray(lineStart);
    const rest = indentLen > 0 ? Buffer.concat([...indent, own], indentLen + own.length) : own;
    return { lines, bytes: consumed - own.length - indentLen, rest };
  }
}

/** `n` line breaks as chunks (sharing one buffer), to re-emit skipped blank lines. */
export function* blankLineChunks(n: number): Generator<Buffer> {
  const nl = newlineBuffer();
  while (n > 0) {
    const k = Math.min(n, nl.length);
    yield nl.subarray(0, k);
    n -= k;
  }
}

export interface SplitLine {
  /** 1-based line number. */
  line: number;
  /** Line text without the terminating LF (and without a CR before it). Empty when `tooLongBytes` is set. */
  text: string;
  /** True for a last line that had no terminating newline (a writer may have been interrupted). */
  truncatedFinal: boolean;
  /** Set when the line exceeded `maxLineBytes`: its length in bytes; the text was dropped. */
  tooLongBytes?: number;
}

/**
 * Synchronous core of the splitter, usable chunk by chunk on a hot path (no promise per
 * line). `push` returns the lines completed by the chunk; `end` the unterminated rest.
 */
export class LineSplitter {
  private pending: Buffer[] = [];
  private pendingLen = 0;
  /** Bytes of the current line when it went over the limit (its pieces are discarded). */
  private overLen = 0;
  private lineNo = 0;
  private readonly max: number;

  /** `firstLine`: number of the first line pushed (default 1; after skipped blank lines, more). */
  constructor(opts: { maxLineBytes?: number; firstLine?: number } = {}) {
    this.max = opts.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
    this.lineNo = (opts.firstLine ?? 1) - 1;
  }

  /** Lines completed so far. */
  get linesSeen(): number {
    return this.lineNo;
  }

  push(chunk: Buffer, out: SplitLine[] = []): SplitLine[] {
    let start = 0;
    const len = chunk.length;
    while (start <= len) {
      const nl = chunk.indexOf(10, start);
      if (nl === -1) break;
      this.lineNo++;
      if (this.overLen > 0 || this.pendingLen + (nl - start) > this.max) {
        const total = this.overLen > 0 ? this.overLen + (nl - start) : this.pendingLen + (nl - start);
        out.push({ line: this.lineNo, text: '', truncatedFinal: false, tooLongBytes: total });
        this.overLen = 0;
        this.pending = [];
        this.pendingLen = 0;
      } else if (this.pendingLen === 0) {
        let end = nl;
        if (end > start && chunk[end - 1] === 13) end--;
        out.push({ line: this.lineNo, text: this.decode(chunk, start, end), truncatedFinal: false });
      } else {
        this.pending.push(chunk.subarray(start, nl));
        const whole = Buffer.concat(this.pending, this.pendingLen + (nl - start));
        this.pending = [];
        this.pendingLen = 0;
        let end = whole.length;
        if (end > 0 && whole[end - 1] === 13) end--; // CR may sit at the end of the previous chunk
        out.push({ line: this.lineNo, text: this.decode(whole, 0, end), truncatedFinal: false });
      }
      start = nl + 1;
    }
    if (start < len) {
      const piece = len - start;
      if (this.overLen > 0) this.overLen += piece;
      else if (this.pendingLen + piece > this.max) {
        this.overLen = this.pendingLen + piece;
        this.pending = [];
        this.pendingLen = 0;
      } else {
        // Copy when keeping a small tail of a large chunk so the chunk can be collected.
        this.pending.push(piece < len / 4 ? Buffer.from(chunk.subarray(start)) : chunk.subarray(start));
        this.pendingLen += piece;
      }
    }
    return out;
  }

  end(out: SplitLine[] = []): SplitLine[] {
    if (this.overLen > 0) {
      this.lineNo++;
      out.push({ line: this.lineNo, text: '', truncatedFinal: true, tooLongBytes: this.overLen });
    } else if (this.pendingLen > 0) {
      this.lineNo++;
      const whole = Buffer.concat(this.pending, this.pendingLen);
      let end = whole.length;
      if (end > 0 && whole[end - 1] === 13) end--;
      out.push({ line: this.lineNo, text: this.decode(whole, 0, end), truncatedFinal: true });
    }
    this.pending = [];
    this.pendingLen = 0;
    this.overLen = 0;
    return out;
  }

  private decode(b: Buffer, start: number, end: number): string {
    // Strip a UTF-8 byte order mark at the very start of the input.
    if (this.lineNo === 1 && end - start >= 3 && b[start] === 0xef && b[start + 1] === 0xbb && b[start + 2] === 0xbf) {
      start += 3;
    }
    return b.toString('utf8', start, end);
  }
}

/**
 * Splits a byte stream into lines: LF-terminated, CR before LF dropped, 1-based numbers.
 * Lines longer than `maxLineBytes` (default 64 MiB) are not buffered beyond the limit;
 * they are yielded with empty text and `tooLongBytes` so the caller can report them.
 */
export async function* splitLines(
  chunks: AsyncIterable<Buffer>,
  opts: { maxLineBytes?: number } = {},
): AsyncIterable<SplitLine> {
  const s = new LineSplitter(opts);
  const batch: SplitLine[] = [];
  for await (const c of chunks) {
    batch.length = 0;
    s.push(toBuffer(c), batch);
    for (const l of batch) yield l;
  }
  batch.length = 0;
  s.end(batch);
  for (const l of batch) yield l;
}

/**
 * The first `maxChars` characters (at least; whole chunks) of a file, decompressed and decoded as
 * UTF-8, for sniffing its content. Reads no further than that; throws what openInputBytes throws.
 */
export async function readHead(path: string, maxChars: number): Promise<string> {
  const { stream } = await openInputBytes(path);
  const it = stream[Symbol.asyncIterator]();
  let head = '';
  try {
    while (head.length < maxChars) {
      const r = await it.next();
      if (r.done) break;
      head += (r.value as Buffer).toString('utf8');
    }
  } finally {
    await it.return?.(undefined);
  }
  return head;
}
