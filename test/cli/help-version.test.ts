/**
 * kubectl habits that are pure packaging, spawned through bin/run.js (the built bundle):
 * `kexp --version`, `-v` and `kexp version` print one line; `kexp help`, `-h`, `--help` and
 * `kexp help COMMAND` list the commands; a mistyped command is one line naming the closest
 * command, exit 2; `kexp autocomplete` writes a bash completion that completes commands and
 * flags.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { kexp } from '../support/cli.js';
import { KEXP_VERSION } from '../../src/version.js';
import { closestCommand } from '../../src/cli/command-not-found.js';

const ROOT = path.resolve(new URL('../..', import.meta.url).pathname);
const PKG = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string };
const MANIFEST = JSON.parse(fs.readFileSync(path.join(ROOT, 'oclif.manifest.json'), 'utf8')) as { commands: Record<string, unknown> };
const KEXP_COMMANDS = Object.keys(MANIFEST.commands).sort();
const VERSION_LINE = `kexp/${PKG.version} ${process.platform}-${process.arch} node-${process.version}\n`;

test('src/version.ts is in step with package.json', () => {
  assert.equal(KEXP_VERSION, PKG.version);
});

test('kexp --version, -v and kexp version print the same one line, exit 0', () => {
  for (const args of [['--version'], ['-v'], ['version']]) {
    const r = kexp(args);
    assert.equal(r.code, 0, `${args.join(' ')}: ${r.stderr}`);
    assert.equal(r.stdout, VERSION_LINE, args.join(' '));
    assert.equal(r.stderr, '', args.join(' '));
  }
});

test('kexp help, -h and --help list every command; kexp help replay and replay -h show its usage', () => {
  assert.deepEqual(KEXP_COMMANDS, ['adopt', 'audit', 'explain', 'kcm-log', 'record', 'replay', 'serve']);
  const outputs = [['help'], ['-h'], ['--help']].map((args) => kexp(args));
  for (const r of outputs) {
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^USAGE\n {2}\$ kexp \[COMMAND\]$/m);
    const listed = [...r.stdout.slice(r.stdout.indexOf('\nCOMMANDS\n')).matchAll(/^ {2}([a-z-]+)(?: |$)/gm)].map((m) => m[1]);
    assert.deepEqual(listed.sort(), [...KEXP_COMMANDS, 'autocomplete', 'help', 'version'].sort());
  }
  assert.equal(outputs[1]!.stdout, outputs[0]!.stdout);
  assert.equal(outputs[2]!.stdout, outputs[0]!.stdout);

  const helpReplay = kexp(['help', 'replay']);
  const replayH = kexp(['replay', '-h']);
  assert.equal(helpReplay.code, 0, helpReplay.stderr);
  assert.equal(replayH.code, 0, replayH.stderr);
  assert.match(helpReplay.stdout, /^USAGE\n {2}\$ kexp replay /m);
  assert.equal(replayH.stdout, helpReplay.stdout);
});

test('a mistyped command: one line naming the closest command, exit 2, nothing on stdout', () => {
  const cases: [string, string][] = [
    ['replya', 'kexp: "replya" is not a kexp command; did you mean "replay"? (kexp help lists them all)\n'],
    ['explian', 'kexp: "explian" is not a kexp command; did you mean "explain"? (kexp help lists them all)\n'],
    ['kcmlog', 'kexp: "kcmlog" is not a kexp command; did you mean "kcm-log"? (kexp help lists them all)\n'],
    ['versoin', 'kexp: "versoin" is not a kexp command; did you mean "version"? (kexp help lists them all)\n'],
    ['zzzzzzzzzz', 'kexp: "zzzzzzzzzz" is not a kexp command (kexp help lists them all)\n'],
  ];
  for (const [typed, line] of cases) {
    const r = kexp([typed, 'some-arg']);
    assert.equal(r.code, 2, typed);
    assert.equal(r.stderr, line, typed);
    assert.equal(r.stdout, '', typed);
  }
  // A typed name is input: control characters are made visible, never sent to the terminal.
  const hostile = kexp(['\x1b]0;owned\x07replay']);
  assert.equal(hostile.code, 2);
  assert.doesNotMatch(hostile.stderr, /[\x00-\x08\x0b-\x1f\x7f]/);
  assert.match(hostile.stderr, /is not a kexp command/);
  assert.equal(hostile.stderr.split('\n').length, 2);
});

test('kexp help SUBJECT for no command: the same one line as a mistyped command, exit 2, no oclif error block', () => {
  for (const [typed, line] of [
    ['nosuch', 'kexp: "nosuch" is not a kexp command (kexp help lists them all)\n'],
    ['replya', 'kexp: "replya" is not a kexp command; did you mean "replay"? (kexp help lists them all)\n'],
  ] as const) {
    const r = kexp(['help', typed]);
    assert.equal(r.code, 2, typed);
    assert.equal(r.stderr, line, typed);
    assert.equal(r.stdout, '', typed);
  }
  const known = kexp(['help', 'kcm-log']);
  assert.equal(known.code, 0, known.stderr);
  assert.match(known.stdout, /^USAGE\n {2}\$ kexp kcm-log /m);
});

test('a command without its required argument names it, with an example to copy, exit 2', () => {
  const cases: Array<[string, RegExp]> = [
    ['replay', /^kexp: missing FILE \(Input file\(s\); "-" reads stdin\); e\.g\. kexp replay examples\/scale-up-gated\.kexp\.jsonl \(see kexp replay --help\)\n$/],
    ['audit', /^kexp: missing FILE \(.+\); e\.g\. kexp audit \S+ .*\(see kexp audit --help\)\n$/],
    ['kcm-log', /^kexp: missing FILE \(.+\); e\.g\. kexp kcm-log \S+.*\(see kexp kcm-log --help\)\n$/],
    ['explain', /^kexp: missing TARGET \(TYPE\/NAME .+\); e\.g\. kexp explain web-7d9f5c --namespace shop \(see kexp explain --help\)\n$/],
    ['record', /^kexp: missing TARGET \(.+\); e\.g\. kexp record \S+ -n shop -f web\.kexp\.jsonl.*\(see kexp record --help\)\n$/],
    ['adopt', /^kexp: missing TARGET \(ReplicaSet name\); e\.g\. kexp adopt web-7d9f5c --namespace shop \(see kexp adopt --help\)\n$/],
  ];
  for (const [cmd, line] of cases) {
    const r = kexp([cmd]);
    assert.equal(r.code, 2, cmd);
    assert.match(r.stderr, line, cmd);
    assert.equal(r.stdout, '', cmd);
  }
});

test('closestCommand: nearest by edit distance, none when nothing is close', () => {
  const ids = ['adopt', 'audit', 'explain', 'kcm-log', 'record', 'replay', 'help', 'version', 'autocomplete'];
  assert.equal(closestCommand('adit', ids), 'audit');
  assert.equal(closestCommand('recrod', ids), 'record');
  assert.equal(closestCommand('status', ids), undefined);
  assert.equal(closestCommand('x', ids), undefined);
  assert.equal(closestCommand('replay', []), undefined);
});

const HAS_BASH = spawnSync('bash', ['-c', 'true']).status === 0;

test('kexp autocomplete: bash completion of commands and flags from the installed command set', { skip: HAS_BASH ? false : 'bash is not available' }, (t) => {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'kexp-ac-'));
  t.after(() => fs.rmSync(home, { recursive: true, force: true }));
  const env = { HOME: home, XDG_CACHE_HOME: '' };
  const refresh = kexp(['autocomplete', '--refresh-cache'], { env });
  assert.equal(refresh.code, 0, refresh.stderr);
  // The line a user appends to ~/.bashrc (kexp autocomplete bash prints the instructions).
  const setup = kexp(['autocomplete', 'script', 'bash'], { env });
  assert.equal(setup.code, 0, setup.stderr);
  assert.match(setup.stdout, /KEXP_AC_BASH_SETUP_PATH=\S+\/\.cache\/kexp\/autocomplete\/bash_setup/);

  const complete = (words: string[]): string[] => {
    const script = [
      setup.stdout.trim(),
      `COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')})`,
      `COMP_CWORD=${words.length - 1}`,
      'complete -p kexp >&2',
      '_kexp_autocomplete',
      'printf "%s\\n" "${COMPREPLY[@]}"',
    ].join('\n');
    const r = spawnSync('bash', ['--norc', '--noprofile', '-c', script], { encoding: 'utf8', env: { ...process.env, HOME: home } });
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stderr, /^complete -F _kexp_autocomplete kexp$/m);
    return r.stdout.split('\n').filter(Boolean).sort();
  };
  assert.deepEqual(complete(['kexp', 'rep']), ['replay']);
  assert.deepEqual(complete(['kexp', 'a']), ['adopt', 'audit', 'autocomplete']);
  assert.deepEqual(complete(['kexp', 'replay', '--k8s']), ['--k8s-version']);
  assert.ok(complete(['kexp', 'explain', '--']).includes('--kubeconfig'));
});
