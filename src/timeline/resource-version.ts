/**
 * resourceVersion as an order: the apiserver's (etcd's) revisions are decimal integers that grow
 * with every write, so within one apiserver two of them order the writes. Clients must treat them
 * as opaque; kexp compares them only where they are canonical decimal strings (digits, no leading
 * zero, at most 30 characters) and says nothing otherwise.
 *
 * Contract: `canonicalRevision(rv)` is rv when it is canonical, else undefined;
 * `lessRevision(a, b)` is a < b for canonical strings. Cost: O(length), no allocation (no BigInt:
 * both run once per event on the replay's hot path, in the causal order and the stalled-watch stage).
 */

export function canonicalRevision(rv: unknown): string | undefined {
  if (typeof rv !== 'string' || rv.length === 0 || rv.length > 30 || (rv.length > 1 && rv.charCodeAt(0) === 48)) return undefined;
  for (let i = 0; i < rv.length; i++) {
    const c = rv.charCodeAt(i);
    if (c < 48 || c > 57) return undefined;
  }
  return rv;
}

/** a < b for canonical decimal strings. */
export function lessRevision(a: string, b: string): boolean {
  return a.length !== b.length ? a.length < b.length : a < b;
}
