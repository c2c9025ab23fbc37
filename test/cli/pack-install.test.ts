/**
 * The npm package as a user gets it: `npm pack` from a copy of the repository WITHOUT dist/
 * (like a clean clone — `prepack` must build the bundle and the oclif manifest), then
 * `npm install -g` of the tarball into a temporary prefix under a clean environment
 * (`env -i PATH=<this node's dir>:/usr/bin:/bin HOME=<tmp>`), then the installed `kexp` and
 * `kubectl-kexp` are run from that prefix.
 *
 * No network: the runtime dependencies (@oclif/core and its plugins) travel inside the tarball
 * (package.json `bundleDependencies`), so the install runs with `--offline` and an EMPTY npm
 * cache — a registry lookup would fail with ENOTCACHED. (Without bundling, `--offline` fails
 * even with npm ci's cache: npm ci fetches tarballs by the lockfile and never the packuments
 * a global install resolves ranges against.)
 *
 * The copy is packed in a temporary directory, never in the repository, because `prepack`
 * rebuilds dist/ — which the other CLI tests, running in parallel, are executing.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const ROOT = path.resolve(new URL('../..', import.meta.url).pathname);
const NODE_DIR = path.dirname(process.execPath);
const PKG = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { name: string; version: string };
const NPM = spawnSync('sh', ['-c', 'command -v npm'], { encoding: 'utf8' }).stdout.trim();
const KUBECTL = spawnSync('sh', ['-c', 'command -v kubectl'], { encoding: 'utf8' }).stdout.trim();

/** A clean environment: only this Node, the system's /usr/bin:/bin (npm, kubectl) and a fresh HOME. */
function cleanEnv(home: string, extraPath: string[] = []): NodeJS.ProcessEnv {
  return { PATH: [...extraPath, NODE_DIR, '/usr/bin', '/bin'].join(':'), HOME: home, NO_COLOR: '1' };
}

function run(cmd: string, args: string[], opts: { cwd?: string; env: NodeJS.ProcessEnv }) {
  const r = spawnSync(cmd, args, { cwd: opts.cwd, env: opts.env, encoding: 'utf8', timeout: 120_000 });
  return { code: r.status, stdout: r.stdout ?? '', stderr: r.stderr ?? '' };
}

test('npm pack from a clean copy, npm install -g offline into a temporary prefix, kexp and kubectl-kexp run', { timeout: 240_000 }, async (t) => {
  assert.ok(NPM, 'npm is on PATH');
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kexp-pack-'));
  t.after(() => fs.rmSync(tmp, { recursive: true, force: true }));

  // A copy of the files git knows (tracked and new, not ignored): no dist/, no manifest.
  const copy = path.join(tmp, 'repo');
  const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: ROOT, encoding: 'utf8' })
    .split('\0')
    .filter((f) => f && !/^(test|bench|docs)\//.test(f) && fs.existsSync(path.join(ROOT, f)));
  for (const f of files) {
    fs.mkdirSync(path.dirname(path.join(copy, f)), { recursive: true });
    fs.copyFileSync(path.join(ROOT, f), path.join(copy, f));
  }
  assert.equal(fs.existsSync(path.join(copy, 'dist')), false);
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(copy, 'node_modules'), 'dir');

  // npm pack (prepack builds dist/ and oclif.manifest.json).
  const packEnv = { ...cleanEnv(tmp), npm_config_cache: path.join(tmp, 'npm-cache-pack') };
  const pack = run(NPM, ['pack', '--json', '--pack-destination', tmp], { cwd: copy, env: packEnv });
  assert.equal(pack.code, 0, pack.stderr);
  const packed = JSON.parse(pack.stdout.slice(pack.stdout.indexOf('['))) as { filename: string; files: { path: string }[]; bundled: string[] }[];
  const shipped = new Set(packed[0]!.files.map((f) => f.path));
  for (const want of ['bin/run.js', 'bin/kubectl_complete-kexp.js', 'dist/cli/completion.js', 'dist/commands/replay.js', 'dist/commands/explain.js', 'dist/cli/command-not-found.js', 'oclif.manifest.json', 'schema/report.schema.json', 'examples/namespace-terminating-leak.kexp.jsonl', 'dist/node_modules/vega/build/vega.min.js', 'LICENSE']) {
    assert.ok(shipped.has(want), `the tarball ships ${want}`);
  }
  for (const f of shipped) {
    if (!f.startsWith('node_modules/')) assert.doesNotMatch(f, /^(src|test|bench|scripts)\/|^bin\/dev\.js$|\.ts$/, `the tarball does not ship ${f}`);
  }
  assert.deepEqual([...packed[0]!.bundled].filter((b) => b.startsWith('@oclif/')).sort(), ['@oclif/core', '@oclif/plugin-autocomplete', '@oclif/plugin-help', '@oclif/plugin-version']);
  const manifest = JSON.parse(fs.readFileSync(path.join(copy, 'oclif.manifest.json'), 'utf8')) as { version: string; commands: Record<string, unknown> };
  assert.equal(manifest.version, PKG.version);
  assert.deepEqual(Object.keys(manifest.commands).sort(), ['adopt', 'audit', 'explain', 'kcm-log', 'record', 'replay', 'serve']);

  // npm install -g, offline, with an empty cache: everything comes from the tarball.
  const prefix = path.join(tmp, 'prefix');
  const tarball = path.join(tmp, packed[0]!.filename);
  const install = run(NPM, ['install', '-g', '--prefix', prefix, '--offline', '--cache', path.join(tmp, 'npm-cache-empty'), '--no-audit', '--no-fund', tarball], { cwd: tmp, env: cleanEnv(tmp) });
  assert.equal(install.code, 0, install.stderr);
  const bin = path.join(prefix, 'bin');
  const env = cleanEnv(tmp, [bin]);
  const installed = path.join(prefix, 'lib', 'node_modules', PKG.name);
  // Vega's run-time packages are not installed; only its prebuilt bundle, inside dist/.
  assert.equal(fs.existsSync(path.join(installed, 'node_modules', 'vega')), false);
  assert.equal(fs.existsSync(path.join(installed, 'node_modules', '@kubernetes')), false);

  const version = run('kexp', ['--version'], { env });
  assert.equal(version.code, 0, version.stderr);
  assert.equal(version.stdout.trim(), `kexp/${PKG.version} ${process.platform}-${process.arch} node-${process.version}`);
  assert.equal(version.stderr, '');

  const example = path.join(installed, 'examples', 'namespace-terminating-leak.kexp.jsonl');
  const replay = run('kexp', ['replay', example, '-o', 'json'], { env, cwd: tmp });
  assert.equal(replay.code, 0, replay.stderr);
  const report = JSON.parse(replay.stdout) as { replicaSets: { verdict: { state: string; basis: string } }[] };
  assert.deepEqual(report.replicaSets.map((r) => [r.verdict.state, r.verdict.basis]), [['deleted', 'observed']]);

  // The HTML report inlines Vega from the bundled copy.
  const html = path.join(tmp, 'report.html');
  const htmlRun = run('kexp', ['replay', example, '--html', html], { env, cwd: tmp });
  assert.equal(htmlRun.code, 0, htmlRun.stderr);
  const vegaVersion = (JSON.parse(fs.readFileSync(path.join(ROOT, 'node_modules', 'vega', 'package.json'), 'utf8')) as { version: string }).version;
  assert.match(fs.readFileSync(html, 'utf8'), new RegExp(`/\\*! Vega ${vegaVersion.replaceAll('.', '\\.')}\\n`));

  // kubectl's plugin name: the same CLI.
  const plugin = run('kubectl-kexp', ['--version'], { env });
  assert.equal(plugin.code, 0, plugin.stderr);
  assert.equal(plugin.stdout.trim(), version.stdout.trim());

  await t.test('kubectl plugin list finds the installed kubectl-kexp, and kubectl kexp runs it', { skip: KUBECTL ? false : 'kubectl is not on PATH' }, () => {
    const kenv = cleanEnv(tmp, [bin]); // kubectl from /usr/bin, after this Node
    const list = run(KUBECTL, ['plugin', 'list'], { env: kenv });
    assert.match(list.stdout, new RegExp(`^${path.join(bin, 'kubectl-kexp').replaceAll('/', '\\/')}$`, 'm'), list.stdout + list.stderr);
    const viaKubectl = run(KUBECTL, ['kexp', '--version'], { env: kenv });
    assert.equal(viaKubectl.code, 0, viaKubectl.stderr);
    assert.equal(viaKubectl.stdout.trim(), version.stdout.trim());
  });
});

test('npm pack in a fresh clone without npm ci: one line naming npm ci, no stack trace', { timeout: 120_000 }, (t) => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kexp-pack-bare-'));
  t.after(() => fs.rmSync(tmp, { recursive: true, force: true }));
  const copy = path.join(tmp, 'repo');
  for (const f of ['package.json', 'scripts/prepack.mjs', 'scripts/build.mjs']) {
    fs.mkdirSync(path.dirname(path.join(copy, f)), { recursive: true });
    fs.copyFileSync(path.join(ROOT, f), path.join(copy, f));
  }
  const pack = run(NPM, ['pack', '--dry-run'], { cwd: copy, env: { ...cleanEnv(tmp), npm_config_cache: path.join(tmp, 'npm-cache') } });
  assert.notEqual(pack.code, 0);
  const ours = pack.stderr.split('\n').filter((l) => l.startsWith('kexp:'));
  assert.deepEqual(ours, [`kexp: npm pack builds the package first and needs esbuild and oclif (development dependencies): run \`npm ci\` in ${copy}, then npm pack`]);
  assert.doesNotMatch(pack.stderr, /^\s+at /m, 'no stack trace');
  assert.doesNotMatch(pack.stderr, /ERR_MODULE_NOT_FOUND|Cannot find package/);
});
