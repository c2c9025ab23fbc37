/**
 * Log-store exports of audit events (ECS documents and search responses, CloudWatch Logs export
 * lines, Grafana Loki jsonl) read like the plain log they wrap; GKE non-resource entries are
 * classified the same wherever they stand; every unit of every fixture and real file is counted
 * exactly once (the line account), with levels and a time range for every wrapper; and `--rs`
 * on a ReplicaSet known only from its pod writes reports them.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { describe, it } from 'node:test';
import { accountTotal } from '../../src/sources/audit/line-account.js';
import { InputError } from '../../src/sources/source.js';
import { collect, fx, shape } from '../fixtures/audit/helpers.js';
import { kexp as spawnKexp } from '../support/cli.js';

/** The CLI at a width where the Input line does not wrap (these tests read that line). */
const kexp = (args: string[]) => spawnKexp(args, { env: { COLUMNS: '1000' } });

const REALDATA = process.env.KEXP_REALDATA ?? join(process.cwd(), '..', 'shared', 'realdata');
const tmp = mkdtempSync(join(tmpdir(), 'kexp-wrappers-'));

/** Events without their line numbers (a wrapper may number differently). */
const content = (evs: ReturnType<typeof shape>) => evs.map((s) => s.replace(/^(\w+):\d+:/, '$1:'));

describe('audit wrappers: log-store exports read like the plain log', () => {
  for (const [file, format] of [
    ['ecs-filebeat.ndjson', 'ecs'],
    ['cloudwatch-export.log', 'cloudwatch-lines'],
    ['loki-jsonl.ndjson', 'loki'],
  ] as const) {
    it(`${file}: the same events as v1-requestresponse.log, through the byte prefilter`, async () => {
      const plain = await collect(fx('v1-requestresponse.log'));
      const w = await collect(fx(file));
      const s = w.source.summary();
      assert.equal(s.format, format);
      assert.deepEqual(content(shape(w.events)), content(shape(plain.events)));
      assert.deepEqual(w.problems, []);
      // The irrelevant lines (leases, reads; for Loki also the kube-controller-manager line) were
      // skipped from their bytes, never parsed.
      const p = plain.source.summary();
      assert.equal(p.linesSkippedByPrefilter, 4);
      assert.equal(s.linesSkippedByPrefilter, format === 'loki' ? 5 : 4);
      assert.equal(s.rsControllerWrites, p.rsControllerWrites);
      assert.deepEqual(s.relevantLevels, ['Request', 'RequestResponse']);
      assert.equal(s.start, p.start);
      assert.equal(s.end, p.end);
      // Without the prefilter: the same events.
      const slow = await collect(fx(file), { prefilter: false });
      assert.deepEqual(shape(slow.events), shape(w.events));
    });
  }

  it('ECS search-API response and one hit per line: hits[]._source.kubernetes.audit', async () => {
    const resp = await collect(fx('ecs-search-response.json'));
    const hits = await collect(fx('ecs-hits.ndjson'));
    assert.equal(resp.source.summary().format, 'ecs');
    assert.equal(hits.source.summary().format, 'ecs');
    // main[0] is a lease update (not relevant); main[2] is the RS controller's pod create, main[7] its graceful delete.
    assert.deepEqual(content(shape(resp.events)), ['W:create:pods:201', 'O:Pod:ADDED', 'W:delete:pods:200', 'O:Pod:MODIFIED']);
    assert.deepEqual(content(shape(hits.events)), content(shape(resp.events)));
    assert.equal(hits.source.summary().linesSkippedByPrefilter, 1);
    assert.deepEqual(resp.problems, []);
    assert.equal(resp.writes[0]!.name, 'web-7d9c6b8f5d-x2k9p');
    assert.equal(resp.writes[0]!.actor.controller, 'replicaset-controller');
  });

  it('an ECS document whose kubernetes.audit lost kind/apiVersion is still an audit Event; one with none of its fields is a problem', async () => {
    const lines = readFileSync(fx('ecs-filebeat.ndjson'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    const stripped = lines.slice(1, 3).map((d) => {
      delete d.kubernetes.audit.kind;
      delete d.kubernetes.audit.apiVersion;
      return d;
    });
    const f = join(tmp, 'ecs-stripped.ndjson');
    writeFileSync(f, [...stripped, { '@timestamp': '2025-03-04T10:15:03Z', kubernetes: { audit: { verb: 'create' } } }].map((d) => JSON.stringify(d)).join('\n') + '\n');
    const c = await collect(f);
    assert.deepEqual(content(shape(c.events)), ['W:create:pods:201', 'O:Pod:ADDED']);
    assert.deepEqual(c.problems.map((p) => `${p.line}: ${p.message}`), ['3: ECS document whose kubernetes.audit has no apiVersion, auditID or stage']);
  });

  it('a CloudWatch export line without its time prefix is one problem at its line, the others are read', async () => {
    const lines = readFileSync(fx('cloudwatch-export.log'), 'utf8').trim().split('\n');
    const f = join(tmp, 'cw-mixed.log');
    writeFileSync(f, [lines[2], 'garbage in the middle', lines[7]].join('\n') + '\n');
    const c = await collect(f);
    assert.equal(c.writes.length, 2);
    assert.deepEqual(c.problems.map((p) => p.line), [2]);
    assert.match(c.problems[0]!.message, /not a CloudWatch export line/);
    assert.deepEqual(c.source.summary().lineAccount, { relevant: 2, notRelevant: 0, malformed: 1, incomplete: 0, blank: 0, tooLong: 0, surroundingText: 0 });
  });

  it('kexp audit on each export: one Input line naming the wrapper, levels and time range, exit 0', () => {
    for (const [file, format] of [
      ['ecs-filebeat.ndjson', 'ecs'],
      ['ecs-search-response.json', 'ecs'],
      ['cloudwatch-export.log', 'cloudwatch-lines'],
      ['loki-jsonl.ndjson', 'loki'],
    ]) {
      const r = kexp(['audit', fx(file!)]);
      assert.equal(r.code, 0, `${file}: ${r.stderr}`);
      assert.match(r.stdout, new RegExp(`Input: .*${file} \\(${format}, audit\\.k8s\\.io/v1, levels [A-Za-z/]+\\): .* 2025-03-04T10:15:02\\.050Z → 2025-03-04T10:15:0\\d\\.\\d+Z`));
    }
  });
});

describe('GKE entries of any kind are classified the same wherever they stand', () => {
  it('a /readyz health check (methodName io.k8s.get) first and between writes: not relevant, no problem, with and without the prefilter', async () => {
    for (const prefilter of [true, false]) {
      const c = await collect(fx('gke-nonresource.ndjson'), { prefilter });
      assert.deepEqual(c.problems, [], `prefilter ${prefilter}`);
      const s = c.source.summary();
      // Two health checks and the lease update are not relevant; the four writes are.
      assert.deepEqual(s.lineAccount, { relevant: 4, notRelevant: 3, malformed: 0, incomplete: 0, blank: 0, tooLong: 0, surroundingText: 0 });
      assert.equal(s.writeEvents, 4);
    }
    // gcloud's JSON array (values, no prefilter): the same.
    const arr = join(tmp, 'gke-nonresource.json');
    const entries = readFileSync(fx('gke-nonresource.ndjson'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    writeFileSync(arr, JSON.stringify(entries.reverse(), null, 2) + '\n');
    const a = await collect(arr);
    assert.deepEqual(a.problems, []);
    assert.equal(a.source.summary().lineAccount.notRelevant, 3);
    assert.equal(a.source.summary().lineAccount.relevant, 4);
  });

  it('real GKE YAML (khi): a non-resource entry before or after the pod create is not relevant and never malformed (exit 0)', { skip: !existsSync(REALDATA) }, () => {
    const create = readFileSync(join(REALDATA, 'khi-gke/container_recorder_test_1_1.yaml'), 'utf8');
    // The kubelet's status patch, turned into a health check of /readyz (request body dropped).
    const patch = readFileSync(join(REALDATA, 'khi-gke/container_recorder_test_1_2.yaml'), 'utf8');
    const readyz = patch
      .replace(/methodName: io\.k8s\.core\.v1\.pods\.status\.patch/, 'methodName: io.k8s.get')
      .replace(/resourceName: core\/v1\/namespaces\/\S+/, 'resourceName: readyz')
      .replace(/\n {2}request:\n(?: {4}.*\n| {6}.*\n| {8}.*\n| {10}.*\n| {12}.*\n)*/, '\n');
    assert.match(readyz, /methodName: io\.k8s\.get/);
    const first = join(tmp, 'readyz-first.yaml');
    const mid = join(tmp, 'readyz-after.yaml');
    writeFileSync(first, readyz + '\n---\n' + create);
    writeFileSync(mid, create + '\n---\n' + readyz);
    for (const f of [first, mid]) {
      const r = kexp(['audit', f]);
      assert.equal(r.code, 0, r.stderr);
      assert.doesNotMatch(r.stderr, /methodName/);
      assert.match(r.stdout, /\(audit-yaml, gke, levels [A-Za-z/]+\):\s+2\s+lines:\s+1\s+relevant,\s+1\s+not\s+relevant,\s+0\s+malformed/);
    }
  });
});

describe('coverage adds up: every unit counted exactly once', () => {
  const fixtures = readdirSync(fx('.')).filter((f) => !f.endsWith('.ts') && statSync(fx(f)).isFile() && f !== 'not-audit');
  const real: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d)) {
      const p = join(d, e);
      if (statSync(p).isDirectory()) walk(p);
      else if (!e.endsWith('.md')) real.push(p);
    }
  };
  if (existsSync(REALDATA)) walk(REALDATA);

  for (const f of [...fixtures.map((x) => fx(x)), ...real]) {
    const name = f.startsWith(REALDATA) ? `realdata/${relative(REALDATA, f)}` : relative(fx('.'), f);
    it(`${name}: linesRead = relevant + not relevant + malformed + incomplete + blank + too long + surrounding text`, async () => {
      for (const prefilter of [true, false]) {
        let c;
        try {
          c = await collect(f, { prefilter });
        } catch (e) {
          assert.ok(e instanceof InputError, String(e));
          return; // rejected as a whole (not an audit log): nothing to account for
        }
        const s = c.source.summary();
        assert.equal(accountTotal(s.lineAccount), s.linesRead, `${name} prefilter ${prefilter}: ${JSON.stringify(s.lineAccount)} vs ${s.linesRead}`);
        assert.equal(s.lineAccount.malformed, s.malformedLines);
        assert.equal(s.lineAccount.incomplete <= s.incomplete.count, true);
        // Lines mode: every physical line of the file is a unit.
        if (!/\.(json|yaml)$/.test(f)) {
          const text = readFileSync(f, 'utf8');
          const physical = text.length === 0 ? 0 : text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
          assert.equal(s.linesRead, physical, name);
        }
        // Records were read: a time range and (where the wrapper says it) levels are known.
        if (s.auditRecords > 0) {
          assert.ok(s.start !== undefined && s.end !== undefined, `${name}: time range`);
        }
      }
    });
  }

  it('a RequestResponse YAML event that is not relevant still shows its level (khi test-log.yaml)', { skip: !existsSync(REALDATA) }, async () => {
    const c = await collect(join(REALDATA, 'khi-gke/test-log.yaml'));
    const s = c.source.summary();
    assert.deepEqual(s.levels, ['RequestResponse']);
    assert.deepEqual(s.relevantLevels, []);
    assert.deepEqual(s.lineAccount, { relevant: 0, notRelevant: 1, malformed: 0, incomplete: 0, blank: 0, tooLong: 0, surroundingText: 0 });
  });

  it('v1-requestresponse.log: the never-completed delete is the one incomplete line, its completed stages are relevant', async () => {
    const s = (await collect(fx('v1-requestresponse.log'))).source.summary();
    assert.equal(s.incomplete.count, 1);
    assert.deepEqual(s.lineAccount, { relevant: 20, notRelevant: 4, malformed: 0, incomplete: 1, blank: 0, tooLong: 0, surroundingText: 0 });
  });

  it('text between pretty-printed values is one unit of surrounding text; a blank and a damaged line count once each', async () => {
    const pretty = readFileSync(fx('webhook-eventlist-pretty.json'), 'utf8');
    const f = join(tmp, 'surrounded.json');
    writeFileSync(f, pretty + 'some console text\nmore of it\n' + pretty);
    const c = await collect(f);
    const s = c.source.summary();
    assert.deepEqual(s.lineAccount, { relevant: 2, notRelevant: 0, malformed: 0, incomplete: 0, blank: 0, tooLong: 0, surroundingText: 1 });
    assert.equal(s.linesRead, 3);
    const g = join(tmp, 'blank.log');
    const lines = readFileSync(fx('v1-metadata.log'), 'utf8').split('\n');
    writeFileSync(g, [lines[0], '', lines[1], '{"kind":"Event"'].join('\n'));
    const b = (await collect(g)).source.summary();
    assert.equal(b.linesRead, 4);
    assert.equal(b.lineAccount.blank, 1);
    assert.equal(b.lineAccount.malformed, 1);
    assert.equal(accountTotal(b.lineAccount), 4);
  });
});

describe('--rs on a ReplicaSet known only from its pod writes', () => {
  it('reports the writes and says the object is missing (exit 0, not 8)', { skip: !existsSync(REALDATA) }, () => {
    const f = join(REALDATA, 'khi-gke/container_recorder_test_1_1.yaml');
    const r = kexp(['audit', f, '--rs', '1-2-deployment-update/nginx-deployment-surge-8655b4b8c5']);
    assert.equal(r.code, 0, r.stderr);
    assert.doesNotMatch(r.stderr, /does not appear/);
    assert.match(r.stderr, /ReplicaSet 1-2-deployment-update\/nginx-deployment-surge-8655b4b8c5: its object is missing from the input .* 1 create\(s\) and 0 delete\(s\)/);
    assert.match(r.stdout, /^1-2-deployment-update\/nginx-deployment-surge-8655b4b8c5 +1 +0 +0 +0 +01:00:00\.000 +01:00:00\.000$/m);
    const j = kexp(['audit', f, '--rs', '1-2-deployment-update/nginx-deployment-surge-8655b4b8c5', '-o', 'json']);
    assert.equal(j.code, 0);
    const rep = JSON.parse(j.stdout);
    assert.deepEqual(rep.coverage.controllerWrites.map((w: { replicaSet: string; creates: number; inReport: boolean }) => [w.replicaSet, w.creates, w.inReport]), [
      ['1-2-deployment-update/nginx-deployment-surge-8655b4b8c5', 1, false],
    ]);
    // Another name is still not found.
    const other = kexp(['audit', f, '--rs', '1-2-deployment-update/other']);
    assert.equal(other.code, 8);
    assert.match(other.stderr, /does not appear/);
  });
});
