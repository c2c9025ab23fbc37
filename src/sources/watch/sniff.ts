/**
 * Recognises a watch-dump format from the first bytes of the (decompressed) input
 * (input-formats.md §0), and names what a file looks like when it is not a watch dump
 * (an audit log, a kube-controller-manager log, …) so the error can say which command
 * reads it.
 *
 * Decisions are made on a bounded prefix: the first line when it is a complete JSON object,
 * otherwise the top-level keys of the first value (`kubectl get -w -o json` prints sorted
 * keys, so `apiVersion` and `kind` come first), or the first YAML document's column-0 keys.
 * Archives, other compressions and binary data are named (binary-data.ts), never echoed.
 */
import { isRecord } from '../../model/objects.js';
import { binaryKind } from '../binary-data.js';
import { pastedDump, PastedDumpLines, type PastedKind } from './pasted-dump.js';

export const WATCH_FORMATS = ['kexp-recording', 'watch-events', 'kubectl-watch-json', 'yaml', 'list'] as const;
export type WatchFormat = (typeof WATCH_FORMATS)[number];

/** How the bytes are cut into values. */
export type Framing = 'lines' | 'values' | 'yaml';

export type SniffResult =
  /** `pasted`: YAML pasted from Markdown or a terminal, read through its fences/prompts (pasted-dump.ts). */
  | { format: WatchFormat; framing: Framing; pasted?: PastedKind }
  /** `line`: the line (1-based, in the sniffed bytes) the refusal is about. */
  | { error: string; line?: number }
  | { needMore: true };

/** Stop looking further than this; decide with what we have. */
export const SNIFF_MAX_BYTES = 1 << 20;

const WATCH_TYPES = new Set(['ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK', 'ERROR']);

const KCM = 'use `kexp kcm-log`';
const AUDIT = 'use `kexp audit`';

/** Top-level keys of the first object: string values verbatim, anything else `true`. */
export type KeyMap = Map<string, string | true>;

function keysOf(o: Record<string, unknown>): KeyMap {
  const m: KeyMap = new Map();
  for (const [k, v] of Object.entries(o)) m.set(k, typeof v === 'string' ? v : true);
  return m;
}

function sval(m: KeyMap, k: string): string | undefined {
  const v = m.get(k);
  return typeof v === 'string' ? v : undefined;
}

/**
 * Classifies the first object from its top-level keys. `complete` says all keys are known;
 * otherwise undefined may come back, meaning "read more".
 */
export function classifyKeys(keys: KeyMap, complete: boolean): { format: WatchFormat } | { error: string } | undefined {
  const apiVersion = sval(keys, 'apiVersion');
  const kind = sval(keys, 'kind');
  if (keys.has('kexpRecording')) return { format: 'kexp-recording' };
  if (apiVersion?.startsWith('audit.k8s.io/')) {
    const what = kind === 'EventList' ? 'an audit webhook batch' : 'an audit log';
    return { error: `looks like ${what} (${apiVersion} ${kind ?? 'Event'}); ${AUDIT}` };
  }
  if (keys.has('auditID') && keys.has('stage')) return { error: `looks like an audit log (audit event with auditID/stage); ${AUDIT}` };
  if (keys.has('protoPayload')) return { error: `looks like a GKE Cloud Logging audit export (protoPayload); ${AUDIT}` };
  if (keys.has('logEvents') || keys.has('messageType')) {
    return { error: `looks like a CloudWatch Logs subscription payload (EKS); ${AUDIT} or \`kexp kcm-log\`` };
  }
  if (keys.has('records') && keys.size <= 2) {
    return { error: `looks like an AKS diagnostic-settings export ("records"); ${AUDIT} or \`kexp kcm-log\`` };
  }
  if (keys.has('events') && !keys.has('kind') && keys.size <= 3) {
    return { error: `looks like \`aws logs filter-log-events\` output (EKS); ${AUDIT} or \`kexp kcm-log\`` };
  }
  if (keys.has('ts') && keys.has('msg')) return { error: `looks like a kube-controller-manager JSON log; ${KCM}` };
  if (keys.has('log') && keys.has('stream') && keys.has('time')) {
    return { error: `looks like a Docker json-file container log; if it is kube-controller-manager's, ${KCM}` };
  }
  const type = sval(keys, 'type');
  if (keys.has('object') && (type === undefined || WATCH_TYPES.has(type))) return { format: 'watch-events' };
  if (type !== undefined && WATCH_TYPES.has(type) && !kind) return { format: 'watch-events' };
  if (keys.has('items') || (kind !== undefined && kind.endsWith('List'))) return { format: 'list' };
  if (kind !== undefined && (apiVersion !== undefined || keys.has('metadata') || complete)) {
    return { format: 'kubectl-watch-json' };
  }
  if (!complete) return undefined;
  if (keys.has('metadata')) return { format: 'kubectl-watch-json' };
  const shown = [...keys.keys()].slice(0, 6).map((k) => JSON.stringify(k));
  return {
    error: `unrecognised JSON: the first object has keys ${shown.join(', ')}${keys.size > 6 ? ', …' : ''} (expected a kexp recording, watch events, kubectl -w output or a list)`,
  };
}

/**
 * Scans the keys of the first object at `targetDepth` (1 for `{…}`, 2 for the first
 * element of `[…]`) in a possibly incomplete prefix. String values are captured, other
 * values recorded as `true`.
 */
export function scanFirstKeys(buf: Buffer, from: number, targetDepth: number): { keys: KeyMap; complete: boolean } {
  const keys: KeyMap = new Map();
  let depth = 0;
  let inStr = false;
  let esc = false;
  let expectKey = false;
  let strStart = -1;
  let strIsKey = false;
  let pendingKey: string | undefined;
  let strHasEsc = false;
  const decode = (s: number, e: number): string => {
    const raw = buf.toString('utf8', s, e);
    if (!strHasEsc) return raw;
    try {
      return JSON.parse(`"${raw}"`) as string;
    } catch {
      return raw;
    }
  };
  for (let i = from; i < buf.length; i++) {
    const b = buf[i]!;
    if (inStr) {
      if (esc) esc = false;
      else if (b === 92) {
        esc = true;
        strHasEsc = true;
      } else if (b === 34) {
        inStr = false;
        if (strStart >= 0) {
          const s = decode(strStart, i);
          if (strIsKey) {
            pendingKey = s;
            keys.set(s, true);
          } else if (pendingKey !== undefined) keys.set(pendingKey, s);
          strStart = -1;
        }
      }
      continue;
    }
    switch (b) {
      case 34:
        inStr = true;
        strHasEsc = false;
        if (depth === targetDepth) {
          strStart = i + 1;
          strIsKey = expectKey;
        }
        break;
      case 123:
        depth++;
        if (depth === targetDepth) expectKey = true;
        break;
      case 91:
        depth++;
        break;
      case 125:
      case 93:
        depth--;
        if (depth < targetDepth) return { keys, complete: true };
        break;
      case 58:
        if (depth === targetDepth) expectKey = false;
        break;
      case 44:
        if (depth === targetDepth) {
          expectKey = true;
          pendingKey = undefined;
        }
        break;
      default:
        break;
    }
  }
  return { keys, complete: false };
}

function firstNonBlank(buf: Buffer): number {
  let i = 0;
  if (buf.length >= 3 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf) i = 3;
  for (; i < buf.length; i++) {
    const b = buf[i]!;
    if (b !== 32 && b !== 9 && b !== 10 && b !== 13) return i;
  }
  return -1;
}

const KLOG = /^[IWEF]\d{4} \d\d:\d\d:\d\d\.\d{6}\s+\d+ \S+:\d+\] /;
const CRI = /^\d{4}-\d\d-\d\dT\S+ (stdout|stderr) [PF] (.*)$/;
const TIMESTAMPED = /^\d{4}-\d\d-\d\dT\S+Z (.*)$/;
const LEGACY_AUDIT = /^\S+ AUDIT: id="/;
const YAML_KEY = /^([A-Za-z_][\w.\-/]*|"[^"]*"|'[^']*'):(?:[ \t]+(.*?))?[ \t]*$/;
const YAML_START = /^(---|%YAML|%TAG|#|- |[A-Za-z_"'][^:]*:([ \t]|$))/;
const K8S_KEYS = new Set(['apiVersion', 'kind', 'metadata', 'object', 'type', 'items', 'spec', 'status']);

function unquote(v: string | undefined): string | undefined {
  if (v === undefined) return undefined;
  const m = /^(["'])(.*)\1$/.exec(v);
  return m ? m[2] : v;
}

function lineAt(buf: Buffer, start: number): { text: string; complete: boolean } {
  const nl = buf.indexOf(10, start);
  const end = nl === -1 ? buf.length : nl;
  return { text: buf.toString('utf8', start, end).replace(/\r$/, ''), complete: nl !== -1 };
}

/** Top-level `key: value` pairs of the first YAML document in the prefix. */
export function yamlFirstDocKeys(text: string): { keys: KeyMap; docComplete: boolean } {
  const keys: KeyMap = new Map();
  const lines = text.split('\n');
  let started = false;
  // The last line may be incomplete; ignore it.
  for (let i = 0; i < lines.length - 1; i++) {
    const l = lines[i]!.replace(/\r$/, '');
    if (/^---([ \t]|$)/.test(l) || /^\.\.\.([ \t]|$)/.test(l)) {
      if (started) return { keys, docComplete: true };
      continue;
    }
    if (l.trim() === '' || l.startsWith('#') || l.startsWith('%')) continue;
    started = true;
    const m = YAML_KEY.exec(l);
    if (m) {
      const k = unquote(m[1])!;
      const v = unquote(m[2]);
      keys.set(k, v !== undefined && v !== '' ? v : true);
    }
  }
  return { keys, docComplete: false };
}

/**
 * Decides the format from a prefix of the input. `final` = no more bytes will come (end of
 * input or the sniff limit). Returns needMore until it can decide.
 */
export function sniffPrefix(buf: Buffer, final: boolean): SniffResult {
  const start = firstNonBlank(buf);
  if (start === -1) return final ? { error: buf.length === 0 ? 'file is empty' : 'file contains only blank lines' } : { needMore: true };
  const bin = binaryKind(buf.subarray(start));
  if (bin) return { error: bin };
  const c = buf[start]!;
  if (c === 123) {
    const first = lineAt(buf, start);
    if (first.complete || final) {
      let parsed: unknown;
      let ok = false;
      try {
        parsed = JSON.parse(first.text);
        ok = true;
      } catch {
        /* multi-line value */
      }
      if (ok && isRecord(parsed)) {
        const r = classifyKeys(keysOf(parsed), true);
        if (!r) return { error: 'unrecognised JSON' };
        if ('error' in r) return r;
        return { format: r.format, framing: r.format === 'kexp-recording' || r.format === 'watch-events' ? 'lines' : 'values' };
      }
    }
    const { keys, complete } = scanFirstKeys(buf, start, 1);
    const r = classifyKeys(keys, complete || final);
    if (!r) return final ? { error: 'unrecognised JSON' } : { needMore: true };
    if ('error' in r) return r;
    if (r.format === 'kexp-recording') {
      return { error: 'looks like a kexp recording whose header is not on one line; recordings are one JSON object per line' };
    }
    return { format: r.format, framing: 'values' };
  }
  if (c === 91) {
    const { keys, complete } = scanFirstKeys(buf, start, 2);
    if (keys.size === 0) {
      // `[]`, an array of non-objects, or not enough bytes yet: the list reader reports elements.
      return complete || final ? { format: 'list', framing: 'values' } : { needMore: true };
    }
    const r = classifyKeys(keys, complete || final);
    if (!r) return final ? { format: 'list', framing: 'values' } : { needMore: true };
    if ('error' in r) return r;
    return { format: 'list', framing: 'values' };
  }
  const first = lineAt(buf, start);
  if (!first.complete && !final) return { needMore: true };
  const line = first.text;
  if (KLOG.test(line)) return { error: `looks like a kube-controller-manager log (klog text); ${KCM}` };
  const cri = CRI.exec(line);
  if (cri) {
    return KLOG.test(cri[2]!)
      ? { error: `looks like a kube-controller-manager log in CRI container-log format; ${KCM}` }
      : { error: 'looks like a container log (CRI format), not a watch dump' };
  }
  const ts = TIMESTAMPED.exec(line);
  if (ts && KLOG.test(ts[1]!)) return { error: `looks like a kube-controller-manager log (kubectl logs --timestamps); ${KCM}` };
  if (LEGACY_AUDIT.test(line)) return { error: `looks like a legacy text audit log; ${AUDIT}` };
  const pasted = sniffPasted(buf, start, final);
  if (pasted) return pasted;
  if (YAML_START.test(line)) {
    const text = buf.toString('utf8', start, Math.min(buf.length, start + 256 * 1024));
    const { keys, docComplete } = yamlFirstDocKeys(text);
    const kind = sval(keys, 'kind');
    const apiVersion = sval(keys, 'apiVersion');
    // `items` at the top of a document is a List's (a watch event or an object has none), so it
    // decides at once: a must-gather List prints `kind: XList` after its items, megabytes later.
    const decided = keys.has('object') || keys.has('items') || (kind !== undefined && apiVersion !== undefined) || docComplete || final;
    if (!decided) return { needMore: true };
    if (kind === 'ResourcePatch' || apiVersion?.startsWith('action.kwok.x-k8s.io/')) {
      return { error: 'looks like a kwok snapshot recording (ResourcePatch); kexp does not read it — record with `kexp record`' };
    }
    if (apiVersion?.startsWith('audit.k8s.io/')) return { error: `looks like an audit log in YAML (${apiVersion}); ${AUDIT}` };
    // A YAML List (`kubectl get … -o yaml`, a must-gather's `core/pods.yaml`) is a snapshot like a
    // JSON one: named `list`, read with the YAML framing.
    if (!keys.has('object') && (keys.has('items') || kind?.endsWith('List'))) return { format: 'list', framing: 'yaml' };
    if ([...keys.keys()].some((k) => K8S_KEYS.has(k)) || line.startsWith('- ')) return { format: 'yaml', framing: 'yaml' };
  }
  // Text around the JSON (markdown notes, a console capture with its prompt and command): the
  // format is that of the first value that starts a line; the reader skips the text around it.
  const json = firstJsonLine(buf, start);
  if (json === undefined && !final) return { needMore: true };
  if (json !== undefined) {
    const inner = sniffPrefix(buf.subarray(json), final);
    if ('needMore' in inner) return inner;
    if ('format' in inner && inner.format !== 'kexp-recording') return { format: inner.format, framing: 'values' };
  }
  const snippet = line.length > 60 ? `${line.slice(0, 60)}…` : line;
  return { error: `unrecognised input (first line: ${JSON.stringify(snippet)}); expected a kexp recording, watch events, kubectl -w output (JSON or YAML) or a list` };
}

/**
 * YAML pasted from Markdown or a terminal (pasted-dump.ts): its format from the first document
 * its fences or prompts hold. Undefined when the text is not such a paste, or when the paste holds
 * JSON (the JSON reader skips the text around it).
 */
function sniffPasted(buf: Buffer, start: number, final: boolean): SniffResult | undefined {
  const text = buf.toString('utf8', start, Math.min(buf.length, start + 256 * 1024));
  const lines = text.split('\n').map((l) => l.replace(/\r$/, ''));
  const cut = !final || buf.length > start + 256 * 1024;
  if (cut && lines.length > 1) lines.pop();
  let firstLine = 1;
  for (let i = buf.indexOf(10); i !== -1 && i < start; i = buf.indexOf(10, i + 1)) firstLine++;
  const v = pastedDump(lines, firstLine, !cut);
  if (v === undefined) return undefined;
  if (v === 'more') return final ? { error: 'could not find the dump in the pasted text' } : { needMore: true };
  if ('error' in v) return v;
  const data = lines.slice(v.firstDataLine - firstLine);
  const c = data[0]!.trimStart()[0];
  if (c === '{' || c === '[') return undefined;
  const strip = new PastedDumpLines(v.kind);
  for (const l of lines.slice(0, v.firstDataLine - firstLine)) strip.line(l);
  const { keys } = yamlFirstDocKeys(data.map((l) => strip.line(l)).join('\n') + '\n');
  const kind = sval(keys, 'kind');
  const format: WatchFormat = !keys.has('object') && (keys.has('items') || kind?.endsWith('List')) ? 'list' : 'yaml';
  return { format, framing: 'yaml', pasted: v.kind };
}

/** Offset of the first line after `start` that starts with `{` or `[` (a JSON value in column 0). */
function firstJsonLine(buf: Buffer, start: number): number | undefined {
  for (let nl = buf.indexOf(10, start); nl !== -1 && nl + 1 < buf.length; nl = buf.indexOf(10, nl + 1)) {
    const c = buf[nl + 1];
    if (c === 123 || c === 91) return nl + 1;
  }
  return undefined;
}

/** Framing for a format forced with `--format`, from the same prefix. */
export function framingForForced(format: WatchFormat, buf: Buffer, final: boolean): SniffResult {
  const start = firstNonBlank(buf);
  if (start === -1) return final ? { error: buf.length === 0 ? 'file is empty' : 'file contains only blank lines' } : { needMore: true };
  // A forced format says how to read text; binary data is still no input of any format.
  const bin = binaryKind(buf.subarray(start));
  if (bin) return { error: bin };
  switch (format) {
    case 'kexp-recording': {
      const first = lineAt(buf, start);
      return !first.complete && !final ? { needMore: true } : { format, framing: 'lines' };
    }
    case 'kubectl-watch-json':
      return { format, framing: 'values' };
    case 'list':
      // A List is JSON (`{`, `[`) or YAML (anything else).
      return { format, framing: buf[start] === 123 || buf[start] === 91 ? 'values' : 'yaml' };
    case 'yaml':
      return { format, framing: 'yaml' };
    case 'watch-events': {
      const first = lineAt(buf, start);
      if (!first.complete && !final) return { needMore: true };
      try {
        JSON.parse(first.text);
        return { format, framing: 'lines' };
      } catch {
        return { format, framing: 'values' };
      }
    }
  }
}
