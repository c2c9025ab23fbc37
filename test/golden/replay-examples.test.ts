/**
 * Golden reports: every recording in examples/ replays to exactly the report stored beside
 * it in examples/golden/, and every capture of examples/captures/ with its own recording and the
 * controller's log (the DaemonSet and Job captures) replays with that log fused (`replay
 * recording --kcm-log kcm.log`) to examples/golden/captures/NAME.kcm-log.report.json.
 * `npm run update-golden` rewrites them after an intended change; review the diff like code.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { replayFiles } from '../../src/pipeline/replay-files.js';
import { validateReport } from '../support/report-schema.js';

const examples = fs.readdirSync('examples').filter((f) => /\.kexp\.jsonl(\.gz)?$/.test(f)).sort();
const update = process.env.KEXP_UPDATE_GOLDEN === '1';
const captures = fs.readdirSync(path.join('examples', 'captures')).filter((d) => fs.existsSync(path.join('examples', 'captures', d, 'recording.kexp.jsonl')) && fs.existsSync(path.join('examples', 'captures', d, 'kcm.log'))).sort();

/** The report as text equals the golden file (written instead under KEXP_UPDATE_GOLDEN=1). */
function checkGolden(golden: string, text: string): void {
  if (update || !fs.existsSync(golden)) {
    if (!update) assert.fail(`${golden} is missing; run npm run update-golden`);
    fs.mkdirSync(path.dirname(golden), { recursive: true });
    fs.writeFileSync(golden, text);
    return;
  }
  assert.equal(text, fs.readFileSync(golden, 'utf8'));
}

test('examples/ holds at least four recordings', () => {
  assert.ok(examples.length >= 4, `found ${examples.length}`);
});

for (const f of examples) {
  test(`golden: ${f}`, async () => {
    const file = path.join('examples', f);
    const { report, problems } = await replayFiles({ files: [file] });
    assert.deepEqual(problems, []);
    assert.deepEqual(validateReport(report), []);
    checkGolden(path.join('examples', 'golden', f.replace(/\.kexp\.jsonl(\.gz)?$/, '.report.json')), JSON.stringify(report, null, 2) + '\n');
  });
}

test('examples/captures/ holds DaemonSet and Job captures with their logs', () => {
  assert.ok(captures.some((d) => d.startsWith('ds-')) && captures.some((d) => d.startsWith('job-')), captures.join());
});

for (const d of captures) {
  test(`golden: captures/${d} with its kcm.log`, async () => {
    const dir = path.join('examples', 'captures', d);
    const { report, problems } = await replayFiles({ files: [path.join(dir, 'recording.kexp.jsonl')], kcmLogs: [path.join(dir, 'kcm.log')] });
    assert.deepEqual(problems, []);
    assert.deepEqual(validateReport(report), []);
    checkGolden(path.join('examples', 'golden', 'captures', `${d}.kcm-log.report.json`), JSON.stringify(report, null, 2) + '\n');
  });
}
