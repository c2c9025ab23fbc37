/**
 * Causal order for events from separate watches of one cluster.
 *
 * A recorder (or an informer) holds one watch per resource; each delivers in resourceVersion
 * order, but across watches the receive order is arbitrary: a pod update caused by a
 * ReplicaSet scale-down can arrive before the scale-down. resourceVersions are etcd revisions,
 * global to the cluster, so where two updates from different resources carry numeric
 * resourceVersions and arrive within `windowMs` of each other, the lower one happened first.
 *
 * Events an apiserver keeps in an etcd of their own count other revisions: once an Event shows it
 * (timeline/event-counter.ts), that file's Events are ordered against Events only.
 *
 * Only updates (MODIFIED, DELETED) are reordered: ADDED events of a list carry the
 * resourceVersion of each object's last write, not of the list. A gap ends the window (a relist
 * is a new starting point). A moved event takes a receive time just before the one it now
 * precedes — MOVED_AHEAD_MS (1 µs, a recording's resolution) earlier, or halfway from the event
 * released before it when that is closer — so the stream stays time-ordered and the two stay
 * apart: the engine collapses events of one instant into one sync (analysis/engine/replay.ts),
 * and a ReplicaSet update must reach the controller's workqueue before the pod deletion its sync
 * caused (a watch resumed after a cut delivers its backlog at once, each resource at its own
 * reconnect: the scale-down would otherwise arrive together with its deletion and no sync could
 * run between them). Only when the event released before has the very same time does the moved
 * one share it. Pure: no I/O, no clock.
 *
 * Cost: O(kinds) per event. Each watch delivers in resourceVersion order, so the lowest
 * buffered revision of a kind is the first buffered update of that kind; a FIFO per kind
 * finds it without scanning the window (the hot path of a million-event replay).
 */
import type { TimelineEvent } from './event.js';
import { Fifo } from './fifo.js';
import { EventCounters } from './event-counter.js';
import { canonicalRevision, dropTaken, lowestHeldBelow } from './resource-version.js';

/** Receive-time distance within which separate watches' updates are ordered by resourceVersion. */
export const CAUSAL_WINDOW_MS = 500;

/** How far before the event it now precedes a moved event is placed (1 µs: a kexp recording's resolution). */
export const MOVED_AHEAD_MS = 0.001;

interface Slot {
  e: TimelineEvent;
  /** Decimal resourceVersion without leading zeros: compared by length, then as text. */
  rv?: string;
  kind?: string;
  /** Its revision counter (event-counter.ts). */
  group?: number;
  taken: boolean;
}

function revision(e: TimelineEvent): string | undefined {
  if (e.type !== 'observed' || (e.watchType !== 'MODIFIED' && e.watchType !== 'DELETED')) return undefined;
  return canonicalRevision(e.object?.metadata?.resourceVersion);
}

/**
 * The causal ordering as a synchronous stage: `push` each event of the time-ordered stream, and
 * the events it releases (in causal order) are appended to `out`; `end` releases the rest. The
 * replay pipeline drives it in batches without a promise per event (src/pipeline/replay-stream.ts).
 */
export class CausalOrder {
  private readonly buf = new Fifo<Slot>();
  private readonly byKind = new Map<string, Fifo<Slot>>();
  /** The queues of `byKind` as an array (scanned per released update). */
  private readonly kinds: Array<{ key: string; q: Fifo<Slot> }> = [];
  /** The time of the last event released (a moved event is never placed before it). */
  private lastAt = -Infinity;
  /** Events shown to count another etcd's revisions are compared with Events only. */
  private readonly counters = new EventCounters();

  constructor(
    private readonly windowMs = CAUSAL_WINDOW_MS,
    private readonly onMoved?: (moved: TimelineEvent, before: TimelineEvent) => void,
  ) {}

  push(e: TimelineEvent, out: TimelineEvent[]): void {
    if (e.type === 'gap') {
      this.release(undefined, out);
      out.push(e);
      this.lastAt = e.at;
      return;
    }
    const rv = revision(e);
    const slot: Slot = { e, taken: false };
    this.buf.push(slot);
    const group = e.type === 'observed' ? this.counters.groupOf(e) : 0;
    if (rv !== undefined && e.type === 'observed') {
      slot.rv = rv;
      slot.kind = e.kind;
      if (group) slot.group = group;
      let q = this.byKind.get(e.kind);
      if (!q) {
        this.byKind.set(e.kind, (q = new Fifo()));
        this.kinds.push({ key: e.kind, q });
      }
      q.push(slot);
    }
    this.release(e.at, out);
  }

  /** End of the input: releases everything still held. */
  end(out: TimelineEvent[]): void {
    this.release(undefined, out);
  }

  /** Moves every event older than `until - windowMs` (all, when undefined) to `out`. */
  private release(until: number | undefined, out: TimelineEvent[]): void {
    const { buf, kinds, windowMs } = this;
    for (;;) {
      dropTaken(buf);
      const head = buf.peek();
      if (!head || (until !== undefined && head.e.at >= until - windowMs)) return;
      const pick = head.rv !== undefined && kinds.length > 1 ? lowestHeldBelow(kinds, head, head.kind, -Infinity, windowMs, false) : undefined;
      if (!pick) {
        buf.shift();
        head.taken = true;
        out.push(head.e);
        this.lastAt = head.e.at;
        continue;
      }
      pick.taken = true;
      this.onMoved?.(pick.e, head.e);
      const at = this.lastAt < head.e.at ? Math.max(head.e.at - MOVED_AHEAD_MS, (this.lastAt + head.e.at) / 2) : head.e.at;
      out.push({ ...pick.e, at } as TimelineEvent);
      this.lastAt = at;
    }
  }
}

/**
 * Re-emits `events` (time-ordered, from one cluster) with updates from different resources
 * reordered by resourceVersion when they arrive within `windowMs` of each other. `onMoved` is
 * told of each event moved ahead of another.
 */
export async function* causalOrder(events: AsyncIterable<TimelineEvent>, windowMs = CAUSAL_WINDOW_MS, onMoved?: (moved: TimelineEvent, before: TimelineEvent) => void): AsyncGenerator<TimelineEvent> {
  const order = new CausalOrder(windowMs, onMoved);
  const out: TimelineEvent[] = [];
  for await (const e of events) {
    order.push(e, out);
    if (out.length === 0) continue;
    for (let i = 0; i < out.length; i++) yield out[i]!;
    out.length = 0;
  }
  order.end(out);
  for (let i = 0; i < out.length; i++) yield out[i]!;
}
