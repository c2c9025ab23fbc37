/**
 * Finding rules of a point-in-time snapshot of one ReplicaSet (a snapshot file, or `kexp
 * explain`'s live read): what the API state forces — a ReplicaSet or namespace being deleted,
 * writes failing now or earlier, a quota used up, a spec the controller has not synced, nothing
 * moving while pods are missing (gated, or a leaked expectation past the 5-minute timeout),
 * terminating pods, orphans it would adopt and pods it ignores — and what only a live read
 * shows: the owner gone, kube-controller-manager's leader Lease, resources kexp may not read.
 *
 * Each rule reads a SnapshotState (report/snapshot-state.ts); the live-only facts (owner,
 * kcmLease, unavailable) are absent from a snapshot file, so those rules never fire there.
 * Pure: no I/O, no clock (`now` is the snapshot time); each rule is O(what it reads).
 */
import { EXPECTATIONS_TIMEOUT_MS } from '../../model/expectations.js';
import { controllerRefOf, parseTime } from '../../model/objects.js';
import type { LiveSnapshot } from '../../sources/live/snapshot.js';
import { iso } from '../iso.js';
import { stallIsLeak, type SnapshotState } from '../report/snapshot-state.js';
import { fmtAgo, plural } from '../report/wording.js';
import type { FindingRule } from './finding-rule.js';
import type { Finding } from '../report-types.js';
import type { OwnerWords } from '../report/owner-words.js';

/** The owner as `kexp explain` takes it: NAME for a ReplicaSet (its default), RESOURCE/NAME for another kind. */
function explainTarget(o: OwnerWords, name: string): string {
  return o.resource === 'rs' ? name : `${o.resource}/${name}`;
}

export const rsBeingDeleted: FindingRule<SnapshotState> = {
  name: 'rs-being-deleted',
  ids: ['rs-being-deleted'],
  reads: 'the ReplicaSet\'s deletionTimestamp and finalizers',
  fires: 'the ReplicaSet is being deleted',
  find({ rs, key, name, refs, deletingSince, words: o }) {
    if (deletingSince === undefined) return undefined;
    return {
      id: 'rs-being-deleted', severity: 'warning', basis: 'observed', at: iso(deletingSince),
      title: `${o.noun} is being deleted: the controller no longer creates or deletes pods for it`,
      explanation: `${key} has had a deletionTimestamp since ${iso(deletingSince)}${(rs.metadata.finalizers ?? []).length ? ` and is held by the finalizers ${rs.metadata.finalizers!.join(', ')}` : ''}. A ${o.noun} being deleted is still synced (status, keeping owned pods) but ${o.manage} never runs, and CanAdopt refuses every adoption.`,
      nextStep: (rs.metadata.finalizers ?? []).length
        ? `If the deletion is stuck, find the controller responsible for the finalizers (${rs.metadata.finalizers!.join(', ')}); remove a finalizer by hand only if that controller is gone.`
        : 'Nothing to do if the deletion is intended; the garbage collector removes the pods (foreground/background) or orphans them.',
      evidence: [refs.rs(name, 'metadata.deletionTimestamp')],
    };
  },
};

export const namespaceTerminating: FindingRule<SnapshotState> = {
  name: 'expectation-leak-namespace-terminating-open',
  ids: ['expectation-leak-namespace-terminating-open', 'namespace-terminating'],
  reads: 'the namespace\'s phase, deletionTimestamp and conditions; the ReplicaSet\'s missing pods',
  fires: 'the namespace is terminating (the ReplicaSet not being deleted): a leak when pods are missing, since every create is rejected with NamespaceTerminating and counted as a success',
  find({ ns, nsName, nsDeletion, nsTerminating, deletingSince, diff, now, key, desired, active, name, refs, words: o }) {
    if (!(nsTerminating && deletingSince === undefined)) return undefined;
    const nsConds = (ns?.status as { conditions?: unknown } | undefined)?.conditions;
    const conds = (Array.isArray(nsConds) ? (nsConds as Array<{ type: string; status: string; message?: string } | null>) : []).filter((c): c is { type: string; status: string; message?: string } => typeof c === 'object' && c !== null && c.status === 'True');
    const why = conds.length ? ` Namespace conditions: ${conds.map((c) => `${c.type}${c.message ? ` (${c.message})` : ''}`).join('; ')}.` : '';
    if (diff < 0) {
      return {
        id: 'expectation-leak-namespace-terminating-open', severity: 'critical', basis: 'inferred', at: iso(nsDeletion ?? now),
        title: `Namespace ${nsName} is terminating: ${plural(-diff, 'create')} will be rejected and leak the controller's expectations`,
        explanation:
          `${key} wants ${desired} replicas and has ${active} active. Every create in a terminating namespace is rejected with cause NamespaceTerminating, ` +
          `and the ${o.controller} counts that rejection as a success (no FailedCreate Event, no walk-back). So after each attempt it waits for ${plural(-diff, 'pod')} ` +
          `that will never be observed: gated until the record expires 5 minutes later, then the next sync tries again and leaks again.${why}`,
        nextStep: conds.length
          ? `Finish or cancel the namespace deletion: it is waiting on ${conds.map((c) => c.type).join(', ')}. Look at the remaining content and finalizers (\`kubectl get ns ${nsName} -o yaml\`, \`kubectl api-resources --verbs=list --namespaced -o name | xargs -n1 kubectl get -n ${nsName} --ignore-not-found\`).`
          : `Finish or cancel the namespace deletion; check its finalizers and the namespace controller (\`kubectl get ns ${nsName} -o yaml\`).`,
        evidence: [refs.ns(nsName, 'status.phase'), refs.rs(name, 'spec.replicas')],
      };
    }
    return {
      id: 'namespace-terminating', severity: 'warning', basis: 'observed', at: iso(nsDeletion ?? now),
      title: `Namespace ${nsName} is terminating: pods that go away will not be replaced`,
      explanation: `Every create in a terminating namespace is rejected with NamespaceTerminating; the controller counts those as successes and would stay gated until the 5-minute timeout.${why}`,
      nextStep: `Nothing to do if the namespace is being deleted on purpose; if it is stuck, look at \`kubectl get ns ${nsName} -o yaml\` (conditions, finalizers).`,
      evidence: [refs.ns(nsName, 'status.phase')],
    };
  },
};

export const writeFailures: FindingRule<SnapshotState> = {
  name: 'failing-creates',
  ids: ['failing-creates', 'delete-failures', 'past-write-failures'],
  reads: 'the ReplicaFailure condition, the newest FailedCreate/FailedDelete Event, the last progress and the quotas',
  fires: 'writes failing now (pods missing or surplus, the failure newer than the last progress); else earlier failures that no longer block',
  find({ failing, lastFailure, quotaFull, key, active, desired, nsName, name, now, refs }) {
    if (failing) {
      const quota = /exceeded quota/i.test(failing.message) || quotaFull.some((q) => /pods/.test(q.resource));
      return {
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
      };
    }
    if (!lastFailure) return undefined;
    return {
      id: 'past-write-failures', severity: 'info', basis: 'observed', at: iso(lastFailure.at),
      title: `Earlier ${lastFailure.reason} Events (last ${fmtAgo(now - lastFailure.at)} ago) no longer block progress`,
      explanation: `Last ${lastFailure.reason}${lastFailure.count > 1 ? ` (×${lastFailure.count})` : ''}: ${lastFailure.message}. Pods were created or deleted since, or the replica count is reached.`,
      nextStep: 'None, unless it recurs.',
      evidence: [refs.event(lastFailure.ev)],
    };
  },
};

export const quotaExhausted: FindingRule<SnapshotState> = {
  name: 'quota-exhausted',
  ids: ['quota-exhausted'],
  reads: 'the namespace\'s ResourceQuotas (used against hard)',
  fires: 'a quota is used up while pods are missing and no failure is reported yet',
  find({ quotaFull, diff, failing, now, nsName, refs }) {
    if (!(quotaFull.length && diff < 0 && !failing)) return undefined;
    return {
      id: 'quota-exhausted', severity: 'warning', basis: 'observed', at: iso(now),
      title: `ResourceQuota used up: ${quotaFull.map((q) => `${q.name} ${q.resource} ${q.used}/${q.hard}`).join(', ')}`,
      explanation: 'The next create the controller tries will be rejected with 403 "exceeded quota" (terminating pods still count in used).',
      nextStep: `Raise the quota or free it (\`kubectl describe resourcequota -n ${nsName}\`).`,
      evidence: quotaFull.map((q) => refs.quota(q.name)),
    };
  },
};

export const statusStale: FindingRule<SnapshotState> = {
  name: 'status-stale',
  ids: ['status-stale'],
  reads: 'the ReplicaSet\'s generation and status.observedGeneration',
  fires: 'observedGeneration lags generation (the ReplicaSet not being deleted): the controller has not synced the latest spec',
  find({ statusStale, deletingSince, lastSpecChange, now, observedGeneration, generation, name, refs, words: o }) {
    if (!(statusStale && deletingSince === undefined)) return undefined;
    return {
      id: 'status-stale', severity: 'warning', basis: 'observed', at: iso(lastSpecChange ?? now),
      title: `The controller has not processed the latest spec (observedGeneration ${observedGeneration ?? 0} < generation ${generation})`,
      explanation: `The ${o.controller} writes status (including observedGeneration) on every sync, gated or not. A lagging observedGeneration means it has not synced this ${o.noun} since the spec changed: kube-controller-manager is down, not the leader, starved, or the workqueue is backed up.`,
      nextStep: 'Check kube-controller-manager: is it running and leading (`kubectl get lease -n kube-system kube-controller-manager`), and what does its log say?',
      evidence: [refs.rs(name, 'status.observedGeneration')],
    };
  },
};

/**
 * How long after the last pod change a snapshot's status may still lag it: the change enqueues the
 * ReplicaSet at once and the sync ends with its status write (engine/view-alignment.ts LATE_STATUS_MS).
 */
const STATUS_SETTLE_MS = 2000;

/**
 * A status counting more active pods than exist, written by a sync of the current spec: every sync
 * ends with updateReplicaSetStatus, status.replicas = the active pods listed from the controller's
 * informer cache (calculateStatus, pkg/controller/replicaset/replica_set_utils.go), so that cache
 * still holds a pod that is gone (engine/held-deletions.ts in a replay). Its record keeps waiting
 * for that deletion: the controller is gated until the informer delivers it or the 5-minute expiry.
 */
export const heldDeletionSnapshot: FindingRule<SnapshotState> = {
  name: 'held-deletion',
  ids: ['held-deletion'],
  reads: 'status.replicas and status.observedGeneration against the active pods of the snapshot',
  fires: `status.replicas above the active pods that exist, observedGeneration current, the pods known and no pod change in the last ${STATUS_SETTLE_MS / 1000} s`,
  find(s) {
    const { rs, active, podsKnown, statusStale, deletingSince, now, lastProgress, key, name, nsName, refs, owned, words: o } = s;
    const replicas = rs.status?.replicas;
    if (!podsKnown || statusStale || deletingSince !== undefined || typeof replicas !== 'number' || replicas <= active) return undefined;
    if (lastProgress !== undefined && now - lastProgress <= STATUS_SETTLE_MS) return undefined;
    const more = replicas - active;
    return {
      id: 'held-deletion', severity: 'warning', basis: 'inferred', at: iso(now),
      title: `status.replicas ${replicas} counts ${plural(more, 'more pod')} than the ${active} active that exist, with observedGeneration current: the controller's cache still holds ${more === 1 ? 'a deleted pod' : 'deleted pods'}`,
      explanation:
        `Every sync of ${key} ends with ${o.statusUpdate}, whose status.replicas is the active pods the controller listed from its informer cache (calculateStatus), and observedGeneration ${s.observedGeneration} says that sync saw the current spec. ` +
        `It counted ${replicas} while ${active} exist: its pod informer had not delivered ${more === 1 ? 'a deletion' : `${more} deletions`} (a lagging watch, or a deletion event it never received). ` +
        'If the controller deleted that pod itself, its delete expectation is never lowered and every sync is gated until the informer catches up or the record expires (5 minutes after it was set); its DELETE of the pod after the expiry is answered 404. The snapshot cannot tell which pod, nor when the record was set.',
      nextStep: `Watch it: \`kexp explain ${explainTarget(o, name)} -n ${nsName} --watch 1m\` (a status write counting ${active} ends it); check kube-controller-manager's pod watch (reflector "watch closed" / relist lines). A restart of kube-controller-manager or its next relist clears the stale pod.`,
      evidence: [refs.rs(name, 'status.replicas'), refs.rs(name, 'status.observedGeneration'), ...owned.slice(-3).map(refs.pod)],
    };
  },
};

export const noProgress: FindingRule<SnapshotState> = {
  name: 'expectation-leak-suspected',
  ids: ['expectation-leak-suspected', 'gated-no-progress'],
  reads: 'the last sign of progress (pods created, deletions requested, Successful* Events) and the last spec change',
  fires: `pods missing or surplus, the spec synced, nothing failed and nothing moved for 30 s: gated; a leak once that lasted past the 5-minute timeout`,
  find(s) {
    if (!s.stalled) return undefined;
    const { sinceMove, lastProgress, lastSpecChange, diff, key, desired, active, observedGeneration, name, nsName, refs, owned, words: o } = s;
    const leak = stallIsLeak(s);
    const since = Math.max(lastProgress ?? 0, lastSpecChange ?? 0);
    return {
      id: leak ? 'expectation-leak-suspected' : 'gated-no-progress', severity: leak ? 'critical' : 'warning', basis: 'inferred', at: iso(since),
      title: leak
        ? `Nothing has moved for ${fmtAgo(sinceMove)} although ${plural(Math.abs(diff), 'pod')} ${diff < 0 ? 'are missing' : 'are surplus'}: a leaked expectation waiting for a sync trigger`
        : `Nothing has moved for ${fmtAgo(sinceMove)} although ${plural(Math.abs(diff), 'pod')} ${diff < 0 ? 'are missing' : 'are surplus'}: the controller is probably gated on writes it will not observe`,
      explanation:
        `${key} wants ${desired} and has ${active} active pods; the controller has synced the latest spec (observedGeneration ${observedGeneration}) and no create or delete failed, ` +
        `yet no pod was created or deleted since ${iso(since)}. An ungated controller acts within milliseconds, so it is most likely refusing to sync because its expectations are not satisfied ` +
        `(a watch gap in kube-controller-manager, pods orphaned before their deletion was seen, writes lost). ` +
        (leak
          ? `The record expires 5 minutes after it was set, but expiry is passive: the controller recovers only at the first sync after that, which needs a trigger (${o.triggers}, or the informer resync every 12–24 h).`
          : `The record expires at most 5 minutes after it was set (by ${iso(since + EXPECTATIONS_TIMEOUT_MS)} at the latest); the controller recovers at the first sync after that.`) +
        ' Another explanation with the same symptoms: kube-controller-manager stopped after writing the status.',
      nextStep: leak
        ? `Trigger a sync: \`kubectl annotate ${o.resource} ${name} -n ${nsName} kexp.io/poke="$(date +%s)" --overwrite\`. Then find the cause in the kube-controller-manager log ("Controller expectations expired", watch errors).`
        : `Watch it: \`kexp explain ${explainTarget(o, name)} -n ${nsName} --watch 1m\`; if nothing moves by ${iso(since + EXPECTATIONS_TIMEOUT_MS)}, trigger a sync (any change to the ${o.noun}, e.g. an annotation).`,
      evidence: [refs.rs(name), ...owned.slice(-3).map(refs.pod)],
    };
  },
};

export const terminatingPods: FindingRule<SnapshotState> = {
  name: 'terminating-pods',
  ids: ['terminating-pods'],
  reads: 'the owned pods\' deletionTimestamp',
  fires: 'owned pods still terminating past their grace period',
  find({ pastGrace, now, refs }) {
    if (!pastGrace.length) return undefined;
    return {
      id: 'terminating-pods', severity: 'warning', basis: 'observed', at: iso(now),
      title: `${plural(pastGrace.length, 'terminating pod')} past the grace period`,
      explanation: `Terminating pods are not active: the controller has already replaced them. Past their grace period: ${pastGrace.slice(0, 10).join(', ')}${pastGrace.length > 10 ? ', …' : ''} — a kubelet that is gone or a finalizer holds them.`,
      nextStep: 'Check the nodes of those pods and their finalizers; force-delete only if the node is gone.',
      evidence: pastGrace.slice(0, 10).map((n) => refs.pod(n)),
    };
  },
};

export const orphansToAdopt: FindingRule<SnapshotState> = {
  name: 'orphans-to-adopt',
  ids: ['orphans-to-adopt'],
  reads: 'active pods without a controllerRef that match the selector',
  fires: 'such orphans exist (the ReplicaSet not being deleted): ClaimObject will adopt them',
  find({ orphansMatching, deletingSince, now, name, nsName, words: o }) {
    if (!(orphansMatching > 0 && deletingSince === undefined)) return undefined;
    return {
      id: 'orphans-to-adopt', severity: 'info', basis: 'inferred', at: iso(now),
      title: `${plural(orphansMatching, 'orphan pod')} match the selector and will be adopted`,
      explanation: `ClaimObject adopts an orphan in the same namespace that matches the selector (after CanAdopt's live re-read of the ${o.noun}). Adopted pods count towards the replicas, so the controller creates fewer pods.`,
      nextStep: `See \`kexp adopt ${name} -n ${nsName}\` for the decision per pod.`,
      evidence: [],
    };
  },
};

/**
 * What the terminating-orphans finding says of `names` (pods without a controllerRef that match the
 * selector and are being deleted), from a snapshot or the end of a replay: ClaimObject
 * (pkg/controller/controller_ref_manager.go) never adopts a pod with a deletionTimestamp.
 */
export function terminatingOrphansSaid(names: string[]): Pick<Finding, 'id' | 'severity' | 'title' | 'explanation'> {
  const one = names.length === 1;
  return {
    id: 'terminating-orphans', severity: 'info',
    title: `${plural(names.length, 'terminating pod')} without a controller match the selector: not adopted`,
    explanation:
      `${names.slice(0, 5).join(', ')}${names.length > 5 ? ', …' : ''} ${one ? 'is' : 'are'} being deleted and ${one ? 'has' : 'have'} no controllerRef. ClaimObject never adopts a pod being deleted (kubernetes#44144), so ${one ? 'it is' : 'they are'} not counted either. ` +
      `If the controller itself deleted ${one ? 'it' : 'them'} and the ownerReference was removed before its informer saw the deletion, the delete expectation can no longer be credited: the controller stays gated until the 5-minute timeout.`,
  };
}

export const terminatingOrphans: FindingRule<SnapshotState> = {
  name: 'terminating-orphans',
  ids: ['terminating-orphans'],
  reads: 'pods without a controllerRef that match the selector and are being deleted',
  fires: 'such pods exist (the ReplicaSet not being deleted): never adopted, and a delete expectation for them can no longer be credited',
  find({ terminatingOrphans: pods, deletingSince, now, name, nsName, refs, words: o }) {
    if (!(pods.length > 0 && deletingSince === undefined)) return undefined;
    return {
      ...terminatingOrphansSaid(pods.map((p) => p.metadata.name ?? '?')), basis: 'inferred', at: iso(now),
      nextStep: `Watch it (\`kexp explain ${explainTarget(o, name)} -n ${nsName} --watch 1m\`) to see whether the controller is gated; nothing to do if these pods were orphaned on purpose.`,
      evidence: pods.slice(0, 5).map((p) => refs.pod(p)),
    };
  },
};

export const overlappingSelector: FindingRule<SnapshotState> = {
  name: 'overlapping-selector',
  ids: ['overlapping-selector'],
  reads: 'pods controlled by another owner that match the selector',
  fires: 'such pods exist: ClaimObject ignores them',
  find({ otherControllerMatching, now }) {
    if (!(otherControllerMatching > 0)) return undefined;
    return {
      id: 'overlapping-selector', severity: 'info', basis: 'observed', at: iso(now),
      title: `${plural(otherControllerMatching, 'pod')} controlled by another owner match this selector`,
      explanation: 'ClaimObject ignores pods with another controllerRef, so they do not count; overlapping selectors are a common source of confusion during rollouts.',
      nextStep: 'None, unless the selectors overlap by mistake.',
      evidence: [],
    };
  },
};

export const ownerMissing: FindingRule<SnapshotState> = {
  name: 'owner-missing',
  ids: ['owner-missing'],
  reads: 'the live read of the ReplicaSet\'s controlling owner',
  fires: 'the owner named by the ReplicaSet\'s controllerRef no longer exists (a live read only)',
  find({ input, rs, now, words: o }) {
    if (!(input.owner && 'notFound' in input.owner)) return undefined;
    const ref = controllerRefOf(rs.metadata);
    return {
      id: 'owner-missing', severity: 'warning', basis: 'observed', at: iso(now),
      title: `The controlling owner ${ref?.kind}/${ref?.name} no longer exists`,
      explanation: `The garbage collector will delete this ${o.noun} (and, unless orphaned, its pods) because its controller owner is gone.`,
      nextStep: 'Nothing to do if the Deployment was deleted on purpose.',
      evidence: [],
    };
  },
};

export const controllerLeader: FindingRule<SnapshotState> = {
  name: 'controller-not-leading',
  ids: ['controller-not-leading', 'controller-leader-changed'],
  reads: 'the kube-system/kube-controller-manager leader Lease (a live read only)',
  fires: 'nobody renewed it for two lease durations (no ReplicaSet controller runs), or a new leader acquired it in the last 10 minutes (it started with no expectations)',
  find({ input, now, words: o }) {
    // The controller's leader election: nobody renewing means no ReplicaSet controller runs; a
    // recent acquisition means a new process that started with no expectations.
    const lease = input.kcmLease?.spec;
    if (!lease) return undefined;
    const renew = parseTime(lease.renewTime);
    const acquired = parseTime(lease.acquireTime);
    const duration = (lease.leaseDurationSeconds ?? 15) * 1000;
    const holder = lease.holderIdentity ?? '?';
    if (renew !== undefined && now - renew > Math.max(2 * duration, 30_000)) {
      return {
        id: 'controller-not-leading', severity: 'critical', basis: 'observed', at: iso(renew),
        title: `No kube-controller-manager has renewed its leader Lease for ${fmtAgo(now - renew)}: no ${o.controller} is running`,
        explanation: `kube-system/kube-controller-manager was last renewed at ${iso(renew)} by ${holder} (lease ${Math.round(duration / 1000)} s). Without a leader no controller syncs: nothing is created, deleted, adopted or written to status, whatever the expectations.`,
        nextStep: 'Check the kube-controller-manager pods or process (`kubectl -n kube-system get pods -l component=kube-controller-manager`, its log, the static pod manifest).',
        evidence: ['live:leases/kube-system/kube-controller-manager#spec.renewTime'],
      };
    }
    if (acquired !== undefined && now - acquired < 10 * 60_000) {
      return {
        id: 'controller-leader-changed', severity: 'info', basis: 'observed', at: iso(acquired),
        title: `kube-controller-manager's leader changed ${fmtAgo(now - acquired)} ago (${holder}): it started with no expectations`,
        explanation: `The Lease kube-system/kube-controller-manager was acquired at ${iso(acquired)} by ${holder} (${lease.leaseTransitions ?? '?'} transitions). Expectations live only in memory: any gate from before then is gone, and writes in flight at the change were never awaited by the new leader.`,
        nextStep: 'If this is unexpected, look at why the previous leader stopped (its log, OOM kills, node problems).',
        evidence: ['live:leases/kube-system/kube-controller-manager#spec.acquireTime'],
      };
    }
    return undefined;
  },
};

export const readForbidden: FindingRule<SnapshotState, LiveSnapshot['unavailable'][number]> = {
  name: 'read-forbidden',
  ids: ['read-forbidden'],
  reads: 'each resource the live read was not allowed to read (RBAC)',
  fires: 'for each: what kexp could therefore not check',
  each: (s) => s.input.unavailable ?? [],
  find(u, { now }) {
    return {
      id: 'read-forbidden', severity: 'info', basis: 'unknown', at: iso(now),
      title: `Not checked: cannot ${u.verb} ${u.resource}${u.namespace ? ` in ${u.namespace}` : ''} (RBAC)`,
      explanation: `${u.message}. ${u.resource === 'namespaces' ? 'Without the namespace phase kexp cannot tell whether creates are rejected because the namespace is terminating.' : u.resource === 'resourcequotas' ? 'Without quotas kexp cannot tell whether a quota is used up.' : 'The owner could not be checked.'}`,
      nextStep: 'Grant the minimal Role in docs/rbac.md for a complete answer.',
      evidence: [],
    };
  },
};

export const podsNotInInput: FindingRule<SnapshotState> = {
  name: 'pods-not-in-input',
  ids: ['pods-not-in-input'],
  reads: 'whether the snapshot holds pods at all, and the ReplicaSet\'s status counts',
  fires: 'the snapshot holds no pods (e.g. `kubectl get rs -o json`): counts come from the ReplicaSet\'s status',
  find({ podsKnown, rs, observedGeneration, nsName, name, now, refs, words: o }) {
    if (podsKnown) return undefined;
    return {
      id: 'pods-not-in-input', severity: 'info', basis: 'unknown', at: iso(now),
      title: `The snapshot holds no pods: counts come from the ${o.noun}'s status`,
      explanation: `status.replicas ${rs.status?.replicas ?? 0}, readyReplicas ${rs.status?.readyReplicas ?? 0} are what the controller wrote at its last sync (observedGeneration ${observedGeneration ?? '—'}). Pod-level checks (terminating pods, the adoption table, orphans) need the pods.`,
      nextStep: `Include the pods: \`kubectl get rs,pods,events -n ${nsName} -o json\`.`,
      evidence: [refs.rs(name, 'status')],
    };
  },
};
