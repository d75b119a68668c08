import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import { parse as parseYaml } from 'yaml';
import { loadAgentConfigFile, serializeAgentConfig } from '../../src/config/load-config';
import { budgetMode, describeAgent, parseAgentConfig, resourceIdProblems } from '../../src/config/agent-config';
import { AgentConfigError } from '../../src/protocol/errors';
import { configTimeouts, upgradeConfig } from '../../src/config/upgrade-config';
import { timeoutOptions } from '../../src/cli/commands/run-command';
import { DEFAULT_TIMEOUTS } from '../../src/protocol/run-types';
import { createRunState } from '../../src/workflows/run/run-state';
import type { ResolvedRunInput } from '../../src/protocol/run-types';
import { childConfig } from '../../src/workflows/rules/subagent-calls';

/** A run's state as the workflow builds it; these tests never continue it as new. */
function runStateOf(input: ResolvedRunInput) {
  return createRunState(input, () => {
    throw new Error('not continued in these tests');
  });
}

/** The seeds' "configured example" (001, Serialized Agent-Config Example), with the tools it gates. */
const SEEDS_EXAMPLE = {
  name: 'ops-supervisor',
  model: 'openai:gpt-4o',
  instructions: 'Plan first, execute carefully, and escalate dangerous actions.',
  max_steps: 12,
  temperature: 0.2,
  max_tokens: 4096,
  planning_enabled: true,
  planning_model: 'openai:gpt-4o-mini',
  planning_instructions: 'Return a short numbered execution plan before acting.',
  budget_awareness: 'limit:70',
  hitl_tools: ['deploy_service', 'rotate_credentials'],
  emit_mcp_progress: true,
  injected_tool_args: {
    ui_request_id: 'Opaque UI correlation id exposed only in tool schemas.',
    run_origin: 'Short label for the caller surface, such as playground or workflow.',
  },
  allow_parallel_subagents: true,
  max_parallel_subagents: 4,
  tools: ['deploy_service', 'rotate_credentials', 'read_logs'],
};

function problemsOf(input: unknown): string[] {
  try {
    parseAgentConfig(input);
  } catch (error) {
    expect(error).toBeInstanceOf(AgentConfigError);
    return (error as AgentConfigError).problems;
  }
  throw new Error('expected the config to be refused');
}

describe('AgentConfig', () => {
  it('fills the defaults of the seeds when only the name is given', () => {
    expect(parseAgentConfig({ name: 'bot' })).toEqual({
      name: 'bot',
      model: 'openai:gpt-4o',
      instructions: '',
      temperature: 1,
      max_tokens: null,
      max_steps: 10,
      max_retries: 3,
      tools: [],
      handoffs: [],
      output_type: null,
      planning_enabled: false,
      planning_model: null,
      planning_instructions: '',
      budget_awareness: null,
      context_window: null,
      hitl_tools: [],
      hitl_timeout: '24h',
      emit_mcp_progress: true,
      injected_tool_args: {},
      mcp_servers: [],
      skill_sources: [],
      skills: null,
      instructions_builder: 'skill-list',
      offload_threshold: 16000,
      allow_parallel_subagents: false,
      max_parallel_subagents: 3,
      memory: false,
      instructions_provider: null,
      hook_errors: 'fail',
      timeouts: {},
      loop_detection: { max_repeats: 10, max_cycle_length: 3 },
      tool_policies: [],
    });
  });

  it.each([
    [{}, 'name'],
    [{ name: 'bot', model: 'gpt-4o' }, 'model'],
    [{ name: 'bot', temperature: 2.5 }, 'temperature'],
    [{ name: 'bot', temperature: -0.1 }, 'temperature'],
    [{ name: 'bot', max_steps: 0 }, 'max_steps'],
    [{ name: 'bot', max_tokens: 0 }, 'max_tokens'],
    [{ name: 'bot', planning_model: 'mini' }, 'planning_model'],
    [{ name: 'bot', budget_awareness: 'limit:101' }, 'budget_awareness'],
    [{ name: 'bot', budget_awareness: 'always' }, 'budget_awareness'],
    [{ name: 'bot', max_parallel_subagents: 8 }, 'max_parallel_subagents'],
    [{ name: 'bot', max_parallel_subagents: 0 }, 'max_parallel_subagents'],
    [{ name: 'bot', injected_tool_args: { 'not valid!': 'x' } }, 'injected_tool_args'],
    [{ name: 'bot', max_step: 3 }, 'max_step: unknown field; did you mean max_steps?'],
    [{ name: 'bot', hitl_timeout: 'soon' }, 'hitl_timeout'],
    [{ name: 'bot', timeouts: { heartbeat: 'soon' } }, 'timeouts.heartbeat'],
    [{ name: 'bot', timeouts: { tool: '500ms' } }, 'timeouts.tool'],
    [{ name: 'bot', timeouts: { model_step: 5 } }, 'timeouts.model_step'],
    [{ name: 'bot', instructions_provider: 'has spaces' }, 'instructions_provider'],
    [{ name: 'bot', hook_errors: 'retry' }, 'hook_errors'],
    [
      { name: 'bot', instructions: 'You are {{agent_nam}}.' },
      'instructions: uses unknown template variable(s) {{agent_nam}} (known: {{agent_name}}, {{date}}, {{resource_id}}, {{thread_id}})',
    ],
    [{ name: 'bot', planning_instructions: 'Plan for {{ customer }}' }, 'planning_instructions: uses unknown template variable(s) {{customer}}'],
    [{ name: 'bot', timeouts: { heartbeats: '10s' } }, 'timeouts'],
    [{ name: 'bot', model: 'scripted:x', budget_awareness: 'per-message' }, 'context_window'],
  ])('refuses %j with an error naming %s', (input, field) => {
    const problems = problemsOf(input);
    expect(problems.some((problem) => problem.startsWith(field))).toBe(true);
  });

  it('accepts the budget modes of the seeds', () => {
    expect(budgetMode(parseAgentConfig({ name: 'a', budget_awareness: 'per-message' }))).toEqual({ kind: 'per-message' });
    expect(budgetMode(parseAgentConfig({ name: 'a', budget_awareness: 'limit:0' }))).toEqual({ kind: 'limit', percent: 0 });
    expect(budgetMode(parseAgentConfig({ name: 'a', budget_awareness: 'limit:100' }))).toEqual({ kind: 'limit', percent: 100 });
    expect(budgetMode(parseAgentConfig({ name: 'a' }))).toEqual({ kind: 'off' });
  });

  it('refuses hitl_tools naming a tool the agent lacks', () => {
    const problems = problemsOf({ name: 'ops', tools: ['read_logs'], hitl_tools: ['deploy_service'] });
    expect(problems).toEqual([expect.stringContaining("hitl_tools.0: names tool 'deploy_service', which agent 'ops' does not have")]);
  });

  it('accepts in hitl_tools the tools a run has besides its tools: memory, spawn_subagents, read_artifact, MCP server__tool', () => {
    const config = parseAgentConfig({
      name: 'ops',
      memory: true,
      allow_parallel_subagents: true,
      mcp_servers: [{ name: 'files', command: 'node' }],
      hitl_tools: ['forget', 'remember', 'spawn_subagents', 'read_artifact', 'files__delete_file'],
    });
    expect(config.hitl_tools).toEqual(['forget', 'remember', 'spawn_subagents', 'read_artifact', 'files__delete_file']);
  });

  it('refuses in hitl_tools the run-time tools the config does not turn on, saying which field would', () => {
    const problems = problemsOf({
      name: 'ops',
      mcp_servers: [{ name: 'files', command: 'node' }],
      handoffs: ['billing'],
      hitl_tools: ['forget', 'spawn_subagents', 'github__create_issue', 'transfer_to_billing'],
    });
    expect(problems).toEqual([
      "hitl_tools.0: names memory tool 'forget', which agent 'ops' has only with memory: true",
      "hitl_tools.1: names 'spawn_subagents', which agent 'ops' has only with allow_parallel_subagents: true",
      "hitl_tools.2: names tool 'github__create_issue', which agent 'ops' does not have (its tools: none) (MCP tools are '<server>__<tool>' with a server of mcp_servers: files)",
      expect.stringContaining("hitl_tools.3: names handoff tool 'transfer_to_billing': a handoff hands the run over and is never gated"),
    ]);
  });

  it('accepts any name in hitl_tools when skills may bring it (skill_sources), checked only at run time', () => {
    expect(parseAgentConfig({ name: 'ops', skill_sources: ['/skills'], hitl_tools: ['deploy_service'] }).hitl_tools).toEqual(['deploy_service']);
    expect(problemsOf({ name: 'ops', skill_sources: ['/skills'], memory: false, hitl_tools: ['recall'] })).toEqual([
      "hitl_tools.0: names memory tool 'recall', which agent 'ops' has only with memory: true",
    ]);
  });

  it('refuses tools listing spawn_subagents while allow_parallel_subagents is false: the flag decides', () => {
    expect(problemsOf({ name: 'boss', tools: ['echo', 'spawn_subagents'] })).toEqual([
      "tools.1: lists 'spawn_subagents' but allow_parallel_subagents is false on agent 'boss': set allow_parallel_subagents: true to give the agent parallel sub-agents (the flag adds the tool; listing it is not needed), or remove it from tools",
    ]);
    expect(problemsOf({ name: 'boss', tools: ['spawn_subagents'], allow_parallel_subagents: false })[0]).toMatch(/^tools\.0: /);
    expect(parseAgentConfig({ name: 'boss', tools: ['spawn_subagents'], allow_parallel_subagents: true }).tools).toEqual(['spawn_subagents']);
    expect(parseAgentConfig({ name: 'boss', tools: ['spawn_self'] }).tools).toEqual(['spawn_self']);
  });

  it('takes the agents a config delegates to by name (subagents) only with allow_parallel_subagents, each once', () => {
    expect(parseAgentConfig({ name: 'boss' }).subagents).toBeUndefined();
    expect(parseAgentConfig({ name: 'boss', allow_parallel_subagents: true, subagents: ['researcher'] }).subagents).toEqual(['researcher']);
    expect(problemsOf({ name: 'boss', subagents: ['researcher'] })).toEqual([
      "subagents: names agents, but allow_parallel_subagents is false on agent 'boss': sub-agents by name are jobs of 'spawn_subagents', which the flag gives",
    ]);
    expect(problemsOf({ name: 'boss', allow_parallel_subagents: true, subagents: [''] })).toEqual([
      'subagents.0: Too small: expected string to have >=1 characters',
    ]);
    expect(problemsOf({ name: 'boss', allow_parallel_subagents: true, subagents: ['researcher', 'researcher'] })).toEqual([
      "subagents: Duplicate sub-agent name 'researcher' on agent 'boss'",
    ]);
  });

  it('refuses duplicate tool and handoff names, naming the tool and the agent', () => {
    expect(problemsOf({ name: 'bot', tools: ['greet', 'greet'] })).toEqual(["tools: Duplicate tool name 'greet' on agent 'bot'"]);
    expect(problemsOf({ name: 'bot', handoffs: ['writer', 'writer'] })).toEqual(["handoffs: Duplicate handoff name 'writer' on agent 'bot'"]);
  });

  it('round-trips the seeds example: parse, serialise, parse is identical (JSON and YAML)', () => {
    const parsed = parseAgentConfig(SEEDS_EXAMPLE);
    expect(parseAgentConfig(JSON.parse(serializeAgentConfig(parsed, 'json')))).toEqual(parsed);
    expect(parseAgentConfig(parseYaml(serializeAgentConfig(parsed, 'yaml')))).toEqual(parsed);
    expect(parsed).toMatchObject(SEEDS_EXAMPLE);
  });

  it('loads config files and names the file in errors', () => {
    const folder = mkdtempSync(path.join(os.tmpdir(), 'config-'));
    try {
      const good = path.join(folder, 'agent.yaml');
      writeFileSync(good, serializeAgentConfig(parseAgentConfig(SEEDS_EXAMPLE), 'yaml'));
      expect(loadAgentConfigFile(good).name).toBe('ops-supervisor');
      const bad = path.join(folder, 'bad.json');
      writeFileSync(bad, JSON.stringify({ name: 'x', temperature: 9 }));
      expect(() => loadAgentConfigFile(bad)).toThrow(`Invalid agent config in ${bad}`);
      expect(() => loadAgentConfigFile(bad)).toThrow('temperature');
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it('says a config file is not valid YAML, with the file, line and column, as an AgentConfigError', () => {
    const folder = mkdtempSync(path.join(os.tmpdir(), 'config-'));
    try {
      const broken = path.join(folder, 'broken.yaml');
      writeFileSync(broken, 'name: bot\ntools: [lookup, refund: yes\nmax_steps: 3\n');
      let thrown: unknown;
      try {
        loadAgentConfigFile(broken);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(AgentConfigError);
      expect((thrown as AgentConfigError).problems).toEqual([
        expect.stringMatching(new RegExp(`^${broken.replace(/[.\\/]/g, '\\$&')}:3:1: the file is not valid YAML \\(nor JSON\\): \\S`)),
      ]);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it('describes an agent as the seeds do', () => {
    const config = parseAgentConfig({ name: 'helper', model: 'anthropic:claude-sonnet-4-20250514', tools: ['get_weather'], max_steps: 5 });
    expect(describeAgent(config)).toEqual({
      name: 'helper',
      model: 'anthropic:claude-sonnet-4-20250514',
      tools: ['get_weather'],
      handoffs: [],
      max_steps: 5,
      output_type: null,
    });
  });
});

describe('run timeouts in the config and on run', () => {
  it('converts the durations the config sets, and only those, to milliseconds', () => {
    const config = parseAgentConfig({ name: 'bot', timeouts: { heartbeat: '5s', tool: '2m' } });
    expect(config.timeouts).toEqual({ heartbeat: '5s', tool: '2m' });
    expect(configTimeouts(config)).toEqual({ heartbeatMs: 5_000, toolMs: 120_000 });
  });

  it('gives configs of runs started before the field no timeouts of their own', () => {
    const { timeouts: _timeouts, ...old } = parseAgentConfig({ name: 'bot' });
    const upgraded = upgradeConfig(old as never);
    expect(upgraded.timeouts).toEqual({});
    expect(configTimeouts(upgraded)).toEqual({});
  });

  it("lets the run's timeouts win over the config's, and the config's over the defaults", () => {
    const config = parseAgentConfig({ name: 'bot', timeouts: { heartbeat: '5s', tool: '2m' } });
    const state = runStateOf({ config, task: 'go', timeouts: { heartbeatMs: 2_000 } });
    expect(state.timeouts).toEqual({ modelStepMs: DEFAULT_TIMEOUTS.modelStepMs, toolMs: 120_000, heartbeatMs: 2_000 });
    expect(runStateOf({ config: parseAgentConfig({ name: 'bot' }), task: 'go' }).timeouts).toEqual(DEFAULT_TIMEOUTS);
  });

  it('takes the options of run as durations and names the option in errors', () => {
    expect(timeoutOptions({})).toBeUndefined();
    expect(timeoutOptions({ heartbeatTimeout: '3s', toolTimeout: '1m', modelStepTimeout: '90s' })).toEqual({
      heartbeatMs: 3_000,
      toolMs: 60_000,
      modelStepMs: 90_000,
    });
    expect(() => timeoutOptions({ heartbeatTimeout: 'fast' })).toThrow(/--heartbeat-timeout: must be a duration/);
    expect(() => timeoutOptions({ toolTimeout: '10ms' })).toThrow(/--tool-timeout: must be at least 1s/);
  });
});

describe('memory in the config', () => {
  it('gives an agent with memory: true the three memory tools after its own, once each', () => {
    const config = parseAgentConfig({ name: 'bot', tools: ['get_weather', 'recall'], memory: true });
    expect(runStateOf({ config, task: 'go', resourceId: 'user:1' }).activeTools).toEqual(['get_weather', 'recall', 'remember', 'forget']);
    expect(runStateOf({ config: parseAgentConfig({ name: 'bot', tools: ['get_weather'] }), task: 'go' }).activeTools).toEqual(['get_weather']);
    const { memory: _memory, ...old } = parseAgentConfig({ name: 'bot' });
    expect(upgradeConfig(old as never).memory).toBe(false);
    expect(() => parseAgentConfig({ name: 'bot', memory: 'yes' })).toThrow(/memory: /);
  });

  it('refuses a run of agents with memory without a resource id, naming each such agent, and a malformed resource id', () => {
    const plain = parseAgentConfig({ name: 'triage' });
    const keeper = parseAgentConfig({ name: 'keeper', memory: true });
    expect(resourceIdProblems([plain], undefined)).toEqual([]);
    expect(resourceIdProblems([plain, keeper], 'user:42')).toEqual([]);
    expect(resourceIdProblems([plain, keeper], undefined)).toEqual([expect.stringMatching(/^resourceId: agent 'keeper' has memory: true/)]);
    expect(resourceIdProblems([plain], '')).toEqual([expect.stringMatching(/^resourceId: must not be empty/)]);
    expect(resourceIdProblems([plain], 'x'.repeat(257))).toEqual([expect.stringMatching(/^resourceId: must be at most 256 characters/)]);
  });

  it('gives a sub-agent the memory tools its job names (all of them by default), not all three whatever the job says', () => {
    const parent = parseAgentConfig({ name: 'boss', tools: ['echo'], memory: true });
    const safe = ['echo', 'remember', 'recall', 'forget'];
    expect(childConfig(parent, { task: 'look up', tool_names: ['recall'] }, safe)).toMatchObject({ tools: ['recall'], memory: false });
    expect(childConfig(parent, { task: 'anything' }, safe)).toMatchObject({ tools: safe, memory: false });
    expect(childConfig(parseAgentConfig({ name: 'boss', tools: ['echo'] }), { task: 'x' }, ['echo']).memory).toBe(false);
  });
});

describe('bad configs refused by name', () => {
  const folder = mkdtempSync(path.join(os.tmpdir(), 'config-refusals-'));
  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  function loadText(name: string, text: string): string {
    const file = path.join(folder, name);
    writeFileSync(file, text);
    try {
      loadAgentConfigFile(file);
      return 'accepted';
    } catch (error) {
      expect(error).toBeInstanceOf(AgentConfigError);
      return (error as Error).message;
    }
  }

  it('says a file holding a list must be a mapping', () => {
    const message = loadText('list.yaml', '- name: helper\n- model: openai:gpt-4o\n');
    expect(message).toContain(`Invalid agent config in ${path.join(folder, 'list.yaml')}`);
    expect(message).toContain('(root): the config is a list: it must be a mapping of fields');
    expect(message).not.toContain('Unrecognized key');
  });

  it('says an empty file is empty', () => {
    expect(loadText('empty.yaml', '')).toContain('(root): the config is empty');
    expect(loadText('comment.yaml', '# nothing yet\n')).toContain('(root): the config is empty');
    expect(problemsOf('helper')).toEqual([expect.stringContaining('(root): the config is a single string')]);
  });

  it('suggests the closest field for an unknown one, at the root and inside timeouts and mcp_servers', () => {
    expect(problemsOf({ name: 'bot', max_stepz: 3 })).toEqual(['max_stepz: unknown field; did you mean max_steps?']);
    expect(problemsOf({ name: 'bot', modle: 'openai:gpt-4o' })).toEqual(['modle: unknown field; did you mean model?']);
    expect(problemsOf({ name: 'bot', 'hitl-tools': [] })).toEqual(['hitl-tools: unknown field; did you mean hitl_tools?']);
    expect(problemsOf({ name: 'bot', timeouts: { tol: '1m' } })).toEqual(['timeouts.tol: unknown field; did you mean tool?']);
    expect(problemsOf({ name: 'bot', mcp_servers: [{ name: 'fs', comand: 'x', command: 'y' }] })).toEqual([
      'mcp_servers.0.comand: unknown field; did you mean command?',
    ]);
    expect(problemsOf({ name: 'bot', colour: 'blue' })[0]).toMatch(
      /^colour: unknown field \(known here: name, model, .*timeouts, pricing, cost_limit, thread_cost_limit.*\)$/,
    );
  });

  it('refuses an output_type that is not a valid JSON Schema when the file is loaded', () => {
    const message = loadText('typed.yaml', 'name: typed\noutput_type:\n  type: objekt\n');
    expect(message).toContain('output_type: is not a valid JSON Schema: schema is invalid: data/type must be equal to one of the allowed values');
    expect(loadText('typed-ok.yaml', 'name: typed\noutput_type:\n  type: object\n  required: [city]\n')).toBe('accepted');
  });
});
