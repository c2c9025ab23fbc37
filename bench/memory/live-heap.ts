/**
 * The live heap of a run over time: `kexp audit` (auditFiles) or `kexp replay` (replayFiles) of
 * one file, with a forced full GC and `process.memoryUsage()` every ~3 s of CPU, and heap
 * snapshots on request — what bench/README.md's "Memory" sections read the live heap and its
 * holders from. A timer never fires during a replay (the engine runs the events in one
 * synchronous stretch), so the probe runs from inside the engine's loop: it wraps
 * WindowTracker.prototype.drain (called after every event) and looks at the CPU clock every
 * 5,000 calls.
 *
 *   node --expose-gc --max-semi-space-size=16 --import tsx bench/memory/live-heap.ts audit|replay FILE [SNAP_CPU_S,…] [SNAP_DIR]
 *
 * Prints one line per probe to stderr (wall, CPU, live heap after the GC, RSS, external), then the
 * live heap once the command's function returned (its report still held) and its peak during the
 * run; with SNAP_CPU_S, writes a .heapsnapshot into SNAP_DIR the first time the CPU passes each of
 * those seconds (and `end.heapsnapshot` after the run when SNAP_END=1). The forced GCs cost CPU
 * and keep the RSS lower than a plain run's: read the live heap here, the RSS from the command.
 * Cost: a full GC per probe (~0.1–0.5 s at 100–180 MB live).
 */
import v8 from 'node:v8';
import { auditFiles } from '../../src/pipeline/audit-files.js';
import { replayFiles } from '../../src/pipeline/replay-files.js';
import { WindowTracker } from '../../src/analysis/engine/window-tracker.js';

const [mode, file, snapAt, outDir] = process.argv.slice(2);
const gc = (globalThis as { gc?: () => void }).gc;
if ((mode !== 'audit' && mode !== 'replay') || !file || !gc) {
  console.error('usage: node --expose-gc --import tsx bench/memory/live-heap.ts audit|replay FILE [SNAP_CPU_S,…] [SNAP_DIR]');
  process.exit(2);
}
const t0 = Date.now();
const cpu0 = process.cpuUsage();
const cpuSeconds = () => {
  const c = process.cpuUsage(cpu0);
  return (c.user + c.system) / 1e6;
};
const snaps = (snapAt ?? '').split(',').filter(Boolean).map(Number);
const mb = (b: number) => (b / 1e6).toFixed(1);
let peakLive = 0;
const probe = () => {
  gc();
  const m = process.memoryUsage();
  peakLive = Math.max(peakLive, m.heapUsed);
  const cs = cpuSeconds();
  console.error(`t=${((Date.now() - t0) / 1000).toFixed(0)}s cpu=${cs.toFixed(1)}s live=${mb(m.heapUsed)}MB rss=${mb(m.rss)}MB external=${mb(m.external)}MB`);
  if (outDir && snaps.length && cs >= snaps[0]!) {
    snaps.shift();
    console.error(`snapshot ${v8.writeHeapSnapshot(`${outDir}/cpu${cs.toFixed(0)}.heapsnapshot`)}`);
  }
};
const drain = WindowTracker.prototype.drain;
let calls = 0;
let lastProbe = 0;
WindowTracker.prototype.drain = function (this: WindowTracker): void {
  drain.call(this);
  if (++calls % 5000 !== 0) return;
  const cs = cpuSeconds();
  if (cs - lastProbe < 3) return;
  lastProbe = cs;
  probe();
};
const res = mode === 'audit' ? await auditFiles({ files: [file] }) : await replayFiles({ files: [file] });
gc();
console.error(`after the run (report held): live=${mb(process.memoryUsage().heapUsed)}MB; peak live during it=${mb(peakLive)}MB; ${res.report.replicaSets.length} reports`);
if (outDir && process.env.SNAP_END) console.error(`snapshot ${v8.writeHeapSnapshot(`${outDir}/end.heapsnapshot`)}`);
