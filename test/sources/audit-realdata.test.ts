/**
 * Every file under /work/shared/realdata (real audit logs written by other projects; see its
 * PROVENANCE.md) must either be read — with the exact outcome below — or be rejected with a
 * clear reason. The files are used in place, never copied into the repository.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, it } from 'node:test';
import { InputError } from '../../src/sources/source.js';
import { collect } from '../fixtures/audit/helpers.js';

const REALDATA = process.env.KEXP_REALDATA ?? join(process.cwd(), '..', 'shared', 'realdata');
const present = existsSync(REALDATA);

interface Parses {
  parses: true;
  format: string;
  apiVersions: string[];
  lines: number;
  skipped: number;
  writes: string[];
  observed: string[];
  rsControllerWrites: number;
  start: string;
  end: string;
  /** Records read and found not relevant (default 0). */
  notRelevant?: number;
  /** Owner of the pod write, for the RS-controller creates. */
  owner?: string;
  podName?: string;
}
interface Rejected {
  parses: false;
  reason: RegExp;
}

const falcoPod = (owner: string, podName: string, ns: string, start: string, end: string): Parses => ({
  parses: true,
  format: 'audit-log',
  apiVersions: ['audit.k8s.io/v1beta1'],
  lines: 1,
  skipped: 0,
  writes: [`create pods ${ns} 201`],
  observed: ['Pod ADDED'],
  rsControllerWrites: 1,
  start,
  end,
  owner,
  podName,
});

const khiKubeletPatch: Parses = {
  parses: true,
  format: 'audit-yaml',
  apiVersions: ['gke'],
  lines: 1,
  skipped: 0,
  writes: ['patch pods 1-2-deployment-update 200'],
  observed: [],
  rsControllerWrites: 0,
  start: '2024-01-01T01:00:00.000Z',
  end: '2024-01-01T01:00:00.000Z',
};

const EXPECTED: Record<string, Parses | Rejected> = {
  'khi-gke/container_recorder_test_1_1.yaml': {
    parses: true,
    format: 'audit-yaml',
    apiVersions: ['gke'],
    lines: 1,
    skipped: 0,
    writes: ['create pods 1-2-deployment-update 201'],
    observed: ['Pod ADDED'],
    rsControllerWrites: 1,
    start: '2024-01-01T01:00:00.000Z',
    end: '2024-01-01T01:00:00.000Z',
    owner: 'ReplicaSet/nginx-deployment-surge-8655b4b8c5',
    podName: 'nginx-deployment-surge-8655b4b8c5-xf5f4',
  },
  // The kubelet's status patches of that pod (Request level: no bodies, nothing observed).
  'khi-gke/container_recorder_test_1_2.yaml': khiKubeletPatch,
  'khi-gke/container_recorder_test_1_3.yaml': khiKubeletPatch,
  'khi-gke/test-log.yaml': {
    parses: true,
    format: 'audit-yaml',
    apiVersions: ['audit.k8s.io/v1'],
    lines: 1,
    skipped: 0,
    notRelevant: 1, // a kube-scheduler Lease update: read, and counted as not relevant
    writes: [],
    observed: [],
    rsControllerWrites: 0,
    start: '2025-04-01T13:33:59.457Z',
    end: '2025-04-01T13:33:59.457Z',
  },
  // A real OpenShift must-gather (openshift/must-gather-clean test files): object dumps and a KCM log,
  // none of them an audit log. The audit reader refuses each with the command that reads it;
  // test/sources/must-gather-realdata.test.ts checks what `kexp replay` and `kexp kcm-log` make of them.
  'openshift-must-gather-aws/NOTICE': { parses: false, reason: /NOTICE:1: not an audit log: the first line is neither JSON nor YAML/ },
  'openshift-must-gather-aws/kube-controller-manager/current.log': {
    parses: false,
    // The audit source refuses it; `kexp audit` on it names `kexp kcm-log` (the pipeline sniffs KCM logs).
    reason: /current\.log:1: not an audit log: the first line is neither JSON nor YAML/,
  },
  'openshift-must-gather-aws/namespaces/openshift-console/apps/replicasets.yaml': {
    parses: false,
    reason: /replicasets\.yaml:2: this is a Kubernetes object dump \(apps\/v1 ReplicaSetList\), not an apiserver audit log; read it with `kexp replay`/,
  },
  'openshift-must-gather-aws/namespaces/openshift-console/core/events.yaml': {
    parses: false,
    reason: /events\.yaml:2: this is a Kubernetes object dump \(v1 EventList\), not an apiserver audit log/,
  },
  'openshift-must-gather-aws/namespaces/openshift-console/core/pods.yaml': {
    parses: false,
    reason: /pods\.yaml:2: this is a Kubernetes object dump \(v1 PodList\), not an apiserver audit log/,
  },
  'PROVENANCE.md': { parses: false, reason: /PROVENANCE\.md:3: not an audit log: neither JSON nor valid YAML/ },
  'audit2rbac-v1/demo.log': {
    parses: true,
    format: 'audit-log',
    apiVersions: [],
    lines: 37,
    skipped: 37, // only reads (get/list): no ReplicaSet activity
    writes: [],
    observed: [],
    rsControllerWrites: 0,
    start: '2017-09-11T19:55:05.000Z',
    end: '2017-09-11T20:29:04.000Z',
  },
  'audit2rbac-v1beta1/demo.log': {
    parses: true,
    format: 'audit-log',
    apiVersions: [],
    lines: 757,
    skipped: 757, // RBAC objects and reads: no ReplicaSet activity
    writes: [],
    observed: [],
    rsControllerWrites: 0,
    start: '2017-09-11T19:55:05.000Z',
    end: '2017-09-11T20:29:04.000Z',
  },
  'falco-k8s-audit/create_deployment.json': {
    parses: true,
    format: 'audit-log',
    apiVersions: ['audit.k8s.io/v1beta1'], // written without apiVersion; v1beta1 `timestamp` present
    lines: 1,
    skipped: 0,
    writes: ['create deployments default 201'],
    observed: [],
    rsControllerWrites: 0,
    start: '2018-10-26T13:07:36.911Z',
    end: '2018-10-26T13:07:36.911Z',
  },
  'falco-k8s-audit/delete_deployment.json': {
    parses: true,
    format: 'audit-log',
    apiVersions: ['audit.k8s.io/v1beta1'],
    lines: 1,
    skipped: 0,
    writes: ['delete deployments default 200'],
    observed: [],
    rsControllerWrites: 0,
    start: '2018-10-26T13:09:27.548Z',
    end: '2018-10-26T13:09:27.548Z',
  },
  'falco-k8s-audit/create_nginx_pod_nohostnetwork.json': falcoPod(
    'ReplicaSet/nginx-deployment-7998647bdf',
    'nginx-deployment-7998647bdf-4j7t7',
    'default',
    '2018-10-26T09:13:36.445Z',
    '2018-10-26T09:13:36.445Z',
  ),
  'falco-k8s-audit/create_nginx_pod_privileged.json': falcoPod(
    'ReplicaSet/nginx-deployment-5cdcc99dbf',
    'nginx-deployment-5cdcc99dbf-rgw6z',
    'default',
    '2018-10-25T14:09:12.581Z',
    '2018-10-25T14:09:12.581Z',
  ),
  'falco-k8s-audit/create_nginx_pod_unprivileged.json': falcoPod(
    'ReplicaSet/nginx-deployment-78f5d695bd',
    'nginx-deployment-78f5d695bd-nxqz5',
    'default',
    '2018-10-25T14:09:49.761Z',
    '2018-10-25T14:09:49.761Z',
  ),
  'falco-k8s-audit/create_pod_kube_system_namespace.json': falcoPod(
    'ReplicaSet/nginx-deployment-7998647bdf',
    'nginx-deployment-7998647bdf-7q2sp',
    'kube-system',
    '2018-10-26T13:47:20.367Z',
    '2018-10-26T13:47:20.367Z',
  ),
  'falco-k8s-audit/create_service_account_token_secret.json': {
    parses: true,
    format: 'audit-log',
    apiVersions: [],
    lines: 1,
    skipped: 1, // a secret create by the tokens controller
    writes: [],
    observed: [],
    rsControllerWrites: 0,
    start: '2020-04-21T17:32:29.942Z',
    end: '2020-04-21T17:32:29.942Z',
  },
};

function walk(d: string): string[] {
  return readdirSync(d).flatMap((n) => {
    const p = join(d, n);
    return statSync(p).isDirectory() ? walk(p) : [p];
  });
}

const iso = (ms: number | undefined) => (ms === undefined ? undefined : new Date(Math.floor(ms)).toISOString());

describe('real audit files (/work/shared/realdata)', { skip: present ? false : `realdata directory not found at ${REALDATA} (set KEXP_REALDATA)` }, () => {
  const files = present ? walk(REALDATA).map((p) => relative(REALDATA, p)).sort() : [];

  it('every file has an expected outcome', () => {
    assert.deepEqual(files, Object.keys(EXPECTED).sort());
  });

  for (const name of files) {
    const exp = EXPECTED[name];
    it(`${name}: ${exp?.parses ? 'parses' : 'is rejected'}`, async () => {
      assert.ok(exp, `no expectation for ${name}`);
      const path = join(REALDATA, name);
      if (!exp.parses) {
        await assert.rejects(collect(path), (e: unknown) => {
          assert.ok(e instanceof InputError, String(e));
          assert.match(e.message, exp.reason);
          return true;
        });
        return;
      }
      const r = await collect(path);
      const s = r.source.summary();
      assert.deepEqual(r.problems, []);
      assert.equal(s.format, exp.format);
      assert.deepEqual(s.apiVersions, exp.apiVersions);
      assert.equal(s.linesRead, exp.lines);
      assert.equal(s.linesSkippedByPrefilter, exp.skipped);
      assert.equal(s.skipped['not-relevant'] ?? 0, exp.notRelevant ?? 0);
      assert.deepEqual(
        r.writes.map((w) => `${w.verb} ${w.resource} ${w.namespace} ${w.status.code}`),
        exp.writes,
      );
      assert.deepEqual(
        r.observed.map((o) => `${o.kind} ${o.watchType}`),
        exp.observed,
      );
      assert.equal(s.rsControllerWrites, exp.rsControllerWrites);
      assert.equal(iso(s.start), exp.start);
      assert.equal(iso(s.end), exp.end);
      assert.equal(s.incomplete.count, 0);
      if (exp.owner) {
        const w = r.writes[0]!;
        assert.equal(w.actor.name, 'replicaset-controller');
        assert.equal(w.owner?.state, 'owned');
        assert.equal(w.owner?.state === 'owned' ? `${w.owner.kind}/${w.owner.name}` : '', exp.owner);
        assert.equal(w.owner?.state === 'owned' ? w.owner.basis : '', 'response');
        assert.equal(w.name, exp.podName);
        assert.equal(w.level, 'RequestResponse');
      }
    });
  }

  it('audit2rbac-v1beta1 without the prefilter: every record parsed, paired stages, nothing incomplete', async () => {
    if (!present) return;
    const r = await collect(join(REALDATA, 'audit2rbac-v1beta1/demo.log'), { prefilter: false });
    const s = r.source.summary();
    assert.equal(s.auditRecords, 757);
    assert.deepEqual(s.stages, { ResponseComplete: 437, RequestReceived: 320 });
    // Every record was decoded (Metadata level); none of them is relevant.
    assert.deepEqual(s.levels, ['Metadata']);
    assert.deepEqual(s.relevantLevels, []);
    assert.equal(r.events.length, 0);
    assert.equal(s.incomplete.count, 0);
    assert.deepEqual(r.warnings, []);
  });
});
