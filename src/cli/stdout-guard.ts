/**
 * A result that cannot be delivered — stdout on a full disk, an I/O error — is one line on
 * stderr and exit 6, never an uncaught exception with a stack. @oclif/core installs a
 * process.stdout 'error' listener that swallows EPIPE (`| head`) but rethrows everything else
 * from the listener, which Node reports as an uncaught exception; kexp replaces it.
 * Installed by bin/run.js after @oclif/core is loaded.
 */
import { EXIT } from './exit-codes.js';

let failed: string | undefined;

export function installStdoutGuard(): void {
  process.stdout.removeAllListeners('error');
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err?.code === 'EPIPE') return; // the reader went away (`kexp … | head`): not an error
    if (failed === undefined) {
      failed = err?.code ?? 'error';
      try {
        process.stderr.write(`kexp: cannot write the output: ${failed}\n`);
      } catch {
        /* stderr is gone too */
      }
    }
  });
  // The command sets its own exit code when it ends; a lost result overrides it.
  process.on('exit', () => {
    if (failed !== undefined) process.exitCode = EXIT.INPUT;
  });
}
