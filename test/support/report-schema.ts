/** Validates a Report against schema/report.schema.json (draft 2020-12) with ajv. */
import fs from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const Ajv2020 = require('ajv/dist/2020.js');
const addFormats = require('ajv-formats');

const schema = JSON.parse(fs.readFileSync(new URL('../../schema/report.schema.json', import.meta.url), 'utf8'));
const ajv = new Ajv2020({ allErrors: true, strict: true });
addFormats(ajv);
const validate = ajv.compile(schema);

/** Returns the schema violations as `path: message` strings (empty when valid). */
export function validateReport(report: unknown): string[] {
  if (validate(report)) return [];
  return (validate.errors ?? []).map((e: { instancePath: string; message?: string }) => `${e.instancePath || '/'}: ${e.message}`);
}
