// The CLI's command groups (`deployment …`, `agents …`, `gateway …`, `schedule …`, `memory …`, `thread …`), each added to the program by one function.
import type { Command } from 'commander';
import { commands } from './command-modules';

/** `durable-agents deployment …`: Worker Versioning for operators (docs/deployment.md). */
export function addDeploymentCommands(program: Command): void {
  const deployment = program
    .command('deployment')
    .description('Worker Versioning: roll a build of the workers out, ramp it, see what each build holds, retire old ones (docs/deployment.md)');
  deployment
    .command('status <deployment>')
    .description('current and ramping build; per build its open executions by type, runs awaiting approval, and whether it can retire')
    .option('--json', 'machine-readable output')
    .action(async (name, options) => (await commands.deployment()).deploymentStatusCommand(name, options));
  deployment
    .command('rollout <deployment> <buildId>')
    .description('make the build current (new runs, threads at their next turn), then wake idle threads, limiters and slots on older builds to move')
    .option('--no-move', 'only set the current build; `deployment move` wakes the idle executions later')
    .action(async (name, buildId, options) => (await commands.deployment()).deploymentRolloutCommand(name, buildId, options));
  deployment
    .command('ramp <deployment> <buildId> <percentage>')
    .description('send this percentage (0-100) of new executions to the build, the rest to the current build')
    .action(async (name, buildId, percentage) => (await commands.deployment()).deploymentRampCommand(name, buildId, percentage));
  deployment
    .command('move <deployment>')
    .description(
      'wake the threads, provider limiters and concurrency slots still on older builds: each moves to the current build at its next safe point',
    )
    .action(async (name) => (await commands.deployment()).deploymentMoveCommand(name));
  deployment
    .command('drained <deployment> <buildId>')
    .description('exit 0 when the build can retire (not current or ramping, no open execution pinned to it), else 1 with what holds it')
    .option('--wait <duration>', 'look again every 5 s for this long (e.g. 30m)')
    .action(async (name, buildId, options) => (await commands.deployment()).deploymentDrainedCommand(name, buildId, options));
}

/** `durable-agents agents …`: the named, versioned agents the workers offer (docs/agents.md). */
export function addAgentsCommands(program: Command): void {
  const agents = program.command('agents').description('the named, versioned agents the workers offer (docs/agents.md)');
  agents
    .command('list')
    .description("the agents the task queue's workers offer: name@version (label), model, tools, handoffs")
    .option('--json', 'machine-readable output')
    .option('--task-queue <name>', 'task queue of the workers')
    .action(async (options) => (await commands.agents()).agentsListCommand(options));
  agents
    .command('show <name>')
    .description('one agent the workers offer in detail, and the versions its open runs and threads answer with')
    .option('--json', 'machine-readable output')
    .option('--task-queue <name>', 'task queue of the workers')
    .action(async (name, options) => (await commands.agents()).agentsShowCommand(name, options));
}

/** `durable-agents gateway …`: what the HTTP gateway (`serve`) needs besides serving (docs/gateway.md). */
export function addGatewayCommands(program: Command): void {
  const gateway = program.command('gateway').description('the HTTP gateway: making API keys for its access file (serve it with `serve`)');
  gateway
    .command('hash-key')
    .description('make a new random API key and print it with the sha256 the access file stores (the key itself is never stored)')
    .option('--json', 'machine-readable output')
    .action(async (options) => (await commands.serve()).hashKeyCommand(options));
}

/** `durable-agents memory …`: a resource's memory in the workers' store (docs/memory.md). */
export function addMemoryCommands(program: Command): void {
  const memory = program
    .command('memory')
    .description(
      "a resource's memory (agents with memory: true), in the store the workers use: AGENT_MEMORY_URL, else AGENT_MEMORY_DIR or .temporal-data/memory",
    );
  memory
    .command('list <resource>')
    .description('the newest entries of a resource (user:42)')
    .option('--limit <n>', 'at most this many (default 20, at most 50)')
    .option('--json', 'machine-readable output')
    .action(async (resource, options) => (await commands.memory()).memoryListCommand(resource, options));
  memory
    .command('search <resource> <query>')
    .description("a resource's entries with any of the query's words, best first (as the recall tool finds them)")
    .option('--limit <n>', 'at most this many (default 20, at most 50)')
    .option('--json', 'machine-readable output')
    .action(async (resource, query, options) => (await commands.memory()).memorySearchCommand(resource, query, options));
  memory
    .command('forget <resource>')
    .description(
      'forget a resource (a request to be forgotten): its memory entries and its threads (their artifacts and executions); with --id, one memory entry',
    )
    .option('--id <entry>', 'delete only this memory entry (mem-…)')
    .option('--memory-only', "delete the memory only, not the resource's threads (no Temporal server needed)")
    .option('--json', 'machine-readable output')
    .action(async (resource, options) => (await commands.memory()).memoryForgetCommand(resource, options));
}

/** `durable-agents thread …`: durable multi-turn conversations (docs/threads.md). */
export function addThreadCommands(program: Command): void {
  const thread = program.command('thread').description('durable multi-turn conversations (docs/threads.md)');
  thread
    .command('send <thread> <text>')
    .description('send a message to a thread (with --config, the first message creates it); prints its turn')
    .option('-c, --config <file>', 'agent config of a new thread (YAML or JSON)')
    .option('-m, --model <provider:model>', "use this model instead of the config's")
    .option('--agents-dir <folder>', "agent configs for handoffs (default: the config file's folder)")
    .option('--policy <policy>', 'while a turn runs: enqueue (default), inject, interrupt or reject')
    .option('--resource <id>', 'the resource (a user, a team) a new thread belongs to')
    .option('--idle-timeout <duration>', 'close a new thread after this long without a message (e.g. 30d)')
    .option('--when-closed <policy>', "a new thread's answer to messages once closed: refuse (default) or reopen")
    .option('--message-id <id>', 'the message id (a resend with the same id is answered once)')
    .option('-f, --follow', 'print the turn live and wait for its answer')
    .option('--task-queue <name>', 'task queue of the workers')
    .option('--json', 'machine-readable output')
    .action(async (id, text, options) => (await commands.thread()).threadSendCommand(id, text, options));
  thread
    .command('show <thread>')
    .description("a thread's phase, queued messages and newest turns; with --messages, its whole conversation")
    .option(
      '--messages',
      'the conversation, every message oldest first (a continued thread: from the artifact store, AGENT_ARTIFACT_STORE / AGENT_ARTIFACT_DIR)',
    )
    .option('--json', 'machine-readable output')
    .action(async (id, options) => (await commands.thread()).threadShowCommand(id, options));
  thread
    .command('list')
    .description('open threads, newest first')
    .option('--agent <name>', 'of this agent')
    .option('--resource <id>', 'of this resource (resourceId)')
    .option('--status <status>', 'idle, running, awaiting_approval or closed')
    .option('--idle-for <duration>', 'only threads without a message or a finished turn for this long (e.g. 7d)')
    .option('--sort <order>', 'started (default: newest first) or last-activity (longest idle first)')
    .option('--limit <count>', 'at most this many (default 100)')
    .option('--json', 'machine-readable output')
    .action(async (options) => (await commands.thread()).threadListCommand(options));
  thread
    .command('close <thread>')
    .description('close a thread after its running and queued turns')
    .option('--reason <text>', 'why (shown in its status and result)')
    .action(async (id, options) => (await commands.thread()).threadCloseCommand(id, options));
  thread
    .command('delete <thread>')
    .description(
      "delete a thread: end it if open, delete its artifacts (the workers' store: AGENT_ARTIFACT_STORE / AGENT_ARTIFACT_DIR), then its workflow executions",
    )
    .option('--json', 'machine-readable output')
    .action(async (id, options) => (await commands.thread()).threadDeleteCommand(id, options));
}

/** `durable-agents schedule …`: agents on a schedule, Temporal Schedules that start runs or post into threads (docs/schedules.md). */
export function addScheduleCommands(program: Command): void {
  const schedule = program
    .command('schedule')
    .description('agents on a schedule: runs or thread posts on a cron expression or an interval (docs/schedules.md)');
  const collect = (value: string, previous: string[] = []) => [...previous, value];
  schedule
    .command('create <id>')
    .description('create a schedule: --every or --cron, and --task with --config or --agent (a run), or --thread with --message (a thread post)')
    .option('--every <duration>', 'fire at this interval (2s, 15m, 1h, 1d)')
    .option('--cron <expression>', "fire on this five-field cron expression ('0 9 * * 1-5') or @daily / @hourly / ...; repeatable", collect)
    .option('--task <text>', 'the task each fire runs')
    .option('--config <file>', 'the agent config (YAML or JSON): of the runs, or of the thread a first post creates')
    .option('--agent <name[@version]>', 'a named agent the workers define, instead of --config (runs only)')
    .option('--thread <id>', 'post --message into this thread on each fire instead of starting a run')
    .option('--message <text>', 'the message each fire posts into --thread')
    .option('--resource <id>', 'the resource the runs or the thread are for (user:42)')
    .option('--overlap <policy>', 'while a fire still runs: skip (default), buffer_one, buffer_all, cancel_other, terminate_other, allow_all')
    .option('--catchup-window <duration>', 'how late a missed fire may still be taken (at least 10s; default one year)')
    .option('--jitter <duration>', 'delay each fire by a random time up to this')
    .option('--timezone <zone>', 'IANA time zone of the cron expressions (default UTC)')
    .option('--paused', 'create it paused')
    .option('--note <text>', "a note kept with the schedule's state")
    .option('--json', 'machine-readable output')
    .option('--task-queue <name>', 'task queue of the workers the fires run on')
    .action(async (id, options) => (await commands.schedule()).scheduleCreateCommand(id, options));
  schedule
    .command('list')
    .description('every schedule: when it fires, what it does, paused or not, its next fire times')
    .option('--json', 'machine-readable output')
    .action(async (options) => (await commands.schedule()).scheduleListCommand(options));
  schedule
    .command('show <id>')
    .description('one schedule with its overlap policy, catch-up window, counts and running fires')
    .option('--json', 'machine-readable output')
    .action(async (id, options) => (await commands.schedule()).scheduleShowCommand(id, options));
  for (const [change, description] of [
    ['pause', 'pause the schedule (no fire until resume)'],
    ['resume', 'resume a paused schedule'],
    ['trigger', 'fire the schedule now, paused or not'],
    ['delete', 'delete the schedule (the runs it started go on)'],
  ] as const) {
    const command = schedule.command(`${change} <id>`).description(description).option('--json', 'machine-readable output');
    if (change === 'pause' || change === 'resume') command.option('--note <text>', "a note kept with the schedule's state");
    if (change === 'trigger') command.option('--overlap <policy>', "this fire's overlap policy (default allow_all)");
    command.action(async (id, options) => (await commands.schedule()).scheduleChangeCommand(change, id, options));
  }
  schedule
    .command('runs <id>')
    .description('the runs (or thread posts) the schedule started, found by TemporalScheduledById, newest first')
    .option('--json', 'machine-readable output')
    .action(async (id, options) => (await commands.schedule()).scheduleRunsCommand(id, options));
}
