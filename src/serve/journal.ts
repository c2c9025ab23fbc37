/**
 * The journal: a rolling, in-memory kexp recording — what the reflectors delivered, in the
 * recording format of `kexp record` (docs/recording-format.md), so that the very same reader and
 * engine replay it. `kexp serve` keeps one per owner (registry.ts, the lines routed by
 * line-routing.ts) and replays its `recording(now)` through pipeline/replay-files.ts, as
 * `kexp explain --watch` replays its temporary recording.
 *
 * Contract:
 * - `eventLine`/`gapLine` build one recording line each, numbered by the caller (`seq`: the line's
 *   number in serve's whole stream, what evidence cites), the object redacted exactly as
 *   `kexp record` redacts (sources/live/redaction.ts: allow-list; no Secret content, no
 *   credential); `append` adds one (the same line object may be appended to several journals);
 *   `event`/`gap` build and append, numbering the journal's own lines. BOOKMARKs are not kept.
 * - `compact(now)` bounds the journal by time: lines received before `now − historyMs` are folded
 *   into the base — the last state of every object they leave (a DELETED removes it), with the
 *   seq of the line that left it — and their gap lines dropped. The base is written first as a
 *   synthetic `initial-list` stamped at the fold's time, owners (ReplicaSets, RCs, DaemonSets,
 *   Jobs) after the other kinds, as pipeline/record-live.ts orders a real initial list. A replay
 *   therefore starts, like every recording, with "what came before is unknown" at the base's time
 *   (before any fold: at `startedAt`, serve's start). The fold loses nothing kexp can still use
 *   when `historyMs` exceeds the 5-minute ExpectationsTimeout plus a sync: the controller's own
 *   record of anything older has expired (pkg/controller/controller_utils.go,
 *   ExpectationsTimeout), so no gate or leak of it can still be open.
 * - `recording(now, h)` is a complete recording — header, base, lines, and an end line at `now` —
 *   with the seq of each of its lines; `text` the same without them.
 *
 * Cost: memory O(objects) for the base (one redacted object each, like an informer cache) plus
 * O(lines kept) (shared line objects are not copied); `recording` is O(that) per call; `compact`
 * is O(lines folded). Pure bookkeeping: no I/O, no clock (times are given).
 */
import { redactObject } from '../sources/live/redaction.js';
import { formatRecordingLine, formatRecvTime, recordingHeader, type RecordingHeader, type RecordingWatch } from '../sources/watch/recording-format.js';

/** The resources whose objects are owners: listed after the others in an initial list. */
export const OWNER_RESOURCES: ReadonlySet<string> = new Set(['replicasets', 'replicationcontrollers', 'daemonsets', 'jobs']);

/** One recording line of the journal; shared (the same object) by every journal it is routed to. */
export interface JournalLine {
  at: number;
  src: string;
  /** The serialized recording line (with its newline). */
  text: string;
  /** The line's number in serve's whole stream (1, 2, …): what evidence cites (`serve-journal:SEQ`). */
  seq: number;
  /** Event lines: the object's key in the base and its (redacted) object, to fold. */
  key?: string;
  type?: string;
  object?: Record<string, unknown>;
}

/** A complete recording and, for each of its lines (1-based, index LINE − 1), the journal seq it carries (0: the header, −1: the end line). */
export interface JournalRecording {
  text: string;
  seqs: number[];
}

/** Builds an event line (the object redacted unless `redact` is false). */
export function eventLine(seq: number, src: string, type: string, object: Record<string, unknown>, recvAt: number, synthetic?: 'initial-list' | 'relist', redact = true): JournalLine {
  const obj = redact ? redactObject(object) : object;
  const line: Record<string, unknown> = { recv: formatRecvTime(recvAt), src, event: { type, object: obj } };
  if (synthetic) line.synthetic = synthetic;
  return { at: recvAt, src, text: JSON.stringify(line) + '\n', seq, key: uidKey(src, obj), type, object: obj };
}

/** Builds a gap line (a watch relist or a reconnect that lost continuity). */
export function gapLine(seq: number, src: string, reason: 'watch-relist' | 'watch-reconnect', detail: string, recvAt: number): JournalLine {
  return { at: recvAt, src, seq, text: formatRecordingLine({ recv: formatRecvTime(recvAt), src, gap: { reason, detail } }) };
}

export interface JournalHeader {
  kexpVersion: string;
  serverVersion?: string;
  namespace?: string;
  watches: RecordingWatch[];
}

function uidKey(src: string, o: Record<string, unknown>): string {
  const m = (o.metadata ?? {}) as { uid?: unknown; namespace?: unknown; name?: unknown };
  return `${src}\u0000${typeof m.uid === 'string' && m.uid ? m.uid : `${String(m.namespace ?? '')}/${String(m.name ?? '')}`}`;
}

export class Journal {
  private lines: JournalLine[] = [];
  /** Index of the first live line (lines before it were folded; the array is trimmed lazily). */
  private head = 0;
  /** The state the folded lines leave: key → { src, object, seq of the line that left it }. */
  private readonly base = new Map<string, { src: string; object: Record<string, unknown>; seq: number }>();
  /** When the base stands (the receive time of the last folded line); undefined while empty. */
  private baseAt?: number;
  private startedAt?: number;
  /** Lines appended since the journal began (never decreases). */
  appended = 0;

  /** `startedAt`: when what the journal covers begins before any line (serve's start, for a journal of one owner group). */
  constructor(private readonly historyMs: number, private readonly redact = true, startedAt?: number) {
    this.startedAt = startedAt;
  }

  /** Appends a watch event (BOOKMARKs are skipped). */
  event(src: string, type: string, object: Record<string, unknown>, recvAt: number, synthetic?: 'initial-list' | 'relist'): void {
    if (type === 'BOOKMARK') return;
    this.append(eventLine(this.appended + 1, src, type, object, recvAt, synthetic, this.redact));
  }

  /** Appends a gap line (a watch relist or a reconnect that lost continuity). */
  gap(src: string, reason: 'watch-relist' | 'watch-reconnect', detail: string, recvAt: number): void {
    this.append(gapLine(this.appended + 1, src, reason, detail, recvAt));
  }

  /** Appends a line built by eventLine/gapLine (lines are appended in receive order). */
  append(line: JournalLine): void {
    this.startedAt ??= line.at;
    this.lines.push(line);
    this.appended++;
  }

  /** Folds every line received before `now − historyMs` into the base. Returns how many were folded. */
  compact(now: number): number {
    const horizon = now - this.historyMs;
    let i = this.head;
    while (i < this.lines.length && this.lines[i]!.at < horizon) {
      const l = this.lines[i]!;
      if (l.key !== undefined) {
        if (l.type === 'DELETED') this.base.delete(l.key);
        else this.base.set(l.key, { src: l.src, object: l.object!, seq: l.seq });
      }
      this.baseAt = l.at;
      i++;
    }
    const folded = i - this.head;
    this.head = i;
    // Trim the array once the folded prefix is large, so it is not copied for every line folded.
    if (this.head > 1024 && this.head * 2 > this.lines.length) {
      this.lines = this.lines.slice(this.head);
      this.head = 0;
    }
    if (this.head === this.lines.length && this.head > 0) {
      this.lines = [];
      this.head = 0;
    }
    return folded;
  }

  /** Lines kept (not yet folded) and objects in the base. */
  get size(): { lines: number; baseObjects: number; bytes: number } {
    let bytes = 0;
    for (let i = this.head; i < this.lines.length; i++) bytes += this.lines[i]!.text.length;
    return { lines: this.lines.length - this.head, baseObjects: this.base.size, bytes };
  }

  /** Whether the base holds an owner object (a ReplicaSet, RC, DaemonSet or Job). */
  get baseHasOwner(): boolean {
    for (const b of this.base.values()) if (OWNER_RESOURCES.has(b.src)) return true;
    return false;
  }

  /** Receive time of the oldest line not yet folded (undefined when none). */
  get oldestAt(): number | undefined {
    return this.head < this.lines.length ? this.lines[this.head]!.at : undefined;
  }

  /** Receive time of the newest line (undefined when none is kept). */
  get newestAt(): number | undefined {
    return this.head < this.lines.length ? this.lines[this.lines.length - 1]!.at : undefined;
  }

  /** When what the journal covers begins: the base's time, else the first line's. */
  get coverageStart(): number | undefined {
    return this.baseAt ?? this.startedAt;
  }

  /** The journal as one complete kexp recording ending at `now`. */
  text(now: number, h: JournalHeader): string {
    return this.recording(now, h).text;
  }

  /** The journal as one complete kexp recording ending at `now`, with the seq each of its lines carries. */
  recording(now: number, h: JournalHeader): JournalRecording {
    const start = this.coverageStart ?? now;
    const header: Omit<RecordingHeader, 'kexpRecording'> = {
      kexpVersion: h.kexpVersion,
      ...(h.serverVersion ? { serverVersion: h.serverVersion } : {}),
      ...(h.namespace ? { namespace: h.namespace } : {}),
      startedAt: formatRecvTime(start),
      watches: h.watches,
      redacted: this.redact,
    };
    const out: string[] = [formatRecordingLine(recordingHeader(header))];
    const seqs: number[] = [0];
    if (this.baseAt !== undefined) {
      const recv = formatRecvTime(this.baseAt);
      const owners: string[] = [];
      const ownerSeqs: number[] = [];
      for (const { src, object, seq } of this.base.values()) {
        const line = JSON.stringify({ recv, src, event: { type: 'ADDED', object }, synthetic: 'initial-list' }) + '\n';
        if (OWNER_RESOURCES.has(src)) {
          owners.push(line);
          ownerSeqs.push(seq);
        } else {
          out.push(line);
          seqs.push(seq);
        }
      }
      out.push(...owners);
      seqs.push(...ownerSeqs);
    }
    for (let i = this.head; i < this.lines.length; i++) {
      out.push(this.lines[i]!.text);
      seqs.push(this.lines[i]!.seq);
    }
    out.push(formatRecordingLine({ recv: formatRecvTime(Math.max(now, start)), end: { reason: 'duration', detail: 'kexp serve: the journal as of this evaluation' } }));
    seqs.push(-1);
    return { text: out.join(''), seqs };
  }
}
