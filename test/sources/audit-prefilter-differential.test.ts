/**
 * The audit byte prefilter (prefilter.ts, line-filter.ts NeedleScanner) against no prefilter, on
 * re-encoded audit logs: the prefilter may let through lines the parser then drops, never the other
 * way round, so the events the audit source emits must be the same with it on and off.
 *
 * Input: a busy-cluster log from the benchmark generator (bench/audit/generate.ts, ~2 MB: ReplicaSet
 * controller creates/deletes, Events, node heartbeats, leases) and the hand-written fixtures, each
 * re-encoded the ways log shippers and tools re-encode JSON: keys sorted (jq -S) or reversed (so no
 * line has the apiserver's field order and every needle search runs), Python's `": "` / `", "`
 * spacing, fields holding a needle's tail from its rarest byte (anchorOf) first, non-ASCII labels /
 * messages / user agents next to the needles (as UTF-8 and as `\uXXXX`), `\/` for every `/`, `\"`
 * in names, CRLF line ends, blanks around lines, records missing namespace / name / verb, every line
 * twice, lines longer than the reader's 1 MiB chunk, gzip of three members split mid-line; some of
 * the generated log's variants also on the reader thread. Not covered, on purpose: ASCII letters of
 * a resource, verb or kind written as `\u00XX` (no encoder does; the prefilter reads raw bytes).
 *
 * Found nothing in session 10 (fuzz10); fails when NeedleScanner.indexIn stops at the first tail
 * whose bytes before do not match (`plica, mon first`). Cost: ~5 s (22 variants of 5 logs, each read with and without the prefilter).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { gzipSync } from 'node:zlib';
import { collect, fx, withoutSource } from '../fixtures/audit/helpers.js';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

const mapKeys = (v: Json, order: (keys: string[]) => string[]): Json => {
  if (Array.isArray(v)) return v.map((x) => mapKeys(x, order));
  if (v !== null && typeof v === 'object') return Object.fromEntries(order(Object.keys(v)).map((k) => [k, mapKeys(v[k]!, order)]));
  return v;
};

/** Python's json.dumps: `", "` and `": "`; `ascii`: non-ASCII as `\uXXXX` (ensure_ascii). */
const pyDumps = (v: Json, ascii: boolean): string => {
  if (Array.isArray(v)) return '[' + v.map((x) => pyDumps(x, ascii)).join(', ') + ']';
  if (v !== null && typeof v === 'object') return '{' + Object.entries(v).map(([k, x]) => pyDumps(k, ascii) + ': ' + pyDumps(x, ascii)).join(', ') + '}';
  const s = JSON.stringify(v);
  return ascii ? s.replace(/[\u0080-\uffff]/g, (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0')) : s;
};

/** Non-ASCII (2-, 3- and 4-byte UTF-8) in labels, annotations, messages and user agents, and a first field holding needle look-alikes. */
const nonAscii = (v: Json, top = true): Json => {
  if (Array.isArray(v)) return v.map((x) => nonAscii(x, false));
  if (v === null || typeof v !== 'object') return v;
  const o: { [k: string]: Json } = top ? { é: 'ß"objectRef":{"resource":"pods" 日本 eplicaSet DaemonSet" "Job"' } : {};
  for (const [k, x] of Object.entries(v)) {
    if ((k === 'labels' || k === 'annotations') && x !== null && typeof x === 'object' && !Array.isArray(x)) o[k] = { 'ü-ñ/日本': 'ÄÖ€𝄞', ...x };
    else if ((k === 'message' || k === 'userAgent' || k === 'note') && typeof x === 'string') o[k] = `ñ日本€𝄞 ${x} ü`;
    else o[k] = nonAscii(x, false);
  }
  return o;
};

/**
 * Fields, put after the Event's kind and apiVersion, holding a needle's tail from its rarest byte
 * (line-filter.ts anchorOf) without the bytes before it: the scanner must look past them. One
 * variant each — a key needle missed makes the prefilter send the line to the parser, which would
 * hide a missed `eplica` in the same line.
 */
const LOOK_ALIKES: Array<[string, { [k: string]: Json }]> = [
  ['plica, mon', { note: 'duplicate common' }], // mentionsReplicaSet's `eplica`, mentionsDaemonSet's `aemon`
  ['urce"', { source: 'x' }], // "resource"
  ['verb"', { proverb: 'x' }], // "verb"
  ['ge"', { page: 'x' }], // "stage"
  ['Version"', { kubeVersion: 'x' }], // "apiVersion"
  ['Object"', { involvedObject: 'x' }], // "responseObject"
  ['jectRef", [', { subjectRef: { a: [1] } }], // "objectRef", "items":[
  ['plication-controller, -set-controller', { 'application-controller': 'replica-set-controller' }],
];
const lookAlikesFirst = (v: Json, fields: { [k: string]: Json }): Json => {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return v;
  const { kind, apiVersion, ...rest } = v;
  return { ...(kind !== undefined ? { kind } : {}), ...(apiVersion !== undefined ? { apiVersion } : {}), ...fields, ...rest };
};

const withoutFields = (v: Json, i: number): Json => {
  const c = structuredClone(v) as { [k: string]: Json };
  const ref = c['objectRef'] as { [k: string]: Json } | undefined;
  if (i % 3 === 0 && ref) delete ref['namespace'];
  if (i % 5 === 1 && ref) delete ref['name'];
  if (i % 7 === 2) delete c['verb'];
  return c;
};

/** The variants of one log (JSON lines): name → file bytes. */
function variants(text: string): Array<[string, Buffer]> {
  const lines = text.split('\n').filter((l) => l.trim() !== '');
  const objs = lines.map((l) => {
    try {
      return JSON.parse(l) as Json;
    } catch {
      return undefined;
    }
  });
  const each = (f: (o: Json, i: number) => string) => objs.map((o, i) => (o === undefined ? lines[i]! : f(o, i)));
  const file = (ls: string[], eol = '\n') => Buffer.from(ls.join(eol) + eol);
  const pad = 'x'.repeat((1 << 20) + 4096);
  const whole = file(lines);
  const a = Math.floor(whole.length / 3) + 7;
  const b = Math.floor((2 * whole.length) / 3) + 13;
  return [
    ['as written', whole],
    ['keys sorted', file(each((o) => JSON.stringify(mapKeys(o, (k) => k.sort()))))],
    ['keys reversed', file(each((o) => JSON.stringify(mapKeys(o, (k) => k.reverse()))))],
    ['python spacing', file(each((o) => pyDumps(o, false)))],
    ['non-ASCII', file(each((o) => JSON.stringify(nonAscii(o))))],
    ['non-ASCII as \\u, python spacing', file(each((o) => pyDumps(nonAscii(o), true)))],
    ['\\/ for /', file(each((o) => JSON.stringify(o).replace(/\//g, '\\/')))],
    ['\\" in names', file(each((o) => JSON.stringify(nonAscii(o)).replace(/"name":"/g, '"name":"\\u0022\\"')))],
    ...LOOK_ALIKES.map(([tail, fields]): [string, Buffer] => [`${tail} first`, file(each((o) => JSON.stringify(lookAlikesFirst(o, fields))))]),
    ['CRLF', file(lines, '\r\n')],
    ['blanks around lines', file(each((o) => '\t ' + JSON.stringify(o) + ' \t'))],
    ['missing namespace, name, verb', file(each((o, i) => JSON.stringify(withoutFields(o, i))))],
    ['every line twice', file(lines.flatMap((l) => [l, l]))],
    ['lines over 1 MiB', file(each((o, i) => (i % 40 === 3 && typeof o === 'object' && o !== null && !Array.isArray(o) ? JSON.stringify({ pad, ...o, zz: pad }) : JSON.stringify(o))))],
    ['gzip, 3 members split mid-line', Buffer.concat([gzipSync(whole.subarray(0, a)), gzipSync(whole.subarray(a, b)), gzipSync(whole.subarray(b))])],
  ];
}

/** The variants of the generated log also read on the reader thread (its chunk and line handling). */
const THREADED = new Set(['as written', 'CRLF', 'lines over 1 MiB', 'gzip, 3 members split mid-line', 'plica, mon first']);

const dir = mkdtempSync(join(tmpdir(), 'kexp-prefilter-diff-'));
const generated = join(dir, 'generated.log');

describe('audit prefilter: the same events with and without it, on re-encoded logs', () => {
  const g = spawnSync(process.execPath, ['--import', 'tsx', 'bench/audit/generate.ts', '--mb', '2', '--seed', '42', '--out', generated], { encoding: 'utf8' });
  assert.equal(g.status, 0, g.stderr);
  const inputs: Array<[string, string]> = [
    ['generated (bench/audit/generate.ts)', generated],
    ['v1-requestresponse.log', fx('v1-requestresponse.log')],
    ['v1-metadata.log', fx('v1-metadata.log')],
    ['v1beta1.log', fx('v1beta1.log')],
    ['webhook-eventlist.ndjson', fx('webhook-eventlist.ndjson')],
  ];
  for (const [label, path] of inputs) {
    it(label, async () => {
      let skipped = 0;
      let compared = 0;
      for (const [name, bytes] of variants(readFileSync(path, 'utf8'))) {
        const p = join(dir, `${label.replace(/\W+/g, '-')}-${name.replace(/\W+/g, '-')}.log`);
        writeFileSync(p, bytes);
        const on = await collect(p);
        const off = await collect(p, { prefilter: false });
        assert.deepEqual(withoutSource(on.events), withoutSource(off.events), `${label}, ${name}: the prefilter changed the events`);
        assert.equal(off.source.summary().linesSkippedByPrefilter, 0);
        if (path === generated && THREADED.has(name)) {
          // The same filter on the reader thread (reader-thread.ts): the same events.
          const threaded = await collect(p, { readerThread: 'on' });
          assert.deepEqual(withoutSource(threaded.events), withoutSource(on.events), `${label}, ${name}: the reader thread changed the events`);
        }
        skipped += on.source.summary().linesSkippedByPrefilter;
        compared += on.events.length;
      }
      // Not vacuous: events were compared and the prefilter skipped lines.
      assert.ok(compared > 0, `${label}: no events`);
      if (path === generated) assert.ok(skipped > 1000, `${label}: the prefilter skipped ${skipped} lines`);
    });
  }
});
