/**
 * Time for klog text records (input-formats.md §6): the header has no year and is in the KCM
 * process's local time zone.
 *
 * - Time zone: `tzOffsetMinutes` when given; otherwise, for wrapped lines (CRI, docker,
 *   --timestamps, whose timestamps are UTC), the offset between the first klog header and its
 *   wrapper time rounded to 15 minutes; otherwise UTC (the usual container setting).
 * - Year: `year` when given (for the first record); otherwise the wrapper timestamp's year, else
 *   the time of the other inputs of the run (`referenceKind` `other-input`: the year that puts
 *   the first record nearest that time), else the year of the file's mtime (a header that would
 *   be later than the mtime belongs to the year before), else the current year (stdin). After
 *   the first record the year follows the
 *   log across New Year: each record takes the year that puts it nearest the previous record
 *   (or its wrapper timestamp, when it has one).
 *
 * JSON records carry epoch `ts` and need none of this.
 */
import { DAY_MS } from './klog-text.js';
import { type ParseContext, type ParsedKcmLine, parseInner } from './parse-line.js';
import type { RawRecord } from './records.js';

export interface ClockOptions {
  year?: number;
  tzOffsetMinutes?: number;
  /** Epoch ms of the other inputs' time (`other-input`), the file's mtime, or the read time (stdin). */
  reference?: number;
  referenceKind?: 'other-input' | 'mtime' | 'now';
}

export type TzBasis = 'option' | 'wrapper' | 'utc';
export type YearBasis = 'option' | 'wrapper' | 'other-input' | 'mtime' | 'now';

const HALF_YEAR = 183 * DAY_MS;

export class RecordClock {
  tzOffsetMinutes: number | undefined;
  tzBasis: TzBasis | undefined;
  yearBasis: YearBasis | undefined;
  private year: number | undefined;
  private lastAt: number | undefined;

  constructor(private readonly opts: ClockOptions) {
    if (opts.tzOffsetMinutes !== undefined) {
      this.tzOffsetMinutes = opts.tzOffsetMinutes;
      this.tzBasis = 'option';
    }
  }

  /** Parses a raw (unwrapped) record with the resolved year and time zone. */
  parse(rec: RawRecord, problem?: (message: string) => void): ParsedKcmLine | undefined {
    const text = rec.text;
    const ctx: ParseContext = { year: this.year ?? 1970, tzOffsetMinutes: this.tzOffsetMinutes ?? 0 };
    if (problem) ctx.problem = problem;
    if (text.charCodeAt(0) === 0x7b) return this.stamp(parseInner(text, ctx), rec);

    if (this.tzOffsetMinutes === undefined) {
      if (rec.wrapperAt !== undefined) {
        const best = nearestYear(text, rec.wrapperAt, utcYear(rec.wrapperAt), 0);
        if (!best) return parseInner(text, ctx); // reports the problem, if any
        const diff = best.at - rec.wrapperAt;
        const off = Math.round(diff / 900_000) * 15;
        this.tzOffsetMinutes = Math.abs(off) <= 14 * 60 ? off : 0;
        this.tzBasis = Math.abs(off) <= 14 * 60 ? 'wrapper' : 'utc';
      } else {
        this.tzOffsetMinutes = 0;
        this.tzBasis = 'utc';
      }
      ctx.tzOffsetMinutes = this.tzOffsetMinutes;
    }

    let r: ParsedKcmLine | undefined;
    if (this.year === undefined) {
      if (this.opts.year !== undefined) {
        ctx.year = this.opts.year;
        this.yearBasis = 'option';
        r = parseInner(text, ctx);
      } else if (rec.wrapperAt !== undefined) {
        r = nearestYear(text, rec.wrapperAt, utcYear(rec.wrapperAt), this.tzOffsetMinutes) ?? parseInner(text, ctx);
        this.yearBasis = 'wrapper';
      } else if (this.opts.referenceKind === 'other-input' && this.opts.reference !== undefined) {
        // Another input of the run is a record of the same incident: its time, not this file's
        // mtime (a copy's date), places the log.
        ctx.year = utcYear(this.opts.reference);
        r = nearestYear(text, this.opts.reference, ctx.year, this.tzOffsetMinutes) ?? parseInner(text, ctx);
        this.yearBasis = 'other-input';
      } else {
        const ref = this.opts.reference ?? Date.now();
        ctx.year = utcYear(ref);
        ctx.notAfter = ref;
        this.yearBasis = this.opts.referenceKind ?? 'now';
        r = parseInner(text, ctx);
        delete ctx.notAfter;
      }
      if (r) this.year = localYear(r.at, this.tzOffsetMinutes);
      return this.stamp(r, rec);
    }

    const anchor = rec.wrapperAt ?? this.lastAt;
    r = parseInner(text, ctx);
    if (r && anchor !== undefined && Math.abs(r.at - anchor) > HALF_YEAR) {
      const better = nearestYear(text, anchor, this.year, this.tzOffsetMinutes);
      if (better) {
        r = better;
        this.year = localYear(r.at, this.tzOffsetMinutes);
      }
    }
    return this.stamp(r, rec);
  }

  private stamp(r: ParsedKcmLine | undefined, rec: RawRecord): ParsedKcmLine | undefined {
    if (!r) return undefined;
    if (rec.wrapper) r.wrapper = rec.wrapper;
    if (rec.wrapperAt !== undefined) r.wrapperAt = rec.wrapperAt;
    if (r.format === 'klog-text') this.lastAt = r.at;
    return r;
  }
}

function utcYear(t: number): number {
  return new Date(t).getUTCFullYear();
}

function localYear(at: number, tz: number | undefined): number {
  return new Date(at + (tz ?? 0) * 60_000).getUTCFullYear();
}

/** Parses with year-1, year, year+1 and keeps the one nearest `anchor`. */
function nearestYear(text: string, anchor: number, year: number, tz: number | undefined): ParsedKcmLine | undefined {
  let best: ParsedKcmLine | undefined;
  for (const y of [year - 1, year, year + 1]) {
    const r = parseInner(text, { year: y, tzOffsetMinutes: tz ?? 0 });
    if (r && !Number.isNaN(r.at) && (!best || Math.abs(r.at - anchor) < Math.abs(best.at - anchor))) best = r;
  }
  return best;
}
