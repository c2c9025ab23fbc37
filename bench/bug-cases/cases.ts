/**
 * The bug cases: every section of ../shared/docs/bug-cases.md, each either out of scope (the
 * DaemonSet and outside-core cases belong to #22) or rebuilt as one or more inputs kexp reads —
 * an audit log or a kexp recording built by test/support/bug-case-inputs.ts with the release
 * the incident happened on, or the real capture in examples/ that *is* the case, read as it is
 * (recording and audit slice) — with the written criteria (./judge.ts) its diagnosis line
 * calls for. The expected verdict and exit code of a run follow the README's exit-code table
 * applied to what the diagnosis says and to how the input ends (a ReplicaSet the input shows
 * deleted has its failures as history). Where a capture has the controller's own record of a
 * fact (its -v=4 log, the fault proxy's log), the criterion reads it from there.
 *
 * Contract: `input(dir)` writes the run's file under `dir` and returns its path; nothing here
 * runs kexp. Cost: building every input takes well under a second.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AuditLogBuilder } from '../../test/support/audit-builder.js';
import * as B from '../../test/support/bug-case-inputs.js';
import * as DS from '../../test/support/daemonset-recording.js';
import type { ReplicaSetReport } from '../../src/analysis/report-types.js';
import { causeNames, custom, findingText, exitCode, finding, noFinding, noInventedRounds, noLeak, noWindowEnded, readCleanly, rounds, verdict, versionSaid, windowEnded, writesAccounted, type Criterion, type FindingSpec } from './judge.js';

export type InputFormat = 'audit' | 'recording';

export interface RunSpec {
  /** e.g. "rebuilt" or "capture informer-lag-over-create". */
  label: string;
  format: InputFormat;
  version: string;
  rsKey: string;
  input: (dir: string) => string;
  expect: { verdict: string[]; exit: number; exitWhy: string };
  criteria: Criterion[];
}

export interface BugCase {
  n: number;
  title: string;
  outOfScope?: string;
  runs: RunSpec[];
}

const EXAMPLES = 'examples';

/**
 * The ReplicaSet controller's pod writes for ReplicaSet `rsName` in an audit log, by kind (what
 * kexp must account for, no more): the owner is the controllerRef of the request (create,
 * adopt) or of the pod in the response (delete), else the pod's generateName prefix.
 */
export function controllerPodWrites(auditFile: string, rsName: string, controller = 'replicaset-controller'): { create: number; delete: number; adopt: number; release: number } {
  const out = { create: 0, delete: 0, adopt: 0, release: 0 };
  for (const line of readFileSync(auditFile, 'utf8').split('\n')) {
    if (!line.includes(controller)) continue;
    const e = JSON.parse(line);
    if (e.user?.username !== `system:serviceaccount:kube-system:${controller}` || e.objectRef?.resource !== 'pods' || e.objectRef?.subresource) continue;
    if (e.stage && e.stage !== 'ResponseComplete') continue;
    // The Job controller's job-tracking finalizer removals are its writes but no claims (no adopt, no release).
    if (e.verb === 'patch' && e.requestObject?.metadata?.['$deleteFromPrimitiveList/finalizers']) continue;
    const ref = (o: any) => (o?.metadata?.ownerReferences ?? []).find((r: { controller?: boolean; $patch?: string }) => r.controller && !r.$patch)?.name as string | undefined;
    const owner = ref(e.requestObject) ?? ref(e.responseObject) ?? (String(e.objectRef?.name ?? '').startsWith(`${rsName}-`) ? rsName : undefined);
    const release = e.verb === 'patch' && (e.requestObject?.metadata?.ownerReferences ?? []).some((r: { $patch?: string }) => r.$patch === 'delete');
    if (owner !== rsName && !release) continue;
    if (e.verb === 'create') out.create++;
    else if (e.verb === 'delete') out.delete++;
    else if (e.verb === 'patch') {
      const refs = e.requestObject?.metadata?.ownerReferences;
      if (Array.isArray(refs) && refs.some((r: { $patch?: string }) => r.$patch === 'delete')) out.release++;
      else out.adopt++;
    }
  }
  return out;
}

/** For a recording of a capture: no more writes (by kind) than the audit slice of the same run shows. */
function noMoreWritesThan(auditFile: string): Criterion {
  return custom('no write claimed beyond the audit log of the same run', (rs) => {
    const truth = controllerPodWrites(auditFile, rs.name);
    const bad = (Object.keys(truth) as Array<keyof typeof truth>).filter((k) => rs.accounting.byKind[k] > truth[k]).map((k) => `${k} ${rs.accounting.byKind[k]} > ${truth[k]}`);
    if (rs.accounting.inRounds + rs.accounting.inFindings !== rs.accounting.writes) bad.push('accounting identity broken');
    return bad.length ? bad.join('; ') : true;
  });
}

function writeAudit(name: string, build: () => AuditLogBuilder) {
  return (dir: string) => build().write(join(dir, `${name}.audit.jsonl`));
}

function writeRecording(name: string, text: () => string) {
  return (dir: string) => {
    const f = join(dir, `${name}.kexp.jsonl`);
    writeFileSync(f, text());
    return f;
  };
}

/**
 * A rebuilt audit-log run: the version, and every controller write accounted (counted from the
 * built log). `build` returns the builder, or the log's text (the DaemonSet and Job writers);
 * `controller`: the service account whose pod writes are the owner's (replicaset-controller).
 */
function rebuiltAudit(name: string, version: string, rsKey: string, build: () => AuditLogBuilder | string, expect: RunSpec['expect'], criteria: Criterion[], controller = 'replicaset-controller'): RunSpec {
  let writes: ReturnType<typeof controllerPodWrites> | undefined;
  const input = (dir: string) => {
    const built = build();
    const f = typeof built === 'string' ? join(dir, `${name}.audit.jsonl`) : built.write(join(dir, `${name}.audit.jsonl`));
    if (typeof built === 'string') writeFileSync(f, built);
    writes = controllerPodWrites(f, rsKey.split('/')[1]!, controller);
    return f;
  };
  const accounted: Criterion = { name: 'every controller write of the log accounted, none invented', check: (r) => writesAccounted(writes!).check(r) };
  return { label: 'rebuilt', format: 'audit', version, rsKey, input, expect, criteria: [readCleanly(), versionSaid(version), accounted, ...criteria] };
}

/** The two runs of a capture: its recording and its audit slice, as they are. */
function capture(name: string, rsName: string, expect: { recording: RunSpec['expect']; audit: RunSpec['expect'] }, criteria: (format: InputFormat) => Criterion[]): RunSpec[] {
  const rsKey = `kexp-${name}/${rsName}`;
  const audit = join(EXAMPLES, 'captures', name, 'audit.jsonl');
  return [
    { label: `capture ${name}`, format: 'recording', version: 'v1.37.2', rsKey, input: () => join(EXAMPLES, `${name}.kexp.jsonl`), expect: expect.recording, criteria: [readCleanly(), noMoreWritesThan(audit), ...criteria('recording')] },
    { label: `capture ${name}`, format: 'audit', version: 'v1.37.2', rsKey, input: () => audit, expect: expect.audit, criteria: [readCleanly(), { name: 'every controller write of the log accounted, none invented', check: (r) => writesAccounted(controllerPodWrites(audit, rsName)).check(r) }, ...criteria('audit')] },
  ];
}

/** "Too few replicas" / "Too many replicas" lines of the controller's own -v=4 log: its rounds. */
function loggedRounds(name: string): number {
  return readFileSync(join(EXAMPLES, 'captures', name, 'kcm.log'), 'utf8').split('\n').filter((l) => /Too (few|many) replicas/.test(l)).length;
}

/** The pod the fault proxy hid the deletion of (faults.jsonl `hide-deletion`). */
function hiddenDeletion(name: string): string {
  for (const l of readFileSync(join(EXAMPLES, 'captures', name, 'faults.jsonl'), 'utf8').split('\n')) {
    if (l.includes('"action":"hide-deletion"')) return JSON.parse(l).name as string;
  }
  throw new Error(`${name}: no hide-deletion in faults.jsonl`);
}

const SHOP = 'shop/web-7d9c6b8f5d';
/** The DaemonSet of the rebuilt DaemonSet cases (test/support/daemonset-recording.ts). */
const DS_KEY = 'kube-system/agent';
const healthy = (exitWhy = 'nothing gated, leaked or failing at the end'): RunSpec['expect'] => ({ verdict: ['healthy'], exit: 0, exitWhy });
const deletedAtEnd: RunSpec['expect'] = { verdict: ['deleted'], exit: 0, exitWhy: 'the ReplicaSet is deleted at the end of the log: its past is history' };

const LEAK_EXPIRED = (says: RegExp[]): FindingSpec => ({ ids: ['expectation-leak-expired'], says });
const text = (rs: ReplicaSetReport) => rs.findings.filter((f) => f.basis !== 'unknown').map(findingText).join('\n');

export const CASES: BugCase[] = [
  {
    n: 1, title: 'RS scaled up, pod created 5 min later (kubernetes#110631)',
    runs: [rebuiltAudit('110631', 'v1.9.11', SHOP, () => B.lateFirstCreate('v1.9.11', { gatedSync: true }),
      { verdict: ['healthy'], exit: 4, exitWhy: 'a record only the 5-min timeout released (README: leak window ended expired)' },
      [
        finding('gated from the scale-up by a record released only by the 5-min ExpectationsTimeout, inferred (the record predates the log)',
          { ids: ['expectation-leak-expired', 'late-first-write'], says: [/5m4s|5 ?m ?0?4 ?s/, /ExpectationsTimeout|5-minute/], basis: ['inferred'] }),
        windowEnded('expired', 'the gate is released by the expiry at T0+300 s, not by an observation'),
        causeNames({ ids: ['expectation-leak-expired', 'late-first-write'] }),
        finding('says where to look: the unobserved create or an earlier ReplicaSet with the same name', { ids: ['expectation-leak-expired', 'late-first-write'], says: [/same name/] }, false),
        rounds([['create', 1]], 'the first sync after the expiry created the pod; no create invented at T0'),
      ])],
  },
  {
    n: 2, title: 'Create timed out, never retried (kubernetes#67662, v1.12)',
    runs: [rebuiltAudit('67662', 'v1.12.10', SHOP, () => B.timedOutCreate('v1.12.10'),
      { verdict: ['healthy'], exit: 4, exitWhy: 'leak cleared only by the timeout' },
      [
        finding('leaked add=1 from the timed-out create, counted as a success before v1.18', LEAK_EXPIRED([/timed out \(504\)/, /kubernetes#67662|before v1\.18/])),
        windowEnded('expired', 'gated until the expiry', { remainingAdd: 1 }),
        finding('latent after the expiry: no sync until the unrelated change at +40 m', LEAK_EXPIRED([/40m/, /trigger/])),
        causeNames(LEAK_EXPIRED([])),
        rounds([['create', 1], ['create', 1]], 'the timed-out create, then the create after the trigger at +40 m'),
        noFinding(['expiry-over-create'], 'the timed-out create made no pod (the log shows none): nothing could be over-created'),
      ])],
  },
  {
    n: 4, title: 'Expectations expire while the informer lags → extra pods (kubernetes#129795)',
    runs: [
      ...capture('informer-lag-over-create', 'web', {
        recording: { verdict: ['healthy'], exit: 4, exitWhy: 'the record expired unfulfilled (the controller\'s log shows the expiry)' },
        audit: { verdict: ['deleted'], exit: 4, exitWhy: 'the record expired unfulfilled (the controller\'s log shows the expiry)' },
      }, () => [
        finding('double creation: 3 creates issued while the 3 earlier ones were unobserved, after the expiry', { ids: ['expiry-over-create', 'expectations-expired-informer-lag'], says: [/3 (pod|earlier|creat)/, /kubernetes#129795/] }),
        windowEnded('expired', 'the add=3 record expired at +300 s', { remainingAdd: 3 }),
        custom('names the informer lag (≥ 300 s) as the reason', (rs) => (/informer/.test(text(rs)) && /(lag|behind|late|held them back|had not delivered)/.test(text(rs)) ? true : 'no finding names the informer lag')),
        rounds([['create', 3], ['create', 3], ['delete', 3]], 'the creates, the over-create, then the surplus deleted'),
      ]),
      rebuiltAudit('129795-watch-drop', 'v1.32.0', SHOP, () => B.createsDeletedBeforeSeen('v1.32.0'),
        { verdict: ['healthy'], exit: 4, exitWhy: 'gated 300 s, recovered by the expiry' },
        [
          finding('expectations unreachable: the creates\' pods were deleted before the controller saw them; recovered by expiry', LEAK_EXPIRED([/3 creation/])),
          windowEnded('expired', 'gated until the expiry', { remainingAdd: 3 }),
          causeNames(LEAK_EXPIRED([])),
          rounds([['create', 3], ['create', 3]], 'the first creates, then the creates after the expiry'),
        ]),
    ],
  },
  {
    n: 5, title: 'RS deleted and recreated under the same name → stale record (kubernetes#69376)',
    runs: [
      {
        label: 'rebuilt', format: 'recording', version: 'v1.12.10', rsKey: 'jobs/job-rs', input: writeRecording('69376', () => B.recreatedUnderSameName('v1.12.10')),
        expect: { verdict: ['gated', 'converging'], exit: 4, exitWhy: 'the inherited record was cleared only by the timeout' },
        criteria: [
          readCleanly(), versionSaid('v1.12.10'),
          finding('stale record inherited across the UID change, gated until the expiry, fixed by #82572', LEAK_EXPIRED([/inherited the old one's record/, /kubernetes#69376|#82572/])),
          windowEnded('expired', 'the new ReplicaSet gated until the expiry at +300 s', { remainingAdd: 2 }),
          causeNames(LEAK_EXPIRED([])),
          custom('no claim that the deletion cleared the record (false before v1.17)', (rs) => (/cleared its expectations; the new one starts with none/.test(text(rs)) ? 'a finding says deleting the old ReplicaSet cleared its expectations' : true)),
        ],
      },
      ...capture('rs-recreated', 'web', { recording: healthy(), audit: deletedAtEnd }, () => [
        finding('v1.37 (after #82572): the recreated ReplicaSet starts with no record', { ids: ['rs-recreated'], says: [/starts with none/] }),
        noWindowEnded('expired', 'no inherited record on v1.37'),
        noLeak(),
        rounds([['create', 2], ['claim', 2], ['create', 1]], 'the old one\'s creates; the new one adopts the orphans and creates one more'),
      ]),
    ],
  },
  {
    n: 3, title: 'DaemonSet: timed-out creates (kubernetes#72155)',
    runs: [rebuiltAudit('72155', 'v1.12.3', DS_KEY, () => B.dsTimedOutCreates('v1.12.3'),
      { verdict: ['healthy'], exit: 4, exitWhy: 'a record only the 5-min timeout released; every node has its pod at the end' },
      [
        finding('leaked add=2 from the timed-out creates, counted as made before v1.18 (the DaemonSet\'s own report)', LEAK_EXPIRED([/2 creates of that round \(for nodes n2, n3[^)]*\) timed out \(504\)/, /kubernetes#72155/, /manage \(syncNodes\)/])),
        windowEnded('expired', 'gated from the creates until the first sync after the expiry', { remainingAdd: 2 }),
        finding('idle after the expiry until the node event 45 minutes later: nothing retried', LEAK_EXPIRED([/after 45m/, /trigger/])),
        causeNames(LEAK_EXPIRED([])),
        rounds([['create', 1], ['create', 2], ['create', 3]], 'the first pod; the two timed-out creates; the creates for n2, n3 and n4 after n4 registered', true),
        noFinding(['expiry-over-create', 'record-contradicted', 'create-failures'], 'a swallowed timeout is no failed create and nothing was over-created'),
        custom('names the nodes left without their daemon pod (n2, n3)', (rs) => (/\bn2\b[^.]*\bn3\b/.test(text(rs)) ? true : 'no finding names the nodes n2 and n3')),
      ], 'daemon-set-controller')],
  },
  {
    n: 6, title: 'DaemonSet: 5 min stop after node removal (kubernetes#75836)',
    runs: [rebuiltAudit('75836', 'v1.14.0', DS_KEY, () => B.dsNodeRemovedPodGcRace('v1.14.0'),
      { verdict: ['healthy'], exit: 4, exitWhy: 'a del=1 record only the 5-min timeout released' },
      [
        finding('del=1 for a pod another actor (the pod GC) deleted: the 404 counted as made, never observed; gated until the expiry', LEAK_EXPIRED([/agent-m4v9d was answered 404 NotFound/, /kubernetes#91008/]), true),
        windowEnded('expired', 'gated from the delete until the first sync after the expiry', { remainingDel: 1 }),
        causeNames(LEAK_EXPIRED([])),
        rounds([['create', 2], ['delete', 1], ['create', 1]], 'the pods; the delete of the removed node\'s pod; n3\'s pod only after the expiry', true),
        custom('names why the controller deleted a bound pod of a removed node at all (getPodsWithoutNode, kubernetes#73401/#75836, fixed by #76060)', (rs) => (/#75836|#76060|#73401/.test(text(rs)) ? true : 'no finding names kubernetes#75836 / #76060')),
        custom('names the node left without its daemon pod while gated (n3)', (rs) => (/\bn3\b/.test(text(rs)) ? true : 'no finding names n3')),
      ], 'daemon-set-controller')],
  },
  {
    n: 7, title: 'DaemonSet: NotFound swallowed (kubernetes#95432)',
    runs: [
      rebuiltAudit('95432', 'v1.15.3', DS_KEY, () => B.dsNotFoundAfterTaint('v1.15.3'),
      { verdict: ['healthy'], exit: 4, exitWhy: 'a del=1 record only the 5-min timeout released; the recreation came only with a later node event' },
      [
        finding('delete expectation for agent-p1x7q never observed (its delete answered 404, counted as made before v1.19)', LEAK_EXPIRED([/agent-p1x7q was answered 404 NotFound/, /kubernetes#91008/]), true),
        windowEnded('expired', 'gated ≤ 300 s: the untaint 2 minutes in found the record unsatisfied', { remainingDel: 1 }),
        causeNames(LEAK_EXPIRED([])),
        custom('the recreation on n1 was skipped at the untaint (gated) and nothing re-triggered the DaemonSet until the node event 20 minutes later', (rs) => (/\bn1\b/.test(text(rs)) && /(skipped|gated|refused)/.test(text(rs)) ? true : 'no finding says the recreation on n1 was skipped')),
        rounds([['create', 2], ['delete', 1], ['create', 1]], 'the pods; the 404 delete; the recreation only after the second taint and untaint', true),
      ], 'daemon-set-controller'),
    // The same incident without the untaint inside the record's 5 minutes: no sync of the window finds
    // a pod needed, so whether the informer delivered the deletion before the Set (a leak) or after
    // (lowered) nothing in the log shows: the leak is said, of basis unknown, and no code is set.
    { ...rebuiltAudit('95432-no-untaint', 'v1.15.3', DS_KEY, () => B.dsNotFoundAfterTaint('v1.15.3', { untaintInRecord: false }),
      healthy('the recreation came with the node event; that the 404-kept record gated anything the log does not show'),
      [
        finding('the 404-kept del=1 named, of basis unknown: the delivery of the deletion before or after the Set is not in the log; the KCM log at -v=4 tells', { ids: ['expectation-leak-expired'], says: [/agent-p1x7q was answered 404 NotFound/, /before the Set .* or after it .* the input does not show/, /-v=4/], basis: ['unknown'] }),
        custom('the window of the 404-kept record is of basis unknown', (rs) => {
          const w = rs.gatedWindows.find((x) => x.raised.del === 1);
          return w && w.basis === 'unknown' ? true : `window ${w ? `${w.endedBy}[${w.basis}]` : 'missing'}`;
        }, true),
        noLeak(),
        rounds([['create', 2], ['delete', 1], ['create', 1]], 'the pods; the 404 delete; the recreation at the node event'),
      ], 'daemon-set-controller'), label: 'rebuilt, no untaint inside the record' },
    ],
  },
  {
    n: 8, title: 'DaemonSet: pod terminating at creation (kubernetes#136932)',
    runs: [{
      label: 'rebuilt', format: 'recording', version: 'v1.37.2', rsKey: 'kube-system/agent', input: writeRecording('136932', () => DS.terminatingAtCreation()),
      expect: { verdict: ['leaked'], exit: 4, exitWhy: 'the record waits for a creation it will never see; only the timeout clears it, and no sync follows' },
      criteria: [
        readCleanly(), versionSaid('v1.37.2'),
        finding('the pod reached the controller terminating: its creation never counted (add never lowered), kubernetes#136932', { ids: ['expectation-leak-open'], says: [/agent-w8k2n reached the controller already terminating/, /kubernetes#136932/] }),
        causeNames({ ids: ['expectation-leak-open'] }),
        custom('the DaemonSet is left one pod short: the window stays open with add=1, no replacement', (rs) => {
          const w = rs.gatedWindows.find((x) => x.endedBy === 'open');
          if (!w) return 'no window open at the end';
          return (w.remaining?.add ?? 0) === 1 ? true : `remaining add ${w.remaining?.add}`;
        }),
        rounds([['create', 1]], 'the one create; no replacement while the record waits', true),
        noInventedRounds(1, 'create'),
      ],
    }],
  },
  {
    n: 9, title: 'Slow initializers: creates repeatedly unobserved (kubernetes#48893, v1.7)',
    runs: [rebuiltAudit('48893', 'v1.7.0', SHOP, () => B.hiddenPodsRepeated('v1.7.0', 3),
      { verdict: ['leaked'], exit: 4, exitWhy: 'records cleared only by the timeout, the last still open' },
      [
        finding('each create timed out and was counted as a success: a record that waits for a pod it never sees', { ids: ['expectation-leak-expired', 'expectation-leak-open'], says: [/timed out \(504\)/] }),
        custom('each 5-min expiry issued a new create: 2 windows ended by the expiry', (rs) => (rs.gatedWindows.filter((w) => w.endedBy === 'expired' && w.basis !== 'unknown').length === 2 ? true : `${rs.gatedWindows.filter((w) => w.endedBy === 'expired').length} expired windows`)),
        rounds([['create', 1], ['create', 1], ['create', 1]], 'one create per expiry'),
        custom('names the growing number of unobserved (hidden) pods: all 3 creates together', (rs) => (/\b3\b[^.]*(creat|pod)[^.]*(unobserved|never observed|hidden|invisible)|(unobserved|never observed|hidden|invisible)[^.]*\b3\b[^.]*(creat|pod)/.test(text(rs)) ? true : 'no finding counts the repeated unobserved creates together'), true),
      ])],
  },
  { n: 10, title: 'Kruise CloneSet expectation leak (openkruise/kruise#1765)', outOfScope: '#22', runs: [] },
  { n: 11, title: 'Kubeflow trainer expectations before a failing create (kubeflow/trainer#1221)', outOfScope: '#22', runs: [] },
  {
    n: 12, title: 'Too many requests when denied by quota (kubernetes#49145)',
    runs: [
      ...capture('quota-rejected', 'web', {
        recording: { verdict: ['failing'], exit: 5, exitWhy: 'creates failing on quota at the end of the recording' },
        audit: deletedAtEnd,
      }, () => [
        finding('creation blocked by quota; slow start stopped after the first failure; retries with backoff', { ids: ['create-failures', 'quota-exhausted', 'failing-creates'], says: [/quota/i, /slow start/i, /backoff/], attention: true }),
        causeNames({ ids: ['create-failures', 'quota-exhausted', 'failing-creates'] }),
        noLeak(), noWindowEnded('expired', 'expectations fully lowered'),
        custom('the controller\'s creation rounds (its log\'s "Too few replicas" lines)', (rs) => {
          const want = loggedRounds('quota-rejected');
          const got = rs.rounds.filter((r) => r.kind === 'create' && r.basis !== 'unknown').length;
          return got === want ? true : `${got} create rounds, the controller's log shows ${want}`;
        }),
      ]),
      rebuiltAudit('49145-pre-1.8', 'v1.7.0', SHOP, () => B.quotaBurst('v1.7.0'),
        { verdict: ['failing'], exit: 5, exitWhy: 'creates failing on quota' },
        [
          custom('flags the burst without slow start (pre-1.8: 495 creates in one sync)', (rs) => (/slow.start/i.test(text(rs)) && /(without|no|before v1\.8|pre-1\.8|#49142)/i.test(text(rs)) && /495/.test(text(rs)) ? true : 'no finding flags a burst without slow start'), true),
          rounds([['create', 5], ['create', 495]], 'the scale-up, then one sync of 495 creates'),
          noLeak(),
        ]),
    ],
  },
  {
    n: 13, title: 'Event spam from quota-denied creates (kubernetes#47366)',
    runs: [{
      label: 'rebuilt', format: 'recording', version: 'v1.37.2', rsKey: SHOP, input: writeRecording('47366', () => B.quotaEventSpam(200, 3000)),
      expect: { verdict: ['failing'], exit: 5, exitWhy: 'creates failing on quota' },
      criteria: [
        readCleanly(),
        finding('quota-blocked, retried N=200 times (the Event\'s count, not 200 pods)', { ids: ['create-failures', 'failed-writes', 'quota-exhausted'], says: [/quota/i, /\b200\b/] }),
        custom('no pod claimed: every write counted is a failed create', (rs) => (rs.accounting.byKind.create === rs.accounting.failed && rs.accounting.byKind.create <= 200 ? true : `${rs.accounting.byKind.create} creates, ${rs.accounting.failed} failed`)),
        noLeak(),
        noFinding(['record-contradicted'], 'each failure is walked back: no record gated the retries'),
        noInventedRounds(200, 'create'),
      ],
    }],
  },
  {
    n: 14, title: 'Rolling update under quota stalls ~16 min (kubernetes#98656, v1.19.2)',
    runs: [rebuiltAudit('98656', 'v1.19.2', SHOP, () => B.backoffInflation('v1.19.2'), healthy('the create succeeded at the end: past failures are history'), [
      finding('delayed by backoff inflated to the cap by event-driven requeues; expectations not the gate', { ids: ['backoff-inflated'], says: [/16m40s/, /19 failed syncs/, /Expectations were not the gate/] }),
      causeNames({ ids: ['backoff-inflated'] }),
      noLeak(),
    ])],
  },
  {
    n: 15, title: 'Kubelet-rejected pods → replacement loop (kubernetes#88851)',
    runs: [rebuiltAudit('88851', 'v1.16.6', SHOP, () => B.replacementChurn('v1.16.6', 5, 'OutOfmemory'),
      { verdict: ['converging', 'healthy'], exit: 0, exitWhy: 'creates succeed, nothing gated or leaked' },
      [
        finding('replacement churn: 5 creates, each pod Failed within seconds with the same kubelet reason; root cause node admission', { ids: ['replacement-churn'], says: [/5 pods/, /OutOfmemory/, /not the controller/], attention: true }),
        causeNames({ ids: ['replacement-churn'] }),
        noLeak(), noWindowEnded('expired', 'expectations healthy'),
        rounds([['create', 1], ['create', 1], ['create', 1], ['create', 1], ['create', 1]], 'one replacement per failed pod'),
      ])],
  },
  {
    n: 16, title: 'Namespace terminating: creates rejected (kubernetes#38612)',
    runs: capture('namespace-terminating-leak', 'web', { recording: deletedAtEnd, audit: deletedAtEnd }, () => [
      finding('creates refused because the namespace is terminating; expected, not a leak', { ids: ['expectation-leak-namespace-terminating', 'namespace-terminating'], says: [/terminating/i] }),
      windowEnded('rs-deleted', 'the pending expectation is dropped when the ReplicaSet is deleted'),
      noLeak(),
      causeNames({ ids: ['expectation-leak-namespace-terminating', 'namespace-terminating'] }),
    ]),
  },
  {
    n: 17, title: 'GC orphaning vs re-adoption (kubernetes#42639, RS→pod shape, v1.6)',
    runs: [rebuiltAudit('42639', 'v1.6.0', SHOP, () => B.gcOrphanReadopted('v1.6.0'), deletedAtEnd, [
      finding('adoption race: adopted right after the GC orphaned it while the owner had a deletionTimestamp (RecheckDeletionTimestamp would refuse)',
        { ids: ['unexpected-claim', 'adoption', 'adoption-blocked'], says: [/deletionTimestamp|being deleted/, /RecheckDeletionTimestamp|kubernetes#42639/], attention: true }),
      causeNames({ ids: ['unexpected-claim', 'adoption', 'adoption-blocked'] }),
      custom('the result named: the re-adopted pod deleted by the garbage collector', (rs) => (/garbage[- ]collector/i.test(text(rs)) ? true : 'no finding names the garbage collector\'s deletion')),
    ])],
  },
  {
    n: 18, title: 'Adopting children that are being deleted (kubernetes#44144)',
    runs: [
      rebuiltAudit('44144-fixed', 'v1.7.0', SHOP, () => B.terminatingOrphan('v1.7.0', false), healthy(), [
        rounds([['create', 1]], 'the terminating orphan is neither adopted nor counted: a full set is created', true),
        finding('names p1 as an orphan that is terminating: not adoptable, not counted', { ids: ['terminating-orphans', 'orphans-to-adopt', 'terminating-pods'], says: [/p1/] }, false),
        noLeak(),
      ]),
      rebuiltAudit('44144-bug', 'v1.6.13', SHOP, () => B.terminatingOrphan('v1.6.13', true), healthy(), [
        finding('flags the adoption PATCH of a pod that already had a deletionTimestamp as the pre-1.7 bug', { ids: ['unexpected-claim'], says: [/already being deleted/, /kubernetes#44144/, /pre-1\.7/], attention: true }),
        causeNames({ ids: ['unexpected-claim'] }),
      ]),
    ],
  },
  {
    n: 19, title: 'Orphans not adopted until resync (kubernetes#32829, RS form, v1.4)',
    runs: [rebuiltAudit('32829', 'v1.4.0', 'shop/rc-b', () => B.orphansAdoptedAtResync('v1.4.0'), healthy(), [
      rounds([['claim', 2]], 'the adoption at the resync'),
      finding('adoption delayed ~10 min after the orphaning (not re-queued on ownerRef removal)', { ids: ['unexpected-claim', 'adoption', 'orphans-to-adopt', 'writes-withheld'], says: [/\b10m\d*s?\b|resync|600 ?s/, /adopt/] }),
      noLeak(),
    ])],
  },
  {
    n: 20, title: 'RS claims a plain pod matching its selector (kubernetes#88550)',
    runs: [rebuiltAudit('88550', 'v1.18.0', 'e2e/rs1', () => B.plainPodClaimed('v1.18.0'), healthy(), [
      finding('pod `plain` had no controller, matched rs1\'s selector and was adopted', { ids: ['adoption'], says: [/e2e\/plain/, /[Oo]rphan|no controller/, /selector/] }),
      rounds([['create', 1], ['claim', 1], ['delete', 1]], 'adopted, then over target: one pod deleted', true),
      noLeak(),
    ])],
  },
  {
    n: 21, title: 'RS adopts an existing bare pod and creates fewer (kubernetes#94851)',
    runs: [
      rebuiltAudit('94851', 'v1.19.0', 'default/rs01', () => B.bareAdoptedFewerCreated('v1.19.0'), healthy(), [
        rounds([['claim', 1], ['create', 2]], 'adopted 1 pre-existing orphan and created 2', true),
        finding('the adoption of the orphan nginx', { ids: ['adoption'], says: [/default\/nginx/] }),
        custom('says the adopted pod runs a different image than the template (nginx:1.19 vs nginx:1.27)', (rs) => (/nginx:1\.19/.test(text(rs)) ? true : 'no finding names the adopted pod\'s different image'), false),
        noLeak(),
      ]),
      ...capture('orphan-adopted', 'web', { recording: healthy(), audit: deletedAtEnd }, () => [
        rounds([['claim', 1], ['create', 1]], 'adopted the orphan and created only one', true),
        finding('the adoption of the orphan', { ids: ['adoption'], says: [/web-handmade/] }),
        noLeak(),
      ]),
    ],
  },
  {
    n: 22, title: 'Leftover RS keeps recreating pods after its Deployment is gone (kubernetes#24137, v1.2)',
    runs: [rebuiltAudit('24137', 'v1.2.0', 'default/web-3326', () => B.leftoverReplicaSet('v1.2.0'), healthy('the RS is doing its job'), [
      custom('the ReplicaSet is reported without an owner (orphaned RS)', (rs) => (rs.owner === undefined ? true : `owner ${rs.owner.kind}/${rs.owner.name}`), true),
      rounds([['create', 2], ['create', 1]], 'the replacement for the pod the user deleted', true),
      noLeak(),
    ])],
  },
  {
    n: 23, title: 'A graceful delete counted once (PR kubernetes#22143)',
    runs: capture('scale-down-graceful', 'web', { recording: healthy(), audit: deletedAtEnd }, () => [
      rounds([['create', 5], ['delete', 3]], 'the scale-up, then the 5→2 scale-down', true),
      windowEnded('fulfilled', 'the del=3 record is fulfilled by the deletionTimestamp updates'),
      custom('each deletion observed once: del lowered exactly 3 times, never below 0', (rs) => {
        const set = rs.expectations.findIndex((e) => e.op === 'set' && (e.del ?? 0) > 0);
        if (set < 0) return 'no del record set';
        const lowers = rs.expectations.slice(set + 1).filter((e) => e.op === 'lower' && e.del !== undefined);
        let prev = rs.expectations[set]!.del!;
        let n = 0;
        for (const e of lowers) {
          if (e.del! < prev) n += prev - e.del!;
          if (e.del! < 0) return `del went to ${e.del}`;
          prev = e.del!;
        }
        return n === 3 ? true : `del lowered ${n} times`;
      }, true),
      noFinding(['extra-delete', 'surplus-create', 'clobbered-delete-keys'], 'no double count'),
      noLeak(),
    ]),
  },
  {
    n: 24, title: 'Rollover: expectation record clobbered → one delete too many (kubernetes#19299, v1.2)',
    runs: [rebuiltAudit('19299', 'v1.2.0', SHOP, () => B.clobberedExtraDelete('v1.2.0'), healthy(), [
      finding('record lost/overwritten while a delete was in flight: one pod deleted too many', { ids: ['extra-delete', 'clobbered-delete-keys'], says: [/web-7d9c6b8f5d-/, /record/] }),
      causeNames({ ids: ['extra-delete', 'clobbered-delete-keys'] }),
      rounds([['create', 5], ['delete', 2], ['create', 1]], 'the scale-down of 2; the extra delete is a finding, its replacement a round'),
      noLeak(),
    ])],
  },
  {
    n: 25, title: 'Terminating pods invisible to replica counts (kubernetes#32567, v1.4)',
    runs: [rebuiltAudit('32567', 'v1.4.0', 'shop/db-old', () => B.terminatingInvisible('v1.4.0'), healthy('the overlap is by design'), [
      finding('old RS reports 0 while its pod terminates (grace 600 s); overlap by design of active-pod counting', { ids: ['terminating-pods'], says: [/shop\/db-old-/, /not active|terminatingReplicas/] }),
      custom('states the 600 s grace period the overlap can last', (rs) => (/600 ?s|10m\b|grace period of 600/.test(text(rs)) ? true : 'no finding states the 600 s grace period')),
      noLeak(),
    ])],
  },
  {
    n: 26, title: 'Informer misses a DELETE across a relist → phantom pod (kubernetes#115658)',
    runs: capture('dropped-delete-relist', 'web', {
      recording: { verdict: ['stalled'], exit: 3, exitWhy: 'stalled: no write and no status write after the deletion of its pod (its informer never delivered it)' },
      audit: deletedAtEnd,
    }, () => [
      custom('names the deleted pod still in the controller\'s cache (a phantom), inferred', (rs) => {
        const pod = hiddenDeletion('dropped-delete-relist');
        const f = rs.findings.find((x) => x.basis === 'inferred' && x.explanation.includes(pod) && /(not observed|had not observed|still (held|counted)|phantom|stale)/.test(`${x.title} ${x.explanation}`));
        return f ? true : `no inferred finding names ${pod} as still in its cache`;
      }, true),
      rounds([['create', 3]], 'no replacement invented'),
      noLeak(),
    ]),
  },
  {
    n: 27, title: 'Deleting RCs makes some create thousands of pods (kubernetes#57191, RS form, v1.9)',
    runs: [rebuiltAudit('57191', 'v1.9.0', 'density/rc-7', () => B.createsAfterOwnerDeletion('v1.9.0', 300, 50), deletedAtEnd, [
      finding('creates issued after the owner\'s deletion was requested: the deletion not yet visible to the controller (stale RS) or cleanup scaled pods away',
        { ids: ['writes-after-owner-deletion', 'rs-being-deleted', 'unexplained-writes', 'surplus-create', 'unattributed-writes'], says: [/300/, /being[- ]deleted|deletion/], attention: true }),
      causeNames({ ids: ['writes-after-owner-deletion', 'rs-being-deleted', 'unexplained-writes', 'surplus-create', 'unattributed-writes'] }),
      noLeak(),
    ])],
  },
  {
    n: 28, title: 'Counting pods before checking expectations → one extra replica (PR kubernetes#8138)',
    runs: [
      rebuiltAudit('8138', 'v1.0.0', SHOP, () => B.staleCountSurplus('v1.0.0'), healthy(), [
        finding('a decision from a pod count taken before the last observed create: one surplus pod', { ids: ['surplus-create'], says: [/web-7d9c6b8f5d-/, /stale|counted fewer/] }),
        causeNames({ ids: ['surplus-create'] }),
        rounds([['create', 2], ['delete', 1]], 'the surplus pod later deleted'),
        noLeak(),
      ]),
      ...capture('delayed-add-no-surplus', 'web', { recording: healthy(), audit: deletedAtEnd }, () => [
        noFinding(['surplus-create', 'extra-delete'], 'v1.37 checks expectations before counting: no surplus'),
        custom('no delete round (no surplus to remove)', (rs) => (rs.rounds.some((r) => r.kind === 'delete' && r.basis !== 'unknown') ? 'a delete round' : true), true),
        noLeak(),
      ]),
    ],
  },
  {
    n: 29, title: 'Job: a timed-out create counted as created, Job stuck for hours (kubernetes#78796)',
    runs: [rebuiltAudit('78796', 'v1.12.10', 'batch/mycronjob-1558410300', () => B.jobTimedOutCreate('v1.12.10'),
      { verdict: ['leaked', 'stalled'], exit: 4, exitWhy: 'the add=1 record of the timed-out create is never fulfilled; past its expiry nothing syncs the Job again (README: leak window open with an observed leak cause)' },
      [
        finding('the 504 create counted as made (manageJob swallowed IsTimeout before #86140): the record waits for a pod never made', { ids: ['expectation-leak-open', 'expectation-leak-expired'], says: [/timed out \(504\)/, /kubernetes#78796/] }),
        finding('after the 5-min expiry nothing re-syncs the Job (no pod event, no change): stuck until a trigger or the informer resync', { ids: ['expectation-leak-open', 'expectation-leak-expired'], says: [/expir/, /trigger/, /resync/] }),
        custom('the Job is left at 0/1 with add=1 outstanding at the end (no fulfilled window after the timeout)', (rs) => {
          const w = rs.gatedWindows.filter((x) => x.basis !== 'unknown').at(-1);
          if (!w) return 'no window';
          return w.endedBy !== 'fulfilled' && (w.remaining?.add ?? w.raised.add) === 1 ? true : `last window ${w.endedBy}, add ${w.remaining?.add}`;
        }, true),
        causeNames({ ids: ['expectation-leak-open', 'expectation-leak-expired'] }),
        rounds([['create', 1], ['create', 1], ['create', 1], ['create', 1], ['create', 1]], 'the four creates refused by the webhook (the second at once after the status write, then 10 s, 40 s, 80 s later) and the timed-out one; no other retry in the log'),
        custom('the failed creates\' retries described with this release\'s Job backoff (DefaultJobBackOff 10 s doubling to 360 s), not the ReplicaSet\'s', (rs) => {
          const f = rs.findings.find((x) => x.id === 'create-failures');
          if (!f) return 'no create-failures finding';
          return /10 ?s/.test(findingText(f)) && /360 ?s|6m/.test(findingText(f)) ? true : `says: ${(findingText(f).match(/exponential backoff[^.]*/) ?? [''])[0]}`;
        }),
        noFinding(['expiry-over-create', 'surplus-create'], 'the timed-out create made no pod: nothing over-created'),
      ], 'job-controller')],
  },
  {
    n: 30, title: 'Job: status rejected during the pod-failure backoff, finalizer kept (kubernetes#139428)',
    runs: [
      rebuiltAudit('139428', 'v1.36.2', 'train/pi', () => B.jobBackoffStatusRejected('v1.36.2'),
        { verdict: ['healthy', 'converging'], exit: 0, exitWhy: 'recovered when the backoff ended: every pod counted, 2/2 active at the end; the rejections are history' },
        [
          custom('names the status update rejected 422 "cannot set more ready pods than active" during the pod-failure backoff (kubernetes#139428)', (rs) => (/cannot set more ready pods than active/.test(text(rs)) && /#139428/.test(text(rs)) ? true : 'no finding names the rejected status update and kubernetes#139428'), true),
          custom('names the failed pod train/pi-9rcj7 held by the job-tracking finalizer (Terminating) until the backoff ended', (rs) => (/pi-9rcj7/.test(text(rs)) && /job-tracking|finalizer/.test(text(rs)) && /backoff/.test(text(rs)) ? true : 'no finding names pi-9rcj7 held by the finalizer during the backoff'), true),
          custom('says the release is before the fix (v1.36.3, v1.35.8, v1.34.10; #139457)', (rs) => (/v1\.36\.3|#139457/.test(text(rs)) ? true : 'no finding names the fixed releases')),
          rounds([['create', 2], ['create', 1]], 'the two pods; the replacement only after the backoff'),
          noFinding(['replacement-churn'], 'one pod failed, once: no churn, and not the node\'s doing'),
          noFinding(['surplus-create'], 'the third create replaced the failed pod: the Job needed it'),
          noLeak(),
        ], 'job-controller'),
      { ...rebuiltAudit('139428-fixed', 'v1.36.3', 'train/pi', () => B.jobBackoffStatusRejected('v1.36.3', { fixed: true }),
        healthy('the fixed release: the status goes through during the backoff, the finalizer is removed at once'),
        [
          custom('claims no rejected status update (none in the log; v1.36.3 keeps the active count during the backoff)', (rs) => (/cannot set more ready pods than active/.test(text(rs)) ? 'a finding claims the rejection' : true), true),
          rounds([['create', 2], ['create', 1]], 'the two pods; the replacement when the 10-s backoff ended'),
          noFinding(['replacement-churn', 'surplus-create'], 'one failure, its replacement'),
          noLeak(),
        ], 'job-controller'), label: 'rebuilt (fixed release)' },
    ],
  },
  {
    n: 31, title: 'Job: pods stuck Terminating with the job-tracking finalizer (kubernetes#127917)',
    runs: [rebuiltAudit('127917', 'v1.29.8', 'etl/nightly-export-28800400', () => B.jobFinalizerPatchRejected('v1.29.8'),
      { verdict: ['failing', 'stalled'], exit: 5, exitWhy: 'the controller\'s finalizer-removal PATCH still fails at the end of the log: the Job cannot finish (README: failing)' },
      [
        custom('"1 pod holds the job-tracking finalizer; the Job cannot finish until it is removed": names the pod and that the Job cannot finish', (rs) => (/nightly-export-28800400-9rcj7/.test(text(rs)) && /job-tracking/.test(text(rs)) && /cannot (finish|complete)|not finish/.test(text(rs)) ? true : 'no finding names the held pod and that the Job cannot finish'), true),
        custom('names why: every finalizer-removal PATCH rejected 422 "Pod QoS is immutable" — a webhook mutating pods on UPDATE (kubernetes#127917)', (rs) => (/Pod QoS is immutable/.test(text(rs)) && /webhook/i.test(text(rs)) ? true : 'no finding names the rejected PATCH and the webhook'), true),
        custom('counts the rejected finalizer-removal PATCHes (every write of the controller after the status flush)', (rs) => {
          const n = B.jobFinalizerPatchRejected('v1.29.8').split('\n').filter((l) => l.includes('$deleteFromPrimitiveList/finalizers') && l.includes('"code":422')).length;
          return new RegExp(`\\b${n}\\b[^.]*(PATCH|patch|removal)`).test(text(rs)) ? true : `no finding counts the ${n} rejected PATCHes`;
        }),
        rounds([['create', 1]], 'the one pod; no delete, no replacement'),
        noLeak(),
        noFinding(['replacement-churn', 'surplus-create'], 'one pod, Succeeded'),
      ], 'job-controller')],
  },
  {
    n: 32, title: 'DaemonSet: two pods on one node after a failover with a stale cache (kubernetes#54096)',
    runs: [rebuiltAudit('54096', 'v1.29.8', DS_KEY, () => B.dsFailoverStaleCache('v1.29.8'),
      healthy('one daemon pod per node at the end: the duplicate on n3 was deleted'),
      [
        finding('the leader change named: cp-1 stopped renewing, cp-2 took the Lease and started afresh (no expectations, a new LIST)', { ids: ['controller-restarted', 'no-leader'], says: [/new process|leader/] }),
        custom('names the duplicate: a second daemon pod on n3 (agent-w5r9t beside agent-h2k8s), created by the new leader whose first LIST did not yet hold the pod the previous one had created', (rs) => (/agent-w5r9t/.test(text(rs)) && /agent-h2k8s/.test(text(rs)) && /\bn3\b/.test(text(rs)) ? true : 'no finding names the two pods on n3'), true),
        custom('names the at-most-one gap of DaemonSets across a failover (kubernetes#54096) and its end (the excess deleted, the oldest kept)', (rs) => (/#54096|at[- ]most[- ]one/.test(text(rs)) ? true : 'no finding names kubernetes#54096')),
        rounds([['create', 2], ['create', 1], ['create', 1], ['delete', 1]], 'n1 and n2; n3 by cp-1; n3 again by cp-2; the newer deleted', true),
        noLeak(),
      ], 'daemon-set-controller')],
  },
  {
    n: 33, title: 'Job: 0/1 with no pods for 84 minutes (kubernetes#128358)',
    runs: [{
      label: 'rebuilt (what the report shows: the Job, no pod)', format: 'recording', version: 'v1.28.13', rsKey: 'zzz/xxxxx-job-28833075', input: writeRecording('128358', () => B.jobZeroOfOneNoPods()),
      expect: { verdict: ['unknown'], exit: 0, exitWhy: 'nothing is proven: no write of the controller, no log — a diagnosis of basis unknown sets no code (README)' },
      criteria: [
        readCleanly(), versionSaid('v1.28.13-eks-a737599'),
        finding('the Job wants 1 pod, none made in the input, since its creation 84 minutes before: basis unknown — the input cannot tell a leaked record from no sync or failing creates', { ids: ['pods-not-made-unexplained'], says: [/wants 1 pod more/, /84m/, /cannot tell/, /gated on a record Set before the input/, /not synced/, /Events \(kept one hour\)/], basis: ['unknown'] }),
        finding('names the evidence missing and what to collect: the KCM log at -v=4 or the audit log of the Job controller\'s pod writes', { ids: ['pods-not-made-unexplained'], says: [/-v=4/, /audit log/, /Setting expectations/], basis: ['unknown'] }),
        causeNames({ ids: ['pods-not-made-unexplained'], basis: ['unknown'] }),
        custom('claims no round of the controller in flight (kexp\'s first sync of a Job older than the input is its own)', (rs) => (rs.findings.some((f) => /round is in flight|normal while a round is in flight/.test(findingText(f))) || /round is in flight/.test(rs.verdict.summary) ? 'a round in flight is claimed' : true), true),
        noLeak(),
        custom('no write of the controller claimed (the input shows none)', (rs) => (rs.accounting.writes === 0 && rs.rounds.every((x) => x.basis === 'unknown') ? true : `${rs.accounting.writes} writes, rounds ${rs.rounds.map((x) => `${x.kind} ${x.n}[${x.basis}]`).join(', ')}`)),
      ],
    }],
  },
];
