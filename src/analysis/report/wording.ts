/**
 * How the report words counts and durations, so every finding, round note and verdict says
 * them the same way: `plural(3, 'pod')` is "3 pods"; `fmtDuration` is "450ms", "42s", "7m30s"
 * or "2h5m" (a replay measures sub-second lags); `fmtAgo` is the same without milliseconds
 * ("0s", "42s", …: a snapshot's times are whole seconds).
 *
 * `describeWrites` words what a list of controller writes did ("created 2 pods (a, b) and
 * deleted 1 pod (c)").
 *
 * Pure; O(1) per call (describeWrites O(writes)).
 */
import type { ControllerWrite } from '../engine/write-ledger.js';

export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** Minutes and hours from whole seconds: "42s", "7m30s", "2h5m". */
function minutesAndHours(s: number): string {
  if (s < 120) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 120) return `${m}m${s % 60 ? `${s % 60}s` : ''}`;
  return `${Math.floor(m / 60)}h${m % 60 ? `${m % 60}m` : ''}`;
}

/** A duration measured by the replay: milliseconds below one second. */
export function fmtDuration(ms: number): string {
  if (ms < 1000) return `${Math.max(0, Math.round(ms))}ms`;
  return minutesAndHours(Math.round(ms / 1000));
}

/** How long ago, from a snapshot's whole-second times (never negative). */
export function fmtAgo(ms: number): string {
  return minutesAndHours(Math.max(0, Math.round(ms / 1000)));
}

/** What the controller's writes did, by kind: "created 2 pods (a, b) and tried to delete 1 pod (c)". */
export function describeWrites(ws: ControllerWrite[]): string {
  const parts: string[] = [];
  for (const kind of ['create', 'delete', 'adopt', 'release'] as const) {
    const of = ws.filter((w) => w.kind === kind);
    if (!of.length) continue;
    const verb = { create: 'created', delete: 'deleted', adopt: 'adopted', release: 'released' }[kind];
    const failed = of.filter((w) => w.outcome === 'failed').length;
    const pods = of.map((w) => w.pod).filter(Boolean).slice(0, 5).join(', ');
    parts.push(`${failed === of.length ? `tried to ${kind}` : verb} ${plural(of.length, 'pod')}${pods ? ` (${pods})` : ''}${failed && failed < of.length ? `, ${failed} failed` : ''}`);
  }
  return parts.join(' and ') || 'wrote';
}
