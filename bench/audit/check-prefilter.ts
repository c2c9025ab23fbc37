/**
 * Soundness check for the byte-level prefilter on a real file: reads it twice through
 * openAuditSource, with and without the prefilter, and compares the emitted events.
 *
 *   npx tsx bench/audit/check-prefilter.ts FILE...
 *
 * Exit code 1 when any file differs (the prefilter must only skip lines the parser would drop).
 */
import { openAuditSource } from '../../src/sources/audit/audit-source.js';

async function events(file: string, prefilter: boolean): Promise<string[]> {
  const src = await openAuditSource(file, { diagnostics: { problem() {}, warn() {} }, prefilter });
  const out: string[] = [];
  for await (const e of src.events) out.push(JSON.stringify(e));
  return out;
}

async function main(files: string[]): Promise<void> {
  let bad = 0;
  for (const file of files) {
    const [a, b] = [await events(file, true), await events(file, false)];
    const same = a.length === b.length && a.every((x, i) => x === b[i]);
    if (!same) bad++;
    process.stdout.write(`${same ? 'same' : 'DIFFERENT'}  ${file}: ${a.length} events with the prefilter, ${b.length} without\n`);
  }
  process.exitCode = bad > 0 ? 1 : 0;
}

main(process.argv.slice(2)).catch((e: unknown) => {
  process.stderr.write(`${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(2);
});
