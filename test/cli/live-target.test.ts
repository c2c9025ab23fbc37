/**
 * The live commands' target argument, spawned as a user runs them: kubectl's TYPE/NAME and TYPE
 * NAME forms reach the cluster step (no kubeconfig here: exit 7), a form kexp does not take is a
 * usage error (exit 2) with one line naming the accepted forms, before any request.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { kexp } from '../support/cli.js';

const NO_CLUSTER = { KUBECONFIG: '/nonexistent/kexp-kubeconfig' };

function oneLine(s: string): string {
  const lines = s.trim().split('\n').filter((l) => l.trim() !== '');
  assert.equal(lines.length, 1, s);
  return lines[0]!;
}

test('unknown types and malformed targets: exit 2, one line naming the accepted forms', () => {
  for (const args of [
    ['explain', 'statefulset/db'],
    ['record', 'sts', 'db', '-f', '/tmp/x.jsonl'],
    ['explain', 'ds/a/b'],
    ['record', 'ds/', '-f', '/tmp/x.jsonl'],
    ['explain', 'ds/a', 'b'],
  ]) {
    const r = kexp(args, { env: NO_CLUSTER });
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(oneLine(r.stderr), /expected NAME \(a ReplicaSet\), rs\/NAME, rc\/NAME, ds\/NAME, job\/NAME, deployment\/NAME, or TYPE NAME/, args.join(' '));
    assert.equal(r.stdout, '');
  }
});

test('adopt does not take an RC; an invalid name is named; both exit 2', () => {
  const rc = kexp(['adopt', 'rc/web'], { env: NO_CLUSTER });
  assert.equal(rc.code, 2, rc.stderr);
  assert.match(oneLine(rc.stderr), /kexp adopt takes a ReplicaSet name \(adoption is per ReplicaSet\)/);
  const bad = kexp(['record', 'job', 'Bad_Name', '-f', '/tmp/x.jsonl'], { env: NO_CLUSTER });
  assert.equal(bad.code, 2, bad.stderr);
  assert.match(oneLine(bad.stderr), /Job name "Bad_Name" is not a valid object name/);
});

test('every accepted form gets past the parser to the cluster step (exit 7 without a kubeconfig)', () => {
  for (const args of [
    ['explain', 'ds/agent'], ['explain', 'daemonset', 'agent'], ['explain', 'job.batch/backup'], ['explain', 'jobs', 'backup'],
    ['explain', 'rc/web'], ['explain', 'replicationcontroller', 'web'],
    ['record', 'rc/web', '-f', '/tmp/kexp-never.jsonl'], ['record', 'daemonsets.apps', 'agent', '-f', '/tmp/kexp-never.jsonl'],
  ]) {
    const r = kexp(args, { env: NO_CLUSTER });
    assert.equal(r.code, 7, `${args.join(' ')}: ${r.stderr}`);
  }
});
