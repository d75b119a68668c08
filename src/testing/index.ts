/**
 * `durable-agents/testing`: for testing your agents with the real runtime. A worker with the agent
 * plugin and the scripted model on a test server (`TestWorkflowEnvironment` from
 * `@temporalio/testing`), the search attributes that server needs, and the scripted model itself.
 * Only the model is replaced: workflows, activities and your tools run for real.
 *
 * @example
 * import { TestWorkflowEnvironment } from '@temporalio/testing';
 * import { agentSearchAttributes, startAgentTestWorker } from 'durable-agents/testing';
 *
 * const environment = await TestWorkflowEnvironment.createLocal({ server: { searchAttributes: [...agentSearchAttributes] } });
 * const testWorker = await startAgentTestWorker(environment, { scripts: { hello: { replies: [{ text: 'Hello!' }] } } });
 * const run = await testWorker.agents.startRun({ config: { name: 'greeter', model: 'scripted:hello' }, task: 'Say hello' });
 * console.log((await run.result()).output); // Hello!
 * await testWorker.close();
 * await environment.teardown();
 *
 * @packageDocumentation
 */

export { startAgentTestWorker } from './agent-test-worker';
export type { AgentTestServer, AgentTestWorker, AgentTestWorkerOptions } from './agent-test-worker';
export { agentSearchAttributes } from '../protocol/search-attributes';

// The scripted model (also in 'durable-agents/worker', where a worker registers it as `scripted:`).
export { ScriptedModel, loadModelScript, modelScriptSchema } from '../models/scripted-model';
export type { ModelScript, ModelScriptInput, ScriptedCall, ScriptedModelOptions, ScriptedReply } from '../models/scripted-model';
