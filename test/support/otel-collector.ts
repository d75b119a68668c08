// A real OpenTelemetry Collector for the tests: built once from tools/otelcol (its Go modules), started on a free port, read back from the file it writes.
import type { ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../../src/devserver/dev-server';
import { goInstall, readBuildRecord, writeBuildRecord } from '../../src/devserver/go-build';
import { LOCAL_BIN_DIR, PROJECT_ROOT } from '../../src/devserver/temporal-cli';
import { spawnInGroup, stopProcessGroup } from './process-group';
import { accepts } from './s3-server';

/** The collector's sources: a main listing its components (OTLP receiver, batch processor, file exporter) and its go.mod. */
export const COLLECTOR_SOURCE_DIR = path.join(PROJECT_ROOT, 'tools', 'otelcol');

/** What the binary was built from: a hash of the sources, so an edit of them builds it again. */
function sourceFingerprint(): string {
  const hash = createHash('sha256');
  for (const file of ['main.go', 'go.mod', 'go.sum']) hash.update(readFileSync(path.join(COLLECTOR_SOURCE_DIR, file)));
  return `tools/otelcol sha256:${hash.digest('hex').slice(0, 16)}`;
}

/**
 * The collector binary: OTELCOL, or .temporal-bin/otelcol built now from tools/otelcol when it is
 * missing or was built from other sources (minutes the first time: go downloads and compiles the
 * collector's modules; later builds reuse go's cache).
 */
export async function findOrBuildCollector(log: (line: string) => void = () => {}): Promise<string> {
  if (process.env.OTELCOL) return process.env.OTELCOL;
  const local = path.join(LOCAL_BIN_DIR, 'otelcol');
  const fingerprint = sourceFingerprint();
  const lastBuild = readBuildRecord(local);
  if (existsSync(local) && lastBuild?.built === fingerprint) return local;
  log(`Building the OpenTelemetry Collector from ${COLLECTOR_SOURCE_DIR} into ${LOCAL_BIN_DIR} (first time only)...`);
  const record = await goInstall('.', LOCAL_BIN_DIR, log, { label: 'the OpenTelemetry Collector', lastBuild, cwd: COLLECTOR_SOURCE_DIR });
  writeBuildRecord(local, { ...record, built: fingerprint });
  log(`  built the collector in ${record.seconds} s (${record.packages} packages)`);
  return local;
}

/** An attribute value as the OTLP JSON encoding carries it. */
interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
  arrayValue?: { values?: OtlpValue[] };
}
type AttributeValue = string | number | boolean | AttributeValue[] | undefined;

/** One span the collector received, flattened from the OTLP JSON its file exporter writes. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  startNanos: bigint;
  endNanos: bigint;
  attributes: Record<string, AttributeValue>;
  /** The `service.name` of the process that sent it. */
  service: string;
}

/** One data point of a metric the collector received. */
export interface ReceivedMetricPoint {
  metric: string;
  attributes: Record<string, AttributeValue>;
  /** A sum's or gauge's value, or a histogram's count. */
  value: number;
  /** A histogram's sum. */
  sum?: number;
}

export interface Collector {
  /** The OTLP/HTTP endpoint (`http://127.0.0.1:<port>`), what OTEL_EXPORTER_OTLP_ENDPOINT takes. */
  endpoint: string;
  /** Every span received so far. */
  spans(): ReceivedSpan[];
  /** Every metric data point received so far. */
  metricPoints(): ReceivedMetricPoint[];
  /** Polls until `done(spans)` holds, or throws after `timeoutMs` listing the span names it had. */
  waitForSpans(done: (spans: ReceivedSpan[]) => boolean, timeoutMs?: number): Promise<ReceivedSpan[]>;
  stop(): Promise<void>;
}

/** Starts the collector on a free loopback port, writing what it receives (traces and metrics) to a file in a temp folder it removes on `stop`. */
export async function startCollector(): Promise<Collector> {
  const binary = await findOrBuildCollector();
  const folder = mkdtempSync(path.join(os.tmpdir(), 'agents-otelcol-'));
  const output = path.join(folder, 'received.jsonl');
  const port = await freePort();
  const config = path.join(folder, 'config.yaml');
  writeFileSync(
    config,
    [
      'receivers:',
      '  otlp:',
      '    protocols:',
      '      http:',
      `        endpoint: 127.0.0.1:${port}`,
      'processors:',
      '  batch:',
      '    timeout: 100ms',
      'exporters:',
      '  file:',
      `    path: ${output}`,
      '    flush_interval: 100ms',
      'service:',
      // Its own metrics would listen on :8888 in every test that starts a collector.
      '  telemetry:',
      '    metrics:',
      '      level: none',
      '  pipelines:',
      '    traces: { receivers: [otlp], processors: [batch], exporters: [file] }',
      '    metrics: { receivers: [otlp], processors: [batch], exporters: [file] }',
      '',
    ].join('\n'),
  );
  const child: ChildProcess = spawnInGroup(binary, ['--config', config], { stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  child.stdout?.on('data', (chunk: Buffer) => (log += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (log += chunk.toString()));
  const stop = async () => {
    await stopProcessGroup(child);
    rmSync(folder, { recursive: true, force: true });
  };
  const deadline = Date.now() + 30_000;
  while (!(await accepts(port))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      await stopProcessGroup(child, { signal: 'SIGKILL' });
      rmSync(folder, { recursive: true, force: true });
      throw new Error(`the OpenTelemetry Collector did not serve on 127.0.0.1:${port}:\n${log}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const lines = () =>
    existsSync(output)
      ? readFileSync(output, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((line) => JSON.parse(line) as ExportedLine)
      : [];
  const spans = () => lines().flatMap(spansOf);
  return {
    endpoint: `http://127.0.0.1:${port}`,
    spans,
    metricPoints: () => lines().flatMap(metricPointsOf),
    async waitForSpans(done, timeoutMs = 30_000) {
      const until = Date.now() + timeoutMs;
      for (;;) {
        const received = spans();
        if (done(received)) return received;
        if (Date.now() > until)
          throw new Error(
            `the collector did not receive the expected spans in ${timeoutMs} ms; it has: ${received.map((span) => span.name).join(', ') || 'none'}`,
          );
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    },
    stop,
  };
}

interface ExportedLine {
  resourceSpans?: { resource?: { attributes?: OtlpAttribute[] }; scopeSpans?: { spans?: OtlpSpan[] }[] }[];
  resourceMetrics?: { scopeMetrics?: { metrics?: OtlpMetric[] }[] }[];
}
interface OtlpAttribute {
  key: string;
  value: OtlpValue;
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes?: OtlpAttribute[];
}
interface OtlpPoint {
  attributes?: OtlpAttribute[];
  asInt?: string | number;
  asDouble?: number;
  count?: string | number;
  sum?: number;
}
interface OtlpMetric {
  name: string;
  sum?: { dataPoints?: OtlpPoint[] };
  gauge?: { dataPoints?: OtlpPoint[] };
  histogram?: { dataPoints?: OtlpPoint[] };
}

function valueOf(value: OtlpValue): AttributeValue {
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.arrayValue) return (value.arrayValue.values ?? []).map(valueOf);
  return undefined;
}

function attributesOf(attributes: OtlpAttribute[] = []): Record<string, AttributeValue> {
  return Object.fromEntries(attributes.map((attribute) => [attribute.key, valueOf(attribute.value)]));
}

function spansOf(line: ExportedLine): ReceivedSpan[] {
  return (line.resourceSpans ?? []).flatMap((resourceSpans) => {
    const service = String(attributesOf(resourceSpans.resource?.attributes)['service.name'] ?? '');
    return (resourceSpans.scopeSpans ?? []).flatMap((scope) =>
      (scope.spans ?? []).map((span) => ({
        traceId: span.traceId,
        spanId: span.spanId,
        parentSpanId: span.parentSpanId ?? '',
        name: span.name,
        startNanos: BigInt(span.startTimeUnixNano),
        endNanos: BigInt(span.endTimeUnixNano),
        attributes: attributesOf(span.attributes),
        service,
      })),
    );
  });
}

function metricPointsOf(line: ExportedLine): ReceivedMetricPoint[] {
  return (line.resourceMetrics ?? []).flatMap((resource) =>
    (resource.scopeMetrics ?? []).flatMap((scope) =>
      (scope.metrics ?? []).flatMap((metric) => {
        const points = metric.sum?.dataPoints ?? metric.gauge?.dataPoints ?? metric.histogram?.dataPoints ?? [];
        return points.map((point) => ({
          metric: metric.name,
          attributes: attributesOf(point.attributes),
          value: Number(point.count ?? point.asInt ?? point.asDouble ?? 0),
          ...(point.sum !== undefined ? { sum: point.sum } : {}),
        }));
      }),
    ),
  );
}
