// Scorers of an evaluation from a dataset: each gives a run's answer or trajectory a score from 0 to 1.
import { Ajv } from 'ajv';
import { z } from 'zod';
import { AgentRuntimeError, ErrorCode } from '../../protocol/errors';
import { canonicalJson } from '../../protocol/recorded-calls';
import type { AgentConfig } from '../../config/agent-config';
import { compilePattern, type DatasetExample } from './dataset';
import { numbersMatch, jsonMatchScore } from './json-match';

/** What a scorer sees: the example, and what the evaluation run answered and called. */
export interface ScoreInput {
  example: DatasetExample;
  output: string;
  structuredOutput?: unknown;
  /** The run's tool calls in order (calls the workflow answered itself, such as handoffs, left out). */
  toolCalls: Array<{ tool: string; args: unknown }>;
  /** The config the run was evaluated under. */
  config: AgentConfig;
}

/** A scorer's verdict: a score from 0 to 1 and, when useful, why. Null: the scorer does not apply to the example. */
export type ScoreValue = { score: number; detail?: string } | null;

/** A scorer written in code (a custom scorer): a name, a threshold (default 1) and the function. */
export interface Scorer {
  name: string;
  threshold?: number;
  score: (input: ScoreInput) => ScoreValue | number | Promise<ScoreValue | number>;
}

const thresholdField = z.number().min(0).max(1).optional();
const base = { name: z.string().min(1).optional(), threshold: thresholdField };

/** Scorers as a file names them (`--scorers scorers.yaml`): built-in types, custom modules and LLM judges. */
export const scorerSpecSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('exact'), ...base, ignoreCase: z.boolean().default(false) }).strict(),
  z.object({ type: z.literal('contains'), ...base, values: z.array(z.string()).optional(), ignoreCase: z.boolean().default(false) }).strict(),
  z.object({ type: z.literal('regex'), ...base, pattern: z.string().optional() }).strict(),
  z.object({ type: z.literal('json'), ...base, tolerance: z.number().min(0).default(0), relativeTolerance: z.number().min(0).default(0) }).strict(),
  z.object({ type: z.literal('schema'), ...base }).strict(),
  z
    .object({
      type: z.literal('trajectory'),
      ...base,
      mode: z.enum(['strict', 'unordered', 'subset', 'superset']),
      ignoreArgs: z.boolean().default(false),
    })
    .strict(),
  z.object({ type: z.literal('custom'), ...base, module: z.string().min(1), export: z.string().default('default') }).strict(),
  z.object({ type: z.literal('judge'), ...base, model: z.string().min(1), criteria: z.string().min(1) }).strict(),
]);

/** One scorer as a file names it. */
export type ScorerSpec = z.input<typeof scorerSpecSchema>;
type ParsedSpec = z.infer<typeof scorerSpecSchema>;
type BuiltInSpec = Exclude<ParsedSpec, { type: 'custom' | 'judge' }>;

/** The scorers an evaluation uses when none are given: the same answer, the same tool calls in any order. */
export const DEFAULT_SCORERS: ScorerSpec[] = [{ type: 'exact' }, { type: 'trajectory', mode: 'unordered' }];

/**
 * Validates scorer specs (from a file or code).
 * @throws AgentRuntimeError `ScorerInvalid` naming the scorer's position and each invalid field.
 */
export function parseScorerSpecs(specs: unknown, where: string): ParsedSpec[] {
  const list = z.array(z.unknown()).safeParse(specs);
  if (!list.success) throw invalid(`${where}: expected a list of scorers`);
  return list.data.map((spec, index) => {
    const parsed = scorerSpecSchema.safeParse(spec);
    if (!parsed.success)
      throw invalid(
        `${where}, scorer ${index + 1}:\n  ${parsed.error.issues.map((issue) => `${issue.path.join('.') || 'type'}: ${issue.message}`).join('\n  ')}`,
      );
    if (parsed.data.type === 'regex' && parsed.data.pattern !== undefined)
      compilePattern(parsed.data.pattern, `${where}, scorer ${index + 1}: pattern`);
    return parsed.data;
  });
}

/** A built-in scorer as a function; `outputSchema` is compiled once. */
export function builtInScorer(spec: BuiltInSpec, config: AgentConfig): Scorer {
  const name = spec.name ?? (spec.type === 'trajectory' ? `trajectory-${spec.mode}` : spec.type);
  const threshold = spec.threshold ?? 1;
  switch (spec.type) {
    case 'exact':
      return { name, threshold, score: ({ example, output }) => ({ score: same(expectedAnswer(example), output, spec.ignoreCase) ? 1 : 0 }) };
    case 'contains':
      return {
        name,
        threshold,
        score: ({ example, output }) => {
          const values = spec.values ?? example.expected?.contains ?? [expectedAnswer(example)];
          const fold = (text: string) => (spec.ignoreCase ? text.toLowerCase() : text);
          const missing = values.filter((value) => !fold(output).includes(fold(value)));
          return {
            score: values.length === 0 ? 1 : (values.length - missing.length) / values.length,
            ...(missing.length ? { detail: `missing ${missing.map((value) => JSON.stringify(value)).join(', ')}` } : {}),
          };
        },
      };
    case 'regex':
      return {
        name,
        threshold,
        score: ({ example, output }) => {
          const pattern = spec.pattern ?? example.expected?.regex;
          if (pattern === undefined) return null;
          return { score: compilePattern(pattern, `scorer ${name}`).test(output) ? 1 : 0 };
        },
      };
    case 'json':
      return {
        name,
        threshold,
        score: ({ example, structuredOutput }) => {
          const expected = example.expected?.structuredOutput ?? example.structuredOutput;
          if (expected === undefined) return null;
          const tolerance = (a: number, b: number) => numbersMatch(a, b, spec.tolerance, spec.relativeTolerance);
          return jsonMatchScore(expected, structuredOutput, tolerance);
        },
      };
    case 'schema': {
      if (config.output_type === null)
        throw invalid(`scorer ${name}: the config '${config.name}' has no output_type to check structured output against`);
      const validate = new Ajv({ allErrors: true, strict: false }).compile(config.output_type);
      return {
        name,
        threshold,
        score: ({ structuredOutput }) =>
          structuredOutput === undefined
            ? { score: 0, detail: 'no structured output' }
            : validate(structuredOutput)
              ? { score: 1 }
              : { score: 0, detail: (validate.errors ?? []).map((error) => `${error.instancePath || '/'} ${error.message}`).join('; ') },
      };
    }
    case 'trajectory':
      return { name, threshold, score: (input) => trajectoryScore(spec.mode, expectedCalls(input.example), input.toolCalls, spec.ignoreArgs) };
  }
}

/** The calls an example expects: its `expected.toolCalls`, else the recorded calls. */
function expectedCalls(example: DatasetExample): Array<{ tool: string; args?: unknown }> {
  return example.expected?.toolCalls ?? example.toolCalls.map(({ tool, args }) => ({ tool, args }));
}

/**
 * A trajectory against the expected one: `strict` the same calls in the same order, `unordered`
 * the same calls in any order (1 or 0); `subset` every call made was expected, `superset` every
 * expected call was made (the share that was). An expected call without `args` matches any arguments.
 */
export function trajectoryScore(
  mode: 'strict' | 'unordered' | 'subset' | 'superset',
  expected: Array<{ tool: string; args?: unknown }>,
  actual: Array<{ tool: string; args: unknown }>,
  ignoreArgs = false,
): ScoreValue {
  const matches = (want: { tool: string; args?: unknown }, call: { tool: string; args: unknown }) =>
    want.tool === call.tool && (ignoreArgs || want.args === undefined || canonicalJson(want.args) === canonicalJson(call.args ?? {}));
  const render = (calls: Array<{ tool: string }>) => calls.map((call) => call.tool).join(' → ') || 'none';
  if (mode === 'strict') {
    const same = expected.length === actual.length && expected.every((want, index) => matches(want, actual[index]!));
    return { score: same ? 1 : 0, ...(same ? {} : { detail: `expected ${render(expected)}, got ${render(actual)}` }) };
  }
  // Each expected call pairs with at most one call made, first fit.
  const unused = [...actual];
  const found = expected.filter((want) => {
    const index = unused.findIndex((call) => matches(want, call));
    if (index >= 0) unused.splice(index, 1);
    return index >= 0;
  }).length;
  if (mode === 'unordered') {
    const same = found === expected.length && unused.length === 0;
    return { score: same ? 1 : 0, ...(same ? {} : { detail: `expected ${render(expected)}, got ${render(actual)} (any order)` }) };
  }
  if (mode === 'superset')
    return {
      score: expected.length === 0 ? 1 : found / expected.length,
      ...(found < expected.length ? { detail: `${expected.length - found} expected call(s) not made` } : {}),
    };
  return {
    score: actual.length === 0 ? 1 : (actual.length - unused.length) / actual.length,
    ...(unused.length ? { detail: `unexpected: ${render(unused)}` } : {}),
  };
}

function expectedAnswer(example: DatasetExample): string {
  return example.expected?.answer ?? example.answer;
}

function same(expected: string, actual: string, ignoreCase: boolean): boolean {
  return ignoreCase ? expected.trim().toLowerCase() === actual.trim().toLowerCase() : expected.trim() === actual.trim();
}

export function invalid(message: string): AgentRuntimeError {
  return new AgentRuntimeError(ErrorCode.scorerInvalid, message);
}
