import { describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { APICallError } from 'ai';
import { classifyProviderError, isApiCallError } from '../../src/models/provider-errors';

/**
 * Optional heavy packages load only when a config uses them. What a process has loaded is only
 * visible in a fresh process (jest shares its module registry between tests and may have loaded
 * them already), so a child node process requires the worker side, runs activities the way an
 * agent without providers, MCP, budgets, schemas or git skills would, then uses each piece in turn,
 * and reports after each phase which of the watched packages are in `require.cache`.
 */

const ROOT = path.resolve(__dirname, '..', '..');

// OpenTelemetry's SDK (and Temporal's interceptors for it) loads only in a worker or client that
// traces or measures: never here. (Its small API package is the AI SDK's dependency: not watched.)
const WATCHED = [
  'ai',
  '@ai-sdk',
  '@modelcontextprotocol',
  'js-tiktoken',
  'simple-git',
  'chokidar',
  'ajv',
  'pg',
  '@opentelemetry/sdk-trace-base',
  '@opentelemetry/sdk-metrics',
  '@temporalio/interceptors-opentelemetry',
];

const CHILD = `
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const watched = ${JSON.stringify(WATCHED)};
const phases = [];
function record(phase, extra = {}) {
  const loaded = new Set();
  for (const file of Object.keys(require.cache)) {
    for (const name of watched) if (file.includes('/node_modules/' + name + '/')) loaded.add(name);
  }
  phases.push({ phase, loaded: [...loaded].sort(), ...extra });
}
/** A local port nothing listens on: a server that is down. */
async function closedPort() {
  const server = require('node:net').createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}
async function failureType(promise) {
  try { await promise; return 'no failure'; } catch (error) { return error.type ?? error.code ?? error.message; }
}

(async () => {
  const down = 'http://127.0.0.1:' + (await closedPort());
  process.env.OPENAI_COMPATIBLE_BASE_URL = down + '/v1';
  require('./src/worker/create-worker');
  require('./src/client/agent-client');
  const { createActivities } = require('./src/activities');
  const { defaultModelRegistry } = require('./src/worker/default-models');
  const { ScriptedModel } = require('./src/models/scripted-model');
  const { ToolRegistry } = require('./src/tools/tool-registry');
  const { McpConnections } = require('./src/mcp/mcp-connections');
  const { MockActivityEnvironment } = require('@temporalio/testing');
  const cacheDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lazy-modules-'));
  process.on('exit', () => fs.rmSync(cacheDir, { recursive: true, force: true }));
  const scripted = new ScriptedModel({ scripts: { lazy: { replies: [{ text: '{"answer": 42}' }, { error: { code: 'ModelRateLimited', retryAfterMs: 1000 } }] } } });
  const mcp = new McpConnections();
  const activities = createActivities({
    models: defaultModelRegistry(scripted),
    tools: new ToolRegistry([]),
    conversations: { load: async () => ({ system: 'Be brief.', messages: [{ role: 'user', content: 'Answer.' }] }) },
    mcp,
    skillCacheDir: cacheDir,
  });
  record('worker side required, activities built');

  const environment = new MockActivityEnvironment();
  const step = (overrides) => environment.run(activities.modelStep, {
    conversation: { epoch: 0, count: 1 },
    model: 'scripted:lazy', temperature: 0, maxTokens: null, toolNames: [], injectedToolArgs: {}, outputSchema: null, step: 1,
    ...overrides,
  });
  const answer = (await step({})).message.content;
  const scriptedFailure = await failureType(step({ step: 2 }));
  const skills = await environment.run(activities.loadSkillSources, [cacheDir]);
  record('scripted steps, a folder skill source', { answer, scriptedFailure, skillErrors: skills[0].errors.length });

  const missingKey = await failureType(step({ model: 'openai:gpt-test' }));
  record('a real provider without its key', { missingKey });

  const counted = await step({ budget: { mode: 'per-message', contextWindow: 128000, limitPercent: null } });
  record('a token budget', { promptTokens: counted.promptTokens });

  const structured = await step({ outputSchema: { type: 'object', properties: { answer: { type: 'number' } }, required: ['answer'] } });
  record('an output schema', { structuredOutput: structured.structuredOutput });

  const unreachable = await failureType(step({ model: 'openai-compatible:local' }));
  record('an OpenAI-compatible server that is down', { unreachable });

  const listing = await environment.run(activities.listMcpTools, [{ name: 'down', url: down + '/mcp', args: [], env_from_worker: [] }]);
  await mcp.closeAll();
  record('an MCP server', { mcpUnavailable: listing.unavailable.map((entry) => entry.server + ': ' + entry.error) });

  const gitSkills = await environment.run(activities.loadSkillSources, ['file://' + path.join(cacheDir, 'missing.git')]);
  record('a git skill source', { gitErrors: gitSkills[0].errors.map((error) => error.message) });

  const { PostgresMemoryStore } = require('./src/memory/postgres-memory-store');
  const memoryDown = await failureType(new PostgresMemoryStore({ connectionString: 'postgres://agents:secret@127.0.0.1:' + (await closedPort()) + '/agents' }).open());
  record('a PostgreSQL memory store', { memoryDown });

  process.stdout.write(JSON.stringify(phases));
})().catch((error) => { console.error(error); process.exit(1); });
`;

async function runChild(): Promise<Array<Record<string, unknown>>> {
  const environment: NodeJS.ProcessEnv = { ...process.env };
  delete environment.OPENAI_API_KEY;
  delete environment.NODE_OPTIONS;
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', '-e', CHILD], { cwd: ROOT, env: environment });
  return JSON.parse(stdout) as Array<Record<string, unknown>>;
}

describe('optional heavy packages', () => {
  it('load only when a config uses them: provider, token budget, output schema, MCP server, git skill source, PostgreSQL memory', async () => {
    const phases = await runChild();
    // Each use fails where a real one would (a server that is down, a repository that is not
    // there), not on a module that could not be loaded.
    expect(phases).toEqual([
      { phase: 'worker side required, activities built', loaded: [] },
      { phase: 'scripted steps, a folder skill source', loaded: [], answer: '{"answer": 42}', scriptedFailure: 'ModelRateLimited', skillErrors: 0 },
      { phase: 'a real provider without its key', loaded: [], missingKey: 'MissingApiKey' },
      { phase: 'a token budget', loaded: ['js-tiktoken'], promptTokens: expect.any(Number) },
      { phase: 'an output schema', loaded: ['ajv', 'js-tiktoken'], structuredOutput: { answer: 42 } },
      { phase: 'an OpenAI-compatible server that is down', loaded: ['@ai-sdk', 'ai', 'ajv', 'js-tiktoken'], unreachable: 'ModelServerError' },
      { phase: 'an MCP server', loaded: ['@ai-sdk', '@modelcontextprotocol', 'ai', 'ajv', 'js-tiktoken'], mcpUnavailable: ['down: fetch failed'] },
      {
        phase: 'a git skill source',
        loaded: ['@ai-sdk', '@modelcontextprotocol', 'ai', 'ajv', 'js-tiktoken', 'simple-git'],
        gitErrors: [expect.stringContaining('does not appear to be a git repository')],
      },
      {
        phase: 'a PostgreSQL memory store',
        loaded: ['@ai-sdk', '@modelcontextprotocol', 'ai', 'ajv', 'js-tiktoken', 'pg', 'simple-git'],
        memoryDown: 'MemoryUnavailable',
      },
    ]);
  });

  it("recognises the AI SDK's APICallError by its brand, as the SDK's own isInstance does", () => {
    const rateLimited = new APICallError({
      message: 'Rate limit reached',
      url: 'http://127.0.0.1/v1/chat/completions',
      requestBodyValues: {},
      statusCode: 429,
      responseHeaders: { 'retry-after': '2' },
    });
    const lookalike = Object.assign(new Error('Rate limit reached'), { statusCode: 429 });
    for (const candidate of [rateLimited, lookalike, new Error('plain'), null, 'text', { statusCode: 429 }]) {
      expect(isApiCallError(candidate)).toBe(APICallError.isInstance(candidate));
    }
    expect(classifyProviderError(rateLimited)).toMatchObject({ code: 'ModelRateLimited', retryAfterMs: 2000 });
    expect(classifyProviderError(lookalike)).toMatchObject({ code: 'ModelServerError' });
  });
});
