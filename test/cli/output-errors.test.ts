/** A result that cannot be delivered (stdout on a full disk) is one line and exit 6, never a stack trace. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';

const BIN = path.resolve('bin/run.js');

for (const args of [
  ['replay', 'examples/scale-up-gated.kexp.jsonl'],
  ['replay', 'examples/scale-up-gated.kexp.jsonl', '-o', 'json'],
  ['audit', 'examples/captures/scale-up-gated/audit.jsonl'],
  ['kcm-log', 'examples/captures/scale-up-gated/kcm.log'],
]) {
  test(`kexp ${args.join(' ')} > /dev/full: exit 6, one line`, { skip: !fs.existsSync('/dev/full') }, () => {
    const full = fs.openSync('/dev/full', 'w');
    try {
      const r = spawnSync(process.execPath, [BIN, ...args], { stdio: ['ignore', full, 'pipe'], encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' }, timeout: 60_000 });
      assert.equal(r.status, 6, r.stderr);
      assert.equal(r.stderr, 'kexp: cannot write the output: ENOSPC\n');
    } finally {
      fs.closeSync(full);
    }
  });
}
