import type { Ajv, ValidateFunction } from 'ajv';
import type { JsonSchema } from '../protocol/messages';

/** Ajv (and its code generator) loads on the first answer checked against a schema: most agents set none. */
let ajv: Ajv | undefined;
const compiled = new Map<string, ValidateFunction>();

function validator(): Ajv {
  return (ajv ??= new (require('ajv') as typeof import('ajv')).Ajv({ allErrors: true, strict: false }));
}

export type OutputCheck = { ok: true; value: unknown } | { ok: false; error: string };

/**
 * Parses a final answer as JSON (a fenced ```json block is accepted) and validates it against the
 * agent's `output_type` JSON Schema.
 */
export function checkStructuredOutput(text: string, schema: JsonSchema): OutputCheck {
  const fenced = /^\s*```(?:json)?\s*([\s\S]*?)\s*```\s*$/.exec(text);
  let value: unknown;
  try {
    value = JSON.parse(fenced?.[1] ?? text);
  } catch (error) {
    return { ok: false, error: `the answer is not JSON (${(error as Error).message})` };
  }
  const key = JSON.stringify(schema);
  let validate = compiled.get(key);
  if (!validate) {
    validate = validator().compile(schema);
    compiled.set(key, validate);
  }
  if (validate(value)) return { ok: true, value };
  return { ok: false, error: validator().errorsText(validate.errors, { dataVar: 'output' }) };
}
