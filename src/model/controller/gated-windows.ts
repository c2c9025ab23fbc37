/**
 * Gated windows: the spans in which a controller's expectations record held its syncs back,
 * per owner key. One state machine, fed by both readers of the expectations bookkeeping: the
 * engine (window-tracker.ts, from the model's ExpectationsLogLine) and the KCM-log ground truth
 * (sources/kcm-log/ground-truth.ts, from a real kube-controller-manager log). Kind-agnostic.
 *
 * Mirrors the record's life in pkg/controller/controller_utils.go: SetExpectations replaces the
 * record (ExpectCreations / ExpectDeletions), LowerExpectations walks it down (CreationObserved /
 * DeletionObserved), SatisfiedExpectations — called once at the start of every sync — lets the
 * sync through when the record is fulfilled (add ≤ 0 && del ≤ 0), expired (older than
 * ExpectationsTimeout) or absent, and otherwise refuses it; DeleteExpectations removes it, and
 * the store is process-local (a restart starts every key with no record).
 *
 * States of one key, and transitions (the only writes to `open`/`windows` of a slot):
 *
 *   NONE ──set(unfulfilled)──────────────────────────────▶ OPEN
 *   NONE ──synced(still-waiting), openAtGatedSync────────▶ OPEN (startedBy gated-sync: the input starts inside it)
 *   OPEN ──synced(still-waiting)─────────────────────────▶ OPEN, gatedSyncs + 1
 *   OPEN ──lowered(to fulfilled), fulfilledAt unset───────▶ OPEN, fulfilledAt = at (the next sync passes)
 *   OPEN ──raised(to unfulfilled)─────────────────────────▶ OPEN, fulfilledAt cleared
 *   OPEN ──synced(fulfilled | never-recorded)────────────▶ NONE, ended `fulfilled`
 *   OPEN ──synced(expired)───────────────────────────────▶ NONE, ended `expired` (the caller keeps what remained)
 *   OPEN ──ended(deleted)────────────────────────────────▶ NONE, ended `deleted` (DeleteExpectations)
 *   OPEN ──ended(reset)──────────────────────────────────▶ NONE, ended `reset` (the store restarted)
 *   OPEN ──closeFulfilled()──────────────────────────────▶ NONE, ended `fulfilled` at fulfilledAt
 *   OPEN ──set, onSetWhileOpen 'supersede'───────────────▶ NONE, ended `superseded`; then as from NONE
 *   OPEN ──set(unfulfilled), onSetWhileOpen 'replace'────▶ OPEN (a new window; the old one is dropped)
 *   OPEN ──set(fulfilled), onSetWhileOpen 'replace'──────▶ OPEN (unchanged)
 *   NONE ──anything else─────────────────────────────────▶ NONE
 *
 * The two feeds differ, and the differences are options, not forks: a real log may begin inside
 * a window and may miss the sync line between two Sets (`openAtGatedSync`, 'supersede'); the
 * model logs every sync, so the engine opens windows only at a Set ('replace'). Only the engine
 * calls `raised` (the view alignment gives a lower back; the ReplicaSet controller never calls
 * RaiseExpectations) and `closeFulfilled` (at the end of its input).
 *
 * Contract: the caller owns the window objects (`make`) and where they live (`slot`: the open
 * window and the closed ones, in order); the machine writes `start`-time fields only through
 * `make`, and `gatedSyncs`, `fulfilledAt`, `end` itself; `ended` names the end in the caller's
 * vocabulary. `C` is the caller's context for one transition (its source line, what remained),
 * handed through to `make` and `ended` unchanged. Counters are `undefined` when not known.
 *
 * Cost: O(1) per transition; memory is the caller's windows. Pure: no I/O, no clock.
 */
import { isFulfilled, type SatisfiedOutcome } from '../expectations.js';

/** What the machine reads and writes of a caller's window. */
export interface WindowCore {
  start: number;
  gatedSyncs: number;
  /** When the counters first reached add ≤ 0 && del ≤ 0 inside the window. */
  fulfilledAt?: number;
  end?: number;
}

/** Where one key's windows live: the open one, and the closed ones in the order they ended. */
export interface WindowSlot<W> {
  open?: W;
  windows: W[];
}

/** How a window ended. */
export type GatedWindowEnd = 'fulfilled' | 'expired' | 'deleted' | 'reset' | 'superseded';

/** How a window started: at the Set, or at a refused sync (the input began inside it). */
export type GatedWindowStart = 'set' | 'gated-sync';

export interface Counters {
  add: number;
  del: number;
}

export interface GatedWindowsConfig<W extends WindowCore, C> {
  /** Open a window at a refused sync when none is open (a log that starts inside one). */
  openAtGatedSync: boolean;
  /**
   * A Set while a window is open: 'supersede' ends it as `superseded` (a log missing the sync
   * line between them); 'replace' drops it for the Set's new window, or keeps it when the Set
   * leaves the record fulfilled (the model, which logs every sync).
   */
  onSetWhileOpen: 'supersede' | 'replace';
  /** The windows of `key`. */
  slot(key: string): WindowSlot<W>;
  /** A new window starting at `at`; `counts` are the Set's, when known. */
  make(at: number, by: GatedWindowStart, counts: Counters | undefined, ctx: C): W;
  /** Names the end of `w` (already given its `end`) in the caller's vocabulary. */
  ended(w: W, how: GatedWindowEnd, ctx: C): void;
}

export class GatedWindows<W extends WindowCore, C> {
  constructor(private readonly cfg: GatedWindowsConfig<W, C>) {}

  /** The open window of `key`, if any. */
  open(key: string): W | undefined {
    return this.cfg.slot(key).open;
  }

  /** SetExpectations replaced the record (`counts` undefined: not known, taken as unfulfilled). Returns the window it opened. */
  set(key: string, at: number, counts: Counters | undefined, ctx: C): W | undefined {
    const slot = this.cfg.slot(key);
    const unfulfilled = counts === undefined || !isFulfilled(counts);
    if (this.cfg.onSetWhileOpen === 'supersede') this.close(slot, at, 'superseded', ctx);
    if (!unfulfilled) return undefined;
    const w = this.cfg.make(at, 'set', counts, ctx);
    slot.open = w;
    return w;
  }

  /**
   * LowerExpectations left the record at `counts` (undefined: not known). Returns true when this
   * lower fulfilled the open window's record (its fulfilledAt is now `at`).
   */
  lowered(key: string, at: number, counts: Counters | undefined): boolean {
    const w = this.cfg.slot(key).open;
    if (!w || w.fulfilledAt !== undefined || counts === undefined || !isFulfilled(counts)) return false;
    w.fulfilledAt = at;
    return true;
  }

  /**
   * RaiseExpectations left the record at `counts`: an open window is no longer fulfilled.
   * Returns whether the record is unfulfilled (the caller may reopen a window it closed).
   */
  raised(key: string, counts: Counters): boolean {
    if (isFulfilled(counts)) return false;
    const w = this.cfg.slot(key).open;
    if (w) w.fulfilledAt = undefined;
    return true;
  }

  /** SatisfiedExpectations decided a sync. Returns the window it opened, counted or ended. */
  synced(key: string, at: number, outcome: SatisfiedOutcome, ctx: C): W | undefined {
    const slot = this.cfg.slot(key);
    if (outcome === 'still-waiting') {
      if (!slot.open && this.cfg.openAtGatedSync) slot.open = this.cfg.make(at, 'gated-sync', undefined, ctx);
      if (slot.open) slot.open.gatedSyncs++;
      return slot.open;
    }
    return this.close(slot, at, outcome === 'expired' ? 'expired' : 'fulfilled', ctx);
  }

  /** The record was removed: DeleteExpectations (`deleted`) or a new store (`reset`). Returns the window it ended. */
  removed(key: string, at: number, how: 'deleted' | 'reset', ctx: C): W | undefined {
    return this.close(this.cfg.slot(key), at, how, ctx);
  }

  /** End of input: ends the open window of `key` as `fulfilled` at its fulfilledAt, if it has one. */
  closeFulfilled(key: string, ctx: C): W | undefined {
    const slot = this.cfg.slot(key);
    const at = slot.open?.fulfilledAt;
    return at === undefined ? undefined : this.close(slot, at, 'fulfilled', ctx);
  }

  private close(slot: WindowSlot<W>, at: number, how: GatedWindowEnd, ctx: C): W | undefined {
    const w = slot.open;
    if (!w) return undefined;
    w.end = at;
    this.cfg.ended(w, how, ctx);
    slot.windows.push(w);
    slot.open = undefined;
    return w;
  }
}
