/**
 * The main script of kexp's single executable (scripts/build-sea.mjs bundles it, with every
 * dependency, into one CommonJS file that Node's SEA runs). Inside a SEA, require() and import()
 * cannot load files of the application, so oclif cannot discover commands, plugins and hooks
 * from a package directory as bin/run.js does. Here they are imported statically and handed to
 * oclif through its own extension points:
 * - the root plugin gets package.json (inlined at build time) and the `explicit` command
 *   strategy; its command table is filled before load(), so oclif never imports a target file;
 * - the commands of the help, version and autocomplete plugins join kexp's own;
 * - a mistyped command goes to kexp's command_not_found hook (src/cli/command-not-found.ts)
 *   called directly, since oclif would load hooks from files.
 */
import { Config, Plugin, execute, handle } from '@oclif/core';
import pjson from '../package.json' with { type: 'json' };
import adopt from '../src/commands/adopt.ts';
import audit from '../src/commands/audit.ts';
import explain from '../src/commands/explain.ts';
import kcmLog from '../src/commands/kcm-log.ts';
import record from '../src/commands/record.ts';
import replay from '../src/commands/replay.ts';
import notFound from '../src/cli/command-not-found.ts';
import { installStdoutGuard } from '../src/cli/output.ts';
import { commands as helpCommands } from '@oclif/plugin-help';
import version from '../node_modules/@oclif/plugin-version/lib/commands/version.js';
import autocomplete from '../node_modules/@oclif/plugin-autocomplete/lib/commands/autocomplete/index.js';
import autocompleteCreate from '../node_modules/@oclif/plugin-autocomplete/lib/commands/autocomplete/create.js';
import autocompleteScript from '../node_modules/@oclif/plugin-autocomplete/lib/commands/autocomplete/script.js';
import path from 'node:path';

const COMMANDS = {
  adopt,
  audit,
  explain,
  'kcm-log': kcmLog,
  record,
  replay,
  ...helpCommands,
  version,
  autocomplete,
  'autocomplete:create': autocompleteCreate,
  'autocomplete:script': autocompleteScript,
};

async function main() {
  installStdoutGuard();
  const root = path.dirname(process.execPath);
  const sea = {
    ...pjson,
    oclif: { ...pjson.oclif, commands: { strategy: 'explicit', target: 'sea', identifier: 'COMMANDS' }, plugins: [], hooks: {} },
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
  await execute({ args: argv, loadOptions: config });
}

main().catch(handle);
