/**
 * The driver's same-instant rule (replay.ts): a sync due at the very instant of the controller's
 * own status write runs before that write is delivered — the write is the sync's, written after its
 * reads, never a change it read. The rebuilt input of kubernetes#139428 on the fixed release
 * (test/support/bug-case-inputs.ts jobBackoffStatusRejected, v1.36.3): a pod of the Job fails at
 * 03:45:18.903; the sync batched 1 s later (enqueueSyncJobBatched) writes the status at 03:45:19.903
 * naming the failed pod in status.uncountedTerminatedPods. Delivered first, that write would take
 * the pod from the sync's newly finished pods: no failure counted, no pod-failure backoff, and a
 * replacement the input never shows; run first, the sync is in the backoff (10 s from the failure)
 * and the replacement comes when it ends.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { auditFiles } from '../../../src/pipeline/audit-files.js';
import { jobBackoffStatusRejected } from '../../support/bug-case-inputs.js';

test('#139428 fixed release: the sync due at its own status write runs before it — no create during the pod-failure backoff', async () => {
  const file = join(mkdtempSync(join(tmpdir(), 'kexp-order-')), 'audit.jsonl');
  writeFileSync(file, jobBackoffStatusRejected('v1.36.3', { fixed: true }));
  const r = await auditFiles({ files: [file], onWarning: () => undefined });
  const job = r.report.replicaSets.find((x) => x.key === 'train/pi')!;
  assert.deepEqual(job.rounds.map((x) => [x.kind, x.n, x.at]), [
    ['create', 2, '2026-11-30T03:45:08.903Z'],
    ['create', 1, '2026-11-30T03:45:28.000Z'],
  ]);
  // No round the audit log shows was not made.
  assert.ok(job.rounds.every((x) => !('unmade' in x) || !x.unmade));
});
