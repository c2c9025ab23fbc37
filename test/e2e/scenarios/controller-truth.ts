/**
 * The controller's own account of a fault capture, and what it must show for each controller-view
 * scenario (controller-view-faults.ts): its gated windows, gated syncs, expiries and restarts from
 * its -v=4 log (src/sources/kcm-log/ground-truth.ts buildGroundTruth), its pod writes with their
 * HTTP answers from the audit log, and the faults the proxy logged. These checks are the ground
 * truth the scenario must have produced on the real controller; they never look at kexp's answers
 * (bench/fidelity scores those).
 *
 * Contract: checkControllerTruth(name, files) throws an AssertionError naming the first fact the
 * capture does not show; a scenario without checks written down fails. Cost: one read of the
 * KCM log and of the audit slice (a few MB at most).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import zlib from 'node:zlib';
import { openKcmLogSource } from '../../../src/sources/kcm-log/kcm-log-source.js';
import { buildGroundTruth, type GatedWindow, type GroundTruth } from '../../../src/sources/kcm-log/ground-truth.js';
import type { ControllerLogEvent } from '../../../src/timeline/event.js';
import type { FaultLogEntry } from '../fault-proxy/faults.js';

export interface ControllerTruthFiles {
  audit: string;
  kcmLog: string;
  faults: string;
}

/** One write in the audit log (ResponseComplete), with its actor and answer. */
export interface AuditWrite {
  at: number;
  verb: string;
  resource: string;
  subresource?: string;
  name?: string;
  code: number;
  user: string;
  userAgent: string;
}

export const RS_CONTROLLER = 'system:serviceaccount:kube-system:replicaset-controller';

const diagnostics = { problem: () => undefined, warn: () => undefined };

function text(file: string): string {
  const raw = fs.readFileSync(file);
  return (file.endsWith('.gz') ? zlib.gunzipSync(raw) : raw).toString('utf8');
}

/** The controller's own account of every ReplicaSet its log names (buildGroundTruth). */
export async function truthsOf(kcmLog: string): Promise<GroundTruth[]> {
  const src = await openKcmLogSource(kcmLog, { diagnostics });
  const events: ControllerLogEvent[] = [];
  for await (const e of src.events) if (e.type === 'controller-log' && e.ownerKind === undefined) events.push(e); // the ReplicaSets' (other kinds' lines carry ownerKind)
  return [...buildGroundTruth(events).values()];
}

/** Every write (not get/list/watch) the audit slice completed, in request order. */
export function auditWrites(audit: string): AuditWrite[] {
  const out: AuditWrite[] = [];
  for (const line of text(audit).split('\n')) {
    if (!line) continue;
    const e = JSON.parse(line);
    if (e.stage !== 'ResponseComplete' || ['get', 'list', 'watch'].includes(e.verb)) continue;
    const r = e.objectRef ?? {};
    out.push({
      at: Date.parse(e.requestReceivedTimestamp), verb: e.verb, resource: r.resource, subresource: r.subresource,
      name: r.name ?? e.responseObject?.metadata?.name, code: e.responseStatus?.code ?? 0, user: e.user?.username ?? '', userAgent: e.userAgent ?? '',
    });
  }
  return out.sort((a, b) => a.at - b.at);
}

export function faultEntries(faults: string): FaultLogEntry[] {
  return text(faults).split('\n').filter(Boolean).map((l) => JSON.parse(l) as FaultLogEntry);
}

/** The controller's pod writes (creates, deletes, patches) in the audit log. */
function podWrites(w: AuditWrite[], verb: string, code?: number): AuditWrite[] {
  return w.filter((x) => x.user === RS_CONTROLLER && x.resource === 'pods' && !x.subresource && x.verb === verb && (code === undefined || x.code === code));
}

function windowsOf(t: GroundTruth, f: (w: GatedWindow) => boolean): GatedWindow[] {
  return t.gatedWindows.filter(f);
}

function describe(t: GroundTruth): string {
  return t.gatedWindows.map((w) => `${JSON.stringify(w.expected)} ${w.ended} after ${w.end !== undefined ? w.end - w.start : '?'} ms, ${w.gatedSyncs} gated`).join('; ');
}

function one(truths: GroundTruth[], suffix = '/web'): GroundTruth {
  const t = truths.filter((g) => g.rsKey.endsWith(suffix));
  assert.equal(t.length, 1, `the KCM log has lines for one ReplicaSet *${suffix}: ${truths.map((g) => g.rsKey)}`);
  return t[0]!;
}

/** One line of the KCM log: its time (ms) and its text. */
export interface LogLine {
  at: number;
  text: string;
}

type Check = (truths: GroundTruth[], writes: AuditWrite[], faults: FaultLogEntry[], log: LogLine[]) => void;

/** The KCM log's lines with their klog time (the capture's year; klog prints none). */
export function logLines(kcmLog: string, year: number): LogLine[] {
  const out: LogLine[] = [];
  for (const text of (kcmLog.endsWith('.gz') ? zlib.gunzipSync(fs.readFileSync(kcmLog)).toString('utf8') : fs.readFileSync(kcmLog, 'utf8')).split('\n')) {
    const m = /^[IWEF](\d\d)(\d\d) (\d\d:\d\d:\d\d\.\d{3})/.exec(text);
    if (m) out.push({ at: Date.parse(`${year}-${m[1]}-${m[2]}T${m[3]}Z`), text });
  }
  return out;
}

/** What the real controller's log and audit must show for each controller-view scenario. */
export const GROUND_TRUTH: Record<string, Check> = {
  'deletion-lag': (truths, writes, faults) => {
    const t = one(truths);
    assert.equal(podWrites(writes, 'delete', 200).length, 8, 'the controller deleted its 8 victims once each');
    const w = windowsOf(t, (x) => x.expected?.del === 8);
    assert.equal(w.length, 1, `one del=8 window: ${describe(t)}`);
    // Held by the proxy for 20 s: the window lasts that long, its syncs gated, and the late events fulfil it.
    assert.equal(w[0]!.ended, 'fulfilled', describe(t));
    assert.ok(w[0]!.end! - w[0]!.start >= 18_000, `the window lasted the lag: ${describe(t)}`);
    assert.ok(w[0]!.gatedSyncs >= 3, `gated syncs while the deletions were held: ${describe(t)}`);
    assert.equal(t.gatedWindows.filter((x) => x.ended === 'expired').length, 0, 'nothing expired');
    assert.equal(podWrites(writes, 'create').filter((x) => x.at > w[0]!.start).length, 0, 'no create after the scale-down');
    const held = new Set(faults.filter((f) => f.action === 'delay').map((f) => f.event));
    assert.ok(held.has('DELETED') && held.has('MODIFIED'), `the deletionTimestamp updates and the deletions were held: ${[...held]}`);
  },
  'deletion-loss': (truths, writes, faults) => {
    const t = one(truths);
    const hidden = faults.find((f) => f.action === 'hide-deletion' && f.event === 'DELETED');
    assert.ok(hidden?.name, 'the proxy hid one deletion from the controller');
    const first = podWrites(writes, 'delete', 200);
    assert.equal(first.length, 2, 'the scale-down deleted two pods');
    assert.ok(first.some((x) => x.name === hidden!.name), `the hidden pod ${hidden!.name} was one of the controller's own victims`);
    const leak = windowsOf(t, (x) => x.ended === 'expired');
    assert.equal(leak.length, 1, `one window expired: ${describe(t)}`);
    assert.ok(leak[0]!.end! - leak[0]!.start >= 299_000, `it expired at the 5-minute ExpectationsTimeout: ${describe(t)}`);
    assert.ok(leak[0]!.gatedSyncs >= 3, `its syncs were gated: ${describe(t)}`);
    // After the expiry the controller still counts the ghost and deletes it again: the apiserver answers 404.
    const ghost = podWrites(writes, 'delete', 404).filter((x) => x.at > leak[0]!.end! - 1000);
    assert.ok(ghost.length >= 1, 'DELETEs of the ghost after the expiry');
    assert.ok(ghost.every((x) => x.name === hidden!.name), `only the ghost ${hidden!.name} is deleted again: ${ghost.map((x) => x.name)}`);
    assert.equal(podWrites(writes, 'create').filter((x) => x.at > leak[0]!.start).length, 0, 'no create during or after the leak');
  },
  'restart-mid-rollout': (truths, writes, faults, log) => {
    const stop = faults.find((f) => f.action === 'kcm-stopped');
    assert.ok(stop, 'the fault log marks the SIGTERM');
    const stopAt = Date.parse(stop!.time);
    // The new process: it finds the Lease still held (SIGTERM does not release it in 1.37) and leads only after it expires.
    const held = log.filter((l) => l.at > stopAt && /"Lease is held by and has not yet expired"/.test(l.text));
    assert.ok(held.length >= 1, 'the new process found the old Lease still held');
    const acquired = log.find((l) => l.at > stopAt && /"Successfully acquired lease"/.test(l.text));
    assert.ok(acquired, 'the new process acquired the Lease');
    const started = log.find((l) => l.at >= acquired!.at && /"Starting controller" name="replicaset"/.test(l.text));
    assert.ok(started, 'the ReplicaSet controller started again after the Lease was acquired');
    assert.ok(acquired!.at - stopAt >= 4000, `nobody led for a while (${acquired!.at - stopAt} ms)`);
    // Nobody led: no write by the ReplicaSet controller between the stop and the new leader.
    const leaderless = writes.filter((w) => w.user === RS_CONTROLLER && w.at > stopAt + 1000 && w.at < acquired!.at);
    assert.deepEqual(leaderless.map((w) => `${w.verb} ${w.resource} ${w.name}`), [], 'no ReplicaSet-controller write while nobody led');
    assert.equal(truths.length, 2, `two ReplicaSets in the log: ${truths.map((t) => t.rsKey)}`);
    // The rollout went on after the restart: both ReplicaSets have rounds after the new leader started.
    for (const t of truths) assert.ok(t.raises.some((r) => r.at > started!.at), `${t.rsKey} has a round after the restart`);
    assert.equal(truths.flatMap((t) => t.gatedWindows).filter((w) => w.ended === 'expired').length, 0, 'nothing expired');
  },
  'client-brownout': (truths, writes, faults, log) => {
    const t = one(truths);
    const stall = faults.find((f) => f.action === 'stall' && f.client === 'replicaset-controller');
    assert.ok(stall, 'the proxy stalled the controller\'s client');
    const sets = t.raises.filter((r) => r.op === 'set');
    assert.equal(sets.length, 1, 'one Setting expectations: one round');
    assert.equal(sets[0]!.add, 150);
    const creates = podWrites(writes, 'create', 201);
    assert.equal(creates.length, 150, 'all 150 creates made, none twice');
    // The round's calls straddle the stall: a 15-s gap between two of its creates (the proxy held them before the apiserver saw them).
    let gap = 0;
    for (let i = 1; i < creates.length; i++) gap = Math.max(gap, creates[i]!.at - creates[i - 1]!.at);
    assert.ok(gap >= 14_000, `the creates paused for the stall (${gap} ms)`);
    // One long sync: its "Finished syncing" duration spans the stall, and no sync was gated meanwhile.
    const long = log.map((l) => /"Finished syncing" kind="ReplicaSet" key="[^"]+\/web" duration="([\d.]+)s"/.exec(l.text)).filter(Boolean).map((m) => Number(m![1]));
    assert.ok(long.some((d) => d >= 14), `a sync of over 14 s (${long})`);
    assert.equal(t.gatedWindows.length, 1);
    assert.equal(t.gatedWindows[0]!.ended, 'fulfilled');
    assert.equal(t.gatedWindows[0]!.gatedSyncs, 0, 'no gated sync inside the one long sync');
  },
  'relist-mid-round': (truths, writes, faults, log) => {
    const t = one(truths);
    assert.ok(faults.some((f) => f.action === 'gone'), 'the proxy refused the re-watch with 410');
    const w = t.gatedWindows.filter((x) => x.expected?.add === 60);
    assert.equal(w.length, 1, `one add=60 window: ${describe(t)}`);
    // The reflector's own lines: the watch closed on a too-old resourceVersion and relisted inside the round's window.
    const closed = log.find((l) => /"Watch closed".*type="\*v1\.Pod".*too old resource version/.test(l.text));
    const listed = log.find((l) => closed && l.at >= closed.at && /"Listing and watching" type="\*v1\.Pod"/.test(l.text));
    assert.ok(closed && listed, 'the pod reflector logged the 410 and the relist');
    assert.ok(closed!.at > w[0]!.start && listed!.at < w[0]!.end!, 'the relist happened while the round\'s record was open');
    assert.equal(w[0]!.ended, 'fulfilled', describe(t));
    assert.equal(podWrites(writes, 'create', 201).length, 60, 'the 60 creates, none twice');
    assert.equal(podWrites(writes, 'delete').length, 0, 'no surplus to delete');
  },
  'person-orphans-and-creates': (truths, writes, faults) => {
    const t = one(truths);
    const person = (x: AuditWrite) => x.user !== RS_CONTROLLER && !x.user.startsWith('system:serviceaccount:kube-system:');
    const orphaned = writes.find((x) => person(x) && x.verb === 'patch' && x.resource === 'pods');
    assert.ok(orphaned?.name, 'a person patched a pod (its ownerReference removed)');
    assert.equal(faults.find((f) => f.action === 'person-orphaned')?.name, orphaned!.name, 'the pod the scenario orphaned');
    // Its labels still match: the controller adopts it back — its own PATCH of that pod, after the
    // person's. A sync that runs before its informer delivers the adopted pod claims it again: a
    // second PATCH of the same pod (seen in a CI run), so one or more, all of the orphan.
    const adopt = podWrites(writes, 'patch', 200).filter((x) => x.at > orphaned!.at);
    assert.ok(adopt.length >= 1 && adopt.every((x) => x.name === orphaned!.name), `the controller adopted the orphan back, its PATCHes only of that pod: ${adopt.map((x) => x.name).join(', ')}`);
    const byHand = writes.find((x) => person(x) && x.verb === 'create' && x.resource === 'pods' && x.code === 201);
    assert.ok(byHand, 'a person created a pod (with the ReplicaSet\'s controllerRef)');
    // 4 pods owned: the controller deletes one, in a del=1 round of its own.
    const del = podWrites(writes, 'delete', 200);
    assert.equal(del.length, 1, 'one delete');
    assert.ok(del[0]!.at > byHand!.at);
    const w = t.gatedWindows.filter((x) => x.expected?.del === 1 && x.start > byHand!.at);
    assert.equal(w.length, 1, `one del=1 window after the person's create: ${describe(t)}`);
    assert.equal(w[0]!.ended, 'fulfilled');
    assert.equal(podWrites(writes, 'create').length, 3, 'the controller created only its first 3 pods');
  },
};

/** The ground-truth checks of one controller-view scenario's capture. */
export async function checkControllerTruth(name: string, files: ControllerTruthFiles): Promise<void> {
  const check = GROUND_TRUTH[name];
  assert.ok(check, `no ground-truth checks written down for ${name}`);
  const writes = auditWrites(files.audit);
  const year = new Date(writes[0]?.at ?? Date.now()).getUTCFullYear();
  check!(await truthsOf(files.kcmLog), writes, faultEntries(files.faults), logLines(files.kcmLog, year));
}
