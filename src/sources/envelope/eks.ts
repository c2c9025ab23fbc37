/**
 * EKS control-plane audit logs as CloudWatch Logs hands them out (input-formats.md §1.11
 * "EKS"): `aws logs filter-log-events` / `get-log-events` output `{"events":[{"message":…}]}`,
 * and subscription payloads `{"messageType":"DATA_MESSAGE","logEvents":[{"message":…}]}` (a
 * Kinesis / Lambda delivery, gunzipped). Each `message` is one audit Event as a JSON string.
 *
 * Contract: every message is a payload (JSON text; other components' lines in the same log
 * group are skipped by the reader, counted); a subscription's `CONTROL_MESSAGE` is skipped,
 * counted. Every event cites the line (document) of its batch.
 * Cost: the byte prefilter looks for a relevant write among the escaped audit fields of the
 * whole batch line; each message is tested as text before it is parsed (prefilter.ts `innerFilter`).
 */
import { isRecord } from '../../model/objects.js';
import { auditLineFilter } from '../audit/prefilter.js';
import type { AuditDocumentEnvelope } from './envelope.js';

/** `filter-log-events` / `get-log-events` output: an `events` list whose items have a `message`. */
function isEventsExport(v: Record<string, unknown>): v is { events: unknown[] } {
  return Array.isArray(v.events) && v.events.some((e) => isRecord(e) && 'message' in e);
}

export const eks: AuditDocumentEnvelope<'eks'> = {
  name: 'eks',
  recognise: (v) => Array.isArray(v.logEvents) || typeof v.messageType === 'string' || isEventsExport(v),
  unwrap(v, line, sink) {
    if (Array.isArray(v.logEvents) || typeof v.messageType === 'string') {
      if (v.messageType === 'CONTROL_MESSAGE') {
        sink.skipped('cloudwatch-control-message', line);
        return;
      }
      for (const e of Array.isArray(v.logEvents) ? v.logEvents : []) sink.text(isRecord(e) ? e.message : undefined, line, 'logEvents[].message');
      return;
    }
    if (isEventsExport(v)) for (const e of v.events) sink.text(isRecord(e) ? e.message : undefined, line, 'events[].message');
  },
  /** Several audit events per line, JSON-encoded in `message` strings. */
  lineFilter: (allEvents) => auditLineFilter(true, allEvents, false),
};
