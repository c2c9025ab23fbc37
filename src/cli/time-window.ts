/**
 * The time window of `kexp audit` (`--since`, `--since-time`, `--until`), the way `kubectl logs`
 * takes --since and --since-time (k8s.io/kubectl/pkg/cmd/logs/logs.go) and stern takes --since:
 * a duration back from now or an RFC 3339 time, validated into epoch-ms bounds before any input
 * is read (every failure is an Error with the one line the usage error prints), and, once the
 * inputs are read, the warning when none of them reaches into the window.
 *
 * Pure: the clock is read once by the command and passed in as `now`. Costs nothing.
 */
import { parseDuration } from './flags.js';

const RFC3339_RE = /^(\d{4})-(\d\d)-(\d\d)[Tt](\d\d):(\d\d):(\d\d)(\.\d+)?(?:([Zz])|([+-])(\d\d):(\d\d))$/;

/**
 * A full RFC 3339 date-time with a time zone (`2026-11-30T02:39:00Z`, `…T02:39:00.5+01:00`) to
 * epoch ms; anything else — a bare year, a date without a time, a space instead of `T`, no zone,
 * RFC 1123, an impossible date such as Feb 30 — is a usage error. (Date.parse accepts all of
 * those, mostly as local time, and rolls Feb 30 over to March.)
 */
export function parseRfc3339Flag(flag: string, v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  const bad = (why: string) => new Error(`--${flag} "${v}" is ${why}; give a full RFC 3339 time with a time zone, e.g. 2026-11-30T02:00:00Z`);
  const m = RFC3339_RE.exec(v.trim());
  if (!m) throw bad('not an RFC 3339 time');
  const [y, mo, d, h, mi, sec] = [m[1], m[2], m[3], m[4], m[5], m[6]].map(Number) as [number, number, number, number, number, number];
  const base = Date.UTC(y, mo - 1, d, h, mi, sec);
  const check = new Date(base);
  if (h > 23 || mi > 59 || sec > 59) throw bad('not a valid time of day');
  if (mo < 1 || mo > 12 || check.getUTCFullYear() !== y || check.getUTCMonth() !== mo - 1 || check.getUTCDate() !== d) throw bad('not a valid date');
  let offset = 0;
  if (!m[8]) {
    const oh = Number(m[10]);
    const om = Number(m[11]);
    if (oh > 23 || om > 59) throw bad('not a valid time zone offset');
    offset = (m[9] === '-' ? -1 : 1) * (oh * 60 + om);
  }
  const frac = m[7] ? Number(`0${m[7]}`) * 1000 : 0;
  return base + frac - offset * 60_000;
}

/**
 * `--since`/`--until`: a duration back from `now` (`1h`, `30m`, `90s`, like `kubectl logs --since`
 * and stern) or an RFC 3339 time (parseRfc3339Flag). The clock is read by the caller, once.
 */
export function parseTimeOrAgoFlag(flag: string, v: string | undefined, now: number): number | undefined {
  if (v === undefined) return undefined;
  const hint = '; give a duration (e.g. 1h, 30m) or a full RFC 3339 time with a time zone, e.g. 2026-11-30T02:00:00Z';
  // Digits with a unit: a duration. A bare number is neither (`2026` is no more a year than seconds).
  if (/^\d+(\.\d+)?(ms|s|m|h)/.test(v.trim())) {
    try {
      return now - parseDuration(v.trim());
    } catch {
      throw new Error(`--${flag} "${v}" is not a duration or an RFC 3339 time${hint}`);
    }
  }
  try {
    return parseRfc3339Flag(flag, v);
  } catch (err) {
    // parseRfc3339Flag's reason (not a valid date, …) with both accepted forms named.
    throw new Error((err as Error).message.replace(/; give a full RFC 3339 time with a time zone, e\.g\. \S+$/, hint));
  }
}

/** The time flags as parsed by oclif (--since and --since-time exclude each other). */
export interface TimeWindowFlags {
  since?: string;
  'since-time'?: string;
  until?: string;
}

/** Epoch-ms bounds, each inclusive; undefined: unbounded on that side. */
export interface TimeWindow {
  since?: number;
  until?: number;
}

/** The window the flags give at `now`; throws Error (the usage line) for a bad value or since after until. */
export function resolveTimeWindow(flags: TimeWindowFlags, now: number): TimeWindow {
  const since = flags['since-time'] !== undefined ? parseRfc3339Flag('since-time', flags['since-time']) : parseTimeOrAgoFlag('since', flags.since, now);
  const until = parseTimeOrAgoFlag('until', flags.until, now);
  if (since !== undefined && until !== undefined && since > until) throw new Error(`--${flags['since-time'] !== undefined ? 'since-time' : 'since'} ${flags['since-time'] ?? flags.since} is later than --until ${flags.until}`);
  return { since, until };
}

/**
 * `no audit events between … and … (the input covers … to …)` when a window was given and no
 * input's span of records (`start`…`end`, epoch ms) reaches into it; undefined otherwise.
 */
export function windowMiss(w: TimeWindow, spansOf: ReadonlyArray<{ start?: number; end?: number }>, what: string): string | undefined {
  const { since, until } = w;
  if (since === undefined && until === undefined) return undefined;
  const lo = since ?? -Infinity;
  const hi = until ?? Infinity;
  const spans = spansOf.filter((s) => s.start !== undefined && s.end !== undefined) as Array<{ start: number; end: number }>;
  if (spans.some((s) => s.end >= lo && s.start <= hi)) return undefined;
  const fmt = (t: number | undefined) => (t === undefined ? '…' : new Date(t).toISOString());
  const covered = spans.length
    ? ` (the input covers ${fmt(Math.min(...spans.map((s) => s.start)))} to ${fmt(Math.max(...spans.map((s) => s.end)))})`
    : '';
  const window = since === undefined ? `at or before ${fmt(until)}` : until === undefined ? `at or after ${fmt(since)}` : `between ${fmt(since)} and ${fmt(until)}`;
  return `no ${what} ${window}${covered}`;
}
