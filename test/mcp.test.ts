import type { ChildProcess } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { MockActivityEnvironment } from '@temporalio/testing';
import { createMcpActivities } from '../src/activities/mcp-activities';
import type { StartRunOptions } from '../src/client/agent-client';
import { McpConnections } from '../src/mcp/mcp-connections';
import type { McpServerConfig } from '../src/config/agent-config';
import type { RunEvent } from '../src/protocol/run-events';
import type { AgentRunResult, ToolResult } from '../src/protocol/run-types';
import { followCollecting } from './support/follow-run';
import { recordHistory } from './support/history-recorder';
import { spawnInGroup, stopProcessGroup } from './support/process-group';
import { createTestEnvironment, type TestEnvironment } from './support/test-env';

let env: TestEnvironment;
let httpServer: ChildProcess | undefined;
let httpUrl = '';

const testServer = { name: 'test', command: process.execPath, args: ['--import', 'tsx', path.join(__dirname, 'support', 'mcp-test-server.ts')] };

/** Starts the streamable-HTTP test server as a child process; resolves with its URL. */
function startHttpServer(): Promise<string> {
  httpServer = spawnInGroup(process.execPath, ['--import', 'tsx', path.join(__dirname, 'support', 'mcp-http-server.ts')], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    httpServer!.stdout!.once('data', (chunk: Buffer) => resolve(chunk.toString().trim()));
    httpServer!.once('exit', (code) => reject(new Error(`MCP HTTP server exited with ${code}`)));
  });
}

beforeAll(async () => {
  httpUrl = await startHttpServer();
  env = await createTestEnvironment({
    tools: [],
    scripts: {
      mcp: {
        replies: [
          {
            toolCalls: [
              { name: 'test__shout', args: { text: 'hello' } },
              { name: 'test__count', args: { n: 3 } },
              { name: 'test__fail', args: {} },
            ],
            expect: { toolsInclude: ['test__shout', 'test__count', 'test__fail', 'test__crash'] },
          },
          { text: '{{tool:test__shout}} / {{tool:test__count}}' },
        ],
      },
      injectedArgs: {
        replies: [{ toolCalls: [{ name: 'test__arguments', args: { text: 'hi', ui_request_id: 'req-7' } }] }, { text: '{{tool:test__arguments}}' }],
      },
      slowCount: { replies: [{ toolCalls: [{ name: 'test__count', args: { n: 6, pause_ms: 400 } }] }, { text: '{{tool:test__count}}' }] },
      http: { replies: [{ toolCalls: [{ name: 'web__shout', args: { text: 'over http' } }] }, { text: '{{tool:web__shout}}' }] },
      down: { replies: [{ toolCalls: [{ name: 'down__anything', args: {} }] }, { text: 'carried on' }] },
      crash: {
        replies: [
          { toolCalls: [{ name: 'test__crash', args: {} }] },
          { toolCalls: [{ name: 'test__shout', args: { text: 'back' } }] },
          { text: '{{tool:test__shout}}' },
        ],
      },
    },
  });
});

afterAll(async () => {
  await env?.close();
  // Wait for the HTTP server process to exit: its open pipes would keep this test process alive.
  if (httpServer) await stopProcessGroup(httpServer);
});

async function complete(historyName: string, options: StartRunOptions): Promise<{ result: AgentRunResult; events: RunEvent[] }> {
  const run = await env.agents.startRun(options);
  const result = await run.result();
  const events: RunEvent[] = [];
  for await (const event of run.events()) events.push(event);
  await recordHistory(historyName, run);
  return { result, events };
}

describe('MCP tools', () => {
  it('lists namespaced tools from a real stdio server, calls them in parallel and reports progress', async () => {
    const { result, events } = await complete('mcp-progress-on', {
      config: { name: 'mcp-user', model: 'scripted:mcp', mcp_servers: [testServer] },
      task: 'Use MCP',
    });
    expect(result.output).toBe('HELLO / counted to 3');
    expect(result.toolResults.map((toolResult) => [toolResult.toolName, toolResult.isError])).toEqual([
      ['test__shout', false],
      ['test__count', false],
      ['test__fail', true],
    ]);
    expect(result.toolResults[2]?.content).toBe('Error: the disk is full');
    const progress = events.filter((event) => event.type === 'mcp-progress');
    expect(progress.map((event) => event.type === 'mcp-progress' && [event.toolName, event.progress.progress, event.progress.total])).toEqual([
      ['test__count', 1, 3],
      ['test__count', 2, 3],
      ['test__count', 3, 3],
    ]);
  });

  it('suppresses only the progress events when emit_mcp_progress is false', async () => {
    const { result, events } = await complete('mcp-progress-off', {
      config: { name: 'mcp-user', model: 'scripted:mcp', mcp_servers: [testServer], emit_mcp_progress: false },
      task: 'Use MCP',
    });
    expect(result.output).toBe('HELLO / counted to 3');
    expect(events.some((event) => event.type === 'mcp-progress')).toBe(false);
  });

  it.each([
    ['shows progress live to a follower while the call runs, each note once', true],
    ['shows no live progress when emit_mcp_progress is false', false],
  ])('%s', async (_title, emit) => {
    const run = await env.agents.startRun({
      config: { name: 'counter', model: 'scripted:slowCount', mcp_servers: [testServer], emit_mcp_progress: emit },
      task: 'Count slowly',
    });
    const { printed, progress, result } = await followCollecting(run);
    expect(result.output).toBe('counted to 6');
    const counts = progress.map((snapshot) => snapshot.count);
    const lines = printed.split('\n');
    if (emit) {
      // Seen while the call ran (the call takes 2.4 s), in order.
      expect(counts.length).toBeGreaterThanOrEqual(3);
      expect([...counts].sort((a, b) => a - b)).toEqual(counts);
      for (let done = 1; done <= 6; done++) expect(lines.filter((line) => line === `… test__count: ${done}/6 counted ${done}`)).toHaveLength(1);
    } else {
      expect(counts).toEqual([]);
      expect(printed).not.toContain('… test__count');
    }
  });

  it("shows the injected args in every MCP tool's schema and splits them off before the server is called", async () => {
    const before = env.modelCalls.length;
    const { result } = await complete('mcp-injected-args', {
      config: {
        name: 'mcp-user',
        model: 'scripted:injectedArgs',
        mcp_servers: [testServer],
        injected_tool_args: { ui_request_id: 'Correlation id' },
      },
      task: 'Use MCP',
    });
    const offered = env.modelCalls[before]!.request.tools.filter((tool) => tool.name.startsWith('test__'));
    expect(offered.map((tool) => tool.name)).toEqual(expect.arrayContaining(['test__shout', 'test__count', 'test__arguments']));
    for (const tool of offered) {
      expect(tool.parameters.properties).toMatchObject({ ui_request_id: { type: 'string', description: 'Correlation id' } });
      expect((tool.parameters.required as string[] | undefined) ?? []).not.toContain('ui_request_id');
    }
    // The server answers with every argument it got (its schema keeps unknown ones): only the executable one.
    expect(result.output).toBe('{"text":"hi"}');
    expect(result.toolResults[0]).toMatchObject({ toolName: 'test__arguments', isError: false });
    expect(result.toolResults[0]?.metadata.injected_args).toEqual({ ui_request_id: 'req-7' });
  });

  it('calls tools of a streamable HTTP server named by URL', async () => {
    const { result } = await complete('mcp-http', {
      config: { name: 'mcp-user', model: 'scripted:http', mcp_servers: [{ name: 'web', url: httpUrl }] },
      task: 'Over HTTP',
    });
    expect(result.output).toBe('OVER HTTP');
  });

  it('reports a server that is down and gives error results instead of crashing the run', async () => {
    const { result, events } = await complete('mcp-down', {
      config: { name: 'mcp-user', model: 'scripted:down', mcp_servers: [{ name: 'down', command: '/nonexistent/mcp-server' }] },
      task: 'Try',
    });
    expect(result.output).toBe('carried on');
    expect(result.toolResults[0]).toMatchObject({ isError: true, errorCode: 'ToolNotFoundError' });
    expect(events.find((event) => event.type === 'mcp-server-unavailable')).toMatchObject({ server: 'down' });
  });

  it('turns a server that dies mid-call into an error result, and reconnects for the next call', async () => {
    const { result } = await complete('mcp-crash', {
      config: { name: 'mcp-user', model: 'scripted:crash', mcp_servers: [testServer] },
      task: 'Crash',
    });
    expect(result.toolResults[0]).toMatchObject({ toolName: 'test__crash', isError: true });
    expect(result.toolResults[1]).toMatchObject({ toolName: 'test__shout', isError: false, content: 'BACK' });
    expect(result.output).toBe('BACK');
  });
});

describe('MCP progress notes', () => {
  it('keeps every note of a call, also those that arrive in the same read as its result', async () => {
    const mcp = new McpConnections();
    const { callMcpTool } = createMcpActivities({ mcp });
    const server = { ...testServer, env_from_worker: [] } as unknown as McpServerConfig;
    // A busy worker: its event loop is blocked now and then, so the server's notes and its result
    // queue up in the pipe and are read together (the MCP SDK dropped such notes).
    const busy = setInterval(() => {
      const until = Date.now() + 15;
      while (Date.now() < until);
    }, 5);
    const counts: number[] = [];
    try {
      for (let call = 1; call <= 10; call++) {
        const activity = new MockActivityEnvironment({ heartbeatTimeoutMs: 10_000, startToCloseTimeoutMs: 60_000 });
        const result: ToolResult = await activity.run(callMcpTool, {
          server,
          mcpName: 'count',
          call: { id: `call-${call}`, name: 'test__count', args: { n: 5, pause_ms: 0 } },
          step: 1,
          injectedArgNames: [],
        });
        expect(result.content).toBe('counted to 5');
        counts.push(result.progress?.length ?? 0);
        expect(result.progress?.at(-1)).toEqual({ progress: 5, total: 5, message: 'counted 5' });
      }
    } finally {
      clearInterval(busy);
      await mcp.closeAll();
    }
    expect(counts).toEqual(Array(10).fill(5));
  });
});
