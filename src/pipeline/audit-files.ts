/**
 * `kexp audit`: audit logs → the same controller model and Report as `kexp replay`.
 *
 * Each file is streamed by openAuditSource (writes with status and actor; successful writes'
 * responseObjects as observations at their stageTimestamp); several files — several
 * apiservers — are merged by time. The replay engine's EvidenceOracle then takes each
 * sync's creates and deletes from the ReplicaSet controller's own writes (status 201 ok,
 * 403 NamespaceTerminating counted as success, other failures walked back), so rounds and
 * walk-backs are `observed`; the gating itself stays `inferred` (no audit record shows it).
 */
import { collectBetweenPhases } from './phase-collection.js';
import { openAuditSource, type AuditOpenedSource, type AuditFileSummary, type AuditWriteEvent } from '../sources/audit/audit-source.js';
import { inputsLabel, MemoryBound } from '../sources/memory-bound.js';
import { startLeasePass, type LeasePass } from '../sources/audit/lease-pass.js';
import { mergeSources } from '../sources/watch/index.js';
import type { FileCoverage, InputProblem } from '../sources/source.js';
import { collectDiagnostics } from '../sources/diagnostics.js';
import { replayOwnerKinds, withDaemonSets, withReplicationControllers } from './owner-kind-replay.js';
import { buildReport } from '../analysis/report-builder.js';
import type { Report } from '../analysis/report-types.js';
import { DEFAULT_K8S_VERSION, parseK8sVersion, versionInfo, type VersionInfo } from '../model/version.js';
import { KEXP_VERSION } from '../version.js';
import { fuseControllerLog } from '../analysis/controller-log.js';
import { podRelistEnds, readControllerLogs, splitControllerLogs, versionFromLog } from './controller-log-files.js';
import { auditInputsOfDirs } from './dump-inputs.js';
import { tapReplicaSetLabels, type ReplicaSetLabels } from './replicaset-labels.js';
import { ReadInterrupt } from './read-interrupt.js';
import { leaseWritesRead } from '../analysis/engine/leadership.js';

export interface AuditFilesOptions {
  files: string[];
  /** kube-controller-manager logs to fuse (inputs that sniff as one are added automatically). */
  kcmLogs?: string[];
  rs?: string;
  since?: number;
  until?: number;
  k8sVersion?: string;
  matchWindowMs?: number;
  stdin?: NodeJS.ReadableStream;
  onWarning?: (m: string) => void;
  onProblem?: (p: InputProblem) => void;
  /** Ctrl-C/SIGTERM: stop reading, replay what was read (read-interrupt.ts). */
  signal?: AbortSignal;
}

export interface AuditFilesResult {
  report: Report;
  problems: InputProblem[];
  summaries: AuditFileSummary[];
  /** Pod writes by the ReplicaSet controller seen (whatever the level). */
  rsControllerWrites: number;
  /** The labels of every ReplicaSet the audit bodies showed, by namespace/name (for `-l`). */
  labels: ReplicaSetLabels;
  /** Set when the signal stopped the reading: how far it got ("after N lines of FILE (X MB read)"). */
  interrupted?: string;
}

/** The version of the apiserver, from the kube-controller-manager user agent of the first RS-controller write. */
function versionFromUserAgent(ua: string | undefined): string | undefined {
  const m = ua ? /kube-controller-manager\/(v\d+\.\d+\.\d+)/.exec(ua) : null;
  return m?.[1];
}

/** Events the pre-scan reads at most before giving up (it usually stops within the first few). */
const PRESCAN_EVENTS = 500_000;

/**
 * Does the log record the ReplicaSet controller's pod writes at all (its audit policy logs
 * them)? Then a write it does not show was not made. A short pre-scan that stops at the first
 * such write (and notes the first record's time and the version its user agent names, which is
 * the version kexp models); stdin cannot be read twice, so there the engine decides from its
 * look-ahead and the version is the flag's or the default.
 *
 * The DaemonSet and Job controllers' pod writes are noted on the way (`workloadWrites`, and the
 * version from the user agent of the first of them when the ReplicaSet controller wrote none): the
 * pre-scan never reads further for them, so a log the ReplicaSet controller wrote pods in costs what
 * it did.
 */
async function prescan(files: string[], signal?: AbortSignal): Promise<{ recorded?: boolean; workloadWrites?: boolean; firstAt?: number; userAgentVersion?: string }> {
  const quiet = { problem: () => undefined, warn: () => undefined };
  let read = 0;
  let firstAt: number | undefined;
  /** The first pod write of the DaemonSet or the Job controller: its user agent's version. */
  let workload: { userAgentVersion?: string } | undefined;
  const others = (): { workloadWrites?: boolean; userAgentVersion?: string } =>
    workload ? { workloadWrites: true, ...(workload.userAgentVersion ? { userAgentVersion: workload.userAgentVersion } : {}) } : {};
  for (const f of files) {
    if (f === '-') return { firstAt, ...others() };
    // Usually stops at the first few records: not worth a reader thread's start-up.
    const src = await openAuditSource(f, { diagnostics: quiet, readerThread: 'off' });
    for await (const e of src.events) {
      if (signal?.aborted) return { firstAt, ...others() };
      firstAt ??= e.at;
      if (e.type === 'write' && e.resource === 'pods' && !e.subresource) {
        if (e.actor.controller === 'replicaset-controller') {
          const userAgentVersion = versionFromUserAgent(e.actor.userAgent);
          return { recorded: true, firstAt, ...(workload ? { workloadWrites: true } : {}), ...(userAgentVersion ? { userAgentVersion } : {}) };
        }
        if ((e.actor.controller === 'daemon-set-controller' || e.actor.controller === 'job-controller') && !workload) {
          const userAgentVersion = versionFromUserAgent(e.actor.userAgent);
          workload = userAgentVersion ? { userAgentVersion } : {};
        }
      }
      if (++read >= PRESCAN_EVENTS) return { firstAt, ...others() };
    }
  }
  return { recorded: false, firstAt, ...others() };
}

export async function auditFiles(o: AuditFilesOptions): Promise<AuditFilesResult> {
  const diagnostics = collectDiagnostics(o.onProblem, o.onWarning);
  if (o.k8sVersion) parseK8sVersion(o.k8sVersion);
  const stop = o.signal ? new ReadInterrupt(o.signal) : undefined;
  const stdin = stop && o.stdin ? stop.stdin(o.stdin) : o.stdin;
  // Any mix of inputs: a kube-controller-manager log among them is used beside the audit logs.
  // A directory (a must-gather) gives its kube-apiserver audit logs and kube-controller-manager logs (src/sources/dump-dir.ts).
  const dirs = await auditInputsOfDirs(o.files, diagnostics);
  const split = dirs.files.length ? await splitControllerLogs(dirs.files, 'audit') : { kcm: [] as string[], rest: [] as string[] };
  const kcmLogs = [...(o.kcmLogs ?? []), ...split.kcm, ...dirs.kcm];
  const files = [...split.rest, ...dirs.audit];
  // The kube-controller-manager Lease's writes (who led when): the engine must know a stretch with
  // no leader when it begins, and the new holder's write comes only at its end, so the Lease is read
  // before the replay — on a worker for large files (lease-pass.ts), beside the opening and the pre-scan.
  const leasePass = startLeasePass(files, o.signal ? { signal: o.signal } : {});
  try {
    return await replayAudit(o, files, kcmLogs, leasePass, diagnostics, stop, stdin);
  } finally {
    leasePass.close();
  }
}

async function replayAudit(
  o: AuditFilesOptions,
  files: string[],
  kcmLogs: Parameters<typeof readControllerLogs>[0],
  leasePass: LeasePass,
  diagnostics: ReturnType<typeof collectDiagnostics>,
  stop: ReadInterrupt | undefined,
  stdin: AuditFilesOptions['stdin'],
): Promise<AuditFilesResult> {
  const problems = diagnostics.problems;
  const sources: AuditOpenedSource[] = [];
  for (const f of files) {
    // `since` is applied to the report, not the input: the model must replay what came before it.
    sources.push(await openAuditSource(f, { diagnostics, stdin: stdin as never, until: o.until }));
  }
  let uaVersion: string | undefined;
  const pre = await prescan(files, o.signal);
  // Only the writes the engine reads stay for the replay (a renewal every 2 s would otherwise
  // grow with the input: bench/README.md "Memory by live objects", second session).
  const lease = leaseWritesRead(await leasePass.writes());
  // One answer for every engine (owner-kind-replay.ts): an audit policy that records the
  // ReplicaSet controller's pod writes records the DaemonSet and Job controllers' too (policies
  // select pods by resource and verb); a log with the DaemonSet or Job controller's pod writes but
  // none of the ReplicaSet controller's leaves it to each engine's look-ahead (its own controller's
  // writes seen), so none is told another's answer.
  const writesRecorded = pre.recorded === false && pre.workloadWrites ? undefined : pre.recorded;
  // klog lines carry no year: take it from the audit log's first record.
  const controllerLog = kcmLogs.length
    ? await readControllerLogs(kcmLogs, { diagnostics, ...(pre.firstAt !== undefined ? { otherInputs: { at: pre.firstAt, what: "the audit log's first event" } } : {}) })
    : undefined;
  const labels: ReplicaSetLabels = new Map();
  const merged = tapReplicaSetLabels(mergeSources(sources), labels);
  const byRS = new Map<string, { creates: number; createFailures: number; deletes: number; deleteFailures: number; first: number; last: number }>();
  // Duplicates by auditID (the same file given twice, overlapping rotations, two audit
  // backends): counted once and said. The merge is time-ordered and a duplicate carries the
  // same stageTimestamp, so only the last minute of auditIDs is remembered (bounded memory).
  const recentIDs = new Map<string, { at: number; file: string; line: number }>();
  // recentIDs' keys and times in its order (keys are only added new and forgotten from the
  // front), so forgetting the older ones reads two arrays instead of making a Map iterator per write.
  const idOrder: string[] = [];
  const idAt: number[] = [];
  let idHead = 0;
  const duplicates = { count: 0, rsController: 0, first: undefined as undefined | { file: string; line: number; of: { file: string; line: number } } };
  async function* tap() {
    for await (const e of merged) {
      if (stop?.reached(e.source)) return;
      if (e.type === 'write' && e.auditID !== undefined) {
        const seen = recentIDs.get(e.auditID);
        if (seen) {
          duplicates.count++;
          if (e.actor.controller === 'replicaset-controller') duplicates.rsController++;
          duplicates.first ??= { file: e.source.file, line: e.source.line, of: { file: seen.file, line: seen.line } };
          continue;
        }
        recentIDs.set(e.auditID, { at: e.at, file: e.source.file, line: e.source.line });
        idOrder.push(e.auditID);
        idAt.push(e.at);
        while (idHead < idOrder.length && !(idAt[idHead]! >= e.at - 60_000)) recentIDs.delete(idOrder[idHead++]!);
        if (idHead >= 4096 && idHead * 2 >= idOrder.length) {
          idOrder.splice(0, idHead);
          idAt.splice(0, idHead);
          idHead = 0;
        }
      }
      if (e.type === 'write' && e.actor.controller === 'replicaset-controller') {
        if (!uaVersion) uaVersion = versionFromUserAgent(e.actor.userAgent);
        const owner = (e as unknown as AuditWriteEvent).owner;
        if (e.resource === 'pods' && !e.subresource && (e.verb === 'create' || e.verb === 'delete') && owner?.state === 'owned' && owner.kind === 'ReplicaSet') {
          const key = `${e.namespace}/${owner.name}`;
          let w = byRS.get(key);
          if (!w) byRS.set(key, (w = { creates: 0, createFailures: 0, deletes: 0, deleteFailures: 0, first: e.at, last: e.at }));
          const failed = e.status.code >= 300 && e.status.code !== 404;
          if (e.verb === 'create') failed ? w.createFailures++ : w.creates++;
          else failed ? w.deleteFailures++ : w.deletes++;
          w.last = e.at;
        }
      }
      yield e;
    }
  }
  // The version to model must be known before the first sync: the flag, else the user agent of
  // the controller's first pod write (the pre-scan stops there), else the default.
  // the flag, else the user agent, else the KCM log's start-up line, else the default.
  const fromLog = !o.k8sVersion && !pre.userAgentVersion ? versionFromLog(controllerLog?.version) : undefined;
  const version: VersionInfo = o.k8sVersion
    ? versionInfo(o.k8sVersion, 'flag')
    : pre.userAgentVersion
      ? versionInfo(pre.userAgentVersion, 'input')
      : fromLog?.info ?? { version: DEFAULT_K8S_VERSION, basis: 'default' };
  if (version.modelledAs) diagnostics.warn(`kube-controller-manager ${version.version} (${version.basis === 'flag' ? '--k8s-version' : 'its user agent'}) is replayed as ${version.modelledAs} with its known differences (see the report's assumptions)`);
  const k8s = parseK8sVersion(version.version);
  // The model holds every owner of the input (--rs narrows the report only): bounded as the reading is.
  const memory = new MemoryBound();
  const inputNames = inputsLabel(o.files);
  const results = await replayOwnerKinds(tap(), {
    onEventReplayed: () => memory.replayed(inputNames),
    version: k8s,
    rsFilter: o.rs,
    // Writes are the evidence here and a throttled round of 500 creates takes ~25 s.
    matchWindowMs: o.matchWindowMs ?? 60_000,
    eventsWatched: true,
    writeEvidence: 'audit',
    ...(controllerLog ? { controllerStarts: controllerLog.starts, podInformerRelists: podRelistEnds(controllerLog), leaseLines: controllerLog.leaseLines } : {}),
    ...(lease.length ? { leaseWrites: lease } : {}),
    ...(writesRecorded !== undefined ? { writesRecorded } : {}),
    onInvalidEvent: (src, message) => diagnostics.problem({ file: src.file, line: src.line, message }),
    coverageStart: () => {
      const starts = sources.map((s) => s.summary().start).filter((e): e is number => e !== undefined);
      return starts.length ? Math.min(...starts) : undefined;
    },
    coverageEnd: () => {
      const ends = sources.map((s) => s.coverage().end).filter((e): e is number => e !== undefined);
      const end = ends.length ? Math.max(...ends) : undefined;
      return end !== undefined && o.until !== undefined ? Math.min(end, o.until) : end;
    },
  });
  // The replay's garbage goes before the report is built (phase-collection.ts).
  collectBetweenPhases();
  const result = results.replicaSets;
  const summaries = sources.map((s) => s.summary());
  const inputs: FileCoverage[] = sources.map((s) => s.coverage());
  const levels = [...new Set(summaries.flatMap((s) => s.relevantLevels))];
  const assumptions = [
    'Observations are the successful writes\' responseObjects at their stageTimestamp: kube-controller-manager\'s informers see them a few milliseconds later.',
  ];
  if (fromLog) assumptions.push(fromLog.note);
  if (uaVersion && uaVersion !== version.version) {
    assumptions.push(`kube-controller-manager's user agent says ${uaVersion}; modelled ${version.version} (${version.basis}).${version.basis === 'flag' ? '' : ` Use --k8s-version ${uaVersion} to model it.`}`);
  }
  if (levels.length && !levels.includes('RequestResponse')) {
    assumptions.push(`The audit level is ${levels.join('/')}: no response bodies, so pods and ReplicaSets cannot be observed and the controller cannot be reconstructed; only its writes are counted.`);
  }
  if (writesRecorded) {
    assumptions.push('The audit policy records the ReplicaSet controller\'s pod writes, so a create or delete the model predicts but the log does not show was not made (reported as withheld, never as made or failed).');
  } else if (pre.recorded === false) {
    assumptions.push('The log holds no pod write of the ReplicaSet controller: its creates and deletes cannot be confirmed or ruled out, so their outcomes are unknown.');
  }
  if (duplicates.first) {
    const d = duplicates.first;
    const msg = `${duplicates.count} duplicate audit event(s) (an auditID seen before: the same log given twice or overlapping rotations) counted once; the first at ${d.file}:${d.line}, a copy of ${d.of.file}:${d.of.line}`;
    assumptions.push(msg[0]!.toUpperCase() + msg.slice(1) + '.');
    diagnostics.warn(msg);
  }
  const incomplete = summaries.reduce((n, s) => n + s.incomplete.count, 0);
  if (stop?.interrupted) assumptions.push(stop.note());
  if (incomplete) assumptions.push(`${incomplete} request(s) have no ResponseComplete in the input (apiserver crash or truncated log); they are not counted.`);
  const build = { matchWindowMs: o.matchWindowMs ?? 60_000, command: 'audit', kexpVersion: KEXP_VERSION, k8sVersion: version, inputs, problems, problemCount: problems.length + summaries.reduce((n, s) => n + s.problemsNotShown, 0), assumptions, since: o.since };
  let report = buildReport(result, build);
  if (controllerLog) {
    // The controller's own log checks the reconstruction (unless it covers another time: said).
    const fused = fuseControllerLog(report, controllerLog, { kind: 'replay', result, since: o.since });
    if (fused.notUsed) diagnostics.warn(fused.notUsed);
    report = fused.report;
  }
  // The ReplicationControllers, replayed by their own engine: their reports beside the ReplicaSets'.
  report = withDaemonSets(withReplicationControllers(report, results, build, controllerLog, o.since), results, build, controllerLog, o.since);
  const inReport = new Set(report.replicaSets.filter((r) => r.kind === undefined).map((r) => r.key));
  const writes = [...byRS.entries()].filter(([k]) => !o.rs || k === o.rs).sort(([a], [b]) => a.localeCompare(b));
  if (writes.length) {
    report.coverage.controllerWrites = writes.map(([k, w]) => ({
      replicaSet: k, creates: w.creates, createFailures: w.createFailures, deletes: w.deletes, deleteFailures: w.deleteFailures,
      first: new Date(w.first).toISOString(), last: new Date(w.last).toISOString(), inReport: inReport.has(k),
    }));
  }
  const missing = writes.filter(([k]) => !inReport.has(k)).length;
  if (missing) {
    report.coverage.assumptions.push(`${missing} ReplicaSet(s) had pod writes by the ReplicaSet controller but their ReplicaSet object is not in the log (no create/update of it at RequestResponse level), so only their writes are counted (coverage.controllerWrites).`);
  }
  return { report, problems, summaries, labels, rsControllerWrites: summaries.reduce((n, s) => n + s.rsControllerWrites, 0) - duplicates.rsController, ...(stop?.interrupted ? { interrupted: stop.describe() } : {}) };
}
