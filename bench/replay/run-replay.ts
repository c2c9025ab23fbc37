/**
 * Replays a recording through the full pipeline (source → engine → report) and prints
 * events/s (by wall clock and by CPU time: user + system, which a busy machine disturbs less)
 * and peak RSS as JSON. Usage: node --import tsx bench/replay/run-replay.ts FILE
 */
import { replayFiles } from '../../src/pipeline/replay-files.js';

const file = process.argv[2]!;
const t0 = process.hrtime.bigint();
const c0 = process.cpuUsage();
let peak = 0;
const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 50);
const res = await replayFiles({ files: [file] });
clearInterval(timer);
const secs = Number(process.hrtime.bigint() - t0) / 1e9;
const c = process.cpuUsage(c0);
const cpu = (c.user + c.system) / 1e6;
const events = res.report.inputs.reduce((n, i) => n + i.events, 0);
peak = Math.max(peak, process.resourceUsage().maxRSS * 1024);
const rs = res.report.replicaSets[0];
console.log(JSON.stringify({ file, events, seconds: +secs.toFixed(2), eventsPerSecond: Math.round(events / secs), cpuSeconds: +cpu.toFixed(2), eventsPerCpuSecond: Math.round(events / cpu), peakRssMB: Math.round(peak / 1048576), syncs: rs?.syncs.total, verdict: rs?.verdict.state }));
