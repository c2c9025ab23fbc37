/**
 * kexp serve's memory and cost on a generated cluster: N ReplicaSets with P pods each are listed
 * into the serve registry (src/serve/registry.ts) as its reflectors would deliver them, then an
 * hour (simulated clock) of churn follows — every 15 s one ReplicaSet scaled up by one (the RS
 * spec, the pod's ADDED, the status write) and one pod of another deleted by someone else and
 * replaced by its controller — with an evaluation (the journal replayed,
 * the metrics rebuilt) every `--interval` and the journal folded to `--history`, as serve runs.
 * Reports RSS (after a GC) after the initial list and every 10 simulated minutes, the evaluation
 * time, CPU per 1,000 events, and the time to render /metrics.
 *
 *   node --expose-gc --import tsx bench/serve/memory.ts [--rs 500] [--pods 3] [--minutes 60] [--interval 15]
 */
import { ServeRegistry } from '../../src/serve/registry.ts';
import { ServeMetrics } from '../../src/serve/metrics.ts';

function arg(name: string, def: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : def;
}
const RS = arg('rs', 500);
const PODS = arg('pods', 3);
const MINUTES = arg('minutes', 60);
const INTERVAL_S = arg('interval', 15);
const HISTORY_MS = 15 * 60_000;
const NS = 'bench';

const gc = (globalThis as { gc?: () => void }).gc ?? (() => {});
const rssMB = () => {
  gc();
  return Math.round(process.memoryUsage().rss / 1048576);
};

let rv = 1000;
let uidN = 0;
const iso = (t: number) => new Date(t).toISOString().replace(/\.\d+Z$/, 'Z');

function rsObject(i: number, replicas: number, gen: number, t0: number): Record<string, unknown> {
  const labels = { app: `app-${i}` };
  return {
    apiVersion: 'apps/v1', kind: 'ReplicaSet',
    metadata: { name: `web-${i}`, namespace: NS, uid: `rs-uid-${i}`, resourceVersion: String(++rv), generation: gen, labels, creationTimestamp: iso(t0 - 3600_000) },
    spec: { replicas, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: 'app', image: 'registry.k8s.io/pause:3.10' }] } } },
    status: { replicas, fullyLabeledReplicas: replicas, readyReplicas: replicas, availableReplicas: replicas, observedGeneration: gen },
  };
}

function podObject(i: number, name: string, uid: string, t: number, deleting?: number): Record<string, unknown> {
  return {
    apiVersion: 'v1', kind: 'Pod',
    metadata: {
      name, namespace: NS, uid, resourceVersion: String(++rv), labels: { app: `app-${i}` }, creationTimestamp: iso(t),
      ...(deleting !== undefined ? { deletionTimestamp: iso(deleting), deletionGracePeriodSeconds: 0 } : {}),
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: `web-${i}`, uid: `rs-uid-${i}`, controller: true, blockOwnerDeletion: true }],
    },
    spec: { nodeName: 'node-1', containers: [{ name: 'app', image: 'registry.k8s.io/pause:3.10' }] },
    status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] },
  };
}

async function main(): Promise<void> {
  const t0 = Date.parse('2026-12-05T00:00:00Z');
  const watches = ['namespaces', 'pods', 'events', 'replicasets'].map((resource) => ({ resource, ...(resource === 'namespaces' ? { name: NS } : { namespace: NS }) }));
  const reg = new ServeRegistry({ historyMs: HISTORY_MS, namespace: NS, watches, serverVersion: 'v1.37.2' });
  const metrics = new ServeMetrics(reg);
  const rss0 = rssMB();
  const sink = (r: string) => reg.sink(r);
  const ns = sink('namespaces');
  const pods = sink('pods');
  const rss = sink('replicasets');
  ns.event('ADDED', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS, uid: 'ns-uid', resourceVersion: String(++rv) }, status: { phase: 'Active' } }, t0, 'initial-list');
  const replicas: number[] = [];
  const live: string[][] = [];
  const uidOf = new Map<string, string>();
  for (let i = 0; i < RS; i++) {
    live.push([]);
    for (let p = 0; p < PODS; p++) {
      const name = `web-${i}-${p}`;
      live[i]!.push(name);
      uidOf.set(name, `pod-uid-${++uidN}`);
      pods.event('ADDED', podObject(i, name, uidOf.get(name)!, t0 - 3600_000), t0, 'initial-list');
    }
  }
  for (const w of ['namespaces', 'pods', 'events']) sink(w).synced?.();
  for (let i = 0; i < RS; i++) {
    replicas.push(PODS);
    rss.event('ADDED', rsObject(i, PODS, 1, t0), t0 + 1, 'initial-list');
  }
  rss.synced?.();
  const gens = new Array<number>(RS).fill(1);
  let events = 1 + RS * (PODS + 1);
  const cpu0 = process.cpuUsage();
  let ev = await reg.evaluate(t0 + 2000);
  metrics.update(ev, { observed: false }, { leaderChanges: 0, restarts: 0 });
  const firstEvalMs = ev.tookMs;
  const rssListed = rssMB();
  const rows: string[] = [`| ${0} min | ${rssListed} MB | ${ev.tookMs.toFixed(0)} ms | ${reg.journal.size.lines} |`];
  const evalTimes: number[] = [];
  let churnEvents = 0;
  for (let s = INTERVAL_S; s <= MINUTES * 60; s += INTERVAL_S) {
    const t = t0 + s * 1000;
    // Someone deletes one pod of a ReplicaSet (the controller replaces it), and another ReplicaSet is scaled up by one.
    const j = (s / INTERVAL_S + Math.floor(RS / 2)) % RS;
    const victim = live[j]![0];
    if (victim) {
      const vuid = uidOf.get(victim)!;
      pods.event('MODIFIED', podObject(j, victim, vuid, t0 - 3600_000, t - 14000), t - 14000);
      pods.event('DELETED', podObject(j, victim, vuid, t0 - 3600_000, t - 14000), t - 13990);
      const repl = `web-${j}-r${s}`;
      const ruid = `pod-uid-${++uidN}`;
      uidOf.set(repl, ruid);
      pods.event('ADDED', podObject(j, repl, ruid, t - 13980), t - 13975);
      live[j] = [...live[j]!.slice(1), repl];
      uidOf.delete(victim);
      churnEvents += 3;
    }
    const i = (s / INTERVAL_S) % RS;
    replicas[i]!++;
    const name = `web-${i}-x${s}`;
    const uid = `pod-uid-${++uidN}`;
    uidOf.set(name, uid);
    live[i]!.push(name);
    rss.event('MODIFIED', { ...rsObject(i, replicas[i]!, ++gens[i]!, t0), status: { replicas: replicas[i]! - 1, observedGeneration: gens[i]! - 1 } }, t - 500);
    pods.event('ADDED', podObject(i, name, uid, t - 480), t - 470);
    rss.event('MODIFIED', rsObject(i, replicas[i]!, gens[i]!, t0), t - 400);
    churnEvents += 3;
    ev = await reg.evaluate(t);
    metrics.update(ev, { observed: false }, { leaderChanges: 0, restarts: 0 });
    evalTimes.push(ev.tookMs);
    if (s % 600 === 0) rows.push(`| ${s / 60} min | ${rssMB()} MB | ${ev.tookMs.toFixed(0)} ms | ${reg.journal.size.lines} |`);
  }
  const cpu = process.cpuUsage(cpu0);
  events += churnEvents;
  const scrape0 = performance.now();
  const text = await metrics.text();
  const scrapeMs = performance.now() - scrape0;
  reg.close();
  evalTimes.sort((a, b) => a - b);
  const problems = [...ev.objects.values()].filter((r) => ['gated', 'leaked', 'failing', 'stalled'].includes(r.verdict.state)).length;
  console.log(`kexp serve bench: ${RS} ReplicaSets × ${PODS} pods, ${MINUTES} min of churn (a scale-up and a pod replaced every ${INTERVAL_S} s), history ${HISTORY_MS / 60000} min, an evaluation every ${INTERVAL_S} s; Node ${process.version}`);
  console.log(`RSS before anything ${rss0} MB; first evaluation (the initial list) ${firstEvalMs.toFixed(0)} ms`);
  console.log('| simulated time | RSS (after GC) | evaluation | journal lines |');
  console.log('|---|---|---|---|');
  for (const r of rows) console.log(r);
  console.log(`evaluations: ${evalTimes.length}, median ${evalTimes[Math.floor(evalTimes.length / 2)]!.toFixed(0)} ms, max ${evalTimes[evalTimes.length - 1]!.toFixed(0)} ms; CPU ${((cpu.user + cpu.system) / 1000).toFixed(0)} ms for ${churnEvents} churn events and ${evalTimes.length} evaluations (${((cpu.user + cpu.system) / 1000 / (churnEvents / 1000)).toFixed(0)} ms CPU per 1,000 events, evaluations included)`);
  if (process.env.BENCH_DEBUG) for (const r of [...ev.objects.values()].filter((r) => ["gated", "leaked", "failing", "stalled"].includes(r.verdict.state)).slice(0, 3)) console.log(r.key, r.verdict.state, r.verdict.summary, r.findings.map((f) => f.id).join(","));
  console.log(`/metrics: ${text.length} bytes, ${text.split('\n').filter((l) => l && !l.startsWith('#')).length} series, rendered in ${scrapeMs.toFixed(1)} ms; objects reported ${ev.objects.size}, in trouble ${problems}`);
}

await main();
