/**
 * The lease thread: the body of the `node:worker_threads` worker that makes the lease pass
 * (lease-pass.ts) — every kube-controller-manager Lease write of the audit files, read by the same
 * `openAuditSource` with its lease prefilter as on the main thread — on the second core, while the
 * main thread opens the files, makes the pre-scan and starts its own read.
 *
 * Contract: posts `{ writes }` (a few hundred at a time, in file order), `{ file, read }` when a
 * file is done (its bytes read, for the progress line and the interrupt note), and last `{ end }`:
 * `{}`, or the error that stopped the pass after the writes read before it (an InputError's
 * file, line and message apart, so the main thread throws the same one-line error).
 * Cost: the lease pass's own (a byte search per line, a parse per line naming leases) plus a
 * worker's start-up, none of it on the main thread; one message per LEASE_BATCH writes.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { readTotals } from '../read-progress.js';
import { InputError } from '../source.js';
import { openAuditSource } from './audit-source.js';
import type { LeaseWrite } from './lease.js';
import type { LeaseThreadData, LeaseThreadMessage } from './lease-pass.js';

const data = workerData as LeaseThreadData;
const port = parentPort!;
const LEASE_BATCH = 256;

async function run(): Promise<void> {
  const quiet = { problem: () => undefined, warn: () => undefined };
  let writes: LeaseWrite[] = [];
  const post = (m: LeaseThreadMessage): void => port.postMessage(m);
  try {
    for (const file of data.files) {
      // This thread's reads only (read-progress is per isolate): a file given twice counts 0 the second time.
      const before = readTotals().read;
      const src = await openAuditSource(file, {
        diagnostics: quiet,
        readerThread: 'off',
        leaseWrites: (w) => {
          writes.push(w);
          if (writes.length >= LEASE_BATCH) {
            post({ writes });
            writes = [];
          }
        },
      });
      for await (const _ of src.events);
      if (writes.length) post({ writes });
      writes = [];
      post({ file, read: readTotals().read - before });
    }
    post({ end: {} });
  } catch (e) {
    if (writes.length) post({ writes });
    const error =
      e instanceof InputError
        ? { file: e.file, line: e.line, message: e.message.slice(e.line > 0 ? `${e.file}:${e.line}: `.length : `${e.file}: `.length), input: true }
        : { file: '', line: 0, message: e instanceof Error ? e.message : String(e), input: false };
    post({ end: { error } });
  }
}
void run();
