import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { PROJECT_ROOT } from '../src/devserver/temporal-cli';
import { parseDuration } from '../src/config/duration';
import { DEFAULT_TIMEOUTS } from '../src/protocol/run-types';
import { telemetryOptionsFromEnvironment } from '../src/telemetry/telemetry-options';
import { pricesFromEnvironment } from '../src/models/price-file';
import { buildComposeCheck, runComposeCheck } from './support/compose-check';

/**
 * docker-compose.yml as docker compose loads it (compose-go, through deploy/compose-check), and the
 * checker itself refusing broken copies. No Docker engine runs here: images are checked against the
 * tags pinned in deploy/images.json, whose sources say where each tag was seen published.
 */
let checker: string;
let scratch: string;

beforeAll(() => {
  checker = buildComposeCheck();
  scratch = mkdtempSync(path.join(os.tmpdir(), 'compose-check-'));
}, 300_000);

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

interface LoadedService {
  image?: string;
  command?: string[] | null;
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test: string[] };
  stop_grace_period?: string;
  environment?: Record<string, string | null>;
  restart?: string;
}

/** A copy of the files the compose file refers to, with `edit` applied to the compose file. */
function brokenCopy(name: string, edit: (compose: string) => string, pins?: (pins: Record<string, unknown>) => void): string {
  const folder = path.join(scratch, name);
  mkdirSync(path.join(folder, 'deploy'), { recursive: true });
  for (const file of ['Dockerfile', 'deploy/temporal.Dockerfile']) cpSync(path.join(PROJECT_ROOT, file), path.join(folder, file));
  writeFileSync(path.join(folder, 'docker-compose.yml'), edit(readFileSync(path.join(PROJECT_ROOT, 'docker-compose.yml'), 'utf8')));
  const pinned = JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'deploy/images.json'), 'utf8')) as { images: Record<string, unknown> };
  pins?.(pinned.images);
  writeFileSync(path.join(folder, 'deploy/images.json'), JSON.stringify(pinned));
  return folder;
}

function replaceOnce(text: string, from: string, to: string): string {
  expect(text).toContain(from);
  return text.replace(from, to);
}

describe('docker-compose.yml', () => {
  test('loads with an empty environment under every profile and pulls only pinned images', () => {
    const result = runComposeCheck(checker, { cwd: PROJECT_ROOT });
    expect(result.stderr).toContain('loads under every profile and pulls only pinned images');
    expect(result.status).toBe(0);
  });

  test('starts in order: schema, server, setup (namespace with retention, search attributes), then healthy workers that outlast a tool', () => {
    const project = JSON.parse(runComposeCheck(checker, { cwd: PROJECT_ROOT, print: true }).stdout) as { services: Record<string, LoadedService> };
    const { services } = project;
    expect(services['temporal-schema']!.depends_on).toEqual({ postgresql: expect.objectContaining({ condition: 'service_healthy' }) });
    expect(services.temporal!.depends_on).toEqual({ 'temporal-schema': expect.objectContaining({ condition: 'service_completed_successfully' }) });
    expect(services.setup!.depends_on).toEqual({ temporal: expect.objectContaining({ condition: 'service_healthy' }) });
    expect(services.setup!.command).toEqual(expect.arrayContaining(['setup', '--retention', '30d']));
    const worker = services.worker!;
    expect(worker.depends_on).toEqual({ setup: expect.objectContaining({ condition: 'service_completed_successfully' }) });
    // Workers never register search attributes (`worker --setup`): the setup service does, once.
    expect(worker.command ?? null).toBeNull();
    expect(readFileSync(path.join(PROJECT_ROOT, 'Dockerfile'), 'utf8')).toMatch(/^CMD \["npx", "--no-install", "durable-agents", "worker"\]$/m);
    expect(worker.healthcheck?.test.join(' ')).toContain(worker.environment!.AGENT_WORKER_HEALTH_FILE);
    expect(parseDuration(worker.stop_grace_period!.replace('0s', ''))).toBeGreaterThan(DEFAULT_TIMEOUTS.toolMs);
    expect(worker.environment!.AGENT_ARTIFACT_DIR).toMatch(/^\/data\//);
    // The server's connection pools fit PostgreSQL: 4 services x (15 + 5) with postgresql.yaml's defaults.
    const maxConnections = Number(/max_connections=(\d+)/.exec(services.postgresql!.command!.join(' '))![1]);
    expect(maxConnections).toBeGreaterThan(4 * (15 + 5));
  });

  test("gives the worker what its documented options need: every optional peer, the settings' variables, a drain shorter than compose's kill delay", () => {
    const project = JSON.parse(runComposeCheck(checker, { cwd: PROJECT_ROOT, print: true }).stdout) as { services: Record<string, LoadedService> };
    const worker = project.services.worker!;
    const settings = [
      'AGENT_ARTIFACT_STORE',
      'AGENT_S3_ENDPOINT',
      'AWS_ACCESS_KEY_ID',
      'AWS_SECRET_ACCESS_KEY',
      'AWS_REGION',
      'AGENT_MEMORY_URL',
      'AGENT_MODEL_PRICES',
      'OTEL_EXPORTER_OTLP_ENDPOINT',
      'OTEL_EXPORTER_PROMETHEUS_PORT',
    ];
    for (const variable of settings) expect(worker.environment).toHaveProperty(variable);
    // Left unset in the user's shell, they start the worker with its defaults (no OpenTelemetry, built-in prices, memory in a folder).
    expect(telemetryOptionsFromEnvironment(worker.environment as NodeJS.ProcessEnv)).toBeNull();
    expect(pricesFromEnvironment(worker.environment as NodeJS.ProcessEnv)).toEqual({});
    // The image installs the optional peers the build stage lists: run that listing here.
    const dockerfile = readFileSync(path.join(PROJECT_ROOT, 'Dockerfile'), 'utf8');
    expect(dockerfile).toMatch(/npm install [^\n]*durable-agents-\*\.tgz \$\(cat \/tmp\/optional-peers\)/);
    const listing = /node -e "([^"]+)" > \/tmp\/optional-peers/.exec(dockerfile)![1]!;
    const peers = execFileSync(process.execPath, ['-e', listing], { cwd: PROJECT_ROOT, encoding: 'utf8' }).trim().split(' ');
    for (const name of ['@aws-sdk/client-s3', 'pg', '@opentelemetry/api', '@opentelemetry/sdk-trace-base', '@temporalio/interceptors-opentelemetry'])
      expect(peers).toContainEqual(expect.stringMatching(new RegExp(`^${name}@\\d`)));
    const graceMs = parseDuration(worker.environment!.AGENT_WORKER_SHUTDOWN_GRACE!);
    expect(graceMs).toBeGreaterThanOrEqual(DEFAULT_TIMEOUTS.toolMs);
    expect(parseDuration(worker.stop_grace_period!.replace('0s', ''))).toBeGreaterThan(graceMs);
  });

  test('the worker image runs as a non-root user on a pinned LTS Node', () => {
    const dockerfile = readFileSync(path.join(PROJECT_ROOT, 'Dockerfile'), 'utf8');
    const users = [...dockerfile.matchAll(/^USER (\S+)$/gm)].map((match) => match[1]);
    expect(users.at(-1)).toBe('node');
    expect(dockerfile).toMatch(/^FROM node:22-bookworm-slim$/m);
  });
});

describe('compose-check refuses', () => {
  test('a required variable, which stops `docker compose up` for everyone', () => {
    const folder = brokenCopy('required', (compose) =>
      compose.replace('AGENT_PAYLOAD_KEYS: ${AGENT_PAYLOAD_KEYS:-}\n    ports', 'AGENT_PAYLOAD_KEYS: ${AGENT_PAYLOAD_KEYS:?set the keys}\n    ports'),
    );
    const result = runComposeCheck(checker, { cwd: folder });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('required variable AGENT_PAYLOAD_KEYS is missing a value');
  });

  test('unpinned, untagged, latest and mismatched images, in services and in Dockerfiles', () => {
    const folder = brokenCopy('images', (compose) =>
      replaceOnce(
        replaceOnce(compose, 'image: temporalio/ui:2.34.0', 'image: temporalio/ui:2.99.0'),
        'image: postgres:15-bookworm',
        'image: postgres',
      ),
    );
    writeFileSync(path.join(folder, 'Dockerfile'), 'FROM node:latest\nFROM redis:7 AS cache\nFROM cache\n');
    const result = runComposeCheck(checker, { cwd: folder });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('service temporal-ui: image temporalio/ui:2.99.0: deploy/images.json pins temporalio/ui:2.34.0');
    expect(result.stderr).toContain('service postgresql: image postgres has no tag');
    expect(result.stderr).toContain('Dockerfile FROM node:latest uses latest');
    expect(result.stderr).toContain('Dockerfile FROM redis:7 is not pinned');
    // `FROM cache` is the stage above, not an image.
    expect(result.stderr).not.toContain('FROM cache');
  });

  test('a pin nothing uses, and a pin without its source', () => {
    const unused = runComposeCheck(checker, {
      cwd: brokenCopy(
        'unused-pin',
        (compose) => compose,
        (pins) => (pins['redis'] = { tag: '7', source: 'x' }),
      ),
    });
    expect(unused.status).toBe(1);
    expect(unused.stderr).toContain('pins redis, which nothing uses');
    const sourceless = runComposeCheck(checker, {
      cwd: brokenCopy(
        'no-source',
        (compose) => compose,
        (pins) => (pins['postgres'] = { tag: '15-bookworm' }),
      ),
    });
    expect(sourceless.status).toBe(2);
    expect(sourceless.stderr).toContain('images.postgres needs a tag other than latest and the source');
  });

  test('dependencies that can never be met: a disabled profile, a missing healthcheck, a one-shot that restarts', () => {
    const folder = brokenCopy('dependencies', (compose) =>
      replaceOnce(
        compose,
        '      setup:\n        condition: service_completed_successfully',
        '      codec-server:\n        condition: service_started',
      ),
    );
    const disabled = runComposeCheck(checker, { cwd: folder });
    expect(disabled.status).toBe(1);
    expect(disabled.stderr).toMatch(/service "?worker"? depends on .*codec-server/);
    const noHealth = brokenCopy('no-healthcheck', (compose) =>
      replaceOnce(
        compose,
        '    healthcheck:\n      test: ["CMD-SHELL", "pg_isready -U temporal"]',
        '    x-healthcheck:\n      test: ["CMD-SHELL", "pg_isready -U temporal"]',
      ),
    );
    const noHealthResult = runComposeCheck(checker, { cwd: noHealth });
    expect(noHealthResult.stderr).toContain('waits for postgresql to be healthy, but postgresql has no healthcheck');
    const restarting = brokenCopy('restarting', (compose) =>
      replaceOnce(compose, '    restart: "no"\n\n  # The plain server', '    restart: always\n\n  # The plain server'),
    );
    expect(runComposeCheck(checker, { cwd: restarting }).stderr).toContain(
      'waits for temporal-schema to complete, but temporal-schema restarts always',
    );
  });
});
