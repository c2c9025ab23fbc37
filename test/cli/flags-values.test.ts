/** A wrong option value or an unknown flag: one line with the closest valid choice, exit 2, nothing on stdout. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { kexp } from '../support/cli.js';

const REC = 'examples/quota-rejected.kexp.jsonl';

const cases: Array<[string[], string]> = [
  [['replay', REC, '-o', 'jsno'], 'kexp: --output "jsno" is not one of table, wide, json, yaml, name; did you mean "json"?\n'],
  [['audit', 'examples/captures/quota-rejected/audit.jsonl', '--output=wdie'], 'kexp: --output "wdie" is not one of table, wide, json, yaml, name; did you mean "wide"?\n'],
  [['explain', 'web', '-o', 'yml'], 'kexp: --output "yml" is not one of table, wide, json, yaml, name; did you mean "yaml"?\n'],
  [['adopt', 'web', '-o', 'tabel'], 'kexp: --output "tabel" is not one of table, wide, json, yaml, name; did you mean "table"?\n'],
  [['replay', REC, '--format', 'lst'], 'kexp: --format "lst" is not one of kexp-recording, watch-events, kubectl-watch-json, yaml, list; did you mean "list"?\n'],
  [['replay', REC, '--format', 'zzzzzzzzzz'], 'kexp: --format "zzzzzzzzzz" is not one of kexp-recording, watch-events, kubectl-watch-json, yaml, list\n'],
  [['replay', REC, '--outptu', 'json'], 'kexp: unknown flag --outptu; did you mean --output? (see kexp replay --help)\n'],
  [['replay', REC, '--no-colour'], 'kexp: unknown flag --no-colour; did you mean --no-color? (see kexp replay --help)\n'],
  [['audit', REC, '--sinse', '1h'], 'kexp: unknown flag --sinse; did you mean --since? (see kexp audit --help)\n'],
  [['explain', 'web', '--as-grop', 'x'], 'kexp: unknown flag --as-grop; did you mean --as-group? (see kexp explain --help)\n'],
];

for (const [args, line] of cases) {
  test(`kexp ${args.join(' ')}`, () => {
    const r = kexp(args);
    assert.equal(r.code, 2);
    assert.equal(r.stdout, '');
    assert.equal(r.stderr, line);
  });
}
