/**
 * Ctrl-C (SIGINT) or SIGTERM during `kexp replay -`, `audit -` and `kcm-log -` reading a pipe
 * that the test keeps open (so the input never ends by itself): the command stops reading,
 * analyses what it read, prints its report (JSON here, parsed), says on stderr how far it got
 * ("interrupted after N lines of standard input (X read) — partial result"), marks the report's
 * coverage where the report has one, and exits 130 — never killed by the signal. The signal is
 * sent once the child has taken in most of the input (the write callback of an input larger
 * than the pipe buffer), so the handlers are installed and reading is under way.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import path from 'node:path';
import zlib from 'node:zlib';
import fs from 'node:fs';

const ROOT = path.resolve(new URL('../..', import.meta.url).pathname);
const BIN = path.join(ROOT, 'bin', 'run.js');

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

function interrupt(command: string, input: Buffer, signals: NodeJS.Signals[], output: string[] = ['-o', 'json']): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, command, '-', ...output], { env: { ...process.env, NO_COLOR: '1', COLUMNS: '200' }, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.stdin.on('error', () => undefined); // the child may stop reading first
    const guard = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${command}: still running 60 s after the signal; stderr: ${stderr}`));
    }, 90_000);
    // Never end stdin: the pipe stays open, as `kubectl get -w | kexp replay -` would.
    child.stdin.write(input, () => {
      setTimeout(() => {
        for (const s of signals) child.kill(s);
      }, 300);
    });
    child.on('exit', (code, signal) => {
      clearTimeout(guard);
      child.stdin.destroy();
      resolve({ code, signal, stdout, stderr });
    });
  });
}

const gunzip = (f: string) => zlib.gunzipSync(fs.readFileSync(path.join(ROOT, f)));
const cases: Array<{ command: string; input: Buffer; coverage: boolean }> = [
  { command: 'replay', input: gunzip('examples/burst-600.kexp.jsonl.gz'), coverage: true },
  { command: 'audit', input: gunzip('examples/captures/burst-600/audit.jsonl.gz'), coverage: true },
  { command: 'kcm-log', input: gunzip('examples/captures/burst-600/kcm.log.gz'), coverage: false },
];

for (const c of cases) {
  test(`${c.command} - on an open pipe: SIGINT prints the partial report and exits 130`, { timeout: 120_000 }, async () => {
    const r = await interrupt(c.command, c.input, ['SIGINT']);
    assert.equal(r.signal, null, `killed by ${r.signal}; stderr: ${r.stderr}`);
    assert.equal(r.code, 130, r.stderr);
    const m = /^kexp: interrupted after ([\d,]+) lines of standard input \(([\d.,]+) (MB|bytes) read\) — partial result$/m.exec(r.stderr);
    assert.ok(m, r.stderr);
    const lines = Number(m[1]!.replace(/,/g, ''));
    assert.ok(lines > 0 && lines <= c.input.toString('utf8').split('\n').length, `${lines} lines`);
    const report = JSON.parse(r.stdout) as { replicaSets: unknown[]; coverage?: { assumptions: string[] } };
    assert.ok(Array.isArray(report.replicaSets));
    if (c.coverage) {
      const note = report.coverage!.assumptions.find((a) => a.startsWith('Interrupted (Ctrl-C or SIGTERM) after '));
      assert.ok(note?.includes(`${m[1]} lines of standard input`), JSON.stringify(report.coverage!.assumptions));
    }
  });
}

test('replay -: SIGTERM does the same; two signals at once still end with 130, never death by signal', { timeout: 120_000 }, async () => {
  const input = gunzip('examples/burst-600.kexp.jsonl.gz');
  const term = await interrupt('replay', input, ['SIGTERM']);
  assert.equal(term.signal, null, term.stderr);
  assert.equal(term.code, 130, term.stderr);
  assert.match(term.stderr, /^kexp: interrupted after [\d,]+ lines of standard input/m);
  const twice = await interrupt('replay', input, ['SIGINT', 'SIGINT']);
  assert.equal(twice.signal, null, twice.stderr);
  assert.equal(twice.code, 130, twice.stderr);
});

/**
 * A signal during a phase that does not yield (the analysis and the rendering run without
 * giving the event loop a turn) is seen before the command ends: exit 130 and the
 * "interrupted" line, never the verdict's code as if no signal had come (issue #23). A command
 * on KexpCommand receives SIGINT while it computes synchronously, as replay's report building
 * does, then ends the way the file commands end.
 */
test('a signal that comes while the command computes without yielding still ends it with 130 (KexpCommand.endInterrupted)', { timeout: 60_000 }, () => {
  const script = `
    import { KexpCommand } from ${JSON.stringify(path.join(ROOT, 'src/cli/base-command.ts'))};
    class Busy extends KexpCommand {
      async run() {
        const ac = this.abortOnSignals();
        try {
          process.kill(process.pid, 'SIGINT');
          const until = Date.now() + 300;
          while (Date.now() < until); // the analysis: no turn of the event loop
          process.stdout.write('report printed\\n');
          await this.endInterrupted(ac.signal, undefined);
        } finally {
          ac.dispose();
        }
      }
    }
    await Busy.run([], { root: ${JSON.stringify(ROOT)} });
  `;
  const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8', timeout: 50_000 });
  assert.equal(r.signal, null, r.stderr);
  assert.equal(r.stdout, 'report printed\n');
  assert.equal(r.stderr, 'kexp: interrupted after the input was read whole; the result is complete\n');
  assert.equal(r.status, 130, r.stderr);
});

test('the text report of an interrupted read says PARTIAL in its verdict line, with how far the input was read', { timeout: 120_000 }, async () => {
  for (const c of cases) {
    const r = await interrupt(c.command, c.input, ['SIGINT'], []);
    // The input line counts what was read, never the zeros of a summary left unfinished.
    const read = /^Input: - \(audit-log[^)]*\): ([\d,]+) lines:/m.exec(r.stdout);
    if (c.command === 'audit') {
      assert.ok(read, r.stdout);
      assert.ok(Number(read[1]!.replace(/,/g, '')) > 0, `audit read ${read[1]} lines: ${r.stderr}`);
    }
    assert.equal(r.code, 130, r.stderr);
    const cut = /^kexp: interrupted (after [\d,]+ lines of standard input \([\d.,]+ (?:MB|bytes) read\)) — partial result$/m.exec(r.stderr);
    assert.ok(cut, r.stderr);
    const verdict = r.stdout.split('\n').find((l) => l.startsWith('Verdict: '));
    if (verdict === undefined) continue; // nothing read to judge yet: no verdict to mark
    assert.ok(verdict.includes(` PARTIAL (interrupted ${cut[1]}) — `), `${c.command}: ${verdict}`);
  }
});
