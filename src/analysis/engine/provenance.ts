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
 * Cost: one map entry per ReplicaSet key; O(1) per call. Pure: no I/O, no clock.
 */
import type { SourceRef, TimelineEvent } from '../../timeline/event.js';

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

  /** An input event about `key` reached the informer handlers (`pod`: the pod's, by namespace/name). */
  noteTrigger(key: string, source: SourceRef, pod?: string): void {
    this.lastTrigger.set(key, source);
    if (pod !== undefined) this.lastTriggerPod.set(key, pod);
    else this.lastTriggerPod.delete(key);
  }

  /** The pod whose event was the last trigger of `key`, if a pod's. */
  triggerPod(key: string): string | undefined {
    return this.lastTriggerPod.get(key);
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
