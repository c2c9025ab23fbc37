/**
 * The kube-controller-manager's Lease as the audit log shows it: each successful write
 * (create / update / patch) of coordination.k8s.io/v1 leases kube-system/kube-controller-manager,
 * with the holder and times the written object carries (LeaseSpec: holderIdentity, acquireTime,
 * renewTime, leaseDurationSeconds, leaseTransitions). client-go's LeaseLock (tools/leaderelection/
 * resourcelock/leaselock.go) creates it on the first acquire and updates it on every renewal and
 * takeover, so the writes are who led when (analysis/engine/leadership.ts leaseGaps).
 *
 * Contract: `leaseWriteOf(rec, file)` returns the write, or undefined for any other record, a
 * failed or unfinished write, or a write whose body (responseObject, else requestObject; a patch
 * body only when it carries the spec fields) does not show the holder. `LEASE_NEEDLE` is the byte
 * prefilter of the lease pass: a line without it holds no Lease write.
 * Cost: O(1) per record. Pure: no I/O, no clock.
 */
import { isRecord } from '../../model/objects.js';
import { parseMicroTime } from './micro-time.js';
import type { AuditRecord } from './record.js';

/** The lock kube-controller-manager leads with (--leader-elect-resource-namespace/-name defaults). */
export const KCM_LEASE = { namespace: 'kube-system', name: 'kube-controller-manager' } as const;

/** A line of an audit log that may hold a write of a Lease (the objectRef's resource; unquoted, as an envelope escapes the quotes). */
export const LEASE_NEEDLE = Buffer.from('leases');

/** One successful write of the kube-controller-manager Lease. */
export interface LeaseWrite {
  /** When the apiserver received the write (epoch ms). */
  at: number;
  holder: string;
  acquireTime?: number;
  renewTime?: number;
  leaseDurationSeconds?: number;
  source: { file: string; line: number };
}

const WRITES = new Set(['create', 'update', 'patch']);

export function leaseWriteOf(rec: AuditRecord, file: string): LeaseWrite | undefined {
  const ref = rec.objectRef;
  if (!ref || ref.resource !== 'leases' || ref.apiGroup !== 'coordination.k8s.io' || ref.subresource) return undefined;
  if (ref.namespace !== KCM_LEASE.namespace || ref.name !== KCM_LEASE.name) return undefined;
  if (rec.stage !== 'ResponseComplete' || !WRITES.has(rec.verb)) return undefined;
  const code = rec.responseStatus?.code;
  if (code === undefined || code >= 300) return undefined;
  const spec = specOf(rec.responseObject) ?? specOf(rec.requestObject);
  if (!spec || typeof spec.holderIdentity !== 'string') return undefined;
  const at = rec.requestReceivedAt ?? rec.stageAt;
  if (at === undefined) return undefined;
  const w: LeaseWrite = { at, holder: spec.holderIdentity, source: { file, line: rec.line } };
  const acquire = parseMicroTime(spec.acquireTime);
  const renew = parseMicroTime(spec.renewTime);
  if (acquire !== undefined) w.acquireTime = acquire;
  if (renew !== undefined) w.renewTime = renew;
  if (typeof spec.leaseDurationSeconds === 'number' && spec.leaseDurationSeconds > 0) w.leaseDurationSeconds = spec.leaseDurationSeconds;
  return w;
}

function specOf(body: unknown): Record<string, unknown> | undefined {
  if (!isRecord(body) || !isRecord(body.spec)) return undefined;
  return body.spec;
}
