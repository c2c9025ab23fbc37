/**
 * The envelope registry: which envelopes (envelope.ts) each reader opens, in recognition order.
 * Adding an envelope is its file and one line in the list below; the reader and its `wrapped`
 * counts follow.
 *
 * Contract: the order is the recognition order — the first envelope that recognises a line or
 * document opens it — and is part of behaviour (a CRI line would also pass for a
 * `--timestamps` line, so CRI comes first). The KCM-log list's order is also the order of the
 * `wrapped` counts in `kexp kcm-log -o json`.
 * Cost: a line is offered to each envelope of its list in turn; each declines on its first
 * character unless it could be one, so a plain line costs a few character tests.
 */
import { cri } from './cri.js';
import { dockerJsonFile } from './docker-json-file.js';
import type { Unwrapped } from './envelope.js';
import { kubectlTimestamps } from './kubectl-timestamps.js';

/** Envelopes around kube-controller-manager log lines (`kexp kcm-log`, `--kcm-log`). */
export const LOG_LINE_ENVELOPES = [cri, dockerJsonFile, kubectlTimestamps] as const;

export type LogEnvelopeName = (typeof LOG_LINE_ENVELOPES)[number]['name'];

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
