/**
 * ClusterError: why kexp cannot use the cluster, as one line and a kind. Every live module
 * (kubeconfig, credentials, proxy, API client, reflector, snapshot) fails with it, and
 * src/cli/error-exit.ts maps it to an exit code: `not-found` is 8, every other kind 7.
 *
 * Kinds:
 * - `config`: the kubeconfig (or in-cluster configuration) cannot be used — missing, invalid
 *   YAML, an unreadable certificate, credentials for a plain-http server, a bad proxy URL, a
 *   credential plugin that fails;
 * - `unreachable`, `tls`: the connection (or the proxy's tunnel) failed;
 * - `unauthorized`, `forbidden`: a 401 or 403;
 * - `not-found`: a 404, or an object the command needs does not exist;
 * - `timeout`: past --request-timeout, or the recording time ended before the initial lists;
 * - `http`: any other error status;
 * - `response`: a response that is not what was asked for (not JSON, wrong kind, too large).
 *
 * Its own module, importing nothing, so that every live module can throw it without importing
 * the API client (which imports most of them: no cycle). No I/O; costs nothing.
 */

export type ClusterErrorKind = 'unreachable' | 'tls' | 'unauthorized' | 'forbidden' | 'not-found' | 'timeout' | 'http' | 'response' | 'config';

export class ClusterError extends Error {
  constructor(
    readonly kind: ClusterErrorKind,
    message: string,
    /** The HTTP status, when a response carried one. */
    readonly status?: number,
    /** The response body (a Status object), when there was one. */
    readonly body?: unknown,
  ) {
    super(message);
    this.name = 'ClusterError';
  }
}
