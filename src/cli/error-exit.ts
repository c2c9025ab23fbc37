/**
 * The one mapping from the error a command ends with to its exit code, by the error's type
 * (README.md, "Exit codes"), as kubectl maps errors in one place (`CheckErr` in
 * k8s.io/kubectl/pkg/cmd/util/helpers.go); the result of a finished command is mapped by
 * report-exit.ts instead. Precedence, first match wins:
 *
 * - InterruptedError — Ctrl-C or SIGTERM ended the work: 130;
 * - UsageError — a flag, an argument or their combination: 2;
 * - InvalidNameError — a name that cannot be a Kubernetes name: 2 when the command line gave
 *   it, 7 when the kubeconfig did;
 * - InputError — an input that cannot be read at all — and RecordingFileError / OutputFileError —
 *   the recording file or an output file (`--html`) cannot be created or written: 6;
 * - ClusterError — `not-found`: 8; every other kind (kubeconfig, reachability, TLS,
 *   credentials, RBAC, a response that is not what was asked for): 7;
 * - anything else is a bug: 1.
 *
 * Pure: no I/O. Loads only the error classes.
 */
import { UsageError } from '../pipeline/usage-error.js';
import { ClusterError } from '../sources/live/cluster-error.js';
import { InvalidNameError } from '../sources/live/names.js';
import { RecordingFileError } from '../sources/live/recording-writer.js';
import { OutputFileError } from './output-file.js';
import { InputError } from '../sources/source.js';
import { EXIT, type ExitCode } from './exit-codes.js';
import { InterruptedError } from './interrupted-error.js';

export function exitCodeForError(err: unknown): ExitCode {
  if (err instanceof InterruptedError) return EXIT.INTERRUPTED;
  if (err instanceof UsageError) return EXIT.USAGE;
  if (err instanceof InvalidNameError) return err.origin === 'argument' ? EXIT.USAGE : EXIT.CLUSTER;
  if (err instanceof InputError || err instanceof RecordingFileError || err instanceof OutputFileError) return EXIT.INPUT;
  if (err instanceof ClusterError) return err.kind === 'not-found' ? EXIT.NOT_FOUND : EXIT.CLUSTER;
  return EXIT.ERROR;
}
