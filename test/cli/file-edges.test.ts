/**
 * File inputs at their edges, through the built CLI (issue #14, "smaller" items):
 * leading blank lines of any amount, files of only blank lines, binary input (`/dev/zero`,
 * `/dev/urandom`, a valid start followed by endless NUL bytes) and gzip files with trailing
 * garbage — for `kexp kcm-log`, `kexp replay` and `kexp audit` alike.
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';

import { kexp, type CliResult } from '../support/cli.js';

const ROOT = path.resolve(new URL('../../', import.meta.url).pathname);
const BIN = path.join(ROOT, 'bin/run.js');
const EX = {
  'kcm-log': path.join(ROOT, 'examples/captures/scale-up-gated/kcm.log'),
  replay: path.join(ROOT, 'examples/scale-up-gated.kexp.jsonl'),
  audit: path.join(ROOT, 'examples/captures/scale-up-gated/audit.jsonl'),
} as const;
type Command = keyof typeof EX;
const COMMANDS = Object.keys(EX) as Command[];

const dir = mkdtempSync(path.join(tmpdir(), 'kexp-file-edges-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function write(name: string, data: string | Buffer): string {
  const f = path.join(dir, name);
  writeFileSync(f, data);
  return f;
}

function assertNoStack(r: CliResult): void {
  assert.doesNotMatch(r.stderr, /\n\s+at |Error:|node:internal/, `no stack trace in:\n${r.stderr}`);
}

/** Lines of a text (each with its newline). */
function linesOf(text: string): string[] {
  return text.split(/(?<=\n)/);
}

/**
 * Puts a damaged line into an input at line `at` (1-based), so that a problem is reported
 * after the content starts; the message each command gives for it.
 */
const DAMAGE: Record<Command, { at: number; line: string; message: string }> = {
  'kcm-log': { at: 5, line: 'this is not a log line\n', message: 'not a log record ("this is not a log line"); skipped' },
  replay: { at: 3, line: '{"recv":"2026-11-30T02:39:00Z","src":"pods","event":\n', message: 'truncated line (no closing brace; recording interrupted?)' },
  audit: { at: 10, line: '{"kind":"Event","apiVersion":"audit.k8s.io/v1","verb":"create"\n', message: 'truncated line: the record breaks off after 62 bytes (no closing brace); skipped' },
};

function damaged(cmd: Command): string {
  const ls = linesOf(readFileSync(EX[cmd], 'utf8'));
  const d = DAMAGE[cmd];
  ls.splice(d.at - 1, 0, d.line);
  return ls.join('');
}

/** Replaces `file` by FILE and, when `shift` is given, `file:N` by `FILE:N-shift`. */
function normalise(text: string, file: string, shift = 0): string {
  return text.split(file).reduce((acc, part, i) => {
    if (i === 0) return part;
    const m = /^:(\d+)/.exec(part);
    return m ? `${acc}FILE:${Number(m[1]) - shift}${part.slice(m[0].length)}` : `${acc}FILE${part}`;
  });
}

/** A parsed JSON report with `file` replaced by FILE in every string (`file` itself, `file:LINE`, or inside a text). */
function jsonWithout(text: string, file: string, dropLines = false): unknown {
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') {
      let s = v === file ? 'FILE' : v.startsWith(`${file}:`) ? `FILE${v.slice(file.length)}` : file.length > 1 ? v.split(file).join('FILE') : v;
      if (dropLines) s = s.replace(/FILE:\d+/g, 'FILE:L');
      return s;
    }
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    return v;
  };
  return walk(JSON.parse(text));
}

/** Leading blank lines per command: the brief's 250 for kcm-log, 3 MB for replay, mixed blanks for audit. */
const BLANKS: Record<Command, { text: string; lines: number }> = {
  'kcm-log': { text: '\n'.repeat(250), lines: 250 },
  replay: { text: '\n'.repeat(3_000_000), lines: 3_000_000 },
  audit: { text: '  \t\r\n'.repeat(100) + '\n'.repeat(1_000_000) + ' \r\n', lines: 1_000_101 },
};

describe('leading blank lines are skipped by every sniffer; line numbers stay those of the file', () => {
  for (const cmd of COMMANDS) {
    test(`${cmd}: the report equals the report without the blank lines; a later problem names its true line`, () => {
      const body = damaged(cmd);
      const plain = write(`${cmd}-plain.txt`, body);
      const blank = write(`${cmd}-blank.txt`, BLANKS[cmd].text + body);
      const n = BLANKS[cmd].lines;
      const a = kexp([cmd, plain, '-o', 'json']);
      const b = kexp([cmd, blank, '-o', 'json']);
      assert.equal(a.code, 6, a.stderr);
      assert.equal(b.code, 6, b.stderr);
      const d = DAMAGE[cmd];
      assert.equal(a.stderr, `${plain}:${d.at}: ${d.message}\nkexp: 1 input problem(s); exit code 6\n`);
      assert.equal(b.stderr, `${blank}:${n + d.at}: ${d.message}\nkexp: 1 input problem(s); exit code 6\n`);
      assertNoStack(b);
      const ra = JSON.parse(normalise(a.stdout, plain));
      const rb = JSON.parse(normalise(b.stdout, blank, n));
      if (cmd === 'kcm-log') {
        // The only difference: the blank lines are counted as read.
        assert.equal(rb.inputs[0].stats.blankLines, ra.inputs[0].stats.blankLines + n);
        assert.equal(rb.inputs[0].stats.physicalLines, ra.inputs[0].stats.physicalLines + n);
        rb.inputs[0].stats.blankLines = ra.inputs[0].stats.blankLines;
        rb.inputs[0].stats.physicalLines = ra.inputs[0].stats.physicalLines;
      }
      assert.ok(JSON.stringify(ra).includes('FILE:'), 'the report cites lines of the file');
      assert.deepEqual(rb, ra);
    });
  }

  test('the table output is the same too, apart from the cited lines', () => {
    const plain = EX['kcm-log'];
    const blank = write('kcm-blank-table.log', '\n'.repeat(250) + readFileSync(plain, 'utf8'));
    // -o wide: no cell is cut, so the content compares whatever the file name's length.
    const a = kexp(['kcm-log', plain, '-o', 'wide']);
    const b = kexp(['kcm-log', blank, '-o', 'wide']);
    assert.equal(a.code, 0, a.stderr);
    assert.equal(b.code, 0, b.stderr);
    assert.equal(b.stderr, '');
    // Column widths and word wrapping follow the cited FILE:LINE; compare the content.
    const cells = (s: string) => s.replace(/\s+/g, ' ').trim();
    assert.deepEqual(cells(normalise(b.stdout, blank, 250)), cells(normalise(a.stdout, plain)));
    assert.match(b.stdout, new RegExp(`${blank.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:259(\\s|$)`, 'm'));
  });

  test('an input of another kind after blank lines is still recognised; kcm-log, audit and a recording header cite its first line with content', () => {
    const blank = '\n'.repeat(100_000);
    const kcm = write('kcm-after-blanks.log', blank + readFileSync(EX['kcm-log'], 'utf8'));
    // replay recognises a controller log past 100 000 blank lines (and would use it beside a recording).
    const r = kexp(['replay', kcm]);
    assert.equal(r.code, 6);
    assert.equal(
      r.stderr,
      `kexp: ${kcm}: this is a kube-controller-manager log: read it with \`kexp kcm-log\`, or give it beside a recording (\`kexp replay FILE --kcm-log ${kcm}\`)\n`,
    );
    const audit = kexp(['audit', kcm]);
    assert.equal(audit.code, 6);
    assert.equal(
      audit.stderr,
      `kexp: ${kcm}: this is a kube-controller-manager log: read it with \`kexp kcm-log\`, or give it beside an audit log (\`kexp audit FILE --kcm-log ${kcm}\`)\n`,
    );
    const cri = write('cri-after-blanks.log', `${blank}2026-11-30T02:38:59.967244Z stdout F hello\n`);
    const c = kexp(['audit', cri]);
    assert.equal(c.code, 6);
    assert.match(c.stderr, new RegExp(`^kexp: ${cri.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:100001: this is a container log \\(CRI format`));
    const auditLog = write('audit-after-blanks.jsonl', blank + readFileSync(EX.audit, 'utf8'));
    const w = kexp(['replay', auditLog]);
    assert.equal(w.code, 6);
    assert.equal(w.stderr, `kexp: ${auditLog}: looks like an audit log (audit.k8s.io/v1 Event); use \`kexp audit\`\n`);
    const k = kexp(['kcm-log', auditLog]);
    assert.equal(k.code, 6);
    assert.equal(k.stderr, `kexp: ${auditLog}:100001: this is an apiserver audit log, not a kube-controller-manager log; read it with \`kexp audit\`\n`);
    const header = write('bad-header.jsonl', `${blank}{"kexpRecording":99}\n`);
    const h = kexp(['replay', header]);
    assert.equal(h.code, 6);
    assert.equal(h.stderr, `kexp: ${header}:100001: recording format version 99 is newer than this kexp understands (up to 1); upgrade kexp\n`);
  });
});

describe('a file of only blank lines is one line and exit 6 for every command', () => {
  const blank = write('blank.txt', '\n'.repeat(3_000_000));
  const mixed = write('blank-mixed.txt', ' \t\r\n\n  \n');
  const expected: Record<Command, string> = {
    'kcm-log': 'file holds no log lines',
    replay: 'file contains only blank lines',
    audit: 'file contains only blank lines',
  };
  for (const cmd of COMMANDS) {
    test(`${cmd}: 3 MB of line breaks`, () => {
      const r = kexp([cmd, blank]);
      assert.equal(r.code, 6);
      assert.equal(r.stdout, '');
      assert.equal(r.stderr, `kexp: ${blank}: ${expected[cmd]}\n`);
    });
  }

  test('audit: blank lines with spaces, tabs and CRLF; through gzip; on stdin; an empty file stays "input is empty"', () => {
    const gz = write('blank.gz', gzipSync(Buffer.alloc(100_000, 10)));
    for (const f of [mixed, gz]) {
      const r = kexp(['audit', f]);
      assert.equal(r.code, 6);
      assert.equal(r.stderr, `kexp: ${f}: file contains only blank lines\n`);
    }
    const s = kexp(['audit', '-'], { input: '\n \n\r\n' });
    assert.equal(s.code, 6);
    assert.equal(s.stderr, 'kexp: -: file contains only blank lines\n');
    const empty = write('empty.log', '');
    const e = kexp(['audit', empty]);
    assert.equal(e.code, 6);
    assert.equal(e.stderr, `kexp: ${empty}: input is empty: no audit events\n`);
  });
});

describe('binary input is rejected at sniffing with one line and exit 6, after a bounded read', () => {
  const suffix: Record<Command, string> = {
    'kcm-log': '; not a kube-controller-manager log',
    replay: '',
    audit: '; not an apiserver audit log',
  };
  for (const cmd of COMMANDS) {
    test(`${cmd}: /dev/zero, /dev/urandom, binary after blank lines`, () => {
      const z = kexp([cmd, '/dev/zero']);
      assert.equal(z.code, 6);
      assert.equal(z.stdout, '');
      assert.equal(z.stderr, `kexp: /dev/zero: looks like binary data (first bytes 00 00 00 00 00 00 00 00)${suffix[cmd]}\n`);
      const u = kexp([cmd, '/dev/urandom']);
      assert.equal(u.code, 6);
      assert.match(u.stderr, new RegExp(`^kexp: /dev/urandom: looks like binary data \\(first bytes ([0-9a-f]{2} ){7}[0-9a-f]{2}\\)${suffix[cmd]}\n$`));
      const f = write(`binary-after-blanks-${cmd}.bin`, Buffer.concat([Buffer.from('\n'.repeat(1000)), Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0]), Buffer.alloc(600)]));
      const b = kexp([cmd, f]);
      assert.equal(b.code, 6);
      assert.equal(b.stderr, `kexp: ${f}: looks like binary data (first bytes 7f 45 4c 46 02 01 01 00)${suffix[cmd]}\n`);
      assertNoStack(b);
    });
  }

  test('replay --format forced still rejects binary data', () => {
    const r = kexp(['replay', '--format', 'watch-events', '/dev/zero']);
    assert.equal(r.code, 6);
    assert.equal(r.stderr, 'kexp: /dev/zero: looks like binary data (first bytes 00 00 00 00 00 00 00 00)\n');
  });
});

/** 1000 valid lines for each command (from the examples, padded with lines each command reads). */
function thousandLines(cmd: Command): string {
  const ls = linesOf(readFileSync(EX[cmd], 'utf8'));
  if (cmd === 'kcm-log') {
    // Lines of another controller, a microsecond apart, after the example's last record.
    for (let i = 0; ls.length < 1000; i++) ls.push(`I1130 02:39:04.${String(i).padStart(6, '0')}   14267 other.go:1] "Other controller" n=${i}\n`);
  } else if (cmd === 'replay') {
    // More pod events of the same recording (a label changing), before its end line.
    const end = ls.pop()!;
    const pod = ls.map((l) => JSON.parse(l)).find((r) => r.event?.object?.kind === 'Pod')!;
    for (let i = 0; ls.length < 999; i++) {
      const o = structuredClone(pod.event.object);
      o.metadata.resourceVersion = String(100000 + i);
      o.metadata.labels = { ...o.metadata.labels, tick: String(i) };
      ls.push(`${JSON.stringify({ recv: `2026-11-30T02:39:03.${String(100000 + i).padStart(6, '0')}Z`, src: 'pods', event: { type: 'MODIFIED', object: o } })}\n`);
    }
    ls.push(end);
  } else {
    const rec = JSON.parse(ls[ls.length - 1]!);
    for (let i = 0; ls.length < 1000; i++) {
      const lease = { ...rec, auditID: `lease-${i}`, verb: 'update', objectRef: { resource: 'leases', namespace: 'kube-system', name: 'kube-controller-manager', apiGroup: 'coordination.k8s.io', apiVersion: 'v1' } };
      delete lease.requestObject;
      delete lease.responseObject;
      ls.push(`${JSON.stringify(lease)}\n`);
    }
  }
  assert.equal(ls.length, 1000);
  return ls.join('');
}

describe('valid for 1000 lines, then endless NUL bytes: one problem after a bounded read', () => {
  const NUL_PROBLEM =
    'binary data: more than 64 MiB without a line break, with NUL bytes; stopped reading here (is the input a device such as /dev/zero, or a damaged file?)';
  for (const cmd of COMMANDS) {
    test(`${cmd}: \`cat FILE /dev/zero | kexp ${cmd} -\` ends with the problem at line 1001`, () => {
      const f = write(`thousand-${cmd}.txt`, thousandLines(cmd));
      const ok = kexp([cmd, f, '-o', 'json']);
      assert.notEqual(ok.code, 6, `the 1000 lines alone are valid: ${ok.stderr}`);
      const started = Date.now();
      const r = spawnSync('/bin/sh', ['-c', 'cat "$1" /dev/zero | "$2" "$3" "$4" - -o json', 'sh', f, process.execPath, BIN, cmd], {
        encoding: 'utf8',
        env: { ...process.env, NO_COLOR: '1' },
        timeout: 60_000,
        maxBuffer: 64 << 20,
      });
      assert.equal(r.error, undefined, 'finished before the timeout');
      assert.ok(Date.now() - started < 60_000);
      assert.equal(r.status, 6, r.stderr);
      const more = cmd === 'kcm-log' ? '; the 1000 complete line(s) before it were read' : '';
      const problems = r.stderr.split('\n').filter((l) => l.startsWith('-:'));
      assert.deepEqual(problems, [`-:1001: ${NUL_PROBLEM}${more}`]);
      assert.match(r.stderr, /kexp: 1 input problem\(s\); exit code 6\n$/);
      assertNoStack({ code: r.status, stdout: r.stdout, stderr: r.stderr });
      // What came before the NUL bytes was read: the same ReplicaSet report as the file alone.
      const report = (text: string, file: string) => (jsonWithout(text, file) as { replicaSets: unknown }).replicaSets;
      assert.deepEqual(report(r.stdout, '-'), report(ok.stdout, f));
    });
  }

  test('a file (not a pipe) with a 65 MiB NUL run after valid lines: the same problem', () => {
    const f = write('thousand-then-nul.jsonl', Buffer.concat([Buffer.from(thousandLines('replay')), Buffer.alloc(65 << 20)]));
    const r = kexp(['replay', f]);
    assert.equal(r.code, 6);
    assert.equal(r.stderr, `${f}:1001: ${NUL_PROBLEM}\nkexp: 1 input problem(s); exit code 6\n`);
  });

  test('a short NUL region (a zero-filled block) is one bad line and reading goes on', () => {
    const ls = linesOf(readFileSync(EX.replay, 'utf8'));
    const f = write('nul-block.jsonl', Buffer.concat([Buffer.from(ls.slice(0, 5).join('')), Buffer.alloc(4096), Buffer.from('\n'), Buffer.from(ls.slice(5).join(''))]));
    const r = kexp(['replay', f, '-o', 'json']);
    assert.equal(r.code, 6);
    const problems = r.stderr.split('\n').filter((l) => l.startsWith(f));
    assert.equal(problems.length, 1);
    assert.match(problems[0]!, new RegExp(`^${f.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:6: not JSON`));
    const full = kexp(['replay', EX.replay, '-o', 'json']);
    // The same report; cited lines after the inserted one differ by one.
    const report = (text: string, file: string) => (jsonWithout(text, file, true) as { replicaSets: unknown }).replicaSets;
    assert.deepEqual(report(r.stdout, f), report(full.stdout, EX.replay));
  });
});

describe('gzip with trailing garbage: the members are read in full, the garbage is one problem', () => {
  for (const cmd of COMMANDS) {
    test(`${cmd}: (gzip -c FILE; echo junkjunk) gives the report of FILE and one problem line, exit 6`, () => {
      const text = readFileSync(EX[cmd]);
      const gz = gzipSync(text);
      const f = write(`junk-${cmd}.gz`, Buffer.concat([gz, Buffer.from('junkjunk\n')]));
      const lines = linesOf(text.toString('utf8')).length;
      const r = kexp([cmd, f, '-o', 'json']);
      assert.equal(r.code, 6, r.stderr);
      const more = cmd === 'kcm-log' ? `; the ${lines} complete line(s) before it were read` : '';
      assert.equal(
        r.stderr,
        `${f}:${lines + 1}: trailing garbage after the gzip data ignored (from byte ${gz.length} of the compressed input on)${more}\n` +
          'kexp: 1 input problem(s); exit code 6\n',
      );
      assertNoStack(r);
      const plain = kexp([cmd, EX[cmd], '-o', 'json']);
      const strip = (s: string, file: string) => {
        const o = JSON.parse(normalise(s, file));
        for (const i of o.inputs) {
          delete i.problems; // 1 here, 0 there
          delete i.stats?.problems;
        }
        if (o.coverage?.problems) delete o.coverage.problems;
        return o;
      };
      const got = strip(r.stdout, f);
      const want = strip(plain.stdout, EX[cmd]);
      if (cmd === 'kcm-log') {
        // kcm-log counts the line the garbage stands in as read.
        assert.equal(got.inputs[0].stats.physicalLines, want.inputs[0].stats.physicalLines + 1);
        got.inputs[0].stats.physicalLines = want.inputs[0].stats.physicalLines;
      }
      assert.deepEqual(got, want);
    });
  }

  test('several members before the garbage are all read; stdin the same; zero padding is no garbage', () => {
    const ls = linesOf(readFileSync(EX.replay, 'utf8'));
    const a = gzipSync(ls.slice(0, 7).join(''));
    const b = gzipSync(ls.slice(7).join(''));
    const junk = Buffer.concat([a, b, Buffer.from('\n')]);
    const f = write('members-junk.gz', junk);
    const r = kexp(['replay', f]);
    assert.equal(r.code, 6);
    assert.equal(r.stderr, `${f}:${ls.length + 1}: trailing garbage after the gzip data ignored (from byte ${a.length + b.length} of the compressed input on)\nkexp: 1 input problem(s); exit code 6\n`);
    const s = spawnSync('/bin/sh', ['-c', 'cat "$1" | "$2" "$3" replay -', 'sh', f, process.execPath, BIN], { encoding: 'utf8', timeout: 60_000 });
    assert.equal(s.status, 6);
    assert.equal(s.stderr, `-:${ls.length + 1}: trailing garbage after the gzip data ignored (from byte ${a.length + b.length} of the compressed input on)\nkexp: 1 input problem(s); exit code 6\n`);
    const padded = write('members-padded.gz', Buffer.concat([a, b, Buffer.alloc(1024)]));
    const p = kexp(['replay', padded]);
    assert.equal(p.stderr, '');
    assert.equal(p.code, kexp(['replay', EX.replay]).code);
  });

  test('real damage inside a member keeps its message', () => {
    const gz = gzipSync(readFileSync(EX.replay));
    const cut = write('cut.gz', gz.subarray(0, gz.length - 200));
    const r = kexp(['replay', cut]);
    assert.equal(r.code, 6);
    assert.match(r.stderr, new RegExp(`^${cut.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:\\d+: gzip data is corrupt/truncated after \\d+ bytes \\(zlib: unexpected end of file\\)\nkexp: 1 input problem\\(s\\); exit code 6\n$`));
    const crc = Buffer.from(gz);
    crc[crc.length - 8] ^= 0xff;
    const c = write('crc.gz', crc);
    const rc = kexp(['replay', c]);
    assert.equal(rc.code, 6);
    assert.match(rc.stderr, /: gzip data is corrupt\/truncated after \d+ bytes \(zlib: incorrect data check\)\n/);
  });
});
