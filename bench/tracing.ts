// Bench section `tracing`: 10-step runs on a worker that traces and measures (to a real OpenTelemetry Collector) against the same worker without telemetry, interleaved round by round.
import os from 'node:os';
import type { AgentClient } from '../src/client/agent-client';
import { startAgentTelemetry } from '../src/telemetry/agent-telemetry-setup';
import { startCollector } from '../test/support/otel-collector';
import { median, ms, type BenchStack } from './bench-stack';
import { STEPS } from './step-overhead';

/** Above this 1-minute load average (BENCH_MAX_LOAD, default 4) the two medians are noise: the section says so and measures nothing. */
const MAX_LOAD = Number(process.env.BENCH_MAX_LOAD ?? 4);

interface RunCost {
  wallMs: number;
  /** CPU of this process (client, both workers, the exporters) while the run ran: only its worker was busy. */
  cpuMs: number;
}

async function timeRun(agents: AgentClient): Promise<RunCost> {
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const result = await (
    await agents.startRun({ config: { name: 'bench', model: 'scripted:steps10', tools: ['noop'], max_steps: STEPS }, task: 'go' })
  ).result();
  if (result.steps !== STEPS) throw new Error(`expected ${STEPS} steps, got ${result.steps}`);
  const cpu = process.cpuUsage(cpuBefore);
  return { wallMs: performance.now() - started, cpuMs: (cpu.user + cpu.system) / 1000 };
}

/**
 * Per-step cost of tracing: the traced worker exports every span (Temporal's, invoke_agent, chat,
 * execute_tool) and OTLP metrics to a collector on this machine; the target is a ratio ≤ 1.05.
 */
export async function measureTracingOverhead(stack: BenchStack, rounds: number): Promise<void> {
  const load = os.loadavg()[0]!;
  if (load >= MAX_LOAD) {
    console.log(
      `Tracing on / off: not measured, the load average is ${load.toFixed(1)} (≥ ${MAX_LOAD}); run it on a quiet machine (BENCH_ONLY=tracing)`,
    );
    return;
  }
  const collector = await startCollector();
  const telemetry = await startAgentTelemetry({
    tracesEndpoint: `${collector.endpoint}/v1/traces`,
    metricsEndpoint: `${collector.endpoint}/v1/metrics`,
    metricExportIntervalMs: 1_000,
  });
  const traced = await stack.addAgentWorker({ telemetry });
  try {
    await timeRun(stack.agents);
    await timeRun(traced.agents);
    const samples = { off: [] as RunCost[], on: [] as RunCost[] };
    for (let round = 0; round < rounds; round++) {
      const order: Array<['off' | 'on', AgentClient]> = [
        ['off', stack.agents],
        ['on', traced.agents],
      ];
      for (const [name, agents] of round % 2 === 0 ? order : order.reverse()) samples[name].push(await timeRun(agents));
    }
    const off = median(samples.off.map((run) => run.wallMs));
    const on = median(samples.on.map((run) => run.wallMs));
    const ratio = on / off;
    const cpuOff = median(samples.off.map((run) => run.cpuMs));
    const cpuOn = median(samples.on.map((run) => run.cpuMs));
    console.log(`Tracing on / off (median of ${rounds} interleaved rounds, ${STEPS} steps, load ${load.toFixed(1)}):`);
    console.log(
      `  per step ${ms(on / STEPS)} / ${ms(off / STEPS)}, ratio ${ratio.toFixed(3)} (target ≤ 1.05${ratio <= 1.05 ? ', met' : ', NOT met'}); spans received: ${collector.spans().length}`,
    );
    console.log(`  worker process CPU per step ${ms(cpuOn / STEPS)} / ${ms(cpuOff / STEPS)}, ratio ${(cpuOn / cpuOff).toFixed(3)}`);
  } finally {
    await traced.close();
    await telemetry.shutdown();
    await collector.stop();
  }
}
