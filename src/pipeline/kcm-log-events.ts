/**
 * The ReplicaSet controller's own Events in its log — and, read apart, the ReplicationController
 * manager's, the DaemonSet controller's and the Job controller's (the same RealPodControl records
 * them) — as evidence for `kexp kcm-log`: which round each SuccessfulCreate / SuccessfulDelete
 * confirms, and which creates or deletes failed, with the cause their message names and the step
 * an operator would take next.
 *
 * Upstream (pkg/controller/controller_utils.go RealPodControl, v1.21.14 and v1.37.2 alike): each
 * create the controller makes records SuccessfulCreate "Created pod: NAME" or FailedCreate
 * "Error creating: ERR" (no Event when the namespace is terminating — the create is then counted
 * as done, controller-semantics.md §4); each delete SuccessfulDelete "Deleted pod: NAME" or
 * FailedDelete "Error deleting: ERR" (none for a 404). The calls follow the round's
 * "Too few replicas … creating N" / "Too many replicas … deleting N" line (replica_set.go
 * manageReplicas; a create round's "Slow-start failure … Skipping N−S" line says S creates
 * succeeded and at least one failed), and the broadcaster logs the Events in call order, a little
 * later — after the next round's line, sometimes. So a success belongs to the oldest round of its
 * kind before it with successes left; a failure to the oldest round whose slow-start line owes one,
 * else to the newest that may have more; a round whose next round of its kind began more than
 * EVENT_LAG_MS before the Event takes none. Other Events are outside every round.
 * The event broadcaster logs every Event before the sink's correlator aggregates it, so the
 * count of lines is the count of calls.
 *
 * Pure: no I/O, no clock. Cost: O(events) per log.
 */
import type { ControllerLogEvent } from '../timeline/event.js';
import { iso } from '../analysis/iso.js';

/** One of the controller's Events about a ReplicaSet (basis observed: its own log line). */
export interface KcmLogEvent {
  at: string;
  type: string;
  reason: string;
  /** `namespace/name` of the pod a SuccessfulCreate / SuccessfulDelete names. */
  pod?: string;
  message: string;
  /** Index (in `rounds`) of the round the Event belongs to; absent when it is outside every round. */
  round?: number;
  basis: 'observed';
  evidence: string;
}

/** What a round's Events say about its calls. */
export interface RoundConfirmation {
  /** SuccessfulCreate / SuccessfulDelete Events of the round: its calls that succeeded. */
  succeeded: number;
  /** FailedCreate / FailedDelete Events of the round. */
  failed: number;
  evidence: string[];
}

/** Failed creates or deletes of one ReplicaSet with one cause, from its Warning Events. */
export interface KcmLogFailure {
  kind: 'create' | 'delete';
  reason: string;
  count: number;
  first: string;
  last: string;
  /** The cause in a few words, from the Event's message (`a ResourceQuota is exhausted`). */
  cause: string;
  /** The first Event's message, as logged. */
  message: string;
  nextStep: string;
  /** Read-only kubectl commands for the next step. */
  commands: string[];
  /** No SuccessfulCreate (SuccessfulDelete) Event followed the last failure: the calls are still failing at the end of the log. */
  current: boolean;
  basis: 'observed';
  evidence: string;
}

export interface ReplicaSetEvents {
  events: KcmLogEvent[];
  /** Per round, in the order of the rounds' lines. */
  confirmations: RoundConfirmation[];
  failures: KcmLogFailure[];
  /** When the log last shows the ReplicaSet deleted (the sync's "deleted" line or the delete handler's). */
  deletedAt?: number;
}

/**
 * A round that may still take Events: its index, kind, time, when the next round of its kind
 * began, and its calls as far as known: `count` the round's N; after its "Slow-start failure"
 * line, `skipped` (N − the creates that succeeded: slowStartBatch returns the successes, and
 * manageReplicas logs diff − successes, the failed calls and the ones never made alike).
 */
interface OpenRound {
  i: number;
  kind: 'create' | 'delete';
  at: number;
  count: number;
  skipped?: number;
  succeeded: number;
  failed: number;
  closedAt?: number;
}

/** Successful calls the round may still have made. */
function successLeft(o: OpenRound): number {
  return (o.skipped !== undefined ? o.count - o.skipped : o.count - o.failed) - o.succeeded;
}

/** Failed calls the round may still have made (a create round after its slow-start line: at most `skipped`). */
function failureLeft(o: OpenRound): number {
  return o.skipped !== undefined ? o.skipped - o.failed : o.count - o.succeeded - o.failed;
}

/**
 * How long after the next round of its kind began a round's Events may still be logged (the
 * broadcaster's goroutine logs each Event shortly after the call; milliseconds in the captures).
 */
const EVENT_LAG_MS = 1000;

const CREATE_REASONS = new Set(['SuccessfulCreate', 'FailedCreate']);
const DELETE_REASONS = new Set(['SuccessfulDelete', 'FailedDelete']);

/**
 * A round line: "Too few / Too many replicas" (ReplicaSet, ReplicationController), "Too few pods
 * running" / "Too many pods running for job" / "Deleting all active pods in suspended job" (Job),
 * "Nodes needing daemon pods…, creating N" / "Pods to delete…, deleting N" (DaemonSet). The
 * DaemonSet logs both on every sync that passes its gate, N = 0 included: a round of no call is
 * none.
 */
export function isRound(e: ControllerLogEvent): boolean {
  if (e.logKind !== 'too-few-replicas' && e.logKind !== 'too-many-replicas') return false;
  return e.numbers?.[e.logKind === 'too-few-replicas' ? 'creating' : 'deleting'] !== 0;
}

/** The cause and next step a failed create or delete's message names. `resource`: kubectl's short name of the owner's kind. */
export function failureCause(message: string, key: string, resource = 'rs'): { cause: string; nextStep: string; commands: string[] } {
  const slash = key.indexOf('/');
  const ns = slash > 0 ? key.slice(0, slash) : key;
  const name = slash > 0 ? key.slice(slash + 1) : key;
  const events = `kubectl -n ${ns} get events --field-selector involvedObject.name=${name}`;
  const describe = `kubectl -n ${ns} describe ${resource} ${name}`;
  const webhook = /admission webhook "([^"]+)" denied|failed calling webhook "([^"]+)"/.exec(message);
  if (/exceeded quota/i.test(message)) {
    return {
      cause: 'a ResourceQuota of the namespace is exhausted (exceeded quota)',
      nextStep: 'raise the quota or free what it counts (terminating pods still count); the controller retries with backoff',
      commands: [`kubectl -n ${ns} describe resourcequota`, events],
    };
  }
  if (/because it is being terminated|NamespaceTerminating/i.test(message)) {
    return {
      cause: 'the namespace is terminating',
      nextStep: "find what holds the namespace (its finalizers and conditions); no pod can be created in it",
      commands: [`kubectl get namespace ${ns} -o yaml`],
    };
  }
  if (webhook) {
    return {
      cause: `the admission webhook "${webhook[1] ?? webhook[2]}" ${webhook[1] ? 'denied the request' : 'could not be called'}`,
      nextStep: 'check the webhook (its service, its rules, its failure policy) or the pod template it rejects',
      commands: ['kubectl get validatingwebhookconfigurations,mutatingwebhookconfigurations', describe],
    };
  }
  if (/violates PodSecurity/i.test(message)) {
    return {
      cause: 'Pod Security admission rejects the pod template',
      nextStep: "fix the pod template's security context, or the namespace's pod-security labels",
      commands: [`kubectl get namespace ${ns} --show-labels`, describe],
    };
  }
  if (/serviceaccount[^:]*not found|error looking up service account/i.test(message)) {
    return {
      cause: "the pod template's service account does not exist",
      nextStep: 'create the service account or fix serviceAccountName in the template',
      commands: [`kubectl -n ${ns} get serviceaccounts`, describe],
    };
  }
  if (/LimitRange|(?:maximum|minimum) \S+ usage per/i.test(message)) {
    return {
      cause: 'a LimitRange rejects the pod template',
      nextStep: "fit the template's requests and limits to the namespace's LimitRange",
      commands: [`kubectl -n ${ns} describe limitrange`, describe],
    };
  }
  return {
    cause: 'the API server rejected the call',
    nextStep: resource === 'rs' ? "read the Event's message and the ReplicaSet's conditions" : "read the Event's message and the object's status",
    commands: [describe, events],
  };
}

/**
 * Assigns the Events of each ReplicaSet to its rounds and gathers its failures. `events` are
 * one kind's (ReplicaSets or ReplicationControllers) log events in time order; `rounds` the rounds
 * per key, in order, as logRounds made them (kind and count).
 */
export function logEvents(
  events: ControllerLogEvent[],
  rounds: Map<string, ReadonlyArray<{ kind: 'create' | 'delete'; count?: number }>>,
  ref: (e: ControllerLogEvent) => string,
  resource = 'rs',
): Map<string, ReplicaSetEvents> {
  const out = new Map<string, ReplicaSetEvents>();
  /** Per key: the index of the next round line to meet, and the rounds met that may still take Events, oldest first. */
  const cursor = new Map<string, { next: number; open: OpenRound[] }>();
  const groups = new Map<string, Map<string, { f: KcmLogFailure; lastFailedAt: number }>>();
  const lastSuccess = new Map<string, { create?: number; delete?: number }>();
  /** When the log shows the ReplicaSet gone (a sync found it deleted, or its delete handler ran): its failures are history then. */
  const deletedAt = new Map<string, number>();
  for (const e of events) {
    const key = e.rsKey;
    if (!key) continue;
    if (e.logKind === 'rs-deleted-sync' || (e.logKind === 'other' && /^Deleting(?: (?:ReplicaSet|ReplicationController) \S+)?$/.test(e.message))) deletedAt.set(key, e.at);
    let r = out.get(key);
    if (!r) {
      const n = rounds.get(key)?.length ?? 0;
      r = { events: [], confirmations: Array.from({ length: n }, () => ({ succeeded: 0, failed: 0, evidence: [] })), failures: [] };
      out.set(key, r);
    }
    let c = cursor.get(key);
    if (!c) cursor.set(key, (c = { next: 0, open: [] }));
    if (isRound(e)) {
      const kind = e.logKind === 'too-few-replicas' ? 'create' : 'delete';
      const round = rounds.get(key)?.[c.next];
      if (round && round.kind === kind) {
        // The rounds of a kind before this one take no Event logged later than EVENT_LAG_MS after it.
        for (const o of c.open) if (o.kind === kind && o.closedAt === undefined) o.closedAt = e.at;
        c.open.push({ i: c.next, kind, at: e.at, count: round.count ?? Infinity, succeeded: 0, failed: 0 });
      }
      c.next++;
      continue;
    }
    if (e.logKind === 'slow-start-failure') {
      // manageReplicas stops a create round at its first failing batch: the pods it skipped are no calls.
      const skipped = e.numbers?.podsSkipped;
      const last = [...c.open].reverse().find((o) => o.kind === 'create');
      if (last && skipped !== undefined) last.skipped = skipped;
      continue;
    }
    if (e.logKind !== 'controller-event' || !e.event) continue;
    const ev = e.event;
    const kind = CREATE_REASONS.has(ev.reason) ? 'create' : DELETE_REASONS.has(ev.reason) ? 'delete' : undefined;
    const item: KcmLogEvent = { at: iso(e.at)!, type: ev.type, reason: ev.reason, ...(ev.pod ? { pod: ev.pod } : {}), message: ev.note, basis: 'observed', evidence: ref(e) };
    if (kind) {
      // The oldest round of its kind with calls left: the event broadcaster logs Events in call
      // order, a little after the call, so a round's Events may follow the next round's line.
      c.open = c.open.filter((o) => successLeft(o) + failureLeft(o) > 0 && (o.closedAt === undefined || e.at - o.closedAt <= EVENT_LAG_MS));
      const mine = c.open.filter((o) => o.kind === kind && o.at <= e.at);
      const ok = ev.reason.startsWith('Successful');
      // A success: the oldest round with successes left. A failure: the oldest round whose
      // slow-start line says it failed and that has no failure yet, else the newest that may have more.
      const open = ok
        ? mine.find((o) => successLeft(o) > 0)
        : (mine.find((o) => o.skipped !== undefined && o.skipped > 0 && o.failed === 0) ?? [...mine].reverse().find((o) => failureLeft(o) > 0));
      if (open) {
        if (ok) open.succeeded++;
        else open.failed++;
        item.round = open.i;
        const conf = r.confirmations[open.i]!;
        if (ev.reason.startsWith('Successful')) conf.succeeded++;
        else conf.failed++;
        conf.evidence.push(item.evidence);
      }
      if (ev.reason.startsWith('Successful')) {
        const s = lastSuccess.get(key) ?? {};
        s[kind] = e.at;
        lastSuccess.set(key, s);
      } else {
        const cause = failureCause(ev.note, key, resource);
        let g = groups.get(key);
        if (!g) groups.set(key, (g = new Map()));
        const id = `${ev.reason}\u0000${cause.cause}`;
        const prev = g.get(id);
        if (prev) {
          prev.f.count++;
          prev.f.last = item.at;
          prev.lastFailedAt = e.at;
        } else {
          g.set(id, {
            f: { kind, reason: ev.reason, count: 1, first: item.at, last: item.at, cause: cause.cause, message: ev.note, nextStep: cause.nextStep, commands: cause.commands, current: true, basis: 'observed', evidence: item.evidence },
            lastFailedAt: e.at,
          });
        }
      }
    }
    r.events.push(item);
  }
  for (const [key, at] of deletedAt) {
    const r = out.get(key);
    if (r) r.deletedAt = at;
  }
  for (const [key, g] of groups) {
    const s = lastSuccess.get(key) ?? {};
    const r = out.get(key)!;
    for (const { f, lastFailedAt } of g.values()) {
      const ok = s[f.kind];
      const gone = deletedAt.get(key);
      // Still failing at the end of the log: no success after the last failure, and the ReplicaSet not deleted since.
      f.current = (ok === undefined || ok < lastFailedAt) && !(gone !== undefined && gone >= lastFailedAt);
      r.failures.push(f);
    }
  }
  return out;
}
