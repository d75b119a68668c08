import { PassThrough } from 'node:stream';
import type { RunHandle } from '../../src/client/agent-client';
import { followRun } from '../../src/cli/commands/run-command';
import type { ModelTextSnapshot, ToolProgressSnapshot } from '../../src/protocol/live-snapshots';
import type { AgentRunResult } from '../../src/protocol/run-types';

type Seen<T> = T & { seenAt: number };

export interface FollowedRun {
  /** Everything `run --follow` printed. */
  printed: string;
  /** What a second client saw live, with when it saw it. */
  texts: Array<Seen<ModelTextSnapshot>>;
  progress: Array<Seen<ToolProgressSnapshot>>;
  result: AgentRunResult;
  finishedAt: number;
}

/** Follows a run as `run --follow` does, while a second client records the live snapshots. */
export async function followCollecting(run: RunHandle): Promise<FollowedRun> {
  const out = new PassThrough();
  let printed = '';
  out.on('data', (chunk: Buffer) => (printed += chunk.toString()));
  const texts: FollowedRun['texts'] = [];
  const progress: FollowedRun['progress'] = [];
  const collecting = (async () => {
    for await (const snapshot of run.live({ pollMs: 100 })) {
      if (snapshot.kind === 'model-text') texts.push({ ...snapshot, seenAt: Date.now() });
      else progress.push({ ...snapshot, seenAt: Date.now() });
    }
  })();
  const result = await followRun(run, false, out);
  const finishedAt = Date.now();
  await collecting;
  return { printed, texts, progress, result, finishedAt };
}
