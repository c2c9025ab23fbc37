/**
 * AKS diagnostic settings' audit records (input-formats.md §1.11 "AKS"): a storage-account
 * export `{"records":[{"category":"kube-audit"|"kube-audit-admin","properties":{"log":"{…}"}}]}`
 * or one record per line (Event Hubs, Log Analytics exports). `properties.log` is the audit
 * Event as a JSON string (or, re-serialised, as an object).
 *
 * Contract: records of other categories (kube-apiserver, kube-controller-manager, …) are
 * skipped, counted by category; a record that is not an object or has no `properties.log` is a
 * problem. Every event cites the line (document) of its record list.
 * Cost: the byte prefilter looks for a relevant write among the escaped audit fields of the
 * line; each `log` string is tested as text before it is parsed (prefilter.ts `innerFilter`).
 */
import { isRecord } from '../../model/objects.js';
import { auditLineFilter } from '../audit/prefilter.js';
import type { AuditDocumentEnvelope, PayloadSink } from './envelope.js';
import type { AuditRecord } from '../audit/record.js';

function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

function fromRecord(r: unknown, line: number, sink: PayloadSink<AuditRecord>): void {
  if (!isRecord(r)) {
    sink.problem(line, 'AKS records[] entry is not an object');
    return;
  }
  const category = str(r.category) ?? str(r.Category);
  if (category !== undefined && category !== 'kube-audit' && category !== 'kube-audit-admin') {
    sink.skipped(`aks-category:${category}`, line);
    return;
  }
  const props = isRecord(r.properties) ? r.properties : undefined;
  const log = props?.log;
  if (log === undefined) {
    sink.problem(line, 'AKS record without properties.log');
    return;
  }
  if (isRecord(log)) {
    sink.object(log, line);
    return;
  }
  sink.text(log, line, 'records[].properties.log');
}

export const aks: AuditDocumentEnvelope<'aks'> = {
  name: 'aks',
  recognise: (v) => Array.isArray(v.records) || (typeof v.category === 'string' && isRecord(v.properties)),
  unwrap(v, line, sink) {
    if (Array.isArray(v.records)) for (const r of v.records) fromRecord(r, line, sink);
    else fromRecord(v, line, sink);
  },
  /** Audit events JSON-encoded in `properties.log` strings, one or several records per line. */
  lineFilter: (allEvents) => auditLineFilter(true, allEvents, false),
};
