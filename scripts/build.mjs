#!/usr/bin/env node
/**
 * Builds dist/ — what `bin/run.js` runs and what the npm package ships — as an esbuild bundle,
 * so that start-up reads a handful of files instead of resolving and compiling ~1,500 modules
 * of @kubernetes/client-node, ora, cli-table3 and yaml (bench/README.md, "Start-up"):
 *
 * - one ESM entry per oclif command (dist/commands/NAME.js, found through oclif.manifest.json
 *   exactly as before) plus the hooks, and the stdout guard (src/cli/output.ts) and the version fast path
 *   (src/cli/version-fast-path.ts: `--version` without oclif) and the heap settings
 *   (src/cli/heap-settings.ts) and explain's prefetch (src/cli/explain-prefetch.ts) bin/run.js imports, and the audit reader thread's worker
 *   (src/sources/audit/reader-thread.ts) and the lease pass's (lease-thread.ts); code shared by
 *   several commands sits in dist/chunks/ (esbuild's code splitting), so `kexp replay` never
 *   loads the Kubernetes client;
 * - @oclif/core stays an ordinary dependency (not bundled): the help, version and
 *   autocomplete plugins are oclif plugins that import it themselves, and one copy of oclif
 *   must own the command registry;
 * - Vega is needed only as its prebuilt browser bundle, which the HTML report inlines
 *   (src/render/html.ts reads `vega/build/vega.min.js` beside the package `vega` resolves to).
 *   The build copies just that file, its licence and a two-field package.json into
 *   dist/node_modules/vega, which is where the bundle's `require.resolve('vega')` finds it, so
 *   an installed kexp carries 0.5 MB of Vega instead of its 15 MB of run-time packages.
 *
 * Type checking is `tsc --noEmit` (npm run typecheck / npm run build); esbuild only strips types.
 * Usage: node scripts/build.mjs
 */
import { build } from 'esbuild';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const src = path.join(root, 'src');
const dist = path.join(root, 'dist');

fs.rmSync(dist, { recursive: true, force: true });

const commands = fs
  .readdirSync(path.join(src, 'commands'))
  .filter((f) => f.endsWith('.ts'))
  .map((f) => path.join(src, 'commands', f));

await build({
  absWorkingDir: root,
  entryPoints: [
    ...commands,
    ...['output.ts', 'command-not-found.ts', 'help.ts', 'completion.ts', 'version-fast-path.ts', 'heap-settings.ts', 'explain-prefetch.ts'].map((f) => path.join(src, 'cli', f)),
    // The audit reader thread's and the lease pass's workers (src/sources/audit/threaded-lines.ts and
    // lease-pass.ts start them from dist/sources/audit/).
    path.join(src, 'sources', 'audit', 'reader-thread.ts'),
    path.join(src, 'sources', 'audit', 'lease-thread.ts'),
  ],
  outbase: src,
  outdir: dist,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node22',
  chunkNames: 'chunks/[name]-[hash]',
  external: ['@oclif/core'],
  // tr46/whatwg-url (under the Kubernetes client's node-fetch) require Node's deprecated
  // built-in punycode; Node warns (DEP0040) on stderr when that call is not from
  // node_modules, which in a bundle it never is. The userland package is the same code.
  alias: { punycode: 'punycode/' },
  // Bundled CommonJS packages call require() for Node's built-ins; in an ES module that
  // needs a real require.
  banner: { js: "import { createRequire as __kexpCreateRequire } from 'node:module'; const require = __kexpCreateRequire(import.meta.url);" },
  legalComments: 'linked',
  logLevel: 'warning',
});

// Vega's prebuilt bundle, and nothing else of Vega (see the module comment).
const requireHere = createRequire(import.meta.url);
const vegaDir = path.join(path.dirname(requireHere.resolve('vega')), '..'); // …/vega/build/vega.module.js → …/vega
const vegaPkg = JSON.parse(fs.readFileSync(path.join(vegaDir, 'package.json'), 'utf8'));
const vegaOut = path.join(dist, 'node_modules', 'vega');
fs.mkdirSync(path.join(vegaOut, 'build'), { recursive: true });
fs.copyFileSync(path.join(vegaDir, 'build', 'vega.min.js'), path.join(vegaOut, 'build', 'vega.min.js'));
fs.copyFileSync(path.join(vegaDir, 'LICENSE'), path.join(vegaOut, 'LICENSE'));
fs.writeFileSync(
  path.join(vegaOut, 'package.json'),
  `${JSON.stringify({ name: 'vega', version: vegaPkg.version, license: vegaPkg.license, main: 'build/vega.min.js' }, null, 2)}\n`,
);
