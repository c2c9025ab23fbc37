/**
 * The name validator (DNS-1123 label / subdomain, the API server's own rules) and the request
 * paths built from names (each segment encoded, dot segments refused) and read back into the
 * kind a response must have.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkNamespace, checkObjectName, dns1123LabelProblem, dns1123SubdomainProblem, InvalidNameError, quoteValue } from '../../src/sources/live/names.js';
import { expectedKindOf, resourcePath } from '../../src/sources/live/resource-paths.js';
import { exitCodeForError } from '../../src/cli/error-exit.js';
import { ClusterError } from '../../src/sources/live/cluster-error.js';

test('namespaces: DNS-1123 labels pass, everything else says why', () => {
  for (const ok of ['default', 'kube-system', 'a', '0', 'a-b-1', 'x'.repeat(63)]) assert.equal(dns1123LabelProblem(ok), undefined, ok);
  assert.match(dns1123LabelProblem('x'.repeat(64)) ?? '', /^is 64 characters long \(at most 63\)$/);
  assert.equal(dns1123LabelProblem(''), 'is empty');
  assert.equal(dns1123LabelProblem(7), 'is a number, not a string');
  assert.equal(dns1123LabelProblem(null), 'is a null, not a string');
  assert.equal(dns1123LabelProblem(['a']), 'is a list, not a string');
  for (const bad of ['x/secrets?', '../', '..', '.', 'Shop', 'shop.prod', '-a', 'a-', 'a_b', 'a b', 'a\nb', 'ünï', 'a%2Fb', 'a#b']) {
    assert.match(dns1123LabelProblem(bad) ?? '', /must consist of lowercase letters, digits and '-'/, bad);
  }
});

test('object names: DNS-1123 subdomains pass (dots between labels), everything else says why', () => {
  for (const ok of ['web', 'web-7d9f5c', 'web.v2', 'a.b.c', '1.2.3', 'x'.repeat(253)]) assert.equal(dns1123SubdomainProblem(ok), undefined, ok.slice(0, 20));
  assert.match(dns1123SubdomainProblem('x'.repeat(254)) ?? '', /^is 254 characters long \(at most 253\)$/);
  for (const bad of ['..', '.', 'a..b', '.a', 'a.', 'a.-b', 'a-.b', 'A', 'a/b', 'a?b', '../secrets', 'a\u202eb']) {
    assert.match(dns1123SubdomainProblem(bad) ?? '', /DNS-1123 subdomain/, bad);
  }
});

test('checkNamespace/checkObjectName: an InvalidNameError naming the value (quoted, one line) and its origin; exit 2 for arguments, 7 for the kubeconfig', () => {
  assert.equal(checkNamespace('shop', 'x', 'argument'), 'shop');
  assert.equal(checkObjectName('web.v2', 'ReplicaSet'), 'web.v2');
  const arg = (() => {
    try {
      checkNamespace('a\nb\u001b[31m', 'given by -n/--namespace', 'argument');
    } catch (e) {
      return e;
    }
  })();
  assert.ok(arg instanceof InvalidNameError);
  assert.equal(arg.origin, 'argument');
  assert.equal(arg.message, 'namespace "a\\nb\\u001b[31m" (given by -n/--namespace) is not a valid namespace name: it must consist of lowercase letters, digits and \'-\', and start and end with a letter or digit (a DNS-1123 label)');
  assert.equal(exitCodeForError(arg), 2);
  const cfg = (() => {
    try {
      checkNamespace('x/y', 'of context "c" in f', 'kubeconfig');
    } catch (e) {
      return e;
    }
  })();
  assert.ok(cfg instanceof InvalidNameError);
  assert.equal(exitCodeForError(cfg), 7);
  assert.throws(() => checkObjectName('a..b', 'Deployment'), (e: unknown) => e instanceof InvalidNameError && e.origin === 'argument' && /^Deployment name "a\.\.b" is not a valid object name/.test(e.message));
  assert.equal(exitCodeForError(new ClusterError('not-found', 'x')), 8);
  assert.equal(exitCodeForError(new ClusterError('response', 'x')), 7);
  assert.equal(exitCodeForError(new TypeError('bug')), 1);
});

test('quoteValue: JSON-quoted, long values cut, non-strings shown as JSON', () => {
  assert.equal(quoteValue('web'), '"web"');
  assert.equal(quoteValue('x'.repeat(100)), `"${'x'.repeat(80)}…"`);
  assert.equal(quoteValue(42), '42');
  assert.equal(quoteValue({ a: 1 }), '{"a":1}');
});

test('resourcePath: core and group paths, every segment encoded, dot segments refused', () => {
  assert.equal(resourcePath({ version: 'v1', namespace: 'shop', resource: 'pods' }), '/api/v1/namespaces/shop/pods');
  assert.equal(resourcePath({ group: 'apps', version: 'v1', namespace: 'shop', resource: 'replicasets', name: 'web' }), '/apis/apps/v1/namespaces/shop/replicasets/web');
  assert.equal(resourcePath({ version: 'v1', resource: 'namespaces', name: 'shop' }), '/api/v1/namespaces/shop');
  assert.equal(resourcePath({ version: 'v1', namespace: 'x/secrets?', resource: 'pods' }), '/api/v1/namespaces/x%2Fsecrets%3F/pods');
  assert.equal(resourcePath({ version: 'v1', namespace: 'a#b', resource: 'pods', name: 'c d' }), '/api/v1/namespaces/a%23b/pods/c%20d');
  for (const bad of ['..', '.', '']) {
    assert.throws(() => resourcePath({ version: 'v1', namespace: bad, resource: 'pods' }), RangeError);
    assert.throws(() => resourcePath({ group: 'apps', version: 'v1', namespace: 'shop', resource: 'deployments', name: bad }), RangeError);
  }
});

test('expectedKindOf: the kind and apiVersion a path is answered with', () => {
  assert.deepEqual(expectedKindOf('/api/v1/namespaces/shop/pods?limit=500&continue=x'), { kind: 'PodList', apiVersion: 'v1', itemKind: 'Pod' });
  assert.deepEqual(expectedKindOf('/api/v1/namespaces/shop/events'), { kind: 'EventList', apiVersion: 'v1', itemKind: 'Event' });
  assert.deepEqual(expectedKindOf('/apis/apps/v1/namespaces/shop/replicasets'), { kind: 'ReplicaSetList', apiVersion: 'apps/v1', itemKind: 'ReplicaSet' });
  assert.deepEqual(expectedKindOf('/apis/apps/v1/namespaces/shop/replicasets/web'), { kind: 'ReplicaSet', apiVersion: 'apps/v1' });
  assert.deepEqual(expectedKindOf('/apis/apps/v1/namespaces/shop/deployments/web'), { kind: 'Deployment', apiVersion: 'apps/v1' });
  assert.deepEqual(expectedKindOf('/api/v1/namespaces/shop/resourcequotas'), { kind: 'ResourceQuotaList', apiVersion: 'v1', itemKind: 'ResourceQuota' });
  assert.deepEqual(expectedKindOf('/api/v1/namespaces/shop'), { kind: 'Namespace', apiVersion: 'v1' });
  assert.deepEqual(expectedKindOf('/api/v1/namespaces?fieldSelector=metadata.name%3Dshop'), { kind: 'NamespaceList', apiVersion: 'v1', itemKind: 'Namespace' });
  assert.deepEqual(expectedKindOf('/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kube-controller-manager'), { kind: 'Lease', apiVersion: 'coordination.k8s.io/v1' });
  // A path built from an encoded name reads back the same way.
  assert.deepEqual(expectedKindOf(resourcePath({ group: 'apps', version: 'v1', namespace: 'shop', resource: 'replicasets', name: 'web.v2' })), { kind: 'ReplicaSet', apiVersion: 'apps/v1' });
  // No expectation: non-resource paths, subresources, resources kexp does not read, a resource under the wrong group.
  for (const p of ['/version', '/api/v1/namespaces/shop/pods/web-1/status', '/api/v1/namespaces/shop/secrets', '/apis/apps/v1/namespaces/shop/pods', '/healthz', '/api', '/api/v1/namespaces/%E0%A4%A/pods']) {
    assert.equal(expectedKindOf(p), undefined, p);
  }
});
