/**
 * The gated windows and expectation changes of each ReplicaSet, read from the model's
 * expectations store as it changes. The store (src/model/expectations.ts) logs every operation
 * like the V4 lines of ControllerExpectations in pkg/controller/controller_utils.go; this stage
 * turns that log into each track's record, its changes (bounded), and its windows: a window
 * opens at a Set that raises `add` or `del`, counts the syncs SatisfiedExpectations refuses, and
 * closes when the record is fulfilled, expires, or is deleted or reset.
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
import type { ExpectationsLogLine } from '../../model/expectations.js';
import type { EngineController } from './engine-controller.js';
import type { Provenance } from './provenance.js';
import type { ExpectationChangeTrack, RsTrack, RsTracks, WindowTrack } from './rs-track.js';

export class WindowTracker {
  constructor(
    private readonly tracks: RsTracks,
    private readonly controller: Pick<EngineController, 'expectations'>,
    private readonly provenance: Provenance,
    /** Max expectation changes kept per ReplicaSet. */
    private readonly maxChanges: number,
  ) {}

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
        this.closeWindow(t, t.open.fulfilledAt, 'fulfilled');
      }
    }
  }

  private recordChange(t: RsTrack, c: ExpectationChangeTrack): void {
    if (t.changes.length >= this.maxChanges) {
      t.changesDropped++;
      t.changes.shift();
    }
    t.changes.push(c);
  }

  private closeWindow(t: RsTrack, at: number, endedBy: WindowTrack['endedBy'], remaining?: WindowTrack['remaining']): void {
    const w = t.open;
    if (!w) return;
    w.end = at;
    w.endedBy = endedBy;
    w.remaining = remaining;
    t.windows.push(w);
    t.open = undefined;
  }

  private onLine(l: ExpectationsLogLine): void {
    const t = this.tracks.of(l.key);
    const src = this.provenance.sourceFor(l.key);
    switch (l.kind) {
      case 'setting-expectations':
        t.record = { add: l.add ?? 0, del: l.del ?? 0, timestamp: l.at };
        t.firstSetAt ??= l.at;
        this.recordChange(t, { at: l.at, op: 'set', add: l.add, del: l.del, source: src });
        if ((l.add ?? 0) > 0 || (l.del ?? 0) > 0) {
          t.open = {
            start: l.at, setAt: l.at, raised: { add: l.add ?? 0, del: l.del ?? 0 }, basis: 'inferred', gatedSyncs: 0,
            evidence: src ? [src] : [],
          };
        }
        break;
      case 'lowered-expectations':
        if (t.record) {
          t.record.add = l.add ?? 0;
          t.record.del = l.del ?? 0;
        }
        this.recordChange(t, { at: l.at, op: 'lower', add: l.add, del: l.del, source: src });
        if (t.open && t.open.fulfilledAt === undefined && (l.add ?? 0) <= 0 && (l.del ?? 0) <= 0) {
          t.open.fulfilledAt = l.at;
          if (src && t.open.evidence.length < 20) t.open.evidence.push(src);
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
        if (t.open) this.closeWindow(t, l.at, l.kind === 'store-reset' ? 'reset' : 'rs-deleted', rem);
        t.record = undefined;
        t.chosen = new Map();
        break;
      }
      case 'expectations-fulfilled':
      case 'never-recorded':
        if (t.open) this.closeWindow(t, l.at, 'fulfilled');
        break;
      case 'expectations-expired': {
        const rem = { add: l.add ?? 0, del: l.del ?? 0, keys: this.controller.expectations.getDeleteKeys(l.key) };
        t.expiredSyncs.push({ at: l.at, add: rem.add, del: rem.del });
        if (t.open) this.closeWindow(t, l.at, 'expired', rem);
        break;
      }
      case 'still-waiting':
        if (t.open) t.open.gatedSyncs++;
        break;
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
    }
    this.recordChange(t, { at: l.at, op: 'raise', add: l.add, del: l.del, source: src });
    if ((l.add ?? 0) > 0 || (l.del ?? 0) > 0) {
      if (t.open) t.open.fulfilledAt = undefined;
      else {
        const last = t.windows[t.windows.length - 1];
        if (last && t.record && last.setAt === t.record.timestamp && last.endedBy === 'fulfilled') {
          // Fulfilled only in kexp's replay: the controller was still waiting.
          t.windows.pop();
          delete last.end;
          delete last.endedBy;
          delete last.fulfilledAt;
          last.note = [last.note, 'kexp had closed this window when the input showed the pods; the controller\'s status writes show its informer had not delivered them, so it was still waiting'].filter(Boolean).join('; ');
          t.open = last;
        }
      }
    }
  }
}
