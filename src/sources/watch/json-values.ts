/**
 * Streaming tokenizer for concatenated JSON values (`kubectl get -w -o json` prints one
 * pretty-printed object per watch event, back to back — not NDJSON), also used for list
 * documents. It tracks only what framing needs: nesting depth, strings and escapes, and the
 * top-level keys of an object. It never builds a value itself; each complete value's bytes
 * are handed out for `JSON.parse`.
 *
 * Lists are exploded: when a top-level object has an `items` array (List, PodList, …) or the
 * top-level value is an array, every element is emitted on its own as soon as it closes,
 * so a list of any size is read in memory proportional to one item.
 *
 * Damage handling (one item per damaged region, then resync):
 * - text between values (kubectl warnings, `error: …` lines, markdown around a pasted dump) →
 *   one `text` item for the whole region (its first and last line), skip to a line that
 *   starts with `{` or `[`;
 * - a value still open when a line starts with `{` in column 0 (kubectl was killed mid-print
 *   and restarted, appending; kubectl and jq indent everything nested) or when a string runs
 *   into a raw newline → "truncated value". Between the elements of an exploded array a `{`
 *   in column 0 is an ordinary element start;
 * - end of input inside a value → "truncated value at end of input".
 */

export type ScanItem =
  | {
      kind: 'value';
      /** 1-based line of the value's first byte. */
      line: number;
      text: string;
      /** Set for an element of an exploded list. */
      fromList?: { kind?: string; apiVersion?: string };
    }
  | { kind: 'problem'; line: number; message: string }
  /**
   * A region of text that is not JSON (lines `line`–`endLine`), skipped up to the next line that
   * starts with `{` or `[`: kubectl warnings inside a stream, or the markdown / console text
   * around a pasted dump. The reader decides whether it is damage or surrounding text.
   */
  | { kind: 'text'; line: number; endLine: number; message: string }
  /** A container log block of a `kubectl cluster-info dump` (between its ==== START/END logs ==== lines), skipped whole. */
  | { kind: 'log-block'; line: number; endLine?: number; container: string };

const LOG_START = Buffer.from('==== START logs for container ');
const LOG_END = Buffer.from('==== END logs for container ');

const TRUNCATED = 'truncated value (no closing brace; recording interrupted?)';

export const DEFAULT_MAX_VALUE_BYTES = 64 * 1024 * 1024;

export class JsonValueScanner {
  private line = 1;
  private col0 = true;
  private depth = 0;
  private inStr = false;
  private esc = false;
  /** Skipping input until a line starts with `{` or `[` (after damage). */
  private resync = false;
  /** The text region being skipped (resync after "not JSON"), emitted when it ends. */
  private text?: { line: number; message: string };
  /** The start of a line that may be a log marker cut by the chunk boundary. */
  private carry?: Buffer;
  /** Inside a cluster-info dump's container log block: skip whole lines until its END line. */
  private logBlock?: { kind: 'log-block'; line: number; endLine?: number; container: string };
  /** Top-level container: 123 `{` or 91 `[`. */
  private top = 0;
  private topLine = 0;
  /** Inside the top-level object, at depth 1: expecting a key (true) or a value. */
  private expectKey = false;
  private lastKey = '';
  /** Capturing a depth-1 string: 1 = key, 2 = value of kind/apiVersion. */
  private strCap = 0;
  private strParts: Buffer[] = [];
  private strStart = 0;
  private strHasEsc = false;
  private listKind: string | undefined;
  private listApiVersion: string | undefined;
  /** Depth at which exploded elements live (0 = not exploding). */
  private elemDepth = 0;
  /** Value capture (whole top-level value, or one element). */
  private capOn = false;
  private capParts: Buffer[] = [];
  private capStart = 0;
  private capLen = 0;
  private capLine = 0;
  private capTooBig = false;
  private readonly maxValueBytes: number;

  constructor(opts: { maxValueBytes?: number } = {}) {
    this.maxValueBytes = opts.maxValueBytes ?? DEFAULT_MAX_VALUE_BYTES;
  }

  /** Keeps the chunk's tail for the next push when it may be a cut `prefix` marker; true when kept. */
  private holdIfCut(chunk: Buffer, i: number, prefix: Buffer): boolean {
    if (!cutAt(chunk, i, prefix)) return false;
    this.carry = chunk.subarray(i);
    return true;
  }

  /** Skips the rest of the current line: the index after its newline, or -1 when the chunk ends first. */
  private skipLine(chunk: Buffer, i: number): number {
    const nl = chunk.indexOf(10, i);
    if (nl === -1) {
      this.col0 = false;
      return -1;
    }
    this.line++;
    this.col0 = true;
    return nl + 1;
  }

  /** Current 1-based line (the line being read). */
  get currentLine(): number {
    return this.line;
  }

  push(chunk: Buffer, out: ScanItem[] = []): ScanItem[] {
    if (this.carry) {
      // A log marker was cut by the chunk boundary (only between values: nothing is captured then).
      chunk = Buffer.concat([this.carry, chunk]);
      this.carry = undefined;
    }
    const n = chunk.length;
    let i = 0;
    if (this.capOn) this.capStart = 0;
    if (this.strCap) this.strStart = 0;
    while (i < n) {
      const b = chunk[i]!;
      if (this.logBlock) {
        // At a line start: the END marker closes the block; every other line is log text.
        if (this.col0 && this.holdIfCut(chunk, i, LOG_END)) {
          i = n;
          break;
        }
        if (this.col0 && startsWithAt(chunk, i, LOG_END)) {
          this.logBlock.endLine = this.line;
          out.push(this.logBlock);
          this.logBlock = undefined;
          this.resync = true;
          continue;
        }
        // A block that never ends (its END line lost): the next dump List (a lone "{" in column 0)
        // or the next START line closes it, and that is a problem, not silent loss.
        const loneBrace = this.col0 && b === 123 && (i + 1 >= n ? undefined : chunk[i + 1] === 10 || (chunk[i + 1] === 13 && chunk[i + 2] === 10));
        if (this.col0 && b === 123 && loneBrace === undefined) {
          this.carry = chunk.subarray(i);
          i = n;
          break;
        }
        const nextStart = this.col0 && startsWithAt(chunk, i, LOG_START);
        if (loneBrace || nextStart) {
          out.push({ kind: 'problem', line: this.logBlock.line, message: `container log block (${this.logBlock.container}) has no "==== END logs" line; it is taken to end before line ${this.line}` });
          this.logBlock.endLine = this.line - 1;
          out.push(this.logBlock);
          this.logBlock = undefined;
          // A START line is then handled as a new block; a lone brace is re-read as a value's start.
          if (nextStart) this.resync = true;
          continue;
        }
        const next = this.skipLine(chunk, i);
        if (next < 0) {
          i = n;
          break;
        }
        i = next;
        continue;
      }
      if (this.resync) {
        if (this.col0 && this.holdIfCut(chunk, i, LOG_START)) {
          i = n;
          break;
        }
        if (this.col0 && startsWithAt(chunk, i, LOG_START)) {
          this.resync = false;
          this.endText(out);
          continue; // handled below as the start of a log block
        }
        if (this.col0 && (b === 123 || b === 91)) {
          this.resync = false;
          this.endText(out);
          continue; // re-read this byte normally
        }
        const next = this.skipLine(chunk, i);
        if (next < 0) {
          i = n;
          break;
        }
        i = next;
        continue;
      }
      if (this.inStr) {
        // Fast path: find the next quote or backslash or newline.
        if (this.esc) {
          this.esc = false;
          if (b === 10) {
            this.brokenString(out);
            continue;
          }
          i++;
          continue;
        }
        let j = i;
        while (j < n) {
          const c = chunk[j]!;
          if (c === 34 || c === 92 || c === 10) break;
          j++;
        }
        if (j === n) {
          i = n;
          break;
        }
        const c = chunk[j]!;
        if (c === 92) {
          this.esc = true;
          this.strHasEsc = true;
          i = j + 1;
          continue;
        }
        if (c === 10) {
          i = j;
          this.brokenString(out);
          continue;
        }
        // closing quote
        this.inStr = false;
        this.col0 = false;
        if (this.strCap) this.finishStr(chunk, j);
        i = j + 1;
        continue;
      }
      if (b === 10) {
        this.line++;
        this.col0 = true;
        i++;
        continue;
      }
      if (b === 32 || b === 9 || b === 13) {
        this.col0 = false;
        i++;
        continue;
      }
      const atCol0 = this.col0;
      this.col0 = false;
      if (this.depth === 0) {
        if (b === 123 || b === 91) {
          this.startTop(b, i);
          i++;
          continue;
        }
        // BOM at the very start of the input
        if (this.line === 1 && b === 0xef && chunk[i + 1] === 0xbb && chunk[i + 2] === 0xbf) {
          i += 3;
          this.col0 = true;
          continue;
        }
        if (atCol0 && this.holdIfCut(chunk, i, LOG_START)) {
          this.col0 = true;
          i = n;
          break;
        }
        const nl = chunk.indexOf(10, i);
        if (atCol0 && startsWithAt(chunk, i, LOG_START)) {
          const header = chunk.toString('utf8', i + LOG_START.length, nl === -1 ? n : nl);
          this.logBlock = { kind: 'log-block', line: this.line, container: header.replace(/ ====\s*$/, '') };
          this.col0 = true;
          i = nl === -1 ? n : nl; // the newline is counted by the block loop
          this.col0 = false;
          continue;
        }
        const snippet = chunk.toString('utf8', i, Math.min(nl === -1 ? n : nl, i + 60)).replace(/\r$/, '');
        this.text = { line: this.line, message: `not JSON (unexpected text ${JSON.stringify(snippet)})` };
        this.resync = true;
        continue;
      }
      if (atCol0 && b === 123 && !(this.elemDepth !== 0 && this.depth === this.elemDepth && !this.capOn)) {
        // A new value starts in column 0 while the previous one is still open (between the
        // elements of an exploded array, column 0 is a normal element start).
        this.abandon(this.capOn ? this.capLine : this.topLine, TRUNCATED, out);
        this.startTop(b, i);
        i++;
        continue;
      }
      switch (b) {
        case 34: // "
          this.inStr = true;
          this.strHasEsc = false;
          if (this.depth === 1 && this.top === 123) {
            if (this.expectKey) this.beginStr(1, i + 1);
            else if (this.lastKey === 'kind' || this.lastKey === 'apiVersion') this.beginStr(2, i + 1);
          } else if (this.elemDepth !== 0 && this.depth === this.elemDepth && !this.capOn) {
            out.push({ kind: 'problem', line: this.line, message: 'list element is not an object; skipped' });
          }
          break;
        case 123: // {
        case 91: // [
          if (this.depth === 1 && this.top === 123 && !this.expectKey && b === 91 && this.lastKey === 'items') {
            // Explode the list: drop what was captured of the envelope, emit items one by one.
            this.capOn = false;
            this.capParts = [];
            this.capLen = 0;
            this.capTooBig = false;
            this.elemDepth = 2;
          } else if (this.elemDepth !== 0 && this.depth === this.elemDepth && !this.capOn) {
            this.beginCap(i);
          }
          this.depth++;
          break;
        case 125: // }
        case 93: // ]
          this.depth--;
          if (this.elemDepth !== 0 && this.capOn && this.depth === this.elemDepth) {
            this.endCap(chunk, i + 1, true, out);
          } else if (this.elemDepth !== 0 && this.depth === this.elemDepth - 1 && this.depth > 0) {
            this.elemDepth = 0; // the items array closed; the envelope continues
          }
          if (this.depth === 0) {
            if (this.capOn) this.endCap(chunk, i + 1, false, out);
            this.resetTop();
          } else if (this.depth < 0) {
            this.depth = 0;
          }
          break;
        case 58: // :
          if (this.depth === 1 && this.top === 123) this.expectKey = false;
          break;
        case 44: // ,
          if (this.depth === 1 && this.top === 123) {
            this.expectKey = true;
            this.lastKey = '';
          }
          break;
        default:
          if (this.elemDepth !== 0 && this.depth === this.elemDepth && !this.capOn) {
            // a scalar list element (number, true, false, null)
            if ((b >= 48 && b <= 57) || b === 45 || b === 116 || b === 102 || b === 110) {
              out.push({ kind: 'problem', line: this.line, message: 'list element is not an object; skipped' });
              // skip the rest of the scalar
              while (i + 1 < n) {
                const c = chunk[i + 1]!;
                if (c === 44 || c === 93 || c === 32 || c === 10 || c === 13 || c === 9) break;
                i++;
              }
            }
          }
          break;
      }
      i++;
    }
    if (this.capOn && !this.capTooBig) {
      const piece = chunk.subarray(this.capStart, n);
      this.addCap(piece);
    }
    if (this.strCap) this.strParts.push(Buffer.from(chunk.subarray(this.strStart, n)));
    return out;
  }

  /** Call at end of input. */
  end(out: ScanItem[] = []): ScanItem[] {
    // A region still open runs to the last line (a final line without newline is still a line).
    if (this.text) {
      out.push({ kind: 'text', line: this.text.line, endLine: this.col0 ? this.line - 1 : this.line, message: this.text.message });
      this.text = undefined;
    }
    if (this.logBlock) {
      // The dump ends inside a log block (cut short): the block is still skipped, not a problem.
      out.push(this.logBlock);
      this.logBlock = undefined;
    }
    this.carry = undefined;
    if (this.depth > 0 || this.inStr) {
      const line = this.capOn ? this.capLine : this.topLine;
      out.push({
        kind: 'problem',
        line,
        message: 'truncated value at end of input (no closing brace; recording interrupted?)',
      });
    }
    this.resetTop();
    return out;
  }

  /** Closes the text region being skipped: it ends on the line before the current one. */
  private endText(out: ScanItem[]): void {
    if (!this.text) return;
    out.push({ kind: 'text', line: this.text.line, endLine: Math.max(this.text.line, this.line - 1), message: this.text.message });
    this.text = undefined;
  }

  private startTop(b: number, i: number): void {
    this.resetTop();
    this.top = b;
    this.topLine = this.line;
    this.depth = 1;
    if (b === 123) {
      this.expectKey = true;
      this.beginCap(i);
    } else {
      this.elemDepth = 1;
    }
  }

  private resetTop(): void {
    this.depth = 0;
    this.inStr = false;
    this.esc = false;
    this.top = 0;
    this.expectKey = false;
    this.lastKey = '';
    this.strCap = 0;
    this.strParts = [];
    this.listKind = undefined;
    this.listApiVersion = undefined;
    this.elemDepth = 0;
    this.capOn = false;
    this.capParts = [];
    this.capLen = 0;
    this.capTooBig = false;
  }

  private abandon(line: number, message: string, out: ScanItem[]): void {
    out.push({ kind: 'problem', line, message });
    this.resetTop();
  }

  /** A raw newline inside a string: JSON cannot contain one, so the value was cut. */
  private brokenString(out: ScanItem[]): void {
    this.abandon(this.capOn ? this.capLine : this.topLine, TRUNCATED, out);
    // The newline itself is processed by the caller's next iteration, in resync mode.
    this.resync = true;
  }

  private beginStr(mode: number, start: number): void {
    this.strCap = mode;
    this.strParts = [];
    this.strStart = start;
  }

  private finishStr(chunk: Buffer, end: number): void {
    const mode = this.strCap;
    this.strCap = 0;
    let raw: string;
    if (this.strParts.length === 0) raw = chunk.toString('utf8', this.strStart, end);
    else {
      this.strParts.push(chunk.subarray(this.strStart, end));
      raw = Buffer.concat(this.strParts).toString('utf8');
      this.strParts = [];
    }
    if (this.strHasEsc) {
      try {
        raw = JSON.parse(`"${raw}"`) as string;
      } catch {
        /* keep raw */
      }
    }
    if (mode === 1) this.lastKey = raw;
    else if (this.lastKey === 'kind') this.listKind = raw;
    else if (this.lastKey === 'apiVersion') this.listApiVersion = raw;
  }

  private beginCap(i: number): void {
    this.capOn = true;
    this.capParts = [];
    this.capLen = 0;
    this.capStart = i;
    this.capLine = this.line;
    this.capTooBig = false;
  }

  private addCap(piece: Buffer): void {
    if (this.capLen + piece.length > this.maxValueBytes) {
      this.capTooBig = true;
      this.capParts = [];
      this.capLen += piece.length;
      return;
    }
    this.capParts.push(Buffer.from(piece));
    this.capLen += piece.length;
  }

  private endCap(chunk: Buffer, end: number, element: boolean, out: ScanItem[]): void {
    if (!this.capTooBig) {
      const piece = chunk.subarray(this.capStart, end);
      if (this.capLen + piece.length > this.maxValueBytes) this.capTooBig = true;
      else {
        const text =
          this.capParts.length === 0
            ? piece.toString('utf8')
            : Buffer.concat([...this.capParts, piece]).toString('utf8');
        const item: ScanItem = { kind: 'value', line: this.capLine, text };
        if (element) item.fromList = { kind: this.listKind, apiVersion: this.listApiVersion };
        out.push(item);
      }
    }
    if (this.capTooBig) {
      out.push({
        kind: 'problem',
        line: this.capLine,
        message: `value larger than ${this.maxValueBytes} bytes; skipped`,
      });
    }
    this.capOn = false;
    this.capParts = [];
    this.capLen = 0;
    this.capTooBig = false;
  }
}

/** True when `chunk` holds `prefix` at `i` (a marker split across chunks is not recognised: then it is ordinary stray text). */
function startsWithAt(chunk: Buffer, i: number, prefix: Buffer): boolean {
  if (i + prefix.length > chunk.length) return false;
  return chunk.compare(prefix, 0, prefix.length, i, i + prefix.length) === 0;
}

/** True when the chunk ends inside a possible `prefix` starting at `i` (decided with the next chunk). */
function cutAt(chunk: Buffer, i: number, prefix: Buffer): boolean {
  const left = chunk.length - i;
  if (left >= prefix.length || left === 0) return false;
  return chunk.compare(prefix, 0, left, i, chunk.length) === 0;
}
