/**
 * Audit events as Elastic (Filebeat's Kubernetes audit integration) and OpenSearch store them,
 * in the Elastic Common Schema (input-formats.md §1.11): the audit Event under
 * `kubernetes.audit` (nested, or as the dotted key `"kubernetes.audit"`), one document per
 * line; one search hit per line (`{"_index",…,"_source":{…}}`, elasticdump); or a search-API
 * response `{"hits":{"hits":[{"_source":{…}}]}}`.
 *
 * Contract: the payload is the `kubernetes.audit` object, read as an audit Event; one whose
 * ingest pipeline dropped `kind`/`apiVersion` is still an `audit.k8s.io/v1` Event, one with none
 * of apiVersion, auditID or stage is a problem. A hit's `_source` may also be a bare audit
 * Event (re-indexed); a hit of anything else is skipped, counted; a hit without an object
 * `_source` is a problem. Every event cites the line (document) it was found in.
 * Cost: the log backend's byte prefilter decides on the unescaped fields inside the document
 * (less its fast path for the apiserver's own first bytes); a line holding a whole search
 * response goes to the parser.
 */
import { isRecord } from '../../model/objects.js';
import { NeedleScanner, type LineFilter } from '../audit/line-filter.js';
import { auditLineFilter } from '../audit/prefilter.js';
import type { AuditRecord } from '../audit/record.js';
import type { AuditDocumentEnvelope, PayloadSink } from './envelope.js';

type Obj = Record<string, unknown>;

/** The audit Event of an ECS document: `kubernetes.audit` nested or as a dotted key. */
function ecsAudit(v: Obj): Obj | undefined {
  const k = v.kubernetes;
  if (isRecord(k) && isRecord(k.audit)) return k.audit;
  const dotted = v['kubernetes.audit'];
  return isRecord(dotted) ? dotted : undefined;
}

/** One search hit: its `_source` is an ECS document (or, re-indexed, a bare audit Event). */
function fromHit(h: unknown, line: number, sink: PayloadSink<AuditRecord>): void {
  const src = isRecord(h) ? h._source : undefined;
  if (!isRecord(src)) {
    sink.problem(line, 'search hit without an object _source');
    return;
  }
  if (ecsAudit(src) === undefined && src.kind === undefined) {
    sink.skipped('ecs-non-audit', line);
    return;
  }
  sink.object(src, line);
}

export const ecs: AuditDocumentEnvelope<'ecs'> = {
  name: 'ecs',
  recognise: (v) => ecsAudit(v) !== undefined || isRecord(v._source) || (isRecord(v.hits) && Array.isArray(v.hits.hits)),
  unwrap(v, line, sink) {
    const audit = ecsAudit(v);
    if (audit !== undefined) {
      // Tolerate documents whose pipeline dropped kind/apiVersion (they are audit Events).
      if (audit.kind === undefined) audit.kind = 'Event';
      if (audit.kind === 'Event' && !('apiVersion' in audit) && !('auditID' in audit) && !('stage' in audit)) {
        sink.problem(line, 'ECS document whose kubernetes.audit has no apiVersion, auditID or stage');
        return;
      }
      sink.object(audit, line);
      return;
    }
    if (isRecord(v._source)) {
      fromHit(v, line, sink);
      return;
    }
    if (isRecord(v.hits) && Array.isArray(v.hits.hits)) for (const h of v.hits.hits) fromHit(h, line, sink);
  },
  /** The log backend's prefilter on the document's unescaped audit fields; a search response (`"hits":[`) goes to the parser. */
  lineFilter(allEvents: boolean): LineFilter {
    const inner = auditLineFilter(false, allEvents, true);
    const hitsList = new NeedleScanner(Buffer.from('"hits":['));
    return (buf, start, end) => hitsList.find(buf, start, end) >= 0 || inner(buf, start, end);
  },
};
