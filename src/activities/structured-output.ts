import Ajv from 'ajv';
import type { JsonSchema } from '../shared/messages';

const ajv = new Ajv({ allErrors: true, strict: false });
const compiled = new Map<string, ReturnType<typeof ajv.compile>>();

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
    validate = ajv.compile(schema);
    compiled.set(key, validate);
  }
  if (validate(value)) return { ok: true, value };
  return { ok: false, error: ajv.errorsText(validate.errors, { dataVar: 'output' }) };
}
