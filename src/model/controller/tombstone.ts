/**
 * The tombstone an informer delivers for a delete it missed.
 *
 * Mirrors cache.DeletedFinalStateUnknown in client-go tools/cache/delta_fifo.go: when a relist no
 * longer lists an object the store still holds, the DeltaFIFO queues a Deleted delta whose object
 * is `{Key, Obj}` — the key and the last state the store had, which may be stale (labels or
 * owner changed since). Every controller's delete handler unwraps it the same way
 * (`tombstone, ok := obj.(cache.DeletedFinalStateUnknown)` in deletePod/deleteRS of
 * pkg/controller/replicaset/replica_set.go and the other pod-owning controllers), and the
 * ReplicaSet controller makes one itself for an update whose UID changed (updateRS).
 *
 * Contract: a delete handler accepts `T | Tombstone<T>` and reads the object with
 * `unwrapTombstone`; the stale object is used as it is, never refreshed. Pure: no I/O, no clock,
 * O(1).
 */

/** A DeletedFinalStateUnknown tombstone: the informer missed the delete; `obj` may be stale. */
export interface Tombstone<T> {
  tombstone: true;
  key: string;
  obj: T;
}

/** cache.DeletedFinalStateUnknown{Key: key, Obj: obj}. */
export function tombstoneOf<T>(key: string, obj: T): Tombstone<T> {
  return { tombstone: true, key, obj };
}

export function isTombstone<T>(x: T | Tombstone<T>): x is Tombstone<T> {
  return (x as Tombstone<T>).tombstone === true;
}

/** The object a delete handler receives: the tombstone's (possibly stale) object, or the object itself. */
export function unwrapTombstone<T>(x: T | Tombstone<T>): T {
  return isTombstone(x) ? x.obj : x;
}
