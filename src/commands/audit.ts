import fs from 'node:fs';
import { withProgress } from '../cli/progress.js';
import { isStructured, writeStructured } from '../render/structured.js';
import { Args, Flags } from '@oclif/core';
import { KexpCommand } from '../cli/base-command.js';
import { checkInputs, colorFlag, fileSelectionFlags, parseDuration, k8sVersionFlag, kcmLogFlag, matchWindowFlag, outputFlag } from '../cli/flags.js';
import { applySelection, describeSelection, resolveSelection, type Selection } from '../cli/selection.js';
import { EXIT } from '../cli/exit-codes.js';
import { exitCodeFor } from '../cli/report-exit.js';
import { oneLine } from '../cli/messages.js';
import { auditFiles } from '../pipeline/audit-files.js';
import { renderAuditRanking } from '../render/audit-table.js';
import { useColor } from '../render/color.js';
import { renderHtml } from '../render/html.js';
import { renderTable } from '../render/table.js';
import { stdoutWidth } from '../render/width.js';
import { InputError } from '../sources/source.js';

const RFC3339_RE = /^(\d{4})-(\d\d)-(\d\d)[Tt](\d\d):(\d\d):(\d\d)(\.\d+)?(?:([Zz])|([+-])(\d\d):(\d\d))$/;

/**
 * A full RFC 3339 date-time with a time zone (`2026-11-30T02:39:00Z`, `…T02:39:00.5+01:00`) to
 * epoch ms; anything else — a bare year, a date without a time, a space instead of `T`, no zone,
 * RFC 1123, an impossible date such as Feb 30 — is a usage error. (Date.parse accepts all of
 * those, mostly as local time, and rolls Feb 30 over to March.)
 */
export function parseRfc3339Flag(flag: string, v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  const bad = (why: string) => new Error(`--${flag} "${v}" is ${why}; give a full RFC 3339 time with a time zone, e.g. 2026-11-30T02:00:00Z`);
  const m = RFC3339_RE.exec(v.trim());
  if (!m) throw bad('not an RFC 3339 time');
  const [y, mo, d, h, mi, sec] = [m[1], m[2], m[3], m[4], m[5], m[6]].map(Number) as [number, number, number, number, number, number];
  const base = Date.UTC(y, mo - 1, d, h, mi, sec);
  const check = new Date(base);
  if (h > 23 || mi > 59 || sec > 59) throw bad('not a valid time of day');
  if (mo < 1 || mo > 12 || check.getUTCFullYear() !== y || check.getUTCMonth() !== mo - 1 || check.getUTCDate() !== d) throw bad('not a valid date');
  let offset = 0;
  if (!m[8]) {
    const oh = Number(m[10]);
    const om = Number(m[11]);
    if (oh > 23 || om > 59) throw bad('not a valid time zone offset');
    offset = (m[9] === '-' ? -1 : 1) * (oh * 60 + om);
  }
  const frac = m[7] ? Number(`0${m[7]}`) * 1000 : 0;
  return base + frac - offset * 60_000;
}

/**
 * `--since`/`--until`: a duration back from `now` (`1h`, `30m`, `90s`, like `kubectl logs --since`
 * and stern) or an RFC 3339 time (parseRfc3339Flag). The clock is read by the caller, once.
 */
export function parseTimeOrAgoFlag(flag: string, v: string | undefined, now: number): number | undefined {
  if (v === undefined) return undefined;
  const hint = '; give a duration (e.g. 1h, 30m) or a full RFC 3339 time with a time zone, e.g. 2026-11-30T02:00:00Z';
  // Digits with a unit: a duration. A bare number is neither (`2026` is no more a year than seconds).
  if (/^\d+(\.\d+)?(ms|s|m|h)/.test(v.trim())) {
    try {
      return now - parseDuration(v.trim());
    } catch {
      throw new Error(`--${flag} "${v}" is not a duration or an RFC 3339 time${hint}`);
    }
  }
  try {
    return parseRfc3339Flag(flag, v);
  } catch (err) {
    // parseRfc3339Flag's reason (not a valid date, …) with both accepted forms named.
    throw new Error((err as Error).message.replace(/; give a full RFC 3339 time with a time zone, e\.g\. \S+$/, hint));
  }
}

/** Most problem lines printed on stderr; the rest are counted. */
const MAX_PROBLEMS_PRINTED = 100;

export default class Audit extends KexpCommand {
  static override summary = 'Reconstruct the ReplicaSet controller from kube-apiserver audit logs.';
  static override description =
    'Reads audit.k8s.io/v1 and v1beta1 events (JSON lines, webhook EventList batches, YAML, gzip, stdin) and GKE, EKS and AKS ' +
    'exports; several files (several apiservers) are merged by time. The ReplicaSet controller\'s own writes give each round of ' +
    'creates and deletes, their failures and walk-backs (observed); RequestResponse bodies give the objects the controller saw. ' +
    'Without a ReplicaSet NAME (or --rs): a ranked table of ReplicaSets, worst first, in every namespace (-A, the default) or in -n NAMESPACE.';
  static override examples = [
    '<%= config.bin %> <%= command.id %> examples/captures/quota-rejected/audit.jsonl',
    '<%= config.bin %> <%= command.id %> -n shop web-7d9c6b8f5d /var/log/kube-apiserver/audit*.log.gz',
    '<%= config.bin %> <%= command.id %> audit.log -l app=web',
    '<%= config.bin %> <%= command.id %> audit.log --since 2026-11-30T02:00:00Z --until 2026-11-30T03:00:00Z -o json',
    '<%= config.bin %> <%= command.id %> /var/log/kube-apiserver/audit.log --since 1h',
  ];
  static override strict = false;
  static override args = { file: Args.string({ description: 'Audit log file(s); "-" reads stdin. With -n, a first argument that is no file is the ReplicaSet NAME.', required: true }) };
  static override flags = {
    ...fileSelectionFlags,
    output: outputFlag,
    since: Flags.string({ summary: 'Ignore events older than a duration (e.g. 1h, 30m: back from now, like kubectl logs) or before an RFC 3339 time.', helpValue: 'DURATION|TIME' }),
    'since-time': Flags.string({ summary: 'Ignore events before this RFC 3339 time (like kubectl logs --since-time).', helpValue: 'TIME', exclusive: ['since'] }),
    until: Flags.string({ summary: 'Ignore events newer than a duration ago (e.g. 10m) or after an RFC 3339 time.', helpValue: 'DURATION|TIME' }),
    'k8s-version': k8sVersionFlag,
    'match-window': { ...matchWindowFlag, default: 60000 },
    'kcm-log': kcmLogFlag,
    html: Flags.string({ summary: 'Also write the report as one self-contained interactive HTML file.', helpValue: 'FILE' }),
    color: colorFlag,
  };

  async run(): Promise<void> {
    const { argv, flags } = await this.parse(Audit);
    let since: number | undefined;
    let until: number | undefined;
    let files: string[];
    let sel: Selection;
    try {
      ({ selection: sel, files } = resolveSelection(argv as string[], flags));
      // The one reading of the clock: relative times are fixed here, not in the analysis.
      const now = Date.now();
      since = flags['since-time'] !== undefined ? parseRfc3339Flag('since-time', flags['since-time']) : parseTimeOrAgoFlag('since', flags.since, now);
      until = parseTimeOrAgoFlag('until', flags.until, now);
      if (since !== undefined && until !== undefined && since > until) throw new Error(`--${flags['since-time'] !== undefined ? 'since-time' : 'since'} ${flags['since-time'] ?? flags.since} is later than --until ${flags.until}`);
      checkInputs(files, flags['kcm-log']);
    } catch (err) {
      this.logToStderr(`kexp: ${oneLine(err)}`);
      process.exitCode = EXIT.USAGE;
      return;
    }
    const ac = this.abortOnSignals();
    try {
      let shown = 0;
      const res = await withProgress(auditFiles({
        files, rs: sel.rs, since, until, k8sVersion: flags['k8s-version'], matchWindowMs: flags['match-window'], kcmLogs: flags['kcm-log'], stdin: process.stdin, signal: ac.signal,
        onWarning: (m) => this.logToStderr(`warning: ${m}`),
        onProblem: (p) => {
          if (shown++ < MAX_PROBLEMS_PRINTED) this.logToStderr(p.line > 0 ? `${p.file}:${p.line}: ${p.message}` : `${p.file}: ${p.message}`);
        },
      }));
      applySelection(res.report, sel, res.labels);
      if ((sel.namespace !== undefined || sel.selector) && res.report.replicaSets.length === 0 && !(res.report.coverage.controllerWrites ?? []).length) this.logToStderr(`kexp: no ReplicaSets found ${describeSelection(sel)}`);
      if (flags.html) fs.writeFileSync(flags.html, renderHtml(res.report));
      // A ReplicaSet known only from the ReplicaSet controller's pod writes (its object is not in
      // the input, so there is no model of it): those writes are its report.
      const writesOnly = sel.rs && res.report.replicaSets.length === 0 ? (res.report.coverage.controllerWrites ?? []).filter((w) => w.replicaSet === sel.rs) : [];
      if (isStructured(flags.output)) await writeStructured(process.stdout, res.report, flags.output);
      else if (writesOnly.length) process.stdout.write(renderAuditRanking(res.report, res.summaries, { width: stdoutWidth(), wide: flags.output === 'wide' }));
      else if (sel.rs) process.stdout.write(renderTable(res.report, stdoutWidth(), { wide: flags.output === 'wide', color: useColor({ flag: flags.color, env: process.env, isTTY: process.stdout.isTTY }) }));
      else process.stdout.write(renderAuditRanking(res.report, res.summaries, { width: stdoutWidth(), wide: flags.output === 'wide' }));
      // Sources pass on at most 100 problems per file and count the rest.
      const total = Math.max(res.problems.length, res.summaries.reduce((n, s) => n + s.problems, 0));
      if (total > MAX_PROBLEMS_PRINTED) this.logToStderr(`kexp: … and ${total - MAX_PROBLEMS_PRINTED} more input problem(s) not shown`);
      if (total) this.logToStderr(`kexp: ${total} input problem(s); exit code ${EXIT.INPUT}`);
      if (since !== undefined || until !== undefined) {
        // Does any input's span of audit records reach into [since, until]?
        const lo = since ?? -Infinity;
        const hi = until ?? Infinity;
        const spans = res.summaries.filter((s) => s.start !== undefined && s.end !== undefined) as Array<{ start: number; end: number }>;
        if (!spans.some((s) => s.end >= lo && s.start <= hi)) {
          const fmt = (t: number | undefined) => (t === undefined ? '…' : new Date(t).toISOString());
          const covered = spans.length
            ? ` (the input covers ${fmt(Math.min(...spans.map((s) => s.start)))} to ${fmt(Math.max(...spans.map((s) => s.end)))})`
            : '';
          const window = since === undefined ? `at or before ${fmt(until)}` : until === undefined ? `at or after ${fmt(since)}` : `between ${fmt(since)} and ${fmt(until)}`;
          this.logToStderr(`warning: no audit events ${window}${covered}`);
        }
      }
      if (writesOnly.length) {
        const w = writesOnly[0]!;
        this.logToStderr(
          `note: ReplicaSet ${sel.rs}: its object is missing from the input (no create or update of it at RequestResponse level), so it cannot be modelled; ` +
            `reporting its ${w.creates + w.createFailures} create(s) and ${w.deletes + w.deleteFailures} delete(s) of pods by the ReplicaSet controller`,
        );
      } else if (sel.rs && res.report.replicaSets.length === 0) this.logToStderr(`warning: ReplicaSet ${sel.rs} does not appear in the audit log`);
      process.exitCode = exitCodeFor(res.report, res.problems.length);
      if (sel.rs && res.report.replicaSets.length === 0 && !(res.report.coverage.controllerWrites ?? []).length && !res.problems.length) process.exitCode = EXIT.NOT_FOUND;
      this.endInterrupted(ac.signal, res.interrupted);
    } catch (err) {
      this.logToStderr(`kexp: ${oneLine(err)}`);
      process.exitCode = ac.signal.aborted ? EXIT.INTERRUPTED : err instanceof InputError ? EXIT.INPUT : /version/i.test(oneLine(err)) ? EXIT.USAGE : EXIT.ERROR;
    } finally {
      ac.dispose();
    }
  }
}
