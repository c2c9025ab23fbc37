/**
 * Runs the fault scenarios (fault-scenarios.ts) against one real control plane whose
 * kube-controller-manager talks to the apiserver through the fault proxy, and captures each
 * like run-scenarios.ts does, plus `faults.jsonl` (the faults the proxy injected):
 *
 *   1. the controller-manager starts with leader election and
 *      StaleControllerConsistencyReplicaSet=false; the `gate-off` scenarios run side by side
 *      (each waits out the 5-minute ExpectationsTimeout), started STAGGER_MS apart;
 *   2. it is restarted gracefully with the gate on (the 1.37 default) and the `serial`
 *      scenarios run one at a time.
 *
 * Usage: npx tsx test/e2e/scenarios/run-fault-scenarios.ts [--out DIR] [--only a,b]
 * Also exported as `captureFaultScenarios` for the e2e test.
 */
import fs from 'node:fs';
import path from 'node:path';
import { kubeconfigYAML, type ControlPlane } from '../control-plane/control-plane.js';
import type { FaultProxy } from '../fault-proxy/fault-proxy.js';
import { startControlPlaneBehindProxy } from '../fault-proxy/control-plane-behind-proxy.js';
import { captureScenario, type Capture } from './run-scenarios.js';
import type { FaultScenario } from './fault-scenarios.js';
import { FAULT_CATALOGUE } from './fault-catalogue.js';
import { sleep } from './scenarios.js';

const STAGGER_MS = 20_000;
const GATE = 'StaleControllerConsistencyReplicaSet';

export interface FaultRun {
  captures: Capture[];
  /** Scenarios that could not be reproduced, with the reason (reported, never skipped silently). */
  failed: Array<{ name: string; error: string }>;
}

export async function startFaultControlPlane(runDir: string | undefined, faultLog: string): Promise<{ cp: ControlPlane; proxy: FaultProxy }> {
  return startControlPlaneBehindProxy({
    ...(runDir ? { runDir } : {}),
    leaderElect: true,
    extraKcmArgs: [`--feature-gates=${GATE}=false`],
    faultLog,
  });
}

export async function captureFaultScenarios(outDir: string, only: string[] | undefined, log: (m: string) => void): Promise<FaultRun> {
  fs.mkdirSync(outDir, { recursive: true });
  const { cp, proxy } = await startFaultControlPlane(undefined, path.join(outDir, 'faults.all.jsonl'));
  const recorderKubeconfig = path.join(cp.runDir, 'proxy.kubeconfig');
  fs.writeFileSync(recorderKubeconfig, kubeconfigYAML(proxy.url, path.join(cp.runDir, 'pki')), { mode: 0o600 });
  const run: FaultRun = { captures: [], failed: [] };
  const one = async (s: FaultScenario) => {
    try {
      run.captures.push(await captureScenario(cp, s, outDir, log, { proxy, ...(s.recordThroughProxy ? { recorderKubeconfig } : {}) }));
    } catch (e) {
      const error = String((e as Error)?.message ?? e).split('\n')[0];
      log(`scenario ${s.name}: NOT REPRODUCED: ${error}`);
      run.failed.push({ name: s.name, error });
      // Kept with the captures, so the fidelity bench reports it instead of skipping it.
      fs.mkdirSync(path.join(outDir, s.name), { recursive: true });
      fs.writeFileSync(path.join(outDir, s.name, 'NOT-REPRODUCED'), error + '\n');
    }
  };
  const selected = FAULT_CATALOGUE.filter((s) => !only || only.includes(s.name));
  try {
    const gateOff = selected.filter((s) => s.phase === 'gate-off');
    await Promise.all(gateOff.map(async (s, i) => {
      await sleep(i * STAGGER_MS);
      await one(s);
    }));
    const serial = selected.filter((s) => s.phase === 'serial');
    if (serial.length) {
      log(`restarting kube-controller-manager with ${GATE}=true (the default)`);
      await cp.restartKcm({ signal: 'SIGTERM', extraKcmArgs: [`--feature-gates=${GATE}=true`] });
      await sleep(10_000); // leader election (the old Lease was released) and informer sync
      for (const s of serial) await one(s);
    }
  } finally {
    await proxy.close();
    await cp.stop();
  }
  return run;
}

const isMain = process.argv[1] && path.resolve(process.argv[1]) === path.resolve(new URL(import.meta.url).pathname);
if (isMain) {
  const arg = (n: string) => {
    const i = process.argv.indexOf(n);
    return i >= 0 ? process.argv[i + 1] : undefined;
  };
  const out = arg('--out') ?? 'test-artifacts/fault-captures';
  const only = arg('--only')?.split(',');
  captureFaultScenarios(out, only, (m) => console.error(m)).then(
    (r) => {
      console.error(`captured ${r.captures.length} scenario(s) into ${out}; not reproduced: ${r.failed.map((f) => f.name).join(', ') || 'none'}`);
      if (r.failed.length) process.exitCode = 1;
    },
    (err) => {
      console.error(`run-fault-scenarios: ${String((err as Error)?.message ?? err).split('\n')[0]}`);
      process.exitCode = 1;
    },
  );
}
