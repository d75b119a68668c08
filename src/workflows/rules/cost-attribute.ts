// The AgentCostUsd search attribute of a run: its cost, joined to attribute writes the run makes anyway.
import type { SearchAttributePair } from '@temporalio/common';
import { workflowInfo } from '@temporalio/workflow';
import type { UsageSummary } from '../../protocol/run-types';
import { AgentCostUsdAttribute } from '../../protocol/search-attributes';
import { spentUsd } from './usage-totals';

/**
 * The run's cost as a search attribute pair, to join an upsert (or a continue-as-new's attributes)
 * the execution makes anyway: no command of its own. Only on runs whose starter set
 * `AgentCostUsd` (so a namespace without the attribute never sees it).
 */
export function costAttributes(state: { usage: UsageSummary }): SearchAttributePair[] {
  if (workflowInfo().typedSearchAttributes.get(AgentCostUsdAttribute) === undefined) return [];
  return [{ key: AgentCostUsdAttribute, value: spentUsd(state.usage) }];
}

/** A sub-agent's starting `AgentCostUsd` (0), when its parent has the attribute: the child's cost is then listed too. */
export function childCostAttributes(): SearchAttributePair[] {
  if (workflowInfo().typedSearchAttributes.get(AgentCostUsdAttribute) === undefined) return [];
  return [{ key: AgentCostUsdAttribute, value: 0 }];
}
