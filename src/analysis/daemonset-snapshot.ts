/**
 * Analysis of a point-in-time snapshot of one DaemonSet (`kexp explain ds/NAME` without --watch):
 * its status as its controller last wrote it (desired, current, misscheduled, updated, ready),
 * observedGeneration against generation, its daemon pods (active, terminating, failed), its
 * controller's Events and, when the Nodes could be read, where daemon pods belong
 * (model/daemonset/node-placement.ts placementOf: nodeShouldRunDaemonPod of
 * pkg/controller/daemon/daemon_controller.go) → a verdict with its basis, findings, a facts line
 * and the reconstructed recent timeline.
 *
 * A snapshot cannot see the controller's expectations, so it says only what the API state shows:
 * - deletionTimestamp → deleting (observed);
 * - observedGeneration < generation: the controller has not processed the spec change. While its
 *   expectations are unsatisfied syncDaemonSet only writes status (updateDaemonSetStatus with
 *   updateObservedGen false), so a leaked expectation or a gated controller keeps it there (so
 *   would a controller that is not running). Past STALL_MS after the spec writer's last write
 *   (managedFields: the change is at least that old): gated (inferred);
 *   when the gate began, and whether it is one leak or a chain of windows, cannot be told from a
 *   snapshot — --watch follows it;
 * - FailedCreate/FailedDelete newer than the last progress (within RECENT_FAILURE_MS) → failing;
 * - status or Nodes showing daemon pods missing or misscheduled, nothing moved for STALL_MS →
 *   gated (inferred: not acting; a snapshot cannot tell an expectation from anything else);
 * - else converging while pods move or a rolling update is under way, healthy when the status
 *   says every node that should run one has an updated daemon pod.
 * No gated window is inferred: its start is not in a snapshot.
 *
 * Pure: no I/O, no clock (`now` is the snapshot time). O(pods + Events + Nodes).
 */
import { controllerRefOf, parseTime, type CoreEvent, type DaemonSet, type Namespace, type Node, type Pod } from '../model/objects.js';
import { placementOf } from '../model/daemonset/node-placement.js';
import { isPodTerminal, targetNodeName } from '../model/daemonset/daemon-pods.js';
import { isPodReady } from '../model/pod-ranking.js';
import type { Finding, ReplicaSetReport } from './report-types.js';
import { liveRef, ownerSnapshotReport, specWrites } from './report/owner-snapshot.js';
import { RECENT_FAILURE_MS, STALL_MS, type TimelineEntry } from './report/snapshot-state.js';
import { plural } from './report/wording.js';

export interface DaemonSetSnapshotInput {
  pods: Pod[];
  events: CoreEvent[];
  /** Every Node; undefined when they could not be read (node placement unknown). */
  nodes?: Node[];
  ns?: Namespace;
}

/** The snapshot analysis of a DaemonSet or a Job: its report entry, the facts line, the timeline. */
export interface OwnerSnapshotAnalysis {
  report: ReplicaSetReport;
  facts: string;
  timeline: TimelineEntry[];
}

const secs = (ms: number) => `${Math.round(ms / 1000)} s`;

/** The controller's last progress the snapshot shows: pods created, deletions requested, Successful* Events. */
function lastProgressOf(pods: Pod[], events: CoreEvent[]): number | undefined {
  let last: number | undefined;
  const see = (t: number | undefined) => {
    if (t !== undefined && (last === undefined || t > last)) last = t;
  };
  for (const p of pods) {
    see(parseTime(p.metadata.creationTimestamp));
    const del = parseTime(p.metadata.deletionTimestamp);
    if (del !== undefined) see(del - (p.metadata.deletionGracePeriodSeconds ?? 0) * 1000);
  }
  for (const e of events) if (e.reason === 'SuccessfulCreate' || e.reason === 'SuccessfulDelete') see(parseTime(e.lastTimestamp ?? e.eventTime ?? e.firstTimestamp));
  return last;
}

/** The newest FailedCreate/FailedDelete Event, when newer than `after` and recent. */
export function currentWriteFailure(events: CoreEvent[], after: number | undefined, now: number): CoreEvent | undefined {
  let best: { e: CoreEvent; at: number } | undefined;
  for (const e of events) {
    if (e.type !== 'Warning' || (e.reason !== 'FailedCreate' && e.reason !== 'FailedDelete')) continue;
    const at = parseTime(e.lastTimestamp ?? e.eventTime ?? e.firstTimestamp);
    if (at === undefined || now - at > RECENT_FAILURE_MS || (after !== undefined && at <= after)) continue;
    if (!best || at > best.at) best = { e, at };
  }
  return best?.e;
}

/** The Events as timeline entries (their last occurrence, with the count). */
export function eventTimeline(events: CoreEvent[]): TimelineEntry[] {
  const out: TimelineEntry[] = [];
  for (const e of events) {
    const at = parseTime(e.lastTimestamp ?? e.eventTime ?? e.firstTimestamp);
    if (at === undefined) continue;
    const n = e.count ?? 1;
    out.push({ at, basis: 'observed', from: 'event', coarse: true, text: `${e.type ?? 'Normal'} ${e.reason ?? '?'}${n > 1 ? ` ×${n}` : ''}: ${(e.message ?? '').slice(0, 160)}` });
  }
  return out;
}

/** Analyses one DaemonSet of a snapshot taken at `now`. */
export function analyseDaemonSetSnapshot(ds: DaemonSet, input: DaemonSetSnapshotInput, now: number): OwnerSnapshotAnalysis {
  const name = ds.metadata.name ?? '';
  const ns = ds.metadata.namespace ?? '';
  const uid = ds.metadata.uid;
  const ref = (field?: string) => liveRef('daemonsets', name, field);
  const own = input.pods.filter((p) => {
    const r = controllerRefOf(p.metadata);
    return r?.kind === 'DaemonSet' && (uid ? r.uid === uid : r.name === name);
  });
  const terminating = own.filter((p) => p.metadata.deletionTimestamp);
  const failed = own.filter((p) => p.status?.phase === 'Failed' && !p.metadata.deletionTimestamp);
  const active = own.filter((p) => !p.metadata.deletionTimestamp && !isPodTerminal(p));
  const ready = active.filter(isPodReady).length;
  const st = ds.status ?? {};
  const desired = st.desiredNumberScheduled ?? 0;
  const current = st.currentNumberScheduled ?? 0;
  const misscheduled = st.numberMisscheduled ?? 0;
  const updated = st.updatedNumberScheduled ?? 0;
  const generation = ds.metadata.generation;
  const observed = st.observedGeneration;
  const findings: Finding[] = [];
  const timeline: TimelineEntry[] = [];
  // Where daemon pods belong, as the controller computes it from the Nodes (its cache may differ).
  let placement: { shouldRun: number; missing: string[]; misplaced: string[] } | undefined;
  if (input.nodes) {
    const place = placementOf(ds);
    const withPod = new Map<string, Pod[]>();
    for (const p of active) {
      const n = targetNodeName(p);
      if (n) withPod.set(n, [...(withPod.get(n) ?? []), p]);
    }
    const missing: string[] = [];
    const misplaced: string[] = [];
    let shouldRun = 0;
    for (const node of input.nodes) {
      const nn = node.metadata.name ?? '';
      const pl = place(node);
      if (pl.shouldRun) shouldRun++;
      if (pl.shouldRun && !withPod.has(nn)) missing.push(nn);
      if (!pl.shouldContinueRunning && withPod.has(nn)) misplaced.push(nn);
    }
    const known = new Set(input.nodes.map((n) => n.metadata.name ?? ''));
    for (const n of withPod.keys()) if (!known.has(n)) misplaced.push(n);
    placement = { shouldRun, missing, misplaced };
  } else {
    findings.push({
      id: 'daemonset-node-placement-unknown', severity: 'info', basis: 'unknown', title: 'Node placement unknown',
      explanation: 'The Nodes could not be read (RBAC: listing Nodes needs a ClusterRole, docs/rbac.md), so which nodes should run a daemon pod is unknown; the counts below are the controller\'s own status.',
      nextStep: 'Grant list/watch on nodes (docs/rbac.md) to check placement, or compare `kubectl get nodes` with the daemon pods\' nodes.',
      evidence: [ref('status')],
    });
  }
  const writes = specWrites(ds.metadata);
  for (const w of writes) timeline.push({ at: w.at, basis: 'observed', from: 'snapshot', coarse: true, text: `spec last written by ${w.manager} (managedFields; earlier writes by the same manager are not visible)` });
  const created = parseTime(ds.metadata.creationTimestamp);
  if (created !== undefined) timeline.push({ at: created, basis: 'observed', from: 'snapshot', coarse: true, text: 'DaemonSet created' });
  const lastSpecChange = writes.length ? writes[writes.length - 1]!.at : created;
  for (const p of own) {
    const c = parseTime(p.metadata.creationTimestamp);
    if (c !== undefined) timeline.push({ at: c, basis: 'observed', from: 'pod', coarse: true, text: `pod ${p.metadata.name ?? '?'} created${targetNodeName(p) ? ` for node ${targetNodeName(p)}` : ''}` });
    const d = parseTime(p.metadata.deletionTimestamp);
    if (d !== undefined) timeline.push({ at: d - (p.metadata.deletionGracePeriodSeconds ?? 0) * 1000, basis: 'inferred', from: 'pod', coarse: true, text: `pod ${p.metadata.name ?? '?'} deletion requested (deletionTimestamp less its grace period)` });
  }
  timeline.push(...eventTimeline(input.events));
  const lastProgress = lastProgressOf(own, input.events);
  const quietSince = Math.max(lastProgress ?? 0, lastSpecChange ?? 0) || undefined;
  const quietFor = quietSince !== undefined ? now - quietSince : undefined;
  if (failed.length) {
    const fe = input.events.filter((e) => e.reason === 'FailedDaemonPod');
    findings.push({
      id: 'daemonset-failed-pods', severity: 'warning', basis: 'observed', title: `${plural(failed.length, 'failed daemon pod')}`,
      explanation: `${failed.map((p) => p.metadata.name ?? '?').slice(0, 5).join(', ')}${failed.length > 5 ? ', …' : ''} ${failed.length === 1 ? 'is' : 'are'} Failed. The DaemonSet controller deletes a failed daemon pod and creates a replacement on its node, each node backed off (1 s doubling up to 15 min: failedPodsBackoff, daemon_controller.go podsShouldBeOnNode)${fe.length ? `; its FailedDaemonPod Events: ${fe.reduce((n, e) => n + (e.count ?? 1), 0)}` : ''}.`,
      nextStep: `Find why the pods fail (\`kubectl -n ${ns} describe pod ${failed[0]!.metadata.name ?? ''}\`); the controller keeps replacing them with a growing backoff.`,
      evidence: [...failed.slice(0, 5).map((p) => liveRef('pods', p.metadata.name ?? '?')), ...fe.slice(0, 2).map((e) => liveRef('events', e.metadata.name ?? '?'))],
    });
  }
  const failure = currentWriteFailure(input.events, lastProgress, now);
  const missingPods = desired - current;
  const placementOff = placement ? placement.missing.length + placement.misplaced.length : 0;
  let verdict: ReplicaSetReport['verdict'];
  const specBehind = generation !== undefined && (observed ?? 0) < generation;
  if (ds.metadata.deletionTimestamp) {
    verdict = { state: 'deleting', basis: 'observed', summary: `the DaemonSet is being deleted (deletionTimestamp ${ds.metadata.deletionTimestamp}): its controller no longer manages its pods` };
  } else if (specBehind) {
    const since = lastSpecChange !== undefined ? now - lastSpecChange : undefined;
    const stalled = since !== undefined && since >= STALL_MS;
    // managedFields keep each manager's last write only: the change is at least `since` old.
    const what = `observedGeneration ${observed ?? 'unset'} < generation ${generation}: the controller has not processed the spec change${since !== undefined ? ` (at least ${secs(since)} old: its writer's last write by managedFields)` : ''}`;
    findings.push({
      id: 'daemonset-spec-not-observed', severity: stalled ? 'critical' : 'info', basis: 'inferred', title: 'Spec change not processed',
      ...(lastSpecChange !== undefined ? { at: new Date(lastSpecChange).toISOString() } : {}),
      explanation: `${what}. While its expectations are unsatisfied, syncDaemonSet writes status only and leaves observedGeneration behind (daemon_controller.go: updateDaemonSetStatus(…, updateObservedGen=false)), and a rolling update does not start; a leaked expectation or a gated controller keeps it there (a controller that is not running would too). When the gate began, and whether the timeout will free it, cannot be told from a snapshot.`,
      nextStep: `Follow the controller's syncs: \`kexp explain ds/${name} -n ${ns} --watch 30s\` (or read its -v=4 log with \`kexp kcm-log\`).`,
      evidence: [ref('metadata.generation'), ref('status.observedGeneration')],
    });
    verdict = stalled
      ? { state: 'gated', basis: 'inferred', summary: `${what} — its syncs write status only while its expectations are unsatisfied (a leaked expectation or a gated controller); the window cannot be told from a snapshot: --watch` }
      : { state: 'converging', basis: 'inferred', summary: `${what} yet` };
  } else if (failure) {
    verdict = { state: 'failing', basis: 'observed', summary: `${failure.reason} newer than the last progress: ${(failure.message ?? '').slice(0, 200)}` };
  } else if (missingPods !== 0 || misscheduled > 0 || placementOff > 0) {
    const parts = [
      missingPods > 0 ? `${plural(missingPods, 'node')} without a daemon pod by its status (desired ${desired}, current ${current})` : '',
      misscheduled > 0 ? `${misscheduled} misscheduled` : '',
      placement?.missing.length ? `Nodes that should run one without it: ${placement.missing.slice(0, 5).join(', ')}${placement.missing.length > 5 ? ', …' : ''}` : '',
      placement?.misplaced.length ? `daemon pods on nodes that should not run one: ${placement.misplaced.slice(0, 5).join(', ')}${placement.misplaced.length > 5 ? ', …' : ''}` : '',
    ].filter(Boolean).join('; ');
    const stalled = quietFor !== undefined && quietFor >= STALL_MS;
    verdict = stalled
      ? { state: 'gated', basis: 'inferred', summary: `${parts}, and nothing has moved for ${secs(quietFor)}: the controller is not acting (an unfulfilled expectation would hold it; a snapshot cannot tell: --watch)` }
      : { state: 'converging', basis: 'inferred', summary: `${parts}; the controller acted ${quietFor !== undefined ? `${secs(quietFor)} ago` : 'recently'}` };
  } else if (updated < desired) {
    verdict = { state: 'converging', basis: 'observed', summary: `rolling update: ${updated}/${desired} daemon pods updated` };
  } else {
    verdict = { state: 'healthy', basis: 'observed', summary: `healthy: ${current}/${desired} nodes run a daemon pod, ${updated} updated, ${st.numberReady ?? 0} ready (observedGeneration current)${input.nodes ? '' : '; node placement not checked (Nodes unreadable)'}` };
  }
  if (input.ns?.status?.phase === 'Terminating') timeline.push({ at: now, basis: 'observed', from: 'namespace', coarse: false, text: 'namespace Terminating: creates are refused' });
  const facts = `desired ${desired}, current ${current}, misscheduled ${misscheduled}, updated ${updated}, ready ${st.numberReady ?? 0}, available ${st.numberAvailable ?? 0}; ` +
    `pods ${active.length} active, ${terminating.length} terminating, ${failed.length} failed; observedGeneration ${observed ?? '—'}/${generation ?? '—'}; ` +
    (placement ? `nodes ${input.nodes!.length}, ${placement.shouldRun} should run a daemon pod, ${placement.missing.length} of them without one` : 'nodes not readable (placement unknown)') +
    `; namespace ${input.ns ? (input.ns.status?.phase === 'Terminating' ? 'Terminating' : 'Active') : 'not readable'}`;
  const report = ownerSnapshotReport({
    kind: 'DaemonSet', meta: ds.metadata, at: now, verdict, findings, windows: [], events: input.events,
    counts: { desired, active: active.length, terminating: terminating.length, ready },
    initialReason: 'point-in-time snapshot: the DaemonSet controller\'s expectations are not visible through the API; a watch (kexp record ds/NAME, explain --watch) follows its syncs',
  });
  return { report, facts, timeline: timeline.sort((a, b) => a.at - b.at) };
}
