/**
 * CRI container log lines, as kubelet's container runtime writes them under /var/log/pods
 * (`2025-03-04T10:15:02.123456789Z stderr F <line>`; the CRI logging format of
 * k8s.io/cri-api, parsed upstream by parseCRILog in pkg/kubelet/kuberuntime/logs/logs.go): an
 * RFC 3339 time in UTC, the stream, a tag (`F` full, `P` partial: the line continues in the
 * next record), then the payload.
 *
 * Contract: `unwrap` accepts the time with up to 9 fractional digits and a zone; the tag and
 * the payload may be missing (an empty line). A line whose time is not valid but which has a
 * stream after it is damaged (`malformed CRI log line`), reported only when no other envelope
 * reads it. `sniff` is the loose form (any non-blank time, a tag required) by which the audit
 * reader names a container log it does not read.
 * Cost: one character test for lines that do not start with a date; one regular expression
 * and one time parse for those that do.
 */
import { parseRfc3339 } from '../kcm-log/klog-text.js';
import { startsWithDateTime, type LineEnvelope, type Unwrapped } from './envelope.js';

const CRI_RE = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{1,9})?(?:Z|[+-]\d\d:\d\d)) (stdout|stderr)(?: ([PF]))?(?: (.*))?$/s;
/** A stream after something time-like: a CRI line whose time is not valid. */
const DAMAGED_CRI_RE = /^\d{4}-\d\d-\d\dT\S+ (stdout|stderr)\b/;
/** The loose prefix `<time> stdout|stderr P|F ` (sniffers). */
const LOOSE_CRI_RE = /^\d{4}-\d\d-\d\dT\S+ (stdout|stderr) [PF] /;

export const cri: LineEnvelope<'cri'> = {
  name: 'cri',
  unwrap(line: string): Unwrapped<'cri'> | undefined {
    if (!startsWithDateTime(line)) return undefined;
    const m = CRI_RE.exec(line);
    if (!m) return undefined;
    const t = parseRfc3339(m[1]!);
    if (t === undefined) return { inner: '', error: `malformed CRI log line (bad timestamp ${m[1]})` };
    const out: Unwrapped<'cri'> = { inner: m[4] ?? '', wrapper: 'cri', wrapperAt: t };
    if (m[3] === 'P') out.partial = true;
    return out;
  },
  damaged(line: string): string | undefined {
    return startsWithDateTime(line) && DAMAGED_CRI_RE.test(line) ? 'malformed CRI log line' : undefined;
  },
  sniff(line: string): string | undefined {
    const m = LOOSE_CRI_RE.exec(line);
    return m ? line.slice(m[0].length) : undefined;
  },
};
