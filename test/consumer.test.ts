// The package as a new user gets it: packed, installed into a fresh project, compiled and run, with the README's and docs' code.
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Client, Connection } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time';
import { findOrBuildTemporalCli } from '../src/devserver/temporal-cli';
import {
  copyTemplate,
  DECLARED_PEERS,
  describeCommand,
  lastJsonLine,
  packRepository,
  PEERS,
  printed,
  repoVersions,
  runCommand,
  startUntilReady,
  type CommandResult,
  type RunningProcess,
} from './support/consumer-project';
import { startPaymentService, writeSnippetProject, type PaymentService } from './support/doc-snippet-project';
import type { DocSnippet } from './support/doc-snippets';
import { openAiStream, startFakeProviderServer, type FakeProviderServer } from './support/fake-provider-server';

/**
 * `npm pack` of this repo installed into a fresh project (test/consumer-template) next to the peer
 * dependencies, type-checked under tsc --init's strict defaults and as CommonJS, and run with plain
 * node: the bin, a worker made with the plugin and the project's own workflows and activities, a
 * client driving it, and every code block of README.md and docs/ compiled and run as a project.
 */

/** Any one command; a test that runs one gets a bit more. */
const STEP_TIMEOUT_MS = 3 * 60_000;
const TEST_TIMEOUT_MS = STEP_TIMEOUT_MS + 30_000;

let scratch: string;
let project: string;
let worker: RunningProcess | undefined;
let cliWorker: RunningProcess | undefined;
let snippetWorker: RunningProcess | undefined;
let provider: FakeProviderServer | undefined;
let payments: PaymentService | undefined;
const timings: Record<string, number> = {};
/** The project's compiles, started together once it is installed (tsc is single-threaded; they are independent). */
let compiles: {
  esm: Promise<CommandResult>;
  declarations: Promise<CommandResult>;
  commonJs: Promise<CommandResult>;
  snippets: Promise<SnippetCompile>;
};

interface SnippetCompile {
  snippets: DocSnippet[];
  compile: CommandResult;
}
const temporal = { TEMPORAL_ADDRESS: process.env.TEMPORAL_ADDRESS!, TEMPORAL_NAMESPACE: process.env.TEMPORAL_NAMESPACE ?? 'default' };

function inProject(command: string, args: string[], env: Record<string, string | undefined> = {}): Promise<CommandResult> {
  return runCommand(command, args, { cwd: project, timeoutMs: STEP_TIMEOUT_MS, env });
}

describe('a new project that installs the packed package', () => {
  beforeAll(async () => {
    scratch = mkdtempSync(path.join(os.tmpdir(), 'durable-agents-consumer-'));
    const packs = path.join(scratch, 'packs');
    mkdirSync(packs);
    project = path.join(scratch, 'project');
    copyTemplate(project);
    // The package's build (npm pack's prepack) and the install of what the project has besides it
    // are independent: they run at once, then the tarball joins the installed project.
    const [packed, peers] = await settleBoth(
      packRepository(packs),
      inProject('npm', [
        // @temporalio/testing: the dev dependency docs/scripted-model.md's test uses.
        'install',
        ...repoVersions(['typescript', '@types/node', '@temporalio/testing', ...new Set([...PEERS, ...DECLARED_PEERS])]),
        '--no-audit',
        '--no-fund',
        '--prefer-offline',
      ]),
    );
    timings.packMs = packed.result.ms;
    timings.peersInstallMs = peers.ms;
    if (peers.code !== 0) throw new Error(describeCommand('npm install (peers)', peers));
    const install = await inProject('npm', ['install', packed.tarball, '--no-audit', '--no-fund', '--prefer-offline']);
    timings.installMs = install.ms;
    if (install.code !== 0) throw new Error(describeCommand('npm install (tarball)', install));

    const tsc = (args: string[]) => inProject('npx', ['--no', '--', 'tsc', ...args]);
    const esm = tsc(['-p', 'tsconfig.json']);
    const declarations = tsc(['-p', 'tsconfig.json', '--noEmit', '--skipLibCheck', 'false']);
    compiles = {
      esm,
      declarations,
      commonJs: tsc(['-p', 'tsconfig.cjs.json']),
      // The snippets' project is a folder of this one (its imports resolve from its node_modules),
      // which tsconfig.json (no "include") would take in: it is written once those two have ended.
      snippets: Promise.allSettled([esm, declarations]).then(async () => {
        const snippets = writeSnippetProject(path.join(project, 'docs-snippets'));
        return { snippets, compile: await tsc(['-p', 'docs-snippets/tsconfig.json']) };
      }),
    };
  }, 10 * 60_000);

  afterAll(async () => {
    // A compile still running (a test failed before waiting for it) must end before the folder goes.
    if (compiles) await Promise.allSettled(Object.values(compiles));
    await worker?.stop();
    await cliWorker?.stop();
    await snippetWorker?.stop();
    await provider?.close();
    await payments?.close();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
    console.log(`consumer test timings (ms): ${JSON.stringify(timings)}`);
  });

  it('ships the compiled dist/ with its workflow bundle, and no sources, tests or benchmarks', () => {
    const installed = path.join(project, 'node_modules', 'durable-agents');
    const entries = readdirSync(installed).sort();
    expect(entries).toContain('dist');
    expect(entries).toContain('package.json');
    for (const unwanted of ['src', 'test', 'bench', 'scripts', 'deploy', 'tsconfig.json', 'jest.config.js']) {
      expect(entries).not.toContain(unwanted);
    }
    expect(existsSync(path.join(installed, 'dist', 'workflow-bundle.js'))).toBe(true);
    expect(existsSync(path.join(installed, 'dist', 'cli', 'cli.js'))).toBe(true);
    const distFiles = readdirSync(path.join(installed, 'dist'), { recursive: true }).map(String);
    expect(distFiles.filter((file) => /\.test\.|(^|\/)(test|bench)\//.test(file))).toEqual([]);
    expect(distFiles.some((file) => file.endsWith('.d.ts'))).toBe(true);
  });

  it('ships source maps that carry their sources, so bundlers and debuggers never look for the src/ it leaves out', () => {
    const dist = path.join(project, 'node_modules', 'durable-agents', 'dist');
    const maps = readdirSync(dist, { recursive: true })
      .map(String)
      .filter((file) => file.endsWith('.js.map'));
    expect(maps.length).toBeGreaterThan(50);
    const withoutSources = maps.filter((file) => {
      const map = JSON.parse(readFileSync(path.join(dist, file), 'utf8')) as { sources: string[]; sourcesContent?: Array<string | null> };
      return (
        map.sources.length === 0 ||
        map.sourcesContent?.length !== map.sources.length ||
        map.sourcesContent.some((content) => typeof content !== 'string')
      );
    });
    expect(withoutSources).toEqual([]);
  });

  it('takes Temporal and zod as peer dependencies, so the project has one copy of each', () => {
    const manifest = JSON.parse(readFileSync(path.join(project, 'node_modules', 'durable-agents', 'package.json'), 'utf8')) as {
      peerDependencies?: Record<string, string>;
      dependencies?: Record<string, string>;
    };
    for (const name of PEERS) {
      expect(manifest.peerDependencies?.[name]).toBeDefined();
      expect(manifest.dependencies?.[name]).toBeUndefined();
    }
    // A nested copy would load a second native module (worker) or a second zod realm.
    const nested = path.join(project, 'node_modules', 'durable-agents', 'node_modules');
    for (const name of PEERS) expect(existsSync(path.join(nested, name))).toBe(false);
  });

  it(
    'compiles under the strict defaults of tsc --init (ESM, module nodenext)',
    async () => {
      const compile = await compiles.esm;
      timings.tscEsmMs = compile.ms;
      expect({ code: compile.code, output: printed(compile) }).toEqual({ code: 0, output: '' });
      for (const file of ['worker.js', 'client.js', 'workflows.js', 'tools.d.ts']) expect(existsSync(path.join(project, 'dist', file))).toBe(true);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'has declarations that type-check under those defaults with skipLibCheck off',
    async () => {
      // Other packages' declarations (Temporal's, the MCP SDK's) have errors of their own under these
      // settings; only ours are this package's to keep clean.
      const check = await compiles.declarations;
      timings.tscDeclarationsMs = check.ms;
      const output = printed(check);
      expect(output).not.toContain('npm error');
      const ours = output.split('\n').filter((line) => line.startsWith('node_modules/durable-agents/') || line.startsWith('src/'));
      expect(ours).toEqual([]);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'type-checks as a CommonJS project with node10 resolution',
    async () => {
      const check = await compiles.commonJs;
      timings.tscCommonJsMs = check.ms;
      expect({ code: check.code, output: printed(check) }).toEqual({ code: 0, output: '' });
    },
    TEST_TIMEOUT_MS,
  );

  it('loads with require() from CommonJS and with import from ESM, with named exports', async () => {
    const required = await inProject('node', [
      '-e',
      `const agents = require('durable-agents');
       const worker = require('durable-agents/worker');
       require.resolve('durable-agents/workflow');
       const kinds = (module, names) => Object.fromEntries(names.map((name) => [name, typeof module[name]]));
       console.log(JSON.stringify({
         agents: kinds(agents, ['defineTool', 'AgentClient', 'RunHandle', 'parseAgentConfig', 'AgentConfigError']),
         worker: kinds(worker, ['AgentPlugin', 'createAgentWorker', 'ScriptedModel', 'defaultModelRegistry', 'registerSearchAttributes']),
       }));`,
    ]);
    expect(describeCommand('node -e (require)', required)).toContain('exited with 0 ');
    expect(lastJsonLine(required)).toEqual({
      agents: { defineTool: 'function', AgentClient: 'function', RunHandle: 'function', parseAgentConfig: 'function', AgentConfigError: 'function' },
      worker: {
        AgentPlugin: 'function',
        createAgentWorker: 'function',
        ScriptedModel: 'function',
        defaultModelRegistry: 'function',
        registerSearchAttributes: 'function',
      },
    });

    const imported = await inProject('node', [
      '--input-type=module',
      '-e',
      `import { AgentClient, defineTool, parseAgentConfig } from 'durable-agents';
       import { AgentPlugin } from 'durable-agents/worker';
       const dynamic = await import('durable-agents');
       console.log(JSON.stringify({
         named: [AgentClient, defineTool, parseAgentConfig, AgentPlugin].map((value) => typeof value),
         dynamic: ['AgentClient', 'defineTool', 'parseAgentConfig', 'AgentConfigError'].filter((name) => typeof dynamic[name] === 'function'),
         sameClass: dynamic.AgentClient === AgentClient,
       }));`,
    ]);
    expect(describeCommand('node --input-type=module', imported)).toContain('exited with 0 ');
    expect(lastJsonLine(imported)).toEqual({
      named: ['function', 'function', 'function', 'function'],
      dynamic: ['AgentClient', 'defineTool', 'parseAgentConfig', 'AgentConfigError'],
      sameClass: true,
    });
  });

  it('runs the durable-agents bin: --help lists the commands, setup registers the search attributes', async () => {
    const help = await inProject('npx', ['--no', '--', 'durable-agents', '--help']);
    expect(describeCommand('durable-agents --help', help)).toContain('exited with 0 ');
    expect(help.stdout).toContain('Usage: durable-agents');
    for (const command of ['run', 'worker', 'setup', 'approve']) expect(help.stdout).toMatch(new RegExp(`^\\s+${command}\\b`, 'm'));

    // A namespace of its own: the test server's default namespace has the attributes from its start.
    const namespace = `consumer-${randomUUID().slice(0, 8)}`;
    const connection = await Connection.connect({ address: temporal.TEMPORAL_ADDRESS });
    try {
      await connection.workflowService.registerNamespace({ namespace, workflowExecutionRetentionPeriod: msToTs('1 day') });
      const setup = await inProject('npx', ['--no', '--', 'durable-agents', 'setup'], { ...temporal, TEMPORAL_NAMESPACE: namespace });
      timings.setupMs = setup.ms;
      expect(describeCommand('durable-agents setup', setup)).toContain('exited with 0 ');
      const { customAttributes } = await connection.operatorService.listSearchAttributes({ namespace });
      expect(Object.keys(customAttributes ?? {})).toEqual(expect.arrayContaining(['AgentName', 'AgentStatus', 'AgentSkillSources']));
    } finally {
      await connection.close();
    }
  });

  it(
    'runs agents on a plain Worker.create with the plugin: an approved gated tool, and a child agent in the project’s own workflow',
    async () => {
      expect(existsSync(path.join(project, 'dist', 'worker.js'))).toBe(true);
      const taskQueue = `consumer-${randomUUID()}`;
      const env = { ...temporal, CONSUMER_TASK_QUEUE: taskQueue };
      const started = Date.now();
      worker = await startUntilReady('node', ['dist/worker.js'], { cwd: project, env, readyLine: 'consumer worker polling', timeoutMs: 2 * 60_000 });
      timings.workerStartMs = Date.now() - started;

      const client = await inProject('node', ['dist/client.js'], env);
      timings.clientMs = client.ms;
      const failure = `${describeCommand('node dist/client.js', client)}\n--- worker\n${worker.output()}`;
      expect({ code: client.code, failure }).toEqual({ code: 0, failure: expect.any(String) });
      const summary = JSON.parse(client.stdout) as {
        ok: boolean;
        problems: string[];
        refund: { approvalId: string; delivery: string; output: string; stopReason: string; tools: Array<{ name: string; approvalStatus: string }> };
        supportCase: { ticket: string; answer: string };
        configError: { code: string; problems: string[] } | null;
      };
      expect(summary.problems).toEqual([]);
      expect(summary.refund).toMatchObject({ approvalId: 'step-2.call-1', delivery: 'update', stopReason: 'completed' });
      expect(summary.refund.output).toBe('Order 42: {"orderId":"42","status":"shipped","total":25}. Refunded 25 EUR on order 42.');
      expect(summary.refund.tools).toEqual([
        expect.objectContaining({ name: 'lookup_order', approvalStatus: 'not_required' }),
        expect.objectContaining({ name: 'refund', approvalStatus: 'approved' }),
      ]);
      expect(summary.supportCase).toEqual({
        ticket: 'ticket:where-is-order-7',
        answer: 'Order 7: {"orderId":"7","status":"delivered","total":12}',
        agentSteps: 2,
      });
      expect(summary.configError?.code).toBe('AgentConfigError');
      expect(summary.configError?.problems.join('\n')).toContain('model');

      await worker.stop();
      expect(worker.child.exitCode).toBe(0);
      expect(worker.output()).toContain('consumer worker stopped');
    },
    TEST_TIMEOUT_MS,
  );
  it(
    'runs the CLI worker from the package with the project’s compiled tools (prebuilt bundle), and a run whose script is next to its config',
    async () => {
      const taskQueue = `consumer-cli-${randomUUID()}`;
      cliWorker = await startUntilReady(
        'npx',
        ['--no', '--', 'durable-agents', 'worker', '--tools', 'dist/tools.js', '--no-demo-tools', '--task-queue', taskQueue],
        {
          cwd: project,
          env: { ...temporal, LOG_LEVEL: 'info' },
          readyLine: 'Worker polling',
          timeoutMs: STEP_TIMEOUT_MS,
        },
      );
      // Only the project's tools: --no-demo-tools leaves get_weather and the others out.
      expect(cliWorker.output()).toContain('with tools: lookup_order, refund\n');
      // The project's @temporalio/worker is the one that made the package's bundle: no webpack at start
      // (the worker logs at info level here, as its state change shows; it may come just after the ready line).
      for (const deadline = Date.now() + 15_000; !cliWorker.output().includes('Worker state changed') && Date.now() < deadline;)
        await new Promise((resolve) => setTimeout(resolve, 100));
      expect(cliWorker.output()).toContain('Worker state changed');
      expect(cliWorker.output()).not.toContain('Workflow bundle created');
      expect(cliWorker.output()).not.toContain('bundling the agent workflows now');
      mkdirSync(path.join(project, 'agents'), { recursive: true });
      writeFileSync(
        path.join(project, 'agents', 'lookup.yaml'),
        'name: lookup\nmodel: scripted:../scripts/support-case.yaml\ntools: [lookup_order]\n',
      );
      const run = await inProject(
        'npx',
        ['--no', '--', 'durable-agents', 'run', '-c', 'agents/lookup.yaml', '-t', 'Where is order 7?', '--follow', '--task-queue', taskQueue],
        temporal,
      );
      expect(describeCommand('durable-agents run', run)).toContain('exited with 0 ');
      expect(run.stdout).toContain('Order 7: {"orderId":"7","status":"delivered","total":12}');
      await cliWorker.stop();

      // A tools module in TypeScript: plain node cannot load it, and the CLI says what to do.
      const typescriptTools = await inProject(
        'npx',
        ['--no', '--', 'durable-agents', 'worker', '--tools', 'src/tools.ts', '--task-queue', taskQueue],
        temporal,
      );
      if ((process.features as { typescript?: unknown }).typescript) {
        // Node with type stripping loads .ts itself; the worker then starts (and is stopped by the timeout).
        expect(printed(typescriptTools)).not.toContain('is TypeScript');
      } else {
        expect(typescriptTools.code).toBe(2);
        expect(typescriptTools.stderr).toContain(
          'src/tools.ts is TypeScript, which this Node.js cannot load by itself. Compile it (tsc) and pass the .js file',
        );
      }
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'refuses to start the CLI worker with an S3 artifact store while the optional @aws-sdk/client-s3 is not installed (exit 2)',
    async () => {
      expect(existsSync(path.join(project, 'node_modules', '@aws-sdk', 'client-s3'))).toBe(false);
      const worker = await inProject('npx', ['--no', '--', 'durable-agents', 'worker', '--no-demo-tools'], {
        ...temporal,
        AGENT_ARTIFACT_STORE: 's3://agent-artifacts/runs',
      });
      expect(worker.code).toBe(2);
      expect(worker.stderr).toContain(
        'The worker cannot write to its artifact store s3://agent-artifacts/runs/ (AGENT_ARTIFACT_STORE): S3ArtifactStore needs the package @aws-sdk/client-s3',
      );
      expect(worker.stderr).toContain('npm install @aws-sdk/client-s3');
      expect(worker.stdout).not.toContain('Worker polling');
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'compiles every code block of the README and docs/ as the files of an ES module project (tsc --init defaults)',
    async () => {
      const { snippets, compile } = await compiles.snippets;
      expect(snippets.map((snippet) => snippet.file)).toEqual(
        expect.arrayContaining(['src/tools.ts', 'src/worker.ts', 'src/client.ts', 'src/workflows.ts', 'src/try-offline.ts']),
      );
      timings.tscSnippetsMs = compile.ms;
      expect({ code: compile.code, output: printed(compile) }).toEqual({ code: 0, output: '' });
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'runs them: the README’s worker and client (an approved refund with its idempotency key), the threads and memory, its workflow, the offline program, and the docs’ configs and run start',
    async () => {
      const folder = path.join(project, 'docs-snippets');
      const inSnippets = (args: string[], env: Record<string, string> = {}) =>
        runCommand('node', args, { cwd: folder, timeoutMs: STEP_TIMEOUT_MS, env: { ...temporal, ...env } });
      provider = await startFakeProviderServer();
      payments = await startPaymentService();
      const started = Date.now();
      snippetWorker = await startUntilReady('node', ['dist/worker.js'], {
        cwd: folder,
        env: { ...temporal, OPENAI_API_KEY: 'sk-docs-snippets', OPENAI_BASE_URL: `${provider.baseUrl}/v1`, PAYMENTS_URL: payments.url },
        readyLine: "state: 'RUNNING'",
        timeoutMs: STEP_TIMEOUT_MS,
      });
      timings.snippetWorkerStartMs = Date.now() - started;

      // README's client: lookup, then the gated refund it approves, then the answer.
      provider.respond(
        openAiStream({ toolCalls: [{ id: 'call_lookup', name: 'lookup_order', args: { orderId: '42' } }] }),
        openAiStream({ toolCalls: [{ id: 'call_refund', name: 'refund', args: { orderId: '42' } }] }),
        openAiStream({ chunks: ['Order 42 ', 'is refunded.'] }),
      );
      const client = await inSnippets(['dist/client.js']);
      expect({
        code: client.code,
        output: client.stdout.trim(),
        failure: `${describeCommand('node dist/client.js', client)}\n--- worker\n${snippetWorker.output()}`,
      }).toEqual({
        code: 0,
        output: 'Order 42 is refunded.',
        failure: expect.any(String),
      });
      expect(payments.refunds).toEqual([{ idempotencyKey: expect.stringMatching(/^support-[\w-]+\/[\w-]+\/.+/), body: { orderId: '42' } }]);

      // The README's and docs/threads.md's threads, on the same worker (the plugin's bundle has agentThread).
      provider.respond(openAiStream({ chunks: ['It left the warehouse today.'] }));
      const chat = await inSnippets(['dist/chat.js']);
      expect({ code: chat.code, output: chat.stdout.trim(), failure: describeCommand('node dist/chat.js', chat) }).toEqual({
        code: 0,
        output: 'It left the warehouse today.',
        failure: expect.any(String),
      });
      provider.respond(
        openAiStream({ chunks: ['Order 42 has shipped.'] }),
        openAiStream({ chunks: ['It has shipped, so I can refund it once it is back.'] }),
      );
      const thread = await inSnippets(['dist/support-thread.js']);
      expect({ code: thread.code, output: thread.stdout.trim(), failure: describeCommand('node dist/support-thread.js', thread) }).toEqual({
        code: 0,
        output: 'It has shipped, so I can refund it once it is back.',
        failure: expect.any(String),
      });
      // The second turn saw the first: its model call carried the first answer.
      expect(JSON.stringify(provider.requests.at(-1)?.body)).toContain('Order 42 has shipped.');

      // docs/memory.md: a run remembers a fact for its resource on the README's worker; forgetting the resource deletes it.
      provider.respond(
        openAiStream({ toolCalls: [{ id: 'call_remember', name: 'remember', args: { text: 'Prefers answers in French.' } }] }),
        openAiStream({ chunks: ['D’accord.'] }),
      );
      const remembered = await inSnippets(['dist/remember-french.js']);
      expect({
        code: remembered.code,
        output: remembered.stdout.trim(),
        failure: describeCommand('node dist/remember-french.js', remembered),
      }).toEqual({ code: 0, output: 'D’accord.', failure: expect.any(String) });
      const forgotten = await inSnippets(['dist/forget-user.js']);
      // Its report: the memory entry, and (with a threads store) the resource's threads, none here.
      expect({ code: forgotten.code, output: forgotten.stdout.replace(/\s+/g, ' ').trim() }).toEqual({
        code: 0,
        output: "{ resource: 'user:42', memoryEntries: 1, threads: 0, threadArtifacts: 0, workflowExecutions: 0, complete: true, pending: [] }",
      });

      // README's workflow: an agent as a child workflow, then the project's own activity.
      provider.respond(
        openAiStream({ toolCalls: [{ id: 'call_order', name: 'lookup_order', args: { orderId: '7' } }] }),
        openAiStream({ chunks: ['Order 7 has shipped.'] }),
      );
      const connection = await Connection.connect({ address: temporal.TEMPORAL_ADDRESS });
      try {
        const temporalClient = new Client({ connection, namespace: temporal.TEMPORAL_NAMESPACE });
        const answer = await temporalClient.workflow.execute('supportCase', {
          taskQueue: 'orders',
          workflowId: `support-case-${randomUUID()}`,
          args: ['7', 'Where is it?'],
        });
        expect(answer).toBe('Order 7 has shipped.');
        expect(snippetWorker.output()).toContain('To the customer of order 7: Order 7 has shipped.');

        // README's offline program: its own worker with a scripted model.
        const offline = await inSnippets(['dist/try-offline.js']);
        expect({ code: offline.code, last: offline.stdout.trim().split('\n').at(-1) }).toEqual({
          code: 0,
          last: 'Order 42: {"orderId":"42","status":"shipped"}',
        });

        // The docs' configs load, and durability.md's run starts with its timeouts (no worker polls its queue: it is ended here).
        const configs = await inSnippets([
          '--input-type=module',
          '-e',
          "import { loadAgentConfigFile } from 'durable-agents'; console.log(['weather-agent.yaml', 'payments.yaml', 'assistant.yaml'].map((file) => loadAgentConfigFile(file).name).join(','))",
        ]);
        expect({ code: configs.code, names: configs.stdout.trim() }).toEqual({ code: 0, names: 'weather-agent,payments,assistant' });
        const tool = await inSnippets([
          '--input-type=module',
          '-e',
          "const { refund } = await import('./dist/refund-tool.js'); console.log(refund.name)",
        ]);
        expect(tool.stdout.trim()).toBe('refund');
        // docs/scripted-model.md: durable-agents/testing on a local test server (the CLI at hand, no download).
        const checked = await inSnippets(['dist/check-support-agent.js'], { TEMPORAL_CLI: await findOrBuildTemporalCli() });
        // The test server's own start banner comes first on the same stdout.
        expect({
          code: checked.code,
          lines: checked.stdout.trim().split('\n').slice(-3),
          failure: describeCommand('node dist/check-support-agent.js', checked),
        }).toEqual({
          code: 0,
          lines: ['Order 42: {"orderId":"42","status":"shipped"}', '2', '[]'],
          failure: expect.any(String),
        });
        const payment = await inSnippets(['dist/start-payment.js']);
        expect(payment.code).toBe(0);
        const paymentRun = temporalClient.workflow.getHandle(payment.stdout.trim());
        expect((await paymentRun.describe()).status.name).toBe('RUNNING');
        await paymentRun.terminate('the docs snippet test only starts it');
      } finally {
        await connection.close();
      }

      await snippetWorker.stop();
      expect(snippetWorker.child.exitCode).toBe(0);
    },
    2 * TEST_TIMEOUT_MS,
  );
});

/** Both results once both have settled (neither is left running), or the first failure. */
async function settleBoth<A, B>(first: Promise<A>, second: Promise<B>): Promise<[A, B]> {
  const [a, b] = await Promise.allSettled([first, second]);
  if (a.status === 'rejected') throw a.reason;
  if (b.status === 'rejected') throw b.reason;
  return [a.value, b.value];
}
