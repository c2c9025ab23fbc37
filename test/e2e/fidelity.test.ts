/**
 * End-to-end fidelity: run scenarios against the real control plane (kube-apiserver and
 * kube-controller-manager built from Go modules), then replay kexp's own recording of each
 * and score it against the controller's -v=4 log: every SatisfiedExpectations decision and
 * every SetExpectations must be reproduced, and no leak claimed that the log does not show.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startControlPlane, type ControlPlane } from './control-plane/control-plane.js';
import { captureScenario } from './scenarios/run-scenarios.js';
import { SCENARIOS } from './scenarios/scenarios.js';
import { replayFiles } from '../../src/pipeline/replay-files.js';
import { kcmLogFiles } from '../../src/pipeline/kcm-log-files.js';
import { auditFiles } from '../../src/pipeline/audit-files.js';
import { scoreReplicaSet, sumScores } from '../../src/analysis/fidelity.js';
import { openKcmLogSource } from '../../src/sources/kcm-log/kcm-log-source.js';
import { buildGroundTruth } from '../../src/sources/kcm-log/ground-truth.js';
import type { ControllerLogEvent } from '../../src/timeline/event.js';

let cp: ControlPlane;
const out = fs.mkdtempSync(path.join(os.tmpdir(), 'kexp-e2e-fidelity-'));

before(async () => {
  cp = await startControlPlane();
});
after(async () => {
  await cp?.stop();
});

const selected = ['scale-up-gated', 'quota-rejected', 'namespace-terminating-leak', 'scale-down-graceful', 'orphan-adopted', 'rs-recreated'];

for (const name of selected) {
  test(`fidelity vs kube-controller-manager: ${name}`, { timeout: 180_000 }, async () => {
    const s = SCENARIOS.find((x) => x.name === name)!;
    const cap = await captureScenario(cp, s, out, () => undefined);
    const { report, problems } = await replayFiles({ files: [cap.recording] });
    assert.deepEqual(problems, []);
    const src = await openKcmLogSource(cap.kcmLog, { diagnostics: { problem: () => undefined, warn: () => undefined } });
    const events: ControllerLogEvent[] = [];
    for await (const e of src.events) if (e.type === 'controller-log' && e.ownerKind === undefined) events.push(e); // the ReplicaSets' (other kinds' lines carry ownerKind)
    const truth = buildGroundTruth(events);
    const g = truth.get(`${cap.namespace}/web`);
    assert.ok(g, `the KCM log has lines for ${cap.namespace}/web`);
    assert.ok(g!.raises.length >= 1, 'the controller raised expectations at least once');
    const score = sumScores([scoreReplicaSet(g!, report.replicaSets.find((r) => r.key === g!.rsKey))]);
    assert.equal(score.syncs.mismatched, 0, score.mismatches.join('\n'));
    assert.equal(score.raises.exact, score.raises.total, score.mismatches.join('\n'));
    assert.equal(score.leaks.found, score.leaks.truePositive, 'no false leak');
    assert.equal(score.leaks.truePositive, score.leaks.truth, 'every leak found');
    // From the apiserver's audit log alone: the same decisions and raises.
    const audit = await auditFiles({ files: [cap.audit] });
    const ascore = sumScores([scoreReplicaSet(g!, audit.report.replicaSets.find((r) => r.key === g!.rsKey))]);
    assert.equal(ascore.syncs.mismatched, 0, 'audit: ' + ascore.mismatches.join('\n'));
    assert.equal(ascore.raises.exact, ascore.raises.total, 'audit: ' + ascore.mismatches.join('\n'));
    assert.equal(ascore.leaks.found, ascore.leaks.truePositive, 'audit: no false leak');
    // The same through the CLI pipeline used by `kexp kcm-log --compare`.
    const rf = path.join(cap.dir, 'report.json');
    fs.writeFileSync(rf, JSON.stringify(report));
    const k = await kcmLogFiles({ files: [cap.kcmLog], compare: rf, rs: g!.rsKey });
    assert.equal(k.result.compare!.overall.syncs.mismatched, 0);
  });
}
