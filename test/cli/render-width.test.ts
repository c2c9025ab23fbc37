/**
 * Every command's terminal output as a user meets it with `COLUMNS=80`: no line longer than
 * 80 columns for every example (replay), an audit log (ranking and --rs), a controller log
 * (kcm-log), adopt --from a recording and explain against a fake API server; `-o wide` prints
 * the full text; `explain --html` writes the same timeline page as replay. Needs `npm run build`.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { stripAnsi } from '../../src/render/color.js';
import { kexp } from '../support/cli.js';
import { startFakeApiServer, type FakeApiServer } from '../support/fake-apiserver.js';
import { runKexp } from '../support/spawn-cli.js';

const ROOT = path.resolve(new URL('../..', import.meta.url).pathname);
const EX = path.join(ROOT, 'examples');
const EXAMPLES = fs.readdirSync(EX).filter((f) => /\.kexp\.jsonl(\.gz)?$/.test(f)).sort();
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kexp-render-width-'));
const servers: FakeApiServer[] = [];
after(async () => {
  await Promise.all(servers.map((s) => s.close()));
  fs.rmSync(tmp, { recursive: true, force: true });
});

function assertFits(what: string, stdout: string, width: number): void {
  assert.ok(stdout.trim().length > 0, `${what}: some output`);
  for (const l of stdout.split('\n')) assert.ok([...stripAnsi(l)].length <= width, `${what}: ${[...l].length} > ${width}: ${l}`);
}

const maxLine = (s: string) => Math.max(...s.split('\n').map((l) => [...l].length));

test('COLUMNS=80: replay of every example fits, in colour too; the summary comes first', () => {
  assert.ok(EXAMPLES.length >= 10);
  for (const f of EXAMPLES) {
    const r = kexp(['replay', path.join('examples', f)], { env: { COLUMNS: '80' }, cwd: ROOT });
    assert.ok(r.code !== null && [0, 3, 4, 5].includes(r.code), `${f}: exit ${r.code} ${r.stderr}`);
    assertFits(f, r.stdout, 80);
    assert.match(r.stdout.split('\n')[1]!, /^Verdict: [A-Z]+ \[(observed|inferred|unknown)\] — /, f);
    const c = kexp(['replay', path.join('examples', f), '--color'], { env: { COLUMNS: '80', NO_COLOR: '' }, cwd: ROOT });
    assert.match(c.stdout, /\x1b\[/);
    assertFits(`${f} --color`, c.stdout, 80);
  }
});

test('COLUMNS=80 vs -o wide: the table cuts, wide prints the full text; -o json is unchanged by the width', () => {
  const args = ['replay', 'examples/quota-rejected.kexp.jsonl'];
  const narrow = kexp(args, { env: { COLUMNS: '80' }, cwd: ROOT });
  const wide = kexp([...args, '-o', 'wide'], { env: { COLUMNS: '80' }, cwd: ROOT });
  assert.equal(narrow.code, 5, narrow.stderr);
  assert.equal(wide.code, 5, wide.stderr);
  assert.match(narrow.stdout, /…/);
  assert.ok(maxLine(wide.stdout) > 80, 'wide rows are not cut to the terminal');
  assert.match(wide.stdout, /pods "web-[a-z0-9]+" is forbidden: exceeded quota: pods, requested: pods=1, used: pods=2, limited: pods=2/);
  assert.match(narrow.stdout, /^ {2}kubectl -n kexp-quota-rejected get resourcequota$/m);
  const j80 = kexp([...args, '-o', 'json'], { env: { COLUMNS: '80' }, cwd: ROOT });
  const j200 = kexp([...args, '-o', 'json'], { env: { COLUMNS: '200' }, cwd: ROOT });
  assert.equal(j80.stdout, j200.stdout);
  assert.deepEqual(JSON.parse(j80.stdout).schemaVersion, 'kexp.report/v1');
  const bad = kexp([...args, '-o', 'wdie'], { cwd: ROOT });
  assert.equal(bad.code, 2);
});

test('COLUMNS=80: audit (ranking and --rs) and kcm-log fit; a wider COLUMNS is used when given', () => {
  const audit = path.join('examples', 'captures', 'quota-rejected', 'audit.jsonl');
  const kcm = path.join('examples', 'captures', 'quota-rejected', 'kcm.log');
  const rank = kexp(['audit', audit], { env: { COLUMNS: '80' }, cwd: ROOT });
  assertFits('audit', rank.stdout, 80);
  assert.match(rank.stdout, /^REPLICASET +VERDICT +FINDINGS +FAILED +LEAKS +WORST FINDING$/m);
  assert.match(rank.stdout, /^1 ReplicaSet, 1 needing a look; worst: kexp-quota-rejected\/web\nVerdict: DELETED \[observed\] .*\nCause: {3}11 creation rounds hit failed creates \(ResourceQuota\)\./, 'the worst ReplicaSet\'s summary first');
  // Longer than 80 columns: broken with a shell continuation, still copy-pasteable.
  assert.match(rank.stdout, /^ {2}kexp audit -n kexp-quota-rejected web \\\n {6}examples\/captures\/quota-rejected\/audit\.jsonl$/m);
  const rs = kexp(['audit', audit, '--rs', 'kexp-quota-rejected/web'], { env: { COLUMNS: '80' }, cwd: ROOT });
  assertFits('audit --rs', rs.stdout, 80);
  const log = kexp(['kcm-log', kcm], { env: { COLUMNS: '80' }, cwd: ROOT });
  assertFits('kcm-log', log.stdout, 80);
  assert.match(log.stdout, /^ {2}START +END +ENDED +EXPECTED +LEAKED +SYNCS +EVIDENCE$/m);
  const w = kexp(['replay', 'examples/quota-rejected.kexp.jsonl'], { env: { COLUMNS: '132' }, cwd: ROOT });
  assert.ok(maxLine(w.stdout) > 100 && maxLine(w.stdout) <= 132, `max ${maxLine(w.stdout)}`);
});

test('adopt --from burst-600: 5 keep rows and one count line at 80 columns; -o wide lists all 600', () => {
  const args = ['adopt', 'web', '--from', 'examples/burst-600.kexp.jsonl.gz'];
  const r = kexp(args, { env: { COLUMNS: '80' }, cwd: ROOT });
  assert.equal(r.code, 0, r.stderr);
  assertFits('adopt', r.stdout, 80);
  assert.match(r.stdout, /^Decisions: keep 600$/m);
  assert.equal(r.stdout.split('\n').filter((l) => /^web-\w+ +keep +yes /.test(l)).length, 5);
  assert.match(r.stdout, /^… 595 more pods: keep \(Already controlled by ReplicaSet web/m);
  const w = kexp([...args, '-o', 'wide'], { env: { COLUMNS: '80' }, cwd: ROOT });
  assert.equal(w.stdout.split('\n').filter((l) => /^web-\w+ +keep +yes /.test(l)).length, 600);
  assert.doesNotMatch(w.stdout, /more pods/);
});

test('explain at COLUMNS=80 fits; a snapshot draws no chart of its read\'s milliseconds, it says why; explain --html is the timeline page with the Report embedded', { timeout: 60_000 }, async () => {
  const srv = await startFakeApiServer({});
  servers.push(srv);
  const html = path.join(tmp, 'explain.html');
  const r = await runKexp(['explain', 'web', '--kubeconfig', srv.kubeconfig, '--html', html, '-q'], { env: { COLUMNS: '80', NO_COLOR: '1' }, timeoutMs: 30_000 });
  assert.equal(r.code, 0, r.stderr);
  assertFits('explain', r.stdout, 80);
  assert.match(r.stdout, /^Verdict: HEALTHY/m);
  assert.match(r.stdout, /^ {2}Timeline: none drawn — a snapshot is one point in time;/m);
  assert.doesNotMatch(r.stdout, /1 col = /, 'no chart of the read\'s milliseconds');
  assert.match(r.stdout, /^ {2}AT +BASIS +FROM +WHAT$/m);
  const page = fs.readFileSync(html, 'utf8');
  assert.match(page, /<script type="application\/json" id="kexp-data">/, 'the timeline model');
  assert.match(page, /<div class="chart" id="chart-0"/, 'the interactive chart, as replay and audit');
  assert.match(page, /<h3>Recent timeline /);
  const embedded = /<script type="application\/json" id="kexp-report">([\s\S]*?)<\/script>/.exec(page);
  assert.ok(embedded);
  assert.equal(JSON.parse(embedded[1]!).generator.command, 'explain');
});
