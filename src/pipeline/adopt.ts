/**
 * `kexp adopt`: the ClaimObject decision (keep / adopt / release / ignore / none) for every
 * candidate pod of one ReplicaSet — pods it controls and pods in its namespace that match its
 * selector — with the rule that applied, and what CanAdopt would say:
 *
 * - live: the ReplicaSet and the namespace's pods are read now, and the ReplicaSet is read a
 *   second time exactly as CanAdopt's `RecheckDeletionTimestamp(getFresh)` does (UID match,
 *   no deletionTimestamp); an adoption that CanAdopt would refuse is reported as not claimed;
 * - `--from FILE`: the state at the end of a recording (or other watch dump), replayed through
 *   the model; the live re-read is not available and the result says so.
 *
 * Output: AdoptResult (`-o json` prints it; schemaVersion `kexp.adopt/v1`).
 */
import { claimDecider, recheckDeletionTimestamp } from '../model/adoption.js';
import { controllerRefOf, objectKey, type Pod, type ReplicaSet } from '../model/objects.js';
import { isPodActive } from '../model/pod-ranking.js';
import { compileLabelSelector, formatLabelSelector } from '../model/selector.js';
import type { AdoptionRow } from '../analysis/report-types.js';
import { ClusterError } from '../sources/live/cluster-error.js';
import type { ClusterAccess } from '../sources/live/kubeconfig.js';
import { getFreshReplicaSet, listNamespacePods, readTargets } from '../sources/live/snapshot.js';
import { KEXP_VERSION } from '../version.js';
import { replayFiles } from './replay-files.js';
import { UsageError } from './usage-error.js';

export interface AdoptRow extends AdoptionRow {
  /** Active pods (not finished, not terminating) are what a sync claims; undefined when the input does not show the pod. */
  active?: boolean;
  /** `Kind/name` of the pod's controller, if any. */
  controller?: string;
}

export interface CanAdoptNow {
  /** False when reading from a file: the live re-read cannot be reproduced from a recording. */
  available: boolean;
  ok?: boolean;
  error?: string;
  detail: string;
}

export interface AdoptResult {
  schemaVersion: 'kexp.adopt/v1';
  generator: { name: 'kexp'; version: string; command: 'adopt' };
  source: { kind: 'live'; server: string; context: string; at: string } | { kind: 'file'; files: string[]; at?: string };
  replicaSet: { key: string; uid?: string; selector?: string; deleting?: boolean; verdict?: string };
  canAdopt: CanAdoptNow;
  rows: AdoptRow[];
  summary: Record<string, number>;
  /** Orphans in the namespace that do not match the selector (not candidates; not listed). */
  nonMatchingOrphans?: number;
  problems: number;
}

function summarise(rows: AdoptRow[]): Record<string, number> {
  const s: Record<string, number> = {};
  for (const r of rows) s[r.action] = (s[r.action] ?? 0) + 1;
  return s;
}

/** Applies a CanAdopt outcome to the optimistic `adopt` decisions (ClaimPods: one check per sync, cached). */
function applyCanAdopt(rows: AdoptRow[], can: CanAdoptNow): AdoptRow[] {
  if (!can.available || can.ok !== false) return rows;
  return rows.map((r) => (r.action === 'adopt'
    ? { ...r, claimed: false, reason: `${r.reason} But CanAdopt fails right now (${can.error}), so the adoption is refused without a patch and the whole sync fails with "can't adopt Pod …".` }
    : r));
}

/** Pure: rows for `rs` over `pods`. */
export function adoptRows(rs: ReplicaSet, pods: Pod[]): { rows: AdoptRow[]; nonMatchingOrphans: number } {
  const rows: AdoptRow[] = [];
  let nonMatchingOrphans = 0;
  // compileLabelSelector answers like labelSelectorMatches without validating the selector per pod.
  const matches = compileLabelSelector(rs.spec?.selector);
  const decide = claimDecider(rs);
  for (const p of pods) {
    if (p.metadata.namespace !== rs.metadata.namespace) continue;
    const ref = controllerRefOf(p.metadata);
    const owned = ref?.uid === rs.metadata.uid;
    if (!owned && !matches(p.metadata.labels)) {
      if (!ref) nonMatchingOrphans++;
      continue;
    }
    const d = decide(p);
    rows.push({
      pod: d.pod, ...(d.uid ? { uid: d.uid } : {}), action: d.action, claimed: d.claimed, reason: d.reason,
      active: isPodActive(p), ...(ref ? { controller: `${ref.kind}/${ref.name}` } : {}),
    });
  }
  rows.sort((a, b) => a.pod.localeCompare(b.pod));
  return { rows, nonMatchingOrphans };
}

export interface AdoptLiveOptions {
  access: ClusterAccess;
  name: string;
  now: () => number;
  requestTimeoutMs?: number;
  signal?: AbortSignal;
}

/** Live: read, decide, re-read for CanAdopt. Throws ClusterError (not-found with a Deployment hint, forbidden, …). */
export async function adoptLive(o: AdoptLiveOptions): Promise<AdoptResult> {
  const so = { access: o.access, target: { kind: 'rs' as const, name: o.name }, now: o.now, requestTimeoutMs: o.requestTimeoutMs, signal: o.signal };
  const { replicaSets } = await readTargets(so);
  const rs = replicaSets[0];
  const pods = await listNamespacePods(so);
  const at = o.now();
  const fresh = await getFreshReplicaSet(o, o.name);
  const check = recheckDeletionTimestamp(rs, fresh);
  const canAdopt: CanAdoptNow = check.ok
    ? { available: true, ok: true, detail: `a fresh GET of ${objectKey(rs.metadata)} has the same UID (${rs.metadata.uid}) and no deletionTimestamp, so CanAdopt passes and adoptions would be patched` }
    : { available: true, ok: false, error: check.error, detail: `CanAdopt fails: ${check.error}` };
  const { rows, nonMatchingOrphans } = adoptRows(rs, pods);
  const final = applyCanAdopt(rows, canAdopt);
  return {
    schemaVersion: 'kexp.adopt/v1',
    generator: { name: 'kexp', version: KEXP_VERSION, command: 'adopt' },
    source: { kind: 'live', server: o.access.server, context: o.access.context, at: new Date(Math.floor(at)).toISOString() },
    replicaSet: { key: objectKey(rs.metadata), uid: rs.metadata.uid, selector: formatLabelSelector(rs.spec?.selector), deleting: Boolean(rs.metadata.deletionTimestamp) },
    canAdopt,
    rows: final,
    summary: summarise(final),
    nonMatchingOrphans,
    problems: 0,
  };
}

export interface AdoptFileOptions {
  files: string[];
  name: string;
  namespace?: string;
  onWarning?: (m: string) => void;
  onProblem?: (m: string) => void;
}

/**
 * From a recording: the decisions at the end of the input. Throws ClusterError('not-found'),
 * UsageError (the name is in several namespaces and -n was not given) or InputError.
 */
export async function adoptFromFile(o: AdoptFileOptions): Promise<AdoptResult> {
  const res = await replayFiles({
    files: o.files,
    onWarning: o.onWarning,
    onProblem: (p) => o.onProblem?.(`${p.file}:${p.line}: ${p.message}`),
  });
  const matches = res.report.replicaSets.filter((r) => r.name === o.name && (!o.namespace || r.namespace === o.namespace));
  if (matches.length === 0) throw new ClusterError('not-found', `ReplicaSet ${o.namespace ? `${o.namespace}/` : ''}${o.name} does not appear in ${o.files.join(', ')}`);
  if (matches.length > 1) throw new UsageError(`ReplicaSet ${o.name} appears in several namespaces (${matches.map((m) => m.namespace).join(', ')}); pass -n`);
  const r = matches[0];
  // ACTIVE and CONTROLLER of each row from the pod the decision was made over (the engine's
  // cache at the end of input), as the live command reads them from the cluster.
  const rows: AdoptRow[] = r.adoption.rows.map((x) => {
    const p = res.pods?.get(x.pod);
    if (!p) return { ...x };
    const ref = controllerRefOf(p.metadata);
    return { ...x, active: isPodActive(p), ...(ref ? { controller: `${ref.kind}/${ref.name}` } : {}) };
  });
  return {
    schemaVersion: 'kexp.adopt/v1',
    generator: { name: 'kexp', version: KEXP_VERSION, command: 'adopt' },
    source: { kind: 'file', files: o.files, ...(r.adoption.at ? { at: r.adoption.at } : {}) },
    replicaSet: { key: r.key, uid: r.uid, deleting: r.verdict.state === 'deleting', verdict: r.verdict.state },
    canAdopt: {
      available: false,
      detail: 'not available from a recording: CanAdopt re-reads the ReplicaSet live (RecheckDeletionTimestamp: same UID, no deletionTimestamp) at the moment of the sync; run `kexp adopt` against the cluster to see what it says now',
    },
    rows,
    summary: summarise(rows),
    problems: res.problems.length,
  };
}
