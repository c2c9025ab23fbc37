/**
 * The summary repeated at the end of a report taller than the terminal, so that the verdict,
 * its cause and the next step are on the screen when the command ends (README, "On one
 * screen"): a report runs 40–110 lines, and in an 80×24 pane its first lines, where the
 * verdict is, have scrolled away by then.
 *
 * Contract: `withScreenSummary(text, summary, rows, width)` returns `text` unchanged when it
 * fits the terminal (`rows` lines, one kept for the prompt) or there is no summary; otherwise
 * `text`, a rule naming how long the report above is (`── summary (93 lines above) ──`), and the summary cut to fit what the
 * screen has left (`… N more lines in the report above` when cut). The text is never
 * repeated when stdout is not a terminal (the caller decides): a pipe, a file or a pager reads
 * from the top, where the summary already is.
 *
 * Cost: one pass over the text to count its lines.
 */
import { displayLength, truncate } from './columns.js';

/** Lines kept free below the summary: the shell's prompt. */
const PROMPT_LINES = 1;

export function withScreenSummary(text: string, summary: string[], rows: number | undefined, width: number): string {
  if (!rows || rows <= 0 || summary.length === 0) return text;
  let lines = 0;
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) lines++;
  if (!text.endsWith('\n') && text.length) lines++;
  if (lines + PROMPT_LINES <= rows) return text;
  const room = Math.max(3, rows - PROMPT_LINES - 1);
  const title = ` summary (${lines} lines above) `;
  const side = Math.max(2, Math.floor((width - displayLength(title)) / 2));
  const rule = truncate(`${'─'.repeat(side)}${title}${'─'.repeat(side)}`, width);
  const body = summary.length <= room ? summary : [...summary.slice(0, room - 1), `… ${summary.length - room + 1} more lines in the report above`];
  return `${text}${text.endsWith('\n') ? '' : '\n'}${rule}\n${body.join('\n')}\n`;
}
