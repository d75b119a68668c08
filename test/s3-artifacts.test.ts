import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { z } from 'zod';
import { ArtifactNotFoundError } from '../src/artifacts/artifact-store';
import { artifactStoreFromEnvironment } from '../src/artifacts/artifact-store-from-environment';
import { S3ArtifactStore } from '../src/artifacts/s3-artifact-store';
import { defineTool } from '../src/tools/define-tool';
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

  it('is selected by AGENT_ARTIFACT_STORE, and a malformed value names the variable', async () => {
    const fromEnvironment = artifactStoreFromEnvironment({ AGENT_ARTIFACT_STORE: `s3://${BUCKET}/runs`, AGENT_S3_ENDPOINT: server.endpoint, AWS_ACCESS_KEY_ID: 'x' });
    expect(fromEnvironment).toBeInstanceOf(S3ArtifactStore);
    expect(() => artifactStoreFromEnvironment({ AGENT_ARTIFACT_STORE: '/var/artifacts' })).toThrow('AGENT_ARTIFACT_STORE must be an s3://bucket/prefix URL');
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
