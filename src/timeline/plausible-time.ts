/**
 * Implausible timestamps. One corrupt line or one badly skewed clock (a `recv`, an audit
 * `stageTimestamp`, an object's `creationTimestamp` used as its time) must not become a
 * simulation target: a time in 2126 would make the engine simulate a century of retries, and
 * a year-9999 time cannot even be written back as an RFC 3339 report time.
 *
 * A time is implausible when
 * - it lies outside [MIN_PLAUSIBLE_MS, MAX_PLAUSIBLE_MS] (before 2014, when Kubernetes
 *   appeared; from year 9000 on, where a few hours more leave the 4-digit years RFC 3339
 *   needs), or
 * - it lies after the moment the input is read, beyond a day of clock skew (`latestFor`; the
 *   source that reads the input passes its clock — this module reads none): no file holds a
 *   time that had not come when it was read, and a live pipe none that has not come yet. This
 *   is the only bound on the last time of an input (an end line, the last event), which no
 *   neighbour follows, or
 * - most of the times around it — the RADIUS timed items before it (as decided) and the RADIUS
 *   after it — lie more than MAX_DEVIATION_MS from it: it disagrees with the majority of its
 *   neighbourhood.
 * - (times written in order by one clock, a recording's receive times: `ordered`) it lies more
 *   than MAX_REORDER_MS after most of the RADIUS times that follow it while those still follow
 *   the time before it: one line whose clock ran ahead by less than a day, which would otherwise
 *   clamp every later line to itself (file order is kept, a later time never goes back) and
 *   squeeze minutes of the input into one instant.
 * A genuine step (a recording paused for two days, an audit log with a night of silence) is not
 * flagged: on either side of the step the majority of an item's neighbourhood agrees with it.
 * Nor is a clock stepped back (NTP) in an ordered series: the times after the step precede the
 * ones before it, which are therefore not ahead of a continuing series.
 * What stays ambiguous (a file of two items a century apart) is left alone: nothing is claimed
 * without a majority, and the engine's own horizon bounds the cost.
 *
 * Items pass through in input order. One that agrees with the times released before it passes
 * at once; one that does not (a jump) waits until RADIUS timed items follow it (so a live pipe
 * is held back only after a jump). Untimed items are never judged and keep their place;
 * `flush()` releases the rest at the end of the input. Pure: no clock, no I/O.
 */

/** 2014-06-01T00:00:00Z: Kubernetes' first commit is from June 2014. */
export const MIN_PLAUSIBLE_MS = Date.UTC(2014, 5, 1);
/** 9000-01-01T00:00:00Z. */
export const MAX_PLAUSIBLE_MS = Date.UTC(9000, 0, 1);
/** How far a time may stand from the majority of its neighbours: a day. */
export const MAX_DEVIATION_MS = 24 * 3600_000;
/** Neighbours looked at on each side. */
export const RADIUS = 4;
/**
 * How far a time of an ordered series may run ahead of the times that follow it: a second (a
 * recorder's lines are written as they arrive; a later line earlier than this is clamped, the
 * input's own order kept — harmless at this scale).
 */
export const MAX_REORDER_MS = 1000;

export interface ImplausibleTime {
  /** The time the input gave. */
  t: number;
  /**
   * Why: outside the absolute range, after the input was read (`around`: the read time), or
   * far from its neighbours (`around`: their median), ahead of the times after it in an ordered
   * series (`around`: their median).
   */
  reason: 'out-of-range' | 'after-read' | 'far-from-neighbours' | 'ahead-of-next';
  around?: number;
}

/**
 * The latest time an input read at `readAt` (epoch ms, the reader's clock) can hold: `readAt`
 * plus a day of clock skew between the machine that wrote the input and the one reading it.
 * Undefined when there is no plausible read time (a clock before 2014 is not believed).
 */
export function latestFor(readAt: number | undefined): number | undefined {
  return readAt !== undefined && Number.isFinite(readAt) && readAt >= MIN_PLAUSIBLE_MS ? readAt + MAX_DEVIATION_MS : undefined;
}

/**
 * Why `t` cannot be a time of an input read at a time giving `latest` (`latestFor`), or
 * undefined when it can (the absolute range and the read time; no neighbours).
 */
export function implausibleAlone(t: number, latest: number | undefined): ImplausibleTime | undefined {
  if (!inRange(t)) return { t, reason: 'out-of-range' };
  if (latest !== undefined && t > latest) return { t, reason: 'after-read', around: latest - MAX_DEVIATION_MS };
  return undefined;
}

interface Pending<T> {
  item: T;
  t: number | undefined;
  /** A time mark (not an observation): range-checked only, never judged nor a neighbour. */
  mark: boolean;
}

export class PlausibleTimeWindow<T> {
  private readonly queue: Pending<T>[] = [];
  /** Index into queue of the next entry to release. */
  private head = 0;
  /** Timed entries in the queue at or after head. */
  private timedAhead = 0;
  /** The last RADIUS plausible times released. */
  private readonly before: number[] = [];
  implausible = 0;

  /**
   * `relative: false` checks only the absolute range and holds nothing back: for times taken
   * from the objects themselves (a pod created a year before its neighbours is not wrong).
   */
  constructor(
    private readonly release: (item: T, t: number | undefined, implausible?: ImplausibleTime) => void,
    private readonly relative = true,
    /**
     * `latestFor(the reader's clock now)`: times after it are implausible whatever their
     * neighbours. A function, as a pipe read for days moves its bound with the clock.
     */
    private readonly latest: () => number | undefined = () => undefined,
    /** The times are written in order by one clock (a recording's receive times). */
    private readonly ordered = false,
  ) {}

  /** Released at once: agrees with the times before it (and, ordered, is no jump ahead). */
  private quick(t: number): boolean {
    if (!this.relative) return true;
    if (!this.agreesWithBefore(t)) return false;
    return !this.ordered || t <= this.before[this.before.length - 1]! + MAX_REORDER_MS;
  }

  private inRange(t: number): boolean {
    if (!inRange(t)) return false;
    const latest = this.latest();
    return latest === undefined || t <= latest;
  }

  push(item: T, t: number | undefined, mark = false): void {
    if (t !== undefined && !Number.isFinite(t)) t = undefined;
    if (this.head === this.queue.length && !mark && t !== undefined && this.inRange(t) && this.quick(t)) {
      // Nothing held and the time agrees with the ones before it (nearly every event of a
      // recording): released at once, as drain() would, without queueing it.
      if (this.head > 0) {
        this.queue.length = 0;
        this.head = 0;
      }
      this.before.push(t);
      if (this.before.length > RADIUS) this.before.shift();
      this.release(item, t);
      return;
    }
    this.queue.push({ item, t, mark });
    if (!mark && t !== undefined && this.inRange(t)) this.timedAhead++;
    this.drain(false);
  }

  /** Releases everything still held (end of input). */
  flush(): void {
    this.drain(true);
  }

  private drain(all: boolean): void {
    const q = this.queue;
    while (this.head < q.length) {
      const e = q[this.head]!;
      if (e.t === undefined) {
        this.head++;
        this.release(e.item, undefined);
        continue;
      }
      if (!this.inRange(e.t) || e.mark) {
        this.head++;
        if (this.inRange(e.t)) {
          // A mark (e.g. a recording's startedAt) seeds the neighbourhood of the first items.
          if (this.before.length === 0) this.before.push(e.t);
          this.release(e.item, e.t);
          continue;
        }
        this.implausible++;
        this.release(e.item, undefined, implausibleAlone(e.t, this.latest()) ?? { t: e.t, reason: 'out-of-range' });
        continue;
      }
      // The head is timed and in range. It passes at once when it agrees with the times
      // released before it (the common case: no latency on a live pipe); otherwise it is
      // judged once RADIUS timed items follow it.
      const quick = this.quick(e.t);
      if (!quick && !all && this.timedAhead - 1 < RADIUS) break;
      this.head++;
      this.timedAhead--;
      const verdict = quick ? undefined : this.judge(e.t);
      if (verdict) {
        this.implausible++;
        this.release(e.item, undefined, verdict);
      } else {
        this.before.push(e.t);
        if (this.before.length > RADIUS) this.before.shift();
        this.release(e.item, e.t);
      }
    }
    if (this.head > 1024 && this.head * 2 > q.length) {
      q.splice(0, this.head);
      this.head = 0;
    }
  }

  /** At least half of the times released before agree with `t`. */
  private agreesWithBefore(t: number): boolean {
    if (this.before.length === 0) return false;
    let agree = 0;
    for (const u of this.before) if (Math.abs(u - t) <= MAX_DEVIATION_MS) agree++;
    return agree * 2 >= this.before.length;
  }

  /** Judges the time of queue[head - 1] against its neighbourhood. */
  private judge(t: number): ImplausibleTime | undefined {
    const around: number[] = [...this.before];
    for (let i = this.head; i < this.queue.length && around.length < this.before.length + RADIUS; i++) {
      const { t: u, mark } = this.queue[i]!;
      if (!mark && u !== undefined && this.inRange(u)) around.push(u);
    }
    let disagree = 0;
    for (const u of around) if (Math.abs(u - t) > MAX_DEVIATION_MS) disagree++;
    // The item itself agrees with itself: flagged only when the disagreeing neighbours are the
    // strict majority of the neighbourhood including it.
    if (disagree * 2 > around.length + 1) {
      const sorted = around.sort((a, b) => a - b);
      return { t, reason: 'far-from-neighbours', around: sorted[sorted.length >> 1]! };
    }
    return this.ordered ? this.aheadOfNext(t) : undefined;
  }

  /**
   * Ordered series: `t` (queue[head - 1]) runs ahead of the strict majority of the RADIUS times
   * after it by more than MAX_REORDER_MS, and those times do not go back before the last time
   * released (so it is this one line, not a clock stepped back).
   */
  private aheadOfNext(t: number): ImplausibleTime | undefined {
    const prev = this.before.length > 0 ? this.before[this.before.length - 1]! : undefined;
    const next: number[] = [];
    for (let i = this.head; i < this.queue.length && next.length < RADIUS; i++) {
      const { t: u, mark } = this.queue[i]!;
      if (!mark && u !== undefined && this.inRange(u)) next.push(u);
    }
    let behind = 0;
    for (const u of next) if (u < t - MAX_REORDER_MS && (prev === undefined || u >= prev - MAX_REORDER_MS)) behind++;
    if (behind * 2 <= next.length) return undefined;
    const sorted = next.sort((a, b) => a - b);
    return { t, reason: 'ahead-of-next', around: sorted[sorted.length >> 1]! };
  }
}

/** Within the absolute range (see the module comment). */
export function isPlausibleTime(t: number): boolean {
  return inRange(t);
}

function inRange(t: number): boolean {
  return t >= MIN_PLAUSIBLE_MS && t < MAX_PLAUSIBLE_MS;
}

/** "9999-11-30T02:39:01.507Z is 7973 years after the times around it (2026-11-30T02:39:01.507Z)" */
export function describeImplausible(what: string, v: ImplausibleTime, relativeTo = 'the times around it'): string {
  const iso = safeIso(v.t);
  if (v.reason === 'out-of-range' || v.around === undefined) {
    return `${what} ${iso} is not a plausible time (outside 2014–9000)`;
  }
  if (v.reason === 'after-read') {
    return `${what} ${iso} is ${span(v.t - v.around)} after this input was read (${safeIso(v.around)})`;
  }
  const d = v.t - v.around;
  if (v.reason === 'ahead-of-next') {
    return `${what} ${iso} is ${span(d)} after the times that follow it (${safeIso(v.around)}): a clock that ran ahead on this line`;
  }
  return `${what} ${iso} is ${span(Math.abs(d))} ${d > 0 ? 'after' : 'before'} ${relativeTo} (${safeIso(v.around)})`;
}

function safeIso(t: number): string {
  const d = new Date(t);
  return Number.isNaN(d.getTime()) ? String(t) : d.toISOString();
}

function span(ms: number): string {
  if (ms < 120_000) return `${Math.round(ms / 1000)} seconds`;
  if (ms < 2 * 3600_000) return `${Math.round(ms / 60_000)} minutes`;
  const h = ms / 3600_000;
  if (h < 48) return `${Math.round(h)} hours`;
  const days = h / 24;
  if (days < 730) return `${Math.round(days)} days`;
  return `${Math.round(days / 365.25)} years`;
}
