#!/usr/bin/env node
/**
 * Builds kexp as a single executable (Node's single executable application) for the platform
 * it runs on — linux/amd64 in CI — and the krew plugin archive and manifest that install it:
 *
 *   dist-sea/kexp                              the executable (Node + kexp, no node_modules)
 *   dist-sea/kexp-linux-amd64.tar.gz           kexp + NODE-LICENSE, what krew downloads
 *   dist-sea/kexp.yaml                         the krew manifest pointing at the archive
 *
 * Steps: esbuild bundles scripts/sea-entry.mjs with every dependency into one CommonJS file
 * (a SEA's main script must be CommonJS on Node 24); `node --experimental-sea-config` turns it
 * into a blob; postject injects the blob into a copy of the running `node`. Vega's prebuilt
 * bundle travels as a SEA asset and is written once to ~/.cache/kexp/vega-VERSION the first
 * time an --html report needs it (src/render/html.ts reads it from a `vega` package directory).
 *
 * Usage: npm run build:sea [-- --out DIR]; KEXP_RELEASE_URL=https://…/v0.1.0 for a release's
 * manifest (see below).
 */
import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
// --out DIR builds elsewhere (the test does).
const outArg = process.argv.indexOf('--out');
const out = outArg > 0 ? path.resolve(process.argv[outArg + 1]) : path.join(root, 'dist-sea');
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
if (process.platform !== 'linux' || process.arch !== 'x64') throw new Error(`build-sea: builds for linux/amd64 only (this is ${process.platform}/${process.arch})`);
fs.rmSync(out, { recursive: true, force: true });
fs.mkdirSync(out);

const require = createRequire(import.meta.url);
const vegaDir = path.join(path.dirname(require.resolve('vega')), '..');
const vegaVersion = JSON.parse(fs.readFileSync(path.join(vegaDir, 'package.json'), 'utf8')).version;

// The bundle. `import.meta.url` (only src/render/html.ts uses it, to find Vega) becomes a
// getter that writes the Vega asset to the cache on first use.
const banner = `
var __kexpVega;
Object.defineProperty(globalThis, '__kexpImportMetaUrl', { get() {
  if (__kexpVega) return __kexpVega;
  const fs = require('node:fs'), path = require('node:path'), os = require('node:os'), url = require('node:url');
  const sea = require('node:sea');
  const base = path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'kexp', 'vega-${vegaVersion}');
  const dir = path.join(base, 'node_modules', 'vega');
  if (!fs.existsSync(path.join(dir, 'package.json'))) {
    fs.mkdirSync(path.join(dir, 'build'), { recursive: true });
    for (const f of ['build/vega.min.js', 'LICENSE']) fs.writeFileSync(path.join(dir, f), sea.getAsset(f, 'utf8'));
    fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'vega', version: '${vegaVersion}', main: 'build/vega.min.js' }));
  }
  return (__kexpVega = url.pathToFileURL(path.join(base, 'kexp.js')).href);
} });
`;
await build({
  absWorkingDir: root,
  entryPoints: [path.join(root, 'scripts', 'sea-entry.mjs')],
  outfile: path.join(out, 'kexp-sea.cjs'),
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node24',
  alias: { punycode: 'punycode/' },
  define: { 'import.meta.url': 'globalThis.__kexpImportMetaUrl' },
  banner: { js: banner },
  logLevel: 'error',
});

const seaConfig = {
  main: path.join(out, 'kexp-sea.cjs'),
  output: path.join(out, 'kexp.blob'),
  disableExperimentalSEAWarning: true,
  useCodeCache: false,
  assets: { 'build/vega.min.js': path.join(vegaDir, 'build', 'vega.min.js'), LICENSE: path.join(vegaDir, 'LICENSE') },
};
fs.writeFileSync(path.join(out, 'sea-config.json'), JSON.stringify(seaConfig, null, 2));
execFileSync(process.execPath, ['--experimental-sea-config', path.join(out, 'sea-config.json')], { stdio: 'inherit' });
const exe = path.join(out, 'kexp');
fs.copyFileSync(process.execPath, exe);
fs.chmodSync(exe, 0o755);
execFileSync(process.execPath, [require.resolve('postject/dist/cli.js'), exe, 'NODE_SEA_BLOB', seaConfig.output, '--sentinel-fuse', 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2'], { stdio: 'ignore' });

// The krew archive and manifest.
// Node's licence travels with the Node inside the executable (scripts/install-node.sh keeps
// it beside bin/); kexp's own licence (LICENSE, Apache-2.0) travels beside it.
const nodeLicense = path.join(path.dirname(process.execPath), '..', 'LICENSE');
if (!fs.existsSync(nodeLicense)) throw new Error(`build-sea: ${nodeLicense} not found; build with the Node from scripts/install-node.sh`);
fs.copyFileSync(nodeLicense, path.join(out, 'NODE-LICENSE'));
fs.copyFileSync(path.join(root, 'LICENSE'), path.join(out, 'LICENSE'));
const archive = `kexp-linux-amd64.tar.gz`;
// Fixed owner, times and order and gzip without a timestamp: the archive changes only when kexp does.
execFileSync('tar', ['-c', '-I', 'gzip -n', '-f', path.join(out, archive), '--owner=0', '--group=0', '--mtime=@0', '--sort=name', '-C', out, 'LICENSE', 'kexp', 'NODE-LICENSE']);
const sha256 = crypto.createHash('sha256').update(fs.readFileSync(path.join(out, archive))).digest('hex');
// Where the archive is published is the releaser's choice: KEXP_RELEASE_URL is the URL of
// the directory that holds it. Without it the manifest points at the archive just built
// (file://), which is what `kubectl krew install --manifest=dist-sea/kexp.yaml
// --archive=dist-sea/kexp-linux-amd64.tar.gz` checks the sha256 of.
const urlPrefix = (process.env.KEXP_RELEASE_URL ?? pathToFileURL(out).href).replace(/\/$/, '');
const manifest = `apiVersion: krew.googlecontainertools.github.com/v1alpha2
kind: Plugin
metadata:
  name: kexp
spec:
  version: v${pkg.version}
  shortDescription: Explain why a ReplicaSet controller is gated, leaking or failing
  description: |
    kexp replays what the Kubernetes ReplicaSet controller saw (a watch recording, an audit
    log, or a kube-controller-manager log) through a model of its expectations logic, and
    explains a live ReplicaSet: gated windows, expectation leaks, failed creates, adoption.
    A single executable (Node.js ${process.version} inside); no Node.js needed.
  platforms:
  - selector:
      matchLabels:
        os: linux
        arch: amd64
    uri: ${urlPrefix}/${archive}
    sha256: ${sha256}
    bin: kexp
    files:
    - from: kexp
      to: .
    - from: NODE-LICENSE
      to: .
    - from: LICENSE
      to: .
`;
fs.writeFileSync(path.join(out, 'kexp.yaml'), manifest);
for (const f of ['kexp-sea.cjs', 'kexp.blob', 'sea-config.json', 'NODE-LICENSE', 'LICENSE']) fs.rmSync(path.join(out, f));
console.log(`${exe}\n${path.join(out, archive)} sha256 ${sha256}\n${path.join(out, 'kexp.yaml')}`);
