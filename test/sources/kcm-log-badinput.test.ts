/**
 * Bad input to `kexp kcm-log`: damaged lines and values are FILE:LINE problems (exit 6), never
 * a crash or a silently wrong count; a cut file stays readable up to its last complete record;
 * bad flags and bad --compare reports exit 2 / 6 with one line.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { constants, gunzipSync, gzipSync } from 'node:zlib';
import type { KcmLogResult } from '../../src/pipeline/kcm-log-files.js';
import { kexp } from '../support/cli.js';

const K = gunzipSync(readFileSync(new URL('../../examples/captures/burst-600/kcm.log.gz', import.meta.url))).toString('utf8').split('\n');
if (K.at(-1) === '') K.pop();
const KJ = gunzipSync(readFileSync(new URL('../fixtures/kcm-log/sim-v1.37.2-multi-json.log.gz', import.meta.url))).toString('utf8').split('\n');
if (KJ.at(-1) === '') KJ.pop();
const RS = 'kexp-burst-600/web';
const dir = mkdtempSync(join(tmpdir(), 'kexp-kcm-bad-'));

function file(name: string, lines: string[], finalNewline = true): string {
  const p = join(dir, name);
  writeFileSync(p, lines.join('\n') + (finalNewline ? '\n' : ''));
  return p;
}

/** `lines` with line `n` (1-based) changed by `fn`. */
function edit(lines: string[], n: number, fn: (l: string) => string): string[] {
  const out = [...lines];
  out[n - 1] = fn(out[n - 1]!);
  return out;
}

const problemLines = (stderr: string, path: string) => stderr.split('\n').filter((l) => l.startsWith(`${path}:`));
const warnings = (stderr: string) => stderr.split('\n').filter((l) => l.startsWith('warning: '));

function json(args: string[]): { code: number | null; result: KcmLogResult; stderr: string } {
  const r = kexp(['kcm-log', ...args, '-o', 'json']);
  return { code: r.code, result: JSON.parse(r.stdout) as KcmLogResult, stderr: r.stderr };
}

const raises = (res: KcmLogResult, key = RS) => res.replicaSets.find((r) => r.key === key)!.raises.map((x) => [x.add, x.del]);

// burst-600: line 2515 is the second (keyless) "Setting expectations", line 2516 its
// "Too few replicas … need=600 creating=100"; lines 9/10 the first pair (creating=500).
describe('kcm-log bad input', () => {
  it('11. a cut last line is a problem and its count is unknown, not 0', () => {
    const f = file('t.log', [...K.slice(0, 2515), K[2515]!.slice(0, 100)], false);
    const r = json([f]);
    assert.equal(r.code, 6);
    assert.deepEqual(problemLines(r.stderr, f), [`${f}:2516: truncated last line (no newline at the end of the file; the record may be cut short)`]);
    assert.deepEqual(raises(r.result), [
      [500, 0],
      [null, null],
    ]);
    // Without the cut, the same file ending in a newline is clean.
    const whole = json([file('whole.log', K.slice(0, 2516))]);
    assert.equal(whole.code, 0);
    assert.deepEqual(raises(whole.result), [
      [500, 0],
      [100, 0],
    ]);
  });

  it('12. lines that are no log record are problems; Go panic output and other process output stay quiet', () => {
    const panic = [
      'panic: runtime error: invalid memory address or nil pointer dereference [recovered]',
      '\tpanic: runtime error: invalid memory address or nil pointer dereference',
      '[signal SIGSEGV: segmentation violation code=0x1 addr=0x0 pc=0x1a2b3c]',
      '',
      'goroutine 417 [running]:',
      'k8s.io/apimachinery/pkg/util/runtime.logPanic({0x3f4c560, 0x6d2a0e0})',
      '\t/go/src/k8s.io/apimachinery/pkg/util/runtime/runtime.go:75 +0x85',
      'created by k8s.io/kubernetes/pkg/controller/replicaset.(*ReplicaSetController).Run in goroutine 1',
      'Flag --port has been deprecated, see --secure-port instead.',
    ];
    const f = file('junk.log', [...K.slice(0, 100), 'lorem ipsum', '{"not":"klog"}', '\0\0\0', ...panic, ...K.slice(100)]);
    const r = kexp(['kcm-log', f]);
    assert.equal(r.code, 6);
    assert.deepEqual(problemLines(r.stderr, f), [
      `${f}:101: not a log record ("lorem ipsum"); skipped`,
      `${f}:102: not a log record: a JSON object without "ts" and "msg" (keys: not)`,
      `${f}:103: not a log record (binary data, 3 bytes); skipped`,
    ]);
  });

  it('13. bad numbers are problems naming line and field; the Set count is unknown', () => {
    const n1 = file('n1.log', edit(K, 10, (l) => l.replace('need=600 creating=500', 'need=abc creating=-7')));
    const r1 = json([n1]);
    assert.equal(r1.code, 6);
    assert.deepEqual(problemLines(r1.stderr, n1), [`${n1}:10: invalid need="abc", creating=-7 in "Too few replicas"; left out (unknown)`]);
    assert.deepEqual(raises(r1.result), [
      [null, null],
      [100, 0],
    ]);
    const n2 = file('n2.log', edit(K, 10, (l) => l.replace('creating=500', 'creating=99999999999999999999999')));
    const r2 = json([n2]);
    assert.deepEqual(problemLines(r2.stderr, n2), [`${n2}:10: invalid creating=1e+23 in "Too few replicas"; left out (unknown)`]);
    assert.deepEqual(raises(r2.result)[0], [null, null]);
    const n3 = file('n3.log', edit(KJ, 16, (l) => l.replace('"creating":3', '"creating":"lots"')));
    const r3 = json([n3]);
    assert.equal(r3.code, 6);
    assert.deepEqual(problemLines(r3.stderr, n3), [`${n3}:16: invalid creating="lots" in "Too few replicas"; left out (unknown)`]);
    assert.deepEqual(raises(r3.result, 'shop/app0-vznd7lx4cm')[0], [null, null]);
  });

  it('14. bad JSON records are FILE:LINE problems, never a crash or a silent drop', () => {
    const cases: Array<[(l: string) => string, string]> = [
      [(l) => l.replace('"ts":1796005221938.155,', '"ts":"yesterday",'), 'JSON log record with an invalid "ts" "yesterday" (expected epoch milliseconds)'],
      [(l) => l.replace('"ts":1796005221938.155,', '"ts":-1e30,'), 'JSON log record with an invalid "ts" -1e+30 (expected epoch milliseconds)'],
      [(l) => l.replace('"msg":"Too few replicas"', '"msg":5'), 'JSON log record whose "msg" is a number, not a string'],
      [(l) => l.replace('"replicaSet":{"name":"app0-vznd7lx4cm","namespace":"shop"}', '"replicaSet":null'), 'invalid replicaSet=null in "Too few replicas"; left out (unknown)'],
      [() => '[1,2,3]', 'not a log record ("[1,2,3]"); skipped'],
      [() => '"hello"', 'not a log record ("\\"hello\\""); skipped'],
    ];
    for (const [i, [fn, message]] of cases.entries()) {
      const f = file(`j${i}.log`, edit(KJ, 16, fn));
      const r = kexp(['kcm-log', f]);
      assert.equal(r.code, 6, message);
      assert.deepEqual(problemLines(r.stderr, f), [`${f}:16: ${message}`]);
      assert.doesNotMatch(r.stderr, /Invalid time value|at .*\.js:\d+/);
    }
    // -1e30 on the first line (the coverage start) does not crash either.
    const first = file('j-first.log', edit(KJ, 1, (l) => l.replace(/"ts":[0-9.]+,/, '"ts":-1e30,')));
    const r = kexp(['kcm-log', first]);
    assert.equal(r.code, 6);
    assert.deepEqual(problemLines(r.stderr, first), [`${first}:1: JSON log record with an invalid "ts" -1e+30 (expected epoch milliseconds)`]);
  });

  it('15. a record whose time jumps back is kept and warned about with FILE:LINE', () => {
    const f = file('ooo.log', edit(K, 2515, (l) => l.replace('02:40:34.817923', '02:40:29.817923')));
    const r = json([f]);
    assert.equal(r.code, 0);
    assert.deepEqual(warnings(r.stderr), [
      `warning: ${f}:2515: 1 log record(s) are more than 1 s earlier than a record before them (up to 5.0 s; the first is this line, 5.0 s before line 2514); they were kept and put in time order`,
    ]);
    assert.deepEqual(raises(r.result), [
      [500, 0],
      [100, 0],
    ]);
  });

  it('16. duplicate records are dropped with one warning naming the first duplicate', () => {
    const f = file('dup.log', [...K.slice(0, 10), K[8]!, K[9]!, ...K.slice(10)]);
    const r = json([f]);
    assert.equal(r.code, 0);
    assert.deepEqual(warnings(r.stderr), [
      `warning: ${f}:11: 2 duplicate log record(s) (the same text as an earlier record within 5 s) were dropped; this line repeats line 9`,
    ]);
    assert.deepEqual(raises(r.result), [
      [500, 0],
      [100, 0],
    ]);
    assert.equal(r.result.inputs[0]!.stats.duplicates, 2);
  });

  it('17. a gzip cut in half keeps the complete lines before the damage', () => {
    const gz = gzipSync(K.join('\n') + '\n');
    const f = join(dir, 'half.log.gz');
    writeFileSync(f, gz.subarray(0, gz.length >> 1));
    const r = json([f]);
    assert.equal(r.code, 6);
    // What `zcat` recovers: the complete lines of the decodable prefix (Z_SYNC_FLUSH: no end-of-file error).
    const complete = gunzipSync(gz.subarray(0, gz.length >> 1), { finishFlush: constants.Z_SYNC_FLUSH }).toString('utf8').split('\n').length - 1;
    assert.deepEqual(problemLines(r.stderr, f), [
      `${f}:${complete + 1}: gzip data is damaged or truncated here (zlib: unexpected end of file); the ${complete} complete line(s) before it were read`,
    ]);
    assert.equal(r.result.inputs[0]!.stats.records, complete);
    // stdin: the same.
    const s = kexp(['kcm-log', '-'], { input: gz.subarray(0, gz.length >> 1) as unknown as string });
    assert.equal(s.code, 6);
    assert.match(s.stderr, new RegExp(`^-:${complete + 1}: gzip data is damaged or truncated here`, 'm'));
  });

  it('18. --rs must be namespace/name; --year 1970–9999', () => {
    const f = file('k.log', K.slice(0, 50));
    const rs = kexp(['kcm-log', f, '--rs', 'foo']);
    assert.equal(rs.code, 2);
    assert.equal(rs.stderr, 'kexp: --rs must be namespace/name, got "foo"\n');
    for (const y of ['-1', '0', '1969', '99999']) {
      const r = kexp(['kcm-log', f, `--year=${y}`]);
      assert.equal(r.code, 2, y);
      assert.equal(r.stderr, `kexp: --year must be between 1970 and 9999, got ${y}\n`);
    }
    assert.equal(kexp(['kcm-log', f, '--year=2026']).code, 0);
  });

  it('19. --compare validates the report; a report covering none of the ReplicaSets is warned about', () => {
    const f = file('k19.log', K);
    const bad: Array<[string, string]> = [
      ['{"schemaVersion":"kexp.report/v1","replicaSets":"x"}', 'not a valid kexp report: replicaSets is a string, not a list'],
      ['[null]', 'not a kexp report (the file holds a list, not a report object)'],
      ['{"schemaVersion":"kexp.report/v1","replicaSets":[null]}', 'not a valid kexp report: replicaSets[0] is null, not an object'],
      [
        '{"schemaVersion":"kexp.report/v1","replicaSets":[{"key":"a/b","initialState":{"basis":"observed"},"expectations":{},"gatedWindows":[]}]}',
        'not a valid kexp report: replicaSets[0].expectations is an object, not a list',
      ],
    ];
    for (const [i, [text, message]] of bad.entries()) {
      const c = join(dir, `c${i}.json`);
      writeFileSync(c, text);
      const r = kexp(['kcm-log', f, '--compare', c]);
      assert.equal(r.code, 6, text);
      assert.equal(r.stderr, `kexp: ${c}: ${message}; --compare expects the output of \`kexp replay|audit -o json\`\n`);
    }
    const other = join(dir, 'other.json');
    writeFileSync(other, '{"schemaVersion":"kexp.report/v1","replicaSets":[{"key":"a/b","initialState":{"basis":"observed"},"expectations":[],"gatedWindows":[]}]}');
    const r = kexp(['kcm-log', f, '--compare', other]);
    assert.equal(r.code, 0);
    assert.deepEqual(warnings(r.stderr), [
      `warning: ${other}: the report covers none of the log's 1 ReplicaSet(s) (log: ${RS}; report: a/b); every decision is scored unknown`,
    ]);
  });

  it('20. "could not be attributed" names the first FILE:LINE', () => {
    // Without its "Too few replicas" partner the keyless Setting at line 2515 names no ReplicaSet.
    const f = file('amb.log', [...K.slice(0, 2515), ...K.slice(2516)]);
    const r = kexp(['kcm-log', f]);
    const w = warnings(r.stderr).find((x) => x.includes('could not be attributed'));
    assert.ok(w, r.stderr);
    assert.match(w, new RegExp(`^warning: ${f}:\\d+: \\d+ line\\(s\\) from code the ReplicaSet, ReplicationController, DaemonSet and Job controllers share .* \\(unknown kind; the first is this line\\)$`));
  });
});
