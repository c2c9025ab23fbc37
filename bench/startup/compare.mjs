#!/usr/bin/env node
/**
 * Start-up of this checkout against another build of kexp (e.g. an older commit extracted with
 * `git archive` and built with `node scripts/build.mjs && oclif manifest`), interleaved in one
 * run, with `node -e 0` as the floor: N spawns of each, wall time from spawn to exit, medians.
 * Cases: --version, -v, version, --help, and explain with KUBECONFIG=/nonexistent (exit 7).
 *
 * Usage: npm run build && node bench/startup/compare.mjs BEFORE_DIR [N=10]
 */
import { spawnSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', '..');
const before = path.resolve(process.argv[2] ?? '');
const n = Number(process.argv[3] ?? 10);
const env = { PATH: process.env.PATH, HOME: os.tmpdir(), NO_COLOR: '1', KUBECONFIG: '/nonexistent' };
const cases = [['--version'], ['-v'], ['version'], ['--help'], ['explain', '-n', 'default', 'web']];
const variants = [['before', path.join(before, 'bin', 'run.js')], ['after', path.join(root, 'bin', 'run.js')]];
const time = (args) => {
  const t = performance.now();
  spawnSync(process.execPath, args, { env });
  return performance.now() - t;
};
const med = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const floor = [];
const res = new Map();
for (let i = 0; i < n; i++) {
  floor.push(time(['-e', '0']));
  for (const c of cases) for (const [v, bin] of variants) {
    const k = `${c.join(' ')}\0${v}`;
    if (!res.has(k)) res.set(k, []);
    res.get(k).push(time([bin, ...c]));
  }
}
const f = med(floor);
console.log(`Node ${process.version}, ${os.cpus().length} CPUs, load ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}, ${n} runs, medians in ms (× node -e 0)`);
console.log('| command | before | after |\n|---|---:|---:|');
console.log(`| \`node -e 0\` | ${f.toFixed(0)} | ${f.toFixed(0)} |`);
for (const c of cases) {
  const cell = (v) => { const m = med(res.get(`${c.join(' ')}\0${v}`)); return `${m.toFixed(0)} (${(m / f).toFixed(2)}×)`; };
  console.log(`| \`kexp ${c.join(' ')}\`${c[0] === 'explain' ? ' (KUBECONFIG=/nonexistent)' : ''} | ${cell('before')} | ${cell('after')} |`);
}
