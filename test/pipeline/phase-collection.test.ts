/**
 * The collection between a pipeline's replay and its report (src/pipeline/phase-collection.ts):
 * one full collection where V8 exposes it (`--expose-gc`, which bin/run.js gives a large
 * `kexp audit`: src/cli/heap-settings.ts AUDIT_HEAP_FLAGS), nothing without it. That the relaunched
 * audit runs with it is checked end to end in test/cli/heap-settings.test.ts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { collectBetweenPhases } from '../../src/pipeline/phase-collection.js';
import { AUDIT_HEAP_FLAGS } from '../../src/cli/heap-settings.js';

test('collectBetweenPhases runs the collection V8 exposes with --expose-gc (one of AUDIT_HEAP_FLAGS), and nothing without it', () => {
  assert.ok(AUDIT_HEAP_FLAGS.includes('--expose-gc'));
  const g = globalThis as { gc?: () => void };
  const had = Object.getOwnPropertyDescriptor(g, 'gc');
  try {
    let calls = 0;
    g.gc = () => void calls++;
    collectBetweenPhases();
    assert.equal(calls, 1);
    delete g.gc;
    assert.doesNotThrow(() => collectBetweenPhases());
  } finally {
    if (had) Object.defineProperty(g, 'gc', had);
    else delete g.gc;
  }
});
