/**
 * Every report kexp prints for the shipped captures agrees with the exit-code table (README
 * "Exit codes", src/cli/report-exit.ts): `replay` of each examples/*.kexp.jsonl[.gz] (alone and
 * with its capture's KCM log), `audit` of each capture's audit log (alone and with the log), and
 * `kcm-log` of each log. The table is checked here from the printed JSON, not through
 * exitCodeFor: no 5 with a healthy verdict, no 4 without a leak window whose basis is observed
 * or inferred, no 3 without a gated window open at the end or a stalled verdict (the input shows
 * no write, no status write), no 0 with a known leak. And where the log shows a leak, `replay
 * --kcm-log`, `audit --kcm-log` and `kcm-log` agree on it (4).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { kexp } from '../support/cli.js';

type W = { endedBy: string; basis: string; note?: string; remaining?: { add: number; del: number }; start: string; end?: string };
type F = { id: string; basis: string; at?: string };
type RS = { key: string; verdict: { state: string; basis: string; summary: string }; gatedWindows: W[]; findings: F[] };

const known = (x: { basis: string }) => x.basis !== 'unknown';
const leakWindow = (w: W) => known(w) && w.endedBy !== 'rs-deleted' && (w.endedBy === 'expired' || (w.endedBy === 'open' && /leak: /.test(w.note ?? '')));

/** What the table says a report's codes may be, checked against the code it exited with. */
function checkReport(name: string, code: number, rss: RS[], end: string | undefined): void {
  // Open at the end of the input: still open, or ended (by the log's account) after it.
  const openAtEnd = (w: W) => w.endedBy === 'open' || (end !== undefined && w.end !== undefined && w.end > end);
  const why = `${name}: exit ${code}: ${rss.map((r) => `${r.key} ${r.verdict.state} [${r.verdict.basis}]`).join(', ')}`;
  const leaked = rss.filter((r) => (r.verdict.state === 'leaked' && known(r.verdict) && r.gatedWindows.some((w) => known(w) && openAtEnd(w)))
    || r.gatedWindows.some((w) => leakWindow(w) && (w.basis === 'observed' || r.findings.some((f) => known(f) && f.id.startsWith('expectation-leak') && f.at === w.start))));
  if (code === 4) assert.ok(leaked.length > 0, `no 4 without a leak window of known basis — ${why}`);
  else assert.equal(leaked.length, 0, `no ${code} with a known leak — ${why}`);
  const gated = rss.filter((r) => known(r.verdict) && ((r.verdict.state === 'gated' && r.gatedWindows.some((w) => w.endedBy === 'open' && known(w))) || (r.verdict.state === 'stalled' && /has not synced since|status still counts/.test(r.verdict.summary))));
  if (code === 3) assert.ok(gated.length > 0, `no 3 without an open window, an observed silence or a status counting gone pods — ${why}`);
  if (code === 5) {
    assert.ok(rss.some((r) => r.verdict.state === 'failing' || (!['healthy', 'deleted'].includes(r.verdict.state) && r.findings.some((f) => known(f) && ['create-failures', 'failed-writes'].includes(f.id)))), `no 5 without a failing controller — ${why}`);
    assert.ok(!rss.every((r) => r.verdict.state === 'healthy'), `no 5 with HEALTHY — ${why}`);
  }
  if (code === 0) assert.equal(gated.length + rss.filter((r) => r.verdict.state === 'failing' && known(r.verdict)).length, 0, `no 0 with a gated or failing verdict — ${why}`);
}

const examples = fs.readdirSync('examples').filter((f) => /\.kexp\.jsonl(\.gz)?$/.test(f)).sort();
const logOf = (n: string) => ['kcm.log', 'kcm.log.gz'].map((f) => path.join('examples/captures', n, f)).find((f) => fs.existsSync(f));
const auditOf = (n: string) => ['audit.jsonl', 'audit.jsonl.gz'].map((f) => path.join('examples/captures', n, f)).find((f) => fs.existsSync(f));

function run(args: string[]): { code: number; out: { replicaSets: RS[]; coverage: { end?: string } } } {
  const r = kexp([...args, '-o', 'json']);
  assert.ok(r.code !== 1 && r.code !== 2, `${args.join(' ')}: ${r.stderr}`);
  return { code: r.code, out: JSON.parse(r.stdout) };
}

test('every example capture\'s report agrees with the exit-code table (replay, audit, alone and with the KCM log)', { timeout: 600_000 }, () => {
  let checked = 0;
  for (const f of examples) {
    const n = f.replace(/\.kexp\.jsonl(\.gz)?$/, '');
    const log = logOf(n);
    const audit = auditOf(n);
    const runs: string[][] = [['replay', `examples/${f}`]];
    if (log) runs.push(['replay', `examples/${f}`, '--kcm-log', log]);
    if (audit) runs.push(['audit', audit]);
    if (audit && log) runs.push(['audit', audit, '--kcm-log', log]);
    for (const args of runs) {
      const { code, out } = run(args);
      checkReport(args.join(' '), code, out.replicaSets, out.coverage.end);
      checked++;
    }
  }
  assert.ok(checked >= 40, `${checked} reports checked`);
});

test('a leak the controller\'s log shows: replay --kcm-log, audit --kcm-log and kcm-log all say leak and exit 4', { timeout: 300_000 }, () => {
  let leaks = 0;
  for (const f of examples) {
    const n = f.replace(/\.kexp\.jsonl(\.gz)?$/, '');
    const log = logOf(n);
    if (!log) continue;
    const k = kexp(['kcm-log', log, '-o', 'json']);
    type KW = { ended: string; gatedSyncs: number };
    const logLeak = (JSON.parse(k.stdout).replicaSets as Array<{ gatedWindows: KW[] }>).some((r) => r.gatedWindows.some((w) => w.ended === 'expired'));
    if (!logLeak) continue;
    leaks++;
    assert.equal(k.code, 4, `kcm-log ${log}`);
    const runs = [['replay', `examples/${f}`, '--kcm-log', log], ...(auditOf(n) ? [['audit', auditOf(n)!, '--kcm-log', log]] : [])];
    for (const args of runs) {
      const { code, out } = run(args);
      assert.equal(code, 4, args.join(' '));
      const w = out.replicaSets.flatMap((r) => r.gatedWindows).find((x) => x.endedBy === 'expired');
      assert.equal(w?.basis, 'observed', `${args.join(' ')}: the log's expiry is observed`);
      assert.ok(out.replicaSets.some((r) => r.findings.some((x) => x.id === 'expectation-leak-expired' && x.basis === 'observed')), args.join(' '));
    }
  }
  assert.ok(leaks >= 2, `${leaks} captures whose log shows a leak`);
});
