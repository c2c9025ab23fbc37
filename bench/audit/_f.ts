import { readFileSync } from 'node:fs';
import { auditLineFilter } from '../../src/sources/audit/audit-source.js';
import { findStringValue, keyScanner } from '../../src/sources/audit/line-reader.js';
const buf = readFileSync(process.argv[2]!);
const ls: number[] = []; let p = 0;
for (;;) { const nl = buf.indexOf(10, p); if (nl < 0) break; ls.push(p, nl); p = nl + 1; }
const f = auditLineFilter(false, false);
const rk = keyScanner('resource'); const set = new Set(['pods','replicasets','events','namespaces','resourcequotas','deployments']);
const g = (b: Buffer, s: number, e: number) => findStringValue(b, s, e, rk, false, (v) => set.has(v)) !== undefined;
const cnt = (b: Buffer, s: number, e: number) => { const i = b.indexOf(34, s); return i < e; };
for (const [name, fn] of [['full filter', f], ['resource only', g], ['trivial indexOf', cnt]] as const) {
  let best = 1e9, n = 0;
  for (let r = 0; r < 7; r++) { const t0 = process.hrtime.bigint(); n = 0; for (let i = 0; i < ls.length; i += 2) if (fn(buf, ls[i]!, ls[i + 1]!)) n++; best = Math.min(best, Number(process.hrtime.bigint() - t0) / 1e6); }
  console.log(name.padEnd(16), best.toFixed(1), 'ms', n);
}
