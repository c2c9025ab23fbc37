/**
 * Analysis of a point-in-time snapshot of one ReplicaSet (a live read by `kexp explain`, or a
 * snapshot file: `kubectl get -o json`, a List, a cluster-info dump): counts, conditions, Events
 * (aggregated ones too), quotas, namespace phase, owner → a verdict with its basis, findings
 * with next steps, the reconstructed recent timeline (from Events' first/lastTimestamp and
 * count, pod creation/deletion timestamps, managedFields times) and the adoption table. A
 * snapshot cannot see the controller's expectations; it says so (`unknown`) and infers only
 * what the API state forces:
 * - RS deletionTimestamp → deleting;
 * - namespace Terminating, RS not deleted, fewer active pods than desired → the
 *   NamespaceTerminating expectation leak;
 * - ReplicaFailure condition or FailedCreate/FailedDelete newer than the last progress → failing;
 * - pods missing (or surplus), the controller has synced the spec, nothing failed and nothing
 *   moved for 30 s → gated on an expectation that is not being fulfilled (a leak once that has
 *   lasted longer than the 5-minute ExpectationsTimeout);
 * - active == desired and observedGeneration == generation → healthy.
 * Pure: no I/O, no clock (`now` is the snapshot time).
 */
import { claimDecider } from '../model/adoption.js';
import { EXPECTATIONS_TIMEOUT_MS } from '../model/expectations.js';
import { controllerRefOf, desiredReplicas, objectKey, parseTime, type CoreEvent, type Pod, type ReplicaSet } from '../model/objects.js';
import { isPodActive, isPodReady } from '../model/pod-ranking.js';
import { compileLabelSelector } from '../model/selector.js';
import { iso } from './iso.js';
import type { AdoptionRow, Basis, Finding, GatedWindow, ReplicaSetReport, RoundReport, VerdictState, WriteAccounting } from './report-types.js';
import type { Deployment, Lease, LiveSnapshot, ResourceQuota } from '../sources/live/snapshot.js';

/** Nothing moved for this long while pods are missing or surplus: the controller is not acting. */
export const STALL_MS = 30_000;
/** FailedCreate/FailedDelete newer than this (and than the last progress) count as "failing now". */
export const RECENT_FAILURE_MS = 20 * 60_000;

export interface TimelineEntry {
  /** Epoch ms. */
  at: number;
  basis: Basis;
  /** Where the time comes from: API timestamps are whole seconds (coarse); the watch is kexp's receive time. */
  from: 'event' | 'pod' | 'replicaset' | 'namespace' | 'deployment' | 'snapshot' | 'watch';
  text: string;
  coarse: boolean;
}

export interface RsFacts {
  desired: number;
  active: number;
  terminating: number;
  ready: number;
  finished: number;
  statusReplicas?: number;
  generation?: number;
  observedGeneration?: number;
  orphansMatching: number;
  otherControllerMatching: number;
  nsTerminating: boolean;
  nsKnown: boolean;
  deletingSince?: number;
  /** Last sign of the controller acting (pod created, deletion requested, Successful* event). */
  lastProgress?: number;
  /** Last spec change (managedFields) or creation. */
  lastSpecChange?: number;
  failing?: { reason: string; message: string; at?: number; basis: Basis; evidence: string[] };
}



function plural(n: number, w: string): string {
  return `${n} ${w}${n === 1 ? '' : 's'}`;
}

function fmtAgo(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 120) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 120) return `${m}m${s % 60 ? `${s % 60}s` : ''}`;
  return `${Math.floor(m / 60)}h${m % 60 ? `${m % 60}m` : ''}`;
}

const COMBINED = '(combined from similar events): ';

/** One Event's times and count (core/v1 legacy fields, or the series fields of newer recorders). */
export function eventTimes(e: CoreEvent): { first?: number; last?: number; count: number; aggregated: boolean; message: string } {
  const series = (e as { series?: { count?: number; lastObservedTime?: string } }).series;
  const first = parseTime(e.firstTimestamp) ?? parseTime(e.eventTime) ?? parseTime(e.metadata.creationTimestamp);
  const last = parseTime(e.lastTimestamp) ?? parseTime(series?.lastObservedTime) ?? first;
  // Wrong types in a snapshot read from a file: a count that is not a positive integer counts once.
  const rawCount = e.count ?? series?.count ?? 1;
  const count = typeof rawCount === 'number' && Number.isSafeInteger(rawCount) && rawCount > 0 ? rawCount : 1;
  let message = typeof e.message === 'string' ? e.message : '';
  const aggregated = message.startsWith(COMBINED);
  if (aggregated) message = message.slice(COMBINED.length);
  return { first, last, count, aggregated, message };
}

/**
 * How evidence is cited: `live:KIND/NAME#field` for a live snapshot; FILE:LINE of the item for
 * a snapshot read from a file (kubectl get -o json, a List, a cluster-info dump).
 */
export interface SnapshotRefs {
  rs(name: string, field?: string): string;
  ns(name: string, field: string): string;
  pod(p: Pod | string): string;
  event(e: CoreEvent): string;
  quota(name: string): string;
}

export const LIVE_REFS: SnapshotRefs = {
  rs: (name, field) => `live:replicasets/${name}${field ? `#${field}` : ''}`,
  ns: (name, field) => `live:namespaces/${name}#${field}`,
  pod: (p) => `live:pods/${typeof p === 'string' ? p : (p.metadata.name ?? '?')}`,
  event: (e) => `live:events/${e.metadata.name ?? '?'}`,
  quota: (name) => `live:resourcequotas/${name}`,
};

/** managedFields entries that changed the spec (or the scale subresource): when, and by whom. */
function specChanges(rs: ReplicaSet): Array<{ at: number; manager: string; subresource?: string }> {
  const raw = (rs.metadata as { managedFields?: unknown }).managedFields;
  const mf = (Array.isArray(raw) ? raw : []) as Array<{ manager?: string; operation?: string; time?: string; subresource?: string; fieldsV1?: unknown } | null>;
  const out: Array<{ at: number; manager: string; subresource?: string }> = [];
  for (const m of mf) {
    if (typeof m !== 'object' || m === null) continue;
    const at = parseTime(typeof m.time === 'string' ? m.time : undefined);
    if (at === undefined) continue;
    if (m.subresource === 'status') continue;
    const fields = typeof m.fieldsV1 === 'object' && m.fieldsV1 !== null ? m.fieldsV1 : undefined;
    if (m.subresource === 'scale' || (fields && 'f:spec' in fields)) out.push({ at, manager: typeof m.manager === 'string' ? m.manager : 'unknown', ...(typeof m.subresource === 'string' ? { subresource: m.subresource } : {}) });
  }
  return out.sort((a, b) => a.at - b.at);
}

function quantity(q: string | undefined): number | undefined {
  if (q === undefined) return undefined;
  const m = /^(\d+(?:\.\d+)?)([kKMGTPE]i?|m)?$/.exec(q.trim());
  if (!m) return undefined;
  const mult: Record<string, number> = { '': 1, m: 0.001, k: 1e3, K: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18, Ki: 1024, Mi: 1024 ** 2, Gi: 1024 ** 3, Ti: 1024 ** 4, Pi: 1024 ** 5, Ei: 1024 ** 6 };
  return Number(m[1]) * (mult[m[2] ?? ''] ?? 1);
}

/** Quotas whose pod count (or any resource) is used up. */
export function exhaustedQuotas(quotas: ResourceQuota[] | undefined): Array<{ name: string; resource: string; used: string; hard: string }> {
  const out: Array<{ name: string; resource: string; used: string; hard: string }> = [];
  for (const q of quotas ?? []) {
    const hard = q.status?.hard ?? q.spec?.hard ?? {};
    const used = q.status?.used ?? {};
    for (const [res, h] of Object.entries(hard)) {
      const hv = quantity(h);
      const uv = quantity(used[res]);
      if (hv !== undefined && uv !== undefined && uv >= hv) out.push({ name: q.metadata.name ?? '?', resource: res, used: used[res]!, hard: h });
    }
  }
  return out;
}

export interface SnapshotAnalysis {
  facts: RsFacts;
  verdict: ReplicaSetReport['verdict'];
  findings: Finding[];
  windows: GatedWindow[];
  timeline: TimelineEntry[];
  adoption: AdoptionRow[];
  counts: { desired: number; active: number; terminating: number; ready: number };
}

/** Pods of the namespace that matter to `rs`: owned (by UID) or matching its selector. */
function candidatePods(rs: ReplicaSet, pods: Pod[]): Pod[] {
  const uid = rs.metadata.uid;
  // compileLabelSelector answers like labelSelectorMatches without validating the selector per pod.
  const matches = compileLabelSelector(rs.spec?.selector);
  return pods.filter((p) => p.metadata.namespace === rs.metadata.namespace && (controllerRefOf(p.metadata)?.uid === uid || matches(p.metadata.labels)));
}

export function adoptionRows(rs: ReplicaSet, pods: Pod[]): AdoptionRow[] {
  const rows: AdoptionRow[] = [];
  const decide = claimDecider(rs);
  for (const p of candidatePods(rs, pods)) {
    const d = decide(p);
    rows.push({ pod: d.pod, ...(d.uid ? { uid: d.uid } : {}), action: d.action, claimed: d.claimed, reason: d.reason });
  }
  rows.sort((a, b) => a.pod.localeCompare(b.pod));
  return rows;
}

/**
 * Analyses one ReplicaSet of a snapshot. Pure: `now` is the snapshot time.
 */
export function analyseSnapshot(
  rs: ReplicaSet,
  input: {
    pods: Pod[];
    events: CoreEvent[];
    quotas?: ResourceQuota[];
    ns?: LiveSnapshot['ns'];
    owner?: Deployment | { notFound: true };
    unavailable?: LiveSnapshot['unavailable'];
    /** False when the snapshot holds no pods at all (e.g. `kubectl get rs -o json`): counts then come from the ReplicaSet's status. */
    podsKnown?: boolean;
    /** kube-system/kube-controller-manager Lease, when it could be read. */
    kcmLease?: Lease;
  },
  now: number,
  refs: SnapshotRefs = LIVE_REFS,
): SnapshotAnalysis {
  const evRef = refs.event;
  const podRef = refs.pod;
  const key = objectKey(rs.metadata);
  const name = rs.metadata.name ?? '';
  const nsName = rs.metadata.namespace ?? '';
  const uid = rs.metadata.uid;
  const desired = desiredReplicas(rs);
  const findings: Finding[] = [];
  const timeline: TimelineEntry[] = [];
  const owned: Pod[] = [];
  let orphansMatching = 0;
  const terminatingOrphans: Pod[] = [];
  let otherControllerMatching = 0;
  const matches = compileLabelSelector(rs.spec?.selector);
  for (const p of input.pods) {
    if (p.metadata.namespace !== nsName) continue;
    const ref = controllerRefOf(p.metadata);
    if (ref?.uid === uid) owned.push(p);
    else if (matches(p.metadata.labels)) {
      // ClaimObject ignores a pod being deleted (the adoption table says so): not adoptable.
      if (!ref && p.metadata.deletionTimestamp) terminatingOrphans.push(p);
      else if (!ref && isPodActive(p)) orphansMatching++;
      else otherControllerMatching++;
    }
  }
  let active = 0;
  let ready = 0;
  let terminating = 0;
  let finished = 0;
  const pastGrace: string[] = [];
  for (const p of owned) {
    const phase = p.status?.phase;
    if (phase === 'Succeeded' || phase === 'Failed') finished++;
    else if (p.metadata.deletionTimestamp) {
      terminating++;
      const dl = parseTime(p.metadata.deletionTimestamp);
      if (dl !== undefined && dl < now) pastGrace.push(p.metadata.name ?? '?');
    }
    if (isPodActive(p)) {
      active++;
      if (isPodReady(p)) ready++;
    }
  }
  const podsKnown = input.podsKnown !== false;
  if (!podsKnown) {
    // No pods in the snapshot: the ReplicaSet's own status is what the controller last wrote.
    active = rs.status?.replicas ?? 0;
    ready = rs.status?.readyReplicas ?? 0;
    terminating = (rs.status as { terminatingReplicas?: number } | undefined)?.terminatingReplicas ?? 0;
  }

  // --- timeline: the ReplicaSet, its spec changes, pods, Events, namespace
  const created = parseTime(rs.metadata.creationTimestamp);
  if (created !== undefined) timeline.push({ at: created, basis: 'observed', from: 'replicaset', text: `ReplicaSet ${name} created (uid ${uid ?? '?'})`, coarse: true });
  const changes = specChanges(rs);
  for (const c of changes) {
    timeline.push({ at: c.at, basis: 'observed', from: 'replicaset', text: `spec${c.subresource === 'scale' ? ' (scale)' : ''} last written by ${c.manager} (managedFields; earlier writes by the same manager are not visible)`, coarse: true });
  }
  const lastSpecChange = changes.length ? changes[changes.length - 1].at : created;
  let lastProgress: number | undefined;
  const bump = (t: number | undefined) => {
    if (t !== undefined && (lastProgress === undefined || t > lastProgress)) lastProgress = t;
  };
  // Pod creations and deletion requests, grouped per second (API timestamps are whole seconds).
  const groups = new Map<string, { at: number; names: string[]; kind: 'created' | 'delete' }>();
  for (const p of owned) {
    const c = parseTime(p.metadata.creationTimestamp);
    if (c !== undefined) {
      bump(c);
      const g = groups.get(`c${c}`) ?? { at: c, names: [], kind: 'created' as const };
      g.names.push(p.metadata.name ?? '?');
      groups.set(`c${c}`, g);
    }
    const d = parseTime(p.metadata.deletionTimestamp);
    if (d !== undefined) {
      const req = d - (p.metadata.deletionGracePeriodSeconds ?? 0) * 1000;
      bump(req);
      const g = groups.get(`d${req}`) ?? { at: req, names: [], kind: 'delete' as const };
      g.names.push(p.metadata.name ?? '?');
      groups.set(`d${req}`, g);
    }
  }
  for (const g of groups.values()) {
    const list = g.names.length > 4 ? `${g.names.slice(0, 4).join(', ')}, …` : g.names.join(', ');
    timeline.push({
      at: g.at, basis: 'observed', from: 'pod', coarse: true,
      text: g.kind === 'created' ? `${plural(g.names.length, 'pod')} created: ${list}` : `deletion of ${plural(g.names.length, 'pod')} requested (deletionTimestamp − grace): ${list}`,
    });
  }
  // Events: one line per Event object, at its last occurrence, with its count and first time.
  let lastFailure: { reason: string; message: string; at: number; ev: CoreEvent; count: number } | undefined;
  // Single-occurrence Events of the same reason in the same second (one per pod) become one line.
  const evGroups = new Map<string, { at: number; head: string; messages: string[] }>();
  for (const e of input.events) {
    // deployment/NAME snapshots hold the Events of every ReplicaSet of the Deployment: keep this
    // ReplicaSet's (including an earlier one of the same name) and the Deployment's own.
    if (e.involvedObject?.kind === 'ReplicaSet' && e.involvedObject.name !== name) continue;
    const t = eventTimes(e);
    if (t.last === undefined) continue;
    const other = e.involvedObject?.kind === 'ReplicaSet' && e.involvedObject.uid && uid && e.involvedObject.uid !== uid;
    const who = e.involvedObject?.kind === 'Deployment' ? `Deployment ${e.involvedObject.name}: ` : other ? `(earlier ReplicaSet ${name}, uid ${e.involvedObject?.uid}) ` : '';
    const head = `${who}${e.type === 'Warning' ? 'Warning ' : ''}${e.reason ?? '?'}`;
    if (t.count > 1 || t.aggregated) {
      const range = t.first !== undefined && t.first !== t.last ? ` ×${t.count} since ${iso(t.first)?.slice(11, 19)}` : ` ×${t.count}`;
      timeline.push({ at: t.last, basis: 'observed', from: 'event', coarse: true, text: `${head}${range}${t.aggregated ? ' (aggregated)' : ''}: ${t.message}` });
    } else {
      const k = `${head}|${t.last}`;
      const g = evGroups.get(k) ?? { at: t.last, head, messages: [] };
      g.messages.push(t.message);
      evGroups.set(k, g);
    }
    if (other || e.involvedObject?.kind !== 'ReplicaSet' || e.involvedObject.name !== name) continue;
    if (e.reason === 'SuccessfulCreate' || e.reason === 'SuccessfulDelete') bump(t.last);
    if ((e.reason === 'FailedCreate' || e.reason === 'FailedDelete') && (!lastFailure || t.last > lastFailure.at)) {
      lastFailure = { reason: e.reason, message: t.message, at: t.last, ev: e, count: t.count };
    }
  }
  for (const g of evGroups.values()) {
    const n = g.messages.length;
    timeline.push({ at: g.at, basis: 'observed', from: 'event', coarse: true, text: n === 1 ? `${g.head}: ${g.messages[0]}` : `${g.head} (${n} Events): ${g.messages.slice(0, 3).join('; ')}${n > 3 ? '; …' : ''}` });
  }
  const ns = input.ns;
  const nsDeletion = parseTime(ns?.metadata.deletionTimestamp);
  const nsTerminating = Boolean(ns && (ns.metadata.deletionTimestamp || ns.status?.phase === 'Terminating'));
  if (nsDeletion !== undefined) timeline.push({ at: nsDeletion, basis: 'observed', from: 'namespace', coarse: true, text: `namespace ${nsName} deletion requested (phase ${ns?.status?.phase ?? '?'}): from now on every create in it is rejected` });
  const deletingSince = parseTime(rs.metadata.deletionTimestamp);
  if (deletingSince !== undefined) timeline.push({ at: deletingSince, basis: 'observed', from: 'replicaset', coarse: true, text: `ReplicaSet deletion requested${(rs.metadata.finalizers ?? []).length ? ` (finalizers: ${rs.metadata.finalizers!.join(', ')})` : ''}` });
  const conditions = Array.isArray(rs.status?.conditions) ? rs.status.conditions : [];
  const replicaFailure = conditions.find((c) => typeof c === 'object' && c !== null && c.type === 'ReplicaFailure' && c.status === 'True');
  if (replicaFailure) {
    const at = parseTime(replicaFailure.lastTransitionTime);
    if (at !== undefined) timeline.push({ at, basis: 'observed', from: 'replicaset', coarse: true, text: `condition ReplicaFailure=True (${replicaFailure.reason ?? ''}): ${replicaFailure.message ?? ''}` });
  }
  timeline.push({
    at: now, basis: 'observed', from: 'snapshot', coarse: false,
    text: `snapshot: desired ${desired}, active ${active}, terminating ${terminating}, ready ${ready}; status.replicas ${rs.status?.replicas ?? 0}, observedGeneration ${rs.status?.observedGeneration ?? '—'}/${rs.metadata.generation ?? '—'}`,
  });
  timeline.push({ at: now, basis: 'unknown', from: 'snapshot', coarse: false, text: 'the controller\'s expectations are not visible through the API: unknown until a watch sees a round start and finish' });

  const generation = rs.metadata.generation;
  const observedGeneration = rs.status?.observedGeneration;
  const statusStale = generation !== undefined && (observedGeneration ?? 0) < generation;
  const diff = active - desired;
  // The controller's own status says every replica is there and ready: whatever the snapshot's
  // pods say (a partial listing, an older read), creates are not failing.
  const statusMet = !statusStale && (rs.status?.replicas ?? -1) === desired && (rs.status?.readyReplicas ?? -1) === desired;
  const failing = (() => {
    if (diff === 0 || statusMet) return undefined;
    if (replicaFailure) {
      return { reason: replicaFailure.reason ?? 'ReplicaFailure', message: replicaFailure.message ?? '', at: parseTime(replicaFailure.lastTransitionTime), basis: 'observed' as Basis, evidence: [refs.rs(name, 'status.conditions[ReplicaFailure]'), ...(lastFailure ? [evRef(lastFailure.ev)] : [])] };
    }
    if (lastFailure && now - lastFailure.at < RECENT_FAILURE_MS && (lastProgress === undefined || lastFailure.at >= lastProgress - 1000)) {
      const wrongWay = (lastFailure.reason === 'FailedCreate' && diff > 0) || (lastFailure.reason === 'FailedDelete' && diff < 0);
      if (!wrongWay) return { reason: lastFailure.reason, message: lastFailure.message, at: lastFailure.at, basis: 'observed' as Basis, evidence: [evRef(lastFailure.ev)] };
    }
    return undefined;
  })();
  const sinceMove = now - Math.max(lastProgress ?? 0, lastSpecChange ?? 0);
  const stalled = diff !== 0 && !statusStale && !failing && !nsTerminating && deletingSince === undefined && (lastProgress !== undefined || lastSpecChange !== undefined) && sinceMove > STALL_MS;
  const quotaFull = exhaustedQuotas(input.quotas);

  // --- findings
  const add = (f: Finding) => findings.push(f);
  if (deletingSince !== undefined) {
    add({
      id: 'rs-being-deleted', severity: 'warning', basis: 'observed', at: iso(deletingSince),
      title: 'ReplicaSet is being deleted: the controller no longer creates or deletes pods for it',
      explanation: `${key} has had a deletionTimestamp since ${iso(deletingSince)}${(rs.metadata.finalizers ?? []).length ? ` and is held by the finalizers ${rs.metadata.finalizers!.join(', ')}` : ''}. A ReplicaSet being deleted is still synced (status, keeping owned pods) but manageReplicas never runs, and CanAdopt refuses every adoption.`,
      nextStep: (rs.metadata.finalizers ?? []).length
        ? `If the deletion is stuck, find the controller responsible for the finalizers (${rs.metadata.finalizers!.join(', ')}); remove a finalizer by hand only if that controller is gone.`
        : 'Nothing to do if the deletion is intended; the garbage collector removes the pods (foreground/background) or orphans them.',
      evidence: [refs.rs(name, 'metadata.deletionTimestamp')],
    });
  }
  if (nsTerminating && deletingSince === undefined) {
    const nsConds = (ns?.status as { conditions?: unknown } | undefined)?.conditions;
    const conds = (Array.isArray(nsConds) ? (nsConds as Array<{ type: string; status: string; message?: string } | null>) : []).filter((c): c is { type: string; status: string; message?: string } => typeof c === 'object' && c !== null && c.status === 'True');
    const why = conds.length ? ` Namespace conditions: ${conds.map((c) => `${c.type}${c.message ? ` (${c.message})` : ''}`).join('; ')}.` : '';
    if (diff < 0) {
      add({
        id: 'expectation-leak-namespace-terminating-open', severity: 'critical', basis: 'inferred', at: iso(nsDeletion ?? now),
        title: `Namespace ${nsName} is terminating: ${plural(-diff, 'create')} will be rejected and leak the controller's expectations`,
        explanation:
          `${key} wants ${desired} replicas and has ${active} active. Every create in a terminating namespace is rejected with cause NamespaceTerminating, ` +
          `and the ReplicaSet controller counts that rejection as a success (no FailedCreate Event, no walk-back). So after each attempt it waits for ${plural(-diff, 'pod')} ` +
          `that will never be observed: gated until the record expires 5 minutes later, then the next sync tries again and leaks again.${why}`,
        nextStep: conds.length
          ? `Finish or cancel the namespace deletion: it is waiting on ${conds.map((c) => c.type).join(', ')}. Look at the remaining content and finalizers (\`kubectl get ns ${nsName} -o yaml\`, \`kubectl api-resources --verbs=list --namespaced -o name | xargs -n1 kubectl get -n ${nsName} --ignore-not-found\`).`
          : `Finish or cancel the namespace deletion; check its finalizers and the namespace controller (\`kubectl get ns ${nsName} -o yaml\`).`,
        evidence: [refs.ns(nsName, 'status.phase'), refs.rs(name, 'spec.replicas')],
      });
    } else {
      add({
        id: 'namespace-terminating', severity: 'warning', basis: 'observed', at: iso(nsDeletion ?? now),
        title: `Namespace ${nsName} is terminating: pods that go away will not be replaced`,
        explanation: `Every create in a terminating namespace is rejected with NamespaceTerminating; the controller counts those as successes and would stay gated until the 5-minute timeout.${why}`,
        nextStep: `Nothing to do if the namespace is being deleted on purpose; if it is stuck, look at \`kubectl get ns ${nsName} -o yaml\` (conditions, finalizers).`,
        evidence: [refs.ns(nsName, 'status.phase')],
      });
    }
  }
  if (failing) {
    const quota = /exceeded quota/i.test(failing.message) || quotaFull.some((q) => /pods/.test(q.resource));
    add({
      id: failing.reason === 'FailedDelete' ? 'delete-failures' : 'failing-creates', severity: 'critical', basis: 'observed', at: iso(failing.at),
      title: `${failing.reason === 'FailedDelete' ? 'Deletes' : 'Creates'} are failing (${failing.reason})${quota ? ': ResourceQuota' : ''}`,
      explanation:
        `${key} has ${active} of ${desired} replicas and the last ${failing.reason} says: ${failing.message}. Failed writes are walked back at once, so the controller is not gated: ` +
        `it retries with exponential backoff (5 ms doubling, up to 1000 s), and slow start stops each round at the first failing batch.` +
        (lastFailure && lastFailure.count > 1 ? ` The Event has been aggregated ${lastFailure.count} times.` : ''),
      nextStep: quota
        ? `Raise the ResourceQuota, lower replicas, or free quota (\`kubectl describe resourcequota -n ${nsName}\`).`
        : `Fix what the error names (admission webhook, PodSecurity, LimitRange, RBAC of the controller); \`kubectl describe rs ${name} -n ${nsName}\` shows the Events.`,
      evidence: failing.evidence,
    });
  } else if (lastFailure) {
    add({
      id: 'past-write-failures', severity: 'info', basis: 'observed', at: iso(lastFailure.at),
      title: `Earlier ${lastFailure.reason} Events (last ${fmtAgo(now - lastFailure.at)} ago) no longer block progress`,
      explanation: `Last ${lastFailure.reason}${lastFailure.count > 1 ? ` (×${lastFailure.count})` : ''}: ${lastFailure.message}. Pods were created or deleted since, or the replica count is reached.`,
      nextStep: 'None, unless it recurs.',
      evidence: [evRef(lastFailure.ev)],
    });
  }
  if (quotaFull.length && diff < 0 && !failing) {
    add({
      id: 'quota-exhausted', severity: 'warning', basis: 'observed', at: iso(now),
      title: `ResourceQuota used up: ${quotaFull.map((q) => `${q.name} ${q.resource} ${q.used}/${q.hard}`).join(', ')}`,
      explanation: 'The next create the controller tries will be rejected with 403 "exceeded quota" (terminating pods still count in used).',
      nextStep: `Raise the quota or free it (\`kubectl describe resourcequota -n ${nsName}\`).`,
      evidence: quotaFull.map((q) => refs.quota(q.name)),
    });
  }
  if (statusStale && deletingSince === undefined) {
    add({
      id: 'status-stale', severity: 'warning', basis: 'observed', at: iso(lastSpecChange ?? now),
      title: `The controller has not processed the latest spec (observedGeneration ${observedGeneration ?? 0} < generation ${generation})`,
      explanation: 'The ReplicaSet controller writes status (including observedGeneration) on every sync, gated or not. A lagging observedGeneration means it has not synced this ReplicaSet since the spec changed: kube-controller-manager is down, not the leader, starved, or the workqueue is backed up.',
      nextStep: 'Check kube-controller-manager: is it running and leading (`kubectl get lease -n kube-system kube-controller-manager`), and what does its log say?',
      evidence: [refs.rs(name, 'status.observedGeneration')],
    });
  }
  if (stalled) {
    const leak = sinceMove > EXPECTATIONS_TIMEOUT_MS + 10_000;
    const since = Math.max(lastProgress ?? 0, lastSpecChange ?? 0);
    add({
      id: leak ? 'expectation-leak-suspected' : 'gated-no-progress', severity: leak ? 'critical' : 'warning', basis: 'inferred', at: iso(since),
      title: leak
        ? `Nothing has moved for ${fmtAgo(sinceMove)} although ${plural(Math.abs(diff), 'pod')} ${diff < 0 ? 'are missing' : 'are surplus'}: a leaked expectation waiting for a sync trigger`
        : `Nothing has moved for ${fmtAgo(sinceMove)} although ${plural(Math.abs(diff), 'pod')} ${diff < 0 ? 'are missing' : 'are surplus'}: the controller is probably gated on writes it will not observe`,
      explanation:
        `${key} wants ${desired} and has ${active} active pods; the controller has synced the latest spec (observedGeneration ${observedGeneration}) and no create or delete failed, ` +
        `yet no pod was created or deleted since ${iso(since)}. An ungated controller acts within milliseconds, so it is most likely refusing to sync because its expectations are not satisfied ` +
        `(a watch gap in kube-controller-manager, pods orphaned before their deletion was seen, writes lost). ` +
        (leak
          ? 'The record expires 5 minutes after it was set, but expiry is passive: the controller recovers only at the first sync after that, which needs a trigger (a pod or ReplicaSet change, or the informer resync every 12–24 h).'
          : `The record expires at most 5 minutes after it was set (by ${iso(since + EXPECTATIONS_TIMEOUT_MS)} at the latest); the controller recovers at the first sync after that.`) +
        ' Another explanation with the same symptoms: kube-controller-manager stopped after writing the status.',
      nextStep: leak
        ? `Trigger a sync: \`kubectl annotate rs ${name} -n ${nsName} kexp.io/poke="$(date +%s)" --overwrite\`. Then find the cause in the kube-controller-manager log ("Controller expectations expired", watch errors).`
        : `Watch it: \`kexp explain ${name} -n ${nsName} --watch 1m\`; if nothing moves by ${iso(since + EXPECTATIONS_TIMEOUT_MS)}, trigger a sync (any change to the ReplicaSet, e.g. an annotation).`,
      evidence: [refs.rs(name), ...owned.slice(-3).map(podRef)],
    });
  }
  if (pastGrace.length) {
    add({
      id: 'terminating-pods', severity: 'warning', basis: 'observed', at: iso(now),
      title: `${plural(pastGrace.length, 'terminating pod')} past the grace period`,
      explanation: `Terminating pods are not active: the controller has already replaced them. Past their grace period: ${pastGrace.slice(0, 10).join(', ')}${pastGrace.length > 10 ? ', …' : ''} — a kubelet that is gone or a finalizer holds them.`,
      nextStep: 'Check the nodes of those pods and their finalizers; force-delete only if the node is gone.',
      evidence: pastGrace.slice(0, 10).map((n) => podRef(n)),
    });
  }
  if (orphansMatching > 0 && deletingSince === undefined) {
    add({
      id: 'orphans-to-adopt', severity: 'info', basis: 'inferred', at: iso(now),
      title: `${plural(orphansMatching, 'orphan pod')} match the selector and will be adopted`,
      explanation: 'ClaimObject adopts an orphan in the same namespace that matches the selector (after CanAdopt\'s live re-read of the ReplicaSet). Adopted pods count towards the replicas, so the controller creates fewer pods.',
      nextStep: `See \`kexp adopt ${name} -n ${nsName}\` for the decision per pod.`,
      evidence: [],
    });
  }
  if (terminatingOrphans.length > 0 && deletingSince === undefined) {
    const names = terminatingOrphans.map((p) => p.metadata.name ?? '?');
    add({
      id: 'terminating-orphans', severity: 'info', basis: 'inferred', at: iso(now),
      title: `${plural(terminatingOrphans.length, 'terminating pod')} without a controller match the selector: not adopted`,
      explanation:
        `${names.slice(0, 5).join(', ')}${names.length > 5 ? ', …' : ''} ${terminatingOrphans.length === 1 ? 'is' : 'are'} being deleted and ${terminatingOrphans.length === 1 ? 'has' : 'have'} no controllerRef. ClaimObject never adopts a pod being deleted. ` +
        `If the controller itself deleted ${terminatingOrphans.length === 1 ? 'it' : 'them'} and the ownerReference was removed before its informer saw the deletion, the delete expectation can no longer be credited: the controller stays gated until the 5-minute timeout.`,
      nextStep: `Watch it (\`kexp explain ${name} -n ${nsName} --watch 1m\`) to see whether the controller is gated; nothing to do if these pods were orphaned on purpose.`,
      evidence: terminatingOrphans.slice(0, 5).map((p) => podRef(p)),
    });
  }
  if (otherControllerMatching > 0) {
    add({
      id: 'overlapping-selector', severity: 'info', basis: 'observed', at: iso(now),
      title: `${plural(otherControllerMatching, 'pod')} controlled by another owner match this selector`,
      explanation: 'ClaimObject ignores pods with another controllerRef, so they do not count; overlapping selectors are a common source of confusion during rollouts.',
      nextStep: 'None, unless the selectors overlap by mistake.',
      evidence: [],
    });
  }
  if (input.owner && 'notFound' in input.owner) {
    const ref = controllerRefOf(rs.metadata);
    add({
      id: 'owner-missing', severity: 'warning', basis: 'observed', at: iso(now),
      title: `The controlling owner ${ref?.kind}/${ref?.name} no longer exists`,
      explanation: 'The garbage collector will delete this ReplicaSet (and, unless orphaned, its pods) because its controller owner is gone.',
      nextStep: 'Nothing to do if the Deployment was deleted on purpose.',
      evidence: [],
    });
  }
  // The controller's leader election: nobody renewing means no ReplicaSet controller runs; a
  // recent acquisition means a new process that started with no expectations.
  const lease = input.kcmLease?.spec;
  if (lease) {
    const renew = parseTime(lease.renewTime);
    const acquired = parseTime(lease.acquireTime);
    const duration = (lease.leaseDurationSeconds ?? 15) * 1000;
    const holder = lease.holderIdentity ?? '?';
    if (renew !== undefined && now - renew > Math.max(2 * duration, 30_000)) {
      add({
        id: 'controller-not-leading', severity: 'critical', basis: 'observed', at: iso(renew),
        title: `No kube-controller-manager has renewed its leader Lease for ${fmtAgo(now - renew)}: no ReplicaSet controller is running`,
        explanation: `kube-system/kube-controller-manager was last renewed at ${iso(renew)} by ${holder} (lease ${Math.round(duration / 1000)} s). Without a leader no controller syncs: nothing is created, deleted, adopted or written to status, whatever the expectations.`,
        nextStep: 'Check the kube-controller-manager pods or process (`kubectl -n kube-system get pods -l component=kube-controller-manager`, its log, the static pod manifest).',
        evidence: ['live:leases/kube-system/kube-controller-manager#spec.renewTime'],
      });
    } else if (acquired !== undefined && now - acquired < 10 * 60_000) {
      add({
        id: 'controller-leader-changed', severity: 'info', basis: 'observed', at: iso(acquired),
        title: `kube-controller-manager's leader changed ${fmtAgo(now - acquired)} ago (${holder}): it started with no expectations`,
        explanation: `The Lease kube-system/kube-controller-manager was acquired at ${iso(acquired)} by ${holder} (${lease.leaseTransitions ?? '?'} transitions). Expectations live only in memory: any gate from before then is gone, and writes in flight at the change were never awaited by the new leader.`,
        nextStep: 'If this is unexpected, look at why the previous leader stopped (its log, OOM kills, node problems).',
        evidence: ['live:leases/kube-system/kube-controller-manager#spec.acquireTime'],
      });
    }
  }
  for (const u of input.unavailable ?? []) {
    add({
      id: 'read-forbidden', severity: 'info', basis: 'unknown', at: iso(now),
      title: `Not checked: cannot ${u.verb} ${u.resource}${u.namespace ? ` in ${u.namespace}` : ''} (RBAC)`,
      explanation: `${u.message}. ${u.resource === 'namespaces' ? 'Without the namespace phase kexp cannot tell whether creates are rejected because the namespace is terminating.' : u.resource === 'resourcequotas' ? 'Without quotas kexp cannot tell whether a quota is used up.' : 'The owner could not be checked.'}`,
      nextStep: 'Grant the minimal Role in docs/rbac.md for a complete answer.',
      evidence: [],
    });
  }

  if (!podsKnown) {
    add({
      id: 'pods-not-in-input', severity: 'info', basis: 'unknown', at: iso(now),
      title: 'The snapshot holds no pods: counts come from the ReplicaSet\'s status',
      explanation: `status.replicas ${rs.status?.replicas ?? 0}, readyReplicas ${rs.status?.readyReplicas ?? 0} are what the controller wrote at its last sync (observedGeneration ${observedGeneration ?? '—'}). Pod-level checks (terminating pods, the adoption table, orphans) need the pods.`,
      nextStep: `Include the pods: \`kubectl get rs,pods,events -n ${nsName} -o json\`.`,
      evidence: [refs.rs(name, 'status')],
    });
  }

  // --- verdict
  let state: VerdictState;
  let basis: Basis;
  let summary: string;
  if (deletingSince !== undefined) {
    state = 'deleting';
    basis = 'observed';
    summary = `being deleted since ${iso(deletingSince)}: the controller will not create or delete pods (${active}/${desired} active)`;
  } else if (nsTerminating && diff < 0) {
    state = 'leaked';
    basis = 'inferred';
    summary = `namespace ${nsName} is terminating: creates are rejected with NamespaceTerminating and counted as successes, so the controller waits for ${plural(-diff, 'pod')} that will never appear (${active}/${desired} active)`;
  } else if (failing) {
    state = 'failing';
    basis = 'observed';
    summary = `${failing.reason === 'FailedDelete' ? 'deletes' : 'creates'} failing (${active}/${desired} active): ${failing.message}`;
  } else if (stalled) {
    const leak = sinceMove > EXPECTATIONS_TIMEOUT_MS + 10_000;
    state = leak ? 'leaked' : 'gated';
    basis = 'inferred';
    summary = `${active}/${desired} active and nothing has moved for ${fmtAgo(sinceMove)}: ${leak ? 'a leaked expectation that only a sync after the timeout clears' : 'probably gated on writes it will not observe'}`;
  } else if (diff !== 0 || statusStale) {
    state = 'converging';
    basis = 'inferred';
    summary = statusStale
      ? `the controller has not yet processed the latest spec (${active}/${desired} active)`
      : `converging: ${active}/${desired} active, last progress ${lastProgress !== undefined ? `${fmtAgo(now - lastProgress)} ago` : 'unknown'}; whether it is gated on its own writes needs a watch (kexp explain --watch, kexp record)`;
  } else {
    state = 'healthy';
    basis = 'observed';
    summary = `healthy: ${active}/${desired} active, ${ready} ready, observedGeneration up to date`;
  }

  // --- an inferred open gated window for the leak/stall cases (the controller's own record is invisible)
  const windows: GatedWindow[] = [];
  if ((state === 'leaked' || state === 'gated') && deletingSince === undefined) {
    const start = state === 'leaked' && nsTerminating ? Math.max(nsDeletion ?? 0, lastSpecChange ?? 0) || now : Math.max(lastProgress ?? 0, lastSpecChange ?? 0) || now;
    windows.push({
      start: iso(start)!,
      endedBy: 'open',
      basis: 'inferred',
      raised: { add: Math.max(0, -diff), del: Math.max(0, diff) },
      gatedSyncs: 0,
      expiresAt: iso(start + EXPECTATIONS_TIMEOUT_MS),
      durationMs: Math.max(0, Math.round(now - start)),
      evidence: [],
      note: nsTerminating
        ? 'inferred from the snapshot: start is the later of the namespace deletion and the last spec change (API timestamps, whole seconds); the controller re-raises the record after each expiry'
        : 'inferred from the snapshot: start is the last sign of progress; the real Set may be earlier',
    });
  }
  return {
    facts: {
      desired, active, terminating, ready, finished, statusReplicas: rs.status?.replicas, generation, observedGeneration, orphansMatching, otherControllerMatching,
      nsTerminating, nsKnown: ns !== undefined, deletingSince, lastProgress, lastSpecChange, failing,
    },
    verdict: { state, basis, summary },
    findings,
    windows,
    timeline: timeline.sort((a, b) => a.at - b.at),
    adoption: adoptionRows(rs, input.pods),
    counts: { desired, active, terminating, ready },
  };
}


// ------------------------------------------------------------------------------------------ Events as rounds

const ROUND_REASONS = new Set(['SuccessfulCreate', 'FailedCreate', 'SuccessfulDelete', 'FailedDelete']);

/**
 * A snapshot shows no round, but the controller's Events are evidence of earlier ones: each
 * SuccessfulCreate / FailedCreate / SuccessfulDelete / FailedDelete Event about this
 * ReplicaSet (this UID) becomes an observed round entry at its last occurrence, with one write
 * per occurrence (`count`). The rounds themselves (their batches, their times) are not visible.
 */
export function eventRounds(rs: ReplicaSet, events: CoreEvent[], refs: SnapshotRefs = LIVE_REFS, fallbackAt?: number): { rounds: RoundReport[]; accounting: WriteAccounting } {
  const rounds: RoundReport[] = [];
  const byKind = { create: 0, delete: 0, adopt: 0, release: 0 };
  let failed = 0;
  for (const e of events) {
    const io = e.involvedObject;
    if (!e.reason || !ROUND_REASONS.has(e.reason) || io?.kind !== 'ReplicaSet' || io.name !== rs.metadata.name || io.namespace !== rs.metadata.namespace) continue;
    if (io.uid && rs.metadata.uid && io.uid !== rs.metadata.uid) continue;
    const c = e.source?.component ?? e.reportingComponent;
    if (c !== undefined && c !== 'replicaset-controller') continue;
    const t = eventTimes(e);
    // An Event without a usable time still counts: it is placed at the snapshot time.
    const at = iso(t.last) ?? iso(fallbackAt);
    if (at === undefined) continue;
    const create = e.reason.endsWith('Create');
    const ok = e.reason.startsWith('Successful');
    const n = Math.max(1, t.count);
    byKind[create ? 'create' : 'delete'] += n;
    if (!ok) failed += n;
    const span = t.first !== undefined && t.first !== t.last && iso(t.first) && iso(t.last) ? ` between ${iso(t.first)} and ${iso(t.last)}` : '';
    rounds.push({
      at, kind: create ? 'create' : 'delete', n, basis: 'observed', writes: n,
      // A failed create is walked back at once (CreationObserved), like a failed delete.
      ...(create ? { calls: n, successes: ok ? n : 0, skipped: ok ? 0 : n } : { ...(ok ? {} : { failed: [] }) }),
      errors: ok ? [] : [t.message.replace(/^Error (creating|deleting): /, '')],
      evidence: refs.event(e),
      note: `${e.reason} Event${n > 1 ? ` ×${n}${span}` : ''}: ${t.message} (a snapshot shows the controller's Events, not its rounds: one write per occurrence)`,
    });
  }
  rounds.sort((a, b) => a.at.localeCompare(b.at));
  const writes = byKind.create + byKind.delete;
  return { rounds, accounting: { evidence: 'watch', writes, inRounds: writes, inFindings: 0, byKind, failed } };
}

const SEVERITY_ORDER = { critical: 0, warning: 1, info: 2 } as const;

/** The Report entry for one ReplicaSet of a snapshot (a live read or a snapshot file). */
export function snapshotReplicaSetReport(rs: ReplicaSet, a: SnapshotAnalysis, at: number, events: CoreEvent[], refs: SnapshotRefs = LIVE_REFS): ReplicaSetReport {
  const ref = controllerRefOf(rs.metadata);
  const one = (n: number) => ({ first: n, last: n, min: n, max: n });
  const { rounds, accounting } = eventRounds(rs, events, refs, at);
  // The Deployment controller's ScalingReplicaSet Events: the desired count's earlier values.
  const changes = scalingChanges(rs.metadata.namespace ?? '', rs.metadata.name ?? '', events);
  const dc = desiredChangesFinding(changes, refs);
  const desired = desiredRange(changes, a.counts.desired) ?? one(a.counts.desired);
  return {
    key: objectKey(rs.metadata),
    namespace: rs.metadata.namespace ?? '',
    name: rs.metadata.name ?? '',
    ...(rs.metadata.uid ? { uid: rs.metadata.uid } : {}),
    uids: rs.metadata.uid ? [rs.metadata.uid] : [],
    ...(ref ? { owner: { kind: ref.kind, name: ref.name, uid: ref.uid } } : {}),
    verdict: a.verdict,
    counts: { desired, active: one(a.counts.active), terminating: one(a.counts.terminating), ready: one(a.counts.ready) },
    series: [{ at: iso(at)!, ...a.counts }],
    initialState: { basis: 'unknown', reason: 'point-in-time snapshot: the controller\'s expectations are not visible through the API; a watch (kexp record, explain --watch) follows its rounds' },
    syncs: { total: 0, byOutcome: {} },
    accounting,
    rounds,
    gatedWindows: a.windows,
    expectations: [],
    expectationsTruncated: false,
    findings: [...a.findings, ...(dc ? [dc] : [])].sort((x, y) => SEVERITY_ORDER[x.severity] - SEVERITY_ORDER[y.severity] || (x.at ?? '').localeCompare(y.at ?? '')),
    adoption: { at: iso(at), rows: a.adoption },
  };
}

// ------------------------------------------------------------------------------------------ Events of the Deployment controller

/**
 * "Scaled up replica set web-7d9 to 5 from 2" (1.27+), "Scaled up replica set web-7d9 to 5"
 * (before), and the "from 2 to 5" wording some tools write: the Deployment controller's
 * ScalingReplicaSet Event is one write of the ReplicaSet's spec.replicas.
 */
const SCALED_RE = /^Scaled (up|down) replica set (\S+) (?:to (\d+)(?: from (\d+))?|from (\d+) to (\d+))$/;

export interface DesiredChange {
  /** Epoch ms of the Event's last occurrence (undefined: the Event has no usable time). */
  at?: number;
  from?: number;
  to: number;
  direction: 'up' | 'down';
  /** The Deployment the Event is about. */
  deployment: { name: string; uid?: string };
  count: number;
  event: CoreEvent;
}

/** Parses one ScalingReplicaSet message; undefined when it is not one. */
export function parseScalingMessage(message: string): { direction: 'up' | 'down'; rs: string; from?: number; to: number } | undefined {
  const m = SCALED_RE.exec(message.trim());
  if (!m) return undefined;
  const to = Number(m[3] ?? m[6]);
  const fromText = m[4] ?? m[5];
  return { direction: m[1] as 'up' | 'down', rs: m[2]!, to, ...(fromText !== undefined ? { from: Number(fromText) } : {}) };
}

/**
 * The desired-count changes of ReplicaSet `namespace/name` that the Deployment controller's
 * ScalingReplicaSet Events show, oldest first.
 */
export function scalingChanges(namespace: string, name: string, events: CoreEvent[]): DesiredChange[] {
  const out: DesiredChange[] = [];
  for (const e of events) {
    if (e.reason !== 'ScalingReplicaSet' || e.involvedObject?.kind !== 'Deployment') continue;
    if ((e.involvedObject.namespace ?? e.metadata.namespace) !== namespace) continue;
    const c = e.source?.component ?? e.reportingComponent;
    if (c !== undefined && c !== '' && c !== 'deployment-controller') continue;
    const t = eventTimes(e);
    const p = parseScalingMessage(t.message);
    if (!p || p.rs !== name) continue;
    out.push({
      ...(t.last !== undefined ? { at: t.last } : {}), ...(p.from !== undefined ? { from: p.from } : {}), to: p.to, direction: p.direction,
      deployment: { name: e.involvedObject.name ?? '?', ...(e.involvedObject.uid ? { uid: e.involvedObject.uid } : {}) }, count: t.count, event: e,
    });
  }
  return out.sort((a, b) => (a.at ?? Infinity) - (b.at ?? Infinity));
}

/** One finding listing the desired-count changes (observed: the Deployment controller's own Events). */
export function desiredChangesFinding(changes: DesiredChange[], refs: SnapshotRefs): Finding | undefined {
  if (changes.length === 0) return undefined;
  const steps = changes.map((c) => `${c.from !== undefined ? `${c.from}→` : '→'}${c.to}${c.at !== undefined ? ` at ${iso(c.at)}` : ''}${c.count > 1 ? ` (×${c.count})` : ''}`);
  const last = changes[changes.length - 1]!;
  const deps = [...new Set(changes.map((c) => c.deployment.name))];
  return {
    id: 'desired-changes', severity: 'info', basis: 'observed', ...(last.at !== undefined ? { at: iso(last.at) } : {}),
    title: `Desired count changed ${plural(changes.length, 'time')} by Deployment ${deps.join(', ')}: ${steps.slice(-5).join(', ')}${steps.length > 5 ? ` (and ${steps.length - 5} earlier)` : ''}`,
    explanation: 'ScalingReplicaSet Events of the Deployment controller: each is one write of this ReplicaSet\'s spec.replicas (a rollout or a scale of the Deployment). The ReplicaSet controller then creates or deletes pods towards the new count; its own Events are the rounds.',
    nextStep: 'None: this is the demand the ReplicaSet controller was following.',
    evidence: changes.slice(-5).map((c) => refs.event(c.event)),
  };
}

/** The desired count's range over the changes and the current value (`current` last, when known). */
function desiredRange(changes: DesiredChange[], current?: number): { first: number; last: number; min: number; max: number } | undefined {
  const values: number[] = [];
  for (const c of changes) {
    if (c.from !== undefined) values.push(c.from);
    values.push(c.to);
  }
  if (current !== undefined) values.push(current);
  if (values.length === 0) return undefined;
  return { first: values[0]!, last: values[values.length - 1]!, min: Math.min(...values), max: Math.max(...values) };
}

/** Keys (namespace/name) of the ReplicaSets the controllers' Events are about: round Events and ScalingReplicaSet messages. */
export function replicaSetsInEvents(events: Iterable<CoreEvent>): Map<string, { namespace: string; name: string }> {
  const out = new Map<string, { namespace: string; name: string }>();
  for (const e of events) {
    const io = e.involvedObject;
    const ns = io?.namespace ?? e.metadata.namespace ?? '';
    if (io?.kind === 'ReplicaSet' && io.name && e.reason && ROUND_REASONS.has(e.reason)) {
      const c = e.source?.component ?? e.reportingComponent;
      if (c === undefined || c === '' || c === 'replicaset-controller') out.set(`${ns}/${io.name}`, { namespace: ns, name: io.name });
    } else if (io?.kind === 'Deployment' && e.reason === 'ScalingReplicaSet') {
      const p = typeof e.message === 'string' ? parseScalingMessage(e.message) : undefined;
      if (p) out.set(`${ns}/${p.rs}`, { namespace: ns, name: p.rs });
    }
  }
  return out;
}

/**
 * The Report entry for a ReplicaSet the input knows only from Events (`kubectl get events -o
 * json` alone, or a dump whose ReplicaSet object is gone): its rounds from the ReplicaSet
 * controller's Events (observed, one write per occurrence) and its desired-count changes from
 * the Deployment controller's, and a verdict `unknown`: desired, active and ready pods at the
 * end, and the controller's expectations, are not in the input.
 */
export function eventsOnlyReplicaSetReport(rsRef: { namespace: string; name: string }, events: CoreEvent[], at: number | undefined, refs: SnapshotRefs): ReplicaSetReport {
  const mine = events.filter((e) => e.involvedObject?.kind === 'ReplicaSet' && e.involvedObject.name === rsRef.name && (e.involvedObject.namespace ?? e.metadata.namespace) === rsRef.namespace);
  const uids = [...new Set(mine.map((e) => e.involvedObject?.uid).filter((u): u is string => typeof u === 'string' && u !== ''))];
  // No uid to tell incarnations apart: every Event under this name counts (eventRounds checks a uid only when both sides have one).
  const pseudo: ReplicaSet = { metadata: { namespace: rsRef.namespace, name: rsRef.name, ...(uids.length === 1 ? { uid: uids[0] } : {}) } } as ReplicaSet;
  const { rounds, accounting } = eventRounds(pseudo, events, refs, at);
  const changes = scalingChanges(rsRef.namespace, rsRef.name, events);
  const desired = desiredRange(changes);
  const zero = { first: 0, last: 0, min: 0, max: 0 };
  const findings: Finding[] = [];
  const dc = desiredChangesFinding(changes, refs);
  if (dc) findings.push(dc);
  const failures = rounds.filter((r) => r.errors.length > 0);
  if (failures.length) {
    const lastF = failures[failures.length - 1]!;
    findings.push({
      id: 'failed-writes', severity: 'warning', basis: 'observed', at: lastF.at,
      title: `${plural(failures.reduce((s, r) => s + r.n, 0), 'failed pod write')} (FailedCreate / FailedDelete Events)`,
      explanation: `The ReplicaSet controller reported: ${lastF.errors[0] ?? '?'}. Without the ReplicaSet and its pods kexp cannot tell whether it is still failing.`,
      nextStep: `Read the ReplicaSet's current state: \`kexp explain ${rsRef.name} -n ${rsRef.namespace}\`, or add \`kubectl get rs,pods -n ${rsRef.namespace} -o json\` to the input.`,
      evidence: failures.slice(-3).map((r) => r.evidence),
    });
  }
  findings.push({
    id: 'replicaset-not-in-input', severity: 'info', basis: 'unknown', ...(at !== undefined ? { at: iso(at) } : {}),
    title: 'Only Events: the ReplicaSet object and its pods are not in the input, so its state is unknown',
    explanation: `The rounds come from the controllers' Events (one write per occurrence; Events are aggregated after 9 similar ones in 10 minutes, rate-limited, and expire after an hour, so some writes may be missing). Desired${desired ? ' (from ScalingReplicaSet Events only)' : ''}, active and ready pods and the controller's expectations at the end are not visible.`,
    nextStep: `Include the objects: \`kubectl get rs,pods,events -n ${rsRef.namespace} -o json\` (or a cluster-info dump), or record a watch with \`kexp record\`.`,
    evidence: [],
  });
  const dep = changes.length ? changes[changes.length - 1]!.deployment : undefined;
  const creates = accounting.byKind.create;
  const deletes = accounting.byKind.delete;
  return {
    key: `${rsRef.namespace}/${rsRef.name}`,
    namespace: rsRef.namespace,
    name: rsRef.name,
    ...(uids.length === 1 ? { uid: uids[0] } : {}),
    uids,
    ...(dep ? { owner: { kind: 'Deployment', name: dep.name, uid: dep.uid ?? '' } } : {}),
    verdict: {
      state: 'unknown', basis: 'unknown',
      summary: `known only from Events: ${plural(creates, 'create')}, ${plural(deletes, 'delete')}${accounting.failed ? ` (${accounting.failed} failed)` : ''}${changes.length ? `, desired ${desired!.first}→${desired!.last}` : ''}; its state (active and ready pods, expectations) is not in the input`,
    },
    counts: { desired: desired ?? zero, active: zero, terminating: zero, ready: zero },
    series: [],
    initialState: { basis: 'unknown', reason: 'only Events are in the input: the controller\'s expectations are not visible' },
    syncs: { total: 0, byOutcome: {} },
    accounting,
    rounds,
    gatedWindows: [],
    expectations: [],
    expectationsTruncated: false,
    findings: findings.sort((x, y) => SEVERITY_ORDER[x.severity] - SEVERITY_ORDER[y.severity] || (x.at ?? '').localeCompare(y.at ?? '')),
    adoption: { rows: [] },
  };
}
