/**
 * The look-ahead as the evidence oracle reads it: the upcoming events within the match window
 * of a sync, and which of the controller's writes in it a round has already taken.
 *
 * Contract:
 * - `scan(at, before)` yields the upcoming events from `at − before` to `at + matchWindowMs`
 *   in input order (it stops at the first event past the window, like every scan before it);
 * - `indexed(key, …)` yields the same events restricted to those carrying an index key
 *   (lookahead-buffer.ts keysOf), or undefined when the index cannot answer exactly (the
 *   buffer is out of `at` order, or no index was supplied): the caller then scans, keeping
 *   every filter and stop condition of its scan, so both give the same events in the same order;
 * - a write a round took (`take`) is `taken` until it is delivered (`delivered`), so no two
 *   rounds claim it and the set stays bounded by the look-ahead.
 *
 * Cost: a scan walks the window (O(events in it)); an indexed read is a binary search plus the
 * key's events. Pure: no I/O, no clock; the buffer is supplied by the replay engine.
 */
import { controllerRefOf, type Pod } from '../../model/objects.js';
import type { ControllerComponent, TimelineEvent, WriteEvent } from '../../timeline/event.js';
import { REPLICA_SET_OWNER, type EngineOwnerKind } from './engine-controller.js';

/** Default look-ahead for matching a sync's writes to their consequences: 5 s. */
export const DEFAULT_MATCH_WINDOW_MS = 5000;

/** Read access to the upcoming events (the engine's lookahead buffer). */
export interface Lookahead {
  /** Upcoming events in order, starting with the next unprocessed one. */
  upcoming(): Iterable<TimelineEvent>;
  /** True when the input has been read to its end (the buffer holds everything left). */
  exhausted(): boolean;
  /**
   * Optional index (lookahead-buffer.ts): the upcoming events carrying `key` that a scan from
   * `from` to `to` (by `at`) would reach, cut where `stop` would end the scan. Used only while
   * `ordered()`; otherwise the oracle scans `upcoming()`.
   */
  keyed?(key: string, from: number, to: number, stop?: { after: number; by: 'at' | 'call' }): Iterable<TimelineEvent>;
  ordered?(): boolean;
  /** Where the input declares its coverage ends (a recording's end line), beyond its last event. */
  coverageEnd?(): number | undefined;
}

/** The UID of the owner (of `kind`, the ReplicaSet by default) controlling a pod object, if any. */
export function podOwnerUid(obj: unknown, kind: string = REPLICA_SET_OWNER.kind): string | undefined {
  const meta = (obj as Pod | undefined)?.metadata;
  if (!meta) return undefined;
  const ref = controllerRefOf(meta);
  return ref && ref.kind === kind ? ref.uid : undefined;
}

/** Whether `e` is the controller's pod write (no subresource) with this verb; `component` the ReplicaSet controller by default. */
export function isRSControllerPodWrite(e: TimelineEvent, verb: string, component: ControllerComponent = REPLICA_SET_OWNER.component): e is WriteEvent {
  return e.type === 'write' && e.actor.controller === component && e.resource === 'pods' && !e.subresource && e.verb === verb;
}

/** Whether `e` is the controller's (`component`) write of the status of its owner `key` (objectKey, NS/NAME: the format of keysOf's `stw:` key) — an update or patch of the status subresource. */
export function isOwnerStatusWrite(e: TimelineEvent, key: string, component: ControllerComponent): e is WriteEvent {
  return e.type === 'write' && e.subresource === 'status' && (e.verb === 'update' || e.verb === 'patch') && e.actor.controller === component && `${e.namespace ?? ''}/${e.name ?? ''}` === key;
}

export class EvidenceWindow {
  /** Writes of the look-ahead a round has taken (forgotten once delivered). */
  private readonly consumedWrites = new Set<WriteEvent>();

  constructor(
    private readonly look: Lookahead,
    readonly matchWindowMs = DEFAULT_MATCH_WINDOW_MS,
    /** The owner kind whose evidence the window is read for. */
    readonly owner: EngineOwnerKind = REPLICA_SET_OWNER,
  ) {}

  /** Upcoming events in order, starting with the next unprocessed one. */
  upcoming(): Iterable<TimelineEvent> {
    return this.look.upcoming();
  }

  /** True when the input has been read to its end. */
  exhausted(): boolean {
    return this.look.exhausted();
  }

  /** Where the input declares its coverage ends, if it does. */
  coverageEnd(): number | undefined {
    return this.look.coverageEnd?.();
  }

  *scan(at: number, before = 0): Generator<TimelineEvent> {
    for (const e of this.look.upcoming()) {
      if (e.at < at - before) continue;
      if (e.at > at + this.matchWindowMs) return;
      yield e;
    }
  }

  /**
   * The events of `scan(at, before)` that carry index `key` (see lookahead-buffer.ts keysOf),
   * ending where a scan would stop at the first event later than `stop.after`; undefined when
   * the index cannot answer exactly (then the caller scans the window). The callers keep every
   * filter and stop condition of the scan, so both give the same events in the same order.
   */
  indexed(key: string, at: number, before: number, stop?: { after: number; by: 'at' | 'call' }): Iterable<TimelineEvent> | undefined {
    if (!this.look.keyed || !this.look.ordered?.()) return undefined;
    return this.look.keyed(key, at - before, at + this.matchWindowMs, stop);
  }

  /**
   * Owners whose sync ends at their status write (EngineOwnerKind.syncEndsAtStatusWrite): the
   * first status write of owner `key` by the controller requested after `at` that no sync has
   * taken, within the match window — the end of the sync that began at `at` (or of a later one).
   * Undefined for other owners or when the window shows none. Cost: an indexed read of the
   * owner's status writes (`stw:NS/NAME`, lookahead-buffer.ts keysOf), or one scan of the window
   * when the index cannot answer — the same event either way.
   */
  ownStatusWriteAfter(key: string, at: number): WriteEvent | undefined {
    if (!this.owner.syncEndsAtStatusWrite) return undefined;
    for (const e of this.indexed(`stw:${key}`, at, 0) ?? this.scan(at, 0)) {
      if (isOwnerStatusWrite(e, key, this.owner.component) && (e.receivedAt ?? e.at) > at && !this.taken(e)) return e;
    }
    return undefined;
  }

  /** Whether a round has taken `e` already. */
  taken(e: TimelineEvent): boolean {
    return this.consumedWrites.has(e as WriteEvent);
  }

  /** A round takes `e` as one of its calls. */
  take(e: WriteEvent): void {
    this.consumedWrites.add(e);
  }

  /** `e` was delivered: it has left the look-ahead, so no later scan can meet it again. */
  delivered(e: WriteEvent): void {
    this.consumedWrites.delete(e);
  }
}
