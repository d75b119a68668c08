// What following a run costs Temporal (requests a second while it waits) and how soon its first words show: the library's followers against the old polling ones.
import { InterceptingCall } from '@grpc/grpc-js';
import { Client, Connection, defaultGrpcRetryOptions, makeGrpcRetryInterceptor, type ConnectionOptions } from '@temporalio/client';
import { RunHandle } from '../src/client/run-handle';
import { median, ms, type BenchStack } from './bench-stack';
import { polledEvents, polledLiveText } from './polling-follower';

type GrpcInterceptor = NonNullable<ConnectionOptions['interceptors']>[number];
type Way = 'polling' | 'long poll';

/** How long an idle run is followed each way: past the server's ~20 s long-poll interval. */
const IDLE_MS = Number(process.env.BENCH_FOLLOW_IDLE_MS ?? 30_000);

/** A client whose every gRPC call to Temporal is counted by method (`QueryWorkflow`, `DescribeWorkflowExecution`, ...). */
async function countingClient(address: string): Promise<{ client: Client; counts: Map<string, number>; close(): Promise<void> }> {
  const counts = new Map<string, number>();
  const counter: GrpcInterceptor = (options, nextCall) => {
    const method = options.method_definition.path.split('/').pop() ?? '?';
    counts.set(method, (counts.get(method) ?? 0) + 1);
    return new InterceptingCall(nextCall(options));
  };
  const connection = await Connection.connect({ address, interceptors: [counter, makeGrpcRetryInterceptor(defaultGrpcRetryOptions())] });
  return { client: new Client({ connection }), counts, close: () => connection.close() };
}

/** Follows a run's events and live text as `run --follow` does, the old way or the new; calls `onText` at the first words. */
async function follow(client: Client, workflowId: string, way: Way, signal: AbortSignal, onText: () => void): Promise<void> {
  const run = new RunHandle(client, client.workflow.getHandle(workflowId), null);
  const text = (async () => {
    if (way === 'polling') for await (const _text of polledLiveText(client, run.workflow, signal)) onText();
    else for await (const _snapshot of run.liveText({ signal })) onText();
  })();
  const events = way === 'polling' ? polledEvents(run.workflow, signal) : run.events({ signal });
  for await (const event of events) if (event.type === 'text-produced') onText();
  await text;
}

const total = (counts: Map<string, number>) => [...counts.values()].reduce((sum, count) => sum + count, 0);
const byMethod = (counts: Map<string, number>, seconds: number) =>
  [...counts].map(([method, count]) => `${method} ${(count / seconds).toFixed(2)}`).join(', ');

export async function measureFollowRequests(stack: BenchStack, rounds: number): Promise<void> {
  const counting = await countingClient(stack.server.address);
  try {
    // An idle run: parked on an approval, nothing open, followed for IDLE_MS each way.
    const parked = await stack.agents.startRun({
      config: { name: 'gated', model: 'scripted:gated', tools: ['noop'], hitl_tools: ['noop'] },
      task: 'go',
    });
    for await (const event of parked.events()) if (event.type === 'approval-requested') break;
    const idle = new Map<Way, Map<string, number>>();
    for (const way of ['polling', 'long poll'] as const) {
      counting.counts.clear();
      await follow(counting.client, parked.workflowId, way, AbortSignal.timeout(IDLE_MS), () => {});
      idle.set(way, new Map(counting.counts));
    }
    await parked.approve('step-1.call-1');
    await parked.result();
    // A streamed answer: run start → first words, each way first in every other round.
    const firstText = new Map<Way, number[]>([
      ['polling', []],
      ['long poll', []],
    ]);
    const perRun = new Map<Way, number[]>([
      ['polling', []],
      ['long poll', []],
    ]);
    for (let round = 0; round < rounds; round++) {
      const ways: Way[] = round % 2 === 0 ? ['polling', 'long poll'] : ['long poll', 'polling'];
      for (const way of ways) {
        counting.counts.clear();
        const started = performance.now();
        const run = await stack.agents.startRun({ config: { name: 'bench', model: 'scripted:streamed' }, task: 'talk' });
        let first = 0;
        await follow(counting.client, run.workflowId, way, new AbortController().signal, () => (first ||= performance.now() - started));
        firstText.get(way)!.push(first);
        perRun.get(way)!.push(total(counting.counts));
      }
    }
    const seconds = IDLE_MS / 1_000;
    console.log(`Following a run (events and live text, as \`run --follow\`): the long poll against the old polling, side by side:`);
    for (const way of ['polling', 'long poll'] as const) {
      const counts = idle.get(way)!;
      console.log(
        `  idle run (parked on an approval, ${seconds} s), ${way}: ${(total(counts) / seconds).toFixed(2)} req/s (${byMethod(counts, seconds)})`,
      );
    }
    const ratio = total(idle.get('long poll')!) / Math.max(1, total(idle.get('polling')!));
    console.log(`  idle requests, long poll / polling: ${ratio.toFixed(3)}`);
    const oldFirst = median(firstText.get('polling')!);
    const newFirst = median(firstText.get('long poll')!);
    console.log(
      `  first words of a streamed answer (median of ${rounds}): polling ${ms(oldFirst)}, long poll ${ms(newFirst)}, ratio ${(newFirst / oldFirst).toFixed(2)}`,
    );
    console.log(`  requests per streamed run (median): polling ${median(perRun.get('polling')!)}, long poll ${median(perRun.get('long poll')!)}`);
  } finally {
    await counting.close();
  }
}
