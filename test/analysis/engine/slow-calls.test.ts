/**
 * Calls judged by their request (issue #21 item 4), on real v1.37.2 captures: a round whose
 * creates straddle a 15-s stall of the controller's client is one round with its late calls
 * made, no gated sync inside the sync that held the key, and the pause named as slow or hung
 * API calls; a restart mid-round (a new credential, a fresh Event recorder) still splits it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { replayFiles } from '../../../src/pipeline/replay-files.js';
import { auditFiles } from '../../../src/pipeline/audit-files.js';
import type { ReplicaSetReport } from '../../../src/analysis/report-types.js';

const one = (rss: ReplicaSetReport[], key: string) => rss.find((r) => `${r.namespace}/${r.name}` === key)!;
const gated = (rs: ReplicaSetReport) => rs.gatedWindows.reduce((n, w) => n + w.gatedSyncs, 0);

for (const [from, run] of [
  ['audit log', () => auditFiles({ files: ['examples/captures/client-brownout/audit.jsonl.gz'] })],
  ['recording', () => replayFiles({ files: ['examples/client-brownout.kexp.jsonl.gz'] })],
] as const) {
  test(`client-brownout from the ${from}: one round of 150 across the 15-s stall, no gated sync, slow-api-calls`, async () => {
    const { report } = await run();
    const rs = one(report.replicaSets, 'kexp-client-brownout/web');
    assert.deepEqual(rs.rounds.map((r) => [r.kind, r.n, r.writes]), [['create', 150, 150]]);
    assert.equal(rs.gatedWindows.length, 1);
    assert.equal(gated(rs), 0);
    const f = rs.findings.find((x) => x.id === 'slow-api-calls');
    assert.ok(f, rs.findings.map((x) => x.id).join());
    assert.equal(f.basis, from === 'audit log' ? 'observed' : 'unknown', 'a recording cannot tell hung calls from a restart');
    assert.match(f.title, /paused 15s inside one sync/);
    assert.match(f.explanation, /made 42 creates .* 108 more creates/s);
    assert.ok(f.evidence.length === 2 && f.evidence.every((e) => /:\d+$/.test(e)), f.evidence.join());
  });
}

for (const [from, run] of [
  ['audit log', () => auditFiles({ files: ['examples/captures/kcm-restart-scale-up/audit.jsonl.gz'] })],
  ['recording', () => replayFiles({ files: ['examples/kcm-restart-scale-up.kexp.jsonl.gz'] })],
] as const) {
  test(`kcm-restart-scale-up from the ${from}: the round the SIGKILL cut and the new process's are two rounds, no slow-api-calls`, async () => {
    const { report } = await run();
    const rs = one(report.replicaSets, 'kexp-kcm-restart-scale-up/web');
    assert.equal(rs.rounds.filter((r) => r.kind === 'create').length, 2);
    assert.equal(rs.findings.some((x) => x.id === 'slow-api-calls'), false);
  });
}
