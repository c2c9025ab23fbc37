/**
 * The V8 heap settings kexp runs a large input with, and the one decision bin/run.js makes
 * about them before anything else loads: whether to start the command again in a Node with
 * those settings (`heapRelaunch`).
 *
 * Why: on Node 24 a long replay lets V8's young generation grow to two 64 MiB semi-spaces,
 * and the old generation is allowed to grow to a multiple of what a full collection leaves
 * live. Measured on the 256 MB and 1 GB audit logs (bench/README.md, "Issue #25 item 3"), kexp's
 * live heap after a forced collection is 50–100 MB while its peak RSS is 390–470 MB: most of
 * the peak is garbage V8 keeps room for, not objects kexp holds. `--max-semi-space-size=16` caps
 * the young generation at 2 × 16 MiB at no measured CPU cost. The rest of the peak is the old
 * generation: after each full collection V8 lets it grow to up to 4 × what stayed live (its
 * dynamic growing factor), so at 1 GB (~100 MB live) it reaches 250–290 MB before the next one;
 * `--heap-growing-percent=150` makes that 2.5 × for `kexp audit` (AUDIT_HEAP_FLAGS), and a collection between the
 * replay and the report (src/pipeline/phase-collection.ts `collectBetweenPhases`) keeps the report's allocation off the replay's
 * garbage. The flags must be given when the process starts (V8 sizes the young generation when it creates the
 * heap; `v8.setFlagsFromString` later has no effect on it), hence the relaunch.
 *
 * Contract: `heapRelaunch(argv, env, execArgv, fileSize)` returns the Node arguments to start
 * the command with, or undefined to run it in this process. It relaunches only when
 * - the files named on the command line (any argument that names an existing regular file,
 *   flag values included: a --kcm-log is input too) add up to at least RELAUNCH_BYTES — below
 *   that a run is short and a second Node start (`node -e 0`: 71–84 ms, bench/README.md
 *   "Start-up") is a large share of it (stdin, whose size is unknown, and directories are not counted: NODE_OPTIONS
 *   sets the flags there);
 * - the user set none of V8's heap sizes (in NODE_OPTIONS or the node arguments): theirs win;
 * - this process is not already the relaunched one (RELAUNCHED_ENV), so it never loops.
 * The relaunched process inherits stdin, stdout, stderr and the environment; bin/run.js passes
 * its exit code or signal on. Reports are byte for byte the same (bench/README.md). One
 * consequence elsewhere: src/sources/memory-bound.ts reserves 192 MiB of heap_size_limit for the
 * young generation, which now takes 48, so in a relaunched process it stops reading at 0.8 of
 * 3,952 MiB instead of 0.8 of 4,096 (3.5 % earlier, only on inputs that fill a 3 GB heap).
 * The single executable needs no relaunch: scripts/build-sea.mjs puts HEAP_FLAGS in its SEA
 * config's `execArgv`, so every run of it starts with them (a cap, which a short run never
 * reaches). There the user's NODE_OPTIONS cannot raise the young generation again (Node applies
 * the SEA's execArgv after NODE_OPTIONS: `--max-semi-space-size=64` in NODE_OPTIONS still leaves a
 * 32 MiB new space, measured), while their other heap sizes (`--max-old-space-size`) apply.
 * Cost: one stat per argument, once. No I/O beyond that (the stat is injected).
 */

/** Node flags the command runs with when relaunched (and the single executable always). */
export const HEAP_FLAGS: readonly string[] = ['--max-semi-space-size=16'];

/**
 * Added for `kexp audit` (relaunched only; the single executable has one `execArgv` for every
 * command and does not get them):
 * - `--heap-growing-percent=150`: after a full collection V8 lets the old generation grow to 2.5 ×
 *   what it left live, instead of the up-to-4 × its own rule picks for a fast-allocating program.
 *   A growth rule, not a limit: the heap still grows to heap_size_limit, so no input that runs
 *   today fails; the cost is more full collections (+2.6 % CPU on the 1 GB audit log, five pairs; +8 % on the
 *   1M-event replay, which is why `kexp replay` runs without it);
 * - `--expose-gc`: lets `collectBetweenPhases` (src/pipeline/phase-collection.ts) run one full
 *   collection where the replay's garbage ends and the report's allocation begins.
 * bench/README.md "Memory ≤ 256 MB" has the numbers.
 */
export const AUDIT_HEAP_FLAGS: readonly string[] = ['--heap-growing-percent=150', '--expose-gc'];

/** Inputs at least this large (in bytes, all files together) are worth a relaunch. */
export const RELAUNCH_BYTES = 16 << 20;

/** Set in the relaunched process's environment. */
export const RELAUNCHED_ENV = 'KEXP_HEAP_RELAUNCHED';

/** V8 heap-size flags a user may set themselves (then kexp leaves the heap alone). */
const USER_HEAP_FLAG = /--(max|min)-semi-space-size|--max-old-space-size|--max-heap-size|--semi-space-growth-factor|--optimize-for-size|--max-young-generation-size|--heap-growing-percent/;

/**
 * The Node arguments to relaunch with (`[...execArgv, ...HEAP_FLAGS]`, and AUDIT_HEAP_FLAGS when
 * the command is `audit`), or undefined.
 * `fileSize(arg)` returns the size of the regular file `arg` names, or undefined.
 */
export function heapRelaunch(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  execArgv: readonly string[],
  fileSize: (arg: string) => number | undefined,
): string[] | undefined {
  if (env[RELAUNCHED_ENV] !== undefined) return undefined;
  if (USER_HEAP_FLAG.test(env.NODE_OPTIONS ?? '') || execArgv.some((a) => USER_HEAP_FLAG.test(a))) return undefined;
  let bytes = 0;
  for (const a of argv) {
    if (a.startsWith('-') && !a.includes('=')) continue;
    const size = fileSize(a.startsWith('-') ? a.slice(a.indexOf('=') + 1) : a);
    if (size !== undefined) bytes += size;
    if (bytes >= RELAUNCH_BYTES) return [...execArgv, ...HEAP_FLAGS, ...(argv[0] === 'audit' ? AUDIT_HEAP_FLAGS : [])];
  }
  return undefined;
}
