// Bench section `gateway`: a turn through the HTTP gateway's stream against the library in process, and what 1,000 open streams cost.
import { randomUUID } from 'node:crypto';
import type { AgentConfigInput } from '../src/config/agent-config';
import type { ModelScriptInput } from '../src/models/scripted-model';
import { startGateway, type RunningGateway } from '../src/gateway/gateway-server';
import type { FeedRequests } from '../src/gateway/streams/run-feed';
import { median, ms, type BenchStack } from './bench-stack';

const chatty: AgentConfigInput = { name: 'bench-gw', model: 'scripted:chatty', max_steps: 3 };
const streamed: AgentConfigInput = { name: 'bench-gw-streamed', model: 'scripted:streamed', max_steps: 3 };
const talkative: AgentConfigInput = { name: 'bench-gw-talkative', model: 'scripted:gw-talkative', max_steps: 3 };
const gated: AgentConfigInput = { name: 'bench-gw-gated', model: 'scripted:gated', tools: ['noop'], hitl_tools: ['noop'] };
/** Open streams in the scale part, spread over this many threads (a chat product has a few clients per thread at most). */
const STREAMS = Number(process.env.BENCH_GATEWAY_STREAMS ?? 1_000);
const STREAM_THREADS = Number(process.env.BENCH_GATEWAY_THREADS ?? 100);

/** An answer written over 30 s (500 words, 60 ms apart): long enough for every stream of the scale part to open while it streams. */
export function gatewayScripts(): Record<string, ModelScriptInput> {
  const words = Array.from({ length: 500 }, (_, index) => `word${index + 1}`).join(' ');
  return { 'gw-talkative': { replies: [{ text: words, streamMs: 60 }] } };
}

/** POSTs a chat message to the gateway and reads its UI message stream: ms to the first text chunk and to the end. */
async function chatTurn(
  gateway: RunningGateway,
  threadId: string,
  config: AgentConfigInput,
  text: string,
): Promise<{ firstText: number; done: number }> {
  const started = performance.now();
  const response = await fetch(`${gateway.url}/v1/chat`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ id: threadId, config, messages: [{ id: randomUUID(), role: 'user', parts: [{ type: 'text', text }] }] }),
  });
  if (!response.ok) throw new Error(`POST /v1/chat answered ${response.status}: ${await response.text()}`);
  let firstText = 0;
  const decoder = new TextDecoder();
  for await (const bytes of response.body as unknown as AsyncIterable<Uint8Array>) {
    if (!firstText && decoder.decode(bytes).includes('"text-delta"')) firstText = performance.now() - started;
  }
  return { firstText, done: performance.now() - started };
}

/** The same turn with the library: `send`, the first `liveText` snapshot (or the logged text), then `result`. */
async function libraryTurn(
  stack: BenchStack,
  threadId: string,
  config: AgentConfigInput,
  text: string,
): Promise<{ firstText: number; done: number }> {
  const started = performance.now();
  const turn = await stack.agents.thread(threadId, { config }).send(text);
  let firstText = 0;
  const abort = new AbortController();
  const live = (async () => {
    for await (const snapshot of turn.liveText({ signal: abort.signal })) if (snapshot.text) return (firstText ||= performance.now() - started);
  })();
  await turn.result();
  const done = performance.now() - started;
  abort.abort();
  await live;
  return { firstText: firstText || done, done };
}

function ratio(what: string, gateway: number[], library: number[]): string {
  return `  ${what}: gateway ${ms(median(gateway))}, library ${ms(median(library))}, ratio ${(median(gateway) / median(library)).toFixed(2)}`;
}

function requestsPerSecond(before: FeedRequests, after: FeedRequests, seconds: number): string {
  const per = (key: keyof FeedRequests) => ((after[key] - before[key]) / seconds).toFixed(1);
  const total = (Object.keys(after) as Array<keyof FeedRequests>).reduce((sum, key) => sum + after[key] - before[key], 0) / seconds;
  return `${total.toFixed(1)} req/s (history polls ${per('historyPolls')}, events queries ${per('eventQueries')}, describes ${per('describes')})`;
}

/** Opens `count` turn streams spread over `threads`, reading and dropping what they send; resolves once all are open. */
async function openStreams(gateway: RunningGateway, threads: string[], count: number, abort: AbortSignal): Promise<Promise<void>[]> {
  const reads = Array.from({ length: count }, async (_, index) => {
    const response = await fetch(`${gateway.url}/v1/threads/${threads[index % threads.length]}/turns/1/stream`, { signal: abort });
    for await (const _bytes of response.body as unknown as AsyncIterable<Uint8Array>);
  }).map((read) => read.catch(() => undefined));
  for (const started = Date.now(); gateway.feeds.stats().streams < count && Date.now() - started < 120_000;)
    await new Promise((r) => setTimeout(r, 200));
  return reads;
}

async function heapUsed(): Promise<number> {
  for (let index = 0; index < 3; index++) (globalThis as { gc?: () => void }).gc?.();
  await new Promise((resolve) => setTimeout(resolve, 200));
  return process.memoryUsage().heapUsed;
}

/** 1,000 streams on threads waiting for an approval (idle), then on threads whose answer streams. */
async function measureOpenStreams(stack: BenchStack, gateway: RunningGateway): Promise<void> {
  const waiting = await Promise.all(
    Array.from({ length: STREAM_THREADS }, async (_, index) => {
      const threadId = `bench-gw-idle-${index}-${randomUUID().slice(0, 6)}`;
      await stack.agents.thread(threadId, { config: gated }).send('go');
      return threadId;
    }),
  );
  for (const threadId of waiting)
    while ((await stack.agents.getRun(threadId).status()).pendingApprovals.length === 0) await new Promise((resolve) => setTimeout(resolve, 100));
  const heapBefore = await heapUsed();
  const idleAbort = new AbortController();
  const openStarted = performance.now();
  const idleReads = await openStreams(gateway, waiting, STREAMS, idleAbort.signal);
  const openMs = performance.now() - openStarted;
  const heapOpen = await heapUsed();
  const idleBefore = gateway.feeds.stats().requests;
  await new Promise((resolve) => setTimeout(resolve, 30_000));
  const idleAfter = gateway.feeds.stats().requests;
  const stats = gateway.feeds.stats();
  console.log(`  ${stats.streams} open streams on ${stats.feeds} feeds (threads waiting for an approval), all open after ${ms(openMs)}:`);
  console.log(
    `    memory: ${((heapOpen - heapBefore) / STREAMS / 1024).toFixed(1)} KiB of heap per stream (gateway and its fetch clients in one process)`,
  );
  console.log(`    idle: ${requestsPerSecond(idleBefore, idleAfter, 30)} to Temporal`);
  idleAbort.abort();
  await Promise.all(idleReads);
  await Promise.all(waiting.map((threadId) => stack.agents.getRun(threadId).workflow.terminate('bench done')));

  const talking = Array.from({ length: STREAM_THREADS }, (_, index) => `bench-gw-live-${index}-${randomUUID().slice(0, 6)}`);
  await Promise.all(talking.map((threadId) => stack.agents.thread(threadId, { config: talkative }).send('talk')));
  const liveAbort = new AbortController();
  const liveReads = await openStreams(gateway, talking, STREAMS, liveAbort.signal);
  const liveBefore = gateway.feeds.stats().requests;
  await new Promise((resolve) => setTimeout(resolve, 10_000));
  const liveAfter = gateway.feeds.stats().requests;
  const live = gateway.feeds.stats();
  console.log(
    `    streaming (${live.streams} streams on ${live.feeds} feeds whose answers stream, 10 s): ${requestsPerSecond(liveBefore, liveAfter, 10)}`,
  );
  liveAbort.abort();
  await Promise.all(liveReads);
  console.log(`    polling per client instead (the library's liveText + events): ${(STREAMS * 8).toLocaleString('en')} queries/s`);
  await Promise.all(talking.map((threadId) => stack.agents.getRun(threadId).workflow.terminate('bench done')));
}

/**
 * The gateway against the library in the same process and server, side by side: the first words of
 * a streamed answer on the client, and a whole turn. Then 1,000 open streams: heap per stream and
 * requests per second sent to Temporal while they idle and while they stream.
 */
export async function measureGateway(stack: BenchStack, rounds: number): Promise<void> {
  const gateway = await startGateway({ agents: stack.agents, host: '127.0.0.1', port: 0 });
  try {
    const prefix = `bench-gw-${randomUUID().slice(0, 6)}`;
    const first: [number[], number[]] = [[], []];
    const turns: [number[], number[]] = [[], []];
    await chatTurn(gateway, `${prefix}-warm-s`, streamed, 'warm');
    await libraryTurn(stack, `${prefix}-warm-l`, streamed, 'warm');
    for (let round = 0; round < rounds; round++) {
      const sides = [
        async () => first[0].push((await chatTurn(gateway, `${prefix}-fs-${round}`, streamed, 'talk')).firstText),
        async () => first[1].push((await libraryTurn(stack, `${prefix}-fl-${round}`, streamed, 'talk')).firstText),
        async () => turns[0].push((await chatTurn(gateway, `${prefix}-gw`, chatty, `turn ${round}`)).done),
        async () => turns[1].push((await libraryTurn(stack, `${prefix}-lib`, chatty, `turn ${round}`)).done),
      ];
      const order = round % 2 === 0 ? [0, 1, 2, 3] : [1, 0, 3, 2];
      for (const index of order) await sides[index]!();
    }
    console.log(`HTTP gateway (median of ${rounds}, each side first in every other round):`);
    console.log(ratio('first words of a streamed answer on the client', first[0], first[1]));
    console.log(ratio('a turn, sent to answered', turns[0], turns[1]));
    await measureOpenStreams(stack, gateway).catch((error: unknown) =>
      console.log(`  open streams: failed: ${(error as Error).stack ?? String(error)}`),
    );
  } finally {
    await gateway.close();
  }
}
