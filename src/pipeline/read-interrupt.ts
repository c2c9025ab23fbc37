/**
 * One Ctrl-C (SIGINT) or SIGTERM during `kexp replay`, `audit` or `kcm-log` stops the reading,
 * not the command: the analysis runs on what was read and the report is printed, marked as
 * partial (the commands then exit 130; a second signal exits at once, src/cli/base-command.ts).
 *
 * Two places observe the signal:
 * - the pipelines' own per-event loops ask `reached(ref)` for every event: it notes how far
 *   each file was read and says to stop once the signal is aborted (a Map write and a flag
 *   test per event — no extra async layer on the hot path, issue #13);
 * - standard input can stall: a pipe kept open with nothing written would never deliver the
 *   next event. `stdin(stream)` hands the readers standard input that ends at the signal, at
 *   the last complete line (a line cut by the interrupt is not an input problem), and counts
 *   its bytes. The events of the lines read before that still pass `reached` (a reader may hold
 *   some back, e.g. the kcm-log reader's reordering window, until its input ends). Gzip on stdin is passed through whole: its bytes have no lines to cut at, and a
 *   cut gzip stream would read as corrupt; its events still stop at the next event.
 */
import { Readable } from 'node:stream';
import type { SourceRef } from '../timeline/event.js';
import { readTotals } from '../sources/read-progress.js';

/** The most of an unfinished line stdin() holds back (more is passed on: see below). */
const MAX_HELD = 1024 * 1024;

export class ReadInterrupt {
  private readonly lines = new Map<string, number>();
  private stdinBytes = 0;
  private cut = false;
  /** Standard input was ended at the signal (by `stdin()`): its remaining events are from bytes read before it. */
  private stdinEnded = false;

  constructor(private readonly signal: AbortSignal) {}

  /** Notes that `ref` was read; true when reading must stop (the signal came). */
  reached(ref: SourceRef): boolean {
    if (this.signal.aborted && !(this.stdinEnded && ref.file === '-')) {
      this.cut = true;
      return true;
    }
    this.lines.set(ref.file, ref.line);
    return false;
  }

  /** True (and the reading counts as cut) once the signal came: for loops over whole files. */
  stopped(): boolean {
    if (this.signal.aborted) this.cut = true;
    return this.cut;
  }

  /** Passes `src` through until the signal (for streams no per-event loop of a pipeline reads). */
  async *events<T extends { source: SourceRef }>(src: AsyncIterable<T>): AsyncGenerator<T> {
    for await (const e of src) {
      if (this.reached(e.source)) return;
      yield e;
    }
  }

  /** True once reading was stopped by the signal before the input ended. */
  get interrupted(): boolean {
    return this.cut;
  }

  /** Standard input that ends at the signal (see the module comment). */
  stdin(stream: NodeJS.ReadableStream): NodeJS.ReadableStream {
    const signal = this.signal;
    const count = (n: number) => {
      this.stdinBytes += n;
    };
    const onCut = () => {
      this.cut = true;
    };
    const endStdin = () => {
      this.stdinEnded = true;
    };
    async function* lines(): AsyncGenerator<Buffer> {
      const it = (stream as AsyncIterable<Buffer | string>)[Symbol.asyncIterator]();
      let wake: ((v: 'abort') => void) | undefined;
      const onAbort = () => {
        // Set at once, before any event read meanwhile asks `reached`: those come from bytes read before the signal.
        endStdin();
        wake?.('abort');
      };
      signal.addEventListener('abort', onAbort, { once: true });
      let gzip: boolean | undefined;
      let tail: Buffer | undefined;
      try {
        for (;;) {
          if (signal.aborted) {
            endStdin();
            break;
          }
          const next = it.next();
          // Per chunk (64 KiB), not per event: a race that ends the wait when the signal comes.
          const r = await new Promise<IteratorResult<Buffer | string> | 'abort'>((resolve, reject) => {
            wake = resolve;
            next.then(resolve, reject);
          });
          wake = undefined;
          if (r === 'abort') break;
          if (r.done) {
            if (tail?.length) yield tail;
            return;
          }
          const chunk = typeof r.value === 'string' ? Buffer.from(r.value) : r.value;
          count(chunk.length);
          gzip ??= chunk.length >= 2 ? chunk[0] === 0x1f && chunk[1] === 0x8b : undefined;
          if (gzip !== false) {
            // Gzip (or not known yet: fewer than two bytes so far): passed on as it comes.
            if (tail?.length) {
              yield tail;
              tail = undefined;
            }
            yield chunk;
            continue;
          }
          const joined = tail?.length ? Buffer.concat([tail, chunk]) : chunk;
          const nl = joined.lastIndexOf(0x0a);
          if (nl < 0) {
            // A run without a line break: held back up to MAX_HELD only, so that endless data
            // without newlines still reaches the readers' binary-data guard (input-stream.ts).
            if (joined.length > MAX_HELD) {
              tail = undefined;
              yield joined;
            } else tail = joined;
            continue;
          }
          tail = nl + 1 < joined.length ? joined.subarray(nl + 1) : undefined;
          yield joined.subarray(0, nl + 1);
        }
        // Stopped by the signal: whatever follows the last line break was cut by it.
        onCut();
        // A read may still be pending on the pipe: release standard input so the process can end.
        (stream as { destroy?: () => void }).destroy?.();
      } finally {
        signal.removeEventListener('abort', onAbort);
      }
    }
    return Readable.from(lines(), { objectMode: false });
  }

  /**
   * "after 1,234 lines of audit.log (412 MB read)" — how far the reading got, for the stderr line
   * and the report's coverage.
   */
  describe(): string {
    const files = [...this.lines].map(([file, line]) => `${line.toLocaleString('en-US')} lines of ${file === '-' ? 'standard input' : file}`);
    const bytes = readTotals().read + this.stdinBytes;
    const size = bytes >= 1024 * 1024 ? `${(bytes / 1024 / 1024).toFixed(1)} MB` : `${bytes.toLocaleString('en-US')} bytes`;
    return `after ${files.length ? files.join(', ') : 'no complete event'} (${size} read)`;
  }

  /** The sentence for the report's coverage assumptions. */
  note(): string {
    return `Interrupted (Ctrl-C or SIGTERM) ${this.describe()}: a partial result — the input after that point was not read.`;
  }
}
