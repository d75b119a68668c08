#!/usr/bin/env node
import { Command } from 'commander';
import { AgentRuntimeError } from '../protocol/errors';
import { collectFlag } from './fork-edit-flags';
import { describeError } from './describe-error';
import {
  addAgentsCommands,
  addDeploymentCommands,
  addGatewayCommands,
  addMemoryCommands,
  addScheduleCommands,
  addThreadCommands,
} from './command-groups';
import { commands } from './command-modules';

/**
 * The command line. Exit codes: 0 success, 2 a user error (invalid config, bad arguments),
 * 1 anything else (server unreachable, a failed run).
 */
const program = new Command('durable-agents')
  .description('Durable AI agents on Temporal: every run a workflow, every model step and tool call an activity.')
  .showHelpAfterError();

program
  .command('run')
  .description('start an agent run; prints its id and Web UI link')
  .option('-c, --config <file>', 'agent config (YAML or JSON)')
  .option('-a, --agent <name[@version]>', 'an agent the workers define, by name (instead of --config); docs/agents.md')
  .requiredOption('-t, --task <text>', 'the task for the agent')
  .option('-f, --follow', 'print events live and wait for the result')
  .option('-m, --model <provider:model>', "use this model instead of the config's (a named agent's: when it allows overriding it)")
  .option('--workflow-id <id>', 'workflow id (default: <agent>-<random>)')
  .option('--task-queue <name>', 'task queue of the workers')
  .option('--agents-dir <folder>', "agent configs for handoffs (default: the config file's folder)")
  .option(
    '--heartbeat-timeout <duration>',
    "retry a model step or tool elsewhere when its worker stops heartbeating this long (default: the config's timeouts.heartbeat, else 10s)",
  )
  .option('--tool-timeout <duration>', "one attempt of a tool call (default: the config's timeouts.tool, else 10m)")
  .option('--history-event-limit <events>', 'continue as new at this many history events (default: when Temporal suggests it); docs/long-runs.md')
  .option('--history-size-limit <size>', 'continue as new at this much history, e.g. 2MB (default: when Temporal suggests it)')
  .option('--model-step-timeout <duration>', "one attempt of a model step (default: the config's timeouts.model_step, else 5m)")
  .option('--resource <id>', 'who the run is for (user:42): the memory agents with memory: true use; docs/memory.md')
  .option('--no-tool-check', "start without asking the workers whether they have the config's tools")
  .option('--json', 'machine-readable output')
  .action(async (options) => (await commands.run()).runCommand(options));

program
  .command('fork <run>')
  .description("start a new run from another run's conversation at the end of a step, under a changed config")
  .requiredOption('--from-step <n>', 'the step whose end the fork starts from, as `history` numbers them')
  .option('-c, --config <file>', "agent config to continue under (default: the origin agent's)")
  .option('-a, --agent <name@version>', 'continue under a version of a named agent (a hash, or a label the workers offer)')
  .option('-m, --model <provider:model>', 'continue on this model')
  .option('-t, --task <text>', 'a user message the fork adds after the step')
  .option(
    '--edit-tool-result <target=text>',
    "replace a tool call's result: <call id>=<text> or <step>:<tool>[#n]=<text>; @file reads the text from a file (repeatable)",
    collectFlag,
  )
  .option('--edit-tool-error <target=text>', 'as --edit-tool-result, given to the model as an error result (repeatable)', collectFlag)
  .option(
    '--edit-message <step:role=text>',
    "replace the user message step N answered or the model's reply text: <step>:<user|assistant>=<text|@file> (repeatable)",
    collectFlag,
  )
  .option('-f, --follow', 'print events live and wait for the result')
  .option('--run-id <id>', 'read the origin chain from this execution (default: the latest)')
  .option('--workflow-id <id>', "the fork's workflow id (default: <agent>-fork-<random>)")
  .option('--task-queue <name>', 'task queue of the workers')
  .option('--agents-dir <folder>', "agent configs for handoffs (default: the config file's folder, else the origin's)")
  .option('--json', 'machine-readable output')
  .action(async (run, options) => (await commands.fork()).forkCommand(run, options));

const evalCommand = program
  .command('eval')
  .description(
    "replay recorded runs' tasks (or a dataset's examples) under a changed config, answering tool calls from the recordings; exit 1 when runs diverge or examples fail",
  )
  .option('-c, --config <file>', 'the changed agent config (or --agent)')
  .option('-a, --agent <name@version>', 'replay under a version of a named agent instead (a hash, or a label the workers offer): docs/agents.md')
  .option('--baseline-agent <name@version>', 'an experiment against a version of a named agent (instead of --baseline)')
  .option('--dataset <file.jsonl>', 'evaluate the examples of a dataset file (`eval export` writes one) instead of recorded runs')
  .option('--scorers <file>', 'scorers (YAML/JSON list) for --dataset (default: exact answer, tool calls in any order)')
  .option('--trials <n>', 'run each example n times (--dataset)')
  .option('--labels <labels...>', 'only the examples with one of these labels (--dataset)')
  .option('--max-failed <k>', 'pass while at most this many example trials fail a threshold (--dataset, default 0)')
  .option('--report <file>', 'also save the report as JSON')
  .option('--baseline <file>', 'an experiment: also run the dataset under this config and compare example by example (--dataset)')
  .option('--baseline-model <provider:model>', "the baseline's model instead of its config's")
  .option('--markdown <file>', "save the experiment's comparison as Markdown")
  .option('--max-regressions <k>', 'an experiment passes while at most this many examples regress (default 0)')
  .option('--runs <ids...>', 'workflow ids of recorded runs')
  .option(
    '--query <visibility query>',
    `recorded runs to replay, e.g. "AgentName='support'" (completed, top-level, neither evaluation runs nor forks)`,
  )
  .option('--limit <n>', 'at most this many runs from --query (default 50)')
  .option('-m, --model <provider:model>', "use this model instead of the config's")
  .option('--live-tools', 'run tool calls the recording lacks for real (default: they get an error result)')
  .option('--max-diverged <k>', 'pass while at most this many runs diverge (default 0)')
  .option('--task-queue <name>', 'task queue of the workers')
  .option('--agents-dir <folder>', "agent configs for handoffs (default: the config file's folder)")
  .option('--json', 'machine-readable report')
  .action(async (options) => (await commands.evaluate()).evalCommand(options));

evalCommand
  .command('export')
  .description('write recorded runs (task, tool calls with results, answer) to a dataset file (JSONL) to add expected answers and labels to')
  .option('--runs <ids...>', 'workflow ids of recorded runs')
  .option('--query <visibility query>', 'recorded runs to export (completed, top-level, neither evaluation runs nor forks)')
  .option('--limit <n>', 'at most this many runs from --query (default 50)')
  .requiredOption('-o, --out <file.jsonl>', 'the dataset file to write')
  .option('--description <text>', "the dataset's description (its header line)")
  .option('--task-queue <name>', 'task queue of the workers')
  // `eval`'s own --runs, --query, --limit and --task-queue are parsed by it: merged here.
  .action(async (_options, command: Command) => (await commands.evaluate()).evalExportCommand(command.optsWithGlobals()));

program
  .command('status <run>')
  .description("a run's live status")
  .option('--json', 'machine-readable output')
  .action(async (run, options) => (await commands.status()).statusCommand(run, options));

program
  .command('history <run>')
  .description("a readable transcript from the Temporal history: steps, tool calls, results, timings; a thread's turn by turn")
  .option('--run-id <id>', 'a specific execution')
  .option('--turn <n>', 'a thread: this turn only')
  .option('--json', 'machine-readable output')
  .action(async (run, options) => (await commands.history()).historyCommand(run, options));

program
  .command('usage')
  .description('what closed agent runs cost, by agent, model or day (from the AgentCostUsd search attribute)')
  .option('--since <duration>', 'runs closed in this long back from now (24h, 7d)', '7d')
  .option('--agent <name>', 'only runs of this agent')
  .option('--by <grouping>', "agent, model (reads each run's result) or day", 'agent')
  .option('--json', 'machine-readable output')
  .action(async (options) => (await commands.usage()).usageCommand(options));

program
  .command('watch <run>')
  .description("print a run's events live until it finishes")
  .action(async (run) => (await commands.watch()).watchCommand(run));

program
  .command('inject <run> <text>')
  .description('push a user message into a running run (before its next model call)')
  .action(async (run, text) => (await commands.inject()).injectCommand(run, text));

program
  .command('approvals')
  .description('pending tool approvals across running runs')
  .option('--json', 'machine-readable output')
  .action(async (options) => (await commands.approvals()).approvalsCommand(options));

program
  .command('approve <run> <approvalId>')
  .description('approve a gated tool call')
  .option('--reason <text>', 'why')
  .option('--by <name>', 'who decides (default: $USER)')
  .option('--json', 'machine-readable output')
  .action(async (run, approvalId, options) => (await commands.approvals()).decisionCommand('approve', run, approvalId, options));

program
  .command('reject <run> <approvalId>')
  .description('reject a gated tool call; the model sees the reason')
  .requiredOption('--reason <text>', 'why (the model sees it)')
  .option('--by <name>', 'who decides (default: $USER)')
  .option('--json', 'machine-readable output')
  .action(async (run, approvalId, options) => (await commands.approvals()).decisionCommand('reject', run, approvalId, options));

program
  .command('skills')
  .description('skill sources')
  .command('watch <sources...>')
  .description('watch skill folders and git repositories; push each change into the running runs that follow them')
  .option('--debounce <ms>', 'folders: quiet time before a burst of edits is read (default 500)')
  .option('--poll <seconds>', 'git repositories: seconds between pulls (default 300)')
  .action(async (sources, options) => (await commands.skillsWatch()).skillsWatchCommand(sources, options));

program
  .command('worker')
  .description('run a worker (tools, models, API keys live here)')
  .option('--tools <module>', 'a JavaScript module (.js, .mjs, .cjs) exporting `tools`; TypeScript: compile it, or run the CLI under tsx')
  .option('--no-demo-tools', 'leave the demo tools (get_weather, …) out')
  .option('--task-queue <name>', 'task queue to poll')
  .option('--setup', 'register the search attributes first (see `setup`)')
  .option('--health-file <path>', 'rewrite this file every 5 s while the worker polls, for health checks (default: AGENT_WORKER_HEALTH_FILE)')
  .option(
    '--shutdown-grace <duration>',
    'on SIGTERM / SIGINT, let in-flight tasks finish this long, then hand the rest to other workers (default: AGENT_WORKER_SHUTDOWN_GRACE, else 10m)',
  )
  .option(
    '--deployment-name <name>',
    'Worker Versioning: the deployment this worker belongs to, with --build-id (default: AGENT_DEPLOYMENT_NAME); docs/deployment.md',
  )
  .option('--build-id <id>', 'Worker Versioning: this build of the deployment; runs stay on the build that started them (default: AGENT_BUILD_ID)')
  .option(
    '--agents <folder>',
    'offer the agents defined in this folder (one YAML or JSON file each) by name (default: AGENT_AGENTS_DIR); docs/agents.md',
  )
  .option(
    '--decision-public-key <file...>',
    'Ed25519 public key(s) (PEM) verified decisions are checked with (default: DURABLE_AGENTS_DECISION_PUBLIC_KEYS, comma-separated files)',
  )
  .option(
    '--require-verified-decisions',
    'run no gated tool call whose approval was not verified (default: DURABLE_AGENTS_REQUIRE_VERIFIED_DECISIONS=1); docs/hitl.md',
  )
  .action(async (options) => (await commands.worker()).workerCommand(options));

addDeploymentCommands(program);
addAgentsCommands(program);
addScheduleCommands(program);

program
  .command('setup')
  .description('once per cluster namespace (idempotent): create the namespace if missing and register the search attributes agent runs use')
  .option('--retention <duration>', 'how long closed runs stay readable, for a namespace setup creates (default 30d; at least 1h)')
  .option('--update-retention', 'also set --retention on an existing namespace (default: report its retention, keep it)')
  .option('--wait <duration>', 'keep retrying this long while the server is starting (e.g. 3m; default: fail at once)')
  .option('--json', 'machine-readable output')
  .action(async (options) => (await commands.setup()).setupCommand(options));

addMemoryCommands(program);

program
  .command('dev')
  .description('the embedded Temporal dev server (with Web UI) and a worker, until Ctrl-C')
  .option('--tools <module>', 'a JavaScript module exporting `tools` to register')
  .option('--no-demo-tools', 'leave the demo tools out')
  .action(async (options) => (await commands.dev()).devCommand(options));

program
  .command('codec-server')
  .description('a remote codec endpoint so the Web UI can show payloads encrypted with AGENT_PAYLOAD_KEYS')
  .option('--port <port>', 'port (default 8089)')
  .option('--host <address>', 'address to listen on (default 127.0.0.1; it decrypts for anyone who reaches it)')
  .option('--origin <url...>', 'Web UI origins allowed to call it (default: the local dev UI)')
  .action(async (options) => (await commands.codecServer()).codecServerCommand(options));

addThreadCommands(program);

program
  .command('chat')
  .description('an interactive conversation over a thread: streamed answers and approval prompts')
  .option('-c, --config <file>', 'agent config (needed for a new thread)')
  .option('--thread <id>', 'continue this thread (default: a new one)')
  .option('-m, --model <provider:model>', "use this model instead of the config's")
  .option('--policy <policy>', 'policy of a new thread: enqueue (default), inject, interrupt or reject')
  .option('--resource <id>', 'the resource (a user, a team) a new thread belongs to')
  .option(
    '--while-busy <policy>',
    'what a message typed while a turn runs does: enqueue (default: its own turn next), inject (joins the turn) or interrupt',
  )
  .option('--history <turns>', 'turns of an existing thread shown when the chat opens (default 5)')
  .option('--by <name>', 'who decides the approvals asked here (default: $USER)')
  .option('--task-queue <name>', 'task queue of the workers')
  .action(async (options) => (await commands.chat()).chatCommand(options));

program
  .command('console')
  .description('the web console: approvals inbox, runs and threads as conversations, live (docs/console.md)')
  .option('--port <port>', 'port (default 4300)')
  .option('--host <address>', 'address to listen on (default 127.0.0.1; any other needs --access with tokens or a trusted header)')
  .option('--access <file>', 'sign-in tokens, trusted proxy header and approver rules (YAML or JSON)')
  .option('--task-queue <name>', 'task queue of the workers (for forks)')
  .option('--request-log', 'print a line per request (method, path, status, identity)')
  .option('--decision-key <file>', 'Ed25519 private key (PEM) signing verified decisions (default: DURABLE_AGENTS_DECISION_KEY); docs/hitl.md')
  .action(async (options) => (await commands.console()).consoleCommand(options));

program
  .command('serve')
  .description('the HTTP gateway: a JSON API over runs, threads and approvals for programs and front-ends (docs/gateway.md)')
  .option('--port <port>', 'port (default 8787)')
  .option('--host <address>', 'address to listen on (default 127.0.0.1; any other needs --access with API keys)')
  .option('--access <file>', 'API keys (hashed), scopes, agent rules, approver rules and CORS origins (YAML or JSON)')
  .option('--task-queue <name>', 'task queue of the workers (where runs start)')
  .option('--request-log', 'print a JSON line per request (method, route, status, principal, duration ms, ids; never a body)')
  .option('--log-bodies', 'put request bodies (message text) in the request lines too (implies --request-log)')
  .option('--decision-key <file>', 'Ed25519 private key (PEM) signing verified decisions (default: DURABLE_AGENTS_DECISION_KEY); docs/gateway.md')
  .option('--no-mcp', 'do not serve the MCP server at /mcp (docs/interop.md)')
  .option('--mcp-agents <names>', 'comma-separated agents the MCP server offers (default: every agent whose expose allows mcp)')
  .option('--a2a <agents>', 'serve these named agents over A2A too, comma-separated, at /a2a/<agent> (docs/interop.md)')
  .option('--max-streams <n>', 'the most streams this process holds open; beyond it 503 StreamLimitReached (default: no limit)')
  .option('--max-streams-per-principal <n>', 'the most streams one key or token principal holds open on this process; beyond it 429 TooManyStreams')
  .option(
    '--a2a-push-key <file>',
    'A2A push notifications: the key file sealing webhook secrets, shared with the workers (default: DURABLE_AGENTS_A2A_PUSH_KEY)',
  )
  .option('--a2a-push-allow-hosts <hosts>', 'A2A push notifications: webhook hosts taken even on a private network, comma-separated')
  .action(async (options) => (await commands.serve()).serveCommand(options));

program
  .command('mcp')
  .description('the MCP server over stdio: each agent a tool, for desktop hosts and IDEs that start it (docs/interop.md)')
  .option('--task-queue <name>', 'task queue of the workers (where runs start)')
  .option('--agents <names>', 'comma-separated agents to offer (default: every agent whose expose allows mcp)')
  .option('--decision-key <file>', 'Ed25519 private key (PEM) signing verified decisions (default: DURABLE_AGENTS_DECISION_KEY); docs/hitl.md')
  .action(async (options) => (await commands.mcp()).mcpCommand(options));

addGatewayCommands(program);

program
  .command('demo')
  .description('dev server + worker + console + one demo agent run (offline scripted model) with a tool call you approve')
  .option('--keep', 'keep the server, worker and console up afterwards (for the links and `chat`)')
  .option('--approve', 'approve the gated call without asking (the default when stdin is not a terminal)')
  .option('--reject', 'reject the gated call without asking')
  .option('--no-console', 'no console beside the run')
  .option('--task <text>', 'a different task')
  .option('-m, --model <provider:model>', 'a real model instead of the scripted one (its key in this environment)')
  .action(async (options) => (await commands.demo()).demoCommand(options));

program.parseAsync().catch((error: unknown) => {
  const userError = error instanceof AgentRuntimeError;
  process.stderr.write(`error: ${describeError(error)}\n`);
  process.exit(userError ? 2 : 1);
});
