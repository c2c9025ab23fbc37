/**
 * The replay's source side alone: read, split, parse, normalise, merge, tap, causal order and
 * the shape checks — everything `kexp replay` does before the engine — on one recording, without
 * the engine. Prints events/s by wall clock and by CPU time (user + system, which a busy machine
 * disturbs less) as JSON, to set beside parse-floor.ts.
 * Usage: node --import tsx bench/replay/source-side.ts FILE
 */
import { openWatchSource } from '../../src/sources/watch/index.js';
import { collectDiagnostics } from '../../src/sources/diagnostics.js';
import { CausalOrder, CAUSAL_WINDOW_MS } from '../../src/timeline/causal-order.js';
import { invalidObservedObject } from '../../src/timeline/validate.js';
import { replayStream } from '../../src/pipeline/replay-stream.js';
import { seeReplicaSetLabels, type ReplicaSetLabels } from '../../src/pipeline/replicaset-labels.js';

const file = process.argv[2]!;
const t0 = process.hrtime.bigint();
const c0 = process.cpuUsage();
const source = await openWatchSource(file, { diagnostics: collectDiagnostics() });
const labels: ReplicaSetLabels = new Map();
const it = replayStream([source.batches], { pulled: (e) => seeReplicaSetLabels(e, labels), causal: new CausalOrder(CAUSAL_WINDOW_MS) });
let events = 0;
let invalid = 0;
for (;;) {
  const r = await it.next();
  if (r.done) break;
  if (r.value.type === 'observed' && invalidObservedObject(r.value)) invalid++;
  events++;
}
const secs = Number(process.hrtime.bigint() - t0) / 1e9;
const c = process.cpuUsage(c0);
const cpu = (c.user + c.system) / 1e6;
console.log(JSON.stringify({ events, invalid, seconds: +secs.toFixed(2), eventsPerSecond: Math.round(events / secs), cpuSeconds: +cpu.toFixed(2), eventsPerCpuSecond: Math.round(events / cpu) }));
