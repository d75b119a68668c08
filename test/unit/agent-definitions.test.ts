import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { defineAgent } from '../../src/agents/define-agent';
import { loadAgentFolder } from '../../src/agents/agent-folder';
import { AgentRegistry } from '../../src/agents/agent-registry';
import { AgentDefinitionError } from '../../src/agents/agent-definition-error';

const worker = { tools: ['lookup_order', 'refund', 'remember'], instructionsProviders: ['crm'] };

function problemsOf(make: () => unknown): { where: string; problems: string[] } {
  try {
    make();
  } catch (error) {
    if (error instanceof AgentDefinitionError) return { where: error.where, problems: error.problems };
    throw error;
  }
  throw new Error('expected an AgentDefinitionError');
}

describe('defineAgent', () => {
  it('validates the config and names the agent by it, with a content-hash version and an optional label', () => {
    const support = defineAgent({ config: { name: 'support', tools: ['lookup_order'] }, label: 'release-42', overridable: ['model'] });
    expect(support).toMatchObject({ name: 'support', label: 'release-42', overridable: ['model'], source: "agent 'support'" });
    expect(support.version).toMatch(/^[0-9a-f]{12}$/);
    // Equal definitions have equal versions (defaults filled in first); any change makes a new one.
    expect(
      defineAgent({ config: { name: 'support', tools: ['lookup_order'], max_steps: support.config.max_steps }, overridable: ['model'] }).version,
    ).toBe(support.version);
    expect(defineAgent({ config: { name: 'support', tools: ['lookup_order'] } }).version).not.toBe(support.version);
    expect(defineAgent({ config: { name: 'support', tools: ['lookup_order'], instructions: 'Be brief.' }, overridable: ['model'] }).version).not.toBe(
      support.version,
    );
  });

  it('reports every invalid field at once, naming the agent', () => {
    const { where, problems } = problemsOf(() =>
      defineAgent({ config: { name: 'support', max_steps: 0 }, label: ' ', overridable: ['instructions' as never] }),
    );
    expect(where).toBe("agent 'support'");
    expect(problems).toEqual([
      expect.stringMatching(/^max_steps: /),
      'label: must be a non-empty string of at most 100 characters',
      "overridable: 'instructions' (callers may override model, temperature, max_steps, cost_limit)",
    ]);
  });
});

describe('loadAgentFolder', () => {
  let folder: string;
  beforeAll(() => {
    folder = mkdtempSync(path.join(os.tmpdir(), 'agents-'));
  });
  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  function agentsIn(files: Record<string, string>): string {
    const dir = mkdtempSync(path.join(folder, 'set-'));
    for (const [name, text] of Object.entries(files)) writeFileSync(path.join(dir, name), text);
    return dir;
  }

  it('reads one agent a YAML or JSON file, with label and overridable beside the config, ignoring other files', () => {
    const dir = agentsIn({
      'support.yaml': 'name: support\ntools: [lookup_order]\nlabel: r1\noverridable: [model, temperature]\n',
      'billing.json': JSON.stringify({ name: 'billing', tools: ['refund'] }),
      'README.md': '# not an agent',
    });
    const definitions = loadAgentFolder(dir);
    expect(definitions.map((definition) => [definition.name, definition.label, definition.overridable])).toEqual([
      ['billing', null, []],
      ['support', 'r1', ['model', 'temperature']],
    ]);
    expect(definitions[1]!.source).toBe(path.join(dir, 'support.yaml'));
  });

  it('names the file and the field of a definition that does not validate, and the folder when it holds none', () => {
    const dir = agentsIn({ 'broken.yaml': 'name: broken\nmax_steps: -1\nunknown_field: 1\n' });
    const { where, problems } = problemsOf(() => loadAgentFolder(dir));
    expect(where).toBe(path.join(dir, 'broken.yaml'));
    expect(problems).toEqual(expect.arrayContaining([expect.stringMatching(/^max_steps: /), expect.stringMatching(/unknown_field/)]));
    expect(problemsOf(() => loadAgentFolder(agentsIn({ 'bad.yaml': 'name: [unclosed\n' }))).problems[0]).toMatch(/^\(file\): not valid YAML or JSON/);
    expect(problemsOf(() => loadAgentFolder(agentsIn({}))).problems).toEqual(['agents folder: holds no .yaml, .yml or .json file']);
    expect(problemsOf(() => loadAgentFolder(path.join(folder, 'missing'))).problems[0]).toMatch(/^agents folder: cannot read it/);
  });
});

describe('AgentRegistry', () => {
  const support = defineAgent({ config: { name: 'support', tools: ['lookup_order'], handoffs: ['billing'] }, label: 'r1' });
  const billing = defineAgent({ config: { name: 'billing', tools: ['refund', 'crm__find'], mcp_servers: [{ name: 'crm', command: 'node' }] } });

  it('offers its agents by name, with their versions, models and tools', () => {
    const registry = new AgentRegistry([support, billing], worker);
    expect(registry.names()).toEqual(['billing', 'support']);
    expect(registry.get('support')).toBe(support);
    expect(registry.offers()).toEqual([
      {
        name: 'billing',
        version: billing.version,
        label: null,
        model: billing.config.model,
        tools: ['refund', 'crm__find'],
        handoffs: [],
        overridable: [],
      },
      {
        name: 'support',
        version: support.version,
        label: 'r1',
        model: support.config.model,
        tools: ['lookup_order'],
        handoffs: ['billing'],
        overridable: [],
      },
    ]);
  });

  it('refuses an agent naming a tool, an instructions provider, a handoff target or a sub-agent the worker lacks, and a name defined twice', () => {
    const lacking = defineAgent({
      config: {
        name: 'ops',
        tools: ['deploy', 'files__read'],
        instructions_provider: 'wiki',
        handoffs: ['nobody'],
        allow_parallel_subagents: true,
        subagents: ['ops', 'researcher'],
      },
    });
    expect(problemsOf(() => new AgentRegistry([lacking], worker))).toEqual({
      where: "agent 'ops'",
      problems: [
        "tools: 'deploy' is not a tool of this worker (it has: lookup_order, refund, remember)",
        "tools: 'files__read' names MCP server 'files', which is not among the agent's mcp_servers",
        "instructions_provider: 'wiki' is not an instructions provider of this worker (it has: crm)",
        "handoffs: 'nobody' is not an agent this worker defines (it defines: ops)",
        "subagents: 'researcher' is not an agent this worker defines (it defines: ops)",
      ],
    });
    expect(problemsOf(() => new AgentRegistry([billing, defineAgent({ config: { name: 'billing' } })], worker)).problems).toEqual([
      "name: agent 'billing' is defined twice (also in agent 'billing')",
    ]);
  });
});
