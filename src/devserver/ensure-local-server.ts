import { Connection } from '@temporalio/client';
import { LOCAL_DEV_ADDRESS, LOCAL_DEV_UI_URL, resolveTemporalTarget, type TemporalTarget } from '../connection/temporal-target';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { DEFAULT_DATA_DIR, startDevServer, type DevServer } from './dev-server';
import { startLocalCodecServer } from '../codec/codec-server';

export interface LocalServer {
  target: TemporalTarget;
  /** The server we started, or null when one was already there (or TEMPORAL_ADDRESS is set). */
  started: DevServer | null;
  stop(): Promise<void>;
}

/**
 * The server `dev` and the demo use: `TEMPORAL_ADDRESS` when set; else a dev server already
 * listening on 127.0.0.1:7233; else the embedded dev server, started now on 7233 (UI on 8233) with
 * its database in `.temporal-data/`. With AGENT_PAYLOAD_KEYS set, a codec endpoint for the local
 * Web UI runs beside it (and the dev server started here points its UI at it).
 */
export async function ensureLocalServer(log: (line: string) => void): Promise<LocalServer> {
  const codecServer = await startLocalCodecServer(LOCAL_DEV_UI_URL);
  if (codecServer) log(`Payloads are encrypted; the Web UI decodes them through ${codecServer.url}`);
  const closeCodec = async () => void (await codecServer?.close());
  try {
    const target = resolveTemporalTarget();
    if (target.external) return { target, started: null, stop: closeCodec };
    if (await isServing(LOCAL_DEV_ADDRESS)) {
      log(`Using the Temporal server already running at ${LOCAL_DEV_ADDRESS}`);
      return { target, started: null, stop: closeCodec };
    }
    const dbFile = path.join(DEFAULT_DATA_DIR, 'dev.db');
    log(
      existsSync(dbFile)
        ? 'Starting the Temporal dev server (temporal server start-dev)...'
        : `Starting the Temporal dev server (temporal server start-dev) for the first time: it creates its database ${dbFile}, which can take a minute or two...`,
    );
    const server = await startDevServer({ port: 7233, uiPort: 8233, dbFile, log, uiCodecEndpoint: codecServer?.url });
    log(`Temporal dev server on ${server.address}, Web UI at ${server.uiUrl ?? LOCAL_DEV_UI_URL}, database ${server.dbFile}`);
    return { target: { ...target, uiUrl: server.uiUrl }, started: server, stop: async () => (await server.stop(), await closeCodec()) };
  } catch (error) {
    await closeCodec();
    throw error;
  }
}

async function isServing(address: string): Promise<boolean> {
  try {
    const connection = await Connection.connect({ address, connectTimeout: 500 });
    try {
      await connection.workflowService.getSystemInfo({});
      return true;
    } finally {
      await connection.close();
    }
  } catch {
    return false;
  }
}
