// `durable-agents/console`: the web console (approvals inbox, runs and threads) to start or mount in your own server.
export { createConsoleApp } from './console-app';
export type { ConsoleOptions } from './console-app';
export { consoleRequestListener, startConsole } from './console-server';
export type { ConsoleServerOptions, RunningConsole } from './console-server';
export { readConsoleAccess } from './console-access';
export type { ApproverRule, ConsoleAccess } from './console-access';
