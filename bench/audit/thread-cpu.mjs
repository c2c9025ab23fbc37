// Preloaded by bench/audit/reader-thread.sh (`node --import`): at exit, appends the main thread's
// CPU seconds (process.threadCpuUsage) and the whole process's (process.cpuUsage, every thread) to
// $KEXP_BENCH_CPU_FILE. On an idle 2-CPU machine the main thread's CPU is the critical path when a
// reader thread runs beside it, so it estimates the idle wall time where a loaded machine's wall
// time cannot.
import { appendFileSync } from 'node:fs';
const out = process.env.KEXP_BENCH_CPU_FILE;
if (out) {
  process.on('exit', () => {
    if (typeof process.threadCpuUsage !== "function") return; // Node < 23.9: the column stays empty
    const m = process.threadCpuUsage();
    const all = process.cpuUsage();
    appendFileSync(out, `${((m.user + m.system) / 1e6).toFixed(3)} ${((all.user + all.system) / 1e6).toFixed(3)}\n`);
  });
}
