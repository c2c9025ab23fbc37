/**
 * The memory bound on reading an input. kexp keeps what it needs of an input in memory (the live
 * objects of a watch dump, the owners it models, their pods and events), so an input of a million
 * ReplicaSets can outgrow V8's heap, and V8 then aborts the process with "JavaScript heap out
 * of memory" and a native stack trace — the worst possible answer to a big input. Instead, the
 * readers ask this bound as they consume bytes: when the heap in use passes
 * `HEAP_FRACTION` of the old generation's limit, reading stops with an InputTooLargeError — one line naming the
 * file, how far it was read and what to do, exit 6 (input problems; README, exit codes). Past
 * that fraction a garbage collection no longer frees enough for V8 to go on for long, and the
 * rest (analysis, rendering) needs room of its own. The old generation's limit is
 * `heap_size_limit` (Node's default or `--max-old-space-size`, plus the young generation) less
 * YOUNG_RESERVE: V8 reserves room for its young generation in that limit (measured on Node 24:
 * heap_size_limit − max-old-space-size = 192 MiB at 64, 256 and the default 4,096 MiB), and what
 * outgrows the heap is the old generation; with a small limit the total would never be reached.
 *
 * The replay asks it too (`replayed`, once per event the engine replays: ReplayOptions
 * .onEventReplayed), since the model holds every owner of the input — `--rs` narrows the report,
 * not the simulation — and grows after the reading is done.
 *
 * Contract: `MemoryBound.consumed(file, bytes)` and `replayed(inputs)` throw InputTooLargeError
 * when the heap is over the bound; otherwise return. They read the heap's statistics once per
 * CHECK_BYTES consumed / CHECK_EVENTS replayed (and at the first call), never a clock.
 * Cost: one getHeapStatistics call (~µs) per 4 MiB read or 4,096 events replayed.
 */
import v8 from 'node:v8';
import { InputError } from './source.js';

/** The share of the old generation's limit in use at which reading stops. */
export const HEAP_FRACTION = 0.8;
/** V8's young generation within heap_size_limit (3 semi-spaces of 64 MiB); the old generation keeps at least a quarter. */
const YOUNG_RESERVE = 192 << 20;

/** The heap in use and the old generation's limit, from V8's statistics. */
function v8Heap(): { used: number; limit: number } {
  const s = v8.getHeapStatistics();
  return { used: s.used_heap_size, limit: Math.max(s.heap_size_limit - YOUNG_RESERVE, s.heap_size_limit / 4) };
}
/** Bytes read, and events replayed, between two looks at the heap. */
const CHECK_BYTES = 4 << 20;
const CHECK_EVENTS = 4096;

/** The input does not fit in memory: reading stopped (never a partial result). */
export class InputTooLargeError extends InputError {
  constructor(file: string, read: number | undefined, used: number, limit: number) {
    super(
      file,
      0,
      `input too large: ${read === undefined ? 'while replaying it' : `after ${mib(read)} of it`} kexp's memory holds ${mib(used)} of the ${mib(limit)} it may use; ` +
        'analyse a part (--rs NAMESPACE/NAME, --since/--until, fewer files) or give it more (NODE_OPTIONS=--max-old-space-size=MiB)',
    );
    this.name = 'InputTooLargeError';
  }
}

/** The inputs named in a message: `a.json`, `a.json and 2 more`. */
export function inputsLabel(files: string[]): string {
  if (files.length === 0) return 'the input';
  return files.length === 1 ? files[0]! : `${files[0]} and ${files.length - 1} more`;
}

function mib(n: number): string {
  return `${Math.round(n / (1 << 20)).toLocaleString('en-US')} MiB`;
}

export class MemoryBound {
  private read = 0;
  private nextCheck = 0;
  private events = 0;
  private nextEventCheck = 0;

  constructor(
    /** V8's heap statistics (injected for tests). */
    private readonly heap: () => { used: number; limit: number } = v8Heap,
  ) {}

  /** Notes `bytes` more of `file` read; throws InputTooLargeError when the heap is over the bound. */
  consumed(file: string, bytes: number): void {
    this.read += bytes;
    if (this.read < this.nextCheck) return;
    this.nextCheck = this.read + CHECK_BYTES;
    const { used, limit } = this.heap();
    if (used > HEAP_FRACTION * limit) throw new InputTooLargeError(file, this.read, used, limit);
  }

  /** Notes one more event replayed from `inputs` (their names, for the message); throws as `consumed`. */
  replayed(inputs: string): void {
    if (++this.events < this.nextEventCheck) return;
    this.nextEventCheck = this.events + CHECK_EVENTS;
    const { used, limit } = this.heap();
    if (used > HEAP_FRACTION * limit) throw new InputTooLargeError(inputs, undefined, used, limit);
  }
}
