/**
 * A YAML dump pasted from Markdown or a terminal: fenced blocks (```yaml … ```, ~~~) among prose,
 * or the output of `$ kubectl get … -o yaml` after its prompt line. The YAML reader reads what
 * the fences or prompts hold: every other line becomes blank and every fence or prompt line a
 * document separator (`---`), so documents keep their own FILE:LINE numbers.
 *
 * Recognised (on the sniffed prefix, `pastedDump`): a line starting with ``` or ~~~ in column 0 —
 * never valid YAML there — makes the file Markdown; a first line `$ kubectl …` / `% oc …`
 * (any prompt ending in `$`, `%`, `#` or `>`, then kubectl or oc) makes it a terminal capture.
 * Inside Markdown, blocks marked yaml, yml, json, or nothing are read; console/shell/sh/bash/
 * terminal blocks are read as a terminal capture; blocks of any other language and the prose
 * are skipped. In a terminal capture, the output of a command that prints YAML or JSON (`-o
 * yaml`, `-ojson`, `--output=yaml`) is read; the output of any other command (a table, an
 * `apply` message) is skipped.
 *
 * Refused, with the line, when stripping would be a guess: the first command of a terminal
 * capture prints no YAML/JSON; Markdown holds no block kexp can read; the lines are quoted
 * (`> `) or the fences are indented (the YAML's own indentation cannot be told from the
 * quote's or the list's). A pasted JSON dump is not handled here: the JSON reader skips any
 * text around its values (json-values.ts).
 *
 * Cost: one regex test per line; state is one enum.
 */

const FENCE_RE = /^(`{3,}|~{3,})[ \t]*([A-Za-z0-9_+.-]*)/;
const INDENTED_FENCE_RE = /^[ \t]{1,3}(`{3,}|~{3,})/;
// `#` only after a user/host part (`root@host:/# kubectl`): a YAML comment `# kubectl …` is no prompt.
const PROMPT_RE = /^[ \t]*(?:[^\s$%#>]*[$%>]|[^\s$%#>]+#)[ \t]*(kubectl|oc)\b(.*)$/;
const PRINTS_DUMP_RE = /(?:^|\s)(?:-o[ \t=]?|--output[ \t=])(?:yaml|json)\b/;
const DATA_LANGS = new Set(['', 'yaml', 'yml', 'json']);
const TERMINAL_LANGS = new Set(['console', 'shell', 'sh', 'bash', 'zsh', 'terminal', 'shell-session', 'text']);

export type PastedKind = 'markdown' | 'terminal';

export type PastedVerdict = { kind: PastedKind; firstDataLine: number } | { error: string; line: number };

/**
 * Whether the prefix (lines of the file from its first non-blank line, `firstLine` its number)
 * is a pasted dump, and where its first line of data is (1-based, in the file).
 */
export function pastedDump(lines: string[], firstLine: number, final: boolean): PastedVerdict | 'more' | undefined {
  const first = lines[0] ?? '';
  const quoted = lines.findIndex((l) => /^>[ \t]?(```|~~~)/.test(l));
  if (quoted !== -1) return { error: 'the dump is quoted (`> ` before each line): remove the quote marks to have it read', line: firstLine + quoted };
  const kind: PastedKind | undefined = PROMPT_RE.test(first) ? 'terminal' : lines.some((l) => FENCE_RE.test(l)) ? 'markdown' : undefined;
  if (!kind) {
    const indented = lines.findIndex((l) => INDENTED_FENCE_RE.test(l));
    // (A YAML file may hold an indented fence inside a block scalar: only prose around one is a paste.)
    if (indented !== -1 && !/^(([A-Za-z_][\w.\-/]*|"[^"]*"|'[^']*'):([ \t]|$)|---|- |#|%)/.test(first)) {
      return { error: 'a fenced block indented by spaces: its YAML indentation cannot be told from the fence\'s; paste the dump with its fence in column 0', line: firstLine + indented };
    }
    return undefined;
  }
  const strip = new PastedDumpLines(kind);
  for (let i = 0; i < lines.length; i++) {
    const out = strip.line(lines[i]!);
    if (strip.refusal) return { error: strip.refusal, line: firstLine + i };
    if (out !== '' && out !== '---') return { kind, firstDataLine: firstLine + i };
  }
  if (!final) return 'more';
  return {
    error: kind === 'markdown' ? 'Markdown without a ```yaml, ```json or ```console block holding the dump' : 'no command here prints YAML or JSON (`kubectl get … -o yaml`)',
    line: firstLine,
  };
}

/** The line-by-line stripping (the YAML reader calls `line` on every line in order). */
export class PastedDumpLines {
  private state: 'prose' | 'data' | 'terminal' | 'skip' = 'prose';
  /** Inside a terminal capture (or block): is the current command's output a dump? */
  private output = false;
  /** Line of the fence still open, for the end-of-file note. */
  openFence: string | undefined;
  /** Set when the first command of a terminal capture prints no dump (the caller refuses). */
  refusal: string | undefined;
  private commands = 0;

  constructor(private readonly kind: PastedKind) {
    if (kind === 'terminal') this.state = 'terminal';
  }

  /** The line as the YAML reader should see it: itself, blank, or `---`. */
  line(text: string): string {
    const fence = this.kind === 'markdown' ? FENCE_RE.exec(text) : null;
    if (fence) {
      if (this.state === 'prose') {
        const lang = fence[2]!.toLowerCase();
        this.state = DATA_LANGS.has(lang) ? 'data' : TERMINAL_LANGS.has(lang) ? 'terminal' : 'skip';
        this.output = false;
        this.openFence = fence[1];
      } else if (this.openFence !== undefined && text.startsWith(this.openFence)) {
        this.state = 'prose';
        this.openFence = undefined;
      } else return '';
      return '---';
    }
    switch (this.state) {
      case 'prose':
      case 'skip':
        return '';
      case 'data':
        return text;
      case 'terminal': {
        const prompt = PROMPT_RE.exec(text);
        if (prompt) {
          this.output = PRINTS_DUMP_RE.test(prompt[2]!);
          if (!this.output && this.commands === 0 && this.kind === 'terminal') {
            this.refusal = `\`${text.trim().slice(0, 80)}\` prints no YAML or JSON (no -o yaml/-o json): the lines after it are not a dump`;
          }
          this.commands++;
          return '---';
        }
        return this.output ? text : '';
      }
    }
  }
}
