/**
 * `--html FILE`: the Report as ONE self-contained HTML page — per ReplicaSet an interactive
 * timeline (Vega, SVG renderer: desired/active/terminating/ready pods as step lines, gated
 * windows as a lane and background bands, create/delete rounds as marks; wheel to zoom, drag
 * to pan, click a window to zoom to it, hover for its evidence), the gated windows, findings
 * and adoption tables, and the input coverage.
 *
 * Like the terminal (next-steps.ts): the page opens with the summary — per owner needing a look,
 * worst first, its verdict (led by a leak that sets exit 4), cause, next step and kubectl
 * commands — and the owners follow in that order. Owners with nothing to do (healthy or
 * converging, no finding above info) are not drawn: they are one list (names and verdicts, at
 * most COLLAPSED_LISTED, the rest counted), so the page's size follows the owners that need a
 * look, not the number of healthy ones (a 48-ReplicaSet audit was 5 MB); when none needs a
 * look, the first is drawn. At 390 px (a phone) tables, commands and the chart scroll inside
 * their own box; the page itself never gets wider than the screen.
 *
 * Self-contained: the Vega runtime (node_modules/vega/build/vega.min.js), the page's script,
 * styles and data are inlined; nothing is fetched when the file is opened, and a
 * Content-Security-Policy (default-src 'none', hashed scripts) makes sure of it. Vega needs
 * 'unsafe-eval' for its expression compiler.
 *
 * Escaping: report strings (names, messages, evidence) come from cluster data. In HTML they
 * are entity-escaped and their bidi controls and invisible format characters shown as visible
 * escapes (`\u202e`, the terminal's set: render/terminal-safe.ts FORMAT_CONTROL), so a name
 * cannot read differently from its bytes; in the embedded JSON `<`, `>`, `&`, U+2028/9 are \u-escaped; in the
 * chart they are data values only (never part of a Vega expression) and tooltips are
 * written with textContent.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { GatedWindow, Report, ReplicaSetReport, RoundReport } from '../analysis/report-types.js';
import { CLIENT_CSS, CLIENT_JS } from './html-assets/client.js';
import { gateClass, roundFailed, shortDuration } from './chart.js';
import { escapeControl, FORMAT_CONTROL } from './terminal-safe.js';
import { ownerKindOf } from '../analysis/report/owner-kind.js';
import { desiredMeaning, endedByLabel, ownerNouns } from '../analysis/report/owner-words.js';
import { finalizerRemovalsLine, finalizerTrackingLine, rollingUpdateChecksLine } from './workload-stores.js';
import { adviceOf, causeOf, headlineOf, kubectlCommands, needsAttention, rankReplicaSets } from './next-steps.js';

/** Owners with nothing to do listed by name below the full reports, at most this many (the rest counted). */
export const COLLAPSED_LISTED = 50;

/** Entity-escapes text for HTML element content and quoted attribute values. */
export function escapeHtml(s: unknown): string {
  return String(s ?? '')
    .replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!)
    .replace(FORMAT_CONTROL, escapeControl);
}

/**
 * JSON safe to place inside a <script type="application/json"> element. Bidi controls and
 * invisible format characters (FORMAT_CONTROL) are \u-escaped too: the page's bytes hold none of
 * them raw, and the parsed value is unchanged (the embedded report stays exact).
 */
export function scriptJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(FORMAT_CONTROL, (c) => Array.from({ length: c.length }, (_, i) => `\\u${c.charCodeAt(i).toString(16).padStart(4, '0')}`).join(''))
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

/** `value` (plain data) with every bidi control and invisible format character in its strings shown as its escape. */
function visibleDeep<T>(value: T): T {
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return v.replace(FORMAT_CONTROL, escapeControl);
    if (Array.isArray(v)) return v.map(walk);
    if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    return v;
  };
  return walk(value) as T;
}

let vegaCache: { code: string; version: string } | undefined;

/** The Vega runtime bundle from the installed `vega` package (read once). */
export function vegaBundle(): { code: string; version: string } {
  if (vegaCache) return vegaCache;
  const require = createRequire(import.meta.url);
  const dir = path.dirname(require.resolve('vega')); // …/vega/build/vega.module.js
  const code = fs.readFileSync(path.join(dir, 'vega.min.js'), 'utf8').replace(/\/\/# sourceMappingURL=.*$/gm, '');
  let version = 'unknown';
  try {
    version = JSON.parse(fs.readFileSync(path.join(dir, '..', 'package.json'), 'utf8')).version;
  } catch {
    // keep 'unknown'
  }
  // The BSD-3-Clause licence asks for its notice to travel with the code.
  let license = 'Vega: BSD-3-Clause, Copyright (c) University of Washington Interactive Data Lab';
  try {
    license = fs.readFileSync(path.join(dir, '..', 'LICENSE'), 'utf8').trim();
  } catch {
    // keep the short notice
  }
  const header = `/*! Vega ${version}\n${license.replace(/\*\//g, '* /')}\n*/\n`;
  // Inside <script>, a literal "</script" would end the element; in a JS string or regex
  // "<\/script" means the same.
  vegaCache = { code: (header + code).replace(/<\/(script)/gi, '<\\/$1'), version };
  return vegaCache;
}

const PODS_H = 170;
const GATE_Y = PODS_H + 14;
const GATE_H = 16;
const WRITE_Y = PODS_H + 48;
const CHART_H = PODS_H + 62;
const DEFAULT_W = 960;

const COLORS = {
  desired: '#f28e2b',
  active: '#4e79a7',
  terminating: '#9c755f',
  ready: '#59a14f',
  fulfilled: '#59a14f',
  leaked: '#e15759',
  open: '#f28e2b',
  create: '#4e79a7',
  delete: '#b07aa1',
  failed: '#e15759',
};

interface Tip {
  title: string;
  rows: [string, string][];
}

function ms(iso: string | undefined): number | undefined {
  if (!iso) return undefined;
  const v = Date.parse(iso);
  return Number.isFinite(v) ? v : undefined;
}

function t(iso: string | undefined): string {
  return iso ? iso.replace('T', ' ').replace('Z', ' UTC') : '—';
}

function evidenceRows(ev: string[] | string | undefined): [string, string][] {
  const list = (Array.isArray(ev) ? ev : ev ? [ev] : []).filter(Boolean);
  if (!list.length) return [];
  const shown = list.slice(0, 8);
  const rows: [string, string][] = shown.map((e, i) => [i === 0 ? 'evidence' : '', e]);
  if (list.length > shown.length) rows.push(['', `… and ${list.length - shown.length} more`]);
  return rows;
}

function windowTip(w: GatedWindow, i: number): Tip {
  const cls = gateClass(w);
  const rows: [string, string][] = [
    ['start', t(w.start)],
    ['end', w.end ? t(w.end) : `open at end of input${w.expiresAt ? `; record expires ${t(w.expiresAt)}` : ''}`],
    ['ended by', w.endedBy],
    ['duration', w.durationMs === undefined ? '—' : shortDuration(w.durationMs)],
    ['raised add/del', `${w.raised.add}/${w.raised.del}`],
  ];
  if (w.remaining) rows.push(['left add/del', `${w.remaining.add}/${w.remaining.del}`]);
  if (w.fulfilledAt) rows.push(['fulfilled at', t(w.fulfilledAt)]);
  rows.push(['gated syncs', String(w.gatedSyncs)], ['basis', w.basis]);
  if (w.note) rows.push(['note', w.note]);
  rows.push(...evidenceRows(w.evidence));
  return { title: `Gated window ${i + 1}: ${cls === 'leaked' ? `leaked (${w.endedBy})` : cls}`, rows };
}

function roundTip(r: RoundReport): Tip {
  const rows: [string, string][] = [['at', t(r.at)], ['pods', String(r.n)]];
  if (r.batches) rows.push(['batches', r.batches.join(', ')]);
  if (r.calls !== undefined) rows.push(['calls', String(r.calls)]);
  if (r.successes !== undefined) rows.push(['succeeded', String(r.successes)]);
  if (r.skipped) rows.push(['walked back', String(r.skipped)]);
  if (r.namespaceTerminating) rows.push(['NamespaceTerminating', String(r.namespaceTerminating)]);
  if (r.keys?.length) rows.push(['pods chosen', r.keys.join(', ')]);
  if (r.failed?.length) rows.push(['failed', r.failed.join(', ')]);
  r.errors.slice(0, 3).forEach((e, i) => rows.push([i === 0 ? 'errors' : '', e]));
  if (r.errors.length > 3) rows.push(['', `… and ${r.errors.length - 3} more`]);
  if (r.note) rows.push(['note', r.note]);
  rows.push(['basis', r.basis], ...evidenceRows(r.evidence));
  return { title: `${r.kind === 'create' ? 'Create' : 'Delete'} round${roundFailed(r) ? ' with failed/rejected writes' : ''}`, rows };
}

/** Tooltip of a pod-count step, evaluated by Vega from the datum (keeps the data small). */
const SERIES_TIP =
  "{title: 'Pods from ' + utcFormat(datum.t, '%Y-%m-%d %H:%M:%S.%L UTC'), rows: [['desired', '' + datum.desired], ['active', '' + datum.active], " +
  "['terminating', '' + datum.terminating], ['ready', '' + datum.ready]]}";

/** The chart model for one ReplicaSet: time range, data and the Vega spec (data inline). */
export function chartModel(rs: ReplicaSetReport, range: { start?: string; end?: string }) {
  const times: number[] = [];
  const add = (iso?: string) => {
    const v = ms(iso);
    if (v !== undefined) times.push(v);
  };
  add(range.start);
  add(range.end);
  for (const p of rs.series) add(p.at);
  for (const r of rs.rounds) add(r.at);
  for (const w of rs.gatedWindows) {
    add(w.start);
    add(w.end);
  }
  add(rs.initialState.until);
  if (!times.length) return undefined;
  const t0 = times.reduce((a, b) => (b < a ? b : a));
  let t1 = times.reduce((a, b) => (b > a ? b : a));
  if (t1 - t0 < 10) t1 = t0 + 10;

  const series = rs.series
    .map((p, i) => {
      const at = ms(p.at)!;
      const next = i + 1 < rs.series.length ? ms(rs.series[i + 1]!.at)! : t1;
      return { t: at, t2: next, desired: p.desired, active: p.active, terminating: p.terminating, ready: p.ready };
    })
    .filter((p) => Number.isFinite(p.t));
  const last = series[series.length - 1];
  // Step lines run to the end of the range.
  const lines = last && last.t < t1 ? [...series, { ...last, t: t1, t2: t1 }] : series;
  const ymax = rs.series.reduce((m, p) => Math.max(m, p.desired, p.active, p.terminating, p.ready), 1);

  const windows = rs.gatedWindows.map((w, i) => {
    const cls = gateClass(w);
    const start = ms(w.start) ?? t0;
    const end = cls === 'open' ? t1 : Math.max(start, ms(w.end) ?? ms(w.fulfilledAt) ?? start);
    const pad = Math.max((end - start) * 0.6, 50);
    return { i, start, end, cls, endedBy: w.endedBy, basis: w.basis, zoom: [start - pad, end + pad] as [number, number], tip: windowTip(w, i) };
  });
  const rounds = rs.rounds
    .filter((r) => r.kind !== 'claim') // adopt/release claims are in the findings and rounds tables, not on the timeline
    .map((r) => ({ t: ms(r.at)!, kind: r.kind, failed: roundFailed(r), cls: roundFailed(r) ? 'failed' : r.kind, tip: roundTip(r) }))
    .filter((r) => Number.isFinite(r.t));
  const until = ms(rs.initialState.until);
  // The time before kexp knew the controller's expectations (initialState basis `unknown`).
  const unknown: { start: number; end: number; tip: Tip }[] = [];
  if (rs.initialState.basis === 'unknown' && (until === undefined || until > t0)) {
    const rows: [string, string][] = until === undefined ? [] : [['until', t(rs.initialState.until)]];
    unknown.push({ start: t0, end: until ?? t1, tip: { title: 'Expectations unknown', rows: [...rows, ['why', rs.initialState.reason]] } });
  }
  const expiries = rs.gatedWindows
    .filter((w) => w.endedBy === 'open' && ms(w.expiresAt) !== undefined && ms(w.expiresAt)! <= t1)
    .map((w) => ({ t: ms(w.expiresAt)!, tip: { title: 'Open window: record expires', rows: [['at', t(w.expiresAt)]] } }));

  const lane = (y: number, h: number) => ({ y: { value: y }, y2: { value: y + h } });
  const spec = {
    description: 'kexp timeline',
    width: DEFAULT_W,
    height: CHART_H,
    padding: { left: 8, right: 16, top: 8, bottom: 8 },
    autosize: { type: 'pad' },
    signals: [
      { name: 't0', value: t0 },
      { name: 't1', value: t1 },
      { name: 'down', value: null, on: [{ events: 'pointerdown', update: 'x()' }, { events: 'window:pointerup', update: 'null' }] },
      { name: 'xcur', value: null, on: [{ events: 'pointerdown', update: 'slice(xdom)' }] },
      {
        name: 'delta',
        value: 0,
        on: [{ events: [{ source: 'window', type: 'pointermove', consume: true, between: [{ type: 'pointerdown' }, { source: 'window', type: 'pointerup' }] }], update: 'down === null ? 0 : down - x()' }],
      },
      { name: 'anchor', value: 0, on: [{ events: 'wheel', update: "time(invert('x', x()))" }] },
      { name: 'zoom', value: 1, on: [{ events: 'wheel!', force: true, update: 'pow(1.0015, event.deltaY * pow(16, event.deltaMode))' }] },
      {
        name: 'xdom',
        value: [t0, t1],
        on: [
          { events: { signal: 'delta' }, update: 'xcur && delta !== 0 ? [xcur[0] + span(xcur) * delta / width, xcur[1] + span(xcur) * delta / width] : xdom' },
          { events: { signal: 'zoom' }, update: 'span(xdom) * zoom < 1 ? xdom : [anchor + (xdom[0] - anchor) * zoom, anchor + (xdom[1] - anchor) * zoom]' },
          { events: 'dblclick', update: '[t0, t1]' },
          { events: '@windows:click', update: 'datum.zoom' },
        ],
      },
    ],
    data: [
      { name: 'series', values: lines },
      { name: 'long', source: 'series', transform: [{ type: 'fold', fields: ['desired', 'active', 'terminating', 'ready'], as: ['key', 'value'] }] },
      { name: 'd_windows', values: windows },
      { name: 'd_rounds', values: rounds },
      { name: 'd_unknown', values: unknown },
      { name: 'd_expiries', values: expiries },
      { name: 'd_lanes', values: [{ label: 'gated', y: GATE_Y + GATE_H / 2 }, { label: 'writes', y: WRITE_Y }] },
    ],
    scales: [
      { name: 'x', type: 'utc', domain: { signal: 'xdom' }, range: 'width', zero: false, nice: false },
      { name: 'y', type: 'linear', domain: [0, ymax], nice: true, zero: true, range: [PODS_H, 0] },
      { name: 'series', type: 'ordinal', domain: ['desired', 'active', 'terminating', 'ready'], range: [COLORS.desired, COLORS.active, COLORS.terminating, COLORS.ready] },
      { name: 'gate', type: 'ordinal', domain: ['fulfilled', 'leaked', 'open'], range: [COLORS.fulfilled, COLORS.leaked, COLORS.open] },
      { name: 'write', type: 'ordinal', domain: ['create', 'delete', 'failed'], range: [COLORS.create, COLORS.delete, COLORS.failed] },
      { name: 'shape', type: 'ordinal', domain: ['create', 'delete', 'failed'], range: ['triangle-up', 'triangle-down', 'cross'] },
    ],
    axes: [
      {
        orient: 'bottom', scale: 'x', offset: 4, labelOverlap: true, formatType: 'utc',
        format: { year: '%Y', quarter: '%Y-%m', month: '%Y-%m', week: '%m-%d', date: '%m-%d', hours: '%H:%M', minutes: '%H:%M', seconds: '%H:%M:%S', milliseconds: '%H:%M:%S.%L' }, grid: true, gridOpacity: 0.35, tickCount: 8, title: 'time (UTC)', zindex: 0 },
      { orient: 'left', scale: 'y', title: 'pods', tickMinStep: 1, format: 'd', grid: true, gridOpacity: 0.35, tickCount: 5 },
    ],
    legends: [
      { stroke: 'series', orient: 'top', direction: 'horizontal', title: null, symbolType: 'stroke', symbolStrokeWidth: 2.5 },
      { fill: 'gate', orient: 'top', direction: 'horizontal', title: 'gated', titleOrient: 'left', symbolType: 'square' },
      { fill: 'write', shape: 'shape', orient: 'top', direction: 'horizontal', title: 'writes', titleOrient: 'left' },
    ],
    marks: [
      {
        type: 'rect', name: 'unknownBand', from: { data: 'd_unknown' }, clip: true,
        encode: { update: { x: { scale: 'x', field: 'start' }, x2: { scale: 'x', field: 'end' }, y: { value: 0 }, y2: { value: WRITE_Y + 10 }, fill: { value: '#8c959f' }, fillOpacity: { value: 0.09 }, tooltip: { field: 'tip' } } },
      },
      {
        type: 'rect', name: 'windowBands', from: { data: 'd_windows' }, clip: true, interactive: false,
        encode: { update: { x: { scale: 'x', field: 'start' }, x2: { signal: "max(scale('x', datum.end), scale('x', datum.start) + 2)" }, y: { value: 0 }, y2: { value: PODS_H }, fill: { scale: 'gate', field: 'cls' }, fillOpacity: { value: 0.13 } } },
      },
      {
        type: 'rect', name: 'steps', from: { data: 'series' }, clip: true,
        encode: { update: { x: { scale: 'x', field: 't' }, x2: { scale: 'x', field: 't2' }, y: { value: 0 }, y2: { value: PODS_H }, fill: { value: '#000' }, fillOpacity: { value: 0 }, tooltip: { signal: SERIES_TIP } } },
      },
      {
        type: 'group', name: 'lines', clip: true,
        from: { facet: { name: 'line', data: 'long', groupby: 'key' } },
        encode: { update: { width: { signal: 'width' }, height: { value: PODS_H } } },
        marks: [{
          type: 'line', from: { data: 'line' }, interactive: false,
          sort: { field: 'datum.t' },
          encode: { update: {
            x: { scale: 'x', field: 't' }, y: { scale: 'y', field: 'value' }, interpolate: { value: 'step-after' },
            stroke: { scale: 'series', field: 'key' },
            strokeWidth: { signal: "datum.key === 'desired' || datum.key === 'active' ? 2.5 : 1.5" },
            strokeDash: { signal: "datum.key === 'desired' ? [6, 3] : []" },
          } },
        }],
      },
      {
        type: 'rule', name: 'expiries', from: { data: 'd_expiries' }, clip: true,
        encode: { update: { x: { scale: 'x', field: 't' }, y: { value: 0 }, y2: { value: GATE_Y + GATE_H }, stroke: { value: COLORS.open }, strokeDash: { value: [2, 2] }, tooltip: { field: 'tip' } } },
      },
      {
        type: 'rect', name: 'windows', from: { data: 'd_windows' }, clip: true,
        encode: {
          update: {
            x: { scale: 'x', field: 'start' }, x2: { signal: "max(scale('x', datum.end), scale('x', datum.start) + 3)" },
            ...lane(GATE_Y, GATE_H), fill: { scale: 'gate', field: 'cls' }, stroke: { value: '#333' }, strokeWidth: { value: 0.5 },
            // Windows whose basis is unknown (e.g. creates neither seen nor reported failed) are paler and dashed.
            fillOpacity: { signal: "datum.basis === 'unknown' ? 0.45 : 1" }, strokeDash: { signal: "datum.basis === 'unknown' ? [3, 2] : []" },
            cursor: { value: 'pointer' }, tooltip: { field: 'tip' },
          },
          hover: { strokeWidth: { value: 2 } },
        },
      },
      {
        type: 'symbol', name: 'rounds', from: { data: 'd_rounds' }, clip: true,
        encode: {
          update: {
            x: { scale: 'x', field: 't' }, y: { value: WRITE_Y }, shape: { scale: 'shape', field: 'cls' }, fill: { scale: 'write', field: 'cls' },
            size: { value: 90 }, stroke: { value: '#fff' }, strokeWidth: { value: 0.5 }, tooltip: { field: 'tip' },
          },
          hover: { size: { value: 180 } },
        },
      },
      {
        type: 'text', name: 'laneLabels', from: { data: 'd_lanes' }, interactive: false,
        encode: { update: { x: { value: -8 }, y: { field: 'y' }, text: { field: 'label' }, align: { value: 'right' }, baseline: { value: 'middle' }, fill: { value: '#57606a' }, fontSize: { value: 11 } } },
      },
    ],
  };
  return { t0, t1, windows, spec };
}

function table(head: string[], rows: string[][], cls: string[] = []): string {
  return `<div class="scroll"><table><thead><tr>${head.map((h) => `<th>${escapeHtml(h)}</th>`).join('')}</tr></thead><tbody>${rows
    .map((r) => `<tr>${r.map((c, i) => `<td${cls[i] ? ` class="${cls[i]}"` : ''}>${c}</td>`).join('')}</tr>`)
    .join('')}</tbody></table></div>`;
}

/**
 * The page's owners, worst first (see the module comment): those needing a look (`look`), those
 * drawn in full (`drawn`: `look`, or the first when none needs one, in chart order) and the rest.
 */
export function pageOwners(rss: ReplicaSetReport[]): { ranked: ReplicaSetReport[]; look: ReplicaSetReport[]; drawn: ReplicaSetReport[]; rest: ReplicaSetReport[] } {
  const ranked = rankReplicaSets(rss);
  const look = ranked.filter((rs) => needsAttention(rs) || headlineOf(rs).now !== undefined);
  const drawn = look.length ? look : ranked.slice(0, 1);
  return { ranked, look, drawn, rest: ranked.filter((rs) => !drawn.includes(rs)) };
}

/** The summary that opens the page: each owner needing a look, worst first, as the terminal says it. */
function summaryHtml(look: ReplicaSetReport[], ids: Map<ReplicaSetReport, number>, all: number): string {
  const e = escapeHtml;
  const out = ['<section class="summary" id="summary"><h2>Summary</h2>'];
  if (look.length === 0) out.push(`<p>Nothing needs a look: ${all === 1 ? 'the owner is' : `all ${all} owners are`} healthy or converging, with no finding above info.</p>`);
  for (const rs of look) {
    const h = headlineOf(rs);
    const id = ids.get(rs);
    out.push('<div class="verdict">');
    out.push(`<p><span class="badge ${e(h.state)}">${e(h.state.toUpperCase())}</span> <span class="meta">[${e(h.basis)}]</span> ` +
      `${ownerKindOf(rs)} ${id !== undefined ? `<a href="#rs-${id}"><code>${e(rs.key)}</code></a>` : `<code>${e(rs.key)}</code>`} — ` +
      `${h.now ? `an expectation leak the input shows, cleared only by the 5-minute timeout (exit code 4); at the end ${e(h.now.toUpperCase())}: ` : ''}${e(rs.verdict.summary)}</p>`);
    const cause = causeOf(rs);
    if (cause) out.push(`<p><strong>Cause:</strong> ${e(cause)}</p>`);
    const advice = adviceOf(rs);
    const cmds = kubectlCommands(rs);
    if (advice.length) out.push(`<p><strong>Next:</strong> ${advice.map(e).join(' ')}</p>`);
    else if (!cmds.length) out.push('<p><strong>Next:</strong> nothing to do.</p>');
    if (cmds.length) out.push(`<pre class="cmd"><code>${cmds.map(e).join('\n')}</code></pre>`);
    out.push('</div>');
  }
  out.push('</section>');
  return out.join('\n');
}

/** The owners not drawn: their names and verdicts, at most COLLAPSED_LISTED, the rest counted. */
function collapsedHtml(rest: ReplicaSetReport[]): string {
  if (!rest.length) return '';
  const e = escapeHtml;
  const listed = rest.slice(0, COLLAPSED_LISTED);
  return `<section class="collapsed" id="nothing-to-do"><h2>${rest.length} more ${rest.length === 1 ? 'owner' : 'owners'} with nothing to do</h2>` +
    '<p class="meta">Healthy or converging, no finding above info: not drawn here (their full reports: <code>-o json</code>, or the command with <code>-n NAMESPACE NAME</code>).</p>' +
    `<ul>${listed.map((rs) => `<li>${ownerKindOf(rs)} <code>${e(rs.key)}</code> <span class="badge ${e(rs.verdict.state)}">${e(rs.verdict.state)}</span> <span class="meta">${e(rs.verdict.summary)}</span></li>`).join('')}</ul>` +
    (rest.length > listed.length ? `<p class="meta">… and ${rest.length - listed.length} more.</p>` : '') +
    '</section>';
}

function renderRS(rs: ReplicaSetReport, i: number, hasChart: boolean, extra?: HtmlExtras): string {
  const e = escapeHtml;
  const out: string[] = [];
  const c = rs.counts;
  out.push(`<section class="rs" id="rs-${i}">`);
  const h = headlineOf(rs);
  out.push(`<h2>${ownerKindOf(rs)} <code>${e(rs.key)}</code> <span class="badge ${e(h.state)}">${e(h.state.toUpperCase())}</span></h2>`);
  out.push(`<p>${h.now ? `An expectation leak the input shows, cleared only by the 5-minute timeout (exit code 4); at the end ${e(h.now.toUpperCase())}: ` : ''}${e(rs.verdict.summary)} <span class="meta">[${e(rs.verdict.basis)}]</span></p>`);
  out.push(
    `<p class="meta">${rs.uid ? `uid <code>${e(rs.uid)}</code> · ` : ''}${rs.owner ? `owner ${e(rs.owner.kind)}/${e(rs.owner.name)} · ` : ''}` +
      `desired ${c.desired.first}→${c.desired.last}${e(desiredMeaning(rs))} · active ${c.active.first}→${c.active.last} (max ${c.active.max}) · ` +
      `terminating max ${c.terminating.max} · ready ${c.ready.last} · syncs ${rs.syncs.total}${rs.syncs.byOutcome.gated ? ` (${rs.syncs.byOutcome.gated} gated)` : ''}</p>`,
  );
  if (rs.initialState.basis === 'unknown')
    out.push(`<p class="meta">Before ${rs.initialState.until ? e(t(rs.initialState.until)) : 'any round'}: expectations unknown (${e(rs.initialState.reason)}).</p>`);
  else out.push(`<p class="meta">Expectations known from the start: ${e(rs.initialState.reason)}.</p>`);
  if (hasChart) {
    out.push(
      `<div class="chart-tools"><button type="button" data-rs="${i}" data-reset="">Reset zoom</button>` +
        '<span>Scroll to zoom, drag to pan, double-click to reset; click a gated window to zoom to it; hover or click a mark for its evidence.</span></div>',
    );
    out.push(`<div class="chart" id="chart-${i}" role="img" aria-label="Timeline of ${e(rs.key)}"></div>`);
    out.push(`<div class="details" id="details-${i}" hidden></div>`);
  }
  out.push('<h3>Gated windows</h3>');
  if (!rs.gatedWindows.length) out.push('<p class="empty">None: the controller was never gated on its own writes in the covered time.</p>');
  else {
    out.push(
      table(
        ['', 'Start', 'End', 'Duration', 'Ended by', 'Raised add/del', 'Left add/del', 'Gated syncs', 'Basis', 'Note'],
        rs.gatedWindows.map((w, k) => [
          hasChart ? `<button type="button" data-rs="${i}" data-win="${k}">zoom</button>` : '',
          e(t(w.start)),
          w.end ? e(t(w.end)) : `open (expires ${e(t(w.expiresAt))})`,
          e(w.durationMs === undefined ? '—' : shortDuration(w.durationMs)),
          `<span class="badge ${e(w.endedBy)}">${e(endedByLabel(rs, w.endedBy))}</span>`,
          `${w.raised.add}/${w.raised.del}`,
          w.remaining ? `${w.remaining.add}/${w.remaining.del}` : '—',
          String(w.gatedSyncs),
          e(w.basis),
          e(w.note ?? ''),
        ]),
        ['', 'mono', 'mono', 'num', '', 'num', 'num', 'num', '', ''],
      ),
    );
  }
  // What only a DaemonSet or a Job has beside its gate (workload-stores.ts), unwrapped: one paragraph each.
  const flat = (line: string) => line.replace(/\s+/g, ' ').trim();
  const stores = [
    ...(rs.controllerLog?.rollingUpdateChecks ? [flat(rollingUpdateChecksLine(rs.controllerLog.rollingUpdateChecks, Infinity))] : []),
    ...(rs.finalizerRemovals ? [flat(finalizerRemovalsLine(rs.finalizerRemovals, t, Infinity, true))] : []),
    ...(rs.controllerLog?.finalizerTracking ? [flat(finalizerTrackingLine(rs.controllerLog.finalizerTracking, t, Infinity, true))] : []),
  ];
  if (stores.length) out.push(`<h3>${rs.kind === 'Job' ? 'Finalizers' : 'Rolling-update checks'}</h3>`, ...stores.map((x) => `<p>${e(x)}</p>`));
  const more = extra?.sections?.(rs, i);
  if (more) out.push(more);
  out.push('<h3>Findings</h3>');
  if (!rs.findings.length) out.push('<p class="empty">None.</p>');
  for (const f of rs.findings) {
    out.push(
      `<div class="finding ${e(f.severity)}"><div><span class="badge ${e(f.severity)}">${e(f.severity.toUpperCase())}</span> <strong>${e(f.title)}</strong> ` +
        `<span class="meta">(${e(f.basis)}${f.at ? `, ${e(t(f.at))}` : ''})</span></div>` +
        `<p>${e(f.explanation)}</p><p><strong>Next:</strong> ${e(f.nextStep)}</p>` +
        (f.evidence.length ? `<p class="evidence">Evidence: ${f.evidence.map(e).join(', ')}</p>` : '') +
        '</div>',
    );
  }
  out.push(`<h3>Adoption <span class="meta">(ClaimObject for each candidate pod${rs.adoption.at ? `, at ${e(t(rs.adoption.at))}` : ''})</span></h3>`);
  if (!rs.adoption.rows.length) out.push('<p class="empty">No candidate pods.</p>');
  else
    out.push(
      table(
        ['Pod', 'Action', 'Claimed', 'Why'],
        rs.adoption.rows.map((a) => [e(a.pod), e(a.action), a.claimed ? 'yes' : 'no', e(a.reason)]),
        ['mono', '', '', ''],
      ),
    );
  out.push('</section>');
  return out.join('\n');
}

function sha256(s: string): string {
  return `'sha256-${crypto.createHash('sha256').update(s, 'utf8').digest('base64')}'`;
}

/**
 * What a command adds to the shared page (`kexp explain`: its snapshot facts, recent
 * timeline and next steps). Every string in them must already be escaped with escapeHtml.
 */
export interface HtmlExtras {
  /** A paragraph under the title. */
  lead?: string;
  /** Sections for one ReplicaSet, placed after its gated windows. */
  sections?: (rs: ReplicaSetReport, i: number) => string;
  /** Also embed the whole Report as `<script type="application/json" id="kexp-report">` (never executed). */
  embedReport?: boolean;
}

/** The whole Report as one self-contained HTML document (the same timeline page for replay, audit and explain). */
export function renderHtml(report: Report, extra?: HtmlExtras): string {
  const e = escapeHtml;
  const cov = report.coverage;
  const range = { start: cov.start, end: cov.end };
  const { ranked, look, drawn, rest } = pageOwners(report.replicaSets);
  const ids = new Map(drawn.map((rs, i) => [rs, i]));
  // The chart's data are shown (tooltips): their strings get the visible escapes of the page's text.
  const charts = drawn.map((rs) => visibleDeep(chartModel(rs, range)));
  const model = {
    schemaVersion: report.schemaVersion,
    replicaSets: drawn.map((rs, i) => {
      const m = charts[i];
      return m ? { key: rs.key, t0: m.t0, t1: m.t1, windows: m.windows.map((w) => ({ start: w.start, end: w.end, zoom: w.zoom })), spec: m.spec } : { key: rs.key };
    }),
  };
  const vega = vegaBundle();
  const vegaScript = `${vega.code}\n`;
  const appScript = CLIENT_JS;
  const csp = [
    "default-src 'none'",
    `script-src ${sha256(vegaScript)} ${sha256(appScript)} 'unsafe-eval'`,
    "style-src 'unsafe-inline'",
    'img-src data: blob:',
    'font-src data:',
    "connect-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
  const title = report.replicaSets.length === 1 ? `kexp: ${report.replicaSets[0]!.key}` : `kexp report: ${report.replicaSets.length} ${ownerNouns(report.replicaSets)}`;

  const body: string[] = [];
  body.push(`<h1>${e(title)}</h1>`);
  body.push(
    `<p class="meta">${e(report.generator.name)} ${e(report.generator.version)} ${e(report.generator.command)} · model Kubernetes ${e(report.k8sVersion.version)} (${e(report.k8sVersion.basis)}) · ` +
      `covered ${e(t(cov.start))} → ${e(t(cov.end))}</p>`,
  );
  if (extra?.lead) body.push(`<p>${extra.lead}</p>`);
  if (!report.replicaSets.length) body.push('<p class="empty">No ReplicaSet found in the input.</p>');
  else body.push(summaryHtml(look, ids, ranked.length));
  if (drawn.length > 1 || rest.length) {
    body.push(`<nav><ul>${drawn.map((rs, i) => `<li><a href="#rs-${i}">${e(rs.key)}</a> <span class="badge ${e(headlineOf(rs).state)}">${e(headlineOf(rs).state)}</span></li>`).join('')}${rest.length ? `<li><a href="#nothing-to-do">${rest.length} more with nothing to do</a></li>` : ''}</ul></nav>`);
  }
  drawn.forEach((rs, i) => body.push(renderRS(rs, i, charts[i] !== undefined, extra)));
  if (rest.length) body.push(collapsedHtml(rest));
  const foot: string[] = [];
  foot.push(`<h3>Input</h3><ul>${report.inputs.map((i) => `<li><code>${e(i.file)}</code> (${e(i.format)}, ${i.events} events${i.problems ? `, ${i.problems} problems` : ''}${i.endMarker ? '' : ', no end marker'})</li>`).join('')}</ul>`);
  foot.push(`<ul>${cov.timeBasis.map((b) => `<li>Times: ${e(b)}</li>`).join('')}${cov.assumptions.map((a) => `<li>Assumed: ${e(a)}</li>`).join('')}</ul>`);
  if (cov.gaps.length) foot.push(`<p>Gaps:</p><ul>${cov.gaps.map((g) => `<li>${e(t(g.at))}${g.until ? ` → ${e(t(g.until))}` : ''}: ${e(g.reason)}${g.detail ? ` (${e(g.detail)})` : ''} <span class="evidence">${e(g.evidence)}</span></li>`).join('')}</ul>`);
  if (cov.problems.count) foot.push(`<p>Problems: ${cov.problems.count} input line(s) skipped, e.g. ${e(cov.problems.examples[0] ?? '')}</p>`);
  foot.push(`<p>Chart drawn with Vega ${e(vega.version)} (BSD-3-Clause), inlined; this file makes no network requests.</p>`);

  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${e(csp)}">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<meta name="referrer" content="no-referrer">',
    `<title>${e(title)}</title>`,
    `<style>${CLIENT_CSS}</style>`,
    '</head>',
    '<body>',
    '<main>',
    ...body,
    `<footer>${foot.join('\n')}</footer>`,
    '</main>',
    `<script type="application/json" id="kexp-data">${scriptJson(model)}</script>`,
    ...(extra?.embedReport ? [`<script type="application/json" id="kexp-report">${scriptJson(report)}</script>`] : []),
    `<script>${vegaScript}</script>`,
    `<script>${appScript}</script>`,
    '</body>',
    '</html>',
    '',
  ].join('\n');
}
