/**
 * The accounting identity on every input kexp ships or tests with: each ReplicaSet-controller
 * write the input shows is in exactly one round or one finding —
 * writes = inRounds + inFindings, inRounds = Σ rounds[].writes, inFindings = Σ findings[].writes.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { replayFiles } from '../../src/pipeline/replay-files.js';
import { auditFiles } from '../../src/pipeline/audit-files.js';
import type { Report } from '../../src/analysis/report-types.js';

function checkIdentity(report: Report, label: string): number {
  let writes = 0;
  for (const rs of report.replicaSets) {
    const a = rs.accounting;
    const where = `${label} ${rs.key}`;
    assert.equal(a.writes, a.inRounds + a.inFindings, `${where}: writes = in rounds + in findings`);
    assert.equal(rs.rounds.reduce((n, r) => n + r.writes, 0), a.inRounds, `${where}: rounds' writes`);
    assert.equal(rs.findings.reduce((n, f) => n + (f.writes ?? 0), 0), a.inFindings, `${where}: findings' writes`);
    assert.equal(a.byKind.create + a.byKind.delete + a.byKind.adopt + a.byKind.release, a.writes, `${where}: by kind`);
    writes += a.writes;
  }
  return writes;
}

const list = (dir: string, re: RegExp) => (fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => re.test(f)).sort().map((f) => path.join(dir, f)) : []);

const recordings = [
  ...list('examples', /\.kexp\.jsonl(\.gz)?$/),
  ...list('test/render/fixtures', /\.kexp\.jsonl$/),
  ...list('test/fixtures/watch', /\.(jsonl|json|yaml)$/).filter((f) => !/empty|recording-out-of-order|recording-truncated|recording-v2/.test(f)),
];

for (const file of recordings) {
  test(`accounting identity: replay ${file}`, async () => {
    let report: Report;
    try {
      report = (await replayFiles({ files: [file] })).report;
    } catch (e) {
      // Inputs replay rejects (an audit log or a kube-controller-manager log) are checked elsewhere.
      assert.match(String((e as Error).message), /kexp (audit|kcm-log)|not a|unrecognised|use/i);
      return;
    }
    checkIdentity(report, file);
  });
}

const audits = [
  ...fs.readdirSync('examples/captures').sort().map((d) => list(path.join('examples/captures', d), /^audit\.jsonl(\.gz)?$/)[0]!).filter(Boolean),
  ...list('test/fixtures/audit', /\.(log|json|ndjson|yaml)$/).filter((f) => !/damaged|not-audit/.test(f)),
];

for (const file of audits) {
  test(`accounting identity: audit ${file}`, async () => {
    const { report } = await auditFiles({ files: [file] });
    checkIdentity(report, file);
  });
}

test('the captures hold controller writes, every one of them in a round', async () => {
  let total = 0;
  // The controller-view captures (issue #21) are scored in bench/fidelity, not asserted: kexp is being changed on them.
  const { CONTROLLER_VIEW_SCENARIOS } = await import('../e2e/scenarios/controller-view-faults.js');
  // The DaemonSet and Job captures (issue #22) are asserted: in ds-deletion-loss the controller
  // re-deletes the pod its cache kept after the expiry (16 DELETEs answered 404); kexp keeps that
  // ghost in its model's cache (held-deletions.ts), so its rounds hold every one of them.
  const scoredOnly = new Set(CONTROLLER_VIEW_SCENARIOS.map((s) => s.name));
  for (const d of fs.readdirSync('examples/captures').sort().filter((x) => !scoredOnly.has(x))) {
    const f = list(path.join('examples/captures', d), /^audit\.jsonl(\.gz)?$/)[0]!;
    const { report } = await auditFiles({ files: [f] });
    for (const rs of report.replicaSets) {
      assert.equal(rs.accounting.inFindings, 0, `${d} ${rs.key}: every write of the real controller is in a round, faults or not`);
      total += rs.accounting.writes;
    }
  }
  // 650 in the fault-free captures, 334 in the captures under real faults (examples/README.md), 44
  // in the DaemonSet and Job captures (ds-deletion-loss 30, ds-scale-nodes 6, job-complete 6, job-dropped-add 2).
  assert.equal(total, 1028);
});

test('ds-deletion-loss from its audit log: the ghost\'s 16 DELETEs answered 404 are rounds\' calls, each a NotFound', async () => {
  const { report } = await auditFiles({ files: ['examples/captures/ds-deletion-loss/audit.jsonl'] });
  const ds = report.replicaSets.find((r) => r.kind === 'DaemonSet')!;
  // Each sync after the expiry runs manage and then the rolling update: two delete rounds, each
  // choosing the ghost again (the log's two "Setting expectations" per sync).
  const all = ds.rounds.filter((r) => r.kind === 'delete' && r.keys?.includes('kexp-ds-deletion-loss/agent-twctt') && Date.parse(r.at) > Date.parse('2026-12-05T08:04:00Z'));
  // kexp's model runs one sync the controller did not (the rate-limited retry of the consistency
  // skip at 08:04:03.940 runs at .949 and makes the deletes of lines 100 and 102, so the sync
  // 92c9m's deletion triggers runs at .141, when that retry's calls returned): the log shows none
  // of its two deletes — not made — and it ends at the status write of line 104.
  assert.deepEqual(all.filter((r) => r.unmade).map((r) => r.at), ['2026-12-05T08:04:04.141Z', '2026-12-05T08:04:04.141Z']);
  const ghostRounds = all.filter((r) => !r.unmade);
  assert.equal(ghostRounds.length, 16);
  for (const r of ghostRounds) {
    assert.equal(r.basis, 'observed');
    assert.match(r.note ?? '', /^1 DELETE answered 404 \(NotFound\) for kexp-ds-deletion-loss\/agent-twctt: .*\(observed: examples\/captures\/ds-deletion-loss\/audit\.jsonl:\d+\)/);
  }
  // The first of them: manage's delete of the ghost alone, then the rolling update's of every old pod.
  assert.deepEqual(ghostRounds.slice(0, 2).map((r) => r.n), [1, 5]);
  assert.equal(ds.accounting.byKind.delete, 21);
  assert.equal(ds.accounting.inRounds, ds.accounting.writes);
});

test('kube-controller-manager logs: every logged pod write is in a round or listed outside every round', async () => {
  const { kcmLogFiles, logAccounting } = await import('../../src/pipeline/kcm-log-files.js');
  let writes = 0;
  for (const d of fs.readdirSync('examples/captures').sort()) {
    const f = list(path.join('examples/captures', d), /^kcm\.log(\.gz)?$/)[0]!;
    const { result } = await kcmLogFiles({ files: [f], year: 2026 });
    for (const rs of result.replicaSets) {
      const a = rs.accounting;
      assert.equal(a.writes, a.inRounds + a.outsideRounds.length, `${d} ${rs.key}`);
      assert.equal(a.outsideRounds.length, 0, `${d} ${rs.key}: fault-free captures`);
      writes += a.writes;
    }
  }
  assert.ok(writes >= 600);
  // A create beyond the round's "creating N" is outside every round (a stale count, a restart kexp cannot see).
  const ev = (logKind: string, at: number, extra: object = {}) => ({ type: 'controller-log', at, atBasis: 'log', source: { file: 'k.log', line: at }, logKind, rsKey: 'ns/web', message: `x pod="ns/web-${at}"`, ...extra });
  const acc = logAccounting([ev('too-few-replicas', 1, { numbers: { creating: 1 } }), ev('controller-created-pod', 2), ev('controller-created-pod', 3)] as never).get('ns/web')!;
  assert.deepEqual([acc.writes, acc.inRounds, acc.outsideRounds.map((o) => o.pod)], [2, 1, ['ns/web-3']]);
});
