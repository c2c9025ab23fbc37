/**
 * The validate step of every command (flags → options → validate → run, src/cli/base-command.ts):
 * whatever it refuses is a UsageError — one line on stderr, exit 2, nothing on stdout — before
 * any input is read or any request made. `--k8s-version` is checked there (it used to be
 * refused by the pipelines and told apart by the word "version" in its message).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { kexp } from '../support/cli.js';

const cases: Array<[string[], string]> = [
  [['replay', '/nonexistent/in.jsonl', '--k8s-version', '1.x'], 'kexp: unrecognised Kubernetes version "1.x" (expected e.g. v1.34.2)\n'],
  [['audit', '/nonexistent/audit.log', '--k8s-version', 'v2.0'], 'kexp: Kubernetes version "v2.0" is outside what kexp models (1.x releases: v1.25 … v1.37 exactly, the others as the nearest of those with their known differences)\n'],
  [['audit', '/nonexistent/audit.log', '--since', '10m', '--until', '1h'], 'kexp: --since 10m is later than --until 1h\n'],
  [['kcm-log', '/nonexistent/kcm.log', '--rs', 'web'], 'kexp: --rs must be namespace/name, got "web"\n'],
  [['kcm-log', '/nonexistent/kcm.log', '--year', '12'], 'kexp: --year must be between 1970 and 9999, got 12\n'],
  [['explain', 'web', '--watch', '0s'], 'kexp: --watch must be longer than 0, got "0s"\n'],
  [['record', 'web', '-f', '/nonexistent/r.jsonl', '--duration', '0s'], 'kexp: --duration must be longer than 0, got "0s"\n'],
  [['adopt', 'deployment/web'], 'kexp: kexp adopt takes a ReplicaSet name (adoption is per ReplicaSet); list them with `kubectl get rs -l …`\n'],
];

for (const [args, stderr] of cases) {
  test(`kexp ${args.join(' ')}: exit 2, one line`, () => {
    const r = kexp(args, { env: { KUBECONFIG: '/nonexistent/kubeconfig' } });
    assert.equal(r.code, 2, r.stderr);
    assert.equal(r.stderr, stderr);
    assert.equal(r.stdout, '');
  });
}

test('a live command shows a tab in its usage line as \\t (one terminal line); a file command prints it as it is', () => {
  const live = kexp(['explain', 'web', '--watch', '1\t0s']);
  assert.equal(live.code, 2);
  assert.equal(live.stderr, 'kexp: invalid duration "1\\t0s" (use e.g. 30s, 5m, 1h)\n');
  const file = kexp(['kcm-log', '/nonexistent/kcm.log', '--rs', 'a\tb']);
  assert.equal(file.code, 2);
  assert.equal(file.stderr, 'kexp: --rs must be namespace/name, got "a\tb"\n');
});
