/**
 * Docker's json-file log driver lines (`{"log":"I0304 …\n","stream":"stderr","time":"…"}`;
 * parsed upstream by parseDockerJSONLog in pkg/kubelet/kuberuntime/logs/logs.go): the payload
 * is the `log` string, its final newline removed; a `log` without one continues in the next
 * line's record; `time` is the runtime's RFC 3339 UTC time.
 *
 * Contract: only a line that starts with `{` and mentions `"log"` is tried. It is this envelope
 * when it is a JSON object with a string `log` and a `stream` or `time` (a JSON log record of a
 * component has neither, and passes through). Invalid JSON is a damaged line, unless it looks
 * like a JSON log record (`"ts"` and `"msg"`: its own parser reports it). A `time` that is not
 * RFC 3339 is damage.
 * Cost: a substring test per `{` line; one JSON.parse for those that mention `"log"`.
 */
import { isRecord } from '../../model/objects.js';
import { parseRfc3339 } from '../kcm-log/klog-text.js';
import type { LineEnvelope, Unwrapped } from './envelope.js';

/** A parsed object is a json-file log record: a string `log` with its `stream` or `time`. */
export function isDockerLogRecord(o: Record<string, unknown>): boolean {
  return typeof o.log === 'string' && ('stream' in o || 'time' in o);
}

export const dockerJsonFile: LineEnvelope<'docker'> = {
  name: 'docker',
  unwrap(line: string): Unwrapped<'docker'> | undefined {
    if (line.charCodeAt(0) !== 0x7b /* { */ || !line.includes('"log"')) return undefined;
    let v: unknown;
    try {
      v = JSON.parse(line);
    } catch {
      if (line.includes('"ts"') && line.includes('"msg"')) return undefined;
      return { inner: '', error: 'malformed docker json-file line (not valid JSON)' };
    }
    if (!isRecord(v) || !isDockerLogRecord(v)) return undefined;
    const log = v.log as string;
    const out: Unwrapped<'docker'> = { inner: log.endsWith('\n') ? log.slice(0, -1) : log, wrapper: 'docker' };
    if (!log.endsWith('\n')) out.partial = true;
    if (typeof v.time === 'string') {
      const t = parseRfc3339(v.time);
      if (t === undefined) return { inner: '', error: `malformed docker json-file line (bad time ${JSON.stringify(v.time)})` };
      out.wrapperAt = t;
    }
    return out;
  },
};
