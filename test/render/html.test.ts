/** The self-contained HTML report (src/render/html.ts), checked as text and with Vega in Node. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import * as vega from 'vega';
import type { Report } from '../../src/analysis/report-types.js';
import { chartModel, escapeHtml, renderHtml, scriptJson, vegaBundle } from '../../src/render/html.js';
import { validateReport } from '../support/report-schema.js';
import { SMALL_END, SMALL_START, smallReplicaSet } from './small-report.js';

const fixture = (name: string): Report => JSON.parse(fs.readFileSync(new URL(`./fixtures/${name}.report.json`, import.meta.url), 'utf8'));
const golden = (name: string): Report => JSON.parse(fs.readFileSync(new URL(`../../examples/golden/${name}.report.json`, import.meta.url), 'utf8'));
const EVIL = '<script>alert(1)</script>';

function evilReport(): Report {
  const r = fixture('leak-expired');
  const rs = r.replicaSets[0]!;
  rs.key = `shop/${EVIL}`;
  rs.name = EVIL;
  rs.verdict.summary = `summary ${EVIL}`;
  rs.adoption.rows[0]!.pod = `shop/web-${EVIL}`;
  rs.adoption.rows[0]!.reason = `"'><img src=x onerror=alert(2)>`;
  rs.findings[0]!.title = `title ${EVIL}`;
  rs.findings[0]!.evidence = [`file-${EVIL}.jsonl:1`];
  rs.gatedWindows[1]!.note = `note </script><script>alert(3)</script>`;
  rs.gatedWindows[1]!.evidence = [`ev-${EVIL}:9`, 'x\u2028y'];
  rs.rounds[0]!.errors = [`pods "${EVIL}" is forbidden`];
  r.inputs[0]!.file = `in-${EVIL}.jsonl`;
  r.coverage.timeBasis = [`basis ${EVIL}`];
  return r;
}

function scripts(html: string): { attrs: string; body: string }[] {
  return [...html.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/g)].map((m) => ({ attrs: m[1]!, body: m[2]! }));
}

test('the leak fixture is a valid Report (regenerate it when the schema changes, see fixtures/README.md)', () => {
  assert.deepEqual(validateReport(fixture('leak-expired')), []);
});

test('self-contained: no http(s) src/href, no external stylesheet, font or import', () => {
  const html = renderHtml(golden('quota-rejected'));
  assert.doesNotMatch(html, /\b(?:src|href|action|poster|data)\s*=\s*["']?\s*(?:https?:)?\/\//i);
  assert.doesNotMatch(html, /<link\b/i);
  assert.doesNotMatch(html, /@import|url\(\s*["']?(?:https?:)?\/\//i);
  assert.doesNotMatch(html, /sourceMappingURL/);
  const ss = scripts(html);
  assert.equal(ss.length, 3, 'data, vega, app');
  assert.ok(ss.every((s) => !/\bsrc\s*=/.test(s.attrs)), 'all scripts inline');
  const mb = Buffer.byteLength(html) / 1024 / 1024;
  assert.ok(mb < 1.5, `${mb.toFixed(2)} MB`);
});

test('Content-Security-Policy: nothing may be fetched, only the two inline scripts run', () => {
  const html = renderHtml(golden('quota-rejected'));
  const csp = /<meta http-equiv="Content-Security-Policy" content="([^"]+)">/.exec(html)?.[1]?.replace(/&#39;/g, "'");
  assert.ok(csp, 'CSP meta present');
  assert.match(csp!, /default-src 'none'/);
  assert.match(csp!, /connect-src 'none'/);
  assert.doesNotMatch(csp!, /script-src[^;]*'unsafe-inline'/);
  const run = scripts(html).filter((s) => !/application\/json/.test(s.attrs));
  for (const s of run) {
    const hash = crypto.createHash('sha256').update(s.body, 'utf8').digest('base64');
    assert.ok(csp!.includes(`'sha256-${hash}'`), 'script hash listed');
  }
});

test('escapes report strings: a <script> pod name never becomes markup', () => {
  const html = renderHtml(evilReport());
  assert.equal(scripts(html).length, 3, 'no extra <script> element');
  assert.ok(!html.includes('<script>alert'), 'raw <script>alert is absent');
  assert.ok(!html.includes('<img src=x'), 'raw <img is absent');
  assert.ok(html.includes(`shop/web-${escapeHtml(EVIL)}`), 'the pod name is shown, escaped');
  assert.ok(html.includes('&lt;script&gt;alert(1)&lt;/script&gt;'));
  assert.ok(html.includes('&quot;&#39;&gt;&lt;img src=x onerror=alert(2)&gt;'));
  // The embedded data has no "<" at all and still round-trips.
  const data = scripts(html).find((s) => /application\/json/.test(s.attrs))!.body;
  assert.ok(!data.includes('<') && !data.includes('\u2028'));
  const model = JSON.parse(data);
  assert.equal(model.replicaSets[0].key, `shop/${EVIL}`);
  const win = model.replicaSets[0].spec.data.find((d: { name: string }) => d.name === 'd_windows').values[1];
  assert.ok(win.tip.rows.some((r: string[]) => r[1] === `note </script><script>alert(3)</script>`));
  // A tooltip shows a line separator as its escape, like the page's text (escapeHtml).
  assert.ok(win.tip.rows.some((r: string[]) => r[1] === 'x\\u2028y'));
});

test('report strings never reach a Vega expression (only data values)', () => {
  const { spec } = chartModel(evilReport().replicaSets[0]!, {})!;
  const exprs: string[] = [];
  const walk = (v: unknown, key = ''): void => {
    if (typeof v === 'string' && ['update', 'signal', 'expr', 'test'].includes(key)) exprs.push(v);
    else if (Array.isArray(v)) v.forEach((x) => walk(x));
    else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) if (k !== 'values') walk(x, k);
  };
  walk(spec);
  assert.ok(exprs.length > 5);
  for (const e of exprs) assert.ok(!e.includes('alert') && !e.includes('shop'), e);
});

test('the inlined Vega bundle cannot end or confuse its <script> element, and carries its licence', () => {
  const { code, version } = vegaBundle();
  assert.match(version, /^\d+\.\d+\.\d+/);
  assert.doesNotMatch(code, /<\/script|<!--|<script/i);
  assert.match(code.slice(0, 2000), /Copyright \(c\)[^\n]*Interactive Data Lab/);
});

test('helpers: escapeHtml and scriptJson', () => {
  assert.equal(escapeHtml(`<a href="x">'&'</a>`), '&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;');
  assert.equal(scriptJson({ a: '</script><!--&\u2029' }), '{"a":"\\u003c/script\\u003e\\u003c!--\\u0026\\u2029"}');
  assert.deepEqual(JSON.parse(scriptJson({ a: '</script><!--&\u2029' })), { a: '</script><!--&\u2029' });
});

test('the Vega spec renders in Node: one lane rect per window at scale(start), one mark per round', async () => {
  const rs = smallReplicaSet();
  const m = chartModel(rs, { start: SMALL_START, end: SMALL_END })!;
  assert.deepEqual([m.t0, m.t1], [Date.parse(SMALL_START), Date.parse(SMALL_END)]);
  const view = new vega.View(vega.parse(m.spec as vega.Spec), { renderer: 'none' });
  await view.runAsync();
  const x = view.scale('x') as (t: number) => number;
  const width = view.width();
  assert.equal(x(m.t0), 0);
  assert.equal(x(m.t1), width);
  const items = (name: string) => {
    const out: any[] = [];
    const visit = (node: any): void => {
      if (node.marktype && node.name === name) out.push(...node.items);
      for (const c of node.items ?? []) visit(c);
    };
    visit((view.scenegraph() as unknown as { root: unknown }).root);
    return out;
  };
  const rects = items('windows');
  assert.equal(rects.length, 3);
  rs.gatedWindows.forEach((w, k) => assert.ok(Math.abs(rects[k].x - ((Date.parse(w.start) - m.t0) / (m.t1 - m.t0)) * width) < 1e-6));
  assert.equal(items('rounds').length, rs.rounds.length);
  const band = items('unknownBand');
  assert.equal(band.length, 1, 'expectations unknown until the first round');
  assert.ok(Math.abs(band[0].x + band[0].width - x(Date.parse(rs.initialState.until!))) < 1e-6);
  const svg = await view.toSVG();
  assert.match(svg, /class="mark-rect role-mark windows"/);
  view.finalize();
});

test('no ReplicaSet, or one without timed events: still a valid page without a chart', () => {
  const r = golden('quota-rejected');
  const none = renderHtml({ ...r, replicaSets: [] });
  assert.match(none, /No ReplicaSet found/);
  const rs = { ...smallReplicaSet(), series: [], rounds: [], gatedWindows: [], initialState: { basis: 'unknown' as const, reason: 'x' } };
  const html = renderHtml({ ...r, coverage: { ...r.coverage, start: undefined, end: undefined }, replicaSets: [rs] });
  assert.doesNotMatch(html, /id="chart-0"/);
  assert.match(html, /None: the controller was never gated/);
});

/** `n` healthy copies of the golden scale-up-gated ReplicaSet (distinct keys) beside the leak fixture's. */
function manyHealthy(n: number): Report {
  const leak = fixture('leak-expired');
  const healthy = golden('scale-up-gated').replicaSets[0]!;
  assert.equal(healthy.verdict.state, 'healthy');
  const copies = Array.from({ length: n }, (_, i) => ({ ...structuredClone(healthy), key: `ns/h-${String(i).padStart(3, '0')}`, name: `h-${String(i).padStart(3, '0')}`, namespace: 'ns' }));
  return { ...leak, replicaSets: [...copies, ...leak.replicaSets] };
}

test('the page opens with the terminal\'s summary, worst first; healthy owners collapse into a list that stops growing', () => {
  const r = manyHealthy(3);
  const html = renderHtml(r);
  const summary = /<section class="summary" id="summary">([\s\S]*?)<\/section>/.exec(html)?.[1] ?? '';
  const leak = r.replicaSets.at(-1)!;
  assert.ok(summary.includes(escapeHtml(leak.key)), 'the leaking ReplicaSet is in the summary');
  assert.match(summary, /<strong>Cause:<\/strong>/);
  assert.match(summary, /<pre class="cmd"><code>kubectl [^<]*\nkubectl -n shop describe rs web-7d9c6b8f5d\n/);
  assert.ok(!summary.includes('ns/h-000'), 'healthy owners are not in the summary');
  // Worst first: the leak's section is drawn (chart-0); the healthy ones are only listed.
  assert.ok(html.indexOf('id="rs-0"') < html.indexOf('id="nothing-to-do"'));
  assert.match(html, /<section class="rs" id="rs-0">\n<h2>ReplicaSet <code>[^<]*<\/code> <span class="badge leaked">/);
  assert.doesNotMatch(html, /id="chart-1"/);
  assert.match(html, /<h2>3 more owners with nothing to do<\/h2>/);
  const size = (n: number) => Buffer.byteLength(renderHtml(manyHealthy(n)));
  // Each healthy owner costs one list line (not a chart, tables and data), and nothing past the listed ones.
  assert.ok(size(20) - size(10) < 10 * 600, `${size(20) - size(10)} bytes for 10 more healthy owners`);
  assert.ok(Math.abs(size(200) - size(100)) < 64, `${size(200) - size(100)} bytes for 100 more past the listed ${50}`);
  const listed = /<section class="collapsed"[\s\S]*?<\/section>/.exec(renderHtml(manyHealthy(120)))![0];
  assert.equal((listed.match(/<li>/g) ?? []).length, 50);
  assert.match(listed, /… and 70 more\./);
});

test('a report whose owners all have nothing to do: the first is drawn, the summary says so', () => {
  const r = golden('scale-up-gated');
  const html = renderHtml(r);
  assert.match(html, /id="chart-0"/);
  assert.match(html, /Nothing needs a look: the owner is healthy or converging/);
});
