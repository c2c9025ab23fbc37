/**
 * Streaming gunzip that reads gzip members one by one (RFC 1952), so that the complete members
 * of a file are used in full and whatever follows them is told apart:
 *
 * - another member (`cat a.gz b.gz`, rotated logs joined): read on;
 * - zero bytes (tape/block padding): ignored, like gzip and Node's Gunzip do;
 * - anything else: `GzipTrailingGarbage` is thrown after every byte of the members before it
 *   was delivered (gzip prints "decompression OK, trailing garbage ignored").
 *
 * Damage inside a member is thrown as a `GzipDataError` carrying zlib's code and message
 * (`Z_DATA_ERROR` "invalid distance too far back", "incorrect data check", `Z_BUF_ERROR`
 * "unexpected end of file", …), after everything decoded before it.
 *
 * Why our own member loop around `zlib.createInflateRaw` instead of `zlib.createGunzip`: Gunzip
 * handles concatenated members itself, but when the bytes after a member are not another
 * member it fails with "incorrect header check", and the output it produced in that same call
 * — the end of the last good member, up to a whole chunk — is discarded with the error
 * (and a pipeline or async iterator also drops what was buffered). Parsing the 10-byte header
 * and 8-byte trailer ourselves tells us exactly where each member ends: after a raw inflate
 * stream finishes, its `bytesWritten` is the number of compressed bytes it consumed, and the
 * rest of that input chunk is the trailer and what follows. The trailer's CRC-32 and length
 * are checked here (a raw inflate does not), with `zlib.crc32` (Node ≥ 20.15) or, on older
 * Node 20, a table-driven CRC-32 below.
 *
 * Memory is bounded also for a gzip bomb: output is taken with 'data' events and the inflate
 * stream is paused while more than `readAhead` decompressed bytes wait for the consumer (a
 * paused stream stops inflating once its buffer is full), and compressed input is fed one
 * chunk at a time, the next only after the previous one was consumed by the inflater.
 */
import * as zlib from 'node:zlib';

export const DEFAULT_GUNZIP_CHUNK = 256 * 1024;
export const DEFAULT_GUNZIP_READ_AHEAD = 4 << 20;
/** Zero bytes after the last member accepted as padding; more is reported as trailing garbage. */
const MAX_ZERO_PADDING = 1 << 20;

const FHCRC = 0x02;
const FEXTRA = 0x04;
const FNAME = 0x08;
const FCOMMENT = 0x10;
const FRESERVED = 0xe0;

/** Damaged or truncated gzip data; `code` and `message` as zlib reports them. */
export class GzipDataError extends Error {
  constructor(
    readonly code: 'Z_DATA_ERROR' | 'Z_BUF_ERROR',
    message: string,
  ) {
    super(message);
    this.name = 'GzipDataError';
  }
}

/** Bytes that are not a gzip member follow the last complete member (at compressed `offset`). */
export class GzipTrailingGarbage extends Error {
  constructor(readonly offset: number) {
    super(`trailing garbage after the gzip data ignored (from byte ${offset} of the compressed input on)`);
    this.name = 'GzipTrailingGarbage';
  }
}

const EMPTY = Buffer.alloc(0);

/** Pull-based reader over compressed chunks with one chunk of push-back. */
class ByteReader {
  /** Compressed bytes consumed (everything before `buf[pos]`). */
  offset = 0;
  private buf: Buffer = EMPTY;
  private pos = 0;
  private done = false;
  private readonly it: AsyncIterator<Buffer>;

  constructor(src: AsyncIterable<Buffer>) {
    this.it = src[Symbol.asyncIterator]();
  }

  private async fill(): Promise<boolean> {
    while (this.pos >= this.buf.length) {
      if (this.done) return false;
      const r = await this.it.next();
      if (r.done) {
        this.done = true;
        this.buf = EMPTY;
        this.pos = 0;
        return false;
      }
      this.buf = r.value;
      this.pos = 0;
    }
    return true;
  }

  async byte(): Promise<number | undefined> {
    if (!(await this.fill())) return undefined;
    this.offset++;
    return this.buf[this.pos++]!;
  }

  /** Little-endian unsigned 32-bit integer. */
  async uint32(): Promise<number | undefined> {
    let v = 0;
    for (let i = 0; i < 4; i++) {
      const b = await this.byte();
      if (b === undefined) return undefined;
      v += b * 2 ** (8 * i);
    }
    return v;
  }

  async skip(n: number): Promise<boolean> {
    while (n > 0) {
      if (!(await this.fill())) return false;
      const k = Math.min(n, this.buf.length - this.pos);
      this.pos += k;
      this.offset += k;
      n -= k;
    }
    return true;
  }

  /** Skips up to and including the next zero byte (a header's file name or comment). */
  async skipZeroTerminated(): Promise<boolean> {
    for (;;) {
      if (!(await this.fill())) return false;
      const z = this.buf.indexOf(0, this.pos);
      const end = z === -1 ? this.buf.length : z + 1;
      this.offset += end - this.pos;
      this.pos = end;
      if (z !== -1) return true;
    }
  }

  /** The rest of the current chunk, else the next chunk; undefined at the end. */
  async take(): Promise<Buffer | undefined> {
    if (!(await this.fill())) return undefined;
    const b = this.pos === 0 ? this.buf : this.buf.subarray(this.pos);
    this.offset += b.length;
    this.buf = EMPTY;
    this.pos = 0;
    return b;
  }

  /** Gives back the unused end of the chunk last returned by `take`. */
  unread(b: Buffer): void {
    this.buf = b;
    this.pos = 0;
    this.offset -= b.length;
  }

  async close(): Promise<void> {
    await this.it.return?.(undefined);
  }
}

const truncated = (): GzipDataError => new GzipDataError('Z_BUF_ERROR', 'unexpected end of file');

/** Reads the rest of a member header after its first two bytes (`id2` is the second). */
async function readHeader(input: ByteReader, id2: number): Promise<void> {
  const cm = await input.byte();
  const flg = await input.byte();
  if (cm === undefined || flg === undefined) throw truncated();
  if (id2 !== 0x8b) throw new GzipDataError('Z_DATA_ERROR', 'incorrect header check');
  if (cm !== 8) throw new GzipDataError('Z_DATA_ERROR', 'unknown compression method');
  if (flg & FRESERVED) throw new GzipDataError('Z_DATA_ERROR', 'unknown header flags set');
  // MTIME (4), XFL, OS
  if (!(await input.skip(6))) throw truncated();
  if (flg & FEXTRA) {
    const lo = await input.byte();
    const hi = await input.byte();
    if (lo === undefined || hi === undefined || !(await input.skip(lo + 256 * hi))) throw truncated();
  }
  if (flg & FNAME && !(await input.skipZeroTerminated())) throw truncated();
  if (flg & FCOMMENT && !(await input.skipZeroTerminated())) throw truncated();
  // The optional header CRC-16 is skipped, not checked: gzip(1) never writes it, and a damaged
  // header shows up as a wrong method/flag or as damaged deflate data right after it.
  if (flg & FHCRC && !(await input.skip(2))) throw truncated();
}

/** True when only zero bytes (at most MAX_ZERO_PADDING of them) follow up to the end. */
async function onlyZeroPadding(input: ByteReader): Promise<boolean> {
  let seen = 1; // the zero byte already read
  for (;;) {
    const c = await input.take();
    if (c === undefined) return true;
    for (let i = 0; i < c.length; i++) if (c[i] !== 0) return false;
    seen += c.length;
    if (seen > MAX_ZERO_PADDING) return false;
  }
}

export interface GunzipOptions {
  /** Size of the decompressed chunks (zlib's chunkSize). */
  chunkSize?: number;
  /** Decompressed bytes that may wait for the consumer before inflating pauses. */
  readAhead?: number;
}

/**
 * Decompresses a gzip stream (one or more members) chunk by chunk. Throws `GzipDataError` for
 * damaged or truncated data and `GzipTrailingGarbage` for bytes after the last member that are
 * neither a member nor zero padding — in both cases after delivering all output before it.
 * Errors of `src` itself propagate unchanged.
 */
export async function* gunzipMembers(src: AsyncIterable<Buffer>, opts: GunzipOptions = {}): AsyncGenerator<Buffer> {
  const chunkSize = opts.chunkSize ?? DEFAULT_GUNZIP_CHUNK;
  const readAhead = opts.readAhead ?? DEFAULT_GUNZIP_READ_AHEAD;
  const input = new ByteReader(src);
  try {
    for (let member = 0; ; member++) {
      const start = input.offset;
      const id1 = await input.byte();
      if (id1 === undefined) {
        if (member === 0) throw truncated();
        return;
      }
      if (member > 0 && id1 !== 0x1f) {
        if (id1 === 0 && (await onlyZeroPadding(input))) return;
        throw new GzipTrailingGarbage(start);
      }
      const id2 = await input.byte();
      if (id2 === undefined) throw truncated();
      if (id1 !== 0x1f) throw new GzipDataError('Z_DATA_ERROR', 'incorrect header check');
      // After a member, bytes that merely start with 0x1f are garbage too.
      if (member > 0 && id2 !== 0x8b) throw new GzipTrailingGarbage(start);
      await readHeader(input, id2);
      yield* inflateMember(input, chunkSize, readAhead);
    }
  } finally {
    await input.close();
  }
}

/** Inflates one member's deflate data and checks its trailer; leaves `input` after the trailer. */
async function* inflateMember(input: ByteReader, chunkSize: number, readAhead: number): AsyncGenerator<Buffer> {
  const z = zlib.createInflateRaw({ chunkSize });
  const queue: Buffer[] = [];
  let head = 0;
  let queued = 0;
  let crc = 0;
  let size = 0;
  let ended = false;
  let error: unknown;
  let wake: (() => void) | undefined;
  const signal = (): void => {
    const w = wake;
    wake = undefined;
    w?.();
  };
  z.on('data', (b: Buffer) => {
    queue.push(b);
    queued += b.length;
    crc = crc32(b, crc);
    size = (size + b.length) % 2 ** 32;
    if (queued >= readAhead) z.pause();
    signal();
  });
  z.on('end', () => {
    ended = true;
    signal();
  });
  z.on('error', (e) => {
    error ??= e;
    signal();
  });

  /** A write awaits its callback. */
  let writing = false;
  /** No more input goes to the inflater (its stream ended, or the input did). */
  let inputDone = false;
  /** Compressed bytes written to the inflater, and where the last written chunk starts. */
  let fed = 0;
  let chunkStart = 0;
  let current: Buffer = EMPTY;
  try {
    for (;;) {
      if (head < queue.length) {
        const b = queue[head]!;
        queue[head++] = EMPTY;
        if (head >= 1024) {
          queue.splice(0, head);
          head = 0;
        }
        queued -= b.length;
        if (queued < readAhead && z.isPaused()) z.resume();
        yield b;
        continue;
      }
      if (error !== undefined) throw error;
      if (ended && !writing) break;
      if (!writing && !inputDone) {
        const c = await input.take();
        if (c === undefined) {
          inputDone = true;
          z.end(); // an unfinished deflate stream fails with "unexpected end of file"
          continue;
        }
        current = c;
        chunkStart = fed;
        fed += c.length;
        writing = true;
        z.write(c, () => {
          writing = false;
          // The raw stream ended inside this chunk: the rest is the trailer and what follows.
          if (z.bytesWritten < fed) {
            input.unread(current.subarray(z.bytesWritten - chunkStart));
            inputDone = true;
          }
          signal();
        });
        continue;
      }
      await new Promise<void>((r) => (wake = r));
    }
  } finally {
    z.destroy();
  }
  const storedCrc = await input.uint32();
  const storedSize = await input.uint32();
  if (storedCrc === undefined || storedSize === undefined) throw truncated();
  if (storedCrc !== crc >>> 0) throw new GzipDataError('Z_DATA_ERROR', 'incorrect data check');
  if (storedSize !== size) throw new GzipDataError('Z_DATA_ERROR', 'incorrect length check');
}

// ---------------------------------------------------------------------------------------------
// CRC-32 (IEEE 802.3, the one gzip uses)

let table: Uint32Array | undefined;

/** Table-driven CRC-32 for Node 20 releases before 20.15, which lack `zlib.crc32`. */
function crc32Js(data: Buffer, value: number): number {
  if (!table) {
    table = new Uint32Array(256);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      table[n] = c >>> 0;
    }
  }
  let c = ~value >>> 0;
  for (let i = 0; i < data.length; i++) c = table[(c ^ data[i]!) & 0xff]! ^ (c >>> 8);
  return ~c >>> 0;
}

const nativeCrc32 = (zlib as { crc32?: (data: Buffer, value?: number) => number }).crc32;

/** CRC-32 of `data` continuing from `value`. */
export function crc32(data: Buffer, value = 0): number {
  return nativeCrc32 ? nativeCrc32(data, value) : crc32Js(data, value);
}
