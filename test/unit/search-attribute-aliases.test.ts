import { describe, expect, it } from '@jest/globals';
import { aliasRepairPlan, findDuplicateAliases } from '../../src/connection/search-attribute-aliases';

/**
 * The duplicate-alias check and the repair's decision without a server: a Temporal server from
 * 1.31 on no longer lets registrations put an attribute on two fields, but namespaces older ones
 * left so still reach `setup` (test/setup-command.test.ts repairs such a namespace end to end).
 */
const ONE_FIELD_EACH = {
  Keyword01: 'AgentName',
  Keyword02: 'AgentStatus',
  KeywordList01: 'AgentSkillSources',
  Double01: 'AgentCostUsd',
  Datetime01: 'AgentLastActivity',
};

describe('findDuplicateAliases', () => {
  it('finds nothing when every attribute has one field, or the namespace has no aliases', () => {
    expect(findDuplicateAliases(ONE_FIELD_EACH)).toEqual([]);
    expect(findDuplicateAliases({})).toEqual([]);
  });

  it('names an agent attribute on two fields, with the fields in sort order', () => {
    expect(findDuplicateAliases({ ...ONE_FIELD_EACH, Keyword07: 'AgentName' })).toEqual([{ alias: 'AgentName', fields: ['Keyword01', 'Keyword07'] }]);
    expect(findDuplicateAliases({ Keyword09: 'AgentForkOf', Keyword03: 'AgentForkOf' })).toEqual([
      { alias: 'AgentForkOf', fields: ['Keyword03', 'Keyword09'] },
    ]);
  });

  it('names each duplicated attribute once, with all of its fields', () => {
    const duplicates = findDuplicateAliases({ ...ONE_FIELD_EACH, Keyword10: 'AgentName', Keyword05: 'AgentName', Double02: 'AgentCostUsd' });
    expect(duplicates).toHaveLength(2);
    expect(duplicates).toContainEqual({ alias: 'AgentName', fields: ['Keyword01', 'Keyword05', 'Keyword10'] });
    expect(duplicates).toContainEqual({ alias: 'AgentCostUsd', fields: ['Double01', 'Double02'] });
  });

  it("ignores attributes that are not the runtime's, even on two fields", () => {
    expect(findDuplicateAliases({ ...ONE_FIELD_EACH, Keyword03: 'CustomerId', Keyword04: 'CustomerId' })).toEqual([]);
  });
});

describe('aliasRepairPlan', () => {
  it('does nothing without a duplicate, whether runs exist or not', () => {
    expect(aliasRepairPlan('orders', ONE_FIELD_EACH, 0)).toEqual({ action: 'none' });
    expect(aliasRepairPlan('orders', ONE_FIELD_EACH, 12)).toEqual({ action: 'none' });
  });

  it('without runs, drops every field of a duplicated attribute but the first in sort order', () => {
    const plan = aliasRepairPlan('orders', { ...ONE_FIELD_EACH, Keyword10: 'AgentName', Keyword05: 'AgentName' }, 0);
    expect(plan).toEqual({
      action: 'drop',
      duplicates: [{ alias: 'AgentName', fields: ['Keyword01', 'Keyword05', 'Keyword10'] }],
      drop: ['Keyword05', 'Keyword10'],
    });
  });

  it('keeps the same field whichever order the server lists the fields in, so concurrent repairs agree', () => {
    const forward = aliasRepairPlan('orders', { Keyword02: 'AgentStatus', Keyword08: 'AgentStatus' }, 0);
    const backward = aliasRepairPlan('orders', { Keyword08: 'AgentStatus', Keyword02: 'AgentStatus' }, 0);
    expect(forward).toEqual({ action: 'drop', duplicates: [{ alias: 'AgentStatus', fields: ['Keyword02', 'Keyword08'] }], drop: ['Keyword08'] });
    expect(backward).toEqual(forward);
  });

  it('drops the extra fields of each duplicated attribute and leaves the other attributes alone', () => {
    const plan = aliasRepairPlan('orders', { ...ONE_FIELD_EACH, Keyword06: 'AgentName', Double02: 'AgentCostUsd' }, 0);
    expect(plan.action).toBe('drop');
    expect(plan.action === 'drop' && [...plan.drop].sort()).toEqual(['Double02', 'Keyword06']);
  });

  it('with runs, drops nothing and says which namespace, attributes and fields', () => {
    const plan = aliasRepairPlan('orders', { ...ONE_FIELD_EACH, Keyword07: 'AgentName', Double02: 'AgentCostUsd' }, 1);
    expect(plan.action).toBe('refuse');
    if (plan.action !== 'refuse') return;
    expect(plan.duplicates).toHaveLength(2);
    expect(plan.message).toContain('Namespace orders has search attributes on more than one field (');
    expect(plan.message).toContain('AgentName on Keyword01 and Keyword07');
    expect(plan.message).toContain('AgentCostUsd on Double01 and Double02');
    expect(plan.message).toContain('runs already exist there');
    expect(plan.message).toContain('setup does not choose one. See docs/deployment.md (duplicate aliases).');
  });
});
