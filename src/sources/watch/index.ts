/**
 * Watch-dump input adapters: kexp recordings, raw watch events, `kubectl get -w` JSON/YAML
 * and list snapshots → TimelineEvents. See docs/recording-format.md and
 * /work/shared/docs/input-formats.md §2.
 */
export { openWatchSource, type WatchFileCoverage, type WatchSource, type WatchSourceOptions } from './watch-source.js';
export { mergeSources } from './merge.js';
export { WATCH_FORMATS, type WatchFormat } from './sniff.js';
export {
  RECORDING_FORMAT_VERSION,
  formatRecordingLine,
  formatRecvTime,
  parseRfc3339,
  recordingHeader,
  type RecordingBodyLine,
  type RecordingEndLine,
  type RecordingEndReason,
  type RecordingEventLine,
  type RecordingGapLine,
  type RecordingGapReason,
  type RecordingHeader,
  type RecordingLine,
  type RecordingWatch,
  type WatchEventType,
  type WireWatchEvent,
} from './recording-format.js';
