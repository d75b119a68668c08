// `chat`: an interactive conversation over a thread in the terminal, with approval prompts.
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import { AgentClient } from '../../client/agent-client';
import { AgentConfigError } from '../../protocol/errors';
import type { ChatIo } from '../chat/chat-io';
import { ChatSession, WHILE_BUSY_POLICIES, type WhileBusyPolicy } from '../chat/chat-session';
import { PipedChatIo } from '../chat/piped-chat-io';
import { TerminalChatIo } from '../chat/terminal-chat-io';
import { threadOptionsOf, type ThreadSendOptions } from './thread-commands';

/** The flags of `chat`, as commander gives them. */
export interface ChatOptions extends ThreadSendOptions {
  thread?: string;
  whileBusy?: string;
  history?: string;
  by?: string;
}

/**
 * `chat --config FILE [--thread ID]`: each line you type is a message to the thread (created with
 * the config if new); the answer streams back, and a gated tool call asks you to approve (`y`,
 * `yes`, `approve`) or reject (`n`, `no`, `reject`, then a reason); any other answer asks again.
 * On a terminal you can type while an answer streams; the message is sent with `--while-busy`.
 * Opening a thread that exists shows its last turns and follows a turn still running.
 */
export async function chatCommand(options: ChatOptions, agents?: AgentClient): Promise<void> {
  const threadOptions = threadOptionsOf(options);
  const whileBusy = whileBusyOf(options.whileBusy);
  const historyTurns = historyTurnsOf(options.history);
  const threadId = options.thread ?? `${threadOptions.config?.name ?? 'chat'}-chat-${randomUUID().slice(0, 8)}`;
  const client = agents ?? (await AgentClient.connect(undefined, { taskQueue: options.taskQueue }));
  const io: ChatIo = process.stdin.isTTY && process.stdout.isTTY ? new TerminalChatIo() : new PipedChatIo();
  try {
    const thread = client.thread(threadId, threadOptions);
    if (thread.run.webUiUrl) io.write(`Web UI: ${thread.run.webUiUrl}\n`);
    const decidedBy = options.by ?? process.env.USER ?? os.userInfo().username;
    await new ChatSession({ thread, io, decidedBy, whileBusy, historyTurns }).run();
  } finally {
    io.close();
    if (!agents) await client.close();
  }
}

function whileBusyOf(policy: string | undefined): WhileBusyPolicy {
  if (policy === undefined) return 'enqueue';
  if (WHILE_BUSY_POLICIES.includes(policy as WhileBusyPolicy)) return policy as WhileBusyPolicy;
  const problem = `--while-busy: must be one of ${WHILE_BUSY_POLICIES.join(', ')}, not '${policy}'`;
  throw new AgentConfigError(problem, [problem]);
}

function historyTurnsOf(turns: string | undefined): number {
  if (turns === undefined) return 5;
  const count = Number(turns);
  if (Number.isInteger(count) && count >= 0) return count;
  const problem = `--history: must be a whole number of turns (0 shows none), not '${turns}'`;
  throw new AgentConfigError(problem, [problem]);
}
