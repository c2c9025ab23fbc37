/**
 * Informer relists: when the kube-controller-manager's own Pod, ReplicaSet and
 * ReplicationController informers listed again, from their reflector lines (catalogue.ts
 * classifyReflectorLine), with why and file:line.
 *
 * Upstream (client-go tools/cache/reflector.go, v0.37.2 and v0.21.14): a watch that ends with an
 * error — "too old resource version" (410 Expired) logged as "Watch closed" at V(4), any other as
 * "Warning: watch ended with error" at V(0) (1.21: `watch of *v1.Pod closed with:` / `ended
 * with:`) — ends ListAndWatch; the reflector's loop calls it again: "Listing and watching" (V(3))
 * starts a LIST, and "Caches populated" (V(2), 1.37.2 only) says its result replaced the store
 * (Reflector.list → syncWith → store.Replace). From that end on, the informer's cache is the
 * LIST's — the controller's view caught up with the apiserver as of the LIST, except for a
 * delete a relist may miss (kubernetes#115658), which only the controller's later writes tell.
 *
 * Contract: `see` is fed each reflector line in reading order (one file); `relists()` pairs them
 * per informer: a watch end opens the cause, the next "Listing and watching" the relist, the next
 * "Caches populated" its end. What the log does not show stays absent (a relist whose end is not
 * logged, as in 1.21, has no `end`; one whose cause is not logged has cause `unknown`).
 *
 * Cost: O(1) per line, O(relists) memory. Pure: no I/O, no clock.
 */
import type { SourceRef } from '../../timeline/event.js';
import type { ReflectorLine, RelistInformer } from './catalogue.js';

/** Why an informer listed again, as far as its log tells. */
export type RelistCause = 'too-old-resource-version' | 'watch-error' | 'unknown';

export interface InformerRelist {
  informer: RelistInformer;
  cause: RelistCause;
  /** The line that ended the watch (absent: none logged before the list — a start-up list, or a line below the log's -v). */
  watchEnded?: { at: number; source: SourceRef; err?: string };
  /** "Listing and watching": the LIST starts (absent: the log shows only a later line). */
  start?: { at: number; source: SourceRef };
  /** "Caches populated": the LIST is the informer's cache (absent: not logged — 1.21 prints none — or the log ends first). */
  end?: { at: number; source: SourceRef };
}

/** A watch error that is the 410 of an expired resource version. */
function causeOf(err: string | undefined): RelistCause {
  if (err === undefined) return 'unknown';
  return /too old resource version|\b410\b|Expired/i.test(err) ? 'too-old-resource-version' : 'watch-error';
}

export class InformerRelists {
  private readonly done: InformerRelist[] = [];
  /** Per informer: the relist being assembled (a watch ended, or a LIST started, not yet ended). */
  private readonly open = new Map<RelistInformer, InformerRelist>();

  see(l: ReflectorLine, at: number, source: SourceRef): void {
    const cur = this.open.get(l.informer);
    switch (l.phase) {
      case 'watch-closed':
      case 'watch-ended': {
        // A watch that ends while a relist is open without a start: keep the first cause, a later one replaces it.
        if (cur) this.close(cur);
        this.open.set(l.informer, { informer: l.informer, cause: causeOf(l.err), watchEnded: { at, source, ...(l.err !== undefined ? { err: l.err } : {}) } });
        return;
      }
      case 'listing': {
        if (cur && !cur.start) {
          cur.start = { at, source };
          return;
        }
        if (cur) this.close(cur);
        this.open.set(l.informer, { informer: l.informer, cause: 'unknown', start: { at, source } });
        return;
      }
      case 'populated': {
        const r = cur ?? { informer: l.informer, cause: 'unknown' as const };
        r.end = { at, source };
        this.close(r);
      }
    }
  }

  private close(r: InformerRelist): void {
    this.open.delete(r.informer);
    this.done.push(r);
  }

  /** Every relist seen, in the order of their first line (open ones included, without an end). */
  relists(): InformerRelist[] {
    const all = [...this.done, ...this.open.values()];
    const first = (r: InformerRelist) => r.watchEnded?.at ?? r.start?.at ?? r.end?.at ?? 0;
    return all.sort((a, b) => first(a) - first(b));
  }
}
