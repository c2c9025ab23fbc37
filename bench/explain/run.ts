/**
 * Benchmark: time-to-first-verdict and peak RSS of `kexp explain` on a namespace with 5,000 pods,
 * on the local control plane (test/e2e/control-plane). Targets (issue #13): first verdict < 1.5 s
 * median and < 2 s max; < 300 MB.
 *
 *   npm run build && npx tsx bench/explain/run.ts [--pods 5000] [--runs 5] [--settle 30] [--base DIR] [--list-modes N] [--write]
 *
 * `--base DIR`: also run DIR/bin/run.js (another checkout, built, e.g. `git worktree add DIR
 * <commit>` + node_modules + `npm run build`) against the same namespace, alternating with this
 * one run by run, so that before and after see the same machine load; the result has both.
 * `--list-modes N`: first, N rounds of reading the pods in other ways (bench/explain/list-modes.ts:
 * larger pages, one unpaged LIST, the WatchList streaming list) with wall and CPU times.
 *
 * The ReplicaSet controller creates the pods (KCM's client QPS raised to 300 so that 5,000
 * creates take about a minute instead of four); they stay Pending (no kubelet, no scheduler),
 * which is what `explain` reads. Time-to-first-verdict is measured from spawning
 * `node bin/run.js explain` to the first stdout line starting with "Verdict:"; peak RSS is the
 * child's VmHWM from /proc, polled every 5 ms until it exits. `--write` rewrites RESULTS.md.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startControlPlane, apiRequest } from '../../test/e2e/control-plane/control-plane.js';
import { api, replicaSet, until } from '../../test/e2e/scenarios/scenarios.js';
import { measureListModes } from './list-modes.js';

const args = process.argv.slice(2);
const opt = (name: string, dflt: number) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : dflt;
};
const PODS = opt('pods', 5000);
const RUNS = opt('runs', 5);
const BIN = path.resolve(new URL('../../bin/run.js', import.meta.url).pathname);
const baseAt = args.indexOf('--base');
const BASE_BIN = baseAt >= 0 ? path.resolve(args[baseAt + 1]!, 'bin/run.js') : undefined;
if (BASE_BIN && !fs.existsSync(BASE_BIN)) throw new Error(`--base: ${BASE_BIN} does not exist`);

interface Run {
  firstVerdictMs: number;
  totalMs: number;
  peakRssMB: number;
  /** The child's CPU time (user + system, /proc, to 10 ms) at its last poll before it exited. */
  cpuMs: number;
  exit: number | null;
}

function cpuMsOf(pid: number): number {
  try {
    const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(f[11]) + Number(f[12])) * 10;
  } catch {
    return 0;
  }
}

function hwmKB(pid: number): number {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}

function runOnce(argv: string[], env: NodeJS.ProcessEnv, bin = BIN): Promise<Run> {
  return new Promise((resolve) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, [bin, ...argv], { env: { ...process.env, ...env, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let first = -1;
    let buf = '';
    let peak = 0;
    let cpu = 0;
    const poll = setInterval(() => {
      peak = Math.max(peak, hwmKB(child.pid!));
      cpu = Math.max(cpu, cpuMsOf(child.pid!));
    }, 5);
    child.stdout.on('data', (c: Buffer) => {
      if (first >= 0) return;
      buf += c.toString();
      if (/^Verdict: /m.test(buf) || /"verdict"/.test(buf)) first = performance.now() - t0;
    });
    child.stderr.resume();
    child.on('exit', (code) => {
      clearInterval(poll);
      const total = performance.now() - t0;
      resolve({ firstVerdictMs: first >= 0 ? first : total, totalMs: total, peakRssMB: peak / 1024, cpuMs: cpu, exit: code });
    });
  });
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const max = (xs: number[]) => Math.max(...xs);

const cp = await startControlPlane({ extraKcmArgs: ['--kube-api-qps=300', '--kube-api-burst=600'] });
try {
  const call = api(cp);
  const ns = 'bench';
  await call('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  await until('default SA', 60000, async () => (await apiRequest(cp, 'GET', `/api/v1/namespaces/${ns}/serviceaccounts/default`)).status === 200);
  const t0 = Date.now();
  await call('POST', `/apis/apps/v1/namespaces/${ns}/replicasets`, replicaSet('web', ns, PODS));
  await until(`${PODS} pods`, 30 * 60_000, async () => {
    const rs = await call<any>('GET', `/apis/apps/v1/namespaces/${ns}/replicasets/web`);
    return rs.status?.replicas === PODS && rs.status?.observedGeneration === rs.metadata.generation;
  });
  const createS = (Date.now() - t0) / 1000;
  console.error(`created ${PODS} pods in ${createS.toFixed(0)} s`);
  // Let the control plane settle (garbage-collector graph, event writes, KCM resyncs after 5,000 creates):
  // the measurement is about kexp, not about a control plane still busy with the load it just took.
  const SETTLE_S = opt('settle', 30);
  await new Promise((r) => setTimeout(r, SETTLE_S * 1000));
  const LIST_ROUNDS = opt('list-modes', 0);
  const listModes = LIST_ROUNDS > 0
    ? await measureListModes({ apiURL: cp.apiURL, caPath: cp.caPath, certPath: cp.adminCertPath, keyPath: cp.adminKeyPath, namespace: ns, serverPids: [cp.pids.apiserver, cp.pids.etcd].filter((p): p is number => p !== undefined), rounds: LIST_ROUNDS, expect: PODS })
    : undefined;
  const env = { KUBECONFIG: cp.kubeconfigPath };
  const loadBefore = os.loadavg()[0];
  const table: Run[] = [];
  const json: Run[] = [];
  const baseTable: Run[] = [];
  const baseJson: Run[] = [];
  const tableArgs = ['explain', 'web', '-n', ns];
  const jsonArgs = ['explain', 'web', '-n', ns, '-o', 'json'];
  await runOnce(tableArgs, env); // warm-up (file cache)
  if (BASE_BIN) await runOnce(tableArgs, env, BASE_BIN);
  // Alternating (base, this) run by run, so both see the same load.
  for (let i = 0; i < RUNS; i++) {
    if (BASE_BIN) baseTable.push(await runOnce(tableArgs, env, BASE_BIN));
    table.push(await runOnce(tableArgs, env));
  }
  for (let i = 0; i < RUNS; i++) {
    if (BASE_BIN) baseJson.push(await runOnce(jsonArgs, env, BASE_BIN));
    json.push(await runOnce(jsonArgs, env));
  }
  const fmt = (rs: Run[]) => ({
    firstVerdictMedianMs: Math.round(median(rs.map((r) => r.firstVerdictMs))),
    firstVerdictMaxMs: Math.round(max(rs.map((r) => r.firstVerdictMs))),
    totalMedianMs: Math.round(median(rs.map((r) => r.totalMs))),
    peakRssMedianMB: Math.round(median(rs.map((r) => r.peakRssMB))),
    peakRssMaxMB: Math.round(max(rs.map((r) => r.peakRssMB))),
    cpuMedianMs: Math.round(median(rs.map((r) => r.cpuMs))),
    firstVerdictMs: rs.map((r) => Math.round(r.firstVerdictMs)),
    exits: [...new Set(rs.map((r) => r.exit))],
  });
  const result = {
    pods: PODS, runs: RUNS, createSeconds: Math.round(createS), settleSeconds: SETTLE_S, table: fmt(table), json: fmt(json),
    ...(BASE_BIN ? { base: { bin: BASE_BIN, table: fmt(baseTable), json: fmt(baseJson) } } : {}),
    ...(listModes ? { listModes: listModes.map((m) => ({ mode: m.mode, wallMedianMs: median(m.wallMs), clientCpuMedianMs: median(m.clientCpuMs), serverCpuMedianMs: median(m.serverCpuMs), wallMs: m.wallMs })) } : {}),
    node: process.version, cpus: os.cpus().length, k8s: cp.k8sVersion, loadavg1mBefore: Number(loadBefore.toFixed(2)), loadavg1mAfter: Number(os.loadavg()[0].toFixed(2)),
  };
  console.log(JSON.stringify(result, null, 2));
  if (args.includes('--write')) {
    const ok = (r: ReturnType<typeof fmt>) => (r.firstVerdictMedianMs < 1500 && r.firstVerdictMaxMs < 2000 && r.peakRssMaxMB < 300 ? 'met' : 'NOT met');
    const row = (label: string, r: ReturnType<typeof fmt>) => `| ${label} | ${r.firstVerdictMedianMs} ms / ${r.firstVerdictMaxMs} ms | ${r.totalMedianMs} ms | ${r.cpuMedianMs} ms | ${r.peakRssMedianMB} MB / ${r.peakRssMaxMB} MB | ${ok(r)} |`;
    const rows = result.base
      ? [row('table, before (--base)', result.base.table), row('table, this build', result.table), row('json, before (--base)', result.base.json), row('json, this build', result.json)]
      : [row('table', result.table), row('json', result.json)];
    const md = `# kexp explain benchmark

\`npm run build && npx tsx bench/explain/run.ts ${args.filter((a) => a !== '--write').join(' ')}${args.length ? ' ' : ''}--write\` (bench/explain/run.ts): a namespace with ${PODS} pods of one
ReplicaSet (created by the ReplicaSet controller, Pending: no kubelet/scheduler, ${PODS} SuccessfulCreate Events,
partly aggregated) on the local control plane (kube-apiserver + etcd + KCM ${cp.k8sVersion}, test/e2e/control-plane),
\`kexp explain web -n bench\` spawned ${RUNS} times per output format after one warm-up run${BASE_BIN ? `, alternating run by run with
the build in \`${BASE_BIN.replace(/\/bin\/run\.js$/, '')}\` (\`--base\`, the commit before this work) on the same namespace` : ''}.

* time-to-first-verdict: from spawning \`node bin/run.js explain\` to the first stdout line \`Verdict: …\`
  (with \`-o json\`: to the first chunk containing \`"verdict"\`), so it includes Node start-up, oclif, kubeconfig,
  the reads (pods in pages of 500, one after the other as kubectl reads them; \`--list-modes\` compares other ways)
  and the analysis;
* peak RSS: the child's VmHWM from /proc, polled every 5 ms.

Machine: ${os.cpus().length} CPUs, Node ${process.version}; the control plane runs on the same machine. 1-minute load
average ${result.loadavg1mBefore} before and ${result.loadavg1mAfter} after the runs (other work shared the machine).

| output | time-to-first-verdict median / max | total median | kexp CPU median | peak RSS median / max | target (< 1.5 s median, < 2 s max, < 300 MB) |
|---|---|---|---|---|---|
${rows.join('\n')}
${result.listModes ? `
Ways of reading the ${PODS} pods (\`--list-modes ${LIST_ROUNDS}\`, bench/explain/list-modes.ts: one warm process, one keep-alive
connection, modes alternating round by round; medians; server = kube-apiserver + etcd CPU from /proc):

| mode | wall | client CPU | server CPU |
|---|---|---|---|
${result.listModes.map((m) => `| ${m.mode} | ${m.wallMedianMs} ms | ${m.clientCpuMedianMs} ms | ${m.serverCpuMedianMs} ms |`).join('\n')}
` : ''}
Exit codes seen: table ${result.table.exits.join(', ')}, json ${result.json.exits.join(', ')} (0 = healthy).
Creating the ${PODS} pods took ${result.createSeconds} s (KCM \`--kube-api-qps=300\`), not part of the measurement; the
runs start ${SETTLE_S} s after the last pod was reported, so the control plane is idle again (measured right after the
creates, while the garbage collector and KCM were still busy, the median was ~3.4 s on this 2-CPU machine).

Raw result:

\`\`\`json
${JSON.stringify(result, null, 2)}
\`\`\`
`;
    // A section written by hand (profiles, what was tried) survives a rewrite: everything from the marker on.
    const file = new URL('./RESULTS.md', import.meta.url);
    const MARK = '<!-- by hand below: kept by --write -->';
    const old = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
    fs.writeFileSync(file, old.includes(MARK) ? `${md}\n${old.slice(old.indexOf(MARK))}` : md);
  }
} finally {
  await cp.stop();
}
