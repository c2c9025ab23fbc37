/**
 * Turns watch-shaped input (wire events `{type, object}`, bare objects from
 * `kubectl get -w`, list items) into TimelineEvents for one file: resolves the kind,
 * normalises events.k8s.io/v1 Events to the core/v1 shape, checks the fields the model
 * needs, infers watch types where the format has none, drops duplicates, and assigns `at`
 * (receive time or best object time), never reordering the file.
 *
 * Everything is reported through Diagnostics: per-line problems as they happen, and
 * per-file summaries (skipped kinds, duplicates, out-of-order receive times) as ONE warning
 * each when the file ends.
 *
 * Memory: O(distinct objects) — one `uid → last resourceVersion` entry per object for
 * duplicate detection and ADDED/MODIFIED inference; nothing per event.
 */
import { isRecord, type CoreEvent } from '../../model/objects.js';
import type { GapEvent, ObservedEvent, TimeBasis, TimelineEvent, WatchType } from '../../timeline/event.js';
import type { Diagnostics } from '../source.js';
import { kindOfSrc, parseRfc3339 } from './recording-format.js';
import { describeImplausible, implausibleAlone, latestFor, MAX_DEVIATION_MS, PlausibleTimeWindow, type ImplausibleTime } from '../../timeline/plausible-time.js';

export type ModelKind = 'Pod' | 'ReplicaSet' | 'ReplicationController' | 'DaemonSet' | 'Node' | 'Job' | 'Event' | 'Namespace';
const NAMESPACED: Record<ModelKind, boolean> = { Pod: true, ReplicaSet: true, ReplicationController: true, DaemonSet: true, Node: false, Job: true, Event: true, Namespace: false };
const MODEL_KINDS: ReadonlySet<string> = new Set(Object.keys(NAMESPACED));

type Obj = Record<string, unknown>;

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' ? v : undefined;
}

/** Context a list gives its items (PodList items carry no kind/apiVersion). */
export interface ListContext {
  kind?: string;
  apiVersion?: string;
}

/**
 * events.k8s.io/v1 (or v1beta1) Event → the core/v1 Event shape the model reads:
 * regarding→involvedObject, note→message, deprecatedSource→source,
 * deprecatedFirstTimestamp/deprecatedLastTimestamp→firstTimestamp/lastTimestamp,
 * deprecatedCount (or, when that is 0/absent, series.count)→count,
 * reportingController→reportingComponent. `series`, `related`, `action`, `eventTime` and
 * `reportingInstance` are kept.
 */
export function normalizeEventsV1(o: Obj): CoreEvent {
  const series = isRecord(o.series) ? o.series : undefined;
  const depCount = typeof o.deprecatedCount === 'number' && o.deprecatedCount > 0 ? o.deprecatedCount : undefined;
  const seriesCount = series && typeof series.count === 'number' ? series.count : undefined;
  const out: Obj = {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: o.metadata,
    involvedObject: o.regarding,
    related: o.related,
    reason: o.reason,
    message: o.note,
    type: o.type,
    count: depCount ?? seriesCount,
    firstTimestamp: o.deprecatedFirstTimestamp ?? null,
    lastTimestamp: o.deprecatedLastTimestamp ?? null,
    eventTime: o.eventTime ?? null,
    series: o.series,
    action: o.action,
    source: o.deprecatedSource,
    reportingComponent: o.reportingController,
    reportingInstance: o.reportingInstance,
  };
  for (const k of Object.keys(out)) if (out[k] === undefined) delete out[k];
  return out as unknown as CoreEvent;
}

function maxTime(acc: number | undefined, t: unknown): number | undefined {
  const ms = parseRfc3339(t);
  if (ms === undefined) return acc;
  return acc === undefined || ms > acc ? ms : acc;
}

/**
 * Best available time from the object itself (input-formats.md §6): for DELETED,
 * deletionTimestamp − deletionGracePeriodSeconds when set; otherwise the latest of
 * creationTimestamp, deletionTimestamp − grace, status.conditions[].lastTransitionTime and
 * managedFields[].time; for Events also firstTimestamp/lastTimestamp/eventTime/
 * series.lastObservedTime. Whole seconds for most fields.
 */
export function objectTime(kind: string, watchType: WatchType, obj: Obj): number | undefined {
  const meta = isRecord(obj.metadata) ? obj.metadata : {};
  let deletion: number | undefined;
  const del = parseRfc3339(meta.deletionTimestamp);
  if (del !== undefined) {
    const grace = typeof meta.deletionGracePeriodSeconds === 'number' ? meta.deletionGracePeriodSeconds : 0;
    deletion = del - grace * 1000;
  }
  if (watchType === 'DELETED' && deletion !== undefined) return deletion;
  let t = maxTime(undefined, meta.creationTimestamp);
  if (deletion !== undefined && (t === undefined || deletion > t)) t = deletion;
  const status = isRecord(obj.status) ? obj.status : undefined;
  if (status && Array.isArray(status.conditions)) {
    for (const c of status.conditions) if (isRecord(c)) t = maxTime(t, c.lastTransitionTime);
  }
  if (Array.isArray(meta.managedFields)) {
    for (const m of meta.managedFields) if (isRecord(m)) t = maxTime(t, m.time);
  }
  if (kind === 'Event') {
    t = maxTime(t, obj.firstTimestamp);
    t = maxTime(t, obj.lastTimestamp);
    t = maxTime(t, obj.eventTime);
    if (isRecord(obj.series)) t = maxTime(t, obj.series.lastObservedTime);
  }
  return t;
}

/** Guess the kind of an object that carries none (list items of a `List` of unknown kind). */
function kindFromShape(o: Obj): { kind: string; apiVersion?: string } | undefined {
  if (isRecord(o.involvedObject)) return { kind: 'Event', apiVersion: 'v1' };
  if (isRecord(o.regarding)) return { kind: 'Event', apiVersion: 'events.k8s.io/v1' };
  if (isRecord(o.spec) && Array.isArray(o.spec.containers)) return { kind: 'Pod', apiVersion: 'v1' };
  return undefined;
}

/** What is remembered per uid for duplicate detection: the last resourceVersion (DELETED marked apart). */
function rvToken(type: WatchType, rv: string): string {
  return type === 'DELETED' ? `D:${rv}` : rv;
}

const WATCH_TYPES = new Set(['ADDED', 'MODIFIED', 'DELETED']);
const WIRE_TYPES = new Set(['ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK', 'ERROR']);

/** Status object of an ERROR event / a kubectl `kind: Status` line → text. */
function statusText(o: unknown): { code?: number; text: string } {
  if (!isRecord(o)) return { text: 'no Status object' };
  const code = typeof o.code === 'number' ? o.code : undefined;
  const parts = [code !== undefined ? String(code) : undefined, str(o.reason)].filter(Boolean).join(' ');
  const msg = str(o.message);
  return { code, text: parts && msg ? `${parts}: ${msg}` : parts || msg || 'no message' };
}

export interface NormalizerOptions {
  file: string;
  basis: TimeBasis;
  diagnostics: Diagnostics;
  /** Warn once that types were inferred (formats without watch types, except plain lists). */
  warnInferredTypes: boolean;
  /**
   * The reader's clock (epoch ms): no time in the input can be more than a day after the moment
   * it is read (src/timeline/plausible-time.ts `latestFor`). Undefined: no such bound.
   */
  now?: () => number;
}

/** Held events wait for the first known time (object-timestamp basis only). */
const MAX_HELD = 10_000;

export class WatchNormalizer {
  readonly file: string;
  readonly basis: TimeBasis;
  private readonly diag: Diagnostics;
  private readonly warnInferred: boolean;

  events = 0;
  problems = 0;
  start: number | undefined;
  end: number | undefined;
  /** Last line handed to the normaliser (for problems found by the caller after it). */
  lastLine = 0;
  /** Appended to missing-field problems (e.g. "document ends without a newline"). */
  problemSuffix = '';
  /** Last BOOKMARK resourceVersion (kept for resume/coverage; bookmarks emit nothing). */
  lastBookmarkRV: string | undefined;

  private lastAt: number | undefined;
  private readonly now: (() => number) | undefined;
  /** Where released events go: the `out` of the latest call (the caller yields it). */
  private out: TimelineEvent[] = [];
  private readonly timeWindow: PlausibleTimeWindow<{ ev?: TimelineEvent; line: number }>;
  private held: TimelineEvent[] = [];
  private readonly lastSeen = new Map<string, string>();
  /**
   * Typed watch dumps (not recordings, whose recorder ends vanished objects itself): the live
   * objects per kind by namespace/name, their last state; and the relist in progress per kind.
   * A watch never sends ADDED twice for a live object, so an ADDED of one (or the first ADDED
   * after a 410) starts a relist; its run of ADDED events ends at the kind's next other event
   * (or the input's end). The objects it did not list, in the namespaces it listed, were deleted
   * while the watch was down: kexp ends them at the relist (DELETED, inferred), as an informer's
   * Replace would (client-go tools/cache DeltaFIFO.Replace) — bug-cases #26, kubernetes#115658.
   * Cost: one map entry per live object of a typed dump (a reference to the parsed object).
   */
  private readonly live = new Map<string, Map<string, Obj>>();
  private readonly relists = new Map<string, { listed: Set<string>; namespaces: Set<string>; line: number }>();
  private readonly relistExpected = new Set<string>();
  private readonly kindsSeen = new Set<string>();
  private readonly skipped = new Map<string, number>();
  private dupCount = 0;
  private dupFirst = 0;
  private outOfOrder = 0;
  private outOfOrderFirst = 0;
  private inferred = 0;
  private warned = false;
  private readonly extraWarnings: string[] = [];

  constructor(opts: NormalizerOptions) {
    this.file = opts.file;
    this.basis = opts.basis;
    this.diag = opts.diagnostics;
    this.warnInferred = opts.warnInferredTypes;
    this.now = opts.now;
    this.timeWindow = new PlausibleTimeWindow((p, t, bad) => this.placeDecided(p.ev, t, p.line, bad), this.basis === 'received', () => this.latest(), this.basis === 'received');
  }

  problem(line: number, message: string): void {
    this.problems++;
    this.diag.problem({ file: this.file, line, message });
  }

  /** A warning to print with the end-of-file summaries. */
  note(message: string): void {
    this.extraWarnings.push(message);
  }

  /**
   * Any decoded value of a non-recording format: a wire event `{type, object}`, a
   * `kind: Status` (kubectl's watch ended), a List, or a bare object (type inferred).
   */
  value(out: TimelineEvent[], line: number, v: unknown, list?: ListContext): void {
    this.lastLine = line;
    if (!isRecord(v)) {
      this.problem(line, `expected a JSON object, found ${Array.isArray(v) ? 'an array' : typeof v}; skipped`);
      return;
    }
    if (
      typeof v.type === 'string' &&
      ('object' in v || (WIRE_TYPES.has(v.type) && !('kind' in v) && !('metadata' in v)))
    ) {
      this.wire(out, line, v);
      return;
    }
    if (v.kind === 'Status' && !list) {
      const s = statusText(v);
      this.gap(out, line, 'watch-ended', `watch ended with Status ${s.text}`, this.singleKind());
      return;
    }
    if (Array.isArray(v.items) && (typeof v.kind !== 'string' || v.kind.endsWith('List'))) {
      const ctx: ListContext = { kind: str(v.kind), apiVersion: str(v.apiVersion) };
      for (const item of v.items) this.value(out, line, item, ctx);
      return;
    }
    this.observed(out, line, undefined, v, undefined, list);
  }

  /** A watch event as the API sends it. `recvAt`/`src` only for recordings. */
  wire(out: TimelineEvent[], line: number, ev: Obj, recvAt?: number, src?: string, listed?: 'initial-list' | 'relist'): void {
    this.lastLine = line;
    const type = ev.type;
    if (type === 'BOOKMARK') {
      const o = ev.object;
      if (isRecord(o) && isRecord(o.metadata) && typeof o.metadata.resourceVersion === 'string') {
        this.lastBookmarkRV = o.metadata.resourceVersion;
      }
      return;
    }
    if (type === 'ERROR') {
      const s = statusText(ev.object);
      const reason = isRecord(ev.object) ? ev.object.reason : undefined;
      if (s.code === 410 || reason === 'Expired' || reason === 'Gone') {
        const kinds = src ? [kindOfSrc(src)].filter((k): k is string => !!k) : this.singleKind();
        this.gap(out, line, 'watch-relist', `watch expired (${s.text}); the watcher must relist`, kinds, recvAt);
        for (const k of kinds ?? [...this.live.keys()]) this.relistExpected.add(k);
      } else {
        this.problem(line, `watch ERROR event: ${s.text}`);
      }
      return;
    }
    if (typeof type !== 'string' || !WATCH_TYPES.has(type)) {
      this.problem(line, `unknown watch event type ${JSON.stringify(type)}; skipped`);
      return;
    }
    this.observed(out, line, type as WatchType, ev.object, recvAt, undefined, src, listed);
  }

  gap(
    out: TimelineEvent[],
    line: number,
    reason: string,
    detail: string | undefined,
    kinds: string[] | undefined,
    recvAt?: number,
  ): void {
    this.lastLine = line;
    const g: GapEvent = {
      type: 'gap',
      at: 0,
      atBasis: this.basis,
      source: { file: this.file, line },
      reason,
    };
    if (detail) g.detail = detail;
    if (kinds && kinds.length > 0) g.kinds = kinds;
    this.place(out, g, recvAt, line);
  }

  private singleKind(): string[] | undefined {
    return this.kindsSeen.size === 1 ? [...this.kindsSeen] : undefined;
  }

  private observed(
    out: TimelineEvent[],
    line: number,
    type: WatchType | undefined,
    raw: unknown,
    recvAt: number | undefined,
    list: ListContext | undefined,
    src?: string,
    listed?: 'initial-list' | 'relist',
  ): void {
    if (!isRecord(raw)) {
      this.problem(line, 'watch event without an object; skipped');
      return;
    }
    let obj = raw;
    let kind = str(obj.kind);
    let apiVersion = str(obj.apiVersion);
    if (!kind) {
      const lk = list?.kind;
      if (lk && lk.endsWith('List') && lk !== 'List') {
        kind = lk.slice(0, -4);
        apiVersion ??= list?.apiVersion;
      } else {
        kind = kindOfSrc(src);
        if (!kind) {
          const guess = kindFromShape(obj);
          kind = guess?.kind;
          apiVersion ??= guess?.apiVersion;
        }
      }
      if (!kind) {
        this.problem(line, 'object without "kind"; skipped');
        return;
      }
      obj.kind = kind;
      if (apiVersion && !obj.apiVersion) obj.apiVersion = apiVersion;
    }
    if (kind === 'Event') {
      if (apiVersion?.startsWith('events.k8s.io/')) obj = normalizeEventsV1(obj) as unknown as Obj;
      else if (apiVersion && apiVersion !== 'v1') {
        this.skip(`Event (${apiVersion})`);
        return;
      }
    }
    if (!MODEL_KINDS.has(kind)) {
      this.skip(kind);
      return;
    }
    const mk = kind as ModelKind;
    const meta = isRecord(obj.metadata) ? obj.metadata : undefined;
    const name = str(meta?.name);
    const namespace = str(meta?.namespace);
    const uid = str(meta?.uid);
    const missing: string[] = [];
    if (!meta) missing.push('metadata');
    else {
      if (!name) missing.push('metadata.name');
      if (NAMESPACED[mk] && !namespace) missing.push('metadata.namespace');
      if (!uid) missing.push('metadata.uid');
    }
    if (missing.length > 0) {
      const who = name ? ` ${namespace ? `${namespace}/` : ''}${name}` : '';
      this.problem(line, `${mk}${who} without ${missing.join(', ')}; skipped${this.problemSuffix}`);
      return;
    }
    // resourceVersion may be a number in hand-written YAML; keep the wire type (string).
    if (typeof meta!.resourceVersion === 'number') meta!.resourceVersion = String(meta!.resourceVersion);
    const rv = str(meta!.resourceVersion);
    if (type && src === undefined) this.trackRelist(out, mk, type, `${namespace ?? ''}/${name}`, namespace ?? '', uid!, obj, line);
    const prev = this.lastSeen.get(uid!);
    let wt: WatchType;
    if (type) wt = type;
    else {
      wt = prev === undefined ? 'ADDED' : 'MODIFIED';
      this.inferred++;
    }
    if (rv !== undefined) {
      const token = rvToken(wt, rv);
      if (prev === token) {
        this.dupCount++;
        if (this.dupFirst === 0) this.dupFirst = line;
        return;
      }
      this.lastSeen.set(uid!, token);
    } else if (prev === undefined) {
      this.lastSeen.set(uid!, '');
    }
    this.kindsSeen.add(mk);
    if (this.basis !== 'received') this.checkOwnTimes(mk, obj, line);
    const t = this.basis === 'received' ? recvAt : objectTime(mk, wt, obj);
    const ev = {
      type: 'observed',
      kind: mk,
      watchType: wt,
      object: obj,
      at: 0,
      atBasis: this.basis,
      source: { file: this.file, line },
    } as unknown as ObservedEvent;
    if (listed) ev.listed = listed;
    this.place(out, ev, t, line);
  }

  /** See `live`: starts, extends and closes the relists of a typed dump; keeps the live objects. */
  private trackRelist(out: TimelineEvent[], kind: string, wt: WatchType, key: string, ns: string, uid: string, obj: Obj, line: number): void {
    let live = this.live.get(kind);
    if (!live) this.live.set(kind, (live = new Map()));
    let r = this.relists.get(kind);
    if (r && (wt !== 'ADDED' || r.listed.has(key))) {
      this.closeRelist(out, kind);
      r = undefined;
    }
    if (!r && wt === 'ADDED') {
      const known = live.get(key);
      const again = known !== undefined && str((known.metadata as Obj | undefined)?.uid) === uid;
      const announced = this.relistExpected.has(kind);
      if (again || announced) {
        this.relistExpected.delete(kind);
        r = { listed: new Set(), namespaces: new Set(), line };
        this.relists.set(kind, r);
        // A relist nobody announced (no 410 before it): the watch was down for a while.
        if (!announced) this.gap(out, line, 'watch-relist', `a relist of ${kind}s (ADDED again for objects already listed): the watch restarted`, [kind]);
      }
    }
    if (r) {
      r.listed.add(key);
      r.namespaces.add(ns);
    }
    if (wt === 'DELETED') live.delete(key);
    else live.set(key, obj);
  }

  private closeRelist(out: TimelineEvent[], kind: string): void {
    const r = this.relists.get(kind);
    if (!r) return;
    this.relists.delete(kind);
    const live = this.live.get(kind);
    if (!live) return;
    const gone: string[] = [];
    for (const [key, obj] of live) {
      if (r.listed.has(key) || !r.namespaces.has(key.slice(0, key.indexOf('/')))) continue;
      live.delete(key);
      gone.push(key);
      const uid = str((obj.metadata as Obj | undefined)?.uid);
      if (uid) this.lastSeen.set(uid, rvToken('DELETED', str((obj.metadata as Obj | undefined)?.resourceVersion) ?? ''));
      const ev = { type: 'observed', kind, watchType: 'DELETED', object: obj, at: 0, atBasis: this.basis, source: { file: this.file, line: r.line } } as unknown as ObservedEvent;
      this.place(out, ev, undefined, r.line);
    }
    if (gone.length) {
      this.note(
        `${this.file}:${r.line}: a relist of ${kind}s did not list ${gone.length} that ${gone.length === 1 ? 'was' : 'were'} live before it (${gone.slice(0, 5).join(', ')}${gone.length > 5 ? ', …' : ''}): ` +
          `deleted while the watch was down; kexp ends ${gone.length === 1 ? 'it' : 'them'} at the relist (DELETED, inferred)`,
      );
    }
  }

  private skip(kind: string): void {
    this.skipped.set(kind, (this.skipped.get(kind) ?? 0) + 1);
  }

  /**
   * Assigns `at` (non-decreasing in file order) and appends to `out`, once the time has passed
   * the plausibility window (src/timeline/plausible-time.ts): an implausible time is a problem
   * at its line and the event keeps its place in file order at the previous event's time.
   */
  private place(out: TimelineEvent[], ev: TimelineEvent, t: number | undefined, line: number): void {
    this.out = out;
    this.timeWindow.push({ ev, line }, t);
  }

  private placeDecided(ev: TimelineEvent | undefined, t: number | undefined, line: number, bad: ImplausibleTime | undefined): void {
    const out = this.out;
    if (bad) {
      this.problem(line, `${describeImplausible(this.basis === 'received' ? 'receive time' : 'object time', bad)}; ${ev === undefined ? 'not used' : 'kept in file order at the previous event\'s time'}`);
    }
    if (ev === undefined) {
      // A time mark (recording header startedAt, end line) without an event.
      if (t !== undefined && (this.lastAt === undefined || t > this.lastAt)) this.lastAt = t;
      return;
    }
    if (t !== undefined && this.lastAt !== undefined && t < this.lastAt) {
      if (this.basis === 'received') {
        this.outOfOrder++;
        if (this.outOfOrderFirst === 0) this.outOfOrderFirst = line;
      }
      t = this.lastAt;
    }
    if (t === undefined) t = this.lastAt;
    if (t === undefined) {
      // No time known yet: hold until the first timed event (bounded).
      this.held.push(ev);
      if (this.held.length >= MAX_HELD) this.releaseHeld(out, 0);
      return;
    }
    if (this.held.length > 0) this.releaseHeld(out, t);
    ev.at = t;
    this.lastAt = t;
    if (this.basis === 'received' && ev.type === 'observed') this.checkObjectTimes(ev as ObservedEvent, line);
    this.count(ev);
    out.push(ev);
  }

  /**
   * An object cannot carry a time after it was received (beyond a day of clock skew): such a
   * field is a problem at the line and is not used — an Event's times and a creationTimestamp
   * are dropped (the analysis falls back to the object's other times), a deletionTimestamp is
   * kept as "being deleted" and set to the receive time (plus its grace period).
   */
  private checkObjectTimes(ev: ObservedEvent, line: number): void {
    const obj = ev.object as unknown as Obj;
    const meta = isRecord(obj.metadata) ? obj.metadata : undefined;
    const latest = ev.at + MAX_DEVIATION_MS;
    if (meta) {
      const c = this.badTime(meta.creationTimestamp, latest);
      if (c !== undefined) {
        this.reportObjectTime(ev, meta, line, 'metadata.creationTimestamp', c, 'not used');
        delete meta.creationTimestamp;
      }
      const grace = typeof meta.deletionGracePeriodSeconds === 'number' ? meta.deletionGracePeriodSeconds * 1000 : 0;
      const d = this.badTime(meta.deletionTimestamp, latest + grace);
      if (d !== undefined) {
        this.reportObjectTime(ev, meta, line, 'metadata.deletionTimestamp', d, 'taken as being deleted from the receive time');
        meta.deletionTimestamp = new Date(ev.at + Math.min(grace, MAX_DEVIATION_MS)).toISOString();
      }
    }
    if (ev.kind === 'Event') {
      for (const f of ['firstTimestamp', 'lastTimestamp', 'eventTime'] as const) {
        const ms = this.badTime(obj[f], latest);
        if (ms !== undefined) {
          this.reportObjectTime(ev, meta, line, f, ms, 'not used');
          delete obj[f];
        }
      }
    }
  }

  /** The time `v` gives when it is one the object cannot carry (implausible, or after `latest`). */
  private badTime(v: unknown, latest: number): number | undefined {
    if (typeof v !== 'string') return undefined;
    const ms = this.parseObjectTime(v);
    return Number.isNaN(ms) || (implausibleAlone(ms, this.latest()) === undefined && ms <= latest) ? undefined : ms;
  }

  /**
   * Object-timestamp basis (no receive times): the times an object carries decide where its
   * line goes, so each is checked before `objectTime` reads it — a field that is implausible
   * is a problem at the line naming the field and its value, and is dropped (the object's other
   * times place the line; the analysis never reads the dropped one).
   *
   * The neighbouring lines cannot judge a time here: every object time is only a lower bound
   * of when its line was seen (a list shows month-old pods beside one changed a second ago, in
   * name order), so a time far ahead of its neighbours may be right. What can judge it:
   * - the read time (`latest`): nothing in the file is after it (`implausibleAlone`);
   * - the object's own server-set times. The apiserver stamps `managedFields[].time` on every
   *   write that changes the object (apimachinery managedfields/internal/managedFieldsUpdater.Update),
   *   and `creationTimestamp` on its create; a time a client set (an Event's
   *   first/lastTimestamp, eventTime, series.lastObservedTime; a condition's
   *   lastTransitionTime) cannot be later than the last write that carried it, beyond a day of
   *   the client's clock skew. The last write's time is known when the object carries
   *   managedFields (their latest time), or for an Event of one occurrence (count ≤ 1, no
   *   series: written once, at its create). Otherwise (an Event series shown without
   *   managedFields, as `kubectl get -o json` prints by default) the input cannot tell, and
   *   only the read time bounds it.
   * Cost: a pass over the object's time fields (a few per object).
   */
  private checkOwnTimes(kind: string, obj: Obj, line: number): void {
    const meta = isRecord(obj.metadata) ? obj.metadata : undefined;
    const name = str(meta?.name) ?? '';
    const drop = (field: string, why: ImplausibleTime, relativeTo?: string): void => {
      this.problem(line, `${kind} ${name} ${describeImplausible(field, why, relativeTo)}; not used`);
    };
    const alone = (v: unknown): { ms: number; bad: ImplausibleTime | undefined } | undefined => {
      if (typeof v !== 'string') return undefined;
      const ms = this.parseObjectTime(v);
      if (Number.isNaN(ms)) return undefined;
      return { ms, bad: implausibleAlone(ms, this.latest()) };
    };
    // Server-set times first: each alone.
    let server: number | undefined;
    let serverSays: string | undefined;
    const managed = meta && Array.isArray(meta.managedFields) ? meta.managedFields.filter(isRecord) : [];
    let managedTimes = 0;
    if (meta) {
      const c = alone(meta.creationTimestamp);
      if (c?.bad) {
        drop('metadata.creationTimestamp', c.bad);
        delete meta.creationTimestamp;
      } else if (c) {
        server = c.ms;
        serverSays = 'metadata.creationTimestamp';
      }
      for (const m of managed) {
        const mt = alone(m.time);
        if (mt?.bad) {
          drop(`metadata.managedFields[${str(m.manager) ?? '?'}].time`, mt.bad);
          delete m.time;
        } else if (mt) {
          managedTimes++;
          if (server === undefined || mt.ms > server) {
            server = mt.ms;
            serverSays = 'metadata.managedFields';
          }
        }
      }
      const d = alone(meta.deletionTimestamp);
      if (d?.bad) {
        drop('metadata.deletionTimestamp', d.bad);
        delete meta.deletionTimestamp;
      }
    }
    const single = kind === 'Event' && !isRecord(obj.series) && !(typeof obj.count === 'number' && obj.count > 1);
    const bound = server !== undefined && (managedTimes > 0 || single) ? server + MAX_DEVIATION_MS : undefined;
    const relativeTo = `its last write, ${serverSays}`;
    const check = (holder: Obj, key: string, field: string): void => {
      const t = alone(holder[key]);
      if (!t) return;
      const why = t.bad ?? (bound !== undefined && t.ms > bound ? { t: t.ms, reason: 'far-from-neighbours' as const, around: bound - MAX_DEVIATION_MS } : undefined);
      if (!why) return;
      drop(field, why, t.bad ? undefined : relativeTo);
      delete holder[key];
    };
    const status = isRecord(obj.status) ? obj.status : undefined;
    if (status && Array.isArray(status.conditions)) {
      for (const c of status.conditions) if (isRecord(c)) check(c, 'lastTransitionTime', `status.conditions[${str(c.type) ?? '?'}].lastTransitionTime`);
    }
    if (kind === 'Event') {
      for (const f of ['firstTimestamp', 'lastTimestamp', 'eventTime'] as const) check(obj, f, f);
      if (isRecord(obj.series)) check(obj.series, 'lastObservedTime', 'series.lastObservedTime');
    }
  }

  /**
   * Date.parse with a small cache: every event of an object repeats its creationTimestamp (and
   * a terminating pod its deletionTimestamp), and parsing them was a visible share of a replay.
   * Cleared when full, so memory stays bounded whatever the input.
   */
  private readonly parsedTimes = new Map<string, number>();

  /** The latest time the input can hold now (`latestFor` the reader's clock). */
  private latest(): number | undefined {
    return this.now ? latestFor(this.now()) : undefined;
  }
  private parseObjectTime(v: string): number {
    let ms = this.parsedTimes.get(v);
    if (ms === undefined) {
      ms = Date.parse(v);
      if (this.parsedTimes.size >= 4096) this.parsedTimes.clear();
      this.parsedTimes.set(v, ms);
    }
    return ms;
  }

  private reportObjectTime(ev: ObservedEvent, meta: Obj | undefined, line: number, field: string, ms: number, action: string): void {
    const alone = implausibleAlone(ms, this.latest());
    this.problem(line, `${ev.kind} ${str(meta?.name) ?? ''} ${describeImplausible(field, alone ?? { t: ms, reason: 'far-from-neighbours', around: ev.at }, 'the line\'s receive time')}; ${action}`);
  }

  private releaseHeld(out: TimelineEvent[], at: number): void {
    if (at === 0) {
      this.note(
        `${this.file}: no timestamps found in the first ${this.held.length} events; they are placed at the Unix epoch in file order`,
      );
    }
    for (const h of this.held) {
      h.at = at;
      this.count(h);
      out.push(h);
    }
    this.held = [];
    this.lastAt ??= at;
  }

  private count(ev: TimelineEvent): void {
    this.events++;
    if (this.start === undefined) this.start = ev.at;
    this.end = ev.at;
  }

  /** Whether `t` can be a time of this input on its own (the absolute range and the read time). */
  plausibleAlone(t: number): boolean {
    return implausibleAlone(t, this.latest()) === undefined;
  }

  /** Sets the last known time (recording header `startedAt`, `end` line) without an event. */
  markTime(t: number, line = 0): void {
    this.timeWindow.push({ line }, t, true);
  }

  /** Flushes events still waiting for a time. Call once at the end of the input. */
  flush(out: TimelineEvent[]): void {
    for (const k of [...this.relists.keys()]) this.closeRelist(out, k);
    this.out = out;
    this.timeWindow.flush();
    if (this.held.length > 0) this.releaseHeld(out, this.lastAt ?? 0);
  }

  /** Emits the per-file summary warnings (once). */
  finish(): void {
    if (this.warned) return;
    this.warned = true;
    const f = this.file;
    if (this.skipped.size > 0) {
      let total = 0;
      const parts: string[] = [];
      for (const [k, n] of [...this.skipped].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))) {
        total += n;
        parts.push(`${k} (${n})`);
      }
      this.diag.warn(
        `${f}: skipped ${total} object${total === 1 ? '' : 's'} of kinds kexp does not model: ${parts.join(', ')}`,
      );
    }
    if (this.dupCount > 0) {
      this.diag.warn(
        `${f}: dropped ${this.dupCount} duplicate event${this.dupCount === 1 ? '' : 's'} (same uid and resourceVersion as ` +
          `the object's previous event, e.g. an initial list repeated after kubectl restarted); first at ${f}:${this.dupFirst}`,
      );
    }
    if (this.outOfOrder > 0) {
      this.diag.warn(
        `${f}: ${this.outOfOrder} event${this.outOfOrder === 1 ? ' has' : 's have'} a receive time earlier than the line ` +
          `before (first at ${f}:${this.outOfOrderFirst}); kept file order and clamped to the previous time`,
      );
    }
    if (this.warnInferred && this.inferred > 0) {
      this.diag.warn(
        `${f}: this format has no watch event types; kexp inferred ADDED on the first sight of each uid and MODIFIED ` +
          `afterwards, and deletions are not visible (record with \`kexp record\` or \`kubectl get -w --output-watch-events\`)`,
      );
    }
    for (const w of this.extraWarnings) this.diag.warn(w);
  }
}
