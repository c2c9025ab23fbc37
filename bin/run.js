#!/usr/bin/env node
import { execute } from '@oclif/core';
import { installStdoutGuard } from '../dist/cli/stdout-guard.js';

installStdoutGuard();
await execute({ dir: import.meta.url });
