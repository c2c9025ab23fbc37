/**
 * `kexp --version`, `kexp -v` and `kexp version` without loading oclif: loading @oclif/core and
 * reading the three plugins' manifests costs ~150 ms, four times what Node itself needs to start
 * (bench/README.md, "Start-up"), only to print one line that depends on nothing oclif knows
 * beyond package.json.
 *
 * The line is byte for byte what oclif prints (its `config.userAgent`, written by @oclif/core's
 * main.js for `--version`/`-v` and by @oclif/plugin-version's command for `version`):
 * `NAME/VERSION PLATFORM-ARCH node-NODEVERSION`, where ARCH is `os.arch()` with ia32 shown as
 * x86, and PLATFORM is `os.platform()` except under WSL, where oclif says `wsl`. The argv
 * matched is exactly what oclif treats as a version request:
 * - `--version` or `-v` (package.json `additionalVersionFlags`) as the first argument, whatever
 *   follows (oclif looks at argv[0] only);
 * - `version` alone: any further argument (`--verbose`, `--json`, a typo) is the plugin
 *   command's business, so oclif runs it.
 *
 * Whenever the answer might differ from oclif's — a linux kernel that looks like WSL (oclif
 * also asks whether it runs in a container there), an argv that is not exactly one of the
 * above — `versionLine` returns undefined and bin/run.js starts oclif as before.
 */
import fs from 'node:fs';
import os from 'node:os';

export interface PackageInfo {
  name: string;
  version: string;
  oclif?: { additionalVersionFlags?: string[] };
}

/** What the line depends on besides package.json (injected by tests). */
export interface Host {
  platform: NodeJS.Platform;
  arch: string;
  release: string;
  nodeVersion: string;
  /** The text of /proc/version, or undefined when unreadable. */
  procVersion(): string | undefined;
  exists(p: string): boolean;
}

export const realHost: Host = {
  platform: process.platform,
  arch: os.arch(),
  release: os.release(),
  nodeVersion: process.version,
  procVersion: () => {
    try {
      return fs.readFileSync('/proc/version', 'utf8');
    } catch {
      return undefined;
    }
  },
  exists: (p) => fs.existsSync(p),
};

/** Whether argv asks oclif for its version line and nothing else. */
export function isVersionRequest(argv: readonly string[], pkg: PackageInfo): boolean {
  const flags = new Set(['--version', ...(pkg.oclif?.additionalVersionFlags ?? [])]);
  if (argv.length > 0 && flags.has(argv[0]!)) return true;
  return argv.length === 1 && argv[0] === 'version';
}

/**
 * Any sign of WSL is-wsl (oclif's test) looks for. Under WSL oclif prints `wsl` unless it also
 * finds itself in a container; rather than copy that second test, such hosts go through oclif.
 */
function mayBeWsl(h: Host): boolean {
  if (h.platform !== 'linux') return false;
  if (h.release.toLowerCase().includes('microsoft')) return true;
  if (h.procVersion()?.toLowerCase().includes('microsoft')) return true;
  return h.exists('/proc/sys/fs/binfmt_misc/WSLInterop') || h.exists('/run/WSL');
}

/** oclif's version line for this argv (with its newline), or undefined to let oclif answer. */
export function versionLine(argv: readonly string[], pkg: PackageInfo, h: Host = realHost): string | undefined {
  if (!isVersionRequest(argv, pkg)) return undefined;
  if (typeof pkg.name !== 'string' || typeof pkg.version !== 'string' || pkg.version === '') return undefined;
  if (mayBeWsl(h)) return undefined;
  const arch = h.arch === 'ia32' ? 'x86' : h.arch;
  return `${pkg.name}/${pkg.version} ${h.platform}-${arch} node-${h.nodeVersion}\n`;
}
