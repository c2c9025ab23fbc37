/**
 * The single executable and its krew archive (scripts/build-sea.mjs, `npm run build:sea`),
 * built into a temporary directory and run under a clean environment with no Node on PATH:
 * `kexp --version`, a replay of a shipped example (exit code and verdict), a mistyped command,
 * and `--html` (Vega comes from the executable's asset). The krew manifest's sha256 is the
 * archive's, and the archive holds the executable.
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

test('single executable: built, runs without Node on PATH, replays an example; krew manifest matches its archive', { skip, timeout: 180_000 }, (t) => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kexp-sea-'));
  t.after(() => fs.rmSync(tmp, { recursive: true, force: true }));
  const out = path.join(tmp, 'out');
  const b = spawnSync(process.execPath, [path.join(ROOT, 'scripts', 'build-sea.mjs'), '--out', out], { encoding: 'utf8', timeout: 170_000 });
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

  const html = path.join(tmp, 'r.html');
  const h = run(['replay', example, '--html', html]);
  assert.equal(h.status, 0, h.stderr);
  const vegaVersion = (JSON.parse(fs.readFileSync(path.join(ROOT, 'node_modules', 'vega', 'package.json'), 'utf8')) as { version: string }).version;
  assert.ok(fs.readFileSync(html, 'utf8').includes(`/*! Vega ${vegaVersion}\n`));

  const archive = path.join(out, 'kexp-linux-amd64.tar.gz');
  assert.deepEqual(execFileSync('tar', ['-tzf', archive], { encoding: 'utf8' }).split('\n').filter(Boolean).sort(), ['LICENSE', 'NODE-LICENSE', 'kexp']);
  const manifest = fs.readFileSync(path.join(out, 'kexp.yaml'), 'utf8');
  const sha = crypto.createHash('sha256').update(fs.readFileSync(archive)).digest('hex');
  assert.match(manifest, /^kind: Plugin$/m);
  assert.match(manifest, new RegExp(`^ {4}sha256: ${sha}$`, 'm'));
  assert.match(manifest, /^ {4}uri: file:\/\/\S+\/kexp-linux-amd64\.tar\.gz$/m);
  assert.match(manifest, new RegExp(`^ {2}version: v${PKG.version.replaceAll('.', '\\.')}$`, 'm'));
});
