/**
 * The reader thread: the body of the `node:worker_threads` worker that reads one audit log of JSON
 * lines — the file, gzip, the line splitting and the byte prefilter (line-reader.ts, the filter of
 * prefilter-choice.ts) — on the second core, and hands the main thread only the lines that pass,
 * as bytes (threaded-lines.ts receives them).
 *
 * Contract: the same InputReader as on the main thread, so the same lines, numbers, statistics and
 * callbacks in the same order: each message carries one segment per chunk read — that chunk's
 * over-long lines, the statistics and the last line's bytes after it, and how many of the message's
 * lines are its — and the last message the end's (a cut-off last line, damaged gzip data); an
 * error is sent after the lines read before it. At most `maxInFlight` messages are not yet consumed
 * (a counter the main thread raises in shared memory, `Atomics.waitAsync` here): the thread waits
 * for the main thread, so memory stays bounded when the engine is slower.
 * Cost: two copies of the passing lines' bytes (into the staging buffer, then into the batch's own
 * ArrayBuffer, which is transferred, not copied again); the rest is the reader's own cost, off the
 * main thread.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { readTotals } from '../read-progress.js';
import { InputError } from '../source.js';
import { InputReader } from './line-reader.js';
import { lineFilterOf } from './prefilter-choice.js';
import type { ReaderThreadData, ReaderThreadMessage, ReaderThreadSegment } from './threaded-lines.js';

const data = workerData as ReaderThreadData;
const port = parentPort!;

/** Batches sent; the main thread counts the ones it consumed in `data.acked[0]` (no message per batch). */
let sent = 0;
const acked = new Int32Array(data.acked);
// Keeps this thread's event loop alive while it waits on `acked` (a pending waitAsync does not).
port.on('message', () => undefined);
/** Atomics.waitAsync (Node ≥ 16; not in the TypeScript library this project targets). */
const waitAsync = (Atomics as unknown as { waitAsync(a: Int32Array, i: number, v: number): { async: boolean; value: Promise<string> | string } }).waitAsync;

let tooLong: number[] = [];
let damage: { line: number; message: string } | undefined;
const reader = new InputReader(data.file, {
  maxLineBytes: data.maxLineBytes,
  onTooLong: (line, bytes) => tooLong.push(line, bytes),
  onDamage: (line, message) => {
    damage = { line, message };
  },
});
reader.filter = lineFilterOf(data.prefilter);

let bytes = Buffer.allocUnsafe(data.batchBytes);
let used = 0;
let meta: number[] = [];
let segments: ReaderThreadSegment[] = [];
let segmentLines = 0;

/** Appends `b[start, end)` to the staging buffer (grown for an over-long line). */
function stage(b: Buffer, start: number, end: number): void {
  const n = end - start;
  if (used + n > bytes.length) {
    const bigger = Buffer.allocUnsafe(Math.max(bytes.length * 2, used + n));
    bytes.copy(bigger, 0, 0, used);
    bytes = bigger;
  }
  b.copy(bytes, used, start, end);
  used += n;
}

function segment(): ReaderThreadSegment {
  const s: ReaderThreadSegment = { lines: segmentLines, tooLong, stats: { ...reader.stats }, read: readTotals().read };
  // The last line's bytes go into the batch after the lines (never decoded here: a line may be
  // as long as maxLineBytes, and this thread's heap is kept small).
  const last = reader.lastLineBytes();
  if (last !== undefined) {
    s.last = [used, last.length];
    stage(last, 0, last.length);
  }
  segmentLines = 0;
  tooLong = [];
  return s;
}

async function flush(end: ReaderThreadMessage['end']): Promise<void> {
  // The passing bytes in an ArrayBuffer of their own size, transferred (the staging buffer is
  // reused: handing it over whole would leave a batchBytes buffer per batch to the main thread's GC).
  const buf = new ArrayBuffer(used);
  bytes.copy(new Uint8Array(buf), 0, 0, used);
  const m = Float64Array.from(meta);
  const msg: ReaderThreadMessage = { bytes: buf, offset: 0, used, meta: m.buffer, segments, ...(end ? { end } : {}) };
  port.postMessage(msg, [buf, m.buffer]);
  sent++;
  if (bytes.length > data.batchBytes) bytes = Buffer.allocUnsafe(data.batchBytes); // after an over-long line
  used = 0;
  meta = [];
  segments = [];
  if (end) return;
  for (let done = Atomics.load(acked, 0); sent - done >= data.maxInFlight; done = Atomics.load(acked, 0)) {
    const w = waitAsync(acked, 0, done);
    if (w.async) await w.value;
  }
}

async function run(): Promise<void> {
  try {
    await reader.skipLeadingBlankLines();
    const sink = (b: Buffer, start: number, end: number, no: number, unterminated: boolean): void => {
      meta.push(used, end - start, no, unterminated ? 1 : 0);
      stage(b, start, end);
      segmentLines++;
    };
    for await (const _ of reader.rawLines(sink)) {
      segments.push(segment());
      if (used >= data.batchBytes || segments.length >= data.maxSegments) await flush(undefined);
    }
    const last = segment();
    if (damage) last.damage = damage;
    segments.push(last);
    await flush({});
  } catch (e) {
    // The lines read before the error first, then the error, as the reader on the main thread throws it.
    const error =
      e instanceof InputError
        ? { line: e.line, message: e.message.slice(e.line > 0 ? `${e.file}:${e.line}: `.length : `${e.file}: `.length), input: true }
        : { line: 0, message: e instanceof Error ? e.message : String(e), input: false };
    await flush({ error });
  } finally {
    reader.close();
  }
}

void run();
