/**
 * Terminal rendering of `kexp adopt` (an AdoptResult): the summary first — the decisions, what
 * CanAdopt says now, and the next step — then the adoption table (adoption.ts: repeated
 * `keep` rows collapsed into a count unless `wide`; ACTIVE and CONTROLLER from the live pods or
 * the input's last state of each, `?` where the input does not show the pod).
 */
import type { AdoptResult } from '../pipeline/adopt.js';
import { adoptionTable, decisionCounts } from './adoption.js';
import { displayLength } from './columns.js';
import { breakCommand } from './next-steps.js';
import { terminalSafeDeep } from './terminal-safe.js';
import { fitLine, labelled } from './text.js';

export interface AdoptRenderOptions {
  width?: number;
  wide?: boolean;
}

export function renderAdoptText(r: AdoptResult, o: AdoptRenderOptions = {}): string {
  const width = o.width ?? 100;
  const wide = o.wide ?? false;
  r = terminalSafeDeep(r);
  const out: string[] = [];
  const rs = r.replicaSet;
  const head = `ReplicaSet ${rs.key}${rs.deleting ? '  BEING DELETED' : ''}`;
  const tail = `${rs.selector ? `  selector ${rs.selector}` : ''}${rs.uid ? `  uid ${rs.uid}` : ''}`;
  out.push(wide || displayLength(head + tail) <= width ? head + tail : fitLine(head, width));
  out.push(labelled('Decisions: ', `${decisionCounts(r.rows) || 'no candidate pods'}${r.nonMatchingOrphans ? `; ${r.nonMatchingOrphans} orphan(s) in the namespace do not match the selector` : ''}`, width));
  out.push(labelled('CanAdopt now: ', `${r.canAdopt.available ? (r.canAdopt.ok ? 'passes' : 'FAILS') : 'not available'} — ${r.canAdopt.detail}`, width));
  out.push(labelled('From: ', r.source.kind === 'live' ? `${r.source.server} (context ${r.source.context}), read ${r.source.at.replace('T', ' ').replace('Z', '')} UTC` : `${r.source.files.join(', ')} (state at ${r.source.at ? r.source.at.replace('T', ' ').replace('Z', ' UTC') : 'end of input'})`, width));
  const [ns, name] = rs.key.split('/');
  const act = r.rows.filter((x) => x.action !== 'keep' && x.action !== 'none');
  if (ns && name && (act.length || r.canAdopt.ok === false)) {
    out.push(labelled('Next:    ', r.canAdopt.ok === false ? 'adoptions are refused while CanAdopt fails; see the ReplicaSet:' : 'the pods below change owner at the next sync; see them and the ReplicaSet:', width));
    out.push(...breakCommand(`kubectl -n ${ns} describe rs ${name}`, width, '  '));
    if (rs.selector) out.push(...breakCommand(`kubectl -n ${ns} get pods -l '${rs.selector}' -o wide`, width, '  '));
  }
  out.push('');
  // ACTIVE and CONTROLLER: read from the live pods, or from the pods at the end of the input.
  if (r.rows.length) out.push(...adoptionTable(r.rows, { width, wide, detail: true }));
  return out.join('\n') + '\n';
}
