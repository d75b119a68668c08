import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { formatPendingApprovals } from '../src/cli/commands/approval-commands';
import { formatStatus } from '../src/cli/commands/status-command';
import { formatRunEvent } from '../src/cli/event-printer';
import type { ApprovalRequest, RunStatus } from '../src/protocol/run-types';
import { demoTools } from '../src/tools/demo-tools';
import { runCli } from './support/cli-process';
import { createTestEnvironment, eventually, type TestEnvironment } from './support/test-env';

let env: TestEnvironment;
let folder: string;

beforeAll(async () => {
  folder = mkdtempSync(path.join(os.tmpdir(), 'cli-'));
  env = await createTestEnvironment({ tools: demoTools });
});

afterAll(async () => {
  await env?.close();
  rmSync(folder, { recursive: true, force: true });
});

describe('CLI', () => {
  it('runs the demo agent with --follow, then shows its status and a readable history', async () => {
    const run = await runCli(
      [
        'run',
        '--config',
        'examples/weather-agent.yaml',
        '--task',
        'Weather in Tokyo?',
        '--follow',
        '--task-queue',
        env.taskQueue,
        '--workflow-id',
        `cli-${Date.now()}`,
      ],
      { TEMPORAL_UI_URL: 'http://127.0.0.1:8233' },
    );
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const workflowId = /Started run (\S+)/.exec(run.stdout)?.[1];
    expect(workflowId).toBeDefined();
    expect(run.stdout).toContain(`Web UI: http://127.0.0.1:8233/namespaces/default/workflows/${workflowId}/`);
    expect(run.stdout).toContain('→ get_weather({"city":"Tokyo"})');
    expect(run.stdout).toContain('Answer (completed, 3 steps');
    expect(run.stdout).toContain('"utc_offset":"+09:00"');
    // The streamed answer is printed once as it is written, and once more in the result block.
    expect(run.stdout.split('Tokyo right now:').length - 1).toBe(2);

    const status = await runCli(['status', workflowId!, '--json']);
    expect(status.code).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({ execution: 'COMPLETED', phase: 'completed', step: 3, stopReason: 'completed' });

    const history = await runCli(['history', workflowId!]);
    expect(history.code).toBe(0);
    // The config's relative script file is found next to the config, whatever the working directory.
    expect(history.stdout).toContain(`step 1 · model scripted:${path.resolve('examples/demo-model.yaml')}`);
    expect(history.stdout).toMatch(/step 1 · tool get_weather\(\{"city":"Tokyo"\}\) ✓/);
    expect(history.stdout).toMatch(/step 1 · tool get_timezone\(\{"city":"Tokyo"\}\) ✓/);
    expect(history.stdout).toContain('[status success · approval not_required]');
    expect(history.stdout).toContain('completed: completed after 3 steps');
  });

  it('overrides the model with --model and lists tokens by model when a run used several', async () => {
    const executor = path.join(folder, 'executor.yaml');
    const planner = path.join(folder, 'planner.yaml');
    writeFileSync(executor, 'replies:\n  - text: Done as planned.\n    usage: { inputTokens: 30, outputTokens: 4 }\n');
    writeFileSync(planner, 'replies:\n  - text: unused\nplanner:\n  - text: "1. Answer"\n    usage: { inputTokens: 12, outputTokens: 3 }\n');
    const config = path.join(folder, 'planned.yaml');
    writeFileSync(config, `name: planned\nmodel: scripted:unused.yaml\nplanning_enabled: true\nplanning_model: scripted:${planner}\n`);
    const run = await runCli([
      'run',
      '--config',
      config,
      '--task',
      'Plan it',
      '--model',
      `scripted:${executor}`,
      '--follow',
      '--task-queue',
      env.taskQueue,
    ]);
    expect(run.stderr).toBe('');
    expect(run.stdout).toContain('Done as planned.');
    expect(run.stdout).toContain(`Tokens by model: scripted:${planner} 12 in / 3 out, $0.0000; scripted:${executor} 30 in / 4 out, $0.0000`);
  });

  it('refuses an invalid config before any workflow starts, naming the file and the field (exit 2)', async () => {
    const config = path.join(folder, 'bad.yaml');
    const name = `invalid-${Date.now()}`;
    writeFileSync(config, `name: ${name}\nmodel: scripted:x\ntools: [get_weather]\nhitl_tools: [deploy]\ntemperature: 3\n`);
    const result = await runCli(['run', '--config', config, '--task', 'x', '--task-queue', env.taskQueue]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`Invalid agent config in ${config}`);
    expect(result.stderr).toContain('temperature');
    expect(result.stderr).toContain("hitl_tools.0: names tool 'deploy'");
    // Nothing was started: visibility knows no run of that agent.
    const count = await env.client.workflow.count(`AgentName = '${name}'`);
    expect(count.count).toBe(0);
  });

  it('continues a run as new at --history-event-limit, and refuses a limit that is not a number of events (exit 2)', async () => {
    const workflowId = `cli-limit-${Date.now()}`;
    const run = await runCli([
      'run',
      '--config',
      'examples/weather-agent.yaml',
      '--task',
      'Weather in Tokyo?',
      '--follow',
      '--task-queue',
      env.taskQueue,
      '--workflow-id',
      workflowId,
      '--history-event-limit',
      '20',
    ]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Answer (completed, 3 steps');
    // Visibility catches up shortly after the executions close.
    const executions = await eventually(async () => {
      const { count } = await env.client.workflow.count(`WorkflowId = '${workflowId}'`);
      return count > 1 ? count : undefined;
    });
    expect(executions).toBeGreaterThan(1);
    const refused = await runCli([
      'run',
      '--config',
      'examples/weather-agent.yaml',
      '--task',
      'x',
      '--history-event-limit',
      'lots',
      '--history-size-limit',
      '3GB',
    ]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("--history-event-limit: expected a whole number of events, at least 20 (got 'lots')");
    expect(refused.stderr).toContain("--history-size-limit: expected a size of at least 100KB, such as 2MB or 512KB (got '3GB')");
  });

  it('finds runs by the AgentName search attribute in visibility', async () => {
    const run = await env.agents.startRun({
      config: { name: 'findable', model: 'scripted:examples/demo-model.yaml', tools: demoTools.map((tool) => tool.name) },
      task: 'Weather?',
    });
    await run.result();
    await eventually(async () => (await env.client.workflow.count(`AgentName = 'findable' AND AgentStatus = 'completed'`)).count > 0);
  });

  it('watches a run: its events and its result', async () => {
    const run = await env.agents.startRun({
      config: { name: 'watched', model: 'scripted:examples/demo-model.yaml', tools: demoTools.map((tool) => tool.name) },
      task: 'Weather?',
    });
    const watched = await runCli(['watch', run.workflowId]);
    expect(watched.code).toBe(0);
    expect(watched.stdout).toContain('▶ watched started on scripted:examples/demo-model.yaml');
    expect(watched.stdout).toContain('← get_timezone ✓');
    expect(watched.stdout).toContain('■ finished: completed');
    expect(watched.stdout).toContain('Answer (completed, 3 steps');
  });
});

describe('human output of status and approvals', () => {
  const now = Date.parse('2026-05-01T10:00:00Z');
  const approval: ApprovalRequest = {
    approvalId: 'step-2.call-1',
    toolName: 'deploy_service',
    callId: 'call_2_1',
    step: 2,
    args: { service: 'api' },
    injectedArgs: { reasoning: 'The tests passed and the change is a one-line fix.' },
    requestedAt: now - 90_000,
    expiresAt: now + 240_000,
  };
  const status: RunStatus = {
    phase: 'tools',
    step: 2,
    maxSteps: 10,
    activeTools: ['deploy_service', 'read_logs'],
    runningTools: [],
    usage: { inputTokens: 120, outputTokens: 30, byModel: {} },
    messageCount: 5,
    stopReason: null,
    pendingApprovals: [approval],
    plan: { text: '1. Read the logs\n2. Deploy', steps: ['Read the logs', 'Deploy'], model: 'scripted:planner', plannerSteps: 1 },
    budget: { promptTokens: 2_000, contextWindow: 8_000 },
    queuedMessages: 1,
    skills: [{ source: 'skills/ops', version: 3, hash: 'abc', names: ['deploy', 'rollback'] }],
  };

  it('shows the plan, pending approvals with their injected args, skills and queued messages in the human status', () => {
    const text = formatStatus('ops-1', 'RUNNING', status, { now, runUrl: null });
    expect(text).toContain('Run ops-1: RUNNING, phase tools, step 2 of 10');
    expect(text).toContain('Context: 2000 of 8000 tokens (25%)');
    expect(text).toContain('Plan (scripted:planner, 1 planner steps):\n  1. Read the logs\n  2. Deploy');
    expect(text).toContain('Pending approvals (1):\n  step-2.call-1  deploy_service({"service":"api"})  expires 2026-05-01T10:04:00.000Z (in 4m)');
    expect(text).toContain('    reasoning: The tests passed and the change is a one-line fix.');
    expect(text).toContain('durable-agents approve ops-1 step-2.call-1');
    expect(text).toContain('Skills:\n  skills/ops (version 3): deploy, rollback');
    expect(text).toContain('Queued messages: 1');
  });

  it('lists the injected args a human needs to decide an approval', () => {
    const text = formatPendingApprovals([{ workflowId: 'ops-1', runId: 'r', approvals: [approval], unreachable: false }], now);
    const [header, row] = text.split('\n');
    expect(header).toMatch(/^RUN\s+APPROVAL\s+TOOL\s+ARGUMENTS\s+INJECTED\s+AGE\s+EXPIRES$/);
    expect(row).toMatch(/^ops-1\s+step-2\.call-1\s+deploy_service\s+\{"service":"api"\}\s+reasoning\s+1m 30s\s+in 4m$/);
    expect(text).toContain(
      'step-2.call-1 in ops-1 (deploy_service, expires 2026-05-01T10:04:00.000Z):\n  reasoning: The tests passed and the change is a one-line fix.',
    );
    expect(formatPendingApprovals([], now)).toBe('No pending approvals.');
  });

  it('says which hook and which tool-policy rule required an approval for a tool outside hitl_tools', () => {
    const required: ApprovalRequest = {
      ...approval,
      injectedArgs: {},
      requiredBy: [
        { kind: 'hook', hook: 'refund-limit', action: 'require_approval', reason: 'refunds over 100 need approval', modified: false },
        { kind: 'policy', rule: 0, action: 'require_approval', reason: 'Refunds over 100 need a second pair of eyes' },
      ],
    };
    const text = formatPendingApprovals([{ workflowId: 'ops-1', runId: 'r', approvals: [required], unreachable: false }], now);
    expect(text).toContain(
      'step-2.call-1 in ops-1 (deploy_service, expires 2026-05-01T10:04:00.000Z):\n' +
        '  required by hook refund-limit (refunds over 100 need approval)\n' +
        '  required by tool_policies[0] (Refunds over 100 need a second pair of eyes)',
    );
    expect(formatRunEvent({ seq: 1, at: 0, type: 'approval-requested', request: required })).toContain(
      '(required by hook refund-limit (refunds over 100 need approval) and tool_policies[0] (Refunds over 100 need a second pair of eyes))',
    );
  });
});
