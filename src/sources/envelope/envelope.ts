/**
 * Envelopes: what log pipelines wrap around the records kexp reads — a container runtime's
 * prefix on every line (CRI, `kubectl logs --timestamps`), a one-line JSON wrapper (docker
 * json-file), a log store's export format (CloudWatch, GKE Cloud Logging, EKS, AKS, Elastic /
 * OpenSearch ECS, Grafana Loki). An envelope is recognised, then opened: it yields the payload
 * (the klog line, the audit event) with what the envelope itself knows — its own timestamp,
 * whether the payload continues on the next line — and the payload keeps citing the envelope's
 * FILE:LINE (a record split over CRI `P` lines cites its first line; every audit event of an EKS
 * batch cites the batch's line).
 *
 * Two shapes, both line-oriented:
 * - a `LineEnvelope` wraps one text line: the payload is the rest of the line (after a prefix,
 *   or a string field of a one-line JSON object). It is recognised from the line itself;
 * - a `DocumentEnvelope` wraps one or more payloads inside a parsed JSON document (a line, or a
 *   top-level value of a pretty-printed / array export). It is recognised from the document —
 *   the audit reader decides the input's format from its first document, then opens every
 *   document with the envelope that recognises it.
 *
 * Readers take the envelopes of the registry (registry.ts) in its order; adding an envelope is
 * one file beside this one and one line there. Nothing here does I/O; unwrapping costs what the
 * envelope's own parsing costs (a regular expression or a JSON.parse the reader would do anyway).
 */
import type { AuditRecord } from '../audit/record.js';
import type { LineFilter } from '../audit/line-filter.js';

/** One text line opened by a line envelope (or passed through when it is in none). */
export interface Unwrapped<N extends string = string> {
  /** The payload: the line inside the envelope (the whole line when there is none). */
  inner: string;
  /** The envelope it came in. */
  wrapper?: N;
  /** Epoch ms of the envelope's own timestamp (container runtime / kubectl clock: UTC, with a year). */
  wrapperAt?: number;
  /** The payload continues in the next line's envelope (CRI `P` tag, docker `log` without a final newline). */
  partial?: boolean;
  /** The line is in this envelope but damaged (reported as an input problem; `inner` is empty). */
  error?: string;
}

/**
 * An envelope around one text line.
 *
 * Recognition order (registry.ts `unwrapLogLine`): the first envelope whose `unwrap` answers
 * opens the line; when none does, the first whose `damaged` answers makes it a problem;
 * otherwise the line is its own payload. Two passes, because a damaged form of one envelope
 * may be the valid form of a later one (`<time> stdout: …` is no CRI line but a valid
 * `--timestamps` line).
 */
export interface LineEnvelope<N extends string = string> {
  readonly name: N;
  /** The line opened (`error` set when it is this envelope but damaged), or undefined when it is not this envelope. */
  unwrap(line: string): Unwrapped<N> | undefined;
  /** Checked only after no envelope's `unwrap` answered: why the line is a damaged form of this envelope, or undefined. */
  damaged?(line: string): string | undefined;
  /**
   * Loose recognition for sniffers that only name an input (the audit reader's "this is a
   * container log", the quick KCM-log check of `replay`/`audit` inputs): the payload after the
   * envelope's prefix, or undefined. Looser than `unwrap` (no time validation).
   */
  sniff?(line: string): string | undefined;
}

/** Where a document envelope hands the payloads it finds (the reader's normaliser). */
export interface PayloadSink<R> {
  /** A payload that is a parsed object, read as if it stood alone (it may be another envelope). */
  object(v: Record<string, unknown>, line: number): void;
  /** A payload that is JSON text in a string field (`where` names the field in problems); non-strings are problems. */
  text(s: unknown, line: number, where: string): void;
  /** A finished record: for envelopes that translate rather than wrap (a GKE LogEntry is an audit event in other words). */
  record(r: R): void;
  /** The document should have held payloads but this part cannot be used. */
  problem(line: number, message: string): void;
  /** A part deliberately left out (another log category, a control message), counted by `reason`. */
  skipped(reason: string, line: number): void;
}

/** An envelope around payloads inside one parsed JSON document. */
export interface DocumentEnvelope<N extends string, R> {
  readonly name: N;
  /** True when the document is this envelope (checked in registry order; the first that answers opens it). */
  recognise(v: Record<string, unknown>): boolean;
  /** Hands every payload of `v` (found at `line`) to `sink`, each citing `line`. Never throws. */
  unwrap(v: Record<string, unknown>, line: number, sink: PayloadSink<R>): void;
}

/**
 * What the audit reader needs of an envelope besides opening it: the byte prefilter for JSON
 * lines in this envelope (line-filter.ts: it may let through lines the parser then drops, never
 * the other way round), so irrelevant lines are skipped without decoding them.
 */
export interface AuditPrefiltered {
  lineFilter(allEvents: boolean): LineFilter;
}

/** An envelope around audit events in JSON documents. */
export type AuditDocumentEnvelope<N extends string = string> = DocumentEnvelope<N, AuditRecord> & AuditPrefiltered;

/** An envelope around audit JSON lines (one audit event per line after a text prefix). */
export interface AuditLineEnvelope<N extends string = string> extends LineEnvelope<N>, AuditPrefiltered {
  /** How messages name an input in this envelope, one of its lines, and what it should hold. */
  readonly wording: { input: string; line: string; expected: string };
}

/**
 * The line starts like an RFC 3339 date-time (`2025-03-04T…`, longer than 20 characters): the
 * cheap test in front of the envelopes that put a timestamp first, so plain lines pay no
 * regular expression.
 */
export function startsWithDateTime(line: string): boolean {
  const c0 = line.charCodeAt(0);
  return c0 >= 0x30 && c0 <= 0x39 && line.length > 20 && line[4] === '-' && line[10] === 'T';
}
