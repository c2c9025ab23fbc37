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
 * Node's `Buffer.indexOf` finds a needle by `memchr` of its first byte and a compare at each hit
 * (a search that stops within a line never reaches its Boyer–Moore stage), so a needle starting
 * with `"` — every key — stops every ~9 bytes of JSON; `NeedleScanner` searches from the needle's
 * rarest byte instead (`anchorOf`) and checks the bytes before it: the same first occurrence, at
 * 3–6× the bytes per second (bench/README.md, "engine CPU, second round").
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
  /** The needle's rarest byte (`anchorOf`): the search looks for `tail`, the needle from it on, and checks the `anchor` bytes before. */
  private readonly anchor: number;
  private readonly tail: Buffer;

  constructor(readonly needle: Buffer) {
    this.anchor = anchorOf(needle);
    this.tail = needle.subarray(this.anchor);
  }

  /** First occurrence in `buf[start, end)`, or -1. */
  find(buf: Buffer, start: number, end: number): number {
    if (buf !== this.buf || start < this.from) {
      this.buf = buf;
      this.next = -1;
    }
    this.from = start;
    if (this.next < start) {
      const i = this.indexIn(buf, start);
      this.next = i < 0 ? Infinity : i;
    }
    return this.next + this.needle.length <= end ? this.next : -1;
  }

  /**
   * `buf.indexOf(needle, start)` (unbounded, no memory: for a caller that bounds `buf` itself):
   * every occurrence at p ≥ start has its tail at p + anchor ≥ start + anchor, and the tails are
   * visited in order, so the first whose `anchor` bytes before match is the needle's first occurrence.
   */
  indexIn(buf: Buffer, start: number): number {
    const k = this.anchor;
    if (k === 0) return buf.indexOf(this.needle, start);
    const needle = this.needle;
    next: for (let q = buf.indexOf(this.tail, start + k); q >= 0; q = buf.indexOf(this.tail, q + 1)) {
      const p = q - k;
      for (let j = 0; j < k; j++) if (buf[p + j] !== needle[j]) continue next;
      return p;
    }
    return -1;
  }
}

/**
 * The bytes of JSON audit text by how often they occur, most frequent first (audit logs of
 * bench/audit/generate.ts, both mixes: `"` is 11 % of the bytes, the last here ~0.8 %); any other
 * byte is rarer than these.
 */
const COMMON_BYTES = '"esatoirn:c,0udlm1-pb2843.5/f7y9{}kvhg';

/**
 * Where a search for `needle` starts: the index of its rarest byte by COMMON_BYTES (the first
 * such), so Node's `memchr` of the searched text's first byte stops rarely. Speed only: the
 * answer of `NeedleScanner.find` is the same for every anchor.
 */
export function anchorOf(needle: Buffer): number {
  let best = 0;
  let bestRank = -1;
  for (let k = 0; k < needle.length; k++) {
    const r = COMMON_BYTES.indexOf(String.fromCharCode(needle[k]!));
    const rank = r < 0 ? COMMON_BYTES.length : r;
    if (rank > bestRank) {
      best = k;
      bestRank = rank;
    }
  }
  return best;
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
