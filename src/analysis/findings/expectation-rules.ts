/**
 * Finding rules of a replay about the controller's expectations record (ControllerExpectations
 * and UIDTrackingControllerExpectations in pkg/controller/controller_utils.go): leaks cleared only
 * by the 5-minute timeout or the ReplicaSet's deletion, a record still open at the end of input,
 * syncs that passed an expired record, deletions credited to a reused name, clobbered delete
 * keys, and rounds where the input disagrees with kexp's prediction.
 *
 * Each rule reads a ReplayedTrack (report/replayed-track.ts). Pure: no I/O, no clock; each rule
 * is O(the part of the track it reads).
 */
import { EXPECTATIONS_TIMEOUT_MS } from '../../model/expectations.js';
import { iso } from '../iso.js';
import { parseTime } from '../../model/objects.js';
import type { RsTrack, WindowTrack } from '../engine/rs-track.js';
import type { Basis, Finding } from '../report-types.js';
import type { ControllerWrite } from '../engine/write-ledger.js';
import { ref, refs } from '../report/evidence-refs.js';
import { leakCause, notFoundKeptCause, restsOnUndecided, unseenBeforeInput } from '../report/gated-windows.js';
import { ownerWords, type OwnerWords } from '../report/owner-words.js';
import { writesOfRound, type ReplayedTrack } from '../report/replayed-track.js';
import { fmtDuration, plural } from '../report/wording.js';
import type { FindingRule } from './finding-rule.js';

/** The track's closed windows: the two window rules read each in turn. */
const eachWindow = (c: ReplayedTrack): WindowTrack[] => c.t.windows;

export const expectationLeakExpired: FindingRule<ReplayedTrack, WindowTrack> = {
  name: 'expectation-leak-expired',
  ids: ['expectation-leak-expired', 'expectations-expired-informer-lag'],
  reads: 'each closed gated window, its round and the round\'s writes (when the input showed them)',
  fires: 'a window ended by expiry with creations or deletions still outstanding; informer lag when the round\'s own creates all showed up, only after the expiry',
  each: eachWindow,
  find(w, { t, resource }) {
    const o = ownerWords(resource);
    if (!(w.endedBy === 'expired' && w.remaining && (w.remaining.add > 0 || w.remaining.del > 0))) return undefined;
    const name = t.key;
    const waited = fmtDuration((w.end ?? w.start) - w.setAt);
    // The round's own writes: which the input showed only after the expiry (informer lag), which never.
    const rnd = w.round !== undefined ? t.rounds[w.round] : undefined;
    const own = rnd ? writesOfRound(t, rnd.modelRound).filter((x) => x.kind === 'create' && x.outcome === 'ok') : [];
    const late = own.filter((x) => x.observedAt !== undefined && x.observedAt > (w.end ?? w.start));
    const never = own.filter((x) => x.observedAt === undefined && x.pod);
    const lag = late.length ? Math.max(...late.map((x) => x.observedAt! - w.setAt)) : undefined;
    const lagOnly = late.length > 0 && never.length === 0 && !(w.remaining.keys?.length);
    // What was never observed may never have been made: calls whose outcome the input never showed.
    const undecided = rnd ? (rnd.unresolved ?? 0) : 0;
    const restsOnUnknown = undecided > 0 && undecided >= w.remaining.add + w.remaining.del;
    // The orphaned-delete leak: a pod the round expected to delete lost its controllerRef before
    // the controller saw its deletion, so deletePod could not credit it to this ReplicaSet.
    const orphaned = w.remaining.del > 0 ? t.orphanedExpected.filter((o) => o.at >= w.start && (w.end === undefined || o.at <= w.end)) : [];
    const by = (pod: string) => t.otherActorWrites.find((x) => x.kind === 'orphan' && x.pod === pod);
    // Before v1.17 the record outlived a delete and recreate under the same name (deleteRS only
    // enqueued): a window that spans a UID change is the new ReplicaSet gated on the old one's record.
    const inherited = t.uidChanges.find((c) => c.at > w.setAt && c.at < (w.end ?? Infinity));
    return {
      id: lagOnly ? 'expectations-expired-informer-lag' : 'expectation-leak-expired',
      severity: lagOnly ? 'warning' : w.basis === 'unknown' || w.gapInside || restsOnUnknown || w.notFoundUnconfirmed ? 'info' : 'warning',
      title: lagOnly
        ? `The controller's own creates reached the informer only after the 5-minute timeout (${fmtDuration(lag!)} later): the record expired`
        : `Expectations leaked and were only cleared by the 5-minute timeout (after ${waited})`,
      basis: w.gapInside || restsOnUnknown || w.notFoundUnconfirmed ? 'unknown' : w.basis,
      at: iso(w.start),
      explanation:
        `At ${iso(w.setAt)} the controller expected ${w.raised.add} creation(s) and ${w.raised.del} deletion(s) for ${name}. ` +
        (restsOnUnknown ? `The input does not show whether ${plural(undecided, 'call')} of that round ${undecided === 1 ? 'was' : 'were'} made at all, so this leak is not established. ` : '') +
        (lagOnly
          ? `${plural(late.length, 'pod')} it created (${late.slice(0, 5).map((x) => x.pod).join(', ')}) showed up only ${fmtDuration(lag!)} after that, so the record expired at ${iso(w.end)} ` +
            `while they were still unobserved: the informer lagged longer than the 5-minute ExpectationsTimeout, and the next sync counted from a cache without them (kubernetes#129795).`
          : `${w.remaining.add} creation(s) and ${w.remaining.del} deletion(s) were never observed, so every sync was refused ` +
            `(${plural(w.gatedSyncs, 'gated sync')}) until the first sync after the record expired, at ${iso(w.end)}. Expiry is passive: ` +
            `recovery needs a sync trigger after timestamp + 5 min, not just the passage of time.` +
            ((w.timedOut ?? 0) > 0 ? ` ${plural(w.timedOut!, 'create')} of that round${w.timedOutNodes?.length ? ` (for node${w.timedOutNodes.length === 1 ? '' : 's'} ${w.timedOutNodes.join(', ')}, left without ${w.timedOutNodes.length === 1 ? 'its' : 'their'} daemon pod meanwhile)` : ''} timed out (504) and ${w.timedOut === 1 ? 'was' : 'were'} counted as ${w.timedOut === 1 ? 'a success' : 'successes'}: ${o.manage} swallowed IsTimeout before v1.18 (${o.timeoutReport}), so nothing retried ${w.timedOut === 1 ? 'it' : 'them'}.` : '') +
            ((w.notFoundKept?.length ?? 0) > 0 && w.remaining.del > 0 ? ` At the Set ${notFoundKeptCause(w.notFoundKept!)}.` : '') +
            (w.notFoundUnconfirmed
              ? ` Whether the informer delivered ${w.notFoundKept!.length === 1 ? 'that deletion' : 'those deletions'} before the Set (the lower spent on the previous record: this leak) or after it (lowered: no leak) the input does not show: no sync of this window found a pod needed and made none. A kube-controller-manager log at -v=4 of that time ("Setting expectations", "Lowered expectations") tells.`
              : '') +
            skippedNodes(w) +
            (w.removedNodePods?.length
              ? ` ${w.removedNodePods.join(', ')} ran on a node that no longer exists: this release's getPodsWithoutNode (kubernetes#73401) deletes every pod of a removed node, which the pod GC deletes as well, so the two deletes race (kubernetes#75836, fixed by #76060 in v1.12.8, v1.13.7 and v1.14.2).`
              : '') +
            (never.length ? ` Created but never observed: ${never.slice(0, 10).map((x) => x.pod).join(', ')}.` : '') +
            (w.remaining.keys?.length ? ` Deletions never observed: ${w.remaining.keys.join(', ')}.` : '') +
            (inherited
              ? ` The ${o.noun} was deleted and recreated under the same name at ${iso(inherited.at)}${inherited.source ? ` (${ref(inherited.source)})` : ''} while this record was in force: the new ${o.noun} (uid ${inherited.newUid ?? '?'}) inherited the old one's record and stayed gated on pods that belong to the old one (kubernetes#69376, fixed by #82572 in v1.17: deleteRS now deletes the expectations).`
              : '') +
            (orphaned.length
              ? ` ${orphaned.map((o) => `${o.podKey} lost its controllerRef at ${iso(o.at)}${by(o.podKey)?.actor ? ` (${by(o.podKey)!.actor})` : ''}`).join('; ')} before its deletion was observed: deletePod resolves the owner from the pod's controllerRef, so the deletion could not be credited to ${name} (the orphaned-delete leak).`
              : '')),
      nextStep: inherited
        ? `Upgrade kube-controller-manager to v1.17 or later; until then, wait a few seconds between deleting and recreating a ${o.noun} of the same name, or touch it after the 5-minute timeout.`
        : orphaned.length
        ? `Do not remove the ownerReference of a pod the ${o.noun} is deleting${o.scales ? ' (scale the owner instead)' : ''}; the record clears at the first sync after the 5-minute timeout.`
        : (w.notFoundKept?.length ?? 0) > 0 && w.remaining.del > 0
        ? `Upgrade kube-controller-manager (NotFound lowers the record from v1.17.12, v1.18.9 and v1.19.0); until then, touch the ${o.noun} (any update, e.g. an annotation) after its record expires, 5 minutes after the Set.`
        : (w.timedOut ?? 0) > 0
        ? `Upgrade kube-controller-manager (the timeout is no longer swallowed from v1.15.8, v1.16.5, v1.17.1 and v1.18.0); until then, touch the ${o.noun} (any update, e.g. an annotation) after a create timed out, and look at why the apiserver answered pod creates with 504 (admission webhooks, etcd latency).`
        : lagOnly
        ? 'Check kube-controller-manager\'s watch health at that time (apiserver load, watch relists, a slow network); expect surplus pods that a later sync deletes.'
        : 'Find out why the writes were not observed: a watch gap or relist in kube-controller-manager, pods orphaned before their deletion was seen, ' +
          'or creates rejected because the namespace was terminating. Check the kube-controller-manager log for "Controller expectations expired".',
      evidence: refs([...w.evidence, ...never.flatMap((x) => x.sources), ...late.flatMap((x) => x.sources)]),
    };
  },
};

export const leakNamespaceTerminating: FindingRule<ReplayedTrack, WindowTrack> = {
  name: 'expectation-leak-namespace-terminating',
  ids: ['expectation-leak-namespace-terminating'],
  reads: 'each closed gated window and the creates of its round rejected with NamespaceTerminating',
  fires: 'a window the owner\'s deletion ended after creates were rejected because the namespace was terminating',
  each: eachWindow,
  find(w, { t, resource }) {
    const o = ownerWords(resource);
    if (!(w.endedBy === 'rs-deleted' && (w.namespaceTerminating ?? 0) > 0)) return undefined;
    return {
      id: 'expectation-leak-namespace-terminating',
      severity: 'info',
      title: `Creates rejected because the namespace was terminating leaked expectations until the ${o.noun} was deleted`,
      basis: w.basis,
      at: iso(w.start),
      explanation:
        (o.resource === 'rs' || o.resource === 'rc'
          ? `The controller counts a create rejected with cause NamespaceTerminating as a success (no FailedCreate Event, no walk-back), `
          : `${o.sync}'s create of a pod rejected with cause NamespaceTerminating returns without lowering the record (no FailedCreate Event), `) +
        `so ${plural(w.namespaceTerminating!, 'expected creation')} could never be observed. ${t.key} stayed gated from ${iso(w.start)} until ` +
        `its deletion at ${iso(w.end)} cleared the record. This is benign during namespace deletion.`,
      nextStep: 'Nothing to do if the namespace is being deleted on purpose; if it is stuck Terminating, look at its finalizers and remaining content.',
      evidence: refs(w.evidence),
    };
  },
};

export const leakOpen: FindingRule<ReplayedTrack> = {
  name: 'expectation-leak-open',
  ids: ['expectation-leak-open', 'gated-at-end', 'pods-not-made-unexplained'],
  reads: 'the window still open at the end of input, its outstanding counters and leak cause (report/gated-windows.ts)',
  fires: 'a window open at the end of input: a leak when only the timeout or the owner\'s deletion can clear it, else a round in flight — or, when only kexp\'s first sync of an owner older than the input opened it and the input never shows that round, pods wanted and not made for a reason the input does not tell',
  find(c) {
    const { t, end, resource } = c;
    if (!(t.open && end !== undefined)) return undefined;
    const o = ownerWords(resource);
    const w = t.open;
    const name = t.key;
    const cause = leakCause(t, w, end, o);
    const rem = w.remaining ?? { add: w.raised.add, del: w.raised.del };
    const expires = w.setAt + EXPECTATIONS_TIMEOUT_MS;
    const undecidedOnly = restsOnUndecided(t, w);
    if (unseenBeforeInput(t, w, end)) return podsNotMade(c, w, rem, end);
    if (cause) {
      return {
        id: 'expectation-leak-open',
        severity: undecidedOnly ? 'info' : 'critical',
        title: `Controller gated by a leaked expectation: only the timeout (or deleting the ${o.noun}) will clear it${undecidedOnly ? ' — if the calls it waits for were made at all' : ''}`,
        basis: w.gapInside || undecidedOnly ? 'unknown' : w.basis,
        at: iso(w.start),
        explanation:
          `Since ${iso(w.start)} the controller has been waiting for ${rem.add} creation(s) and ${rem.del} deletion(s) for ${name}; ${cause}. ` +
          `It refuses to create or delete pods (${plural(w.gatedSyncs, 'gated sync')} so far). The record expires at ${iso(expires)}, ` +
          `but expiry is passive: the controller recovers only at the first sync after that, which needs a trigger — ${o.triggers}, ` +
          `an error requeue, or the informer resync every 12–24 h.`,
        nextStep:
          heldGeneration(c, o, expires, end) +
          (end > expires
            ? `The record is already expired: trigger a sync now, e.g. \`kubectl annotate ${resource} ${t.key.split('/')[1]} -n ${t.key.split('/')[0]} kexp.io/poke="$(date +%s)" --overwrite\`.`
            : `Wait until ${iso(expires)} and then trigger a sync (any change to the ${o.noun}, e.g. an annotation), or delete and recreate the ${o.noun} if it cannot wait.`),
        evidence: refs(w.evidence),
      };
    }
    return {
      id: 'gated-at-end',
      severity: 'info',
      title: `Controller gated on its own writes at the end of the input (${rem.add} creation(s), ${rem.del} deletion(s) outstanding)`,
      // The gate itself is certain once the round is (its Set raised the record before any call).
      basis: w.gapInside ? 'unknown' : w.basis,
      at: iso(w.start),
      explanation:
        `Since ${iso(w.start)} the controller is waiting to observe its own writes for ${name}. This is normal while a round is in flight; ` +
        `it becomes a leak if the outstanding writes are never observed (the record expires at ${iso(expires)}).` +
        (heldGeneration(c, o, expires, end) ? ` ${heldGeneration(c, o, expires, end).trim()}` : ''),
      nextStep: 'Re-run with a longer recording (or `kexp explain --watch`) to see whether the outstanding writes arrive.',
      evidence: refs(w.evidence),
    };
  },
};

/**
 * The owner wants pods the controller did not make while the input lasted, and the only round kexp
 * has is its own first sync of an owner older than the input (report/gated-windows.ts
 * unseenBeforeInput), never shown: basis unknown, with the causes the input cannot tell apart, the
 * evidence that would, and what to collect.
 */
function podsNotMade({ t, resource }: ReplayedTrack, w: WindowTrack, rem: { add: number; del: number }, end: number): Finding {
  const o = ownerWords(resource);
  const created = parseTime(t.rs?.metadata.creationTimestamp);
  const startTime = (t.rs?.status as { startTime?: unknown } | undefined)?.startTime;
  const want = rem.add > 0 ? plural(rem.add, 'pod') + ' more' : plural(rem.del, 'pod') + ' fewer';
  const verb = rem.add > 0 ? 'create' : 'delete';
  return {
    id: 'pods-not-made-unexplained',
    severity: 'warning',
    title: `The ${o.noun} wants ${want} and the input shows no ${verb} of the controller: why, the input cannot tell`,
    basis: 'unknown',
    at: iso(w.start),
    explanation:
      `${t.key} existed before the input began${created !== undefined ? ` (created at ${iso(created)}, ${fmtDuration(w.start - created)} before the input shows it)` : ''}` +
      (typeof startTime === 'string' ? `; its status.startTime (${startTime}) shows the ${o.controller} synced it then` : '') + '. ' +
      `kexp's model, syncing it where the input first shows it (${iso(w.start)}), would ${verb} ${plural(rem.add > 0 ? rem.add : rem.del, 'pod')}; the input shows none in its ${fmtDuration(end - w.start)} ` +
      `(no pod ${rem.add > 0 ? 'ADD' : 'deletion'}, no Successful${rem.add > 0 ? 'Create' : 'Delete'} or Failed${rem.add > 0 ? 'Create' : 'Delete'} Event). That sync is kexp's: the controller's informer has had the ${o.noun} all along and nothing enqueued it then, so no round of the controller is known to be in flight. ` +
      `Which of these holds the input cannot tell: the controller is gated on a record Set before the input began whose pods its informer never delivered (and after that record's 5-minute expiry nothing syncs the ${o.noun} again without ${o.triggers}); it has not synced the ${o.noun} since; or its ${verb}s fail and their Events (kept one hour) are gone. ` +
      `What would tell: the ${o.controller}'s own writes (an apiserver audit log of its pod ${verb}s) or its log.`,
    nextStep:
      `Collect the kube-controller-manager log at -v=4 covering the time since the ${o.noun} was created ("Setting expectations", "Controller expectations fulfilled" and ${o.sync}'s lines for ${t.key}) or the apiserver audit log of the ${o.controller}'s pod writes — \`kexp kcm-log\` and \`kexp audit\` read them. ` +
      `An update of the ${o.noun} (e.g. an annotation) makes the controller sync it: a ${verb} right after shows its record had expired or was never set.`,
    evidence: refs(w.evidence),
  };
}

/**
 * A DaemonSet's spec change the gate holds back: a gated syncDaemonSet writes status without
 * raising observedGeneration (updateDaemonSetStatus(…, false) in
 * pkg/controller/daemon/daemon_controller.go), so while the record is unsatisfied neither manage
 * nor the rolling update runs for a generation the controller has not processed. Said when the
 * owner object at the end of input shows metadata.generation ahead of status.observedGeneration;
 * empty otherwise (and for kinds whose gated sync raises observedGeneration).
 */
function heldGeneration({ t }: ReplayedTrack, o: OwnerWords, expires: number, end: number): string {
  if (!o.gatedHoldsObservedGeneration || !t.rs || t.deletedAt !== undefined) return '';
  const generation = t.rs.metadata.generation;
  const observed = t.rs.status?.observedGeneration;
  if (typeof generation !== 'number' || typeof observed !== 'number' || !(observed < generation)) return '';
  // With the OnDelete strategy nothing rolls: the generation waits all the same (manage does not run).
  const onDelete = (t.rs.spec as { updateStrategy?: { type?: string } } | undefined)?.updateStrategy?.type === 'OnDelete';
  const what = onDelete ? `generation ${generation} will not be processed` : 'a rolling update will not start';
  return end > expires
    ? `observedGeneration ${observed} < generation ${generation}: ${onDelete ? `generation ${generation} has not been processed` : 'the rolling update has not started'}; the record expired at ${iso(expires)}, so the next sync processes it. `
    : `observedGeneration ${observed} < generation ${generation}: ${what} until the record expires at ${iso(expires)} (and a sync follows). `;
}

export const expiryOverCreate: FindingRule<ReplayedTrack, RsTrack['expiredSyncs'][number]> = {
  name: 'expiry-over-create',
  ids: ['expiry-over-create'],
  reads: 'each sync that passed an expired record, the creates of its round, the earlier rounds\' creates and when the input showed them',
  fires: 'a sync after expiry created pods while the record still expected creations',
  each: (c) => c.t.expiredSyncs,
  find(e, { t, resource }) {
    if (!((e.created ?? 0) > 0 && e.add > 0)) return undefined;
    const o = ownerWords(resource);
    const round = t.rounds.find((r) => r.at === e.at && r.kind === 'create');
    const made = round ? writesOfRound(t, round.modelRound) : [];
    // The earlier creates this record still awaited: when (if ever) the input showed them.
    const earlier = t.rounds.filter((r) => r.kind === 'create' && r.at < e.at && e.at - r.at <= EXPECTATIONS_TIMEOUT_MS + 60_000);
    const seenAt = (w: ControllerWrite) => w.observedAt ?? w.at;
    const lateWrites = t.writes.filter((w) => earlier.some((r) => r.modelRound === w.round) && seenAt(w) > e.at);
    const lag = lateWrites.length ? Math.max(...lateWrites.map((w) => seenAt(w) - (earlier.find((r) => r.modelRound === w.round)?.at ?? seenAt(w)))) : undefined;
    // Resting on the expired window: unknown when that window's creates were never shown made.
    const expired = t.windows.find((w) => w.endedBy === 'expired' && w.end === e.at);
    const expiredRound = expired?.round !== undefined ? t.rounds[expired.round] : undefined;
    const undecided = expiredRound?.unresolved ?? 0;
    const basis: Basis = expired && (expired.gapInside || expiredRound?.evidence?.basis === 'unknown' || (undecided > 0 && undecided >= e.add)) ? 'unknown' : 'inferred';
    const held = t.lagOverCreates.find((x) => x.at === e.at);
    // The record waited only for creates whose requests timed out (504, counted as successes before
    // 1.18) and none of them showed up: no pod of theirs is in the input, so the creates here replace
    // them rather than risk a surplus — the leak finding tells that story (kubernetes#67662).
    if ((expired?.timedOut ?? 0) >= e.add && lateWrites.length === 0 && !held) return undefined;
    return {
      id: 'expiry-over-create',
      severity: basis === 'unknown' ? 'info' : 'warning',
      title: 'A sync after expiry created pods while earlier creations were still unobserved',
      basis,
      at: iso(e.at),
      explanation:
        `At ${iso(e.at)} the record still expected ${e.add} creation(s) but had expired, so the sync passed the gate and created ${e.created} pod(s) ` +
        `from a cache that may lack the earlier pods. If those arrive late the ${o.noun} over-creates and then deletes the surplus (kubernetes#129795).` +
        (lag !== undefined ? ` ${plural(lateWrites.length, 'earlier create')} showed up only after this sync, ${fmtDuration(lag)} after their round: the informer lagged at least that long.` : '') +
        (held ? ` The input showed ${plural(held.pods.length, 'pod')} of the round of ${iso(held.setAt)} (${held.pods.join(', ')}) before this sync, but the controller's creates here prove its cache lacked ${held.pods.length === 1 ? 'it' : 'them'}: kexp held ${held.pods.length === 1 ? 'it' : 'them'} back as unobserved from then on, and its record — which kexp's replay had seen fulfilled — expired unfulfilled.` : ''),
      nextStep: 'Check kube-controller-manager informer health (watch gaps, relists) around this time.',
      evidence: refs([round?.trigger, ...made.flatMap((w) => w.sources), ...lateWrites.flatMap((w) => w.sources)]),
    };
  },
};

export const deleteSatisfiedByNameReuse: FindingRule<ReplayedTrack, RsTrack['nameReuse'][number]> = {
  name: 'delete-satisfied-by-name-reuse',
  ids: ['delete-satisfied-by-name-reuse'],
  reads: 'each deletion credited to a pod of the same name but another UID (expected deletions are keyed by namespace/name)',
  fires: 'a new pod with the name of one the controller chose for deletion was deleted first',
  each: (c) => c.t.nameReuse,
  find(n, { resource }) {
    return {
      id: 'delete-satisfied-by-name-reuse',
      severity: 'warning',
      title: `Delete expectation for ${n.podKey} satisfied by a different pod with the same name`,
      basis: 'inferred',
      at: iso(n.at),
      explanation:
        `The controller chose ${n.podKey} (uid ${n.chosenUid}) for deletion. It keys expected deletions by namespace/name, not UID, so the deletion ` +
        `of a new pod with the same name (uid ${n.observedUid}) was credited to that expectation. (The article that motivated kexp says UIDs; the code uses names.)`,
      nextStep: `Avoid recreating pods by name while the ${ownerWords(resource).noun} scales down; look for tooling that recreates pods with fixed names.`,
      evidence: refs([n.source]),
    };
  },
};

export const clobberedDeleteKeys: FindingRule<ReplayedTrack, RsTrack['clobbers'][number]> = {
  name: 'clobbered-delete-keys',
  ids: ['clobbered-delete-keys'],
  reads: 'each ExpectDeletions that replaced delete keys never observed',
  fires: 'a deletion round began before the previous one completed',
  each: (c) => c.t.clobbers,
  find(c) {
    return {
      id: 'clobbered-delete-keys',
      severity: 'warning',
      title: `An earlier deletion round never completed (${c.keys.length} key(s) clobbered)`,
      basis: 'inferred',
      at: iso(c.at),
      explanation: `A new ExpectDeletions replaced delete keys that were never observed: ${c.keys.join(', ')}. kube-controller-manager logs this at ERROR as "Clobbering existing delete keys"; it means the previous round only ended by expiry.`,
      nextStep: 'Look for those pods: were they orphaned, or was their deletion missed by a watch gap?',
      evidence: refs([c.source]),
    };
  },
};

export const inputDisagreesWithModel: FindingRule<ReplayedTrack> = {
  name: 'input-disagrees-with-model',
  ids: ['input-disagrees-with-model'],
  reads: 'the rounds\' delete notes (other than ties) and their evidence basis',
  fires: 'a round where the input chose other pods than kexp predicted, or whose evidence is unknown',
  find({ t }) {
    const notes = t.rounds.filter((r) => (r.sync.delete?.note && !r.sync.delete.note.startsWith('tie:')) || r.evidence?.basis === 'unknown');
    if (!notes.length) return undefined;
    return {
      id: 'input-disagrees-with-model',
      severity: 'info',
      title: `The input disagrees with kexp's prediction in ${plural(notes.length, 'round')}`,
      basis: 'unknown',
      at: iso(notes[0]!.at),
      explanation: notes.slice(0, 5).map((r) => `${iso(r.at)}: ${r.sync.delete?.note ?? r.evidence?.note ?? ''}`).join(' '),
      nextStep: 'Compare with the kube-controller-manager log (`kexp kcm-log --compare`) or an audit log for the same period.',
      evidence: refs(notes.map((r) => r.trigger)),
    };
  },
};

/**
 * The nodes a DaemonSet's gated syncs found needing a daemon pod (not those of timed-out creates,
 * named with them): a gated syncDaemonSet writes status only, so none was created while the record
 * was in force.
 */
function skippedNodes(w: { gatedNeeding?: string[]; timedOutNodes?: string[] }): string {
  const nodes = (w.gatedNeeding ?? []).filter((n) => !(w.timedOutNodes ?? []).includes(n));
  if (!nodes.length) return '';
  const one = nodes.length === 1;
  return ` Node${one ? '' : 's'} ${nodes.join(', ')} needed a daemon pod while the record was in force: the gated syncs skipped ${one ? 'its' : 'their'} creation (syncDaemonSet writes status only while the expectations are unsatisfied).`;
}
