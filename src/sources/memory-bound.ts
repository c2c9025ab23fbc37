/**
 * The memory bound on reading an input. kexp keeps what it needs of an input in memory (the live
 * objects of a watch dump, the owners it models, their pods and events), so an input of a million
 * ReplicaSets can outgrow V8's heap, and V8 then aborts the process with "JavaScript heap out
 * of memory" and a native stack trace — the worst possible answer to a big input. Instead, the
 * readers ask this bound as they consume bytes: when the heap in use passes
 * `HEAP_FRACTION` of V8's limit (`v8.getHeapStatistics().heap_size_limit`, set by Node's default
 * or `--max-old-space-size`), reading stops with an InputTooLargeError — one line naming the
 * file, how far it was read and what to do, exit 6 (input problems; README, exit codes). Past
 * that fraction a garbage collection no longer frees enough for V8 to go on for long, and the
 * rest (analysis, rendering) needs room of its own.
 *
 * Contract: `MemoryBound.consumed(file, bytes)` throws InputTooLargeError when the heap is over
 * the bound; otherwise returns. Reads the heap's statistics once per CHECK_BYTES consumed (and at
 * the first call), never a clock.
 * Cost: one getHeapStatistics call (~µs) per 4 MiB read.
 */
import v8 from 'node:v8';
import { InputError } from './source.js';

/** The share of V8's heap limit in use at which reading stops. */
export const HEAP_FRACTION = 0.8;
/** Bytes read between two looks at the heap. */
const CHECK_BYTES = 4 << 20;

/** The input does not fit in memory: reading stopped (never a partial result). */
export class InputTooLargeError extends InputError {
  constructor(file: string, read: number, used: number, limit: number) {
    super(
      file,
      0,
      `input too large: after ${mib(read)} of it kexp's memory holds ${mib(used)} of the ${mib(limit)} it may use; ` +
        'analyse a part (--rs NAMESPACE/NAME, --since/--until, fewer files) or give it more (NODE_OPTIONS=--max-old-space-size=MiB)',
    );
    this.name = 'InputTooLargeError';
  }
}

function mib(n: number): string {
  return `${Math.round(n / (1 << 20)).toLocaleString('en-US')} MiB`;
}

export class MemoryBound {
  private read = 0;
  private nextCheck = 0;

  constructor(
    /** V8's heap statistics (injected for tests). */
    private readonly heap: () => { used: number; limit: number } = () => {
      const s = v8.getHeapStatistics();
      return { used: s.used_heap_size, limit: s.heap_size_limit };
    },
  ) {}

  /** Notes `bytes` more of `file` read; throws InputTooLargeError when the heap is over the bound. */
  consumed(file: string, bytes: number): void {
    this.read += bytes;
    if (this.read < this.nextCheck) return;
    this.nextCheck = this.read + CHECK_BYTES;
    const { used, limit } = this.heap();
    if (used > HEAP_FRACTION * limit) throw new InputTooLargeError(file, this.read, used, limit);
  }
}
