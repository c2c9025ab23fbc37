/**
 * The floor any JSON-lines replay pays on this machine: read the file in 1 MiB chunks, split
 * lines and JSON.parse each one, nothing else. Prints lines/s (by wall clock and by CPU time) as JSON.
 */
import fs from 'node:fs';

const file = process.argv[2]!;
const t0 = process.hrtime.bigint();
const c0 = process.cpuUsage();
let n = 0;
let rest = '';
for await (const chunk of fs.createReadStream(file, { highWaterMark: 1 << 20, encoding: 'utf8' })) {
  const text = rest + chunk;
  let start = 0;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', start)) {
    if (i > start) {
      JSON.parse(text.slice(start, i));
      n++;
    }
    start = i + 1;
  }
  rest = text.slice(start);
}
const secs = Number(process.hrtime.bigint() - t0) / 1e9;
const c = process.cpuUsage(c0);
const cpu = (c.user + c.system) / 1e6;
console.log(JSON.stringify({ lines: n, seconds: +secs.toFixed(2), linesPerSecond: Math.round(n / secs), cpuSeconds: +cpu.toFixed(2), linesPerCpuSecond: Math.round(n / cpu) }));
