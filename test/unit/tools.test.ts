import { describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import { z as zod3 } from 'zod/v3';
import { modelToolSpecs } from '../../src/activities/model-tool-specs';
import { splitInjectedArgs } from '../../src/protocol/split-injected-args';
import { defineTool } from '../../src/tools/define-tool';
import { subagentTools } from '../../src/tools/subagent-tools';
import { ToolRegistry } from '../../src/tools/tool-registry';
import { DuplicateToolError } from '../../src/protocol/errors';

const greet = defineTool({
  name: 'greet',
  description: 'Says hello.',
  parameters: z.object({ name: z.string().describe('Who to greet'), loud: z.boolean().optional() }),
  execute: ({ name }) => `Hello, ${name}!`,
});

describe('tools', () => {
  it('exports the zod parameters as JSON Schema for the model', () => {
    expect(greet.spec()).toEqual({
      name: 'greet',
      description: 'Says hello.',
      parameters: {
        type: 'object',
        properties: { name: { type: 'string', description: 'Who to greet' }, loud: { type: 'boolean' } },
        required: ['name'],
      },
    });
  });

  it('refuses zod 3 parameters when the tool is defined, naming the tool and the fix', () => {
    const define = () =>
      defineTool({
        name: 'legacy',
        description: 'Made with zod 3.',
        parameters: zod3.object({ id: zod3.string() }) as unknown as z.ZodType,
        execute: () => 'ok',
      });
    expect(define).toThrow("defineTool('legacy'): parameters must be a zod 4 schema, got a zod 3 schema. Install zod@^4");
  });

  it('refuses a second tool with the same name, naming it', () => {
    const registry = new ToolRegistry([greet]);
    expect(() => registry.register(greet)).toThrow(DuplicateToolError);
    expect(() => registry.register(greet)).toThrow("Duplicate tool name 'greet'");
  });

  it('merges injected args into deep copies of the schemas, never into the tool', () => {
    const registry = new ToolRegistry([greet]);
    const before = JSON.stringify(greet.spec());
    const [spec] = modelToolSpecs(registry, ['greet'], { ui_request_id: 'Correlation id' });
    expect(spec?.parameters.properties).toMatchObject({ ui_request_id: { type: 'string', description: 'Correlation id' } });
    expect((spec?.parameters.required as string[]) ?? []).not.toContain('ui_request_id');
    expect(JSON.stringify(greet.spec())).toBe(before);
  });

  it('merges the injected fields into the extra specs too (MCP and handoff tools), without touching them', () => {
    const registry = new ToolRegistry([greet]);
    const mcp = {
      name: 'docs__search',
      description: 'Search',
      parameters: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] },
    };
    const handoff = {
      name: 'transfer_to_billing',
      description: 'Hand over',
      parameters: { type: 'object', properties: { reason: { type: 'string' } } },
    };
    const before = JSON.stringify([mcp, handoff]);
    const specs = modelToolSpecs(registry, ['greet'], { ui_request_id: 'Correlation id' }, [mcp, handoff]);
    expect(specs.map((spec) => spec.name)).toEqual(['greet', 'docs__search', 'transfer_to_billing']);
    for (const spec of specs) expect(spec.parameters.properties).toMatchObject({ ui_request_id: { type: 'string', description: 'Correlation id' } });
    expect(specs[1]?.parameters.required).toEqual(['query']);
    expect(JSON.stringify([mcp, handoff])).toBe(before);
    expect(modelToolSpecs(registry, ['greet'], {}, [mcp])[1]).toBe(mcp);
  });

  it("lists the agents a spawn_subagents job may name (the config's subagents) in the tool's schema, and only then", () => {
    const registry = new ToolRegistry([greet, ...subagentTools]);
    const plain = modelToolSpecs(registry, ['greet', 'spawn_subagents'], {});
    const named = modelToolSpecs(registry, ['greet', 'spawn_subagents'], {}, [], ['researcher', 'writer']);
    const jobOf = (specs: typeof plain) =>
      ((specs[1]?.parameters.properties as Record<string, { items: { properties: Record<string, unknown> } }>).jobs?.items.properties ??
        {}) as Record<string, { enum?: string[] }>;
    expect(jobOf(plain).agent).toBeUndefined();
    expect(jobOf(named).agent?.enum).toEqual(['researcher', 'writer']);
    expect(Object.keys(jobOf(named))).toEqual([...Object.keys(jobOf(plain)), 'agent']);
    expect(named[0]).toEqual(plain[0]);
    expect(modelToolSpecs(registry, ['greet'], {}, [], ['researcher']).map((spec) => spec.name)).toEqual(['greet']);
  });

  it('splits injected args from the executable ones', () => {
    expect(splitInjectedArgs({ name: 'Ada', ui_request_id: 'r-1' }, ['ui_request_id'])).toEqual({
      executable: { name: 'Ada' },
      injected: { ui_request_id: 'r-1' },
    });
  });

  it('lists specs of known tools only, in the order asked', () => {
    const other = defineTool({ name: 'other', description: 'x', parameters: z.object({}), execute: () => 'x' });
    const registry = new ToolRegistry([greet, other]);
    expect(registry.specs(['other', 'missing', 'greet']).map((spec) => spec.name)).toEqual(['other', 'greet']);
  });
});
