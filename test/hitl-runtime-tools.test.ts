import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { RunHandle } from '../src/client/agent-client';
import { FolderMemoryStore } from '../src/memory/folder-memory-store';
import { createTestEnvironment, eventually, type TestEnvironment } from './support/test-env';

/**
 * `hitl_tools` naming tools that exist only at run time (issue 41, item 11): a memory tool of an
 * agent with `memory: true`, and an MCP `server__tool`. The config is accepted, and the call
 * really waits for a human before the tool runs.
 */

let folder: string;
let memory: FolderMemoryStore;
let env: TestEnvironment;
const mcpServer = { name: 'test', command: process.execPath, args: ['--import', 'tsx', path.join(__dirname, 'support', 'mcp-test-server.ts')] };

beforeAll(async () => {
  folder = mkdtempSync(path.join(os.tmpdir(), 'hitl-runtime-tools-'));
  memory = new FolderMemoryStore(path.join(folder, 'memory'));
  env = await createTestEnvironment({
    tools: [],
    memory,
    scripts: {
      gatedRemember: {
        replies: [{ toolCalls: [{ name: 'remember', args: { text: 'Prefers tea.' } }] }, { text: 'Noted: {{tool:remember}}' }],
      },
      gatedShout: { replies: [{ toolCalls: [{ name: 'test__shout', args: { text: 'hello' } }] }, { text: 'Said: {{tool:test__shout}}' }] },
    },
  });
});

afterAll(async () => {
  await env?.close();
  await memory?.close();
  rmSync(folder, { recursive: true, force: true });
});

/** The run's one pending approval, once it waits for it (generous limit: a busy machine). */
async function pendingApproval(run: RunHandle) {
  return eventually(async () => {
    const status = await run.status();
    return status.pendingApprovals.length === 1 ? status.pendingApprovals[0] : undefined;
  }, 60_000);
}

describe('hitl_tools naming tools a run has at run time', () => {
  it('holds a memory tool call until it is approved, and stores nothing before', async () => {
    const run = await env.agents.startRun({
      config: { name: 'keeper', model: 'scripted:gatedRemember', memory: true, hitl_tools: ['remember'] },
      task: 'Remember that I prefer tea.',
      resourceId: 'user:hitl-memory',
    });
    const request = await pendingApproval(run);
    expect(request).toMatchObject({ toolName: 'remember', approvalId: 'step-1.call-1' });
    expect(await memory.recall({ resource: 'user:hitl-memory', text: 'tea' })).toEqual([]);

    await run.approve('step-1.call-1', { decidedBy: 'alice' });
    const result = await run.result();
    expect(result.stopReason).toBe('completed');
    expect(result.output).toContain('Noted:');
    expect((await memory.recall({ resource: 'user:hitl-memory', text: 'tea' })).map((entry) => entry.text)).toEqual(['Prefers tea.']);
  }, 120_000);

  it('holds an MCP server__tool call until it is approved, then calls the server', async () => {
    const run = await env.agents.startRun({
      config: { name: 'speaker', model: 'scripted:gatedShout', mcp_servers: [mcpServer], hitl_tools: ['test__shout'] },
      task: 'Shout hello.',
    });
    const request = await pendingApproval(run);
    expect(request).toMatchObject({ toolName: 'test__shout', args: { text: 'hello' } });
    // Still held: no answer without a decision.
    expect((await run.status()).stopReason).toBeNull();

    await run.approve(request.approvalId, { decidedBy: 'alice' });
    const result = await run.result();
    expect(result.stopReason).toBe('completed');
    expect(result.output).toBe('Said: HELLO');
  }, 120_000);
});
