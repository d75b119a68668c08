// Bench section `threads`: a turn against a fresh run given the same conversation, and history bytes
// per turn (parked threads' memory: parked-threads.ts).
import { randomUUID } from 'node:crypto';
import { AgentClient } from '../src/client/agent-client';
import type { ThreadHandle } from '../src/client/thread-handle';
import type { Message } from '../src/protocol/messages';
import type { ModelScriptInput } from '../src/models/scripted-model';
import { median, ms, type BenchStack } from './bench-stack';

/** Turns the latency comparison's thread has answered before it is measured. */
const EARLIER_TURNS = 20;
const REPLIES = 1_200;

/** Scripts of the section: one text reply per step, as many as the longest thread needs. */
export function threadScripts(): Record<string, ModelScriptInput> {
  return { chatty: { replies: Array.from({ length: REPLIES }, () => ({ text: 'Noted: {{user}}' })) } };
}

const config = { name: 'bench-thread', model: 'scripted:chatty', max_steps: 3 };

async function timeTurn(thread: ThreadHandle, text: string): Promise<number> {
  const started = performance.now();
  await (await thread.send(text)).result();
  return performance.now() - started;
}

async function timeFreshRun(agents: AgentClient, messages: Message[], text: string): Promise<number> {
  const started = performance.now();
  const run = await agents.startRun({ config, task: text, messages });
  await run.result();
  return performance.now() - started;
}

/** The conversation a thread holds after `turns` one-step turns (what a fresh run is given instead). */
function conversationAfter(turns: number): Message[] {
  return Array.from({ length: turns }, (_, index): Message[] => [
    { role: 'user', content: `message ${index + 1}` },
    { role: 'assistant', content: `Noted: message ${index + 1}`, toolCalls: [] },
  ]).flat();
}

async function historyBytes(thread: ThreadHandle): Promise<number> {
  return Number((await thread.run.workflow.describe()).raw.workflowExecutionInfo?.historySizeBytes ?? 0);
}

/**
 * A turn of a thread that already holds `EARLIER_TURNS` turns, against a fresh run given the same
 * messages (interleaved); then the history bytes turn 5 and turn 500 add to one thread.
 */
export async function measureThreads(stack: BenchStack, rounds: number): Promise<void> {
  const { agents } = stack;
  const thread = agents.thread(`bench-thread-${randomUUID().slice(0, 8)}`, { config });
  for (let turn = 1; turn <= EARLIER_TURNS; turn++) await (await thread.send(`message ${turn}`)).result();
  await timeFreshRun(agents, conversationAfter(EARLIER_TURNS), 'warm-up');
  const turns: number[] = [];
  const fresh: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const messages = conversationAfter(EARLIER_TURNS + round);
    // Each side goes first in every other round.
    if (round % 2 === 0) turns.push(await timeTurn(thread, `message ${EARLIER_TURNS + round + 1}`));
    fresh.push(await timeFreshRun(agents, messages, `message ${EARLIER_TURNS + round + 1}`));
    if (round % 2 === 1) turns.push(await timeTurn(thread, `message ${EARLIER_TURNS + round + 1}`));
  }
  console.log(
    `Threads: a one-step turn of a thread holding ${EARLIER_TURNS}+ turns against a fresh run given the same messages (median of ${rounds} interleaved rounds):`,
  );
  console.log(`  turn ${ms(median(turns))}, fresh run ${ms(median(fresh))}, ratio ${(median(turns) / median(fresh)).toFixed(2)}`);
  await thread.close();

  const long = agents.thread(`bench-long-thread-${randomUUID().slice(0, 8)}`, { config, historyEventLimit: 50_000 });
  const added = new Map<number, number>();
  let before = 0;
  for (let turn = 1; turn <= 500; turn++) {
    await (await long.send(`message ${turn}`)).result();
    if (turn === 4 || turn === 499) before = await historyBytes(long);
    if (turn === 5 || turn === 500) added.set(turn, (await historyBytes(long)) - before);
  }
  console.log('History bytes per turn (one thread, 500 one-step turns, no continue-as-new):');
  console.log(`  turn 5: ${added.get(5)} B, turn 500: ${added.get(500)} B, ratio ${(added.get(500)! / added.get(5)!).toFixed(2)}`);
  await long.close();
}
