/**
 * What kexp must say about each fault scenario's capture, checked against what the controller
 * really did: its -v=4 log (decisions, Sets, leaks, restarts) and its pod writes in the audit
 * log. Shared by the e2e test (fresh captures) and the unit test of the stored captures in
 * examples/ (test/analysis/fault-captures.test.ts).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import zlib from 'node:zlib';
import { replayFiles } from '../../../src/pipeline/replay-files.js';
import { auditFiles } from '../../../src/pipeline/audit-files.js';
import { openKcmLogSource } from '../../../src/sources/kcm-log/kcm-log-source.js';
import { buildGroundTruth, type GroundTruth } from '../../../src/sources/kcm-log/ground-truth.js';
import { scoreAnomalies, scoreReplicaSet, scoreWrites, type WriteTruth } from '../../../src/analysis/fidelity.js';
import type { ReplicaSetReport } from '../../../src/analysis/report-types.js';
import type { ControllerLogEvent } from '../../../src/timeline/event.js';
import { checkRecordingAgainstAudit } from './recording-vs-audit.js';
import { checkControllerTruth, truthsOf } from './controller-truth.js';

export interface FaultCaptureFiles {
  recording: string;
  audit: string;
  kcmLog: string;
  faults: string;
}

const diagnostics = { problem: () => undefined, warn: () => undefined };

async function truthOf(cap: FaultCaptureFiles): Promise<GroundTruth> {
  const all = (await truthsOf(cap.kcmLog)).filter((g) => g.rsKey.endsWith('/web'));
  assert.equal(all.length, 1, `the KCM log has lines for one ReplicaSet web: ${all.map((g) => g.rsKey)}`);
  return all[0]!;
}

/** The controller's pod writes for web in the audit log, counted on their own. */
function writeTruth(cap: FaultCaptureFiles): WriteTruth {
  const t: WriteTruth = { create: 0, delete: 0, adopt: 0, release: 0 };
  const raw = fs.readFileSync(cap.audit);
  for (const line of (cap.audit.endsWith('.gz') ? zlib.gunzipSync(raw) : raw).toString('utf8').split('\n')) {
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
export const DIAGNOSIS: Record<string, (a: ReplicaSetReport, r: ReplicaSetReport, truth: GroundTruth) => void> = {
  'informer-lag-over-create': (a, r) => {
    for (const rs of [a, r]) {
      assert.ok(finding(rs, 'expiry-over-create'), `expiry-over-create: ${rs.findings.map((f) => f.id)}`);
      assert.ok(rs.gatedWindows.some((w) => w.endedBy === 'expired'), 'the first round\'s record expired unfulfilled');
      assert.deepEqual(rs.rounds.slice(0, 2).map((x) => [x.kind, x.n]), [['create', 3], ['create', 3]]);
    }
    // The audit log shows who deleted: the surplus delete after the informer caught up is a round.
    // (A recording does not: there the catch-up is ambiguous and scored as such in bench/fidelity.)
    assert.deepEqual(a.rounds.map((x) => [x.kind, x.n]), [['create', 3], ['create', 3], ['delete', 3]]);
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
    // have made — its status still counted the pod after the deletion's event enqueued it, so its
    // cache held the deleted pod (a held deletion, inferred).
    assert.deepEqual(a.rounds.map((x) => [x.kind, x.n]), [['create', 3]]);
    const held = a.findings.find((f) => f.id === 'held-deletion');
    assert.ok(held, `held-deletion: ${a.findings.map((f) => f.id)}`);
    assert.equal(held.basis, 'inferred');
    assert.match(held.title, /still counted 3 replicas .* while 2 existed/);
  },
  'kcm-restart-scale-up': (a) => {
    assert.ok(finding(a, 'controller-restarted'), `controller-restarted: ${a.findings.map((f) => f.id)}`);
  },
  'consistency-gate-lag': (_a, _r, truth) => {
    assert.ok(truth.consistencySkips.length > 0, 'the controller skipped syncs on the consistency gate');
    // The skips are not expectation gates: no sync gated while the gate refused them (until the
    // informer delivered the controller's own pods). One may gate just after, when a sync runs
    // between the delayed ADDs arriving one by one (its record still waits for the rest).
    const lastPodSkip = Math.max(...truth.consistencySkips.filter((c) => c.resource === 'pods').map((c) => c.at));
    assert.equal(truth.syncs.filter((s) => s.decision === 'gated' && s.at <= lastPodSkip).length, 0, 'those are not expectation gates');
  },
  'delayed-add-no-surplus': (a) => {
    assert.equal(a.rounds.filter((x) => x.kind === 'delete').length, 0, 'no surplus was created, so none deleted');
    assert.equal(finding(a, 'surplus-create'), undefined);
  },
  'record-through-faults': () => undefined,
};


/** Every check of one scenario's capture (throws an AssertionError naming what is wrong). */
export async function checkFaultCapture(name: string, cap: FaultCaptureFiles, opts: { recordThroughProxy?: boolean; truthOnly?: boolean } = {}): Promise<void> {
  assert.ok(fs.statSync(cap.faults).size > 0, 'the proxy logged the faults it injected');
  if (opts.truthOnly) {
    await checkControllerTruth(name, cap);
    return;
  }
  const truth = await truthOf(cap);
  const rec = (await replayFiles({ files: [cap.recording] })).report.replicaSets.find((x) => x.key === truth.rsKey);
  const aud = (await auditFiles({ files: [cap.audit] })).report.replicaSets.find((x) => x.key === truth.rsKey);
  assert.ok(rec && aud, `${truth.rsKey} in both reports`);
  for (const [from, rs] of [['recording', rec!], ['audit', aud!]] as const) {
    const sc = scoreReplicaSet(truth, rs);
    assert.equal(sc.syncs.mismatched, 0, `${from}: ${sc.mismatches.join('; ')}`);
    const an = scoreAnomalies(truth, rs);
    assert.equal(an.missed, 0, `${from}: every leak/restart the log shows is found`);
    assert.equal(an.false, 0, `${from}: no leak/restart the log does not show`);
  }
  const w = scoreWrites(writeTruth(cap), aud);
  assert.deepEqual([w.invented, w.dropped], [0, 0], 'audit: no controller write invented or dropped');
  const diagnose = DIAGNOSIS[name];
  assert.ok(diagnose, `no diagnosis written down for ${name}`);
  diagnose!(aud!, rec!, truth);
  if (opts.recordThroughProxy) {
    const check = checkRecordingAgainstAudit(cap.recording, cap.audit, cap.faults);
    assert.deepEqual(check.lost, [], 'no pod change the audit log shows is missing from the recording');
    assert.deepEqual(check.duplicated, [], 'no pod change is recorded twice');
    assert.equal(check.gaps.length, check.relists, `a gap exactly where the recorder had to relist: ${JSON.stringify(check.gaps)}`);
  }
}
