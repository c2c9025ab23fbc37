/**
 * The HTML report's browser-side code and styles, as strings inlined by ../html.ts.
 *
 * CLIENT_JS reads the report model from <script type="application/json" id="kexp-data">,
 * builds one Vega view per ReplicaSet (SVG renderer) and wires:
 * - tooltips: a small handler that writes with textContent only (report strings come from
 *   cluster data and are never parsed as HTML);
 * - details: clicking a mark pins its tooltip below the chart (evidence lines can be copied);
 * - zoom: "zoom" buttons in the gated-window table and "reset" set the chart's `xdom`
 *   signal (wheel zoom, drag pan, double-click reset and click-to-zoom live in the spec).
 * It exposes `window.kexpViews` (the Vega views) and `window.kexpReady` (a promise that
 * resolves when every view has rendered) for tests.
 */

export const CLIENT_JS = String.raw`(function () {
  'use strict';
  var model = JSON.parse(document.getElementById('kexp-data').textContent);
  var tip = document.createElement('div');
  tip.className = 'kexp-tooltip';
  tip.setAttribute('role', 'tooltip');
  tip.hidden = true;
  document.body.appendChild(tip);

  function fill(el, value) {
    while (el.firstChild) el.removeChild(el.firstChild);
    if (!value || typeof value !== 'object') return false;
    if (value.title) {
      var h = document.createElement('div');
      h.className = 'tt-title';
      h.textContent = String(value.title);
      el.appendChild(h);
    }
    var rows = Array.isArray(value.rows) ? value.rows : [];
    if (rows.length) {
      var dl = document.createElement('dl');
      rows.forEach(function (r) {
        var dt = document.createElement('dt');
        dt.textContent = String(r[0]);
        var dd = document.createElement('dd');
        dd.textContent = String(r[1]);
        dl.appendChild(dt);
        dl.appendChild(dd);
      });
      el.appendChild(dl);
    }
    return true;
  }

  function tooltipHandler(handler, event, item, value) {
    if (!value || !fill(tip, value)) {
      tip.hidden = true;
      return;
    }
    tip.hidden = false;
    var x = event.clientX + 14;
    var y = event.clientY + 14;
    var w = tip.offsetWidth;
    var h = tip.offsetHeight;
    if (x + w > window.innerWidth - 8) x = Math.max(8, event.clientX - w - 14);
    if (y + h > window.innerHeight - 8) y = Math.max(8, event.clientY - h - 14);
    tip.style.left = x + 'px';
    tip.style.top = y + 'px';
  }

  var views = [];
  var pending = model.replicaSets.map(function (rs, i) {
    var el = document.getElementById('chart-' + i);
    if (!el || !rs.spec) return Promise.resolve(null);
    var width = Math.max(240, Math.min(1400, el.clientWidth - 110));
    var view = new vega.View(vega.parse(rs.spec), {
      renderer: 'svg',
      container: el,
      hover: true,
      tooltip: tooltipHandler,
    });
    view.width(width);
    views[i] = view;
    var details = document.getElementById('details-' + i);
    view.addEventListener('click', function (event, item) {
      var v = item && (item.tooltip || (item.datum && item.datum.tip));
      if (details && v) {
        fill(details, v);
        details.hidden = false;
      }
    });
    return view.runAsync();
  });

  function zoom(i, a, b) {
    var view = views[i];
    if (!view) return;
    view.signal('xdom', [a, b]).runAsync();
  }

  document.addEventListener('click', function (e) {
    var t = e.target;
    if (!(t instanceof Element)) return;
    var b = t.closest('button[data-rs]');
    if (!b) return;
    var i = Number(b.getAttribute('data-rs'));
    var rs = model.replicaSets[i];
    if (!rs) return;
    if (b.hasAttribute('data-reset')) return zoom(i, rs.t0, rs.t1);
    var w = rs.windows[Number(b.getAttribute('data-win'))];
    if (w) {
      zoom(i, w.zoom[0], w.zoom[1]);
      var chart = document.getElementById('chart-' + i);
      if (chart && chart.scrollIntoView) chart.scrollIntoView({ block: 'center' });
    }
  });

  window.kexpViews = views;
  window.kexpReady = Promise.all(pending).then(function () {
    document.documentElement.setAttribute('data-kexp-ready', 'true');
    return views.length;
  });
})();
`;

export const CLIENT_CSS = `
:root { --fg: #1f2328; --muted: #57606a; --line: #d0d7de; --bg: #ffffff; --soft: #f6f8fa;
  --fulfilled: #59a14f; --leaked: #e15759; --open: #f28e2b; --info: #4e79a7; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; color: var(--fg); background: var(--bg); }
main { max-width: 1280px; margin: 0 auto; padding: 16px 24px 48px; }
h1 { font-size: 22px; margin: 8px 0 4px; }
h2 { font-size: 18px; margin: 28px 0 6px; padding-top: 12px; border-top: 1px solid var(--line); word-break: break-all; }
h3 { font-size: 15px; margin: 18px 0 6px; }
code, .mono, td.mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, "DejaVu Sans Mono", monospace; font-size: 12.5px; }
.meta { color: var(--muted); margin: 2px 0; }
.badge { display: inline-block; padding: 1px 8px; border-radius: 10px; font-size: 12px; font-weight: 600; color: #fff; background: var(--muted); vertical-align: middle; }
.badge.healthy { background: var(--fulfilled); } .badge.leaked, .badge.failing { background: var(--leaked); }
.badge.gated, .badge.stalled { background: var(--open); } .badge.converging { background: var(--info); }
.badge.critical { background: var(--leaked); } .badge.warning { background: var(--open); } .badge.info { background: var(--info); }
.badge.fulfilled { background: var(--fulfilled); } .badge.expired, .badge.rs-deleted { background: var(--leaked); } .badge.open { background: var(--open); }
nav ul { margin: 6px 0; padding-left: 18px; }
.chart-tools { display: flex; gap: 12px; align-items: center; margin: 8px 0 4px; color: var(--muted); font-size: 12.5px; }
.chart { min-height: 60px; overflow-x: auto; }
.details { margin: 6px 0; padding: 8px 10px; background: var(--soft); border: 1px solid var(--line); border-radius: 6px; font-size: 12.5px; }
.details dl, .kexp-tooltip dl { display: grid; grid-template-columns: max-content 1fr; gap: 1px 10px; margin: 4px 0 0; }
.details dt, .kexp-tooltip dt { color: var(--muted); }
.details dd, .kexp-tooltip dd { margin: 0; word-break: break-all; }
.tt-title { font-weight: 600; }
.kexp-tooltip { position: fixed; z-index: 10; max-width: 520px; padding: 6px 9px; background: #fff; border: 1px solid #8c959f; border-radius: 6px; box-shadow: 0 3px 12px rgba(0,0,0,.15); font-size: 12.5px; pointer-events: none; }
table { border-collapse: collapse; width: 100%; margin: 4px 0 8px; font-size: 13px; }
th, td { text-align: left; vertical-align: top; padding: 4px 8px; border-bottom: 1px solid var(--line); }
th { background: var(--soft); font-weight: 600; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
button { font: inherit; font-size: 12px; padding: 1px 8px; border: 1px solid var(--line); border-radius: 5px; background: var(--soft); cursor: pointer; }
button:hover { border-color: #8c959f; }
.finding { margin: 8px 0 12px; padding: 8px 12px; border-left: 4px solid var(--muted); background: var(--soft); }
.finding.critical { border-color: var(--leaked); } .finding.warning { border-color: var(--open); } .finding.info { border-color: var(--info); }
.finding p { margin: 4px 0; }
.evidence { color: var(--muted); font-size: 12px; word-break: break-all; }
.empty { color: var(--muted); }
footer { margin-top: 32px; padding-top: 12px; border-top: 1px solid var(--line); color: var(--muted); font-size: 12.5px; }
footer li { word-break: break-all; }
.scroll { overflow-x: auto; max-width: 100%; }
h1, p, li, code { overflow-wrap: anywhere; }
pre.cmd { overflow-x: auto; max-width: 100%; margin: 4px 0 8px; padding: 6px 10px; background: var(--soft); border: 1px solid var(--line); border-radius: 6px; }
.summary .verdict { margin: 8px 0 14px; }
.summary .verdict p { margin: 3px 0; }
.chart-tools { flex-wrap: wrap; }
.chart { max-width: 100%; }
@media (max-width: 600px) { main { padding: 8px 10px 32px; } table { font-size: 12px; } th, td { padding: 3px 5px; } }
`;
