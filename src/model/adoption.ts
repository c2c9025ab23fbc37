/**
 * Adoption and release of pods by a ReplicaSet (the ControllerRefManager).
 *
 * Mirrors, in pkg/controller/controller_ref_manager.go: `BaseControllerRefManager.ClaimObject`
 * (the decision table), `CanAdopt` (sync.Once around the CanAdoptFunc), `PodControllerRefManager.ClaimPods`,
 * `AdoptPod` (error wrapping "can't adopt Pod …") and `ReleasePod` (NotFound and 422 Invalid
 * swallowed), plus `RecheckDeletionTimestamp`; and in pkg/controller/replicaset/replica_set.go the
 * RS controller's `claimPods` with its `getFresh` live GET (UID check). See
 * docs/controller-semantics.md §7.
 *
 * Everything is pure: API effects are injected as callbacks and only counted.
 */

import { controllerRefOf, objectKey, parseTime, type LabelSelector, type ObjectMeta, type Pod } from './objects.js';

/**
 * What the claim reads of its owner: the metadata and the pod selector. A ReplicaSet, a
 * ReplicationController converted to one, and a DaemonSet all have this shape
 * (NewPodControllerRefManager takes any metav1.Object with a selector).
 */
export interface ClaimOwner {
  metadata: ObjectMeta;
  spec?: { selector?: LabelSelector | null } | null;
}
import { aggregateErrorMessage, compileLabelSelector, formatLabelSelector, validateLabelSelector } from './selector.js';

/**
 * keep: owned and matching, claimed with no API call. adopt: orphan to be adopted (patch after
 * CanAdopt). release: owned but no longer matching, patched free. ignore: not this RS's business
 * (other controller, non-matching orphan, …). none: owned and not matching, but nothing is done
 * because the RS is being deleted (or the RS selector does not even convert).
 */
export type ClaimAction = 'keep' | 'adopt' | 'release' | 'ignore' | 'none';

export interface ClaimDecision {
  /** `namespace/name` of the pod. */
  pod: string;
  uid?: string;
  action: ClaimAction;
  /**
   * Whether the pod ends up in the claimed (owned, active) set. From {@link decideClaim} an
   * `adopt` is optimistic (true = claimed if the adoption succeeds); {@link claimPods} reports the
   * actual outcome.
   */
  claimed: boolean;
  /** One plain-language sentence citing the ClaimObject rule that applied. */
  reason: string;
  /** Replays: the adopt/release patch was not made (`unmade`) or its outcome is not in the input (`unknown`). */
  evidence?: 'unmade' | 'unknown';
  /** True only for `adopt`: the adoption is gated on CanAdopt (one live GET per sync). */
  needsCanAdopt: boolean;
}

export interface CanAdoptCheck {
  ok: boolean;
  error?: string;
}

/**
 * What an adopt/release PATCH came to. Besides the API's answers, a replay may answer from its
 * input: `unmade` — the input that covers the time shows no such patch of the controller (its
 * audit log records the controller's writes, or its pod watch shows no ownerReference change),
 * so the controller did not make it: not claimed, no error; `unknown` — the input cannot tell:
 * the pod is treated as the patch would leave it, and the decision says kexp cannot tell.
 */
export type PatchResult = 'ok' | 'notfound' | 'invalid' | 'unmade' | 'unknown' | { error: string };

export interface ClaimPodsResult {
  claimed: Pod[];
  decisions: ClaimDecision[];
  /** One entry per failed claim, in pod order (ClaimPods aggregates them into the sync error). */
  errors: string[];
  /** 0 or 1: how many times canAdopt() was invoked. */
  canAdoptCalls: number;
  /** Adopt and release PATCH attempts, failed ones included. */
  patches: number;
}

/**
 * The owner kind the messages name (rsc.Kind upstream) and the resource its client errors name:
 * a ReplicaSet by default, a ReplicationController when the RC manager runs the same code.
 */
export interface ClaimOwnerKind {
  kind: string;
  resource: string;
}

const REPLICA_SET: ClaimOwnerKind = { kind: 'ReplicaSet', resource: 'replicasets.apps' };

/**
 * The ClaimObject decision for one pod, without API effects (docs/controller-semantics.md §7.1,
 * rows in upstream evaluation order):
 *
 * 1. controllerRef set, UID ≠ RS UID → ignore (only the UID is compared, not kind/name);
 * 2. controllerRef = RS, selector matches → keep (also while the RS is being deleted);
 * 3. controllerRef = RS, no match, RS being deleted → none;
 * 4. controllerRef = RS, no match → release;
 * 5. orphan, RS being deleted → ignore;
 * 6. orphan, no match → ignore;
 * 7. orphan, pod being deleted → ignore;
 * 8. orphan, RS namespace non-empty and ≠ pod namespace → ignore;
 * 9. orphan otherwise → adopt (needs CanAdopt).
 *
 * An RS whose selector fails LabelSelectorAsSelector never reaches ClaimPods (syncReplicaSet
 * logs "error converting pod selector…" and returns nil), so every pod gets `none` then.
 */
export function decideClaim(rs: ClaimOwner, pod: Pod, owner: ClaimOwnerKind = REPLICA_SET): ClaimDecision {
  return claimDecider(rs, owner)(pod);
}

/**
 * {@link decideClaim} for many pods of one ReplicaSet: the selector is validated, compiled and
 * formatted once instead of per pod (5,000 pods made that most of `explain`'s analysis).
 */
export function claimDecider(rs: ClaimOwner, owner: ClaimOwnerKind = REPLICA_SET): (pod: Pod) => ClaimDecision {
  const selector = rs.spec?.selector;
  const selectorErr = validateLabelSelector(selector);
  const kind = owner.kind;
  const name = `${kind} ${rs.metadata.name ?? ''}`;
  const rsUid = rs.metadata.uid ?? '';
  const rsDeleting = rs.metadata.deletionTimestamp != null;
  const rsNs = rs.metadata.namespace ?? '';
  const matchesSelector = compileLabelSelector(selector);
  let selText: string | undefined;
  const selOf = (): string => (selText ??= formatLabelSelector(selector));
  // The reasons that name nothing of the pod are the same sentence for every pod: built once.
  const same = new Map<string, string>();
  const once = (k: string, make: () => string): string => {
    let r = same.get(k);
    if (r === undefined) same.set(k, (r = make()));
    return r;
  };
  return (pod) => {
    const key = objectKey(pod.metadata);
    const uid = pod.metadata.uid;
    const decide = (action: ClaimAction, claimed: boolean, reason: string): ClaimDecision =>
      uid !== undefined
        ? { pod: key, uid, action, claimed, reason, needsCanAdopt: action === 'adopt' }
        : { pod: key, action, claimed, reason, needsCanAdopt: action === 'adopt' };

    if (selectorErr !== undefined) {
      return decide('none', false, once('selector', () => `${name} has a selector that does not convert (${selectorErr}), so its sync stops before claiming any pod.`));
    }

    const podDeleting = pod.metadata.deletionTimestamp != null;
    const matches = matchesSelector(pod.metadata.labels);
    const ref = controllerRefOf(pod.metadata);

    if (ref) {
      if (ref.uid !== rsUid) {
        return decide(
          'ignore',
          false,
          `Controlled by ${ref.kind} ${ref.name} (uid ${ref.uid}), not this one (${name}, uid ${rsUid}), so ClaimObject ignores it.`,
        );
      }
      if (matches) {
        return decide(
          'keep',
          true,
          once('keep', () => (rsDeleting
            ? `Already controlled by ${name} and matches its selector (${selOf()}), so it stays claimed with no API call, which is allowed even though the ${kind} is being deleted.`
            : `Already controlled by ${name} and matches its selector (${selOf()}), so it stays claimed with no API call.`)),
        );
      }
      if (rsDeleting) {
        return decide(
          'none',
          false,
          once('none', () => `Controlled by ${name} but no longer matches its selector (${selOf()}); it is not claimed, and not released either because the ${kind} is being deleted.`),
        );
      }
      return decide(
        'release',
        false,
        once('release', () => `Controlled by ${name} but no longer matches its selector (${selOf()}), so the controller releases it with a patch that removes its controllerRef.`),
      );
    }

    if (rsDeleting) {
      return decide('ignore', false, once('orphan-rs-deleting', () => `Orphan pod, but ${name} is being deleted, so it adopts nothing.`));
    }
    if (!matches) {
      return decide('ignore', false, once('orphan-no-match', () => `Orphan pod whose labels do not match the selector of ${name} (${selOf()}), so it is ignored.`));
    }
    if (podDeleting) {
      return decide(
        'ignore',
        false,
        `Orphan pod matching the selector (${selOf()}), but the pod itself is being deleted (deletionTimestamp ${pod.metadata.deletionTimestamp}), so it is not adopted.`,
      );
    }
    const podNs = pod.metadata.namespace ?? '';
    if (rsNs !== '' && rsNs !== podNs) {
      return decide(
        'ignore',
        false,
        `Orphan pod matching the selector, but it is in namespace "${podNs}" and ${name} is in "${rsNs}", so it is not adopted.`,
      );
    }
    return decide(
      'adopt',
      true,
      once('adopt', () => `Orphan pod in the same namespace matching the selector (${selOf()}), so ${name} adopts it with a patch once CanAdopt (a live GET of the ${kind}) passes.`),
    );
  };
}

/**
 * Go's time.Time.String() for an instant in UTC ("2006-01-02 15:04:05.999999999 -0700 MST"),
 * which is how `%v` renders a *metav1.Time. This assumes kube-controller-manager runs with a
 * UTC local zone (metav1.Time unmarshals into time.Local), the usual case in its container.
 */
export function formatGoTime(ms: number): string {
  const d = new Date(ms);
  const pad = (n: number, w = 2): string => String(n).padStart(w, '0');
  let frac = '';
  const millis = d.getUTCMilliseconds();
  if (millis !== 0) {
    frac = `.${pad(millis, 3)}`;
    while (frac.endsWith('0')) frac = frac.slice(0, -1);
  }
  return (
    `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ` +
    `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}${frac} +0000 UTC`
  );
}

/**
 * `RecheckDeletionTimestamp(getFresh)()` as the RS controller builds it in claimPods:
 * - the live GET failed → "can't recheck DeletionTimestamp: <err>" (NotFound renders as the
 *   client error `replicasets.apps "<name>" not found`);
 * - the live object has another UID (deleted and recreated) → "can't recheck DeletionTimestamp:
 *   original ReplicaSet <ns>/<name> is gone: got uid <fresh>, wanted <cached>";
 * - the live object has a deletionTimestamp → "<ns>/<name> has just been deleted at <ts>";
 * - otherwise ok.
 */
export function recheckDeletionTimestamp(
  cached: ClaimOwner,
  fresh: ClaimOwner | { notFound: true } | { error: string },
  owner: ClaimOwnerKind = REPLICA_SET,
): CanAdoptCheck {
  const wrap = (err: string): CanAdoptCheck => ({ ok: false, error: `can't recheck DeletionTimestamp: ${err}` });
  if ('notFound' in fresh) return wrap(`${owner.resource} "${cached.metadata.name ?? ''}" not found`);
  if ('error' in fresh) return wrap(fresh.error);
  const key = objectKey(cached.metadata);
  if ((fresh.metadata.uid ?? '') !== (cached.metadata.uid ?? '')) {
    return wrap(`original ${owner.kind} ${key} is gone: got uid ${fresh.metadata.uid ?? ''}, wanted ${cached.metadata.uid ?? ''}`);
  }
  const ts = fresh.metadata.deletionTimestamp;
  if (ts != null) {
    const ms = parseTime(ts);
    return {
      ok: false,
      error: `${objectKey(fresh.metadata)} has just been deleted at ${ms === undefined ? ts : formatGoTime(ms)}`,
    };
  }
  return { ok: true };
}

/**
 * The RS controller's claimPods → PodControllerRefManager.ClaimPods over `pods` (already
 * filtered to active pods by the caller), in order:
 * - keep → claimed, no call;
 * - release → one PATCH; NotFound and 422 Invalid are swallowed (ReleasePod), any other error is
 *   collected; never claimed;
 * - adopt → CanAdopt first, evaluated at most once per call (sync.Once): a failure is cached and
 *   every adoption in this call fails with "can't adopt Pod <ns>/<name> (<uid>): <err>" without a
 *   PATCH; otherwise one PATCH: ok → claimed; NotFound → not claimed, no error; 422 or any other
 *   error → collected (AdoptPod does not swallow Invalid);
 * - ignore/none → nothing.
 * A non-empty `errors` means the sync returns their aggregate (see {@link aggregateErrorMessage})
 * before manageReplicas and before the status update.
 */
export function claimPods(
  rs: ClaimOwner,
  pods: Pod[],
  canAdopt: () => CanAdoptCheck,
  patch: (pod: Pod, action: 'adopt' | 'release') => PatchResult,
  owner: ClaimOwnerKind = REPLICA_SET,
): ClaimPodsResult {
  const claimed: Pod[] = [];
  const decisions: ClaimDecision[] = [];
  const errors: string[] = [];
  let canAdoptCalls = 0;
  let canAdoptResult: CanAdoptCheck | undefined;
  let patches = 0;

  const checkCanAdopt = (): CanAdoptCheck => {
    if (canAdoptResult === undefined) {
      canAdoptCalls++;
      canAdoptResult = canAdopt();
    }
    return canAdoptResult;
  };

  const decide = claimDecider(rs, owner);
  for (const pod of pods) {
    const d = decide(pod);
    const podName = pod.metadata.name ?? '';
    switch (d.action) {
      case 'keep':
        claimed.push(pod);
        decisions.push(d);
        break;
      case 'release': {
        patches++;
        const r = patch(pod, 'release');
        if (r === 'unmade') {
          decisions.push({ ...d, evidence: 'unmade', reason: d.reason.replace(/\.$/, '; but the input shows no release patch by the controller, so kexp does not claim it was made.') });
        } else if (r === 'unknown') {
          decisions.push({ ...d, evidence: 'unknown', reason: d.reason.replace(/\.$/, '; whether the release patch was made the input does not show.') });
        } else if (r === 'ok') {
          decisions.push({ ...d, reason: d.reason.replace(/\.$/, '; the release patch succeeded.') });
        } else if (r === 'notfound') {
          decisions.push({ ...d, reason: d.reason.replace(/\.$/, '; the release patch got NotFound (pod already gone), which is ignored.') });
        } else if (r === 'invalid') {
          decisions.push({
            ...d,
            reason: d.reason.replace(/\.$/, '; the release patch was rejected as Invalid (422: no such owner or pod recreated), which is ignored.'),
          });
        } else {
          errors.push(r.error);
          decisions.push({ ...d, reason: d.reason.replace(/\.$/, `; the release patch failed (${r.error}), which fails the sync.`) });
        }
        break;
      }
      case 'adopt': {
        const check = checkCanAdopt();
        if (!check.ok) {
          const err = `can't adopt Pod ${pod.metadata.namespace ?? ''}/${podName} (${pod.metadata.uid ?? ''}): ${check.error ?? 'unknown error'}`;
          errors.push(err);
          decisions.push({
            ...d,
            claimed: false,
            reason: `Orphan pod matching the selector, but adoption is refused because CanAdopt failed (${check.error ?? 'unknown error'}), so no patch is sent and the sync fails.`,
          });
          break;
        }
        patches++;
        const r = patch(pod, 'adopt');
        if (r === 'unmade') {
          // The controller did not adopt it at this sync (it did not see the pod as an orphan of its
          // own, or did not sync): kexp keeps the pod out of the count, as the controller's was.
          decisions.push({
            ...d,
            claimed: false,
            evidence: 'unmade',
            reason: d.reason.replace(/\.$/, '; but the input shows no adopt patch by the controller, so kexp does not claim it was adopted (not counted).'),
          });
        } else if (r === 'unknown') {
          claimed.push(pod);
          decisions.push({ ...d, claimed: true, evidence: 'unknown', reason: d.reason.replace(/\.$/, '; whether the adopt patch was made the input does not show (counted as the controller would after it).') });
        } else if (r === 'ok') {
          claimed.push(pod);
          decisions.push({ ...d, claimed: true, reason: d.reason.replace(/\.$/, '; CanAdopt passed and the adopt patch succeeded.') });
        } else if (r === 'notfound') {
          decisions.push({
            ...d,
            claimed: false,
            reason: d.reason.replace(/\.$/, '; the adopt patch got NotFound (pod already gone), so it is not claimed and this is not an error.'),
          });
        } else {
          const msg = r === 'invalid' ? `Pod "${podName}" is invalid` : r.error;
          errors.push(msg);
          decisions.push({
            ...d,
            claimed: false,
            reason: d.reason.replace(/\.$/, `; the adopt patch failed (${msg}), so it is not claimed and the sync fails.`),
          });
        }
        break;
      }
      case 'ignore':
      case 'none':
        decisions.push(d);
        break;
    }
  }
  return { claimed, decisions, errors, canAdoptCalls, patches };
}

/** The sync error ClaimPods returns for `errors` (utilerrors.NewAggregate), or undefined. */
export function claimError(errors: readonly string[]): string | undefined {
  return errors.length ? aggregateErrorMessage(errors) : undefined;
}
