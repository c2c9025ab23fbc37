/**
 * The --html report in a real browser: headless Chromium (Debian's `chromium`, /usr/bin/chromium)
 * driven by playwright-core opens the report of a golden example from a file:// URL and checks
 * that it renders without console errors, makes no network request, draws each gated window at
 * the x its time maps to, shows the evidence on hover and zooms. Screenshots go to
 * test-artifacts/ (gitignored); the golden one is copied to docs/images/html-report.png for the
 * README.
 *
 * Needs `apt-get install -y chromium` and the playwright-core package. Without them the tests
 * are skipped with the reason, unless KEXP_REQUIRE_BROWSER=1 (set it in CI) makes that a failure.
 * KEXP_CHROMIUM overrides the browser path.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Report } from '../../src/analysis/report-types.js';
import { pageOwners, renderHtml } from '../../src/render/html.js';

const CHROMIUM = process.env.KEXP_CHROMIUM ?? '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const ROOT = path.resolve(new URL('../..', import.meta.url).pathname);
const ARTIFACTS = path.join(ROOT, 'test-artifacts');
const FIXTURES = path.join(ROOT, 'test/render/fixtures');
const GOLDEN = path.join(ROOT, 'examples/golden');
const TOLERANCE_PX = 1.5;

// playwright-core is loaded dynamically so that a missing package skips instead of crashing the run.
type Pw = typeof import('playwright-core');
let pw: Pw | undefined;
let why = '';
try {
  pw = (await import('playwright-core')) as Pw;
} catch (err) {
  why = `playwright-core is not installed (${(err as Error).message.split('\n')[0]})`;
}
if (pw && !fs.existsSync(CHROMIUM)) why = `${CHROMIUM} not found (apt-get install -y chromium)`;
if (why && process.env.KEXP_REQUIRE_BROWSER === '1') throw new Error(`browser test required but ${why}`);
const skip = why ? why : false;

let ctx: import('playwright-core').BrowserContext | undefined;
let userDataDir = '';

before(async () => {
  if (skip || !pw) return;
  userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kexp-chromium-'));
  ctx = await pw.chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: ARGS,
    viewport: { width: 1280, height: 900 },
    deviceScaleFactor: 1,
    offline: true,
  });
});

after(async () => {
  await ctx?.close();
  if (userDataDir) fs.rmSync(userDataDir, { recursive: true, force: true });
});

interface Opened {
  page: import('playwright-core').Page;
  errors: string[];
  offending: string[];
  requests: string[];
  url: string;
}

async function open(report: Report, name: string): Promise<Opened> {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  const file = path.join(ARTIFACTS, `${name}.html`);
  fs.writeFileSync(file, renderHtml(report));
  const url = pathToFileURL(file).href;
  const page = await ctx!.newPage();
  const errors: string[] = [];
  const offending: string[] = [];
  const requests: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') errors.push(`console.${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  page.on('request', (r) => requests.push(r.url()));
  await page.route('**/*', async (route) => {
    const u = route.request().url();
    if (/^(file|data|blob):/.test(u)) return route.continue();
    offending.push(u);
    return route.abort();
  });
  await page.goto(url);
  await page.waitForFunction(() => document.documentElement.getAttribute('data-kexp-ready') === 'true', null, { timeout: 15000 });
  return { page, errors, offending, requests, url };
}

interface Geometry {
  svgLeft: number;
  origin: [number, number];
  width: number;
  xdom: [number, number];
  rects: { left: number; right: number; top: number; bottom: number }[];
  scaleX: number[];
}

/** The layout of chart `i` and the page boxes of its gated-window lane rects. */
async function geometry(page: import('playwright-core').Page, i: number, starts: number[]): Promise<Geometry> {
  return page.evaluate(
    ({ i, starts }) => {
      const w = window as unknown as { kexpViews: any[] };
      const view = w.kexpViews[i];
      const svg = document.querySelector(`#chart-${i} svg`)!;
      const rects = [...document.querySelectorAll(`#chart-${i} .windows path`)].map((p) => {
        const b = p.getBoundingClientRect();
        return { left: b.left, right: b.right, top: b.top, bottom: b.bottom };
      });
      return {
        svgLeft: svg.getBoundingClientRect().left,
        // Vega's origin() is measured inside the padding.
        origin: [view.origin()[0] + view.padding().left, view.origin()[1] + view.padding().top] as [number, number],
        width: view.width() as number,
        xdom: view.signal('xdom') as [number, number],
        rects,
        scaleX: starts.map((s: number) => view.scale('x')(s) as number),
      };
    },
    { i, starts },
  );
}

/** x in page pixels where time `t` must be drawn, from the linear time scale domain → [0, width]. */
function expectedX(g: Geometry, t: number, dom: [number, number] = g.xdom): number {
  return g.svgLeft + g.origin[0] + ((t - dom[0]) / (dom[1] - dom[0])) * g.width;
}

function load(dir: string, name: string): Report {
  return JSON.parse(fs.readFileSync(path.join(dir, `${name}.report.json`), 'utf8')) as Report;
}

test('golden example (quota-rejected): renders offline, window at its time, hover evidence, zoom', { skip, timeout: 60_000 }, async () => {
  const report = load(GOLDEN, 'quota-rejected');
  const rs = report.replicaSets[0]!;
  const win = rs.gatedWindows[0]!;
  const start = Date.parse(win.start);
  const t0 = Date.parse(report.coverage.start!);
  const t1 = Date.parse(report.coverage.end!);
  const { page, errors, offending, requests, url } = await open(report, 'html-report');

  // Drawn at the right place for the whole covered range.
  const g = await geometry(page, 0, [start]);
  assert.deepEqual(g.xdom, [t0, t1], 'initial domain is the covered range');
  assert.equal(g.rects.length, rs.gatedWindows.length);
  const want = expectedX(g, start, [t0, t1]);
  assert.ok(Math.abs(g.rects[0]!.left - want) <= TOLERANCE_PX, `window left edge at ${g.rects[0]!.left}px, expected ${want.toFixed(1)}px`);
  assert.ok(Math.abs(g.svgLeft + g.origin[0] + g.scaleX[0]! - want) <= 0.01, 'Vega scale agrees with the computed position');
  assert.ok(g.rects[0]!.right - g.rects[0]!.left >= 2.5, 'a 40 ms window stays visible');

  // Rounds: one mark per round, failed ones drawn as crosses.
  assert.equal(await page.locator('#chart-0 .rounds path').count(), rs.rounds.length);

  // Hover the pod area at the end: the step tooltip shows the last counts.
  const box = g.rects[0]!;
  const tip = page.locator('.kexp-tooltip');
  await page.mouse.move(g.svgLeft + g.origin[0] + g.width - 5, box.top - 60);
  await tip.waitFor({ state: 'visible', timeout: 5000 });
  const last = rs.series[rs.series.length - 1]!;
  assert.match(await tip.innerText(), new RegExp(`Pods from[\\s\\S]*desired\\s+${last.desired}[\\s\\S]*active\\s+${last.active}`));

  // Hover the window: the tooltip shows its evidence (file:line).
  await page.mouse.move(5, 5);
  await tip.waitFor({ state: 'hidden', timeout: 5000 });
  await page.mouse.move((box.left + box.right) / 2, (box.top + box.bottom) / 2);
  await tip.waitFor({ state: 'visible', timeout: 5000 });
  const text = await tip.innerText();
  assert.match(text, /Gated window 1: fulfilled/);
  assert.match(text, /evidence/);
  assert.ok(text.includes(win.evidence[0]!), `tooltip shows ${win.evidence[0]}: ${text}`);

  // Zoom into the window with its table button: the window now spans a large part of the plot.
  await page.locator('button[data-rs="0"][data-win="0"]').click();
  await page.waitForFunction((t0) => (window as any).kexpViews[0].signal('xdom')[0] !== t0, t0);
  const z = await geometry(page, 0, [start]);
  assert.ok(z.xdom[1] - z.xdom[0] < 1000, `zoomed domain spans ${z.xdom[1] - z.xdom[0]} ms`);
  const zl = expectedX(z, start);
  assert.ok(Math.abs(z.rects[0]!.left - zl) <= TOLERANCE_PX, `zoomed: left edge ${z.rects[0]!.left}px, expected ${zl.toFixed(1)}px`);
  const end = Date.parse(win.end!);
  assert.ok(Math.abs(z.rects[0]!.right - expectedX(z, end)) <= TOLERANCE_PX + 0.5, 'zoomed: right edge at the window end');

  // Wheel zoom around the pointer, then reset.
  await page.locator('button[data-rs="0"][data-reset]').click();
  await page.waitForFunction((t0) => (window as any).kexpViews[0].signal('xdom')[0] === t0, t0);
  // Measured again: the zoom button scrolled the chart into view (the summary above it moved it down the page).
  const g2 = await geometry(page, 0, [start]);
  const mid = g2.svgLeft + g2.origin[0] + g2.width / 2;
  await page.mouse.move(mid, g2.rects[0]!.top - 60);
  await page.mouse.wheel(0, -400);
  await page.waitForFunction((span) => {
    const d = (window as any).kexpViews[0].signal('xdom');
    return d[1] - d[0] < span;
  }, t1 - t0);
  await page.locator('button[data-rs="0"][data-reset]').click();
  await page.waitForFunction((t0) => (window as any).kexpViews[0].signal('xdom')[0] === t0, t0);

  // Drag to pan: moving the pointer right by a tenth of the plot shows earlier times.
  await page.mouse.move(mid, g2.rects[0]!.top - 60);
  await page.mouse.down();
  await page.mouse.move(mid + g.width / 10, g2.rects[0]!.top - 60, { steps: 4 });
  await page.mouse.up();
  const panned = await page.evaluate(() => (window as any).kexpViews[0].signal('xdom') as [number, number]);
  assert.ok(Math.abs(panned[0] - (t0 - (t1 - t0) / 10)) < (t1 - t0) / 100, `panned domain starts at ${panned[0]}, expected about ${t0 - (t1 - t0) / 10}`);
  await page.mouse.dblclick(mid, g2.rects[0]!.top - 60);
  await page.waitForFunction((t0) => (window as any).kexpViews[0].signal('xdom')[0] === t0, t0);
  await page.mouse.move(5, 5);

  fs.mkdirSync(path.join(ROOT, 'docs/images'), { recursive: true });
  const png = path.join(ARTIFACTS, 'html-report.png');
  await page.screenshot({ path: png, fullPage: true });
  const doc = path.join(ROOT, 'docs/images/html-report.png');
  if (!fs.existsSync(doc) || !fs.readFileSync(doc).equals(fs.readFileSync(png))) fs.copyFileSync(png, doc);

  assert.deepEqual(errors, [], 'no console errors or warnings');
  assert.deepEqual(offending, [], 'no request other than file:, data:, blob:');
  assert.deepEqual(requests, [url], 'the page itself is the only request');
  await page.close();
});

test('leak example: fulfilled, expired and open windows each at their start time', { skip, timeout: 60_000 }, async () => {
  const report = load(FIXTURES, 'leak-expired');
  const rs = report.replicaSets[0]!;
  assert.deepEqual(rs.gatedWindows.map((w) => w.endedBy), ['fulfilled', 'expired', 'open']);
  const starts = rs.gatedWindows.map((w) => Date.parse(w.start));
  const { page, errors, offending } = await open(report, 'html-report-leak');
  const g = await geometry(page, 0, starts);
  const t0 = Date.parse(report.coverage.start!);
  const t1 = Date.parse(report.coverage.end!);
  assert.deepEqual(g.xdom, [t0, t1]);
  rs.gatedWindows.forEach((w, k) => {
    const want = expectedX(g, starts[k]!, [t0, t1]);
    assert.ok(Math.abs(g.rects[k]!.left - want) <= TOLERANCE_PX, `${w.endedBy} window at ${g.rects[k]!.left}px, expected ${want.toFixed(1)}px`);
  });
  // The open window runs to the end of the plot; the expired one ends at its end time.
  assert.ok(Math.abs(g.rects[2]!.right - expectedX(g, t1)) <= TOLERANCE_PX + 0.5);
  assert.ok(Math.abs(g.rects[1]!.right - expectedX(g, Date.parse(rs.gatedWindows[1]!.end!))) <= TOLERANCE_PX + 0.5);
  // Fill colours differ by class.
  const fills = await page.evaluate(() => [...document.querySelectorAll('#chart-0 .windows path')].map((p) => p.getAttribute('fill')));
  assert.equal(new Set(fills).size, 3, `fills ${fills.join(', ')}`);
  // Clicking the expired window zooms to it and pins its details below the chart.
  const b = g.rects[1]!;
  await page.mouse.click((b.left + b.right) / 2, (b.top + b.bottom) / 2);
  await page.waitForFunction((t0) => (window as any).kexpViews[0].signal('xdom')[0] !== t0, t0);
  const details = await page.locator('#details-0').innerText();
  assert.match(details, /leaked \(expired\)/);
  assert.match(details, /leak-expired\.kexp\.jsonl:\d+/);
  await page.screenshot({ path: path.join(ARTIFACTS, 'html-report-leak.png'), fullPage: true });
  assert.deepEqual(errors, []);
  assert.deepEqual(offending, []);
  await page.close();
});

test('every golden example renders: one chart per ReplicaSet drawn (worst first), no console error, no request', { skip, timeout: 120_000 }, async () => {
  const names = fs.readdirSync(GOLDEN).filter((f) => f.endsWith('.report.json')).map((f) => f.replace(/\.report\.json$/, '')).sort();
  assert.ok(names.length >= 4);
  for (const name of names) {
    const report = load(GOLDEN, name);
    const { page, errors, offending } = await open(report, `golden-${name}`);
    const charts = await page.locator('.chart svg').count();
    const { drawn, rest } = pageOwners(report.replicaSets);
    assert.equal(charts, drawn.length, name);
    assert.equal(drawn.length + rest.length, report.replicaSets.length, name);
    for (let i = 0; i < drawn.length; i++) {
      const rs = drawn[i]!;
      assert.equal(await page.locator(`#chart-${i} .windows path`).count(), rs.gatedWindows.length, `${name} ${rs.key} windows`);
      // Adopt/release claim rounds are in the tables, not drawn on the timeline.
      assert.equal(await page.locator(`#chart-${i} .rounds path`).count(), rs.rounds.filter((r) => r.kind !== 'claim').length, `${name} ${rs.key} rounds`);
    }
    assert.deepEqual(errors, [], name);
    assert.deepEqual(offending, [], name);
    await page.close();
  }
});

test('at 390 px (a phone): the summary first, worst first; tables, commands and chart scroll inside the page, which is never wider than the screen', { skip, timeout: 60_000 }, async () => {
  for (const name of ['quota-rejected', 'deletion-loss', 'deployment-rollout']) {
    const report = load(GOLDEN, name);
    const { page, errors } = await open(report, `phone-${name}`);
    await page.setViewportSize({ width: 390, height: 844 });
    await page.waitForTimeout(100);
    const m = await page.evaluate(() => ({
      doc: document.documentElement.scrollWidth,
      body: document.body.scrollWidth,
      first: document.querySelector('main > section')?.id,
      summary: document.querySelector('#summary')?.textContent ?? '',
      wider: [...document.querySelectorAll('main *')].filter((el) => {
        const r = el.getBoundingClientRect();
        // Inside a box that scrolls is fine; sticking out of the page is not.
        return r.right > 390.5 && !el.closest('.scroll, .chart, pre.cmd');
      }).map((el) => el.tagName + '.' + el.className).slice(0, 5),
    }));
    assert.ok(m.doc <= 390 && m.body <= 390, `${name}: page ${m.doc}/${m.body} px wide at 390`);
    assert.deepEqual(m.wider, [], name);
    assert.equal(m.first, 'summary', name);
    const { look } = pageOwners(report.replicaSets);
    for (const rs of look) assert.ok(m.summary.includes(rs.key), `${name}: ${rs.key} in the summary`);
    if (look.some((rs) => rs.verdict.state !== 'deleted')) assert.match(m.summary, /kubectl -n \S+ (describe|get)/, name);
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: path.join(ARTIFACTS, `phone-${name}.png`), fullPage: true });
    assert.deepEqual(errors, [], name);
    await page.close();
  }
});
