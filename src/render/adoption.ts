/**
 * The adoption table (ClaimObject's decision per candidate pod), shared by replay, audit,
 * explain and adopt. Rows that need a look (adopt, release, ignore, none) are all listed first;
 * then `keep` rows — the usual case, one per pod the ReplicaSet already controls — up to
 * KEEP_SHOWN of them, and the rest collapsed into one count line per distinct reason
 * (`… 595 more pods: keep (Already controlled by …)`). `wide` lists every row in full.
 */
import type { AdoptionRow } from '../analysis/report-types.js';
import { formatTable, type Column } from './columns.js';
import { fitLine } from './text.js';
import { terminalSafeLine } from './terminal-safe.js';

export const KEEP_SHOWN = 5;

export interface AdoptionLine extends AdoptionRow {
  /** Only from `kexp adopt`: whether the pod is active, and its controller. */
  active?: boolean;
  controller?: string;
}

const ORDER = { adopt: 0, release: 1, ignore: 2, none: 3, keep: 4 } as const;

/** Decisions as `adopt 1, keep 600` (in the order above). */
export function decisionCounts(rows: AdoptionRow[]): string {
  const by = new Map<string, number>();
  for (const a of [...rows].sort((x, y) => ORDER[x.action] - ORDER[y.action])) by.set(a.action, (by.get(a.action) ?? 0) + 1);
  return [...by].map(([k, v]) => `${k} ${v}`).join(', ');
}

export interface AdoptionTableOptions {
  width: number;
  wide?: boolean;
  indent?: string;
  /** Add ACTIVE and CONTROLLER columns (kexp adopt). */
  detail?: boolean;
}

export function adoptionTable(rows: AdoptionLine[], o: AdoptionTableOptions): string[] {
  const indent = o.indent ?? '';
  const sorted = [...rows].sort((a, b) => ORDER[a.action] - ORDER[b.action] || a.pod.localeCompare(b.pod));
  const others = sorted.filter((r) => r.action !== 'keep');
  const keeps = sorted.filter((r) => r.action === 'keep');
  const collapse = !o.wide && keeps.length > KEEP_SHOWN + 1;
  const shown = [...others, ...(collapse ? keeps.slice(0, KEEP_SHOWN) : keeps)];
  const columns: Column[] = [
    { header: 'Pod', kind: 'text' },
    { header: 'Action', kind: 'fixed' },
    { header: 'Claimed', kind: 'fixed' },
    ...(o.detail ? [{ header: 'Active', kind: 'fixed' as const }, { header: 'Controller', kind: 'text' as const }] : []),
    { header: 'Why', kind: 'flex' },
  ];
  const cells = shown.map((a) => [
    a.pod.split('/')[1] ?? a.pod,
    a.action,
    a.claimed ? 'yes' : 'no',
    ...(o.detail ? [a.active === undefined ? '?' : a.active ? 'yes' : 'no', a.controller ?? '(orphan)'] : []),
    a.reason,
  ]);
  const out = formatTable(columns, cells, { width: o.width, wide: o.wide, indent });
  if (collapse) {
    const byReason = new Map<string, number>();
    for (const k of keeps.slice(KEEP_SHOWN)) byReason.set(k.reason, (byReason.get(k.reason) ?? 0) + 1);
    for (const [reason, n] of byReason) out.push(fitLine(`${indent}… ${n} more pod${n === 1 ? '' : 's'}: keep (${terminalSafeLine(reason).replace(/\.$/, '')})`, o.width));
  }
  return out;
}
