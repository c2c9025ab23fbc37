/**
 * Captures the DaemonSet and Job scenarios (workload-scenarios.ts) on one real control plane
 * whose kube-controller-manager runs the `daemonset` and `job` controllers (its own controllers
 * list: the ReplicaSet captures' control plane is left as it is) behind the fault proxy, with the
 * 1.37 default feature gates (the StaleControllerConsistency* gates on). Per scenario, into
 * <out>/<name>/:
 *   recording.kexp.jsonl  the watch dump (watch-recorder.ts; kexp recording format v1): the
 *                         DaemonSet and its ControllerRevisions or the Job, the namespace's Pods
 *                         and Events, the scenario's fake Nodes, the Namespace
 *   audit.jsonl           the apiserver audit-log slice: the namespace's objects and the scenario's Nodes
 *   kcm.log               the kube-controller-manager -v=4 log slice (sliceKcm, with the daemon
 *                         and job controllers' files and the scenario's node names)
 *   faults.jsonl          the faults the proxy injected (when there were any)
 * Files over 1 MB are gzipped (name.gz), as burst-600's are.
 *
 * The scenarios run side by side, each in its own namespace, started STAGGER_MS apart, the two
 * that wait out the ExpectationsTimeout first: about 7 minutes of wall time for all four.
 * The slices are cut before anything is cleaned up; the control plane is thrown away at the end.
 *
 * Usage: npx tsx test/e2e/scenarios/run-workload-scenarios.ts [--out DIR] [--only a,b]
 */
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { DEFAULT_CONTROLLERS, type ControlPlane } from '../control-plane/control-plane.js';
import type { FaultProxy } from '../fault-proxy/fault-proxy.js';
import { startControlPlaneBehindProxy } from '../fault-proxy/control-plane-behind-proxy.js';
import { sliceAudit, sliceFaults, sliceKcm } from './run-scenarios.js';
import { api, sleep } from './scenarios.js';
import { SCENARIO_LABEL, WORKLOAD_SCENARIOS, type WorkloadScenario } from './workload-scenarios.js';
import { startWatchRecorder, type RecordedWatch } from './watch-recorder.js';

const STAGGER_MS = 20_000;
const GZIP_OVER_BYTES = 1024 * 1024;

/** The ReplicaSet captures' controllers plus the two under study (never nodelifecycle: it would evict from the fake nodes). */
export const WORKLOAD_CONTROLLERS = [...DEFAULT_CONTROLLERS, 'daemonset', 'job'];

function sizeOf(file: string): number {
  try {
    return fs.statSync(file).size;
  } catch {
    return 0;
  }
}

function readFrom(file: string, offset: number): string {
  const fd = fs.openSync(file, 'r');
  try {
    const buf = Buffer.alloc(fs.fstatSync(fd).size - offset);
    fs.readSync(fd, buf, 0, buf.length, offset);
    return buf.toString('utf8');
  } finally {
    fs.closeSync(fd);
  }
}

/** Writes `text` to `file`, or gzipped to `file.gz` when it is over 1 MB; returns the name written. */
function writeCapture(file: string, text: string): string {
  fs.rmSync(file, { force: true });
  fs.rmSync(`${file}.gz`, { force: true });
  if (Buffer.byteLength(text) <= GZIP_OVER_BYTES) {
    fs.writeFileSync(file, text);
    return file;
  }
  fs.writeFileSync(`${file}.gz`, zlib.gzipSync(text, { level: 9 }));
  return `${file}.gz`;
}

function watchesOf(s: WorkloadScenario, ns: string): RecordedWatch[] {
  const nsd = (resource: string, group: string) => ({ watch: { resource, namespace: ns }, path: `${group}/namespaces/${ns}/${resource}` });
  const own = s.kind === 'DaemonSet' ? [nsd('daemonsets', '/apis/apps/v1'), nsd('controllerrevisions', '/apis/apps/v1')] : [nsd('jobs', '/apis/batch/v1')];
  return [
    ...own,
    nsd('pods', '/api/v1'),
    nsd('events', '/api/v1'),
    { watch: { resource: 'nodes', labelSelector: `${SCENARIO_LABEL}=${ns}` }, path: '/api/v1/nodes' },
    { watch: { resource: 'namespaces', name: ns }, path: '/api/v1/namespaces' },
  ];
}

export interface WorkloadCapture {
  name: string;
  namespace: string;
  dir: string;
  files: string[];
  events: number;
}

export async function captureWorkload(cp: ControlPlane, proxy: FaultProxy, s: WorkloadScenario, outDir: string, log: (m: string) => void): Promise<WorkloadCapture> {
  const ns = `kexp-${s.name}`.slice(0, 63);
  const dir = path.join(outDir, s.name);
  fs.mkdirSync(dir, { recursive: true });
  for (const f of fs.readdirSync(dir)) fs.rmSync(path.join(dir, f), { force: true });
  const call = api(cp);
  await call('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  for (let i = 0; i < 150; i++) {
    try {
      await call('GET', `/api/v1/namespaces/${ns}/serviceaccounts/default`);
      break;
    } catch {
      await sleep(200);
    }
  }
  const auditOffset = sizeOf(cp.auditLogPath);
  const kcmOffset = sizeOf(cp.kcmLogPath);
  const t0 = Date.now();
  const recording = path.join(dir, 'recording.kexp.jsonl');
  const rec = startWatchRecorder(cp, recording, watchesOf(s, ns), { serverVersion: `v${cp.k8sVersion}`, namespace: ns, [s.kind === 'DaemonSet' ? 'daemonSet' : 'job']: s.target });
  await rec.synced;
  await sleep(300);
  log(`scenario ${s.name}: running in namespace ${ns}`);
  try {
    await s.run({ cp, ns, proxy, log });
  } finally {
    proxy.removeWhere((r) => r.namespace === ns);
    await sleep(1500);
    await rec.stop();
  }
  await sleep(500); // the audit ResponseComplete line can land after the response (control-plane.md §7.14)
  const nodePrefix = `${ns}-node-`;
  const files = [recording];
  files.push(writeCapture(path.join(dir, 'audit.jsonl'), sliceAudit(readFrom(cp.auditLogPath, auditOffset), ns, (r) => r.resource === 'nodes' && (r.name ?? '').startsWith(nodePrefix))));
  files.push(
    writeCapture(
      path.join(dir, 'kcm.log'),
      sliceKcm(readFrom(cp.kcmLogPath, kcmOffset), ns, {
        keylessFiles: ['controller_utils', 'daemon_controller', 'update', 'job_controller', 'tracking_utils', 'backoff_utils'],
        controllers: ['daemonset', 'job'],
        reflectorKinds: ['Pod', 'DaemonSet', 'ControllerRevision', 'Job', 'Node'],
        mine: (line) => line.includes(`"${nodePrefix}`),
      }),
    ),
  );
  const faults = sliceFaults(proxy.log.entries, ns, t0, Date.now());
  if (faults) files.push(writeCapture(path.join(dir, 'faults.jsonl'), faults));
  const recText = fs.readFileSync(recording, 'utf8');
  if (Buffer.byteLength(recText) > GZIP_OVER_BYTES) {
    files[0] = writeCapture(recording, recText);
  }
  log(`scenario ${s.name}: ${rec.events} watch events recorded`);
  return { name: s.name, namespace: ns, dir, files, events: rec.events };
}

export async function captureWorkloads(outDir: string, only: string[] | undefined, log: (m: string) => void): Promise<{ captures: WorkloadCapture[]; failed: Array<{ name: string; error: string }> }> {
  fs.mkdirSync(outDir, { recursive: true });
  const { cp, proxy } = await startControlPlaneBehindProxy({
    controllers: WORKLOAD_CONTROLLERS,
    extraAuditResources: [
      { group: 'apps', resources: ['daemonsets', 'daemonsets/*', 'controllerrevisions'] },
      { group: 'batch', resources: ['jobs', 'jobs/*'] },
    ],
    faultLog: path.join(outDir, 'faults.all.jsonl'),
  });
  log(`control plane up (${cp.runDir}); controllers: ${WORKLOAD_CONTROLLERS.join(',')}`);
  const captures: WorkloadCapture[] = [];
  const failed: Array<{ name: string; error: string }> = [];
  const selected = WORKLOAD_SCENARIOS.filter((s) => !only || only.includes(s.name)).sort((a, b) => Number(b.long) - Number(a.long));
  try {
    await Promise.all(
      selected.map(async (s, i) => {
        await sleep(i * STAGGER_MS);
        try {
          captures.push(await captureWorkload(cp, proxy, s, outDir, log));
        } catch (e) {
          const error = String((e as Error)?.message ?? e).split('\n')[0];
          log(`scenario ${s.name}: NOT REPRODUCED: ${error}`);
          failed.push({ name: s.name, error });
          fs.mkdirSync(path.join(outDir, s.name), { recursive: true });
          fs.writeFileSync(path.join(outDir, s.name, 'NOT-REPRODUCED'), error + '\n');
        }
      }),
    );
  } finally {
    await proxy!.close();
    await cp.stop();
  }
  return { captures, failed };
}

const isMain = process.argv[1] && path.resolve(process.argv[1]) === path.resolve(new URL(import.meta.url).pathname);
if (isMain) {
  const arg = (n: string) => {
    const i = process.argv.indexOf(n);
    return i >= 0 ? process.argv[i + 1] : undefined;
  };
  const out = arg('--out') ?? 'test-artifacts/workload-captures';
  const only = arg('--only')?.split(',');
  captureWorkloads(out, only, (m) => console.error(`${new Date().toISOString().slice(11, 19)} ${m}`)).then(
    (r) => {
      console.error(`captured ${r.captures.length} scenario(s) into ${out}; not reproduced: ${r.failed.map((f) => f.name).join(', ') || 'none'}`);
      if (r.failed.length) process.exitCode = 1;
    },
    (err) => {
      console.error(`run-workload-scenarios: ${String((err as Error)?.message ?? err).split('\n')[0]}`);
      process.exitCode = 1;
    },
  );
}
