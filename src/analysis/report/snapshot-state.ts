/**
 * The state of one ReplicaSet in a point-in-time snapshot (a live read by `kexp explain`, or a
 * snapshot file), as the snapshot's finding rules, verdict and inferred window read it: its
 * pods by how the controller sees them (owned and counted, orphans it would adopt, pods of
 * another controller), the reconstructed recent timeline (from Events' first/lastTimestamp and
 * count, pod creation/deletion timestamps, managedFields times), the last sign of progress, the
 * failure that holds it (a ReplicaFailure condition, or FailedCreate/FailedDelete newer than the
 * last progress), and whether nothing has moved for STALL_MS while pods are missing or surplus.
 *
 * A snapshot cannot see the controller's expectations; this reads only what the API state
 * shows. Pure: no I/O, no clock (`now` is the snapshot time). O(pods + Events of the namespace).
 */
import { EXPECTATIONS_TIMEOUT_MS } from '../../model/expectations.js';
import { controllerRefOf, desiredReplicas, objectKey, parseTime, type CoreEvent, type Pod, type ReplicaSet } from '../../model/objects.js';
import { isPodActive, isPodReady } from '../../model/pod-ranking.js';
import { compileLabelSelector } from '../../model/selector.js';
import type { Deployment, Lease, LiveSnapshot, ResourceQuota } from '../../sources/live/snapshot.js';
import { iso } from '../iso.js';
import type { Basis } from '../report-types.js';
import { eventTimes } from './event-times.js';
import { ownerWords, type OwnerWords } from './owner-words.js';
import type { SnapshotRefs } from './snapshot-refs.js';
import { plural } from './wording.js';

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

/** What a snapshot holds beside the ReplicaSet. */
export interface SnapshotInput {
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
  /**
   * The owner's words when it is not a ReplicaSet: a ReplicationController read as the ReplicaSet
   * its manager converts it to (model/replicationcontroller/conversion.ts), its Events in the
   * ReplicaSet controller's form (pipeline/explain-live.ts). Default: the ReplicaSet's.
   */
  words?: OwnerWords;
}

/** The newest FailedCreate/FailedDelete Event about this ReplicaSet. */
export interface LastFailure {
  reason: string;
  message: string;
  at: number;
  ev: CoreEvent;
  count: number;
}

/** The pods of the namespace as the controller sees them for one ReplicaSet. */
interface PodsSeen {
  owned: Pod[];
  /** Orphans matching the selector that ClaimObject would adopt. */
  orphansMatching: number;
  /** Orphans matching the selector that are being deleted: ClaimObject ignores them. */
  terminatingOrphans: Pod[];
  /** Matching pods with another controllerRef (or not active). */
  otherControllerMatching: number;
  active: number;
  ready: number;
  terminating: number;
  finished: number;
  /** Owned pods still terminating past their deletionTimestamp. */
  pastGrace: string[];
}

export interface SnapshotState extends PodsSeen {
  rs: ReplicaSet;
  /** How findings name the owner (SnapshotInput.words, else the ReplicaSet's). */
  words: OwnerWords;
  input: SnapshotInput;
  now: number;
  refs: SnapshotRefs;
  key: string;
  name: string;
  nsName: string;
  desired: number;
  podsKnown: boolean;
  timeline: TimelineEntry[];
  lastProgress?: number;
  lastSpecChange?: number;
  lastFailure?: LastFailure;
  ns?: LiveSnapshot['ns'];
  nsDeletion?: number;
  nsTerminating: boolean;
  deletingSince?: number;
  generation?: number;
  observedGeneration?: number;
  /** observedGeneration behind generation: the controller has not synced the latest spec. */
  statusStale: boolean;
  /** Active pods less desired. */
  diff: number;
  failing?: RsFacts['failing'];
  /** Since the later of the last progress and the last spec change. */
  sinceMove: number;
  /** Pods missing or surplus, the spec synced, nothing failed and nothing moved for STALL_MS. */
  stalled: boolean;
  quotaFull: Array<{ name: string; resource: string; used: string; hard: string }>;
}

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

/** The namespace's pods as the controller sees them for `rs` (ClaimObject's view, syncReplicaSet's counts). */
function podsSeen(rs: ReplicaSet, pods: Pod[], now: number): PodsSeen {
  const nsName = rs.metadata.namespace ?? '';
  const uid = rs.metadata.uid;
  const seen: PodsSeen = { owned: [], orphansMatching: 0, terminatingOrphans: [], otherControllerMatching: 0, active: 0, ready: 0, terminating: 0, finished: 0, pastGrace: [] };
  const matches = compileLabelSelector(rs.spec?.selector);
  for (const p of pods) {
    if (p.metadata.namespace !== nsName) continue;
    const ref = controllerRefOf(p.metadata);
    if (ref?.uid === uid) seen.owned.push(p);
    else if (matches(p.metadata.labels)) {
      // ClaimObject ignores a pod being deleted (the adoption table says so): not adoptable.
      if (!ref && p.metadata.deletionTimestamp) seen.terminatingOrphans.push(p);
      else if (!ref && isPodActive(p)) seen.orphansMatching++;
      else seen.otherControllerMatching++;
    }
  }
  for (const p of seen.owned) {
    const phase = p.status?.phase;
    if (phase === 'Succeeded' || phase === 'Failed') seen.finished++;
    else if (p.metadata.deletionTimestamp) {
      seen.terminating++;
      const dl = parseTime(p.metadata.deletionTimestamp);
      if (dl !== undefined && dl < now) seen.pastGrace.push(p.metadata.name ?? '?');
    }
    if (isPodActive(p)) {
      seen.active++;
      if (isPodReady(p)) seen.ready++;
    }
  }
  return seen;
}

/** Pod creations and deletion requests, grouped per second (API timestamps are whole seconds), and the newest of them. */
function podLines(owned: Pod[]): { lines: TimelineEntry[]; lastProgress?: number } {
  let lastProgress: number | undefined;
  const bump = (t: number | undefined) => {
    if (t !== undefined && (lastProgress === undefined || t > lastProgress)) lastProgress = t;
  };
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
  const lines: TimelineEntry[] = [];
  for (const g of groups.values()) {
    const list = g.names.length > 4 ? `${g.names.slice(0, 4).join(', ')}, …` : g.names.join(', ');
    lines.push({
      at: g.at, basis: 'observed', from: 'pod', coarse: true,
      text: g.kind === 'created' ? `${plural(g.names.length, 'pod')} created: ${list}` : `deletion of ${plural(g.names.length, 'pod')} requested (deletionTimestamp − grace): ${list}`,
    });
  }
  return { lines, lastProgress };
}

/**
 * The Events as timeline lines — one per Event object at its last occurrence, with its count and
 * first time; single-occurrence Events of the same reason in the same second (one per pod) as
 * one line — with the newest Successful* of this ReplicaSet and its newest Failed* Event.
 */
function eventLines(rs: ReplicaSet, events: CoreEvent[]): { lines: TimelineEntry[]; lastSuccess?: number; lastFailure?: LastFailure } {
  const name = rs.metadata.name ?? '';
  const uid = rs.metadata.uid;
  const lines: TimelineEntry[] = [];
  let lastSuccess: number | undefined;
  let lastFailure: LastFailure | undefined;
  const evGroups = new Map<string, { at: number; head: string; messages: string[] }>();
  for (const e of events) {
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
      lines.push({ at: t.last, basis: 'observed', from: 'event', coarse: true, text: `${head}${range}${t.aggregated ? ' (aggregated)' : ''}: ${t.message}` });
    } else {
      const k = `${head}|${t.last}`;
      const g = evGroups.get(k) ?? { at: t.last, head, messages: [] };
      g.messages.push(t.message);
      evGroups.set(k, g);
    }
    if (other || e.involvedObject?.kind !== 'ReplicaSet' || e.involvedObject.name !== name) continue;
    if ((e.reason === 'SuccessfulCreate' || e.reason === 'SuccessfulDelete') && (lastSuccess === undefined || t.last > lastSuccess)) lastSuccess = t.last;
    if ((e.reason === 'FailedCreate' || e.reason === 'FailedDelete') && (!lastFailure || t.last > lastFailure.at)) {
      lastFailure = { reason: e.reason, message: t.message, at: t.last, ev: e, count: t.count };
    }
  }
  for (const g of evGroups.values()) {
    const n = g.messages.length;
    lines.push({ at: g.at, basis: 'observed', from: 'event', coarse: true, text: n === 1 ? `${g.head}: ${g.messages[0]}` : `${g.head} (${n} Events): ${g.messages.slice(0, 3).join('; ')}${n > 3 ? '; …' : ''}` });
  }
  return { lines, lastSuccess, lastFailure };
}

/** The later of two optional times. */
function later(a: number | undefined, b: number | undefined): number | undefined {
  return a === undefined ? b : b === undefined || a >= b ? a : b;
}

/** Reads one ReplicaSet's state from a snapshot taken at `now`. */
export function readSnapshot(rs: ReplicaSet, input: SnapshotInput, now: number, refs: SnapshotRefs): SnapshotState {
  const name = rs.metadata.name ?? '';
  const nsName = rs.metadata.namespace ?? '';
  const desired = desiredReplicas(rs);
  const seen = podsSeen(rs, input.pods, now);
  const podsKnown = input.podsKnown !== false;
  if (!podsKnown) {
    // No pods in the snapshot: the ReplicaSet's own status is what the controller last wrote.
    seen.active = rs.status?.replicas ?? 0;
    seen.ready = rs.status?.readyReplicas ?? 0;
    seen.terminating = (rs.status as { terminatingReplicas?: number } | undefined)?.terminatingReplicas ?? 0;
  }
  const { active, ready, terminating } = seen;

  // --- timeline: the ReplicaSet, its spec changes, pods, Events, namespace
  const timeline: TimelineEntry[] = [];
  const created = parseTime(rs.metadata.creationTimestamp);
  if (created !== undefined) timeline.push({ at: created, basis: 'observed', from: 'replicaset', text: `ReplicaSet ${name} created (uid ${rs.metadata.uid ?? '?'})`, coarse: true });
  const changes = specChanges(rs);
  for (const c of changes) {
    timeline.push({ at: c.at, basis: 'observed', from: 'replicaset', text: `spec${c.subresource === 'scale' ? ' (scale)' : ''} last written by ${c.manager} (managedFields; earlier writes by the same manager are not visible)`, coarse: true });
  }
  const lastSpecChange = changes.length ? changes[changes.length - 1]!.at : created;
  const pods = podLines(seen.owned);
  const evs = eventLines(rs, input.events);
  timeline.push(...pods.lines, ...evs.lines);
  const lastProgress = later(pods.lastProgress, evs.lastSuccess);
  const lastFailure = evs.lastFailure;
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
      return { reason: replicaFailure.reason ?? 'ReplicaFailure', message: replicaFailure.message ?? '', at: parseTime(replicaFailure.lastTransitionTime), basis: 'observed' as Basis, evidence: [refs.rs(name, 'status.conditions[ReplicaFailure]'), ...(lastFailure ? [refs.event(lastFailure.ev)] : [])] };
    }
    if (lastFailure && now - lastFailure.at < RECENT_FAILURE_MS && (lastProgress === undefined || lastFailure.at >= lastProgress - 1000)) {
      const wrongWay = (lastFailure.reason === 'FailedCreate' && diff > 0) || (lastFailure.reason === 'FailedDelete' && diff < 0);
      if (!wrongWay) return { reason: lastFailure.reason, message: lastFailure.message, at: lastFailure.at, basis: 'observed' as Basis, evidence: [refs.event(lastFailure.ev)] };
    }
    return undefined;
  })();
  const sinceMove = now - Math.max(lastProgress ?? 0, lastSpecChange ?? 0);
  const stalled = diff !== 0 && !statusStale && !failing && !nsTerminating && deletingSince === undefined && (lastProgress !== undefined || lastSpecChange !== undefined) && sinceMove > STALL_MS;
  return {
    ...seen, rs, words: input.words ?? ownerWords('rs'), input, now, refs, key: objectKey(rs.metadata), name, nsName, desired, podsKnown, timeline,
    lastProgress, lastSpecChange, lastFailure, ns, nsDeletion, nsTerminating, deletingSince,
    generation, observedGeneration, statusStale, diff, failing, sinceMove, stalled, quotaFull: exhaustedQuotas(input.quotas),
  };
}

/** The leak suspected when nothing moved: past the timeout (and a margin), the record has expired unnoticed. */
export function stallIsLeak(s: SnapshotState): boolean {
  return s.sinceMove > EXPECTATIONS_TIMEOUT_MS + 10_000;
}
