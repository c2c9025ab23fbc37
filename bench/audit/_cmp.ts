import { openAuditSource } from '../../src/sources/audit/audit-source.js';
const file = process.argv[2]!;
const get = async (prefilter: boolean) => { const s = await openAuditSource(file, { diagnostics: { problem() {}, warn() {} }, prefilter }); const out: string[] = []; for await (const e of s.events) out.push(JSON.stringify(e)); return out; };
const a = await get(true), b = await get(false);
console.log(file, a.length, b.length, JSON.stringify(a) === JSON.stringify(b) ? 'IDENTICAL' : 'DIFFERENT');
