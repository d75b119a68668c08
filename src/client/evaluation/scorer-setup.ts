// Scorers ready to score: built-ins, custom scorers loaded from users' modules, and LLM judges run on the workers.
import path from 'node:path';
import { parseAgentConfig, type AgentConfig } from '../../config/agent-config';
import { AgentEvaluationAttribute } from '../../protocol/search-attributes';
import { importModuleFile } from '../../worker/load-tools';
import type { AgentClient } from '../agent-client';
import { startAgentWorkflow } from '../start-agent-workflow';
import { builtInScorer, invalid, parseScorerSpecs, type Scorer, type ScorerSpec, type ScoreInput } from './scorers';

/** The answer a judge gives: a score from 0 to 1 and its reason (the judge config's `output_type`). */
const JUDGE_OUTPUT = {
  type: 'object',
  properties: { score: { type: 'number', minimum: 0, maximum: 1 }, reason: { type: 'string' } },
  required: ['score', 'reason'],
  additionalProperties: false,
};

/**
 * Turns specs into scorers. Custom modules are imported (relative paths from `folder`); each must
 * export a function `(input) => number | { score, detail } | null` (or a `Scorer`) under the
 * spec's `export` name. A judge is an agent run of its own on the task queue's workers (so it uses
 * the workers' model providers and keys, and shows in the Web UI tagged with the evaluation).
 * @throws AgentRuntimeError `ScorerInvalid` naming the scorer: an invalid spec, a module that cannot
 * be loaded or lacks the export, a `schema` scorer for a config without `output_type`.
 */
export async function prepareScorers(
  specs: ReadonlyArray<ScorerSpec | Scorer>,
  context: { config: AgentConfig; agents: AgentClient; evaluation: string; folder: string },
): Promise<Scorer[]> {
  const scorers: Scorer[] = [];
  const names = new Set<string>();
  for (const [index, given] of specs.entries()) {
    const scorer = 'score' in given ? given : await fromSpec(parseScorerSpecs([given], 'scorers')[0]!, index, context);
    if (names.has(scorer.name)) throw invalid(`scorer ${index + 1}: the name '${scorer.name}' is already taken by another scorer (give it a name)`);
    names.add(scorer.name);
    scorers.push(scorer);
  }
  return scorers;
}

async function fromSpec(
  spec: ReturnType<typeof parseScorerSpecs>[number],
  index: number,
  context: { config: AgentConfig; agents: AgentClient; evaluation: string; folder: string },
): Promise<Scorer> {
  if (spec.type === 'custom') {
    const file = path.resolve(context.folder, spec.module);
    let loaded: Record<string, unknown>;
    try {
      loaded = await importModuleFile(file);
    } catch (error) {
      throw invalid(`scorer ${index + 1} (custom): cannot load ${file}: ${(error as Error).message}`);
    }
    const exported = loaded[spec.export];
    const name = spec.name ?? `${path.basename(spec.module).replace(/\.[^.]+$/, '')}${spec.export === 'default' ? '' : `.${spec.export}`}`;
    if (typeof exported === 'function') return { name, threshold: spec.threshold ?? 1, score: exported as Scorer['score'] };
    if (exported && typeof exported === 'object' && typeof (exported as Scorer).score === 'function') {
      const scorer = exported as Scorer;
      return { ...scorer, name: spec.name ?? scorer.name ?? name, threshold: spec.threshold ?? scorer.threshold ?? 1 };
    }
    throw invalid(
      `scorer ${index + 1} (custom): ${file} has no function exported as '${spec.export}' (exports: ${Object.keys(loaded).join(', ') || 'none'})`,
    );
  }
  if (spec.type === 'judge') return judgeScorer(spec, context);
  return builtInScorer(spec, context.config);
}

/** An LLM judge: an agent run under a judge config answers a score (0..1) and a reason for each run's answer. */
function judgeScorer(
  spec: { name?: string; threshold?: number; model: string; criteria: string },
  context: { agents: AgentClient; evaluation: string },
): Scorer {
  const name = spec.name ?? 'judge';
  const config = parseAgentConfig(
    {
      name: `${name}-judge`,
      model: spec.model,
      instructions:
        "You judge an AI agent's answer to a task. Score how well the answer meets the criteria, from 0 (not at all) to 1 (fully), " +
        `and say why in one sentence. Answer with JSON {"score": number, "reason": string} only.\n\nCriteria: ${spec.criteria}`,
      output_type: JUDGE_OUTPUT,
      max_steps: 2,
    },
    `scorer ${name} (judge)`,
  );
  let judged = 0;
  return {
    name,
    threshold: spec.threshold ?? 0.5,
    score: async (input: ScoreInput) => {
      const reference = input.example.expected?.answer ?? input.example.answer;
      const task = [`Task given to the agent:\n${input.example.task}`, `Reference answer:\n${reference}`, `Answer to judge:\n${input.output}`].join(
        '\n\n',
      );
      const run = await startAgentWorkflow(
        context.agents,
        { config, task },
        {
          workflowId: `${context.evaluation}.${input.example.id}.${name}-${++judged}`,
          summary: `evaluation ${context.evaluation}: ${name} judges example ${input.example.id}`,
          attributes: [{ key: AgentEvaluationAttribute, value: context.evaluation }],
        },
      );
      const result = await run.result();
      const verdict = result.structuredOutput as { score?: unknown; reason?: unknown } | undefined;
      if (typeof verdict?.score !== 'number')
        return { score: 0, detail: `the judge gave no score (${result.stopReason}): ${result.output.slice(0, 200)}` };
      return { score: Math.min(1, Math.max(0, verdict.score)), detail: String(verdict.reason ?? '') };
    },
  };
}
