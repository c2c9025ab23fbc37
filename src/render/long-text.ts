/**
 * Over-long text for the terminal: an unbroken run (no whitespace), or a whole string, longer
 * than any the terminal reports need. The input decides how long a name, an Event message or a log value is — anyone who can
 * create an Event in a namespace can make its message a megabyte of one word — and a terminal
 * report that prints it in full is unreadable and, laid out by a word wrapper, costly. The
 * terminal renderers (through src/render/terminal-safe.ts, their one sanitiser) cut a string
 * longer than MAX_TEXT, and each run longer than MAX_RUN, to its first code points and a mark
 * saying how long it was and where it is whole:
 * `AAAA…[cut: 400,012 characters; -o json has them all]` (a run),
 * `… word…[cut: 1,048,576 characters in all; -o json has them all]` (the string). Tables cut their cells to the column
 * width on top of this (`-o wide` does not, but cuts as here); `-o json|yaml` and the HTML
 * report keep every string whole.
 *
 * MAX_RUN is far above what a real report holds in one word (Kubernetes names are at most 253
 * characters, a file path with its line rarely 200), MAX_TEXT four times the 1,024 characters
 * the apiserver allows an events.k8s.io Event's note (pkg/apis/core/validation/events.go
 * NoteLengthLimit; a core/v1 Event's message has no limit, hence this).
 *
 * Contract: `cutForTerminal(s)` is `s` itself (the same string) when it is at most MAX_TEXT
 * code units and has no run longer than MAX_RUN; whitespace and every shorter run are kept.
 * Cost: one pass over `s` (linear in its length), a new string only when something is cut.
 */

/** The longest run printed whole, in UTF-16 code units (a run is cut at a code point). */
export const MAX_RUN = 512;
/** The longest string printed whole, in UTF-16 code units. */
export const MAX_TEXT = 4096;

/** JavaScript's `\s`: the whitespace a word wrapper breaks at (String.prototype.trim's set). */
function isSpace(c: number): boolean {
  return (
    c === 0x20 || (c >= 0x09 && c <= 0x0d) || c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff
  );
}

/** `s` with every run longer than MAX_RUN cut and marked (see the module comment). */
export function cutLongRuns(s: string): string {
  if (s.length <= MAX_RUN) return s;
  let out: string[] | undefined;
  let copied = 0;
  let start = 0;
  const n = s.length;
  for (let i = 0; i <= n; i++) {
    if (i < n && !isSpace(s.charCodeAt(i))) continue;
    if (i - start > MAX_RUN) {
      // Cut at a code point: not between the two halves of a surrogate pair.
      out ??= [];
      out.push(s.slice(copied, atCodePoint(s, start + MAX_RUN)), cutMark(s, start, i));
      copied = i;
    }
    start = i + 1;
  }
  if (!out) return s;
  out.push(s.slice(copied));
  return out.join('');
}

/**
 * `s` with its runs cut to MAX_RUN, then cut to MAX_TEXT code units (at the last whitespace
 * within MAX_RUN of it, so a word or a mark is not split), each cut marked (module comment).
 */
export function cutForTerminal(s: string): string {
  const runsCut = cutLongRuns(s);
  if (runsCut.length <= MAX_TEXT) return runsCut;
  let end = atCodePoint(runsCut, MAX_TEXT);
  for (let i = end; i > MAX_TEXT - MAX_RUN; i--) {
    if (isSpace(runsCut.charCodeAt(i))) {
      end = i;
      break;
    }
  }
  return runsCut.slice(0, end).trimEnd() + cutMark(s, 0, s.length, ' in all');
}

/** `end`, or one less when it would split a surrogate pair. */
function atCodePoint(s: string, end: number): number {
  const prev = s.charCodeAt(end - 1);
  return prev >= 0xd800 && prev <= 0xdbff ? end - 1 : end;
}

/** The mark after a cut of s[from, to): how many characters (code points) it had. */
function cutMark(s: string, from: number, to: number, what = ''): string {
  let chars = 0;
  for (let j = from; j < to; j++) {
    const c = s.charCodeAt(j);
    if (c < 0xdc00 || c > 0xdfff) chars++;
  }
  return `…[cut: ${chars.toLocaleString('en-US')} characters${what}; -o json has them all]`;
}
