import { describe, expect, it } from '@jest/globals';
import { objectSchemaOf, toolDefinition, toolNames } from '../../src/mcp-server/agent-tool-catalog';
import type { AgentOffer } from '../../src/protocol/agent-offers';

function offer(name: string, extra: Partial<AgentOffer> = {}): AgentOffer {
  return { name, version: 'abc123abc123', label: null, model: 'scripted:any', tools: [], handoffs: [], overridable: [], ...extra };
}

describe('agents as MCP tools', () => {
  it('keeps a valid agent name and makes the others valid, unique MCP tool names', () => {
    const named = toolNames([offer('support'), offer('billing team'), offer('billing_team'), offer('ops/deploy')]);
    expect(named.map((tool) => [tool.offer.name, tool.name])).toEqual([
      ['billing team', 'billing_team_2'],
      ['billing_team', 'billing_team'],
      ['ops/deploy', 'ops_deploy'],
      ['support', 'support'],
    ]);
    for (const tool of named) expect(tool.name).toMatch(/^[A-Za-z0-9_.-]{1,128}$/);
  });

  it('declares the task input, the description, and an output schema only for an object output type', () => {
    const schema = { type: 'object', properties: { city: { type: 'string' } } };
    const typed = toolDefinition({ name: 'weather', offer: offer('weather', { description: 'Weather by city.', outputType: schema }) });
    expect(typed).toMatchObject({
      name: 'weather',
      title: 'weather',
      description: 'Weather by city.',
      inputSchema: { type: 'object', required: ['task'], additionalProperties: false },
      outputSchema: schema,
    });
    expect(objectSchemaOf({ type: 'string' })).toBeNull();
    expect(toolDefinition({ name: 'plain', offer: offer('plain') }).outputSchema).toBeUndefined();
  });
});
