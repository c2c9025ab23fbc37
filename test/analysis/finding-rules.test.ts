/**
 * The findings catalogue (src/analysis/findings): applyRules keeps rule order and reads the
 * subjects of consecutive rules that share one `each` in turn; sortFindings puts the most
 * severe first, then by time, stably; every rule of the catalogue is named, documented and
 * declares the ids it yields — checked against every finding the shipped examples produce.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { applyRules, sortFindings, type FindingRule } from '../../src/analysis/findings/finding-rule.js';
import { catalogueEntries, findingRules, type FindingInput } from '../../src/analysis/findings/catalogue.js';
import type { Finding } from '../../src/analysis/report-types.js';
import { replayFiles } from '../../src/pipeline/replay-files.js';
import { auditFiles } from '../../src/pipeline/audit-files.js';

const finding = (id: string, severity: Finding['severity'] = 'info', at?: string): Finding => ({
  id, severity, basis: 'observed', ...(at ? { at } : {}), title: id, explanation: '', nextStep: '', evidence: [],
});

interface Input { windows: string[]; other: string[]; once: boolean }
const eachWindow = (i: Input) => i.windows;
const rule = (name: string, r: Partial<FindingRule<Input, string>>): FindingRule<Input, string> =>
  ({ name, ids: [name], reads: 'x', fires: 'y', find: () => undefined, ...r }) as FindingRule<Input, string>;

test('applyRules: rule order; rules sharing one `each` read each subject in turn; undefined and lists', () => {
  const input: Input = { windows: ['w1', 'w2'], other: ['o1', 'o2'], once: true };
  const rules = [
    rule('a', { each: eachWindow, find: (w) => finding(`a:${w}`) }),
    rule('b', { each: eachWindow, find: (w) => (w === 'w2' ? [finding(`b:${w}`), finding(`b2:${w}`)] : undefined) }),
    { name: 'once', ids: ['once'], reads: 'x', fires: 'y', find: (i: Input) => (i.once ? finding('once') : undefined) } as FindingRule<Input>,
    // Another `each` function over the same subjects: its own loop, after the first group's.
    rule('c', { each: (i) => i.windows, find: (w) => finding(`c:${w}`) }),
    rule('d', { each: (i) => i.other, find: (o) => finding(`d:${o}`) }),
  ];
  const ids = applyRules(rules as Array<FindingRule<Input, unknown>>, input).map((f) => f.id);
  assert.deepEqual(ids, ['a:w1', 'a:w2', 'b:w2', 'b2:w2', 'once', 'c:w1', 'c:w2', 'd:o1', 'd:o2']);
  assert.deepEqual(applyRules(rules as Array<FindingRule<Input, unknown>>, { windows: [], other: [], once: false }), []);
});

test('applyRules: the interleaving of a shared `each` — for each window, every window rule', () => {
  const rules = [
    rule('x', { each: eachWindow, find: (w) => finding(`x:${w}`) }),
    rule('y', { each: eachWindow, find: (w) => finding(`y:${w}`) }),
  ];
  assert.deepEqual(applyRules(rules as Array<FindingRule<Input, unknown>>, { windows: ['1', '2'], other: [], once: false }).map((f) => f.id), ['x:1', 'y:1', 'x:2', 'y:2']);
});

test('sortFindings: critical, warning, info; then by time (no time first); stable within a tie', () => {
  const list = [
    finding('i1', 'info', '2026-01-01T00:00:02.000Z'),
    finding('w1', 'warning', '2026-01-01T00:00:05.000Z'),
    finding('i0', 'info'),
    finding('c1', 'critical', '2026-01-01T00:00:09.000Z'),
    finding('w0', 'warning', '2026-01-01T00:00:01.000Z'),
    finding('i2', 'info', '2026-01-01T00:00:02.000Z'),
  ];
  assert.deepEqual(sortFindings(list).map((f) => f.id), ['c1', 'w0', 'w1', 'i0', 'i1', 'i2']);
});

test('the catalogue: rules named uniquely per input, each documented, its name among its ids', () => {
  const entries = catalogueEntries();
  assert.ok(entries.length >= 45, `${entries.length} rules`);
  const inputs = new Set(entries.map((e) => e.input));
  assert.deepEqual([...inputs], ['replay', 'snapshot', 'events', 'events-only', 'controller-log']);
  for (const input of inputs) {
    const names = entries.filter((e) => e.input === input).map((e) => e.name);
    assert.equal(new Set(names).size, names.length, `${input}: ${names.join(', ')}`);
    assert.deepEqual(findingRules(input as FindingInput).map((r) => r.name), names);
  }
  for (const e of entries) {
    assert.ok(e.ids.includes(e.name), `${e.input}/${e.name}: ${e.ids.join(', ')}`);
    assert.ok(e.reads.length > 10 && e.fires.length > 5, `${e.input}/${e.name} is documented`);
  }
  // The same finding seen through two inputs is two rules, one per input.
  const beingDeleted = entries.filter((e) => e.ids.includes('rs-being-deleted')).map((e) => e.input);
  assert.deepEqual(beingDeleted, ['replay', 'snapshot']);
});

test('every finding the shipped examples produce is declared by a rule of its input', async () => {
  const declared = (...inputs: FindingInput[]) => new Set(catalogueEntries().filter((e) => inputs.includes(e.input)).flatMap((e) => e.ids));
  const replayIds = declared('replay', 'controller-log', 'events', 'events-only');
  const seen = new Set<string>();
  const check = (ids: string[], where: string) => {
    for (const id of ids) {
      assert.ok(replayIds.has(id), `${where}: ${id} is declared by no rule`);
      seen.add(id);
    }
  };
  for (const f of fs.readdirSync('examples').filter((x) => /\.kexp\.jsonl$/.test(x))) {
    const name = f.replace(/\.kexp\.jsonl$/, '');
    const kcm = `examples/captures/${name}/kcm.log`;
    const { report } = await replayFiles({ files: [`examples/${f}`], ...(fs.existsSync(kcm) ? { kcmLogs: [kcm] } : {}) });
    check(report.replicaSets.flatMap((r) => r.findings.map((x) => x.id)), f);
  }
  for (const d of fs.readdirSync('examples/captures')) {
    const audit = `examples/captures/${d}/audit.jsonl`;
    if (!fs.existsSync(audit)) continue;
    const kcm = `examples/captures/${d}/kcm.log`;
    const { report } = await auditFiles({ files: [audit], ...(fs.existsSync(kcm) ? { kcmLogs: [kcm] } : {}) });
    check(report.replicaSets.flatMap((r) => r.findings.map((x) => x.id)), audit);
  }
  const snapshotIds = declared('snapshot', 'events', 'events-only', 'controller-log');
  for (const d of fs.readdirSync('test/fixtures/dumps')) {
    const { report } = await replayFiles({ files: [`test/fixtures/dumps/${d}`] }).catch(() => ({ report: undefined }));
    for (const id of report?.replicaSets.flatMap((r) => r.findings.map((x) => x.id)) ?? []) {
      assert.ok(snapshotIds.has(id) || replayIds.has(id), `dump ${d}: ${id} is declared by no rule`);
      seen.add(id);
    }
  }
  assert.ok(seen.size >= 15, `${seen.size} distinct finding ids in the examples: ${[...seen].join(', ')}`);
});

test('report order: most severe first; of equal severity the more precise explanation (backoff-inflated before the create-failures it explains), then time', () => {
  const f = (id: string, severity: Finding['severity'], at: string): Finding => ({ id, severity, title: id, basis: 'inferred', at, explanation: '', nextStep: '', evidence: [] });
  const failures = f('create-failures', 'warning', '2026-11-30T10:00:00.000Z');
  const backoff = f('backoff-inflated', 'warning', '2026-11-30T10:16:00.000Z');
  const leak = f('expectation-leak-expired', 'critical', '2026-11-30T10:30:00.000Z');
  const other = f('slow-api-calls', 'warning', '2026-11-30T09:00:00.000Z');
  assert.deepEqual(sortFindings([failures, backoff, other, leak]).map((x) => x.id), ['expectation-leak-expired', 'slow-api-calls', 'backoff-inflated', 'create-failures']);
  assert.deepEqual(sortFindings([backoff, failures]).map((x) => x.id), ['backoff-inflated', 'create-failures']);
});
