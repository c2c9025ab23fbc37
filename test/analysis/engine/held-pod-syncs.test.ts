/**
 * The gated syncs of a window while the controller's informer had not delivered a pod's events
 * (held-deletions.ts, window-tracker.ts), on two real captures (kube-controller-manager v1.37.2,
 * -v=4) whose own log counts them:
 * - ds-deletion-loss: the deletion of agent-twctt never reaches the controller (hide-deletion): the
 *   syncs kexp's model ran for that pod's events never ran upstream — the log's window from
 *   07:58:57.906 to its expiry has 7 "still waiting" syncs;
 * - deletion-lag: eight deletions reach it 20 s late, in one burst: the first one's enqueue wakes the
 *   worker, whose sync still waits for the other seven — the log's window has 6 gated syncs.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { auditFiles } from '../../../src/pipeline/audit-files.js';
import { replayFiles } from '../../../src/pipeline/replay-files.js';

const quiet = { onWarning: () => undefined };

async function windows(kind: 'recording' | 'audit', capture: string, key: string) {
  const dir = `examples/captures/${capture}`;
  const r = kind === 'audit' ? await auditFiles({ files: [`${dir}/audit.jsonl`], ...quiet }) : await replayFiles({ files: [`${dir}/recording.kexp.jsonl`], ...quiet });
  return r.report.replicaSets.find((x) => x.key === key)!.gatedWindows;
}

const EXPIRED_AT = { recording: '2026-12-05T08:04:03.908Z', audit: '2026-12-05T08:04:03.907Z' };
for (const kind of ['recording', 'audit'] as const) {
  test(`ds-deletion-loss (${kind}): the hidden pod's own events trigger no gated sync — 7, as the log's window`, async () => {
    const w = (await windows(kind, 'ds-deletion-loss', 'kexp-ds-deletion-loss/agent')).find((x) => x.endedBy === 'expired')!;
    assert.deepEqual([w.raised.del, w.gatedSyncs, w.end], [1, 7, EXPIRED_AT[kind]]);
  });
}

test('deletion-lag (audit): the late burst of 8 deletions — the sync after the first delivered one still waits: 6 gated syncs, as the log\'s window', async () => {
  const w = (await windows('audit', 'deletion-lag', 'kexp-deletion-lag/web')).find((x) => x.raised.del === 8)!;
  assert.deepEqual([w.endedBy, w.gatedSyncs, w.end], ['fulfilled', 6, '2026-12-05T01:57:05.406Z']);
});
