import fs from 'node:fs';
import { Args, Flags } from '@oclif/core';
import { KexpCommand } from '../cli/base-command.js';
import { k8sVersionFlag, matchWindowFlag, outputFlag, rsFlag } from '../cli/flags.js';
import { EXIT } from '../cli/exit-codes.js';
import { exitCodeFor } from '../cli/report-exit.js';
import { oneLine } from '../cli/messages.js';
import { auditFiles } from '../pipeline/audit-files.js';
import { renderAuditRanking } from '../render/audit-table.js';
import { useColor } from '../render/color.js';
import { renderHtml } from '../render/html.js';
import { renderTable } from '../render/table.js';
import { InputError } from '../sources/source.js';

function parseTime(flag: string, v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  const t = Date.parse(v);
  if (Number.isNaN(t)) throw new Error(`--${flag} "${v}" is not an RFC 3339 time (e.g. 2026-11-30T02:00:00Z)`);
  return t;
}

export default class Audit extends KexpCommand {
  static override summary = 'Reconstruct the ReplicaSet controller from kube-apiserver audit logs.';
  static override description =
    'Reads audit.k8s.io/v1 and v1beta1 events (JSON lines, webhook EventList batches, YAML, gzip, stdin) and GKE, EKS and AKS ' +
    'exports; several files (several apiservers) are merged by time. The ReplicaSet controller\'s own writes give each round of ' +
    'creates and deletes, their failures and walk-backs (observed); RequestResponse bodies give the objects the controller saw. ' +
    'Without --rs: a ranked table of ReplicaSets, worst first.';
  static override examples = [
    '<%= config.bin %> <%= command.id %> examples/captures/quota-rejected/audit.jsonl',
    '<%= config.bin %> <%= command.id %> /var/log/kube-apiserver/audit*.log.gz --rs shop/web-7d9c6b8f5d',
    '<%= config.bin %> <%= command.id %> audit.log --since 2026-11-30T02:00:00Z --until 2026-11-30T03:00:00Z -o json',
  ];
  static override strict = false;
  static override args = { file: Args.string({ description: 'Audit log file(s); "-" reads stdin.', required: true }) };
  static override flags = {
    rs: rsFlag,
    output: outputFlag,
    since: Flags.string({ summary: 'Ignore events before this time (RFC 3339).', helpValue: 'TIME' }),
    until: Flags.string({ summary: 'Ignore events after this time (RFC 3339).', helpValue: 'TIME' }),
    'k8s-version': k8sVersionFlag,
    'match-window': { ...matchWindowFlag, default: 60000 },
    html: Flags.string({ summary: 'Also write the report as one self-contained interactive HTML file.', helpValue: 'FILE' }),
    color: Flags.boolean({ summary: 'Colour the timeline chart (default: when stdout is a terminal).', allowNo: true }),
  };

  async run(): Promise<void> {
    const { argv, flags } = await this.parse(Audit);
    let since: number | undefined;
    let until: number | undefined;
    try {
      since = parseTime('since', flags.since);
      until = parseTime('until', flags.until);
      if (flags.rs && !/^[^/\s]+\/[^/\s]+$/.test(flags.rs)) throw new Error(`--rs must be namespace/name, got "${flags.rs}"`);
    } catch (err) {
      this.logToStderr(`kexp: ${oneLine(err)}`);
      process.exitCode = EXIT.USAGE;
      return;
    }
    try {
      let shown = 0;
      const res = await auditFiles({
        files: argv as string[], rs: flags.rs, since, until, k8sVersion: flags['k8s-version'], matchWindowMs: flags['match-window'], stdin: process.stdin,
        onWarning: (m) => this.logToStderr(`warning: ${m}`),
        onProblem: (p) => {
          if (shown++ < 5) this.logToStderr(`${p.file}:${p.line}: ${p.message}`);
        },
      });
      if (flags.html) fs.writeFileSync(flags.html, renderHtml(res.report));
      if (flags.output === 'json') process.stdout.write(JSON.stringify(res.report, null, 2) + '\n');
      else if (flags.rs) process.stdout.write(renderTable(res.report, 100, { color: useColor({ flag: flags.color, env: process.env, isTTY: process.stdout.isTTY }) }));
      else process.stdout.write(renderAuditRanking(res.report, res.summaries));
      if (res.problems.length) this.logToStderr(`kexp: ${res.problems.length} input problem(s)${res.problems.length > 5 ? ` (first 5 shown)` : ''}; exit code ${EXIT.INPUT}`);
      if (flags.rs && res.report.replicaSets.length === 0) this.logToStderr(`warning: ReplicaSet ${flags.rs} does not appear in the audit log`);
      process.exitCode = exitCodeFor(res.report, res.problems.length);
    } catch (err) {
      this.logToStderr(`kexp: ${oneLine(err)}`);
      process.exitCode = err instanceof InputError ? EXIT.INPUT : /version/i.test(oneLine(err)) ? EXIT.USAGE : EXIT.ERROR;
    }
  }
}
