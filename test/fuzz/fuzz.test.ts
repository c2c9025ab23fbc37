/**
 * The fuzz/mutation suite (issue #14): seeded mutations of every example — type swaps in any
 * field, hostile control sequences, far timestamps, truncated lines and files, duplicated,
 * dropped and reordered lines — through replay, audit and kcm-log. Asserted for each run:
 * - nothing but an InputError escapes the pipeline (anything else would be exit 1), and the
 *   spawned CLI never exits 1 or 134 nor prints a stack trace;
 * - it finishes within a bound;
 * - the rendered tables carry no raw control character;
 * - nothing is lost silently: a one-line mutation that costs events is a problem at that line
 *   or a new warning; kcm-log's line statistics add up to the file's lines.
 * Bounded for CI: a fixed number of samples per example and kind (KEXP_FUZZ_SAMPLES, default 2;
 * KEXP_FUZZ_SEED picks another seed; a failure message names the seed and the mutation).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { replayFiles } from '../../src/pipeline/replay-files.js';
import { auditFiles } from '../../src/pipeline/audit-files.js';
import { kcmLogFiles } from '../../src/pipeline/kcm-log-files.js';
import { renderTable } from '../../src/render/table.js';
import { renderAuditRanking } from '../../src/render/audit-table.js';
import { renderKcmLog } from '../../src/render/kcm-log-table.js';
import { InputError } from '../../src/sources/source.js';
import { kexp } from '../support/cli.js';
import { mutateFile, mutateJsonLine, mutateTextLine, pick, rng, type FileMutation, type LineMutation, type Rng } from './mutate.js';

const SEED = Number(process.env.KEXP_FUZZ_SEED ?? 20261201);
const SAMPLES = Number(process.env.KEXP_FUZZ_SAMPLES ?? 2);
const BOUND_MS = 20_000;
const LINE_KINDS: LineMutation[] = ['type-swap', 'control-chars', 'far-time', 'truncate-line'];
const FILE_KINDS: FileMutation[] = ['duplicate-line', 'swap-lines', 'drop-line', 'truncate-file'];
/** C0 except LF, DEL, C1: none may reach a terminal raw. */
const RAW_CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/;

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kexp-fuzz-'));
if (!process.env.KEXP_FUZZ_KEEP) process.on('exit', () => fs.rmSync(tmp, { recursive: true, force: true }));

function readText(f: string): string {
  const b = fs.readFileSync(f);
  return (f.endsWith('.gz') ? zlib.gunzipSync(b) : b).toString('utf8');
}

const recordings = fs.readdirSync('examples').filter((f) => /\.kexp\.jsonl$/.test(f)).map((f) => path.join('examples', f));
// The big captures are stored gzipped (burst-600, kcm-restart-scale-up): mutating them costs minutes.
const captures = fs.readdirSync('examples/captures').map((d) => path.join('examples/captures', d))
  .filter((d) => fs.existsSync(path.join(d, 'audit.jsonl')) && fs.existsSync(path.join(d, 'kcm.log')));

interface Case {
  what: string;
  text: string;
  /** 1-based line mutated, for single-line mutations. */
  line?: number;
}

/** The mutated inputs for one file: SAMPLES per line kind, one per file kind. */
function cases(file: string, r: Rng, text: string, json: boolean, headerLines: number): Case[] {
  const lines = text.split('\n');
  while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  const out: Case[] = [];
  for (const kind of LINE_KINDS) {
    for (let s = 0; s < SAMPLES; s++) {
      for (let tries = 0; tries < 8; tries++) {
        const i = headerLines + Math.floor(r() * (lines.length - headerLines));
        const m = json ? mutateJsonLine(lines[i]!, kind, r) : mutateTextLine(lines[i]!, kind, r);
        if (m === undefined || m === lines[i]) continue;
        const copy = [...lines];
        copy[i] = m;
        out.push({ what: `${file} ${kind} at line ${i + 1}`, text: copy.join('\n') + '\n', line: i + 1 });
        break;
      }
    }
  }
  for (const kind of FILE_KINDS) out.push({ what: `${file} ${kind}`, text: mutateFile(lines, kind, r, headerLines).join('\n') + '\n' });
  return out;
}

let n = 0;
function write(c: Case, ext: string): string {
  const f = path.join(tmp, `m${n++}${ext}`);
  fs.writeFileSync(f, c.text);
  return f;
}

async function timed<T>(what: string, fn: () => Promise<T>): Promise<T | InputError> {
  const t0 = performance.now();
  try {
    return await fn();
  } catch (err) {
    assert.ok(err instanceof InputError, `seed ${SEED}: ${what}: a ${(err as Error)?.name} escaped (would be exit 1): ${(err as Error)?.stack}`);
    return err;
  } finally {
    assert.ok(performance.now() - t0 < BOUND_MS, `seed ${SEED}: ${what}: took ${Math.round(performance.now() - t0)} ms`);
  }
}

function noRawControl(what: string, rendered: string): void {
  const m = RAW_CONTROL.exec(rendered);
  assert.equal(m, null, `seed ${SEED}: ${what}: raw control character U+${m?.[0].charCodeAt(0).toString(16).padStart(4, '0')} in the table near ${JSON.stringify(rendered.slice(Math.max(0, (m?.index ?? 0) - 40), (m?.index ?? 0) + 10))}`);
}

function nothingLostSilently(what: string, c: Case, before: { events: number; warnings: string[] }, after: { events: number; warnings: string[]; problemLines: number[] }): void {
  if (c.line === undefined || after.events >= before.events) return;
  const said = after.problemLines.includes(c.line) || after.warnings.some((w) => !before.warnings.includes(w));
  assert.ok(said, `seed ${SEED}: ${what}: ${before.events - after.events} event(s) lost with no problem at line ${c.line} and no new warning`);
}

test('fuzz: replay of every example recording under mutation', async () => {
  const r = rng(SEED);
  let runs = 0;
  for (const rec of recordings) {
    const text = readText(rec);
    const base = await replayFiles({ files: [rec] });
    const before = { events: base.report.inputs[0]!.events, warnings: base.warnings };
    for (const c of cases(rec, r, text, true, 1)) {
      const f = write(c, '.kexp.jsonl');
      const res = await timed(c.what, () => replayFiles({ files: [f] }));
      runs++;
      if (res instanceof InputError) continue;
      noRawControl(c.what, renderTable(res.report));
      nothingLostSilently(c.what, c, before, { events: res.report.inputs[0]?.events ?? 0, warnings: res.warnings.map((w) => w.replaceAll(f, rec)), problemLines: res.problems.map((p) => p.line) });
    }
  }
  assert.ok(runs >= recordings.length * (LINE_KINDS.length + FILE_KINDS.length), `ran ${runs}`);
});

test('fuzz: audit of every capture\'s audit log under mutation', async () => {
  const r = rng(SEED + 1);
  for (const dir of captures) {
    const file = path.join(dir, 'audit.jsonl');
    const base = await auditFiles({ files: [file] });
    // A line made not relevant (its resource renamed) is counted in the summary, not lost.
    const count = (s: { writeEvents: number; observedEvents: number }) => s.writeEvents + s.observedEvents;
    const skipped = (s: { skipped: Record<string, number>; linesSkippedByPrefilter: number; recordsSkippedByPrefilter: number }) =>
      (s.skipped['not-relevant'] ?? 0) + s.linesSkippedByPrefilter + s.recordsSkippedByPrefilter;
    const before = { events: count(base.summaries[0]!), warnings: [] as string[] };
    const warnings: string[] = [];
    for (const c of cases(file, r, readText(file), true, 0)) {
      const f = write(c, '.jsonl');
      warnings.length = 0;
      const res = await timed(c.what, () => auditFiles({ files: [f], onWarning: (m) => warnings.push(m) }));
      if (res instanceof InputError) continue;
      noRawControl(c.what, renderAuditRanking(res.report, res.summaries) + renderTable(res.report));
      // A line made not relevant (its resource renamed) is counted in the summary, not lost.
      if (skipped(res.summaries[0]!) > skipped(base.summaries[0]!)) continue;
      nothingLostSilently(c.what, c, before, { events: count(res.summaries[0]!), warnings: [...warnings], problemLines: res.problems.map((p) => p.line) });
    }
  }
});

test('fuzz: kcm-log of every capture\'s controller-manager log under mutation', async () => {
  const r = rng(SEED + 2);
  for (const dir of captures) {
    const file = path.join(dir, 'kcm.log');
    const text = readText(file);
    for (const c of [{ what: `${file} unchanged`, text }, ...cases(file, r, text, false, 0)]) {
      const f = write(c, '.log');
      const res = await timed(c.what, () => kcmLogFiles({ files: [f], year: 2026 }));
      if (res instanceof InputError) continue;
      noRawControl(c.what, renderKcmLog(res.result));
      // Every physical line is accounted for by the statistics.
      const st = res.result.inputs[0]!.stats;
      const lines = c.text.split('\n').length - (c.text.endsWith('\n') ? 1 : 0);
      assert.equal(st.physicalLines, lines, `seed ${SEED}: ${c.what}: physicalLines`);
      // A problem line is either a record with a damaged field or no record at all.
      const counted = st.records + st.duplicates + st.continuationLines + st.blankLines + st.unrecognisedLines;
      assert.ok(counted <= st.physicalLines && st.physicalLines - counted <= st.problems, `seed ${SEED}: ${c.what}: lines do not add up: ${JSON.stringify(st)}`);
    }
  }
});

test('fuzz: the CLI under combined mutations never exits 1 or 134 and never prints a stack trace', () => {
  const r = rng(SEED + 3);
  const runs: Array<{ args: string[]; what: string }> = [];
  const combined = (file: string, json: boolean, header: number, ext: string): { f: string; what: string } => {
    let lines = readText(file).split('\n').filter((l) => l !== '');
    const done: string[] = [];
    for (let k = 0; k < 6; k++) {
      const kind = pick(r, LINE_KINDS);
      const i = header + Math.floor(r() * (lines.length - header));
      const m = json ? mutateJsonLine(lines[i]!, kind, r) : mutateTextLine(lines[i]!, kind, r);
      if (m !== undefined) {
        lines[i] = m;
        done.push(`${kind}@${i + 1}`);
      }
    }
    const fk = pick(r, FILE_KINDS);
    lines = mutateFile(lines, fk, r, header);
    done.push(fk);
    const f = path.join(tmp, `c${n++}${ext}`);
    fs.writeFileSync(f, lines.join('\n') + '\n');
    return { f, what: `${file} ${done.join(', ')}` };
  };
  for (let s = 0; s < 3; s++) {
    const rec = combined(pick(r, recordings), true, 1, '.kexp.jsonl');
    runs.push({ args: ['replay', rec.f], what: rec.what });
    const dir = pick(r, captures);
    const a = combined(path.join(dir, 'audit.jsonl'), true, 0, '.jsonl');
    runs.push({ args: ['audit', a.f], what: a.what });
    const k = combined(path.join(dir, 'kcm.log'), false, 0, '.log');
    runs.push({ args: ['kcm-log', k.f], what: k.what });
  }
  for (const run of runs) {
    const res = kexp(run.args);
    assert.ok(res.code !== null, `seed ${SEED}: ${run.what}: killed by a signal`);
    assert.ok(![1, 134].includes(res.code!), `seed ${SEED}: kexp ${run.args[0]} on ${run.what}: exit ${res.code}\n${res.stderr.slice(0, 2000)}`);
    assert.doesNotMatch(res.stderr, /\n\s+at .+:\d+:\d+\)?\n/, `seed ${SEED}: ${run.what}: stack trace`);
    noRawControl(run.what, res.stdout);
    noRawControl(`${run.what} (stderr)`, res.stderr);
  }
});
