#!/usr/bin/env node
/**
 * `npm pack`'s prepack step: builds dist/ (scripts/build.mjs) and oclif.manifest.json, which the
 * package ships. Both need the development tools (esbuild, oclif) that `npm ci` installs; in a
 * fresh clone without them this says so in one line and exits 1, instead of Node's stack trace
 * of a missing module.
 * Contract: exit 0 with dist/ and the manifest built, or one line on stderr and exit 1.
 * Cost: the build's (~5 s); the check is two file lookups.
 */
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const require = createRequire(path.join(root, 'package.json'));
const missing = ['esbuild', 'oclif'].filter((m) => {
  try {
    require.resolve(`${m}/package.json`);
    return false;
  } catch {
    return true;
  }
});
if (missing.length > 0) {
  process.stderr.write(`kexp: npm pack builds the package first and needs ${missing.join(' and ')} (development dependencies): run \`npm ci\` in ${root}, then npm pack\n`);
  process.exit(1);
}
for (const [cmd, args] of [
  [process.execPath, [path.join(root, 'scripts', 'build.mjs')]],
  [process.execPath, [path.join(path.dirname(require.resolve('oclif/package.json')), 'bin', 'run.js'), 'manifest']],
]) {
  const r = spawnSync(cmd, args, { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
  if (r.status !== 0) process.exit(r.status ?? 1);
}
if (!fs.existsSync(path.join(root, 'oclif.manifest.json'))) {
  process.stderr.write('kexp: npm pack: oclif did not write oclif.manifest.json\n');
  process.exit(1);
}
