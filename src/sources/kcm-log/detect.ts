/**
 * Is this file a kube-controller-manager log? A cheap look at its first lines, so `replay` and
 * `audit` can take a controller log given among their inputs (any mix of files is sniffed per
 * file) and use it beside them (see src/analysis/controller-log.ts).
 */
import { InputError } from '../source.js';
import { openInputBytes, skipBlankLines } from '../input-stream.js';
import { sniffLogLine } from '../envelope/registry.js';
import { KLOG_RE } from './klog-text.js';

/** Bytes read at most to decide. */
const HEAD_BYTES = 64 * 1024;

/**
 * True when most of the first non-empty lines are klog lines (plain, or in an envelope's loose
 * form: CRI, `--timestamps`) or JSON `ts`/`msg` lines.
 */
export async function looksLikeKcmLog(path: string): Promise<boolean> {
  if (path === '-') return false; // stdin cannot be read twice
  let text = '';
  try {
    const { stream } = await openInputBytes(path);
    const it = stream[Symbol.asyncIterator]();
    const pull = async (): Promise<Buffer | undefined> => {
      const r = await it.next();
      return r.done ? undefined : r.value;
    };
    try {
      // Leading blank lines, any amount, are skipped (counted, not kept) as by every sniffer.
      let chunk = (await skipBlankLines(pull)).rest;
      while (chunk !== undefined) {
        text += chunk.toString('utf8');
        if (text.length >= HEAD_BYTES) break;
        chunk = await pull();
      }
    } finally {
      await it.return?.(undefined);
    }
  } catch (err) {
    if (err instanceof InputError) return false;
    throw err;
  }
  const lines = text.split('\n').slice(0, 50).map((l) => l.trim()).filter(Boolean);
  if (lines.length === 0) return false;
  let klog = 0;
  for (const l of lines) {
    const unwrapped = sniffLogLine(l);
    if (KLOG_RE.test(unwrapped)) klog++;
    else if (unwrapped.startsWith('{') && /"ts":/.test(unwrapped) && /"msg":/.test(unwrapped) && /"v":|"caller":/.test(unwrapped)) klog++;
  }
  return klog * 2 > lines.length;
}
