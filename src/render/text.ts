/** Small text helpers shared by the terminal renderers. */
import { displayLength, truncate } from './columns.js';

/**
 * Word-wraps `text` to `width` columns (the indent included when it fits), each line prefixed
 * with `indent`; a word longer than a line is broken, so no line is ever longer than `width`.
 * Linear in the length of `text`: each word is measured once and a long one is broken in one
 * pass over its code points (breaking it by re-slicing the rest was quadratic in its length).
 */
export function wrap(text: string, width: number, indent: string): string {
  const room = Math.max(10, width - displayLength(indent));
  const lines: string[] = [];
  let cur = '';
  let curLen = 0;
  for (let w of text.split(/\s+/)) {
    if (w === '') continue;
    let wLen = displayLength(w);
    if (wLen > room) {
      if (cur) {
        lines.push(cur);
        cur = '';
        curLen = 0;
      }
      const cps = [...w];
      let i = 0;
      for (; cps.length - i > room; i += room) lines.push(cps.slice(i, i + room).join(''));
      w = cps.slice(i).join('');
      wLen = cps.length - i;
    }
    if (cur && curLen + 1 + wLen > room) {
      lines.push(cur);
      cur = w;
      curLen = wLen;
    } else if (cur) {
      cur = `${cur} ${w}`;
      curLen += 1 + wLen;
    } else {
      cur = w;
      curLen = wLen;
    }
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
