// A run's spend limits: the cost_limit checks before a model call and after it, and what sub-agents may spend.
import type { AgentConfig } from '../../config/agent-config';
import type { ModelStepResult, UsageSummary } from '../../protocol/run-types';
import { roundUsd } from '../../protocol/model-price';
import { spentUsd } from '../rules/usage-totals';
import { RunStop } from './run-lifecycle';
import { turnCostBaseOf, type LoopState } from './loop-state';

/** The strictest of the limits that apply now: what is left of it, and how to name it. */
export interface CostAllowance {
  remainingUsd: number;
  limitUsd: number;
  spentUsd: number;
  /** "cost_limit of the run", "cost_limit of the turn", "thread_cost_limit". */
  limitName: string;
}

/**
 * What the run may still spend: a run's `cost_limit` counts the whole run (continuations,
 * handoffs and sub-agents included); in a thread, `cost_limit` counts the running turn and
 * `thread_cost_limit` the whole thread. Null without a limit. Pure.
 */
export function costAllowance(
  config: Pick<AgentConfig, 'cost_limit' | 'thread_cost_limit'>,
  usage: UsageSummary,
  turnCostBase: number | undefined,
): CostAllowance | null {
  const spent = spentUsd(usage);
  const candidates: CostAllowance[] = [];
  if (config.cost_limit !== undefined) {
    const inTurn = turnCostBase !== undefined;
    const counted = inTurn ? roundUsd(spent - turnCostBase) : spent;
    candidates.push({
      remainingUsd: roundUsd(config.cost_limit - counted),
      limitUsd: config.cost_limit,
      spentUsd: counted,
      limitName: inTurn ? 'cost_limit of the turn' : 'cost_limit of the run',
    });
  }
  if (config.thread_cost_limit !== undefined && turnCostBase !== undefined) {
    candidates.push({
      remainingUsd: roundUsd(config.thread_cost_limit - spent),
      limitUsd: config.thread_cost_limit,
      spentUsd: spent,
      limitName: 'thread_cost_limit',
    });
  }
  return candidates.reduce<CostAllowance | null>(
    (strictest, candidate) => (!strictest || candidate.remainingUsd < strictest.remainingUsd ? candidate : strictest),
    null,
  );
}

/**
 * Before a model call: with a limit, a run that has nothing left stops (`cost_limit`, no activity);
 * otherwise the model step gets what is left, and refuses the call itself when its worst case is more.
 * Nothing for runs without a limit.
 */
export function costLimitBeforeCall(state: LoopState): { costLimit?: { remainingUsd: number } } {
  const allowance = costAllowance(state.config, state.usage, turnCostBaseOf(state));
  if (!allowance) return {};
  if (allowance.remainingUsd <= 0)
    throw costStop(state, allowance, `spent $${allowance.spentUsd} of the $${allowance.limitUsd} ${allowance.limitName}`);
  return { costLimit: { remainingUsd: allowance.remainingUsd } };
}

/**
 * After a model call: a step the worker refused for its worst case stops the run; so does a reply
 * that passed the limit and asks for more work (tool calls). A final answer that passed it is
 * returned: it is paid for, and nothing more is spent.
 */
export function costLimitAfterCall(state: LoopState, reply: ModelStepResult): void {
  if (reply.overCostLimit) {
    const over = reply.overCostLimit;
    const why = over.unpriced
      ? `the price of ${reply.model} is unknown, so the ${over.remainingUsd} USD left cannot be enforced: give it a price (pricing in the agent config, or the worker's price table)`
      : `the next call of ${reply.model} could cost $${over.worstCaseUsd} (${over.promptTokens} prompt tokens, up to ${over.maxOutputTokens} output tokens), more than the $${over.remainingUsd} left`;
    throw costStop(state, costAllowance(state.config, state.usage, turnCostBaseOf(state)), why);
  }
  const allowance = costAllowance(state.config, state.usage, turnCostBaseOf(state));
  if (!allowance || allowance.remainingUsd >= 0 || reply.message.toolCalls.length === 0) return;
  throw costStop(state, allowance, `spent $${allowance.spentUsd}, more than the $${allowance.limitUsd} ${allowance.limitName}`);
}

/** The `cost-limit-stopped` event and the `RunStop` that ends the run (or turn) with `cost_limit`. */
function costStop(state: LoopState, allowance: CostAllowance | null, why: string): RunStop {
  state.events.push({
    type: 'cost-limit-stopped',
    step: state.step,
    spentUsd: allowance?.spentUsd ?? spentUsd(state.usage),
    limitUsd: allowance?.limitUsd ?? 0,
    detail: why,
  });
  return new RunStop('cost_limit', `Cost limit: ${why}`);
}

/** A sub-agent's `cost_limit`: what its parent has left (the parent checks its own total again after the children). */
export function childCostLimit(state: LoopState): Pick<AgentConfig, 'cost_limit'> {
  const allowance = costAllowance(state.config, state.usage, turnCostBaseOf(state));
  return allowance ? { cost_limit: Math.max(allowance.remainingUsd, 1e-9) } : {};
}
