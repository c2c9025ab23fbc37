/**
 * CloudWatch Logs export lines (an S3 `create-export-task`, or `aws logs … --output text` with
 * the time): `2025-03-04T10:15:02.131Z {…}` — the time CloudWatch stamped, one space, then the
 * message, here an apiserver audit Event as the log backend wrote it (input-formats.md §1.11
 * "EKS"). Plain `message` lines are the log backend's own and need no envelope.
 *
 * Contract: the prefix is an ISO-8601 time with a zone followed by one space and a `{`; the
 * payload is the rest of the line, read like a log-backend line (the audit reader accepts this
 * envelope only around `audit-log` payloads). CloudWatch's time is not used: the event's
 * stageTimestamp is. A line without the prefix that is JSON anyway is read as it is; any other
 * is a problem the reader words with `wording.line`.
 * Cost: the byte prefilter finds the payload within the first 40 bytes without decoding and
 * runs the log backend's filter from there (its fast path included); `unwrap` is one regular
 * expression, on the lines the prefilter lets through.
 */
import { auditLineFilter } from '../audit/prefilter.js';
import type { LineFilter } from '../audit/line-filter.js';
import type { AuditLineEnvelope, Unwrapped } from './envelope.js';

/** The prefix to strip (group 0). */
const CLOUDWATCH_LINE_RE = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:?\d\d) (?=\{)/;

/** Where the JSON starts after a CloudWatch export line's time prefix (`…Z {`), or -1. */
function messageStart(buf: Buffer, start: number, end: number): number {
  // `2025-03-04T10:15:02.131Z ` is 25 bytes; offsets and long fractions allow a few more.
  const limit = Math.min(end - 1, start + 40);
  if (buf[start + 4] !== 45 || buf[start + 10] !== 84) return -1;
  for (let i = start + 19; i < limit; i++) if (buf[i] === 32) return buf[i + 1] === 123 ? i + 1 : -1;
  return -1;
}

export const cloudwatchLines: AuditLineEnvelope<'cloudwatch-lines'> = {
  name: 'cloudwatch-lines',
  wording: {
    input: 'a CloudWatch Logs export',
    line: 'a CloudWatch export line `<time> <audit JSON>`',
    expected: 'expected one audit event per line after the time',
  },
  unwrap(line: string): Unwrapped<'cloudwatch-lines'> | undefined {
    const m = CLOUDWATCH_LINE_RE.exec(line);
    return m ? { inner: line.slice(m[0].length), wrapper: 'cloudwatch-lines' } : undefined;
  },
  /** The log-backend prefilter on the bytes after the time; a line without the time prefix goes to the parser. */
  lineFilter(allEvents: boolean): LineFilter {
    const inner = auditLineFilter(false, allEvents, true);
    return (buf, start, end) => {
      const json = messageStart(buf, start, end);
      return json < 0 || inner(buf, json, end);
    };
  },
};
