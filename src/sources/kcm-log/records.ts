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

/**
 * Synchronous record assembler: feed physical lines in order with `push`, then call `end`.
 * Items are appended to the array passed in (no promise per line on the hot path).
 */
export class RecordAssembler {
  private pending: RawRecord | undefined;
  private pendingIsText = false;
  private partial: { text: string; line: number; wrapper?: WrapperKind; wrapperAt?: number } | undefined;

  push(l: PhysicalLine, out: RecordItem[]): void {
    if (l.tooLongBytes !== undefined) {
      out.push({ type: 'problem', line: l.line, message: `line of ${l.tooLongBytes} bytes is too long; skipped` });
      return;
    }
    const u = unwrapLine(l.text);
    if (u.error) {
      out.push({ type: 'problem', line: l.line, message: u.error });
      return;
    }
    let inner = u.inner;
    let first = l.line;
    let wrapper = u.wrapper;
    let wrapperAt = u.wrapperAt;
    const partial = this.partial;
    if (partial) {
      partial.text += inner;
      if (u.partial) return;
      inner = partial.text;
      first = partial.line;
      wrapper = partial.wrapper;
      wrapperAt = partial.wrapperAt;
      this.partial = undefined;
    } else if (u.partial) {
      const p: { text: string; line: number; wrapper?: WrapperKind; wrapperAt?: number } = { text: inner, line: l.line };
      if (wrapper) p.wrapper = wrapper;
      if (wrapperAt !== undefined) p.wrapperAt = wrapperAt;
      this.partial = p;
      return;
    }
    const pending = this.pending;
    if (pending && this.pendingIsText && isContinuation(inner)) {
      pending.text += `\n${inner}`;
      out.push({ type: 'continuation', line: first });
      return;
    }
    if (pending) {
      out.push({ type: 'record', record: pending });
      this.pending = undefined;
    }
    if (inner.trim() === '') {
      out.push({ type: 'blank', line: first });
      return;
    }
    if (looksLikeRecordStart(inner)) {
      const r: RawRecord = { text: inner, line: first };
      if (wrapper) r.wrapper = wrapper;
      if (wrapperAt !== undefined) r.wrapperAt = wrapperAt;
      this.pending = r;
      this.pendingIsText = inner.charCodeAt(0) !== 0x7b;
      return;
    }
    out.push({ type: 'unrecognised', line: first });
  }

  end(out: RecordItem[]): void {
    if (this.pending) out.push({ type: 'record', record: this.pending });
    this.pending = undefined;
    const partial = this.partial;
    this.partial = undefined;
    if (partial) {
      out.push({ type: 'problem', line: partial.line, message: 'the input ends inside a partial (CRI "P" / docker) line' });
      // Still use what was written: a record cut short is better than none.
      if (looksLikeRecordStart(partial.text)) {
        const r: RawRecord = { text: partial.text, line: partial.line };
        if (partial.wrapper) r.wrapper = partial.wrapper;
        if (partial.wrapperAt !== undefined) r.wrapperAt = partial.wrapperAt;
        out.push({ type: 'record', record: r });
      }
    }
  }
}
