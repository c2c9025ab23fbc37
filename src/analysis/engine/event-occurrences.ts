/**
 * Occurrences of core/v1 Events as evidence of the controller's calls. The EventCorrelator
 * (client-go tools/record/events_cache.go) aggregates repeats of one Event into a count, so one
 * Event object stands for `count` occurrences; each occurrence explains at most one call.
 *
 * Contract:
 * - `observe` is called for every Event the engine delivers: occurrences up to its count
 *   happened before the sync that looks ahead now, so they are not this sync's;
 * - `take(ev, max)` takes up to `max` occurrences of `ev` that neither an earlier round used
 *   nor a delivery showed, and returns how many it took;
 * - `takeWarnings` scans the match window for occurrences of one reason about one ReplicaSet
 *   (FailedCreate, FailedDelete) and takes them for a round, claiming them in the write ledger;
 * - `sawEvents` says whether the input delivered any Event (a missing FailedCreate then means
 *   no failure).
 *
 * Cost: O(1) per observation and per taken occurrence; a scan walks the ReplicaSet's Events in
 * the window (indexed). Pure: no I/O, no clock.
 */
import { objectKey, type CoreEvent, type ReplicaSet } from '../../model/objects.js';
import type { SourceRef } from '../../timeline/event.js';
import type { EvidenceWindow } from './evidence-window.js';
import { messageOf, type WriteLedger } from './write-ledger.js';

function eventCount(ev: CoreEvent): number {
  return ev.count ?? 1;
}

export class EventOccurrences {
  /** Event ns/name → occurrences used by rounds. */
  private readonly consumed = new Map<string, number>();
  /** Event ns/name → count delivered. */
  private readonly seen = new Map<string, number>();
  private saw = false;

  constructor(
    private readonly window: EvidenceWindow,
    private readonly ledger?: WriteLedger,
  ) {}

  /** True once the input has delivered any core/v1 Event. */
  get sawEvents(): boolean {
    return this.saw;
  }

  /** An Event the engine delivers. */
  observe(ev: CoreEvent): void {
    this.saw = true;
    const k = objectKey(ev.metadata);
    this.seen.set(k, Math.max(this.seen.get(k) ?? 0, eventCount(ev)));
  }

  /** Takes up to `max` (> 0) unused occurrences of `ev`; returns how many. */
  take(ev: CoreEvent, max: number): number {
    const k = objectKey(ev.metadata);
    const used = Math.max(this.consumed.get(k) ?? 0, this.seen.get(k) ?? 0);
    const avail = eventCount(ev) - used;
    if (avail <= 0) return 0;
    const take = Math.min(avail, max);
    this.consumed.set(k, used + take);
    return take;
  }

  /**
   * Occurrences of Warning events with `reason` about this RS inside the window that no
   * earlier round has used. Aggregated Events count their `count` increments.
   */
  takeWarnings(rs: ReplicaSet, reason: string, at: number, max: number, sources: SourceRef[], messages: string[] = [], round?: number): number {
    let taken = 0;
    for (const e of this.window.indexed(`ev:${rs.metadata.namespace}/${rs.metadata.name}`, at, 1000) ?? this.window.scan(at, 1000)) {
      if (taken >= max) break;
      if (e.type !== 'observed' || e.kind !== 'Event' || e.watchType === 'DELETED') continue;
      const ev = e.object;
      if (ev.reason !== reason) continue;
      const io = ev.involvedObject;
      if (!io || io.kind !== this.window.owner.kind || io.name !== rs.metadata.name || io.namespace !== rs.metadata.namespace) continue;
      if (io.uid && rs.metadata.uid && io.uid !== rs.metadata.uid) continue;
      const take = this.take(ev, max - taken);
      if (take <= 0) continue;
      if (round !== undefined) this.ledger?.claimEventOccurrences(e, take, round);
      taken += take;
      sources.push(e.source);
      for (let i = 0; i < take; i++) messages.push(messageOf(ev, reason).replace(/^\(combined from similar events\): /, ''));
    }
    return taken;
  }
}
