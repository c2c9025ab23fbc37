/**
 * Reads the input into the engine's look-ahead (lookahead-buffer.ts): events up to the match
 * window ahead of the one being delivered, so the evidence oracle can see a sync's consequences
 * while memory stays bounded by the window, not the input.
 *
 * Contract: `pull()` reads one event; it returns false only at the end of input (`exhausted`
 * from then on). `pullSync()` does the same without a promise when the input has the event at
 * hand, else returns undefined (then `pull()`). Each event is shape-checked before anything reads it (an event that fails is
 * reported through `onInvalidEvent` at its FILE:LINE and never enters the buffer), projected as
 * the controller's informers keep it (informer-transform.ts), and entered into the write ledger
 * as it joins the buffer, so a write has its identity before any sync looks for it.
 * `wantsMore(e)` says whether the buffer does not yet reach `matchWindowMs` past `e`.
 * `lookahead(scan)` is the oracle's read access (`scan`: answer by scanning, not by the index —
 * tests only).
 *
 * Cost: O(1) per event plus the shape check, the projection and the ledger's entry; the buffer
 * holds at most the match window of events. No I/O of its own: it pulls from the async
 * iterator the driver is given.
 */
import type { TimelineEvent } from '../../timeline/event.js';
import type { SourceRef } from '../../timeline/event.js';
import { invalidObservedObject, invalidWriteBody } from '../../timeline/validate.js';
import type { Lookahead } from './evidence-window.js';
import { informerView } from './informer-transform.js';
import { LookaheadBuffer } from './lookahead-buffer.js';
import { syncNextOf } from '../../timeline/sync-next.js';
import type { WriteLedger } from './write-ledger.js';
import { REPLICA_SET_OWNER, type EngineOwnerKind } from './engine-controller.js';

export class EventFeed {
  /** The look-ahead: events up to the match window ahead, indexed by object. */
  readonly buffer: LookaheadBuffer;
  private readonly it: AsyncIterator<TimelineEvent>;
  private readonly nextSync: (() => IteratorResult<TimelineEvent> | undefined) | undefined;
  private done = false;

  constructor(
    events: AsyncIterable<TimelineEvent>,
    private readonly ledger: Pick<WriteLedger, 'enter'>,
    private readonly matchWindowMs: number,
    private readonly onInvalidEvent?: (source: SourceRef, message: string) => void,
    owner: EngineOwnerKind = REPLICA_SET_OWNER,
  ) {
    this.buffer = new LookaheadBuffer(owner);
    this.it = events[Symbol.asyncIterator]();
    this.nextSync = syncNextOf(this.it);
  }

  /** True once the input has been read to its end (the buffer holds everything left). */
  get exhausted(): boolean {
    return this.done;
  }

  /** Whether the input may still hold events within the match window after `e`. */
  wantsMore(e: TimelineEvent): boolean {
    return !this.done && this.buffer.last()!.at <= e.at + this.matchWindowMs;
  }

  /** The oracle's read access to the buffer (`scan`: never the index). */
  lookahead(coverageEnd: () => number | undefined, scan = false): Lookahead {
    const buf = this.buffer;
    return {
      upcoming: () => buf.iterate(),
      exhausted: () => this.done,
      coverageEnd,
      ...(scan ? {} : { keyed: (key, from, to, stop) => buf.keyed(key, from, to, stop), ordered: () => buf.ordered() }),
    };
  }

  /**
   * `pull` without a promise when the input has its next event at hand (an iterator with
   * `nextSync`, timeline/sync-next.ts): as `pull`, or undefined when it must wait (call `pull`).
   */
  pullSync(): boolean | undefined {
    if (this.done) return false;
    const r = this.nextSync?.();
    return r === undefined ? undefined : this.take(r);
  }

  /** Reads one event into the buffer (or past it, when invalid); false at the end of input. */
  async pull(): Promise<boolean> {
    if (this.done) return false;
    return this.take(await this.it.next());
  }

  private take(r: IteratorResult<TimelineEvent>): boolean {
    if (r.done) {
      this.done = true;
      return false;
    }
    // Shape checks before anything reads the event (the oracle's and the ledger's look-ahead
    // too): an event that fails is reported at its FILE:LINE and never enters the buffer.
    if (r.value.type === 'observed' || r.value.type === 'write') {
      const why = r.value.type === 'observed' ? invalidObservedObject(r.value) : invalidWriteBody(r.value);
      if (why) {
        this.onInvalidEvent?.(r.value.source, why);
        return true;
      }
    }
    const ev = informerView(r.value);
    this.buffer.push(ev);
    try {
      this.ledger.enter(ev);
    } catch {
      // A shape the ledger cannot read: the engine reports it when the event is delivered.
    }
    return true;
  }
}
