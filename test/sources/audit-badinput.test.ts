/**
 * Bad input to `kexp audit`: every damaged or foreign line is a FILE:LINE problem (exit 6),
 * never a crash, a silent skip or a made-up finding; a damaged file stays readable up to its
 * last complete record; bad flags exit 2.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { gzipSync } from 'node:zlib';
import { ReorderBuffer } from '../../src/sources/audit/reorder.js';
import { JsonValueSplitter } from '../../src/sources/audit/line-reader.js';
import { collect } from '../fixtures/audit/helpers.js';
import { kexp } from '../support/cli.js';

const A = new URL('../../examples/captures/scale-up-gated/audit.jsonl', import.meta.url).pathname;
const LINES = readFileSync(A, 'utf8').trimEnd().split('\n');
const dir = mkdtempSync(join(tmpdir(), 'kexp-audit-bad-'));

/** Writes `lines` (joined with newlines, final newline) to a temp file and returns its path. */
function file(name: string, lines: string[]): string {
  const p = join(dir, name);
  writeFileSync(p, lines.join('\n') + '\n');
  return p;
}

/** $A with line `n` (1-based) replaced. */
function withLine(name: string, n: number, text: string): string {
  const ls = [...LINES];
  ls[n - 1] = text;
  return file(name, ls);
}

/** $A with line `n` parsed, changed by `fn`, and written back as one JSON line. */
function editLine(name: string, n: number, fn: (v: Record<string, unknown>) => void): string {
  const v = JSON.parse(LINES[n - 1]!) as Record<string, unknown>;
  fn(v);
  return withLine(name, n, JSON.stringify(v));
}

/** stderr lines that are FILE:LINE problems of `path`. */
const problemLines = (stderr: string, path: string) => stderr.split('\n').filter((l) => l.startsWith(`${path}:`));

// Line 15 of $A is the ReplicaSet controller's first pod create.
const RS_CREATE = 15;

describe('audit bad input: CLI', () => {
  it('1. a deeply nested array line is a problem, not a stack overflow; the rest is analysed', () => {
    const f = file('deep.jsonl', [LINES[0]!, '['.repeat(5000) + ']'.repeat(5000), ...LINES.slice(1)]);
    const r = kexp(['audit', f, '-o', 'json']);
    assert.equal(r.code, 6);
    assert.doesNotMatch(r.stderr, /call stack/);
    assert.deepEqual(problemLines(r.stderr, f), [`${f}:2: not an audit event: a JSON array of 1 non-object item(s) (the first is an array)`]);
    const report = JSON.parse(r.stdout) as { replicaSets: Array<{ key: string }> };
    assert.deepEqual(report.replicaSets.map((x) => x.key), ['kexp-scale-up-gated/web']);
  });

  it('2. a line cut in the middle is reported (not skipped as irrelevant) and exits 6', () => {
    const f = withLine('cut.jsonl', RS_CREATE, LINES[RS_CREATE - 1]!.slice(0, 500));
    const r = kexp(['audit', f]);
    assert.equal(r.code, 6);
    assert.deepEqual(problemLines(r.stderr, f), [`${f}:15: truncated line: the record breaks off after 500 bytes (no closing brace); skipped`]);
  });

  it('3. a malformed controller write is a problem and is not taken for a failed create', async () => {
    const cases: Array<[string, (v: Record<string, unknown>) => void, string]> = [
      ['noverb', (v) => delete v.verb, 'audit event without verb'],
      ['noref', (v) => delete v.objectRef, 'audit event without objectRef (requestURI "/api/v1/namespaces/kexp-scale-up-gated/pods"); skipped'],
      ['nouser', (v) => delete v.user, 'audit event without user; skipped'],
      ['nostatus', (v) => delete v.responseStatus, 'audit event without responseStatus; skipped'],
      ['badcode', (v) => ((v.responseStatus as Record<string, unknown>).code = 'abc'), 'audit event with invalid responseStatus.code "abc"; skipped'],
    ];
    for (const [name, fn, message] of cases) {
      const f = editLine(`${name}.jsonl`, RS_CREATE, fn);
      const r = kexp(['audit', f]);
      assert.equal(r.code, 6, name);
      assert.deepEqual(problemLines(r.stderr, f), [`${f}:15: ${message}`], name);
      const c = await collect(f);
      assert.equal(c.writes.filter((w) => w.source.line === RS_CREATE).length, 0, `${name}: no write emitted for the bad line`);
      assert.equal(c.source.summary().malformedLines, 1, name);
    }
  });

  it('4. lines that parse but are not audit events are problems; irrelevant audit events stay silent', () => {
    const cases: Array<[string, string]> = [
      ['{}', 'not an audit event: an empty JSON object'],
      ['[]', 'not an audit event: an empty JSON array'],
      ['{"kind":"Status","apiVersion":"v1","status":"Failure","code":500}', 'not an audit event: a Kubernetes object dump (v1 Status)'],
      ['{"kind":"Event","apiVersion":"audit.k8s.io/v1"}', 'audit event without a valid stage (null)'],
      ['{"kind":"Pod","apiVersion":"v1","metadata":{"name":"x"}}', 'not an audit event: a Kubernetes object dump (v1 Pod)'],
      ['{"kind":"EventList","apiVersion":"audit.k8s.io/v1","items":"x"}', 'audit EventList whose items is a string, not a list'],
    ];
    for (const [i, [text, message]] of cases.entries()) {
      const f = withLine(`garbage${i}.jsonl`, 10, text);
      const r = kexp(['audit', f]);
      assert.equal(r.code, 6, text);
      assert.deepEqual(problemLines(r.stderr, f), [`${f}:10: ${message}`], text);
    }
    // A lease update (another resource) is an audit event kexp does not need: no problem.
    const lease = JSON.parse(LINES[0]!) as Record<string, unknown>;
    lease.verb = 'update';
    lease.objectRef = { resource: 'leases', namespace: 'kube-system', name: 'kube-controller-manager', apiGroup: 'coordination.k8s.io', apiVersion: 'v1' };
    const f = withLine('lease.jsonl', 10, JSON.stringify(lease));
    const r = kexp(['audit', f]);
    assert.equal(r.code, 0);
    assert.deepEqual(problemLines(r.stderr, f), []);
  });

  it('7. binary input is named, its bytes are not echoed', () => {
    const f = join(dir, 'binary.bin');
    writeFileSync(f, Buffer.from([0x40, 0x1c, 0x3a, 0xd8, 0x81, 0xf0, 0xdd, 0x2f, 0x00, 0x9b, 0x1b, 0x5b, 0x32, 0x4a, 0x0a, 0xff]));
    const r = kexp(['audit', f]);
    assert.equal(r.code, 6);
    assert.equal(r.stderr, `kexp: ${f}: looks like binary data (first bytes 40 1c 3a d8 81 f0 dd 2f); not an apiserver audit log\n`);
  });

  it('8. audit.k8s.io/v2 lines are counted as malformed in the input summary', () => {
    const f = file('v2.jsonl', LINES.map((l) => l.replace('"apiVersion":"audit.k8s.io/v1"', '"apiVersion":"audit.k8s.io/v2"')));
    const r = kexp(['audit', f]);
    assert.equal(r.code, 6);
    assert.match(r.stdout, new RegExp(`Input: ${f} [\\s\\S]*?:\\s+46\\s+lines:\\s+0\\s+relevant,\\s+0\\s+not\\s+relevant,\\s+46\\s+malformed,`)); // wrapped to the width
    assert.match(r.stderr, /kexp: 46 input problem\(s\); exit code 6/);
  });

  it('9. --since/--until accept only durations or full RFC 3339 times with a zone, in order', () => {
    const bad: Array<[string, string]> = [
      ['0', 'not an RFC 3339 time'],
      ['2026', 'not an RFC 3339 time'],
      ['2026-11', 'not an RFC 3339 time'],
      ['2026-11-30 02:39:00', 'not an RFC 3339 time'],
      ['2026-11-30T02:39:00', 'not an RFC 3339 time'],
      ['Mon, 30 Nov 2026 02:39:00 GMT', 'not an RFC 3339 time'],
      ['2026-02-30T00:00:00Z', 'not a valid date'],
      ['2026-11-30T24:00:00Z', 'not a valid time of day'],
    ];
    for (const [v, why] of bad) {
      const r = kexp(['audit', A, '--since', v]);
      assert.equal(r.code, 2, v);
      assert.equal(r.stderr, `kexp: --since "${v}" is ${why}; give a duration (e.g. 1h, 30m) or a full RFC 3339 time with a time zone, e.g. 2026-11-30T02:00:00Z\n`, v);
    }
    const order = kexp(['audit', A, '--since', '2026-11-30T03:00:00Z', '--until', '2026-11-30T02:00:00Z']);
    assert.equal(order.code, 2);
    assert.equal(order.stderr, 'kexp: --since 2026-11-30T03:00:00Z is later than --until 2026-11-30T02:00:00Z\n');
    const ok = kexp(['audit', A, '--since', '2026-11-30T02:39:00.5+00:00', '--until', '2026-11-30T04:39:00+01:00']);
    assert.equal(ok.code, 0, ok.stderr);
    const empty = kexp(['audit', A, '--since', '2026-11-30T03:00:00Z', '--until', '2026-11-30T04:00:00Z']);
    assert.match(
      empty.stderr,
      /warning: no audit events between 2026-11-30T03:00:00\.000Z and 2026-11-30T04:00:00\.000Z \(the input covers 2026-11-30T02:38:59\.562Z to 2026-11-30T02:39:03\.237Z\)/,
    );
  });

  it('10. every problem is printed up to 100, then a count of the rest', () => {
    const junk = Array.from({ length: 150 }, (_, i) => `junk ${i}`);
    const f = file('many.jsonl', [...LINES.slice(0, 3), ...junk, ...LINES.slice(3)]);
    const r = kexp(['audit', f]);
    assert.equal(r.code, 6);
    const shown = problemLines(r.stderr, f);
    assert.equal(shown.length, 100);
    assert.equal(shown[0], `${f}:4: not JSON ("junk 0"); skipped`);
    assert.equal(shown[99], `${f}:103: not JSON ("junk 99"); skipped`);
    assert.match(r.stderr, /kexp: … and 50 more input problem\(s\) not shown\nkexp: 150 input problem\(s\); exit code 6\n/);
  });
});

describe('audit bad input: source', () => {
  it('5. a stray `}{garbage` in pretty-printed JSON loses nothing after it; a cut value resyncs at the next value', async () => {
    const values = LINES.map((l) => JSON.stringify(JSON.parse(l), null, 2));
    const clean = await collect(file('pretty-ok.json', values));
    const stray = [...values];
    stray[10] += '}{garbage';
    const withStray = join(dir, 'pretty-stray.json');
    writeFileSync(withStray, stray.join('\n') + '\n');
    const strayLine = stray.slice(0, 11).join('\n').split('\n').length;
    const s = await collect(withStray);
    assert.deepEqual(
      s.problems.map((p) => `${p.line}: ${p.message}`),
      [`${strayLine}: text outside any JSON value ("}{garbage"); skipped up to the next value`],
    );
    assert.equal(s.events.length, clean.events.length);

    const cut = [...values];
    cut[9] = cut[9]!.slice(0, cut[9]!.length >> 1);
    const cutFile = join(dir, 'pretty-cut.json');
    writeFileSync(cutFile, cut.join('\n') + '\n');
    const cutLine = cut.slice(0, 9).join('\n').split('\n').length + 1;
    const c = await collect(cutFile);
    assert.deepEqual(c.problems.map((p) => `${p.line}: ${p.message}`), [`${cutLine}: truncated value: it breaks off before its closing brace; skipped`]);
    // Value 10 is a pod watch (no event): nothing else is lost.
    assert.equal(c.events.length, clean.events.length);
  });

  it('5b. the splitter recovers at the values\' own column inside a top-level array', () => {
    const cuts: number[] = [];
    const strays: number[] = [];
    const sp = new JsonValueSplitter(1 << 20, undefined, (l) => strays.push(l), undefined, (l) => cuts.push(l));
    const text = '[\n  {\n    "a": {\n      "b": 1\n    }\n  },\n  {\n    "a": {\n  {\n    "c": 2\n  }\n]\n';
    const vals = [...sp.push(Buffer.from(text)), ...sp.end()].map((v) => [v.no, v.text.replace(/\s+/g, '')]);
    assert.deepEqual(vals, [
      [2, '{"a":{"b":1}}'],
      [9, '{"c":2}'],
    ]);
    assert.deepEqual(cuts, [7]);
    assert.deepEqual(strays, []);
  });

  it('6. a gzip cut in half keeps every complete line before the damage and reports the damage at its line', async () => {
    const gz = gzipSync(readFileSync(A));
    const f = join(dir, 'half.jsonl.gz');
    writeFileSync(f, gz.subarray(0, gz.length >> 1));
    const c = await collect(f);
    assert.deepEqual(c.problems.map((p) => `${p.line}: ${p.message}`), [
      '18: gzip data is damaged or truncated here (zlib Z_BUF_ERROR: unexpected end of file); the complete lines before it were read; check the file with `gzip -t`',
    ]);
    // 17 complete lines and the one the damage cut (malformed): every line counted once.
    assert.equal(c.source.summary().linesRead, 18);
    assert.equal(c.source.summary().lineAccount.malformed, 1);
    assert.ok(c.writes.length > 0);
    const r = kexp(['audit', f]);
    assert.equal(r.code, 6);
    assert.match(r.stdout, /:\s+18\s+lines:[\s\S]*?\s3\s+requests\s+by\s+the\s+ReplicaSet\s+controller/); // wrapped to the width
    // Nothing decodable at all (only the gzip header): still one clean InputError line, exit 6.
    const head = join(dir, 'header-only.gz');
    writeFileSync(head, gz.subarray(0, 10));
    const h = kexp(['audit', head]);
    assert.equal(h.code, 6);
    assert.equal(
      h.stderr,
      `kexp: ${head}: gzip data is damaged or truncated (zlib Z_BUF_ERROR: unexpected end of file) before any data could be decoded; check the file with \`gzip -t\`\n`,
    );
  });

  it('8. a non-object array line is one problem; a bad stageTimestamp says so', async () => {
    const arr = await collect(withLine('arr.jsonl', 10, '[1,2,3]'));
    assert.deepEqual(arr.problems.map((p) => `${p.line}: ${p.message}`), ['10: not an audit event: a JSON array of 3 non-object item(s) (the first is a number)']);
    const ts = await collect(editLine('badts.jsonl', RS_CREATE, (v) => (v.stageTimestamp = 'garbage')));
    assert.deepEqual(ts.problems.map((p) => `${p.line}: ${p.message}`), ['15: audit event with invalid stageTimestamp "garbage"; skipped']);
  });

  it('8. the out-of-order warning never says "more than W ms … up to less than W ms"', async () => {
    // Move line 15 (02:39:01.473) to after line 27 (~80 ms later) and use a 20 ms window.
    const ls = [...LINES];
    const [moved] = ls.splice(RS_CREATE - 1, 1);
    ls.splice(26, 0, moved!);
    const c = await collect(file('late.jsonl', ls), { reorderWindowMs: 20 });
    const w = c.warnings.find((x) => x.includes('out of stageTimestamp order'));
    assert.ok(w, c.warnings.join('\n'));
    const m = /(\d+) event\(s\) were more than 20 ms out of stageTimestamp order \(up to (\d+) ms; (\d+) record\(s\), first at line 27\)/.exec(w);
    assert.ok(m, w);
    assert.ok(Number(m[2]) > 20, w);
    assert.equal(m[3], '1');
    const b = new ReorderBuffer<{ at: number }>(10);
    for (const at of [100, 116, 90]) {
      b.push({ at });
      [...b.drain()];
    }
    assert.equal(b.maxBehindMs, 26);
  });
});
