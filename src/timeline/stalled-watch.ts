/**
 * A stalled watch of the recorder: one of a recording's watches delivering seconds late while
 * the others ran on.
 *
 * kexp's recorder holds one watch per resource and stamps each line with its own receive time;
 * the engine takes that time as the time kube-controller-manager's informers saw the change. When
 * the recorder's connection for one resource stalls (a slow proxy, a dropped connection that
 * resumed and replayed its backlog) while the controller's own informers did not, the recording
 * shows the controller's Events and the other watches' changes before the ReplicaSet update that
 * caused them, or before the pods they name: read in that order, the controller seems to create
 * pods its count did not call for, to delete outside every round, to fail syncs on its own
 * consistency gate. The input's order is what is damaged, not the controller.
 *
 * The objects' own evidence repairs it: resourceVersions are etcd revisions, global to the
 * cluster, so a change whose revision is lower than one another watch of the same recording
 * delivered earlier happened before that one. Where such a change was received more than
 * `windowMs` (CAUSAL_WINDOW_MS: beyond the ordinary skew between watches, which
 * src/timeline/causal-order.ts handles for updates) after the higher revision, its watch was
 * stalled: the change is moved back in front of the first event of another watch with a higher
 * revision, and takes a time just before it (as a causal-order move: MOVED_AHEAD_MS before it, or
 * halfway from the event released before it when that is closer). Its time is then an upper
 * bound (it happened no later), which is what `onMoved` lets the report say.
 *
 * What is compared: observed changes with a numeric resourceVersion (an ADDED of a watch is its
 * object's creation revision, so it is compared too), stamped with a receive time (`received`:
 * a kexp recording or `kexp serve`'s journal; other inputs' times are the objects' own), from one
 * input file (one recording is one cluster: two files' revisions need not be comparable). Never
 * compared: the items of an initial list (`listed`, their revision is their last write's, not
 * the list's), and a resource's events after a gap naming it until it delivers a MODIFIED (a
 * relist's items and the DELETED derived for objects it no longer lists carry old revisions).
 * A gap releases everything held (a relist is a new starting point), and nothing moves across it.
 * Events an apiserver keeps in an etcd of their own count other revisions: once an Event shows it
 * (event-counter.ts), that file's Events are repaired against Events only.
 * A stall longer than `horizonMs` is not repaired: its late changes keep their place, and
 * `onBeyondHorizon` names each (a comparable change whose revision lies below one released —
 * received more than `horizonMs` earlier — from another watch of the same file; Events only
 * against Events, other resources only against each other, since an apiserver may keep Events in
 * an etcd of their own and a false stall would make findings unknown), with the earliest
 * time its change can have been made: after the watch's own previous change and after the last
 * revision checkpoint (one per CHECKPOINT_MS of released comparable changes, with the highest
 * revision released by then) below its own. StallsBeyondHorizon groups them into the stalled
 * intervals the report marks unknown (analysis/report/stalled-intervals.ts).
 *
 * Cost: O(watches) per event, as causal-order.ts (each watch delivers in revision order, so the
 * first held change of a watch is its lowest; a FIFO per watch finds it), plus one revision
 * comparison per comparable change; memory: the events of the last `horizonMs` of input time,
 * and per file one checkpoint per CHECKPOINT_MS of input (a time, a revision and a line: ~1 MB per
 * hour of recording). A late change beyond the horizon costs O(log checkpoints). Pure: no I/O, no clock.
 */
import type { TimelineEvent } from './event.js';
import { Fifo } from './fifo.js';
import { CAUSAL_WINDOW_MS, MOVED_AHEAD_MS } from './causal-order.js';
import { EventCounters } from './event-counter.js';
import { canonicalRevision, dropTaken, lessRevision, lowestHeldBelow } from './resource-version.js';

/**
 * How long a watch may stall and still be put back in revision order: 10 s of input time. Every
 * event is held this long, so it is the memory cost (a 300,000-event recording of ~490 events/s:
 * +70–106 MB peak RSS at 30 s, bench/README.md); a longer stall keeps the recorder's order.
 */
export const STALL_HORIZON_MS = 10_000;

/** How often (input time) the highest released revision of a file is kept, to date a late change's earliest possible time. */
export const CHECKPOINT_MS = 250;

/** A stage of the replay's ordering: `push` each event, the events it releases go to `out`. */
export interface OrderingStage {
  push(e: TimelineEvent, out: TimelineEvent[]): void;
  end(out: TimelineEvent[]): void;
}

interface Slot {
  e: TimelineEvent;
  rv?: string;
  /** Its revision counter (event-counter.ts). */
  group?: number;
  watch?: string;
  /** The revisions released from its file (comparable changes only). */
  revs?: FileRevisions;
  taken: boolean;
}

/** The highest revision released from one file, and checkpoints of it (time-ordered, revisions non-decreasing). */
interface FileRevisions {
  max?: string;
  /** The time of the first comparable change taken from the file. */
  firstAt: number;
  cpAt: number;
  cps: Array<{ at: number; rv: string }>;
}

/** The canonical decimal resourceVersion of a comparable change, else undefined. */
function revision(e: TimelineEvent): string | undefined {
  if (e.type !== 'observed' || e.atBasis !== 'received' || e.listed !== undefined) return undefined;
  return canonicalRevision(e.object?.metadata?.resourceVersion);
}

/**
 * Puts the changes a stalled watch delivered late back in revision order, after `inner` (the
 * causal order) has released them.
 */
export class StalledWatchOrder implements OrderingStage {
  private readonly buf = new Fifo<Slot>();
  /** Held comparable changes per watch (`file` NUL `kind`), in arrival (= revision) order. */
  private readonly byWatch = new Map<string, Fifo<Slot>>();
  /** Watches after a gap naming them, until their first MODIFIED. */
  private readonly relisting = new Set<string>();
  /** The watches of `byWatch` as an array (scanned per released change). */
  private readonly watches: Array<{ key: string; q: Fifo<Slot> }> = [];
  /** Watch keys by file and kind (no string built per event). */
  private readonly keys = new Map<string, Map<string, string>>();
  private readonly revisionsOf = new Map<string, FileRevisions>();
  /** The same for the Events of each file (compared only with each other). */
  private readonly eventRevisionsOf = new Map<string, FileRevisions>();
  /** Per watch: the receive time of its last comparable change taken. */
  private readonly prevAt = new Map<string, number>();
  private lastAt = -Infinity;
  private readonly passed: TimelineEvent[] = [];
  /** Per watch shown stalled: the receive time of its last change moved back or in its backlog. */
  private readonly lateUntil = new Map<string, number>();
  /** Events shown to count another etcd's revisions are repaired against Events only (event-counter.ts). */
  private readonly counters = new EventCounters();

  constructor(
    private readonly inner: OrderingStage,
    private readonly onMoved?: (moved: TimelineEvent, before: TimelineEvent) => void,
    private readonly onRetimed?: (late: TimelineEvent, at: number) => void,
    /** A change received beyond the horizon after a higher revision of another watch (left in place), and the earliest time it can have been made. */
    private readonly onBeyondHorizon?: (late: TimelineEvent, from: number) => void,
    private readonly windowMs = CAUSAL_WINDOW_MS,
    private readonly horizonMs = STALL_HORIZON_MS,
  ) {}

  push(e: TimelineEvent, out: TimelineEvent[]): void {
    const passed = this.passed;
    this.inner.push(e, passed);
    for (let i = 0; i < passed.length; i++) this.take(passed[i]!, out);
    passed.length = 0;
  }

  end(out: TimelineEvent[]): void {
    const passed = this.passed;
    this.inner.end(passed);
    for (let i = 0; i < passed.length; i++) this.take(passed[i]!, out);
    passed.length = 0;
    this.release(undefined, out);
  }

  private take(e: TimelineEvent, out: TimelineEvent[]): void {
    if (e.type === 'gap') {
      this.release(undefined, out);
      out.push(e);
      this.lastAt = e.at;
      const file = e.source.file;
      const named = e.kinds?.length ? new Set(e.kinds.map((k) => `${file}\0${k}`)) : undefined;
      for (const w of named ?? this.byWatch.keys()) {
        if (w.startsWith(`${file}\0`)) {
          this.relisting.add(w);
          this.lateUntil.delete(w);
        }
      }
      return;
    }
    const slot: Slot = { e, taken: false };
    this.buf.push(slot);
    const rv = revision(e);
    const group = e.type === 'observed' ? this.counters.groupOf(e) : 0;
    if (rv !== undefined && e.type === 'observed') {
      if (group) slot.group = group;
      const watch = this.watchOf(e.source.file, e.kind);
      let q = this.byWatch.get(watch);
      if (!q) {
        this.byWatch.set(watch, (q = new Fifo()));
        this.watches.push({ key: watch, q });
      }
      if (this.relisting.size && this.relisting.has(watch)) {
        if (e.watchType !== 'MODIFIED') {
          this.release(e.at - this.horizonMs, out);
          return;
        }
        this.relisting.delete(watch);
      }
      slot.rv = rv;
      slot.watch = watch;
      // Events are compared with Events only here: an apiserver can keep them in an etcd of their
      // own (`--etcd-servers-overrides=/events#…`, kops' etcd-events), whose counter says nothing
      // of the other resources' — a stall is named only on evidence of one counter.
      const revs = this.fileRevisions(e.kind === 'Event' ? this.eventRevisionsOf : this.revisionsOf, e.source.file, e.at);
      slot.revs = revs;
      q.push(slot);
      this.release(e.at - this.horizonMs, out);
      // Every change received before e.at - horizonMs is released: a higher revision among them
      // was received beyond the horizon before this one, which therefore keeps its place.
      if (revs.max !== undefined && lessRevision(rv, revs.max)) this.onBeyondHorizon?.(e, this.earliest(revs, rv, this.prevAt.get(watch)));
      this.prevAt.set(watch, e.at);
      return;
    }
    this.release(e.at - this.horizonMs, out);
  }

  private fileRevisions(of: Map<string, FileRevisions>, file: string, at: number): FileRevisions {
    let r = of.get(file);
    if (!r) of.set(file, (r = { firstAt: at, cpAt: -Infinity, cps: [] }));
    return r;
  }

  /** The earliest time a change of revision `rv` can have been made: after its watch's previous change and after the last checkpoint below it. */
  private earliest(revs: FileRevisions, rv: string, prev: number | undefined): number {
    const { cps } = revs;
    let lo = 0;
    let hi = cps.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (lessRevision(cps[mid]!.rv, rv)) lo = mid + 1;
      else hi = mid;
    }
    const below = lo > 0 ? cps[lo - 1]!.at : revs.firstAt;
    return prev !== undefined && prev > below ? prev : below;
  }

  /** Notes a released comparable change's revision (and a checkpoint every CHECKPOINT_MS). */
  private released(s: Slot, at: number): void {
    const revs = s.revs!;
    if (revs.max === undefined || lessRevision(revs.max, s.rv!)) revs.max = s.rv!;
    if (at >= revs.cpAt + CHECKPOINT_MS) {
      revs.cpAt = at;
      revs.cps.push({ at, rv: revs.max });
    }
  }

  /**
   * The time of `head` when it came in the backlog of a watch shown stalled (received within
   * `windowMs` after a change of its watch that was moved back, or after another such change) and
   * its own timestamps bound it earlier than its receive time: the later of that bound and just
   * after the event released before it — it is never moved ahead of any event, only its late
   * receive time is taken back. Undefined: its receive time stands.
   */
  private backlogTime(head: Slot): number | undefined {
    if (head.watch === undefined) return undefined;
    const late = this.lateUntil.get(head.watch);
    if (late === undefined || head.e.at - late > this.windowMs) return undefined;
    this.lateUntil.set(head.watch, head.e.at);
    const bound = ownTimeBound(head.e);
    if (bound === undefined) return undefined;
    const at = Math.max(bound, this.lastAt + MOVED_AHEAD_MS);
    return at < head.e.at - this.windowMs ? at : undefined;
  }

  private watchOf(file: string, kind: string): string {
    let byKind = this.keys.get(file);
    if (!byKind) this.keys.set(file, (byKind = new Map()));
    let key = byKind.get(kind);
    if (key === undefined) byKind.set(kind, (key = `${file}\0${kind}`));
    return key;
  }

  /** Releases every event received before `until` (all, when undefined), moving stalled changes ahead. */
  private release(until: number | undefined, out: TimelineEvent[]): void {
    const { buf, byWatch, watches, windowMs } = this;
    for (;;) {
      dropTaken(buf);
      const head = buf.peek();
      if (!head || (until !== undefined && head.e.at >= until)) return;
      const pick = head.rv !== undefined && watches.length > 1 ? lowestHeldBelow(watches, head, head.watch, windowMs, this.horizonMs, true) : undefined;
      if (!pick) {
        buf.shift();
        head.taken = true;
        // Its watch's FIFO drops it now (a watch no other one scans would otherwise keep every slot).
        if (head.watch !== undefined) dropTaken(byWatch.get(head.watch)!);
        const at = this.backlogTime(head);
        if (head.revs !== undefined) this.released(head, at ?? head.e.at);
        if (at === undefined) {
          out.push(head.e);
          this.lastAt = head.e.at;
        } else {
          this.onRetimed?.(head.e, at);
          out.push({ ...head.e, at } as TimelineEvent);
          this.lastAt = at;
        }
        continue;
      }
      pick.taken = true;
      if (pick.watch !== undefined) this.lateUntil.set(pick.watch, pick.e.at);
      this.onMoved?.(pick.e, head.e);
      const at = this.lastAt < head.e.at ? Math.max(head.e.at - MOVED_AHEAD_MS, (this.lastAt + head.e.at) / 2) : head.e.at;
      this.released(pick, at);
      out.push({ ...pick.e, at } as TimelineEvent);
      this.lastAt = at;
    }
  }
}

/**
 * The latest time the object's own timestamps allow for its change (epoch ms), or undefined: an
 * ADDED no later than the second after its creationTimestamp, a MODIFIED no later than the second
 * after its newest managedFields time (the writer's entry takes the write's time, to the second).
 * A DELETED has none (a deletion leaves no time of its own).
 */
export function ownTimeBound(e: TimelineEvent): number | undefined {
  if (e.type !== 'observed' || e.watchType === 'DELETED') return undefined;
  const md = e.object?.metadata as { creationTimestamp?: unknown; managedFields?: unknown } | undefined;
  let latest = -Infinity;
  if (e.watchType === 'ADDED' && typeof md?.creationTimestamp === 'string') latest = Date.parse(md.creationTimestamp);
  if (Array.isArray(md?.managedFields)) {
    for (const f of md.managedFields as Array<{ time?: unknown }>) {
      if (typeof f?.time === 'string') {
        const t = Date.parse(f.time);
        if (t > latest) latest = t;
      }
    }
  }
  return Number.isFinite(latest) ? latest + 1000 : undefined;
}

/** What the stalled watches' repair moved, for the report's assumptions (evidence: the first moved line). */
export class StalledWatchMoves {
  count = 0;
  private maxLagMs = 0;
  private first: { file: string; line: number } | undefined;
  private readonly kinds = new Set<string>();

  retimed = 0;
  private maxTakenBackMs = 0;

  /** `late` (as received) in a stalled watch's backlog, its time taken back to `at` by its own timestamps. */
  seeRetimed(late: TimelineEvent, at: number): void {
    this.retimed++;
    if (late.at - at > this.maxTakenBackMs) this.maxTakenBackMs = late.at - at;
    this.first ??= { file: late.source.file, line: late.source.line };
    if (late.type === 'observed') this.kinds.add(late.kind);
  }

  /** `moved` as received (its own time), `before` the event of a higher revision it now precedes. */
  see(moved: TimelineEvent, before: TimelineEvent): void {
    this.count++;
    const lag = moved.at - before.at;
    if (lag > this.maxLagMs) this.maxLagMs = lag;
    this.first ??= { file: moved.source.file, line: moved.source.line };
    if (moved.type === 'observed') this.kinds.add(moved.kind);
  }

  /** Whether anything was moved or re-timed. */
  get any(): boolean {
    return this.count + this.retimed > 0;
  }

  note(): string {
    const parts: string[] = [];
    if (this.count) {
      parts.push(`${this.count} change(s) were received up to ${duration(this.maxLagMs)} after a higher resourceVersion another watch of the same recording had delivered, and were replayed in resourceVersion order, each just before the first higher revision`);
    }
    if (this.retimed) {
      parts.push(`${this.retimed} more change(s) the same stalled watch delivered with them were replayed at the time their own timestamps allow (up to ${duration(this.maxTakenBackMs)} before their receive time), in their place in the input`);
    }
    return (
      `A stalled watch of the recorder (${[...this.kinds].sort().join(', ')}; first at ${this.first!.file}:${this.first!.line}): ${parts.join('; ')}. ` +
      `Their times are upper bounds (inferred), not the times kube-controller-manager saw them.`
    );
  }
}

function duration(ms: number): string {
  return ms >= 1000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms)} ms`;
}

/**
 * One watch of a recording stalled beyond the horizon: its changes received late whose revisions
 * lie below ones other watches delivered more than STALL_HORIZON_MS earlier. Their order against
 * everything received from `from` to `until` is the recorder's, not the apiserver's.
 */
export interface StalledInterval {
  file: string;
  /** The object kind the stalled watch delivers (Pod, ReplicaSet, Event, …). */
  kind: string;
  /** The earliest time its first late change can have been made (epoch ms, replay time). */
  from: number;
  /** The receive time of its last late change. */
  until: number;
  /** Lines of its first and last late change (the backlog) in `file`. */
  firstLine: number;
  lastLine: number;
  /** Late changes beyond the horizon. */
  count: number;
  /** The namespaces of the late changes' objects; undefined when one is cluster-scoped (a Node): every namespace. */
  namespaces?: ReadonlySet<string>;
}

/**
 * Collects StalledWatchOrder's changes beyond the horizon into stalled intervals, one per watch
 * and stall: a late change whose earliest time is before the end of its watch's current interval
 * (or within CAUSAL_WINDOW_MS after it) extends that interval. O(1) per late change.
 */
export class StallsBeyondHorizon {
  readonly intervals: StalledInterval[] = [];
  private readonly current = new Map<string, { iv: StalledInterval; ns?: Set<string> }>();

  see(late: TimelineEvent, from: number): void {
    if (late.type !== 'observed') return;
    const key = `${late.source.file}\0${late.kind}`;
    const md = late.object?.metadata as { namespace?: unknown; name?: unknown } | undefined;
    const ns = typeof md?.namespace === 'string' && md.namespace ? md.namespace : late.kind === 'Namespace' && typeof md?.name === 'string' ? md.name : undefined;
    let cur = this.current.get(key);
    if (!cur || from > cur.iv.until + CAUSAL_WINDOW_MS) {
      const set = new Set<string>();
      const iv: StalledInterval = { file: late.source.file, kind: late.kind, from, until: late.at, firstLine: late.source.line, lastLine: late.source.line, count: 0, namespaces: set };
      this.intervals.push(iv);
      this.current.set(key, (cur = { iv, ns: set }));
    }
    const iv = cur.iv;
    iv.count++;
    if (from < iv.from) iv.from = from;
    if (late.at > iv.until) iv.until = late.at;
    if (late.source.line > iv.lastLine) iv.lastLine = late.source.line;
    if (ns === undefined) {
      cur.ns = undefined;
      delete iv.namespaces;
    } else cur.ns?.add(ns);
  }
}
