/**
 * The one error → exit-code mapping (src/cli/error-exit.ts), by the error's type, with the
 * typed errors the commands end with: UsageError (src/pipeline/usage-error.ts),
 * InterruptedError and endedBySignal (src/cli/interrupted-error.ts). The codes are README.md's
 * "Exit codes"; a message is never looked at.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { exitCodeForError } from '../../src/cli/error-exit.js';
import { EXIT } from '../../src/cli/exit-codes.js';
import { endedBySignal, InterruptedError } from '../../src/cli/interrupted-error.js';
import { UsageError } from '../../src/pipeline/usage-error.js';
import { ClusterError, type ClusterErrorKind } from '../../src/sources/live/cluster-error.js';
import { InvalidNameError } from '../../src/sources/live/names.js';
import { RecordingFileError } from '../../src/sources/live/recording-writer.js';
import { InputCutError } from '../../src/sources/input-stream.js';
import { InputError } from '../../src/sources/source.js';

test('each error type has its exit code', () => {
  assert.equal(exitCodeForError(new InterruptedError('interrupted')), 130);
  assert.equal(exitCodeForError(new UsageError('--watch must be longer than 0, got "0s"')), 2);
  assert.equal(exitCodeForError(new InvalidNameError('-n "x/y" must …', 'argument')), 2);
  assert.equal(exitCodeForError(new InvalidNameError('namespace "x/y" of context c …', 'kubeconfig')), 7);
  assert.equal(exitCodeForError(new InputError('a.jsonl', 0, 'empty input')), 6);
  assert.equal(exitCodeForError(new RecordingFileError('r.jsonl', 'EEXIST', 'r.jsonl already exists')), 6);
  assert.equal(exitCodeForError(new ClusterError('not-found', 'ReplicaSet shop/web not found')), 8);
  const kinds: ClusterErrorKind[] = ['unreachable', 'tls', 'unauthorized', 'forbidden', 'timeout', 'http', 'response', 'config'];
  for (const k of kinds) assert.equal(exitCodeForError(new ClusterError(k, 'x')), 7, k);
  assert.equal(exitCodeForError(new TypeError("Cannot read properties of undefined (reading 'x')")), 1);
  assert.equal(exitCodeForError('a string'), 1);
  assert.equal(exitCodeForError(undefined), 1);
});

test('an InputError subclass is an input error', () => {
  assert.equal(exitCodeForError(new InputCutError('-', 'binary data at byte 4096')), 6);
});

test('the type decides, never the message: "version" in a message is no usage error', () => {
  assert.equal(exitCodeForError(new Error('unrecognised Kubernetes version "1.x" (expected e.g. v1.34.2)')), 1);
  assert.equal(exitCodeForError(new Error("EACCES: permission denied, open '/reports/version.html'")), 1);
  assert.equal(exitCodeForError(UsageError.of(new Error('unrecognised Kubernetes version "1.x" (expected e.g. v1.34.2)'))), 2);
  assert.equal(exitCodeForError(new ClusterError('config', 'the kubeconfig names version 2')), 7);
});

test('UsageError.of keeps the message (and the error as its cause); a UsageError is returned as it is', () => {
  const cause = new Error('--rs must be namespace/name, got "web"\nsecond line');
  const u = UsageError.of(cause);
  assert.ok(u instanceof UsageError);
  assert.equal(u.name, 'UsageError');
  assert.equal(u.message, cause.message);
  assert.equal(u.cause, cause);
  assert.equal(UsageError.of(u), u);
  assert.equal(UsageError.of('plain text').message, 'plain text');
});

test('endedBySignal: what an aborted request fails with (a ClusterError, an AbortError), not any error', () => {
  assert.equal(endedBySignal(new ClusterError('timeout', 'GET … aborted')), true);
  const abort = new Error('The operation was aborted');
  abort.name = 'AbortError';
  assert.equal(endedBySignal(abort), true);
  assert.equal(endedBySignal(new DOMException('aborted', 'AbortError')), true);
  assert.equal(endedBySignal(new RecordingFileError('r', 'ENOSPC', 'disk full')), false);
  assert.equal(endedBySignal(new TypeError('bug')), false);
  assert.equal(endedBySignal(undefined), false);
});

test('EXIT is what README.md documents', () => {
  assert.deepEqual(EXIT, { OK: 0, ERROR: 1, USAGE: 2, GATED: 3, LEAK: 4, FAILING: 5, INPUT: 6, CLUSTER: 7, NOT_FOUND: 8, INTERRUPTED: 130 });
});
