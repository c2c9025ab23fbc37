import { openAuditSource } from '../../src/sources/audit/audit-source.js';
const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
const file = process.argv[2]!;
const v: number[] = [];
for (let i = 0; i < 8; i++) {
  const c0 = cpu();
  const src = await openAuditSource(file, { diagnostics: { problem() {}, warn() {} } });
  for await (const _ of src.events) {}
  v.push(cpu() - c0);
}
v.sort((a, b) => a - b);
console.log('full cpu min', v[0]!.toFixed(0), 'median', v[4]!.toFixed(0));
