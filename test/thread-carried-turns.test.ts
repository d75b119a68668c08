import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { AgentThreadWorkflowInput } from '../src/protocol/thread-types';
import type { TurnHandle } from '../src/client/turn-handle';
import { jsonBytes } from '../src/protocol/payload-size';
import { recordHistory } from './support/history-recorder';
import { createTestEnvironment, type TestEnvironment } from './support/test-env';
import { createTestTools } from './support/test-tools';

const TURNS = 4;
const CALLS_PER_TURN = 5;
/** Long enough that each result is cut to the kept 1,000 characters: the worst case per result. */
const LONG_TEXT = 'x'.repeat(3_000);
const testTools = createTestTools();
let env: TestEnvironment;

beforeAll(async () => {
  // Each turn: one step calling echo five times, then the answer.
  const turn = [
    { toolCalls: Array.from({ length: CALLS_PER_TURN }, (_, call) => ({ name: 'echo', args: { text: `${call} ${LONG_TEXT}` } })) },
    { text: 'Echoed for {{user}}' },
  ];
  env = await createTestEnvironment({ tools: testTools.tools, scripts: { echoing: { replies: Array.from({ length: TURNS }, () => turn).flat() } } });
});

afterAll(async () => {
  await env?.close();
});

describe('a continued thread', () => {
  it("carries its recent turns' tool results by reference, and gives a turn handle them back", async () => {
    const thread = env.agents.thread(`carried-turns-${randomUUID().slice(0, 8)}`, {
      config: { name: 'echoing', model: 'scripted:echoing', tools: ['echo'] },
      historyEventLimit: 40,
    });
    // Queued at once, answered in order; only the newest turn is awaited now: the earlier ones are
    // asked for after the thread continued as new.
    const handles: TurnHandle[] = [];
    for (let turn = 1; turn <= TURNS; turn++) handles.push(await thread.send(`message ${turn}`));
    expect((await handles.at(-1)!.result()).output).toBe(`Echoed for message ${TURNS}`);

    const executions = await executionsOf(thread.threadId);
    expect(executions.length).toBeGreaterThan(1);
    const newest = executions.at(-1)!;
    const history = await env.client.workflow.getHandle(thread.threadId, newest).fetchHistory();
    const input = env.client.options.loadedDataConverter.payloadConverter.fromPayload<AgentThreadWorkflowInput>(
      history.events![0]!.workflowExecutionStartedEventAttributes!.input!.payloads![0]!,
    );
    const carriedTurns = input.carriedThread!.recentTurns;
    expect(carriedTurns.length).toBeGreaterThan(0);
    for (const carried of carriedTurns) expect(carried).toMatchObject({ toolResults: [], toolResultsStored: CALLS_PER_TURN });
    expect(input.carriedThread!.turnToolResults).toMatchObject({ count: CALLS_PER_TURN * carriedTurns.length });
    // Each result is ~1.4 KB even cut: copies would be 7 KB a turn; references a few hundred bytes.
    expect(jsonBytes(input.carriedThread)).toBeLessThan(2_000 + 600 * carriedTurns.length);

    // An earlier turn's handle, asked now, gets the turn's whole result from the newest execution.
    const first = await handles[0]!.result();
    expect(first.output).toBe('Echoed for message 1');
    expect(first.toolResults.map((result) => result.content.slice(0, 2))).toEqual(Array.from({ length: CALLS_PER_TURN }, (_, call) => `${call} `));
    expect(first.toolResultsStored).toBeUndefined();
    // The transcript keeps whole results, not the carried copies without them.
    const transcript = await thread.history();
    for (const turn of transcript.turns) expect(turn.result?.toolResults).toHaveLength(CALLS_PER_TURN);

    await recordHistory('thread-carried-turns', thread.run);
    await thread.close();
  }, 240_000);
});

async function executionsOf(threadId: string): Promise<string[]> {
  const runs: Array<{ runId: string; startTime: Date }> = [];
  for await (const execution of env.client.workflow.list({ query: `WorkflowId = '${threadId}'` }))
    runs.push({ runId: execution.runId, startTime: execution.startTime });
  return runs.sort((a, b) => a.startTime.getTime() - b.startTime.getTime()).map((run) => run.runId);
}
