/**
 * Audit input sniffing: from the first bytes of an input, how to read it — JSON lines, JSON
 * values (pretty-printed, concatenated, arrays) or YAML — and in which format (the native
 * Event / EventList, or an envelope of the registry: src/sources/envelope/registry.ts); or an
 * InputError that says what the input is instead (a klog or container log, a watch dump, a
 * recording, the legacy text audit format, an archive) and which command reads it.
 *
 * Contract: recognition order — binary data; a JSON array or a lone `{` (values); JSON lines,
 * classified on the first line that parses (normalise.ts `classifyValue`); the audit line
 * envelopes on the first line; then the foreign text formats; then YAML. Leading blank lines,
 * any amount, are skipped first (counted, not kept: memory stays bounded, and line numbers in
 * messages stay those of the file). When the first record does not fit in the peek, the format
 * is left open and decided when the reader parses it.
 * Cost: reads ahead at most PEEK_LINES lines or PEEK_BYTES (8 MiB) through the reader's peek
 * (replayed to the reader afterwards); parses at most PEEK_LINES values.
 */
import { InputError } from '../source.js';
import { binaryKind } from '../binary-data.js';
import { cri } from '../envelope/cri.js';
import { AUDIT_LINE_ENVELOPES, type AuditEnvelopeName } from '../envelope/registry.js';
import { KLOG_RE } from '../kcm-log/klog-text.js';
import { JsonValueSplitter, type InputReader } from './line-reader.js';
import { AuditNormaliser, classifyValue } from './normalise.js';
import type { AuditRecord } from './record.js';

/**
 * The format of an audit input: the log backend's Event lines, webhook EventList batches, YAML,
 * or the name of the envelope they came in (`cloudwatch-lines`: a CloudWatch Logs export, one
 * `<ISO time> <audit JSON>` per line; `ecs`: Elastic/OpenSearch documents or a search response;
 * `loki`: `logcli --output=jsonl` lines; `gke`, `eks`, `aks`: the clouds' log exports).
 */
export type AuditFormat = 'audit-log' | 'audit-webhook' | 'audit-yaml' | AuditEnvelopeName;

/** Legacy text audit backend line. */
const LEGACY_AUDIT_RE = /^\S+ AUDIT: id="/;

/** How the input is split: JSON lines, top-level JSON values, or YAML documents read whole. */
export type Mode = 'lines' | 'values' | 'yaml';

/** What sniffing decided. */
export interface Sniffed {
  mode: Mode;
  /** Undefined when the first record did not fit in the peek: decided when it is parsed. */
  format?: AuditFormat;
  apiVersion?: string;
  /** Time of the first record (the prefilter may skip its line; the source adds it to the coverage). */
  firstAt?: number;
}

const PEEK_LINES = 20;
const PEEK_BYTES = 8 << 20;
/** A YAML stream starts with `---`, a directive, a comment, a `key:` line or a `- ` list item. */
const YAML_START_RE = /^(---|%YAML|#|"?[A-Za-z_][\w./-]*"?\s*:(\s|$)|- )/;

/** The InputError for an input that is something else than an audit log: what it is, and what reads it. */
export function rejectValue(file: string, line: number, what: string, hint: string): InputError {
  return new InputError(file, line, `this is ${what}, not an apiserver audit log; ${hint}`);
}

/**
 * Decides how to read the input from its first bytes; throws InputError for non-audit input.
 * Leading blank lines, any amount, are skipped first (counted, not kept: memory stays bounded,
 * and `base` keeps the line numbers of messages those of the file); archives and binary data
 * are named from the first bytes of content (binary-data.ts).
 */
export async function sniff(reader: InputReader, file: string): Promise<Sniffed> {
  const skipped = await reader.skipLeadingBlankLines();
  if (!skipped.content) throw new InputError(file, 0, skipped.bytes === 0 ? 'input is empty: no audit events' : 'file contains only blank lines');
  /** Lines before the first line of `head`. */
  const base = skipped.lines;
  const { head, eof } = await reader.peek(PEEK_LINES, PEEK_BYTES);
  let ws = 0;
  while (ws < head.length && (head[ws] === 32 || head[ws] === 9 || head[ws] === 10 || head[ws] === 13)) ws++;
  const bin = binaryKind(head.subarray(ws));
  if (bin) throw new InputError(file, 0, `${bin}; not an apiserver audit log`);
  let text = head.toString('utf8');
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const firstNonWs = text.search(/\S/);
  if (firstNonWs < 0) {
    if (eof) throw new InputError(file, 0, 'input is empty: no audit events');
    return { mode: 'lines' };
  }
  const lines = text.split('\n');
  const firstIdx = lines.findIndex((l) => l.trim() !== '');
  const firstLine = lines[firstIdx]!.replace(/\r$/, '');
  const firstTrim = firstLine.trim();
  const c0 = text[firstNonWs];

  if (c0 === '[' || (c0 === '{' && firstTrim === '{')) return sniffValues(head, eof, file, base);

  if (c0 === '{') {
    // NDJSON: classify on the first parseable complete line.
    const complete = eof ? lines.length : lines.length - 1;
    let firstBad = 0;
    for (let i = firstIdx; i < complete && i < firstIdx + PEEK_LINES; i++) {
      const t = lines[i]!.trim();
      if (t === '') continue;
      let v: unknown;
      try {
        v = JSON.parse(t);
      } catch {
        firstBad ||= base + i + 1;
        continue;
      }
      const c = classifyValue(v);
      if (!c.audit) throw rejectValue(file, base + i + 1, c.what, c.hint);
      const s: Sniffed = { mode: 'lines', format: c.format };
      if (c.apiVersion) s.apiVersion = c.apiVersion;
      const at = firstTime(v);
      if (at !== undefined) s.firstAt = at;
      return s;
    }
    if (complete <= firstIdx) return { mode: 'lines' }; // one huge first line: decide when it is read
    // Not line-delimited after all (e.g. `{ "kind": …` pretty-printed)?
    try {
      return sniffValues(head, eof, file, base);
    } catch (e) {
      if (e instanceof InputError && e.line === 0) {
        throw new InputError(file, firstBad, 'not an audit log: the first lines are not valid JSON');
      }
      throw e;
    }
  }

  // Text: a line envelope around audit JSON lines (registry order), else name what it is.
  for (const env of AUDIT_LINE_ENVELOPES) {
    const u = env.unwrap(firstLine);
    if (u === undefined) continue;
    const s: Sniffed = { mode: 'lines', format: env.name };
    let v: unknown;
    try {
      v = JSON.parse(u.inner);
    } catch {
      return s; // a first message longer than the peek, or damaged: the reader reports it
    }
    const c = classifyValue(v);
    if (!c.audit || c.format !== 'audit-log') {
      throw rejectValue(file, base + firstIdx + 1, `${env.wording.input} of ${c.audit ? `${c.format} documents` : c.what}`, env.wording.expected);
    }
    if (c.apiVersion) s.apiVersion = c.apiVersion;
    const at = firstTime(v);
    if (at !== undefined) s.firstAt = at;
    return s;
  }
  if (KLOG_RE.test(firstLine)) throw rejectValue(file, base + firstIdx + 1, 'a klog text log (kube-controller-manager or another component)', 'read it with `kexp kcm-log`');
  const inner = cri.sniff?.(firstLine);
  if (inner !== undefined) {
    if (KLOG_RE.test(inner)) throw rejectValue(file, base + firstIdx + 1, 'a container log (CRI format) of a klog component', 'read it with `kexp kcm-log`');
    throw new InputError(
      file,
      base + firstIdx + 1,
      "this is a container log (CRI format `<time> stdout F <line>`); strip the prefix first, e.g. `cut -d' ' -f4- FILE | kexp audit -`",
    );
  }
  if (LEGACY_AUDIT_RE.test(firstLine)) {
    throw new InputError(
      file,
      base + firstIdx + 1,
      'this is the legacy text audit format (--audit-log-format=legacy), which has no bodies or status details; configure --audit-log-format=json',
    );
  }
  if (YAML_START_RE.test(firstLine)) return { mode: 'yaml', format: 'audit-yaml' };
  throw new InputError(file, base + firstIdx + 1, `not an audit log: the first line is neither JSON nor YAML (${JSON.stringify(firstTrim.slice(0, 60))})`);
}

/** Values mode: classifies the first value (of at most PEEK_LINES) that parses. */
function sniffValues(head: Buffer, eof: boolean, file: string, base: number): Sniffed {
  const splitter = new JsonValueSplitter(PEEK_BYTES * 2, undefined, undefined, undefined, undefined, base + 1);
  const vals = splitter.push(head);
  if (eof) vals.push(...splitter.end());
  for (const v of vals.slice(0, PEEK_LINES)) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(v.text);
    } catch {
      continue;
    }
    const c = classifyValue(parsed);
    if (!c.audit) throw rejectValue(file, v.no, c.what, c.hint);
    const s: Sniffed = { mode: 'values', format: c.format };
    if (c.apiVersion) s.apiVersion = c.apiVersion;
    return s;
  }
  if (!eof && vals.length === 0) return { mode: 'values' }; // first value > 8 MiB: decide when read
  throw new InputError(file, 0, 'not an audit log: no complete JSON value could be parsed at the start');
}

/** The time of the first record in a value, whatever its wrapper (nothing is reported). */
function firstTime(v: unknown): number | undefined {
  const recs: AuditRecord[] = [];
  new AuditNormaliser({ problem: () => undefined, skipped: () => undefined }).fromValue(v, 0, recs);
  return recs.find((r) => r.stageAt !== undefined)?.stageAt;
}
