/**
 * Streams one audit file through openAuditSource and prints counts, throughput and peak RSS
 * as one JSON line. Used by bench/audit/run.sh; also handy to check a real file:
 *   npx tsx bench/audit/read.ts FILE [--no-prefilter] [--summary]
 */
import { statSync } from 'node:fs';
import { openAuditSource } from '../../src/sources/audit/audit-source.js';

const args = process.argv.slice(2);
const file = args.find((a) => !a.startsWith('--'));
if (!file) {
  process.stderr.write('usage: read.ts FILE [--no-prefilter] [--summary]\n');
  process.exit(2);
}
async function main(file: string): Promise<void> {
let problems = 0;
const t0 = process.hrtime.bigint();
const src = await openAuditSource(file, {
  diagnostics: {
    problem: (p) => {
      problems++;
      if (problems <= 5) process.stderr.write(`problem: ${p.file}:${p.line}: ${p.message}\n`);
    },
    warn: (m) => process.stderr.write(`warning: ${m}\n`),
  },
  prefilter: !args.includes('--no-prefilter'),
});
const counts: Record<string, number> = {};
for await (const ev of src.events) counts[ev.type] = (counts[ev.type] ?? 0) + 1;
const secs = Number(process.hrtime.bigint() - t0) / 1e9;
const s = src.summary();
const fileBytes = file === '-' ? s.bytes : statSync(file).size;
const out: Record<string, unknown> = {
  file,
  seconds: +secs.toFixed(3),
  fileMB: +(fileBytes / 1e6).toFixed(1),
  uncompressedMB: +(s.bytes / 1e6).toFixed(1),
  MBps: +(s.bytes / 1e6 / secs).toFixed(1),
  maxRssMB: +(process.resourceUsage().maxRSS / 1024).toFixed(1),
  events: counts,
  lines: s.linesRead,
  skippedByPrefilter: s.linesSkippedByPrefilter,
  rsControllerWrites: s.rsControllerWrites,
  problems,
};
if (args.includes('--summary')) out.summary = s;
process.stdout.write(JSON.stringify(out) + '\n');
}

// No top-level await, so run.sh can bundle this file to CommonJS with esbuild.
main(file).catch((e: unknown) => {
  process.stderr.write(`${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
