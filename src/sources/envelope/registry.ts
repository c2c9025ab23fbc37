/**
 * The envelope registry: which envelopes (envelope.ts) each reader opens, in recognition order.
 * Adding an envelope is its file and one line in one of the lists below; the readers, their
 * format names (`AuditFormat`, the KCM log's `wrapped` counts) and their prefilters follow.
 *
 * Contract: the order is the recognition order — the first envelope that recognises a line or
 * document opens it — and is part of behaviour (a CRI line would also pass for a
 * `--timestamps` line, so CRI comes first). The KCM-log list's order is also the order of the
 * `wrapped` counts in `kexp kcm-log -o json`.
 * Cost: a line is offered to each envelope of its list in turn; each declines on its first
 * character unless it could be one, so a plain line costs a few character tests.
 */
import { aks } from './aks.js';
import { cloudwatchLines } from './cloudwatch-lines.js';
import { cri } from './cri.js';
import { dockerJsonFile } from './docker-json-file.js';
import { ecs } from './ecs.js';
import { eks } from './eks.js';
import type { AuditDocumentEnvelope, AuditLineEnvelope, Unwrapped } from './envelope.js';
import { gke } from './gke.js';
import { kubectlTimestamps } from './kubectl-timestamps.js';
import { loki } from './loki.js';

/** Envelopes around kube-controller-manager log lines (`kexp kcm-log`, `--kcm-log`). */
export const LOG_LINE_ENVELOPES = [cri, dockerJsonFile, kubectlTimestamps] as const;

/** Envelopes around audit JSON lines (`kexp audit`): the payload is one log-backend line. */
export const AUDIT_LINE_ENVELOPES = [cloudwatchLines] as const;

/** Envelopes around audit events inside JSON documents (`kexp audit`). */
export const AUDIT_DOCUMENT_ENVELOPES = [gke, eks, aks, ecs, loki] as const;

export type LogEnvelopeName = (typeof LOG_LINE_ENVELOPES)[number]['name'];
export type AuditDocumentEnvelopeName = (typeof AUDIT_DOCUMENT_ENVELOPES)[number]['name'];
export type AuditEnvelopeName = (typeof AUDIT_LINE_ENVELOPES)[number]['name'] | AuditDocumentEnvelopeName;

/**
 * Opens a kube-controller-manager log line: the first envelope whose strict form matches,
 * else a problem when the line is a damaged form of one, else the line itself.
 */
export function unwrapLogLine(line: string): Unwrapped<LogEnvelopeName> {
  for (const e of LOG_LINE_ENVELOPES) {
    const u = e.unwrap(line);
    if (u !== undefined) return u;
  }
  for (const e of LOG_LINE_ENVELOPES) {
    const error = e.damaged?.(line);
    if (error !== undefined) return { inner: '', error };
  }
  return { inner: line };
}

/**
 * A quick look through the envelopes' loose forms, for sniffers: each envelope's prefix is
 * stripped in turn (a CRI line around a `--timestamps` line loses both).
 */
export function sniffLogLine(line: string): string {
  let inner = line;
  for (const e of LOG_LINE_ENVELOPES) inner = e.sniff?.(inner) ?? inner;
  return inner;
}

/** The audit envelope of a format name, if it is one. */
export function auditEnvelope(name: string): AuditLineEnvelope | AuditDocumentEnvelope | undefined {
  return AUDIT_LINE_ENVELOPES.find((e) => e.name === name) ?? AUDIT_DOCUMENT_ENVELOPES.find((e) => e.name === name);
}

/** The audit line envelope of a format name, if it is one. */
export function auditLineEnvelope(name: string | undefined): AuditLineEnvelope | undefined {
  return AUDIT_LINE_ENVELOPES.find((e) => e.name === name);
}
