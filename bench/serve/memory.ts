/**
 * kexp serve's memory and cost on a generated cluster: N ReplicaSets with P pods each are listed
 * into the serve registry (src/serve/registry.ts) as its reflectors would deliver them, then
 * `--minutes` (simulated clock) of churn follow — every `--interval` one ReplicaSet scaled up by
 * one (the RS spec, the pod's ADDED, the status write) and one pod of another deleted by someone
 * else and replaced by its controller (test/support/serve-churn.ts) — with an evaluation (the
 * owners whose report may have changed replayed, the metrics rebuilt, /metrics rendered) every
 * `--interval`, as serve runs.
 * Reports, same run: RSS (after a GC; heap, external and ArrayBuffers beside it) after the
 * initial list and every 10 simulated minutes, the evaluation time and owners replayed, CPU per
 * 1,000 churn events (evaluations included), and the time to render /metrics.
 *
 *   node --expose-gc --import tsx bench/serve/memory.ts [--rs 500] [--pods 3] [--minutes 60] [--interval 15] [--history 15] [--rows 10] [--steady-after 1]
 *
 * The steady state is what follows the first `--steady-after` minutes (default 1): the first
 * evaluation replays every listed owner, the second every one again (to prove its report stable,
 * src/serve/registry.ts), later ones only the owners with new events, a sync due or a report not
 * yet proven stable.
 */
import { ServeRegistry } from '../../src/serve/registry.ts';
import { ServeMetrics } from '../../src/serve/metrics.ts';
import { churnLines, churnWatches } from '../../test/support/serve-churn.ts';

function arg(name: string, def: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : def;
}
const RS = arg('rs', 500);
const PODS = arg('pods', 3);
const MINUTES = arg('minutes', 60);
const INTERVAL_S = arg('interval', 15);
const HISTORY_MS = arg('history', 15) * 60_000;
const EVERY_S = arg('rows', 10) * 60;
const STEADY_MS = arg('steady-after', 1) * 60_000;
const NS = 'bench';

const gc = (globalThis as { gc?: () => void }).gc ?? (() => {});
const mb = (n: number) => Math.round(n / 1048576);
function memory(): { rss: number; text: string } {
  gc();
  const m = process.memoryUsage();
  return { rss: mb(m.rss), text: `${mb(m.rss)} MB | ${mb(m.heapUsed)} / ${mb(m.heapTotal)} MB | ${mb(m.external)} MB | ${mb(m.arrayBuffers)} MB` };
}
const cpuMs = (c: NodeJS.CpuUsage) => (c.user + c.system) / 1000;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

async function main(): Promise<void> {
  const t0 = Date.parse('2026-12-05T00:00:00Z');
  const watches = churnWatches(NS);
  const reg = new ServeRegistry({ historyMs: HISTORY_MS, namespace: NS, watches, serverVersion: 'v1.37.2' });
  const metrics = new ServeMetrics(reg);
  const rss0 = memory().rss;
  const sinks = new Map(watches.map((w) => [w.resource, reg.sink(w.resource)]));
  const lines = churnLines({ rs: RS, pods: PODS, minutes: MINUTES, intervalS: INTERVAL_S, namespace: NS, t0 });
  let pending = lines.next();
  /** Delivers every line received before `t`; returns how many. */
  const deliver = (t: number): number => {
    let n = 0;
    while (!pending.done && pending.value.at < t) {
      const l = pending.value;
      if (l.event) sinks.get(l.src)!.event(l.event.type as 'ADDED', l.event.object, l.at, l.synthetic);
      n++;
      pending = lines.next();
    }
    return n;
  };
  const listed = deliver(t0 + 2);
  for (const s of sinks.values()) s.synced?.();
  const c0 = process.cpuUsage();
  const w0 = performance.now();
  let ev = await reg.evaluate(t0 + 2000);
  metrics.update(ev, { observed: false }, { leaderChanges: 0, restarts: 0 });
  const first = { wallMs: performance.now() - w0, cpuMs: cpuMs(process.cpuUsage(c0)) };
  const m0 = memory();
  const rows: string[] = [`| 0 min | ${m0.text} | ${ev.tookMs.toFixed(0)} ms | ${ev.replayed} | ${reg.journalSize.lines} |`];
  const evalTimes: number[] = [];
  const replayed: number[] = [];
  const scrapes: number[] = [];
  const rssAt: Array<{ min: number; rss: number }> = [{ min: 0, rss: m0.rss }];
  let churnEvents = 0;
  let scrapeBytes = 0;
  let scrapeSeries = 0;
  let steady0: { cpu: NodeJS.CpuUsage; wall: number; events: number; evals: number } | undefined;
  const cpu0 = process.cpuUsage();
  const wall0 = performance.now();
  for (let s = INTERVAL_S; s <= MINUTES * 60; s += INTERVAL_S) {
    const t = t0 + s * 1000;
    churnEvents += deliver(t);
    ev = await reg.evaluate(t);
    metrics.update(ev, { observed: false }, { leaderChanges: 0, restarts: 0 });
    evalTimes.push(ev.tookMs);
    replayed.push(ev.replayed);
    // A Prometheus scrape after each evaluation.
    const sc = performance.now();
    const text = await metrics.text();
    scrapes.push(performance.now() - sc);
    scrapeBytes = text.length;
    scrapeSeries = text.split('\n').filter((l) => l && !l.startsWith('#')).length;
    if (s * 1000 === STEADY_MS + INTERVAL_S * 1000) {
      steady0 = { cpu: process.cpuUsage(), wall: performance.now(), events: churnEvents, evals: evalTimes.length };
    }
    if (s % EVERY_S === 0) {
      const m = memory();
      rssAt.push({ min: s / 60, rss: m.rss });
      rows.push(`| ${s / 60} min | ${m.text} | ${ev.tookMs.toFixed(0)} ms | ${ev.replayed} | ${reg.journalSize.lines} |`);
    }
  }
  const cpu = cpuMs(process.cpuUsage(cpu0));
  const wall = performance.now() - wall0;
  const problems = [...ev.objects.values()].filter((r) => ['gated', 'leaked', 'failing', 'stalled'].includes(r.verdict.state)).length;
  console.log(`kexp serve bench: ${RS} ReplicaSets × ${PODS} pods (${listed} objects listed), ${MINUTES} min of churn (a scale-up and a pod replaced every ${INTERVAL_S} s), history ${HISTORY_MS / 60000} min, an evaluation and a /metrics scrape every ${INTERVAL_S} s; Node ${process.version}`);
  console.log(`RSS before anything ${rss0} MB; first evaluation (the initial list: every owner replayed) ${first.wallMs.toFixed(0)} ms wall, ${first.cpuMs.toFixed(0)} ms CPU`);
  console.log('| simulated time | RSS (after GC) | heap used / total | external | ArrayBuffers | evaluation | owners replayed | journal lines |');
  console.log('|---|---|---|---|---|---|---|---|');
  for (const r of rows) console.log(r);
  const sortedTimes = [...evalTimes].sort((a, b) => a - b);
  console.log(`evaluations: ${evalTimes.length}, median ${median(sortedTimes).toFixed(0)} ms, max ${sortedTimes[sortedTimes.length - 1]!.toFixed(0)} ms; owners replayed per evaluation median ${median(replayed)}, max ${Math.max(...replayed)}`);
  console.log(`churn: ${churnEvents} events; ${cpu.toFixed(0)} ms CPU (${wall.toFixed(0)} ms wall) for them and the ${evalTimes.length} evaluations and scrapes: ${(cpu / (churnEvents / 1000)).toFixed(0)} ms CPU per 1,000 events`);
  if (steady0) {
    const c = cpuMs(process.cpuUsage(steady0.cpu));
    const e = churnEvents - steady0.events;
    const n = evalTimes.length - steady0.evals;
    const steadyTimes = evalTimes.slice(steady0.evals).sort((a, b) => a - b);
    const steadyReplayed = replayed.slice(steady0.evals);
    console.log(`steady state (after the first ${STEADY_MS / 60000} min): ${n} evaluations, median ${median(steadyTimes).toFixed(0)} ms, max ${steadyTimes[steadyTimes.length - 1]?.toFixed(0)} ms, owners replayed median ${median(steadyReplayed)}; ${e} churn events, ${c.toFixed(0)} ms CPU (${(performance.now() - steady0.wall).toFixed(0)} ms wall): ${(c / (e / 1000)).toFixed(0)} ms CPU per 1,000 events`);
  }
  if (rssAt.length >= 3) {
    const half = rssAt[Math.floor(rssAt.length / 2)]!;
    const last = rssAt[rssAt.length - 1]!;
    console.log(`RSS from ${half.min} to ${last.min} min: ${half.rss} → ${last.rss} MB (${(((last.rss - half.rss) / (last.min - half.min)) * 10).toFixed(1)} MB per 10 min)`);
  }
  console.log(`/metrics: ${scrapeBytes} bytes, ${scrapeSeries} series, rendered in median ${median(scrapes).toFixed(1)} ms, max ${Math.max(...scrapes).toFixed(1)} ms; objects reported ${ev.objects.size}, in trouble ${problems}`);
}

await main();
