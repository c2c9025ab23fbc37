/** Version switches as the upstream code has them (controller-semantics.md, Corrections table). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { featuresOf, isModelledVersion, parseK8sVersion, versionDifferences, versionInfo } from '../../src/model/version.js';

const f = (v: string) => featuresOf(parseK8sVersion(v));

test('owner-index listing from 1.34.0; UID-only keys in 1.34.0–1.34.1, kind/name/UID from 1.34.2', () => {
  assert.equal(f('v1.33.9').podIndexListing, false);
  assert.equal(f('v1.34.0').podIndexListing, 'uid');
  assert.equal(f('v1.34.1').podIndexListing, 'uid');
  assert.equal(f('v1.34.2').podIndexListing, 'kind-name-uid');
  assert.equal(f('v1.34').podIndexListing, 'kind-name-uid', 'no patch: the newest patch of the minor');
  assert.equal(f('v1.37.2').podIndexListing, 'kind-name-uid');
});

test('sidecar tiebreak from 1.32, inclusive availability from 1.34, structured expectations lines from 1.28', () => {
  assert.deepEqual(['v1.31.9', 'v1.32.0'].map((v) => f(v).sidecarRestartTiebreak), [false, true]);
  assert.deepEqual(['v1.33.9', 'v1.34.0'].map((v) => f(v).availabilityInclusive), [false, true]);
  assert.deepEqual(['v1.27.16', 'v1.28.0'].map((v) => f(v).structuredLogs), [false, true]);
  assert.deepEqual(['v1.34.9', 'v1.35.0'].map((v) => f(v).terminatingReplicas), [false, true]);
});

test('1.x releases outside 1.25 … 1.37 are replayed as the nearest modelled release, with their known differences listed', () => {
  assert.throws(() => parseK8sVersion('v2.0'), /outside what kexp models/);
  assert.throws(() => parseK8sVersion('latest'), /unrecognised Kubernetes version/);
  assert.equal(isModelledVersion('v1.9.11'), false);
  assert.equal(isModelledVersion('v1.28.14'), true);
  assert.equal(parseK8sVersion('v1.34.1-gke.100').patch, 1);
  assert.equal(parseK8sVersion('v1.21.1+38b3ecc').minor, 21);
  assert.deepEqual(versionInfo('v1.30.4', 'input'), { version: 'v1.30.4', basis: 'input' });
  const old = versionInfo('v1.9.11', 'flag');
  assert.equal(old.modelledAs, 'v1.25');
  assert.match(old.differences![0]!, /older than kexp models: replayed as v1\.25/);
  assert.ok(old.differences!.some((d) => /kubernetes#67662/.test(d)));
  assert.ok(old.differences!.some((d) => /kubernetes#69376/.test(d)));
  assert.ok(!old.differences!.some((d) => /kubernetes#44144/.test(d)), 'terminating-pod adoption was fixed in 1.7');
  assert.ok(versionDifferences(parseK8sVersion('v1.6.13')).some((d) => /kubernetes#44144/.test(d)));
  const future = versionInfo('v1.38.0', 'input');
  assert.equal(future.modelledAs, 'v1.37.2');
  assert.match(future.differences![0]!, /newer than kexp models/);
});

test('a create timeout counts as success up to v1.16.4 / v1.17.0 (gone from v1.16.5, v1.17.1, v1.18.0); deleteRS keeps expectations before v1.17', () => {
  assert.deepEqual(['v1.12.10', 'v1.16.4', 'v1.16.5', 'v1.16', 'v1.17.0', 'v1.17.1', 'v1.18.0', 'v1.37.2'].map((v) => f(v).createTimeoutAsSuccess), [true, true, false, false, true, false, false, false]);
  assert.deepEqual(['v1.16.15', 'v1.17.0', 'v1.37.2'].map((v) => f(v).deleteKeepsExpectations), [true, false, false]);
});
