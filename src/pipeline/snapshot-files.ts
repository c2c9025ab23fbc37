/**
 * Snapshots as states, not histories: a List (`kubectl get rs,pods,events -o json|yaml`, compact
 * `jq -c` output, a `PodList`/`ReplicaSetList`, a must-gather's YAML Lists), or a file of distinct
 * objects (src/sources/watch/dump-shape.ts says which files are snapshots), is one state of the cluster at the snapshot
 * time, not each item at its own newest timestamp. kexp reads every item, takes the snapshot
 * time as the newest timestamp in it (a lower bound: a List carries no read time), and analyses
 * each ReplicaSet's state with the same snapshot analysis `kexp explain` uses — its Events as
 * evidence of earlier rounds, nothing simulated, the controller's expectations unknown.
 *
 * DaemonSets and Nodes in a snapshot (a cluster-info dump's daemonsets.json and nodes.json, a
 * must-gather's apps/daemonsets.yaml and cluster-scoped-resources/core/nodes/) are read and
 * counted, not analysed: the snapshot analysis is the ReplicaSet's (its status against its pods);
 * a DaemonSet's desired count comes from the nodes at each sync, and what its controller last
 * decided shows only in a history (a recording, a watch dump, an audit log), which `kexp replay`
 * and `kexp audit` replay. The report says so, naming them; they do not move the snapshot time.
 * Jobs (a directory's jobs.json, a must-gather's batch/jobs.yaml) the same: counted and named in
 * one line, not analysed — whether a Job's controller was gated, and why, shows only in a history.
 */
import type { VersionInfo } from '../model/version.js';
import type { CoreEvent, Namespace, Pod, ReplicaSet } from '../model/objects.js';
import { controllerRefOf, objectKey } from '../model/objects.js';
import type { OpenedSource } from '../sources/source.js';
import type { SourceRef } from '../timeline/event.js';
import { analyseSnapshot } from '../analysis/snapshot-analysis.js';
import { replicaSetsInEvents } from '../analysis/report/event-rounds.js';
import { eventsOnlyReplicaSetReport, snapshotReplicaSetReport } from '../analysis/report/snapshot-report.js';
import type { SnapshotRefs } from '../analysis/report/snapshot-refs.js';
import { inputSummary } from '../analysis/report/coverage.js';
import { iso } from '../analysis/iso.js';
import { REPORT_SCHEMA_VERSION, type Report, type ReplicaSetReport } from '../analysis/report-types.js';
import { invalidObservedObject } from '../timeline/validate.js';
import type { Diagnostics } from '../sources/source.js';
import { KEXP_VERSION } from '../version.js';

export interface SnapshotFilesOptions {
  rs?: string;
  k8sVersion: VersionInfo;
  diagnostics: Diagnostics;
}

export async function snapshotReport(sources: OpenedSource[], o: SnapshotFilesOptions): Promise<Report> {
  const where = new WeakMap<object, SourceRef>();
  const rss = new Map<string, ReplicaSet>();
  const pods = new Map<string, Pod>();
  const events = new Map<string, CoreEvent>();
  const namespaces = new Map<string, Namespace>();
  /** DaemonSets (namespace/name) and Nodes seen: counted and named, not analysed. */
  const daemonSets = new Set<string>();
  const nodes = new Set<string>();
  /** Jobs (namespace/name): counted and named, not analysed. */
  const jobs = new Set<string>();
  let at: number | undefined;
  for (const s of sources) {
    for await (const e of s.events) {
      if (e.type !== 'observed') continue;
      if (e.kind === 'DaemonSet' || e.kind === 'Node' || e.kind === 'Job') {
        // Counted and named, not analysed: nothing of them but the name is read, so nothing else is checked.
        const meta = (e.object as { metadata?: { name?: unknown; namespace?: unknown } } | null)?.metadata;
        const name = typeof meta?.name === 'string' ? meta.name : undefined;
        if (name !== undefined) (e.kind === 'DaemonSet' ? daemonSets : e.kind === 'Job' ? jobs : nodes).add(e.kind === 'Node' ? name : `${typeof meta?.namespace === 'string' ? meta.namespace : ''}/${name}`);
        continue;
      }
      const why = invalidObservedObject(e);
      if (why) {
        o.diagnostics.problem({ file: e.source.file, line: e.source.line, message: why });
        continue;
      }
      if (Number.isFinite(e.at)) at = Math.max(at ?? e.at, e.at);
      where.set(e.object, e.source);
      const key = e.kind === 'Namespace' ? (e.object.metadata.name ?? '') : objectKey(e.object.metadata);
      if (e.kind === 'ReplicaSet') rss.set(key, e.object);
      else if (e.kind === 'Pod') pods.set(key, e.object);
      else if (e.kind === 'Event') events.set(key, e.object);
      else if (e.kind === 'Namespace') namespaces.set(key, e.object);
    }
  }
  const cite = (obj: object | undefined, fallback: string) => {
    const r = obj ? where.get(obj) : undefined;
    return r ? `${r.file}:${r.line}` : fallback;
  };
  const now = at ?? 0;
  // Indexes so each ReplicaSet looks only at its candidates (a namespace of 1000 ReplicaSets and
  // 150,000 pods otherwise costs 1.5e8 selector checks): pods by controller UID, and by one
  // label pair of the selector (the smallest posting list), as the controller's own indexer does.
  const byOwner = new Map<string, Pod[]>();
  const byLabel = new Map<string, Pod[]>();
  const podsOfNs = new Map<string, Pod[]>();
  for (const p of pods.values()) {
    const ns = p.metadata.namespace ?? '';
    push(podsOfNs, ns, p);
    const uid = controllerRefOf(p.metadata)?.uid;
    if (uid) push(byOwner, uid, p);
    const labels = p.metadata.labels;
    if (labels && typeof labels === 'object') for (const [k, v] of Object.entries(labels)) push(byLabel, `${ns}\u0000${k}=${v}`, p);
  }
  const eventsOfNs = new Map<string, CoreEvent[]>();
  for (const e of events.values()) push(eventsOfNs, e.involvedObject?.namespace ?? e.metadata.namespace ?? '', e);
  const candidatesOf = (rs: ReplicaSet): Pod[] => {
    const ns = rs.metadata.namespace ?? '';
    const ml = rs.spec?.selector?.matchLabels;
    let pool = podsOfNs.get(ns) ?? [];
    if (ml && typeof ml === 'object') {
      for (const [k, v] of Object.entries(ml)) {
        const list = byLabel.get(`${ns}\u0000${k}=${v}`) ?? [];
        if (list.length < pool.length) pool = list;
      }
    }
    const owned = byOwner.get(rs.metadata.uid ?? '') ?? [];
    return pool === owned ? pool : [...new Set([...owned, ...pool])];
  };
  const replicaSets: ReplicaSetReport[] = [];
  for (const [key, rs] of [...rss.entries()].sort(([a], [b]) => a.localeCompare(b))) {
    if (o.rs && key !== o.rs) continue;
    const ns = rs.metadata.namespace ?? '';
    const nsPods = candidatesOf(rs);
    const nsEvents = eventsOfNs.get(ns) ?? [];
    const refs: SnapshotRefs = {
      rs: (name, field) => `${cite(rs, `replicasets/${name}`)}${field ? `#${field}` : ''}`,
      ns: (name, field) => `${cite(namespaces.get(name), `namespaces/${name}`)}#${field}`,
      pod: (p) => (typeof p === 'string' ? cite(pods.get(`${ns}/${p}`), `pods/${p}`) : cite(p, `pods/${p.metadata.name ?? '?'}`)),
      event: (e) => cite(e, `events/${e.metadata.name ?? '?'}`),
      quota: (name) => `resourcequotas/${name}`,
    };
    const a = analyseSnapshot(rs, { pods: nsPods, events: nsEvents, ns: namespaces.get(ns), podsKnown: pods.size > 0 }, now, refs);
    replicaSets.push(snapshotReplicaSetReport(rs, a, now, nsEvents, refs));
  }
  // ReplicaSets the controllers' Events are about whose object is not in the snapshot (an
  // Events-only file, or a ReplicaSet deleted before the dump): their rounds, state unknown.
  const eventsOnly: string[] = [];
  for (const [key, ref] of [...replicaSetsInEvents(events.values())].sort(([a], [b]) => a.localeCompare(b))) {
    if (rss.has(key) || (o.rs && key !== o.rs)) continue;
    const nsEvents = eventsOfNs.get(ref.namespace) ?? [];
    const refs: SnapshotRefs = {
      rs: (name, field) => `replicasets/${name}${field ? `#${field}` : ''}`,
      ns: (name, field) => `${cite(namespaces.get(name), `namespaces/${name}`)}#${field}`,
      pod: (p) => (typeof p === 'string' ? cite(pods.get(`${ref.namespace}/${p}`), `pods/${p}`) : cite(p, `pods/${p.metadata.name ?? '?'}`)),
      event: (e) => cite(e, `events/${e.metadata.name ?? '?'}`),
      quota: (name) => `resourcequotas/${name}`,
    };
    replicaSets.push(eventsOnlyReplicaSetReport(ref, nsEvents, at, refs));
    eventsOnly.push(key);
  }
  const inputs = sources.map((s) => s.coverage());
  return {
    schemaVersion: REPORT_SCHEMA_VERSION,
    generator: { name: 'kexp', version: KEXP_VERSION, command: 'replay' },
    k8sVersion: o.k8sVersion,
    inputs: inputs.map(inputSummary),
    coverage: {
      start: iso(at),
      end: iso(at),
      timeBasis: [
        `snapshot: one state of the cluster; its time (${iso(at) ?? 'unknown'}) is the newest timestamp in it, a lower bound — a List carries no read time`,
      ],
      assumptions: [
        'A snapshot is a state, not a history: no sync is simulated; the controller\'s expectations are not visible, and its Events are the evidence of its earlier rounds (one write per occurrence).',
        `${rss.size} ReplicaSet(s), ${pods.size} pod(s), ${events.size} Event(s), ${namespaces.size} namespace(s) in the snapshot.`,
        ...(daemonSets.size || nodes.size ? [notAnalysed(daemonSets, nodes)] : []),
        ...(jobs.size ? [jobsNotAnalysed(jobs)] : []),
        ...(eventsOnly.length
          ? [`${eventsOnly.length} ReplicaSet(s) known only from Events (${eventsOnly.slice(0, 5).join(', ')}${eventsOnly.length > 5 ? ', …' : ''}): their rounds come from the Events; their state is unknown.`]
          : []),
      ],
      gaps: [],
      problems: { count: 0, examples: [] },
    },
    replicaSets,
  };
}

/** The note on the DaemonSets and Nodes of a snapshot, which kexp reads but does not analyse. */
function notAnalysed(daemonSets: Set<string>, nodes: Set<string>): string {
  const names = [...daemonSets].sort();
  const ds = names.length ? `${names.length} DaemonSet(s) (${names.slice(0, 5).join(', ')}${names.length > 5 ? ', …' : ''})` : '';
  const n = nodes.size ? `${nodes.size} node(s)` : '';
  return `${[ds, n].filter(Boolean).join(' and ')} in the snapshot, not analysed: a DaemonSet's controller decides from the nodes at each sync, and what it decided shows only in a history — replay a recording, a watch dump or an audit log of it (kexp replay, kexp audit).`;
}

/** The note on the Jobs of a snapshot, which kexp reads but does not analyse. */
function jobsNotAnalysed(jobs: Set<string>): string {
  const names = [...jobs].sort();
  return `${names.length} Job(s) (${names.slice(0, 5).join(', ')}${names.length > 5 ? ', …' : ''}) in the snapshot, not analysed: a Job's status shows its counts, not whether its controller was gated on its expectations or its tracking finalizers — that shows only in a history; replay a recording, a watch dump or an audit log of it (kexp replay, kexp audit).`;
}

function push<K, V>(m: Map<K, V[]>, k: K, v: V): void {
  const list = m.get(k);
  if (list) list.push(v);
  else m.set(k, [v]);
}
