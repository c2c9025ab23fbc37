/**
 * How far the readers are through their input files, for the progress line file commands show
 * on a terminal (src/cli/progress.ts). Each reader registers the stream it reads the file with;
 * the byte count is the stream's own (`fs.ReadStream.bytesRead`: compressed bytes for a gzip
 * file, so the fraction of the file read is right). Standard input has no size: bytes and rate only.
 * Process-wide on purpose (the readers sit several layers below the command); it holds numbers
 * and getters only.
 */
export interface FileProgress {
  file: string;
  /** File size in bytes, when known (not for stdin or a FIFO). */
  size?: number;
  read(): number;
}

const tracked: FileProgress[] = [];

export function trackRead(p: FileProgress): void {
  tracked.push(p);
}

/** Totals over every file opened so far: bytes read, and the total size when every size is known. */
export function readTotals(): { files: number; read: number; size?: number } {
  let read = 0;
  let size: number | undefined = 0;
  for (const p of tracked) {
    read += p.read();
    size = size !== undefined && p.size !== undefined ? size + p.size : undefined;
  }
  return { files: tracked.length, read, ...(size !== undefined && tracked.length > 0 ? { size } : {}) };
}
