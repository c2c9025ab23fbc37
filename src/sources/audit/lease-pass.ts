/**
 * The lease pass: every kube-controller-manager Lease write (lease.ts) of the audit files, in file
 * order — who led when. The engine must know a stretch with no leader when it begins, and the new
 * holder's write comes only at its end, so `kexp audit` reads the Lease before it replays
 * (src/pipeline/audit-files.ts). For large files the pass runs on a worker thread (lease-thread.ts)
 * started when the command starts, so it reads beside the main thread's opening, pre-scan and
 * controller-log reading instead of being a whole second read of the files on the main thread.
 *
 * Contract: `startLeasePass(files, opts)` starts the pass; `writes()` resolves to exactly what the
 * pass on the main thread returns — the same writes in the same order, the same InputError (file,
 * line, message) thrown at the same point (when `writes()` is awaited), the files' bytes read
 * counted for the progress line and the interrupt note — and, when the signal stops the reading,
 * the writes read until then. Standard input (`-`) is skipped (it cannot be read twice). A worker
 * is used for regular files of `LEASE_THREAD_MIN_BYTES` and more (gzip ×6) when its entry exists
 * (not in the single executable); if it cannot start or dies, the pass is made on the main thread.
 * `close()` ends the worker (call it when the command fails before awaiting `writes()`).
 * `KEXP_LEASE_THREAD=on|off` forces the choice (tests, measurements).
 * Cost: on the worker, its start-up (~0.1 s of CPU on the other core) and the pass; on the main
 * thread one message per 256 writes. Without the worker, the pass: a byte search per line, a parse
 * per line naming leases.
 */
import { statSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { trackRead } from '../read-progress.js';
import { InputError } from '../source.js';
import { openAuditSource } from './audit-source.js';
import type { LeaseWrite } from './lease.js';
import { workerEntry } from './threaded-lines.js';

/** What the lease thread is started with (its workerData). */
export interface LeaseThreadData {
  files: string[];
}

/** A message of the lease thread: writes, a file done, or the end (with the error that stopped it). */
export interface LeaseThreadMessage {
  writes?: LeaseWrite[];
  file?: string;
  read?: number;
  end?: { error?: { file: string; line: number; message: string; input: boolean } };
}

/** Bytes of input (gzip ×6) from which the pass is made on a worker; below, its start-up costs more than the pass. */
export const LEASE_THREAD_MIN_BYTES = 16 << 20;
const YOUNG_GENERATION_MB = 4;

export type LeaseThreadMode = 'auto' | 'on' | 'off';

function leaseThreadMode(): LeaseThreadMode {
  const v = process.env.KEXP_LEASE_THREAD;
  return v === 'on' || v === 'off' ? v : 'auto';
}

/** The pass on this thread (also the fallback when the worker cannot start or dies). */
async function leaseWritesHere(files: readonly string[], signal?: AbortSignal): Promise<LeaseWrite[]> {
  const quiet = { problem: () => undefined, warn: () => undefined };
  const out: LeaseWrite[] = [];
  for (const f of files) {
    if (f === '-' || signal?.aborted) continue;
    const src = await openAuditSource(f, { diagnostics: quiet, leaseWrites: (w) => out.push(w), readerThread: 'off' });
    for await (const _ of src.events) if (signal?.aborted) break;
  }
  return out;
}

/** Should the pass run on a worker? Regular files only, above the size threshold in `auto`. */
function onWorker(files: readonly string[], mode: LeaseThreadMode): boolean {
  if (mode === 'off' || files.length === 0 || files.includes('-')) return false;
  let bytes = 0;
  for (const f of files) {
    try {
      const st = statSync(f);
      if (!st.isFile()) return false;
      bytes += f.endsWith('.gz') ? st.size * 6 : st.size;
    } catch {
      return false; // the main pass says why the file cannot be read
    }
  }
  if (mode === 'auto' && bytes < LEASE_THREAD_MIN_BYTES) return false;
  return workerEntry('lease-thread') !== undefined;
}

export interface LeasePass {
  writes(): Promise<LeaseWrite[]>;
  close(): void;
}

export function startLeasePass(files: readonly string[], opts: { signal?: AbortSignal; mode?: LeaseThreadMode } = {}): LeasePass {
  const signal = opts.signal;
  if (!onWorker(files, opts.mode ?? leaseThreadMode())) {
    return { writes: () => leaseWritesHere(files, signal), close: () => undefined };
  }
  return new LeaseWorker(files, signal);
}

let workersStarted = 0;
/** Lease workers that finished their pass, in this process (tests check the worker was used). */
export function leaseThreadsUsed(): number {
  return workersStarted;
}

class LeaseWorker implements LeasePass {
  private readonly out: LeaseWrite[] = [];
  private readonly reads: Array<{ file: string; read: number }> = [];
  private end: LeaseThreadMessage['end'];
  /** The worker failed or exited before its end: the pass is made on the main thread. */
  private broken = false;
  private notify: (() => void) | undefined;
  private readonly worker: Worker;
  private closed = false;

  constructor(
    private readonly files: readonly string[],
    private readonly signal: AbortSignal | undefined,
  ) {
    const data: LeaseThreadData = { files: [...files] };
    this.worker = new Worker(workerEntry('lease-thread')!, {
      workerData: data,
      stdout: false,
      stderr: false,
      resourceLimits: { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB },
    });
    // Never what keeps the process alive: it is ref'd only while the main thread waits for it.
    this.worker.unref();
    this.worker.on('message', (m: LeaseThreadMessage) => {
      if (m.writes) for (const w of m.writes) this.out.push(w);
      if (m.file !== undefined) this.reads.push({ file: m.file, read: m.read ?? 0 });
      if (m.end) this.end = m.end;
      if (m.end) this.wake();
    });
    this.worker.on('error', () => {
      this.broken = true;
      this.wake();
    });
    this.worker.on('exit', () => {
      if (!this.end) this.broken = true;
      this.wake();
    });
  }

  private wake(): void {
    const n = this.notify;
    this.notify = undefined;
    n?.();
  }

  async writes(): Promise<LeaseWrite[]> {
    const aborted = (): boolean => this.signal?.aborted === true;
    const onAbort = (): void => this.wake();
    this.signal?.addEventListener('abort', onAbort);
    try {
      while (!this.end && !this.broken && !aborted()) {
        this.worker.ref();
        await new Promise<void>((r) => (this.notify = r));
        this.worker.unref();
      }
    } finally {
      this.signal?.removeEventListener('abort', onAbort);
    }
    this.close();
    if (!this.end && !aborted()) return leaseWritesHere(this.files, this.signal);
    // The files' bytes the pass read, as a pass on this thread leaves them in the progress totals.
    for (const r of this.reads) trackRead({ file: r.file, read: () => r.read })();
    if (this.end) workersStarted++;
    const e = this.end?.error;
    if (e) throw e.input ? new InputError(e.file, e.line, e.message) : new Error(e.message);
    return this.out;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    void this.worker.terminate();
  }
}
