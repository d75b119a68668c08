import { temporal } from '@temporalio/proto';
import type { ModelScriptInput } from '../src/models/scripted-model';
import { median, ms, type BenchStack } from './bench-stack';

const WORDS = 60;
const WORD_MS = 25;
const ANSWER = Array.from({ length: WORDS }, (_, index) => `word${index + 1}`).join(' ');

/** One answer of 60 words written over 1.5 s: streamed word by word, or returned whole at the end. */
export function streamingScripts(): Record<string, ModelScriptInput> {
  return {
    streamed: { replies: [{ text: ANSWER, streamMs: WORD_MS }] },
    unstreamed: { replies: [{ text: ANSWER, delayMs: WORDS * WORD_MS }] },
  };
}

interface Observation {
  /** Run start → the first words on the client's screen. */
  firstTextMs: number;
  /** Per snapshot: when the client saw it − when the worker took it. */
  lagsMs: number[];
  historyBytes: number;
}

/** A follower as `run --follow` has one: live text when there is some, else the final event. */
async function observe(stack: BenchStack, script: 'streamed' | 'unstreamed'): Promise<Observation> {
  const started = Date.now();
  const run = await stack.agents.startRun({ config: { name: 'bench', model: `scripted:${script}` }, task: 'talk' });
  let firstTextMs = 0;
  const lagsMs: number[] = [];
  const streaming = (async () => {
    for await (const snapshot of run.liveText()) {
      firstTextMs ||= Date.now() - started;
      lagsMs.push(Date.now() - snapshot.at);
    }
  })();
  for await (const event of run.events()) if (event.type === 'text-produced') firstTextMs ||= Date.now() - started;
  await streaming;
  const history = await run.workflow.fetchHistory();
  return { firstTextMs, lagsMs, historyBytes: temporal.api.history.v1.History.encode(history).finish().length };
}

export async function measureStreaming(stack: BenchStack, rounds: number): Promise<void> {
  await observe(stack, 'streamed');
  const streamed: Observation[] = [];
  const whole: Observation[] = [];
  for (let round = 0; round < rounds; round++) {
    streamed.push(await observe(stack, 'streamed'));
    whole.push(await observe(stack, 'unstreamed'));
  }
  const lags = streamed.flatMap((observation) => observation.lagsMs).sort((a, b) => a - b);
  const first = median(streamed.map((observation) => observation.firstTextMs));
  const firstWhole = median(whole.map((observation) => observation.firstTextMs));
  const bytes = median(streamed.map((observation) => observation.historyBytes));
  const bytesWhole = median(whole.map((observation) => observation.historyBytes));
  console.log(`Token streaming (a ${WORDS}-word answer written over ${WORDS * WORD_MS} ms; median of ${rounds}):`);
  console.log(`  first words on the client: streamed ${ms(first)}, returned whole ${ms(firstWhole)}, ratio ${(first / firstWhole).toFixed(2)}`);
  console.log(
    `  worker snapshot → client: p50 ${ms(lags[Math.floor(lags.length / 2)] ?? 0)}, p95 ${ms(lags[Math.floor(lags.length * 0.95)] ?? 0)} (${lags.length} snapshots; heartbeat throttle 250 ms, poll 250 ms)`,
  );
  console.log(`  history bytes of the run: streamed ${bytes} B, returned whole ${bytesWhole} B, ratio ${(bytes / bytesWhole).toFixed(2)}`);
}
