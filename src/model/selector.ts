/**
 * Kubernetes label-selector semantics (metav1.LabelSelector and the `-l` string form).
 *
 * Why this is hand-written: there is no maintained npm package for Kubernetes label-selector
 * matching (see docs/libraries.md §B.7 — searches for label/selector combined with k8s/kube
 * found nothing usable; dashboards keep private copies). @kubernetes/client-node ships the
 * types but no matcher. This module mirrors the behaviour of apimachinery:
 *
 * - `metav1.LabelSelectorAsSelector` (staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/helpers.go):
 *   nil → `labels.Nothing()` (matches nothing), `{}` → `labels.Everything()`, matchLabels are
 *   `Equals` requirements, all requirements ANDed, unknown operators are an error;
 * - `labels.NewRequirement` / `Requirement.Matches` (staging/src/k8s.io/apimachinery/pkg/labels/selector.go):
 *   In/NotIn need values, Exists/DoesNotExist must have none, NotIn and DoesNotExist match an
 *   absent key, keys must be qualified names and values valid label values;
 * - `labels.Parse` (same file) for the `kubectl -l` syntax.
 *
 * Error strings follow the apimachinery wording (field.Invalid rendering,
 * `"%q is not a valid label selector operator"`), so kexp can quote what the controller would
 * have logged in `error converting pod selector to selector for rs …`.
 */

import type { LabelSelector, LabelSelectorRequirement } from './objects.js';

type Labels = Record<string, string> | null | undefined;

const OPERATORS = ['In', 'NotIn', 'Exists', 'DoesNotExist'] as const;
type Operator = (typeof OPERATORS)[number];

// ---------------------------------------------------------------------------------------------
// Validation (k8s.io/apimachinery/pkg/util/validation: IsQualifiedName, IsValidLabelValue)
// ---------------------------------------------------------------------------------------------

const QUALIFIED_NAME_FMT = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const QUALIFIED_NAME_RE = new RegExp(`^${QUALIFIED_NAME_FMT}$`);
const QUALIFIED_NAME_ERR =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const QUALIFIED_NAME_MAX = 63;

const DNS1123_LABEL_FMT = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const DNS1123_SUBDOMAIN_FMT = `${DNS1123_LABEL_FMT}(\\.${DNS1123_LABEL_FMT})*`;
const DNS1123_SUBDOMAIN_RE = new RegExp(`^${DNS1123_SUBDOMAIN_FMT}$`);
const DNS1123_SUBDOMAIN_ERR =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
const DNS1123_SUBDOMAIN_MAX = 253;

const LABEL_VALUE_FMT = `(${QUALIFIED_NAME_FMT})?`;
const LABEL_VALUE_RE = new RegExp(`^${LABEL_VALUE_FMT}$`);
const LABEL_VALUE_ERR =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const LABEL_VALUE_MAX = 63;

/** validation.RegexError: note the upstream double space before "or". */
function regexError(msg: string, fmt: string, ...examples: string[]): string {
  if (examples.length === 0) return `${msg} (regex used for validation is '${fmt}')`;
  let out = `${msg} (e.g. `;
  examples.forEach((ex, i) => {
    if (i > 0) out += ' or ';
    out += `'${ex}', `;
  });
  return `${out}regex used for validation is '${fmt}')`;
}

const maxLenError = (n: number): string => `must be no more than ${n} characters`;

function isDNS1123Subdomain(value: string): string[] {
  const errs: string[] = [];
  if (value.length > DNS1123_SUBDOMAIN_MAX) errs.push(maxLenError(DNS1123_SUBDOMAIN_MAX));
  if (!DNS1123_SUBDOMAIN_RE.test(value)) {
    errs.push(regexError(DNS1123_SUBDOMAIN_ERR, DNS1123_SUBDOMAIN_FMT, 'example.com'));
  }
  return errs;
}

/** validation.IsQualifiedName — label keys: `[prefix/]name`. */
export function qualifiedNameErrors(value: string): string[] {
  const errs: string[] = [];
  const parts = value.split('/');
  let name: string;
  if (parts.length === 1) {
    name = parts[0]!;
  } else if (parts.length === 2) {
    const prefix = parts[0]!;
    name = parts[1]!;
    if (prefix.length === 0) errs.push('prefix part must be non-empty');
    else errs.push(...isDNS1123Subdomain(prefix).map((m) => `prefix part ${m}`));
  } else {
    return [
      `a qualified name ${regexError(QUALIFIED_NAME_ERR, QUALIFIED_NAME_FMT, 'MyName', 'my.name', '123-abc')}` +
        " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    ];
  }
  if (name.length === 0) errs.push('name part must be non-empty');
  else if (name.length > QUALIFIED_NAME_MAX) errs.push(`name part ${maxLenError(QUALIFIED_NAME_MAX)}`);
  if (!QUALIFIED_NAME_RE.test(name)) {
    errs.push(`name part ${regexError(QUALIFIED_NAME_ERR, QUALIFIED_NAME_FMT, 'MyName', 'my.name', '123-abc')}`);
  }
  return errs;
}

/** validation.IsValidLabelValue. */
export function labelValueErrors(value: string): string[] {
  const errs: string[] = [];
  if (value.length > LABEL_VALUE_MAX) errs.push(maxLenError(LABEL_VALUE_MAX));
  if (!LABEL_VALUE_RE.test(value)) errs.push(regexError(LABEL_VALUE_ERR, LABEL_VALUE_FMT, 'MyValue', 'my_value', '12345'));
  return errs;
}

/** Go `%q` for a string (close enough: JSON escaping agrees for printable ASCII). */
const goQuote = (s: string): string => JSON.stringify(s);

/** Go `%#v` for a []string as field.Invalid renders it; LabelSelectorAsSelector copies values, so empty is nil. */
function goStringSlice(vals: readonly string[]): string {
  return vals.length === 0 ? '[]string(nil)' : `[]string{${vals.map(goQuote).join(', ')}}`;
}

/** utilerrors.NewAggregate(...).Error(): one message as is, several de-duplicated in brackets. */
export function aggregateErrorMessage(errs: readonly string[]): string {
  if (errs.length === 0) return '';
  if (errs.length === 1) return errs[0]!;
  const seen: string[] = [];
  for (const e of errs) if (!seen.includes(e)) seen.push(e);
  return seen.length === 1 ? seen[0]! : `[${seen.join(', ')}]`;
}

/**
 * labels.NewRequirement's checks for one requirement, rendered as the aggregated field errors
 * upstream returns (`key: Invalid value: …`, `values: Invalid value: …`, `values[0]: …`).
 * `op` is the selection operator: '=' for matchLabels entries.
 */
function requirementError(key: string, op: Operator | '=', values: readonly string[]): string | undefined {
  const errs: string[] = [];
  const keyErrs = qualifiedNameErrors(key);
  if (keyErrs.length) errs.push(`key: Invalid value: ${goQuote(key)}: ${keyErrs.join('; ')}`);
  switch (op) {
    case 'In':
    case 'NotIn':
      if (values.length === 0) {
        errs.push(`values: Invalid value: ${goStringSlice(values)}: for 'in', 'notin' operators, values set can't be empty`);
      }
      break;
    case '=':
      if (values.length !== 1) {
        errs.push(`values: Invalid value: ${goStringSlice(values)}: exact-match compatibility requires one single value`);
      }
      break;
    case 'Exists':
    case 'DoesNotExist':
      if (values.length !== 0) {
        errs.push(`values: Invalid value: ${goStringSlice(values)}: values set must be empty for exists and does not exist`);
      }
      break;
  }
  values.forEach((v, i) => {
    const vErrs = labelValueErrors(v);
    if (vErrs.length) errs.push(`values[${i}]: Invalid value: ${goQuote(v)}: ${vErrs.join('; ')}`);
  });
  return errs.length ? aggregateErrorMessage(errs) : undefined;
}

/**
 * The error `metav1.LabelSelectorAsSelector` would return for this selector, or undefined when
 * it converts cleanly. nil/undefined and `{}` are valid (Nothing and Everything). The first
 * failing requirement wins, matchLabels before matchExpressions, as upstream.
 */
export function validateLabelSelector(sel: LabelSelector | null | undefined): string | undefined {
  if (sel == null) return undefined;
  for (const [k, v] of Object.entries(sel.matchLabels ?? {})) {
    const err = requirementError(k, '=', [v]);
    if (err) return err;
  }
  for (const expr of sel.matchExpressions ?? []) {
    if (!(OPERATORS as readonly string[]).includes(expr.operator)) {
      return `${goQuote(expr.operator)} is not a valid label selector operator`;
    }
    const err = requirementError(expr.key, expr.operator as Operator, expr.values ?? []);
    if (err) return err;
  }
  return undefined;
}

const selectorErrors = new WeakMap<object, string | undefined>();
/** validateLabelSelector, remembered per selector object (every sync of a ReplicaSet checks the same one). */
export function cachedSelectorError(sel: LabelSelector | null | undefined): string | undefined {
  if (!sel) return validateLabelSelector(sel);
  if (selectorErrors.has(sel)) return selectorErrors.get(sel);
  const e = validateLabelSelector(sel);
  selectorErrors.set(sel, e);
  return e;
}

// ---------------------------------------------------------------------------------------------
// Matching
// ---------------------------------------------------------------------------------------------

function has(labels: Record<string, string>, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(labels, key);
}

function requirementMatches(expr: LabelSelectorRequirement, labels: Record<string, string>): boolean {
  const values = expr.values ?? [];
  switch (expr.operator) {
    case 'In':
      return has(labels, expr.key) && values.includes(labels[expr.key]!);
    case 'NotIn':
      return !has(labels, expr.key) || !values.includes(labels[expr.key]!);
    case 'Exists':
      return has(labels, expr.key);
    case 'DoesNotExist':
      return !has(labels, expr.key);
    default:
      return false;
  }
}

/**
 * `LabelSelectorAsSelector(selector).Matches(labels.Set(labels))`.
 *
 * - nil/undefined selector → false (labels.Nothing());
 * - `{}` (no matchLabels and no matchExpressions, or both empty) → true (labels.Everything());
 * - every requirement must hold; NotIn and DoesNotExist hold when the key is absent;
 * - a selector that fails conversion (see {@link validateLabelSelector}) matches nothing — the
 *   callers upstream skip such selectors (the lister's GetPodReplicaSets `continue`s, and the RS
 *   sync stops before claiming).
 */
export function labelSelectorMatches(selector: LabelSelector | null | undefined, labels: Labels): boolean {
  if (selector == null) return false;
  if (validateLabelSelector(selector) !== undefined) return false;
  const set = labels ?? {};
  for (const [k, v] of Object.entries(selector.matchLabels ?? {})) {
    if (!has(set, k) || set[k] !== v) return false;
  }
  for (const expr of selector.matchExpressions ?? []) {
    if (!requirementMatches(expr, set)) return false;
  }
  return true;
}

/** True for a selector that converts to labels.Everything() (`{}`); false for nil (Nothing). */
export function labelSelectorIsEverything(selector: LabelSelector | null | undefined): boolean {
  if (selector == null) return false;
  return Object.keys(selector.matchLabels ?? {}).length === 0 && (selector.matchExpressions ?? []).length === 0;
}

/**
 * metav1.FormatLabelSelector: the `-l` form with requirements sorted by key, `<none>` for a
 * selector with no requirements (and for nil), `<error>` when it does not convert.
 */
export function formatLabelSelector(selector: LabelSelector | null | undefined): string {
  if (selector == null) return '<none>';
  if (validateLabelSelector(selector) !== undefined) return '<error>';
  const reqs: Array<{ key: string; text: string }> = [];
  for (const [k, v] of Object.entries(selector.matchLabels ?? {})) reqs.push({ key: k, text: `${k}=${v}` });
  for (const e of selector.matchExpressions ?? []) {
    const vals = [...(e.values ?? [])].sort().join(',');
    const text =
      e.operator === 'In'
        ? `${e.key} in (${vals})`
        : e.operator === 'NotIn'
          ? `${e.key} notin (${vals})`
          : e.operator === 'Exists'
            ? e.key
            : `!${e.key}`;
    reqs.push({ key: e.key, text });
  }
  if (reqs.length === 0) return '<none>';
  reqs.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return reqs.map((r) => r.text).join(',');
}

// ---------------------------------------------------------------------------------------------
// `-l` string parsing (labels.Parse grammar)
// ---------------------------------------------------------------------------------------------
//
//   <selector-syntax>         ::= <requirement> | <requirement> "," <selector-syntax>
//   <requirement>             ::= [!] KEY [ <set-based-restriction> | <exact-match-restriction> ]
//   <set-based-restriction>   ::= "" | ("in" | "notin") "(" <values> ")"
//   <values>                  ::= VALUE | VALUE "," <values>
//   <exact-match-restriction> ::= ("=" | "==" | "!=") VALUE
//
// Gt/Lt (`a>1`) parse upstream but have no LabelSelector representation, so they are rejected.

type TokKind = 'ident' | '!' | '=' | '==' | '!=' | '(' | ')' | ',' | '<' | '>' | 'end';
interface Token {
  kind: TokKind;
  text: string;
  pos: number;
}

const SPECIAL = new Set(['!', '=', '(', ')', ',', '<', '>']);
const isSpace = (c: string): boolean => c === ' ' || c === '\t' || c === '\r' || c === '\n';

function tokenize(s: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < s.length) {
    const c = s[i]!;
    if (isSpace(c)) {
      i++;
      continue;
    }
    if (SPECIAL.has(c)) {
      const two = s.slice(i, i + 2);
      if (two === '!=' || two === '==') {
        out.push({ kind: two, text: two, pos: i });
        i += 2;
      } else {
        out.push({ kind: c as TokKind, text: c, pos: i });
        i++;
      }
      continue;
    }
    const start = i;
    while (i < s.length && !isSpace(s[i]!) && !SPECIAL.has(s[i]!)) i++;
    out.push({ kind: 'ident', text: s.slice(start, i), pos: start });
  }
  out.push({ kind: 'end', text: '', pos: s.length });
  return out;
}

/**
 * Parses the `kubectl get -l` selector syntax into a LabelSelector.
 *
 * `a=b` / `a==b` become matchLabels (or an `In [b]` expression if `a` already has a different
 * matchLabels value, so `a=b,a=c` stays an unsatisfiable AND as upstream); `a!=b` → `NotIn [b]`;
 * `a in (x,y)` / `a notin (x)` → In/NotIn; `a` → Exists; `!a` → DoesNotExist. `a=` means the
 * empty value, as in labels.Parse. The empty string parses to `{}` (everything).
 * Throws an Error naming the position and what was expected on bad syntax, or the
 * apimachinery validation message for an invalid key/value/empty set.
 */
export function parseSelectorString(s: string): LabelSelector {
  const toks = tokenize(s);
  let p = 0;
  const peek = (): Token => toks[p]!;
  const next = (): Token => toks[p++]!;
  const fail = (msg: string, tok: Token): never => {
    throw new Error(`invalid label selector ${goQuote(s)}: ${msg} at position ${tok.pos + 1}`);
  };
  const describe = (t: Token): string => (t.kind === 'end' ? 'end of input' : `'${t.text}'`);

  const matchLabels: Record<string, string> = {};
  const matchExpressions: LabelSelectorRequirement[] = [];
  const invalid = (err: string | undefined): void => {
    if (err) throw new Error(`invalid label selector ${goQuote(s)}: ${err}`);
  };

  if (peek().kind === 'end') return {};

  for (;;) {
    const first = next();
    if (first.kind === '!') {
      const keyTok = next();
      if (keyTok.kind !== 'ident') fail(`found ${describe(keyTok)}, expected: label key after '!'`, keyTok);
      invalid(requirementError(keyTok.text, 'DoesNotExist', []));
      matchExpressions.push({ key: keyTok.text, operator: 'DoesNotExist' });
    } else if (first.kind === 'ident') {
      const key = first.text;
      if (key === 'in' || key === 'notin') fail(`found '${key}', expected: label key`, first);
      const op = peek();
      if (op.kind === ',' || op.kind === 'end') {
        invalid(requirementError(key, 'Exists', []));
        matchExpressions.push({ key, operator: 'Exists' });
      } else if (op.kind === '=' || op.kind === '==' || op.kind === '!=') {
        next();
        const v = peek();
        let value = '';
        if (v.kind === 'ident') {
          value = v.text;
          next();
        } else if (v.kind !== ',' && v.kind !== 'end') {
          fail(`found ${describe(v)}, expected: label value`, v);
        }
        invalid(requirementError(key, '=', [value]));
        if (op.kind === '!=') {
          matchExpressions.push({ key, operator: 'NotIn', values: [value] });
        } else if (!has(matchLabels, key) || matchLabels[key] === value) {
          matchLabels[key] = value;
        } else {
          matchExpressions.push({ key, operator: 'In', values: [value] });
        }
      } else if (op.kind === 'ident' && (op.text === 'in' || op.text === 'notin')) {
        next();
        const open = next();
        if (open.kind !== '(') fail(`found ${describe(open)}, expected: '(' after '${op.text}'`, open);
        const values = parseValueList(toks, p, s);
        p = values.next;
        const operator: Operator = op.text === 'in' ? 'In' : 'NotIn';
        invalid(requirementError(key, operator, values.values));
        matchExpressions.push({ key, operator, values: values.values });
      } else if (op.kind === '<' || op.kind === '>') {
        fail(`'${op.text}' (Gt/Lt) is not supported by a LabelSelector; use =, ==, !=, in, notin, key or !key`, op);
      } else {
        fail(`found ${describe(op)}, expected: '=', '==', '!=', 'in', 'notin', ',' or end of input`, op);
      }
    } else {
      fail(`found ${describe(first)}, expected: label key or '!'`, first);
    }

    const sep = next();
    if (sep.kind === 'end') break;
    if (sep.kind !== ',') fail(`found ${describe(sep)}, expected: ',' or end of input`, sep);
    if (peek().kind === 'end') fail(`expected a requirement after ','`, peek());
  }

  const out: LabelSelector = {};
  if (Object.keys(matchLabels).length) out.matchLabels = matchLabels;
  if (matchExpressions.length) out.matchExpressions = matchExpressions;
  return out;
}

/**
 * The `( … )` list after in/notin, starting just after '('. Like labels.Parser.parseIdentifiersList:
 * empty entries (`(,x)`, `(x,,y)`, `(x,)`) stand for the empty value; `in`/`notin` are plain values
 * here; duplicates collapse (upstream used a string set).
 */
function parseValueList(toks: Token[], start: number, s: string): { values: string[]; next: number } {
  const values: string[] = [];
  const add = (v: string): void => {
    if (!values.includes(v)) values.push(v);
  };
  let p = start;
  const fail = (msg: string, tok: Token): never => {
    throw new Error(`invalid label selector ${goQuote(s)}: ${msg} at position ${tok.pos + 1}`);
  };
  if (toks[p]!.kind === ')') return { values, next: p + 1 };
  let expectValue = true;
  for (;;) {
    const t = toks[p++]!;
    if (t.kind === 'ident' && expectValue) {
      add(t.text);
      expectValue = false;
    } else if (t.kind === ',') {
      if (expectValue) add('');
      expectValue = true;
    } else if (t.kind === ')') {
      if (expectValue) add('');
      return { values, next: p };
    } else {
      const what = t.kind === 'end' ? 'end of input' : `'${t.text}'`;
      fail(`found ${what}, expected: ${expectValue ? "a value, ',' or ')'" : "',' or ')'"}`, t);
    }
  }
}

const compiled = new WeakMap<object, (labels: Labels) => boolean>();
const NOTHING = () => false;

/**
 * A matcher equivalent to `labelSelectorMatches(selector, ·)`, validated once and cached per
 * selector object. The controller model matches every candidate pod on every sync; validating
 * the selector each time dominated replay profiles.
 */
export function compileLabelSelector(selector: LabelSelector | null | undefined): (labels: Labels) => boolean {
  if (selector == null) return NOTHING;
  const hit = compiled.get(selector);
  if (hit) return hit;
  let fn: (labels: Labels) => boolean;
  if (validateLabelSelector(selector) !== undefined) fn = NOTHING;
  else {
    const eq = Object.entries(selector.matchLabels ?? {});
    const exprs = selector.matchExpressions ?? [];
    fn = (labels) => {
      const set = labels ?? {};
      for (let i = 0; i < eq.length; i++) {
        const [k, v] = eq[i]!;
        if (set[k] !== v || !has(set, k)) return false;
      }
      for (let i = 0; i < exprs.length; i++) if (!requirementMatches(exprs[i]!, set)) return false;
      return true;
    };
  }
  compiled.set(selector, fn);
  return fn;
}
