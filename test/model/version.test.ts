/** Version switches as the upstream code has them (controller-semantics.md, Corrections table). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { featuresOf, isModelledVersion, parseK8sVersion } from '../../src/model/version.js';

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

test('a version outside the modelled range is refused with the range; hints only name modelled versions', () => {
  assert.throws(() => parseK8sVersion('v1.9.11'), /outside what kexp models \(v1\.25 … v1\.37\)/);
  assert.throws(() => parseK8sVersion('v1.38.0'), /outside what kexp models/);
  assert.equal(isModelledVersion('v1.9.11'), false);
  assert.equal(isModelledVersion('v1.28.14'), true);
  assert.equal(parseK8sVersion('v1.34.1-gke.100').patch, 1);
});
