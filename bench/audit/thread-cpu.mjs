// Preloaded by bench/audit/reader-thread.sh (`node --import`): at exit, appends the main thread's
// CPU seconds (process.threadCpuUsage) and the whole process's (process.cpuUsage, every thread) to
// $KEXP_BENCH_CPU_FILE, with the process's role: `child` for the Node that bin/run.js started again
// with kexp's heap settings (src/cli/heap-settings.ts; it inherits this preload through its
// execArgv and does the work), `top` for the process started by the command line (for a large
// input it only waits for that child). The caller takes the `child` line when there is one, else
// the `top` line. On an idle 2-CPU machine the main thread's CPU is the critical path when a reader
// thread runs beside it, so it estimates the idle wall time where a loaded machine's wall time
// cannot.
// Main threads only: a preload runs in worker threads too (the reader thread, the lease pass).
import { appendFileSync } from 'node:fs';
import { isMainThread } from 'node:worker_threads';
const out = process.env.KEXP_BENCH_CPU_FILE;
if (out && isMainThread) {
  process.on('exit', () => {
    if (typeof process.threadCpuUsage !== "function") return; // Node < 23.9: the column stays empty
    const m = process.threadCpuUsage();
    const all = process.cpuUsage();
    const role = process.env.KEXP_HEAP_RELAUNCHED ? 'child' : 'top';
    appendFileSync(out, `${((m.user + m.system) / 1e6).toFixed(3)} ${((all.user + all.system) / 1e6).toFixed(3)} ${role}\n`);
  });
}
