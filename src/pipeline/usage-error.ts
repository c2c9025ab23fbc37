/**
 * UsageError: what the user asked for cannot be done as asked — a flag's value, an argument,
 * a combination of them — and the one line says why (exit 2, src/cli/error-exit.ts). kubectl's
 * `UsageErrorf` (k8s.io/kubectl/pkg/cmd/util/helpers.go) in kexp's shape: the commands' validate
 * step turns whatever its checks throw into one (`UsageError.of`), and a pipeline throws one
 * when the problem shows only once the input is read (a ReplicaSet name that several
 * namespaces hold, without -n).
 *
 * Its own module in the lowest layer that raises it, importing nothing, so every command and
 * pipeline can throw it. No I/O; costs nothing.
 */

export class UsageError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'UsageError';
  }

  /** `err` as a UsageError with the same message (`err` itself when it is one). */
  static of(err: unknown): UsageError {
    if (err instanceof UsageError) return err;
    return new UsageError(err instanceof Error ? err.message : String(err), { cause: err });
  }
}
