#!/usr/bin/env node
// `kexp --version`, `-v` and `version` print oclif's version line without loading oclif
// (src/cli/version-fast-path.ts says when and why); everything else goes through oclif.
import fs from 'node:fs';
import { versionLine } from '../dist/cli/version-fast-path.js';
import { installStdoutGuard } from '../dist/cli/output.js';

const line = versionLine(process.argv.slice(2), JSON.parse(fs.readFileSync(new URL('../package.json', import.meta.url), 'utf8')));
if (line !== undefined) {
  installStdoutGuard();
  process.stdout.write(line);
} else {
  const { execute } = await import('@oclif/core');
  installStdoutGuard();
  await execute({ dir: import.meta.url });
}
