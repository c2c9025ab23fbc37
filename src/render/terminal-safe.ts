/**
 * The one sanitiser for text bound for a terminal (stdout tables, stderr lines).
 *
 * Anything that came from the input or a server — names, Event messages, kcm-log keys, API
 * error messages — may carry control characters: ESC sequences that recolour, clear or retitle
 * the terminal, OSC 8 hyperlinks, C1 controls (U+0080–U+009F, which some terminals execute like
 * ESC), DEL, bidirectional overrides that make a line read differently from its bytes, and
 * invisible format characters (zero-width space, joiners, the word joiner, the Arabic letter mark,
 * the byte-order mark, Unicode tag characters) that make two different names look the same or
 * hide text in plain sight; U+2028/U+2029 break a line where no newline is.
 * They are shown as visible escapes (`\x1b`, `\u202e`) rather than deleted, so nothing the
 * input held is silently lost and the operator can see that it was there. JSON and HTML keep
 * their own escaping and do not go through here.
 *
 * A string longer than MAX_TEXT, and every run of non-whitespace longer than MAX_RUN, is cut
 * with a mark first (src/render/long-text.ts):
 * the input decides how long a string is, and the terminal report stays readable and linear to
 * lay out whatever it holds.
 *
 * Own code rather than strip-ansi: that library deletes only well-formed ANSI sequences; a
 * lone ESC, C1 controls and bidi overrides pass it, and deletion hides the evidence.
 */
import { cutForTerminal, MAX_RUN } from './long-text.js';

/**
 * Invisible and direction-changing format characters, as a character-class body (with the `u`
 * flag): the Arabic letter mark, zero-width space/non-joiner/joiner, the LRM/RLM marks, the bidi
 * embeddings and overrides, U+2028/U+2029, the word joiner and invisible operators, the isolates,
 * the byte-order mark (zero-width no-break space), the tag characters. The HTML renderer shows
 * the same set visibly (render/html.ts escapeHtml).
 */
export const FORMAT_CONTROLS = '\\u061c\\u200b-\\u200f\\u2028-\\u202e\\u2060-\\u2064\\u2066-\\u2069\\ufeff\\u{e0000}-\\u{e007f}';
/** Any one of FORMAT_CONTROLS (global: for `replace`). */
export const FORMAT_CONTROL = new RegExp(`[${FORMAT_CONTROLS}]`, 'gu');
// C0 except TAB and LF, DEL, C1, and the format characters above.
const CONTROLS = `\\u0000-\\u0008\\u000b-\\u001f\\u007f-\\u009f${FORMAT_CONTROLS}`;
const UNSAFE = new RegExp(`[${CONTROLS}]`, 'gu');
const HAS_UNSAFE = new RegExp(`[${CONTROLS}]`, 'u');
// As one line: TAB and LF too.
const UNSAFE_LINE = new RegExp(`[${CONTROLS}\\t\\n]`, 'gu');

/** A character as its visible escape: `\x1b`, `\u202e`, `\u{e0041}`. */
export function escapeControl(c: string): string {
  const code = c.codePointAt(0)!;
  if (code === 0x0a) return '\\n';
  if (code === 0x09) return '\\t';
  if (code > 0xffff) return `\\u{${code.toString(16)}}`;
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}
const escape = escapeControl;

/** `s` with every terminal control character made visible; newlines and tabs are kept. */
export function terminalSafe(s: string): string {
  return cutForTerminal(s).replace(UNSAFE, escape);
}

/** `s` as one terminal line: newlines and tabs are made visible too. */
export function terminalSafeLine(s: string): string {
  return cutForTerminal(s).replace(UNSAFE_LINE, escape);
}

/**
 * `value` (plain data: a report, a result) with every string made safe (newlines kept: renderers
 * lay them out, and a newline cannot steer the terminal).
 * Renderers call it on their input, so the strings they lay out can never steer the terminal;
 * their own colour codes are added afterwards. Copy on write: an array or object none of whose
 * strings needed a change is returned as it is (renderers only read it), so a report with
 * thousands of adoption rows is not copied row by row on every rendering.
 */
export function terminalSafeDeep<T>(value: T): T {
  return walk(value) as T;
}

function walk(v: unknown): unknown {
  if (typeof v === 'string') return v.length > MAX_RUN || HAS_UNSAFE.test(v) ? terminalSafe(v) : v;
  if (Array.isArray(v)) {
    let out: unknown[] | undefined;
    for (let i = 0; i < v.length; i++) {
      const x = walk(v[i]);
      if (x !== v[i] && !out) out = v.slice(0, i);
      if (out) out.push(x);
    }
    return out ?? v;
  }
  if (v && typeof v === 'object') {
    if (v instanceof Map) return new Map([...v].map(([k, x]) => [walk(k), walk(x)]));
    if (v instanceof Set) return new Set([...v].map(walk));
    if (v instanceof Date) return v;
    const entries = Object.entries(v);
    let out: Record<string, unknown> | undefined;
    for (let i = 0; i < entries.length; i++) {
      const [k, x] = entries[i]!;
      const y = walk(x);
      if (y !== x && !out) {
        out = {};
        for (let j = 0; j < i; j++) out[entries[j]![0]] = entries[j]![1];
      }
      if (out) out[k] = y;
    }
    return out ?? v;
  }
  return v;
}
