/**
 * deploy/: the alert rules pass `promtool check rules`, and `promtool test rules` on
 * deploy/kexp-rules.test.yaml proves each alert fires on its cause and resolves; the
 * PrometheusRule carries exactly the plain rules file's groups; every alert has a summary and a
 * runbook that is a `kubectl kexp explain` command (or the Lease's for the leadership alert); the
 * RBAC in deploy/kexp-serve.yaml is read-only (list/watch), grants no Secret, and covers exactly
 * the resources `kexp serve` watches (src/serve/cluster-watch.ts serveWatches).
 *
 * promtool comes with Debian's `prometheus` package (.ci/run installs it). Without it these two
 * checks are skipped with a message — unless KEXP_REQUIRE_PROMTOOL is set (CI sets it), then
 * they fail.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import YAML from 'yaml';
import { serveWatches } from '../../src/serve/cluster-watch.ts';

const promtool = (() => {
  try {
    return execFileSync('sh', ['-c', 'command -v promtool'], { encoding: 'utf8' }).trim() || undefined;
  } catch {
    return undefined;
  }
})();
const skip = !promtool && !process.env.KEXP_REQUIRE_PROMTOOL ? 'promtool not installed (apt-get install prometheus); set KEXP_REQUIRE_PROMTOOL=1 to make this a failure' : false;

test('promtool check rules deploy/kexp-rules.yaml', { skip }, () => {
  assert.ok(promtool, 'promtool is required (KEXP_REQUIRE_PROMTOOL is set) but not installed');
  const r = spawnSync(promtool, ['check', 'rules', 'deploy/kexp-rules.yaml'], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stdout + r.stderr);
  assert.match(r.stdout, /SUCCESS: 4 rules found/);
});

test('promtool test rules: each alert fires on its cause and resolves', { skip }, () => {
  assert.ok(promtool, 'promtool is required (KEXP_REQUIRE_PROMTOOL is set) but not installed');
  const r = spawnSync(promtool, ['test', 'rules', 'deploy/kexp-rules.test.yaml'], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stdout + r.stderr);
  assert.match(r.stdout, /SUCCESS/);
  // Every alert of the rules file is tested firing and resolved (an empty exp_alerts after a firing one).
  const tests = YAML.parse(fs.readFileSync('deploy/kexp-rules.test.yaml', 'utf8')).tests as Array<{ alert_rule_test: Array<{ alertname: string; eval_time: string; exp_alerts: unknown[] }> }>;
  const rules = YAML.parse(fs.readFileSync('deploy/kexp-rules.yaml', 'utf8')).groups.flatMap((g: { rules: Array<{ alert: string }> }) => g.rules.map((x) => x.alert));
  for (const alert of rules) {
    const checks = tests.flatMap((t) => t.alert_rule_test).filter((c) => c.alertname === alert);
    const firing = checks.findIndex((c) => c.exp_alerts.length > 0);
    assert.ok(firing >= 0, `${alert} is tested firing`);
    assert.ok(checks.slice(firing + 1).some((c) => c.exp_alerts.length === 0), `${alert} is tested resolving after it fired`);
  }
});

test('the PrometheusRule carries the plain rules file\'s groups; every alert has a summary and a kexp runbook', () => {
  const plain = YAML.parse(fs.readFileSync('deploy/kexp-rules.yaml', 'utf8'));
  const pr = YAML.parse(fs.readFileSync('deploy/prometheusrule.yaml', 'utf8'));
  assert.equal(pr.kind, 'PrometheusRule');
  assert.equal(pr.apiVersion, 'monitoring.coreos.com/v1');
  assert.deepEqual(pr.spec.groups, plain.groups);
  const alerts = plain.groups.flatMap((g: { rules: unknown[] }) => g.rules) as Array<{ alert: string; annotations: Record<string, string> }>;
  assert.deepEqual(alerts.map((a) => a.alert), ['KexpExpectationsLeaked', 'KexpControllerGatedTooLong', 'KexpCreatesFailing', 'KexpControllerNotLeading']);
  for (const a of alerts) {
    assert.ok(a.annotations.summary, `${a.alert} has a summary`);
    assert.match(a.annotations.runbook!, /kubectl kexp explain /, `${a.alert}'s runbook is a kexp explain command`);
  }
});

test('deploy/kexp-serve.yaml: read-only RBAC for exactly what serve watches, non-root, resources set', () => {
  const docs = YAML.parseAllDocuments(fs.readFileSync('deploy/kexp-serve.yaml', 'utf8')).map((d) => d.toJSON());
  const byKind = (k: string) => docs.filter((d) => d.kind === k);
  const granted = new Set<string>();
  for (const role of [...byKind('ClusterRole'), ...byKind('Role')]) {
    for (const rule of role.rules as Array<{ apiGroups: string[]; resources: string[]; verbs: string[]; resourceNames?: string[] }>) {
      assert.deepEqual([...rule.verbs].sort(), ['list', 'watch'], `${role.metadata.name}: list and watch only`);
      for (const r of rule.resources) {
        assert.notEqual(r, 'secrets');
        assert.ok(!r.includes('*'), 'no wildcard');
        for (const g of rule.apiGroups) granted.add(`${g}/${r}${role.kind === 'Role' ? `@${role.metadata.namespace}` : ''}`);
      }
    }
  }
  const group = (path: string) => (path.startsWith('/apis/') ? path.split('/')[2]! : '');
  const needed = new Set(serveWatches(undefined).map((w) => `${group(w.path)}/${w.resource}${w.lease ? `@${w.namespace}` : ''}`));
  assert.deepEqual([...granted].sort(), [...needed].sort(), 'the roles grant exactly the watched resources');
  const dep = byKind('Deployment')[0];
  const pod = dep.spec.template.spec;
  assert.equal(pod.securityContext.runAsNonRoot, true);
  assert.ok(pod.securityContext.runAsUser > 0);
  const c = pod.containers[0];
  assert.equal(c.securityContext.allowPrivilegeEscalation, false);
  assert.equal(c.securityContext.readOnlyRootFilesystem, true);
  assert.ok(c.resources.requests.cpu && c.resources.requests.memory && c.resources.limits.memory);
  assert.deepEqual(c.args.slice(0, 2), ['serve', '-A']);
  assert.equal(c.readinessProbe.httpGet.path, '/readyz');
  assert.equal(c.livenessProbe.httpGet.path, '/healthz');
  assert.equal(byKind('Service')[0].spec.ports[0].port, 9797);
});
