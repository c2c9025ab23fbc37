/**
 * Physical lines → log records: opens envelopes (src/sources/envelope: CRI, docker json-file,
 * --timestamps), joins CRI `P` / docker partial pieces, and attaches continuation lines to the
 * record they belong to:
 * - klog's own: a TAB-indented line, or the ` >` that closes a multi-line value;
 * - a line that is no record start and carries the same envelope timestamp as the record being
 *   assembled: klog writes a record, however many lines its message has, in one write, so the
 *   container runtime stamps every line of it alike (an AWS SDK dump `} {` / `}]` inside a
 *   cloud-provider message). Two records may share a stamp too (one read of the pipe), so only
 *   lines that cannot start a record are joined this way.
 *
 * Lines before the first record that are no record (a container's shell preamble: `+ exec
 * hyperkube …`, `Copying system trust bundle`) are marked `preamble`: the source skips them with
 * one note instead of a problem each. After the first record, such a line is junk as before.
 * Cost: O(1) per line; a record's text grows with its continuation lines.
 */
import { KLOG_HEADER_RE } from './klog-text.js';
import { type LogEnvelopeName, unwrapLogLine } from '../envelope/registry.js';

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
  wrapper?: LogEnvelopeName;
  wrapperAt?: number;
}

/**
 * A non-empty line that is neither a record nor a continuation. `junk`: a description of it when
 * it is not output a KCM process writes besides its records; `preamble`: it comes before the
 * file's first record.
 */
export interface UnrecognisedLine {
  type: 'unrecognised';
  line: number;
  junk?: string;
  preamble?: true;
}

export type RecordItem =
  | { type: 'record'; record: RawRecord }
  | { type: 'problem'; line: number; message: string }
  /**
   * A non-empty line that is neither a record nor a continuation (counted). Output that a
   * kube-controller-manager process writes besides klog records — a Go panic and its stack,
   * pflag/cobra messages, indented text — is quiet; anything else is `junk` (a description of
   * it) and reported as a problem.
   */
  | UnrecognisedLine
  | { type: 'blank'; line: number }
  | { type: 'continuation'; line: number };

function isContinuation(inner: string): boolean {
  return inner.charCodeAt(0) === 9 /* TAB */ || inner === ' >' || inner.startsWith(' >');
}

/** Output of a Go panic: never part of a klog record, whatever its stamp. */
function startsPanic(inner: string): boolean {
  return inner.startsWith('panic: ') || inner.startsWith('fatal error: ') || /^goroutine \d+/.test(inner);
}

/**
 * A line that is a continuation of the pending text record by its envelope stamp: the same
 * stamp, not a klog header, not a JSON log record (`{"ts":…,"msg":…}` — a line of a Go `%+v`
 * dump may start with `{` too), not a panic.
 */
function sameWriteContinuation(inner: string, pending: RawRecord, wrapperAt: number | undefined): boolean {
  if (wrapperAt === undefined || pending.wrapperAt !== wrapperAt) return false;
  if (KLOG_HEADER_RE.test(inner) || startsPanic(inner)) return false;
  if (inner.charCodeAt(0) === 0x7b /* { */ && jsonLogRecord(inner)) return false;
  return true;
}

/** A line that parses as a JSON log record (an object with `ts` and `msg`). */
function jsonLogRecord(inner: string): boolean {
  try {
    const v: unknown = JSON.parse(inner);
    return typeof v === 'object' && v !== null && !Array.isArray(v) && 'ts' in v && 'msg' in v;
  } catch {
    return false;
  }
}

/**
 * Non-klog output of a Go process that may sit in a KCM log and is not damage: a panic
 * (`panic: …`, `goroutine 7 [running]:`, stack frames `pkg.Func(…)`, `created by …`,
 * `[signal SIGSEGV …]`, `exit status 2`), pflag/cobra messages, Go `log` package lines,
 * indented text (usage output), and the "==== START/END logs for container … ====" lines that
 * frame each container's log in a `kubectl cluster-info dump` (logs.txt).
 */
const PROCESS_OUTPUT_RE =
  /^(?:(?:panic|fatal error|runtime|Error|Usage|Flags|Global Flags): |panic: |goroutine \d+|created by |\[signal |exit status \d+|\.\.\.additional frames elided\.\.\.|Flag --|[^\s(]+\(.*\)(?: \+0x[0-9a-f]+)?$|\d{4}\/\d\d\/\d\d \d\d:\d\d:\d\d |[ ]|[A-Z][\w ]*:$|==== (?:START|END) logs for container )/;

/** A short printable description of a line that is not a log record (never raw control bytes). */
export function describeJunk(text: string): string {
  let bad = 0;
  const head = text.slice(0, 60);
  for (let i = 0; i < head.length; i++) {
    const c = head.charCodeAt(i);
    if (c === 0 || c === 0xfffd || (c < 32 && c !== 9) || c === 127) bad++;
  }
  if (bad * 10 > head.length) return `binary data, ${Buffer.byteLength(text)} bytes`;
  return JSON.stringify(head.length < text.length ? `${head}…` : head);
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
  /** Inside the output of a Go panic (everything up to the next klog record is quiet). */
  private inPanic = false;
  /** A record has been seen: lines that are no record are junk from now on, not a preamble. */
  private seenRecord = false;
  private partial: { text: string; line: number; wrapper?: LogEnvelopeName; wrapperAt?: number } | undefined;

  push(l: PhysicalLine, out: RecordItem[]): void {
    if (l.truncatedFinal && l.tooLongBytes === undefined && l.text.trim() !== '' && !completeJson(l.text)) {
      // klog ends every record with a newline: a last line without one was cut off (a writer
      // interrupted, a copy of a file being written). Its record is still read, as far as it goes.
      out.push({ type: 'problem', line: l.line, message: 'truncated last line (no newline at the end of the file; the record may be cut short)' });
    }
    if (l.tooLongBytes !== undefined) {
      out.push({ type: 'problem', line: l.line, message: `line of ${l.tooLongBytes} bytes is too long; skipped` });
      return;
    }
    const u = unwrapLogLine(l.text);
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
      const p: { text: string; line: number; wrapper?: LogEnvelopeName; wrapperAt?: number } = { text: inner, line: l.line };
      if (wrapper) p.wrapper = wrapper;
      if (wrapperAt !== undefined) p.wrapperAt = wrapperAt;
      this.partial = p;
      return;
    }
    const pending = this.pending;
    if (pending && this.pendingIsText && (isContinuation(inner) || sameWriteContinuation(inner, pending, wrapperAt))) {
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
      this.seenRecord = true;
      const r: RawRecord = { text: inner, line: first };
      if (wrapper) r.wrapper = wrapper;
      if (wrapperAt !== undefined) r.wrapperAt = wrapperAt;
      this.pending = r;
      this.pendingIsText = inner.charCodeAt(0) !== 0x7b;
      this.inPanic = false;
      return;
    }
    if (startsPanic(inner)) this.inPanic = true;
    const item: UnrecognisedLine = { type: 'unrecognised', line: first };
    if (!this.inPanic && !PROCESS_OUTPUT_RE.test(inner)) item.junk = describeJunk(inner);
    if (!this.seenRecord) item.preamble = true;
    out.push(item);
  }

  /** The input broke off (damaged gzip): the record being assembled is dropped, not emitted. */
  abandon(): void {
    this.pending = undefined;
    this.partial = undefined;
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

/** A JSON line that parses completely (a last line without newline that is nevertheless whole). */
function completeJson(text: string): boolean {
  const t = text.trim();
  if (!t.startsWith('{') || !t.endsWith('}')) return false;
  try {
    JSON.parse(t);
    return true;
  } catch {
    return false;
  }
}
