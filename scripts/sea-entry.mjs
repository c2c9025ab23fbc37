/**
 * The main script of kexp's single executable (scripts/build-sea.mjs bundles it, with every
 * dependency, into one CommonJS file that Node's SEA runs). Inside a SEA, require() and import()
 * cannot load files of the application, so oclif cannot discover commands, plugins and hooks
 * from a package directory as bin/run.js does. Here they are bundled (imported by literal name,
 * dynamically, so that `--version` — answered first, like bin/run.js's fast path — evaluates
 * none of them) and handed to oclif through its own extension points:
 * - the root plugin gets package.json (inlined at build time) and the `explicit` command
 *   strategy; its command table is filled before load(), so oclif never imports a target file;
 * - the commands of the help, version and autocomplete plugins join kexp's own;
 * - a mistyped command goes to kexp's command_not_found hook (src/cli/command-not-found.ts)
 *   called directly, since oclif would load hooks from files.
 */
import pjson from '../package.json' with { type: 'json' };
import { versionLine } from '../src/cli/version-fast-path.ts';
import { installStdoutGuard } from '../src/cli/output.ts';
import path from 'node:path';

/**
 * oclif and the commands, loaded only when a command runs: esbuild turns each dynamic import
 * into a module whose evaluation waits for the call, so `--version` evaluates none of them (the
 * start-up of the npm install's bin/run.js fast path; V8's code cache already spares compiling).
 */
async function commands() {
  const [adopt, audit, explain, kcmLog, record, replay, help, version, autocomplete, autocompleteCreate, autocompleteScript] = await Promise.all([
    import('../src/commands/adopt.ts'),
    import('../src/commands/audit.ts'),
    import('../src/commands/explain.ts'),
    import('../src/commands/kcm-log.ts'),
    import('../src/commands/record.ts'),
    import('../src/commands/replay.ts'),
    import('@oclif/plugin-help'),
    import('../node_modules/@oclif/plugin-version/lib/commands/version.js'),
    import('../node_modules/@oclif/plugin-autocomplete/lib/commands/autocomplete/index.js'),
    import('../node_modules/@oclif/plugin-autocomplete/lib/commands/autocomplete/create.js'),
    import('../node_modules/@oclif/plugin-autocomplete/lib/commands/autocomplete/script.js'),
  ]);
  return {
    adopt: adopt.default,
    audit: audit.default,
    explain: explain.default,
    'kcm-log': kcmLog.default,
    record: record.default,
    replay: replay.default,
    ...help.commands,
    version: version.default,
    autocomplete: autocomplete.default,
    'autocomplete:create': autocompleteCreate.default,
    'autocomplete:script': autocompleteScript.default,
  };
}

async function main() {
  installStdoutGuard();
  const line = versionLine(process.argv.slice(2), pjson);
  if (line !== undefined) {
    process.stdout.write(line);
    return;
  }
  // explain's pod list and /version start from argv before oclif loads, as in bin/run.js (src/cli/explain-prefetch.ts).
  const prefetch = process.argv[2] === 'explain' ? await import('../src/cli/explain-prefetch.ts') : undefined;
  await prefetch?.startExplainPrefetch(process.argv.slice(2));
  const [{ Config, Help, Plugin, execute }, COMMANDS, { default: notFound }, { answerUnknownSubject }] = await Promise.all([
    import('@oclif/core'),
    commands(),
    import('../src/cli/command-not-found.ts'),
    import('../src/cli/help.ts'),
  ]);
  // kexp's help class (package.json oclif.helpClass) is a file oclif would import(), which a SEA
  // cannot: oclif's own Help answers, with kexp's one change made to it here (src/cli/help.ts).
  const showHelp = Help.prototype.showHelp;
  Help.prototype.showHelp = async function (argv) {
    if (answerUnknownSubject(this.config, argv)) return;
    return showHelp.call(this, argv);
  };
  const root = path.dirname(process.execPath);
  const sea = {
    ...pjson,
    oclif: { ...pjson.oclif, commands: { strategy: 'explicit', target: 'sea', identifier: 'COMMANDS' }, plugins: [], hooks: {}, helpClass: undefined },
  };
  const plugin = new Plugin({ root, pjson: sea, isRoot: true, ignoreManifest: true });
  plugin.commandCache = COMMANDS; // read by oclif's explicit strategy instead of importing `target`
  await plugin.load();
  const config = await Config.load({ root, pjson: sea, plugins: new Map([[plugin.name, plugin]]) });
  const argv = process.argv.slice(2);
  const first = argv[0];
  if (first !== undefined && !first.startsWith('-') && !config.findCommand(first)) {
    await notFound.call({ config, exit: (code) => process.exit(code), debug() {}, log() {}, warn() {}, error(m) { throw new Error(m); } }, { id: first, argv: argv.slice(1), config, context: undefined });
    return;
  }
  try {
    await execute({ args: argv, loadOptions: config });
  } finally {
    prefetch?.abandonExplainPrefetch();
  }
}

main().catch(async (err) => (await import('@oclif/core')).handle(err));
