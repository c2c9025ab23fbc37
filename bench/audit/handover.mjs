// How the reader thread should hand a passing line to the main thread (issue #25 item 1): as bytes
// the main thread decodes and JSON.parses, or parsed in the thread and structured-cloned over.
// Measures the main thread's share of each on the lines of FILE that contain NEEDLE (default: the
// pod lines), CPU milliseconds, three rounds. Usage: node bench/audit/handover.mjs FILE [NEEDLE]
import fs from 'node:fs'; import v8 from 'node:v8';
const file = process.argv[2]; const needle = process.argv[3] ?? '"resource":"pods"';
const lines = fs.readFileSync(file, 'utf8').split('\n').filter((l) => l.includes(needle)).slice(0, 20000);
const bufs = lines.map((l) => Buffer.from(l));
const objs = lines.map((l) => JSON.parse(l));
const ser = v8.serialize(objs);
const bytes = bufs.reduce((n, b) => n + b.length, 0);
for (let round = 0; round < 3; round++) {
  let t = process.cpuUsage(); let n = 0;
  for (const b of bufs) n += Object.keys(JSON.parse(b.toString('utf8'))).length;
  const parse = process.cpuUsage(t).user / 1000;
  t = process.cpuUsage();
  const back = v8.deserialize(ser); n += back.length;
  const clone = process.cpuUsage(t).user / 1000;
  t = process.cpuUsage();
  const s2 = v8.serialize(objs); n += s2.length;
  const serial = process.cpuUsage(t).user / 1000;
  console.log(`${lines.length} lines ${(bytes / 1e6).toFixed(1)} MB: decode+JSON.parse ${parse.toFixed(0)} ms; structured-clone deserialize ${clone.toFixed(0)} ms (serialize in worker ${serial.toFixed(0)} ms) ${n > 0}`);
}
