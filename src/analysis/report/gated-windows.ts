/**
 * The gated windows of the report: each time the controller's expectations record held a
 * ReplicaSet's syncs (from its SetExpectations to the sync that found it satisfied, expired, or
 * to the ReplicaSet's deletion), how it ended, and whether it is a leak.
 *
 * A window is a leak (isLeakWindow) when it ended by expiry, when the ReplicaSet's deletion
 * ended it with counters left, or when it is still open for a cause only the timeout (or the
 * deletion) can clear: creates rejected with NamespaceTerminating counted as successes, an
 * expected-delete pod that lost its controllerRef, or a record older than the 5-minute
 * ExpectationsTimeout (leakCause; the window's note then says "leak: …"). This mirrors
 * SatisfiedExpectations and ControlleeExpectations.isExpired in
 * pkg/controller/controller_utils.go.
 *
 * A snapshot shows no window: when its verdict is gated or leaked, one open window is inferred
 * from it (snapshotWindow), starting at the last sign of progress (or the namespace deletion).
 *
 * Pure: no I/O, no clock (the end of input is "now"). Each function is O(size of the window's
 * evidence), leakCause O(orphaned pods of the track).
 */
import { EXPECTATIONS_TIMEOUT_MS } from '../../model/expectations.js';
import { FIRST_CALL_MS } from '../engine/evidence-oracle.js';
import { iso } from '../iso.js';
import type { RsTrack, WindowTrack } from '../engine/rs-track.js';
import type { Basis, GatedWindow, VerdictState } from '../report-types.js';
import { refs } from './evidence-refs.js';
import type { SnapshotState } from './snapshot-state.js';
import { ownerWords, type OwnerWords } from './owner-words.js';
import { fmtDuration, plural } from './wording.js';

/** How an open window's note names its leak cause. */
const LEAK_NOTE = 'leak: ';

/** The note part that marks an open window as a leak (isLeakWindow reads it), for `cause`. */
export function leakNote(cause: string): string {
  return `${LEAK_NOTE}${cause}`;
}

/**
 * Whether a reported window is an expectation leak: ended by expiry, ended by the
 * ReplicaSet's deletion with counters left, or still open with a leak cause (see leakCause).
 */
export function isLeakWindow(w: GatedWindow): boolean {
  if (w.endedBy === 'expired') return true;
  if (w.endedBy === 'rs-deleted') return Boolean(w.remaining && (w.remaining.add > 0 || w.remaining.del > 0));
  return w.endedBy === 'open' && (w.note ?? '').includes(LEAK_NOTE);
}

/**
 * True when what a window still waits for may never have been made: the round's calls whose
 * outcome the input never showed cover the outstanding counters. Nothing is built on such a window.
 */
export function restsOnUndecided(t: RsTrack, w: WindowTrack): boolean {
  const rnd = w.round !== undefined ? t.rounds[w.round] : undefined;
  const undecided = rnd?.unresolved ?? 0;
  const rem = w.remaining ?? t.record ?? { add: w.raised.add, del: w.raised.del };
  return undecided > 0 && undecided >= Math.max(0, rem.add) + Math.max(0, rem.del);
}

/**
 * A window opened only by kexp's own first sync of an owner that existed before the input began
 * (its initial LIST, a snapshot) whose round the input never shows, though it ran on long enough
 * (`end`: FIRST_CALL_MS past the sync, by when a round's first calls are out) to show one: the
 * controller's informer had the owner all along and nothing enqueued it then, so that sync is
 * kexp's, not the controller's — no round is known to be in flight. What the input shows is the
 * owner wanting pods the controller did not make while the input lasted; why (a record Set before
 * the input whose pods it never observed, no sync since, creates failing with Events already gone)
 * it cannot tell.
 */
export function unseenBeforeInput(t: RsTrack, w: WindowTrack, end: number | undefined): boolean {
  return !t.createdInCoverage && w.setAt === t.firstSetAt && w.endedBy === undefined && end !== undefined && end - w.start >= FIRST_CALL_MS && restsOnUndecided(t, w);
}

/**
 * Deletes answered 404 that the controller counted as made (RealPodControl.DeletePod swallowed
 * NotFound before v1.19): the record waits for deletions it will not see again.
 */
export function notFoundKeptCause(keys: readonly string[]): string {
  const one = keys.length === 1;
  return `the delete of ${keys.join(', ')} was answered 404 NotFound (another actor had already deleted ${one ? 'it' : 'them'}) and counted as made — RealPodControl.DeletePod swallowed NotFound before v1.19 (kubernetes#91008) — so \`del\` was never lowered and the record waits for ${one ? 'a deletion' : 'deletions'} the informer had already delivered or never will`;
}

/** Is an open window a leak that only the timeout (or the owner's deletion) can clear? `o`: the owner's words. */
export function leakCause(t: RsTrack, w: WindowTrack, end: number, o: OwnerWords = ownerWords('rs')): string | undefined {
  if ((w.namespaceTerminating ?? 0) > 0 && (w.remaining?.add ?? 0) > 0) {
    return `${plural(w.namespaceTerminating!, 'create')} rejected with NamespaceTerminating were ${o.namespaceTerminatingCreates}, so no pod will ever be observed for them`;
  }
  if ((w.timedOut ?? 0) > 0 && (w.remaining?.add ?? 0) > 0) {
    return `${plural(w.timedOut!, 'create')} that timed out (504) ${w.timedOut === 1 ? 'was' : 'were'} counted as ${w.timedOut === 1 ? 'a success' : 'successes'} (${o.manage} before v1.18, ${o.timeoutReport}), so the record waits for ${w.timedOut === 1 ? 'a pod' : 'pods'} that may never be observed`;
  }
  if ((w.notFoundKept?.length ?? 0) > 0 && (w.remaining?.del ?? 0) > 0) {
    return notFoundKeptCause(w.notFoundKept!);
  }
  const terminating = t.addedTerminating.filter((a) => a.setAt === w.setAt);
  if (terminating.length > 0 && (w.remaining?.add ?? t.record?.add ?? 0) > 0) {
    const pods = terminating.map((a) => a.pod).join(', ');
    return `${pods} reached the controller already terminating: its addPod hands a pod first seen with a deletionTimestamp to deletePod, so ${terminating.length === 1 ? 'that creation was' : 'those creations were'} never counted and the record waits for ${terminating.length === 1 ? 'a pod' : 'pods'} it will not see (kubernetes#136932)`;
  }
  const orphaned = t.orphanedExpected.filter((o) => o.at >= w.start);
  if (orphaned.length > 0 && (w.remaining?.del ?? 0) > 0) {
    return `expected-delete pod ${orphaned.map((o) => o.podKey).join(', ')} lost its controllerRef before its deletion was observed, so the deletion can no longer be credited`;
  }
  if (end - w.setAt > EXPECTATIONS_TIMEOUT_MS) {
    return `the record has been unfulfilled for ${fmtDuration(end - w.setAt)}, longer than the 5-minute ExpectationsTimeout`;
  }
  return undefined;
}

/**
 * One window as the report shows it. An open window takes the record's counters at the end of
 * input as what remains (written back to `w.remaining`: the findings read them after this).
 */
export function windowReport(t: RsTrack, w: WindowTrack, end: number | undefined, o: OwnerWords = ownerWords('rs')): GatedWindow {
  const open = w.endedBy === undefined;
  // The round's evidence may have firmed up after the window opened (a long round observed to the end).
  const roundBasis = w.round !== undefined ? t.rounds[w.round]?.evidence?.basis : undefined;
  const basis: Basis = w.gapInside || w.notFoundUnconfirmed ? 'unknown' : (roundBasis ?? w.basis);
  if (open && t.record) w.remaining = { add: t.record.add, del: t.record.del, ...(w.remaining?.keys ? { keys: w.remaining.keys } : {}) };
  const out: GatedWindow = {
    start: iso(w.start)!,
    end: open ? undefined : iso(w.end),
    endedBy: open ? 'open' : w.endedBy!,
    basis,
    raised: w.raised.keys ? { add: w.raised.add, del: w.raised.del, keys: w.raised.keys } : { add: w.raised.add, del: w.raised.del },
    gatedSyncs: w.gatedSyncs,
    evidence: refs(w.evidence),
  };
  if (w.fulfilledAt !== undefined) out.fulfilledAt = iso(w.fulfilledAt);
  if (w.remaining && (w.endedBy !== 'fulfilled')) out.remaining = w.remaining;
  if (open) out.expiresAt = iso(w.setAt + EXPECTATIONS_TIMEOUT_MS);
  const stop = open ? end : w.end;
  if (stop !== undefined) out.durationMs = Math.round(stop - w.start);
  const notes: string[] = [];
  const rnd = w.round !== undefined ? t.rounds[w.round] : undefined;
  const note = rnd ? (rnd.evidence?.note ?? rnd.sync.delete?.note) : w.note;
  if (note) notes.push(note);
  if (w.gapInside) notes.push('the input has a gap inside this window');
  if (open && end !== undefined) {
    const cause = leakCause(t, w, end, o);
    if (cause) notes.push(leakNote(cause));
  }
  if (notes.length) out.note = notes.join('; ');
  return out;
}

/** The window a snapshot's gated or leaked verdict implies (the controller's own record is invisible). */
export function snapshotWindow(s: SnapshotState, state: VerdictState): GatedWindow[] {
  const { deletingSince, nsTerminating, nsDeletion, lastSpecChange, lastProgress, now, diff } = s;
  if (!((state === 'leaked' || state === 'gated') && deletingSince === undefined)) return [];
  const start = state === 'leaked' && nsTerminating ? Math.max(nsDeletion ?? 0, lastSpecChange ?? 0) || now : Math.max(lastProgress ?? 0, lastSpecChange ?? 0) || now;
  return [{
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
  }];
}
