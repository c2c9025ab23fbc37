/**
 * Maps cluster-access errors to exit codes: a name given on the command line that cannot be a
 * Kubernetes name is a usage error (2); one from the kubeconfig, and every other cluster-access
 * failure (unreachable, TLS, credentials, RBAC, a response that is not what was asked for) is 7;
 * a missing object is 8. Anything else is a bug (1).
 */
import { ClusterError } from '../sources/live/cluster-error.js';
import { InvalidNameError } from '../sources/live/names.js';
import { EXIT, type ExitCode } from './exit-codes.js';

export function exitCodeForError(err: unknown): ExitCode {
  if (err instanceof InvalidNameError) return err.origin === 'argument' ? EXIT.USAGE : EXIT.CLUSTER;
  if (err instanceof ClusterError) return err.kind === 'not-found' ? EXIT.NOT_FOUND : EXIT.CLUSTER;
  return EXIT.ERROR;
}
