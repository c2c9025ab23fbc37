/**
 * Threaded lines: the JSON lines of one audit log file read on a reader thread (reader-thread.ts,
 * a `node:worker_threads` worker), so that the file, gzip, the line splitting and the byte
 * prefilter run on the second core while the main thread parses the few lines that pass and
 * replays them.
 *
 * Contract: the same interface and results as the InputReader it replaces for `lines()` — the
 * same batches of lines with their numbers, `stats` and `lastLineText()` as they were when each
 * batch was handed out, the over-long-line and damage callbacks in the same order relative to the
 * lines, the same InputError (file, line, message) — for a regular file only (the thread opens it
 * again; stdin and pipes cannot be read twice). The InputReader that sniffed the file is kept until
 * the thread's first message: if the thread cannot start (no worker entry beside the bundle, e.g.
 * the single executable, or a loader that workers do not inherit) its lines are read on the main
 * thread as before. At most `MAX_IN_FLIGHT` batches are in flight (back-pressure through a counter in
 * shared memory); `close()` ends the thread.
 * Used only when asked (`KEXP_READER_THREAD=on|auto`, `readerThreadMode`): off by default.
 * Cost: a worker's start-up (~0.07–0.1 s of CPU, bench/README.md "Both cores for the file
 * commands"), hence in `auto` only above `THREAD_MIN_BYTES`; per batch one message, and per passing line one
 * `toString` of its bytes (as on the main thread before).
 */
import { existsSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { trackRead } from '../read-progress.js';
import { InputError } from '../source.js';
import { DEFAULT_MAX_LINE_BYTES, type InputReader, type Line, type ReaderStats } from './line-reader.js';
import type { PrefilterChoice } from './prefilter-choice.js';

/** What the reader thread is started with (its workerData). */
export interface ReaderThreadData {
  file: string;
  maxLineBytes: number;
  prefilter: PrefilterChoice;
  /** Passing bytes collected before a batch is sent. */
  batchBytes: number;
  /** Chunks (segments) collected before a batch is sent. */
  maxSegments: number;
  /** Batches sent and not yet consumed before the thread waits. */
  maxInFlight: number;
  /** One Int32: the batches the main thread consumed (Atomics.add / notify; a message per batch costs more). */
  acked: SharedArrayBuffer;
}

/** One chunk read by the thread: what the main thread's reader had done when it yielded that chunk's lines. */
export interface ReaderThreadSegment {
  /** Lines of the batch that are this chunk's (in order). */
  lines: number;
  /** Over-long lines dropped in this chunk: line, bytes, line, bytes, … */
  tooLong: number[];
  stats: ReaderStats;
  /** Bytes of the file read (compressed bytes for gzip), for the progress line. */
  read: number;
  /** The last line the reader saw, as offset and length of its bytes in the batch. */
  last?: [number, number];
  /** The gzip data broke off (the reader's onDamage), after the chunk's lines. */
  damage?: { line: number; message: string };
}

export interface ReaderThreadMessage {
  bytes: ArrayBuffer;
  offset: number;
  used: number;
  /** Per line: offset, length, line number, unterminated (0/1). */
  meta: ArrayBuffer;
  segments: ReaderThreadSegment[];
  /** Set on the last message: the input ended, or an error stopped the reading. */
  end?: { error?: { line: number; message: string; input: boolean } };
}

export interface ThreadedLinesOptions {
  maxLineBytes?: number;
  onTooLong?: (line: number, bytes: number) => void;
  onDamage?: (line: number, message: string) => void;
}

/**
 * Uncompressed bytes from which a file is read on a thread; smaller files are read faster on the
 * main thread than a worker starts. gzip files count ×6 (a typical audit log's ratio).
 */
export const THREAD_MIN_BYTES = 16 << 20;
const BATCH_BYTES = 1 << 20;
const MAX_SEGMENTS = 8;
export const MAX_IN_FLIGHT = 4;
const YOUNG_GENERATION_MB = 4;
const OLD_GENERATION_MB = 32;

/**
 * `KEXP_READER_THREAD`: `on` for every regular file (tests, measurements), `auto` by size, else
 * (unset) `off`. Off by default: measured, it saves the main thread 7–16 % of its CPU on the 256 MB
 * logs but costs 3–5 % more CPU in all and 16–87 MB more peak RSS, and no wall-time gain was seen
 * (bench/README.md, "Both cores for the file commands").
 */
export type ReaderThreadMode = 'auto' | 'on' | 'off';

export function readerThreadMode(): ReaderThreadMode {
  const v = process.env.KEXP_READER_THREAD;
  return v === 'on' || v === 'auto' ? v : 'off';
}

/**
 * The worker entry `name` (a module of this folder: reader-thread, lease-thread) beside this module
 * (src/ under tsx, dist/ in the bundle), if there is one.
 */
export function workerEntry(name = 'reader-thread'): URL | undefined {
  for (const rel of [`./${name}.js`, `./${name}.ts`, `../sources/audit/${name}.js`]) {
    try {
      const u = new URL(rel, import.meta.url);
      if (u.protocol === 'file:' && existsSync(fileURLToPath(u))) return u;
    } catch {
      return undefined; // no module URL (the single executable's CommonJS bundle): no thread
    }
  }
  return undefined;
}

/** Should `file` be read on a thread? Regular files only, above the size threshold in `auto`. */
export function readOnThread(file: string, mode: ReaderThreadMode, compressed: boolean): boolean {
  if (mode === 'off' || file === '-') return false;
  let size: number;
  try {
    const st = statSync(file);
    if (!st.isFile()) return false;
    size = st.size;
  } catch {
    return false;
  }
  if (mode === 'auto' && (compressed ? size * 6 : size) < THREAD_MIN_BYTES) return false;
  return workerEntry() !== undefined;
}

let threadsStarted = 0;
/** Reader threads whose first batch arrived, in this process (tests check the thread was used). */
export function readerThreadsStarted(): number {
  return threadsStarted;
}

export class ThreadedLines {
  /** The thread's statistics as of the last batch handed out. */
  private readonly threadStats: ReaderStats;
  /** The thread could not start: the sniffing reader reads the lines. */
  private usingFallback = false;
  /** Bytes of the last line the reader saw (a view into its batch), decoded on demand. */
  private last: Buffer | undefined;
  private read = 0;
  private readonly worker: Worker;
  private readonly acked = new Int32Array(new SharedArrayBuffer(4));
  private readonly queue: ReaderThreadMessage[] = [];
  private failure: Error | undefined;
  private exited = false;
  private notify: (() => void) | undefined;
  private started = false;
  private closed = false;

  constructor(
    private readonly reader: InputReader,
    prefilter: PrefilterChoice,
    private readonly opts: ThreadedLinesOptions = {},
  ) {
    this.threadStats = { ...reader.stats };
    const data: ReaderThreadData = {
      file: reader.file,
      maxLineBytes: opts.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES,
      prefilter,
      batchBytes: BATCH_BYTES,
      maxSegments: MAX_SEGMENTS,
      maxInFlight: MAX_IN_FLIGHT,
      acked: this.acked.buffer as SharedArrayBuffer,
    };
    // A small heap: the thread's garbage is per chunk and it keeps no strings (lines, even
    // over-long ones, are Buffers outside the heap); V8's defaults let it grow by tens of MB of RSS
    // (peak RSS on the 256 MB lifecycle log: 435 MB with the young generation capped, 395 MB with
    // both, 363 MB on one thread).
    this.worker = new Worker(workerEntry()!, {
      workerData: data,
      stdout: false,
      stderr: false,
      resourceLimits: { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB, maxOldGenerationSizeMb: OLD_GENERATION_MB },
    });
    // Never what keeps the process alive: it is ref'd only while the main thread waits for it.
    this.worker.unref();
    this.worker.on('message', (m: ReaderThreadMessage) => {
      this.queue.push(m);
      this.wake();
    });
    this.worker.on('error', (e) => {
      this.failure ??= e;
      this.wake();
    });
    this.worker.on('exit', () => {
      this.exited = true;
      this.wake();
    });
    trackRead({ file: reader.file, read: () => this.read });
  }

  private wake(): void {
    const n = this.notify;
    this.notify = undefined;
    n?.();
  }

  private async nextMessage(): Promise<ReaderThreadMessage | undefined> {
    while (this.queue.length === 0 && this.failure === undefined && !this.exited) {
      this.worker.ref();
      await new Promise<void>((r) => (this.notify = r));
      this.worker.unref();
    }
    return this.queue.shift();
  }

  /** The lines that pass the filter, one batch per chunk, as InputReader.lines() yields them. */
  async *lines(): AsyncGenerator<Line[]> {
    const file = this.reader.file;
    for (;;) {
      const m = await this.nextMessage();
      if (m === undefined) {
        if (!this.started) {
          // The thread could not start: read on this thread, from the sniffing reader.
          this.close();
          yield* this.fallback();
          return;
        }
        throw new InputError(file, 0, `cannot read: the reader thread stopped (${this.failure?.message ?? 'exited'})`);
      }
      if (!this.started) {
        this.started = true;
        threadsStarted++;
        this.reader.close();
      }
      const bytes = Buffer.from(m.bytes, m.offset, m.used);
      const meta = new Float64Array(m.meta);
      let k = 0;
      for (const seg of m.segments) {
        for (let i = 0; i < seg.tooLong.length; i += 2) this.opts.onTooLong?.(seg.tooLong[i]!, seg.tooLong[i + 1]!);
        Object.assign(this.threadStats, seg.stats);
        this.read = seg.read;
        this.last = seg.last ? bytes.subarray(seg.last[0], seg.last[0] + seg.last[1]) : undefined;
        if (seg.lines > 0) {
          const out: Line[] = new Array(seg.lines);
          for (let j = 0; j < seg.lines; j++, k += 4) {
            const start = meta[k]!;
            const line: Line = { no: meta[k + 2]!, text: bytes.toString('utf8', start, start + meta[k + 1]!) };
            if (meta[k + 3] === 1) line.unterminated = true;
            out[j] = line;
          }
          yield out;
        }
        if (seg.damage) {
          if (!this.opts.onDamage) throw new InputError(file, 0, seg.damage.message);
          this.opts.onDamage(seg.damage.line, seg.damage.message);
        }
      }
      if (m.end) {
        this.close();
        const e = m.end.error;
        if (e) throw e.input ? new InputError(file, e.line, e.message) : new Error(e.message);
        return;
      }
      Atomics.add(this.acked, 0, 1);
      Atomics.notify(this.acked, 0);
    }
  }

  /** The reader on this thread, with this object's statistics kept in step. */
  private async *fallback(): AsyncGenerator<Line[]> {
    this.usingFallback = true;
    yield* this.reader.lines();
  }

  /** Batches received and not yet handed out: at most MAX_IN_FLIGHT, whatever the consumer's pace. */
  get pendingBatches(): number {
    return this.queue.length;
  }

  /** Statistics of whichever reader read the lines, as InputReader.stats. */
  get stats(): ReaderStats {
    return this.usingFallback ? this.reader.stats : this.threadStats;
  }

  lastLineText(): string | undefined {
    return this.usingFallback ? this.reader.lastLineText() : this.last?.toString('utf8');
  }

  /** Ends the thread (safe to call more than once). */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    void this.worker.terminate();
  }
}
