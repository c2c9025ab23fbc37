/**
 * A capture as the real controller saw it, for the controller models without the replay engine:
 * the recording's watch events (examples/captures/NAME/recording.kexp.jsonl) less the ones the
 * fault proxy hid from kube-controller-manager's informers (faults.jsonl: `drop`, `hide-deletion`
 * — the proxy sat only on the controller's `shared-informers` client, so the recording itself, made
 * by another client, saw everything), fed in order to a model whose due syncs run before each
 * event; and the controller's own account of the same minutes, its syncs read from its -v=4 log.
 *
 * The API calls are answered from the recording, which is the apiserver's state: a create succeeds
 * and its call lasts until the pod it made appears (the next ADDED of a pod the owner controls, for
 * a DaemonSet on the node it asked for, whether or not the controller's informer got that ADDED); a
 * delete or finalizer PATCH of a pod the apiserver still holds succeeds (the call lasts until the
 * pod's next event), of one it no longer holds is NotFound; status writes, adoption PATCHes and the
 * live GET succeed. The consistency store (1.36+) is not answered (`informerBehindOwnWrites` is
 * false): its skips are the replay engine's evidence oracle's, and the comparisons leave them out.
 *
 * What this separates: with the controller's view given, a difference from the log is the model's;
 * the replay engine's own choice of that view (view-alignment.ts, held-deletions.ts) is not involved.
 *
 * Contract: `capturedView(name)` reads the capture's files once; `feed(model, view)` delivers every
 * event the controller got and runs the model's due syncs up to the recording's end. `logSyncs`
 * splits the log into syncs at each "Finished syncing job" / "Finished syncing daemon set" line.
 * Cost: linear in the recording and the log (a few hundred lines each).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { WatchType } from '../../../src/model/controller/informer.js';
import type { PodControl } from '../../../src/model/controller/pod-control.js';
import type { Node, ObjectMeta, Pod } from '../../../src/model/objects.js';
import { faultEntries, logLines, type LogLine } from '../../e2e/scenarios/controller-truth.js';

export const CAPTURES = 'examples/captures';
/** The captures' year (klog prints none). */
export const CAPTURE_YEAR = 2026;

/** One watch event of the recording. */
export interface CapturedEvent {
  at: number;
  /** The recording's watch: pods, jobs, daemonsets, nodes. */
  src: string;
  type: WatchType;
  object: { metadata: ObjectMeta; spec?: Record<string, unknown> } & Record<string, unknown>;
  /** The fault proxy kept it from the controller's informers. */
  hidden: boolean;
  /** 1-based line in the recording. */
  line: number;
}

export interface CapturedView {
  dir: string;
  events: CapturedEvent[];
  end: number;
}

export function capturedView(name: string): CapturedView {
  const dir = path.join(CAPTURES, name);
  const faultsFile = path.join(dir, 'faults.jsonl');
  const hidden = new Set(
    (fs.existsSync(faultsFile) ? faultEntries(faultsFile) : [])
      .filter((f) => f.action === 'drop' || f.action === 'hide-deletion')
      .map((f) => `${f.resource}/${f.namespace}/${f.name}/${f.resourceVersion}/${f.event}`),
  );
  const events: CapturedEvent[] = [];
  let end = 0;
  fs.readFileSync(path.join(dir, 'recording.kexp.jsonl'), 'utf8').split('\n').forEach((text, i) => {
    if (!text) return;
    const l = JSON.parse(text) as { recv?: string; src?: string; event?: { type: string; object: CapturedEvent['object'] } };
    if (l.recv) end = Math.max(end, Date.parse(l.recv));
    if (!l.event || !l.src || !l.recv || !['ADDED', 'MODIFIED', 'DELETED'].includes(l.event.type)) return;
    const m = l.event.object.metadata;
    events.push({
      at: Date.parse(l.recv),
      src: l.src,
      type: l.event.type as WatchType,
      object: l.event.object,
      hidden: hidden.has(`${l.src}/${m.namespace}/${m.name}/${m.resourceVersion}/${l.event.type}`),
      line: i + 1,
    });
  });
  return { dir, events, end };
}

function controllerUid(m: ObjectMeta): string | undefined {
  return m.ownerReferences?.find((r) => r.controller)?.uid;
}

/** The node a pod is bound to or, for an unscheduled daemon pod, the node its required affinity names. */
function podNode(p: CapturedEvent['object']): string | undefined {
  const spec = (p.spec ?? {}) as { nodeName?: string; affinity?: { nodeAffinity?: { requiredDuringSchedulingIgnoredDuringExecution?: { nodeSelectorTerms?: Array<{ matchFields?: Array<{ key: string; values?: string[] }> }> } } } };
  if (spec.nodeName) return spec.nodeName;
  for (const t of spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms ?? []) {
    for (const f of t.matchFields ?? []) if (f.key === 'metadata.name' && f.values?.length === 1) return f.values[0];
  }
  return undefined;
}

/** The PodControl a capture answers (see the header). */
export function capturePodControl<Owner extends { metadata: ObjectMeta }>(view: CapturedView): PodControl<Owner> {
  const pods = view.events.filter((e) => e.src === 'pods');
  const claimed = new Set<number>();
  /** Whether the apiserver held the pod at `at`, and when its next event came. */
  const apiState = (name: string | undefined, at: number): { exists: boolean; next?: number } => {
    let exists = false;
    let next: number | undefined;
    for (const e of pods) {
      if (e.object.metadata.name !== name) continue;
      if (e.at <= at) exists = e.type !== 'DELETED';
      else if (next === undefined) next = e.at;
    }
    return { exists, ...(next !== undefined ? { next } : {}) };
  };
  return {
    createPod: (owner, call) => {
      const i = pods.findIndex((e, ix) => !claimed.has(ix) && e.type === 'ADDED' && e.at >= call.at && controllerUid(e.object.metadata) === owner.metadata.uid && (call.node === undefined || podNode(e.object) === call.node));
      if (i < 0) return { ok: true };
      claimed.add(i);
      return { ok: true, doneAt: pods[i]!.at };
    },
    deletePod: (_owner, pod, call) => {
      const s = apiState(pod.metadata.name, call.at);
      if (!s.exists) return { ok: false, notFound: true };
      return { ok: true, ...(s.next !== undefined ? { doneAt: s.next } : {}) };
    },
    getFreshOwner: (owner) => owner,
    patchPod: () => 'ok',
    removeTrackingFinalizer: (_owner, pod, call) => (apiState(pod.metadata.name, call.at).exists ? 'ok' : 'notfound'),
    updateStatus: () => ({ ok: true }),
    informerBehindOwnWrites: () => false,
  };
}

/** What `feed` delivers to: the controller seam, and a DaemonSet model's node informer. */
export interface FedModel {
  runDue(before: number, inclusive?: boolean): unknown;
  deliverPod(t: WatchType, pod: Pod, at: number): void;
  deliverOwner(t: WatchType, owner: never, at: number): void;
  deliverNode?(t: WatchType, node: Node, at: number): void;
}

/** Delivers every event the controller's informers got, in order, running the due syncs first; then the syncs due by the recording's end. */
export function feed(model: FedModel, view: CapturedView): void {
  for (const e of view.events) {
    model.runDue(e.at);
    if (e.hidden) continue;
    if (e.src === 'pods') model.deliverPod(e.type, e.object as unknown as Pod, e.at);
    else if (e.src === 'jobs' || e.src === 'daemonsets') model.deliverOwner(e.type, e.object as never, e.at);
    else if (e.src === 'nodes') model.deliverNode?.(e.type, e.object as unknown as Node, e.at);
  }
  model.runDue(view.end, true);
}

/** One sync in the controller's log: its lines up to and including "Finished syncing …". */
export interface LoggedSync {
  /** The "Finished syncing" line's time. */
  end: number;
  /** The first gate decision the sync logged (SatisfiedExpectations), and when; none for a sync that read no expectations. */
  decision?: 'fulfilled' | 'still-waiting' | 'expired' | 'never-recorded';
  decidedAt?: number;
  /** Round sizes in order: "Too few pods running … creating=N", "Nodes needing daemon pods … createCount=N" (N > 0). */
  creates: number[];
  /** "Too many pods running … deleting=N", "Pods to delete … deleteCount=N" (N > 0). */
  deletes: number[];
  /** Pods a delete found gone ("Pod has already been deleted."). */
  notFound: string[];
  /** "Expecting tracking finalizers removed" podUIDs. */
  finalizerRemovals: string[][];
  /** The consistency gate skipped it (the "… is not as new as written version …" error follows its end). */
  consistencySkip: boolean;
  lines: LogLine[];
}

const DECISIONS: Array<[RegExp, NonNullable<LoggedSync['decision']>]> = [
  [/"Controller expectations fulfilled"/, 'fulfilled'],
  [/"Controller still waiting on expectations"/, 'still-waiting'],
  [/"Controller expectations expired"/, 'expired'],
  [/"Controller either never recorded expectations, or the ttl expired"/, 'never-recorded'],
];

/** The log's syncs of the one Job or DaemonSet of a capture (the sliced log holds one namespace). */
export function logSyncs(name: string): LoggedSync[] {
  const out: LoggedSync[] = [];
  let cur: LogLine[] = [];
  for (const l of logLines(path.join(CAPTURES, name, 'kcm.log'), CAPTURE_YEAR)) {
    if (/"Queuing node|QuotaMonitor/.test(l.text)) continue;
    if (/is not as new as written version/.test(l.text) && out.length) out[out.length - 1]!.consistencySkip = true;
    cur.push(l);
    if (!/"Finished syncing (job|daemon set)"/.test(l.text)) continue;
    const s: LoggedSync = { end: l.at, creates: [], deletes: [], notFound: [], finalizerRemovals: [], consistencySkip: false, lines: cur };
    for (const x of cur) {
      if (s.decision === undefined) {
        for (const [re, d] of DECISIONS) {
          if (re.test(x.text)) {
            s.decision = d;
            s.decidedAt = x.at;
          }
        }
      }
      const c = /"Too few pods running" .*creating=(\d+)|"Nodes needing daemon pods for daemon set, creating" .*createCount=(\d+)/.exec(x.text);
      if (c && Number(c[1] ?? c[2]) > 0) s.creates.push(Number(c[1] ?? c[2]));
      const d = /"Too many pods running for job" .*deleting=(\d+)|"Pods to delete for daemon set, deleting" .*deleteCount=(\d+)/.exec(x.text);
      if (d && Number(d[1] ?? d[2]) > 0) s.deletes.push(Number(d[1] ?? d[2]));
      const nf = /"Pod has already been deleted\." pod="[^/]+\/([^"]+)"/.exec(x.text);
      if (nf) s.notFound.push(nf[1]!);
      const rm = /"Expecting tracking finalizers removed" .*podUIDs=\[([^\]]*)\]/.exec(x.text);
      if (rm) s.finalizerRemovals.push(rm[1]!.split(',').map((u) => u.replace(/"/g, '')));
    }
    out.push(s);
    cur = [];
  }
  return out;
}

/** The log's lines matching `re`, with the first capture group. */
export function logMatches(name: string, re: RegExp): Array<{ at: number; value: string }> {
  return logLines(path.join(CAPTURES, name, 'kcm.log'), CAPTURE_YEAR)
    .map((l) => ({ at: l.at, m: re.exec(l.text) }))
    .filter((x): x is { at: number; m: RegExpExecArray } => x.m !== null)
    .map((x) => ({ at: x.at, value: x.m[1] ?? '' }));
}
