/**
 * The controller's view read from its own status writes (src/analysis/engine/controller-view.ts) and
 * how the replay aligns with it (src/analysis/engine/view-alignment.ts: withheld pods, given-back lowers, viewUnknown
 * spans; report-builder.ts: informer-behind): unit tests of checkStatusWrite, then hand-built
 * audit logs and recordings replayed end to end.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { PodStore } from '../../src/model/pod-store.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkStatusWrite, existedAt, type PodSighting } from '../../src/analysis/engine/controller-view.js';
import { decisionAt } from '../../src/analysis/fidelity.js';
import type { ReplicaSetReport } from '../../src/analysis/report-types.js';
import { controllerRefOf, type Pod, type ReplicaSet } from '../../src/model/objects.js';
import type { OwnerStatusCount } from '../../src/model/controller/controller.js';
import { REPLICA_SET_STATUS_COUNT } from '../../src/analysis/engine/engine-controller.js';
import { WithheldPods } from '../../src/analysis/engine/view-alignment.js';
import type { SourceRef } from '../../src/timeline/event.js';
import { auditFiles } from '../../src/pipeline/audit-files.js';
import { replayFiles } from '../../src/pipeline/replay-files.js';
import { AuditLogBuilder, actors } from '../support/audit-builder.js';
import { RecordingBuilder } from '../support/recording-builder.js';
import { validateReport } from '../support/report-schema.js';

const dir = mkdtempSync(join(tmpdir(), 'kexp-controller-view-'));
const T0 = Date.UTC(2026, 10, 30, 10, 0, 0);
const src = { file: 'in.jsonl', line: 7 };

// ───────────────────────────── checkStatusWrite ─────────────────────────────

const RS_UID = 'rs-uid-1';
function rsWith(replicas: number | undefined): ReplicaSet {
  return {
    apiVersion: 'apps/v1', kind: 'ReplicaSet',
    metadata: { name: 'web', namespace: 'shop', uid: RS_UID },
    spec: { replicas: 3, selector: { matchLabels: { app: 'web' } } },
    status: replicas === undefined ? {} : { replicas },
  } as ReplicaSet;
}
/** A pod of `web` created at `createdMs` (whole seconds kept, as the apiserver writes them). */
function pod(name: string, createdMs: number, o: { terminating?: boolean; owner?: string; phase?: string } = {}): Pod {
  return {
    apiVersion: 'v1', kind: 'Pod',
    metadata: {
      name, namespace: 'shop', uid: `uid-${name}`, creationTimestamp: new Date(Math.floor(createdMs / 1000) * 1000).toISOString().replace('.000Z', 'Z'),
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web', uid: o.owner ?? RS_UID, controller: true }],
      ...(o.terminating ? { deletionTimestamp: new Date(createdMs + 60_000).toISOString() } : {}),
    },
    spec: {},
    status: { phase: o.phase ?? 'Running' },
  } as Pod;
}
function sightings(entries: Array<[string, number]>): Map<string, PodSighting> {
  return new Map(entries.map(([n, at], i) => [`shop/${n}`, { at, source: { file: 'in.jsonl', line: i + 2 } }]));
}

test('checkStatusWrite: a status counting fewer of the pods shown before the previous write is behind; the newest are the missing ones', () => {
  // a, b, c shown at +1.0, +1.1, +1.2 s; the previous status write at +1.5 s; this one at +3 s counts 2.
  const pods = [pod('a', T0 + 1000), pod('b', T0 + 1100), pod('c', T0 + 1200)];
  const r = checkStatusWrite(rsWith(2), T0 + 3000, src, pods, sightings([['a', T0 + 1000], ['b', T0 + 1100], ['c', T0 + 1200]]), T0 + 1500);
  assert.equal(r.caughtUp, false);
  assert.ok(r.behind);
  assert.equal(r.behind.expected, 3);
  assert.equal(r.behind.statusReplicas, 2);
  assert.deepEqual(r.behind.missing.map((m) => [m.pod, m.seenAt, m.source?.line]), [['shop/c', T0 + 1200, 4]]);
  assert.equal(r.behind.since, T0 + 1200);
  assert.equal(r.behind.at, T0 + 3000);
  assert.deepEqual(r.behind.source, src);
  // Two missing: the two newest, oldest first; `since` is the older of them.
  const two = checkStatusWrite(rsWith(1), T0 + 3000, src, pods, sightings([['a', T0 + 1000], ['b', T0 + 1100], ['c', T0 + 1200]]), T0 + 1500);
  assert.deepEqual(two.behind?.missing.map((m) => m.pod), ['shop/b', 'shop/c']);
  assert.equal(two.behind?.since, T0 + 1100);
});

test('checkStatusWrite: a status counting every active pod has caught up', () => {
  const pods = [pod('a', T0), pod('b', T0), pod('c', T0 + 2000)];
  const s = sightings([['a', T0 + 100], ['b', T0 + 200], ['c', T0 + 2100]]);
  const r = checkStatusWrite(rsWith(3), T0 + 3000, src, pods, s, T0 + 1000);
  assert.deepEqual(r, { caughtUp: true });
  // More than the input shows (a pod deleted after the sync listed it) is not behind either.
  assert.deepEqual(checkStatusWrite(rsWith(4), T0 + 3000, src, pods, s, T0 + 1000), { caughtUp: true });
});

test('checkStatusWrite: a newer pod can hide an older missing one — not behind, but not caught up', () => {
  // a, b before the previous write; c after it. A status of 2 may count a + c with b missing.
  const pods = [pod('a', T0), pod('b', T0), pod('c', T0 + 5000)];
  const r = checkStatusWrite(rsWith(2), T0 + 6000, src, pods, sightings([['a', T0 + 100], ['b', T0 + 200], ['c', T0 + 5100]]), T0 + 1000);
  assert.equal(r.behind, undefined);
  assert.equal(r.caughtUp, false);
});

test('checkStatusWrite: the first status write has no anchor — nothing can be proven missing', () => {
  const pods = [pod('a', T0), pod('b', T0), pod('c', T0)];
  const r = checkStatusWrite(rsWith(0), T0 + 6000, src, pods, sightings([['a', T0 + 100], ['b', T0 + 200], ['c', T0 + 300]]), undefined);
  assert.deepEqual(r, { caughtUp: false });
  // No status.replicas at all (a new ReplicaSet's empty status): nothing to compare.
  assert.deepEqual(checkStatusWrite(rsWith(undefined), T0 + 6000, src, pods, sightings([['a', T0]]), T0 + 1000), { caughtUp: false });
});

test('checkStatusWrite: pods created after the previous write are not required; one created in an earlier second is', () => {
  const prev = T0 + 2500;
  // c first shown after the previous write and created in its second: the sync may have listed before it.
  const pods = [pod('a', T0), pod('b', T0), pod('c', T0 + 2600)];
  const r = checkStatusWrite(rsWith(2), T0 + 4000, src, pods, sightings([['a', T0 + 100], ['b', T0 + 200], ['c', T0 + 2600]]), prev);
  assert.equal(r.behind, undefined);
  assert.equal(r.caughtUp, false);
  // c shown late (after the previous write) but created at +1 s — before the write's second (+2 s): it existed.
  const late = [pod('a', T0), pod('b', T0), pod('c', T0 + 1000)];
  const r2 = checkStatusWrite(rsWith(2), T0 + 4000, src, late, sightings([['a', T0 + 100], ['b', T0 + 200], ['c', T0 + 2700]]), prev);
  assert.deepEqual(r2.behind?.missing.map((m) => m.pod), ['shop/c']);
  assert.equal(existedAt(late[2]!, T0 + 2700, prev), true);
  assert.equal(existedAt(pods[2]!, T0 + 2600, prev), false);
  assert.equal(existedAt(pods[2]!, T0 + 2400, prev), true, 'seen before the write');
});

test('checkStatusWrite: terminating, finished and other controllers\' pods are ignored', () => {
  const pods = [pod('a', T0), pod('b', T0), pod('c', T0, { terminating: true }), pod('d', T0, { phase: 'Failed' }), pod('e', T0, { owner: 'other-uid' })];
  const s = sightings([['a', T0 + 100], ['b', T0 + 200], ['c', T0 + 300], ['d', T0 + 400], ['e', T0 + 500]]);
  assert.deepEqual(checkStatusWrite(rsWith(2), T0 + 4000, src, pods, s, T0 + 1000), { caughtUp: true });
  assert.equal(checkStatusWrite(rsWith(1), T0 + 4000, src, pods, s, T0 + 1000).behind?.expected, 2);
});

test('checkStatusWrite: a status counting at least `atMost` pods is answered without reading the pods', () => {
  const never: Iterable<Pod> = { [Symbol.iterator]: () => { throw new Error('pods read'); } };
  assert.deepEqual(checkStatusWrite(rsWith(500), T0, src, never, new Map(), T0 - 1000, 500), { caughtUp: true });
  assert.throws(() => checkStatusWrite(rsWith(499), T0, src, never, new Map(), T0 - 1000, 500), /pods read/);
});

// ───────────────────────────── replays ─────────────────────────────

async function audit(name: string, b: AuditLogBuilder): Promise<ReplicaSetReport> {
  const res = await auditFiles({ files: [b.write(join(dir, `${name}.audit.jsonl`))] });
  assert.deepEqual(res.problems, []);
  assert.deepEqual(validateReport(res.report), []);
  const rs = res.report.replicaSets.find((r) => r.key === `${b.ns}/${b.rsName}`);
  assert.ok(rs);
  assert.equal(rs.accounting.writes, rs.accounting.inRounds + rs.accounting.inFindings, 'accounting identity');
  return rs;
}

async function recording(name: string, b: RecordingBuilder): Promise<ReplicaSetReport> {
  const f = join(dir, `${name}.kexp.jsonl`);
  writeFileSync(f, b.text());
  const res = await replayFiles({ files: [f] });
  assert.deepEqual(validateReport(res.report), []);
  const rs = res.report.replicaSets.find((r) => r.key === `${b.ns}/${b.rsName}`);
  assert.ok(rs);
  return rs;
}

const iso = (ms: number) => new Date(ms).toISOString();
const ids = (rs: ReplicaSetReport) => rs.findings.map((f) => f.id);
const rounds = (rs: ReplicaSetReport) => rs.rounds.map((r) => [r.kind, r.n, r.writes]);

/** The dropped ADD: 3 pods created at +1 s, the status at +3 s counts 2 of them, the third is never delivered. */
function droppedAddAudit(): { b: AuditLogBuilder; setAt: number; behindAt: number } {
  const b = new AuditLogBuilder();
  b.replicaSet(0);
  b.advance(1000).replicaSet(3);
  const setAt = b.t;
  for (let i = 0; i < 3; i++) b.advance(5).controllerCreate();
  b.advance(10).rsStatus(0); // the creating sync's write: it listed before its creates
  b.advance(2000).rsStatus(2);
  const behindAt = b.t;
  return { b, setAt, behindAt };
}

test('a dropped ADD (audit log): informer-behind, the record reopened and expiring unfulfilled, the touch after expiry creates exactly 1', async () => {
  const { b, setAt, behindAt } = droppedAddAudit();
  const missing = [...b.pods.keys()][2]!;
  b.advance(301_000).replicaSet(3, actors.user()); // past the 5-minute timeout: a touch enqueues a sync
  const touch = b.t;
  b.advance(5).controllerCreate();
  b.advance(10).rsStatus(3);
  const rs = await audit('dropped-add', b);

  const f = rs.findings.find((x) => x.id === 'informer-behind');
  assert.ok(f, ids(rs).join());
  assert.equal(f.basis, 'observed');
  assert.equal(f.at, iso(behindAt));
  assert.match(f.title, /counted 2 active pod\(s\) where the input showed 3/);
  assert.match(f.explanation, new RegExp(`the newest: shop/${missing}`));
  assert.match(f.explanation, /No later status write counts it/);
  // The second status write after the third ADD counted 2 of 3: kexp held that ADD back from the
  // start (no lower), so its model waited as the controller did, and says so.
  assert.match(f.explanation, /kexp holds it out of its model from then/);
  assert.deepEqual(rs.expectations.map((c) => [c.op, c.add]).slice(0, 4), [['set', 3], ['lower', 2], ['lower', 1], ['set', 1]]);
  assert.equal(rs.viewUnknown, undefined);
  // The window never closed; it ends by expiry with add=1 left.
  const w = rs.gatedWindows[0]!;
  assert.equal(w.start, iso(setAt));
  assert.equal(w.endedBy, 'expired');
  assert.equal(w.end, iso(touch));
  assert.deepEqual([w.remaining?.add, w.remaining?.del], [1, 0]);
  assert.ok(rs.findings.some((x) => x.id === 'expectation-leak-expired'), ids(rs).join());
  // Gated until the record's 5 minutes are up (the controller was still waiting), from the third ADD on too.
  assert.equal(decisionAt(rs, setAt + 4 * 60_000), 'gated');
  assert.equal(decisionAt(rs, behindAt - 500), 'gated');
  assert.equal(decisionAt(rs, setAt + 5 * 60_000 + 1000), 'ungated', 'expired');
  // The touch after expiry: a round of exactly 1 create, every write in a round.
  assert.deepEqual(rounds(rs), [['create', 3, 3], ['create', 1, 1]]);
  assert.equal(rs.rounds[1]!.at, iso(touch));
  assert.equal(rs.accounting.inFindings, 0);
});

test('a dropped ADD (recording): the same diagnosis from the watch stream', async () => {
  const b = new RecordingBuilder();
  b.namespace().replicaSet(0, 'ADDED');
  b.advance(1000).replicaSet(3);
  const setAt = b.t;
  b.advance(20); b.addPod(1); b.advance(10); b.addPod(2); b.advance(10); const p3 = b.addPod(3);
  b.advance(10).rsStatus(0);
  b.advance(2000).rsStatus(2);
  const behindAt = b.t;
  b.advance(301_000).replicaSet(3); // a touch (metadata change) after the record's 5 minutes
  const touch = b.t;
  b.advance(30); b.addPod(4);
  b.advance(10).rsStatus(3);
  b.advance(2000).end();
  const rs = await recording('dropped-add', b);
  const f = rs.findings.find((x) => x.id === 'informer-behind');
  assert.ok(f, ids(rs).join());
  assert.equal(f.at, iso(behindAt));
  assert.match(f.explanation, new RegExp(`shop/${p3}`));
  const w = rs.gatedWindows[0]!;
  assert.equal(w.start, iso(setAt));
  assert.equal(w.endedBy, 'expired');
  assert.equal(w.remaining?.add, 1);
  assert.deepEqual(rs.rounds.map((r) => [r.kind, r.n, r.successes]), [['create', 3, 3], ['create', 1, 1]]);
  assert.equal(rs.rounds[1]!.at, iso(touch));
});

test('lag that catches up: the withheld pod is delivered by the status counting every pod; the window is fulfilled then', async () => {
  const { b, setAt, behindAt } = droppedAddAudit();
  b.advance(3000).rsStatus(3);
  const upAt = b.t;
  b.advance(10_000).replicaSet(3, actors.user());
  const rs = await audit('lag-catches-up', b);
  const f = rs.findings.find((x) => x.id === 'informer-behind');
  assert.ok(f, ids(rs).join());
  assert.equal(f.severity, 'info', 'a short lag that ended');
  assert.match(f.explanation, new RegExp(`Its status write at ${iso(upAt).replace(/\./g, '\\.')} counted every pod again`));
  const w = rs.gatedWindows[0]!;
  assert.equal(w.start, iso(setAt));
  assert.equal(w.endedBy, 'fulfilled');
  assert.equal(w.fulfilledAt, iso(upAt));
  // Held back from its ADD, delivered by the status write that counted it.
  assert.deepEqual(rs.expectations.map((c) => [c.op, c.add, c.at]), [['set', 3, iso(setAt)], ['lower', 2, iso(setAt + 5)], ['lower', 1, iso(setAt + 10)], ['lower', 0, iso(upAt)]]);
  assert.equal(rs.viewUnknown, undefined);
  assert.equal(decisionAt(rs, behindAt - 1000), 'gated');
  assert.deepEqual(rounds(rs), [['create', 3, 3]]);
  assert.ok(!ids(rs).includes('expectation-leak-expired'), ids(rs).join());
  assert.equal(decisionAt(rs, behindAt + 1000), 'gated', 'still waiting for the pod between the writes');
  assert.equal(decisionAt(rs, upAt + 1000), 'ungated');
});

test('#129795 (recording): creates past an expired record whose pods the informer had not delivered — held back, a round of their own', async () => {
  const b = new RecordingBuilder();
  b.namespace().replicaSet(0, 'ADDED');
  b.advance(1000).replicaSet(3);
  for (let i = 1; i <= 3; i++) { b.advance(10); b.addPod(i); }
  b.advance(10).rsStatus(0); // its informer had not delivered the pods
  b.advance(301_000).replicaSet(3);
  const over = b.t;
  for (let i = 4; i <= 6; i++) { b.advance(10); b.addPod(i); }
  b.advance(20_000).rsStatus(6); // the informer caught up: the controller counts 6 for 3 desired
  const upAt = b.t;
  for (const p of [...b.pods.keys()].slice(3)) { b.advance(5); b.gracefulDelete(p); b.event('SuccessfulDelete', `Deleted pod: ${p}`); }
  b.advance(2000).end();
  const rs = await recording('129795', b);
  const f = rs.findings.find((x) => x.id === 'expiry-over-create');
  assert.ok(f, ids(rs).join());
  assert.match(f.explanation, /had expired, so the sync passed the gate and created 3 pod\(s\)/);
  assert.match(f.explanation, /kexp held them back as unobserved/);
  assert.deepEqual(rs.rounds.map((r) => [r.kind, r.n, r.writes]), [['create', 3, 3], ['create', 3, 3], ['delete', 3, 3]]);
  assert.equal(rs.rounds[1]!.at.slice(0, 19), iso(over + 10).slice(0, 19));
  assert.deepEqual([rs.gatedWindows[0]!.endedBy, rs.gatedWindows[0]!.remaining?.add], ['expired', 3]);
  // The reopened window's gated syncs: the model's sync at the controller's own status write (an
  // owner event) passed on the record kexp had seen fulfilled, so the controller refused it; the
  // sync the held pods' ADDs triggered never ran in the controller, and the syncs at the creates
  // past the timeout passed there too.
  assert.equal(rs.gatedWindows[0]!.gatedSyncs, 1);
  // The creates past the timeout show the cache lacked the round's pods: since their ADDs (an
  // informer never takes back a pod that exists), so the lowers are given back from the moment
  // kexp had seen the record fulfilled, learned at the over-create; the decisions in between are
  // gated (a 1.37 recording: the consistency gate leaves the quiet status alone undecided at the ADDs).
  const raise = rs.expectations.find((c) => c.op === 'raise')!;
  assert.ok(raise.learnedAt, JSON.stringify(rs.expectations));
  assert.equal(raise.learnedAt!.slice(0, 19), iso(over + 10).slice(0, 19));
  assert.ok(Date.parse(raise.at) < over - 300_000, raise.at);
  assert.ok(!(rs.viewUnknown ?? []).some((u) => Date.parse(u.from) < over), JSON.stringify(rs.viewUnknown));
  assert.equal(decisionAt(rs, Date.parse(raise.at) + 60_000), 'gated');
  assert.equal(decisionAt(rs, over - 100), 'ungated', 'past the timeout');
  // The status counting all 6 delivered the held pods: the surplus delete follows it.
  assert.ok(Date.parse(rs.rounds[2]!.at) >= upAt, rs.rounds[2]!.at);
});

test('fault-free inputs: no example recording gives informer-behind or a viewUnknown span (nor do the goldens)', async () => {
  const examples = join(import.meta.dirname, '../../examples');
  // The captures under real faults (a faults.jsonl beside them) are the other side of this test.
  const all = readdirSync(examples).filter((f) => /\.kexp\.jsonl(\.gz)?$/.test(f));
  const files = all.filter((f) => !existsSync(join(examples, 'captures', f.replace(/\.kexp\.jsonl(\.gz)?$/, ''), 'faults.jsonl')));
  assert.ok(files.length >= 10, files.join());
  for (const f of files) {
    const res = await replayFiles({ files: [join(examples, f)] });
    for (const rs of res.report.replicaSets) {
      assert.ok(!rs.findings.some((x) => x.id === 'informer-behind'), `${f} ${rs.key}`);
      assert.equal(rs.viewUnknown, undefined, `${f} ${rs.key}`);
      assert.ok(!rs.expectations.some((c) => c.op === 'raise'), `${f} ${rs.key}`);
    }
  }
  const goldens = readdirSync(join(examples, 'golden')).filter((f) => f.endsWith('.json'));
  assert.equal(goldens.length, all.length);
});

test('viewUnknown spans: decisionAt says unknown inside them, and only there', async () => {
  const { b, setAt, behindAt } = droppedAddAudit();
  b.advance(3000).rsStatus(3);
  const real = await audit('spans', b);
  assert.equal(real.viewUnknown, undefined, 'held back from the ADD: no span');
  // A span inside the gated window (as kexp writes one where its input cannot pin the view).
  const from = setAt + 100;
  const until = behindAt - 100;
  const span = { from: iso(from), until: iso(until), reason: 'test', evidence: [] };
  const rs: ReplicaSetReport = { ...real, viewUnknown: [span] };
  assert.equal(decisionAt(rs, from), 'unknown');
  assert.equal(decisionAt(rs, (from + until) / 2), 'unknown');
  assert.equal(decisionAt(rs, until), 'unknown');
  assert.equal(decisionAt(rs, until + 1), 'gated');
  assert.equal(decisionAt(rs, from - 1), 'gated', 'the third creation not yet shown: still waiting for it');
  // An open span (no `until`) runs to the end.
  const open: ReplicaSetReport = { ...rs, viewUnknown: [{ from: span.from, reason: 'open', evidence: [] }] };
  assert.equal(decisionAt(open, from + 3_600_000), 'unknown');
});

// ───────────────────────────── edge cases (bugs found) ─────────────────────────────

test('a withheld pod the input deletes, then a replacement create: the ADD came first (a lag) — no contradicted record', async () => {
  const { b, behindAt } = droppedAddAudit();
  const p3 = [...b.pods.keys()][2]!;
  b.advance(10_000).deletePod(p3, { actor: actors.user(), graceSeconds: 0 });
  const deletedAt = b.t;
  b.advance(10).removePod(p3);
  b.advance(5).controllerCreate();
  const createAt = b.t;
  b.advance(10).rsStatus(3);
  const rs = await audit('withheld-deleted', b);
  assert.ok(!ids(rs).includes('record-contradicted'), ids(rs).join());
  assert.ok(ids(rs).includes('informer-behind'));
  assert.deepEqual(rounds(rs), [['create', 3, 3], ['create', 1, 1]]);
  // The first round's window is fulfilled at the write that proved the ADD delivered.
  assert.deepEqual([rs.gatedWindows[0]!.endedBy, rs.gatedWindows[0]!.end], ['fulfilled', iso(createAt)]);
  const span = rs.viewUnknown?.find((u) => /the input deleted a pod the controller had not observed/.test(u.reason));
  assert.ok(span, JSON.stringify(rs.viewUnknown));
  assert.deepEqual([span.from, span.until], [iso(deletedAt), iso(createAt)]);
  assert.equal(decisionAt(rs, deletedAt + 5), 'unknown');
  assert.equal(decisionAt(rs, createAt + 100), 'ungated');
  assert.ok(behindAt < deletedAt);
});

test('a withheld pod the input deletes, and no write: unknown until the record would expire', async () => {
  const { b, setAt } = droppedAddAudit();
  const p3 = [...b.pods.keys()][2]!;
  b.advance(10_000).deletePod(p3, { actor: actors.user(), graceSeconds: 0 });
  const deletedAt = b.t;
  b.advance(10).removePod(p3);
  b.advance(400_000).replicaSet(3, actors.user());
  b.advance(5).controllerCreate();
  const rs = await audit('withheld-deleted-quiet', b);
  const span = rs.viewUnknown?.find((u) => /the input deleted/.test(u.reason));
  assert.ok(span, JSON.stringify(rs.viewUnknown));
  assert.deepEqual([span.from, span.until], [iso(deletedAt), iso(setAt + 300_000)]);
  assert.equal(decisionAt(rs, deletedAt + 60_000), 'unknown');
  assert.equal(decisionAt(rs, setAt + 300_001), 'ungated');
  assert.deepEqual(rounds(rs), [['create', 3, 3], ['create', 1, 1]]);
  assert.equal(rs.accounting.inFindings, 0);
});

test('a recording that starts inside a sync: its first status is no anchor — no informer-behind invented, no round invented', async () => {
  // The initial list at 10:00:01.0xx: the pods first (one created by a sync still running, in
  // the previous second), then the ReplicaSet whose status that sync has not written yet.
  const b = new RecordingBuilder('shop', 'web-7d9c6b8f5d', T0 + 1005);
  b.t = T0 - 3000;
  const names = [b.addPod(1), b.addPod(2)];
  b.t = T0 + 970;
  names.push(b.addPod(3));
  b.lines.splice(1); // re-emit them as the initial list, received at +1.005 s
  b.t = T0 + 1005;
  for (const n of names) b.emit('pods', 'ADDED', b.pods.get(n));
  b.advance(5).replicaSet(3, 'ADDED', { replicas: 2, observedGeneration: 1 });
  b.rs.metadata.generation = 2;
  b.advance(20).rsStatus(2); // the running sync's write: it listed 2 pods before creating the third
  b.advance(20).rsStatus(3);
  b.advance(3000).end();
  const rs = await recording('mid-sync', b);
  assert.deepEqual(rs.findings.map((f) => f.id), []);
  assert.equal(rs.viewUnknown, undefined);
  assert.deepEqual(rs.rounds, []);
  assert.deepEqual(rs.expectations, []);
});

test('a withheld pod that gets another controller is no longer held back for the first', async () => {
  const { b } = droppedAddAudit();
  const p3 = [...b.pods.keys()][2]!;
  // A user strips its ownerReference: an orphan now, which the controller would adopt back.
  const orphan = structuredClone(b.pods.get(p3));
  orphan.metadata.ownerReferences = [];
  orphan.metadata.resourceVersion = String(++b.rv);
  b.pods.set(p3, orphan);
  b.advance(5000).record({ actor: actors.user(), verb: 'patch', resource: 'pods', name: p3, code: 200, requestObject: { metadata: { ownerReferences: null } }, responseObject: orphan });
  b.advance(10).adoptPod(p3);
  b.advance(10).rsStatus(3);
  const rs = await audit('withheld-released', b);
  // Delivered as an orphan, adopted by the controller's patch: a claim round, not an unexplained write.
  assert.ok(!ids(rs).includes('unexpected-claim'), ids(rs).join());
  assert.ok(rs.rounds.some((r) => r.kind === 'claim' && r.writes === 1), JSON.stringify(rounds(rs)));
  assert.equal(rs.accounting.inFindings, 0);
  assert.ok(rs.viewUnknown?.some((u) => /the input released a pod the controller had not observed/.test(u.reason)), JSON.stringify(rs.viewUnknown));
});

test('cost: a large ReplicaSet\'s status writes are checked without walking its pods every time', async () => {
  // 400 pods, then 1,500 status writes flapping readyReplicas, and a ramp of 400 more pods with a lagging status.
  const b = new RecordingBuilder('bench', 'web-7d9c6b8f5d');
  b.namespace().replicaSet(400, 'ADDED', { replicas: 400, observedGeneration: 1 });
  for (let i = 0; i < 400; i++) b.advance(2).addPod(i);
  for (let i = 0; i < 1500; i++) b.advance(50).rsStatus(400, i % 2);
  b.advance(1000).replicaSet(800);
  for (let i = 400; i < 800; i++) { b.advance(3).addPod(i); b.advance(2).rsStatus(i, 0); }
  b.advance(100).rsStatus(800, 0);
  b.advance(1000).end();
  // Count the pods read from the controller index during the replay (no timing: speed is measured in bench/).
  const proto = PodStore.prototype as unknown as { controlledBy: (...a: unknown[]) => Generator<unknown> };
  const orig = proto.controlledBy;
  let read = 0;
  proto.controlledBy = function* (...args: unknown[]) {
    for (const p of orig.apply(this, args)) {
      read++;
      yield p;
    }
  };
  let rs;
  try {
    rs = await recording('cost', b);
  } finally {
    proto.controlledBy = orig;
  }
  assert.ok(!ids(rs).includes('informer-behind'), ids(rs).join());
  // Walking 400–800 pods at each of ~1,900 status writes would read ~1,000,000; the bounded check
  // reads them only where a write could show the view behind (plus the report's final counts).
  assert.ok(read < 50_000, `${read} pods read from the index`);
});

// ─────────── the walk's per-pod reads, once per pod object (controller-view.ts factsOf) ───────────

/** checkStatusWrite as it read every pod on every walk (before the facts were kept per object). */
function walkedCheck(rs: ReplicaSet, pods: Pod[], seen: Map<string, PodSighting>, previous: number | undefined, count: OwnerStatusCount<ReplicaSet>, named?: ReadonlySet<string>) {
  const statusReplicas = count.of(rs)!;
  const older: Array<{ pod: string; seenAt: number; source?: SourceRef }> = [];
  let active = 0;
  let namedOlder = 0;
  for (const p of pods) {
    if (!count.counts(p) || controllerRefOf(p.metadata)?.uid !== rs.metadata.uid) continue;
    active++;
    if (previous === undefined) continue;
    const key = `${p.metadata.namespace}/${p.metadata.name}`;
    const s = seen.get(key);
    if (!s) continue;
    const existed = existedAt(p, s.at, previous);
    if (existed && !named?.has(key)) older.push({ pod: key, seenAt: s.at, ...(s.source ? { source: s.source } : {}) });
    else if (existed) namedOlder++;
  }
  const caughtUp = statusReplicas >= active;
  const deficit = older.length + namedOlder - statusReplicas;
  if (deficit <= 0) return { caughtUp };
  older.sort((a, b) => a.seenAt - b.seenAt);
  const missing = older.slice(-Math.min(deficit, older.length));
  if (!missing.length) return { caughtUp };
  return { caughtUp, behind: { at: T0 + 9000, source: src, statusReplicas, expected: older.length + namedOlder, missing, since: missing[0]!.seenAt } };
}

test('checkStatusWrite: the pod facts kept per object give the walk\'s answer, for two counts over the same pod objects', () => {
  // Counts only pending pods: a cache keyed by pod alone would answer it with the other count's facts.
  const PENDING_COUNT: OwnerStatusCount<ReplicaSet> = { ...REPLICA_SET_STATUS_COUNT, counts: (p) => p.status?.phase === 'Pending' };
  let seed = 11;
  const rnd = (n: number) => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed % n;
  };
  const phases = ['Running', 'Pending', 'Succeeded', 'Failed'];
  for (let round = 0; round < 150; round++) {
    const pods = Array.from({ length: 1 + rnd(12) }, (_, i) => pod(`p${round}-${i}`, T0 + rnd(6000), { phase: phases[rnd(4)]!, terminating: rnd(5) === 0, ...(rnd(6) === 0 ? { owner: 'other' } : {}) }));
    const seen = sightings(pods.filter(() => rnd(5) !== 0).map((p) => [p.metadata.name!, T0 + rnd(6000)] as [string, number]));
    const named = rnd(3) === 0 ? new Set(pods.filter(() => rnd(3) === 0).map((p) => `shop/${p.metadata.name}`)) : undefined;
    const previous = rnd(8) === 0 ? undefined : T0 + 2000 + rnd(3000);
    const rs = rsWith(rnd(pods.length + 1));
    // Each count twice: the second walk reads the kept facts.
    for (const count of [REPLICA_SET_STATUS_COUNT, PENDING_COUNT, REPLICA_SET_STATUS_COUNT, PENDING_COUNT]) {
      assert.deepEqual(checkStatusWrite(rs, T0 + 9000, src, pods, seen, previous, undefined, count, named), walkedCheck(rs, pods, seen, previous, count, named), `round ${round}`);
    }
  }
});

// ─────────────── the withheld pods by ReplicaSet (view-alignment.ts WithheldPods) ───────────────

test('WithheldPods: of(rsKey) holds the entries a filter of the whole map finds, in its order, through sets, moves and deletes', () => {
  const w = new WithheldPods();
  const p = pod('x', T0);
  let seed = 5;
  const rnd = (n: number) => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed % n;
  };
  const rsKeys = ['shop/a', 'shop/b', 'shop/c'];
  for (let step = 0; step < 3000; step++) {
    const pk = `shop/p${rnd(40)}`;
    const op = rnd(10);
    if (op < 6) w.set(pk, { pod: p, rsKey: rsKeys[rnd(3)]!, ...(rnd(2) ? { atAdd: true } : {}) });
    else if (op < 9) w.delete(pk);
    else if (rnd(20) === 0) w.clear();
    for (const rk of rsKeys) assert.deepEqual([...w.of(rk)], [...w].filter(([, x]) => x.rsKey === rk), `step ${step}, ${rk}`);
  }
});
