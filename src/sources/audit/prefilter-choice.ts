/**
 * Which byte prefilter an audit input is read with, as a plain value: the audit source decides it
 * from the sniffed format and its options, and the reader thread (reader-thread.ts), which cannot
 * be handed a closure, builds the same filter from it.
 *
 * Contract: `lineFilterOf(prefilterChoice(…))` is the filter audit-source.ts set on its reader
 * before the reader thread existed — the lease pass reads lines naming `leases`, the log and
 * webhook backends and the line envelopes their own prefilter (prefilter.ts, src/sources/envelope),
 * and no filter when the prefilter is off, the input is not JSON lines, or the format is not known
 * yet (`undefined`: decided when the first record is parsed).
 * Cost: none per line; building a filter allocates its needle scanners once.
 */
import { auditEnvelope } from '../envelope/registry.js';
import { LEASE_NEEDLE } from './lease.js';
import type { LineFilter } from './line-filter.js';
import { auditLineFilter } from './prefilter.js';
import type { AuditFormat } from './sniff.js';

export type PrefilterChoice = { kind: 'none' } | { kind: 'lease' } | { kind: 'format'; format: AuditFormat; allEvents: boolean };

export interface PrefilterInputs {
  /** The lease pass (audit-source.ts `leaseWrites`). */
  leaseWrites: boolean;
  /** The byte prefilter is on (AuditSourceOptions.prefilter). */
  prefilter: boolean;
  allEvents: boolean;
  /** JSON lines; values and YAML documents are never prefiltered. */
  lines: boolean;
  /** The sniffed format; undefined when the first record did not fit in the sniff. */
  format: AuditFormat | undefined;
}

/** The prefilter for these inputs; undefined while the format is not known. */
export function prefilterChoice(i: PrefilterInputs): PrefilterChoice | undefined {
  if (i.leaseWrites && i.lines) return { kind: 'lease' };
  if (!i.prefilter || !i.lines) return { kind: 'none' };
  if (i.format === undefined) return undefined;
  return { kind: 'format', format: i.format, allEvents: i.allEvents };
}

/** The line filter of a choice (undefined: every line is parsed). */
export function lineFilterOf(c: PrefilterChoice): LineFilter | undefined {
  switch (c.kind) {
    case 'none':
      return undefined;
    case 'lease':
      return (buf, start, end) => {
        const i = buf.indexOf(LEASE_NEEDLE, start);
        return i >= 0 && i < end;
      };
    case 'format': {
      if (c.format === 'audit-log') return auditLineFilter(false, c.allEvents, true);
      if (c.format === 'audit-webhook') return auditLineFilter(false, c.allEvents, false);
      const env = auditEnvelope(c.format);
      return env ? env.lineFilter(c.allEvents) : undefined;
    }
  }
}
