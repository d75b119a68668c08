import { createHash } from 'node:crypto';
import type { S3Client } from '@aws-sdk/client-s3';
import { ArtifactNotFoundError, type ArtifactStore } from './artifact-store';

/** Where an S3-compatible store keeps artifacts, and how to reach it. */
export interface S3ArtifactStoreOptions {
  bucket: string;
  /** Key prefix, e.g. `agents/artifacts/` (default: none). */
  prefix?: string;
  /** An S3-compatible server (MinIO, versitygw, R2, …); default: AWS. */
  endpoint?: string;
  /** Default: AWS_REGION, else `us-east-1`. */
  region?: string;
  /** Path-style URLs (`endpoint/bucket/key`), which most S3-compatible servers need. Default: true with an endpoint. */
  forcePathStyle?: boolean;
  /** Default: the AWS SDK's chain (AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY, profiles, roles). */
  credentials?: { accessKeyId: string; secretAccessKey: string };
}

/**
 * Artifacts in an S3-compatible bucket, so every worker of a cluster reads what any of them wrote
 * (large tool results, conversation snapshots of long runs). Objects are named by the SHA-256 of
 * their content, like the folder store's files: writes are idempotent. Needs the optional peer
 * dependency `@aws-sdk/client-s3`, loaded when the store is first used.
 * @example
 * import { AgentPlugin, S3ArtifactStore } from 'durable-agents/worker';
 *
 * const artifacts = new S3ArtifactStore({ bucket: 'agent-artifacts', endpoint: 'http://minio:9000' });
 * const plugin = new AgentPlugin({ tools, artifacts });
 */
export class S3ArtifactStore implements ArtifactStore {
  private client: S3Client | undefined;

  constructor(private readonly options: S3ArtifactStoreOptions) {}

  /** Stores the content as `<prefix><sha256>.txt` and returns `sha256-<hex>`. */
  async put(content: string): Promise<string> {
    const id = `sha256-${createHash('sha256').update(content).digest('hex')}`;
    const { PutObjectCommand } = loadS3();
    await this.s3().send(
      new PutObjectCommand({ Bucket: this.options.bucket, Key: this.key(id), Body: content, ContentType: 'text/plain; charset=utf-8' }),
    );
    return id;
  }

  /** A slice (in characters) of an artifact's text. @throws ArtifactNotFoundError for a malformed or unknown id. */
  async read(id: string, offset = 0, length?: number): Promise<{ content: string; totalLength: number }> {
    if (!/^sha256-[0-9a-f]{64}$/.test(id)) throw new ArtifactNotFoundError(`'${id}' is not an artifact id`);
    const { GetObjectCommand } = loadS3();
    let text: string;
    try {
      const object = await this.s3().send(new GetObjectCommand({ Bucket: this.options.bucket, Key: this.key(id) }));
      text = (await object.Body?.transformToString('utf-8')) ?? '';
    } catch (error) {
      const name = (error as { name?: string }).name;
      if (name === 'NoSuchKey' || name === 'NotFound') throw new ArtifactNotFoundError(`No artifact '${id}' in bucket ${this.options.bucket}`);
      throw error;
    }
    return { content: text.slice(offset, length === undefined ? undefined : offset + length), totalLength: text.length };
  }

  /**
   * Deletes the artifact's object: true when it was there, false for an unknown or malformed id.
   * S3's delete answers the same either way, so a HEAD request tells which it was first.
   */
  async delete(id: string): Promise<boolean> {
    if (!/^sha256-[0-9a-f]{64}$/.test(id)) return false;
    const { DeleteObjectCommand, HeadObjectCommand } = loadS3();
    try {
      await this.s3().send(new HeadObjectCommand({ Bucket: this.options.bucket, Key: this.key(id) }));
    } catch (error) {
      const name = (error as { name?: string }).name;
      if (name === 'NoSuchKey' || name === 'NotFound') return false;
      throw error;
    }
    await this.s3().send(new DeleteObjectCommand({ Bucket: this.options.bucket, Key: this.key(id) }));
    return true;
  }

  /** `s3://<bucket>/<prefix>` (and the endpoint, when not AWS), as errors name the store. */
  toString(): string {
    return `s3://${this.options.bucket}/${this.options.prefix ?? ''}${this.options.endpoint ? ` at ${this.options.endpoint}` : ''}`;
  }

  private key(id: string): string {
    return `${this.options.prefix ?? ''}${id}.txt`;
  }

  private s3(): S3Client {
    if (this.client) return this.client;
    const { S3Client: Client } = loadS3();
    const { endpoint, region, forcePathStyle, credentials } = this.options;
    this.client = new Client({
      // `||`: compose passes unset variables as empty strings.
      region: region || process.env.AWS_REGION || 'us-east-1',
      ...(endpoint ? { endpoint } : {}),
      forcePathStyle: forcePathStyle ?? Boolean(endpoint),
      ...(credentials ? { credentials } : {}),
    });
    return this.client;
  }
}

/** The AWS SDK's S3 client, loaded on first use (an optional peer dependency). */
function loadS3(): typeof import('@aws-sdk/client-s3') {
  try {
    return require('@aws-sdk/client-s3') as typeof import('@aws-sdk/client-s3');
  } catch {
    throw new Error('S3ArtifactStore needs the package @aws-sdk/client-s3 in your project: npm install @aws-sdk/client-s3');
  }
}
