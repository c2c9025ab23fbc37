/**
 * The one sanitiser for text bound for a terminal (stdout tables, stderr lines).
 *
 * Anything that came from the input or a server — names, Event messages, kcm-log keys, API
 * error messages — may carry control characters: ESC sequences that recolour, clear or retitle
 * the terminal, OSC 8 hyperlinks, C1 controls (U+0080–U+009F, which some terminals execute like
 * ESC), DEL, and bidirectional overrides that make a line read differently from its bytes.
 * They are shown as visible escapes (`\x1b`, `\u202e`) rather than deleted, so nothing the
 * input held is silently lost and the operator can see that it was there. JSON and HTML keep
 * their own escaping and do not go through here.
 *
 * Own code rather than strip-ansi: that library deletes only well-formed ANSI sequences; a
 * lone ESC, C1 controls and bidi overrides pass it, and deletion hides the evidence.
 */

// C0 except TAB and LF, DEL, C1, and the Unicode bidi marks, embeddings, overrides and isolates.
const CONTROLS = '\\u0000-\\u0008\\u000b-\\u001f\\u007f-\\u009f\\u200e\\u200f\\u202a-\\u202e\\u2066-\\u2069';
const UNSAFE = new RegExp(`[${CONTROLS}]`, 'g');
const HAS_UNSAFE = new RegExp(`[${CONTROLS}]`);
// As one line: TAB and LF too.
const UNSAFE_LINE = new RegExp(`[${CONTROLS}\\t\\n]`, 'g');

function escape(c: string): string {
  const code = c.charCodeAt(0);
  if (code === 0x0a) return '\\n';
  if (code === 0x09) return '\\t';
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/** `s` with every terminal control character made visible; newlines and tabs are kept. */
export function terminalSafe(s: string): string {
  return s.replace(UNSAFE, escape);
}

/** `s` as one terminal line: newlines and tabs are made visible too. */
export function terminalSafeLine(s: string): string {
  return s.replace(UNSAFE_LINE, escape);
}

/**
 * A copy of `value` (plain data: a report, a result) with every string made safe (newlines
 * kept: renderers lay them out, and a newline cannot steer the terminal).
 * Renderers call it on their input, so the strings they lay out can never steer the terminal;
 * their own colour codes are added afterwards.
 */
export function terminalSafeDeep<T>(value: T): T {
  return walk(value) as T;
}

function walk(v: unknown): unknown {
  if (typeof v === 'string') return HAS_UNSAFE.test(v) ? terminalSafe(v) : v;
  if (Array.isArray(v)) return v.map(walk);
  if (v && typeof v === 'object') {
    if (v instanceof Map) return new Map([...v].map(([k, x]) => [walk(k), walk(x)]));
    if (v instanceof Set) return new Set([...v].map(walk));
    if (v instanceof Date) return v;
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[k] = walk(x);
    return out;
  }
  return v;
}
