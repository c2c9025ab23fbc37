/**
 * Line routing: which owners' journals each line of serve's stream belongs to. `kexp serve` keeps
 * one journal per owner (registry.ts: a ReplicaSet, ReplicationController, DaemonSet or Job, by
 * `Kind/namespace/name`) so that an evaluation replays only the owners whose input changed; this
 * is the rule that gives every owner's journal what its controller's informers act on for it —
 * the events the whole stream's replay (pipeline/owner-kind-views.ts) would deliver to it.
 *
 * Contract (`route(src, object, type)` → the owner ids, in a stable order; `seed(id)` → the
 * lines an owner's journal starts with when it is made after the stream began):
 * - an owner object → its own journal;
 * - a Pod with a controllerRef to an owner kind → that owner (upstream every handler resolves the
 *   controllerRef by kind and name and returns for another owner's pod: replica_set.go
 *   addPod/updatePod/deletePod, daemon_controller.go, job_controller.go); a pod without a
 *   controllerRef (an orphan: any owner of its namespace may adopt it) → every owner of its
 *   namespace; a pod whose controllerRef names a kind kexp does not model (a StatefulSet's) →
 *   nowhere, as upstream's handlers ignore it. Every later line of a pod also goes where its
 *   earlier lines went (a release, a re-adoption, the deletion), as owner-kind-views.ts keeps
 *   "every later event of a pod it was given";
 * - a core Event → the owner it is about (involvedObject), the owners of the Pod it is about,
 *   or the ReplicaSet a Deployment's ScalingReplicaSet message names; other Events → nowhere
 *   (the engine reads Events about owners and their pods only: event-rounds.ts, create-evidence.ts);
 * - a Namespace → every owner in it; a Node → every DaemonSet (its node informer); a gap →
 *   every owner whose journal receives that resource.
 * - `seed(id)`: an owner first seen after the stream began starts with the last line of its
 *   Namespace, of every Node (a DaemonSet) and of every orphan pod of its namespace — the
 *   informer caches' content when it appeared, cited by the lines that left it.
 *
 * What this cannot keep from the whole-stream replay: the order of one owner's lines relative to
 * another owner's (nothing in one owner's controller state depends on another's, upstream the
 * keys are independent in the workqueue) and the history of a shared object before an owner
 * appeared (its last state is given: what a fresh informer lists).
 *
 * Cost: O(owners routed to) per line; memory O(pods + owners + namespaces + nodes + orphans).
 */
import { parseScalingMessage } from '../analysis/report/scaling-events.js';
import type { JournalLine } from './journal.js';

/** Owner kind of each owner resource. */
export const KIND_OF_RESOURCE: Readonly<Record<string, string>> = {
  replicasets: 'ReplicaSet',
  replicationcontrollers: 'ReplicationController',
  daemonsets: 'DaemonSet',
  jobs: 'Job',
};

const OWNER_KINDS = new Set(Object.values(KIND_OF_RESOURCE));

interface Meta {
  namespace?: unknown;
  name?: unknown;
  ownerReferences?: unknown;
}

function metaOf(o: Record<string, unknown>): Meta {
  return (o.metadata && typeof o.metadata === 'object' ? o.metadata : {}) as Meta;
}

function str(x: unknown): string {
  return typeof x === 'string' ? x : '';
}

/** The pod's controllerRef (kind, name), undefined for an orphan. */
function controllerOf(m: Meta): { kind: string; name: string } | undefined {
  if (!Array.isArray(m.ownerReferences)) return undefined;
  for (const r of m.ownerReferences as Array<Record<string, unknown>>) {
    if (r && r.controller === true) return { kind: str(r.kind), name: str(r.name) };
  }
  return undefined;
}

export class LineRouting {
  /** Owner ids by namespace. */
  private readonly byNamespace = new Map<string, Set<string>>();
  private readonly daemonSets = new Set<string>();
  /** Where each pod's lines went so far, by `namespace/name`. */
  private readonly podOwners = new Map<string, string[]>();
  /** The last line of each Namespace, Node and orphan pod (by namespace), to seed owners made later. */
  private readonly namespaceLine = new Map<string, JournalLine>();
  private readonly nodeLines = new Map<string, JournalLine>();
  private readonly orphanLines = new Map<string, Map<string, JournalLine>>();
  /** Owners made since the last `takeNew()`. */
  private made: string[] = [];

  /** Every owner id known (made by a line about it or its pods). */
  get owners(): number {
    let n = 0;
    for (const s of this.byNamespace.values()) n += s.size;
    return n;
  }

  /** Makes the owner known (idempotent); new ones are returned by `takeNew`. */
  private owner(kind: string, ns: string, name: string): string {
    const id = `${kind}/${ns}/${name}`;
    let s = this.byNamespace.get(ns);
    if (!s) this.byNamespace.set(ns, (s = new Set()));
    if (!s.has(id)) {
      s.add(id);
      if (kind === 'DaemonSet') this.daemonSets.add(id);
      this.made.push(id);
    }
    return id;
  }

  /** Owners made since the last call (their journals need a seed first). */
  takeNew(): string[] {
    const m = this.made;
    this.made = [];
    return m;
  }

  /** The owners `line` (an event line of `src`) goes to. */
  route(line: JournalLine): string[] {
    const src = line.src;
    if (line.object === undefined) return this.gapTargets(src);
    const m = metaOf(line.object);
    const ns = str(m.namespace);
    const name = str(m.name);
    const kind = KIND_OF_RESOURCE[src];
    if (kind) return [this.owner(kind, ns, name)];
    if (src === 'pods') return this.pod(line, ns, name, m);
    if (src === 'events') return this.event(line.object, ns);
    if (src === 'namespaces') {
      if (line.type === 'DELETED') this.namespaceLine.delete(name);
      else this.namespaceLine.set(name, line);
      return [...(this.byNamespace.get(name) ?? [])];
    }
    if (src === 'nodes') {
      if (line.type === 'DELETED') this.nodeLines.delete(name);
      else this.nodeLines.set(name, line);
      return [...this.daemonSets];
    }
    return [];
  }

  private pod(line: JournalLine, ns: string, name: string, m: Meta): string[] {
    const key = `${ns}/${name}`;
    const before = this.podOwners.get(key) ?? [];
    const ctl = controllerOf(m);
    let orphans = this.orphanLines.get(ns);
    if (!ctl && line.type !== 'DELETED') {
      if (!orphans) this.orphanLines.set(ns, (orphans = new Map()));
      orphans.set(name, line);
    } else orphans?.delete(name);
    const to = new Set(before);
    if (ctl && OWNER_KINDS.has(ctl.kind)) to.add(this.owner(ctl.kind, ns, ctl.name));
    else if (!ctl) for (const id of this.byNamespace.get(ns) ?? []) to.add(id);
    const out = [...to];
    if (line.type === 'DELETED') this.podOwners.delete(key);
    else if (out.length) this.podOwners.set(key, out);
    return out;
  }

  private event(o: Record<string, unknown>, ns: string): string[] {
    const io = (o.involvedObject && typeof o.involvedObject === 'object' ? o.involvedObject : {}) as Record<string, unknown>;
    const kind = str(io.kind);
    const ions = str(io.namespace) || ns;
    const name = str(io.name);
    if (OWNER_KINDS.has(kind) && name) return [this.owner(kind, ions, name)];
    if (kind === 'Pod') return [...(this.podOwners.get(`${ions}/${name}`) ?? [])];
    if (kind === 'Deployment' && o.reason === 'ScalingReplicaSet' && typeof o.message === 'string') {
      const p = parseScalingMessage(o.message);
      if (p) return [this.owner('ReplicaSet', ions, p.rs)];
    }
    return [];
  }

  private gapTargets(src: string): string[] {
    const out: string[] = [];
    for (const s of this.byNamespace.values()) for (const id of s) if (src !== 'nodes' || this.daemonSets.has(id)) out.push(id);
    return out;
  }

  /** The lines an owner made after the stream began starts with (its namespace, the nodes for a DaemonSet, the orphans of its namespace), in stream order. */
  seed(id: string): JournalLine[] {
    const [kind, ns] = id.split('/') as [string, string];
    const out: JournalLine[] = [];
    const nsl = this.namespaceLine.get(ns);
    if (nsl) out.push(nsl);
    if (kind === 'DaemonSet') out.push(...this.nodeLines.values());
    out.push(...(this.orphanLines.get(ns)?.values() ?? []));
    return out.sort((a, b) => a.seq - b.seq);
  }

  /** Forgets an owner (its object deleted and its journal dropped). */
  forget(id: string): void {
    const [, ns] = id.split('/') as [string, string];
    this.byNamespace.get(ns)?.delete(id);
    this.daemonSets.delete(id);
  }
}
