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
import type { FaultScenario } from './fault-scenarios.js';
import type { FaultProxy } from '../fault-proxy/fault-proxy.js';
import type { FaultLogEntry } from '../fault-proxy/faults.js';

export interface Capture {
  scenario: Scenario | FaultScenario;
  namespace: string;
  dir: string;
  recording: string;
  audit: string;
  kcmLog: string;
  /** The proxy's log of the faults it injected (fault scenarios). */
  faults?: string;
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

/**
 * Audit lines about the namespace (namespaced objects in it, and the Namespace object itself),
 * and the cluster-scoped objects `alsoKeep` claims for the scenario (its fake Nodes).
 */
export function sliceAudit(text: string, ns: string, alsoKeep?: (objectRef: { resource?: string; name?: string; namespace?: string }) => boolean): string {
  const out: string[] = [];
  for (const line of text.split('\n')) {
    if (!line.includes(ns)) continue;
    try {
      const e = JSON.parse(line);
      const r = e.objectRef ?? {};
      if (r.namespace === ns || (r.resource === 'namespaces' && r.name === ns) || (r.namespace === undefined && alsoKeep?.(r))) out.push(line);
    } catch {
      /* partial line at the slice edge */
    }
  }
  return out.join('\n') + (out.length ? '\n' : '');
}

/**
 * KCM log records of the scenario's time range that concern its namespace. In 1.37 text logs
 * the expectations lines render `expectations={}` (no key, no counts) and carry no namespace at
 * all, so a ReplicaSet-controller line (replica_set*.go, controller_utils.go) that names no
 * namespace belongs to the namespace of the nearest line (in time, before or after it in the
 * log) that names one — the sync or the informer handler it was written from, microseconds
 * apart — and is kept when that is this namespace and lies within 1 s. Scenarios that run side
 * by side may log at the same moment; the nearest keyed line, not any keyed line within the
 * second, decides. Controller start/stop, leader-election lines and the pod and ReplicaSet
 * reflectors' lines (a relist) are kept: a restart or a relist is part of the story. Continuation lines follow their record.
 */
export interface KcmSliceOptions {
  /** Source files whose lines may name no namespace (default the ReplicaSet controller's). */
  keylessFiles?: string[];
  /** Controllers whose start/stop lines are kept (default replicaset, deployment). */
  controllers?: string[];
  /** Kinds whose reflector lines (a relist) are kept (default Pod, ReplicaSet). */
  reflectorKinds?: string[];
  /** Lines of the scenario that name no namespace, e.g. its cluster-scoped Nodes'. */
  mine?: (line: string) => boolean;
}

const RS_KCM_SLICE: Required<Omit<KcmSliceOptions, 'mine'>> = {
  keylessFiles: ['controller_utils', 'replica_set', 'replica_set_utils'],
  controllers: ['replicaset', 'deployment'],
  reflectorKinds: ['Pod', 'ReplicaSet'],
};

export function sliceKcm(text: string, ns: string, opts: KcmSliceOptions = {}): string {
  type Rec = { lines: string[]; at: number; keyNs: string | undefined; keyless: boolean; always: boolean };
  const recs: Rec[] = [];
  const o = { ...RS_KCM_SLICE, ...opts };
  const rsFile = new RegExp(`^[IWEF]\\d{4} [\\d:.]+\\s+\\d+ (${o.keylessFiles.join('|')})\\.go:\\d+\\]`);
  const always = new RegExp(
    `"(Starting|Shutting down) controller" name="(${o.controllers.join('|')})"|^[IWEF]\\d{4} [\\d:.]+\\s+\\d+ leaderelection\\.go:\\d+\\]|` +
      `^[IWEF]\\d{4} [\\d:.]+\\s+\\d+ reflector\\.go:\\d+\\] .*type="\\*v1\\.(${o.reflectorKinds.join('|')})"`,
  );
  const key = /"([a-z0-9][-a-z0-9]*)\/[^"]+"|namespace="([a-z0-9][-a-z0-9]*)"|Updating status for : ([a-z0-9][-a-z0-9]*)\//;
  const timeOf = (line: string) => {
    const m = /^[IWEF]\d{4} (\d\d):(\d\d):(\d\d)\.(\d+)/.exec(line);
    return m ? ((Number(m[1]) * 60 + Number(m[2])) * 60 + Number(m[3])) * 1000 + Number(m[4].slice(0, 6).padEnd(6, '0')) / 1000 : NaN;
  };
  for (const line of text.split('\n')) {
    if ((line.startsWith('\t') || line.startsWith(' ')) && recs.length) {
      recs[recs.length - 1].lines.push(line);
      continue;
    }
    const mine = line.includes(`${ns}/`) || line.includes(`"${ns}"`) || line.includes(`namespace="${ns}"`) || (o.mine?.(line) ?? false);
    const m = key.exec(line);
    const keyNs = mine ? ns : (m ? m[1] ?? m[2] ?? m[3] : undefined);
    recs.push({ lines: [line], at: timeOf(line), keyNs, keyless: !keyNs && rsFile.test(line), always: always.test(line) });
  }
  // The nearest keyed record before and after each record, in log order.
  const prev: number[] = [];
  const next: number[] = new Array(recs.length).fill(-1);
  for (let i = 0, last = -1; i < recs.length; i++) {
    prev.push(last);
    if (recs[i].keyNs) last = i;
  }
  for (let i = recs.length - 1, last = -1; i >= 0; i--) {
    next[i] = last;
    if (recs[i].keyNs) last = i;
  }
  const ownedByNearest = (i: number) => {
    const cands = [prev[i], next[i]].filter((j) => j >= 0).sort((a, b) => Math.abs(recs[a].at - recs[i].at) - Math.abs(recs[b].at - recs[i].at));
    const j = cands[0];
    return j !== undefined && recs[j].keyNs === ns && Math.abs(recs[j].at - recs[i].at) <= 1000;
  };
  const out = recs.filter((r, i) => r.keyNs === ns || r.always || (r.keyless && ownedByNearest(i))).flatMap((r) => r.lines);
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

export interface CaptureOptions {
  /** The fault proxy the controller-manager runs behind (fault scenarios): its log is sliced into faults.jsonl. */
  proxy?: FaultProxy;
  /** kubeconfig for kexp's recorder (default: the admin kubeconfig, straight to the apiserver). */
  recorderKubeconfig?: string;
}

/** Fault-log entries of the scenario: those naming its namespace, and global ones (stalls, ended watches, 410s) in its time. */
export function sliceFaults(entries: FaultLogEntry[], ns: string, from: number, to: number): string {
  const out = entries.filter((e) => {
    const t = Date.parse(e.time);
    if (e.namespace !== undefined) return e.namespace === ns;
    return t >= from && t <= to;
  });
  return out.map((e) => JSON.stringify(e)).join('\n') + (out.length ? '\n' : '');
}

export async function captureScenario(cp: ControlPlane, s: Scenario | FaultScenario, outDir: string, log: (m: string) => void, co: CaptureOptions = {}): Promise<Capture> {
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
  const access = await loadClusterAccess({ kubeconfig: co.recorderKubeconfig ?? cp.kubeconfigPath, namespace: ns });
  const t0 = Date.now();
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
    if ('phase' in s) {
      if (!co.proxy) throw new Error(`scenario ${s.name} needs the fault proxy`);
      await s.run({ cp, ns, log, proxy: co.proxy });
    } else await s.run({ cp, ns, log });
  } finally {
    // A scenario that failed half-way must not leave its faults to the next one.
    co.proxy?.removeWhere((r) => r.namespace === ns || ('phase' in s && s.phase === 'serial'));
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
  let faults: string | undefined;
  if (co.proxy) {
    faults = path.join(dir, 'faults.jsonl');
    fs.writeFileSync(faults, sliceFaults(co.proxy.log.entries, ns, t0, Date.now()));
  }
  log(`scenario ${s.name}: ${res.counts.events} events recorded`);
  return { scenario: s, namespace: ns, dir, recording, audit, kcmLog, faults, events: res.counts.events };
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
