/**
 * The captures of real faults in examples/ (test/e2e/scenarios/run-fault-scenarios.ts: the real
 * kube-controller-manager behind the fault proxy): kexp's reconstruction of each, from its
 * recording and from its audit log, against what the controller really did — its -v=4 log and
 * its writes in the audit log (test/e2e/scenarios/fault-expectations.ts). The e2e suite runs the
 * same checks on fresh captures.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { FAULT_CATALOGUE as FAULT_SCENARIOS } from '../e2e/scenarios/fault-catalogue.js';
import { checkFaultCapture } from '../e2e/scenarios/fault-expectations.js';

for (const s of FAULT_SCENARIOS) {
  const dir = path.join('examples', 'captures', s.name);
  // truthOnly captures are checked against the controller's own log and audit (kexp is scored on them in bench/fidelity).
  test(s.truthOnly ? `fault capture ${s.name}: the controller's log and audit show the incident` : `fault capture ${s.name}: kexp agrees with the controller`, async () => {
    assert.ok(fs.existsSync(dir), `examples/captures/${s.name} is missing (capture it with run-fault-scenarios.ts)`);
    const notReproduced = path.join(dir, 'NOT-REPRODUCED');
    if (fs.existsSync(notReproduced)) {
      // Said in the fidelity table too; never skipped silently.
      assert.fail(`${s.name} was not reproduced: ${fs.readFileSync(notReproduced, 'utf8').trim()}`);
    }
    const recording = ['.kexp.jsonl', '.kexp.jsonl.gz'].map((x) => path.join('examples', s.name + x)).find((f) => fs.existsSync(f));
    assert.ok(recording, `examples/${s.name}.kexp.jsonl is missing`);
    // Large captures are stored gzipped.
    const file = (name: string) => [name, name + '.gz'].map((x) => path.join(dir, x)).find((f) => fs.existsSync(f)) ?? path.join(dir, name);
    await checkFaultCapture(s.name, { recording: recording!, audit: file('audit.jsonl'), kcmLog: file('kcm.log'), faults: path.join(dir, 'faults.jsonl') }, { recordThroughProxy: s.recordThroughProxy, truthOnly: s.truthOnly });
  });
}
