import { auditLineFilter, openAuditSource } from '../../src/sources/audit/audit-source.js';
import { InputReader } from '../../src/sources/audit/line-reader.js';
import { AuditNormaliser, type AuditRecord } from '../../src/sources/audit/normalise.js';
const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
const file = process.argv[2]!;
const res: Record<string, number[]> = {};
const rec = (k: string, v: number) => (res[k] ??= []).push(v);
for (let i = 0; i < 6; i++) {
  let c0 = cpu();
  { const r = new InputReader(file); r.filter = () => false; for await (const _ of r.lines()) {} }
  rec('a read+split', cpu() - c0); c0 = cpu();
  { const r = new InputReader(file); r.filter = auditLineFilter(false, false); for await (const _ of r.lines()) {} }
  rec('b +filter+decode', cpu() - c0); c0 = cpu();
  { const r = new InputReader(file); r.filter = auditLineFilter(false, false); for await (const b of r.lines()) for (const l of b) JSON.parse(l.text); }
  rec('c +parse', cpu() - c0); c0 = cpu();
  { const n = new AuditNormaliser({ problem() {}, skipped() {} }); const r = new InputReader(file); r.filter = auditLineFilter(false, false); for await (const b of r.lines()) for (const l of b) { const o: AuditRecord[] = []; n.fromValue(JSON.parse(l.text), l.no, o); } }
  rec('d +normalise', cpu() - c0); c0 = cpu();
  { const src = await openAuditSource(file, { diagnostics: { problem() {}, warn() {} } }); for await (const _ of src.events) {} }
  rec('e full', cpu() - c0);
}
for (const [k, v] of Object.entries(res)) { v.sort((a, b) => a - b); console.log(k.padEnd(20), 'min', v[0]!.toFixed(0), 'median', v[3]!.toFixed(0)); }
