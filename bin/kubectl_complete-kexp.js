#!/usr/bin/env node
// `kubectl kexp <TAB>`: installed as `kubectl_complete-kexp` (package.json "bin"), the executable
// kubectl ≥ 1.26 runs for a plugin's completion (src/cli/completion.ts says what it completes).
import fs from 'node:fs';
import { completeWords, formatCompletion } from '../dist/cli/completion.js';

const manifest = JSON.parse(fs.readFileSync(new URL('../oclif.manifest.json', import.meta.url), 'utf8'));
process.stdout.write(formatCompletion(completeWords(process.argv.slice(2), manifest)));
