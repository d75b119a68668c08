// Evaluation datasets: recorded runs as a versioned JSONL file, read back with every line checked.
import { readFileSync, writeFileSync } from 'node:fs';
import { z } from 'zod';
import { AgentRuntimeError, ErrorCode } from '../../protocol/errors';

/** The `format` of a dataset file's first line. */
export const DATASET_FORMAT = 'durable-agents.dataset';
/** The version this runtime writes and reads; a file of another version is refused, naming it. */
export const DATASET_VERSION = 1;

const usageSchema = z.object({ inputTokens: z.number(), outputTokens: z.number(), costUsd: z.number().nullable().optional() });

const headerSchema = z
  .object({
    format: z.literal(DATASET_FORMAT),
    version: z.literal(DATASET_VERSION),
    createdAt: z.string().optional(),
    description: z.string().optional(),
  })
  .passthrough();

/** A recorded tool call: what the model asked for and what came back (the evaluation's answer to the same call). */
const recordedCallSchema = z.object({
  step: z.number().int().min(1),
  tool: z.string().min(1),
  args: z.unknown().default({}),
  result: z.object({ content: z.string(), isError: z.boolean().default(false), errorCode: z.string().optional() }),
});

/** A tool call an example expects: its arguments may be left out (then any arguments match). */
const expectedCallSchema = z.object({ tool: z.string().min(1), args: z.unknown().optional() });

const exampleSchema = z.object({
  id: z.string().min(1),
  task: z.string(),
  /** Messages before the task (a run started with earlier messages). */
  messages: z.array(z.object({ role: z.enum(['system', 'user', 'assistant', 'tool']), content: z.string() }).passthrough()).optional(),
  /** The name of the agent config the run was recorded under. */
  config: z.string().optional(),
  toolCalls: z.array(recordedCallSchema).default([]),
  answer: z.string(),
  structuredOutput: z.unknown().optional(),
  recorded: z
    .object({
      workflowId: z.string(),
      steps: z.number().int().min(0),
      stopReason: z.string(),
      tokensByModel: z.record(z.string(), usageSchema).default({}),
      wallTimeMs: z.number().min(0).default(0),
    })
    .optional(),
  /** What a good run does, added by people; scorers compare with these first, then with the recording. */
  expected: z
    .object({
      answer: z.string().optional(),
      contains: z.array(z.string()).optional(),
      regex: z.string().optional(),
      structuredOutput: z.unknown().optional(),
      toolCalls: z.array(expectedCallSchema).optional(),
    })
    .strict()
    .optional(),
  labels: z.array(z.string()).default([]),
});

/** A dataset file's first line. */
export type DatasetHeader = z.infer<typeof headerSchema>;
/** One example of a dataset: a recorded run's task, tool calls with results, answer, and what is expected. */
export type DatasetExample = z.infer<typeof exampleSchema>;
/** An example as written (defaults may be left out). */
export type DatasetExampleInput = z.input<typeof exampleSchema>;
/** A recorded tool call of an example. */
export type DatasetToolCall = z.infer<typeof recordedCallSchema>;

/** A dataset: its header and its examples, ids unique. */
export interface Dataset {
  header: DatasetHeader;
  examples: DatasetExample[];
}

/**
 * Reads a dataset file: the header line (format and version), then one example a line (blank
 * lines skipped). Every line is validated.
 * @throws AgentRuntimeError `DatasetInvalid` naming the file, the line and each invalid field.
 * @example
 * import { readDataset } from 'durable-agents';
 *
 * const { examples } = readDataset('evals/support.jsonl');
 * console.log(examples.filter((example) => example.labels.includes('refund')).length);
 */
export function readDataset(file: string): Dataset {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw invalid(`Cannot read dataset ${file}: ${(error as Error).message}`);
  }
  const lines = text
    .split('\n')
    .map((line, index) => ({ line: line.trim(), number: index + 1 }))
    .filter(({ line }) => line !== '');
  if (lines.length === 0)
    throw invalid(`Dataset ${file} is empty: its first line must be the header {"format":"${DATASET_FORMAT}","version":${DATASET_VERSION}}`);
  const [first, ...rest] = lines;
  const header = parseLine(file, first!.number, first!.line, headerSchema, 'the header');
  const seen = new Map<string, number>();
  const examples = rest.map(({ line, number }) => {
    const example = parseLine(file, number, line, exampleSchema, 'an example');
    const earlier = seen.get(example.id);
    if (earlier !== undefined) throw invalid(`Dataset ${file}, line ${number}: id: '${example.id}' is already the id of line ${earlier}`);
    seen.set(example.id, number);
    if (example.expected?.regex !== undefined) compilePattern(example.expected.regex, `Dataset ${file}, line ${number}: expected.regex`);
    return example;
  });
  return { header, examples };
}

/**
 * Writes a dataset file: the header, then one example a line.
 * @example
 * writeDataset('evals/support.jsonl', await exportDataset(agents, { query: "AgentName='support'" }));
 */
export function writeDataset(file: string, examples: readonly DatasetExampleInput[], description?: string): void {
  const header: DatasetHeader = {
    format: DATASET_FORMAT,
    version: DATASET_VERSION,
    createdAt: new Date().toISOString(),
    ...(description ? { description } : {}),
  };
  writeFileSync(file, [header, ...examples].map((line) => JSON.stringify(line)).join('\n') + '\n');
}

/** A regular expression from a dataset or a scorer; an invalid one is refused, naming where it came from. */
export function compilePattern(pattern: string, where: string): RegExp {
  try {
    return new RegExp(pattern);
  } catch (error) {
    throw invalid(`${where}: not a regular expression: ${(error as Error).message}`);
  }
}

function parseLine<T extends z.ZodTypeAny>(file: string, number: number, line: string, schema: T, what: string): z.infer<T> {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (error) {
    throw invalid(`Dataset ${file}, line ${number}: not JSON (${(error as Error).message})`);
  }
  if (
    what === 'the header' &&
    (value as { version?: unknown } | null)?.version !== DATASET_VERSION &&
    (value as { format?: unknown } | null)?.format === DATASET_FORMAT
  ) {
    throw invalid(
      `Dataset ${file}, line ${number}: version ${JSON.stringify((value as { version?: unknown }).version)}, this runtime reads version ${DATASET_VERSION}`,
    );
  }
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => `${issue.path.join('.') || '(the line)'}: ${issue.message}`);
  throw invalid(`Dataset ${file}, line ${number} (${what}):\n  ${problems.join('\n  ')}`);
}

function invalid(message: string): AgentRuntimeError {
  return new AgentRuntimeError(ErrorCode.datasetInvalid, message);
}
