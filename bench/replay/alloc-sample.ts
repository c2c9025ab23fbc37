/**
 * Where `kexp replay` allocates per event: V8's sampling heap profiler over one replay
 * (replayFiles of FILE), counting the objects the minor and major GC collected too, so the sums
 * are allocation, not what stayed live. Prints bytes per event by allocating function (self) and
 * writes the raw profile to OUT (.heapprofile, loadable in Chrome DevTools) when given.
 *
 *   node --import tsx bench/replay/alloc-sample.ts FILE [OUT] [TOP]
 *
 * Sampling interval 32 KiB (V8's default 512 KiB undercounts short-lived objects less evenly);
 * the profiler costs ~10–20 % CPU, so time nothing with it.
 */
import fs from 'node:fs';
import { Session } from 'node:inspector/promises';
import { replayFiles } from '../../src/pipeline/replay-files.js';

interface Node {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: Node[];
}

const [file, out, topArg] = process.argv.slice(2);
if (!file) {
  console.error('usage: node --import tsx bench/replay/alloc-sample.ts FILE [OUT] [TOP]');
  process.exit(2);
}
const session = new Session();
session.connect();
await session.post('HeapProfiler.startSampling', {
  samplingInterval: 32768,
  includeObjectsCollectedByMajorGC: true,
  includeObjectsCollectedByMinorGC: true,
});
const res = await replayFiles({ files: [file] });
const { profile } = (await session.post('HeapProfiler.stopSampling')) as { profile: { head: Node } };
session.disconnect();
if (out) fs.writeFileSync(out, JSON.stringify(profile));
const events = res.report.inputs.reduce((n, i) => n + i.events, 0);
const self = new Map<string, number>();
let total = 0;
const walk = (n: Node): void => {
  const k = `${n.callFrame.functionName || '(anonymous)'} ${n.callFrame.url.replace(/^.*\/src\//, 'src/')}:${n.callFrame.lineNumber + 1}`;
  self.set(k, (self.get(k) ?? 0) + n.selfSize);
  total += n.selfSize;
  for (const c of n.children) walk(c);
};
walk(profile.head);
console.log(`${events} events, ${(total / events).toFixed(0)} bytes allocated per event (sampled)`);
for (const [k, v] of [...self].sort((a, b) => b[1] - a[1]).slice(0, Number(topArg ?? 40))) {
  console.log(`${(v / events).toFixed(0).padStart(6)} B/event ${((100 * v) / total).toFixed(1).padStart(5)} %  ${k}`);
}
