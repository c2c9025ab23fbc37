/**
 * Who holds a heap: the retained sizes of a V8 .heapsnapshot (bench/memory/live-heap.ts writes
 * them) — a dominator tree over the strong edges (Cooper–Harvey–Kennedy, iterative), then the
 * largest retainers (≥ 300 kB) with the property their dominator holds them under, and, for the
 * property names given, the retained size under every edge of that name (e.g. `byPod,writes`:
 * what each named map or list holds, summed over its edges: one list referenced from six places
 * counts six times — divide by the count printed).
 *
 *   node --max-old-space-size=6000 bench/memory/heap-retainers.mjs FILE.heapsnapshot [TOP=50] [NAME,…]
 *
 * Cost: the snapshot parsed whole (about 3× its size in memory), a few passes over its edges.
 */
import fs from 'node:fs';

function usage() {
  process.stderr.write('usage: node bench/memory/heap-retainers.mjs FILE.heapsnapshot [TOP] [NAME,…]\n');
  process.exit(2);
}
const snap = JSON.parse(fs.readFileSync(process.argv[2] ?? usage(), 'utf8'));
const top = Number(process.argv[3] ?? 50);
const { node_fields, edge_fields, node_types, edge_types } = snap.snapshot.meta;
const NF = node_fields.length, EF = edge_fields.length;
const nodes = snap.nodes, edges = snap.edges, strings = snap.strings;
const iType = node_fields.indexOf('type'), iName = node_fields.indexOf('name'), iSize = node_fields.indexOf('self_size'), iEc = node_fields.indexOf('edge_count');
const jType = edge_fields.indexOf('type'), jName = edge_fields.indexOf('name_or_index'), jTo = edge_fields.indexOf('to_node');
const N = nodes.length / NF;
const first = new Uint32Array(N + 1);
for (let i = 0, e = 0; i < N; i++) { first[i] = e; e += nodes[i * NF + iEc] * EF; first[i + 1] = e; }
const eT = edge_types[0], nT = node_types[0];
const weak = eT.indexOf('weak'), shortcut = eT.indexOf('shortcut');
const ok = (e) => { const t = edges[e + jType]; return t !== weak && t !== shortcut; };
// postorder DFS from root 0
const post = new Int32Array(N).fill(-1), order = new Uint32Array(N);
let cnt = 0;
const stack = [0], it = new Uint32Array(N); const seen = new Uint8Array(N);
seen[0] = 1; it[0] = first[0];
while (stack.length) {
  const v = stack[stack.length - 1];
  if (it[v] < first[v + 1]) {
    const e = it[v]; it[v] += EF;
    if (!ok(e)) continue;
    const w = edges[e + jTo] / NF;
    if (!seen[w]) { seen[w] = 1; it[w] = first[w]; stack.push(w); }
  } else { stack.pop(); post[v] = cnt; order[cnt++] = v; }
}
// predecessors
const predCount = new Uint32Array(N + 1);
for (let v = 0; v < N; v++) if (seen[v]) for (let e = first[v]; e < first[v + 1]; e += EF) if (ok(e)) predCount[edges[e + jTo] / NF]++;
const predStart = new Uint32Array(N + 1);
for (let v = 0; v < N; v++) predStart[v + 1] = predStart[v] + predCount[v];
const preds = new Uint32Array(predStart[N]); const fill = predStart.slice();
for (let v = 0; v < N; v++) if (seen[v]) for (let e = first[v]; e < first[v + 1]; e += EF) if (ok(e)) { const w = edges[e + jTo] / NF; preds[fill[w]++] = v; }
const idom = new Int32Array(N).fill(-1); idom[0] = 0;
const intersect = (a, b) => { while (a !== b) { while (post[a] < post[b]) a = idom[a]; while (post[b] < post[a]) b = idom[b]; } return a; };
let changed = true, rounds = 0;
while (changed) {
  changed = false; rounds++;
  for (let k = cnt - 2; k >= 0; k--) {
    const v = order[k]; let nd = -1;
    for (let p = predStart[v]; p < predStart[v + 1]; p++) { const u = preds[p]; if (idom[u] === -1) continue; nd = nd === -1 ? u : intersect(u, nd); }
    if (nd !== -1 && idom[v] !== nd) { idom[v] = nd; changed = true; }
  }
}
const ret = new Float64Array(N);
for (let k = 0; k < cnt; k++) { const v = order[k]; ret[v] += nodes[v * NF + iSize]; if (v !== 0) ret[idom[v]] += ret[v]; }
const name = (i) => strings[nodes[i * NF + iName]];
const type = (i) => nT[nodes[i * NF + iType]];
console.log(`rounds ${rounds}, reachable ${cnt}, root retained ${(ret[0] / 1e6).toFixed(1)} MB`);
// label: for each node, the first named property edge into it from its dominator
const rows = [];
for (let v = 0; v < N; v++) {
  if (!seen[v] || v === 0 || ret[v] < 300_000) continue;
  const d = idom[v];
  let label = '';
  for (let e = first[d]; e < first[d + 1]; e += EF) if (edges[e + jTo] / NF === v) { const t = eT[edges[e + jType]]; label = t === 'element' || t === 'hidden' ? `[${edges[e + jName]}]` : strings[edges[e + jName]]; break; }
  rows.push([ret[v], `${type(v)}:${name(v).slice(0, 40)} ← ${type(d)}:${name(d).slice(0, 30)}.${label}`]);
}
rows.sort((a, b) => b[0] - a[0]);
for (const [r, l] of rows.slice(0, top)) console.log(`${(r / 1e6).toFixed(2).padStart(8)} MB  ${l}`);
// Named-property targets: retained size of each node reached by a property edge with the given names.
const want = new Set((process.argv[4] ?? '').split(',').filter(Boolean));
if (want.size) {
  const agg = new Map();
  for (let v = 0; v < N; v++) {
    if (!seen[v]) continue;
    for (let e = first[v]; e < first[v + 1]; e += EF) {
      const t = eT[edges[e + jType]];
      if (t !== 'property' && t !== 'context') continue;
      const nm = strings[edges[e + jName]];
      if (!want.has(nm)) continue;
      const w = edges[e + jTo] / NF;
      const k = `${name(v)}.${nm}`;
      const a = agg.get(k) ?? { ret: 0, n: 0, dominated: 0 };
      a.ret += ret[w]; a.n++; if (idom[w] === v) a.dominated++;
      agg.set(k, a);
    }
  }
  for (const [k, a] of [...agg].sort((x, y) => y[1].ret - x[1].ret)) console.log(`${(a.ret / 1e6).toFixed(2).padStart(8)} MB  ${k} ×${a.n} (dominated by holder: ${a.dominated})`);
}
