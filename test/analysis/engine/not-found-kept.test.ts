/**
 * A DaemonSet's delete answered 404 on a release that counted it as made (RealPodControl.DeletePod
 * swallowed NotFound before v1.19, kubernetes#91008): whether `del` leaks depends on when the
 * controller's informer delivered the pod's deletion — before syncNodes' SetExpectations (its
 * DeletionObserved spent on the previous record: a leak) or after (lowered). The rebuilt input of
 * kubernetes#95432 (test/support/bug-case-inputs.ts dsNotFoundAfterTaint, v1.15.3):
 * - the pod pinned as a ghost by the 404 and released by a later status write leaves kexp's model
 *   without a second deletePod (held-deletions.ts `handled`: an informer delivers once);
 * - an untaint inside the record's 5 minutes whose sync makes no create for n1 shows the record in
 *   force: the leak is inferred, exit 4;
 * - without such a sync nothing in the input shows it: the window's basis is unknown, exit 0; the
 *   create for n1 at the later untaint drops the ghost from kexp's model (its controller's cache
 *   no longer held it), so no create is taken for a surplus.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { auditFiles } from '../../../src/pipeline/audit-files.js';
import { exitCodeFor } from '../../../src/cli/report-exit.js';
import { dsNotFoundAfterTaint } from '../../support/bug-case-inputs.js';

async function run(untaintInRecord: boolean) {
  const file = join(mkdtempSync(join(tmpdir(), 'kexp-nfk-')), 'audit.jsonl');
  writeFileSync(file, dsNotFoundAfterTaint('v1.15.3', { untaintInRecord }));
  const r = await auditFiles({ files: [file], onWarning: () => undefined });
  const rs = r.report.replicaSets.find((x) => x.key === 'kube-system/agent')!;
  return { rs, exit: exitCodeFor(r.report, r.problems.length) };
}

test('#95432 rebuilt: the untaint\'s sync made no create for n1 — del=1 kept by the 404 expired, inferred, exit 4', async () => {
  const { rs, exit } = await run(true);
  const w = rs.gatedWindows.find((x) => x.raised.del === 1)!;
  assert.deepEqual([w.start, w.endedBy, w.basis, w.remaining?.del, w.end], ['2026-12-05T08:10:00.200Z', 'expired', 'inferred', 1, '2026-12-05T08:32:01.900Z']);
  assert.ok(w.gatedSyncs >= 1);
  const leak = rs.findings.find((f) => f.id === 'expectation-leak-expired')!;
  assert.equal(leak.basis, 'inferred');
  assert.match(leak.explanation, /agent-p1x7q was answered 404 NotFound/);
  assert.doesNotMatch(leak.explanation, /the input does not show/);
  // The pod recreated only at the second untaint: no create round at the first one.
  assert.deepEqual(rs.rounds.map((x) => [x.kind, x.n]), [['create', 2], ['delete', 1], ['create', 1]]);
  assert.equal(exit, 4);
});

test('#95432 rebuilt without the untaint inside the record: the leak is unknown, not claimed (exit 0)', async () => {
  const { rs, exit } = await run(false);
  const w = rs.gatedWindows.find((x) => x.raised.del === 1)!;
  assert.deepEqual([w.endedBy, w.basis, w.remaining?.del], ['expired', 'unknown', 1]);
  const leak = rs.findings.find((f) => f.id === 'expectation-leak-expired')!;
  assert.deepEqual([leak.basis, leak.severity], ['unknown', 'info']);
  assert.match(leak.explanation, /before the Set .* or after it .* the input does not show/);
  assert.match(leak.explanation, /-v=4/);
  // The create for n1 at the untaint 22 minutes later shows the controller's cache no longer held
  // the ghost (PodControl.controllerHoldsAgainstCreate): kexp's model drops it there, so no surplus.
  assert.deepEqual(rs.rounds.map((x) => [x.kind, x.n]), [['create', 2], ['delete', 1], ['create', 1]]);
  assert.deepEqual(rs.findings.filter((f) => f.id === 'surplus-create' || f.id === 'excess-daemon-pods'), []);
  assert.equal(exit, 0);
});
