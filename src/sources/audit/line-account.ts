/**
 * Counts every unit of an audit input exactly once — a line (JSON lines), a top-level JSON value
 * (pretty-printed or array input) or a YAML document — into one category, so that the coverage
 * summary adds up: `read = relevant + notRelevant + malformed + incomplete + blank + tooLong +
 * surroundingText`.
 *
 * - relevant: holds at least one record kexp uses (a write to pods, ReplicaSets, …), or a
 *   RequestReceived/ResponseStarted of such a write that completes later in the file;
 * - malformed: a problem was reported at it (it wins over everything else on that unit: a
 *   problem means something on it was not used);
 * - incomplete: only intermediate stages of relevant requests that never complete in the file;
 * - notRelevant: read (or skipped by the byte prefilter) and holding nothing kexp needs;
 * - blank, tooLong: empty lines / documents; units longer than the limit, dropped unread;
 * - surroundingText: text outside any JSON value, skipped (one unit per skipped region).
 *
 * Records of one unit can be handled after later units were parsed (the plausible-time window
 * holds a few back), so flags are kept per unit until no record of it can arrive any more:
 * `settle(before)` closes every unit numbered below `before`. Memory stays bounded by the window.
 *
 * Which stage-only units end incomplete is known only at the end of the file (the request may
 * complete on any later line); `close(incompleteRequests)` moves that many of them (at most the
 * stage-only units there are) from relevant to incomplete, which keeps the identity exact.
 */

export interface LineAccountCounts {
  relevant: number;
  notRelevant: number;
  malformed: number;
  incomplete: number;
  blank: number;
  tooLong: number;
  surroundingText: number;
}

const RELEVANT = 1;
const MALFORMED = 2;
const STAGED = 4;

export class LineAccount {
  readonly counts: LineAccountCounts = { relevant: 0, notRelevant: 0, malformed: 0, incomplete: 0, blank: 0, tooLong: 0, surroundingText: 0 };
  /** Units parsed and not yet settled, by number, with their flags. */
  private readonly open = new Map<number, number>();
  /** Units whose only use was an intermediate stage of a relevant request. */
  private stagedOnly = 0;
  /** Every unit below this one is settled (counted). */
  private settledBelow = -Infinity;

  /** A unit went to the parser. */
  parsed(unit: number): void {
    if (!this.open.has(unit)) this.open.set(unit, 0);
  }

  relevant(unit: number): void {
    this.flag(unit, RELEVANT);
  }

  /** An intermediate stage (RequestReceived/ResponseStarted) of a relevant write. */
  staged(unit: number): void {
    this.flag(unit, STAGED);
  }

  malformed(unit: number): void {
    this.flag(unit, MALFORMED);
  }

  /** A unit never parsed but reported (a value cut off, damaged gzip data cutting a line). */
  malformedUnread(): void {
    this.counts.malformed++;
  }

  /** Units decided without parsing. */
  add(category: 'notRelevant' | 'blank' | 'tooLong' | 'surroundingText', n = 1): void {
    this.counts[category] += n;
  }

  /** Closes every open unit numbered below `before` (Infinity: all). */
  settle(before: number): void {
    if (before > this.settledBelow) this.settledBelow = before;
    if (this.open.size === 0) return;
    for (const [unit, f] of this.open) {
      if (unit >= before) continue;
      this.open.delete(unit);
      if (f & MALFORMED) this.counts.malformed++;
      else if (f & RELEVANT) this.counts.relevant++;
      else if (f & STAGED) {
        this.counts.relevant++;
        this.stagedOnly++;
      } else this.counts.notRelevant++;
    }
  }

  /** End of input: settles everything and counts `incompleteRequests` stage-only units as incomplete. */
  close(incompleteRequests: number): LineAccountCounts {
    this.settle(Infinity);
    const n = Math.min(incompleteRequests, this.stagedOnly);
    this.stagedOnly -= n;
    this.counts.relevant -= n;
    this.counts.incomplete += n;
    return this.counts;
  }

  private flag(unit: number, f: number): void {
    // Already counted: units are settled only once no record of theirs can still arrive.
    if (unit < this.settledBelow) return;
    this.open.set(unit, (this.open.get(unit) ?? 0) | f);
  }
}

/** Sum of the categories (what `read` must equal). */
export function accountTotal(c: LineAccountCounts): number {
  return c.relevant + c.notRelevant + c.malformed + c.incomplete + c.blank + c.tooLong + c.surroundingText;
}
