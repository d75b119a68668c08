// Replays every recorded history in test/histories against today's workflow code, one result per file.
import { beforeAll, describe, expect, it } from '@jest/globals';
import { Worker, type ReplayResult } from '@temporalio/worker';
import { corpusFiles, parseCorpusPath, readCorpusHistory, workflowIdOf, workflowTypeOf } from './support/history-corpus';
import { AGENT_WORKFLOW_TYPES, userWorkflowBundle } from './support/user-workflow-bundle';

/**
 * Histories recorded from real runs (npm run record-histories) replayed against today's workflow
 * code: a change that would break running workflows fails here, naming the file. Change workflow
 * logic behind `patched()` instead (src/workflows/versioning/patches.ts). No file is skipped: a file outside
 * the layout of test/histories/README.md, one without a workflow id or one the replayer gave no
 * result for fails as well.
 */
const files = corpusFiles();

describe('the replay corpus', () => {
  it('holds only files laid out as test/histories/README.md says', () => {
    expect(files.filter((file) => parseCorpusPath(file) === null)).toEqual([]);
  });

  it('holds every execution of each recorded chain', () => {
    const incomplete: string[] = [];
    for (const file of files) {
      const parsed = parseCorpusPath(file);
      if (!parsed || parsed.execution === null) continue;
      const { scenario, label, execution } = parsed;
      for (let index = 1; index <= execution.count; index++) {
        const sibling = `${scenario}/${label}.execution-${index}-of-${execution.count}.json`;
        if (!files.includes(sibling)) incomplete.push(`${file}: no ${sibling}`);
      }
    }
    expect(incomplete).toEqual([]);
  });
});

/** Replays `histories` against one bundle, keeping each file's result. */
async function replayInto(
  results: Map<string, ReplayResult>,
  histories: Array<{ file: string; workflowId: string; history: ReturnType<typeof readCorpusHistory> }>,
  workflowBundle: { codePath: string } | { code: string },
): Promise<void> {
  // The replayer takes one history at a time, in order, and yields its result before the next.
  let current = 0;
  const inOrder = histories.map(({ workflowId, history }) => ({ workflowId, history }));
  for await (const result of Worker.runReplayHistories({ workflowBundle }, inOrder)) results.set(histories[current++]!.file, result);
}

describe('replay of recorded histories', () => {
  const results = new Map<string, ReplayResult>();
  const unreadable = new Map<string, string>();

  beforeAll(async () => {
    const replayable: Array<{ file: string; workflowId: string; history: ReturnType<typeof readCorpusHistory> }> = [];
    for (const file of files) {
      try {
        const history = readCorpusHistory(file);
        const workflowId = workflowIdOf(history);
        if (workflowId) replayable.push({ file, workflowId, history });
        else unreadable.set(file, 'its first event names no workflow id');
      } catch (error) {
        unreadable.set(file, `not a history: ${String(error)}`);
      }
    }
    // Agent runs replay against the agent bundle; users' workflows that run agents against theirs
    // (ours bundled with test/support/parent-workflows.ts by the plugin, as their workers do).
    const ofAgents = replayable.filter(({ history }) => AGENT_WORKFLOW_TYPES.includes(workflowTypeOf(history) ?? ''));
    const ofUsers = replayable.filter((entry) => !ofAgents.includes(entry));
    await replayInto(results, ofAgents, { codePath: process.env.AGENT_WORKFLOW_BUNDLE! });
    if (ofUsers.length > 0) await replayInto(results, ofUsers, { code: await userWorkflowBundle() });
  }, 600_000);

  it('finds histories to replay', () => {
    expect(files.length).toBeGreaterThan(0);
  });

  it.each(files)('replays %s without nondeterminism', (file) => {
    expect(unreadable.get(file)).toBeUndefined();
    const result = results.get(file);
    expect(result).toBeDefined();
    expect(result?.error ? String(result.error) : null).toBeNull();
  });
});
