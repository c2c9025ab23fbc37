/**
 * Snapshot or stream, by content (src/sources/watch/dump-shape.ts) and the paste stripping of
 * src/sources/watch/pasted-dump.ts, on small real-shaped files.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { dumpShape } from '../../src/sources/watch/dump-shape.js';
import { pastedDump, PastedDumpLines } from '../../src/sources/watch/pasted-dump.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kexp-shape-'));
const write = (name: string, text: string): string => {
  const f = path.join(dir, name);
  fs.writeFileSync(f, text);
  return f;
};
const pod = (uid: string, rv: string, phase = 'Running') =>
  `apiVersion: v1\nkind: Pod\nmetadata:\n  name: web-${uid}\n  namespace: shop\n  uid: ${uid}\n  resourceVersion: "${rv}"\n  creationTimestamp: "2021-08-03T09:31:34Z"\nstatus:\n  phase: ${phase}\n`;
const podJson = (uid: string, rv: string) => JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: `web-${uid}`, namespace: 'shop', uid, resourceVersion: rv, creationTimestamp: '2021-08-03T09:31:34Z' } }, null, 4);

test('Lists are snapshots whatever their encoding; wrapped watch events are streams', async () => {
  assert.equal(await dumpShape(write('list.yaml', `apiVersion: v1\nitems:\n- ${pod('a1', '10').replace(/\n(?=.)/g, '\n  ')}kind: PodList\nmetadata:\n  resourceVersion: "11"\n`)), 'snapshot');
  assert.equal(await dumpShape(write('list.json', JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [JSON.parse(podJson('a1', '10'))] }))), 'snapshot');
  assert.equal(await dumpShape(write('we.json', `${JSON.stringify({ type: 'ADDED', object: JSON.parse(podJson('a1', '10')) })}\n`)), 'stream');
  assert.equal(await dumpShape(write('we.yaml', `type: ADDED\nobject:\n  ${pod('a1', '10').trimEnd().replace(/\n/g, '\n  ')}\n`)), 'stream');
});

test('bare objects: distinct ones are a snapshot; the same uid at another resourceVersion, or kubectl\'s Status, is a stream', async () => {
  assert.equal(await dumpShape(write('one.yaml', pod('a1', '10'))), 'snapshot');
  assert.equal(await dumpShape(write('two.yaml', `${pod('a1', '10')}---\n${pod('b2', '12')}`)), 'snapshot');
  // The same object printed twice at one resourceVersion (an initial list repeated) is no change.
  assert.equal(await dumpShape(write('dup.yaml', `${pod('a1', '10')}---\n${pod('a1', '10')}`)), 'snapshot');
  assert.equal(await dumpShape(write('watch.yaml', `${pod('a1', '10', 'Pending')}---\n${pod('b2', '12')}---\n${pod('a1', '14')}`)), 'stream');
  assert.equal(await dumpShape(write('watch.json', `${podJson('a1', '10')}\n${podJson('a1', '14')}\n`)), 'stream');
  assert.equal(await dumpShape(write('objs.json', `${podJson('a1', '10')}\n${podJson('b2', '14')}\n`)), 'snapshot');
  const status = JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', message: 'too old resource version', code: 410 });
  assert.equal(await dumpShape(write('ended.json', `${podJson('a1', '10')}\n${status}\n`)), 'stream');
  // A forced format decides alone; stdin is never read ahead.
  assert.equal(await dumpShape(path.join(dir, 'one.yaml'), 'yaml'), 'stream');
  assert.equal(await dumpShape(path.join(dir, 'watch.yaml'), 'list'), 'snapshot');
  assert.equal(await dumpShape('-'), 'stream');
});

test('pasted dumps: Markdown fences and terminal prompts become document separators, prose blank lines', () => {
  const md = ['Notes', '```bash', '$ kubectl get rs', '```', '```yaml', 'apiVersion: v1', 'kind: Pod', '```', 'more prose:', '~~~yml', 'kind: Pod', '~~~'];
  assert.deepEqual(pastedDump(md, 3, true), { kind: 'markdown', firstDataLine: 8 });
  const strip = new PastedDumpLines('markdown');
  assert.deepEqual(md.map((l) => strip.line(l)), ['', '---', '---', '---', '---', 'apiVersion: v1', 'kind: Pod', '---', '', '---', 'kind: Pod', '---']);
  const term = ['user@host:~$ kubectl get pods -o yaml', 'apiVersion: v1', 'items: []', 'root@host:/# kubectl get rs', 'NAME   DESIRED', '% oc get rs -ojson', '{"items": []}'];
  assert.deepEqual(pastedDump(term, 1, true), { kind: 'terminal', firstDataLine: 2 });
  const t = new PastedDumpLines('terminal');
  assert.deepEqual(term.map((l) => t.line(l)), ['---', 'apiVersion: v1', 'items: []', '---', '', '---', '{"items": []}']);
  // Plain YAML, a YAML comment naming kubectl: not a paste.
  assert.equal(pastedDump(['# kubectl apply -f this.yaml', 'apiVersion: v1', 'kind: Pod'], 1, true), undefined);
  assert.equal(pastedDump(['apiVersion: v1', 'kind: Pod'], 1, true), undefined);
  // Refusals name their line; an undecided prefix asks for more.
  assert.deepEqual(pastedDump(['Intro', '```python', 'print(1)', '```'], 4, true), { error: 'Markdown without a ```yaml, ```json or ```console block holding the dump', line: 4 });
  assert.equal(pastedDump(['Intro', '```python', 'print(1)'], 1, false), 'more');
  assert.deepEqual(pastedDump(['Intro', '  ```yaml', '  kind: Pod', '  ```'], 1, true), {
    error: 'a fenced block indented by spaces: its YAML indentation cannot be told from the fence\'s; paste the dump with its fence in column 0',
    line: 2,
  });
});
