/** kexp identifies itself like kubectl does: every request carries `kexp/vVERSION (os/arch)`. */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { runKexp, startHostileApi, tempDir, writeKubeconfig, type HostileApi } from '../support/hostile-api.js';
import { KEXP_VERSION } from '../../src/version.js';

let api: HostileApi;
let dir: string;
const agents: string[] = [];

before(async () => {
  api = await startHostileApi({
    override: (req) => {
      agents.push(String(req.headers['user-agent'] ?? ''));
      return false;
    },
  });
  dir = tempDir('live-ua');
});

after(async () => {
  await api.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

test('explain sends the kexp User-Agent on every request', async () => {
  const kc = writeKubeconfig(dir, 'plain', { server: api.url, namespace: 'shop' });
  const r = await runKexp(['explain', 'web', '--kubeconfig', kc]);
  assert.ok(r.code !== 1 && r.code !== null, r.stderr);
  assert.ok(agents.length > 0, 'the server saw requests');
  for (const ua of agents) assert.equal(ua, `kexp/v${KEXP_VERSION} (${process.platform}/${process.arch})`);
});
