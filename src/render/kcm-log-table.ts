/**
 * Text rendering of `kexp kcm-log` results (kube-controller-manager's own account per
 * ReplicaSet — and per ReplicationController, DaemonSet and Job, named with their kind —
 * optional scores): a summary first — which owners the log shows leaking expectations or
 * clobbering delete keys, with kubectl commands for them — then per owner its sync counts and a
 * borderless table of gated windows (a DaemonSet's rolling-update checks and a Job's finalizer
 * tracking after it), then the inputs.
 * Fits `width` like the other renderers (table.ts); `wide` prints every cell and list in full.
 */
import { pct } from '../analysis/fidelity.js';
import { KUBECTL_RESOURCE, type KcmLogRelist, type KcmLogReplicaSet, type KcmLogResult } from '../pipeline/kcm-log-files.js';
import { formatTable, type Column } from './columns.js';
import { breakCommand } from './next-steps.js';
import { terminalSafeDeep } from './terminal-safe.js';
import { fitLine, labelled, wrap } from './text.js';
import { clockFor, dateSuffix, sectionDate } from './times.js';
import { finalizerTrackingLine, rollingUpdateChecksLine } from './workload-stores.js';

const RAISES_SHOWN = 8;

export interface KcmLogRenderOptions {
  width?: number;
  wide?: boolean;
  /** The log was cut short by Ctrl-C/SIGTERM: how far it was read (the verdict line says PARTIAL). */
  partial?: string;
}

/** Gated at the end of the log: a window still open with syncs refused. */
function stillGated(rs: KcmLogReplicaSet): boolean {
  return rs.gatedWindows.some((w) => w.ended === 'open' && w.gatedSyncs > 0);
}

/** A leak in the log's past: a window only the 5-minute timeout ended, or delete keys clobbered. */
function pastLeak(rs: KcmLogReplicaSet): boolean {
  return rs.gatedWindows.some((w) => w.ended === 'expired') || rs.clobbers.length > 0;
}

/** Its creates or deletes still fail at the end of the log (the controller's own Warning Events). */
function failing(rs: KcmLogReplicaSet): boolean {
  return (rs.failures ?? []).some((f) => f.current);
}

const plural = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`;

/** An entry as the summary names it: a ReplicaSet by its key, another kind with its kind (`DaemonSet kube-system/node-exporter`). */
function label(rs: KcmLogReplicaSet): string {
  return rs.kind ? `${rs.kind} ${rs.key}` : rs.key;
}

/** `3 ReplicaSets`, or per kind when the log has others (`2 ReplicaSets, 1 DaemonSet`). */
function counted(rss: KcmLogReplicaSet[]): string {
  const by = new Map<string, number>();
  for (const rs of rss) by.set(rs.kind ?? 'ReplicaSet', (by.get(rs.kind ?? 'ReplicaSet') ?? 0) + 1);
  return [...by].map(([k, n]) => plural(n, k)).join(', ');
}

/** The order kinds are listed in (as their entries follow a ReplicaSet of the same key). */
const KIND_ORDER = ['ReplicationController', 'DaemonSet', 'Job'];

/** What each kind's round lines say (the rounds' source, quoted). */
const ROUND_LINES: Record<NonNullable<KcmLogReplicaSet['kind']> | 'ReplicaSet', string> = {
  ReplicaSet: '"Too few / Too many replicas"',
  ReplicationController: '"Too few / Too many replicas"',
  DaemonSet: '"Nodes needing daemon pods / Pods to delete for daemon set"',
  Job: '"Too few / Too many pods running"',
};

/** "1m30s" from milliseconds, as replay's Cause line says a leak's length. */
function span(ms: number): string {
  const s = Math.round(ms / 1000);
  return s >= 60 ? `${Math.floor(s / 60)}m${s % 60}s` : `${s}s`;
}

/**
 * The Cause line of a leak in the log's past, in replay's words (report/verdict-cause): the
 * first expired window (or clobbered delete keys) of the first ReplicaSet that had one.
 */
function leakCause(past: KcmLogReplicaSet[]): string | undefined {
  const rs = past[0];
  if (!rs) return undefined;
  const w = rs.gatedWindows.find((x) => x.ended === 'expired');
  const rest = past.slice(1);
  const others = rest.length ? ` (and ${rest.every((x) => !x.kind) ? plural(rest.length, 'other ReplicaSet') : `${counted(rest)} more`})` : '';
  if (w && w.end) {
    return `Expectations leaked and were only cleared by the 5-minute timeout (after ${span(Date.parse(w.end) - Date.parse(w.start))}): ${label(rs)}, ${plural(w.gatedSyncs, 'gated sync')} from ${w.start} (${w.evidence})${others}.`;
  }
  const c = rs.clobbers[0];
  return c ? `An earlier deletion round of ${label(rs)} never completed: its delete keys were clobbered at ${c.at} (${c.evidence})${others}.` : undefined;
}

/**
 * The verdict line in replay's words — the state at the end of the log (`LEAKED [observed]`:
 * still gated on a record waiting past its syncs, `FAILING [observed]`, `DELETED [observed]`,
 * `HEALTHY [observed]`, `UNKNOWN [unknown]`: table.ts renderSummary) — then, as replay says it,
 * the Cause when the log shows a leak that only the timeout cleared, then what to do next.
 */
export function kcmLogSummary(r: KcmLogResult, o: { width: number; partial?: string }): string[] {
  const width = o.width;
  if (r.replicaSets.length === 0) return [];
  const gated = r.replicaSets.filter(stillGated);
  const past = r.replicaSets.filter((rs) => !stillGated(rs) && pastLeak(rs));
  const fails = r.replicaSets.filter(failing);
  const out: string[] = [];
  const n = counted(r.replicaSets);
  const cause = gated.length === 0 ? leakCause(past) : undefined;
  // The state at the end of the log, in replay's words.
  let end: string;
  if (gated.length > 0) {
    end = `LEAKED [observed] — kube-controller-manager's log shows ${counted(gated)} still gated on expectations at its end: ${gated.map(label).join(', ')}.`;
  } else if (fails.length > 0) {
    const f = fails[0]!.failures.find((x) => x.current)!;
    const what = f.kind === 'create' ? 'creates' : 'deletes';
    end = `FAILING [observed] — ${what} failing for ${fails.map(label).join(', ')}: ${f.cause} (${f.reason} ×${f.count}, the controller's own Events, first ${f.evidence}).`;
  } else if (!r.verbosity.atLeastV4) {
    const rounds = r.replicaSets.reduce((k, rs) => k + rs.rounds.length, 0);
    const confirmed = r.replicaSets.reduce((k, rs) => k + rs.rounds.filter((x) => (x.confirmed?.succeeded ?? 0) > 0).length, 0);
    const why = r.verbosity.olderThanModelled ? 'the log is older than kexp models and shows no gate decision' : 'the log is below -v=4, where they are not printed';
    end = `UNKNOWN [unknown] — the gate and the expectations are not visible: ${why}, so no gated window or leak can be told from it, nor their absence (${n}, ${plural(rounds, 'round')} seen${rounds ? `, ${confirmed} confirmed by the controller's own Events` : ''}).`;
  } else {
    // Failures that ended (a later success, or the ReplicaSet deleted since) are history, said with the verdict.
    const history = r.replicaSets.flatMap((rs) => (rs.failures ?? []).map((f) => `${label(rs)}: its ${f.kind}s failed until ${f.last}${rs.deleted && rs.deleted >= f.last ? `, then it was deleted (${rs.deleted})` : ''} — ${f.cause} (${f.reason} ×${f.count})`));
    const allDeleted = r.replicaSets.every((rs) => rs.deleted !== undefined);
    const leaks = past.length ? 'after the leak below' : 'with no leaked expectations before';
    end = allDeleted
      ? `DELETED [observed] — the log shows ${r.replicaSets.length === 1 ? `the ${r.replicaSets[0]!.kind ?? 'ReplicaSet'}` : `all ${n}`} deleted, ${leaks}${history.length ? `; ${history.slice(0, 2).join('; ')}` : ''}.`
      : `HEALTHY [observed] — not gated at the end of the log (${n})${past.length ? ', after the leak below' : ', no leaked expectations'}${history.length ? `; history: ${history.slice(0, 2).join('; ')}` : ''}.`;
  }
  // A window only the timeout ended sets exit code 4 (report-exit.ts exitCodeForKcmLog): the
  // verdict leads with that leak, and says the state at the end after it — one story.
  const expired = gated.length === 0 ? r.replicaSets.filter((rs) => rs.gatedWindows.some((w) => w.ended === 'expired')) : [];
  const partial = o.partial ? ` PARTIAL (interrupted ${o.partial})` : '';
  const verdict = expired.length
    ? `LEAKED [observed]${partial} — expectations of ${expired.map(label).join(', ')} leaked and only the 5-minute timeout cleared them (exit code 4); now ${end.replace(/ — /, ': ')}`
    : end.replace(/^([A-Z]+ \[\w+\])/, `$1${partial}`);
  out.push(labelled('Verdict: ', verdict, width));
  if (cause) out.push(labelled('Cause:   ', cause, width));
  const leakedKeys = gated.length ? gated : past;
  if (leakedKeys.length > 0) {
    out.push(labelled('Next:    ', 'find why the expected pod events never reached the controller (watch gaps, relists, a terminating namespace):', width));
    for (const b of leakedKeys.slice(0, 3)) {
      const [ns, name] = b.key.split('/');
      if (!ns || !name) continue;
      out.push(...breakCommand(`kubectl -n ${ns} get events --field-selector involvedObject.name=${name}`, width, '  '));
      out.push(...breakCommand(`kubectl -n ${ns} describe ${KUBECTL_RESOURCE[b.kind ?? 'ReplicaSet']} ${name}`, width, '  '));
    }
  }
  // Creates or deletes still failing: their next step too (after the leak's, when both).
  for (const rs of fails.slice(0, 3)) {
    for (const f of rs.failures.filter((x) => x.current)) {
      out.push(labelled('Next:    ', `${label(rs)}: ${f.nextStep}:`, width));
      for (const c of f.commands) out.push(...breakCommand(c, width, '  '));
    }
  }
  return out;
}

/** What a round's Events say: `, 1 SuccessfulCreate` (and the failures). */
function confirmation(x: KcmLogReplicaSet['rounds'][number]): string {
  const c = x.confirmed;
  if (!c) return '';
  const ok = x.kind === 'create' ? 'SuccessfulCreate' : 'SuccessfulDelete';
  const bad = x.kind === 'create' ? 'FailedCreate' : 'FailedDelete';
  return `: ${[c.succeeded ? `${c.succeeded} ${ok}` : '', c.failed ? `${c.failed} ${bad}` : ''].filter(Boolean).join(', ')} (${c.evidence[0]}${c.evidence.length > 1 ? ' …' : ''})`;
}

/** The controller's own Events of one ReplicaSet, and its failed creates/deletes with their cause. */
function renderEvents(rs: KcmLogReplicaSet, clock: (t: string | undefined) => string, width: number, wide: boolean, date: string): string[] {
  const evs = rs.events ?? [];
  if (evs.length === 0) return [];
  const out: string[] = [];
  const byReason = new Map<string, number>();
  for (const e of evs) byReason.set(e.reason, (byReason.get(e.reason) ?? 0) + 1);
  // The Events of a round are cited on its round; the others are listed.
  const outside = evs.filter((e) => e.round === undefined);
  const shown = wide ? outside : outside.slice(0, RAISES_SHOWN);
  const one = (e: KcmLogReplicaSet['events'][number]) => `${clock(e.at)} ${e.reason}${e.pod ? ` ${e.pod.slice(e.pod.indexOf('/') + 1)}` : ''} (${e.evidence})`;
  const where = outside.length === 0 ? 'all in its rounds' : `${outside.length} outside every round — ${shown.map(one).join('; ')}${outside.length > shown.length ? `; … ${outside.length - shown.length} more (-o wide)` : ''}`;
  out.push(wrap(`Events (observed: the controller's own)${date}: ${[...byReason].map(([k, v]) => `${v} ${k}`).join(', ')}; ${where}`, width, '  '));
  for (const f of rs.failures ?? []) {
    out.push(wrap(`${f.current ? '[FAILING]' : '[FAILED, recovered]'} ${f.reason} ×${f.count} ${f.first === f.last ? clock(f.first) : `${clock(f.first)}–${clock(f.last)}`}: ${f.cause} — ${f.message} (${f.evidence})`, width, '  '));
  }
  return out;
}

/** Pod writes and slow-start failures of one ReplicaSet (lines printed at -v=2 too). */
function renderTail(rs: KcmLogReplicaSet, clock: (t: string | undefined) => string, width: number, belowV4: boolean): string[] {
  const a = rs.accounting;
  const out: string[] = [];
  out.push(wrap(`Pod writes logged: ${a.writes} ("Controller created pod" / "Deleting pod"), ${a.inRounds} in its ${a.rounds} round(s), ${a.outsideRounds.length} outside every round${a.outsideRounds.length ? ` (first ${clock(a.outsideRounds[0]!.at)} ${a.outsideRounds[0]!.kind} ${a.outsideRounds[0]!.pod ?? ''} ${a.outsideRounds[0]!.evidence})` : ''}${belowV4 ? '; "Controller created pod" needs -v=4, so only deletes are logged here' : ''}`, width, '  '));
  const cs = rs.consistencySkips ?? [];
  if (cs.length) {
    const first = cs[0]!;
    out.push(wrap(`Consistency gate (1.36+ StaleControllerConsistency${rs.kind ?? 'ReplicaSet'}): ${cs.length} sync(s) skipped ${clock(first.at)}–${clock(cs[cs.length - 1]!.at)}: the ${first.resource} informer had not yet observed the controller's own last write (read resourceVersion ${first.readResourceVersion ?? '?'} < written ${first.writtenResourceVersion ?? '?'}, ${first.evidence}) — skipped before the expectations check, not gated by expectations`, width, '  '));
  }
  if (rs.syncFailures) out.push(wrap(`Failed syncs (rate-limited requeue): ${rs.syncFailures}`, width, '  '));
  if (rs.slowStartFailures.length) out.push(wrap(`Slow-start failures: ${rs.slowStartFailures.length} (first ${clock(rs.slowStartFailures[0]!.at)}, podsSkipped ${rs.slowStartFailures[0]!.podsSkipped ?? '?'})`, width, '  '));
  return out;
}

export function renderKcmLog(r: KcmLogResult, o: KcmLogRenderOptions = {}): string {
  const width = o.width ?? 100;
  const wide = o.wide ?? false;
  r = terminalSafeDeep(r);
  const out: string[] = [];
  if (r.replicaSets.length === 0) out.push('No ReplicaSet, ReplicationController, DaemonSet or Job controller activity found in the log.');
  const head = kcmLogSummary(r, { width, partial: o.partial });
  if (head.length) out.push(...head, '');
  for (const rs of r.replicaSets) {
    const s = rs.syncs;
    const date = sectionDate([...rs.raises.map((x) => x.at), ...rs.gatedWindows.map((w) => w.start), ...rs.rounds.map((x) => x.at)]);
    const clock = clockFor(date);
    out.push(fitLine(`${rs.kind ?? 'ReplicaSet'} ${rs.key}  (kube-controller-manager's own account: observed)`, width, wide));
    if (s.basis === 'gate-decisions') out.push(wrap(`Syncs ${s.total}: ${s.gated} gated (still waiting), ${s.fulfilled} fulfilled, ${s.expired} expired, ${s.neverRecorded} never recorded`, width, '  '));
    else if (s.basis === 'finished-syncing') out.push(wrap(`Syncs ${s.finishedLines} seen ("Finished syncing" lines); their gate decisions are not logged below -v=4`, width, '  '));
    else out.push(wrap('Syncs: not logged at this verbosity (no "Finished syncing" or expectations line)', width, '  '));
    if (rs.rounds.length) {
      const rd = wide ? rs.rounds : rs.rounds.slice(0, RAISES_SHOWN);
      const one = (x: KcmLogReplicaSet['rounds'][number]) => `${clock(x.at)} ${x.kind} ${x.count ?? '?'}${x.desired !== undefined ? ` (desired ${x.desired})` : ''}${confirmation(x)}`;
      out.push(wrap(`Rounds (observed: ${ROUND_LINES[rs.kind ?? 'ReplicaSet']})${dateSuffix(date)}: ${rs.rounds.length} — ${rd.map(one).join('; ')}${rs.rounds.length > rd.length ? `; … ${rs.rounds.length - rd.length} more (-o wide)` : ''}`, width, '  '));
    }
    out.push(...renderEvents(rs, clock, width, wide, dateSuffix(date)));
    if (!r.verbosity.atLeastV4) {
      out.push(...renderTail(rs, clock, width, true));
      out.push('');
      continue;
    }
    const raises = wide ? rs.raises : rs.raises.slice(0, RAISES_SHOWN);
    out.push(wrap(`SetExpectations${dateSuffix(date)}: ${rs.raises.length}${rs.raises.length ? ' — ' + raises.map((x) => `${clock(x.at)} add ${x.add ?? '?'} del ${x.del ?? '?'}`).join('; ') + (rs.raises.length > raises.length ? `; … ${rs.raises.length - raises.length} more (-o wide)` : '') : ''}`, width, '  '));
    if (rs.gatedWindows.length) {
      out.push(`  Gated windows${dateSuffix(date)}`);
      const columns: Column[] = [
        { header: 'Start', kind: 'fixed' }, { header: 'End', kind: 'fixed' }, { header: 'Ended', kind: 'fixed' },
        { header: 'Expected', kind: 'fixed' }, { header: 'Leaked', kind: 'fixed' }, { header: 'Syncs', kind: 'fixed', align: 'right' }, { header: 'Evidence', kind: 'flex' },
      ];
      const rows = rs.gatedWindows.map((w) => [clock(w.start), clock(w.end), w.ended, w.expected ? `${w.expected.add ?? '?'}/${w.expected.del ?? '?'}` : '?', w.leaked ? `${w.leaked.add}/${w.leaked.del}` : w.leakedUnknown ? '?' : '—', String(w.gatedSyncs), w.evidence]);
      out.push(...formatTable(columns, rows, { width, wide, indent: '  ' }));
      for (const w of rs.gatedWindows) if (w.leakedUnknown) out.push(wrap(`Leaked ? (window from ${clock(w.start)}): ${w.leakedUnknown}`, width, '  '));
    }
    out.push(...ownerLines(rs, clock, width, wide));
    for (const c of rs.clobbers) out.push(wrap(`[ERROR] Clobbering existing delete keys at ${clock(c.at)}: ${c.keys.join(', ')} (${c.evidence}) — an earlier deletion round never completed`, width, '  '));
    out.push(...renderTail(rs, clock, width, false));
    if (rs.compare) {
      const c = rs.compare;
      out.push(wrap(`Compare: decisions ${pct(c.syncs.matched, c.syncs.total)} matched (${c.syncs.mismatched} wrong, ${c.syncs.unknown} unknown); Sets ${pct(c.raises.exact, c.raises.total)} exact; leaks ${c.leaks.truePositive}/${c.leaks.truth} found, ${c.leaks.found - c.leaks.truePositive} false`, width, '  '));
      for (const m of wide ? c.mismatches : c.mismatches.slice(0, 5)) out.push(wide ? `    ${m}` : fitLine(`    ${m}`, width));
    }
    out.push('');
  }
  if (r.compare) {
    const c = r.compare.overall;
    out.push(wrap(`Overall vs ${r.compare.report}: decisions ${pct(c.syncs.matched, c.syncs.total)} of ${c.syncs.total} (${c.syncs.mismatched} wrong, ${c.syncs.unknown} unknown); Sets ${pct(c.raises.exact, c.raises.total)} exact of ${c.raises.total}; leaks found ${c.leaks.truePositive}/${c.leaks.truth}, false ${c.leaks.found - c.leaks.truePositive}`, width, ''));
  }
  const t = clockFor(undefined);
  for (const i of r.inputs) {
    const kinds = Object.entries(i.stats.ownerKinds ?? {}).sort(([a], [b]) => KIND_ORDER.indexOf(a) - KIND_ORDER.indexOf(b));
    const read = kinds.reduce((a, [, k]) => a + k.events, 0);
    const skipped = Object.values(i.stats.excluded).reduce((a, b) => a + b, 0) - read;
    const others = kinds.length ? `${kinds.map(([kind, k]) => `${k.events} ${kind}`).join(', ')} lines, ` : '';
    const fromContext = i.stats.contextResolved + kinds.reduce((a, [, k]) => a + k.contextResolved, 0);
    out.push(wrap(`Input: ${i.file} (${i.format}, ${i.stats.records} records, ${i.stats.events} ReplicaSet lines, ${others}${skipped} from other controllers skipped, ${fromContext} keyless lines attributed from context) ${t(i.start)} → ${t(i.end)}${i.year.note ? `; ${i.year.note}` : ''}`, width, ''));
  }
  if (r.restarts.length) out.push(wrap(`Controller restarts (expectations wiped): ${r.restarts.map((x) => t(x)).join(', ')}`, width, ''));
  for (const [kind, starts] of Object.entries(r.ownerKindRestarts ?? {})) {
    out.push(wrap(`${kind === 'ReplicationController' ? 'ReplicationController manager' : `${kind} controller`} starts (its expectations wiped): ${starts.map((x) => t(x)).join(', ')}`, width, ''));
  }
  if (r.informerRelists?.length) out.push(...relistLines(r.informerRelists, t, width, wide));
  return out.join('\n') + '\n';
}

/**
 * What only a DaemonSet or a Job has: the DaemonSet's rolling-update checks (its second
 * SatisfiedExpectations per sync, not a gate decision), the Job's finalizer-tracking store (the
 * pods whose job-tracking finalizer removal it waits to observe — no counts, not the gate).
 */
function ownerLines(rs: KcmLogReplicaSet, clock: (t: string | undefined) => string, width: number, wide: boolean): string[] {
  const out: string[] = [];
  if (rs.rollingUpdateChecks) out.push(rollingUpdateChecksLine(rs.rollingUpdateChecks, width));
  if (rs.finalizerTracking) out.push(finalizerTrackingLine(rs.finalizerTracking, clock, width, wide));
  return out;
}

const RELIST_CAUSE: Record<KcmLogRelist['cause'], string> = {
  'too-old-resource-version': 'watch closed: too old resource version (410)',
  'watch-error': 'watch ended with an error',
  unknown: 'no watch end logged before it (a start-up list, or below the log\'s -v)',
};

/**
 * "Informer relists": each relist of the controller's Pod / ReplicaSet / ReplicationController
 * informer the reflector lines show — why, LIST start → cache populated, evidence; a part the log
 * does not show is `?` (1.21 prints no "Caches populated").
 */
function relistLines(rs: KcmLogRelist[], t: (x: string | undefined) => string, width: number, wide: boolean): string[] {
  const out = ['', 'Informer relists (reflector lines; from "Caches populated" on, the informer\'s cache is its LIST\'s)'];
  for (const x of wide ? rs : rs.slice(0, RELISTS_SHOWN)) {
    const why = x.watchEnded?.err !== undefined ? `${RELIST_CAUSE[x.cause]} at ${t(x.watchEnded.at)} ("${x.watchEnded.err}")` : RELIST_CAUSE[x.cause];
    const ev = [x.watchEnded?.evidence, x.start?.evidence, x.end?.evidence].filter((e): e is string => e !== undefined).join(', ');
    out.push(wrap(`- ${x.informer}: listed ${x.start ? t(x.start.at) : '? (not logged)'} → populated ${x.end ? t(x.end.at) : '? (not logged)'}; ${why} (${ev})`, width, '  '));
  }
  if (!wide && rs.length > RELISTS_SHOWN) out.push(`  … ${rs.length - RELISTS_SHOWN} more (-o wide)`);
  return out;
}

/** Relists listed without -o wide. */
const RELISTS_SHOWN = 10;
