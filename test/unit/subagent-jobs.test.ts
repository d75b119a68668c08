import { describe, expect, it } from '@jest/globals';
import { parseJobs } from '../../src/workflows/rules/subagent-calls';

/** The jobs of sub-agent calls that name an agent (the config's `subagents`), read by the workflow's pure rule. */
const parallel = (jobs: unknown[]) => ({ id: 'call-1', name: 'spawn_subagents', args: { jobs } });

describe('sub-agent jobs by name', () => {
  it('takes a job naming one of the agents this agent may delegate to, beside copies of itself', () => {
    const parsed = parseJobs(
      parallel([
        { task: 'dig', agent: 'researcher' },
        { task: 'copy', tool_names: ['echo'] },
      ]),
      3,
      ['echo', 'add'],
      ['researcher'],
    );
    expect(parsed).toEqual({
      jobs: [
        { task: 'dig', agent: 'researcher' },
        { task: 'copy', tool_names: ['echo'] },
      ],
    });
  });

  it('refuses an agent outside subagents, naming the ones it may', () => {
    expect(parseJobs(parallel([{ task: 'dig', agent: 'writer' }]), 3, ['echo'], ['researcher'])).toEqual({
      error: "spawn_subagents: jobs[0].agent 'writer' is not an agent this agent may delegate to (its subagents: researcher)",
    });
  });

  it("ignores a job's agent when the config has no subagents, as runs recorded before them read it", () => {
    expect(parseJobs(parallel([{ task: 'dig', agent: 'writer' }]), 3, ['echo'])).toEqual({ jobs: [{ task: 'dig' }] });
    expect(parseJobs({ id: 'call-2', name: 'spawn_self', args: { task: 'dig', agent: 'writer' } }, 3, ['echo'])).toEqual({ jobs: [{ task: 'dig' }] });
  });

  it('refuses the fields that shape a copy beside a named agent, and a name on spawn_self', () => {
    expect(
      parseJobs(parallel([{ task: 'dig', agent: 'researcher', tool_names: ['echo'], system_prompt: 'x' }]), 3, ['echo', 'add'], ['researcher']),
    ).toEqual({
      error:
        "spawn_subagents: jobs[0].agent 'researcher' cannot go with tool_names, system_prompt: a named agent has its own tools, instructions and output",
    });
    expect(parseJobs({ id: 'call-2', name: 'spawn_self', args: { task: 'dig', agent: 'researcher' } }, 3, ['echo'], ['researcher'])).toEqual({
      error: 'spawn_self.agent cannot be given: spawn_self runs a copy of this agent; name agents in spawn_subagents jobs',
    });
  });
});
