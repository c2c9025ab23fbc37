/**
 * Which input event the model's changes come from, for the report's evidence. While the engine
 * delivers an event, whatever the informer handlers do (lower a record, enqueue a key) happened
 * because of it (`current`); a sync runs later, from the last input event about its key that
 * reached the informer handlers (`trigger`), like the workqueue key the real controller
 * processes.
 *
 * Contract: the driver calls `delivering(e)` before it delivers `e` and `delivered()` after;
 * delivery.ts calls `noteTrigger` for every key an observed object names. `sourceFor(key)` is
 * the current event's source while delivering, else the key's last trigger.
 *
 * Cost: one map entry per ReplicaSet key; O(1) per call. A key's entries are overwritten, not
 * deleted, on the per-event and per-sync paths (`consumed` false, `running` IDLE): V8 shrinks a
 * Map's or Set's hash table when a delete leaves it under half full and regrows it on the next
 * add, which one ReplicaSet's key did on every event and every sync. Pure: no I/O, no clock.
 */
import type { SourceRef, TimelineEvent } from '../../timeline/event.js';

/** `running`'s value for a key with no sync running (kept in place of a delete). */
const IDLE: unique symbol = Symbol('idle');

export class Provenance {
  private currentEvent: TimelineEvent | undefined;
  private readonly lastTrigger = new Map<string, SourceRef>();
  /** The pod whose event was each key's last trigger (absent: an owner event). */
  private readonly lastTriggerPod = new Map<string, string>();

  /** The event being delivered (evidence for handler effects), if any. */
  get current(): TimelineEvent | undefined {
    return this.currentEvent;
  }

  delivering(e: TimelineEvent): void {
    this.currentEvent = e;
  }

  delivered(): void {
    this.currentEvent = undefined;
  }

  /** Per key: true when a sync has already run for its last trigger. */
  private readonly consumed = new Map<string, boolean>();
  /** Per key: the pod behind a rate-limited requeue still pending in the workqueue (undefined: not a pod's event). */
  private readonly requeuedFor = new Map<string, string | undefined>();
  /** Per key: the pod behind the sync running now (`syncStarting`); IDLE once it ended. */
  private readonly running = new Map<string, string | undefined | typeof IDLE>();

  /** An input event about `key` reached the informer handlers (`pod`: the pod's, by namespace/name). */
  noteTrigger(key: string, source: SourceRef, pod?: string): void {
    this.consumed.set(key, false);
    this.lastTrigger.set(key, source);
    if (pod !== undefined) this.lastTriggerPod.set(key, pod);
    else this.lastTriggerPod.delete(key);
  }

  /** The pod whose event was the last trigger of `key`, if a pod's. */
  triggerPod(key: string): string | undefined {
    const r = this.running.get(key);
    if (r !== IDLE && (r !== undefined || this.running.has(key))) return r;
    return this.lastTriggerPod.get(key);
  }

  /**
   * A sync of `key` starts. With no trigger since the previous sync it is the workqueue's
   * rate-limited requeue of an earlier one (processNextWorkItem → handleErr → AddRateLimited), and
   * its trigger is that sync's: a pod's event the controller never had leaves no requeue upstream.
   */
  syncStarting(key: string): void {
    if (this.consumed.get(key) === true && this.requeuedFor.has(key)) {
      this.running.set(key, this.requeuedFor.get(key));
      this.requeuedFor.delete(key);
    } else this.running.set(key, this.lastTriggerPod.get(key));
  }

  /** The sync of `key` ended; `rateLimited`: it returned an error and the key is requeued with backoff. */
  syncEnded(key: string, rateLimited: boolean): void {
    if (rateLimited) {
      const r = this.running.get(key);
      this.requeuedFor.set(key, r === IDLE ? undefined : r);
    }
    this.running.set(key, IDLE);
    this.consumed.set(key, true);
  }

  /** The last input event about `key` that reached the informer handlers. */
  trigger(key: string): SourceRef | undefined {
    return this.lastTrigger.get(key);
  }

  /** The source of a change to `key`'s state now: the event being delivered, else the key's last trigger. */
  sourceFor(key: string): SourceRef | undefined {
    return this.currentEvent?.source ?? this.lastTrigger.get(key);
  }
}
