/**
 * The single executable and its krew archive (scripts/build-sea.mjs, `npm run build:sea`),
 * built into a temporary directory and run under a clean environment with no Node on PATH:
 * `kexp --version`, a replay of a shipped example (exit code and verdict), a mistyped command,
 * and `--html` (Vega comes from the executable's asset). Built as a release (`--release-url`,
 * `--homepage`): the krew manifest names the homepage, an https URI per platform filled from the
 * template, each sha256 its archive's; linux/amd64 and linux/arm64 archives each hold an
 * executable of their architecture with the SEA blob injected (the arm64 one is not run here).
 * A release URL that is not https is refused in one line.
 *
 * Building needs the Node of scripts/install-node.sh (its LICENSE travels in the archive);
 * under another Node the test says so and skips.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const ROOT = path.resolve(new URL('../..', import.meta.url).pathname);
const PKG = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string };
const NODE_LICENSE = path.join(path.dirname(process.execPath), '..', 'LICENSE');
const skip =
  process.platform !== 'linux' || process.arch !== 'x64'
    ? 'the single executable is built for linux/amd64 only'
    : !fs.existsSync(NODE_LICENSE)
      ? `not running on the Node of scripts/install-node.sh (no ${NODE_LICENSE})`
      : false;

test('single executable: built, runs without Node on PATH, replays an example; krew manifest matches its archive', { skip, timeout: 600_000 }, (t) => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kexp-sea-'));
  t.after(() => fs.rmSync(tmp, { recursive: true, force: true }));
  const out = path.join(tmp, 'out');
  const refused = spawnSync(process.execPath, [path.join(ROOT, 'scripts', 'build-sea.mjs'), '--out', out, '--release-url', 'file:///tmp/x'], { encoding: 'utf8', timeout: 60_000 });
  assert.equal(refused.status, 2);
  assert.match(refused.stderr, /^build-sea: --release-url must be an https URL template .*not "file:\/\/\/tmp\/x"\n$/);
  const TEMPLATE = 'https://releases.example.test/kexp/v{version}/{archive}';
  const b = spawnSync(process.execPath, [path.join(ROOT, 'scripts', 'build-sea.mjs'), '--out', out, '--release-url', TEMPLATE, '--homepage', 'https://kexp.example.test'], { encoding: 'utf8', timeout: 590_000 });
  assert.equal(b.status, 0, b.stderr);

  const exe = path.join(out, 'kexp');
  const home = path.join(tmp, 'home');
  fs.mkdirSync(home);
  const env = { PATH: '/usr/bin:/bin', HOME: home, NO_COLOR: '1' }; // no node here
  const run = (args: string[]) => spawnSync(exe, args, { env, cwd: tmp, encoding: 'utf8', timeout: 60_000 });

  const v = run(['--version']);
  assert.equal(v.status, 0, v.stderr);
  assert.equal(v.stdout, `kexp/${PKG.version} linux-x64 node-${process.version}\n`);
  assert.equal(v.stderr, '');

  const example = path.join(ROOT, 'examples', 'namespace-terminating-leak.kexp.jsonl');
  const r = run(['replay', example, '-o', 'json']);
  assert.equal(r.status, 0, r.stderr);
  const report = JSON.parse(r.stdout) as { replicaSets: { verdict: { state: string; basis: string } }[] };
  assert.deepEqual(report.replicaSets.map((x) => [x.verdict.state, x.verdict.basis]), [['deleted', 'observed']]);

  const typo = run(['replya']);
  assert.equal(typo.status, 2);
  assert.equal(typo.stderr, 'kexp: "replya" is not a kexp command; did you mean "replay"? (kexp help lists them all)\n');

  // Help, as the npm install gives it (its help class cannot be a file inside a SEA).
  for (const args of [['help', 'replay'], ['replay', '--help']]) {
    const help = run(args);
    assert.equal(help.status, 0, `${args.join(' ')}: ${help.stderr}`);
    assert.match(help.stdout, /^Replay recorded watch streams/, args.join(' '));
    assert.match(help.stdout, /\nUSAGE\n {2}\$ kexp replay /, args.join(' '));
  }
  const nosuch = run(['help', 'nosuch']);
  assert.equal(nosuch.status, 2);
  assert.equal(nosuch.stderr, 'kexp: "nosuch" is not a kexp command (kexp help lists them all)\n');

  const html = path.join(tmp, 'r.html');
  const h = run(['replay', example, '--html', html]);
  assert.equal(h.status, 0, h.stderr);
  const vegaVersion = (JSON.parse(fs.readFileSync(path.join(ROOT, 'node_modules', 'vega', 'package.json'), 'utf8')) as { version: string }).version;
  assert.ok(fs.readFileSync(html, 'utf8').includes(`/*! Vega ${vegaVersion}\n`));

  const manifest = fs.readFileSync(path.join(out, 'kexp.yaml'), 'utf8');
  assert.match(manifest, /^kind: Plugin$/m);
  assert.match(manifest, /^ {2}homepage: https:\/\/kexp\.example\.test$/m);
  assert.match(manifest, new RegExp(`^ {2}version: v${PKG.version.replaceAll('.', '\\.')}$`, 'm'));
  assert.doesNotMatch(manifest, /file:/);
  assert.equal(fs.existsSync(path.join(out, 'kexp-local.yaml')), false);
  const arches = [...manifest.matchAll(/^ {8}arch: (\S+)$/gm)].map((m) => m[1]);
  assert.deepEqual(arches, ['amd64', 'arm64']);
  for (const [arch, machine] of [['amd64', 0x3e], ['arm64', 0xb7]] as const) {
    const name = `kexp-linux-${arch}.tar.gz`;
    const archive = path.join(out, name);
    assert.deepEqual(execFileSync('tar', ['-tzf', archive], { encoding: 'utf8' }).split('\n').filter(Boolean).sort(), ['LICENSE', 'NODE-LICENSE', 'kexp']);
    const sha = crypto.createHash('sha256').update(fs.readFileSync(archive)).digest('hex');
    assert.match(manifest, new RegExp(`^ {4}uri: https://releases\\.example\\.test/kexp/v${PKG.version.replaceAll('.', '\\.')}/${name.replaceAll('.', '\\.')}\n {4}sha256: ${sha}$`, 'm'));
    const x = path.join(tmp, `x-${arch}`);
    fs.mkdirSync(x);
    execFileSync('tar', ['-xzf', archive, '-C', x]);
    const exeBytes = fs.readFileSync(path.join(x, 'kexp'));
    assert.equal(exeBytes.readUInt16LE(18), machine, `${name}: an ELF for ${arch} (e_machine)`);
    assert.ok(exeBytes.includes('NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2:1'), `${name}: the SEA blob is injected (fuse flipped)`);
    assert.match(fs.readFileSync(path.join(x, 'LICENSE'), 'utf8'), /Apache License\s+Version 2\.0/);
  }
});
