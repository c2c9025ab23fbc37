/**
 * Runs the scripted scenarios against a real control plane and captures, per scenario:
 *   <out>/<name>/recording.kexp.jsonl  kexp's recording of the watch stream (RS, pods, Events, namespace)
 *   <out>/<name>/audit.jsonl           the apiserver audit-log slice for the scenario's namespace
 *   <out>/<name>/kcm.log               the kube-controller-manager -v=4 log slice for that namespace
 *
 * Usage: npx tsx test/e2e/scenarios/run-scenarios.ts [--out DIR] [--only a,b] [--keep-running]
 * Also exported as `captureScenarios` for the e2e tests.
 */
import fs from 'node:fs';
import path from 'node:path';
import { startControlPlane, type ControlPlane } from '../control-plane/control-plane.js';
import { loadClusterAccess } from '../../../src/sources/live/kubeconfig.js';
import { parseTarget, recordLive } from '../../../src/pipeline/record-live.js';
import { SCENARIOS, api, sleep, type Scenario } from './scenarios.js';

export interface Capture {
  scenario: Scenario;
  namespace: string;
  dir: string;
  recording: string;
  audit: string;
  kcmLog: string;
  events: number;
}

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
    const size = fs.fstatSync(fd).size;
    const buf = Buffer.alloc(size - offset);
    fs.readSync(fd, buf, 0, buf.length, offset);
    return buf.toString('utf8');
  } finally {
    fs.closeSync(fd);
  }
}

/** Audit lines about the namespace (namespaced objects in it, and the Namespace object itself). */
export function sliceAudit(text: string, ns: string): string {
  const out: string[] = [];
  for (const line of text.split('\n')) {
    if (!line.includes(ns)) continue;
    try {
      const e = JSON.parse(line);
      const r = e.objectRef ?? {};
      if (r.namespace === ns || (r.resource === 'namespaces' && r.name === ns)) out.push(line);
    } catch {
      /* partial line at the slice edge */
    }
  }
  return out.join('\n') + (out.length ? '\n' : '');
}

/**
 * KCM log records of the scenario's time range that concern its namespace. In 1.37 text logs
 * the expectations lines render `expectations={}` (no key, no counts) and carry no namespace at
 * all, so ReplicaSet-controller lines (replica_set*.go, controller_utils.go) that name no other
 * namespace are kept too; scenarios run one at a time. Continuation lines follow their record.
 */
export function sliceKcm(text: string, ns: string): string {
  const out: string[] = [];
  let keep = false;
  const rsFile = /^[IWEF]\d{4} [\d:.]+\s+\d+ (controller_utils|replica_set|replica_set_utils)\.go:\d+\]/;
  for (const line of text.split('\n')) {
    if (line.startsWith('\t') || line.startsWith(' ')) {
      if (keep) out.push(line);
      continue;
    }
    if (line.includes(`${ns}/`) || line.includes(`"${ns}"`) || line.includes(`namespace="${ns}"`)) keep = true;
    else keep = rsFile.test(line) && !/"[a-z0-9][-a-z0-9]*\/[^"]+"/.test(line);
    if (keep) out.push(line);
  }
  return out.join('\n') + (out.length ? '\n' : '');
}

/**
 * Stops all background activity of a finished scenario (a ReplicaSet failing on quota retries
 * for minutes, and its keyless log lines would land in the next scenario's slice): deletes its
 * workloads and lets the namespace go (removing the test finalizer that holds it).
 */
async function cleanupNamespace(cp: ControlPlane, ns: string): Promise<void> {
  const { apiRequest } = await import('../control-plane/control-plane.js');
  await apiRequest(cp, 'DELETE', `/apis/apps/v1/namespaces/${ns}/deployments`, { propagationPolicy: 'Background' });
  await apiRequest(cp, 'DELETE', `/apis/apps/v1/namespaces/${ns}/replicasets`, { propagationPolicy: 'Background' });
  const cm = await apiRequest<any>(cp, 'GET', `/api/v1/namespaces/${ns}/configmaps/hold`);
  if (cm.status === 200) await apiRequest(cp, 'PATCH', `/api/v1/namespaces/${ns}/configmaps/hold`, { metadata: { finalizers: null } }, 'application/merge-patch+json');
  await apiRequest(cp, 'DELETE', `/api/v1/namespaces/${ns}`);
  await sleep(1000);
}

export async function captureScenario(cp: ControlPlane, s: Scenario, outDir: string, log: (m: string) => void): Promise<Capture> {
  const ns = `kexp-${s.name}`.slice(0, 63);
  const dir = path.join(outDir, s.name);
  fs.mkdirSync(dir, { recursive: true });
  const call = api(cp);
  await call('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  // The ServiceAccount admission plugin needs the namespace's default SA before pods can be created.
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
  const access = await loadClusterAccess({ kubeconfig: cp.kubeconfigPath, namespace: ns });
  const ac = new AbortController();
  const recording = path.join(dir, 'recording.kexp.jsonl');
  let synced!: () => void;
  const syncedP = new Promise<void>((r) => (synced = r));
  const rec = recordLive({
    access, target: parseTarget(s.target), file: recording, redact: true, signal: ac.signal, now: () => performance.timeOrigin + performance.now(),
    allowMissingTarget: true, overwrite: true, onSynced: () => synced(), onWarning: (m) => log(`  recorder: ${m}`),
  });
  await Promise.race([syncedP, sleep(10000)]);
  await sleep(300);
  log(`scenario ${s.name}: running in namespace ${ns}`);
  try {
    await s.run({ cp, ns, log });
  } finally {
    await sleep(1500);
    ac.abort();
  }
  const res = await rec;
  if (res.error) throw res.error;
  await cleanupNamespace(cp, ns);
  await sleep(500); // the audit ResponseComplete line can land after the response (control-plane.md §7.14)
  const audit = path.join(dir, 'audit.jsonl');
  const kcmLog = path.join(dir, 'kcm.log');
  fs.writeFileSync(audit, sliceAudit(readFrom(cp.auditLogPath, auditOffset), ns));
  fs.writeFileSync(kcmLog, sliceKcm(readFrom(cp.kcmLogPath, kcmOffset), ns));
  log(`scenario ${s.name}: ${res.counts.events} events recorded`);
  return { scenario: s, namespace: ns, dir, recording, audit, kcmLog, events: res.counts.events };
}

export async function captureScenarios(outDir: string, only: string[] | undefined, log: (m: string) => void, cp?: ControlPlane): Promise<Capture[]> {
  const own = !cp;
  const plane = cp ?? (await startControlPlane());
  const out: Capture[] = [];
  try {
    for (const s of SCENARIOS) {
      if (only && !only.includes(s.name)) continue;
      out.push(await captureScenario(plane, s, outDir, log));
    }
  } finally {
    if (own) await plane.stop();
  }
  return out;
}

const isMain = process.argv[1] && path.resolve(process.argv[1]) === path.resolve(new URL(import.meta.url).pathname);
if (isMain) {
  const arg = (n: string) => {
    const i = process.argv.indexOf(n);
    return i >= 0 ? process.argv[i + 1] : undefined;
  };
  const out = arg('--out') ?? 'test-artifacts/captures';
  const only = arg('--only')?.split(',');
  captureScenarios(out, only, (m) => console.error(m)).then(
    (c) => console.error(`captured ${c.length} scenario(s) into ${out}`),
    (err) => {
      console.error(`run-scenarios: ${String((err as Error)?.message ?? err).split('\n')[0]}`);
      process.exitCode = 1;
    },
  );
}
