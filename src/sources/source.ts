/**
 * The contract every input adapter in src/sources implements: open a file (or stdin),
 * recognise its format, and stream TimelineEvents in time order while reporting bad
 * input as FILE:LINE problems instead of throwing.
 */
import type { TimeBasis, TimelineEvent } from '../timeline/event.js';

/** One bad line/document. `line` is 1-based; 0 when the problem concerns the whole file. */
export interface InputProblem {
  file: string;
  line: number;
  message: string;
}

/** Receives problems and warnings while a source is read (commands print them to stderr). */
export interface Diagnostics {
  problem(p: InputProblem): void;
  warn(message: string): void;
}

/** What one input covered, for the report's input-coverage section. */
export interface FileCoverage {
  file: string;
  format: string;
  timeBasis: TimeBasis;
  /** Epoch ms of the first and last event (or recording start/end markers). */
  start?: number;
  end?: number;
  /** True when the input says how it ended (a recording's end line). */
  endMarker: boolean;
  events: number;
  problems: number;
  /** Recording header fields, when the input is a kexp recording. */
  header?: Record<string, unknown>;
}

/** Thrown for inputs that cannot be read at all (empty, unrecognised, unreadable). Exit code: input problems. */
export class InputError extends Error {
  constructor(
    readonly file: string,
    readonly line: number,
    message: string,
  ) {
    super(line > 0 ? `${file}:${line}: ${message}` : `${file}: ${message}`);
    this.name = 'InputError';
  }
}

export interface OpenedSource {
  file: string;
  format: string;
  timeBasis: TimeBasis;
  /** Events in time order; `seq` is a per-run tiebreaker assigned by the merger. */
  events: AsyncIterable<TimelineEvent>;
  /** Valid once `events` has been fully consumed. */
  coverage(): FileCoverage;
}
