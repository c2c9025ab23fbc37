/**
 * Low-level pieces of the klog text format (input-formats.md §5.1), as written by
 * k8s.io/klog/v2 (`internal/buffer.FormatHeader`, `internal/serialize.KVFormat`) and its
 * `textlogger`, which kube-controller-manager uses for `--logging-format=text` (the default):
 *
 *   I1130 10:15:02.123456   12345 controller_utils.go:232] "Setting expectations" logger="replicaset-controller" expectations={}
 *
 * - header: severity, MMDD, hh:mm:ss.µµµµµµ (process-local time zone, no year), the pid
 *   right-aligned in 7 columns, `file:line] `;
 * - structured body: a Go-quoted message, then ` key=value` pairs. Strings, errors and
 *   Stringers are Go-quoted; numbers and bools are bare; everything else is JSON
 *   (klog ≥ v2.90: `formatAsJSON`, so a struct with only unexported fields prints `{}`);
 *   older klog printed `%+v` (`{add:2 del:0 key:default/foo}`, `[a b]`, `map[a:{}]`).
 *   A string with line breaks is written `key=<` NL, TAB-indented lines, ` >`.
 * - printf body (`klog.Infof`, ≤1.26 for most controller lines): unquoted text.
 */

export const KLOG_HEADER_RE = /^([IWEF])(\d\d)(\d\d) (\d\d):(\d\d):(\d\d)\.(\d{6}) +(\d+) ([^\s\]]+):(\d+)\] ?/;

/**
 * A klog text line as other readers recognise one, to name it where it is not read (the audit
 * reader, a log store's non-audit messages, the quick KCM-log check): the header
 * `I0304 10:15:02.123456       1 file.go:123] ` with its space after `]`. Not KLOG_HEADER_RE
 * (which parses records and differs in the blanks it allows): what those readers name rests on
 * this one.
 */
export const KLOG_RE = /^[IWEF]\d{4} \d\d:\d\d:\d\d\.\d{6}\s+\d+ \S+:\d+\] /;

export const DAY_MS = 86_400_000;

/** How to turn a klog header (no year, KCM-local time) into epoch milliseconds. */
export interface KlogClock {
  /** Calendar year of the header (klog prints none). */
  year: number;
  /** KCM's time zone: local = UTC + tzOffsetMinutes. 0 for UTC (containers). */
  tzOffsetMinutes: number;
  /**
   * Optional epoch ms no line can be later than (the file's mtime). A header that would land
   * more than a day after it is taken to belong to the previous year (a log spanning New Year).
   */
  notAfter?: number;
}

export interface KlogHeader {
  severity: 'I' | 'W' | 'E' | 'F';
  month: number;
  day: number;
  /** Epoch ms (µs fraction kept). NaN when the date is impossible (e.g. month 13). */
  at: number;
  pid: number;
  /** Caller file as printed (basename unless klog ran with -add_dir_header). */
  file: string;
  callerLine: number;
  /** Length of the header including the single space after `]`. */
  length: number;
}

/** Epoch ms for a klog date/time, or NaN when the calendar date does not exist. */
/** Cache of the last (year, month, day, h, m, s, tz) → epoch second (consecutive lines share it). */
let lastKey = -1;
let lastTz = NaN;
let lastBase = NaN;

export function klogEpoch(
  clock: KlogClock,
  month: number,
  day: number,
  h: number,
  m: number,
  s: number,
  micros: number,
): number {
  if (clock.notAfter === undefined) {
    const key = ((((clock.year * 13 + month) * 32 + day) * 24 + h) * 60 + m) * 61 + s;
    if (key !== lastKey || clock.tzOffsetMinutes !== lastTz) {
      lastKey = key;
      lastTz = clock.tzOffsetMinutes;
      lastBase = klogEpochUncached(clock, month, day, h, m, s, 0);
    }
    return lastBase + micros / 1000;
  }
  return klogEpochUncached(clock, month, day, h, m, s, micros);
}

function klogEpochUncached(
  clock: KlogClock,
  month: number,
  day: number,
  h: number,
  m: number,
  s: number,
  micros: number,
): number {
  const at = (year: number): number => {
    const base = Date.UTC(year, month - 1, day, h, m, s);
    const d = new Date(base);
    if (d.getUTCMonth() !== month - 1 || d.getUTCDate() !== day || h > 23 || m > 59 || s > 60) return NaN;
    return base + micros / 1000 - clock.tzOffsetMinutes * 60_000;
  };
  if (month < 1 || month > 12 || day < 1 || day > 31) return NaN;
  let t = at(clock.year);
  if (clock.notAfter !== undefined) {
    // Feb 29 of a non-leap year, or a time after the file was last written: previous year.
    if (Number.isNaN(t) || t > clock.notAfter + DAY_MS) {
      const prev = at(clock.year - 1);
      if (!Number.isNaN(prev)) t = prev;
    }
  }
  return t;
}

export function parseKlogHeader(line: string, clock: KlogClock): KlogHeader | undefined {
  const m = KLOG_HEADER_RE.exec(line);
  if (!m) return undefined;
  const month = Number(m[2]);
  const day = Number(m[3]);
  const file = m[9]!;
  const slash = file.lastIndexOf('/');
  return {
    severity: m[1] as KlogHeader['severity'],
    month,
    day,
    at: klogEpoch(clock, month, day, Number(m[4]), Number(m[5]), Number(m[6]), Number(m[7])),
    pid: Number(m[8]),
    file: slash >= 0 ? file.slice(slash + 1) : file,
    callerLine: Number(m[10]),
    length: m[0].length,
  };
}

/** Go's single-character escapes (strconv.Quote) and what they stand for. */
const GO_SIMPLE_ESCAPES: Readonly<Record<string, string>> = { n: '\n', t: '\t', r: '\r', a: '\x07', b: '\b', f: '\f', v: '\v' };

/**
 * Reads a Go-quoted string (strconv.Quote output) starting at `s[i] === '"'`.
 * Returns the unquoted value and the index after the closing quote, or undefined when the
 * string is not terminated.
 */
export function readGoQuoted(s: string, i: number): { value: string; end: number } | undefined {
  let out = '';
  let j = i + 1;
  for (;;) {
    const q = s.indexOf('"', j);
    const b = s.indexOf('\\', j);
    if (q < 0) return undefined;
    if (b < 0 || q < b) {
      out += s.slice(j, q);
      return { value: out, end: q + 1 };
    }
    out += s.slice(j, b);
    const n = s[b + 1];
    const simple = n !== undefined ? GO_SIMPLE_ESCAPES[n] : undefined;
    if (simple !== undefined) {
      out += simple;
      j = b + 2;
      continue;
    }
    switch (n) {
      case 'x': {
        const hex = s.slice(b + 2, b + 4);
        out += /^[0-9a-fA-F]{2}$/.test(hex) ? String.fromCharCode(parseInt(hex, 16)) : '\\x';
        j = /^[0-9a-fA-F]{2}$/.test(hex) ? b + 4 : b + 2;
        break;
      }
      case 'u':
      case 'U': {
        const len = n === 'u' ? 4 : 8;
        const hex = s.slice(b + 2, b + 2 + len);
        const cp = new RegExp(`^[0-9a-fA-F]{${len}}$`).test(hex) ? parseInt(hex, 16) : NaN;
        if (Number.isFinite(cp) && cp <= 0x10ffff) {
          out += String.fromCodePoint(cp);
          j = b + 2 + len;
        } else {
          out += n;
          j = b + 2;
        }
        break;
      }
      case undefined:
        return undefined;
      default:
        if (n >= '0' && n <= '7' && /^[0-7]{3}$/.test(s.slice(b + 1, b + 4))) {
          out += String.fromCharCode(parseInt(s.slice(b + 1, b + 4), 8));
          j = b + 4;
        } else {
          out += n; // \" \\ \'
          j = b + 2;
        }
    }
  }
}

/** Index after a balanced `{…}` / `[…]` starting at `s[i]`, skipping over JSON/Go strings. */
function scanBalanced(s: string, i: number): number {
  let depth = 0;
  let j = i;
  while (j < s.length) {
    const c = s[j]!;
    if (c === '"') {
      const q = readGoQuoted(s, j);
      if (!q) return s.length;
      j = q.end;
      continue;
    }
    if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') {
      depth--;
      if (depth === 0) return j + 1;
    }
    j++;
  }
  return s.length;
}

const KEY_RE = /[A-Za-z_][\w.\-/]*=/y;

/**
 * Parses the ` key=value …` part of a structured klog line. Values: Go-quoted strings,
 * multi-line `<…>` strings, JSON (objects/arrays/numbers/bools/null), old-klog `%+v`
 * composites (`{add:2 del:0 key:x}`, `[a b]`, `map[a:{}]` — kept as raw text), bare tokens.
 * With `until`, stops once that key has been read (to skip e.g. a pod dump that follows it).
 */
export function parseKlogKV(s: string, start = 0, until?: string): Record<string, unknown> {
  const kv: Record<string, unknown> = {};
  let i = start;
  const n = s.length;
  while (i < n) {
    if (until !== undefined && until in kv) break;
    while (i < n && (s[i] === ' ' || s[i] === '\n' || s[i] === '\t')) i++;
    if (i >= n) break;
    KEY_RE.lastIndex = i;
    const km = KEY_RE.exec(s);
    if (!km) {
      // Not a key: skip the token (defensive; klog never writes this).
      while (i < n && s[i] !== ' ') i++;
      continue;
    }
    const key = km[0].slice(0, -1);
    i += km[0].length;
    const c = s[i];
    if (c === '"') {
      const q = readGoQuoted(s, i);
      if (!q) {
        kv[key] = s.slice(i + 1);
        break;
      }
      kv[key] = q.value;
      i = q.end;
    } else if (c === '<' && s[i + 1] === '\n') {
      // Multi-line string: TAB-indented lines, closed by a line " >".
      const close = s.indexOf('\n >', i + 1);
      const body = close >= 0 ? s.slice(i + 2, close) : s.slice(i + 2);
      kv[key] = body
        .split('\n')
        .map((l) => (l.startsWith('\t') ? l.slice(1) : l))
        .join('\n');
      i = close >= 0 ? close + 3 : n;
    } else if (c === '{' || c === '[' || (c === 'm' && s.startsWith('map[', i)) || (c === '&' && /^&[\w.]*\{/.test(s.slice(i, i + 64)))) {
      const open = c === '{' || c === '[' ? i : s.indexOf(c === 'm' ? '[' : '{', i);
      const end = scanBalanced(s, open);
      const raw = s.slice(i, end);
      let v: unknown = raw;
      if (c === '{' || c === '[') {
        try {
          v = JSON.parse(raw);
        } catch {
          v = raw;
        }
      }
      kv[key] = v;
      i = end;
    } else {
      let j = i;
      while (j < n && s[j] !== ' ' && s[j] !== '\n') j++;
      kv[key] = bareValue(s.slice(i, j));
      i = j;
    }
  }
  return kv;
}

function bareValue(t: string): unknown {
  if (t === 'true') return true;
  if (t === 'false') return false;
  if (t === 'null' || t === '<nil>') return null;
  if (/^-?\d+(\.\d+)?([eE][-+]?\d+)?$/.test(t)) return Number(t);
  return t;
}

const DURATION_UNIT_MS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  'µs': 1e-3,
  'μs': 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

/** Parses a Go `time.Duration` string (`54.012µs`, `1.5s`, `2m3.5s`) into milliseconds. */
export function parseGoDuration(s: string): number | undefined {
  const t = s.trim();
  if (t === '0' || t === '0s') return 0;
  const m = /^(-?)((?:\d+(?:\.\d*)?|\.\d+)(?:ns|us|µs|μs|ms|s|m|h))+$/.exec(t);
  if (!m) return undefined;
  let total = 0;
  const re = /(?<![\d.])(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/g;
  for (let r = re.exec(t); r; r = re.exec(t)) total += Number(r[1]) * DURATION_UNIT_MS[r[2]!]!;
  total = Math.round(total * 1e6) / 1e6; // nanosecond resolution, without float noise
  return m[1] === '-' ? -total : total;
}

/**
 * Parses an RFC 3339 timestamp with up to nanosecond fraction (CRI, docker, kubectl
 * --timestamps) into epoch ms with the sub-ms fraction kept.
 */
export function parseRfc3339(s: string): number | undefined {
  const m = /^(\d{4})-(\d\d)-(\d\d)[T ](\d\d):(\d\d):(\d\d)(?:\.(\d{1,9}))?(Z|[+-]\d\d:?\d\d)$/.exec(s);
  if (!m) return undefined;
  const base = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6]));
  if (Number.isNaN(base)) return undefined;
  const d = new Date(base);
  if (d.getUTCMonth() !== Number(m[2]) - 1 || d.getUTCDate() !== Number(m[3]) || Number(m[4]) > 23 || Number(m[5]) > 59 || Number(m[6]) > 60) {
    return undefined;
  }
  const frac = m[7] ? Number(`0.${m[7]}`) * 1000 : 0;
  let off = 0;
  if (m[8] !== 'Z') {
    const z = m[8]!.replace(':', '');
    off = (z[0] === '-' ? -1 : 1) * (Number(z.slice(1, 3)) * 60 + Number(z.slice(3, 5)));
  }
  return base + frac - off * 60_000;
}
