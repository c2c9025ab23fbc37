#!/usr/bin/env node
/**
 * Start-up of single executables against the npm install, interleaved in one run (issue #25:
 * the executable within 1.5× of the npm install): N spawns each of `--version` and a replay of
 * a small example for every executable given and for `node bin/run.js` of this checkout (the
 * npm install's entry; build first), wall time from spawn to exit, median and min, and each
 * median ÷ the npm install's. Executables run under `PATH=/usr/bin:/bin` (no Node) as krew
 * users run them.
 *
 * Usage: node bench/startup/sea-vs-npm.mjs N EXE...
 */
import { spawnSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', '..');
const n = Number(process.argv[2] ?? 9);
const exes = process.argv.slice(3).map((p) => path.resolve(p));
const example = path.join(root, 'examples', 'scale-up-gated.kexp.jsonl');
const cases = { '--version': ['--version'], 'replay example': ['replay', example] };
const env = { PATH: '/usr/bin:/bin', HOME: os.tmpdir(), NO_COLOR: '1' };
const runners = [['npm install (node bin/run.js)', process.execPath, [path.join(root, 'bin', 'run.js')]], ...exes.map((e) => [e, e, []])];
const res = new Map();
for (let i = 0; i < n; i++) {
  for (const [label, cmd, pre] of runners) {
    for (const [c, args] of Object.entries(cases)) {
      const t = performance.now();
      const r = spawnSync(cmd, [...pre, ...args], { stdio: 'ignore', env });
      if (r.status !== 0) throw new Error(`${label} ${args.join(' ')} exited ${r.status}`);
      const k = `${c}\t${label}`;
      if (!res.has(k)) res.set(k, []);
      res.get(k).push(performance.now() - t);
    }
  }
}
const med = (v) => [...v].sort((a, b) => a - b)[v.length >> 1];
console.log('| command | runner | median ms | min ms | × npm install |\n|---|---|---:|---:|---:|');
for (const c of Object.keys(cases)) {
  const base = med(res.get(`${c}\t${runners[0][0]}`));
  for (const [label] of runners) {
    const v = res.get(`${c}\t${label}`);
    console.log(`| \`${c}\` | ${label} | ${Math.round(med(v))} | ${Math.round(Math.min(...v))} | ${(med(v) / base).toFixed(2)} |`);
  }
}
