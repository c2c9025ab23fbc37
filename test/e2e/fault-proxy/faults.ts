/**
 * The faults the proxy can inject, and the log it keeps of each one it did inject.
 *
 * A fault is a rule the proxy holds until it is removed (or, for `drop`, until its count is
 * used up). Rules name a resource (`pods` or `replicasets`), optionally a namespace, an object
 * name and a client (a substring of the caller's User-Agent, e.g. `shared-informers` for the
 * kube-controller-manager's informers or `kexp/` for kexp). Actions:
 *
 * - `delay`: watch events of matching objects reach the client `delayMs` late (informer lag).
 *   Order is kept per namespace; requests, writes and other namespaces are not delayed.
 * - `drop`: matching watch events (`ADDED`, `MODIFIED`, `DELETED`) never reach the client.
 * - `hide-deletion`: the object keeps being served after it was deleted: its DELETED events
 *   (and MODIFIED events carrying its deletionTimestamp) are dropped and every relist (a LIST, or a watch-list's initial events) that lacks it gets
 *   the last state the proxy saw, so the client's cache still holds it.
 * - `gone`: the next `count` watch requests are answered `410 Gone` (reason Expired), as the
 *   apiserver does for a compacted resourceVersion; the reflector then relists.
 *
 * One-shot actions (not rules): end the open watches (cleanly, or by resetting the
 * connection), and stall all traffic of matching clients for a while (an apiserver brown-out).
 */
import fs from 'node:fs';

export type FaultResource = 'pods' | 'replicasets';
export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

interface RuleBase {
  resource: FaultResource;
  namespace?: string;
  /** Exact object name, or a prefix when it ends with `*`. */
  name?: string;
  /** Substring of the caller's User-Agent; every client when absent. */
  client?: string;
}

export type FaultRule =
  | (RuleBase & { action: 'delay'; delayMs: number })
  | (RuleBase & { action: 'drop'; events: WatchEventType[]; count?: number })
  | (RuleBase & { action: 'hide-deletion'; name: string; namespace: string })
  | (RuleBase & { action: 'gone'; count: number });

export type FaultAction = FaultRule['action'];
export const FAULT_ACTIONS: readonly FaultAction[] = ['delay', 'drop', 'hide-deletion', 'gone'];

/** One line of the fault log (JSON Lines): what the proxy did, when, to what. */
export interface FaultLogEntry {
  time: string;
  action: string;
  resource?: string;
  namespace?: string;
  name?: string;
  /** Watch event type affected, or the request verb. */
  event?: string;
  resourceVersion?: string;
  client?: string;
  rule?: number;
  detail?: string;
}

/**
 * Validates a rule from the control endpoint or a test; throws one line naming what is wrong
 * (an unknown action, a resource the proxy does not handle, a missing field).
 */
export function parseRule(input: unknown): FaultRule {
  const r = input as Record<string, unknown>;
  if (!r || typeof r !== 'object') throw new Error('fault rule: expected a JSON object');
  if (!FAULT_ACTIONS.includes(r.action as FaultAction)) throw new Error(`fault rule: unknown action ${JSON.stringify(r.action)} (known: ${FAULT_ACTIONS.join(', ')})`);
  if (r.resource !== 'pods' && r.resource !== 'replicasets') throw new Error(`fault rule: unknown resource ${JSON.stringify(r.resource)} (known: pods, replicasets)`);
  for (const k of ['namespace', 'name', 'client'] as const) {
    if (r[k] !== undefined && typeof r[k] !== 'string') throw new Error(`fault rule: ${k} must be a string`);
  }
  switch (r.action) {
    case 'delay':
      if (typeof r.delayMs !== 'number' || !(r.delayMs >= 0)) throw new Error('fault rule: delay needs delayMs ≥ 0');
      break;
    case 'drop':
      if (!Array.isArray(r.events) || !r.events.length || !r.events.every((e) => e === 'ADDED' || e === 'MODIFIED' || e === 'DELETED')) {
        throw new Error('fault rule: drop needs events, a list of ADDED/MODIFIED/DELETED');
      }
      if (r.count !== undefined && !(typeof r.count === 'number' && r.count > 0)) throw new Error('fault rule: drop count must be > 0');
      break;
    case 'hide-deletion':
      if (typeof r.name !== 'string' || typeof r.namespace !== 'string') throw new Error('fault rule: hide-deletion needs namespace and name');
      break;
    case 'gone':
      if (typeof r.count !== 'number' || !(r.count > 0)) throw new Error('fault rule: gone needs count > 0');
      break;
  }
  return r as unknown as FaultRule;
}

export function nameMatches(pattern: string | undefined, name: string | undefined): boolean {
  if (pattern === undefined) return true;
  if (name === undefined) return false;
  return pattern.endsWith('*') ? name.startsWith(pattern.slice(0, -1)) : name === pattern;
}

export function ruleMatches(rule: FaultRule, resource: string, userAgent: string, namespace?: string, name?: string): boolean {
  if (rule.resource !== resource) return false;
  if (rule.client !== undefined && !userAgent.includes(rule.client)) return false;
  if (rule.namespace !== undefined && namespace !== undefined && rule.namespace !== namespace) return false;
  if (rule.namespace !== undefined && namespace === undefined) return false;
  return nameMatches(rule.name, name);
}

/** Appends fault log lines to a file (synchronously: the log must survive a crash of the test). */
export class FaultLog {
  readonly entries: FaultLogEntry[] = [];
  constructor(
    private readonly file: string | undefined,
    private readonly now: () => number = Date.now,
  ) {
    if (file) fs.writeFileSync(file, '', { mode: 0o600 });
  }

  write(e: Omit<FaultLogEntry, 'time'>): void {
    const entry: FaultLogEntry = { time: new Date(this.now()).toISOString(), ...e };
    this.entries.push(entry);
    if (this.file) fs.appendFileSync(this.file, JSON.stringify(entry) + '\n');
  }
}
