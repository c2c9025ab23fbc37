/**
 * Controller liveness on the real v1.37.2 capture of a graceful restart mid-rollout
 * (examples/captures/restart-mid-rollout: SIGTERM at 02:04:59.663, the new process attempts the
 * Lease at 02:04:59.984 (kcm.log:264), acquires it at 02:05:09.674 (:279) and starts its
 * ReplicaSet controller at 02:05:09.740 (:284)): from the recording and from the audit log, with
 * the log merged in, every ReplicaSet names the stretch with no leader, and no sync of the model
 * falls inside it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { auditFiles } from '../../src/pipeline/audit-files.js';
import { replayFiles } from '../../src/pipeline/replay-files.js';

const DIR = 'examples/captures/restart-mid-rollout';
const LOG = `${DIR}/kcm.log.gz`;

for (const [from, run] of [
  ['recording', () => replayFiles({ files: ['examples/restart-mid-rollout.kexp.jsonl'], kcmLogs: [LOG] })],
  ['audit log', () => auditFiles({ files: [`${DIR}/audit.jsonl.gz`], kcmLogs: [LOG] })],
] as const) {
  test(`restart-mid-rollout from the ${from}: nobody led 02:04:59.984–02:05:09.674 (inferred, kcm.log:264/279/284); no gated window opens inside`, async () => {
    const { report } = await run();
    assert.equal(report.replicaSets.length, 2);
    for (const rs of report.replicaSets) {
      const f = rs.findings.filter((x) => x.id === 'no-leader');
      assert.equal(f.length, 1, `${rs.name}: ${rs.findings.map((x) => x.id).join()}`);
      assert.deepEqual([f[0]!.basis, f[0]!.at, f[0]!.evidence], ['inferred', '2026-12-05T02:04:59.984Z', [`${LOG}:264`, `${LOG}:279`, `${LOG}:284`]]);
      assert.match(f[0]!.title, /^no kube-controller-manager led for 10s: no sync ran/);
      assert.match(f[0]!.explanation, /acquired the Lease at 2026-12-05T02:05:09\.674Z/);
      const gapFrom = Date.parse('2026-12-05T02:04:59.984Z');
      const gapTo = Date.parse('2026-12-05T02:05:09.740Z');
      for (const w of rs.gatedWindows) {
        const s = Date.parse(w.start);
        assert.ok(!(s > gapFrom && s < gapTo), `${rs.name}: a window opened while nobody led (${w.start})`);
      }
      // Only the controller-restarted rule speaks of dropped expectations, and only where a record was dropped.
      for (const r of rs.findings.filter((x) => x.id === 'controller-restarted')) assert.doesNotMatch(r.explanation, /the record  was dropped/);
    }
  });
}
