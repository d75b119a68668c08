// `console`: the web console (approvals inbox, runs and threads) on this machine's port, until Ctrl-C.
import { artifactStoreFromEnvironment } from '../../artifacts/artifact-store-from-environment';
import { AgentClient } from '../../client/agent-client';
import { resolveTemporalTarget } from '../../connection/temporal-target';
import { assertAccessFitsHost, readConsoleAccess } from '../../console/console-access';
import { startConsole } from '../../console/console-server';
import { readDecisionSigningKey } from '../../decisions/decision-keys';
import { waitForInterrupt } from './dev-command';
import { portOption } from '../port-option';

export interface ConsoleCommandOptions {
  host?: string;
  port?: string;
  access?: string;
  taskQueue?: string;
  /** A PEM file with the Ed25519 private key decisions' proofs are signed with (default: DURABLE_AGENTS_DECISION_KEY). */
  decisionKey?: string;
  /** Print one line per request (method, path, status, identity; never a body). */
  requestLog?: boolean;
}

/** `console`: serves the console until SIGINT / SIGTERM. Sign-in and approver rules come from `--access`. */
export async function consoleCommand(options: ConsoleCommandOptions): Promise<void> {
  const port = portOption(options.port, 4300);
  const access = options.access ? readConsoleAccess(options.access) : {};
  const host = options.host ?? '127.0.0.1';
  assertAccessFitsHost(host, access); // before connecting: a user error needs no server
  const decisionKey = readDecisionSigningKey(options.decisionKey);
  const agents = await AgentClient.connect(resolveTemporalTarget(), options.taskQueue ? { taskQueue: options.taskQueue } : {});
  try {
    const running = await startConsole({
      agents,
      access,
      ...(decisionKey ? { decisionKey } : {}),
      artifacts: artifactStoreFromEnvironment(),
      host,
      port,
      ...(options.requestLog ? { log: (line: string) => console.log(line) } : {}),
    });
    const signIn = access.tokens?.length
      ? 'sign in with a token of the access file'
      : access.trustedHeader
        ? `identity from the ${access.trustedHeader} header`
        : 'no sign-in: you decide as the local user';
    console.log(`Console on ${running.url} (${signIn}). Press Ctrl-C to stop.`);
    await waitForInterrupt();
    await running.close();
  } finally {
    await agents.close();
  }
}
