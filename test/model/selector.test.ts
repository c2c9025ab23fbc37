import { test } from 'node:test';
import assert from 'node:assert/strict';

import type { LabelSelector } from '../../src/model/objects.js';
import {
  aggregateErrorMessage,
  formatLabelSelector,
  labelSelectorIsEverything,
  labelSelectorMatches,
  parseSelectorString,
  validateLabelSelector,
} from '../../src/model/selector.js';

const WEB = { app: 'web', 'pod-template-hash': '7d9c6b8f5d' };

test('nil selector matches nothing, {} matches everything', () => {
  assert.equal(labelSelectorMatches(null, WEB), false);
  assert.equal(labelSelectorMatches(undefined, WEB), false);
  assert.equal(labelSelectorMatches(null, {}), false);
  assert.equal(labelSelectorMatches({}, WEB), true);
  assert.equal(labelSelectorMatches({}, {}), true);
  assert.equal(labelSelectorMatches({}, null), true);
  assert.equal(labelSelectorMatches({ matchLabels: {}, matchExpressions: [] }, WEB), true);
  assert.equal(labelSelectorMatches({ matchLabels: null, matchExpressions: null }, undefined), true);
  assert.equal(labelSelectorIsEverything({}), true);
  assert.equal(labelSelectorIsEverything(null), false);
  assert.equal(labelSelectorIsEverything({ matchLabels: { app: 'web' } }), false);
});

const rsSelector: LabelSelector = { matchLabels: { app: 'web', 'pod-template-hash': '7d9c6b8f5d' } };

const matchTable: Array<{ name: string; sel: LabelSelector; labels: Record<string, string> | null; want: boolean }> = [
  { name: 'matchLabels all equal', sel: rsSelector, labels: { ...WEB, tier: 'frontend' }, want: true },
  { name: 'matchLabels one differs', sel: rsSelector, labels: { app: 'web', 'pod-template-hash': '5f6d8c9b7d' }, want: false },
  { name: 'matchLabels key absent', sel: rsSelector, labels: { app: 'web' }, want: false },
  { name: 'matchLabels vs nil labels', sel: rsSelector, labels: null, want: false },
  { name: 'matchLabels empty value present', sel: { matchLabels: { canary: '' } }, labels: { canary: '' }, want: true },
  { name: 'matchLabels empty value absent', sel: { matchLabels: { canary: '' } }, labels: {}, want: false },
  { name: 'In hit', sel: { matchExpressions: [{ key: 'env', operator: 'In', values: ['prod', 'staging'] }] }, labels: { env: 'staging' }, want: true },
  { name: 'In miss', sel: { matchExpressions: [{ key: 'env', operator: 'In', values: ['prod'] }] }, labels: { env: 'dev' }, want: false },
  { name: 'In key absent', sel: { matchExpressions: [{ key: 'env', operator: 'In', values: ['prod'] }] }, labels: {}, want: false },
  { name: 'NotIn hit', sel: { matchExpressions: [{ key: 'env', operator: 'NotIn', values: ['prod'] }] }, labels: { env: 'prod' }, want: false },
  { name: 'NotIn other value', sel: { matchExpressions: [{ key: 'env', operator: 'NotIn', values: ['prod'] }] }, labels: { env: 'dev' }, want: true },
  { name: 'NotIn key absent', sel: { matchExpressions: [{ key: 'env', operator: 'NotIn', values: ['prod'] }] }, labels: {}, want: true },
  { name: 'NotIn nil labels', sel: { matchExpressions: [{ key: 'env', operator: 'NotIn', values: ['prod'] }] }, labels: null, want: true },
  { name: 'Exists present', sel: { matchExpressions: [{ key: 'app', operator: 'Exists' }] }, labels: { app: '' }, want: true },
  { name: 'Exists absent', sel: { matchExpressions: [{ key: 'app', operator: 'Exists' }] }, labels: { application: 'web' }, want: false },
  { name: 'DoesNotExist absent', sel: { matchExpressions: [{ key: 'canary', operator: 'DoesNotExist' }] }, labels: WEB, want: true },
  { name: 'DoesNotExist present', sel: { matchExpressions: [{ key: 'canary', operator: 'DoesNotExist', values: [] }] }, labels: { canary: 'x' }, want: false },
  {
    name: 'matchLabels AND matchExpressions both hold',
    sel: { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'env', operator: 'NotIn', values: ['dev'] }, { key: 'pod-template-hash', operator: 'Exists' }] },
    labels: WEB,
    want: true,
  },
  {
    name: 'matchLabels AND matchExpressions one fails',
    sel: { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'canary', operator: 'Exists' }] },
    labels: WEB,
    want: false,
  },
  { name: 'prototype keys are not labels', sel: { matchExpressions: [{ key: 'constructor', operator: 'Exists' }] }, labels: {}, want: false },
  { name: 'invalid selector (In, no values) matches nothing', sel: { matchExpressions: [{ key: 'env', operator: 'In', values: [] }] }, labels: { env: 'x' }, want: false },
  { name: 'unknown operator matches nothing', sel: { matchExpressions: [{ key: 'env', operator: 'Gt', values: ['1'] }] }, labels: { env: '2' }, want: false },
];

for (const c of matchTable) {
  test(`labelSelectorMatches: ${c.name}`, () => {
    assert.equal(labelSelectorMatches(c.sel, c.labels), c.want);
  });
}

test('validateLabelSelector accepts valid selectors', () => {
  assert.equal(validateLabelSelector(null), undefined);
  assert.equal(validateLabelSelector({}), undefined);
  assert.equal(validateLabelSelector(rsSelector), undefined);
  assert.equal(
    validateLabelSelector({
      matchLabels: { 'app.kubernetes.io/name': 'web', empty: '' },
      matchExpressions: [
        { key: 'env', operator: 'In', values: ['prod'] },
        { key: 'env', operator: 'NotIn', values: ['dev', 'test'] },
        { key: 'x', operator: 'Exists' },
        { key: 'y', operator: 'DoesNotExist', values: null },
      ],
    }),
    undefined,
  );
});

const validationTable: Array<{ name: string; sel: LabelSelector; want: string }> = [
  {
    name: 'In with empty values',
    sel: { matchExpressions: [{ key: 'env', operator: 'In', values: [] }] },
    want: "values: Invalid value: []string(nil): for 'in', 'notin' operators, values set can't be empty",
  },
  {
    name: 'NotIn with missing values',
    sel: { matchExpressions: [{ key: 'env', operator: 'NotIn' }] },
    want: "values: Invalid value: []string(nil): for 'in', 'notin' operators, values set can't be empty",
  },
  {
    name: 'Exists with values',
    sel: { matchExpressions: [{ key: 'env', operator: 'Exists', values: ['prod'] }] },
    want: 'values: Invalid value: []string{"prod"}: values set must be empty for exists and does not exist',
  },
  {
    name: 'DoesNotExist with values',
    sel: { matchExpressions: [{ key: 'env', operator: 'DoesNotExist', values: ['a', 'b'] }] },
    want: 'values: Invalid value: []string{"a", "b"}: values set must be empty for exists and does not exist',
  },
  {
    name: 'unknown operator',
    sel: { matchExpressions: [{ key: 'env', operator: 'Equals', values: ['prod'] }] },
    want: '"Equals" is not a valid label selector operator',
  },
  {
    name: 'operator is case-sensitive',
    sel: { matchExpressions: [{ key: 'env', operator: 'in', values: ['prod'] }] },
    want: '"in" is not a valid label selector operator',
  },
  {
    name: 'bad key',
    sel: { matchLabels: { 'bad key': 'x' } },
    want:
      'key: Invalid value: "bad key": name part must consist of alphanumeric characters, \'-\', \'_\' or \'.\', and must start and end with an alphanumeric character ' +
      "(e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
  },
  {
    name: 'bad value',
    sel: { matchLabels: { app: '-web' } },
    want:
      'values[0]: Invalid value: "-web": a valid label must be an empty string or consist of alphanumeric characters, \'-\', \'_\' or \'.\', and must start and end with an alphanumeric character ' +
      "(e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
  },
  {
    name: 'empty key and empty In values aggregate',
    sel: { matchExpressions: [{ key: '', operator: 'In', values: [] }] },
    want:
      '[key: Invalid value: "": name part must be non-empty; name part must consist of alphanumeric characters, \'-\', \'_\' or \'.\', and must start and end with an alphanumeric character ' +
      "(e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]'), " +
      "values: Invalid value: []string(nil): for 'in', 'notin' operators, values set can't be empty]",
  },
  {
    name: 'empty prefix',
    sel: { matchExpressions: [{ key: '/name', operator: 'Exists' }] },
    want: 'key: Invalid value: "/name": prefix part must be non-empty',
  },
];

for (const c of validationTable) {
  test(`validateLabelSelector: ${c.name}`, () => {
    assert.equal(validateLabelSelector(c.sel), c.want);
  });
}

test('formatLabelSelector mirrors metav1.FormatLabelSelector', () => {
  assert.equal(formatLabelSelector(null), '<none>');
  assert.equal(formatLabelSelector({}), '<none>');
  assert.equal(formatLabelSelector(rsSelector), 'app=web,pod-template-hash=7d9c6b8f5d');
  assert.equal(
    formatLabelSelector({
      matchLabels: { tier: 'fe' },
      matchExpressions: [
        { key: 'env', operator: 'NotIn', values: ['test', 'dev'] },
        { key: 'canary', operator: 'DoesNotExist' },
        { key: 'app', operator: 'In', values: ['web'] },
        { key: 'zone', operator: 'Exists' },
      ],
    }),
    'app in (web),!canary,env notin (dev,test),tier=fe,zone',
  );
  assert.equal(formatLabelSelector({ matchExpressions: [{ key: 'a', operator: 'In', values: [] }] }), '<error>');
});

const parseTable: Array<{ input: string; want: LabelSelector }> = [
  { input: '', want: {} },
  { input: '   ', want: {} },
  { input: 'app=web', want: { matchLabels: { app: 'web' } } },
  { input: 'app==web', want: { matchLabels: { app: 'web' } } },
  { input: 'app!=web', want: { matchExpressions: [{ key: 'app', operator: 'NotIn', values: ['web'] }] } },
  { input: 'env in (prod,staging)', want: { matchExpressions: [{ key: 'env', operator: 'In', values: ['prod', 'staging'] }] } },
  { input: 'env notin (dev)', want: { matchExpressions: [{ key: 'env', operator: 'NotIn', values: ['dev'] }] } },
  { input: 'env in(prod , staging,prod)', want: { matchExpressions: [{ key: 'env', operator: 'In', values: ['prod', 'staging'] }] } },
  { input: 'env in (a,)', want: { matchExpressions: [{ key: 'env', operator: 'In', values: ['a', ''] }] } },
  { input: 'canary', want: { matchExpressions: [{ key: 'canary', operator: 'Exists' }] } },
  { input: '!canary', want: { matchExpressions: [{ key: 'canary', operator: 'DoesNotExist' }] } },
  { input: 'app=', want: { matchLabels: { app: '' } } },
  { input: 'app=in', want: { matchLabels: { app: 'in' } } },
  {
    input: 'app=web, pod-template-hash=7d9c6b8f5d,!canary,env notin (dev),tier',
    want: {
      matchLabels: { app: 'web', 'pod-template-hash': '7d9c6b8f5d' },
      matchExpressions: [
        { key: 'canary', operator: 'DoesNotExist' },
        { key: 'env', operator: 'NotIn', values: ['dev'] },
        { key: 'tier', operator: 'Exists' },
      ],
    },
  },
  { input: 'app=web,app=web', want: { matchLabels: { app: 'web' } } },
  {
    input: 'app=web,app=api',
    want: { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'app', operator: 'In', values: ['api'] }] },
  },
  { input: 'app.kubernetes.io/name=web', want: { matchLabels: { 'app.kubernetes.io/name': 'web' } } },
];

for (const c of parseTable) {
  test(`parseSelectorString(${JSON.stringify(c.input)})`, () => {
    const got = parseSelectorString(c.input);
    assert.deepEqual(got, c.want);
    assert.equal(validateLabelSelector(got), undefined);
  });
}

test('parsed selectors match like kubectl -l', () => {
  assert.equal(labelSelectorMatches(parseSelectorString('app=web,!canary'), WEB), true);
  assert.equal(labelSelectorMatches(parseSelectorString('app=web,!canary'), { ...WEB, canary: 'true' }), false);
  assert.equal(labelSelectorMatches(parseSelectorString('app=web,app=api'), { app: 'web' }), false);
  assert.equal(labelSelectorMatches(parseSelectorString('env!=prod'), {}), true);
  assert.equal(labelSelectorMatches(parseSelectorString(''), {}), true);
});

const parseErrors: Array<{ input: string; want: string }> = [
  { input: 'app=web,', want: `invalid label selector "app=web,": expected a requirement after ',' at position 9` },
  { input: ',app', want: `invalid label selector ",app": found ',', expected: label key or '!' at position 1` },
  { input: 'app web', want: `invalid label selector "app web": found 'web', expected: '=', '==', '!=', 'in', 'notin', ',' or end of input at position 5` },
  { input: 'env in prod', want: `invalid label selector "env in prod": found 'prod', expected: '(' after 'in' at position 8` },
  { input: 'env in (a b)', want: `invalid label selector "env in (a b)": found 'b', expected: ',' or ')' at position 11` },
  { input: 'env in (a', want: `invalid label selector "env in (a": found end of input, expected: ',' or ')' at position 10` },
  { input: 'env in ()', want: `invalid label selector "env in ()": values: Invalid value: []string(nil): for 'in', 'notin' operators, values set can't be empty` },
  { input: '!app=web', want: `invalid label selector "!app=web": found '=', expected: ',' or end of input at position 5` },
  { input: '!', want: `invalid label selector "!": found end of input, expected: label key after '!' at position 2` },
  { input: 'app=(web)', want: `invalid label selector "app=(web)": found '(', expected: label value at position 5` },
  { input: 'replicas>1', want: `invalid label selector "replicas>1": '>' (Gt/Lt) is not supported by a LabelSelector; use =, ==, !=, in, notin, key or !key at position 9` },
  { input: 'in=x', want: `invalid label selector "in=x": found 'in', expected: label key at position 1` },
  {
    input: 'app=-web',
    want:
      'invalid label selector "app=-web": values[0]: Invalid value: "-web": a valid label must be an empty string or consist of alphanumeric characters, \'-\', \'_\' or \'.\', and must start and end with an alphanumeric character ' +
      "(e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
  },
  {
    input: 'a/b/c',
    want:
      'invalid label selector "a/b/c": key: Invalid value: "a/b/c": a qualified name must consist of alphanumeric characters, \'-\', \'_\' or \'.\', and must start and end with an alphanumeric character ' +
      "(e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
  },
];

for (const c of parseErrors) {
  test(`parseSelectorString error: ${JSON.stringify(c.input)}`, () => {
    assert.throws(() => parseSelectorString(c.input), (err: unknown) => {
      assert.ok(err instanceof Error);
      assert.equal(err.message, c.want);
      return true;
    });
  });
}

test('aggregateErrorMessage mirrors utilerrors.NewAggregate', () => {
  assert.equal(aggregateErrorMessage([]), '');
  assert.equal(aggregateErrorMessage(['a']), 'a');
  assert.equal(aggregateErrorMessage(['a', 'b']), '[a, b]');
  assert.equal(aggregateErrorMessage(['a', 'a']), 'a');
  assert.equal(aggregateErrorMessage(['a', 'b', 'a']), '[a, b]');
});
