/**
 * InterruptedError: the command was stopped by one Ctrl-C (SIGINT) or SIGTERM before it could
 * finish its work (exit 130, src/cli/error-exit.ts). A command makes one of whatever ended it
 * once its signal (KexpCommand.abortOnSignals) has fired; the message is the line it prints.
 * `endedBySignal` tells, for the live commands, whether an error is the signal's doing: an
 * aborted request fails as a ClusterError (the API client's) or as an AbortError (a timer, a
 * stream), while any other error is reported as itself even after the signal.
 *
 * No I/O; costs nothing.
 */
import { ClusterError } from '../sources/live/cluster-error.js';

export class InterruptedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InterruptedError';
  }
}

/** Whether `err` is what a request cut short by the signal fails with (see the module comment). */
export function endedBySignal(err: unknown): boolean {
  return err instanceof ClusterError || (err as Error | undefined)?.name === 'AbortError';
}
