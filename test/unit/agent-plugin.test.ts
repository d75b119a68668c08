import { afterEach, describe, expect, it } from '@jest/globals';
import { Client, Connection } from '@temporalio/client';
import { AgentPlugin } from '../../src/worker/agent-plugin';

/**
 * `AgentPlugin` is configured by its options and the worker's, never by the environment: a library
 * plugin in someone's worker must not change with variables meant for the CLI's worker
 * (`createAgentWorker` reads those; every test environment here goes through it).
 */

const variables = {
  AGENT_ARTIFACT_STORE: 'not-an-s3-url',
  AGENT_LIVE_UPDATE_MS: '5',
  AGENT_WORKFLOW_BUNDLE: '/nowhere/workflow-bundle.js',
  AGENT_PAYLOAD_KEYS: 'not-a-key',
  AGENT_SKILL_CACHE: '/nowhere/skill-cache',
};
const saved = Object.fromEntries(Object.keys(variables).map((name) => [name, process.env[name]]));

afterEach(() => {
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});

describe('AgentPlugin', () => {
  it('reads no environment variable: artifact store, heartbeat interval, bundle and codecs come from its options and the worker', () => {
    Object.assign(process.env, variables);
    // A lazy connection: nothing is dialled, the plugin only needs a client to hand its activities.
    const client = new Client({ connection: Connection.lazy({ address: '127.0.0.1:1' }) });
    const options = new AgentPlugin({ client }).configureWorker({ taskQueue: 'plugin-options' });
    expect(options.maxHeartbeatThrottleInterval).toBe(250);
    expect(options.dataConverter).toBeUndefined();
    expect(options.workflowBundle).toBeUndefined();
    expect(options.workflowsPath).toMatch(/src[\\/]workflows/);
    expect(Object.keys(options.activities ?? {})).toEqual(expect.arrayContaining(['modelStep', 'runTool', 'loadSkillSources']));
  });

  it("keeps the worker's own settings", () => {
    const client = new Client({ connection: Connection.lazy({ address: '127.0.0.1:1' }) });
    const options = new AgentPlugin({ client }).configureWorker({
      taskQueue: 'plugin-options',
      maxHeartbeatThrottleInterval: 1_000,
      workflowBundle: { codePath: '/app/bundle.js' },
    });
    expect(options).toMatchObject({ maxHeartbeatThrottleInterval: 1_000, workflowBundle: { codePath: '/app/bundle.js' } });
    expect(options.workflowsPath).toBeUndefined();
  });
});
