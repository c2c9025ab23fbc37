#!/usr/bin/env node
/**
 * Start-up of two single executables (scripts/build-sea.mjs; e.g. one built with V8's code
 * cache and one without), interleaved in one run: N spawns each of `--version` and a replay of
 * a small example, wall time from spawn to exit, median and min. Run under a clean environment
 * (no Node on PATH) as krew users do.
 *
 * Usage: node bench/startup/sea.mjs EXE_A EXE_B [N=9]
 */
import { spawnSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', '..');
const [a, b] = process.argv.slice(2, 4).map((p) => path.resolve(p));
const n = Number(process.argv[4] ?? 9);
const example = path.join(root, 'examples', 'scale-up-gated.kexp.jsonl');
const cases = { '--version': ['--version'], 'replay example': ['replay', example] };
const env = { PATH: '/usr/bin:/bin', HOME: os.tmpdir(), NO_COLOR: '1' };
const res = new Map();
for (let i = 0; i < n; i++) {
  for (const [label, exe] of [['A', a], ['B', b]]) {
    for (const [c, args] of Object.entries(cases)) {
      const t = performance.now();
      const r = spawnSync(exe, args, { stdio: 'ignore', env });
      if (r.status !== 0) throw new Error(`${exe} ${args.join(' ')} exited ${r.status}`);
      const k = `${c} ${label}`;
      if (!res.has(k)) res.set(k, []);
      res.get(k).push(performance.now() - t);
    }
  }
}
for (const c of Object.keys(cases)) {
  const line = ['A', 'B'].map((l) => {
    const xs = [...res.get(`${c} ${l}`)].sort((x, y) => x - y);
    return `${l} ${Math.round(xs[xs.length >> 1])} / ${Math.round(xs[0])}`;
  });
  console.log(`${c}: ${line.join('   ')}   (ms, median / min; load ${os.loadavg()[0].toFixed(1)})`);
}
