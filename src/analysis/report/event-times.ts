/**
 * One core Event's times and count, from the core/v1 legacy fields (firstTimestamp,
 * lastTimestamp, count) or the series fields newer recorders write (eventTime,
 * series.lastObservedTime, series.count), and whether the recorder aggregated it ("(combined
 * from similar events): …", the EventAggregator of client-go tools/record/events_cache.go).
 * A count that is not a positive integer (a snapshot read from a file) counts once.
 *
 * Pure; O(1).
 */
import { parseTime, type CoreEvent } from '../../model/objects.js';

const COMBINED = '(combined from similar events): ';

export function eventTimes(e: CoreEvent): { first?: number; last?: number; count: number; aggregated: boolean; message: string } {
  const series = (e as { series?: { count?: number; lastObservedTime?: string } }).series;
  const first = parseTime(e.firstTimestamp) ?? parseTime(e.eventTime) ?? parseTime(e.metadata.creationTimestamp);
  const last = parseTime(e.lastTimestamp) ?? parseTime(series?.lastObservedTime) ?? first;
  // Wrong types in a snapshot read from a file: a count that is not a positive integer counts once.
  const rawCount = e.count ?? series?.count ?? 1;
  const count = typeof rawCount === 'number' && Number.isSafeInteger(rawCount) && rawCount > 0 ? rawCount : 1;
  let message = typeof e.message === 'string' ? e.message : '';
  const aggregated = message.startsWith(COMBINED);
  if (aggregated) message = message.slice(COMBINED.length);
  return { first, last, count, aggregated, message };
}
