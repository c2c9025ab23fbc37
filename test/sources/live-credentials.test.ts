/**
 * The credential scrubber: the server as displayed (no userinfo), the secrets a request
 * carries, and server text with those secrets (and any Bearer/Basic value, URL userinfo)
 * removed and folded into one bounded line.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { callerSecrets, displayServer, scrubServerText } from '../../src/sources/live/credentials.js';

test('displayServer: userinfo removed, everything else kept as written', () => {
  assert.equal(displayServer('https://admin:PASS@host:6443'), 'https://host:6443');
  assert.equal(displayServer('https://admin:P@SS@host:6443/prefix?x=1'), 'https://host:6443/prefix?x=1');
  assert.equal(displayServer('https://token@10.0.0.1'), 'https://10.0.0.1');
  assert.equal(displayServer('https://host:6443'), 'https://host:6443');
  assert.equal(displayServer('https://host/a@b'), 'https://host/a@b', 'an @ in the path is not userinfo');
  assert.equal(displayServer('https://[::1]:6443'), 'https://[::1]:6443');
  assert.equal(displayServer('user:pw@host:6443'), 'host:6443', 'no scheme: the authority is the start');
});

test('callerSecrets: bearer token, basic header (base64 and password), auth option, URL password', () => {
  assert.deepEqual(callerSecrets({ headers: { Authorization: 'Bearer abc.def' } }), ['abc.def']);
  const b64 = Buffer.from('admin:s3cret').toString('base64');
  assert.deepEqual(callerSecrets({ headers: { authorization: `Basic ${b64}` } }), [b64, 's3cret']);
  assert.deepEqual(callerSecrets({ auth: 'admin:s3cret' }), ['s3cret', b64]);
  const fromUrl = callerSecrets({}, new URL('https://admin:p%40ss@host'));
  assert.deepEqual(fromUrl, ['p%40ss', 'p@ss', Buffer.from('admin:p@ss').toString('base64')]);
  assert.deepEqual(callerSecrets({ headers: { Accept: 'application/json' } }), []);
});

test('scrubServerText: the caller\'s secrets, Bearer/Basic values and URL userinfo become [REDACTED]', () => {
  const secrets = ['tok-123456', 's3cret'];
  assert.equal(
    scrubServerText('Unauthorized: Authorization: Bearer tok-123456 (user admin, password s3cret)', secrets),
    'Unauthorized: Authorization: Bearer [REDACTED] (user admin, password [REDACTED])',
  );
  // Someone else's credential the proxy echoes (not the caller's) is still a Bearer/Basic value.
  assert.equal(scrubServerText('saw "Bearer eyJhbGciOi.x.y" and basic: Basic YWRtaW46eA=='), 'saw "Bearer [REDACTED]" and basic: Basic [REDACTED]');
  assert.equal(scrubServerText('redirect to https://admin:pw@idp.example/login'), 'redirect to https://[REDACTED]@idp.example/login');
  // The longest secret first: a secret containing another is removed whole.
  assert.equal(scrubServerText('x abcdef y', ['abc', 'abcdef']), 'x [REDACTED] y');
  // Regular-expression characters in a secret are literal.
  assert.equal(scrubServerText('p=a.b*c+ q=aXb', ['a.b*c+']), 'p=[REDACTED] q=aXb');
  // Base64 of basic credentials is the caller's secret too.
  const b64 = Buffer.from('admin:s3cret').toString('base64');
  assert.equal(scrubServerText(`header ${b64}`, callerSecrets({ auth: 'admin:s3cret' })), 'header [REDACTED]');
});

test('scrubServerText: one line, bounded length, ordinary text untouched', () => {
  assert.equal(scrubServerText('pods is forbidden: User "system:serviceaccount:shop:kexp" cannot list resource "pods" in API group "" in the namespace "shop"'),
    'pods is forbidden: User "system:serviceaccount:shop:kexp" cannot list resource "pods" in API group "" in the namespace "shop"');
  assert.equal(scrubServerText('first\r\n  second\nthird'), 'first second third');
  const long = scrubServerText('x'.repeat(2000));
  assert.equal(long.length, 501);
  assert.ok(long.endsWith('…'));
});
