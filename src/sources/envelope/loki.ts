/**
 * Grafana Loki query results, `logcli query --output=jsonl`: one line per log entry,
 * `{"labels":{…},"line":"{…audit json…}","timestamp":"…"}`, where `line` is what was shipped —
 * here the apiserver's audit Event as a JSON string.
 *
 * Contract: a JSON object whose `line` is a string, with `labels` or a string `timestamp`. The
 * payload is `line` (JSON text); a stream holds whatever was shipped, so lines of other
 * components (klog text, other text) are skipped by the reader, counted, never problems.
 * Loki's timestamp is not used (the event's stageTimestamp is). Each event cites its line.
 * Cost: the byte prefilter reads the escaped audit fields inside `line` (one event per line);
 * `line` is tested as text before it is parsed (prefilter.ts `innerFilter`).
 */
import { isRecord } from '../../model/objects.js';
import { auditLineFilter } from '../audit/prefilter.js';
import type { AuditDocumentEnvelope } from './envelope.js';

export const loki: AuditDocumentEnvelope<'loki'> = {
  name: 'loki',
  recognise: (v) => typeof v.line === 'string' && (isRecord(v.labels) || typeof v.timestamp === 'string'),
  unwrap(v, line, sink) {
    sink.text(v.line, line, 'line');
  },
  /** One audit event per line, JSON-encoded in `line`. */
  lineFilter: (allEvents) => auditLineFilter(true, allEvents, true),
};
