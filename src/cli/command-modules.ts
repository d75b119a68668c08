// The CLI's command modules, each loaded only when its command runs.
/**
 * Command modules load when their command runs, so `--help` (and each command) loads only what it
 * uses: the Temporal SDK alone takes most of a second to load.
 */
export const commands = {
  run: () => import('./commands/run-command'),
  fork: () => import('./commands/fork-command'),
  evaluate: () => import('./commands/eval-command'),
  status: () => import('./commands/status-command'),
  history: () => import('./commands/history-command'),
  usage: () => import('./commands/usage-command'),
  watch: () => import('./commands/watch-command'),
  inject: () => import('./commands/inject-command'),
  approvals: () => import('./commands/approval-commands'),
  skillsWatch: () => import('./commands/skills-watch-command'),
  worker: () => import('./commands/worker-command'),
  setup: () => import('./commands/setup-command'),
  dev: () => import('./commands/dev-command'),
  codecServer: () => import('./commands/codec-server-command'),
  demo: () => import('./commands/demo-command'),
  thread: () => import('./commands/thread-commands'),
  chat: () => import('./commands/chat-command'),
  memory: () => import('./commands/memory-command'),
  console: () => import('./commands/console-command'),
  serve: () => import('./commands/serve-command'),
  mcp: () => import('./commands/mcp-command'),
  deployment: () => import('./commands/deployment-command'),
  agents: () => import('./commands/agents-command'),
  schedule: () => import('./commands/schedule-command'),
};
