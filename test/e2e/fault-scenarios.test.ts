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
import { FAULT_CATALOGUE as FAULT_SCENARIOS } from './scenarios/fault-catalogue.js';
import { checkFaultCapture } from './scenarios/fault-expectations.js';

const out = process.env.KEXP_FAULT_CAPTURES ?? fs.mkdtempSync(path.join(os.tmpdir(), 'kexp-e2e-faults-'));
let run: FaultRun;

before(async () => {
  run = await captureFaultScenarios(out, undefined, (m) => process.stderr.write(m + '\n'));
}, { timeout: 20 * 60_000 });

test('every fault scenario was reproduced on the real controller', () => {
  assert.deepEqual(run.failed, []);
  assert.deepEqual(run.captures.map((c) => c.scenario.name).sort(), FAULT_SCENARIOS.map((s) => s.name).sort());
});

for (const s of FAULT_SCENARIOS) {
  test(s.truthOnly ? `${s.name}: the controller's log and audit show the incident` : `kexp's diagnosis of ${s.name} agrees with the controller`, { timeout: 120_000 }, async () => {
    const cap = run.captures.find((c) => c.scenario.name === s.name);
    assert.ok(cap, `${s.name} was not captured: ${run.failed.find((f) => f.name === s.name)?.error}`);
    await checkFaultCapture(s.name, { recording: cap!.recording, audit: cap!.audit, kcmLog: cap!.kcmLog, faults: cap!.faults! }, { recordThroughProxy: s.recordThroughProxy, truthOnly: s.truthOnly });
  });
}
