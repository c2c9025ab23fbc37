/**
 * The audit reader's parts on their own: the byte prefilter (prefilter.ts) and its agreement
 * with the relevance table (relevance.ts), the watch outcome of a write (watch-outcome.ts), and
 * sniffing (sniff.ts: mode, format, first time, and what a foreign input is called).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { anchorOf, NeedleScanner } from '../../src/sources/audit/line-filter.js';
import { InputReader } from '../../src/sources/audit/line-reader.js';
import { auditLineFilter, innerFilter, mentionsDaemonSet, mentionsJob, mentionsReplicaSet } from '../../src/sources/audit/prefilter.js';
import type { AuditRecord } from '../../src/sources/audit/record.js';
import { eventIsAboutOwner, jobWriteIsRelevant, RESOURCE_NAMES, WRITE_VERBS } from '../../src/sources/audit/relevance.js';
import { sniff } from '../../src/sources/audit/sniff.js';
import { deleteOutcome, finishedDeletion, isStatus, kindMatches } from '../../src/sources/audit/watch-outcome.js';
import { InputError } from '../../src/sources/source.js';

const tmp = mkdtempSync(join(tmpdir(), 'kexp-audit-parts-'));

/** Runs a line filter on one line (with bytes around it, as in a chunk). */
function passes(filter: (buf: Buffer, start: number, end: number) => boolean, line: string): boolean {
  const buf = Buffer.from(`{}\n${line}\n{}`);
  return filter(buf, 3, 3 + Buffer.byteLength(line));
}

/** The apiserver's own field order (the prefilter's fast path). */
const native = (verb: string, resource: string, extra = '') =>
  `{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Metadata","auditID":"a","stage":"ResponseComplete","requestURI":"/x","verb":"${verb}","user":{"username":"u"},"objectRef":{"resource":"${resource}","namespace":"ns"${extra}},"responseStatus":{"code":200},"stageTimestamp":"2025-03-04T10:15:02.131977Z"}`;

describe('prefilter: auditLineFilter on the log backend', () => {
  const f = auditLineFilter(false, false, true);

  it('writes to relevant resources pass; reads and other resources are skipped', () => {
    for (const r of RESOURCE_NAMES) if (r !== 'events' && r !== 'replicationcontrollers' && r !== 'nodes' && r !== 'daemonsets' && r !== 'jobs') assert.equal(passes(f, native('create', r)), true, r);
    for (const v of WRITE_VERBS) assert.equal(passes(f, native(v, 'pods')), true, v);
    assert.equal(passes(f, native('get', 'pods')), false);
    assert.equal(passes(f, native('update', 'leases')), false);
  });

  it('writes to replicationcontrollers pass with an object body or by the RC controller; a body-less sweep is skipped', () => {
    assert.equal(passes(f, native('deletecollection', 'replicationcontrollers')), false);
    assert.equal(passes(f, native('create', 'replicationcontrollers').replace('"responseStatus"', '"responseObject":{"kind":"ReplicationController"},"responseStatus"')), true);
    assert.equal(passes(f, native('update', 'replicationcontrollers').replace('"username":"u"', '"username":"system:serviceaccount:kube-system:replication-controller"')), true);
  });

  it('writes to jobs pass with an object body or by the Job controller; a body-less sweep or a CronJob controller\'s delete is skipped', () => {
    assert.equal(passes(f, native('deletecollection', 'jobs')), false);
    assert.equal(passes(f, native('delete', 'jobs').replace('"username":"u"', '"username":"system:serviceaccount:kube-system:cronjob-controller"')), true); // the needle lets it through…
    assert.equal(jobWriteIsRelevant({ line: 1, origin: 'log', apiVersion: 'audit.k8s.io/v1', stage: 'ResponseComplete', verb: 'delete', user: { username: 'system:serviceaccount:kube-system:cronjob-controller' } }), false); // …the semantic check drops it
    assert.equal(passes(f, native('create', 'jobs').replace('"responseStatus"', '"responseObject":{"kind":"Job"},"responseStatus"')), true);
    assert.equal(passes(f, native('patch', 'jobs').replace('"responseStatus"', '"requestObject":{"spec":{"suspend":true}},"responseStatus"')), true);
    assert.equal(passes(f, native('update', 'jobs', ',"subresource":"status"').replace('"username":"u"', '"username":"system:serviceaccount:kube-system:job-controller"')), true);
    assert.equal(passes(f, native('update', 'jobs', ',"subresource":"status"').replace('"username":"u"', '"username":"system:kube-controller-manager","userAgent":"kube-controller-manager/v1.37.2 (linux/amd64) kubernetes/abc1234/job-controller"')), true);
    // Inside a JSON-encoded string (Loki's line): the body keys are escaped.
    const esc = auditLineFilter(true, false, true);
    assert.equal(passes(esc, JSON.stringify({ line: native('deletecollection', 'jobs') })), false);
    assert.equal(passes(esc, JSON.stringify({ line: native('create', 'jobs').replace('"responseStatus"', '"responseObject":{"kind":"Job"},"responseStatus"') })), true);
    assert.equal(innerFilter(false)(native('update', 'jobs', ',"subresource":"status"')), true);
  });

  it('inside an envelope\'s JSON-encoded string (Loki: one a line; EKS: several), a replicationcontrollers or daemonsets write with a body and an Event about a DaemonSet pass as they do in a plain log', () => {
    const loki = auditLineFilter(true, false, true);
    const withBody = (r: string, kind: string) => native('create', r).replace('"responseStatus"', `"responseObject":{"kind":"${kind}"},"responseStatus"`);
    assert.equal(passes(loki, JSON.stringify({ line: withBody('replicationcontrollers', 'ReplicationController') })), true);
    assert.equal(passes(loki, JSON.stringify({ line: withBody('daemonsets', 'DaemonSet') })), true);
    assert.equal(passes(loki, JSON.stringify({ line: native('deletecollection', 'daemonsets') })), false);
    const aboutDs = native('create', 'events').replace('"responseStatus"', '"requestObject":{"involvedObject":{"kind":"DaemonSet","name":"agent"}},"responseStatus"');
    assert.equal(passes(loki, JSON.stringify({ line: aboutDs })), true);
    assert.equal(passes(auditLineFilter(true, false, false), JSON.stringify({ message: aboutDs })), true);
  });

  it('writes to nodes pass only with a response body: the kubelets\' body-less status heartbeats are skipped', () => {
    assert.equal(passes(f, native('patch', 'nodes', ',"subresource":"status"')), false);
    assert.equal(passes(f, native('patch', 'nodes', ',"subresource":"status"').replace('"responseStatus"', '"requestObject":{"status":{}},"responseStatus"')), false);
    assert.equal(passes(f, native('patch', 'nodes').replace('"responseStatus"', '"responseObject":{"kind":"Node"},"responseStatus"')), true);
    // daemonsets as replicationcontrollers: with a body or by their controller; the namespace controller's body-less sweep is skipped.
    assert.equal(passes(f, native('deletecollection', 'daemonsets')), false);
    assert.equal(passes(f, native('create', 'daemonsets').replace('"responseStatus"', '"responseObject":{"kind":"DaemonSet"},"responseStatus"')), true);
    assert.equal(passes(f, native('update', 'daemonsets').replace('"username":"u"', '"username":"system:serviceaccount:kube-system:daemon-set-controller"')), true);
    const esc = auditLineFilter(true, false, true);
    assert.equal(passes(esc, JSON.stringify({ line: native('patch', 'nodes') })), false);
    assert.equal(passes(esc, JSON.stringify({ line: native('patch', 'nodes').replace('"responseStatus"', '"responseObject":{"kind":"Node"},"responseStatus"') })), true);
    assert.equal(innerFilter(false)(native('patch', 'nodes')), false);
    assert.equal(innerFilter(false)(native('patch', 'nodes').replace('"responseStatus"', '"responseObject":{},"responseStatus"')), true);
  });

  it('Events only when they mention a ReplicaSet or a DaemonSet (unless allEvents)', () => {
    assert.equal(passes(f, native('create', 'events')), false);
    assert.equal(passes(f, native('create', 'events', ',"name":"web.ReplicaSet"')), true);
    assert.equal(passes(f, native('create', 'events').replace('"responseStatus"', '"requestObject":{"involvedObject":{"kind":"DaemonSet","name":"agent"}},"responseStatus"')), true);
    assert.equal(passes(f, native('create', 'events').replace('"username":"u"', '"username":"system:serviceaccount:kube-system:daemon-set-controller"')), true);
    // A message that names a DaemonSet is not an Event about one (its quote is escaped).
    assert.equal(passes(f, native('create', 'events').replace('"responseStatus"', '"requestObject":{"message":"the \\"DaemonSet\\" daemon"},"responseStatus"')), false);
    assert.equal(innerFilter(false)(native('create', 'events', ',"name":"agent.DaemonSet"')), true);
    assert.equal(passes(auditLineFilter(false, true, true), native('create', 'events')), true);
  });

  it('Events about a Job or by the Job controller pass; a CronJob\'s, the CronJob controller\'s and a message naming a Job do not', () => {
    const about = (kind: string) => native('create', 'events').replace('"responseStatus"', `"requestObject":{"involvedObject":{"kind":"${kind}","name":"work"}},"responseStatus"`);
    const by = (user: string) => native('create', 'events').replace('"username":"u"', `"username":"${user}"`);
    assert.equal(passes(f, about('Job')), true);
    assert.equal(passes(f, about('CronJob')), false);
    assert.equal(passes(f, by('system:serviceaccount:kube-system:job-controller')), true);
    assert.equal(passes(f, by('system:serviceaccount:kube-system:cronjob-controller')), false);
    assert.equal(passes(f, native('create', 'events').replace('"responseStatus"', '"requestObject":{"reason":"Completed","message":"Job completed"},"responseStatus"')), false);
    // EKS (several records a line, escaped) and Loki (one a line, escaped): the same Event inside a string.
    assert.equal(passes(auditLineFilter(true, false, false), JSON.stringify({ message: about('Job') })), true);
    assert.equal(passes(auditLineFilter(true, false, true), JSON.stringify({ line: about('Job') })), true);
    assert.equal(passes(auditLineFilter(true, false, true), JSON.stringify({ line: about('CronJob') })), false);
    assert.equal(innerFilter(false)(about('Job')), true);
    assert.equal(innerFilter(false)(by('system:serviceaccount:kube-system:job-controller')), true);
  });

  it('anything that is not what the format should hold goes to the parser, which reports it', () => {
    assert.equal(passes(f, 'not json'), true);
    assert.equal(passes(f, native('create', 'pods').slice(0, 80)), true); // cut short
    // Off the apiserver's field order and without a stage: not recognisably an audit event.
    assert.equal(passes(f, '{"kind":"Event","apiVersion":"audit.k8s.io/v1","verb":"get","objectRef":{"name":"x","resource":"leases"}}'), true);
    // On the apiserver's field order, the objectRef's resource decides alone.
    assert.equal(passes(f, '{"kind":"Event","apiVersion":"audit.k8s.io/v1","verb":"update","objectRef":{"resource":"leases"}}'), false);
    assert.equal(passes(f, '{"kind":"Event","apiVersion":"audit.k8s.io/v1","stage":"ResponseComplete","verb":"create"}'), true); // write without objectRef
  });

  it('escaped: the audit fields inside a JSON string', () => {
    const esc = auditLineFilter(true, false, false);
    assert.equal(passes(esc, JSON.stringify({ message: native('create', 'pods') })), true);
    assert.equal(passes(esc, JSON.stringify({ message: native('update', 'leases') })), false);
  });

  it('innerFilter: the same decision on a wrapped event text; mentionsReplicaSet on bytes', () => {
    assert.equal(innerFilter(false)(native('patch', 'replicasets')), true);
    assert.equal(innerFilter(false)(native('get', 'pods')), false);
    assert.equal(innerFilter(false)(native('create', 'events')), false);
    assert.equal(innerFilter(true)(native('create', 'events')), true);
    const b = Buffer.from('xx "kind":"ReplicaSet" yy replicaset zz eplicaSetX');
    assert.equal(mentionsReplicaSet(b, 0, 10), false);
    assert.equal(mentionsReplicaSet(b, 0, 25), true);
    assert.equal(mentionsReplicaSet(b, 26, b.length), true);
    assert.equal(mentionsReplicaSet(Buffer.from('eplicaSet'), 0, 9), false);
    const d = Buffer.from('"kind":"DaemonSet" daemon-set-controller DaemonSets daemon-sets');
    assert.equal(mentionsDaemonSet(d, 0, 18), true);
    assert.equal(mentionsDaemonSet(d, 19, 40), true);
    assert.equal(mentionsDaemonSet(d, 41, d.length), false);
    assert.equal(mentionsDaemonSet(Buffer.from('aemonSet"'), 0, 9), false);
    const de = Buffer.from('\\"kind\\":\\"DaemonSet\\" \\"DaemonSet\\\\\\"');
    assert.equal(mentionsDaemonSet(de, 0, 24, true), true, 'the kind inside an envelope\'s JSON-encoded string');
    assert.equal(mentionsDaemonSet(de, 0, 24), false);
    assert.equal(mentionsDaemonSet(de, 25, de.length, true), false, 'a quoted DaemonSet inside a message inside an envelope\'s string');
    const j = Buffer.from('"kind":"Job" :job-controller \\"Job\\" "CronJob" cronjob-controller "Jobs" Job"');
    assert.equal(mentionsJob(j, 0, 12), true);
    assert.equal(mentionsJob(j, 13, 28), true);
    assert.equal(mentionsJob(j, 29, 38), false, 'a quoted Job inside a message');
    assert.equal(mentionsJob(j, 29, 38, true), true, 'the kind inside an envelope\'s JSON-encoded string');
    assert.equal(mentionsJob(Buffer.from('\\"Job\\\\\\"'), 0, 10, true), false, 'a quoted Job inside a message inside an envelope\'s string');
    assert.equal(mentionsJob(j, 39, j.length), false);
    assert.equal(mentionsJob(Buffer.from('Job"'), 0, 4), false);
  });
});

describe('NeedleScanner: the search from the needle\'s rarest byte', () => {
  it('anchors on a rare byte, never on the leading quote of a key', () => {
    assert.equal(anchorOf(Buffer.from('"verb"')), 1);
    assert.equal(anchorOf(Buffer.from('"objectRef":{"resource":"')), 3);
    assert.equal(anchorOf(Buffer.from('"responseObject"')), 9);
    assert.equal(anchorOf(Buffer.from('Job')), 0);
    assert.equal(anchorOf(Buffer.from('"')), 0);
  });

  it('finds what a search bounded to each line finds, line after line (random text with near misses)', () => {
    const needles = ['"responseObject"', '"requestObject"', '"verb"', '"objectRef":{"resource":"', 'eplica', 'aemon', '"items":[', 'Job', 'xObjec'];
    // Pieces that make near misses: the tail after the anchor without its head, heads without tails, overlaps.
    const pieces = ['"', 'Object"', 'questObject"', 'sponseObject"', '"respons', '"responseObject"', '"requestObject"', 'erb"', '"verb"', '"v', 'jectRef":{"resource":"', '"ob', '"objectRef":{"resource":"',
      'plica', 'eplica', 'mon', 'aemon', 'ae', '[', '"items":', '"items":[', 'Job', 'ob', 'x', 'e', ':', '\n',
      // Each needle with one byte before its anchor changed: the tail matches, the head does not.
      ...needles.flatMap((n) => Array.from({ length: anchorOf(Buffer.from(n)) }, (_, k) => `${n.slice(0, k)}#${n.slice(k + 1)}`))];
    let seed = 7;
    const rnd = (n: number) => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % n;
    };
    for (let round = 0; round < 200; round++) {
      let text = '';
      while (text.length < 600) text += rnd(4) === 0 ? '\n' : pieces[rnd(pieces.length)]!;
      const buf = Buffer.from(text);
      const starts = [0];
      for (let i = buf.indexOf(10); i >= 0; i = buf.indexOf(10, i + 1)) starts.push(i + 1);
      for (const n of needles) {
        const needle = Buffer.from(n);
        const scanner = new NeedleScanner(needle);
        for (let l = 0; l < starts.length; l++) {
          const start = starts[l]!;
          const end = l + 1 < starts.length ? starts[l + 1]! - 1 : buf.length;
          const inLine = buf.subarray(start, end).indexOf(needle);
          assert.equal(scanner.find(buf, start, end), inLine < 0 ? -1 : start + inLine, `${n} in line ${l} of round ${round}`);
          assert.equal(scanner.indexIn(buf, start), buf.indexOf(needle, start), `${n} from ${start} of round ${round}`);
        }
      }
    }
  });
});

describe('relevance: eventIsAboutOwner', () => {
  const rec = (o: Partial<AuditRecord>): AuditRecord => ({ line: 1, origin: 'log', apiVersion: 'audit.k8s.io/v1', stage: 'ResponseComplete', verb: 'create', user: { username: 'system:node:n' }, ...o });

  it('made by the ReplicaSet controller, or about a ReplicaSet (core involvedObject or events.k8s.io regarding)', () => {
    assert.equal(eventIsAboutOwner(rec({ user: { username: 'system:serviceaccount:kube-system:replicaset-controller' } })), true);
    assert.equal(eventIsAboutOwner(rec({ requestObject: { involvedObject: { kind: 'ReplicaSet' } } })), true);
    assert.equal(eventIsAboutOwner(rec({ responseObject: { regarding: { kind: 'ReplicaSet' } } })), true);
    assert.equal(eventIsAboutOwner(rec({ requestObject: { involvedObject: { kind: 'Pod' } } })), false);
  });

  it('made by the DaemonSet controller, or about a DaemonSet', () => {
    assert.equal(eventIsAboutOwner(rec({ user: { username: 'system:serviceaccount:kube-system:daemon-set-controller' } })), true);
    assert.equal(eventIsAboutOwner(rec({ user: { username: 'system:kube-controller-manager' }, userAgent: 'kube-controller-manager/v1.37.2 (linux/amd64) kubernetes/abc1234/daemon-set-controller' })), true);
    assert.equal(eventIsAboutOwner(rec({ requestObject: { involvedObject: { kind: 'DaemonSet' } } })), true);
    assert.equal(eventIsAboutOwner(rec({ requestObject: { involvedObject: { kind: 'CronJob' } } })), false);
  });

  it('made by the Job controller, or about a Job', () => {
    assert.equal(eventIsAboutOwner(rec({ user: { username: 'system:serviceaccount:kube-system:job-controller' } })), true);
    assert.equal(eventIsAboutOwner(rec({ user: { username: 'system:kube-controller-manager' }, userAgent: 'kube-controller-manager/v1.37.2 (linux/amd64) kubernetes/abc1234/job-controller' })), true);
    assert.equal(eventIsAboutOwner(rec({ requestObject: { involvedObject: { kind: 'Job' } } })), true);
    assert.equal(eventIsAboutOwner(rec({ responseObject: { regarding: { kind: 'Job' } } })), true);
    assert.equal(eventIsAboutOwner(rec({ user: { username: 'system:serviceaccount:kube-system:cronjob-controller' }, requestObject: { involvedObject: { kind: 'CronJob' } } })), false);
  });
});

describe('watch outcome of a write', () => {
  const pod = (meta: object, o: object = {}) => ({ kind: 'Pod', metadata: { name: 'p', ...meta }, ...o });

  it('delete: DELETED for the final state, MODIFIED while it lives on', () => {
    assert.equal(deleteOutcome(pod({}), 200, 'Pod'), 'DELETED');
    assert.equal(deleteOutcome(pod({ deletionTimestamp: 't', deletionGracePeriodSeconds: 30 }), 200, 'Pod'), 'MODIFIED');
    assert.equal(deleteOutcome(pod({ deletionTimestamp: 't', deletionGracePeriodSeconds: 0 }), 200, 'Pod'), 'DELETED');
    assert.equal(deleteOutcome(pod({ finalizers: ['f'] }), 200, 'Pod'), 'MODIFIED');
    assert.equal(deleteOutcome(pod({}), 202, 'Pod'), 'MODIFIED');
    assert.equal(deleteOutcome({ kind: 'Namespace', metadata: {}, spec: { finalizers: ['kubernetes'] } }, 200, 'Namespace'), 'MODIFIED');
    assert.equal(deleteOutcome(pod({}), 200, 'ReplicaSet'), undefined);
    assert.equal(deleteOutcome({ kind: 'Status' }, 200, 'Pod'), undefined);
  });

  it('an update that finishes a deletion; Status and kind checks', () => {
    assert.equal(finishedDeletion(pod({ deletionTimestamp: 't', deletionGracePeriodSeconds: 0 }), 'Pod'), true);
    assert.equal(finishedDeletion(pod({ deletionTimestamp: 't', deletionGracePeriodSeconds: 30 }), 'Pod'), false);
    assert.equal(finishedDeletion({ metadata: { deletionTimestamp: 't' } }, 'ReplicaSet'), true);
    assert.equal(finishedDeletion({ metadata: { deletionTimestamp: 't', finalizers: ['f'] } }, 'ReplicaSet'), false);
    assert.equal(finishedDeletion({ metadata: { deletionTimestamp: 't' } }, 'DaemonSet'), true);
    assert.equal(finishedDeletion({ metadata: { deletionTimestamp: 't' } }, 'Node'), true);
    assert.equal(finishedDeletion({ metadata: { deletionTimestamp: 't' } }, 'Job'), true);
    assert.equal(finishedDeletion({ metadata: { deletionTimestamp: 't', finalizers: ['foregroundDeletion'] } }, 'Job'), false);
    assert.equal(isStatus({ kind: 'Status', status: 'Success' }), true);
    assert.equal(isStatus(pod({})), false);
    assert.equal(kindMatches(pod({}), 'Pod'), true);
    assert.equal(kindMatches({ metadata: {} }, 'Pod'), true);
    assert.equal(kindMatches({ kind: 'Scale', metadata: {} }, 'ReplicaSet'), false);
    assert.equal(kindMatches({ kind: 'Pod' }, 'Pod'), false);
  });
});

describe('sniff', () => {
  const sniffed = async (name: string, text: string) => {
    const f = join(tmp, name);
    writeFileSync(f, text);
    const reader = new InputReader(f);
    try {
      return await sniff(reader, f);
    } finally {
      reader.close();
    }
  };
  const line = native('create', 'pods');

  it('JSON lines of the log backend, with the first record time', async () => {
    assert.deepEqual(await sniffed('a.log', `\n\n${line}\n`), { mode: 'lines', format: 'audit-log', apiVersion: 'audit.k8s.io/v1', firstAt: Date.parse('2025-03-04T10:15:02.131Z') + 0.977 });
  });

  it('a line envelope (CloudWatch export lines), a document envelope (Loki), an array (values), YAML', async () => {
    assert.deepEqual(await sniffed('cw.log', `2025-03-04T10:15:02.200Z ${line}\n`), {
      mode: 'lines',
      format: 'cloudwatch-lines',
      apiVersion: 'audit.k8s.io/v1',
      firstAt: Date.parse('2025-03-04T10:15:02.131Z') + 0.977,
    });
    assert.equal((await sniffed('loki.ndjson', `${JSON.stringify({ labels: {}, line })}\n`)).format, 'loki');
    assert.deepEqual(await sniffed('arr.json', `[${line}]\n`), { mode: 'values', format: 'audit-log', apiVersion: 'audit.k8s.io/v1' });
    assert.deepEqual(await sniffed('a.yaml', 'kind: Event\napiVersion: audit.k8s.io/v1\n'), { mode: 'yaml', format: 'audit-yaml' });
  });

  it('foreign inputs are named with the command that reads them, at their line', async () => {
    const rejects = async (name: string, text: string, re: RegExp, atLine: number) =>
      assert.rejects(sniffed(name, text), (e: unknown) => e instanceof InputError && e.line === atLine && re.test(e.message));
    await rejects('cri.log', '\n2025-03-04T10:15:02.1Z stderr F I0304 10:15:02.123456       1 x.go:1] hi\n', /container log \(CRI format\) of a klog component.*kexp kcm-log/, 2);
    await rejects('cri2.log', '2025-03-04T10:15:02.1Z stdout F hello\n', /strip the prefix first/, 1);
    await rejects('klog.log', 'I0304 10:15:02.123456       1 x.go:1] hi\n', /klog text log/, 1);
    await rejects('docker.log', '{"log":"I0304 …\\n","stream":"stderr","time":"2025-03-04T10:15:02Z"}\n', /Docker json-file container log/, 1);
    await rejects('cw-eks.log', `2025-03-04T10:15:02.200Z ${JSON.stringify({ logEvents: [] })}\n`, /CloudWatch Logs export of eks documents, not an apiserver audit log; expected one audit event per line after the time/, 1);
    await rejects('legacy.log', '2025-03-04T10:15:02Z AUDIT: id="x"\n', /legacy text audit format/, 1);
  });
});
