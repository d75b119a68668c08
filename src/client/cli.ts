#!/usr/bin/env node
import { Command } from 'commander';
import { codecServerCommand } from './commands/codec-server-command';
import { DEFAULT_CODEC_PORT } from '../codec/codec-server';
import { AgentRuntimeError } from '../shared/errors';
import { approvalsCommand, decisionCommand } from './commands/approval-commands';
import { demoCommand } from './commands/demo-command';
import { devCommand } from './commands/dev-command';
import { historyCommand } from './commands/history-command';
import { injectCommand } from './commands/inject-command';
import { runCommand } from './commands/run-command';
import { skillsWatchCommand } from './commands/skills-watch-command';
import { statusCommand } from './commands/status-command';
import { watchCommand } from './commands/watch-command';
import { workerCommand } from './commands/worker-command';

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
  .requiredOption('-c, --config <file>', 'agent config (YAML or JSON)')
  .requiredOption('-t, --task <text>', 'the task for the agent')
  .option('-f, --follow', 'print events live and wait for the result')
  .option('-m, --model <provider:model>', "use this model instead of the config's")
  .option('--workflow-id <id>', 'workflow id (default: <agent>-<random>)')
  .option('--task-queue <name>', 'task queue of the workers')
  .option('--agents-dir <folder>', "agent configs for handoffs (default: the config file's folder)")
  .option('--json', 'machine-readable output')
  .action((options) => runCommand(options));

program.command('status <run>').description("a run's live status").option('--json', 'machine-readable output').action((run, options) => statusCommand(run, options));

program
  .command('history <run>')
  .description('a readable transcript from the Temporal history: steps, tool calls, results, timings')
  .option('--run-id <id>', 'a specific execution')
  .option('--json', 'machine-readable output')
  .action((run, options) => historyCommand(run, options));

program.command('watch <run>').description("print a run's events live until it finishes").action((run) => watchCommand(run));

program.command('inject <run> <text>').description('push a user message into a running run (before its next model call)').action((run, text) => injectCommand(run, text));

program.command('approvals').description('pending tool approvals across running runs').option('--json', 'machine-readable output').action((options) => approvalsCommand(options));

program
  .command('approve <run> <approvalId>')
  .description('approve a gated tool call')
  .option('--reason <text>', 'why')
  .option('--by <name>', 'who decides (default: $USER)')
  .option('--json', 'machine-readable output')
  .action((run, approvalId, options) => decisionCommand('approve', run, approvalId, options));

program
  .command('reject <run> <approvalId>')
  .description('reject a gated tool call; the model sees the reason')
  .requiredOption('--reason <text>', 'why (the model sees it)')
  .option('--by <name>', 'who decides (default: $USER)')
  .option('--json', 'machine-readable output')
  .action((run, approvalId, options) => decisionCommand('reject', run, approvalId, options));

program
  .command('skills')
  .description('skill sources')
  .command('watch <sources...>')
  .description('watch skill folders and git repositories; push each change into the running runs that follow them')
  .option('--debounce <ms>', 'folders: quiet time before a burst of edits is read (default 500)')
  .option('--poll <seconds>', 'git repositories: seconds between pulls (default 300)')
  .action((sources, options) => skillsWatchCommand(sources, options));

program
  .command('worker')
  .description('run a worker (tools, models, API keys live here)')
  .option('--tools <module>', 'a module exporting `tools` to register besides the demo tools')
  .option('--task-queue <name>', 'task queue to poll')
  .action((options) => workerCommand(options));

program
  .command('dev')
  .description('the embedded Temporal dev server (with Web UI) and a worker, until Ctrl-C')
  .option('--tools <module>', 'a module exporting `tools` to register besides the demo tools')
  .action((options) => devCommand(options));

program
  .command('codec-server')
  .description('a remote codec endpoint so the Web UI can show payloads encrypted with AGENT_PAYLOAD_KEYS')
  .option('--port <port>', `port (default ${DEFAULT_CODEC_PORT})`)
  .option('--host <address>', 'address to listen on (default 127.0.0.1; it decrypts for anyone who reaches it)')
  .option('--origin <url...>', 'Web UI origins allowed to call it (default: the local dev UI)')
  .action((options) => codecServerCommand(options));

program
  .command('demo')
  .description('dev server + worker + one demo agent run with the offline scripted model')
  .option('--keep', 'keep the server and worker up afterwards (for the Web UI)')
  .option('--task <text>', 'a different task')
  .option('-m, --model <provider:model>', 'a real model instead of the scripted one (its key in this environment)')
  .action((options) => demoCommand(options));

/** The message and its causes ("Workflow execution failed: Model step … failed: …"), with the error type. */
function describeError(error: unknown): string {
  const parts: string[] = [];
  let type: string | undefined;
  for (let current: unknown = error; current instanceof Error && parts.length < 5; current = current.cause) {
    if (!parts.some((part) => part.includes(current.message))) parts.push(current.message);
    type = (current as { type?: string }).type ?? type;
  }
  return parts.length > 0 ? `${parts.join(': ')}${type ? ` (${type})` : ''}` : String(error);
}

program.parseAsync().catch((error: unknown) => {
  const userError = error instanceof AgentRuntimeError;
  process.stderr.write(`error: ${describeError(error)}\n`);
  process.exit(userError ? 2 : 1);
});
