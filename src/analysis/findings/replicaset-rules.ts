/**
 * Finding rules of a replay about the ReplicaSet and the controller process that syncs it: surplus
 * pods at the end, the ReplicaSet recreated under its name, terminating pods, a ReplicaSet being
 * deleted, a selector the controller cannot convert (syncReplicaSet in
 * pkg/controller/replicaset/replica_set.go stops there), kube-controller-manager restarts and
 * writes that contradicted kexp's record, the controller's informer behind the input, and the
 * harmless "ReplicaSet has no controller" ERROR lines.
 *
 * Each rule reads a ReplayedTrack (report/replayed-track.ts). Pure: no I/O, no clock; each rule
 * is O(the part of the track it reads); terminating-pods O(pods the ReplicaSet controls).
 */
import { EXPECTATIONS_TIMEOUT_MS } from '../../model/expectations.js';
import { controllerRefOf, objectKey } from '../../model/objects.js';
import { PodStore } from '../../model/pod-store.js';
import { iso } from '../iso.js';
import type { DivergenceTrack, RestartTrack, RsTrack } from '../engine/rs-track.js';
import { refs } from '../report/evidence-refs.js';
import { ownerWords } from '../report/owner-words.js';
import type { ReplayedTrack } from '../report/replayed-track.js';
import { viewEpisodes, type ViewEpisode } from '../report/view-episodes.js';
import { describeWrites, fmtDuration, plural } from '../report/wording.js';
import type { FindingRule } from './finding-rule.js';
import { compileLabelSelector } from '../../model/selector.js';
import { terminatingOrphansSaid } from './snapshot-rules.js';

export const surplusPods: FindingRule<ReplayedTrack> = {
  name: 'surplus-pods',
  ids: ['surplus-pods'],
  reads: 'the active pods the owner controls at the end of input, against its desired count',
  fires: 'more active pods than desired at the end of input (the owner not deleted)',
  find({ t, end, final, resource }) {
    if (!(final && end !== undefined) || !(final.active > final.desired)) return undefined;
    return {
      id: 'surplus-pods',
      severity: 'warning',
      title: `${final.active - final.desired} more active pod(s) than desired at the end of the input`,
      basis: 'inferred',
      at: iso(end),
      explanation: resource === 'ds'
        // manage in pkg/controller/daemon/daemon_controller.go: podsShouldBeOnNode keeps the oldest daemon pod of a node and deletes the rest, and deletes the pods of nodes that should not run it.
        ? `${t.key} should run on ${final.desired} node(s) (status.desiredNumberScheduled) but ${final.active} active pods are controlled by it. At its next ungated sync the controller deletes all but the oldest daemon pod of each node and the daemon pods of nodes that should not run it.`
        : `${t.key} wants ${final.desired} replicas but ${final.active} active pods are controlled by it. The controller deletes the surplus at its next ungated sync.`,
      nextStep: 'If this persists, look for a gated window or a stale informer cache (pods created but not yet observed).',
      evidence: [],
    };
  },
};

export const rsRecreated: FindingRule<ReplayedTrack, RsTrack['uidChanges'][number]> = {
  name: 'rs-recreated',
  ids: ['rs-recreated'],
  reads: 'each change of the owner\'s UID under the same name',
  fires: 'the owner was deleted and created again with the same name',
  each: (c) => c.t.uidChanges,
  find(u, { t, resource }) {
    const o = ownerWords(resource);
    return {
      id: 'rs-recreated',
      severity: 'info',
      title: `${o.noun} recreated under the same name`,
      basis: 'observed',
      at: iso(u.at),
      explanation: `${t.key} changed UID from ${u.oldUid} to ${u.newUid}. ` +
        (u.inherited
          ? `The expectations store is keyed by namespace/name and this controller's release kept the old record at the deletion (before 1.17 deleteRS did not delete it, kubernetes#82572): the new ${o.noun} inherits it, still waiting for ${u.inherited.add} creation(s) and ${u.inherited.del} deletion(s) (Set at ${iso(u.inherited.setAt)}), and is gated until they are observed or it expires. `
          : 'The new one starts with none: no expectations record waits under its key. ') +
        `Pods still pointing at the old UID are not counted by the new ${o.noun}.`,
      nextStep: `Check for orphaned pods of the old ${o.noun} (the adoption table shows them).`,
      evidence: refs([u.source]),
    };
  },
};

export const terminatingOrphansAtEnd: FindingRule<ReplayedTrack> = {
  name: 'terminating-orphans',
  ids: ['terminating-orphans'],
  reads: 'the pods of the owner\'s namespace at the end of input: no controllerRef, matching its selector, being deleted',
  fires: 'such pods exist at the end of input (the owner not being deleted): never adopted, not counted',
  find({ t, res, end }) {
    const rs = t.rs;
    if (!(rs && end !== undefined) || t.deletedAt !== undefined || rs.metadata.deletionTimestamp) return undefined;
    const matches = compileLabelSelector(rs.spec?.selector);
    const names: string[] = [];
    const ns = rs.metadata.namespace;
    // Only orphans can fire it: the store's orphan bucket of the namespace (cache order) instead of all its pods.
    const candidates = res.pods instanceof PodStore ? res.pods.orphansIn(ns) : res.pods.values();
    for (const p of candidates) {
      if (p.metadata.namespace !== ns || controllerRefOf(p.metadata) || !p.metadata.deletionTimestamp) continue;
      if (p.status?.phase === 'Succeeded' || p.status?.phase === 'Failed' || !matches(p.metadata.labels)) continue;
      names.push(objectKey(p.metadata));
    }
    if (!names.length) return undefined;
    return {
      ...terminatingOrphansSaid(names), basis: 'observed', at: iso(end),
      nextStep: 'Nothing to do if these pods were orphaned on purpose; a leak finding above says whether a delete expectation waits for one of them.',
      evidence: [],
    };
  },
};

export const terminatingPods: FindingRule<ReplayedTrack> = {
  name: 'terminating-pods',
  ids: ['terminating-pods'],
  reads: 'the pods the owner controls at the end of input: their deletionTimestamp and phase',
  fires: 'pods still terminating at the end of input (a warning when past their grace period)',
  find({ t, res, end, resource }) {
    const rs = t.rs;
    if (!(rs && end !== undefined)) return undefined;
    const stuck: string[] = [];
    let terminating = 0;
    // The terminating pods themselves (a few), each with the grace its deletion gave it.
    const named: Array<{ pod: string; graceS?: number; until: string }> = [];
    // Same pods in the same (cache) order as a scan, from the controller index (pod-store.ts).
    const mine = res.pods instanceof PodStore ? res.pods.controlledBy(rs.metadata.namespace, rs.metadata.uid) : res.pods.values();
    for (const p of mine) {
      if (p.metadata.namespace !== rs.metadata.namespace || controllerRefOf(p.metadata)?.uid !== rs.metadata.uid) continue;
      if (!p.metadata.deletionTimestamp || p.status?.phase === 'Succeeded' || p.status?.phase === 'Failed') continue;
      terminating++;
      const grace = (p.metadata as { deletionGracePeriodSeconds?: unknown }).deletionGracePeriodSeconds ?? (p.spec as { terminationGracePeriodSeconds?: unknown } | undefined)?.terminationGracePeriodSeconds;
      if (named.length < 10) named.push({ pod: objectKey(p.metadata), ...(typeof grace === 'number' && Number.isFinite(grace) ? { graceS: grace } : {}), until: p.metadata.deletionTimestamp });
      const dl = Date.parse(p.metadata.deletionTimestamp);
      if (!Number.isNaN(dl) && dl < end) stuck.push(objectKey(p.metadata));
    }
    if (terminating === 0) return undefined;
    return {
      id: 'terminating-pods',
      severity: stuck.length > 0 ? 'warning' : 'info',
      title: `${plural(terminating, 'terminating pod')} at the end of the input${stuck.length ? `, ${stuck.length} past the grace period` : ''}`,
      basis: 'observed',
      at: iso(end),
      explanation:
        (resource === 'ds'
          // getNodesToDaemonPods(ctx, ds, false) keeps a terminating pod until it is terminal; podsShouldBeOnNode
          // (pkg/controller/daemon/daemon_controller.go) skips it among the running pods but creates for its node only with surge.
          ? `A terminating daemon pod still holds its node for the DaemonSet controller until it is terminal or gone: without maxSurge the replacement is created only then; with maxSurge one is created beside it. status.currentNumberScheduled still counts its node. `
          : resource === 'rc'
          // The ReplicationController manager runs without terminatingReplicas (ReplicationControllerStatus has no such field).
          ? `Terminating pods are not active: the controller does not count them (it replaces them, unless a scale-down removed them on purpose), so they run beside their replacements until they exit; a ReplicationController's status does not count them. `
          : `Terminating pods are not active: the controller does not count them (it replaces them, unless a scale-down removed them on purpose), so they run beside their replacements — or a new ReplicaSet's pods — until they exit; they show only in status.terminatingReplicas. `) +
        `Terminating: ${named.map((n) => `${n.pod} (${n.graceS !== undefined ? `grace period ${n.graceS} s, ` : ''}deadline ${n.until})`).join(', ')}${terminating > named.length ? `, and ${terminating - named.length} more` : ''}. ` +
        (stuck.length ? `Past their grace period: ${stuck.slice(0, 10).join(', ')} — a kubelet that is gone or a finalizer is holding them.` : ''),
      nextStep: stuck.length ? 'Check the nodes of those pods and their finalizers; force-delete only if the node is gone.' : 'Nothing to do unless they stay.',
      evidence: [],
    };
  },
};

export const rsBeingDeleted: FindingRule<ReplayedTrack> = {
  name: 'rs-being-deleted',
  ids: ['rs-being-deleted'],
  reads: 'the owner\'s deletionTimestamp and whether its deletion was observed',
  fires: 'the owner has a deletionTimestamp at the end of input and is not gone yet',
  find({ t, resource }) {
    const o = ownerWords(resource);
    if (!(t.deletingSince !== undefined && t.deletedAt === undefined)) return undefined;
    return {
      id: 'rs-being-deleted',
      severity: 'info',
      title: `${o.noun} is being deleted: the controller no longer creates or deletes pods for it`,
      basis: 'observed',
      at: iso(t.deletingSince),
      explanation: o.resource === 'ds'
        // syncDaemonSet returns before constructHistory when ds.DeletionTimestamp != nil.
        ? 'syncDaemonSet returns at once for a DaemonSet with a deletionTimestamp: it neither creates nor deletes pods and writes no status (its history may already be gone).'
        : `A ${o.noun} with a deletionTimestamp is still synced (status, claiming of owned pods) but ${o.manage} never runs.`,
      nextStep: `Check the ${o.noun}'s finalizers and the garbage collector if deletion does not finish.`,
      evidence: [],
    };
  },
};

export const invalidSelector: FindingRule<ReplayedTrack> = {
  name: 'invalid-selector',
  ids: ['invalid-selector'],
  reads: 'the syncs that stopped at converting the owner\'s selector, and their error',
  fires: 'the controller could not sync the owner at all (its selector does not convert)',
  find({ t, resource }) {
    const o = ownerWords(resource);
    if (!((t.syncsByOutcome['selector-error'] ?? 0) > 0)) return undefined;
    return {
      id: 'invalid-selector',
      severity: 'critical',
      title: `The controller cannot sync this ${o.noun}: its selector does not convert`,
      basis: 'inferred',
      explanation: `${o.sync} fails with "${t.syncErrors.find((e) => /selector/.test(e.error))?.error ?? 'error converting pod selector'}" (logged through HandleError, no requeue): it never claims, creates or deletes pods and never updates status (${plural(t.syncsByOutcome['selector-error']!, 'sync')}).`,
      nextStep: `Fix spec.selector (the API server normally rejects such selectors; this ${o.noun} was written around validation or the input is damaged).`,
      evidence: [],
    };
  },
};

export const recordContradicted: FindingRule<ReplayedTrack, DivergenceTrack> = {
  name: 'record-contradicted',
  ids: ['record-contradicted', 'controller-restarted'],
  reads: 'each place where the controller wrote while kexp\'s replayed record still gated it, and a credential change at that time',
  fires: 'the controller wrote through kexp\'s gate (a restart when its credential changed: it started with no expectations)',
  each: (c) => c.t.divergences,
  find(d, { t, resource }) {
    const rec = d.record;
    const what = describeWrites(d.writes);
    const recText = rec ? `add=${rec.add}, del=${rec.del}, set at ${iso(rec.timestamp)}` : 'a record';
    const restart = d.kind === 'after-restart';
    return {
      id: restart ? 'controller-restarted' : 'record-contradicted',
      severity: 'warning',
      title: restart
        ? 'kube-controller-manager restarted: the controller wrote while kexp\'s record still gated it'
        : 'The controller wrote while kexp\'s record said it was gated',
      basis: 'inferred',
      at: iso(d.at),
      explanation:
        `At ${iso(d.at)} the ${ownerWords(resource).controller} ${what} for ${t.key}, although kexp's replayed record (${recText}) still gated it — ` +
        `so SatisfiedExpectations passed in the real controller: its record was gone. ` +
        (restart
          ? `Its service-account credential changed at ${iso(d.credentialChange!.at)} (a restarted kube-controller-manager requests a new token) and expectations live only in memory, so the new process started with none; writes in flight before the restart are never awaited again. `
          : `Either kube-controller-manager restarted or lost leadership (expectations live in memory; this input does not show it), or the controller observed something kexp's input lacks. `) +
        `kexp dropped its record${restart ? 's' : ''} at that point (window ended "reset") and followed the controller from its writes.`,
      nextStep: restart
        ? 'Check kube-controller-manager restarts and leader election at that time (`kubectl -n kube-system get lease kube-controller-manager -o yaml`, the pod\'s restartCount and previous log).'
        : 'Give kexp the kube-controller-manager log of that time (`kexp kcm-log`; "Starting controller" marks a restart) or an audit log whose user.extra carries credential ids, to tell a restart from a missed observation.',
      evidence: refs([...d.writes.flatMap((w) => w.sources), d.credentialChange?.source]),
    };
  },
};

export const controllerRestarted: FindingRule<ReplayedTrack, RestartTrack> = {
  name: 'controller-restarted',
  ids: ['controller-restarted'],
  reads: 'each kube-controller-manager restart the input shows (a new credential after a pause in the controller\'s writes, or its log\'s start-up line) that dropped a record of this owner or cut its round',
  fires: 'for each such restart',
  // (a restart on the track only because its syncs waited for a new leader is no-leader's)
  each: (c) => c.t.restarts.filter((r) => r.interrupted !== undefined || r.dropped.some((d) => d.key === c.t.key)),
  find(r, { t, resource }) {
    const o = ownerWords(resource);
    const d = r.dropped.find((x) => x.key === t.key);
    const cut = r.interrupted;
    return {
      id: 'controller-restarted',
      severity: 'warning',
      title: cut
        ? `kube-controller-manager restarted in the middle of a ${cut.kind} round (${cut.made} of ${cut.n} calls made)`
        : `kube-controller-manager restarted and dropped this ${o.noun}'s pending expectations`,
      basis: 'inferred',
      at: iso(r.at),
      explanation:
        (r.via === 'log'
          ? `At ${iso(r.at)} kube-controller-manager logged the start of its ${o.controller}: a new process (a restart or a leader change). `
          : `At ${iso(r.at)} the ${o.controller} wrote with a new service-account credential after ${fmtDuration(r.pauseMs)} without any write: a new kube-controller-manager process ` +
            `(a restart or a leader change). `) +
        (cut ? `Its round at ${iso(cut.at)} stopped after ${cut.made} of ${cut.n} ${cut.kind} calls; nothing was written for this ${o.noun} until the new process, started with no expectations, listed the pods afresh and made the rest. `
          : `Expectations live only in memory, so the record ${d ? `(add=${d.add}, del=${d.del}, set at ${iso(d.setAt)})` : ''} was dropped: the new process ` +
            `lists the pods afresh and no longer waits for the writes in flight before the restart (window ended "reset").`),
      nextStep: 'Check why kube-controller-manager restarted (`kubectl -n kube-system get lease kube-controller-manager -o yaml`, the pod\'s restartCount and previous log).',
      evidence: refs([r.source]),
    };
  },
};

/**
 * Nobody led: the stretch before a restart in which no kube-controller-manager held its Lease
 * (engine/leadership.ts). No sync ran there; the syncs due then ran at the new leader's start.
 */
export const noLeader: FindingRule<ReplayedTrack, RestartTrack> = {
  name: 'no-leader',
  ids: ['no-leader'],
  reads: 'each kube-controller-manager restart whose log shows a stretch with no leader (its leader-election lines) before it, and the syncs of this owner that came due there',
  fires: 'for each restart with a stretch with no leader that dropped a record of this owner, cut its round or held one of its syncs',
  each: (c) => c.t.restarts.filter((r) => r.noLeader !== undefined),
  find(r, { t, resource }) {
    const o = ownerWords(resource);
    const g = r.noLeader!;
    const idle = g.idleSyncs[t.key] ?? 0;
    const led = g.acquiredAt !== undefined ? `until the new process acquired the Lease at ${iso(g.acquiredAt)}` : 'until the end of the log';
    const span = g.acquiredAt !== undefined ? fmtDuration(g.acquiredAt - g.from) : 'an unknown time';
    const why = {
      'lease-lost': `At ${iso(g.from)} kube-controller-manager logged that it lost its Lease (it could not renew it in time, e.g. its client to the apiserver stalled) and stopped leading; `,
      'new-process': `At ${iso(g.from)} a new kube-controller-manager process logged "Attempting to acquire leader lease": the previous leader had stopped (when exactly is not in the log; in 1.37 a graceful stop does not release the Lease, so the new process waits for it to expire); `,
      'lease-expired': `The Lease's holder stopped renewing it (a stop or crash of its process, or a client that could not reach the apiserver) and the Lease ran out at ${iso(g.from)} (its last renewTime + leaseDurationSeconds; in 1.37 a graceful stop does not release it); `,
      'lease-released': `At ${iso(g.from)} the Lease's holder released it (holderIdentity emptied); `,
    }[g.cause];
    return {
      id: 'no-leader',
      severity: 'info',
      title: `no kube-controller-manager led for ${span}: no sync ran${idle ? ` (${plural(idle, 'sync')} of this ${o.noun} came due then; the new leader synced it at its start)` : ''}`,
      basis: g.basis,
      at: iso(g.from),
      explanation:
        why +
        `nobody led ${led}, and the ${o.controller} started again at ${iso(g.resumeAt)}. ` +
        (g.idleFrom !== undefined ? `The old holder renewed its Lease at a steady interval and missed its next renewal at ${iso(g.idleFrom)}: it had stopped syncing there (inferred), and kexp runs no sync from then. ` : '') +
        `No sync, gated or not, ran in between; the new process started with no expectations and synced every ${o.noun} afresh.`,
      nextStep: {
        'lease-lost': 'Check the kube-controller-manager\'s connection to the apiserver at that time (its "Failed to renew lease" line, the apiserver\'s latency) and --leader-elect-renew-deadline.',
        'lease-expired': 'Check why the holder stopped renewing (its pod\'s restartCount and previous log, its connection to the apiserver); the gap lasts --leader-elect-lease-duration after its last renewal.',
        'new-process': 'Check why kube-controller-manager stopped (the pod\'s restartCount and previous log); the gap lasts --leader-elect-lease-duration after its last renewal.',
        'lease-released': 'Check why kube-controller-manager stopped (the pod\'s restartCount and previous log).',
      }[g.cause],
      evidence: refs(g.evidence),
    };
  },
};

export const informerBehind: FindingRule<ReplayedTrack, ViewEpisode> = {
  name: 'informer-behind',
  ids: ['informer-behind'],
  reads: 'the controller\'s status writes that counted fewer pods than the input showed, in episodes (report/view-episodes.ts)',
  fires: 'for each episode (a warning when it lasted past the timeout or never caught up)',
  each: (c) => viewEpisodes(c.t),
  find(ep, { t, resource }) {
    const o = ownerWords(resource);
    const name = t.key;
    const first = ep.writes[0]!;
    const worst = ep.writes.reduce((a, b) => (b.at - b.since > a.at - a.since ? b : a));
    const missing = [...new Set(ep.writes.flatMap((w) => w.missing.map((m) => m.pod)))];
    const lagS = Math.round((worst.at - worst.since) / 1000);
    const long = worst.at - worst.since >= EXPECTATIONS_TIMEOUT_MS;
    // A later write named the pods kexp first took as missing (view-alignment.ts swapNamed): the
    // ADDs of the missing ones were lost, not late; their next event delivered them (processDeltas).
    const corrected = ep.writes.find((w) => w.corrected)?.corrected;
    const lost = corrected ? t.lostAddsDelivered.filter((d) => missing.includes(d.pod) && d.at >= ep.from) : [];
    const which = !corrected
      ? `the newest: ${first.missing.map((m) => m.pod).join(', ')}`
      : corrected.lost
        ? `not the newest: ${first.missing.map((m) => m.pod).join(', ')} — its status write at ${iso(corrected.at)} shows it listed ${corrected.named.join(', ')}, created after; an informer delivers in order, so ${first.missing.length === 1 ? 'that ADD' : 'those ADDs'} never reached it: a lost watch event, not a lag`
        : `${first.missing.map((m) => m.pod).join(', ')} — its status write at ${iso(corrected.at)} shows it listed ${corrected.named.join(', ')}`;
    return {
      id: 'informer-behind',
      severity: long || ep.until === undefined ? 'warning' : 'info',
      title: `The controller's informer was behind the input: its status write at ${iso(first.at)} counted ${first.statusReplicas} active pod(s) where the input showed ${first.expected}`,
      basis: 'observed',
      at: iso(first.at),
      explanation:
        `${o.sync} writes ${o.statusCount.field} = ${o.statusCount.counts} when the sync started; ${plural(first.expected, 'pod')} of ${name} existed before the controller's previous status write, ` +
        `yet it counted ${first.statusReplicas}: its cache lacked ${plural(first.expected - first.statusReplicas, 'pod')} (${which}), ` +
        `at least ${lagS} s after the input showed ${worst.missing.length === 1 ? 'it' : 'them'}${ep.writes.length > 1 ? ` (${ep.writes.length} status writes show it)` : ''}. ` +
        (ep.until !== undefined
          ? `Its status write at ${iso(ep.until)} counted every pod again: the informer had caught up. `
          : lost.length
            ? `The next watch event of ${lost.map((d) => `${d.pod} (${iso(d.at)})`).join(', ')} reached the informer as an add — client-go's processDeltas adds an updated object its store does not hold — and the controller's handlers lowered the record then; no status write after it counts ${lost.length === 1 ? 'it' : 'them'}. `
            : `No later status write counts ${missing.length === 1 ? 'it' : 'them'}: to the end of the input the controller's view lacks ${missing.length === 1 ? 'this pod' : 'these pods'} — a lagging informer, or a watch event it never received (a dropped event, a relist that hid it). `) +
        (t.viewUnknown.some((u) => u.from < (ep.until ?? Infinity) && (u.until === undefined || u.until > ep.from))
          ? `kexp delivers every event to its model when the input saw it, so between ${iso(ep.from)} and ${ep.until !== undefined ? iso(ep.until) : 'the end of the input'} its gate decisions for ${name} are unknown: the controller decided on a cache the input does not show`
          : `An informer delivers in order and never takes back a pod that still exists, so the controller's cache lacked ${missing.length === 1 ? 'it' : 'them'} from ${missing.length === 1 ? 'its' : 'their'} ADD on: kexp holds ${missing.length === 1 ? 'it' : 'them'} out of its model from then (the record that waited for ${missing.length === 1 ? 'it' : 'them'} kept waiting), so its gate decisions for ${name} there follow the controller's view (inferred)`) +
        (long ? `; a record waiting for these pods expires after 5 minutes, and the next sync then counts without them (kubernetes#129795)` : '') + '.',
      nextStep: `Check kube-controller-manager's watch connections and the apiserver's load around ${iso(ep.from)}; with its -v=4 log (\`--kcm-log\`) kexp measures the lag of each pod exactly.`,
      evidence: refs([...ep.writes.map((w) => w.source), ...ep.writes.flatMap((w) => w.missing.map((m) => m.source)), ep.untilSource, corrected?.source, ...lost.map((d) => d.source)]),
    };
  },
};

export const standaloneRsErrorLine: FindingRule<ReplayedTrack> = {
  name: 'standalone-rs-error-line',
  ids: ['standalone-rs-error-line'],
  reads: 'the scale-down syncs of a ReplicaSet (or ReplicationController) without an owner',
  fires: 'kube-controller-manager logs "ReplicaSet has no controller" at ERROR for them (kubernetes#102442; the ReplicationController manager runs the same code); never for a DaemonSet, whose controller has no such line',
  find({ t, resource }) {
    // getReplicaSetsWithSameController (pkg/controller/replicaset/replica_set.go) logs it; syncDaemonSet has no counterpart.
    if (!(t.noControllerNoise > 0) || !(resource === 'rs' || resource === 'rc')) return undefined;
    return {
      id: 'standalone-rs-error-line',
      severity: 'info',
      title: 'Expected noise: "ReplicaSet has no controller" ERROR lines on scale-down',
      basis: 'inferred',
      explanation: `${t.key} has no owner, so kube-controller-manager logs "ReplicaSet has no controller" at ERROR on each of its ${plural(t.noControllerNoise, 'scale-down sync')}. It is harmless (kubernetes#102442).`,
      nextStep: 'None.',
      evidence: [],
    };
  },
};

/**
 * Status writes counting more active pods than the input had (engine/held-deletions.ts): the
 * controller's informer had not delivered the departure (deletion) of pods the input saw leave.
 */
export const heldDeletion: FindingRule<ReplayedTrack> = {
  name: 'held-deletion',
  ids: ['held-deletion'],
  reads: 'the controller\'s status writes that counted more active pods than the input had, and when kexp delivered the departures it held',
  fires: 'once per owner with such a write (a warning when the record it kept unfulfilled expired, or at the end still held)',
  find({ t, resource }) {
    const o = ownerWords(resource);
    // The 404s that pinned a ghost (held-deletions.ts pinGhost) are said apart from the status writes.
    const pins = t.heldDeletions.filter((h) => h.notFound);
    const byStatus = t.heldDeletions.filter((h) => !h.notFound);
    const pinned = pins.length
      ? ' ' + pins.map((h) => `The controller's DELETE of ${h.pods[0]!.pod} at ${iso(h.at)} was answered 404: its cache still held that pod, gone in the input since ${iso(h.pods[0]!.departedAt)}${h.notFound!.replaced ? ` (kexp had held ${h.notFound!.replaced} in its place)` : ''}; kexp holds it from then on.`).join(' ')
      : '';
    const first = byStatus[0] ?? pins[0];
    if (!first) return undefined;
    if (!byStatus.length) {
      const release = t.heldReleased.find((r) => r.at >= first.at);
      return {
        id: 'held-deletion',
        severity: release ? 'info' : 'warning',
        title: `The controller's DELETE of ${first.pods[0]!.pod} at ${iso(first.at)} was answered 404: it had not observed the deletion of that pod`,
        basis: 'inferred',
        at: iso(first.at),
        explanation:
          `${o.resource === 'ds' ? 'syncDaemonSet chooses the pods it deletes from its informer cache (podsShouldBeOnNode, the rolling update)' : `${o.manage} chooses the pods it deletes from its informer cache (getPodsToDelete)`}; a DELETE answered 404 of a pod the input saw deleted earlier shows the cache still held it, its deletion not yet delivered to the controller.${pinned} ` +
          (release ? `Kexp delivered the deletion at ${iso(release.at)} (${release.via}).` : 'Nothing later shows the controller\'s cache without it.'),
        nextStep: `Check kube-controller-manager's pod watch around ${iso(first.pods[0]!.departedAt)} (reflector "watch closed" / relist lines, the apiserver's load); a restart of kube-controller-manager, or its next relist, clears the stale pod.`,
        evidence: refs([...pins.slice(0, 5).map((h) => h.source), ...first.pods.map((p) => p.source), release?.source]),
      };
    }
    const last = byStatus[byStatus.length - 1]!;
    const named = [...new Set(byStatus.flatMap((h) => h.pods.map((p) => p.pod)))];
    const among = first.among;
    const release = t.heldReleased.find((r) => r.at >= first.at);
    const held = first.statusReplicas - first.existed;
    const lostAt = Math.min(...first.pods.map((p) => p.departedAt));
    const win = t.windows.find((w) => w.start <= first.at && (w.end === undefined || w.end >= first.at)) ?? (t.open && t.open.start <= first.at ? t.open : undefined);
    const expired = win?.endedBy === 'expired';
    const who = among
      ? `${plural(held, 'pod')} among ${among.join(', ')} (the input does not tell which; kexp held the newest departure${held === 1 ? '' : 's'}: ${first.pods.map((p) => p.pod).join(', ')})`
      : `${first.pods.map((p) => p.pod).join(', ')}${first.unnamed > 0 ? ` and ${plural(first.unnamed, 'more pod')} the input does not name` : ''}`;
    return {
      id: 'held-deletion',
      severity: expired || !release ? 'warning' : 'info',
      title: (first.trigger && first.at < first.trigger.at
        ? `The controller's status (written at ${iso(first.at)}) still counted ${first.statusReplicas} ${o.unit} after ${first.trigger.what} at ${iso(first.trigger.at)} while ${first.existed} existed`
        : `The controller's status write at ${iso(first.at)} counted ${first.statusReplicas} ${o.unit} while ${first.existed} existed`) +
        `: it had not observed the deletion of ${among ? plural(held, 'pod') : named.join(', ')}`,
      basis: 'inferred',
      at: iso(first.at),
      explanation:
        (first.trigger
          ? `Every sync of ${o.sync}, gated or not, ends with ${o.statusUpdate}, which writes ${o.statusCount.field} = ${o.statusCount.counts}${o.resource === 'rs' || o.resource === 'rc' ? ' (calculateStatus)' : ''} whenever that count changes; ` +
            `${first.trigger.what} at ${iso(first.trigger.at)} enqueued ${t.key}, yet the status still counted ${plural(held, 'more pod')} than the input had afterwards: the controller's cache still held ${who}, gone in the input since ${iso(lostAt)}. `
          : `${o.sync} writes ${o.statusCount.field} = ${o.statusCount.counts}${o.resource === 'rs' || o.resource === 'rc' ? ' (calculateStatus)' : ''}; pods that left ${t.key} before its previous status write were not in an up-to-date list, ` +
            `yet this write counted ${plural(held, 'more pod')} than the input had: the controller's cache still held ${who}, gone in the input since ${iso(lostAt)}. `) +
        `Until it observes ${held === 1 ? 'that deletion' : 'those deletions'} its delete expectation stays unlowered and its syncs are gated (deletePod's DeletionObserved never ran); kexp held ${held === 1 ? 'it' : 'them'} in its model likewise` +
        (byStatus.length > 1 ? `; ${byStatus.length} status writes up to ${iso(last.at)} show it` : '') + '.' + pinned + ' ' +
        (release
          ? `Kexp delivered the deletion at ${iso(release.at)} (${release.via}). `
          : 'No later status write counts right: to the end of the input the controller\'s cache holds the pod — a lagging informer, or a deletion event it never received. ') +
        (expired ? `The record only ended by the 5-minute expiry (${iso(win!.end!)}): a leak that only the timeout freed; a later DELETE of the pod is answered 404 (its cache still holds it).` : ''),
      nextStep: `Check kube-controller-manager's pod watch around ${iso(lostAt)} (reflector "watch closed" / relist lines, the apiserver's load); a restart of kube-controller-manager, or its next relist, clears the stale pod.`,
      evidence: refs([...byStatus.slice(0, 5).map((h) => h.source), first.trigger?.source, ...first.pods.map((p) => p.source), ...pins.slice(0, 5).map((h) => h.source), release?.source]),
    };
  },
};
