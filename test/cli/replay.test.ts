/** `kexp replay` as a user runs it: spawn bin/run.js, check stdout, stderr and exit codes. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { kexp } from '../support/cli.js';
import { RecordingBuilder } from '../support/recording-builder.js';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kexp-cli-'));
function write(name: string, text: string | Buffer): string {
  const f = path.join(tmp, name);
  fs.writeFileSync(f, text);
  return f;
}

function leakRecording(): string {
  const b = new RecordingBuilder();
  b.namespace().replicaSet(0, 'ADDED');
  b.advance(1000).namespace('Terminating');
  b.advance(10).replicaSet(2);
  b.advance(60_000).end();
  return b.text();
}

function noStack(s: string): void {
  assert.doesNotMatch(s, /\n\s+at .+\(.+:\d+:\d+\)/, 'no stack trace');
}

test('replay of a leaking recording: table on stdout, exit code 4 (leak)', () => {
  const f = write('leak.kexp.jsonl', leakRecording());
  const r = kexp(['replay', f]);
  assert.equal(r.code, 4, r.stderr);
  assert.match(r.stdout, /Verdict: LEAKED \[inferred\]/);
  assert.match(r.stdout, /Controller gated by a leaked expectation/);
  assert.equal(r.stderr, '');
});

test('replay -o json prints the Report only', () => {
  const f = write('leak2.kexp.jsonl', leakRecording());
  const r = kexp(['replay', f, '-o', 'json']);
  const report = JSON.parse(r.stdout);
  assert.equal(report.schemaVersion, 'kexp.report/v1');
  assert.equal(report.replicaSets[0].verdict.state, 'leaked');
});

test('gzip input and stdin ("-") give the same verdict', () => {
  const text = leakRecording();
  const gz = write('leak.kexp.jsonl.gz', zlib.gzipSync(text));
  const a = kexp(['replay', gz, '-o', 'json']);
  const b = kexp(['replay', '-', '-o', 'json'], { input: text });
  assert.equal(JSON.parse(a.stdout).replicaSets[0].verdict.state, 'leaked');
  assert.equal(JSON.parse(b.stdout).replicaSets[0].verdict.state, 'leaked');
});

test('a malformed line: FILE:LINE on stderr, the rest is replayed, exit code 6', () => {
  const lines = leakRecording().split('\n');
  lines.splice(3, 0, '{"recv":"2026-11-30T10:00:01.000000Z","src":"pods","event":{"type":"ADDED"');
  const f = write('bad.kexp.jsonl', lines.join('\n'));
  const r = kexp(['replay', f]);
  assert.equal(r.code, 6);
  assert.match(r.stderr, new RegExp(`${f.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:4: `));
  assert.match(r.stdout, /Verdict: LEAKED/);
  noStack(r.stderr);
});

test('an empty file: one line, exit code 6', () => {
  const f = write('empty.jsonl', '');
  const r = kexp(['replay', f]);
  assert.equal(r.code, 6);
  assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
  assert.match(r.stderr, /empty/);
  noStack(r.stderr);
});

test('an audit log given to replay points to kexp audit', () => {
  const f = write('audit.log', JSON.stringify({ kind: 'Event', apiVersion: 'audit.k8s.io/v1', level: 'Metadata', auditID: 'x', stage: 'ResponseComplete', verb: 'get', requestURI: '/api' }) + '\n');
  const r = kexp(['replay', f]);
  assert.equal(r.code, 6);
  assert.match(r.stderr, /kexp audit/);
});

test('a missing file: one line naming it, exit code 6', () => {
  const r = kexp(['replay', path.join(tmp, 'nope.jsonl')]);
  assert.equal(r.code, 6);
  assert.match(r.stderr, /nope\.jsonl/);
  noStack(r.stderr);
});

test('bad flags: --rs without a namespace and an unknown --k8s-version exit 2', () => {
  const f = write('ok.kexp.jsonl', leakRecording());
  assert.equal(kexp(['replay', f, '--rs', 'web']).code, 2);
  const r = kexp(['replay', f, '--k8s-version', 'v2.0']);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /outside what kexp models/);
});

test('--rs filters to one ReplicaSet and warns when it is absent (exit 8)', () => {
  const f = write('ok2.kexp.jsonl', leakRecording());
  const r = kexp(['replay', f, '--rs', 'shop/other', '-o', 'json']);
  assert.equal(JSON.parse(r.stdout).replicaSets.length, 0);
  assert.match(r.stderr, /shop\/other does not appear/);
});

test('objects of the wrong shape are input problems at FILE:LINE, never crashes', () => {
  const lines = fs.readFileSync('examples/scale-up-gated.kexp.jsonl', 'utf8').split('\n');
  const podLine = lines.findIndex((l) => l.includes('"kind":"Pod"'));
  const d = JSON.parse(lines[podLine]!);
  d.event.object.metadata.ownerReferences = { kind: 'ReplicaSet' };
  lines[podLine] = JSON.stringify(d);
  const rsLine = lines.findIndex((l) => l.includes('"kind":"ReplicaSet"'));
  const r0 = JSON.parse(lines[rsLine]!);
  r0.event.object.spec.replicas = -5;
  lines[rsLine] = JSON.stringify(r0);
  const f = write('shapes.kexp.jsonl', lines.join('\n'));
  const r = kexp(['replay', f]);
  assert.equal(r.code, 6);
  assert.match(r.stderr, new RegExp(`shapes\\.kexp\\.jsonl:${podLine + 1}: Pod metadata\\.ownerReferences is not a list`));
  assert.match(r.stderr, new RegExp(`shapes\\.kexp\\.jsonl:${rsLine + 1}: ReplicaSet .*spec\\.replicas -5 is not an integer`));
  noStack(r.stderr);
});

test('flag errors are one line with exit 2; --rs naming an absent ReplicaSet exits 8; an unwritable --html exits 6', () => {
  const f = write('flags.kexp.jsonl', leakRecording());
  const a = kexp(['replay', f, '-o', 'yml']);
  assert.equal(a.code, 2);
  assert.equal(a.stderr.trim().split('\n').length, 1, a.stderr);
  assert.equal(kexp(['replay', f, '--bogus']).code, 2);
  assert.equal(kexp(['replay', f, '--rs', 'shop/absent']).code, 8);
  const h = kexp(['replay', f, '--html', path.join(tmp, 'no-such-dir', 'x.html')]);
  assert.equal(h.code, 6);
  assert.match(h.stderr, /cannot write --html .*ENOENT/);
});

test('standard input can be read once: "-" twice (or as --kcm-log too) is a usage error, exit 2', () => {
  for (const args of [['replay', '-', '-'], ['audit', '-', '-'], ['audit', '-', '--kcm-log', '-'], ['replay', 'examples/scale-up-gated.kexp.jsonl', '--kcm-log', '']]) {
    const r = kexp(args, { input: '' });
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.equal(r.stderr.trim().split('\n').length, 1);
    assert.match(r.stderr, /^kexp: (standard input \("-"\) can be read only once|an input file name is empty)/);
  }
});

test('a kube-controller-manager log beside a recording: its inputs line lists it, exit as the findings say', () => {
  const r = kexp(['replay', 'examples/quota-rejected.kexp.jsonl', 'examples/captures/quota-rejected/kcm.log'], { env: { COLUMNS: '100' } });
  assert.equal(r.code, 5, r.stderr);
  assert.match(r.stdout, /examples\/captures\/quota-rejected\/kcm\.log \(kcm-log, \d+ log lines about ReplicaSets\)/);
});

test('a recording header whose fields have the wrong types is one line at FILE:1 and exit 6, never a crash', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kexp-header-'));
  const text = fs.readFileSync('examples/quota-rejected.kexp.jsonl', 'utf8');
  const cases: Array<[string, (h: any) => void, RegExp]> = [
    ['watches-string', (h) => (h.watches = 'x'), /"watches" is a string, expected a list/],
    ['watches-item', (h) => (h.watches = [{ resource: 7 }]), /"watches\[0\]"/],
    ['server-version', (h) => (h.serverVersion = 137), /"serverVersion" is a number/],
    ['redacted', (h) => (h.redacted = 'yes'), /"redacted" is a string/],
  ];
  for (const [name, mutate, msg] of cases) {
    const [first, ...rest] = text.split('\n');
    const h = JSON.parse(first!);
    mutate(h);
    const f = path.join(dir, `${name}.kexp.jsonl`);
    fs.writeFileSync(f, [JSON.stringify(h), ...rest].join('\n'));
    const r = kexp(['replay', f]);
    assert.equal(r.code, 6, `${name}: ${r.stderr}`);
    assert.match(r.stderr, new RegExp(`${name}\\.kexp\\.jsonl:1: .*${msg.source}`));
    assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
  }
});
