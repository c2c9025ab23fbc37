/**
 * The single executable's boot: its main script, kept small so that the executable starts like
 * `node bin/run.js` does. It answers `--version` (`-v`, `version`) itself, as bin/run.js's fast
 * path does (src/cli/version-fast-path.ts), and otherwise runs the executable's real entry
 * (scripts/sea-entry.mjs, bundled with oclif, the commands and every dependency), which
 * scripts/build-sea.mjs stores as the SEA asset `kexp-main.cjs` together with V8's code cache
 * for it (`kexp-main.cache`, amd64 only: a cache is valid only for the architecture that made
 * it).
 *
 * Why not the entry itself as the main script: Node compiles, or deserialises the code cache of,
 * the whole main script (3 MB) at every start, even for `--version`; measured at ~2× the npm
 * install's `--version` (bench/README.md, "Single executable against the npm install"). Here
 * that cost is paid only when a command runs, and with the same code cache.
 *
 * Contract: the entry runs as the CommonJS module it was bundled as — its own `module`,
 * `exports`, and the executable's `require` (Node's built-in modules; a SEA has no others) —
 * `__filename` and `__dirname` those of the executable, as Node gives its main script —
 * compiled with vm.Script under the name kexp-main.cjs, with the cache when there is one (a
 * cache V8 rejects costs a compile, never a failure).
 * Cost: one asset read (the entry's source, ~3 MB, and the cache) and one compile, only when a
 * command runs.
 */
import pjson from '../package.json' with { type: 'json' };
import { versionLine } from '../src/cli/version-fast-path.ts';
import { installStdoutGuard } from '../src/cli/output.ts';
import sea from 'node:sea';
import vm from 'node:vm';
import path from 'node:path';

const line = versionLine(process.argv.slice(2), pjson);
if (line !== undefined) {
  installStdoutGuard();
  process.stdout.write(line);
} else {
  const source = sea.getAsset('kexp-main.cjs', 'utf8');
  let cachedData;
  try {
    cachedData = Buffer.from(sea.getAsset('kexp-main.cache'));
  } catch {
    cachedData = undefined; // built without a cache (arm64, --no-code-cache)
  }
  const script = new vm.Script(source, { filename: 'kexp-main.cjs', cachedData, importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER });
  const mod = { exports: {} };
  // eslint-disable-next-line no-undef -- the executable's require (built-in modules), as the entry's bundle expects
  script.runInThisContext()(mod.exports, require, mod, process.execPath, path.dirname(process.execPath));
}
