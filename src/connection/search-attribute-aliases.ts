// Finds and repairs an agent search attribute that two concurrent registrations gave two fields.
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
 * `customSearchAttributeAliases`). Why this can happen: on SQL visibility a Temporal server (seen
 * in 1.29.1's operator handler) picks a free field for a new attribute at random from the aliases
 * it read, and the namespace update that follows refuses a field already taken but not an alias
 * already present, so two registrations of one attribute whose reads both precede the other's
 * write can leave it on two fields. Queries then resolve the alias to either field.
 */
export function findDuplicateAliases(fieldToAlias: Record<string, string>): DuplicateAlias[] {
  const ours = new Set(AGENT_SEARCH_ATTRIBUTES.map((attribute) => attribute.name));
  const fieldsByAlias = new Map<string, string[]>();
  for (const [field, alias] of Object.entries(fieldToAlias)) {
    if (!ours.has(alias)) continue;
    fieldsByAlias.set(alias, [...(fieldsByAlias.get(alias) ?? []), field]);
  }
  return [...fieldsByAlias]
    .filter(([, fields]) => fields.length > 1)
    .map(([alias, fields]) => ({ alias, fields: fields.sort() }));
}

/**
 * Leaves every agent attribute of `namespace` on one field. A duplicate on a namespace without any
 * workflow execution (what concurrent `setup` calls on a fresh namespace can leave) is repaired by
 * dropping all fields but the first in sort order, the same choice every concurrent caller makes,
 * so two repairs never drop each other's kept field. With executions present the namespace's
 * visibility rows may use either field, so nothing is dropped and an error says which attribute.
 * Returns what was repaired. Servers without SQL visibility have no aliases: nothing to do.
 * @throws Error naming the attribute, its fields and the namespace when runs exist.
 */
export async function repairDuplicateAliases(connection: Services, namespace: string): Promise<DuplicateAlias[]> {
  const described = await connection.workflowService.describeNamespace({ namespace });
  const duplicates = findDuplicateAliases(described.config?.customSearchAttributeAliases ?? {});
  if (duplicates.length === 0) return [];
  const executions = await connection.workflowService.countWorkflowExecutions({ namespace, query: '' });
  if (Number(executions.count ?? 0) > 0) {
    const list = duplicates.map(({ alias, fields }) => `${alias} on ${fields.join(' and ')}`).join('; ');
    throw new Error(
      `Namespace ${namespace} has search attributes on more than one field (${list}), and runs already exist there, ` +
        'so visibility may have indexed them under either field: setup does not choose one. See docs/deployment.md (duplicate aliases).',
    );
  }
  const dropped = Object.fromEntries(duplicates.flatMap(({ fields }) => fields.slice(1).map((field) => [field, ''])));
  // An empty alias removes the field's mapping (how the operator API removes an attribute on SQL).
  await connection.workflowService.updateNamespace({ namespace, config: { customSearchAttributeAliases: dropped } });
  return duplicates;
}
