/**
 * The catalogue of kube-controller-manager log lines kexp understands (controller-semantics.md
 * §8), for both wordings:
 * - structured (contextual logging, v1.27+; some lines already InfoS since ~1.21): an exact
 *   message plus key/values;
 * - printf (≤1.26 `klog.Infof`): one preformatted message matched by regular expression.
 *
 * The same matchers serve klog text and JSON logs, because the JSON `msg` is the same text.
 *
 * This module also decides which controller a line belongs to (ReplicaSet, ReplicationController,
 * DaemonSet, Job, other) from what the line itself says; see `ControllerFamily` and
 * attribute.ts for the attribution rule applied on top. The DaemonSet's and Job's own lines
 * (OWNER_STRUCTURED, OWNER_PRINTF) map onto the same kinds as the ReplicaSet's where they mean
 * the same: their round lines are `too-few-replicas` / `too-many-replicas`, their sync ends
 * `finished-syncing`, their "has been deleted" `rs-deleted-sync`.
 */
import type { ControllerLogKind, LoggedEvent } from '../../timeline/event.js';
import { isRecord } from '../../model/objects.js';
import { parseGoDuration } from './klog-text.js';

/**
 * Which controller wrote a line, as far as the line itself tells:
 * - `replicaset` / `replicationcontroller` / `daemonset` / `job` / `other`: decided;
 * - `rs-or-rc`: replica_set.go code without a logger or kind (the RS and RC controllers share it);
 * - `unknown`: shared helpers (controller_utils.go — expectations and pod control — serve the
 *   RS, RC, DaemonSet and Job controllers) with no logger: decided later from the key.
 */
export type ControllerFamily = 'replicaset' | 'replicationcontroller' | 'daemonset' | 'job' | 'other' | 'rs-or-rc' | 'unknown';

/** What decided the family: the logger name, a `kind=` key, the kind named in the message, the caller file. */
export type FamilyBasis = 'logger' | 'kind' | 'message' | 'file' | 'none';

/**
 * Catalogued RS-controller lines that are not in ControllerLogKind; they are emitted as
 * logKind `other` (the handler/lifecycle lines of replica_set.go).
 */
export type AuxKind =
  | 'rs-added' // addRS "Adding"
  | 'rs-updated' // updateRS "replicaSet updated. Desired pod count change."
  | 'rs-deleting' // deleteRS "Deleting" (DeleteExpectations)
  | 'pod-added' // addPod "Pod created" (CreationObserved follows)
  | 'pod-deleted' // deletePod "Pod deleted" (DeletionObserved follows)
  | 'controller-stopped' // Run "Shutting down controller"
  | 'consistency-skip'; // [1.36+] sync failed with the consistency gate's error: skipped, not gated

/** What the catalogue extracted from one line. */
export interface Classified {
  kind: ControllerLogKind;
  aux?: AuxKind;
  /** Family named by the line's own content (kind= key, kind word of a printf message, controller name). */
  contentFamily?: ControllerFamily;
  rsKey?: string;
  /** `controller=<rsName>` of pod-control lines, before the pod's namespace is applied. */
  rsName?: string;
  podKey?: string;
  add?: number;
  del?: number;
  keys?: string[];
  numbers?: Record<string, number>;
  /** An expectations line whose value carries no key (1.27+ renders the struct as `{}`). */
  keyless?: boolean;
  /** logKind `controller-event`: the Event the line logs. */
  event?: LoggedEvent;
  /**
   * Values the line has but that are not valid (`creating=-7`, `need="abc"`, `replicaSet=null`),
   * as `name=value`; they were left out (unknown), and the source reports them as a problem.
   */
  invalid?: string[];
  /**
   * Which side of its SetExpectations the same call path writes this line (µs apart, same
   * goroutine): `after` — ExpectCreations then "Too few replicas" (replica_set.go
   * manageReplicas), "Too few pods running" / ExpectDeletions then "Too many pods running for job"
   * (job_controller.go manageJob), SetExpectations then "Nodes needing daemon pods for daemon set,
   * creating" (daemon_controller.go syncNodes); `before` — "Controller waiting on deletions"
   * (controller_utils.go UIDTrackingControllerExpectations.ExpectDeletions), "Deleting all active
   * pods in suspended job" (manageJob). attribute.ts pairs keyless "Setting expectations" lines
   * with these.
   */
  setSide?: 'before' | 'after';
  /**
   * A slow-start failure whose skipped creations are lowered by ONE LowerExpectations call (one
   * "Lowered expectations" line lowering `podsSkipped`: daemon_controller.go syncNodes), not one
   * CreationObserved per skipped pod (replica_set.go manageReplicas, job_controller.go manageJob).
   */
  lowersAtOnce?: true;
  /**
   * The caller file that writes the line in this wording, which other controllers share: from
   * another file (the JSON logger often names a helper's frame, `wait/backoff.go`), the line is
   * `contentFamily`'s only when its key is (parse-line.ts sets `onlyForKeysOf`).
   */
  callerFile?: string;
  /** The line is this controller's when its key is one of that controller's (attribute.ts), and nobody's otherwise. */
  onlyForKeysOf?: ControllerFamily;
}

// ---------------------------------------------------------------------------------------------
// value helpers

/** `klog.KObj`: "ns/name" (text) or {"name","namespace"} (JSON). */
export function objKey(v: unknown): string | undefined {
  if (typeof v === 'string') return v.length > 0 ? v : undefined;
  if (isRecord(v)) {
    if (typeof v.name === 'string') return typeof v.namespace === 'string' && v.namespace ? `${v.namespace}/${v.name}` : v.name;
  }
  return undefined;
}

function num(v: unknown): number | undefined {
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (typeof v === 'string' && /^-?\d+(\.\d+)?$/.test(v)) return Number(v);
  return undefined;
}

/** Counts that cannot be negative (replica and pod counts); expectations add/del can. */
const NON_NEGATIVE = new Set([
  'need',
  'creating',
  'deleting',
  'podsSkipped',
  'nodesNeeding',
  'oldReplicas',
  'newReplicas',
  'replicasFrom',
  'replicasTo',
  'durationMs',
]);

/** A printable `name=value` for a problem message (values as written, shortened). */
function shown(name: string, v: unknown): string {
  let t: string;
  try {
    t = typeof v === 'number' ? String(v) : (JSON.stringify(v) ?? String(v));
  } catch {
    t = String(v);
  }
  return `${name}=${t.length > 40 ? `${t.slice(0, 40)}…` : t}`;
}

/** A valid count: a whole number within ±2^53 (durations: any finite number), ≥ 0 where it must be. */
function validNumber(name: string, n: number): boolean {
  if (!Number.isFinite(n)) return false;
  if (name !== 'durationMs' && !Number.isSafeInteger(n)) return false;
  return !(n < 0 && (NON_NEGATIVE.has(name) || name.endsWith('From') || name.endsWith('To')));
}

/** Drops invalid numbers (and add/del) of a classified line, recording them in `invalid`. */
function checkNumbers(c: Classified): Classified {
  for (const k of ['add', 'del'] as const) {
    const v = c[k];
    if (v !== undefined && !validNumber(k, v)) {
      (c.invalid ??= []).push(shown(k, v));
      delete c[k];
    }
  }
  if (c.numbers) {
    for (const [k, v] of Object.entries(c.numbers)) {
      if (!validNumber(k, v)) {
        (c.invalid ??= []).push(shown(k === 'durationMs' ? 'duration' : k, v));
        delete c.numbers[k];
      }
    }
  }
  return c;
}

/** `objKey` of a value the line has (an invalid one — `null`, a number, "" — is recorded). */
function keyOf(c: Classified, name: string, v: unknown): string | undefined {
  if (v === undefined) return undefined;
  const k = objKey(v);
  if (k === undefined) (c.invalid ??= []).push(shown(name, v));
  return k;
}

export interface ExpectationsValue {
  add?: number;
  del?: number;
  key?: string;
  /** add/del present but not numbers. */
  invalid?: string[];
}

/**
 * Reads a rendered ControlleeExpectations, whatever the klog version made of it:
 * `{}` (klog ≥ 2.90 JSON-encodes MarshalLog's struct of unexported fields — v1.27+ in practice,
 * text and JSON), `{add:2 del:0 key:default/foo}` (older klog `%+v`), a JSON object with
 * add/del/key, or `&controller.ControlleeExpectations{add:2, del:0, key:"default/foo", timestamp:…}`
 * (≤1.26 `%#v`).
 */
export function expectationsValue(v: unknown): ExpectationsValue {
  const out: ExpectationsValue = {};
  if (isRecord(v)) {
    const rawA = v.add ?? v.Add;
    const rawD = v.del ?? v.Del;
    const a = num(rawA);
    const d = num(rawD);
    if (rawA !== undefined && a === undefined) (out.invalid ??= []).push(shown('add', rawA));
    if (rawD !== undefined && d === undefined) (out.invalid ??= []).push(shown('del', rawD));
    const k = v.key ?? v.Key;
    if (a !== undefined) out.add = a;
    if (d !== undefined) out.del = d;
    if (typeof k === 'string' && k) out.key = k;
    return out;
  }
  if (typeof v !== 'string') return out;
  const a = /\badd:\s*(-?\d+)/.exec(v);
  const d = /\bdel:\s*(-?\d+)/.exec(v);
  const k = /\bkey:\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,}"]+))/.exec(v);
  if (a) out.add = Number(a[1]);
  if (d) out.del = Number(d[1]);
  const key = k ? (k[1] ?? k[2]) : undefined;
  if (key) out.key = key;
  return out;
}

/** Delete keys: JSON array, JSON object (a set), `[a b]`, `map[a:{} b:{}]`. */
export function keyList(v: unknown): string[] {
  if (Array.isArray(v)) return v.map((x) => objKey(x)).filter((x): x is string => x !== undefined);
  if (isRecord(v)) return Object.keys(v);
  if (typeof v !== 'string') return [];
  const t = v.trim();
  if (t.startsWith('map[')) {
    const out: string[] = [];
    const re = /(?<![^\s[\]:])([^\s[\]:]+):\{\}/g;
    for (let m = re.exec(t); m; m = re.exec(t)) out.push(m[1]!);
    return out;
  }
  if (t.startsWith('[') && t.endsWith(']')) {
    const inner = t.slice(1, -1).trim();
    if (!inner) return [];
    try {
      const parsed: unknown = JSON.parse(t);
      if (Array.isArray(parsed)) return keyList(parsed);
    } catch {
      /* %+v form */
    }
    return inner.split(/\s+/);
  }
  if (t.startsWith('{')) {
    try {
      return keyList(JSON.parse(t));
    } catch {
      return [];
    }
  }
  return [];
}

/** Family named by a Kind string or a lower-case controller name. */
export function kindFamily(s: unknown): ControllerFamily | undefined {
  if (typeof s !== 'string' || !s) return undefined;
  const k = s.toLowerCase().replace(/[\s_-]/g, '');
  if (k === 'replicaset' || k === 'replicasetcontroller') return 'replicaset';
  if (k === 'replicationcontroller' || k === 'replicationcontrollercontroller') return 'replicationcontroller';
  if (k === 'daemonset' || k === 'daemonsetcontroller') return 'daemonset';
  if (k === 'job' || k === 'jobcontroller') return 'job';
  return 'other';
}

/**
 * Family from a contextual logger name (`logger=` / JSON `logger`). The KCM names controller
 * loggers after the controller (`replicaset-controller`; `replicaset` in 1.27 before the
 * canonical names). `UnhandledError` (utilruntime.HandleError) says nothing about the caller.
 */
export function loggerFamily(logger: string | undefined): ControllerFamily | undefined {
  if (!logger || logger === 'UnhandledError') return undefined;
  const slash = logger.indexOf('/');
  const head = slash < 0 ? logger : logger.slice(0, slash);
  switch (head) {
    case 'replicaset-controller':
    case 'replicaset':
      return 'replicaset';
    case 'replicationcontroller-controller':
    case 'replicationcontroller':
      return 'replicationcontroller';
    case 'daemonset-controller':
    case 'daemonset':
      return 'daemonset';
    case 'job-controller':
    case 'job':
      return 'job';
    default:
      return 'other';
  }
}

/** Family from the caller file when nothing else decides. */
export function fileFamily(file: string | undefined): ControllerFamily {
  switch (file) {
    case 'replica_set.go':
    case 'replica_set_utils.go':
      return 'rs-or-rc';
    case 'replication_controller.go':
    case 'replication_controller_utils.go':
    case 'conversion.go':
      return 'replicationcontroller';
    case 'daemon_controller.go':
    case 'daemonset_util.go':
      return 'daemonset';
    case 'job_controller.go':
    case 'tracking_utils.go':
      return 'job';
    default:
      return 'unknown'; // controller_utils.go, controller_ref_manager.go, runtime.go, anything else
  }
}

// ---------------------------------------------------------------------------------------------
// the catalogue

type KV = Record<string, unknown>;

const EXPECTATION_KIND: Record<string, ControllerLogKind> = {
  'Setting expectations': 'setting-expectations',
  'Lowered expectations': 'lowered-expectations',
  'Raised expectations': 'raised-expectations',
  'Controller expectations fulfilled': 'expectations-fulfilled',
  'Controller expectations expired': 'expectations-expired',
  'Controller still waiting on expectations': 'still-waiting',
};

function fromExpectations(kind: ControllerLogKind, v: unknown): Classified {
  const e = expectationsValue(v);
  const c: Classified = { kind };
  if (e.invalid) c.invalid = e.invalid;
  if (e.key) c.rsKey = e.key;
  else c.keyless = true;
  if (e.add !== undefined) c.add = e.add;
  if (e.del !== undefined) c.del = e.del;
  return c;
}

function setNum(c: Classified, name: string, v: unknown): void {
  if (v === undefined) return;
  const n = num(v);
  if (n === undefined) {
    (c.invalid ??= []).push(shown(name, v));
    return;
  }
  (c.numbers ??= {})[name] = n; // range checked by checkNumbers
}

const SYNC_FAILED_RE = /^sync "((?:[^"\\]|\\.)*)" failed with ([\s\S]*)$/;

/**
 * The 1.36+ consistency gate's error (KEP-5647, StaleControllerConsistencyReplicaSet): the sync
 * was skipped because an informer had not yet observed the controller's own last write. Text
 * seen from v1.37.2: `read version: 233 is not as new as written version: 245 for group
 * resource pods` (pkg/controller/replicaset/replica_set.go, consistencyStore.EnsureReady).
 */
const CONSISTENCY_RE = /read version: (\d+) is not as new as written version: (\d+) for group resource (\S+)/;

/**
 * The DaemonSet controller's failed sync (daemon_controller.go processNextWorkItem, v1.21.14 and
 * v1.37.2: `utilruntime.HandleError(fmt.Errorf("%v failed with : %v", dsKey, err))`). Other
 * controllers print the same wording (expand_controller.go, clusterroleaggregation), so it is the
 * DaemonSet's only from daemon_controller.go (callerFile).
 */
const DS_SYNC_FAILED_RE = /^([^\s/"]+\/[^\s/"]+) failed with : ([\s\S]*)$/;

function syncFailed(text: string): Classified | undefined {
  const d = DS_SYNC_FAILED_RE.exec(text);
  if (d) {
    const c: Classified = { kind: 'sync-failed', rsKey: d[1]!, contentFamily: 'daemonset', callerFile: 'daemon_controller.go' };
    const g = CONSISTENCY_RE.exec(d[2]!);
    if (g) {
      c.aux = 'consistency-skip';
      c.numbers = { readResourceVersion: Number(g[1]), writtenResourceVersion: Number(g[2]), consistencyPods: g[3] === 'pods' ? 1 : 0 };
    }
    return c;
  }
  const m = SYNC_FAILED_RE.exec(text);
  if (!m) return undefined;
  const c: Classified = { kind: 'sync-failed', rsKey: m[1]!.replace(/\\(.)/g, '$1') };
  const g = CONSISTENCY_RE.exec(m[2]!);
  if (g) {
    c.aux = 'consistency-skip';
    c.numbers = { readResourceVersion: Number(g[1]), writtenResourceVersion: Number(g[2]), consistencyPods: g[3] === 'pods' ? 1 : 0 };
  }
  return c;
}

const STATUS_RE = /^Updating status for (\w*): ([^\s/]+)\/([^\s,]+), replicas (-?\d+)->(-?\d+) \(need (-?\d+)\),?([\s\S]*)$/;

function statusUpdate(msg: string): Classified | undefined {
  const m = STATUS_RE.exec(msg);
  if (!m) return undefined;
  const c: Classified = { kind: 'status-update', rsKey: `${m[2]}/${m[3]}` };
  if (m[1]) c.contentFamily = kindFamily(m[1])!;
  const numbers: Record<string, number> = { replicasFrom: Number(m[4]), replicasTo: Number(m[5]), need: Number(m[6]) };
  const rest = m[7]!;
  const re = /(fullyLabeledReplicas|readyReplicas|availableReplicas|terminatingReplicas) (-?\d+|nil)->(-?\d+|nil)/g;
  for (let r = re.exec(rest); r; r = re.exec(rest)) {
    if (r[2] !== 'nil') numbers[`${r[1]}From`] = Number(r[2]);
    if (r[3] !== 'nil') numbers[`${r[1]}To`] = Number(r[3]);
  }
  const g = /sequence No: (-?\d+)->(-?\d+)/.exec(rest);
  if (g) {
    numbers.observedGenerationFrom = Number(g[1]);
    numbers.observedGenerationTo = Number(g[2]);
  }
  c.numbers = numbers;
  return c;
}

function withDuration(c: Classified, d: unknown): Classified {
  let ms: number | undefined;
  if (typeof d === 'string') ms = parseGoDuration(d);
  else if (typeof d === 'number') ms = d * 1000; // zap's default duration encoding: float seconds
  if (ms !== undefined) (c.numbers ??= {}).durationMs = Math.round(ms * 1e6) / 1e6;
  else if (d !== undefined) (c.invalid ??= []).push(shown('duration', d));
  return c;
}

/**
 * A controller's Event, as its event broadcaster logs it (client-go tools/record/event.go,
 * v0.21.14 and v0.37.2 alike in keys: StartStructuredLogging's
 * `"Event occurred" object="ns/name" [fieldPath=…] kind="ReplicaSet" apiVersion="apps/v1" type="Normal"
 * reason="SuccessfulCreate" message="Created pod: web-x7k2p"`; 1.37 adds fieldPath). The
 * involved object's kind names the controller that recorded it: a broadcaster logs only its own
 * controller's Events (replica_set.go NewBaseController: one broadcaster per controller), and the
 * ReplicaSet / ReplicationController / DaemonSet / Job controllers record theirs on their own
 * objects (controller_utils.go RealPodControl: SuccessfulCreate "Created pod: %v", FailedCreate
 * "Error creating: %v", SuccessfulDelete "Deleted pod: %v", FailedDelete "Error deleting: %v").
 */
function controllerEvent(key: string | undefined, kind: unknown, type: unknown, reason: unknown, note: unknown): Classified {
  const c: Classified = { kind: 'controller-event' };
  if (key) c.rsKey = key;
  const involvedKind = typeof kind === 'string' ? kind : '';
  const f = kindFamily(involvedKind);
  if (f) c.contentFamily = f;
  const ev: LoggedEvent = {
    involvedKind,
    type: typeof type === 'string' ? type : '',
    reason: typeof reason === 'string' ? reason : '',
    note: typeof note === 'string' ? note : '',
  };
  const pod = /^(?:Created|Deleted) pod: (\S+)$/.exec(ev.note)?.[1];
  const slash = key?.indexOf('/') ?? -1;
  if (pod) ev.pod = slash > 0 ? `${key!.slice(0, slash)}/${pod}` : pod;
  c.event = ev;
  return c;
}

/** A Go `%#v` string field of a struct literal: `Name:"web"` → `web`. */
function goField(struct: string, name: string): string | undefined {
  const m = new RegExp(`\\b${name}:"((?:[^"\\\\]|\\\\.)*)"`).exec(struct);
  return m ? m[1]!.replace(/\\(.)/g, '$1') : undefined;
}

/** StartLogging's printf form (≤1.20, still used by some controllers): `Event(v1.ObjectReference{Kind:"ReplicaSet", Namespace:"ns", Name:"web", …}): type: 'Normal' reason: 'SuccessfulCreate' Created pod: web-x7k2p`. */
const EVENT_PRINTF_RE = /^Event\((?:v1\.)?ObjectReference\{([^}]*)\}\): type: '([^']*)' reason: '([^']*)' ?([\s\S]*)$/;

function printfEvent(m: RegExpExecArray): Classified {
  const ref = m[1]!;
  const ns = goField(ref, 'Namespace');
  const name = goField(ref, 'Name');
  const key = name ? (ns ? `${ns}/${name}` : name) : undefined;
  return controllerEvent(key, goField(ref, 'Kind'), m[2], m[3], m[4]);
}

/** Structured messages (exact text) → extractor. */

/** "Too few replicas" / "Too many replicas": replicaSet (older: rs), need and creating|deleting. */
function replicaCountLine(kv: KV, kind: 'too-few-replicas' | 'too-many-replicas', count: 'creating' | 'deleting'): Classified {
  const c: Classified = { kind };
  // manageReplicas: ExpectCreations, then "Too few replicas" (its deletions are announced by
  // "Controller waiting on deletions" before their Set).
  if (kind === 'too-few-replicas') c.setSide = 'after';
  const k = keyOf(c, 'replicaSet', 'replicaSet' in kv ? kv.replicaSet : kv.rs);
  if (k) c.rsKey = k;
  setNum(c, 'need', kv.need);
  setNum(c, count, kv[count]);
  return c;
}


// ---------------------------------------------------------------------------------------------
// the DaemonSet and Job controllers' own lines (v1.28+ structured; the v1.21.14–v1.26 printf forms
// are in PRINTF). Read in pkg/controller/daemon/daemon_controller.go, pkg/controller/job/
// job_controller.go and tracking_utils.go at v1.21.14, v1.25.16, v1.28.15 and v1.37.2.

/**
 * DaemonSet syncNodes: "Nodes needing daemon pods for daemon set, creating" daemonset=KObj
 * needCount=[node names] createCount=N — written right after SetExpectations(dsKey, createDiff,
 * deleteDiff) (V(4)); createCount is the Set's `add`, the next "Pods to delete…, deleting" line
 * of the same sync carries its `del`.
 */
function dsCreating(kv: KV): Classified {
  const c: Classified = { kind: 'too-few-replicas', contentFamily: 'daemonset', setSide: 'after' };
  const k = keyOf(c, 'daemonset', kv.daemonset);
  if (k) c.rsKey = k;
  if ('needCount' in kv) (c.numbers ??= {}).nodesNeeding = keyList(kv.needCount).length;
  setNum(c, 'creating', kv.createCount);
  return c;
}

/** DaemonSet syncNodes: "Pods to delete for daemon set, deleting" daemonset=KObj toDeleteCount=[pod names] deleteCount=N (V(4)). */
function dsDeleting(kv: KV): Classified {
  const c: Classified = { kind: 'too-many-replicas', contentFamily: 'daemonset' };
  const k = keyOf(c, 'daemonset', kv.daemonset);
  if (k) c.rsKey = k;
  setNum(c, 'deleting', kv.deleteCount);
  const pods = keyList(kv.toDeleteCount);
  const slash = k?.indexOf('/') ?? -1;
  if (pods.length) c.keys = pods.map((p) => (slash > 0 && !p.includes('/') ? `${k!.slice(0, slash)}/${p}` : p));
  return c;
}

/** A line naming its DaemonSet (`daemonset=`) or Job (`job=`, `key=`) and nothing else kexp reads. */
function ownerLine(kind: ControllerLogKind, family: 'daemonset' | 'job', name: string, v: unknown, aux?: AuxKind): Classified {
  const c: Classified = { kind, contentFamily: family };
  if (aux) c.aux = aux;
  const k = keyOf(c, name, v);
  if (k) c.rsKey = k;
  return c;
}

/** The Job controller's finalizer UID-tracking store (tracking_utils.go): `key=` since v1.28, `job=` before. */
function trackingLine(kind: 'finalizers-expected' | 'finalizer-removal-observed', kv: KV, uids: unknown): Classified {
  const c = ownerLine(kind, 'job', 'key' in kv ? 'key' : 'job', 'key' in kv ? kv.key : kv.job);
  c.keys = typeof uids === 'string' && !uids.startsWith('[') ? (uids ? [uids] : []) : keyList(uids);
  return c;
}

const OWNER_STRUCTURED: Record<string, (kv: KV) => Classified | undefined> = {
  'Nodes needing daemon pods for daemon set, creating': dsCreating,
  'Pods to delete for daemon set, deleting': dsDeleting,
  'Finished syncing daemon set': (kv) => withDuration(ownerLine('finished-syncing', 'daemonset', 'daemonset', kv.daemonset), kv.time),
  'Daemon set has been deleted': (kv) => ownerLine('rs-deleted-sync', 'daemonset', 'daemonset', kv.daemonset),
  // deleteDaemonset: DeleteExpectations follows (V(4), the informer handler).
  'Deleting daemon set': (kv) => ownerLine('other', 'daemonset', 'daemonset', kv.daemonset, 'rs-deleting'),
  'Adding daemon set': (kv) => ownerLine('other', 'daemonset', 'daemonset', kv.daemonset, 'rs-added'),
  // addPod / deletePod: CreationObserved / DeletionObserved follow (V(4), the informer handler).
  'Pod added': (kv) => podHandler('pod-added', kv.pod),
  'Failed creation, decrementing expectations for daemon set': (kv) => ownerLine('failed-create', 'daemonset', 'daemonset', kv.daemonset),
  'Slow-start failure. Skipping creation pods, decrementing expectations for daemon set': (kv) => {
    const c = ownerLine('slow-start-failure', 'daemonset', 'daemonset', kv.daemonset);
    c.lowersAtOnce = true;
    setNum(c, 'podsSkipped', kv.skippedPods);
    return c;
  },
  'Failed deletion, decremented expectations for daemon set': (kv) => ownerLine('failed-delete', 'daemonset', 'daemonset', kv.daemonset),
  'Starting daemon sets controller': () => ({ kind: 'controller-started', contentFamily: 'daemonset' }),
  'Shutting down daemon sets controller': () => ({ kind: 'other', aux: 'controller-stopped', contentFamily: 'daemonset' }),
  // Job manageJob: ExpectCreations then "Too few pods running"; ExpectDeletions then "Too many pods
  // running for job"; "Deleting all active pods in suspended job" then ExpectDeletions (V(4)).
  'Too few pods running': (kv) => {
    const c = ownerLine('too-few-replicas', 'job', 'key', kv.key);
    c.setSide = 'after';
    setNum(c, 'need', kv.need);
    setNum(c, 'creating', kv.creating);
    return c;
  },
  'Too many pods running for job': (kv) => {
    const c = ownerLine('too-many-replicas', 'job', 'job', kv.job);
    c.setSide = 'after';
    setNum(c, 'need', kv.target);
    setNum(c, 'deleting', kv.deleted);
    return c;
  },
  'Deleting all active pods in suspended job': (kv) => {
    const c = ownerLine('too-many-replicas', 'job', 'job', kv.job);
    c.setSide = 'before';
    setNum(c, 'need', 0);
    setNum(c, 'deleting', kv.active);
    return c;
  },
  'Finished syncing job': (kv) => withDuration(ownerLine('finished-syncing', 'job', 'key', kv.key), kv.elapsed),
  'Job has been deleted': (kv) => ownerLine('rs-deleted-sync', 'job', 'key', kv.key),
  'Failed creation, decrementing expectations': (kv) => ownerLine('failed-create', 'job', 'job', kv.job),
  'Slow-start failure. Skipping creating pods, decrementing expectations': (kv) => {
    const c = ownerLine('slow-start-failure', 'job', 'job', kv.job);
    setNum(c, 'podsSkipped', kv.skippedCount);
    return c;
  },
  'Failed to delete Pod': (kv) => {
    const c = ownerLine('failed-delete', 'job', 'job', kv.job);
    const p = keyOf(c, 'pod', kv.pod);
    if (p) c.podKey = p;
    return c;
  },
  'Expecting tracking finalizers removed': (kv) => trackingLine('finalizers-expected', kv, kv.podUIDs),
  'Observed tracking finalizer removed': (kv) => trackingLine('finalizer-removal-observed', kv, kv.podUID),
  'Starting job controller': () => ({ kind: 'controller-started', contentFamily: 'job' }),
  'Shutting down job controller': () => ({ kind: 'other', aux: 'controller-stopped', contentFamily: 'job' }),
};

const STRUCTURED: Record<string, (kv: KV) => Classified | undefined> = {
  'Controller either never recorded expectations, or the ttl expired': (kv) => {
    const c: Classified = { kind: 'never-recorded' };
    const k = keyOf(c, 'controller', kv.controller);
    if (k) c.rsKey = k;
    return c;
  },
  'Controller waiting on deletions': (kv) => {
    const c: Classified = { kind: 'waiting-on-deletions', keys: keyList(kv.keys), setSide: 'before' };
    const k = keyOf(c, 'controller', kv.controller);
    if (k) c.rsKey = k;
    return c;
  },
  'Clobbering existing delete keys': (kv) => ({ kind: 'clobbering-delete-keys', keys: keyList(kv.keys) }),
  'Controller received delete for pod': (kv) => {
    const c: Classified = { kind: 'received-delete' };
    const k = keyOf(c, 'controller', kv.controller);
    const p = keyOf(c, 'key', kv.key);
    if (k) c.rsKey = k;
    if (p) {
      c.podKey = p;
      c.keys = [p];
    }
    return c;
  },
  'Too few replicas': (kv) => replicaCountLine(kv, 'too-few-replicas', 'creating'),
  'Too many replicas': (kv) => replicaCountLine(kv, 'too-many-replicas', 'deleting'),
  'Slow-start failure. Skipping creation of pods, decrementing expectations': (kv) => {
    const c: Classified = { kind: 'slow-start-failure' };
    const k = keyOf(c, 'replicaSet', kv.replicaSet);
    if (k) c.rsKey = k;
    const f = kindFamily(kv.kind);
    if (f) c.contentFamily = f;
    setNum(c, 'podsSkipped', kv.podsSkipped);
    return c;
  },
  'Failed to delete pod, decremented expectations': (kv) => {
    const c: Classified = { kind: 'failed-delete' };
    const k = keyOf(c, 'replicaSet', kv.replicaSet);
    const p = keyOf(c, 'pod', kv.pod);
    if (k) c.rsKey = k;
    if (p) c.podKey = p;
    const f = kindFamily(kv.kind);
    if (f) c.contentFamily = f;
    return c;
  },
  'Finished syncing': (kv) => {
    const c: Classified = { kind: 'finished-syncing' };
    const k = keyOf(c, 'key', kv.key);
    if (k) c.rsKey = k;
    const f = kindFamily(kv.kind);
    if (f) c.contentFamily = f;
    return withDuration(c, kv.duration);
  },
  deleted: (kv) => {
    const c: Classified = { kind: 'rs-deleted-sync' };
    const k = keyOf(c, 'key', kv.key);
    if (k) c.rsKey = k;
    const f = kindFamily(kv.kind);
    if (f) c.contentFamily = f;
    return c;
  },
  'Unhandled Error': (kv) => (typeof kv.err === 'string' ? syncFailed(kv.err) : undefined),
  'Starting controller': (kv) => {
    const f = kindFamily(kv.name ?? kv.controller);
    const c: Classified = { kind: 'controller-started' };
    if (f) c.contentFamily = f;
    return c;
  },
  // Leader election of the whole process (client-go v0.37.2 tools/leaderelection/leaderelection.go
  // acquire / renew; cmd/kube-controller-manager/app/controllermanager.go OnStoppedLeading). The
  // lease gates every controller of the process, the ReplicaSet controller among them.
  'Attempting to acquire leader lease...': (kv) => leaseLine('lease-attempt', kv.lock),
  'Successfully acquired lease': (kv) => leaseLine('lease-acquired', kv.lock),
  'Failed to renew lease': (kv) => leaseLine('lease-lost', kv.lock),
  'leaderelection lost/stopped': () => leaseLine('lease-lost', KCM_LOCK),
  'Shutting down controller': (kv) => {
    const f = kindFamily(kv.name ?? kv.controller);
    const c: Classified = { kind: 'other', aux: 'controller-stopped' };
    if (f) c.contentFamily = f;
    return c;
  },
  'Controller created pod': (kv) => podControl('controller-created-pod', kv.controller, kv.pod),
  'Deleting pod': (kv) => podControl('deleting-pod', kv.controller, kv.pod),
  Adding: (kv) => rsHandler('rs-added', kv.replicaSet),
  Deleting: (kv) => rsHandler('rs-deleting', kv.replicaSet),
  'replicaSet updated. Desired pod count change.': (kv) => {
    const c = rsHandler('rs-updated', kv.replicaSet);
    if (c) {
      setNum(c, 'oldReplicas', kv.oldReplicas);
      setNum(c, 'newReplicas', kv.newReplicas);
    }
    return c;
  },
  'Event occurred': (kv) => controllerEvent(objKey(kv.object), kv.kind, kv.type, kv.reason, kv.message),
  'Pod created': (kv) => podHandler('pod-added', kv.pod),
  'Pod deleted': (kv) => podHandler('pod-deleted', kv.pod),
  ...OWNER_STRUCTURED,
};

function podControl(kind: ControllerLogKind, controller: unknown, pod: unknown): Classified {
  const c: Classified = { kind };
  const p = objKey(pod);
  if (p) c.podKey = p;
  const name = typeof controller === 'string' ? controller : objKey(controller);
  if (name) {
    if (name.includes('/')) c.rsKey = name;
    else {
      c.rsName = name;
      const slash = p?.indexOf('/') ?? -1;
      if (p && slash > 0) c.rsKey = `${p.slice(0, slash)}/${name}`;
    }
  }
  return c;
}

/** The kube-controller-manager's own leader-election lock (--leader-elect-resource-name default). */
export const KCM_LOCK = 'kube-system/kube-controller-manager';

/** A leader-election line about the kube-controller-manager's lock (another lock — a migration or a cloud controller's — is not ours). */
function leaseLine(kind: 'lease-attempt' | 'lease-acquired' | 'lease-lost', lock: unknown): Classified | undefined {
  if (lock !== KCM_LOCK) return undefined;
  return { kind, contentFamily: 'replicaset' };
}

function rsHandler(aux: AuxKind, rs: unknown): Classified | undefined {
  const c: Classified = { kind: 'other', aux };
  const k = keyOf(c, 'replicaSet', rs);
  if (k) c.rsKey = k;
  return c;
}

function podHandler(aux: AuxKind, pod: unknown): Classified {
  const c: Classified = { kind: 'other', aux };
  const p = keyOf(c, 'pod', pod);
  if (p) c.podKey = p;
  return c;
}

/** `"ns"/"name"` of a printf `%q/%q` (DaemonSet and Job lines of v1.16–v1.26) → ns/name. */
const QQ = '"((?:[^"\\\\]|\\\\.)*)"\\/"((?:[^"\\\\]|\\\\.)*)"';
const unq = (t: string): string => t.replace(/\\(.)/g, '$1');
const qqKey = (m: RegExpExecArray, i: number): string => `${unq(m[i]!)}/${unq(m[i + 1]!)}`;

/**
 * The DaemonSet and Job controllers' printf lines (v1.21.14 and v1.25.16 klog.Infof; v1.16.4
 * where its spelling differs). The DaemonSet's round lines name the DaemonSet without its
 * namespace (`ds.Name`); attribute.ts finds the key among the DaemonSets the log names.
 */
const OWNER_PRINTF: Array<[RegExp, (m: RegExpExecArray) => Classified | undefined]> = [
  [
    /^Nodes needing daemon pods for daemon set (\S+): (\[[\s\S]*\]), creating (-?\d+)$/,
    (m) => ({ kind: 'too-few-replicas', contentFamily: 'daemonset', setSide: 'after', rsName: m[1]!, numbers: { creating: Number(m[3]), nodesNeeding: keyList(m[2]!).length } }),
  ],
  [
    /^Pods to delete for daemon set (\S+): (\[[\s\S]*\]), deleting (-?\d+)$/,
    (m) => ({ kind: 'too-many-replicas', contentFamily: 'daemonset', rsName: m[1]!, numbers: { deleting: Number(m[3]) } }),
  ],
  [
    /^Finished syncing daemon set "((?:[^"\\]|\\.)*)" \(([^)]*)\)$/,
    (m) => withDuration({ kind: 'finished-syncing', contentFamily: 'daemonset', rsKey: unq(m[1]!) }, m[2]!),
  ],
  [/^daemon set has been deleted (\S+)$/, (m) => ({ kind: 'rs-deleted-sync', contentFamily: 'daemonset', rsKey: m[1]! })],
  [
    new RegExp(`^Failed creation, decrementing expectations for (set|job) ${QQ}$`),
    (m) => ({ kind: 'failed-create', contentFamily: m[1] === 'set' ? 'daemonset' : 'job', rsKey: qqKey(m, 2) }),
  ],
  [
    new RegExp(`^Slow-start failure\\. Skipping creation of (\\d+) pods, decrementing expectations for (set|job) ${QQ}$`),
    (m) => ({
      kind: 'slow-start-failure', contentFamily: m[2] === 'set' ? 'daemonset' : 'job', rsKey: qqKey(m, 3),
      numbers: { podsSkipped: Number(m[1]) }, ...(m[2] === 'set' ? { lowersAtOnce: true as const } : {}),
    }),
  ],
  [new RegExp(`^Failed deletion, decrement(?:ed|ing) expectations for set ${QQ}$`), (m) => ({ kind: 'failed-delete', contentFamily: 'daemonset', rsKey: qqKey(m, 1) })],
  [
    /^Too few pods running job "((?:[^"\\]|\\.)*)", need (-?\d+), creating (-?\d+)$/,
    (m) => ({ kind: 'too-few-replicas', contentFamily: 'job', setSide: 'after', rsKey: unq(m[1]!), numbers: { need: Number(m[2]), creating: Number(m[3]) } }),
  ],
  [
    /^Too many pods running job "((?:[^"\\]|\\.)*)", need (-?\d+), deleting (-?\d+)$/,
    (m) => ({ kind: 'too-many-replicas', contentFamily: 'job', rsKey: unq(m[1]!), numbers: { need: Number(m[2]), deleting: Number(m[3]) } }),
  ],
  [/^Job has been deleted: (\S+)$/, (m) => ({ kind: 'rs-deleted-sync', contentFamily: 'job', rsKey: m[1]! })],
  [
    new RegExp(`^Failed to delete (\\S+), decrementing expectations for job ${QQ}$`),
    (m) => ({ kind: 'failed-delete', contentFamily: 'job', rsKey: qqKey(m, 2), podKey: `${unq(m[2]!)}/${m[1]!}` }),
  ],
  [/^Starting daemon sets controller$/, () => ({ kind: 'controller-started', contentFamily: 'daemonset' })],
  [/^Shutting down daemon sets controller$/, () => ({ kind: 'other', aux: 'controller-stopped', contentFamily: 'daemonset' })],
];

/** printf (≤1.26) messages. Each returns undefined when its regexp does not match. */
const PRINTF: Array<[RegExp, (m: RegExpExecArray) => Classified | undefined]> = [
  ...OWNER_PRINTF,
  [
    /^(Setting expectations|Lowered expectations|Raised expectations|Controller expectations fulfilled|Controller expectations expired|Controller still waiting on expectations) ([\s\S]*)$/,
    (m) => fromExpectations(EXPECTATION_KIND[m[1]!]!, m[2]!),
  ],
  [
    /^Controller (\S+) either never recorded expectations, or the ttl expired\.?$/,
    (m) => ({ kind: 'never-recorded', rsKey: m[1]! }),
  ],
  [/^Controller (\S+) waiting on deletions for: ([\s\S]*)$/, (m) => ({ kind: 'waiting-on-deletions', rsKey: m[1]!, keys: keyList(m[2]!), setSide: 'before' })],
  [/^Clobbering existing delete keys: ([\s\S]*)$/, (m) => ({ kind: 'clobbering-delete-keys', keys: keyList(m[1]!) })],
  [
    /^Controller (\S+) received delete for pod (\S+)$/,
    (m) => ({ kind: 'received-delete', rsKey: m[1]!, podKey: m[2]!, keys: [m[2]!] }),
  ],
  [
    /^Too few replicas for (\w+) ([^\s,]+), need (-?\d+), creating (-?\d+)$/,
    (m) => ({
      kind: 'too-few-replicas',
      contentFamily: kindFamily(m[1])!,
      setSide: 'after',
      rsKey: m[2]!,
      numbers: { need: Number(m[3]), creating: Number(m[4]) },
    }),
  ],
  [
    /^Too many replicas for (\w+) ([^\s,]+), need (-?\d+), deleting (-?\d+)$/,
    (m) => ({
      kind: 'too-many-replicas',
      contentFamily: kindFamily(m[1])!,
      rsKey: m[2]!,
      numbers: { need: Number(m[3]), deleting: Number(m[4]) },
    }),
  ],
  [
    /^Slow-start failure\. Skipping creation of (\d+) pods, decrementing expectations for (\w+) (\S+)$/,
    (m) => ({ kind: 'slow-start-failure', contentFamily: kindFamily(m[2])!, rsKey: m[3]!, numbers: { podsSkipped: Number(m[1]) } }),
  ],
  [
    /^Failed to delete (\S+), decrement(?:ed|ing) expectations for (\w+) (\S+)$/,
    (m) => ({ kind: 'failed-delete', contentFamily: kindFamily(m[2])!, rsKey: m[3]!, podKey: m[1]! }),
  ],
  [
    /^Finished syncing (\w+) "((?:[^"\\]|\\.)*)" \(([^)]*)\)$/,
    (m) => withDuration({ kind: 'finished-syncing', contentFamily: kindFamily(m[1])!, rsKey: m[2]! }, m[3]!),
  ],
  [/^(ReplicaSet|ReplicationController) (\S+) has been deleted$/, (m) => ({ kind: 'rs-deleted-sync', contentFamily: kindFamily(m[1])!, rsKey: m[2]! })],
  [/^Starting (\w+) controller$/, (m) => ({ kind: 'controller-started', contentFamily: kindFamily(m[1])! })],
  // client-go v0.21.14 tools/leaderelection/leaderelection.go acquire / renew (klog.Infof), and
  // v1.21.14 cmd/kube-controller-manager/app/controllermanager.go OnStoppedLeading (klog.Fatalf).
  [/^attempting to acquire leader lease (\S+?)\.\.\.$/, (m) => leaseLine('lease-attempt', m[1])],
  [/^successfully acquired lease (\S+)$/, (m) => leaseLine('lease-acquired', m[1])],
  [/^failed to renew lease (\S+?): /, (m) => leaseLine('lease-lost', m[1])],
  [/^leaderelection lost$/, () => leaseLine('lease-lost', KCM_LOCK)],
  [/^Shutting down (\w+) controller$/, (m) => ({ kind: 'other', aux: 'controller-stopped', contentFamily: kindFamily(m[1])! })],
  [/^Controller (\S+) created pod (\S+)$/, (m) => podControl('controller-created-pod', m[1], m[2])],
  [/^Controller (\S+) deleting pod (\S+)\/(\S+)$/, (m) => podControl('deleting-pod', m[1], `${m[2]}/${m[3]}`)],
  [
    /^Adding (ReplicaSet|ReplicationController) (\S+\/\S+)$/,
    (m) => ({ kind: 'other', aux: 'rs-added', contentFamily: kindFamily(m[1])!, rsKey: m[2]! }),
  ],
  [
    /^Deleting (ReplicaSet|ReplicationController) "((?:[^"\\]|\\.)*)"$/,
    (m) => ({ kind: 'other', aux: 'rs-deleting', contentFamily: kindFamily(m[1])!, rsKey: m[2]! }),
  ],
  [
    /^(ReplicaSet|ReplicationController) (\S+) updated\. Desired pod count change: (-?\d+)->(-?\d+)$/,
    (m) => ({
      kind: 'other',
      aux: 'rs-updated',
      contentFamily: kindFamily(m[1])!,
      rsName: m[2]!,
      numbers: { oldReplicas: Number(m[3]), newReplicas: Number(m[4]) },
    }),
  ],
  [/^Pod ([^\s/]+)\/(\S+) deleted through /, (m) => ({ kind: 'other', aux: 'pod-deleted', podKey: `${m[1]}/${m[2]}` })],
  [EVENT_PRINTF_RE, printfEvent],
];

/**
 * Classifies one log record. `msg` is the (unquoted) message; `kv()` yields its key/values
 * (parsed lazily: most lines of a -v=4 KCM log are about other controllers).
 * Returns undefined for lines outside the catalogue.
 */
export function classifyMessage(msg: string, structured: boolean, kv: () => KV): Classified | undefined {
  const c = classifyRaw(msg, structured, kv);
  return c ? checkNumbers(c) : undefined;
}

function classifyRaw(msg: string, structured: boolean, kv: () => KV): Classified | undefined {
  if (structured) {
    const ek = EXPECTATION_KIND[msg];
    if (ek) return fromExpectations(ek, kv().expectations);
    const f = STRUCTURED[msg];
    if (f) return f(kv());
    if (msg.startsWith('Updating status for ')) return statusUpdate(msg);
    if (msg.startsWith('sync "')) return syncFailed(msg);
    return undefined;
  }
  // The DaemonSet's failed sync starts with its key.
  if (msg.includes(' failed with : ')) {
    const f = syncFailed(msg);
    if (f) return f;
  }
  // printf: cheap prefix screen before the regexps.
  const c0 = msg.charCodeAt(0);
  // S(etting|low-start|tarting|hutting|ync) L(owered) R(aised|eplica*) C(ontroller|lobbering) T(oo) F(ailed|inished) U(pdating) A(dding) D(eleting) P(od|ods to delete) E(vent)
  // N(odes needing) J(ob has been deleted) d(aemon set has been deleted)
  // a(ttempting) f(ailed to renew) l(eaderelection) s(uccessfully): the leader-election lines of ≤1.26.
  if (!'SLRCTFUADPENJafld'.includes(String.fromCharCode(c0)) && c0 !== 0x73 /* s */) return undefined;
  if (msg.startsWith('sync "')) return syncFailed(msg);
  if (msg.startsWith('Updating status for ')) return statusUpdate(msg);
  for (const [re, f] of PRINTF) {
    const m = re.exec(msg);
    if (m) return f(m);
  }
  return undefined;
}

/** A key named by an uncatalogued line of another controller. */
export interface OtherControllerLine {
  key: string;
  family: ControllerFamily;
  /** The Job controller's "enqueueing job" (enqueueSyncJobInternal): its pod handlers write it right after lowering the Job's record. */
  enqueued?: true;
}

/**
 * Lines of controllers that share no expectations code with the ones kexp reads (the DaemonSet's
 * and Job's "Finished syncing …" lines are in the catalogue): their keys, so the ≤1.26
 * attribution rule can tell their keys from a ReplicaSet's.
 */
const OTHER_PRINTF_RES: Array<[RegExp, ControllerFamily]> = [
  [/^Finished syncing (?:deployment|statefulset|stateful set) "((?:[^"\\]|\\.)*)"/, 'other'],
];

export function otherControllerKey(msg: string, kv: () => KV): OtherControllerLine | undefined {
  // job_controller.go enqueueSyncJobInternal: `"enqueueing job" key=… delay=…` (V(2) in v1.37.2, V(0) in v1.28.15).
  if (msg === 'enqueueing job') {
    const key = objKey(kv().key);
    return key ? { key, family: 'job', enqueued: true } : undefined;
  }
  if (!msg.startsWith('Finished syncing ')) return undefined;
  for (const [re, family] of OTHER_PRINTF_RES) {
    const m = re.exec(msg);
    if (m) return { key: m[1]!, family };
  }
  const v = kv();
  let out: OtherControllerLine | undefined;
  if (msg === 'Finished syncing deployment' || msg === 'Finished syncing statefulset') {
    const key = objKey(v.deployment ?? v.key);
    if (key) out = { key, family: 'other' };
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// reflector lines (client-go tools/cache/reflector.go): the informers' own account of their lists

/** The informers whose relists matter to the ReplicaSet and ReplicationController controllers. */
export type RelistInformer = 'Pod' | 'ReplicaSet' | 'ReplicationController';

/**
 * One reflector line of an informer kexp reads:
 * - `watch-closed`: the watch ended with "too old resource version" (410 Expired):
 *   DefaultWatchErrorHandler / the watch loop's isExpiredError branch, V(4) (1.37.2
 *   `"Watch closed" … err=`; 1.21 `<name>: watch of *v1.Pod closed with: <err>`);
 * - `watch-ended`: the watch ended with another error, V(0) (1.37.2 `"Warning: watch ended with
 *   error" … err=`; 1.21 klog.Warningf `<name>: watch of *v1.Pod ended with: <err>`);
 * - `listing`: ListAndWatch starts with a LIST, V(3) (`"Listing and watching" type=…`; 1.21
 *   `Listing and watching *v1.Pod from <name>`);
 * - `populated`: the LIST was stored (Replace) and the watch starts, V(2) (`"Caches populated"`,
 *   1.37.2 only; 1.21 prints no end of the list).
 * Either error ends ListAndWatch; the reflector's loop lists again (Reflector.RunWithContext).
 */
export interface ReflectorLine {
  phase: 'watch-closed' | 'watch-ended' | 'listing' | 'populated';
  informer: RelistInformer;
  /** The error the watch ended with, as logged. */
  err?: string;
}

const REFLECTOR_STRUCTURED: Record<string, ReflectorLine['phase']> = {
  'Watch closed': 'watch-closed',
  'Warning: watch ended with error': 'watch-ended',
  'Listing and watching': 'listing',
  'Caches populated': 'populated',
};

/** `*v1.Pod` (or `/v1, Kind=Pod` of a dynamic informer) → the informer, for the kinds kexp reads. */
function relistInformer(t: unknown): RelistInformer | undefined {
  if (typeof t !== 'string') return undefined;
  const m = /^\*v1\.(Pod|ReplicaSet|ReplicationController)$/.exec(t.trim());
  return m ? (m[1] as RelistInformer) : undefined;
}

const REFLECTOR_PRINTF: Array<[RegExp, ReflectorLine['phase']]> = [
  [/^\S+: watch of (\S+) closed with: ([\s\S]*)$/, 'watch-closed'],
  [/^\S+: watch of (\S+) ended with: ([\s\S]*)$/, 'watch-ended'],
  [/^Listing and watching (\S+) from \S+$/, 'listing'],
];

/**
 * Classifies a reflector line of the Pod, ReplicaSet or ReplicationController informer (undefined
 * for any other line or informer). `structured`: the message is quoted and followed by key/values.
 */
export function classifyReflectorLine(msg: string, structured: boolean, kv: () => KV): ReflectorLine | undefined {
  if (structured) {
    const phase = REFLECTOR_STRUCTURED[msg];
    if (!phase) return undefined;
    const v = kv();
    const informer = relistInformer(v.type);
    if (!informer) return undefined;
    if (phase === 'watch-closed' || phase === 'watch-ended') return { phase, informer, ...(typeof v.err === 'string' ? { err: v.err } : {}) };
    return { phase, informer };
  }
  if (!msg.includes('watch of ') && !msg.startsWith('Listing and watching ')) return undefined;
  for (const [re, phase] of REFLECTOR_PRINTF) {
    const m = re.exec(msg);
    if (!m) continue;
    const informer = relistInformer(m[1]);
    if (!informer) return undefined;
    return m[2] !== undefined ? { phase, informer, err: m[2].trim() } : { phase, informer };
  }
  return undefined;
}
