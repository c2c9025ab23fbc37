/**
 * One full garbage collection between a pipeline's replay and its report.
 *
 * Contract: `collectBetweenPhases()` runs one full collection when the process runs with
 * `--expose-gc` (src/cli/heap-settings.ts AUDIT_HEAP_FLAGS: bin/run.js relaunches `kexp audit` of
 * a large input with it); otherwise it does nothing. A pipeline calls it where a replay's garbage
 * (its look-ahead, its engine's transient state) has just become unreachable and the report is
 * about to be built (src/pipeline/audit-files.ts): without it the report's allocation (~50 MB at
 * 1 GB) lands on top of that garbage and grows the heap at the command's end (+34–46 MB of peak
 * RSS measured, bench/README.md "Memory ≤ 256 MB"). It never changes what a command prints.
 *
 * Cost: one mark-compact of the live heap (~0.1–0.3 s at 100 MB live) with `--expose-gc`; none
 * without. No I/O.
 */
export function collectBetweenPhases(): void {
  (globalThis as { gc?: () => void }).gc?.();
}
