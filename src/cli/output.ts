/**
 * The output step of every command that prints a report (replay, audit, kcm-log, explain,
 * adopt): one printer, as kubectl has one (its PrintFlags → ResourcePrinter,
 * k8s.io/cli-runtime/pkg/genericclioptions/print_flags.go). A command hands over its result
 * as a `Printable` — the document, the text renderer, the HTML page — with its output flags;
 * this module selects the format, renders and writes:
 *
 * - `-o json`: the document written in pieces (render/structured.ts's jsonChunks), waiting for
 *   'drain' when stdout's buffer is full, so neither kexp nor a slow reader of a pipe makes it
 *   hold the whole text (the report of a multi-gigabyte audit log is tens of megabytes);
 * - `-o yaml`: the document rendered whole (the `yaml` package has no streaming writer);
 * - `-o table` / `-o wide`: the command's text renderer, laid out for this stdout (its width,
 *   render/width.ts — the terminal's own when stdout is piped from one, terminal-size.ts;
 *   colour, render/color.ts: --color/--no-color, then NO_COLOR and the TTY); on a terminal, a
 *   report taller than the screen ends with its summary again (render/screen-summary.ts);
 * - `-o name`: the `TYPE/NAME` of every owner reported, worst first, one a line (kubectl's
 *   `-o name`);
 * - `--html FILE`: the self-contained page (see HtmlOptions: when it is written, what `-` means
 *   and what a failure does differ between the commands and are kept as they were);
 * - the stdout guard (installStdoutGuard): a result that cannot be delivered — stdout on a full
 *   disk, an I/O error — is one line on stderr and exit 6, never an uncaught exception.
 *
 * Cost: the document's size in pieces of 64 KiB for JSON, the whole text for YAML and the
 * tables. bin/run.js installs the guard before anything else loads (for `--version` too), so
 * this module loads nothing heavy itself: the JSON and YAML renderers (and the `yaml`
 * package) are imported when a document is written.
 */
import { UsageError } from '../pipeline/usage-error.js';
import type { StructuredOutput } from '../render/structured.js';
import { useColor } from '../render/color.js';
import { outputWidth } from '../render/width.js';
import { withScreenSummary } from '../render/screen-summary.js';
import { terminalSize, type TerminalSize } from './terminal-size.js';
import { EXIT } from './exit-codes.js';
import { oneLine } from './messages.js';
import { OutputFileError, writeOutputFile } from './output-file.js';

/** How the text renderers lay out a result on this stdout. */
export interface TextView {
  /** Columns available (render/width.ts). */
  width: number;
  /** `-o wide`: every row and cell in full. */
  wide: boolean;
  /** ANSI colour allowed (renderers that have none ignore it). */
  color: boolean;
}

/** A command's result as each output shows it. */
export interface Printable {
  /** What `-o json` and `-o yaml` print. */
  document: unknown;
  /** What `-o table` and `-o wide` print. */
  text(view: TextView): string;
  /** The `--html` page, for commands that offer --html. */
  html?(): string;
  /** The verdict, cause and next step, repeated at the end of a text taller than the terminal. */
  summary?(view: TextView): string[];
  /** What `-o name` prints: `TYPE/NAME` lines (kubectl's form), worst first. */
  names?(): string[];
}

/** How a command writes `--html FILE`. */
export interface HtmlOptions {
  /** The page is written before the report (replay, audit) or after it (explain). */
  before: boolean;
  /** `--html -` writes the page to stdout in place of the report (replay); elsewhere `-` is a file name. */
  dashIsStdout: boolean;
  /**
   * A page that cannot be written is returned as a UsageError for the command to report after
   * its other lines (replay); elsewhere the file system's error ends the command.
   */
  failureAsValue: boolean;
}

export interface OutputFlags {
  /** `-o`: table, wide, json or yaml (src/cli/flags.ts's outputFlag). */
  output: string;
  /** `--color` / `--no-color`; undefined lets the environment decide. */
  color?: boolean;
  /** `--html FILE`. */
  html?: string;
}

/** Where the output goes, and the environment that lays it out: this process's, or a test's. */
export interface OutputIO {
  stdout: NodeJS.WritableStream & { isTTY?: boolean; columns?: number; rows?: number };
  env: Record<string, string | undefined>;
  /** The terminal kexp runs in when stdout is not it (terminal-size.ts); asked only then. */
  terminal?: () => TerminalSize;
}

const PROCESS_IO: OutputIO = { stdout: process.stdout, env: process.env, terminal: () => terminalSize() };

export interface OutputResult {
  /** The --html page could not be written (HtmlOptions.failureAsValue). */
  htmlFailure?: UsageError | OutputFileError;
}

function isStructured(output: string | undefined): output is StructuredOutput {
  return output === 'json' || output === 'yaml';
}

/** Prints `p` on stdout as `flags` ask, with its --html page (see the module comment). */
export async function printOutput(p: Printable, flags: OutputFlags, htmlOptions?: HtmlOptions, io: OutputIO = PROCESS_IO): Promise<OutputResult> {
  const html = flags.html && p.html && htmlOptions ? { file: flags.html, page: () => p.html!(), ...htmlOptions } : undefined;
  let htmlFailure: UsageError | OutputFileError | undefined;
  if (html?.before) htmlFailure = writeHtml(html, io);
  if (!(html?.dashIsStdout && html.file === '-')) {
    if (isStructured(flags.output)) await writeDocument(io.stdout, p.document, flags.output);
    else if (flags.output === 'name') io.stdout.write((p.names?.() ?? []).map((n) => `${n}\n`).join(''));
    else {
      const view = textView(flags, io);
      const text = p.text(view);
      io.stdout.write(io.stdout.isTTY && p.summary ? withScreenSummary(text, p.summary(view), screenRows(io), view.width) : text);
    }
  }
  if (html && !html.before) htmlFailure = writeHtml(html, io);
  return htmlFailure ? { htmlFailure } : {};
}

/** The terminal's rows: the TTY's, else `$LINES`. */
function screenRows(io: OutputIO): number | undefined {
  if (io.stdout.rows && io.stdout.rows > 0) return io.stdout.rows;
  const lines = io.env.LINES?.trim();
  return lines && /^\d+$/.test(lines) ? Number(lines) : undefined;
}

/** The layout of `-o table`/`-o wide` on `io`'s stdout (render/width.ts, render/color.ts). */
function textView(flags: OutputFlags, io: OutputIO): TextView {
  const fromEnv = io.env.COLUMNS?.trim();
  // The terminal behind a pipe is asked only when neither COLUMNS nor stdout tells the width.
  const terminalColumns = !io.stdout.isTTY && !(fromEnv && /^\d+$/.test(fromEnv) && Number(fromEnv) > 0) ? io.terminal?.().columns : undefined;
  return {
    width: outputWidth({ env: io.env, isTTY: io.stdout.isTTY, columns: io.stdout.columns, terminalColumns }),
    wide: flags.output === 'wide',
    color: useColor({ flag: flags.color, env: io.env, isTTY: io.stdout.isTTY }),
  };
}

/** Writes the page; a failure is thrown, or returned when `failureAsValue`. */
function writeHtml(h: HtmlOptions & { file: string; page: () => string }, io: OutputIO): UsageError | OutputFileError | undefined {
  const write = () => {
    if (h.dashIsStdout && h.file === '-') io.stdout.write(h.page());
    else writeOutputFile('--html', h.file, h.page());
  };
  if (!h.failureAsValue) return void write();
  try {
    write();
    return undefined;
  } catch (err) {
    if (err instanceof OutputFileError) return err;
    return new UsageError(`cannot write --html ${h.file}: ${(err as NodeJS.ErrnoException).code ?? oneLine(err)}`, { cause: err });
  }
}

/** Bytes gathered before a write: few syscalls, and never the whole document at once. */
const WRITE_BATCH = 1 << 16;

/**
 * Writes the document to `out` (stdout) as `-o json` or `-o yaml`: JSON piece by piece,
 * waiting for 'drain' when the stream's buffer is full; YAML whole.
 */
export async function writeDocument(out: NodeJS.WritableStream, value: unknown, output: StructuredOutput): Promise<void> {
  const { jsonChunks, renderStructured } = await import('../render/structured.js');
  if (output === 'yaml') {
    out.write(renderStructured(value, output));
    return;
  }
  let buf = '';
  const flush = async () => {
    if (!out.write(buf)) await drained(out);
    buf = '';
  };
  for (const piece of jsonChunks(value)) {
    buf += piece;
    if (buf.length >= WRITE_BATCH) await flush();
  }
  buf += '\n';
  await flush();
}

/** Resolves on 'drain', or when the stream closes or fails (the stdout guard reports failures). */
function drained(out: NodeJS.WritableStream): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      out.off('drain', done);
      out.off('close', done);
      out.off('error', done);
      resolve();
    };
    out.on('drain', done);
    out.on('close', done);
    out.on('error', done);
  });
}

let failed: string | undefined;

/**
 * The stdout guard. @oclif/core installs a process.stdout 'error' listener that swallows EPIPE
 * (`| head`) but rethrows everything else from the listener, which Node reports as an uncaught
 * exception with a stack; kexp replaces it: EPIPE stays silent (the reader went away), any
 * other failure is `kexp: cannot write the output: CODE` once, and exit 6 overrides the code
 * the command set. Installed by bin/run.js after @oclif/core is loaded.
 */
export function installStdoutGuard(): void {
  process.stdout.removeAllListeners('error');
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err?.code === 'EPIPE') return; // the reader went away (`kexp … | head`): not an error
    if (failed === undefined) {
      failed = err?.code ?? 'error';
      try {
        process.stderr.write(`kexp: cannot write the output: ${failed}\n`);
      } catch {
        /* stderr is gone too */
      }
    }
  });
  // The command sets its own exit code when it ends; a lost result overrides it.
  process.on('exit', () => {
    if (failed !== undefined) process.exitCode = EXIT.INPUT;
  });
}
