/** Maps cluster-access errors to exit codes. */
import { ClusterError } from '../sources/live/api-client.js';
import { EXIT, type ExitCode } from './exit-codes.js';

export function exitCodeForError(err: unknown): ExitCode {
  if (err instanceof ClusterError) return err.kind === 'not-found' ? EXIT.NOT_FOUND : err.kind === 'config' ? EXIT.CLUSTER : EXIT.CLUSTER;
  return EXIT.ERROR;
}
