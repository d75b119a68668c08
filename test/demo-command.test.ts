import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from '@jest/globals';
import { AgentClient } from '../src/client/agent-client';
import { resolveTemporalTarget } from '../src/connection/temporal-target';
import { runCli } from './support/cli-process';
import { spawnInGroup } from './support/process-group';
import { eventually } from './support/test-env';

/**
 * `npm start` (the `demo` command) as a newcomer meets it, on the test run's server: a gated call
 * approved (at a pseudo-terminal, or without a terminal with a note saying so), the console and
 * Web UI links, how to chat, and the answer as sentences. And `run` without `--follow` links its
 * run in the Web UI when only TEMPORAL_ADDRESS is set.
 */

const ROOT = path.resolve(__dirname, '..');
const started: string[] = [];
let agents: AgentClient | undefined;

afterAll(async () => {
  for (const workflowId of started)
    await agents?.temporal.workflow
      .getHandle(workflowId)
      .terminate('test over')
      .catch(() => undefined);
  await agents?.close();
});

/** The demo in a pseudo-terminal (util-linux `script`), answering its prompt with `answers` one at a time. */
function demoAtTerminal(answers: string[]): Promise<string> {
  const tsx = pathToFileURL(path.join(ROOT, 'node_modules/tsx/dist/loader.mjs')).href;
  const command = [process.execPath, '--import', tsx, path.join(ROOT, 'src/cli/cli.ts'), 'demo', '--no-console'].map((part) => `'${part}'`).join(' ');
  const child = spawnInGroup('script', ['-qfec', command, '/dev/null'], {
    cwd: ROOT,
    env: { ...process.env, TERM: 'dumb' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let output = '';
  let prompts = 0;
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const asked = output.split('Type yes or no:').length - 1;
      // One answer per prompt, each only once the prompt is on the screen.
      if (asked > prompts && prompts < answers.length) child.stdin!.write(`${answers[prompts++]}\r`);
    });
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve(output) : reject(new Error(`demo exited ${code}:\n${output}`))));
  });
}

describe('npm start (the demo)', () => {
  it('without a terminal, approves the gated call with a note, links the console and the Web UI, says how to chat, and answers in sentences', async () => {
    const demo = await runCli(['demo']);
    expect(demo.stderr).toBe('');
    expect(demo.code).toBe(0);
    const out = demo.stdout;
    expect(out).toContain("The agent wants to call a tool that needs a person's approval");
    expect(out).toContain('    to: team@example.com');
    expect(out).toContain('Approving it as local:');
    expect(out).toContain('no terminal to ask at; `npm start -- --reject` rejects instead');
    expect(out).toMatch(/Console: http:\/\/127\.0\.0\.1:\d+\/runs\/forecast-agent-/);
    expect(out).toMatch(/Web UI: http:\/\/127\.0\.0\.1:\d+\/namespaces\/default\/workflows\/forecast-agent-/);
    expect(out).toContain('npm run cli -- chat -c examples/forecast-agent.yaml');
    const answer = out.slice(out.indexOf('Answer (completed, 4 steps'));
    expect(answer).toContain('In Tokyo it is raining lightly and 14 °C right now, which is 57.2 °F.');
    expect(answer).toContain('Sent "Tokyo weather now" to team@example.com');
    expect(answer.split('\nWeb UI:')[0]).not.toMatch(/[{}]/);
  });

  it('at a terminal, asks until the answer is yes or no ("ok" and an empty Enter decide nothing), and a no rejects the call', async () => {
    const out = await demoAtTerminal(['ok', '', 'no']);
    expect(out.split('Please type yes or no (nothing is decided until you do).')).toHaveLength(3);
    expect(out).toContain('Rejected by local:');
    // Decided: no spinner waits on the approval any more.
    expect(out.slice(out.indexOf('Rejected by local:'))).not.toContain('waiting for approval step-3.call-1');
    expect(out).toContain('Answer (completed, 4 steps');
    expect(out).not.toContain('Sent "Tokyo weather now"');
  });
});

describe('run without --follow', () => {
  it('prints the Web UI link of a run on a loopback TEMPORAL_ADDRESS without TEMPORAL_UI_URL', async () => {
    const target = resolveTemporalTarget();
    agents = await AgentClient.connect(target);
    const workflowId = `demo-link-${Date.now()}`;
    started.push(workflowId);
    const port = Number(target.address.split(':').at(-1));
    const run = await runCli(
      [
        'run',
        '--config',
        'examples/weather-agent.yaml',
        '--task',
        'Hi',
        '--no-tool-check',
        '--task-queue',
        `no-workers-${workflowId}`,
        '--workflow-id',
        workflowId,
      ],
      { TEMPORAL_UI_URL: '' },
    );
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`Web UI: http://127.0.0.1:${port + 1000}/namespaces/default/workflows/${workflowId}/`);
    await eventually(async () => (await agents!.temporal.workflow.getHandle(workflowId).describe()).status.name === 'RUNNING');
  });
});
