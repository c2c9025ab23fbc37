/**
 * An informer: the controller's cache of one kind and the delivery of watch events to its
 * handlers, the same for every controller and every kind (pods, and each owner kind).
 *
 * Mirrors processDeltas in client-go tools/cache/controller.go, which a shared informer runs for
 * each delta before it notifies the handlers a controller registered
 * (cache.ResourceEventHandlerFuncs{AddFunc, UpdateFunc, DeleteFunc} in NewBaseController,
 * pkg/controller/replicaset/replica_set.go):
 * - ADDED or MODIFIED of an object whose key the store holds → the store is updated, then
 *   onUpdate(old, cur); of a key it does not hold → the store adds it, then onAdd(obj);
 * - DELETED → the store drops the key, then onDelete(obj) — even when the store did not hold it;
 * - a delete missed while disconnected, found by a relist → onDelete(DeletedFinalStateUnknown)
 *   with the stale object the store held (tombstone.ts).
 * The key is `namespace/name` (MetaNamespaceKeyFunc). kexp's input is already the watch stream,
 * so one event is one delta; the model never writes into its own cache: it sees its writes only
 * when the input delivers them.
 *
 * Not upstream: `withhold` and `restore` take an object out of the cache and put it back without
 * running any handler (a replay does so when the input shows the real controller's cache did
 * not hold it yet). An optional listener is told of every change before it is made (old → cur),
 * so an index kept beside the cache stays exact.
 *
 * Contract: handlers run synchronously, after the store changed; the store is the controller's
 * (pod-store.ts for pods, a Map for owners) and only this informer writes it. No I/O, no clock:
 * times are the caller's. Cost: O(1) per event plus the store's, the listener's and the handler's.
 */
import { objectKey, type ObjectMeta } from '../objects.js';
import { tombstoneOf, type Tombstone } from './tombstone.js';

export type WatchType = 'ADDED' | 'MODIFIED' | 'DELETED';

/** The handlers a controller registers for one kind (cache.ResourceEventHandlerFuncs). */
export interface EventHandlers<T> {
  onAdd(obj: T, at: number): void;
  onUpdate(old: T, cur: T, at: number): void;
  /** Receives the deleted object, or a tombstone whose object may be stale. */
  onDelete(obj: T | Tombstone<T>, at: number): void;
}

/**
 * Told of each change of the cache before it is made: `old` the cached object (undefined when
 * none), `cur` what replaces it (undefined for a removal), `obj` the object delivered.
 */
export type CacheListener<T> = (old: T | undefined, cur: T | undefined, obj: T) => void;

export class Informer<T extends { metadata: ObjectMeta }> {
  constructor(
    /** The cache, keyed `namespace/name`. */
    readonly store: Map<string, T>,
    private readonly handlers: EventHandlers<T>,
    private readonly listener?: CacheListener<T>,
  ) {}

  /** Delivers one watch event: the store changes, then the add, update or delete handler runs. */
  deliver(watchType: WatchType, obj: T, at: number): void {
    const key = objectKey(obj.metadata);
    const old = this.store.get(key);
    this.listener?.(old, watchType === 'DELETED' ? undefined : obj, obj);
    if (watchType === 'DELETED') {
      this.store.delete(key);
      this.handlers.onDelete(obj, at);
      return;
    }
    this.store.set(key, obj);
    if (old) this.handlers.onUpdate(old, obj, at);
    else this.handlers.onAdd(obj, at);
  }

  /** Delivers the tombstone of a delete the informer missed (a relist): `stale` is the last state known. */
  deliverTombstone(stale: T, at: number): void {
    const key = objectKey(stale.metadata);
    this.listener?.(this.store.get(key), undefined, stale);
    this.store.delete(key);
    this.handlers.onDelete(tombstoneOf(key, stale), at);
  }

  /** Not upstream: removes an object from the cache without running any handler. Returns it, if it was cached. */
  withhold(key: string): T | undefined {
    const obj = this.store.get(key);
    if (!obj) return undefined;
    this.listener?.(obj, undefined, obj);
    this.store.delete(key);
    return obj;
  }

  /** Not upstream: puts a withheld object back without running handlers; a no-op when its key is cached. */
  restore(obj: T): void {
    const key = objectKey(obj.metadata);
    if (this.store.get(key)) return;
    this.listener?.(undefined, obj, obj);
    this.store.set(key, obj);
  }
}
