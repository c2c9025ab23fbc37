import { test } from 'node:test';
import assert from 'node:assert/strict';

import type { OwnerReference, Pod, ReplicaSet } from '../../src/model/objects.js';
import {
  claimError,
  claimPods,
  decideClaim,
  formatGoTime,
  recheckDeletionTimestamp,
  type CanAdoptCheck,
  type ClaimDecision,
  type PatchResult,
} from '../../src/model/adoption.js';

const RS_NAME = 'web-7d9c6b8f5d';
const RS_UID = '9f6c1b2e-4d3a-4e8b-9c1d-2a7f5e3b8c40';
const RS_UID_RECREATED = '9f6c1b2e-77aa-4c2b-8e11-5d0c3f9a6b21';
const DEPLOY_UID = '3b1e7d2a-5c8f-4f0e-a2d4-6e9b1c7f0a13';
const BAR_UID = 'c4d8e2f1-2b6a-4e9c-8f3d-1a5b7c9e0d24';
const SEL = 'app=web,pod-template-hash=7d9c6b8f5d';
const LABELS = { app: 'web', 'pod-template-hash': '7d9c6b8f5d' };
const DELETED_AT = '2024-05-01T12:00:00Z';

function replicaSet(opts: { deleting?: boolean; uid?: string; namespace?: string } = {}): ReplicaSet {
  return {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: {
      name: RS_NAME,
      namespace: opts.namespace ?? 'shop',
      uid: opts.uid ?? RS_UID,
      resourceVersion: '48190',
      generation: 3,
      creationTimestamp: '2024-04-28T09:14:02Z',
      ...(opts.deleting ? { deletionTimestamp: DELETED_AT, finalizers: ['foregroundDeletion'] } : {}),
      labels: { ...LABELS },
      annotations: { 'deployment.kubernetes.io/revision': '4', 'deployment.kubernetes.io/desired-replicas': '2' },
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: DEPLOY_UID, controller: true, blockOwnerDeletion: true }],
    },
    spec: {
      replicas: 2,
      selector: { matchLabels: { ...LABELS } },
      template: { metadata: { labels: { ...LABELS } }, spec: { containers: [{ name: 'web', image: 'registry.example.com/shop/web:1.8.2' }] } },
    },
    status: { replicas: 1, fullyLabeledReplicas: 1, readyReplicas: 1, availableReplicas: 1, observedGeneration: 3 },
  };
}

const rsRef: OwnerReference = { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: RS_NAME, uid: RS_UID, controller: true, blockOwnerDeletion: true };
const barRef: OwnerReference = { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'bar', uid: BAR_UID, controller: true, blockOwnerDeletion: true };

function pod(
  suffix: string,
  uid: string,
  opts: { owner?: OwnerReference | null; labels?: Record<string, string>; namespace?: string; deleting?: boolean } = {},
): Pod {
  const owner = opts.owner === undefined ? rsRef : opts.owner;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: `${RS_NAME}-${suffix}`,
      generateName: `${RS_NAME}-`,
      namespace: opts.namespace ?? 'shop',
      uid,
      resourceVersion: '48211',
      creationTimestamp: '2024-04-30T08:00:00Z',
      ...(opts.deleting ? { deletionTimestamp: '2024-05-01T12:00:30Z', deletionGracePeriodSeconds: 30 } : {}),
      labels: opts.labels ?? { ...LABELS },
      ownerReferences: owner ? [owner] : null,
    },
    spec: { nodeName: 'node-1', containers: [{ name: 'web' }] },
    status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: '2024-04-30T08:00:09Z' }] },
  };
}

const UID_OWNED = 'a1f3c9e2-1b4d-4e7a-9c2f-0d8b6e5a3f11';
const UID_ORPHAN = 'b2e4d0f3-2c5e-4f8b-8d3a-1e9c7f6b4a22';
const UID_ORPHAN2 = 'c3f5e1a4-3d6f-4a9c-9e4b-2f0d8a7c5b33';
const UID_ORPHAN3 = 'd4a6f2b5-4e7a-4b0d-8f5c-3a1e9b8d6c44';
const UID_OTHER = 'e5b7a3c6-5f8b-4c1e-9a6d-4b2f0c9e7d55';

const ownedMatching = (): Pod => pod('x2x7q', UID_OWNED);
const orphanMatching = (suffix = 'orphn', uid = UID_ORPHAN): Pod => pod(suffix, uid, { owner: null });
const relabelled = (): Pod => pod('x2x7q', UID_OWNED, { labels: { app: 'web-debug', 'pod-template-hash': '7d9c6b8f5d' } });

// ---------------------------------------------------------------------------------------------
// §7.1 decision table, row by row
// ---------------------------------------------------------------------------------------------

test('§7.1 row 1: controlled by another controller → ignore (selector, RS deletion, pod deletion irrelevant)', () => {
  const want: ClaimDecision = {
    pod: `shop/${RS_NAME}-other`,
    uid: UID_OTHER,
    action: 'ignore',
    claimed: false,
    reason: `Controlled by ReplicaSet bar (uid ${BAR_UID}), not this one (ReplicaSet ${RS_NAME}, uid ${RS_UID}), so ClaimObject ignores it.`,
    needsCanAdopt: false,
  };
  assert.deepEqual(decideClaim(replicaSet(), pod('other', UID_OTHER, { owner: barRef })), want);
  assert.deepEqual(decideClaim(replicaSet({ deleting: true }), pod('other', UID_OTHER, { owner: barRef, deleting: true })), want);
  assert.deepEqual(decideClaim(replicaSet(), pod('other', UID_OTHER, { owner: barRef, labels: { app: 'api' } })), want);
  const sts: OwnerReference = { apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'web-db', uid: BAR_UID, controller: true };
  assert.equal(
    decideClaim(replicaSet(), pod('other', UID_OTHER, { owner: sts })).reason,
    `Controlled by StatefulSet web-db (uid ${BAR_UID}), not this one (ReplicaSet ${RS_NAME}, uid ${RS_UID}), so ClaimObject ignores it.`,
  );
});

test('§7.1 row 2: controlled by this RS and matching → keep, claimed, no API call (also while the RS is being deleted)', () => {
  assert.deepEqual(decideClaim(replicaSet(), ownedMatching()), {
    pod: `shop/${RS_NAME}-x2x7q`,
    uid: UID_OWNED,
    action: 'keep',
    claimed: true,
    reason: `Already controlled by ReplicaSet ${RS_NAME} and matches its selector (${SEL}), so it stays claimed with no API call.`,
    needsCanAdopt: false,
  });
  assert.deepEqual(decideClaim(replicaSet({ deleting: true }), ownedMatching()), {
    pod: `shop/${RS_NAME}-x2x7q`,
    uid: UID_OWNED,
    action: 'keep',
    claimed: true,
    reason: `Already controlled by ReplicaSet ${RS_NAME} and matches its selector (${SEL}), so it stays claimed with no API call, which is allowed even though the ReplicaSet is being deleted.`,
    needsCanAdopt: false,
  });
  const d = decideClaim(replicaSet(), pod('x2x7q', UID_OWNED, { deleting: true }));
  assert.equal(d.action, 'keep');
  assert.equal(d.claimed, true);
});

test('§7.1 row 3: controlled by this RS, not matching, RS being deleted → none (no release)', () => {
  assert.deepEqual(decideClaim(replicaSet({ deleting: true }), relabelled()), {
    pod: `shop/${RS_NAME}-x2x7q`,
    uid: UID_OWNED,
    action: 'none',
    claimed: false,
    reason: `Controlled by ReplicaSet ${RS_NAME} but no longer matches its selector (${SEL}); it is not claimed, and not released either because the ReplicaSet is being deleted.`,
    needsCanAdopt: false,
  });
});

test('§7.1 row 4: controlled by this RS, not matching, RS alive → release', () => {
  assert.deepEqual(decideClaim(replicaSet(), relabelled()), {
    pod: `shop/${RS_NAME}-x2x7q`,
    uid: UID_OWNED,
    action: 'release',
    claimed: false,
    reason: `Controlled by ReplicaSet ${RS_NAME} but no longer matches its selector (${SEL}), so the controller releases it with a patch that removes its controllerRef.`,
    needsCanAdopt: false,
  });
});

test('§7.1 row 5: orphan, RS being deleted → ignore (even if it matches)', () => {
  assert.deepEqual(decideClaim(replicaSet({ deleting: true }), orphanMatching()), {
    pod: `shop/${RS_NAME}-orphn`,
    uid: UID_ORPHAN,
    action: 'ignore',
    claimed: false,
    reason: `Orphan pod, but ReplicaSet ${RS_NAME} is being deleted, so it adopts nothing.`,
    needsCanAdopt: false,
  });
});

test('§7.1 row 6: orphan, selector does not match → ignore', () => {
  assert.deepEqual(decideClaim(replicaSet(), pod('api01', UID_ORPHAN, { owner: null, labels: { app: 'api' } })), {
    pod: `shop/${RS_NAME}-api01`,
    uid: UID_ORPHAN,
    action: 'ignore',
    claimed: false,
    reason: `Orphan pod whose labels do not match the selector of ReplicaSet ${RS_NAME} (${SEL}), so it is ignored.`,
    needsCanAdopt: false,
  });
});

test('§7.1 row 7: orphan, matching, pod being deleted → ignore', () => {
  assert.deepEqual(decideClaim(replicaSet(), pod('term1', UID_ORPHAN, { owner: null, deleting: true })), {
    pod: `shop/${RS_NAME}-term1`,
    uid: UID_ORPHAN,
    action: 'ignore',
    claimed: false,
    reason: `Orphan pod matching the selector (${SEL}), but the pod itself is being deleted (deletionTimestamp 2024-05-01T12:00:30Z), so it is not adopted.`,
    needsCanAdopt: false,
  });
});

test('§7.1 row 8: orphan, matching, RS namespace non-empty and different → ignore; empty RS namespace → adopt', () => {
  assert.deepEqual(decideClaim(replicaSet(), pod('elsew', UID_ORPHAN, { owner: null, namespace: 'shop-staging' })), {
    pod: `shop-staging/${RS_NAME}-elsew`,
    uid: UID_ORPHAN,
    action: 'ignore',
    claimed: false,
    reason: `Orphan pod matching the selector, but it is in namespace "shop-staging" and ReplicaSet ${RS_NAME} is in "shop", so it is not adopted.`,
    needsCanAdopt: false,
  });
  const d = decideClaim(replicaSet({ namespace: '' }), pod('elsew', UID_ORPHAN, { owner: null, namespace: 'shop-staging' }));
  assert.equal(d.action, 'adopt');
});

test('§7.1 row 9: orphan, matching, same namespace, nobody deleting → adopt (needs CanAdopt)', () => {
  assert.deepEqual(decideClaim(replicaSet(), orphanMatching()), {
    pod: `shop/${RS_NAME}-orphn`,
    uid: UID_ORPHAN,
    action: 'adopt',
    claimed: true,
    reason: `Orphan pod in the same namespace matching the selector (${SEL}), so ReplicaSet ${RS_NAME} adopts it with a patch once CanAdopt (a live GET of the ReplicaSet) passes.`,
    needsCanAdopt: true,
  });
});

test('controllerRef identity is the UID only; a non-controller ownerReference leaves the pod an orphan', () => {
  const renamed: OwnerReference = { apiVersion: 'extensions/v1beta1', kind: 'Whatever', name: 'old-name', uid: RS_UID, controller: true };
  assert.equal(decideClaim(replicaSet(), pod('x2x7q', UID_OWNED, { owner: renamed })).action, 'keep');
  const notController: OwnerReference = { ...rsRef, controller: false };
  assert.equal(decideClaim(replicaSet(), pod('x2x7q', UID_OWNED, { owner: notController })).action, 'adopt');
});

test('an RS selector that fails LabelSelectorAsSelector claims nothing (the sync stops before ClaimPods)', () => {
  const bad = replicaSet();
  bad.spec!.selector = { matchExpressions: [{ key: 'app', operator: 'In', values: [] }] };
  const d = decideClaim(bad, ownedMatching());
  assert.deepEqual(d, {
    pod: `shop/${RS_NAME}-x2x7q`,
    uid: UID_OWNED,
    action: 'none',
    claimed: false,
    reason: `ReplicaSet ${RS_NAME} has a selector that does not convert (values: Invalid value: []string(nil): for 'in', 'notin' operators, values set can't be empty), so its sync stops before claiming any pod.`,
    needsCanAdopt: false,
  });
  const r = claimPods(bad, [ownedMatching(), orphanMatching()], () => assert.fail('no CanAdopt'), () => assert.fail('no patch'));
  assert.deepEqual(r.claimed, []);
  assert.equal(r.canAdoptCalls, 0);
  assert.equal(r.patches, 0);
  assert.deepEqual(r.errors, []);
});

// ---------------------------------------------------------------------------------------------
// RecheckDeletionTimestamp + getFresh
// ---------------------------------------------------------------------------------------------

test('formatGoTime renders like Go time.Time.String() in UTC', () => {
  assert.equal(formatGoTime(Date.parse('2024-05-01T12:00:00Z')), '2024-05-01 12:00:00 +0000 UTC');
  assert.equal(formatGoTime(Date.parse('2024-05-01T12:00:00.500Z')), '2024-05-01 12:00:00.5 +0000 UTC');
  assert.equal(formatGoTime(Date.parse('2024-12-31T23:59:59.123Z')), '2024-12-31 23:59:59.123 +0000 UTC');
});

test('recheckDeletionTimestamp: live RS alive with the same UID → ok', () => {
  assert.deepEqual(recheckDeletionTimestamp(replicaSet(), replicaSet()), { ok: true });
});

test('recheckDeletionTimestamp: live RS has a deletionTimestamp → "has just been deleted at"', () => {
  assert.deepEqual(recheckDeletionTimestamp(replicaSet(), replicaSet({ deleting: true })), {
    ok: false,
    error: 'shop/web-7d9c6b8f5d has just been deleted at 2024-05-01 12:00:00 +0000 UTC',
  });
});

test('recheckDeletionTimestamp: UID mismatch (recreated) → "original ReplicaSet … is gone", wrapped; checked before deletion', () => {
  const want: CanAdoptCheck = {
    ok: false,
    error: `can't recheck DeletionTimestamp: original ReplicaSet shop/web-7d9c6b8f5d is gone: got uid ${RS_UID_RECREATED}, wanted ${RS_UID}`,
  };
  assert.deepEqual(recheckDeletionTimestamp(replicaSet(), replicaSet({ uid: RS_UID_RECREATED })), want);
  assert.deepEqual(recheckDeletionTimestamp(replicaSet(), replicaSet({ uid: RS_UID_RECREATED, deleting: true })), want);
});

test('recheckDeletionTimestamp: GET errors are wrapped "can\'t recheck DeletionTimestamp: …"', () => {
  assert.deepEqual(recheckDeletionTimestamp(replicaSet(), { notFound: true }), {
    ok: false,
    error: `can't recheck DeletionTimestamp: replicasets.apps "web-7d9c6b8f5d" not found`,
  });
  const dial =
    'Get "https://10.96.0.1:443/apis/apps/v1/namespaces/shop/replicasets/web-7d9c6b8f5d": dial tcp 10.96.0.1:443: connect: connection refused';
  assert.deepEqual(recheckDeletionTimestamp(replicaSet(), { error: dial }), {
    ok: false,
    error: `can't recheck DeletionTimestamp: ${dial}`,
  });
});

// ---------------------------------------------------------------------------------------------
// claimPods (§11 cases 20–24, §10 PatchPodFails)
// ---------------------------------------------------------------------------------------------

function recorder(result: (pod: Pod, action: 'adopt' | 'release') => PatchResult = () => 'ok') {
  const calls: string[] = [];
  return {
    calls,
    patch: (p: Pod, action: 'adopt' | 'release'): PatchResult => {
      calls.push(`${action} ${p.metadata.namespace}/${p.metadata.name}`);
      return result(p, action);
    },
  };
}

function liveGet(fresh: Parameters<typeof recheckDeletionTimestamp>[1]) {
  const state = { gets: 0 };
  const cached = replicaSet();
  return {
    state,
    canAdopt: (): CanAdoptCheck => {
      state.gets++;
      return recheckDeletionTimestamp(cached, fresh);
    },
  };
}

test('§11 case 20: adopt an orphan → one live GET, one adopt patch, both pods claimed', () => {
  const owned = ownedMatching();
  const orphan = orphanMatching();
  const get = liveGet(replicaSet());
  const rec = recorder();
  const r = claimPods(replicaSet(), [owned, orphan], get.canAdopt, rec.patch);
  assert.deepEqual(r.claimed, [owned, orphan]);
  assert.equal(r.canAdoptCalls, 1);
  assert.equal(get.state.gets, 1);
  assert.equal(r.patches, 1);
  assert.deepEqual(rec.calls, [`adopt shop/${RS_NAME}-orphn`]);
  assert.deepEqual(r.errors, []);
  assert.equal(claimError(r.errors), undefined);
  assert.deepEqual(
    r.decisions.map((d) => [d.pod, d.action, d.claimed]),
    [
      [`shop/${RS_NAME}-x2x7q`, 'keep', true],
      [`shop/${RS_NAME}-orphn`, 'adopt', true],
    ],
  );
  assert.equal(
    r.decisions[1]!.reason,
    `Orphan pod in the same namespace matching the selector (${SEL}), so ReplicaSet ${RS_NAME} adopts it with a patch once CanAdopt (a live GET of the ReplicaSet) passes; CanAdopt passed and the adopt patch succeeded.`,
  );
});

test('§11 case 21: CanAdopt blocked by the live GET with several orphans → 1 GET, 0 patches, cached error for each', () => {
  const owned = ownedMatching();
  const o1 = orphanMatching('o1aaa', UID_ORPHAN);
  const o2 = orphanMatching('o2bbb', UID_ORPHAN2);
  const o3 = orphanMatching('o3ccc', UID_ORPHAN3);
  const get = liveGet(replicaSet({ deleting: true }));
  const rec = recorder();
  const r = claimPods(replicaSet(), [o1, owned, o2, o3], get.canAdopt, rec.patch);
  assert.equal(get.state.gets, 1);
  assert.equal(r.canAdoptCalls, 1);
  assert.equal(r.patches, 0);
  assert.deepEqual(rec.calls, []);
  assert.deepEqual(r.claimed, [owned]);
  const cause = 'shop/web-7d9c6b8f5d has just been deleted at 2024-05-01 12:00:00 +0000 UTC';
  assert.deepEqual(r.errors, [
    `can't adopt Pod shop/${RS_NAME}-o1aaa (${UID_ORPHAN}): ${cause}`,
    `can't adopt Pod shop/${RS_NAME}-o2bbb (${UID_ORPHAN2}): ${cause}`,
    `can't adopt Pod shop/${RS_NAME}-o3ccc (${UID_ORPHAN3}): ${cause}`,
  ]);
  assert.equal(claimError(r.errors), `[${r.errors.join(', ')}]`);
  assert.deepEqual(
    r.decisions.map((d) => [d.action, d.claimed, d.needsCanAdopt]),
    [
      ['adopt', false, true],
      ['keep', true, false],
      ['adopt', false, true],
      ['adopt', false, true],
    ],
  );
  assert.equal(
    r.decisions[0]!.reason,
    `Orphan pod matching the selector, but adoption is refused because CanAdopt failed (${cause}), so no patch is sent and the sync fails.`,
  );
});

test('CanAdopt is called at most once per claimPods call when it succeeds, and never without an adoption', () => {
  let calls = 0;
  const canAdopt = (): CanAdoptCheck => {
    calls++;
    return { ok: true };
  };
  const rec = recorder();
  const r = claimPods(replicaSet(), [orphanMatching('o1aaa', UID_ORPHAN), orphanMatching('o2bbb', UID_ORPHAN2)], canAdopt, rec.patch);
  assert.equal(calls, 1);
  assert.equal(r.canAdoptCalls, 1);
  assert.equal(r.patches, 2);
  assert.equal(r.claimed.length, 2);

  calls = 0;
  const r2 = claimPods(replicaSet(), [ownedMatching(), pod('other', UID_OTHER, { owner: barRef })], canAdopt, recorder().patch);
  assert.equal(calls, 0);
  assert.equal(r2.canAdoptCalls, 0);
  assert.equal(r2.patches, 0);

  // A release does not consult CanAdopt either, even when CanAdopt would fail.
  const r3 = claimPods(replicaSet(), [relabelled()], () => ({ ok: false, error: 'boom' }), recorder().patch);
  assert.equal(r3.canAdoptCalls, 0);
  assert.equal(r3.patches, 1);
  assert.deepEqual(r3.errors, []);
});

test('§11 case 22: release on a label change → one release patch, not claimed; no release while the RS is being deleted', () => {
  const p = relabelled();
  const rec = recorder();
  const r = claimPods(replicaSet(), [p], () => assert.fail('releases never call CanAdopt'), rec.patch);
  assert.deepEqual(rec.calls, [`release shop/${RS_NAME}-x2x7q`]);
  assert.equal(r.patches, 1);
  assert.equal(r.canAdoptCalls, 0);
  assert.deepEqual(r.claimed, []);
  assert.deepEqual(r.errors, []);
  assert.deepEqual(r.decisions, [
    {
      pod: `shop/${RS_NAME}-x2x7q`,
      uid: UID_OWNED,
      action: 'release',
      claimed: false,
      reason: `Controlled by ReplicaSet ${RS_NAME} but no longer matches its selector (${SEL}), so the controller releases it with a patch that removes its controllerRef; the release patch succeeded.`,
      needsCanAdopt: false,
    },
  ]);

  const recDel = recorder();
  const rDel = claimPods(replicaSet({ deleting: true }), [p], () => assert.fail('no CanAdopt'), recDel.patch);
  assert.deepEqual(recDel.calls, []);
  assert.equal(rDel.patches, 0);
  assert.deepEqual(rDel.claimed, []);
  assert.deepEqual(rDel.decisions.map((d) => d.action), ['none']);
});

test('release: NotFound and 422 Invalid are swallowed; other errors are returned as is', () => {
  const p = relabelled();
  for (const res of ['notfound', 'invalid'] as const) {
    const r = claimPods(replicaSet(), [p], () => ({ ok: true }), () => res);
    assert.deepEqual(r.errors, [], res);
    assert.equal(r.patches, 1);
    assert.deepEqual(r.claimed, []);
  }
  const r = claimPods(replicaSet(), [p], () => ({ ok: true }), () => ({ error: 'the server was unable to return a response in the time allotted' }));
  assert.deepEqual(r.errors, ['the server was unable to return a response in the time allotted']);
  assert.equal(r.patches, 1);
});

test('§11 case 23: a matching pod controlled by RS bar is ignored → 0 patches, not claimed', () => {
  const rec = recorder();
  const r = claimPods(replicaSet(), [pod('other', UID_OTHER, { owner: barRef })], () => assert.fail('no CanAdopt'), rec.patch);
  assert.deepEqual(r.claimed, []);
  assert.equal(r.patches, 0);
  assert.equal(r.canAdoptCalls, 0);
  assert.deepEqual(r.errors, []);
  assert.deepEqual(r.decisions.map((d) => [d.action, d.claimed]), [['ignore', false]]);
});

test('§11 case 24: RS being deleted keeps owned pods, adopts and releases nothing', () => {
  const owned = ownedMatching();
  const orphan = orphanMatching();
  const stale = pod('stale', UID_ORPHAN2, { labels: { app: 'web-old' } });
  const rec = recorder();
  const r = claimPods(replicaSet({ deleting: true }), [owned, orphan, stale], () => assert.fail('no CanAdopt'), rec.patch);
  assert.deepEqual(r.claimed, [owned]);
  assert.equal(r.patches, 0);
  assert.equal(r.canAdoptCalls, 0);
  assert.deepEqual(rec.calls, []);
  assert.deepEqual(r.errors, []);
  assert.deepEqual(
    r.decisions.map((d) => [d.pod, d.action, d.claimed]),
    [
      [`shop/${RS_NAME}-x2x7q`, 'keep', true],
      [`shop/${RS_NAME}-orphn`, 'ignore', false],
      [`shop/${RS_NAME}-stale`, 'none', false],
    ],
  );
});

test('§10 PatchPodFails: two matching orphans, both adopt patches fail → 2 patches, 2 errors, nothing claimed', () => {
  const o1 = orphanMatching('o1aaa', UID_ORPHAN);
  const o2 = orphanMatching('o2bbb', UID_ORPHAN2);
  const rec = recorder(() => ({ error: 'Internal error occurred: fake patch failure' }));
  const r = claimPods(replicaSet(), [o1, o2], () => ({ ok: true }), rec.patch);
  assert.equal(r.patches, 2);
  assert.deepEqual(rec.calls, [`adopt shop/${RS_NAME}-o1aaa`, `adopt shop/${RS_NAME}-o2bbb`]);
  assert.equal(r.canAdoptCalls, 1);
  assert.deepEqual(r.claimed, []);
  assert.deepEqual(r.errors, ['Internal error occurred: fake patch failure', 'Internal error occurred: fake patch failure']);
  assert.equal(claimError(r.errors), 'Internal error occurred: fake patch failure');
  assert.deepEqual(r.decisions.map((d) => [d.action, d.claimed]), [
    ['adopt', false],
    ['adopt', false],
  ]);
});

test('adopt: NotFound → not claimed and not an error; 422 Invalid → error (AdoptPod does not swallow it)', () => {
  const o1 = orphanMatching('o1aaa', UID_ORPHAN);
  const o2 = orphanMatching('o2bbb', UID_ORPHAN2);
  const r = claimPods(replicaSet(), [o1, o2], () => ({ ok: true }), (p) => (p === o1 ? 'notfound' : 'invalid'));
  assert.deepEqual(r.claimed, []);
  assert.equal(r.patches, 2);
  assert.deepEqual(r.errors, [`Pod "${RS_NAME}-o2bbb" is invalid`]);
  assert.deepEqual(r.decisions.map((d) => [d.action, d.claimed]), [
    ['adopt', false],
    ['adopt', false],
  ]);
  assert.equal(
    r.decisions[0]!.reason,
    `Orphan pod in the same namespace matching the selector (${SEL}), so ReplicaSet ${RS_NAME} adopts it with a patch once CanAdopt (a live GET of the ReplicaSet) passes; the adopt patch got NotFound (pod already gone), so it is not claimed and this is not an error.`,
  );
});

test('claimPods keeps pod order and mixes outcomes in one pass', () => {
  const owned = ownedMatching();
  const orphan = orphanMatching();
  const rel = pod('relab', UID_ORPHAN2, { labels: { app: 'web-debug' } });
  const other = pod('other', UID_OTHER, { owner: barRef });
  const rec = recorder();
  const r = claimPods(replicaSet(), [rel, other, orphan, owned], () => ({ ok: true }), rec.patch);
  assert.deepEqual(rec.calls, [`release shop/${RS_NAME}-relab`, `adopt shop/${RS_NAME}-orphn`]);
  assert.deepEqual(r.claimed, [orphan, owned]);
  assert.deepEqual(r.decisions.map((d) => d.action), ['release', 'ignore', 'adopt', 'keep']);
  assert.equal(r.patches, 2);
  assert.equal(r.canAdoptCalls, 1);
});
