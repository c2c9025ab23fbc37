/**
 * Writes a kexp recording (docs/recording-format.md) crash-safely: the file is created with
 * mode 0600, every line is one complete JSON object written with a single write() call, so
 * Ctrl-C or kill -9 can at worst leave a partial last line (which the reader reports and
 * skips); `close()` appends the end line and fsyncs.
 */
import fs from 'node:fs';
import { formatRecordingLine, formatRecvTime, recordingHeader, type RecordingEndReason, type RecordingHeader } from '../watch/recording-format.js';
import { redactObject } from './redaction.js';

export interface RecordingCounts {
  events: number;
  byResource: Record<string, number>;
  gaps: number;
}

export class RecordingWriter {
  private fd: number;
  readonly counts: RecordingCounts = { events: 0, byResource: {}, gaps: 0 };
  private closed = false;

  /** Creates (truncates) `path` with mode 0600 and writes the header. Throws on I/O errors. */
  constructor(
    readonly path: string,
    header: Omit<RecordingHeader, 'kexpRecording'>,
    private readonly redact: boolean,
  ) {
    this.fd = fs.openSync(path, 'w', 0o600);
    fs.fchmodSync(this.fd, 0o600); // an existing file keeps its old mode on open; force 0600
    this.write(formatRecordingLine(recordingHeader(header)));
  }

  private write(s: string): void {
    fs.writeSync(this.fd, s);
  }

  event(src: string, type: string, object: Record<string, unknown>, recvAt: number, synthetic?: string): void {
    if (this.closed) return;
    const obj = this.redact ? redactObject(object) : object;
    const line: Record<string, unknown> = { recv: formatRecvTime(recvAt), src, event: { type, object: obj } };
    if (synthetic) line.synthetic = synthetic;
    this.write(JSON.stringify(line) + '\n');
    if (type !== 'BOOKMARK') {
      this.counts.events++;
      this.counts.byResource[src] = (this.counts.byResource[src] ?? 0) + 1;
    }
  }

  gap(src: string, reason: 'watch-relist' | 'watch-reconnect', detail: string, recvAt: number): void {
    if (this.closed) return;
    this.write(formatRecordingLine({ recv: formatRecvTime(recvAt), src, gap: { reason, detail } }));
    this.counts.gaps++;
  }

  /** Appends the end line, fsyncs and closes. Safe to call twice. */
  close(reason: RecordingEndReason, recvAt: number, detail?: string): void {
    if (this.closed) return;
    this.write(formatRecordingLine({ recv: formatRecvTime(recvAt), end: detail ? { reason, detail } : { reason } }));
    this.closed = true;
    fs.fsyncSync(this.fd);
    fs.closeSync(this.fd);
  }
}
