/**
 * Far-future and far-past timestamps (issue #14, "time is bounded"): one corrupt time in a
 * recording or an audit log is a problem at FILE:LINE (exit 6), never a simulation target —
 * the run ends in seconds, the report's times stay those of the rest of the input, and the
 * JSON report still validates.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { kexp } from '../support/cli.js';
import { validateReport } from '../support/report-schema.js';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kexp-time-'));
const REC = 'examples/scale-up-gated.kexp.jsonl';
const AUDIT = 'examples/captures/scale-up-gated/audit.jsonl';

/** Replaces the first `"field":"2026` on line `n` (1-based) with the given year. */
function mutate(src: string, n: number, field: string, year: string, name: string): string {
  const lines = fs.readFileSync(src, 'utf8').split('\n');
  const before = lines[n - 1]!;
  lines[n - 1] = before.replace(new RegExp(`"${field}":"2026`, 'g'), `"${field}":"${year}`);
  assert.notEqual(lines[n - 1], before, `${src}:${n} has ${field}`);
  const f = path.join(tmp, name);
  fs.writeFileSync(f, lines.join('\n'));
  return f;
}

function checkReport(stdout: string): void {
  const report = JSON.parse(stdout) as { coverage: { start?: string; end?: string } };
  assert.deepEqual(validateReport(report), []);
  const times = [...stdout.matchAll(/"(\d{4,})-\d\d-\d\dT[^"]*Z"/g)].map((m) => Number(m[1]));
  assert.ok(times.length > 0);
  for (const y of times) assert.equal(y, 2026, `a report time in ${y}`);
  assert.match(report.coverage.start ?? '', /^2026-/);
  assert.match(report.coverage.end ?? '', /^2026-/);
}

for (const year of ['2126', '9999', '2036']) {
  for (const [field, line] of [['recv', 6], ['creationTimestamp', 6], ['lastTimestamp', 7]] as const) {
    test(`replay: ${field} in ${year} on one line is a problem at that line, the report stays in 2026`, () => {
      const f = mutate(REC, line, field, year, `rec-${field}-${year}.jsonl`);
      const t0 = Date.now();
      const r = kexp(['replay', f, '-o', 'json']);
      assert.ok(Date.now() - t0 < 30_000, 'finishes in seconds');
      assert.equal(r.code, 6, r.stderr);
      assert.match(r.stderr, new RegExp(`${f.replace(/[.]/g, '\\.')}:${line}: .*${year}-11-30T.* (is \\d+ years (after|before)|is not a plausible time)`));
      assert.doesNotMatch(r.stderr, /\n\s+at .+:\d+:\d+/);
      checkReport(r.stdout);
    });
  }
  for (const field of ['stageTimestamp', 'requestReceivedTimestamp']) {
    test(`audit: ${field} in ${year} on one write is a problem at that line, the write is kept`, () => {
      const f = mutate(AUDIT, 20, field, year, `audit-${field}-${year}.jsonl`);
      const base = kexp(['audit', AUDIT, '-o', 'json']);
      const r = kexp(['audit', f, '-o', 'json']);
      assert.equal(r.code, 6, r.stderr);
      assert.match(r.stderr, new RegExp(`:20: ${field} ${year}-11-30T`));
      checkReport(r.stdout);
      // The write on that line still counts: the same rounds and accounting as the clean log.
      const rounds = (s: string) => JSON.parse(s).replicaSets.map((x: { accounting?: unknown; rounds?: unknown[] }) => [x.accounting, x.rounds?.length]);
      assert.deepEqual(rounds(r.stdout), rounds(base.stdout));
    });
  }
}

test('a genuine pause of three days in a recording is not a problem', () => {
  const lines = fs.readFileSync(REC, 'utf8').split('\n').filter(Boolean);
  const shift = 3 * 24 * 3600_000;
  // Everything from line 10 on (events and the end line) happens three days later.
  const out = lines.map((l, i) =>
    i < 9 ? l : l.replace(/"recv":"([^"]+)"/, (_m, t: string) => `"recv":"${new Date(Date.parse(t) + shift).toISOString()}"`),
  );
  const f = path.join(tmp, 'paused.jsonl');
  fs.writeFileSync(f, out.join('\n') + '\n');
  const r = kexp(['replay', f, '-o', 'json']);
  assert.doesNotMatch(r.stderr, /plausible|years after|days after/);
  assert.notEqual(r.code, 6, r.stderr);
});
