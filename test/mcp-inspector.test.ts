import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { defineAgent } from '../src/agents/define-agent';
import { createTestEnvironment, type TestEnvironment } from './support/test-env';

/**
 * A third-party MCP host, the official MCP Inspector in its CLI mode, starts `durable-agents mcp`
 * over stdio from a host config file (as desktop hosts do), lists the agents and calls one.
 */

const ROOT = path.resolve(__dirname, '..');
const INSPECTOR = path.join(ROOT, 'node_modules/@modelcontextprotocol/inspector/cli/build/cli.js');
const run = promisify(execFile);
let env: TestEnvironment;
let folder: string;
let configFile: string;

beforeAll(async () => {
  env = await createTestEnvironment({
    tools: [],
    agents: [
      defineAgent({ config: { name: 'greeter', model: 'scripted:greet', description: 'Greets whoever writes.' } }),
      defineAgent({ config: { name: 'hidden', model: 'scripted:greet', expose: ['a2a'] } }),
    ],
    scripts: { greet: { replies: [{ text: 'Hello: {{user}}' }] } },
  });
  folder = mkdtempSync(path.join(os.tmpdir(), 'mcp-inspector-'));
  configFile = path.join(folder, 'mcp.json');
  const tsx = pathToFileURL(path.join(ROOT, 'node_modules/tsx/dist/loader.mjs')).href;
  const server = {
    command: process.execPath,
    args: ['--import', tsx, path.join(ROOT, 'src/cli/cli.ts'), 'mcp', '--task-queue', env.taskQueue],
    env: { TEMPORAL_ADDRESS: process.env.TEMPORAL_ADDRESS!, PATH: process.env.PATH! },
  };
  writeFileSync(configFile, JSON.stringify({ mcpServers: { agents: server } }));
});

afterAll(async () => {
  await env?.close();
  if (folder) rmSync(folder, { recursive: true, force: true });
});

/** The Inspector's CLI mode against the `agents` server of the config file; its stdout as JSON. */
async function inspect(...args: string[]): Promise<Record<string, any>> {
  const { stdout } = await run(process.execPath, [INSPECTOR, '--cli', '--config', configFile, '--server', 'agents', ...args], {
    cwd: folder,
    timeout: 120_000,
  });
  return JSON.parse(stdout) as Record<string, any>;
}

describe('the MCP Inspector (CLI mode) over stdio', () => {
  it('lists the exposed agents and calls one', async () => {
    const listed = await inspect('--method', 'tools/list');
    expect(listed.tools.map((tool: { name: string }) => tool.name)).toEqual(['greeter']);
    expect(listed.tools[0]).toMatchObject({ description: 'Greets whoever writes.', inputSchema: { required: ['task'] } });
    const called = await inspect('--method', 'tools/call', '--tool-name', 'greeter', '--tool-arg', 'task=Hello from the Inspector');
    expect(called).toMatchObject({ content: [{ type: 'text', text: 'Hello: Hello from the Inspector' }] });
  });
});
