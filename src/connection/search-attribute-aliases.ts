// Finds and repairs an agent search attribute that a namespace has on two fields (left by an older server).
import type { temporal } from '@temporalio/proto';
import { AGENT_SEARCH_ATTRIBUTES } from '../protocol/search-attributes';

/** An agent search attribute (alias) that more than one of the namespace's SQL fields carries. */
export interface DuplicateAlias {
  alias: string;
  /** The fields, sorted; the first is the one a repair keeps. */
  fields: string[];
}

type Services = {
  workflowService: temporal.api.workflowservice.v1.WorkflowService;
};

/**
 * The agent attributes mapped to more than one field in `fieldToAlias` (a namespace's
 * `customSearchAttributeAliases`). How a namespace got there: on SQL visibility a server picks a
 * free field for a new attribute from the aliases it read, then updates the namespace. Up to 1.30
 * (read in 1.29.1) that update refused a field already taken but not an attribute already present,
 * so two registrations of one attribute whose reads both preceded the other's write could leave it
 * on two fields. From 1.31 (read and tried on 1.32.2) the update skips, with a server-side warning
 * and no error, an attribute the namespace already has, and namespace updates are serialized, so
 * racing registrations no longer do this; namespaces older servers left so still exist. (1.32.2
 * still accepts one update naming one new attribute on two fields; no registration sends that.)
 * Queries resolve a duplicated alias to either field.
 */
export function findDuplicateAliases(fieldToAlias: Record<string, string>): DuplicateAlias[] {
  const ours = new Set(AGENT_SEARCH_ATTRIBUTES.map((attribute) => attribute.name));
  const fieldsByAlias = new Map<string, string[]>();
  for (const [field, alias] of Object.entries(fieldToAlias)) {
    if (!ours.has(alias)) continue;
    fieldsByAlias.set(alias, [...(fieldsByAlias.get(alias) ?? []), field]);
  }
  return [...fieldsByAlias].filter(([, fields]) => fields.length > 1).map(([alias, fields]) => ({ alias, fields: fields.sort() }));
}

/** What a repair of `namespace` does, decided from its aliases and its number of workflow executions. */
export type AliasRepairPlan =
  | { action: 'none' }
  /** Removes the alias of each field in `drop` (every duplicate's fields but its first). */
  | { action: 'drop'; duplicates: DuplicateAlias[]; drop: string[] }
  /** Changes nothing: runs exist, so visibility may have indexed under either field. */
  | { action: 'refuse'; duplicates: DuplicateAlias[]; message: string };

/**
 * The repair's decision, without the server: nothing without a duplicate; with one and no
 * execution, drop every field of a duplicated attribute but the first in sort order (the same
 * choice every concurrent caller makes, so two repairs never drop each other's kept field); with
 * executions, refuse with a message naming the namespace, each attribute and its fields.
 * @example
 * aliasRepairPlan('default', { Keyword01: 'AgentName', Keyword04: 'AgentName' }, 0);
 * // { action: 'drop', duplicates: [{ alias: 'AgentName', fields: ['Keyword01', 'Keyword04'] }], drop: ['Keyword04'] }
 */
export function aliasRepairPlan(namespace: string, fieldToAlias: Record<string, string>, executionCount: number): AliasRepairPlan {
  const duplicates = findDuplicateAliases(fieldToAlias);
  if (duplicates.length === 0) return { action: 'none' };
  if (executionCount > 0) {
    const list = duplicates.map(({ alias, fields }) => `${alias} on ${fields.join(' and ')}`).join('; ');
    const message =
      `Namespace ${namespace} has search attributes on more than one field (${list}), and runs already exist there, ` +
      'so visibility may have indexed them under either field: setup does not choose one. See docs/deployment.md (duplicate aliases).';
    return { action: 'refuse', duplicates, message };
  }
  return { action: 'drop', duplicates, drop: duplicates.flatMap(({ fields }) => fields.slice(1)) };
}

/**
 * Leaves every agent attribute of `namespace` on one field, as {@link aliasRepairPlan} decides: a
 * duplicate on a namespace without any workflow execution is repaired by dropping all fields but
 * the first; with executions present nothing is dropped and an error says which attribute. For
 * namespaces a server before 1.31 left with duplicates (see {@link findDuplicateAliases}).
 * Returns what was repaired. Servers without SQL visibility have no aliases: nothing to do.
 * @throws Error naming the attribute, its fields and the namespace when runs exist.
 */
export async function repairDuplicateAliases(connection: Services, namespace: string): Promise<DuplicateAlias[]> {
  const described = await connection.workflowService.describeNamespace({ namespace });
  const fieldToAlias = described.config?.customSearchAttributeAliases ?? {};
  if (findDuplicateAliases(fieldToAlias).length === 0) return [];
  const executions = await connection.workflowService.countWorkflowExecutions({ namespace, query: '' });
  const plan = aliasRepairPlan(namespace, fieldToAlias, Number(executions.count ?? 0));
  if (plan.action === 'none') return [];
  if (plan.action === 'refuse') throw new Error(plan.message);
  // An empty alias removes the field's mapping (how the operator API removes an attribute on SQL).
  const dropped = Object.fromEntries(plan.drop.map((field) => [field, '']));
  await connection.workflowService.updateNamespace({ namespace, config: { customSearchAttributeAliases: dropped } });
  return plan.duplicates;
}
