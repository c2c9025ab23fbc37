/**
 * `kubectl logs --timestamps` lines (`2025-03-04T10:15:02.123456789Z <line>`): the kubelet
 * prefixes each line with the runtime's RFC 3339 UTC time and one space (the `Timestamps`
 * option of pkg/kubelet/kuberuntime/logs/logs.go, written by its logWriter).
 *
 * Contract: `unwrap` accepts the time with up to 9 fractional digits and a zone (`Z` or
 * `±hh:mm`) and takes everything after the first space as the payload; after a CRI line's own
 * time (registry order: CRI first). `sniff` is the loose form (any non-blank time ending in `Z`).
 * Cost: one character test for lines that do not start with a date; one regular expression and
 * one time parse for those that do.
 */
import { parseRfc3339 } from '../kcm-log/klog-text.js';
import { startsWithDateTime, type LineEnvelope, type Unwrapped } from './envelope.js';

const TS_PREFIX_RE = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{1,9})?(?:Z|[+-]\d\d:\d\d)) (.*)$/s;
/** The loose prefix `<time>Z ` (sniffers). */
const LOOSE_TS_PREFIX_RE = /^\d{4}-\d\d-\d\dT\S+Z /;

export const kubectlTimestamps: LineEnvelope<'timestamp'> = {
  name: 'timestamp',
  unwrap(line: string): Unwrapped<'timestamp'> | undefined {
    if (!startsWithDateTime(line)) return undefined;
    const p = TS_PREFIX_RE.exec(line);
    if (!p) return undefined;
    const t = parseRfc3339(p[1]!);
    if (t === undefined) return { inner: '', error: `malformed timestamp prefix ${p[1]}` };
    return { inner: p[2]!, wrapper: 'timestamp', wrapperAt: t };
  },
  sniff(line: string): string | undefined {
    const m = LOOSE_TS_PREFIX_RE.exec(line);
    return m ? line.slice(m[0].length) : undefined;
  },
};
