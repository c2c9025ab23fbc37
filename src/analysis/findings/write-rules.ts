/**
 * Finding rules of a replay about the controller's pod writes (manageReplicas and ClaimPods in
 * pkg/controller/replicaset/replica_set.go): failed creates, writes no reconstructed round
 * explains, writes the model predicts but the input does not show (withheld), pods failing at
 * once and replaced, create retries backed off far past slow start, adoptions and releases, and
 * syncs aborted by an adoption error.
 *
 * Each rule reads a ReplayedTrack (report/replayed-track.ts). Pure: no I/O, no clock; each rule
 * is O(the part of the track it reads).
 */
import { EXPECTATIONS_TIMEOUT_MS } from '../../model/expectations.js';
import type { Pod, ReplicaSet } from '../../model/objects.js';
import { iso } from '../iso.js';
import type { ReplayResult } from '../engine/replay-result.js';
import type { RsTrack } from '../engine/rs-track.js';
import type { Basis, Finding } from '../report-types.js';
import { writeCount, type ControllerWrite } from '../engine/write-ledger.js';
import { refs } from '../report/evidence-refs.js';
import { writesOfRound, type ReplayedTrack } from '../report/replayed-track.js';
import { ownerWords, type OwnerWords } from '../report/owner-words.js';
import { reportedWithheldEpisodes, silentEpisode, type WithheldEpisode } from '../report/withheld-episodes.js';
import { describeWrites, fmtDuration, plural } from '../report/wording.js';
import type { FindingRule } from './finding-rule.js';

export const createFailures: FindingRule<ReplayedTrack> = {
  name: 'create-failures',
  ids: ['create-failures'],
  reads: 'the creation rounds and the errors of their calls',
  fires: 'a creation round had failed creates (a quota, an admission webhook, …)',
  find({ t, resource }) {
    const o = ownerWords(resource);
    const failedRounds = t.rounds.filter((r) => r.sync.create && r.sync.create.errors.length > 0);
    if (failedRounds.length === 0) return undefined;
    const first = failedRounds[0]!.sync.create!;
    const calls = failedRounds.reduce((n, r) => n + r.sync.create!.calls, 0);
    const created = failedRounds.reduce((n, r) => n + r.sync.create!.successes, 0);
    const errText = first.errors[0];
    const quota = failedRounds.some((r) => r.sync.create!.errors.some((e) => /exceeded quota/i.test(e)));
    return {
      id: 'create-failures',
      severity: 'warning',
      title: `${plural(failedRounds.length, 'creation round')} hit failed creates${quota ? ' (ResourceQuota)' : ''}`,
      basis: failedRounds.every((r) => r.evidence?.basis === 'observed') ? 'observed' : 'inferred',
      at: iso(failedRounds[0]!.at),
      explanation:
        `Slow start stops after the first batch with a failure and walks back the failed and skipped creates at once, so failures do not gate ` +
        `the controller: it retries with ${resource === 'job'
          // The Job controller's own queue rate limiter (pkg/controller/job/job_controller.go NewController).
          ? 'the Job\'s API backoff (DefaultJobApiBackOff 1 s doubling to 1 min; before 1.28 DefaultJobBackOff, 10 s doubling to 360 s)'
          : 'exponential backoff (5 ms doubling, up to 1000 s)'}. ${plural(calls, 'create call')} in these rounds, ` +
        `${created} succeeded. First error: ${errText}.`,
      nextStep: quota
        ? `Raise the ResourceQuota, ${o.scales ? 'lower replicas, ' : ''}or free quota (\`kubectl describe resourcequota -n ${t.key.split('/')[0]}\`).`
        : `Read the ${o.resource === 'ds' ? 'FailedCreate and FailedDaemonPod' : 'FailedCreate'} Events (\`kubectl describe ${o.resource}\`) and the admission webhooks/quotas they name.`,
      evidence: refs(failedRounds.map((r) => r.trigger).concat(failedRounds.flatMap((r) => r.evidence?.sources ?? []))),
    };
  },
};

export const adoptionBlocked: FindingRule<ReplayedTrack> = {
  name: 'adoption-blocked',
  ids: ['adoption-blocked'],
  reads: 'the sync errors of claiming pods (can\'t adopt, recheck, the owner gone)',
  fires: 'a claim error aborted a sync before it created or deleted pods',
  find({ t, resource }) {
    const claimErrors = t.syncErrors.filter((e) => /can't adopt|recheck|is gone|has just been deleted/.test(e.error));
    if (!claimErrors.length) return undefined;
    return {
      id: 'adoption-blocked',
      severity: 'warning',
      title: `${plural(claimErrors.length, 'sync')} aborted by an adoption error`,
      basis: 'inferred',
      at: iso(claimErrors[0]!.at),
      explanation: `A claim error aborts the sync before ${ownerWords(resource).manage} and before the status update. First: ${claimErrors[0]!.error}.`,
      nextStep: 'See the adoption table; remove the conflicting labels or owner references.',
      evidence: [],
    };
  },
};

/** The controller writes no round explains, by why kexp could not explain them (their divergence kind). */
function unexplainedByKind(c: ReplayedTrack): Array<[string, ControllerWrite[]]> {
  const byKind = new Map<string, ControllerWrite[]>();
  for (const w of c.t.writes.filter((x) => x.round === undefined)) {
    const k = w.divergence?.kind ?? 'outside-round';
    byKind.set(k, [...(byKind.get(k) ?? []), w]);
  }
  return [...byKind];
}

/** The finding that accounts for writes no round explains, by why kexp could not explain them. */
function unexplainedFinding(kind: string, ws: ControllerWrite[], name: string, o: OwnerWords): Finding {
  const at = iso(ws[0]!.at);
  const what = describeWrites(ws);
  const detail = ws[0]!.divergence?.detail ?? '';
  const evidence = refs(ws.flatMap((w) => w.sources));
  const base = { basis: 'observed' as Basis, at, evidence, writes: ws.reduce((n, w) => n + writeCount(w), 0) };
  switch (kind) {
    case 'surplus-create':
      return {
        ...base, id: 'surplus-create', severity: 'warning',
        title: `The controller created ${plural(ws.length, 'pod')} its own count did not call for: it counted fewer pods than there were (stale cache)`,
        explanation:
          `At ${at} the controller ${what} for ${name} although by kexp's cache it had enough (${detail}). Its informer had not yet delivered pods it ` +
          `had created, adopted or seen become ready, so it counted fewer and created a surplus (the shape of kubernetes#8138: a count taken before the last observation). ` +
          `The surplus is deleted at a later sync.`,
        nextStep: 'Check kube-controller-manager\'s informer lag at that time (apiserver load, watch relists in its log) and whether the surplus was deleted afterwards.',
      };
    case 'expired-over-create':
      return {
        ...base, id: 'expiry-over-create', severity: 'warning',
        title: `The controller created ${plural(ws.length, 'pod')} again after its record expired while its informer had not delivered the earlier ones`,
        explanation:
          `At ${at} the controller ${what} for ${name}; ${detail}. An expired record counts as satisfied, so the sync created from a cache that still ` +
          `lacked the pods of that earlier round: its informer lagged by at least the record's age (kubernetes#129795). The ${o.noun} over-creates and deletes the surplus once the late pods arrive.`,
        nextStep: 'Check kube-controller-manager\'s informer health (watch relists, apiserver load) at that time; the surplus pods are deleted at a later sync.',
      };
    case 'extra-delete':
      return {
        ...base, id: 'extra-delete', severity: 'warning',
        title: `The controller deleted ${plural(ws.length, 'pod')} its own count did not call for`,
        explanation:
          `At ${at} the controller ${what} for ${name} although by kexp's count there was no surplus (${detail}). This is the signature of an expectation record ` +
          `lost or clobbered while a delete was in flight — the controller acted on a count that still held pods it had already deleted (kubernetes#19299) — or of a cache that still held pods already gone.`,
        nextStep: 'Look in the kube-controller-manager log for "Clobbering existing delete keys" or expired expectations just before, and for watch relists.',
      };
    case 'unexpected-claim': {
      const terminating = ws.filter((w) => w.podTerminating);
      return {
        ...base, id: 'unexpected-claim', severity: terminating.length ? 'warning' : 'info',
        title: terminating.length
          ? `The controller adopted ${plural(terminating.length, 'pod')} that ${terminating.length === 1 ? 'was' : 'were'} already being deleted`
          : `The controller ${what} where kexp's ClaimObject would not have`,
        explanation:
          `At ${at} the controller ${what} for ${name}. ${detail}. ` +
          (terminating.length
            ? `ClaimObject never adopts a pod with a deletionTimestamp (kubernetes#44144), and the adoption needs a fresh owner check (RecheckDeletionTimestamp, kubernetes#42639): adopting a pod being deleted is the signature of a pre-1.7 controller or of a cache that had not seen the deletion.`
            : `The controller's cache held a different state of the pod or of the ${o.noun}'s selector than kexp's input at that moment.`),
        nextStep: `Compare the pod's labels, ownerReferences and deletionTimestamp at that time with the ${o.noun}'s selector (the adoption table).`,
      };
    }
    case 'repeat-adopt':
      return {
        ...base, id: 'repeat-adopt', severity: 'info', basis: 'inferred',
        evidence: refs(ws.flatMap((w) => (w.repeatOf ? [w.repeatOf.source, ...w.sources] : w.sources))),
        title: `The controller adopted ${plural(ws.length, 'pod')} it had already adopted: its informer had not yet delivered its own adoption`,
        explanation:
          `At ${at} the controller ${what} for ${name}; ${detail}. ClaimObject (pkg/controller/controller_ref_manager.go) adopts only a pod its ` +
          `informer's cache shows without a controllerRef, so its cache still held the pod as an orphan. The PATCH changes nothing (the ownerReference ` +
          `is already there) and is harmless; it shows the controller's view behind its own writes.`,
        nextStep: `None for this write. If it recurs, check kube-controller-manager's informer lag (apiserver load, watch relists in its log).`,
      };
    case 'owner-deleting':
      return {
        ...base, id: 'writes-after-owner-deletion', severity: 'warning',
        title: `The controller made ${plural(base.writes, 'pod write')} after ${name}'s deletion was requested`,
        explanation:
          `At ${at} the controller ${what} for ${name}; ${detail}. ` +
          (o.resource === 'ds'
            // syncDaemonSet in pkg/controller/daemon/daemon_controller.go returns before constructHistory for a DaemonSet with a deletionTimestamp.
            ? `syncDaemonSet returns at once for a DaemonSet with a deletionTimestamp (it neither creates nor deletes pods, and writes no status), so these writes came from syncs on a cache whose DaemonSet had not yet shown the deletion request — a DaemonSet ` +
              `informer lagging behind the deleter.`
            : `${o.sync} only updates the status of a ${o.noun} with a deletionTimestamp ` +
              `(${o.manage} is skipped), so these writes came from syncs on a cache whose ${o.noun} had not yet shown the deletion request — a ${o.noun} ` +
              `informer lagging behind the deleter. Deleting many ReplicaSets (or ReplicationControllers) at once under load has made some create thousands ` +
              `of pods meanwhile, which the garbage collector then deletes (kubernetes#57191).`),
        nextStep: `Check kube-controller-manager's ${o.noun} watch around that time (its informer lag, relists); delete with --cascade=foreground so the owner stays until its pods are gone, and expect the garbage collector to remove the pods created meanwhile.`,
      };
    case 'while-gated':
    case 'after-restart':
      return {
        ...base, id: 'unexplained-writes', severity: 'warning',
        title: `${plural(base.writes, 'write')} of the controller that kexp's model cannot place`,
        explanation: `At ${at} the controller ${what} for ${name} while kexp's record said it was gated; even without that record kexp's model would not have written (${detail}).`,
        nextStep: 'Compare with the kube-controller-manager log of that time (`kexp kcm-log`).',
      };
    default:
      return {
        ...base, id: 'unexplained-writes', severity: 'info',
        title: `${plural(base.writes, 'write')} of the controller outside every round kexp reconstructed`,
        explanation: `${at}: the controller ${what} for ${name}; ${detail}.`,
        nextStep: 'Compare with the kube-controller-manager log of that time (`kexp kcm-log`) or an audit log of the same period.',
      };
  }
}

export const unexplainedWrites: FindingRule<ReplayedTrack, [string, ControllerWrite[]]> = {
  name: 'unexplained-writes',
  ids: ['surplus-create', 'expiry-over-create', 'extra-delete', 'unexpected-claim', 'repeat-adopt', 'writes-after-owner-deletion', 'unexplained-writes', 'unattributed-writes'],
  reads: 'the controller writes no reconstructed round claimed, grouped by why (the write ledger\'s divergence kind)',
  fires: 'for each group: every write is in exactly one finding (the accounting counts them)',
  each: unexplainedByKind,
  find([kind, ws], { t, resource }) {
    // In a recording or watch dump the write is a sighting (a pod appeared, left, changed owner):
    // with no round and no Event of the controller behind it, who made it is unknown.
    if (ws.every((w) => !w.forms.includes('audit') && !w.forms.includes('event'))) return unattributedFinding(ws, t.key);
    return unexplainedFinding(kind, ws, t.key, ownerWords(resource));
  },
};

/**
 * Sightings no round explains (#21 item 5): the pod changes a watch shows, with no audit record
 * or controller Event naming the writer. Not claimed as the controller's (basis unknown, no exit
 * code); the finding still accounts for them.
 */
function unattributedFinding(ws: ControllerWrite[], name: string): Finding {
  const kinds = new Set(ws.map((w) => w.kind));
  const pods = ws.map((w) => w.pod).filter((p): p is string => Boolean(p));
  const list = pods.slice(0, 5).join(', ') + (pods.length > 5 ? ` and ${pods.length - 5} more` : '');
  const what = kinds.size === 1 && kinds.has('create')
    ? `${plural(ws.length, 'pod')} with ${name}'s controllerRef appeared`
    : kinds.size === 1 && kinds.has('delete')
      ? `${plural(ws.length, 'pod')} of ${name} ${ws.length === 1 ? 'was' : 'were'} deleted`
      : `${plural(ws.length, 'ownership change')} of ${name}'s pods (${[...kinds].join(', ')})`;
  return {
    id: 'unattributed-writes',
    severity: 'info',
    title: `${what} that no round explains: kexp cannot tell who made ${ws.length === 1 ? 'it' : 'them'}`,
    basis: 'unknown',
    at: iso(ws[0]!.at),
    explanation:
      `${iso(ws[0]!.at)}: ${list || what}. The input shows the change, not its writer, and no round of kexp's model nor an Event of the controller explains it ` +
      `(${ws[0]!.divergence?.detail ?? 'outside every round'}). It may be the controller acting on a cache kexp did not see, or another actor (a person, a script, the garbage collector).`,
    nextStep: 'An audit log of the same period names the writer (`kexp audit`); a kube-controller-manager log shows the controller\'s own rounds (`kexp kcm-log`).',
    evidence: refs(ws.flatMap((w) => w.sources)),
    writes: ws.reduce((n, w) => n + writeCount(w), 0),
  };
}

export const otherActorWrites: FindingRule<ReplayedTrack> = {
  name: 'other-actor-writes',
  ids: ['other-actor-writes'],
  reads: 'the writes of other actors to the owner\'s pods the write ledger set aside (created with its controllerRef, ownerReference removed)',
  fires: 'any such write: named as another actor\'s, never the controller\'s',
  find({ t, resource }) {
    const o = ownerWords(resource);
    const ws = t.otherActorWrites;
    if (!ws.length) return undefined;
    const line = (w: (typeof ws)[number]) =>
      w.kind === 'create'
        ? `${iso(w.at)} ${w.pod}: created with this ${o.noun}'s controllerRef by ${w.actor ?? `another actor (not a pod the controller creates: GetPodFromTemplate names its pods "<${o.noun}>-xxxxx" and its field manager is kube-controller-manager)`}`
        : `${iso(w.at)} ${w.pod}: its ownerReference to this ${o.noun} removed by ${w.actor ?? 'another actor (the pod still matched the selector, so the controller would keep it, not release it)'}`;
    const creates = ws.filter((w) => w.kind === 'create').length;
    const orphans = ws.length - creates;
    return {
      id: 'other-actor-writes',
      severity: 'info',
      title: `Another actor ${[creates ? `created ${plural(creates, 'pod')} with this ${o.noun}'s controllerRef` : '', orphans ? `orphaned ${orphans === 1 ? '1 of its pods' : `${orphans} of its pods`}` : ''].filter(Boolean).join(' and ')}`,
      basis: 'observed',
      at: iso(ws[0]!.at),
      explanation: ws.slice(0, 5).map(line).join('. ') + '. These are not the controller\'s writes: the controller counts a pod with its controllerRef as its own whoever created it (and deletes the surplus), and adopts an orphan that still matches its selector.',
      nextStep: `Create pods through ${o.podsThrough}; to take a pod out of a${/^[AEIOU]/.test(o.noun) ? 'n' : ''} ${o.noun}, change its labels so the selector no longer matches.`,
      evidence: refs(ws.map((w) => w.source)),
    };
  },
};

/** Pods the controller created that failed within a minute, by reason. */
function quickFailuresByReason(c: ReplayedTrack): Array<[string, RsTrack['podFailures']]> {
  const quick = c.t.podFailures.filter((p) => p.createdAt !== undefined && p.failedAt - p.createdAt <= 60_000);
  const byReason = new Map<string, typeof quick>();
  for (const p of quick) byReason.set(p.reason, [...(byReason.get(p.reason) ?? []), p]);
  return [...byReason];
}

export const replacementChurn: FindingRule<ReplayedTrack, [string, RsTrack['podFailures']]> = {
  name: 'replacement-churn',
  ids: ['replacement-churn'],
  reads: 'pods of the owner that reached phase Failed within a minute of their creation, by reason',
  fires: 'three or more such pods for one reason',
  each: quickFailuresByReason,
  find([reason, ps], { t }) {
    if (ps.length < 3) return undefined;
    const name = t.key;
    const span = ps[ps.length - 1]!.failedAt - ps[0]!.createdAt!;
    return {
      id: 'replacement-churn',
      severity: 'warning',
      title: `Replacement churn: ${plural(ps.length, 'pod')} failed within seconds of creation (${reason}) and were replaced`,
      basis: 'observed',
      at: iso(ps[0]!.failedAt),
      explanation:
        `${plural(ps.length, 'pod')} of ${name} reached phase Failed with reason ${reason} less than a minute after creation, over ${fmtDuration(span)} (${ps.slice(0, 5).map((p) => p.pod).join(', ')}). ` +
        `Failed pods are not active, so every sync creates a replacement; the creates succeed, so nothing backs off and the expectations stay healthy. The cause is the node rejecting the pod, not the controller.`,
      nextStep: `Look at the failed pods' status message (\`kubectl get pods -n ${t.key.split('/')[0]} --field-selector=status.phase=Failed\`) and the node they were bound to; failed pods pile up until the pod garbage collector's threshold.`,
      evidence: refs(ps.map((p) => p.source)),
    };
  },
};

export const backoffInflated: FindingRule<ReplayedTrack> = {
  name: 'backoff-inflated',
  ids: ['backoff-inflated'],
  reads: 'the sync errors and the workqueue backoff each failure got, and the next successful write',
  fires: 'a failed sync was requeued with a backoff of a minute or more',
  find({ t, resource }) {
    const o = ownerWords(resource);
    const longBackoff = t.syncErrors.filter((e) => (e.backoffMs ?? 0) >= 60_000);
    if (!longBackoff.length) return undefined;
    const first = longBackoff.reduce((a, b) => ((b.backoffMs ?? 0) > (a.backoffMs ?? 0) ? b : a));
    const failuresBefore = t.syncErrors.filter((e) => e.at <= first.at).length;
    const firstFailure = t.syncErrors[0]!;
    const nextWrite = t.writes.find((w) => w.at > first.at && w.outcome === 'ok');
    return {
      id: 'backoff-inflated',
      severity: 'warning',
      title: `Create retries backed off to ${fmtDuration(first.backoffMs!)} after ${plural(failuresBefore, 'failed sync')} in ${fmtDuration(first.at - firstFailure.at)}`,
      basis: 'inferred',
      at: iso(first.at),
      explanation:
        `Each failed sync requeues ${t.key} with exponential backoff (5 ms doubling, capped at 1000 s), but ${o.resource === 'ds' ? 'pod, node and DaemonSet' : `pod and ${o.noun}`} events enqueue it at once, bypassing the delay, ` +
        `so the failure count climbs with every event: after ${plural(failuresBefore, 'failure')} the next retry waits ${fmtDuration(first.backoffMs!)}. ` +
        `A cause that clears meanwhile (quota freed by a terminating pod) is noticed only then${nextWrite ? ` — the next successful write came at ${iso(nextWrite.at)}` : ''} (kubernetes#98656). Expectations were not the gate.`,
      nextStep: `Any change to the ${o.noun} (an annotation) enqueues it at once; to avoid the stall, leave quota headroom for a rollout's surge or use maxSurge > 0.`,
      evidence: refs([...(nextWrite ? nextWrite.sources : [])]),
    };
  },
};

/**
 * Adopted pods whose containers run other images than the ReplicaSet's template: ClaimPods adopts
 * by labels alone (ClaimObject never compares the spec), so the ReplicaSet counts a pod of another
 * version as one of its replicas. The pods as the input last showed them; a few named.
 */
function containersOf(spec: unknown): Array<{ name?: unknown; image?: unknown }> {
  const cs = (spec as { containers?: unknown } | null | undefined)?.containers;
  return Array.isArray(cs) ? cs.filter((c): c is { name?: unknown; image?: unknown } => typeof c === 'object' && c !== null) : [];
}

function imagesUnlikeTemplate(pods: string[], store: { get(key: string): Pod | undefined }, rs: ReplicaSet | undefined, o: OwnerWords): string {
  const template = new Map(containersOf(rs?.spec?.template?.spec).map((c) => [c.name, c.image]));
  if (!template.size) return '';
  const unlike: string[] = [];
  for (const pk of pods) {
    const p = store.get(pk);
    for (const c of containersOf(p?.spec)) {
      const want = template.get(c.name);
      if (typeof want === 'string' && typeof c.image === 'string' && c.image !== want) {
        unlike.push(`${pk} runs ${c.image} in container ${String(c.name)} where the template has ${want}`);
        break;
      }
    }
    if (unlike.length >= 5) break;
  }
  return unlike.length
    ? ` ${unlike.join('; ')}: adoption matches labels only (ClaimObject never compares the pod's spec), so the ${o.noun} counts a pod of another version among its ${o.unit}.`
    : '';
}

export const adoption: FindingRule<ReplayedTrack> = {
  name: 'adoption',
  ids: ['adoption'],
  reads: 'the claim rounds: what ClaimPods adopted and released, and why',
  fires: 'the controller adopted or released pods (or tried to)',
  find({ t, res, resource }) {
    const o = ownerWords(resource);
    const claimRounds = t.rounds.filter((r) => r.kind === 'claim');
    if (!claimRounds.length) return undefined;
    const decisions = claimRounds.flatMap((r) => (r.sync.claims ?? []).filter((c) => (c.action === 'adopt' || c.action === 'release') && c.evidence !== 'unmade').map((c) => ({ at: r.at, c })));
    // Claimed only from the controller's own patch: decisions the input cannot confirm are unknown.
    const confirmed = decisions.some((d) => d.c.evidence === undefined);
    const adopted = decisions.filter((d) => d.c.action === 'adopt' && d.c.claimed);
    const released = decisions.filter((d) => d.c.action === 'release');
    return {
      id: 'adoption',
      severity: 'info',
      title: `The controller ${[adopted.length ? `adopted ${plural(adopted.length, 'pod')}` : '', released.length ? `released ${plural(released.length, 'pod')}` : ''].filter(Boolean).join(' and ') || 'tried to adopt or release pods'}`,
      // Observed from the controller's own PATCH (audit); from a watch's ownerReference change, inferred.
      basis: !confirmed ? 'unknown' : claimRounds.some((r) => t.writes.some((w) => w.round === r.modelRound && w.forms.includes('audit'))) ? 'observed' : 'inferred',
      at: iso(claimRounds[0]!.at),
      explanation: decisions.slice(0, 5).map((d) => `${iso(d.at)} ${d.c.pod}: ${d.c.reason}`).join(' ') +
        (adopted.length ? (o.resource === 'ds'
          ? ' An adopted pod counts for its node at once, so the controller creates no pod there (or deletes the surplus on that node).'
          : ' An adopted pod counts toward replicas at once, so the controller creates fewer pods (or deletes the surplus).') : '') +
        imagesUnlikeTemplate(adopted.map((d) => d.c.pod), res.pods, t.rs, o),
      nextStep: adopted.length
        ? `If these pods were not meant for this ${o.noun}, give bare pods labels its selector does not match.`
        : 'A released pod keeps running as an orphan; delete it or relabel it back if that was not intended.',
      evidence: refs([...claimRounds.flatMap((r) => writesOfRound(t, r.modelRound).flatMap((w) => w.sources)), ...claimRounds.map((r) => r.trigger)]),
    };
  },
};

function withheldFinding(ep: WithheldEpisode, t: RsTrack, res: ReplayResult, name: string, o: OwnerWords): Finding {
  const w = ep.first;
  const n = Math.abs(w.diff);
  const verb = w.diff < 0 ? 'create' : 'delete';
  const until = ep.next?.at ?? res.end ?? w.at;
  const waited = until - w.at;
  const start = res.start ?? w.at;
  const unknownStart = !t.createdInCoverage;
  const nearTimeout = ep.next !== undefined && unknownStart && ep.next.at - start <= EXPECTATIONS_TIMEOUT_MS + 60_000 && waited >= 60_000;
  const causes: string[] = [];
  if (unknownStart && w.at - start < EXPECTATIONS_TIMEOUT_MS) {
    causes.push(`a record from before the input starts (${iso(start)}) may still gate it; such a record expires by ${iso(start + EXPECTATIONS_TIMEOUT_MS)} at the latest`);
  }
  const stale = t.writes.filter((x) => x.at <= w.at && w.at - x.at <= 60_000 && (x.divergence?.kind === 'surplus-create' || x.divergence?.kind === 'expired-over-create'));
  if (stale.length && w.diff > 0) causes.push(`its informer had not yet delivered the ${plural(stale.length, 'pod')} it had just created from a stale count, so it saw no surplus`);
  const failures = t.syncErrors.filter((x) => x.at < w.at);
  if (failures.length) causes.push(`a longer workqueue backoff than kexp's after ${plural(failures.length, 'failed sync')}`);
  const silent = silentEpisode(ep, t, res);
  if (silent) {
    causes.unshift(`no sync of the real controller at all: it wrote no status for ${name} either, though a sync after a change of its pod count rewrites ${o.statusCount.field} — its informer had not delivered the change (a lag, a lost watch event, or a relist that still lists a deleted pod, kubernetes#115658), so it still counted the pods it had seen`);
  } else causes.push('no sync of the real controller at that time (its informer had not delivered the change, or no trigger reached it)');
  causes.push('kube-controller-manager down or not leading');
  return {
    id: nearTimeout ? 'late-first-write' : 'writes-withheld',
    severity: waited >= 30_000 || (silent && !ep.next) ? 'warning' : 'info',
    title: ep.next
      ? `The controller's first ${verb} came ${fmtDuration(waited)} after the ${o.noun} needed it`
      : `The controller made no ${verb} for ${fmtDuration(waited)} although the ${o.noun} needed ${plural(n, 'pod')} ${w.diff < 0 ? 'more' : 'fewer'}${silent ? ', and no status write either: it never synced on the change' : ''}`,
    basis: 'inferred',
    at: iso(w.at),
    explanation:
      `From ${iso(w.at)} kexp's model would have ${verb}d ${plural(n, 'pod')} for ${name} (${plural(ep.syncs, 'sync')}), but the input, which records the controller's writes, ` +
      `shows none ${ep.next ? `until ${iso(ep.next.at)}` : 'before it ends'}. kexp does not invent those writes. What held the controller: ${causes.join('; or ')}.` +
      (nearTimeout ? ` The delay ends about ${fmtDuration(ep.next!.at - start)} after the input starts, consistent with an unobserved record expiring after the 5-minute ExpectationsTimeout (kubernetes#110631).` : ''),
    nextStep: (nearTimeout
      ? `Look for what left the record unfulfilled before the input starts: a create whose pod was never observed (a timed-out create, a lost watch event) or an earlier ${o.noun} with the same name. `
      : '') + 'The kube-controller-manager log shows "Controller still waiting on expectations" for this key when a record held it (`kexp kcm-log --rs ' + name + '`).',
    evidence: refs([w.trigger, ...(ep.next ? ep.next.sources : [])]),
  };
}

export const writesWithheld: FindingRule<ReplayedTrack, WithheldEpisode> = {
  name: 'writes-withheld',
  ids: ['writes-withheld', 'late-first-write'],
  reads: 'the episodes of syncs in which the model would have written but the input, which records the controller\'s writes, shows none (report/withheld-episodes.ts)',
  fires: 'each reported episode; a late first write when it ends near the timeout of a record from before the input',
  each: (c) => reportedWithheldEpisodes(c.t, c.res),
  find(ep, { t, res, resource }) {
    return withheldFinding(ep, t, res, t.key, ownerWords(resource));
  },
};

/**
 * A round whose calls paused longer than a call takes, its sync still running: slow or hung
 * API calls (the controller's client throttled or stalled, a slow apiserver or webhook). The
 * real worker holds the key until syncHandler returns (processNextWorkItem, client-go
 * workqueue Get/Done), so no other sync of that key ran meanwhile; the round is one
 * `Setting expectations`, its late calls made (create-evidence.ts, CallPause).
 */
export const slowApiCalls: FindingRule<ReplayedTrack, RsTrack['rounds'][number]> = {
  name: 'slow-api-calls',
  ids: ['slow-api-calls'],
  reads: 'rounds whose calls paused with their sync still running (create-evidence.ts RoundEvidence.pause): the calls before and after the pause, their times and the apiserver\'s latency',
  fires: 'each round whose calls resumed after a pause longer than a call takes, before any status write ended its sync',
  each: (c) => c.t.rounds.filter((r) => r.evidence?.pause && r.evidence.pause.after > 0),
  find(r, { t }) {
    const p = r.evidence!.pause!;
    const pauseMs = p.until - p.from;
    const audit = p.form === 'audit';
    const server = p.serverMaxMs !== undefined
      ? ` Once a request reached the apiserver it answered within ${fmtDuration(p.serverMaxMs)}, so the calls waited before reaching it (the controller's client: its rate limiter, a stalled connection) rather than in the apiserver.`
      : '';
    return {
      id: 'slow-api-calls',
      severity: 'warning',
      title: `Slow or hung API calls: the controller's creates for ${t.key} paused ${fmtDuration(pauseMs)} inside one sync`,
      // A recording shows the pods, not the requests nor the process that made them: a restart
      // whose new process made the rest looks the same, so there the cause is not established.
      basis: audit ? 'observed' : 'unknown',
      at: iso(p.from),
      explanation:
        `The round that began at ${iso(r.at)} made ${plural(p.before, 'create')} up to ${iso(p.from)}, then none for ${fmtDuration(pauseMs)}; ` +
        `${plural(p.after, 'more create')} ${audit ? 'were requested' : 'appeared'} from ${iso(p.until)} on, with no status write of ${t.key} in between — ` +
        `the same sync's calls, made and completed late, not a new round (one \`Setting expectations\`).` +
        (p.missing > 0 ? ` ${plural(p.missing, 'call')} of the round ${audit ? 'never reached the apiserver (not made)' : 'the input does not show (outcome unknown)'}.` : '') +
        ` The sync held its key the whole time (the worker processes a key until its sync returns), so no other sync of ${t.key}, gated or not, ran meanwhile.` + server +
        (audit ? '' : ' A recording shows when each pod appeared, not when its create was requested nor which process made it: a lagging watch looks the same unless the pods\' creationTimestamps say otherwise, and so does a restart whose new process created the rest (the controller\'s log or an audit log of the same time tells them apart).'),
      nextStep: `Look at kube-controller-manager's client around ${iso(p.from)}: "Waited for … due to client-side throttling" lines (raise --kube-api-qps / --kube-api-burst), connection errors to the apiserver, and the apiserver's or an admission webhook's latency for pod creates; "Finished syncing" for ${t.key} in the controller's log states the sync's duration.`,
      evidence: refs([p.lastBefore, ...(p.firstAfter ? [p.firstAfter] : [])]),
    };
  },
};
