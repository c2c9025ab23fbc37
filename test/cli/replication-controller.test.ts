/**
 * ReplicationControllers through `kexp replay`, `kexp audit` and `kexp kcm-log`: the fixtures in
 * test/fixtures/replicationcontroller/ are examples/dropped-add-no-trigger.kexp.jsonl and
 * examples/captures/dropped-add-no-trigger/{audit.jsonl,kcm.log} converted to an RC (see the
 * fixtures' README), so each RC report must be the ReplicaSet's analysis, with its kind.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { kexp } from '../support/cli.js';

const RC_DIR = 'test/fixtures/replicationcontroller';
const RC_NS = 'kexp-rc-dropped-add';
const RS_NS = 'kexp-dropped-add-no-trigger';

type Entry = Record<string, unknown> & { kind?: string; key: string };

/**
 * A per-controller report with the file names, the namespace and the kind taken out: the kind's
 * kubectl resource in the commands of next steps (`annotate rc` where the RS has `annotate rs`)
 * and the owner's words (report/owner-words.ts: "ReplicationController manager" where the RS has
 * "ReplicaSet controller", "ReplicationController" for "ReplicaSet" — in the findings, next steps,
 * the initial state and the adoption table's ClaimObject reasons). Both sides are normalized alike.
 */
function normalized(e: Entry, files: Record<string, string>): unknown {
  let s = JSON.stringify({ ...e, kind: undefined }).split('kubectl annotate rc ').join('kubectl annotate rs ')
    .split('ReplicationController manager').join('ReplicaSet controller').split('ReplicationController').join('ReplicaSet');
  for (const [from, to] of Object.entries(files)) s = s.split(from).join(to);
  return JSON.parse(s.split(RS_NS).join(RC_NS));
}

function run(args: string[]): { code: number | null; out: { replicaSets: Entry[] } } {
  const r = kexp([...args, '-o', 'json']);
  assert.ok(r.stdout.trim().startsWith('{'), r.stderr);
  return { code: r.code, out: JSON.parse(r.stdout) };
}

test('replay: the RC scale-up whose third ADDED never arrives is reported as a ReplicationController, leaked until the 5-minute expiry, exit 4', () => {
  const rc = run(['replay', `${RC_DIR}/dropped-add-no-trigger.kexp.jsonl`]);
  assert.equal(rc.code, 4);
  assert.equal(rc.out.replicaSets.length, 1);
  const r = rc.out.replicaSets[0]! as Entry & { verdict: { state: string }; gatedWindows: Array<{ start: string; endedBy: string; remaining: { add: number; del: number }; expiresAt: string; note: string }> };
  assert.equal(r.kind, 'ReplicationController');
  assert.equal(r.key, `${RC_NS}/web`);
  assert.equal(r.verdict.state, 'leaked');
  assert.equal(r.gatedWindows.length, 1);
  const w = r.gatedWindows[0]!;
  assert.equal(w.start, '2026-12-01T22:07:47.441Z');
  assert.deepEqual(w.remaining, { add: 1, del: 0 });
  // Only the expiry can end it: no event comes to trigger a sync after it.
  assert.equal(w.expiresAt, '2026-12-01T22:12:47.441Z');
  assert.match(w.note, /longer than the 5-minute ExpectationsTimeout/);
  // The same analysis as the ReplicaSet the fixture was converted from.
  const rs = run(['replay', 'examples/dropped-add-no-trigger.kexp.jsonl']);
  assert.equal(rs.code, rc.code);
  assert.equal(rs.out.replicaSets[0]!.kind, undefined);
  assert.deepEqual(normalized(r, { [`${RC_DIR}/dropped-add-no-trigger.kexp.jsonl`]: 'F' }), normalized(rs.out.replicaSets[0]!, { 'examples/dropped-add-no-trigger.kexp.jsonl': 'F' }));
  const table = kexp(['replay', `${RC_DIR}/dropped-add-no-trigger.kexp.jsonl`], { env: { COLUMNS: '100' } });
  assert.match(table.stdout, /^ReplicationController kexp-rc-dropped-add\/web {2}uid /m);
  assert.match(table.stdout, /kubectl -n kexp-rc-dropped-add describe rc web\n/);
  // The leak's advice pokes the RC, not a ReplicaSet of that name.
  const leak = (r as unknown as { findings: Array<{ id: string; nextStep: string }> }).findings.find((f) => f.id === 'expectation-leak-open');
  assert.match(leak!.nextStep, /`kubectl annotate rc web -n kexp-rc-dropped-add kexp\.io\/poke=/);
  assert.match((rs.out.replicaSets[0]! as unknown as { findings: Array<{ id: string; nextStep: string }> }).findings.find((f) => f.id === 'expectation-leak-open')!.nextStep, /`kubectl annotate rs web /);
  assert.match(table.stdout, /kubectl -n kexp-rc-dropped-add get events --field-selector involvedObject.name=web\n/);
  const htmlFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'kexp-rc-')), 'r.html');
  kexp(['replay', `${RC_DIR}/dropped-add-no-trigger.kexp.jsonl`, '--html', htmlFile]);
  assert.match(fs.readFileSync(htmlFile, 'utf8'), /<h2>ReplicationController <code>kexp-rc-dropped-add\/web<\/code>/);
});

test('replay --kcm-log: the RC manager\'s own lines (logger replicationcontroller-controller) check the RC\'s report', () => {
  const rc = run(['replay', `${RC_DIR}/dropped-add-no-trigger.kexp.jsonl`, '--kcm-log', `${RC_DIR}/kcm.log`]);
  const rs = run(['replay', 'examples/dropped-add-no-trigger.kexp.jsonl', '--kcm-log', 'examples/captures/dropped-add-no-trigger/kcm.log']);
  assert.equal(rc.code, rs.code);
  assert.equal(rc.out.replicaSets.length, 1);
  assert.equal(rc.out.replicaSets[0]!.kind, 'ReplicationController');
  const files = (f: string, k: string) => ({ [f]: 'F', [k]: 'K' });
  assert.deepEqual(
    normalized(rc.out.replicaSets[0]!, files(`${RC_DIR}/dropped-add-no-trigger.kexp.jsonl`, `${RC_DIR}/kcm.log`)),
    normalized(rs.out.replicaSets[0]!, files('examples/dropped-add-no-trigger.kexp.jsonl', 'examples/captures/dropped-add-no-trigger/kcm.log')),
  );
});

test('audit: the RC\'s audit log (resource replicationcontrollers, writes by the replication-controller service account) is reported as the RS\'s is, with its kind', () => {
  const rc = run(['audit', `${RC_DIR}/audit.jsonl`]);
  const rs = run(['audit', 'examples/captures/dropped-add-no-trigger/audit.jsonl']);
  assert.equal(rc.out.replicaSets.length, 1);
  const r = rc.out.replicaSets[0]! as Entry & { gatedWindows: Array<{ remaining?: { add: number } }> };
  assert.equal(r.kind, 'ReplicationController');
  assert.equal(r.key, `${RC_NS}/web`);
  assert.equal(rc.code, rs.code);
  assert.deepEqual(normalized(r, { [`${RC_DIR}/audit.jsonl`]: 'F' }), normalized(rs.out.replicaSets[0]!, { 'examples/captures/dropped-add-no-trigger/audit.jsonl': 'F' }));
});

test('kcm-log: lines of logger replicationcontroller-controller and kind="ReplicationController" are the RC\'s, reported with its kind', () => {
  const rc = run(['kcm-log', `${RC_DIR}/kcm.log`, '--year', '2026']);
  const rs = run(['kcm-log', 'examples/captures/dropped-add-no-trigger/kcm.log', '--year', '2026']);
  assert.equal(rc.code, rs.code);
  assert.equal(rc.out.replicaSets.length, 1);
  const r = rc.out.replicaSets[0]! as Entry & { gatedWindows: Array<{ start: string; ended: string; expected: { add: number; del: number } }> };
  assert.equal(r.kind, 'ReplicationController');
  assert.equal(r.key, `${RC_NS}/web`);
  assert.deepEqual(r.gatedWindows.map((w) => [w.start, w.ended, w.expected]), [['2026-12-01T22:07:47.443Z', 'deleted', { add: 3, del: 0 }]]);
  assert.deepEqual(normalized(r, { [`${RC_DIR}/kcm.log`]: 'F' }), normalized(rs.out.replicaSets[0]!, { 'examples/captures/dropped-add-no-trigger/kcm.log': 'F' }));
  const table = kexp(['kcm-log', `${RC_DIR}/kcm.log`, '--year', '2026'], { env: { COLUMNS: '100' } });
  assert.match(table.stdout, /^ReplicationController kexp-rc-dropped-add\/web {2}\(kube-controller-manager's own account: observed\)/m);
});

test('an RS and an RC of the same name in one namespace, replayed together, stay apart: each its own report, the ReplicaSet first', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kexp-rc-'));
  // The ReplicaSet of the same scenario in the RC's namespace, with its own UIDs and pod names.
  let text = fs.readFileSync('examples/dropped-add-no-trigger.kexp.jsonl', 'utf8').split(RS_NS).join(RC_NS);
  text = text.replace(/\b([0-9a-f]{8})-([0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\b/g, (_, a: string, b: string) => `${a.slice(0, 7)}${a[7] === 'f' ? 'e' : 'f'}-${b}`);
  text = text.replace(/\bweb-([a-z0-9]{4})[a-z0-9]\b/g, 'web-$1z');
  const rsFile = path.join(dir, 'rs.kexp.jsonl');
  fs.writeFileSync(rsFile, text);
  const both = run(['replay', rsFile, `${RC_DIR}/dropped-add-no-trigger.kexp.jsonl`]);
  assert.deepEqual(both.out.replicaSets.map((r) => [r.key, r.kind]), [[`${RC_NS}/web`, undefined], [`${RC_NS}/web`, 'ReplicationController']]);
  const [rs, rc] = both.out.replicaSets as Array<Entry & { uid: string; verdict: { state: string }; gatedWindows: Array<{ remaining: unknown }>; rounds: Array<{ n: number }> }>;
  assert.notEqual(rs!.uid, rc!.uid);
  assert.equal(rc!.uid, '0f25a3b6-aa59-47f2-af0c-fd01a72b59b4');
  for (const r of [rs!, rc!]) {
    assert.equal(r.verdict.state, 'leaked');
    assert.deepEqual(r.gatedWindows.map((w) => w.remaining), [{ add: 1, del: 0 }]);
  }
  // Each alone gives the same report as in the pair.
  const alone = run(['replay', `${RC_DIR}/dropped-add-no-trigger.kexp.jsonl`]).out.replicaSets[0]!;
  assert.deepEqual((rc as unknown as { gatedWindows: unknown }).gatedWindows, (alone as unknown as { gatedWindows: unknown }).gatedWindows);
  assert.deepEqual((rc as unknown as { rounds: unknown }).rounds, (alone as unknown as { rounds: unknown }).rounds);
  assert.equal(both.code, 4);
});
