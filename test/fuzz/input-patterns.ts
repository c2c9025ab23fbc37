/**
 * The regular expressions of src/, found rather than listed, and the adversarial strings each
 * is run on (for test/fuzz/input-patterns.test.ts).
 *
 * Discovery: every regular-expression literal in src/**\/*.ts, found by TypeScript's parser
 * (a RegularExpressionLiteral node: a regex written anywhere, in any module, is found without
 * anyone registering it), and every `new RegExp(…)` whose arguments fold to constant strings
 * (string and template literals, and module-level `const`s that are themselves such). A
 * `new RegExp` that does not fold is returned apart (`unfolded`) for the test to account for by
 * name. Whether a pattern is applied to input text cannot be decided statically, so every
 * pattern is held to the same bound — one applied to kexp's own short text costs nothing to run.
 *
 * Adversarial strings (`adversarial`): for a pattern, long runs without a newline of each
 * character it names (its literal characters and a representative of each class it uses:
 * `\d`, `\w`, `\s`, `.`, a negated class), runs of each pair of characters adjacent in its
 * source (`key=`, `\"`), unterminated quotes and brackets, each also after the pattern's
 * literal prefix (so an anchored pattern reaches its repeated part), each ending in a
 * character nothing expects. These are the shapes that make a backtracking engine retry a
 * run from every position (quadratic) or every split of it (exponential).
 * Cost: parsing src/ once (about a second); strings are built per pattern on demand.
 */
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

export interface FoundPattern {
  /** `src/…/file.ts:LINE`. */
  where: string;
  source: string;
  flags: string;
}

export interface Discovery {
  patterns: FoundPattern[];
  /** `new RegExp(…)` sites whose arguments are not constant: where, and the call's text. */
  unfolded: Array<{ where: string; text: string }>;
}

function tsFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...tsFiles(p));
    else if (e.name.endsWith('.ts') && !e.name.endsWith('.d.ts')) out.push(p);
  }
  return out.sort();
}

export function discoverPatterns(root = 'src'): Discovery {
  const patterns: FoundPattern[] = [];
  const unfolded: Discovery['unfolded'] = [];
  for (const file of tsFiles(root)) {
    const sf = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
    const consts = new Map<string, ts.Expression>();
    for (const st of sf.statements) {
      if (ts.isVariableStatement(st) && st.declarationList.flags & ts.NodeFlags.Const) {
        for (const d of st.declarationList.declarations) if (ts.isIdentifier(d.name) && d.initializer) consts.set(d.name.text, d.initializer);
      }
    }
    const fold = (e: ts.Expression, depth = 0): string | undefined => {
      if (depth > 8) return undefined;
      if (ts.isStringLiteral(e) || ts.isNoSubstitutionTemplateLiteral(e)) return e.text;
      if (ts.isParenthesizedExpression(e)) return fold(e.expression, depth + 1);
      if (ts.isIdentifier(e)) {
        const init = consts.get(e.text);
        return init ? fold(init, depth + 1) : undefined;
      }
      if (ts.isBinaryExpression(e) && e.operatorToken.kind === ts.SyntaxKind.PlusToken) {
        const a = fold(e.left, depth + 1);
        const b = fold(e.right, depth + 1);
        return a !== undefined && b !== undefined ? a + b : undefined;
      }
      if (ts.isTemplateExpression(e)) {
        let s = e.head.text;
        for (const span of e.templateSpans) {
          const v = fold(span.expression, depth + 1);
          if (v === undefined) return undefined;
          s += v + span.literal.text;
        }
        return s;
      }
      return undefined;
    };
    const where = (n: ts.Node): string => `${file}:${sf.getLineAndCharacterOfPosition(n.getStart(sf)).line + 1}`;
    const visit = (n: ts.Node): void => {
      if (n.kind === ts.SyntaxKind.RegularExpressionLiteral) {
        const text = n.getText(sf);
        const slash = text.lastIndexOf('/');
        patterns.push({ where: where(n), source: text.slice(1, slash), flags: text.slice(slash + 1) });
      } else if (ts.isNewExpression(n) && ts.isIdentifier(n.expression) && n.expression.text === 'RegExp') {
        const args = n.arguments ?? [];
        const source = args[0] ? fold(args[0]) : undefined;
        const flags = args[1] ? fold(args[1]) : '';
        if (source !== undefined && flags !== undefined) patterns.push({ where: where(n), source, flags });
        else unfolded.push({ where: where(n), text: n.getText(sf) });
      }
      ts.forEachChild(n, visit);
    };
    visit(sf);
  }
  return { patterns, unfolded };
}

/** Characters a pattern names: its literal characters, and one of each class it uses. */
function namedChars(source: string): string[] {
  const out = new Set<string>(['a', 'A', '1', ' ', '\t', '"', "'", '\\', ':', '=', '/', '.', '-', '_', '{', '[', '(', ',', '%', 'é', '日']);
  for (let i = 0; i < source.length; i++) {
    const c = source[i]!;
    if (c === '\\' && i + 1 < source.length) {
      const e = source[++i]!;
      if (e === 'd') out.add('7');
      else if (e === 'w') out.add('w');
      else if (e === 's') out.add(' ');
      else if (e === 'n') out.add('\n');
      else if (e === 't') out.add('\t');
      else if (e === 'r') out.add('\r');
      else if (e === 'u' || e === 'x') {
        const m = /^u\{([0-9a-fA-F]+)\}|^u([0-9a-fA-F]{4})|^x([0-9a-fA-F]{2})/.exec(source.slice(i, i + 12));
        if (m) out.add(String.fromCodePoint(parseInt(m[1] ?? m[2] ?? m[3]!, 16)));
      } else if (!/[bBDWS0-9kpP]/.test(e)) out.add(e);
    } else if (c.charCodeAt(0) >= 0x20) out.add(c);
  }
  return [...out];
}

/** Pairs of characters adjacent in the pattern's source (escapes taken as their character). */
function adjacentPairs(source: string): string[] {
  const chars: string[] = [];
  for (let i = 0; i < source.length; i++) {
    const c = source[i]!;
    if (c === '\\' && i + 1 < source.length) {
      const e = source[++i]!;
      chars.push(e === 'd' ? '7' : e === 'w' ? 'w' : e === 's' ? ' ' : /[a-zA-Z]/.test(e) ? '' : e);
    } else chars.push(/[()[\]?*+|^$]/.test(c) ? '' : c);
  }
  const out = new Set<string>();
  for (let i = 0; i + 1 < chars.length; i++) if (chars[i] && chars[i + 1]) out.add(chars[i]! + chars[i + 1]!);
  return [...out].slice(0, 40);
}

/** The literal characters a pattern starts with (after `^`), for anchored patterns. */
function literalPrefix(source: string): string {
  let s = '';
  let i = source.startsWith('^') ? 1 : 0;
  for (; i < source.length; i++) {
    const c = source[i]!;
    if (c === '\\') {
      const e = source[i + 1];
      if (e === undefined || /[a-zA-Z0-9]/.test(e)) break;
      s += e;
      i++;
    } else if (/[()[\]{}?*+|.^$]/.test(c)) break;
    else s += c;
  }
  // A quantifier after the last character applies to it alone: drop it.
  return /[?*+{]/.test(source[i] ?? '') ? s.slice(0, -1) : s;
}

/** The adversarial strings of `length` characters (about) for a pattern; see the module comment. */
export function adversarial(p: FoundPattern, length: number): string[] {
  const end = '\u0001';
  const prefix = literalPrefix(p.source);
  const out: string[] = [];
  const add = (body: string): void => {
    out.push(body + end);
    if (prefix) out.push(prefix + body + end);
  };
  for (const c of namedChars(p.source)) add(c.repeat(length));
  for (const pair of adjacentPairs(p.source)) add(pair.repeat(length >> 1));
  for (const open of ['"', "'", '{', '[', '(', '`', 'key="', '{"a":"']) add(open + 'a'.repeat(length));
  add('a '.repeat(length >> 1));
  add('\\"'.repeat(length >> 1));
  return out;
}
