/**
 * Real faults on the real control plane: kube-controller-manager runs behind the fault proxy
 * (test/e2e/fault-proxy), each scenario of scenarios/fault-scenarios.ts injects its fault, and
 * kexp's reconstruction of the capture — from kexp's own recording and from the apiserver's
 * audit log — is checked against what the controller really did (its -v=4 log, and its writes
 * in the audit log): no gate decision claimed that the log contradicts, no controller write
 * invented or dropped, every leak the log shows found, and the diagnosis each incident should
 * get. The scenarios that wait out the 5-minute ExpectationsTimeout run side by side.
 */
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { captureFaultScenarios, type FaultRun } from './scenarios/run-fault-scenarios.js';
import { FAULT_SCENARIOS } from './scenarios/fault-scenarios.js';
import type { Capture } from './scenarios/run-scenarios.js';
import { replayFiles } from '../../src/pipeline/replay-files.js';
import { auditFiles } from '../../src/pipeline/audit-files.js';
import { openKcmLogSource } from '../../src/sources/kcm-log/kcm-log-source.js';
import { buildGroundTruth, type GroundTruth } from '../../src/sources/kcm-log/ground-truth.js';
import { scoreAnomalies, scoreReplicaSet, scoreWrites, type WriteTruth } from '../../src/analysis/fidelity.js';
import type { ReplicaSetReport } from '../../src/analysis/report-types.js';
import type { ControllerLogEvent } from '../../src/timeline/event.js';
import { checkRecordingAgainstAudit } from './scenarios/recording-vs-audit.js';

const out = process.env.KEXP_FAULT_CAPTURES ?? fs.mkdtempSync(path.join(os.tmpdir(), 'kexp-e2e-faults-'));
let run: FaultRun;

before(async () => {
  run = await captureFaultScenarios(out, undefined, (m) => process.stderr.write(m + '\n'));
}, { timeout: 20 * 60_000 });

const diagnostics = { problem: () => undefined, warn: () => undefined };

async function truthOf(cap: Capture): Promise<GroundTruth> {
  const src = await openKcmLogSource(cap.kcmLog, { diagnostics });
  const events: ControllerLogEvent[] = [];
  for await (const e of src.events) if (e.type === 'controller-log') events.push(e);
  const g = buildGroundTruth(events).get(`${cap.namespace}/web`);
  assert.ok(g, `the KCM log has lines for ${cap.namespace}/web`);
  return g!;
}

/** The controller's pod writes for web in the audit log, counted on their own. */
function writeTruth(cap: Capture): WriteTruth {
  const t: WriteTruth = { create: 0, delete: 0, adopt: 0, release: 0 };
  for (const line of fs.readFileSync(cap.audit, 'utf8').split('\n')) {
    if (!line) continue;
    const e = JSON.parse(line);
    if (e.stage !== 'ResponseComplete' || e.objectRef?.resource !== 'pods' || e.objectRef?.subresource) continue;
    if (e.user?.username !== 'system:serviceaccount:kube-system:replicaset-controller') continue;
    if (e.verb === 'create' || e.verb === 'delete') t[e.verb as 'create' | 'delete']++;
  }
  return t;
}

function finding(rs: ReplicaSetReport, id: string) {
  return rs.findings.find((f) => f.id === id);
}

/** What each incident's report must say, from the audit log (A) and from the recording (R). */
const DIAGNOSIS: Record<string, (a: ReplicaSetReport, r: ReplicaSetReport, truth: GroundTruth) => void> = {
  'informer-lag-over-create': (a, r) => {
    for (const rs of [a, r]) {
      assert.ok(finding(rs, 'expiry-over-create'), `expiry-over-create: ${rs.findings.map((f) => f.id)}`);
      assert.ok(rs.gatedWindows.some((w) => w.endedBy === 'expired'), 'the first round\'s record expired unfulfilled');
      assert.deepEqual(rs.rounds.map((x) => [x.kind, x.n]), [['create', 3], ['create', 3], ['delete', 3]]);
    }
  },
  'dropped-add-trigger': (a, r) => {
    for (const rs of [a, r]) {
      assert.ok(finding(rs, 'informer-behind'), `informer-behind: ${rs.findings.map((f) => f.id)}`);
      assert.ok(rs.gatedWindows.some((w) => w.endedBy === 'expired' && w.remaining?.add === 1), 'add=1 leaked until expiry');
      assert.deepEqual(rs.rounds.filter((x) => x.kind === 'create').map((x) => x.n), [3, 1]);
    }
  },
  'dropped-add-no-trigger': (a, r) => {
    for (const rs of [a, r]) {
      assert.ok(finding(rs, 'informer-behind'), `informer-behind: ${rs.findings.map((f) => f.id)}`);
      assert.deepEqual(rs.rounds.map((x) => [x.kind, x.n]), [['create', 3]], 'no write after the passive expiry');
    }
  },
  'dropped-delete-relist': (a) => {
    // The controller never replaced the deleted pod: kexp does not invent the create it would
    // have made, and says the controller held back.
    assert.deepEqual(a.rounds.map((x) => [x.kind, x.n]), [['create', 3]]);
    assert.ok(a.findings.some((f) => f.id === 'writes-withheld'), `writes-withheld: ${a.findings.map((f) => f.id)}`);
  },
  'kcm-restart-scale-up': (a) => {
    assert.ok(finding(a, 'controller-restarted'), `controller-restarted: ${a.findings.map((f) => f.id)}`);
  },
  'consistency-gate-lag': (_a, _r, truth) => {
    assert.ok(truth.consistencySkips.length > 0, 'the controller skipped syncs on the consistency gate');
    assert.equal(truth.syncs.filter((s) => s.decision === 'gated').length, 0, 'those are not expectation gates');
  },
  'delayed-add-no-surplus': (a) => {
    assert.equal(a.rounds.filter((x) => x.kind === 'delete').length, 0, 'no surplus was created, so none deleted');
    assert.equal(finding(a, 'surplus-create'), undefined);
  },
  'record-through-faults': () => undefined,
};

test('every fault scenario was reproduced on the real controller', () => {
  assert.deepEqual(run.failed, []);
  assert.deepEqual(run.captures.map((c) => c.scenario.name).sort(), FAULT_SCENARIOS.map((s) => s.name).sort());
});

for (const s of FAULT_SCENARIOS) {
  test(`kexp's diagnosis of ${s.name} agrees with the controller`, { timeout: 120_000 }, async () => {
    const cap = run.captures.find((c) => c.scenario.name === s.name);
    assert.ok(cap, `${s.name} was not captured: ${run.failed.find((f) => f.name === s.name)?.error}`);
    assert.ok(fs.statSync(cap!.faults!).size > 0, 'the proxy logged the faults it injected');
    const truth = await truthOf(cap!);
    const rec = (await replayFiles({ files: [cap!.recording] })).report.replicaSets.find((x) => x.key === truth.rsKey);
    const aud = (await auditFiles({ files: [cap!.audit] })).report.replicaSets.find((x) => x.key === truth.rsKey);
    assert.ok(rec && aud);
    for (const [from, rs] of [['recording', rec!], ['audit', aud!]] as const) {
      const sc = scoreReplicaSet(truth, rs);
      assert.equal(sc.syncs.mismatched, 0, `${from}: ${sc.mismatches.join('; ')}`);
      const an = scoreAnomalies(truth, rs);
      assert.equal(an.missed, 0, `${from}: every leak/restart the log shows is found`);
      assert.equal(an.false, 0, `${from}: no leak/restart the log does not show`);
    }
    const w = scoreWrites(writeTruth(cap!), aud);
    assert.deepEqual([w.invented, w.dropped], [0, 0], 'audit: no controller write invented or dropped');
    DIAGNOSIS[s.name]!(aud!, rec!, truth);
    if (s.recordThroughProxy) {
      const check = checkRecordingAgainstAudit(cap!.recording, cap!.audit, cap!.faults!);
      assert.deepEqual(check.lost, [], 'no pod change the audit log shows is missing from the recording');
      assert.deepEqual(check.duplicated, [], 'no pod change is recorded twice');
      assert.equal(check.gaps.length, check.relists, `a gap exactly where the recorder had to relist: ${JSON.stringify(check.gaps)}`);
    }
  });
}
