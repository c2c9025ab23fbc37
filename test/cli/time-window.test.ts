/**
 * The time window of `kexp audit` (src/cli/time-window.ts): --since/--until as a duration back
 * from `now` or an RFC 3339 time, --since-time as RFC 3339 only, since after until refused, and
 * the warning when no input reaches into the window. The spawned CLI: test/cli/flags-since.test.ts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseRfc3339Flag, parseTimeOrAgoFlag, resolveTimeWindow, windowMiss } from '../../src/cli/time-window.js';

const NOW = Date.UTC(2026, 10, 30, 3, 0, 0);

test('parseRfc3339Flag: full RFC 3339 times with a zone only', () => {
  assert.equal(parseRfc3339Flag('since', undefined), undefined);
  assert.equal(parseRfc3339Flag('since', '2026-11-30T02:39:00Z'), Date.UTC(2026, 10, 30, 2, 39, 0));
  assert.equal(parseRfc3339Flag('since', '2026-11-30t02:39:00.5+01:00'), Date.UTC(2026, 10, 30, 1, 39, 0, 500));
  assert.equal(parseRfc3339Flag('since', ' 2026-11-30T02:39:00-00:30 '), Date.UTC(2026, 10, 30, 3, 9, 0));
  const tail = '; give a full RFC 3339 time with a time zone, e.g. 2026-11-30T02:00:00Z';
  assert.throws(() => parseRfc3339Flag('since', '2026'), { message: `--since "2026" is not an RFC 3339 time${tail}` });
  assert.throws(() => parseRfc3339Flag('since', '2026-11-30 02:39:00Z'), { message: /is not an RFC 3339 time/ });
  assert.throws(() => parseRfc3339Flag('since', '2026-11-30T02:39:00'), { message: /is not an RFC 3339 time/ });
  assert.throws(() => parseRfc3339Flag('until', '2026-02-30T00:00:00Z'), { message: `--until "2026-02-30T00:00:00Z" is not a valid date${tail}` });
  assert.throws(() => parseRfc3339Flag('until', '2026-11-30T24:00:00Z'), { message: /is not a valid time of day/ });
  assert.throws(() => parseRfc3339Flag('until', '2026-11-30T02:00:00+24:00'), { message: /is not a valid time zone offset/ });
});

test('parseTimeOrAgoFlag: a duration back from now, else an RFC 3339 time; each error names both forms', () => {
  assert.equal(parseTimeOrAgoFlag('since', '1h', NOW), NOW - 3_600_000);
  assert.equal(parseTimeOrAgoFlag('since', '1h30m', NOW), NOW - 5_400_000);
  assert.equal(parseTimeOrAgoFlag('until', '2026-11-30T02:00:00Z', NOW), Date.UTC(2026, 10, 30, 2));
  const hint = '; give a duration (e.g. 1h, 30m) or a full RFC 3339 time with a time zone, e.g. 2026-11-30T02:00:00Z';
  assert.throws(() => parseTimeOrAgoFlag('since', '1hx', NOW), { message: `--since "1hx" is not a duration or an RFC 3339 time${hint}` });
  assert.throws(() => parseTimeOrAgoFlag('since', '2026', NOW), { message: `--since "2026" is not an RFC 3339 time${hint}` });
  assert.throws(() => parseTimeOrAgoFlag('until', '2026-02-30T00:00:00Z', NOW), { message: `--until "2026-02-30T00:00:00Z" is not a valid date${hint}` });
});

test('resolveTimeWindow: the bounds at now; --since-time is RFC 3339; since after until is refused', () => {
  assert.deepEqual(resolveTimeWindow({}, NOW), { since: undefined, until: undefined });
  assert.deepEqual(resolveTimeWindow({ since: '30m', until: '10m' }, NOW), { since: NOW - 1_800_000, until: NOW - 600_000 });
  assert.deepEqual(resolveTimeWindow({ 'since-time': '2026-11-30T02:39:10Z' }, NOW), { since: Date.UTC(2026, 10, 30, 2, 39, 10), until: undefined });
  assert.throws(() => resolveTimeWindow({ 'since-time': '1h' }, NOW), { message: /^--since-time "1h" is not an RFC 3339 time/ });
  assert.throws(() => resolveTimeWindow({ since: '10m', until: '1h' }, NOW), { message: '--since 10m is later than --until 1h' });
  assert.throws(() => resolveTimeWindow({ 'since-time': '2026-11-30T02:30:00Z', until: '2026-11-30T02:00:00Z' }, NOW), {
    message: '--since-time 2026-11-30T02:30:00Z is later than --until 2026-11-30T02:00:00Z',
  });
});

test('windowMiss: said only when a window was given and no input span reaches into it', () => {
  const t = (h: number, m = 0) => Date.UTC(2026, 10, 30, h, m);
  const spans = [{ start: t(2, 0), end: t(2, 40) }, { start: t(2, 10), end: t(2, 50) }, { file: 'empty' } as { start?: number; end?: number }];
  assert.equal(windowMiss({}, spans, 'audit events'), undefined);
  assert.equal(windowMiss({ since: t(2, 45) }, spans, 'audit events'), undefined, 'the second input reaches it');
  assert.equal(windowMiss({ since: t(2, 50), until: t(3) }, spans, 'audit events'), undefined, 'bounds are inclusive');
  assert.equal(
    windowMiss({ since: t(3) }, spans, 'audit events'),
    'no audit events at or after 2026-11-30T03:00:00.000Z (the input covers 2026-11-30T02:00:00.000Z to 2026-11-30T02:50:00.000Z)',
  );
  assert.equal(windowMiss({ until: t(1) }, spans, 'audit events'), 'no audit events at or before 2026-11-30T01:00:00.000Z (the input covers 2026-11-30T02:00:00.000Z to 2026-11-30T02:50:00.000Z)');
  assert.equal(windowMiss({ since: t(0), until: t(1) }, [], 'audit events'), 'no audit events between 2026-11-30T00:00:00.000Z and 2026-11-30T01:00:00.000Z');
});
