/**
 * The worker of test/fuzz/input-patterns.test.ts: runs each pattern from `start` on its
 * adversarial strings (input-patterns.ts), announcing each pattern before it starts so the
 * test can end the worker when one exceeds its budget. Each pattern: all strings at `small`,
 * then its `worst` slowest at `large`, applied as the code applies it (a global or sticky
 * pattern scanned to the end of the string, as replace or a match loop does; others once).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { adversarial, type FoundPattern } from './input-patterns.js';

const { patterns, start, small, large, worst } = workerData as { patterns: FoundPattern[]; start: number; small: number; large: number; worst: number };

function apply(re: RegExp, s: string): void {
  if (!re.global && !re.sticky) {
    re.exec(s);
    return;
  }
  re.lastIndex = 0;
  for (let n = 0; n < 4_000_000; n++) {
    const m = re.exec(s);
    if (!m) break;
    if (m[0] === '') re.lastIndex++;
    if (re.sticky && !re.global) break;
  }
  re.lastIndex = 0;
}

for (let i = start; i < patterns.length; i++) {
  parentPort!.postMessage({ begin: i });
  const p = patterns[i]!;
  let re: RegExp;
  try {
    re = new RegExp(p.source, p.flags);
  } catch {
    continue; // not a pattern this engine builds (the code would throw at load): nothing to run
  }
  const timed = adversarial(p, small).map((s, k) => {
    const t0 = performance.now();
    apply(re, s);
    return { k, ms: performance.now() - t0 };
  });
  timed.sort((a, b) => b.ms - a.ms);
  const big = adversarial(p, large);
  for (const { k } of timed.slice(0, worst)) apply(re, big[k]!);
}
parentPort!.postMessage({ done: true });
