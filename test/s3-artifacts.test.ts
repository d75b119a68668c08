import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CreateBucketCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { z } from 'zod';
import { ArtifactNotFoundError } from '../src/artifacts/artifact-store';
import { artifactStoreFromEnvironment } from '../src/artifacts/artifact-store-from-environment';
import { ConversationSnapshots } from '../src/artifacts/conversation-snapshots';
import { S3ArtifactStore } from '../src/artifacts/s3-artifact-store';
import { ARTIFACT_STORE_PROBE, probeArtifactStore } from '../src/artifacts/probe-artifact-store';
import { ErrorCode } from '../src/protocol/errors';
import type { Message } from '../src/protocol/messages';
import { defineTool } from '../src/tools/define-tool';
import { runCli } from './support/cli-process';
import { CountingArtifactStore } from './support/counting-artifact-store';
import { startS3Server, S3_TEST_CREDENTIALS, type S3Server } from './support/s3-server';
import { createTestEnvironment, eventually, type TestEnvironment } from './support/test-env';

/**
 * Artifacts any worker can read: an S3-compatible store (a real versitygw server here), so a large
 * result offloaded on one machine, or a long run's conversation snapshot, is read on another.
 */

const BUCKET = 'agent-artifacts';
let server: S3Server;
let scratch: string;

function store(prefix = 'runs/'): S3ArtifactStore {
  return new S3ArtifactStore({ bucket: BUCKET, prefix, endpoint: server.endpoint, credentials: S3_TEST_CREDENTIALS });
}

beforeAll(async () => {
  scratch = mkdtempSync(path.join(os.tmpdir(), 's3-artifacts-'));
  server = await startS3Server(path.join(scratch, 'buckets'));
  const client = new S3Client({ region: 'us-east-1', endpoint: server.endpoint, forcePathStyle: true, credentials: S3_TEST_CREDENTIALS });
  await client.send(new CreateBucketCommand({ Bucket: BUCKET }));
  client.destroy();
}, 300_000);

afterAll(async () => {
  await server?.stop();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

describe('S3 artifact store', () => {
  it('stores content under its hash, reads slices of it, and refuses unknown ids', async () => {
    const content = `${'é'.repeat(10)}${'x'.repeat(100_000)}`;
    const id = await store().put(content);
    expect(id).toMatch(/^sha256-[0-9a-f]{64}$/);
    expect(await store().put(content)).toBe(id);
    // Another client (another machine) reads what this one wrote.
    expect(await store().read(id, 5, 10)).toEqual({ content: 'ééééé'.concat('xxxxx'), totalLength: content.length });
    await expect(store().read(`sha256-${'0'.repeat(64)}`)).rejects.toBeInstanceOf(ArtifactNotFoundError);
    await expect(store().read('../../etc/passwd')).rejects.toBeInstanceOf(ArtifactNotFoundError);
    // A prefix keeps stores apart in one bucket.
    await expect(store('other/').read(id)).rejects.toBeInstanceOf(ArtifactNotFoundError);
  });

  it('holds a chain of conversation snapshots as segments and indexes: each continuation puts only its new messages, another client reads the whole', async () => {
    const counting = new CountingArtifactStore(store('snapshots/'));
    const writer = new ConversationSnapshots(counting);
    // A snapshot written before indexes existed (a whole message array) starts the chain.
    const messages: Message[] = [
      { role: 'user', content: 'task' },
      { role: 'assistant', content: 'first', toolCalls: [] },
    ];
    let base = {
      artifactId: await counting.put(JSON.stringify(messages), { workflowId: 'chain', toolName: 'conversation-snapshot', callId: 'old' }),
      count: 2,
    };
    for (let continuation = 1; continuation <= 40; continuation++) {
      const added: Message[] = [{ role: 'user', content: `note ${continuation} `.padEnd(1_000, '.') }];
      messages.push(...added);
      const before = counting.bytesPut.get('conversation-snapshot')!;
      base = await writer.write(messages, base, { workflowId: 'chain', callId: `run-${continuation}` });
      // The new message, and an index of at most 32 parts.
      expect(counting.bytesPut.get('conversation-snapshot')! - before).toBeLessThan(Buffer.byteLength(JSON.stringify(added)) + 3_500);
    }
    expect(await new ConversationSnapshots(store('snapshots/')).read(base)).toEqual(messages);
  }, 120_000);

  it('is selected by AGENT_ARTIFACT_STORE, and a malformed value names the variable', async () => {
    const fromEnvironment = artifactStoreFromEnvironment({
      AGENT_ARTIFACT_STORE: `s3://${BUCKET}/runs`,
      AGENT_S3_ENDPOINT: server.endpoint,
      AWS_ACCESS_KEY_ID: 'x',
    });
    expect(fromEnvironment).toBeInstanceOf(S3ArtifactStore);
    expect(() => artifactStoreFromEnvironment({ AGENT_ARTIFACT_STORE: '/var/artifacts' })).toThrow(
      'AGENT_ARTIFACT_STORE must be an s3://bucket/prefix URL',
    );
  });

  it('lets a second worker read what the first offloaded, and continue a run from the first one’s conversation snapshot', async () => {
    const report = 'report '.repeat(5_000);
    const huge = defineTool({ name: 'huge', description: 'A long report.', parameters: z.object({}), execute: () => report });
    // The store names content by its hash, so the script knows the id the offload will have.
    const artifactId = `sha256-${createHash('sha256').update(report).digest('hex')}`;
    const scripts = {
      machines: {
        replies: [
          { toolCalls: [{ name: 'huge', args: {} }] },
          { toolCalls: [{ name: 'read_artifact', args: { artifact_id: artifactId, offset: 0, length: 14 } }] },
          { text: 'Read: {{tool:read_artifact}}' },
        ],
      },
    };
    let first: TestEnvironment | undefined = await createTestEnvironment({ tools: [huge], scripts, artifacts: store() });
    let second: TestEnvironment | undefined;
    try {
      const run = await first.agents.startRun({
        config: { name: 'machines', model: 'scripted:machines', tools: ['huge', 'read_artifact'], hitl_tools: ['read_artifact'] },
        task: 'Read the report on another machine',
        // Continue as new before step 2, so the second worker also reads the first one's snapshot.
        historyEventLimit: 10,
      });
      const pending = await eventually(async () => (await run.status()).pendingApprovals[0], 60_000);
      expect(pending.args).toMatchObject({ artifact_id: artifactId });
      // The first machine goes away; a second one, with a store client of its own, takes over.
      const taskQueue = first.taskQueue;
      await first.close();
      first = undefined;
      second = await createTestEnvironment({ tools: [huge], scripts, artifacts: store(), taskQueue });
      const resumed = second.agents.getRun(run.workflowId);
      await resumed.approve(pending.approvalId, { decidedBy: 'test' });
      const result = await resumed.result();
      expect(result.output).toBe('Read: [characters 0-14 of 35000]\nreport report ');
      expect(result.toolResults.at(-1)).toMatchObject({ toolName: 'read_artifact', isError: false });
      const continued = await second.client.workflow.count(`WorkflowId = '${run.workflowId}'`);
      expect(continued.count).toBeGreaterThan(1);
    } finally {
      await first?.close();
      await second?.close();
    }
  }, 180_000);
});

describe('a worker whose artifact store cannot write and read back', () => {
  const s3Environment = (overrides: Record<string, string>) => ({
    AGENT_ARTIFACT_STORE: `s3://${BUCKET}/probe`,
    AGENT_S3_ENDPOINT: server.endpoint,
    AWS_ACCESS_KEY_ID: S3_TEST_CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: S3_TEST_CREDENTIALS.secretAccessKey,
    AWS_REGION: 'us-east-1',
    ...overrides,
  });

  it('passes the probe with a bucket it may write, leaving one small object', async () => {
    await probeArtifactStore(store('probe/'));
    await probeArtifactStore(store('probe/'));
    const objects = await new S3Client({
      region: 'us-east-1',
      endpoint: server.endpoint,
      forcePathStyle: true,
      credentials: S3_TEST_CREDENTIALS,
    }).send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: 'probe/' }));
    expect(objects.Contents?.map((object) => object.Size)).toEqual([ARTIFACT_STORE_PROBE.length]);
  });

  it('refuses a bucket that does not exist, naming it and saying to create it (worker exits 2)', async () => {
    const missing = new S3ArtifactStore({ bucket: 'no-such-bucket', endpoint: server.endpoint, credentials: S3_TEST_CREDENTIALS });
    await expect(probeArtifactStore(missing, 'AGENT_ARTIFACT_STORE')).rejects.toMatchObject({
      code: ErrorCode.artifactStoreUnavailable,
      message: expect.stringContaining(
        `The worker cannot write to its artifact store s3://no-such-bucket/ at ${server.endpoint} (AGENT_ARTIFACT_STORE)`,
      ),
    });
    const worker = await runCli(['worker'], s3Environment({ AGENT_ARTIFACT_STORE: 's3://no-such-bucket/runs' }));
    expect(worker.code).toBe(2);
    expect(worker.stderr).toContain(`s3://no-such-bucket/runs/ at ${server.endpoint} (AGENT_ARTIFACT_STORE)`);
    expect(worker.stderr).toContain('Create the bucket');
    expect(worker.stdout).not.toContain('Worker polling');
  });

  it('refuses credentials the server does not accept, saying which variables to set (worker exits 2)', async () => {
    const worker = await runCli(['worker'], s3Environment({ AWS_SECRET_ACCESS_KEY: 'not-the-secret' }));
    expect(worker.code).toBe(2);
    expect(worker.stderr).toContain(
      `The worker cannot write to its artifact store s3://${BUCKET}/probe/ at ${server.endpoint} (AGENT_ARTIFACT_STORE)`,
    );
    expect(worker.stderr).toContain('AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY');
  });

  it('refuses a folder it cannot create, naming the folder and AGENT_ARTIFACT_DIR', async () => {
    const file = path.join(scratch, 'a-file');
    writeFileSync(file, 'not a folder');
    const worker = await runCli(['worker'], { AGENT_ARTIFACT_DIR: path.join(file, 'artifacts') });
    expect(worker.code).toBe(2);
    expect(worker.stderr).toContain(`The worker cannot write to its artifact store folder ${path.join(file, 'artifacts')} (AGENT_ARTIFACT_DIR)`);
    expect(worker.stderr).toContain('Use a folder this process may create and write (AGENT_ARTIFACT_DIR)');
  });
});
