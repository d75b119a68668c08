// Conversation snapshots as segments plus indexes: storage that grows linearly over a long chain, old whole snapshots still read, compaction starting afresh.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { FolderArtifactStore } from '../../src/artifacts/folder-artifact-store';
import { ConversationSnapshots, MAX_INDEX_PARTS } from '../../src/artifacts/conversation-snapshots';
import type { ConversationBase } from '../../src/protocol/conversation-base';
import { ErrorCode } from '../../src/protocol/errors';
import type { Message } from '../../src/protocol/messages';
import { CountingArtifactStore } from '../support/counting-artifact-store';

let scratch: string;

beforeAll(() => {
  scratch = mkdtempSync(path.join(os.tmpdir(), 'conversation-snapshots-'));
});

afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
});

/** The two messages one step adds: the model's tool call and the tool's result (about 600 bytes). */
function stepMessages(step: number): Message[] {
  const id = `call-${step}`;
  return [
    { role: 'assistant', content: '', toolCalls: [{ id, name: 'read_page', args: { page: step } }] },
    { role: 'tool', toolCallId: id, toolName: 'read_page', content: `page ${step}: `.padEnd(500, '.'), isError: false },
  ];
}

function store(name: string): CountingArtifactStore {
  return new CountingArtifactStore(new FolderArtifactStore(path.join(scratch, name)));
}

const meta = (callId: string) => ({ workflowId: 'chain', callId });

describe('conversation snapshots', () => {
  it('stores a 1,000-step chain that continues as new every 10 steps in bytes linear in its messages (the whole-snapshot way was quadratic)', async () => {
    const counting = store('linear');
    const snapshots = new ConversationSnapshots(counting);
    const messages: Message[] = [{ role: 'user', content: 'Read every page' }];
    let base: ConversationBase | undefined;
    // What writing the whole conversation at each continuation (the format before segments) would have put.
    let wholeSnapshotBytes = 0;
    const indexBytes: number[] = [];
    for (let step = 1; step <= 1_000; step++) {
      messages.push(...stepMessages(step));
      if (step % 10 !== 0) continue;
      const before = counting.bytesPut.get('conversation-snapshot') ?? 0;
      base = await snapshots.write(messages, base, meta(`run-${step}`));
      const written = (counting.bytesPut.get('conversation-snapshot') ?? 0) - before;
      // This continuation wrote its 20 new messages and an index of at most MAX_INDEX_PARTS parts.
      indexBytes.push(written - Buffer.byteLength(JSON.stringify(messages.slice(-20))) + 2);
      wholeSnapshotBytes += Buffer.byteLength(JSON.stringify(messages));
      expect(base.count).toBe(messages.length);
    }
    const messageBytes = Buffer.byteLength(JSON.stringify(messages));
    const snapshotBytes = counting.bytesPut.get('conversation-snapshot')!;
    // Each message is written once; per continuation an index of bounded size comes on top.
    expect(snapshotBytes / messageBytes).toBeLessThan(1.5);
    expect(Math.max(...indexBytes)).toBeLessThan(MAX_INDEX_PARTS * 100 + 200);
    expect(wholeSnapshotBytes / messageBytes).toBeGreaterThan(40);

    // A worker that never saw the chain reads it back whole, each artifact once, in about as many bytes.
    const cold = store('linear');
    const read = await new ConversationSnapshots(cold).read(base!);
    expect(read).toEqual(messages);
    expect(new Set(cold.reads).size).toBe(cold.reads.length);
    expect(cold.reads.length).toBeLessThan(100 + 100 / (MAX_INDEX_PARTS - 1) + 2);
  }, 120_000);

  it('a worker that read the base reads only the new segment and index of the next continuation', async () => {
    const counting = store('warm');
    const writer = new ConversationSnapshots(counting);
    const messages: Message[] = [{ role: 'user', content: 'task' }, ...stepMessages(1)];
    const first = await writer.write(messages, undefined, meta('a'));
    const reader = new ConversationSnapshots(counting);
    expect(await reader.read(first)).toEqual(messages);
    messages.push(...stepMessages(2));
    const second = await writer.write(messages, first, meta('b'));
    const readsBefore = counting.reads.length;
    expect(await reader.read(second)).toEqual(messages);
    expect(counting.reads.length - readsBefore).toBe(2);
  });

  it('reads a snapshot written before indexes (a whole message array), and continues a chain from it', async () => {
    const counting = store('old-format');
    const old: Message[] = [{ role: 'user', content: 'task' }, ...stepMessages(1), ...stepMessages(2)];
    // Written as saveConversation wrote every snapshot before: the whole conversation as one JSON array.
    const oldId = await counting.put(JSON.stringify(old), { workflowId: 'chain', toolName: 'conversation-snapshot', callId: 'old' });
    const snapshots = new ConversationSnapshots(counting);
    expect(await snapshots.read({ artifactId: oldId, count: 5 })).toEqual(old);
    // A base names the first `count` messages even when the array holds more.
    expect(await snapshots.read({ artifactId: oldId, count: 3 })).toEqual(old.slice(0, 3));

    const messages = [...old, ...stepMessages(3)];
    const bytesBefore = counting.bytesPut.get('conversation-snapshot')!;
    const next = await snapshots.write(messages, { artifactId: oldId, count: 5 }, meta('next'));
    // Only the two new messages were written (plus the index), not the old ones again.
    expect(counting.bytesPut.get('conversation-snapshot')! - bytesBefore).toBeLessThan(Buffer.byteLength(JSON.stringify(stepMessages(3))) + 400);
    expect(await new ConversationSnapshots(counting).read(next)).toEqual(messages);
  });

  it('starts a fresh full segment after a compaction rewrote the conversation, and the chain goes on from it', async () => {
    const counting = store('compaction');
    const snapshots = new ConversationSnapshots(counting);
    let messages: Message[] = [{ role: 'user', content: 'task' }];
    let base: ConversationBase | undefined;
    for (let step = 1; step <= 3; step++) {
      messages.push(...stepMessages(step));
      base = await snapshots.write(messages, base, meta(`before-${step}`));
    }
    // Compaction: the task, a summary, the newest turn. A new epoch, so the run has no base to extend.
    messages = [messages[0]!, { role: 'user', content: 'Summary: pages 1-2 read.' }, ...stepMessages(3)];
    const compacted = await snapshots.write(messages, undefined, meta('compacted'));
    expect(await new ConversationSnapshots(counting).read(compacted)).toEqual(messages);
    messages.push(...stepMessages(4));
    const after = await snapshots.write(messages, compacted, meta('after'));
    expect(await new ConversationSnapshots(counting).read(after)).toEqual(messages);
    // The chain before the compaction is untouched and still readable.
    expect((await new ConversationSnapshots(counting).read(base!)).length).toBe(7);
  });

  it('writes the same snapshot twice (a retried save) as the same artifacts', async () => {
    const snapshots = new ConversationSnapshots(store('retry'));
    const messages: Message[] = [{ role: 'user', content: 'task' }, ...stepMessages(1)];
    const first = await snapshots.write(messages, undefined, meta('x'));
    expect(await snapshots.write(messages, undefined, meta('x'))).toEqual(first);
  });

  it('refuses an artifact that is not a snapshot, and a snapshot shorter than its base, with a typed error naming the artifact', async () => {
    const counting = store('bad');
    const notSnapshot = await counting.put('{"hello":"world"}', { workflowId: 'chain', toolName: 'other', callId: 'x' });
    const snapshots = new ConversationSnapshots(counting);
    await expect(snapshots.read({ artifactId: notSnapshot, count: 1 })).rejects.toMatchObject({
      code: ErrorCode.conversationUnavailable,
      message: expect.stringContaining(notSnapshot),
    });
    const short = await snapshots.write([{ role: 'user', content: 'task' }], undefined, meta('short'));
    await expect(snapshots.read({ artifactId: short.artifactId, count: 2 })).rejects.toMatchObject({
      code: ErrorCode.conversationUnavailable,
      message: expect.stringContaining('has 1 messages; the run continued from 2'),
    });
  });
});
