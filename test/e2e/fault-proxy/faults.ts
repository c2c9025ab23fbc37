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
 *   apiserver does for a compacted resourceVersion; the reflector then relists. With a
 *   `namespace`, only watches of that namespace count (a cluster-wide watch is not one).
 *
 * A rule with a `namespace` never matches a request or event without one. `drop` and `gone`
 * rules with a `count` are removed when it is used up.
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

/** The fields each action takes (anything else is a typo that would silently widen the rule). */
const FIELDS: Record<FaultAction, readonly string[]> = {
  delay: ['delayMs'],
  drop: ['events', 'count'],
  'hide-deletion': [],
  gone: ['count'],
};
const COMMON_FIELDS = ['action', 'resource', 'namespace', 'name', 'client'];

/**
 * Validates a rule from the control endpoint or a test and returns a copy of it (the proxy
 * counts `count` down on its own copy, never on the caller's object); throws one line naming
 * what is wrong (an unknown action, a resource the proxy does not handle, a missing or unknown
 * field — a misspelt `namespace` would otherwise make the rule match every namespace).
 */
export function parseRule(input: unknown): FaultRule {
  if (!input || typeof input !== 'object' || Array.isArray(input)) throw new Error('fault rule: expected a JSON object');
  const r = input as Record<string, unknown>;
  if (!FAULT_ACTIONS.includes(r.action as FaultAction)) throw new Error(`fault rule: unknown action ${JSON.stringify(r.action)} (known: ${FAULT_ACTIONS.join(', ')})`);
  const action = r.action as FaultAction;
  if (r.resource !== 'pods' && r.resource !== 'replicasets') throw new Error(`fault rule: unknown resource ${JSON.stringify(r.resource)} (known: pods, replicasets)`);
  const known = [...COMMON_FIELDS, ...FIELDS[action]];
  const unknown = Object.keys(r).filter((k) => !known.includes(k));
  if (unknown.length) throw new Error(`fault rule: ${action} does not take ${unknown.map((k) => JSON.stringify(k)).join(', ')} (it takes ${known.join(', ')})`);
  for (const k of ['namespace', 'name', 'client'] as const) {
    if (r[k] !== undefined && (typeof r[k] !== 'string' || r[k] === '')) throw new Error(`fault rule: ${k} must be a non-empty string`);
  }
  const isCount = (v: unknown) => typeof v === 'number' && Number.isInteger(v) && v > 0;
  switch (action) {
    case 'delay':
      if (typeof r.delayMs !== 'number' || !Number.isFinite(r.delayMs) || r.delayMs < 0) throw new Error('fault rule: delay needs delayMs ≥ 0');
      break;
    case 'drop':
      if (!Array.isArray(r.events) || !r.events.length || !r.events.every((e) => e === 'ADDED' || e === 'MODIFIED' || e === 'DELETED')) {
        throw new Error('fault rule: drop needs events, a list of ADDED/MODIFIED/DELETED');
      }
      if (r.count !== undefined && !isCount(r.count)) throw new Error('fault rule: drop count must be a whole number > 0');
      break;
    case 'hide-deletion':
      if (typeof r.name !== 'string' || typeof r.namespace !== 'string') throw new Error('fault rule: hide-deletion needs namespace and name');
      if (r.name.endsWith('*')) throw new Error('fault rule: hide-deletion needs one object name, not a prefix');
      break;
    case 'gone':
      if (!isCount(r.count)) throw new Error('fault rule: gone needs count, a whole number > 0');
      break;
  }
  const copy = { ...r } as Record<string, unknown>;
  if (Array.isArray(r.events)) copy.events = [...r.events];
  return copy as unknown as FaultRule;
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
    if (!file) return;
    try {
      fs.writeFileSync(file, '', { mode: 0o600 });
    } catch (e) {
      throw new Error(`fault proxy: cannot write the fault log ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
    }
  }

  write(e: Omit<FaultLogEntry, 'time'>): void {
    const entry: FaultLogEntry = { time: new Date(this.now()).toISOString(), ...e };
    this.entries.push(entry);
    if (this.file) fs.appendFileSync(this.file, JSON.stringify(entry) + '\n');
  }
}
