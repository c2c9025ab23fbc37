#!/usr/bin/env node
/**
 * Start-up time of kexp, bundled (dist/ as `npm run build` makes it: esbuild, one entry per
 * command) against the same sources built the way they were before the bundle (tsc's
 * one-file-per-module output), in the same run, with `node -e 0` as the floor. Both variants
 * have the oclif manifest and the same package.json and node_modules; only dist/ differs.
 *
 * Measured per variant, N spawns each (wall time from spawn to exit), interleaved so a busy
 * machine hurts both alike:
 *   kexp --version
 *   kexp replay examples/scale-up-gated.kexp.jsonl           (exit 0)
 *   kexp explain -n default web   with no kubeconfig          (exit 7 "no kubeconfig found")
 *
 * Usage: npm run build && node bench/startup/run.mjs [N=15]
 */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', '..');
const n = Number(process.argv[2] ?? 15);
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kexp-startup-'));
process.on('exit', () => fs.rmSync(tmp, { recursive: true, force: true }));

if (!fs.existsSync(path.join(root, 'dist', 'commands', 'replay.js'))) throw new Error('run npm run build first');

// The unbundled variant: tsc output in a package directory of its own.
const before = path.join(tmp, 'unbundled');
fs.mkdirSync(path.join(before, 'bin'), { recursive: true });
fs.copyFileSync(path.join(root, 'package.json'), path.join(before, 'package.json'));
fs.copyFileSync(path.join(root, 'bin', 'run.js'), path.join(before, 'bin', 'run.js'));
fs.symlinkSync(path.join(root, 'node_modules'), path.join(before, 'node_modules'), 'dir');
execFileSync(path.join(root, 'node_modules', '.bin', 'tsc'), ['-p', path.join(root, 'tsconfig.json'), '--outDir', path.join(before, 'dist')], { stdio: 'inherit' });
execFileSync(path.join(root, 'node_modules', '.bin', 'oclif'), ['manifest'], { cwd: before, stdio: 'ignore' });

const home = path.join(tmp, 'home'); // no ~/.kube/config
fs.mkdirSync(home);
const env = { PATH: process.env.PATH, HOME: home, NO_COLOR: '1' };
const example = path.join(root, 'examples', 'scale-up-gated.kexp.jsonl');
const cases = [
  { name: 'kexp --version', args: ['--version'], code: 0 },
  { name: 'kexp replay examples/scale-up-gated.kexp.jsonl', args: ['replay', example], code: 0 },
  { name: 'kexp explain -n default web (no kubeconfig)', args: ['explain', '-n', 'default', 'web'], code: 7, stderr: /no kubeconfig found/ },
];
const variants = [
  { name: 'before (tsc, unbundled)', bin: path.join(before, 'bin', 'run.js') },
  { name: 'after (esbuild bundle)', bin: path.join(root, 'bin', 'run.js') },
];

function time(args, expect) {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, args, { env, encoding: 'utf8' });
  const ms = performance.now() - t0;
  if (expect && (r.status !== expect.code || (expect.stderr && !expect.stderr.test(r.stderr)))) {
    throw new Error(`${args.join(' ')}: exit ${r.status}, stderr ${r.stderr}`);
  }
  return ms;
}

const stats = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return { median: s[Math.floor(s.length / 2)], min: s[0] };
};
const floor = [];
const results = new Map();
for (let i = 0; i < n; i++) {
  floor.push(time(['-e', '0']));
  for (const c of cases) {
    for (const v of variants) {
      const key = `${c.name}\0${v.name}`;
      if (!results.has(key)) results.set(key, []);
      results.get(key).push(time([v.bin, ...c.args], c));
    }
  }
}

const f = stats(floor);
console.log(`Node ${process.version}, ${os.cpus().length} CPUs, load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}, ${n} runs each, ms (median / min)`);
console.log(`| command | ${variants.map((v) => v.name).join(' | ')} |`);
console.log(`|---|${variants.map(() => '---:').join('|')}|`);
console.log(`| \`node -e 0\` | ${variants.map(() => `${f.median.toFixed(0)} / ${f.min.toFixed(0)}`).join(' | ')} |`);
for (const c of cases) {
  const cells = variants.map((v) => {
    const s = stats(results.get(`${c.name}\0${v.name}`));
    return `${s.median.toFixed(0)} / ${s.min.toFixed(0)}`;
  });
  console.log(`| \`${c.name}\` | ${cells.join(' | ')} |`);
}
