/**
 * Whether a recording's Events count the same revisions as its other resources.
 *
 * An apiserver may keep Events in an etcd of their own (`--etcd-servers-overrides=/events#…`,
 * kops' etcd-events): their resourceVersions then count another etcd's revisions and order
 * nothing against a pod's or a ReplicaSet's. One Event proves it: an Event is written after the
 * object it names existed at the version it names (`involvedObject.resourceVersion`; events.k8s.io's
 * `regarding.resourceVersion`), so with one counter the Event's own revision is the higher — an
 * Event whose revision is lower than its object's counts another etcd's. From that Event on, the
 * ordering stages compare the file's Events with its Events only (causal-order.ts, the 10 s repair
 * of stalled-watch.ts), as the naming of a stall beyond the horizon always does.
 *
 * What it cannot prove: an Events counter running ahead of the main one (every Event's revision is
 * then higher than its object's, as with one counter) — those Events are still compared with the
 * other resources (docs/architecture.md). Checked on every input kexp ships and the real files of
 * others (examples/, test/, ../shared/realdata): 410 Events carry both revisions, none lower than
 * its object's.
 *
 * Contract: `groupOf(e)` for each observed change in input order, before the stage compares it:
 * 1 for an Event of a file whose Events were shown to count another etcd (this one may be the
 * proof), else 0; two changes are compared only within one group. Cost: O(1) per change (two
 * revision checks per Event), one entry per file shown. Pure: no I/O, no clock.
 */
import type { ObservedEvent } from './event.js';
import { canonicalRevision, lessRevision } from './resource-version.js';

/** The comparison group of a change: 0 the main counter (and Events not shown otherwise), 1 Events of their own etcd. */
export type RevisionGroup = 0 | 1;

export class EventCounters {
  /** Files whose Events were shown to count another etcd's revisions. */
  private readonly separate = new Set<string>();

  groupOf(e: ObservedEvent): RevisionGroup {
    if (e.kind !== 'Event') return 0;
    const file = e.source.file;
    if (this.separate.has(file)) return 1;
    const o = e.object as { metadata?: { resourceVersion?: unknown }; involvedObject?: { resourceVersion?: unknown }; regarding?: { resourceVersion?: unknown } };
    const own = canonicalRevision(o.metadata?.resourceVersion);
    if (own === undefined) return 0;
    const named = canonicalRevision(o.involvedObject?.resourceVersion ?? o.regarding?.resourceVersion);
    if (named === undefined || !lessRevision(own, named)) return 0;
    this.separate.add(file);
    return 1;
  }
}
