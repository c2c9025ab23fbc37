/**
 * Golden reports: every recording in examples/ replays to exactly the report stored beside
 * it in examples/golden/. `npm run update-golden` rewrites them after an intended change;
 * review the diff like code.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { replayFiles } from '../../src/pipeline/replay-files.js';
import { validateReport } from '../support/report-schema.js';

const examples = fs.readdirSync('examples').filter((f) => /\.kexp\.jsonl(\.gz)?$/.test(f)).sort();
const update = process.env.KEXP_UPDATE_GOLDEN === '1';

test('examples/ holds at least four recordings', () => {
  assert.ok(examples.length >= 4, `found ${examples.length}`);
});

for (const f of examples) {
  test(`golden: ${f}`, async () => {
    const file = path.join('examples', f);
    const { report, problems } = await replayFiles({ files: [file] });
    assert.deepEqual(problems, []);
    assert.deepEqual(validateReport(report), []);
    const golden = path.join('examples', 'golden', f.replace(/\.kexp\.jsonl(\.gz)?$/, '.report.json'));
    const text = JSON.stringify(report, null, 2) + '\n';
    if (update || !fs.existsSync(golden)) {
      if (!update) assert.fail(`${golden} is missing; run npm run update-golden`);
      fs.mkdirSync(path.dirname(golden), { recursive: true });
      fs.writeFileSync(golden, text);
      return;
    }
    assert.equal(text, fs.readFileSync(golden, 'utf8'));
  });
}
