/**
 * The gated windows and expectation changes of each ReplicaSet, read from the model's
 * expectations store as it changes. The store (src/model/expectations.ts) logs every operation
 * like the V4 lines of ControllerExpectations in pkg/controller/controller_utils.go; this stage
 * turns that log into each track's record, its changes (bounded), and its windows: a window
 * opens at a Set that raises `add` or `del`, counts the syncs SatisfiedExpectations refuses, and
 * closes when the record is fulfilled, expires, or is deleted or reset.
 *
 * The window rules themselves (when a window opens, counts a refused sync, is fulfilled, ends)
 * are the shared state machine of src/model/controller/gated-windows.ts, fed here with
 * `onSetWhileOpen: 'replace'` and no window opened at a refused sync (the model logs every sync
 * from the start). What is the engine's own stays here: the record and its bounded change
 * history, the provenance and evidence of each window, the expired syncs, and the view
 * alignment's reopening of a window on a raise.
 *
 * Contract: `drain()` consumes the store's log since the last call; the engine calls it after
 * everything that can change the store (syncs, deliveries, resets, raises), so changes are
 * attributed to the event being delivered or the key's last trigger (provenance.ts). `finish()`
 * closes, at the end of input, a window whose counters reached zero before a next sync came.
 * Writes the expectation fields of RsTrack (rs-track.ts).
 *
 * Cost: O(1) per log line (O(keys) for a delete-keys line); changes are capped per track at
 * `maxChanges` (older ones are counted, not kept). Pure: no I/O, no clock.
 */
import { GatedWindows, type GatedWindowEnd } from '../../model/controller/gated-windows.js';
import { EXPECTATIONS_TIMEOUT_MS, type ExpectationsLogLine } from '../../model/expectations.js';
import type { SourceRef } from '../../timeline/event.js';
import type { EngineController } from './engine-controller.js';
import type { Provenance } from './provenance.js';
import type { ExpectationChangeTrack, RsTrack, RsTracks, WindowTrack } from './rs-track.js';

/** What one transition hands the window machine: the line's source, and what remained at an end. */
interface LineContext {
  src?: SourceRef;
  remaining?: WindowTrack['remaining'];
}

/** The machine's ends as the report names them (a window is never superseded here: 'replace'). */
const ENDED_BY: Record<Exclude<GatedWindowEnd, 'superseded'>, NonNullable<WindowTrack['endedBy']>> = {
  fulfilled: 'fulfilled',
  expired: 'expired',
  deleted: 'rs-deleted',
  reset: 'reset',
};

export class WindowTracker {
  private readonly gates: GatedWindows<WindowTrack, LineContext>;
  /**
   * Per key: the syncs the model let through on its record (fulfilled) since that record's Set —
   * were the window reopened from its fulfilment (onRaised), the controller refused them: its
   * record still waited. Cleared at each Set; a handful per key.
   */
  private readonly passedOnRecord = new Map<string, Array<{ at: number; pod?: string }>>();
  /**
   * Whether kexp now holds a pod back as unobserved by the controller (view-alignment.ts): a sync
   * its event triggered never ran in the controller.
   */
  private heldPod: (pk: string) => boolean = () => false;

  /** Wires the view alignment's held pods (it is built after the tracker). */
  setHeldPods(held: (pk: string) => boolean): void {
    this.heldPod = held;
  }

  /** Whether the sync of `key` now running was triggered only by the event of a pod the controller had not observed (held). */
  triggeredUnseen(key: string): boolean {
    const pod = this.provenance.triggerPod(key);
    return pod !== undefined && this.heldPod(pod);
  }

  constructor(
    private readonly tracks: RsTracks,
    private readonly controller: Pick<EngineController, 'expectations'>,
    private readonly provenance: Provenance,
    /** Max expectation changes kept per ReplicaSet. */
    private readonly maxChanges: number,
  ) {
    this.gates = new GatedWindows<WindowTrack, LineContext>({
      openAtGatedSync: false,
      onSetWhileOpen: 'replace',
      slot: (key) => this.tracks.of(key),
      make: (at, _by, counts, ctx) => ({
        start: at, setAt: at, raised: { add: counts?.add ?? 0, del: counts?.del ?? 0 }, basis: 'inferred', gatedSyncs: 0,
        evidence: ctx.src ? [ctx.src] : [],
      }),
      ended: (w, how, ctx) => {
        if (how === 'superseded') throw new Error('window-tracker: a Set replaces an open window, it never supersedes it');
        w.endedBy = ENDED_BY[how];
        w.remaining = ctx.remaining;
        // A window that ended (e.g. at its fulfilment) before the gap has no gap inside it.
        if (w.gapAt !== undefined && w.end !== undefined && w.end < w.gapAt) w.gapInside = undefined;
      },
    });
  }

  /** Consumes the expectations store's log since the last call. */
  drain(): void {
    const log = this.controller.expectations.log;
    for (const l of log) this.onLine(l);
    log.length = 0;
  }

  /** End of input: a window whose counters reached zero but whose next sync falls after the end is not gating any more. */
  finish(): void {
    // (e.g. a recording stopped right after the last ADD)
    for (const t of this.tracks.values()) {
      if (t.open && t.open.fulfilledAt !== undefined && t.record && t.record.add <= 0 && t.record.del <= 0) {
        t.open.note = 'fulfilled by the last observations; the input ends before the next sync';
        this.gates.closeFulfilled(t.key, {});
      }
    }
  }

  /** Appends a change, or inserts it in time order when it is dated back (a raise reopening a window). */
  private recordChange(t: RsTrack, c: ExpectationChangeTrack): void {
    if (t.changes.length >= this.maxChanges) {
      t.changesDropped++;
      t.changes.shift();
    }
    let i = t.changes.length;
    while (i > 0 && t.changes[i - 1]!.at > c.at) i--;
    t.changes.splice(i, 0, c);
  }

  private onLine(l: ExpectationsLogLine): void {
    const t = this.tracks.of(l.key);
    const src = this.provenance.sourceFor(l.key);
    switch (l.kind) {
      case 'setting-expectations':
        // A Set fulfilled at once (a DaemonSet's every satisfied sync Sets 0/0) gates nothing: the
        // syncs passed before it stay counted for a reopening of the window before it.
        if ((l.add ?? 0) > 0 || (l.del ?? 0) > 0) this.passedOnRecord.delete(l.key);
        t.record = { add: l.add ?? 0, del: l.del ?? 0, timestamp: l.at };
        t.firstSetAt ??= l.at;
        this.recordChange(t, { at: l.at, op: 'set', add: l.add, del: l.del, source: src });
        this.gates.set(l.key, l.at, { add: l.add ?? 0, del: l.del ?? 0 }, { src });
        break;
      case 'lowered-expectations':
        if (t.record) {
          t.record.add = l.add ?? 0;
          t.record.del = l.del ?? 0;
        }
        this.recordChange(t, { at: l.at, op: 'lower', add: l.add, del: l.del, source: src });
        if (this.gates.lowered(l.key, l.at, { add: l.add ?? 0, del: l.del ?? 0 })) {
          if (src && t.open!.evidence.length < 20) t.open!.evidence.push(src);
        } else if (t.open && src && t.open.evidence.length < 20 && this.provenance.current) {
          t.open.evidence.push(src);
        }
        break;
      case 'raised-expectations':
        this.onRaised(t, l, src);
        break;
      case 'waiting-on-deletions':
        t.chosen = new Map((l.keys ?? []).map((k) => [k, '']));
        break;
      case 'clobbering-delete-keys':
        t.clobbers.push({ at: l.at, keys: l.keys ?? [], source: src });
        this.recordChange(t, { at: l.at, op: 'clobber', keys: l.keys, source: src });
        break;
      case 'received-delete':
        this.recordChange(t, { at: l.at, op: 'received-delete', keys: l.keys, source: src });
        break;
      case 'deleted-expectations':
      case 'store-reset': {
        const rem = t.record ? { add: t.record.add, del: t.record.del } : undefined;
        this.recordChange(t, { at: l.at, op: 'delete', source: src });
        this.gates.removed(l.key, l.at, l.kind === 'store-reset' ? 'reset' : 'deleted', { src, remaining: rem });
        t.record = undefined;
        t.chosen = new Map();
        break;
      }
      case 'expectations-fulfilled':
      case 'never-recorded':
        if (l.kind === 'expectations-fulfilled' && t.record) {
          const passed = this.passedOnRecord.get(l.key) ?? [];
          const pod = this.provenance.triggerPod(l.key);
          if (passed.length < 1000) passed.push({ at: l.at, ...(pod !== undefined ? { pod } : {}) });
          this.passedOnRecord.set(l.key, passed);
        }
        this.gates.synced(l.key, l.at, l.kind === 'never-recorded' ? 'never-recorded' : 'fulfilled', { src });
        break;
      case 'expectations-expired': {
        // The keys as the expiry left them (the line carries them, none when it has no keys): by
        // this drain the sync's next round may have replaced them.
        const rem = { add: l.add ?? 0, del: l.del ?? 0, keys: l.keys ?? [] };
        t.expiredSyncs.push({ at: l.at, add: rem.add, del: rem.del });
        this.gates.synced(l.key, l.at, 'expired', { src, remaining: rem });
        break;
      }
      case 'still-waiting': {
        // A sync only the event of a pod the controller had not observed (held) triggered never ran
        // in the controller — its informer never delivered that event — so it was no gated sync of its.
        if (this.triggeredUnseen(l.key)) break;
        this.gates.synced(l.key, l.at, 'still-waiting', { src });
        break;
      }
      default:
        break;
    }
  }

  /**
   * Only the view alignment raises (the RS controller never calls RaiseExpectations): a lower
   * kexp's model made for a pod the controller had not observed is given back.
   */
  private onRaised(t: RsTrack, l: ExpectationsLogLine, src: ReturnType<Provenance['sourceFor']>): void {
    if (t.record) {
      t.record.add = l.add ?? 0;
      t.record.del = l.del ?? 0;
      // A record put back (ControllerExpectations.restore): the Sets the model made since never happened.
      if (l.setAt !== undefined) t.record.timestamp = l.setAt;
    }
    const change: ExpectationChangeTrack = { at: l.at, op: 'raise', add: l.add, del: l.del, source: src };
    if (this.gates.raised(l.key, { add: l.add ?? 0, del: l.del ?? 0 }) && !t.open) {
      const last = t.windows[t.windows.length - 1];
      if (last && t.record && last.setAt === t.record.timestamp && last.endedBy === 'fulfilled') {
        // Fulfilled only in kexp's replay: the controller was still waiting — from that fulfilment
        // on (its informer delivers in order and never takes a pod back that still exists), so the
        // change log gives the lower back there, not only now that kexp learned it.
        const from = last.fulfilledAt ?? last.end;
        if (from !== undefined && from < change.at) {
          change.learnedAt = change.at;
          change.at = from;
          // A record put back (restore): the Sets the model made since — fulfilled at once — and the
          // lowers it applied to them never happened; the change log drops them with the passes.
          if (l.setAt !== undefined) {
            t.changes = t.changes.filter((c) => !(c.at >= from && c.at <= change.learnedAt! && (c.op === 'lower' || (c.op === 'set' && (c.add ?? 0) <= 0 && (c.del ?? 0) <= 0))));
          }
        }
        t.windows.pop();
        // The syncs the model let through since then, while the record was in force, were refused by
        // the controller (gated syncs of this window) — but for those a held pod's event triggered:
        // the controller never had it. Past the timeout a sync passes anyway.
        const expires = t.record.timestamp + EXPECTATIONS_TIMEOUT_MS;
        const refused = (this.passedOnRecord.get(l.key) ?? []).filter((p) => (from === undefined || p.at >= from) && p.at < expires && !(p.pod !== undefined && this.heldPod(p.pod))).length;
        this.passedOnRecord.delete(l.key);
        last.gatedSyncs += refused;
        delete last.end;
        delete last.endedBy;
        delete last.fulfilledAt;
        last.note = [last.note, 'kexp had closed this window when the input showed the pods; the controller\'s status writes show its informer had not delivered them, so it was still waiting'].filter(Boolean).join('; ');
        t.open = last;
      }
    }
    this.recordChange(t, change);
  }
}
