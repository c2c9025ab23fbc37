/**
 * Line filters: byte-level predicates on one line's raw bytes `buf[start, end)`, evaluated by
 * the line reader (line-reader.ts) before any string is decoded or parsed, and the building
 * blocks they are made of (a needle scanner, a string-value finder, a closing-brace check).
 *
 * Contract: a filter answers "worth parsing?" from the bytes alone; it may let through lines
 * the parser then drops, never the other way round (audit prefilters: prefilter.ts; envelopes
 * bring their own, src/sources/envelope). Nothing here looks outside `buf[start, end)`.
 *
 * Cost: this is the hot path of `kexp audit` (most lines of an audit log are skipped here). A
 * needle must never be searched past the line: an unbounded `buf.indexOf(needle, start)` from
 * every line start walks the rest of the chunk for each line that lacks it
 * (/work/shared/docs/libraries.md §B.6: 6 MB/s). `NeedleScanner` keeps the position of the next
 * occurrence instead, so each byte of a chunk is scanned at most once per needle and no per-line
 * Buffer views are allocated; values are decoded only when a key is found (≤ 64 bytes, latin1).
 */

/** Decides from the raw bytes `buf[start, end)` of one line whether it is worth parsing. */
export type LineFilter = (buf: Buffer, start: number, end: number) => boolean;


const isWs = (c: number | undefined) => c === 32 || c === 9 || c === 10 || c === 13;

/**
 * Finds a needle inside lines of one chunk without re-scanning: it remembers where the next
 * occurrence after the previous query is, so consecutive queries on increasing line ranges of
 * the same Buffer scan every byte at most once (an unbounded `indexOf` from each line start
 * would walk the rest of the chunk for every line lacking the needle — libraries.md §B.6).
 */
export class NeedleScanner {
  private buf: Buffer | undefined;
  private from = 0;
  /** Next occurrence at or after `from`; -1 = unknown, Infinity = none left in `buf`. */
  private next = -1;

  constructor(readonly needle: Buffer) {}

  /** First occurrence in `buf[start, end)`, or -1. */
  find(buf: Buffer, start: number, end: number): number {
    if (buf !== this.buf || start < this.from) {
      this.buf = buf;
      this.next = -1;
    }
    this.from = start;
    if (this.next < start) {
      const i = buf.indexOf(this.needle, start);
      this.next = i < 0 ? Infinity : i;
    }
    return this.next + this.needle.length <= end ? this.next : -1;
  }
}

/**
 * Finds `"key"` (or `\"key\"` when `escaped`, i.e. inside a JSON-encoded string such as an
 * EKS `message` or AKS `properties.log`) followed by `:` and a string value, inside
 * `buf[start, end)`, and returns the first value for which `accept` is true — without decoding
 * the line. Every occurrence of the key is tried (key order in re-serialised files is not
 * fixed, and pod specs contain `"resource"` keys of their own) — unless the occurrence is
 * immediately preceded by `anchor`, which makes it decisive: e.g. `"objectRef":{` before
 * `"resource"` can only be the audit objectRef's own resource (its first field), so an
 * unaccepted value there ends the search without scanning the rest of the line (most lines
 * are irrelevant, and the bodies after objectRef are most of their bytes). Values longer than
 * 64 bytes or containing escapes are not considered.
 */
export function findStringValue(
  buf: Buffer,
  start: number,
  end: number,
  key: NeedleScanner,
  escaped: boolean,
  accept: (value: string) => boolean,
  anchor?: Buffer,
): string | undefined {
  const klen = key.needle.length;
  let from = start;
  for (;;) {
    const i = key.find(buf, from, end);
    if (i < 0) return undefined;
    from = i + klen;
    const decisive = anchor !== undefined && i - anchor.length >= start && endsWith(buf, i, anchor);
    let p = from;
    while (p < end && isWs(buf[p])) p++;
    if (buf[p] !== 58) continue;
    p++;
    while (p < end && isWs(buf[p])) p++;
    if (escaped) {
      if (buf[p] !== 92 || buf[p + 1] !== 34) continue;
      p += 2;
    } else {
      if (buf[p] !== 34) continue;
      p++;
    }
    const limit = Math.min(end, p + 64);
    let q = p;
    while (q < limit && buf[q] !== 34 && buf[q] !== 92) q++;
    if (q >= limit) continue;
    const closes = escaped ? buf[q] === 92 && buf[q + 1] === 34 : buf[q] === 34;
    if (!closes) continue;
    const v = buf.toString('latin1', p, q);
    if (accept(v)) return v;
    if (decisive) return undefined;
  }
}

/**
 * True when the last non-blank byte of `buf[start, end)` is `}`. Every JSON-lines audit record
 * is an object, so a line without it was cut short: prefilters send it to the parser (which
 * reports it) instead of skipping it as irrelevant.
 */
export function endsWithBrace(buf: Buffer, start: number, end: number): boolean {
  let q = end - 1;
  while (q > start && (buf[q] === 32 || buf[q] === 9)) q--;
  return buf[q] === 125;
}

/** True when `buf[.., at)` ends with `suffix`. */
function endsWith(buf: Buffer, at: number, suffix: Buffer): boolean {
  const n = suffix.length;
  for (let k = 1; k <= n; k++) if (buf[at - k] !== suffix[n - k]) return false;
  return true;
}

/** A scanner for `"key"` or, escaped, `\"key\"`. */
export function keyScanner(key: string, escaped = false): NeedleScanner {
  return new NeedleScanner(Buffer.from(escaped ? `\\"${key}\\"` : `"${key}"`, 'latin1'));
}
