/** `--color`/`--no-color` on every command that renders (replay, audit, explain) win over NO_COLOR / FORCE_COLOR. */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { kexp } from '../support/cli.js';
import { runKexp, startHostileApi, tempDir, writeKubeconfig, type HostileApi } from '../support/hostile-api.js';

const ESC = '\x1b[';
let api: HostileApi;
let dir: string;

before(async () => {
  api = await startHostileApi();
  dir = tempDir('flags-color');
});

after(async () => {
  await api.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

test('replay and audit: --color beats NO_COLOR=1; --no-color beats FORCE_COLOR; neither: NO_COLOR holds', () => {
  for (const args of [['replay', 'examples/quota-rejected.kexp.jsonl'], ['audit', '--rs', 'kexp-quota-rejected/web', 'examples/captures/quota-rejected/audit.jsonl']]) {
    const on = kexp([...args, '--color'], { env: { NO_COLOR: '1' } });
    assert.ok(on.stdout.includes(ESC), `${args[0]} --color under NO_COLOR=1 colours`);
    const plain = kexp(args, { env: { NO_COLOR: '1', FORCE_COLOR: '1' } });
    assert.ok(!plain.stdout.includes(ESC), `${args[0]}: NO_COLOR without a flag`);
    const off = kexp([...args, '--no-color'], { env: { NO_COLOR: '', FORCE_COLOR: '1' } });
    assert.ok(!off.stdout.includes(ESC), `${args[0]} --no-color beats FORCE_COLOR`);
    assert.equal(on.code, plain.code);
  }
});

test('explain has --color/--no-color too, with the same precedence', async () => {
  const kc = writeKubeconfig(dir, 'c', { server: api.url, namespace: 'shop' });
  // --watch: a span of time, so a chart to colour (a snapshot draws none).
  const on = await runKexp(['explain', 'web', '--kubeconfig', kc, '--color', '--watch', '1s'], { env: { NO_COLOR: '1' } });
  assert.equal(on.code, 0, on.stderr);
  assert.ok(on.stdout.includes(ESC), 'explain --color under NO_COLOR=1 colours the chart');
  const plain = await runKexp(['explain', 'web', '--kubeconfig', kc, '--watch', '1s'], { env: { NO_COLOR: '1', FORCE_COLOR: '1' } });
  assert.ok(!plain.stdout.includes(ESC));
  const off = await runKexp(['explain', 'web', '--kubeconfig', kc, '--no-color', '--watch', '1s'], { env: { NO_COLOR: '', FORCE_COLOR: '1' } });
  assert.ok(!off.stdout.includes(ESC));
  const forced = await runKexp(['explain', 'web', '--kubeconfig', kc, '--watch', '1s'], { env: { NO_COLOR: '', FORCE_COLOR: '1' } });
  assert.ok(forced.stdout.includes(ESC), 'FORCE_COLOR alone colours explain');
});
