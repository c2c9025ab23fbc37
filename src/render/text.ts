/** Small text helpers shared by the terminal renderers. */
import { displayLength, truncate } from './columns.js';

/**
 * Word-wraps `text` to `width` columns (the indent included when it fits), each line prefixed
 * with `indent`; a word longer than a line is broken, so no line is ever longer than `width`.
 */
export function wrap(text: string, width: number, indent: string): string {
  const room = Math.max(10, width - displayLength(indent));
  const words = text.split(/\s+/).filter((w) => w !== '');
  const lines: string[] = [];
  let cur = '';
  for (let w of words) {
    while (displayLength(w) > room) {
      if (cur) {
        lines.push(cur);
        cur = '';
      }
      const cps = [...w];
      lines.push(cps.slice(0, room).join(''));
      w = cps.slice(room).join('');
    }
    if (cur && displayLength(cur) + 1 + displayLength(w) > room) {
      lines.push(cur);
      cur = w;
    } else cur = cur ? `${cur} ${w}` : w;
  }
  if (cur) lines.push(cur);
  return lines.map((l) => indent + l).join('\n');
}

/** `text` as one line of at most `width` columns, ending in `…` when cut (or in full when `wide`). */
export function fitLine(text: string, width: number, wide = false): string {
  return wide ? text : truncate(text, width);
}

/** `label` followed by `text` wrapped under it (hanging indent), within `width`. */
export function labelled(label: string, text: string, width: number): string {
  const pad = ' '.repeat(displayLength(label));
  const body = wrap(text, width, pad);
  return label + body.slice(pad.length);
}
