/**
 * The audit record: one apiserver audit event (audit.k8s.io Event, k8s.io/apiserver
 * pkg/apis/audit/types.go) as kexp reads it, whatever it arrived in — the log backend's line,
 * a webhook EventList, or an envelope (GKE, EKS, AKS, ECS, Loki, CloudWatch: src/sources/envelope).
 *
 * Contract: the fields keep the audit Event's names and meaning; times are epoch milliseconds
 * with the microsecond fraction kept (micro-time.ts); a record that parsed but cannot be used
 * says why in `malformed` instead of being dropped, so the source decides whether to report it.
 * Types only, plus the audit API versions kexp reads; no cost.
 */

export type AuditStage = 'RequestReceived' | 'ResponseStarted' | 'ResponseComplete' | 'Panic';
export type AuditLevel = 'Metadata' | 'Request' | 'RequestResponse';

export interface AuditObjectRef {
  resource?: string;
  namespace?: string;
  name?: string;
  uid?: string;
  /** API group; `''` for the core group (filled from `apiVersion` for v1alpha1 records). */
  apiGroup: string;
  apiVersion?: string;
  resourceVersion?: string;
  subresource?: string;
}

export interface AuditStatusCause {
  reason?: string;
  type?: string;
  message?: string;
  field?: string;
}

export interface AuditResponseStatus {
  code?: number;
  status?: string;
  reason?: string;
  message?: string;
  details?: { name?: string; group?: string; kind?: string; uid?: string; causes?: AuditStatusCause[] };
}

export interface AuditUser {
  username: string;
  uid?: string;
  groups?: string[];
  /** extra["authentication.kubernetes.io/credential-id"][0] */
  credential?: string;
}

/** One audit event, independent of the wrapper it arrived in. */
export interface AuditRecord {
  /** 1-based line of the record (or of the wrapper document holding it). */
  line: number;
  /** The input unit (line, JSON value or YAML document) it came from, for the line account. */
  unit?: number;
  /** Where it came from: `log` (one Event per line), `webhook` (an EventList) or the name of its envelope (src/sources/envelope). */
  origin: string;
  /** `audit.k8s.io/v1`, `audit.k8s.io/v1beta1`, `audit.k8s.io/v1alpha1`, or `gke` for Cloud Logging. */
  apiVersion: string;
  level?: AuditLevel;
  auditID?: string;
  stage: AuditStage;
  requestURI?: string;
  verb: string;
  user: AuditUser;
  impersonatedUser?: AuditUser;
  userAgent?: string;
  sourceIPs?: string[];
  objectRef?: AuditObjectRef;
  responseStatus?: AuditResponseStatus;
  requestObject?: unknown;
  responseObject?: unknown;
  /** Epoch ms (µs fraction) the apiserver received the request. */
  requestReceivedAt?: number;
  /** Epoch ms (µs fraction) this stage was emitted (GKE: the entry timestamp ≈ completion). */
  stageAt?: number;
  annotations?: Record<string, string>;
  /**
   * Why the record cannot be used although it parsed (e.g. `audit event without user`); the
   * source reports it when the record is one kexp needs, and drops the record.
   */
  malformed?: string;
  /** The stageTimestamp (or v1beta1 timestamp) as written, when present but not a valid time. */
  invalidTime?: string;
}

/** The audit.k8s.io versions kexp reads (input-formats.md §1.1). */
export const AUDIT_API_VERSIONS = new Set(['audit.k8s.io/v1', 'audit.k8s.io/v1beta1', 'audit.k8s.io/v1alpha1']);
