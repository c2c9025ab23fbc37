/** Text rendering of `kexp kcm-log` results (ground truth per ReplicaSet, optional scores). */
import Table from 'cli-table3';
import { pct } from '../analysis/fidelity.js';
import type { KcmLogResult } from '../pipeline/kcm-log-files.js';
import { terminalSafeDeep } from './terminal-safe.js';

const PLAIN = { head: [] as string[], border: [] as string[] };
const t = (s?: string) => (s ? s.replace('T', ' ').replace('Z', '') : '—');

export function renderKcmLog(r: KcmLogResult): string {
  r = terminalSafeDeep(r);
  const out: string[] = [];
  if (r.replicaSets.length === 0) out.push('No ReplicaSet controller activity found in the log.');
  for (const rs of r.replicaSets) {
    const s = rs.syncs;
    out.push(`ReplicaSet ${rs.key}  (kube-controller-manager's own account: observed)`);
    out.push(`  Syncs ${s.total}: ${s.gated} gated (still waiting), ${s.fulfilled} fulfilled, ${s.expired} expired, ${s.neverRecorded} never recorded`);
    out.push(`  SetExpectations: ${rs.raises.length}${rs.raises.length ? ' — ' + rs.raises.slice(0, 8).map((x) => `${t(x.at).slice(11)} add ${x.add ?? '?'} del ${x.del ?? '?'}`).join('; ') + (rs.raises.length > 8 ? '; …' : '') : ''}`);
    if (rs.gatedWindows.length) {
      const tb = new Table({ head: ['Start', 'End', 'Ended', 'Expected add/del', 'Leaked add/del', 'Gated syncs', 'Evidence'], style: PLAIN });
      for (const w of rs.gatedWindows) {
        tb.push([t(w.start), t(w.end), w.ended, w.expected ? `${w.expected.add ?? '?'}/${w.expected.del ?? '?'}` : '?', w.leaked ? `${w.leaked.add}/${w.leaked.del}` : '—', String(w.gatedSyncs), w.evidence]);
      }
      out.push(tb.toString().replace(/^/gm, '  '));
    }
    for (const c of rs.clobbers) out.push(`  [ERROR] Clobbering existing delete keys at ${t(c.at)}: ${c.keys.join(', ')} (${c.evidence}) — an earlier deletion round never completed`);
    const a = rs.accounting;
    out.push(`  Pod writes logged: ${a.writes} ("Controller created pod" / "Deleting pod"), ${a.inRounds} in its ${a.rounds} round(s), ${a.outsideRounds.length} outside every round${a.outsideRounds.length ? ` (first ${t(a.outsideRounds[0]!.at)} ${a.outsideRounds[0]!.kind} ${a.outsideRounds[0]!.pod ?? ''} ${a.outsideRounds[0]!.evidence})` : ''}`);
    if (rs.slowStartFailures.length) out.push(`  Slow-start failures: ${rs.slowStartFailures.length} (first ${t(rs.slowStartFailures[0]!.at)}, podsSkipped ${rs.slowStartFailures[0]!.podsSkipped ?? '?'})`);
    if (rs.compare) {
      const c = rs.compare;
      out.push(`  Compare: decisions ${pct(c.syncs.matched, c.syncs.total)} matched (${c.syncs.mismatched} wrong, ${c.syncs.unknown} unknown); Sets ${pct(c.raises.exact, c.raises.total)} exact; leaks ${c.leaks.truePositive}/${c.leaks.truth} found, ${c.leaks.found - c.leaks.truePositive} false`);
      for (const m of c.mismatches.slice(0, 5)) out.push(`    ${m}`);
    }
    out.push('');
  }
  if (r.compare) {
    const c = r.compare.overall;
    out.push(`Overall vs ${r.compare.report}: decisions ${pct(c.syncs.matched, c.syncs.total)} of ${c.syncs.total} (${c.syncs.mismatched} wrong, ${c.syncs.unknown} unknown); Sets ${pct(c.raises.exact, c.raises.total)} exact of ${c.raises.total}; leaks found ${c.leaks.truePositive}/${c.leaks.truth}, false ${c.leaks.found - c.leaks.truePositive}`);
  }
  for (const i of r.inputs) {
    out.push(`Input: ${i.file} (${i.format}, ${i.stats.records} records, ${i.stats.events} ReplicaSet lines, ${Object.values(i.stats.excluded).reduce((a, b) => a + b, 0)} from other controllers skipped, ${i.stats.contextResolved} keyless lines attributed from context) ${t(i.start)} → ${t(i.end)}`);
  }
  if (r.restarts.length) out.push(`Controller restarts (expectations wiped): ${r.restarts.map(t).join(', ')}`);
  return out.join('\n') + '\n';
}
