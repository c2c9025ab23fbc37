/**
 * Physical lines → log records: strips wrappers (CRI, docker json-file, --timestamps),
 * joins CRI `P` / docker partial pieces, and attaches klog continuation lines (a TAB-indented
 * line, or the ` >` that closes a multi-line value) to the record they belong to.
 */
import { KLOG_HEADER_RE } from './klog-text.js';
import { type WrapperKind, unwrapLine } from './parse-line.js';

export interface PhysicalLine {
  line: number;
  text: string;
  tooLongBytes?: number;
  truncatedFinal?: boolean;
}

export interface RawRecord {
  /** Unwrapped record text; continuation lines joined with `\n`. */
  text: string;
  /** 1-based first physical line. */
  line: number;
  wrapper?: WrapperKind;
  wrapperAt?: number;
}

export type RecordItem =
  | { type: 'record'; record: RawRecord }
  | { type: 'problem'; line: number; message: string }
  /** A non-empty line that is neither a record nor a continuation (counted, never reported). */
  | { type: 'unrecognised'; line: number }
  | { type: 'blank'; line: number }
  | { type: 'continuation'; line: number };

function isContinuation(inner: string): boolean {
  return inner.charCodeAt(0) === 9 /* TAB */ || inner === ' >' || inner.startsWith(' >');
}

/** True when `inner` can start a record (klog header or a JSON object). */
export function looksLikeRecordStart(inner: string): boolean {
  return inner.charCodeAt(0) === 0x7b || KLOG_HEADER_RE.test(inner);
}

export async function* assembleRecords(lines: AsyncIterable<PhysicalLine>): AsyncGenerator<RecordItem> {
  let pending: RawRecord | undefined;
  let pendingIsText = false;
  let partial: { text: string; line: number; wrapper?: WrapperKind; wrapperAt?: number } | undefined;

  for await (const l of lines) {
    if (l.tooLongBytes !== undefined) {
      yield { type: 'problem', line: l.line, message: `line of ${l.tooLongBytes} bytes is too long; skipped` };
      continue;
    }
    const u = unwrapLine(l.text);
    if (u.error) {
      yield { type: 'problem', line: l.line, message: u.error };
      continue;
    }
    let inner = u.inner;
    let first = l.line;
    let wrapper = u.wrapper;
    let wrapperAt = u.wrapperAt;
    if (partial) {
      partial.text += inner;
      if (u.partial) continue;
      inner = partial.text;
      first = partial.line;
      wrapper = partial.wrapper;
      wrapperAt = partial.wrapperAt;
      partial = undefined;
    } else if (u.partial) {
      partial = { text: inner, line: l.line };
      if (wrapper) partial.wrapper = wrapper;
      if (wrapperAt !== undefined) partial.wrapperAt = wrapperAt;
      continue;
    }
    if (pending && pendingIsText && isContinuation(inner)) {
      pending.text += `\n${inner}`;
      yield { type: 'continuation', line: first };
      continue;
    }
    if (pending) {
      yield { type: 'record', record: pending };
      pending = undefined;
    }
    if (inner.trim() === '') {
      yield { type: 'blank', line: first };
      continue;
    }
    if (looksLikeRecordStart(inner)) {
      pending = { text: inner, line: first };
      if (wrapper) pending.wrapper = wrapper;
      if (wrapperAt !== undefined) pending.wrapperAt = wrapperAt;
      pendingIsText = inner.charCodeAt(0) !== 0x7b;
      continue;
    }
    yield { type: 'unrecognised', line: first };
  }
  if (pending) yield { type: 'record', record: pending };
  if (partial) {
    yield { type: 'problem', line: partial.line, message: 'the input ends inside a partial (CRI "P" / docker) line' };
    // Still use what was written: a record cut short is better than none.
    if (looksLikeRecordStart(partial.text)) {
      const r: RawRecord = { text: partial.text, line: partial.line };
      if (partial.wrapper) r.wrapper = partial.wrapper;
      if (partial.wrapperAt !== undefined) r.wrapperAt = partial.wrapperAt;
      yield { type: 'record', record: r };
    }
  }
}
