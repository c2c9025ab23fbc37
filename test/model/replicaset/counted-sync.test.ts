/**
 * The sync made from the per-ReplicaSet counts (replicaset-controller.ts `syncFromCounts`,
 * pod-counts.ts) against the scanning sync it replaces, as the oracle: two controllers of the same
 * version receive the same random deliveries — pods controlled, orphaned, of another owner, under
 * a controllerRef of another kind or name, ready with and without a Ready transition time,
 * terminating, succeeded; ReplicaSets scaled, re-selected, given a minReadySeconds, deleted and
 * re-created under a new UID, marked for deletion; tombstones, withheld and restored pods — and
 * must make the same syncs: the same record, field for field and in the same key order (what a
 * report prints), the same create and delete calls, the same pods offered to a scale-down's
 * ranking in the same order. The scanning controller is the one that records claim decisions
 * (`recordClaimDecisions`, which keeps no counts); its `claims` field is the only one left out.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { objectKey, type Pod, type ReplicaSet } from '../../../src/model/objects.js';
import { ReplicaSetController } from '../../../src/model/replicaset/replicaset-controller.js';
import type { PodControl } from '../../../src/model/controller/pod-control.js';
import type { SyncRecord } from '../../../src/model/controller/sync-record.js';
import { parseK8sVersion } from '../../../src/model/version.js';
import { rng } from '../../fuzz/mutate.js';
import { OWNERS, randomPod } from '../random-pods.js';

const T0 = Date.parse('2025-03-10T09:00:00Z');

/** A PodControl whose answers depend only on the call, and which logs what it was asked. */
function scriptedControl(log: string[]): PodControl<ReplicaSet> {
  return {
    createPod: (rs, c) => {
      log.push(`create ${objectKey(rs.metadata)} r${c.round} #${c.index}/${c.n} @${c.at}`);
      // Every seventh call of a round fails: slowStartBatch stops, the expectations are lowered.
      return (c.round * 31 + c.index) % 7 === 3 ? { ok: false, error: 'quota exceeded' } : { ok: true };
    },
    deletePod: (rs, pod, c) => {
      log.push(`delete ${objectKey(rs.metadata)} ${objectKey(pod.metadata)} r${c.round} @${c.at}`);
      return pod.metadata.name!.endsWith('7') ? { ok: false, notFound: true } : { ok: true };
    },
    getFreshOwner: (rs) => rs,
    patchPod: (pod, action) => {
      log.push(`${action} ${objectKey(pod.metadata)}`);
      return 'ok';
    },
    chooseDeletions: (rs, predicted, active) => {
      log.push(`rank ${objectKey(rs.metadata)} [${active.map((p) => p.metadata.name).join(',')}] → [${predicted.map((p) => p.metadata.name).join(',')}]`);
      return { pods: predicted };
    },
  };
}

/** A random pod as random-pods.ts makes it, with a Ready transition time (sometimes none) and sometimes terminating. */
function podAt(r: () => number, name: string, ns: string, at: number): Pod {
  const p = randomPod(r, name, ns);
  for (const ref of p.metadata.ownerReferences ?? []) if (ns === 'b' && ref.uid.startsWith('uid-')) ref.uid = `${ref.uid}-b`;
  const cond = p.status!.conditions![0]!;
  cond.status = r() < 0.75 ? 'True' : 'False';
  // Ready since up to 12 s ago (minReadySeconds below are 0, 2 and 5 s), in whole seconds as a
  // Kubernetes timestamp has them; sometimes exactly on a boundary of the sync times, sometimes missing.
  if (r() < 0.9) cond.lastTransitionTime = new Date(at - 1000 * Math.floor(r() * 12)).toISOString().replace('.000Z', 'Z');
  if (r() < 0.08) p.metadata.deletionTimestamp = new Date(at).toISOString();
  if (r() < 0.03) p.status!.phase = 'Failed';
  return p;
}

function rsOf(r: () => number, o: { name: string; uid: string }, ns: string, rv: number): ReplicaSet {
  const minReady = [0, 0, 2, 5][Math.floor(r() * 4)]!;
  return {
    metadata: { namespace: ns, name: o.name, uid: ns === 'a' ? o.uid : `${o.uid}-b`, resourceVersion: String(rv) },
    spec: { replicas: Math.floor(r() * 9), minReadySeconds: minReady || undefined, selector: { matchLabels: { app: `app-${Math.floor(r() * 3)}` } } },
  } as ReplicaSet;
}

/** The record as a report would print it, without the claim decisions only the scanning controller keeps. */
const printed = (s: SyncRecord): string => JSON.stringify(s, (k, v) => (k === 'claims' ? undefined : v));

for (const version of ['1.25.0', '1.33.0', '1.34.0', '1.37.2']) {
  test(`ReplicaSetController ${version}: syncs from the counts equal the scanning syncs on random populations`, () => {
    let counted = 0;
    let scaleDowns = 0;
    let available = 0;
    for (let seed = 1; seed <= 5; seed++) {
      const r = rng(7000 + seed);
      const logScan: string[] = [];
      const logCount: string[] = [];
      const scan = new ReplicaSetController({ version: parseK8sVersion(version), podControl: scriptedControl(logScan), recordClaimDecisions: true });
      const count = new ReplicaSetController({ version: parseK8sVersion(version), podControl: scriptedControl(logCount), recordClaimDecisions: false });
      const both = (f: (c: ReplicaSetController) => void) => {
        f(scan);
        f(count);
      };
      let at = T0;
      let rv = 1;
      const rss = OWNERS.flatMap((o) => (['a', 'b'] as const).map((ns) => rsOf(r, o, ns, ++rv)));
      for (const rs of rss) both((c) => c.deliverOwner('ADDED', rs, at));
      const withheld: Pod[] = [];
      for (let op = 0; op < 600; op++) {
        // Steps of 250 ms to 2 s: syncs land before, on and after the availability boundaries.
        at += 250 * (1 + Math.floor(r() * 8));
        const ns = r() < 0.6 ? 'a' : 'b';
        const name = `p${Math.floor(r() * 150)}`;
        const key = `${ns}/${name}`;
        const x = r();
        const cached = count.pods.get(key);
        if (x < 0.1) {
          if (cached) both((c) => c.deliverPod('DELETED', cached, at));
        } else if (x < 0.12) {
          if (cached) both((c) => c.deliverPodTombstone(cached, at));
        } else if (x < 0.14) {
          if (cached) {
            both((c) => c.withholdPod(key));
            withheld.push(cached);
          }
        } else if (x < 0.16) {
          const p = withheld.pop();
          if (p) both((c) => c.restorePod(p));
        } else if (x < 0.19) {
          // A ReplicaSet scaled, re-selected, given another minReadySeconds, marked for deletion, or re-created under a new UID.
          const i = Math.floor(r() * rss.length);
          const rs = rss[i]!;
          const y = r();
          const next = rsOf(r, { name: rs.metadata.name!, uid: rs.metadata.uid!.replace(/-b$/, '') }, rs.metadata.namespace!, ++rv);
          if (y < 0.1) next.metadata.uid = `${rs.metadata.uid}-again`;
          if (y > 0.95) next.metadata.deletionTimestamp = new Date(at).toISOString();
          if (y > 0.3 && y < 0.9) next.spec!.selector = rs.spec!.selector;
          rss[i] = next;
          if (y >= 0.1 && y < 0.13) {
            both((c) => c.deliverOwner('DELETED', rs, at));
            both((c) => c.deliverOwner('ADDED', next, at + 1));
          } else both((c) => c.deliverOwner('MODIFIED', next, at));
        } else {
          const p = podAt(r, name, ns, at);
          // Most controlled pods carry their ReplicaSet's labels, so the ReplicaSets own a population to rank and count.
          const ref = p.metadata.ownerReferences?.find((o) => o.controller);
          const owner = ref && rss.find((rs) => rs.metadata.namespace === ns && rs.metadata.uid === ref.uid);
          if (owner && r() < 0.8) p.metadata.labels = { ...owner.spec!.selector!.matchLabels };
          p.metadata.resourceVersion = String(++rv);
          // Most updates keep the pod's identity (UID, owner): a status change, readiness flapping.
          if (cached && r() < 0.7) {
            p.metadata.uid = cached.metadata.uid;
            p.metadata.ownerReferences = cached.metadata.ownerReferences;
            p.metadata.labels = cached.metadata.labels;
          }
          both((c) => c.deliverPod(cached ? 'MODIFIED' : 'ADDED', p, at));
        }
        const inclusive = r() < 0.5;
        const a = scan.runDue(at, inclusive);
        const b = count.runDue(at, inclusive);
        assert.deepEqual(b.map(printed), a.map(printed), `${version} seed ${seed} op ${op}`);
        for (const s of b) {
          // Synced from the counts: the ReplicaSet had nothing to claim.
          if (s.active !== undefined && s.claimRound === undefined) counted++;
          if (s.delete) scaleDowns++;
          if (s.available !== undefined && s.available !== s.ready) available++;
        }
      }
      assert.deepEqual(logCount, logScan, `${version} seed ${seed}: the same API calls`);
      // Every sync due, and the queues alike.
      const a = scan.runDue(at + 3_600_000, true);
      const b = count.runDue(at + 3_600_000, true);
      assert.deepEqual(b.map(printed), a.map(printed));
    }
    // The populations exercise what the counts stand for: syncs, scale-downs, pods ready but not yet available.
    assert.ok(counted > 200, `${counted} syncs`);
    assert.ok(scaleDowns > 40, `${scaleDowns} scale-downs`);
    assert.ok(available > 300, `${available} syncs with pods ready but not yet available`);
  });
}
