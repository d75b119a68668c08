// `chat`: an interactive conversation over a thread in the terminal, with approval prompts.
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import readline from 'node:readline';
import { AgentClient } from '../../client/agent-client';
import type { RunEvent } from '../../protocol/run-events';
import { followTurn, threadOptionsOf, type ThreadSendOptions } from './thread-commands';

/** Lines typed (or piped) in, handed out one at a time: messages and answers to approval prompts share them. */
class LineReader {
  private readonly lines: string[] = [];
  private waiting: ((line: string | null) => void) | null = null;
  private ended = false;

  constructor(input: NodeJS.ReadableStream) {
    const reader = readline.createInterface({ input, terminal: false });
    reader.on('line', (line) => this.deliver(line));
    reader.on('close', () => {
      this.ended = true;
      this.deliver(null);
    });
  }

  next(): Promise<string | null> {
    if (this.lines.length > 0) return Promise.resolve(this.lines.shift()!);
    if (this.ended) return Promise.resolve(null);
    return new Promise((resolve) => (this.waiting = resolve));
  }

  private deliver(line: string | null): void {
    const waiting = this.waiting;
    this.waiting = null;
    if (waiting) waiting(line);
    else if (line !== null) this.lines.push(line);
  }
}

/**
 * `chat --config FILE [--thread ID]`: each line you type is a message to the thread (created with
 * the config if new); the answer streams back, and a gated tool call asks you to approve
 * (`y`) or reject (anything else: the reason). `/quit` leaves (the thread stays and waits for
 * your next message, from here or anywhere), `/close` closes the thread.
 */
export async function chatCommand(options: ThreadSendOptions & { thread?: string }, agents?: AgentClient): Promise<void> {
  const threadOptions = threadOptionsOf(options);
  const threadId = options.thread ?? `${threadOptions.config?.name ?? 'chat'}-chat-${randomUUID().slice(0, 8)}`;
  const client = agents ?? (await AgentClient.connect(undefined, { taskQueue: options.taskQueue }));
  const lines = new LineReader(process.stdin);
  const decider = os.userInfo().username;
  try {
    const thread = client.thread(threadId, threadOptions);
    console.log(`Thread ${threadId}. Type a message; /quit leaves (the thread stays), /close closes it.`);
    if (thread.run.webUiUrl) console.log(`Web UI: ${thread.run.webUiUrl}`);
    for (;;) {
      process.stdout.write('\nyou> ');
      const line = await lines.next();
      if (line === null || line.trim() === '/quit') break;
      if (line.trim() === '/close') {
        await thread.close('closed from the chat');
        console.log(`Thread ${threadId} closed.`);
        break;
      }
      if (!line.trim()) continue;
      const turn = await thread.send(line);
      const askForApproval = async (event: RunEvent): Promise<void> => {
        if (event.type !== 'approval-requested') return;
        process.stdout.write(`approve ${event.request.toolName}(${JSON.stringify(event.request.args)})? y, or a reason to reject: `);
        const answer = (await lines.next())?.trim() ?? '';
        if (answer.toLowerCase() === 'y' || answer.toLowerCase() === 'yes') await turn.approve(event.request.approvalId, { decidedBy: decider });
        else await turn.reject(event.request.approvalId, { reason: answer || 'rejected in the chat', decidedBy: decider });
      };
      const result = await followTurn(turn, false, askForApproval);
      console.log(`(turn ${result.turn}: ${result.stopReason}, ${result.usage.inputTokens} in / ${result.usage.outputTokens} out tokens)`);
    }
  } finally {
    if (!agents) await client.close();
  }
}
