import { startCodecServer, DEFAULT_CODEC_PORT } from '../../codec/codec-server';
import { EncryptionCodec, payloadKeysFromEnvironment } from '../../codec/encryption-codec';
import { LOCAL_DEV_UI_URL } from '../../connection/temporal-target';
import { AgentConfigError } from '../../protocol/errors';
import { waitForInterrupt } from './dev-command';

/** `codec-server`: serves /encode and /decode with the AGENT_PAYLOAD_KEYS keys until Ctrl-C. */
export async function codecServerCommand(options: { port?: string; host?: string; origin?: string[] }): Promise<void> {
  const keys = payloadKeysFromEnvironment();
  if (keys.length === 0) throw new AgentConfigError('AGENT_PAYLOAD_KEYS is not set: there is nothing to decode', ['AGENT_PAYLOAD_KEYS: not set']);
  const allowedOrigins = (options.origin ?? [LOCAL_DEV_UI_URL]).map((origin) => new URL(origin).origin);
  const server = await startCodecServer([new EncryptionCodec(keys)], {
    port: options.port ? Number(options.port) : DEFAULT_CODEC_PORT,
    host: options.host,
    allowedOrigins,
  });
  console.log(`Codec endpoint ${server.url} (for ${allowedOrigins.join(', ')}). In the Web UI: Settings → Codec Server, or start the`);
  console.log(`dev server with --ui-codec-endpoint ${server.url}. Press Ctrl-C to stop.`);
  await waitForInterrupt();
  await server.close();
}
