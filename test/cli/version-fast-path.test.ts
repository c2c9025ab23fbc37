/**
 * `kexp --version`, `-v` and `version` answered by bin/run.js without oclif
 * (src/cli/version-fast-path.ts): the spawned CLI prints byte for byte what oclif itself prints
 * for the same argv (oclif's `execute` run directly on this package, as bin/run.js did before),
 * and the argv and hosts the fast path must leave to oclif (WSL, `version --json`, other
 * commands) get undefined.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { isVersionRequest, versionLine, type Host, type PackageInfo } from '../../src/cli/version-fast-path.js';
import { kexp } from '../support/cli.js';

const ROOT = path.resolve(new URL('../..', import.meta.url).pathname);
const PKG = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as PackageInfo;

/** What oclif prints for argv, run the way bin/run.js ran it before the fast path. */
function viaOclif(argv: string[]): { code: number | null; stdout: string; stderr: string } {
  const script = `const { execute } = await import('@oclif/core'); await execute({ dir: ${JSON.stringify(new URL('../../bin/run.js', import.meta.url).href)}, args: ${JSON.stringify(argv)} });`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

test('the fast path prints exactly what oclif prints, for every argv oclif treats as a version request', () => {
  for (const argv of [['--version'], ['-v'], ['version'], ['-v', 'replay'], ['--version', '--help']]) {
    const fast = kexp(argv);
    const oclif = viaOclif(argv);
    assert.equal(oclif.code, 0, `${argv.join(' ')}: ${oclif.stderr}`);
    assert.deepEqual(fast, oclif, argv.join(' '));
    assert.match(fast.stdout, /^kexp\/\d+\.\d+\.\d+\S* \S+-\S+ node-v\d+\.\d+\.\d+\n$/);
  }
});

test('`version --json` and other argv still reach oclif', () => {
  const r = kexp(['version', '--json']);
  assert.equal(r.code, 0, r.stderr);
  const json = JSON.parse(r.stdout) as { cliVersion: string; nodeVersion: string };
  assert.equal(json.cliVersion, `kexp/${PKG.version}`);
  assert.equal(json.nodeVersion, `node-${process.version}`);
  for (const argv of [['version', '--json'], ['version', '--verbose'], ['replay', '-v'], [], ['help'], ['versions']]) {
    assert.equal(isVersionRequest(argv, PKG), false, argv.join(' '));
  }
});

const linux: Host = { platform: 'linux', arch: 'x64', release: '6.8.0-45-generic', nodeVersion: 'v22.11.0', procVersion: () => 'Linux version 6.8.0-45-generic (buildd@lcy02)', exists: () => false };

test('versionLine: platform-arch as oclif shows them (ia32 is x86); any sign of WSL is left to oclif', () => {
  const pkg: PackageInfo = { name: 'kexp', version: '1.2.3', oclif: { additionalVersionFlags: ['-v'] } };
  assert.equal(versionLine(['-v'], pkg, linux), 'kexp/1.2.3 linux-x64 node-v22.11.0\n');
  assert.equal(versionLine(['--version'], pkg, { ...linux, platform: 'darwin', arch: 'arm64' }), 'kexp/1.2.3 darwin-arm64 node-v22.11.0\n');
  assert.equal(versionLine(['version'], pkg, { ...linux, platform: 'win32', arch: 'ia32' }), 'kexp/1.2.3 win32-x86 node-v22.11.0\n');
  // Without -v in additionalVersionFlags, -v is not a version flag (oclif would parse it as a command).
  assert.equal(versionLine(['-v'], { name: 'kexp', version: '1.2.3' }, linux), undefined);
  assert.equal(versionLine(['--version'], pkg, { ...linux, release: '5.15.153.1-microsoft-standard-WSL2' }), undefined);
  assert.equal(versionLine(['--version'], pkg, { ...linux, procVersion: () => 'Linux version 5.15 (Microsoft@Microsoft.com)' }), undefined);
  assert.equal(versionLine(['--version'], pkg, { ...linux, exists: (p) => p === '/run/WSL' }), undefined);
  // A release string with "microsoft" on another platform is not WSL (is-wsl checks linux first).
  assert.equal(versionLine(['--version'], pkg, { ...linux, platform: 'darwin', release: 'microsoft' }), 'kexp/1.2.3 darwin-x64 node-v22.11.0\n');
  // No version in package.json: oclif would print 0.0.0; let it.
  assert.equal(versionLine(['--version'], { name: 'kexp', version: '' }, linux), undefined);
});

test('a closed stdout (`kexp --version | true`) is not an error', () => {
  const r = spawnSync('bash', ['-c', `set -o pipefail; "${process.execPath}" "${path.join(ROOT, 'bin', 'run.js')}" --version | true; echo "rc=$?"`], { encoding: 'utf8' });
  assert.equal(r.stdout, 'rc=0\n');
  assert.equal(r.stderr, '');
});
