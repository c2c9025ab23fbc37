/**
 * A compact terminal timeline of one ReplicaSet, drawn from the Report alone (no I/O, no
 * clock): desired vs active pods as step rows, the gated windows, and the create/delete
 * rounds (the syncs that wrote), over a labelled UTC time axis.
 *
 *   Timeline 2026-11-30 10:00:00.000 -> 10:07:42.055 UTC, 1 col = 5.2s; 5 syncs
 *   pods    5 |        -----------------------------------------------------------
 *           4 |
 *           3 |===================================================================
 *           2 |###################################################################
 *           1 |###################################################################
 *   gated     |F       LLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLOOOOOOOO
 *   writes    |C       X                                                     X
 *   causes    |        T
 *             +-----------+-----------+-----------+-----------+-----------+------
 *              10:01      10:02       10:03       ...
 *
 * Each column covers span/width of time and shows the state at the end of that slice (the
 * last series point at or before it). Bars are `#` up to the active count, the desired count
 * is `-` (or `=` where it lies inside the active bar). Up to five rows; with more pods than
 * rows each row stands for max/rows pods, and any non-zero count shows at least one row.
 * Gated row: `F` fulfilled, `L` leaked (expired, or the ReplicaSet deleted while gated; a window
 * of basis unknown is drawn as unknown instead),
 * `O` still open at the end of input, `.` expectations unknown (initialState basis `unknown`:
 * before the first round kexp saw). Writes row: `C` create round, `D` delete round, `X` a round with failed or rejected
 * writes (API errors, walked-back creates, NamespaceTerminating). Where several marks share
 * a column the more severe one wins (O > L > F > ., X > D > C). Causes row (only when the
 * report carries one): `!` the first failed write, `T` the first create rejected because the
 * namespace was Terminating, `R` the ReplicaSet's deletion (R > T > !). The y axis labels
 * every pod row with the count it stands for.
 *
 * Plain mode uses ASCII only; colour mode uses ANSI SGR colours and a few single-width
 * Unicode glyphs in the same layout. Individual sync times are not in the Report (only
 * counts), so syncs appear as a count in the header and as rounds in the writes row.
 */
import type { GatedWindow, ReplicaSetReport, RoundReport } from '../analysis/report-types.js';
import { ownerWordsOf } from '../analysis/report/owner-words.js';
import { paint, SGR } from './color.js';

export interface ChartOptions {
  /** Total columns the chart may use (lines are never longer); at least 40 is used. */
  width: number;
  /** ANSI colours and Unicode glyphs; false → plain ASCII. */
  color: boolean;
  /** Time range to draw (RFC 3339); default: the ReplicaSet's own first and last time. */
  start?: string;
  end?: string;
}

const INDENT = '  ';
const MAX_ROWS = 5;
const MIN_PLOT = 10;
/** Narrower widths are drawn at this width. */
const MIN_WIDTH = 40;

interface Glyphs {
  bar: string;
  desired: string;
  both: string;
  axis: string;
  tick: string;
  vbar: string;
  corner: string;
  arrow: string;
  unknown: string;
}

const ASCII: Glyphs = { bar: '#', desired: '-', both: '=', axis: '-', tick: '+', vbar: '|', corner: '+', arrow: '->', unknown: '.' };
const UNICODE: Glyphs = { bar: '█', desired: '━', both: '━', axis: '─', tick: '┬', vbar: '│', corner: '└', arrow: '→', unknown: '·' };

const STYLE = {
  bar: SGR.green,
  desired: `${SGR.bold};${SGR.brightYellow}`,
  both: `${SGR.bold};${SGR.brightYellow};42`,
  axis: SGR.dim,
  label: SGR.dim,
  fulfilled: `${SGR.bold};${SGR.green}`,
  leaked: `${SGR.bold};${SGR.red}`,
  open: `${SGR.bold};${SGR.yellow}`,
  unknown: SGR.dim,
  create: SGR.cyan,
  delete: SGR.magenta,
  failed: `${SGR.bold};${SGR.red}`,
  title: SGR.bold,
  cause: `${SGR.bold};${SGR.brightRed}`,
} as const;

interface Cell {
  ch: string;
  style?: string;
}

type GateClass = 'unknown' | 'fulfilled' | 'leaked' | 'open';
const GATE_RANK: Record<GateClass, number> = { unknown: 1, fulfilled: 2, leaked: 3, open: 4 };
const GATE_CHAR: Record<Exclude<GateClass, 'unknown'>, string> = { fulfilled: 'F', leaked: 'L', open: 'O' };

type WriteClass = 'create' | 'delete' | 'failed';
const WRITE_RANK: Record<WriteClass, number> = { create: 1, delete: 2, failed: 3 };
const WRITE_CHAR: Record<WriteClass, string> = { create: 'C', delete: 'D', failed: 'X' };

type CauseClass = 'failure' | 'ns-terminating' | 'rs-deleted';
const CAUSE_RANK: Record<CauseClass, number> = { failure: 1, 'ns-terminating': 2, 'rs-deleted': 3 };
const CAUSE_CHAR: Record<CauseClass, string> = { failure: '!', 'ns-terminating': 'T', 'rs-deleted': 'R' };

/**
 * The causes the report carries, with their times: the first round whose creates were
 * rejected because the namespace was Terminating (`T`; the report has no namespace phase
 * change of its own, so the first rejection is when it shows), the ReplicaSet's deletion as
 * the end of a gated window it ended (`R`), and the first round with a failed write other
 * than those rejections (`!`).
 */
export function chartCauses(rs: ReplicaSetReport): Array<{ kind: CauseClass; at: string }> {
  const out: Array<{ kind: CauseClass; at: string }> = [];
  const ns = rs.rounds.find((r) => (r.namespaceTerminating ?? 0) > 0);
  if (ns) out.push({ kind: 'ns-terminating', at: ns.at });
  const del = rs.gatedWindows.find((w) => w.endedBy === 'rs-deleted' && w.end);
  if (del?.end) out.push({ kind: 'rs-deleted', at: del.end });
  const fail = rs.rounds.find((r) => r.kind !== 'claim' && (r.errors.length > 0 || (r.failed?.length ?? 0) > 0 || (r.skipped ?? 0) - (r.unmade ?? 0) > 0));
  if (fail) out.push({ kind: 'failure', at: fail.at });
  return out;
}

/** How a gated window is drawn: fulfilled, leaked (ended without its counters reaching 0), open. */
export function gateClass(w: GatedWindow): Exclude<GateClass, 'unknown'> {
  // A record dropped by a restart ended the gate without leaking (the findings say why).
  if (w.endedBy === 'fulfilled' || w.endedBy === 'reset') return 'fulfilled';
  if (w.endedBy === 'open') return 'open';
  return 'leaked';
}

/** A round with any write that failed or was rejected (including NamespaceTerminating rejections). */
export function roundFailed(r: RoundReport): boolean {
  return r.errors.length > 0 || (r.skipped ?? 0) - (r.unmade ?? 0) > 0 || (r.failed?.length ?? 0) > 0 || (r.namespaceTerminating ?? 0) > 0;
}

function ms(iso: string | undefined): number | undefined {
  if (!iso) return undefined;
  const v = Date.parse(iso);
  return Number.isFinite(v) ? v : undefined;
}

/** Compact duration: 0.4ms, 45ms, 5.2s, 42s, 7m42s, 3h05m, 2d4h. */
export function shortDuration(d: number): string {
  if (d < 10) return `${Number(d.toFixed(1))}ms`;
  if (d < 1000) return `${Math.round(d)}ms`;
  const s = d / 1000;
  if (s < 10) return `${Number(s.toFixed(1))}s`;
  if (s < 60) return `${Math.round(s)}s`;
  const totalS = Math.round(s);
  const m = Math.floor(totalS / 60);
  if (m < 60) return `${m}m${String(totalS % 60).padStart(2, '0')}s`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h}h${String(m % 60).padStart(2, '0')}m`;
  return `${Math.floor(h / 24)}d${h % 24}h`;
}

const TICK_STEPS = [
  1, 2, 5, 10, 20, 50, 100, 200, 500,
  1e3, 2e3, 5e3, 10e3, 15e3, 30e3,
  60e3, 120e3, 300e3, 600e3, 900e3, 1800e3,
  3600e3, 7200e3, 10800e3, 21600e3, 43200e3,
  86400e3, 2 * 86400e3, 7 * 86400e3, 14 * 86400e3, 28 * 86400e3,
];

function tickLabel(t: number, step: number): string {
  const iso = new Date(t).toISOString(); // 2026-11-30T10:00:02.045Z
  if (step % 86400e3 === 0) return iso.slice(5, 10);
  if (step % 60e3 === 0) return iso.slice(11, 16);
  if (step % 1e3 === 0) return iso.slice(11, 19);
  if (step % 100 === 0) return iso.slice(11, 21);
  if (step % 10 === 0) return iso.slice(11, 22);
  return iso.slice(11, 23);
}

function tickLabelLength(step: number): number {
  return tickLabel(0, step).length;
}

/** Merges runs of equally styled cells into one SGR span each. */
function serialize(cells: Cell[], color: boolean): string {
  if (!color) return cells.map((c) => c.ch).join('');
  let out = '';
  let run = '';
  let style: string | undefined;
  for (const c of cells) {
    if (c.style !== style) {
      out += paint(run, style);
      run = '';
      style = c.style;
    }
    run += c.ch;
  }
  return (out + paint(run, style)).trimEnd();
}

function blank(n: number): Cell[] {
  return Array.from({ length: n }, () => ({ ch: ' ' }));
}

export function renderChart(rs: ReplicaSetReport, opts: ChartOptions): string {
  const color = opts.color;
  const width = Math.max(MIN_WIDTH, Math.floor(opts.width));
  const g = color ? UNICODE : ASCII;
  const st = (s: string): string | undefined => (color ? s : undefined);

  // Time range: explicit, else everything the ReplicaSet report mentions.
  const times: number[] = [];
  const add = (iso: string | undefined): void => {
    const v = ms(iso);
    if (v !== undefined) times.push(v);
  };
  for (const p of rs.series) add(p.at);
  for (const r of rs.rounds) add(r.at);
  for (const w of rs.gatedWindows) {
    add(w.start);
    add(w.end);
    add(w.fulfilledAt);
  }
  add(rs.initialState.until);
  // (Loops, not Math.min(...times): reports can hold many thousands of times.)
  const t0 = ms(opts.start) ?? (times.length ? times.reduce((a, b) => (b < a ? b : a)) : undefined);
  const t1 = ms(opts.end) ?? (times.length ? times.reduce((a, b) => (b > a ? b : a)) : undefined);
  if (t0 === undefined || t1 === undefined || t1 < t0) return `${INDENT}Timeline: no timed events for this ${ownerWordsOf(rs).noun}`;
  const span = Math.max(t1 - t0, 1);

  // Gutter: "  pods    5 |" — label field wide enough for the largest count.
  const series = rs.series
    .map((p) => ({ t: ms(p.at), desired: p.desired, active: p.active }))
    .filter((p): p is { t: number; desired: number; active: number } => p.t !== undefined && p.t <= t1)
    .sort((a, b) => a.t - b.t);
  const ymax = series.reduce((m, p) => Math.max(m, p.desired, p.active), 1);
  const field = Math.max(9, 5 + String(ymax).length);
  const gutter = (label: string): Cell[] => [
    ...[...`${INDENT}${label.padEnd(field)} `].map((ch) => ({ ch, style: st(STYLE.label) })),
    { ch: g.vbar, style: st(STYLE.axis) },
  ];
  const gutterLen = INDENT.length + field + 2;
  const W = Math.max(MIN_PLOT, width - gutterLen);
  const col = (t: number): number => Math.min(W - 1, Math.max(0, Math.floor(((t - t0) * W) / span)));

  // Column values: the last series point in or before each column.
  const desired: (number | undefined)[] = new Array(W).fill(undefined);
  const active: (number | undefined)[] = new Array(W).fill(undefined);
  {
    let i = 0;
    let cur: { desired: number; active: number } | undefined;
    for (let c = 0; c < W; c++) {
      while (i < series.length && col(series[i]!.t) <= c) cur = series[i++];
      if (cur) {
        desired[c] = cur.desired;
        active[c] = cur.active;
      }
    }
  }
  const rows = Math.min(ymax, MAX_ROWS);
  const level = (v: number | undefined): number => (v === undefined || v <= 0 ? 0 : Math.max(1, Math.round((v * rows) / ymax)));

  const lines: string[] = [];

  // Header.
  const d0 = new Date(t0).toISOString();
  const d1 = new Date(t1).toISOString();
  const endText = d0.slice(0, 10) === d1.slice(0, 10) ? d1.slice(11, 23) : `${d1.slice(0, 10)} ${d1.slice(11, 23)}`;
  const gatedSyncs = rs.syncs.byOutcome.gated ?? 0;
  const head = `Timeline ${d0.slice(0, 10)} ${d0.slice(11, 23)} ${g.arrow} ${endText} UTC, 1 col = ${shortDuration(span / W)}`;
  const syncs = `; ${rs.syncs.total} sync${rs.syncs.total === 1 ? '' : 's'}${gatedSyncs ? ` (${gatedSyncs} gated)` : ''}`;
  const candidates = [head + syncs, head, `Timeline ${d0.slice(11, 23)} ${g.arrow} ${d1.slice(11, 23)} UTC`, 'Timeline (UTC)'];
  const full = candidates.find((h) => INDENT.length + [...h].length <= width) ?? 'Timeline';
  lines.push(INDENT + (color ? paint('Timeline', STYLE.title) + full.slice('Timeline'.length) : full));

  // Pod rows, top (ymax) to bottom.
  for (let r = 0; r < rows; r++) {
    const k = rows - r;
    // y axis: every row labelled with the pod count it stands for (top row: "pods N").
    const value = String(Math.round((k * ymax) / rows));
    const cells = gutter(r === 0 ? `pods${value.padStart(field - 4)}` : value.padStart(field));
    for (let c = 0; c < W; c++) {
      const a = level(active[c]);
      const d = desired[c] === undefined ? -1 : level(desired[c]);
      if (a >= k) cells.push(d === k ? { ch: g.both, style: st(STYLE.both) } : { ch: g.bar, style: st(STYLE.bar) });
      else if (d === k) cells.push({ ch: g.desired, style: st(STYLE.desired) });
      else cells.push({ ch: ' ' });
    }
    lines.push(serialize(cells, color));
  }

  // Gated row.
  const gate: (GateClass | undefined)[] = new Array(W).fill(undefined);
  const mark = (from: number, to: number, cls: GateClass): void => {
    if (to < t0 || from > t1) return;
    for (let c = col(from); c <= col(to); c++) if (!gate[c] || GATE_RANK[gate[c]!] < GATE_RANK[cls]) gate[c] = cls;
  };
  const until = ms(rs.initialState.until);
  if (rs.initialState.basis === 'unknown') {
    if (until === undefined) mark(t0, t1, 'unknown');
    else if (until > t0) mark(t0, Math.min(until, t1) - 1e-9, 'unknown');
  }
  for (const w of rs.gatedWindows) {
    const s = ms(w.start);
    if (s === undefined) continue;
    // A window whose end the input cannot tell (a gap inside it, basis unknown) is not drawn as a
    // leak: the gated row claims only what the window's basis supports.
    const drawn = gateClass(w);
    const cls: GateClass = drawn === 'leaked' && w.basis === 'unknown' ? 'unknown' : drawn;
    const e = cls === 'open' ? t1 : (ms(w.end) ?? ms(w.fulfilledAt) ?? s);
    mark(s, Math.max(s, e), cls);
  }
  const gateCells = gutter('gated');
  for (const cls of gate) {
    if (!cls) gateCells.push({ ch: ' ' });
    else if (cls === 'unknown') gateCells.push({ ch: g.unknown, style: st(STYLE.unknown) });
    else gateCells.push({ ch: GATE_CHAR[cls], style: st(STYLE[cls]) });
  }
  lines.push(serialize(gateCells, color));

  // Writes row.
  const writes: (WriteClass | undefined)[] = new Array(W).fill(undefined);
  for (const r of rs.rounds) {
    const t = ms(r.at);
    if (t === undefined || t < t0 || t > t1 || r.kind === 'claim') continue;
    const cls: WriteClass = roundFailed(r) ? 'failed' : r.kind;
    const c = col(t);
    if (!writes[c] || WRITE_RANK[writes[c]!] < WRITE_RANK[cls]) writes[c] = cls;
  }
  const writeCells = gutter('writes');
  for (const cls of writes) writeCells.push(cls ? { ch: WRITE_CHAR[cls], style: st(STYLE[cls]) } : { ch: ' ' });
  lines.push(serialize(writeCells, color));

  // Causes row (only when the report carries one in range).
  const causes: (CauseClass | undefined)[] = new Array(W).fill(undefined);
  for (const c of chartCauses(rs)) {
    const t = ms(c.at);
    if (t === undefined || t < t0 || t > t1) continue;
    const k = col(t);
    if (!causes[k] || CAUSE_RANK[causes[k]!] < CAUSE_RANK[c.kind]) causes[k] = c.kind;
  }
  if (causes.some((c) => c)) {
    const causeCells = gutter('causes');
    for (const cls of causes) causeCells.push(cls ? { ch: CAUSE_CHAR[cls], style: st(STYLE.cause) } : { ch: ' ' });
    lines.push(serialize(causeCells, color));
  }

  // Time axis: ticks at round UTC multiples, labels left-aligned under them, never overlapping.
  let step = TICK_STEPS[TICK_STEPS.length - 1]!;
  for (const s of TICK_STEPS) {
    if ((s * W) / span >= tickLabelLength(s) + 2) {
      step = s;
      break;
    }
  }
  const axis: Cell[] = [
    ...[...`${INDENT}${' '.repeat(field)} `].map((ch) => ({ ch })),
    { ch: g.corner, style: st(STYLE.axis) },
    ...Array.from({ length: W }, () => ({ ch: g.axis, style: st(STYLE.axis) })),
  ];
  const labels = blank(W);
  let nextFree = 0;
  const place = (t: number, text: string): boolean => {
    const c = col(t);
    if (c < nextFree || c + text.length > W) return false;
    if (c > 0) axis[gutterLen + c] = { ch: g.tick, style: st(STYLE.axis) }; // column 0 sits on the corner
    for (let i = 0; i < text.length; i++) labels[c + i] = { ch: text[i]! };
    nextFree = c + text.length + 1;
    return true;
  };
  let placed = 0;
  for (let t = Math.ceil(t0 / step) * step; t <= t1; t += step) if (place(t, tickLabel(t, step))) placed++;
  if (placed === 0) place(t0, new Date(t0).toISOString().slice(11, 23));
  lines.push(serialize(axis, color));
  lines.push(serialize([...blank(gutterLen), ...labels], false).trimEnd());

  // Legend: only what this chart shows, wrapped to the width.
  const items: Cell[][] = [];
  const item = (glyph: string, style: string, text: string): void => {
    items.push([{ ch: glyph, style: st(style) }, ...[...` ${text}`].map((ch) => ({ ch }))]);
  };
  item(g.bar, STYLE.bar, 'active');
  item(g.desired, STYLE.desired, 'desired');
  item(g.both, STYLE.both, 'desired (met)');
  const gates = new Set(gate);
  if (gates.has('fulfilled')) item('F', STYLE.fulfilled, 'gated, fulfilled');
  if (gates.has('leaked')) item('L', STYLE.leaked, 'gated, leaked');
  if (gates.has('open')) item('O', STYLE.open, 'gated, open at end');
  if (gates.has('unknown')) item(g.unknown, STYLE.unknown, 'expectations unknown');
  const ws = new Set(writes);
  if (ws.has('create')) item('C', STYLE.create, 'create round');
  if (ws.has('delete')) item('D', STYLE.delete, 'delete round');
  if (ws.has('failed')) item('X', STYLE.failed, 'failed/rejected writes');
  const cs = new Set(causes);
  if (cs.has('failure')) item(CAUSE_CHAR.failure, STYLE.cause, 'first failure');
  if (cs.has('ns-terminating')) item(CAUSE_CHAR['ns-terminating'], STYLE.cause, 'namespace Terminating');
  if (cs.has('rs-deleted')) item(CAUSE_CHAR['rs-deleted'], STYLE.cause, `${ownerWordsOf(rs).noun} deleted`);
  let line: Cell[] = [];
  let len = 0;
  for (const it of items) {
    if (len > 0 && INDENT.length + len + 2 + it.length > width) {
      lines.push(INDENT + serialize(line, color));
      line = [];
      len = 0;
    }
    if (len > 0) {
      line.push({ ch: ' ' }, { ch: ' ' });
      len += 2;
    }
    line.push(...it);
    len += it.length;
  }
  if (line.length) lines.push(INDENT + serialize(line, color));
  return lines.map((l) => l.trimEnd()).join('\n');
}
