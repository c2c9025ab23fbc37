/**
 * `openWatchSource`: reads one watch dump — a kexp recording, raw watch events, `kubectl get
 * -w` JSON or YAML output, or a list snapshot — from a file or stdin (plain or gzip) and
 * streams it as TimelineEvents in file order with constant memory per event.
 *
 * The three framings:
 * - lines  (kexp-recording, watch-events): LineSplitter + JSON.parse per line;
 * - values (kubectl-watch-json, list, pretty-printed watch events): JsonValueScanner;
 * - yaml   (`kubectl get -w -o yaml`, with or without `--output-watch-events`): documents cut
 *   at `---`/`...` lines, each parsed with the `yaml` package.
 *
 * Bad lines are FILE:LINE problems and reading continues; inputs that cannot be read at all
 * (missing, empty, unrecognised, newer recording version) are InputErrors thrown here, before
 * any event is produced.
 */
import { LineCounter, parseDocument, isMap, isSeq } from 'yaml';
import type { TimeBasis, TimelineEvent } from '../../timeline/event.js';
import { InputTooLargeError } from '../memory-bound.js';
import { blankLineChunks, openInputBytes, LineSplitter, DEFAULT_MAX_LINE_BYTES, skipBlankLines, type SplitLine } from '../input-stream.js';
import { InputError, type Diagnostics, type FileCoverage, type OpenedSource } from '../source.js';
import { JsonValueScanner, type ScanItem } from './json-values.js';
import { isRecord } from '../../model/objects.js';
import { WatchNormalizer, type ListContext } from './normalize.js';
import {
  checkRecordingHeader,
  classifyRecordingLine,
  kindOfSrc,
  parseRfc3339,
  type RecordingEndLine,
  type RecordingHeader,
} from './recording-format.js';
import {
  framingForForced,
  SNIFF_MAX_BYTES,
  sniffPrefix,
  WATCH_FORMATS,
  type Framing,
  type SniffResult,
  type WatchFormat,
} from './sniff.js';
import { PastedDumpLines, type PastedKind } from './pasted-dump.js';

export interface WatchSourceOptions {
  /** Force a format (one of WATCH_FORMATS) instead of sniffing. */
  format?: string;
  diagnostics: Diagnostics;
  /** Stream read for the path `-` (default process.stdin). */
  stdin?: NodeJS.ReadableStream;
  /** The file is one state (a directory's List or object file), not a stream: no note about inferred watch types. */
  snapshot?: boolean;
}

/**
 * An opened watch dump. `batches` carries the same events as `events`, one array per chunk of
 * input, for a consumer that handles them synchronously (the replay, src/pipeline/replay-stream.ts):
 * iterate one of the two, never both.
 */
export interface WatchSource extends OpenedSource {
  batches: AsyncIterableIterator<TimelineEvent[]>;
}

/** Coverage of a watch dump; `endReason` is set when a recording has an end line. */
export interface WatchFileCoverage extends FileCoverage {
  endReason?: RecordingEndLine['end'];
  /** The line of the recording's end line. */
  endLine?: number;
}

const TRUNCATED_LINE = 'truncated line (no closing brace; recording interrupted?)';
const MAX_YAML_DOC_BYTES = 64 * 1024 * 1024;

function shorten(s: string, n = 160): string {
  return s.length > n ? `${s.slice(0, n)}…` : s;
}

function bareMessage(e: InputError): string {
  const prefix = e.line > 0 ? `${e.file}:${e.line}: ` : `${e.file}: `;
  return e.message.startsWith(prefix) ? e.message.slice(prefix.length) : e.message;
}

/** True when a JSON-looking line ends inside an object/array or a string (it was cut). */
function looksTruncated(text: string): boolean {
  const t = text.trimStart();
  if (!t.startsWith('{') && !t.startsWith('[')) return false;
  let depth = 0;
  let inStr = false;
  let esc = false;
  for (let i = 0; i < t.length; i++) {
    const c = t.charCodeAt(i);
    if (inStr) {
      if (esc) esc = false;
      else if (c === 92) esc = true;
      else if (c === 34) inStr = false;
    } else if (c === 34) inStr = true;
    else if (c === 123 || c === 91) depth++;
    else if (c === 125 || c === 93) depth--;
  }
  return inStr || depth > 0;
}

const BAD = Symbol('bad');

function parseJsonLine(norm: WatchNormalizer, l: SplitLine, maxLine: number): unknown {
  if (l.tooLongBytes !== undefined) {
    norm.problem(l.line, `line of ${l.tooLongBytes} bytes exceeds the ${maxLine}-byte limit; skipped`);
    return BAD;
  }
  try {
    return JSON.parse(l.text);
  } catch (err) {
    if (l.truncatedFinal || looksTruncated(l.text)) norm.problem(l.line, TRUNCATED_LINE);
    else norm.problem(l.line, `not JSON (${shorten((err as Error).message)})`);
    return BAD;
  }
}

interface RecordingState {
  header?: RecordingHeader;
  /** The header line was read at open time; the reader skips the first non-blank line. */
  headerPending: boolean;
  startedAt?: number;
  endAt?: number;
  end?: RecordingEndLine['end'];
  endLine?: number;
  afterEndReported: boolean;
}

/** Position for problems raised by the byte stream itself (gzip damage). */
interface ReadPos {
  line: number;
}

/**
 * The events a chunk produced, as one batch: the readers hand the pipeline one array per chunk of
 * input instead of one promise per event (the replay merges and orders batches synchronously,
 * src/pipeline/replay-stream.ts). A copy, because the normaliser may still append to `out`.
 */
function takeBatch(out: TimelineEvent[]): TimelineEvent[] {
  const batch = out.slice();
  out.length = 0;
  return batch;
}

async function* readLines(
  chunks: AsyncIterable<Buffer>,
  norm: WatchNormalizer,
  rec: RecordingState | undefined,
  pos: ReadPos,
): AsyncGenerator<TimelineEvent[]> {
  const splitter = new LineSplitter({ maxLineBytes: DEFAULT_MAX_LINE_BYTES });
  const lines: SplitLine[] = [];
  const out: TimelineEvent[] = [];
  const handle = (l: SplitLine): void => {
    if (l.tooLongBytes === undefined && l.text.trim() === '') return;
    const v = parseJsonLine(norm, l, DEFAULT_MAX_LINE_BYTES);
    if (v === BAD) return;
    if (!rec) {
      norm.value(out, l.line, v);
      return;
    }
    if (rec.headerPending) {
      // First non-blank line: the header, already read and validated by openWatchSource.
      rec.headerPending = false;
      if (rec.startedAt !== undefined) norm.markTime(rec.startedAt, l.line);
      return;
    }
    const c = classifyRecordingLine(v);
    if (rec.end && c.kind !== 'header' && !rec.afterEndReported) {
      rec.afterEndReported = true;
      norm.problem(l.line, 'line after the recording\'s end line (kept; recordings concatenated without their headers?)');
      rec.end = undefined;
      rec.endAt = undefined;
    }
    switch (c.kind) {
      case 'header':
        rec.end = undefined;
        rec.endAt = undefined;
        norm.gap(out, l.line, 'file-boundary', 'another recording header (recordings concatenated?)', undefined, parseRfc3339(c.header.startedAt));
        return;
      case 'event':
        norm.wire(out, l.line, c.line.event as unknown as Record<string, unknown>, c.recvAt, c.line.src, c.line.synthetic === 'initial-list' || c.line.synthetic === 'relist' ? c.line.synthetic : undefined);
        return;
      case 'gap': {
        const k = kindOfSrc(c.line.src);
        norm.gap(out, l.line, c.line.gap.reason, c.line.gap.detail, k ? [k] : undefined, c.recvAt);
        return;
      }
      case 'end': {
        const t = c.recvAt;
        rec.end = c.line.end;
        rec.endAt = t;
        rec.endLine = l.line;
        norm.markTime(t, l.line);
        const unwatched = Array.isArray(c.line.end.unwatched) ? c.line.end.unwatched.filter((u) => isRecord(u) && typeof u.resource === 'string') : [];
        if (unwatched.length > 0) {
          const since = unwatched.map((u) => (typeof u.since === 'string' ? u.since : '')).filter(Boolean).sort()[0];
          const last = unwatched[unwatched.length - 1]!.detail;
          norm.note(
            `${norm.file}:${l.line}: the recorder's watch of ${unwatched.map((u) => u.resource).join(', ')} never worked (${since ? `from ${since}` : 'from its start'}${typeof last === 'string' ? `; last answer: ${last.slice(0, 200)}` : ''}): ` +
              'only the initial list is recorded, so what happened after it is unknown',
          );
        }
        if (c.line.end.reason === 'error') {
          norm.note(`${norm.file}:${l.line}: recording ended with an error${c.line.end.detail ? `: ${c.line.end.detail}` : ''}`);
        }
        return;
      }
      case 'invalid':
        norm.problem(l.line, c.message);
        return;
    }
  };
  const safeHandle = (l: SplitLine): void => {
    try {
      handle(l);
    } catch (err) {
      norm.problem(l.line, `could not read this line: ${(err as Error).message}`);
    }
  };
  for await (const chunk of chunks) {
    lines.length = 0;
    splitter.push(chunk, lines);
    for (const l of lines) safeHandle(l);
    pos.line = splitter.linesSeen + 1;
    if (out.length > 0) yield takeBatch(out);
  }
  lines.length = 0;
  splitter.end(lines);
  for (const l of lines) safeHandle(l);
  if (out.length > 0) yield takeBatch(out);
}

/**
 * `kcmBlockRead`: the replay pipeline reads this file's kube-controller-manager log block as a
 * controller log (src/pipeline/controller-log-files.ts, src/sources/dump-log-blocks.ts) — a
 * named file whose format was sniffed, not forced; otherwise the note says how to read it.
 */
async function* readValues(chunks: AsyncIterable<Buffer>, norm: WatchNormalizer, pos: ReadPos, kcmBlockRead: boolean): AsyncGenerator<TimelineEvent[]> {
  const sc = new JsonValueScanner();
  const items: ScanItem[] = [];
  const out: TimelineEvent[] = [];
  const logBlocks: Array<{ line: number; endLine?: number; container: string }> = [];
  // A file that starts with text (markdown notes, a console capture with its prompt and command)
  // wraps the JSON: all its text regions are surrounding text, counted and summarised in one
  // note. A file that starts with JSON is a stream, and text inside it (a kubectl warning, an
  // `error:` line) is damage: one problem per region.
  let sawValue = false;
  let surrounding: { regions: number; lines: number; ranges: string[] } | undefined;
  const handle = (it: ScanItem): void => {
    if (it.kind === 'problem') {
      norm.problem(it.line, it.message);
      return;
    }
    if (it.kind === 'text') {
      if (!sawValue && !surrounding) surrounding = { regions: 0, lines: 0, ranges: [] };
      if (!surrounding) {
        norm.problem(it.line, it.message);
        return;
      }
      surrounding.regions++;
      surrounding.lines += it.endLine - it.line + 1;
      if (surrounding.ranges.length < 5) surrounding.ranges.push(it.line === it.endLine ? `${it.line}` : `${it.line}–${it.endLine}`);
      return;
    }
    sawValue = true;
    if (it.kind === 'log-block') {
      logBlocks.push(it);
      return;
    }
    let v: unknown;
    try {
      v = JSON.parse(it.text);
    } catch (err) {
      norm.problem(it.line, `not JSON (${shorten((err as Error).message)})`);
      return;
    }
    try {
      norm.value(out, it.line, v, it.fromList as ListContext | undefined);
    } catch (err) {
      norm.problem(it.line, `could not read this value: ${(err as Error).message}`);
    }
  };
  for await (const chunk of chunks) {
    items.length = 0;
    sc.push(chunk, items);
    for (const it of items) handle(it);
    pos.line = sc.currentLine;
    if (out.length > 0) yield takeBatch(out);
  }
  items.length = 0;
  sc.end(items);
  for (const it of items) handle(it);
  if (surrounding) {
    norm.note(
      `${norm.file}: skipped ${surrounding.lines} line${surrounding.lines === 1 ? '' : 's'} of text around the JSON (markdown, console output) in ${surrounding.regions} region${surrounding.regions === 1 ? '' : 's'}: lines ${surrounding.ranges.join(', ')}${surrounding.regions > surrounding.ranges.length ? ', …' : ''}`,
    );
  }
  if (logBlocks.length) {
    const kcm = logBlocks.filter((b) => /kube-controller-manager/.test(b.container));
    norm.note(
      `${norm.file}: skipped ${logBlocks.length} container log block${logBlocks.length === 1 ? '' : 's'} of a cluster-info dump (lines ${logBlocks[0]!.line}–${logBlocks[logBlocks.length - 1]!.endLine ?? 'end'})` +
        (!kcm.length
          ? ''
          : kcmBlockRead
            ? `; ${kcm.length === 1 ? 'the' : `${kcm.length}`} kube-controller-manager log block${kcm.length === 1 ? ` (lines ${kcm[0]!.line}–${kcm[0]!.endLine ?? 'end'}) is` : 's are'} read as a controller log`
            : `; ${kcm.length} of kube-controller-manager (${kcm[0]!.container}): its lines are a controller log${norm.file === '-' ? ' (stdin is read once: give the dump as a file to have it read too)' : ''} — \`sed -n '${kcm[0]!.line + 1},${(kcm[0]!.endLine ?? kcm[0]!.line + 1) - 1}p' ${norm.file} > kcm.log\`, then \`kexp kcm-log kcm.log\``),
    );
  }
  if (out.length > 0) yield takeBatch(out);
}

interface YamlDoc {
  /** File line of lines[0]. */
  startLine: number;
  /** First line with content (not blank, not a comment). */
  contentLine: number;
  lines: string[];
  bytes: number;
  tooBig: boolean;
}

function handleYamlDoc(norm: WatchNormalizer, out: TimelineEvent[], doc: YamlDoc, endedWithoutNewline: boolean): void {
  if (doc.contentLine === 0) return;
  if (doc.tooBig) {
    norm.problem(doc.contentLine, `YAML document larger than ${MAX_YAML_DOC_BYTES} bytes; skipped`);
    return;
  }
  const lc = new LineCounter();
  const d = parseDocument(doc.lines.join('\n'), { lineCounter: lc, uniqueKeys: false, prettyErrors: true });
  const fileLine = (offset: number): number => doc.startLine + lc.linePos(offset).line - 1;
  if (d.errors.length > 0) {
    const e = d.errors[0]!;
    const line = e.linePos ? doc.startLine + e.linePos[0].line - 1 : doc.contentLine;
    if (endedWithoutNewline) norm.problem(line, 'truncated YAML document at end of input (recording interrupted?)');
    else {
      const msg = (e.message.split('\n')[0] ?? e.code).replace(/ at line \d+, column \d+:?$/, '');
      norm.problem(line, `not YAML (${shorten(msg)})`);
    }
    return;
  }
  let js: unknown;
  try {
    js = d.toJS({ maxAliasCount: 100 });
  } catch (err) {
    norm.problem(doc.contentLine, `not usable YAML (${shorten((err as Error).message)})`);
    return;
  }
  if (js === null || js === undefined) return;
  norm.problemSuffix = endedWithoutNewline ? ' (document ends without a newline; recording interrupted?)' : '';
  try {
    const contents = d.contents;
    if (
      isRecord(js) &&
      Array.isArray(js.items) &&
      (typeof js.kind !== 'string' || js.kind.endsWith('List')) &&
      isMap(contents)
    ) {
      // A List document: cite each item's own line.
      const seq = contents.get('items', true);
      const ctx: ListContext = {
        kind: typeof js.kind === 'string' ? js.kind : undefined,
        apiVersion: typeof js.apiVersion === 'string' ? js.apiVersion : undefined,
      };
      js.items.forEach((item, i) => {
        const node = isSeq(seq) ? (seq.items[i] as { range?: [number, number, number] } | undefined) : undefined;
        const line = node?.range ? fileLine(node.range[0]) : doc.contentLine;
        norm.value(out, line, item, ctx);
      });
    } else {
      norm.value(out, doc.contentLine, js);
    }
  } finally {
    norm.problemSuffix = '';
  }
}

/** `pasted`: the lines are a paste from Markdown or a terminal; only what its fences/prompts hold is read. */
async function* readYaml(chunks: AsyncIterable<Buffer>, norm: WatchNormalizer, pos: ReadPos, pasted?: PastedDumpLines): AsyncGenerator<TimelineEvent[]> {
  const splitter = new LineSplitter({ maxLineBytes: DEFAULT_MAX_LINE_BYTES });
  const lines: SplitLine[] = [];
  const out: TimelineEvent[] = [];
  let doc: YamlDoc = { startLine: 1, contentLine: 0, lines: [], bytes: 0, tooBig: false };
  const flush = (nextStart: number, endedWithoutNewline = false): void => {
    try {
      handleYamlDoc(norm, out, doc, endedWithoutNewline);
    } catch (err) {
      norm.problem(doc.contentLine || doc.startLine, `could not read this document: ${(err as Error).message}`);
    }
    doc = { startLine: nextStart, contentLine: 0, lines: [], bytes: 0, tooBig: false };
  };
  const add = (line: number, text: string): void => {
    if (doc.lines.length === 0) doc.startLine = line;
    if (doc.contentLine === 0 && text.trim() !== '' && !text.trimStart().startsWith('#')) doc.contentLine = line;
    if (doc.tooBig) return;
    doc.bytes += text.length + 1;
    if (doc.bytes > MAX_YAML_DOC_BYTES) {
      doc.tooBig = true;
      doc.lines = [];
      return;
    }
    doc.lines.push(text);
  };
  const handle = (l: SplitLine): void => {
    if (l.tooLongBytes !== undefined) {
      add(l.line, '');
      doc.contentLine ||= l.line;
      doc.tooBig = true;
      return;
    }
    const t = pasted ? pasted.line(l.text) : l.text;
    if (t.startsWith('---') && (t.length === 3 || t[3] === ' ' || t[3] === '\t')) {
      flush(l.line);
      const rest = t.slice(3).trim();
      if (rest !== '' && !rest.startsWith('#')) add(l.line, rest);
      return;
    }
    if (t.startsWith('...') && (t.length === 3 || t[3] === ' ' || t[3] === '\t')) {
      flush(l.line + 1);
      return;
    }
    add(l.line, t);
    if (l.truncatedFinal) flush(l.line + 1, true);
  };
  for await (const chunk of chunks) {
    lines.length = 0;
    splitter.push(chunk, lines);
    for (const l of lines) handle(l);
    pos.line = splitter.linesSeen + 1;
    if (out.length > 0) yield takeBatch(out);
  }
  lines.length = 0;
  splitter.end(lines);
  for (const l of lines) handle(l);
  flush(0);
  if (pasted?.openFence !== undefined) norm.note(`${norm.file}: the last fenced block (${pasted.openFence}) is never closed; read to the end of the file`);
  if (out.length > 0) yield takeBatch(out);
}

/**
 * Pulls chunks into a prefix until the sniffer decides (bounded by SNIFF_MAX_BYTES). Leading
 * blank lines, any amount of them, are skipped first and only counted (`skipBlankLines`), so
 * the prefix starts at the first line with content; `head` re-emits them as line breaks
 * (chunks sharing one buffer) before the sniffed bytes, so the readers number every later
 * line as in the file while memory stays bounded by the sniff window.
 */
async function sniff(
  file: string,
  it: AsyncIterator<Buffer>,
  forced: WatchFormat | undefined,
): Promise<{ result: Exclude<SniffResult, { needMore: true }>; head: Buffer[]; prefix: Buffer; eof: boolean; blankLines: number }> {
  let eof = false;
  const pull = async (): Promise<Buffer | undefined> => {
    for (;;) {
      const n = await it.next();
      if (n.done) {
        eof = true;
        return undefined;
      }
      if (n.value.length > 0) return n.value;
    }
  };
  const skipped = await skipBlankLines(pull);
  if (skipped.rest === undefined) throw new InputError(file, 0, 'file contains only blank lines');
  const head: Buffer[] = [skipped.rest];
  let len = skipped.rest.length;
  let prefix: Buffer = skipped.rest;
  for (;;) {
    const final = eof || len >= SNIFF_MAX_BYTES;
    prefix = head.length === 1 ? head[0]! : Buffer.concat(head, len);
    const r = forced ? framingForForced(forced, prefix, final) : sniffPrefix(prefix, final);
    if (!('needMore' in r)) return { result: r, head: [...blankLineChunks(skipped.lines), ...head], prefix, eof, blankLines: skipped.lines };
    if (final) throw new InputError(file, 0, 'could not recognise the input format');
    const c = await pull();
    if (c !== undefined) {
      head.push(c);
      len += c.length;
    }
  }
}

/** Line number (within the prefix) and text of the first non-blank line in a prefix. */
function firstLine(prefix: Buffer): { line: number; text: string } | undefined {
  let line = 1;
  let start = 0;
  if (prefix.length >= 3 && prefix[0] === 0xef && prefix[1] === 0xbb && prefix[2] === 0xbf) start = 3;
  while (start < prefix.length) {
    const nl = prefix.indexOf(10, start);
    const end = nl === -1 ? prefix.length : nl;
    const text = prefix.toString('utf8', start, end).replace(/\r$/, '');
    if (text.trim() !== '') return { line, text };
    if (nl === -1) return undefined;
    start = nl + 1;
    line++;
  }
  return undefined;
}

/** The recording header: the first non-blank line of the prefix, `blankLines` lines into the file. */
function readHeader(file: string, prefix: Buffer, blankLines = 0): RecordingHeader {
  const first = firstLine(prefix);
  if (!first) throw new InputError(file, 0, 'file contains only blank lines');
  const line = blankLines + first.line;
  let obj: unknown;
  try {
    obj = JSON.parse(first.text);
  } catch (err) {
    throw new InputError(file, line, `recording header is not JSON (${shorten((err as Error).message)})`);
  }
  const err = checkRecordingHeader(obj);
  if (err) throw new InputError(file, line, err);
  return obj as RecordingHeader;
}

/**
 * Opens one watch dump. Sniffs the format from the first bytes unless `opts.format` forces
 * one; throws InputError for inputs that cannot be read at all. The returned `events`
 * stream (iterate once) reports bad lines to `opts.diagnostics` and continues.
 */
export async function openWatchSource(
  path: string,
  opts: { format?: string; diagnostics: Diagnostics; stdin?: NodeJS.ReadableStream; snapshot?: boolean },
): Promise<WatchSource> {
  let forced: WatchFormat | undefined;
  if (opts.format !== undefined) {
    if (!(WATCH_FORMATS as readonly string[]).includes(opts.format)) {
      throw new InputError(path, 0, `unknown format "${opts.format}"; expected one of ${WATCH_FORMATS.join(', ')}`);
    }
    forced = opts.format as WatchFormat;
  }
  const input = await openInputBytes(path, opts.stdin);
  const file = input.file;
  const it = input.stream[Symbol.asyncIterator]();
  let sniffed: Awaited<ReturnType<typeof sniff>>;
  let header: RecordingHeader | undefined;
  try {
    sniffed = await sniff(file, it, forced);
    if ('error' in sniffed.result) throw new InputError(file, sniffed.result.line !== undefined ? sniffed.result.line + sniffed.blankLines : 0, sniffed.result.error);
    if (sniffed.result.format === 'kexp-recording') header = readHeader(file, sniffed.prefix, sniffed.blankLines);
  } catch (err) {
    await it.return?.(undefined);
    throw err;
  }
  const { format, framing, pasted } = sniffed.result as { format: WatchFormat; framing: Framing; pasted?: PastedKind };
  const { head, eof } = sniffed;
  const basis: TimeBasis = format === 'kexp-recording' ? 'received' : 'object-timestamp';
  const norm = new WatchNormalizer({
    file,
    basis,
    diagnostics: opts.diagnostics,
    warnInferredTypes: format !== 'list' && !opts.snapshot,
    // No time in the input can be after it is read (src/timeline/plausible-time.ts).
    now: Date.now,
  });
  const rec: RecordingState | undefined = header
    ? { header, headerPending: true, startedAt: parseRfc3339(header.startedAt), afterEndReported: false }
    : undefined;
  const pos: ReadPos = { line: 1 };

  async function* chunks(): AsyncGenerator<Buffer> {
    try {
      for (const c of head) yield c;
      head.length = 0;
      if (eof) return;
      for (;;) {
        const n = await it.next();
        if (n.done) return;
        yield n.value;
      }
    } finally {
      await it.return?.(undefined);
    }
  }

  let started = false;
  async function* run(): AsyncGenerator<TimelineEvent[]> {
    started = true;
    const reader =
      framing === 'lines'
        ? readLines(chunks(), norm, rec, pos)
        : framing === 'values'
          ? readValues(chunks(), norm, pos, path !== '-' && forced === undefined)
          : readYaml(chunks(), norm, pos, pasted ? new PastedDumpLines(pasted) : undefined);
    try {
      try {
        yield* reader;
      } catch (err) {
        // Too large for memory: the command stops (one line, exit 6), never a partial report.
        if (!(err instanceof InputError) || err instanceof InputTooLargeError) throw err;
        // The byte stream broke (gzip damage, read error): keep what was read.
        norm.problem(pos.line, bareMessage(err));
      }
      const tail: TimelineEvent[] = [];
      norm.flush(tail);
      if (tail.length > 0) yield tail;
    } finally {
      norm.finish();
    }
  }

  // Iterate-once streams (the events one by one, or the same events in batches: one of the two);
  // return() before the first next() still closes the file.
  const onceOnly = <T>(gen: AsyncGenerator<T>): AsyncIterableIterator<T> => ({
    next: () => gen.next(),
    return: async (value?: unknown) => {
      const r = await gen.return(value as undefined);
      if (!started) await it.return?.(undefined);
      return r;
    },
    throw: (e?: unknown) => gen.throw(e),
    [Symbol.asyncIterator]() {
      return this;
    },
  });
  const batchGen = run();
  async function* oneByOne(): AsyncGenerator<TimelineEvent> {
    for await (const batch of batchGen) for (const e of batch) yield e;
  }
  const events = onceOnly(oneByOne());
  const batches = onceOnly(batchGen);

  return {
    file,
    format,
    timeBasis: basis,
    events,
    batches,
    coverage(): WatchFileCoverage {
      const c: WatchFileCoverage = {
        file,
        format,
        timeBasis: basis,
        endMarker: rec?.end !== undefined,
        events: norm.events,
        problems: norm.problems,
      };
      let start = norm.start;
      let end = norm.end;
      // The header's and end line's own times bound the coverage when plausible (an
      // implausible one is already a problem at its line).
      if (rec?.startedAt !== undefined && norm.plausibleAlone(rec.startedAt)) start = rec.startedAt;
      if (rec?.endAt !== undefined && norm.plausibleAlone(rec.endAt) && (end === undefined || rec.endAt > end)) end = rec.endAt;
      if (start !== undefined) c.start = start;
      if (end !== undefined) c.end = end;
      if (rec?.header) c.header = { ...rec.header };
      if (rec?.end) c.endReason = rec.end;
      if (rec?.endLine !== undefined) c.endLine = rec.endLine;
      return c;
    },
  };
}
