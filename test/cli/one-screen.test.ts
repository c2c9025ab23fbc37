/**
 * The answer on one screen, in a real 80×24 pseudo-terminal (python3's pty, test/support/pty-run.ts):
 * when `kexp replay` of a shipped example ends, the verdict, its cause and the next step are on
 * the screen (the last 23 lines: one is the prompt's), because a report taller than the
 * terminal ends with its summary again; piped through `cat` (stdout a pipe, stderr the
 * terminal) and with stderr away too (only /dev/tty left), no line is wider than the terminal's
 * 80 columns; a report that fits the screen is printed once; `-o name` lists the owners.
 * Needs `npm run build`.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { HAS_PYTHON_PTY, runInPty, screenText } from '../support/pty-run.js';
import { kexp } from '../support/cli.js';

const ROOT = path.resolve(new URL('../..', import.meta.url).pathname);
const skip = !HAS_PYTHON_PTY && 'python3 with pty is not installed';

function env(): NodeJS.ProcessEnv {
  const e: NodeJS.ProcessEnv = { ...process.env, TERM: 'xterm-256color', NO_COLOR: '1' };
  delete e.COLUMNS;
  delete e.LINES;
  delete e.CI;
  return e;
}

const screenLines = screenText;

test('80×24 pty: after `kexp replay` of a tall example the verdict, cause and next step are on the screen', { skip }, async () => {
  for (const example of ['examples/deletion-loss.kexp.jsonl', 'examples/quota-rejected.kexp.jsonl', 'examples/dropped-add-trigger.kexp.jsonl']) {
    const r = await runInPty(['replay', path.join(ROOT, example)], { env: env(), rows: 24, cols: 80 });
    assert.notEqual(r.code, null, `${example}: killed by ${r.signal}`);
    assert.ok([0, 3, 4, 5].includes(r.code!), `${example}: exit ${r.code}`);
    const lines = screenLines(r.output);
    if (lines.at(-1) === '') lines.pop();
    assert.ok(lines.length > 24, `${example}: the report is taller than the screen (${lines.length} lines)`);
    const screen = lines.slice(-23);
    const verdict = screen.findIndex((l) => /^Verdict: [A-Z]+ \[(observed|inferred|unknown)\]/.test(l));
    assert.ok(verdict >= 0, `${example}: no verdict on the last screen:\n${screen.join('\n')}`);
    assert.ok(screen.some((l) => /^Next:/.test(l)), `${example}: no next step on the screen`);
    assert.match(screen[verdict - 1]!, /^ReplicaSet \S+\/\S+$/, example);
    assert.match(lines.join('\n'), /─+ summary \(\d+ lines above\) ─+/);
    // The first verdict line is the same text as the one repeated.
    assert.equal(lines.filter((l) => l === screen[verdict]).length, 2, example);
    for (const l of lines) assert.ok([...l].length <= 80, `${example}: ${[...l].length} > 80: ${l}`);
    // The exit code is the verdict's: a LEAKED headline exits 4, a FAILING one 5.
    const state = /^Verdict: ([A-Z]+)/.exec(screen[verdict]!)![1];
    if (state === 'LEAKED') assert.equal(r.code, 4, example);
    if (state === 'FAILING') assert.equal(r.code, 5, example);
  }
});

test('80×24 pty: a report that fits the screen is printed once, without the repeated summary', { skip }, async () => {
  const r = await runInPty(['kcm-log', path.join(ROOT, 'examples/captures/scale-up-gated/kcm.log'), '-o', 'name'], { env: env(), rows: 24, cols: 80 });
  assert.equal(r.code, 0);
  assert.deepEqual(screenLines(r.output).filter(Boolean), ['replicaset.apps/web']);
  const small = await runInPty(['replay', path.join(ROOT, 'examples/scale-up-gated.kexp.jsonl')], { env: env(), rows: 200, cols: 80 });
  assert.equal(small.code, 0);
  assert.doesNotMatch(small.output, /summary \(\d+ lines above\)/);
  assert.equal(screenLines(small.output).filter((l) => l.startsWith('Verdict: ')).length, 1);
});

test('piped from a pty (`| cat`, and with stderr away: /dev/tty), no line is wider than the terminal and the summary is not repeated', { skip }, async () => {
  // 80 columns, and 64 where only /dev/tty can tell it (64 is no default width: it was read).
  for (const [shell, cols] of [
    ['kexp replay examples/deletion-loss.kexp.jsonl | cat', 80],
    ['kexp replay examples/restart-mid-rollout.kexp.jsonl 2>/dev/null | cat', 64],
    ['kexp audit examples/captures/deletion-loss/audit.jsonl 2>/dev/null | cat', 80],
  ] as const) {
    const r = await runInPty([], { env: { ...env(), PWD: ROOT }, rows: 24, cols, shell: `cd ${JSON.stringify(ROOT)} && ${shell}` });
    assert.equal(r.signal, null, shell);
    const lines = screenLines(r.output);
    assert.ok(lines.length > 30, `${shell}: ${lines.length} lines`);
    const widest = Math.max(...lines.map((l) => [...l].length));
    assert.ok(widest <= cols, `${shell}: a line of ${widest} columns`);
    // Laid out for the terminal, not for the 100 columns of an unknown width before.
    assert.ok(widest > cols - 10, `${shell}: widest ${widest}`);
    assert.doesNotMatch(r.output, /summary \(\d+ lines above\)/, shell);
  }
});

test('-o name: kubectl\'s TYPE/NAME of each owner, worst first; pods for adopt', () => {
  const replay = kexp(['replay', 'examples/deletion-loss.kexp.jsonl', '-o', 'name'], { cwd: ROOT });
  assert.equal(replay.code, 4, replay.stderr);
  assert.equal(replay.stdout, 'replicaset.apps/web\n');
  const ds = kexp(['kcm-log', 'examples/captures/ds-deletion-loss/kcm.log', '-o', 'name'], { cwd: ROOT });
  assert.equal(ds.stdout, 'daemonset.apps/agent\n');
  const adopt = kexp(['adopt', 'web', '--from', 'examples/scale-up-gated.kexp.jsonl', '-o', 'name'], { cwd: ROOT });
  assert.equal(adopt.code, 0, adopt.stderr);
  assert.equal(adopt.stdout.split('\n').filter(Boolean).length, 5);
  for (const l of adopt.stdout.trim().split('\n')) assert.match(l, /^pod\/web-[a-z0-9]{5}$/);
});

test('kcm-log -n NAMESPACE [NAME]: kubectl\'s form, as replay and audit take it', () => {
  const log = 'examples/captures/ds-deletion-loss/kcm.log';
  const ns = kexp(['kcm-log', log, '-n', 'kexp-ds-deletion-loss', '-o', 'json'], { cwd: ROOT });
  assert.equal(ns.code, 4, ns.stderr);
  const keys = (JSON.parse(ns.stdout) as { replicaSets: Array<{ key: string }> }).replicaSets.map((r) => r.key);
  assert.ok(keys.length > 0 && keys.every((k) => k.startsWith('kexp-ds-deletion-loss/')), keys.join(' '));
  const one = kexp(['kcm-log', '-n', 'kexp-ds-deletion-loss', 'agent', log, '-o', 'name'], { cwd: ROOT });
  assert.equal(one.stdout, 'daemonset.apps/agent\n');
  const other = kexp(['kcm-log', log, '-n', 'elsewhere'], { cwd: ROOT });
  assert.equal(other.code, 0);
  assert.match(other.stderr, /no ReplicaSet, ReplicationController, DaemonSet or Job found in namespace elsewhere/);
  const absent = kexp(['kcm-log', '-n', 'kexp-ds-deletion-loss', 'nope', log], { cwd: ROOT });
  assert.equal(absent.code, 8, absent.stderr);
});

test('kcm-log: a leak only the timeout cleared leads the verdict, as its exit code 4 says', () => {
  const r = kexp(['kcm-log', 'examples/captures/ds-deletion-loss/kcm.log'], { cwd: ROOT, env: { COLUMNS: '200' } });
  assert.equal(r.code, 4);
  assert.match(r.stdout, /^Verdict: LEAKED \[observed\] — expectations of DaemonSet kexp-ds-deletion-loss\/agent leaked and only the 5-minute timeout cleared them \(exit code 4\); now HEALTHY \[observed\]: /);
  assert.match(r.stdout, /^Cause: {3}Expectations leaked/m);
});

test('replay and audit: a ReplicaSet whose only leak is over still leads with LEAKED (exit 4); the ranking says "leaked, now …"', () => {
  const r = kexp(['replay', 'examples/informer-lag-over-create.kexp.jsonl'], { cwd: ROOT, env: { COLUMNS: '200' } });
  assert.equal(r.code, 4);
  assert.match(r.stdout, /^Verdict: LEAKED \[(observed|inferred)\] — an expectation leak the input shows, cleared only by the 5-minute timeout \(exit code 4\); at the end HEALTHY: /m);
  const a = kexp(['audit', 'examples/captures/deletion-loss/audit.jsonl'], { cwd: ROOT, env: { COLUMNS: '200' } });
  assert.equal(a.code, 4);
  assert.match(a.stdout, /^kexp-deletion-loss\/web +leaked, now deleted +/m);
  assert.match(a.stdout, /^Verdict: LEAKED /m);
});

test('audit ranking: owner names are never cut; when they do not fit beside the columns each stands whole on its own line', () => {
  const audit = 'examples/captures/quota-rejected/audit.jsonl';
  const fits = kexp(['audit', audit], { cwd: ROOT, env: { COLUMNS: '80' } });
  assert.match(fits.stdout, /^kexp-quota-rejected\/web {2,}\S/m);
  const narrow = kexp(['audit', audit], { cwd: ROOT, env: { COLUMNS: '40' } });
  const lines = narrow.stdout.split('\n');
  const at = lines.indexOf('REPLICASET');
  assert.ok(at >= 0, narrow.stdout);
  assert.match(lines[at + 1]!, /^ {4}VERDICT +FINDINGS/);
  assert.equal(lines[at + 2], 'kexp-quota-rejected/web');
  assert.match(lines[at + 3]!, /^ {4}deleted +\d+/);
  for (const l of lines) assert.ok(!/kexp-quota-rejected\/w…|kexp-quota-rej…/.test(l), l);
});

test('80-column pty: a warning longer than the terminal is wrapped at word boundaries on stderr; to a pipe it stays one line', { skip }, async () => {
  // A directory of inputs none of which kexp reads gives a long warning; any long stderr line does.
  const args = ['replay', 'examples/scale-up-gated.kexp.jsonl', '--rs', 'kexp-scale-up-gated/a-replicaset-name-long-enough-to-make-the-warning-wrap'];
  const piped = kexp(args, { cwd: ROOT });
  const warning = piped.stderr.split('\n').find((l) => l.startsWith('warning: '));
  assert.ok(warning && warning.length > 80, piped.stderr);
  const r = await runInPty(args.map((a) => (a.startsWith('examples/') ? path.join(ROOT, a) : a)), { env: env(), rows: 200, cols: 80 });
  const lines = screenLines(r.output);
  const first = lines.findIndex((l) => l.startsWith('warning: '));
  assert.ok(first >= 0, r.output);
  assert.ok(lines[first + 1]!.startsWith('  '), 'continuation indented');
  for (const l of lines.slice(first, first + 3)) assert.ok([...l].length <= 80, l);
  // Broken between words: joined again with one space, the lines are the warning.
  const part = [lines[first]!];
  for (let i = first + 1; lines[i]?.startsWith('  '); i++) part.push(lines[i]!.trim());
  assert.ok(part.length > 1, 'wrapped');
  assert.equal(part.join(' '), warning.replace(/\s+/g, ' '));
});
